//! Placeholder: the table of this format is being written.

use arrow_schema::{ArrowError, DataType, Field};
use tracecap::ConvertError;

use crate::emit::Emit;
use crate::table::Table;

pub(crate) fn fields(_table: Table) -> Vec<Field> {
    vec![Field::new("offset", DataType::Int64, false)]
}

pub(crate) fn walk(_data: &[u8], _out: &mut Emit<'_>) -> Result<(), ConvertError<ArrowError>> {
    Ok(())
}
