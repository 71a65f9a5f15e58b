//! One table of the export, over a set of inputs, as a DataFusion table: its capture files are
//! parsed by partitions running in parallel, its datasets are read as Parquet, and the two are
//! one table.

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::Session;
use datafusion::datasource::listing::ListingTable;
use datafusion::datasource::{TableProvider, TableType};
use datafusion::error::Result;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::empty::EmptyExec;
use datafusion::physical_plan::streaming::{PartitionStream, StreamingTableExec};
use datafusion::physical_plan::union::UnionExec;
use datafusion::physical_plan::ExecutionPlan;
use tracecap_arrow::Table;

use crate::cache::Cache;
use crate::dataset;
use crate::faults::Faults;
use crate::inputs::CaptureFile;
use crate::partition::{CapturePartition, Queue};
use crate::prune;
use crate::views;

/// `table` over capture files and datasets.
#[derive(Debug)]
pub(crate) struct InputTable {
    table: Table,
    /// Its columns: [`views::schema`], or the export's.
    schema: SchemaRef,
    /// The capture files whose format has rows in the table.
    captures: Vec<CaptureFile>,
    /// The table's folders in the datasets, read as one Parquet table.
    datasets: Option<Arc<ListingTable>>,
    batch_rows: usize,
    faults: Arc<Faults>,
    cache: Option<Arc<Cache>>,
}

impl InputTable {
    pub(crate) fn new(
        table: Table,
        captures: &[CaptureFile],
        datasets: &[std::path::PathBuf],
        (batch_rows, views): (usize, bool),
        (faults, opened, cache): (Arc<Faults>, &Arc<dataset::Opened>, Option<Arc<Cache>>),
    ) -> Result<InputTable> {
        let schema = if views {
            views::schema(table)
        } else {
            table.schema()
        };
        let captures = captures
            .iter()
            .filter(|c| table.holds(c.format))
            .cloned()
            .collect();
        Ok(InputTable {
            table,
            datasets: dataset::table(table, &schema, datasets, opened)?,
            schema,
            captures,
            batch_rows,
            faults,
            cache,
        })
    }

    /// The captures to scan, in at most `n` partitions that share them (see [`Queue`]).
    /// Each partition sends batches of the projected columns only, in `schema`.
    fn partitions(
        &self,
        keep: &[usize],
        n: usize,
        (projection, schema): (Option<&Vec<usize>>, &SchemaRef),
    ) -> Vec<Arc<dyn PartitionStream>> {
        let columns: Option<Arc<[usize]>> = projection.map(|p| p.as_slice().into());
        let mut chosen: Vec<&CaptureFile> =
            keep.iter().filter_map(|&i| self.captures.get(i)).collect();
        if chosen.is_empty() {
            return Vec::new();
        }
        // The largest first, so that the last captures taken are small and the partitions
        // finish close together.
        chosen.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.source.cmp(&b.source)));
        let n = n.clamp(1, chosen.len());
        let queue = Arc::new(Queue::new(chosen.into_iter().cloned().collect()));
        (0..n)
            .map(|index| {
                Arc::new(CapturePartition {
                    table: self.table,
                    index,
                    schema: Arc::clone(schema),
                    columns: columns.clone(),
                    queue: Arc::clone(&queue),
                    batch_rows: self.batch_rows,
                    faults: Arc::clone(&self.faults),
                    cache: self.cache.clone().map(|c| (c, Arc::clone(&self.schema))),
                }) as Arc<dyn PartitionStream>
            })
            .collect()
    }
}

#[async_trait]
impl TableProvider for InputTable {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    /// Every filter is used where it can be (the capture ids, Parquet statistics) and applied
    /// again by the engine.
    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        Ok(vec![TableProviderFilterPushDown::Inexact; filters.len()])
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let mut plans: Vec<Arc<dyn ExecutionPlan>> = Vec::new();
        let ids: Vec<&str> = self.captures.iter().map(|c| c.source.id.as_str()).collect();
        let keep = prune::keep(state, &self.schema, filters, &ids)?;
        let projected = match projection {
            Some(p) => Arc::new(self.schema.project(p)?),
            None => Arc::clone(&self.schema),
        };
        let n = state.config().target_partitions();
        let partitions = self.partitions(&keep, n, (projection, &projected));
        if !partitions.is_empty() {
            let exec = StreamingTableExec::try_new(
                Arc::clone(&projected),
                partitions,
                None,
                [],
                false,
                limit,
            )?;
            plans.push(Arc::new(exec));
        }
        if let Some(parquet) = &self.datasets {
            plans.push(parquet.scan(state, projection, filters, limit).await?);
        }
        match plans.len() {
            0 => Ok(Arc::new(EmptyExec::new(projected))),
            1 => Ok(plans.remove(0)),
            _ => UnionExec::try_new(plans),
        }
    }
}
