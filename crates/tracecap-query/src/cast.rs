//! A batch with its columns cast to the types of another schema of the same columns: how the
//! engine's tables ([`crate::schema`]) and plain results ([`crate::plain`]) get their types.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, AsArray};
use datafusion::arrow::compute::{cast, take};
use datafusion::arrow::datatypes::{DataType, SchemaRef};
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::record_batch::{RecordBatch, RecordBatchOptions};

/// `batch` with its columns cast to `schema`'s types, column by column (the two have the same
/// columns in the same order). A column of the right type is shared, not copied; a dictionary
/// of text becomes a view column whose views point into the dictionary's own text, so no
/// string is copied.
pub(crate) fn batch(batch: &RecordBatch, schema: &SchemaRef) -> Result<RecordBatch, ArrowError> {
    let columns = batch
        .columns()
        .iter()
        .zip(schema.fields())
        .map(|(c, f)| column(c, f.data_type()))
        .collect::<Result<Vec<_>, _>>()?;
    // The row count carries the rows of a batch of no columns (`SELECT count(*)`).
    let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    RecordBatch::try_new_with_options(Arc::clone(schema), columns, &options)
}

fn column(column: &ArrayRef, to: &DataType) -> Result<ArrayRef, ArrowError> {
    if column.data_type() == to {
        return Ok(Arc::clone(column));
    }
    match (column.as_any_dictionary_opt(), to) {
        // The dictionary's values as views, gathered by key: 16 bytes a row.
        (Some(dictionary), DataType::Utf8View) => {
            let values = cast(dictionary.values(), to)?;
            take(&values, dictionary.keys(), None)
        }
        _ => cast(column, to),
    }
}

/// The columns of `batch` at `indices`, in that order, as a batch of `schema` (whose columns
/// they are): its row count kept, also for no column.
pub(crate) fn pick(
    batch: &RecordBatch,
    indices: &[usize],
    schema: &SchemaRef,
) -> Result<RecordBatch, ArrowError> {
    let columns = batch.project(indices)?.columns().to_vec();
    let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    RecordBatch::try_new_with_options(Arc::clone(schema), columns, &options)
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{DictionaryArray, StringArray, StringViewArray};
    use datafusion::arrow::datatypes::{Field, Int32Type, Schema};

    #[test]
    fn a_dictionary_becomes_views_row_by_row_and_the_rest_is_shared() {
        let dictionary = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
        let export = Arc::new(Schema::new(vec![
            Field::new("name", dictionary, true),
            Field::new("args", DataType::Utf8, true),
        ]));
        let engine = Arc::new(Schema::new(vec![
            Field::new("name", DataType::Utf8View, true),
            Field::new("args", DataType::Utf8, true),
        ]));
        let long = "a name longer than twelve bytes";
        let names: DictionaryArray<Int32Type> =
            [Some("b"), Some(long), None, Some("b"), Some(long), Some("")]
                .into_iter()
                .collect();
        let args: ArrayRef = Arc::new(StringArray::from(vec![
            Some("x"),
            None,
            Some("y"),
            None,
            None,
            Some("z"),
        ]));
        let input = RecordBatch::try_new(export, vec![Arc::new(names), Arc::clone(&args)]).unwrap();
        let output = batch(&input, &engine).unwrap();
        assert_eq!(output.schema(), engine);
        let views: &StringViewArray = output.column(0).as_string_view();
        let got: Vec<Option<&str>> = views.iter().collect();
        assert_eq!(
            got,
            [Some("b"), Some(long), None, Some("b"), Some(long), Some("")]
        );
        assert!(Arc::ptr_eq(output.column(1), &args));
    }

    #[test]
    fn views_and_dictionaries_become_plain_text() {
        let from = Arc::new(Schema::new(vec![Field::new(
            "n",
            DataType::Utf8View,
            false,
        )]));
        let to = Arc::new(Schema::new(vec![Field::new("n", DataType::Utf8, false)]));
        let views: ArrayRef = Arc::new(StringViewArray::from(vec!["a", "bc"]));
        let output = batch(&RecordBatch::try_new(from, vec![views]).unwrap(), &to).unwrap();
        let text: Vec<Option<&str>> = output.column(0).as_string::<i32>().iter().collect();
        assert_eq!(text, [Some("a"), Some("bc")]);
    }
}
