//! A query's result with plain text columns, for readers that know only the common types.
//!
//! The engine hands out text as `Utf8View` (see the tables' columns) or, where a query builds
//! them, as dictionaries. Written to a Parquet file or handed to Python, such columns would
//! carry their Arrow type along; [`schema`] and [`batch`] turn every one of them into plain
//! `Utf8`, which every Parquet and Arrow reader (pandas, Spark, older pyarrow) takes.
//!
//! ```
//! use std::sync::Arc;
//! use tracecap_query::datafusion::arrow::array::{ArrayRef, StringViewArray};
//! use tracecap_query::datafusion::arrow::datatypes::{DataType, Field, Schema};
//! use tracecap_query::datafusion::arrow::record_batch::RecordBatch;
//!
//! let schema = Arc::new(Schema::new(vec![Field::new("name", DataType::Utf8View, false)]));
//! let names: ArrayRef = Arc::new(StringViewArray::from(vec!["a", "b"]));
//! let batch = RecordBatch::try_new(schema.clone(), vec![names]).unwrap();
//!
//! let plain = tracecap_query::plain::schema(&schema);
//! assert_eq!(plain.field(0).data_type(), &DataType::Utf8);
//! let batch = tracecap_query::plain::batch(&plain, &batch).unwrap();
//! assert_eq!(batch.column(0).data_type(), &DataType::Utf8);
//! ```

use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::record_batch::RecordBatch;

/// `schema` with every dictionary-encoded column as its values' type, and every view column
/// (`Utf8View`, `BinaryView`) as its plain counterpart.
pub fn schema(schema: &SchemaRef) -> SchemaRef {
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| f.as_ref().clone().with_data_type(plain(f.data_type())))
        .collect();
    Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

fn plain(data_type: &DataType) -> DataType {
    match data_type {
        DataType::Dictionary(_, values) => plain(values),
        DataType::Utf8View => DataType::Utf8,
        DataType::BinaryView => DataType::Binary,
        other => other.clone(),
    }
}

/// `batch` with its columns cast to `schema`'s types (a [`schema`] of the batch's own).
pub fn batch(schema: &SchemaRef, batch: &RecordBatch) -> Result<RecordBatch, ArrowError> {
    crate::cast::batch(batch, schema)
}
