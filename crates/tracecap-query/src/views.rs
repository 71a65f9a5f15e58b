//! The tables as the engine sees them: every dictionary-encoded text column of the export
//! (`capture`, `name`, `category`, `format`, `kind`, ...) is a `Utf8View` column instead.
//!
//! DataFusion groups and compares view columns directly (a 16-byte view per row, short strings
//! held inline), while a dictionary column goes through its row encoding: a `GROUP BY name` over
//! dictionaries takes about twice as long. Capture batches are built with dictionaries (the
//! export writes them so) and turned into views column by column ([`crate::cast`]), a gather of
//! 16-byte views per row; the datasets' Parquet files are read straight into views by the
//! Parquet reader.

use std::sync::{Arc, OnceLock};

use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
