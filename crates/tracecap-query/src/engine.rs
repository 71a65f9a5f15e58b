//! The engine: a DataFusion session whose tables are the export's tables over a set of inputs,
//! and a runtime to run its queries from code that is not async.

use std::path::PathBuf;
use std::sync::Arc;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::record_batch::{RecordBatch, RecordBatchReader};
use datafusion::catalog::{MemorySchemaProvider, TableProvider};
use datafusion::common::TableReference;
use datafusion::execution::SendableRecordBatchStream;
use datafusion::prelude::{SessionConfig, SessionContext};
use futures::StreamExt;
use tracecap_arrow::Table;

use crate::cache::Cache;
use crate::dataset::Opened;
use crate::error::Error;
use crate::faults::{Fault, Faults};
use crate::flame::stream::choose;
use crate::flame::stream::fold_captures;
use crate::flame::{
    fold_calls_sql, frames_sql, samples_sql, Folded, Folder, SampleFolder, StacksFrom,
};
use crate::inputs::Inputs;
use crate::provider::InputTable;

/// How queries run.
#[derive(Clone, Debug)]
pub struct Config {
    /// Partitions run at once (threads parsing captures, and the engine's parallelism).
    /// Default: every core.
    pub partitions: usize,
    /// Rows per batch handed over by a capture's parsing. Default 65 536.
    pub batch_rows: usize,
    /// Whether the tables' repeated text (`capture`, `name`, `category`, ...) is `Utf8View`
    /// (true, the default: the engine groups and compares views fastest; see [`crate::schema`])
    /// or dictionary-encoded as in the export (for a reader that wants the export's own types).
    pub views: bool,
    /// The cache of parsed tables that scans of capture files read and fill (see [`Cache`]);
    /// `None` (the default) parses every capture each time.
    pub cache: Option<Arc<Cache>>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            partitions: std::thread::available_parallelism().map_or(1, |n| n.get()),
            batch_rows: tracecap_arrow::Options::default().batch_rows,
            views: true,
            cache: None,
        }
    }
}

/// A query engine over captures and datasets.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/sample_small.prof");
/// use tracecap_query::{Config, Engine, Inputs};
///
/// let engine = Engine::new(&Config::default())?;
/// engine.register(None, &Inputs::find(&[sample.into()])?)?;
/// let batches = engine.collect("SELECT name, count(*) AS n FROM slices GROUP BY name")?;
/// assert!(batches.iter().map(|b| b.num_rows()).sum::<usize>() > 0);
/// assert!(engine.faults().is_empty());
/// # Ok(())
/// # }
/// ```
pub struct Engine {
    runtime: tokio::runtime::Runtime,
    ctx: SessionContext,
    config: Config,
    faults: Arc<Faults>,
    opened: Arc<Opened>,
}

impl Engine {
    /// An engine with no tables yet.
    pub fn new(config: &Config) -> Result<Engine, Error> {
        let partitions = config.partitions.max(1);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(partitions)
            .thread_name("tracecap-query")
            .enable_all()
            .build()?;
        let session = SessionConfig::new()
            .with_target_partitions(partitions)
            .with_information_schema(true);
        Ok(Engine {
            runtime,
            ctx: SessionContext::new_with_config(session),
            config: Config {
                partitions,
                ..config.clone()
            },
            faults: Arc::default(),
            opened: Arc::default(),
        })
    }

    /// Makes every table of the export ([`Table::ALL`]) a table over `inputs`: in the default
    /// schema (`slices`), or in the schema `schema` (`a.slices`), which is created. Its columns
    /// are [`crate::schema`]'s, or the export's with [`Config::views`] false.
    pub fn register(&self, schema: Option<&str>, inputs: &Inputs) -> Result<(), Error> {
        if let Some(schema) = schema {
            let catalog_name = self
                .ctx
                .copied_config()
                .options()
                .catalog
                .default_catalog
                .clone();
            let catalog = self.ctx.catalog(&catalog_name).ok_or_else(|| {
                datafusion::error::DataFusionError::Plan(format!("no catalog {catalog_name}"))
            })?;
            catalog.register_schema(schema, Arc::new(MemorySchemaProvider::new()))?;
        }
        for table in Table::ALL {
            let provider = InputTable::new(
                table,
                &inputs.captures,
                &inputs.datasets,
                (self.config.batch_rows, self.config.views),
                (
                    Arc::clone(&self.faults),
                    &self.opened,
                    self.config.cache.clone(),
                ),
            )?;
            let name = match schema {
                Some(s) => TableReference::partial(s, table.name()),
                None => TableReference::bare(table.name()),
            };
            let provider: Arc<dyn TableProvider> = Arc::new(provider);
            self.ctx.register_table(name, provider)?;
        }
        Ok(())
    }

    /// Plans `sql` and starts running it: its result, batch by batch. Errors in the SQL are
    /// reported here; errors while running, by the batches.
    pub fn query(&self, sql: &str) -> Result<Batches, Error> {
        let stream = self
            .runtime
            .block_on(async {
                let frame = self.ctx.sql(sql).await?;
                frame.execute_stream().await
            })
            .map_err(|e| self.opened.name_file(e))?;
        Ok(Batches {
            runtime: self.runtime.handle().clone(),
            schema: stream.schema(),
            stream,
            opened: Arc::clone(&self.opened),
        })
    }

    /// The whole result of `sql`.
    pub fn collect(&self, sql: &str) -> Result<Vec<RecordBatch>, Error> {
        self.query(sql)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(Error::from)
    }

    /// The slices of `inputs` folded into the stacks of a flame graph (see [`crate::flame`]),
    /// with `per_track` each track's name as the root of its stacks.
    ///
    /// Capture files are folded straight from their timelines ([`crate::flame::stream`]), on as
    /// many threads as the engine has partitions, without building the `slices` table; their
    /// faults are recorded as a query records them ([`Engine::faults`]). Datasets are folded
    /// from the rows of [`crate::flame::fold_sql`] over their Parquet tables.
    pub fn fold(&self, inputs: &Inputs, per_track: bool) -> Result<Folded, Error> {
        self.fold_from(inputs, per_track, StacksFrom::Auto)
    }

    /// The stacks of `inputs` folded into a flame graph: sampled call stacks, nested calls, or
    /// the samples when there are any and else the calls ([`StacksFrom`]); never thread states,
    /// scheduling slices or counters. With [`StacksFrom::Auto`], the samples of any input make
    /// the graph one of samples (its weights are counts, not nanoseconds).
    pub fn fold_from(
        &self,
        inputs: &Inputs,
        per_track: bool,
        from: StacksFrom,
    ) -> Result<Folded, Error> {
        let (mut calls, mut samples) = fold_captures(
            &inputs.captures,
            (per_track, from),
            self.config.partitions,
            &self.faults,
        )?;
        if !inputs.datasets.is_empty() {
            let (c, s) = self.fold_datasets(&inputs.datasets, per_track, from)?;
            calls.merge(&c);
            samples.merge(&s);
        }
        Ok(choose(from, calls, samples))
    }

    /// The calls and the samples of `datasets` folded, through the fold queries over tables of
    /// these datasets alone (in a session of their own).
    fn fold_datasets(
        &self,
        datasets: &[PathBuf],
        per_track: bool,
        from: StacksFrom,
    ) -> Result<(Folded, Folded), Error> {
        let session = SessionConfig::new().with_target_partitions(self.config.partitions);
        let ctx = SessionContext::new_with_config(session);
        for table in [
            Table::Slices,
            Table::Tracks,
            Table::StackSamples,
            Table::StackFrames,
        ] {
            let provider = InputTable::new(
                table,
                &[],
                datasets,
                (self.config.batch_rows, self.config.views),
                (
                    Arc::clone(&self.faults),
                    &self.opened,
                    self.config.cache.clone(),
                ),
            )?;
            ctx.register_table(table.name(), Arc::new(provider))?;
        }
        self.runtime.block_on(async {
            let mut calls = Folded::default();
            if from != StacksFrom::Samples {
                let sql = fold_calls_sql(None, per_track);
                let mut stream = ctx.sql(&sql).await?.execute_stream().await?;
                let mut folder = Folder::new(per_track);
                while let Some(batch) = stream.next().await {
                    folder.push(&batch.map_err(|e| self.opened.name_file(e))?)?;
                }
                calls = folder.finish();
            }
            let mut samples = Folded::default();
            if from != StacksFrom::Calls {
                let mut folder = SampleFolder::new(per_track);
                let mut stream = ctx.sql(&frames_sql(None)).await?.execute_stream().await?;
                while let Some(batch) = stream.next().await {
                    folder.push_frames(&batch.map_err(|e| self.opened.name_file(e))?)?;
                }
                let sql = samples_sql(None, per_track);
                let mut stream = ctx.sql(&sql).await?.execute_stream().await?;
                while let Some(batch) = stream.next().await {
                    folder.push_samples(&batch.map_err(|e| self.opened.name_file(e))?)?;
                }
                samples = folder.finish();
            }
            Ok::<_, Error>((calls, samples))
        })
    }

    /// How its queries run.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The captures found damaged or unreadable by the queries run so far, once each, sorted by
    /// id.
    pub fn faults(&self) -> Vec<Fault> {
        self.faults.list()
    }

    /// The DataFusion session, to register more tables or build queries with its DataFrame API
    /// (run them on [`Engine::runtime`]).
    pub fn context(&self) -> &SessionContext {
        &self.ctx
    }

    /// The runtime the engine's queries run on.
    pub fn runtime(&self) -> &tokio::runtime::Runtime {
        &self.runtime
    }
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// The result of a query, batch by batch, as an Arrow [`RecordBatchReader`]. Each batch is
/// computed when asked for; dropping the reader stops the query.
pub struct Batches {
    runtime: tokio::runtime::Handle,
    schema: SchemaRef,
    stream: SendableRecordBatchStream,
    opened: Arc<Opened>,
}

impl Iterator for Batches {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        let next = self.runtime.block_on(self.stream.next())?;
        Some(next.map_err(|e| ArrowError::ExternalError(Box::new(self.opened.name_file(e)))))
    }
}

impl RecordBatchReader for Batches {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }
}

impl std::fmt::Debug for Batches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batches")
            .field("schema", &self.schema)
            .finish_non_exhaustive()
    }
}
