//! Which captures a scan can skip: the scan's filters that look at the `capture` column alone
//! are evaluated on the capture ids before any capture is parsed.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, BooleanArray, StringArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::catalog::Session;
use datafusion::common::DFSchema;
use datafusion::error::Result;
use datafusion::logical_expr::expr_rewriter::unnormalize_col;
use datafusion::logical_expr::Expr;

/// The indices of `ids` that every filter of `filters` on the `capture` column alone can keep
/// (a filter that is null for an id drops it, as in `WHERE`).
pub(crate) fn keep(
    state: &dyn Session,
    schema: &SchemaRef,
    filters: &[Expr],
    ids: &[&str],
) -> Result<Vec<usize>> {
    let on_capture: Vec<&Expr> = filters.iter().filter(|f| only_capture(f)).collect();
    if on_capture.is_empty() {
        return Ok((0..ids.len()).collect());
    }
    let field = schema.field(0).clone();
    let ids_as_text: StringArray = ids.iter().copied().map(Some).collect();
    let column: ArrayRef = cast(&ids_as_text, field.data_type())?;
    let schema = Arc::new(Schema::new(vec![field]));
    let batch = RecordBatch::try_new(Arc::clone(&schema), vec![column])?;
    let df_schema = DFSchema::try_from(schema)?;
    let mut keep = vec![true; ids.len()];
    for filter in on_capture {
        let expr = state.create_physical_expr(unnormalize_col(filter.clone()), &df_schema)?;
        let result = expr.evaluate(&batch)?.into_array(ids.len())?;
        let Some(result) = result.as_any().downcast_ref::<BooleanArray>() else {
            continue; // not a predicate: keep everything, the engine decides
        };
        for (k, i) in keep.iter_mut().zip(0..) {
            *k &= result.is_valid(i) && result.value(i);
        }
    }
    Ok(keep
        .iter()
        .enumerate()
        .filter_map(|(i, k)| k.then_some(i))
        .collect())
}

/// Whether `expr` reads the `capture` column and no other, and can be evaluated on its own.
fn only_capture(expr: &Expr) -> bool {
    let columns = expr.column_refs();
    !columns.is_empty() && columns.iter().all(|c| c.name == "capture") && !expr.is_volatile()
}
