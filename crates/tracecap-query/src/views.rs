//! The tables as the engine sees them: every dictionary-encoded text column of the export
//! (`capture`, `name`, `category`, `format`, `kind`, ...) is a `Utf8View` column instead.
//!
//! DataFusion groups and compares view columns directly (a 16-byte view per row, short strings
//! held inline), while a dictionary column goes through its row encoding: a `GROUP BY name` over
//! dictionaries takes about twice as long. Capture batches are built with dictionaries (the
//! export writes them so) and turned into views here, a gather of 16-byte views per row; the
//! datasets' Parquet files are read straight into views by the Parquet reader.

use std::sync::{Arc, OnceLock};

use datafusion::arrow::array::{Array, ArrayRef, AsArray};
use datafusion::arrow::compute::{cast, take};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::record_batch::RecordBatch;
use tracecap_arrow::Table;

/// `table`'s schema as queries see it: the export's, with its dictionary-encoded text as
/// `Utf8View`.
///
/// ```
/// use tracecap_query::datafusion::arrow::datatypes::DataType;
/// use tracecap_query::schema;
/// use tracecap_arrow::Table;
///
/// let slices = schema(Table::Slices);
/// assert_eq!(slices.field_with_name("name").unwrap().data_type(), &DataType::Utf8View);
/// assert_eq!(slices.field_with_name("dur").unwrap().data_type(), &DataType::Int64);
/// ```
pub fn schema(table: Table) -> SchemaRef {
    static ALL: OnceLock<Vec<SchemaRef>> = OnceLock::new();
    let all = ALL.get_or_init(|| Table::ALL.iter().map(|&t| of(&t.schema())).collect());
    match all.get(table as usize) {
        Some(s) => Arc::clone(s),
        None => of(&table.schema()), // ok: never, ALL holds every table in order
    }
}

/// `schema` with every dictionary of text as `Utf8View`.
fn of(schema: &Schema) -> SchemaRef {
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| match f.data_type() {
            DataType::Dictionary(_, values) if **values == DataType::Utf8 => {
                f.as_ref().clone().with_data_type(DataType::Utf8View)
            }
            _ => f.as_ref().clone(),
        })
        .collect();
    Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// `batch` (of its table's export schema) with the columns of `schema` ([`schema`] of the same
/// table): each dictionary of text becomes a view column whose views point into the
/// dictionary's own text, so no string is copied.
pub(crate) fn batch(batch: RecordBatch, schema: &SchemaRef) -> Result<RecordBatch, ArrowError> {
    let columns = batch
        .columns()
        .iter()
        .zip(schema.fields())
        .map(|(column, field)| match column.data_type() {
            DataType::Dictionary(..) if field.data_type() == &DataType::Utf8View => {
                dictionary_as_views(column)
            }
            _ => Ok(Arc::clone(column)),
        })
        .collect::<Result<Vec<_>, _>>()?;
    RecordBatch::try_new(Arc::clone(schema), columns)
}

/// A dictionary column as views: the dictionary's values as views, gathered by key.
fn dictionary_as_views(column: &ArrayRef) -> Result<ArrayRef, ArrowError> {
    let Some(dictionary) = column.as_any_dictionary_opt() else {
        return cast(column, &DataType::Utf8View);
    };
    let values = cast(dictionary.values(), &DataType::Utf8View)?;
    take(&values, dictionary.keys(), None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{DictionaryArray, StringArray, StringViewArray};
    use datafusion::arrow::datatypes::Int32Type;

    #[test]
    fn every_text_dictionary_is_a_view_and_nothing_else_changes() {
        for table in Table::ALL {
            let export = table.schema();
            let engine = schema(table);
            assert_eq!(export.fields().len(), engine.fields().len());
            for (e, v) in export.fields().iter().zip(engine.fields()) {
                assert_eq!(e.name(), v.name());
                assert_eq!(e.is_nullable(), v.is_nullable());
                match e.data_type() {
                    DataType::Dictionary(..) => assert_eq!(v.data_type(), &DataType::Utf8View),
                    other => assert_eq!(v.data_type(), other),
                }
            }
        }
        assert_eq!(
            schema(Table::Slices)
                .field_with_name("name")
                .unwrap()
                .data_type(),
            &DataType::Utf8View
        );
    }

    #[test]
    fn a_batch_keeps_its_values_row_by_row() {
        let export = Arc::new(Schema::new(vec![
            Field::new(
                "name",
                DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
                true,
            ),
            Field::new("args", DataType::Utf8, true),
        ]));
        let engine = of(&export);
        let long = "a name longer than twelve bytes";
        let names: DictionaryArray<Int32Type> =
            [Some("b"), Some(long), None, Some("b"), Some(long), Some("")]
                .into_iter()
                .collect();
        let args = StringArray::from(vec![Some("x"), None, Some("y"), None, None, Some("z")]);
        let columns: Vec<ArrayRef> = vec![Arc::new(names), Arc::new(args.clone())];
        let input = RecordBatch::try_new(export, columns).unwrap();
        let output = batch(input, &engine).unwrap();
        assert_eq!(output.schema(), engine);
        let views: &StringViewArray = output.column(0).as_string_view();
        let got: Vec<Option<&str>> = views.iter().collect();
        assert_eq!(
            got,
            [Some("b"), Some(long), None, Some("b"), Some(long), Some("")]
        );
        assert_eq!(output.column(1).as_string::<i32>(), &args);
    }
}
