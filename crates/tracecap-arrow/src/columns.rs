//! Column helpers every table uses: the `capture` column, dictionary-encoded text, and numbers
//! read from a file as Arrow's signed 64-bit integers.

use std::sync::Arc;

use arrow_array::builder::{PrimitiveBuilder, StringBuilder};
use arrow_array::types::{ArrowPrimitiveType, Int32Type};
use arrow_array::{ArrayRef, DictionaryArray, Int32Array, StringArray};
use arrow_schema::{DataType, Field};

/// Dictionary-encoded UTF-8 text (`Dictionary(Int32, Utf8)`): for names and kinds that repeat.
pub(crate) fn dict_utf8(name: &str, nullable: bool) -> Field {
    Field::new(
        name,
        DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
        nullable,
    )
}

/// The first column of every table: the capture's id, the same on every row of a batch.
pub(crate) fn capture_field() -> Field {
    dict_utf8("capture", false)
}

/// The `capture` column of a batch of `rows` rows: one dictionary value, every key 0.
pub(crate) fn capture_column(id: &str, rows: usize) -> ArrayRef {
    let keys = Int32Array::from(vec![0; rows]);
    let values: ArrayRef = Arc::new(StringArray::from(vec![id]));
    Arc::new(DictionaryArray::<Int32Type>::new(keys, values))
}

/// A number of the file as an Int64 column value: values past `i64::MAX` (which no field of a
/// real capture reaches) saturate.
#[inline]
pub(crate) fn int(x: u64) -> i64 {
    i64::try_from(x).unwrap_or(i64::MAX)
}

/// What `builder` holds, as a column; in its place an empty builder with room for `rows` rows
/// (a finished builder keeps no room, and would grow again by doubling for the next batch).
pub(crate) fn finish_numbers<T: ArrowPrimitiveType>(
    builder: &mut PrimitiveBuilder<T>,
    rows: usize,
) -> ArrayRef {
    Arc::new(std::mem::replace(builder, PrimitiveBuilder::with_capacity(rows)).finish())
}

/// [`finish_numbers`] for text.
pub(crate) fn finish_text(builder: &mut StringBuilder, rows: usize) -> ArrayRef {
    Arc::new(std::mem::replace(builder, StringBuilder::with_capacity(rows, 0)).finish())
}
