//! How long the engine itself takes for a query on `slices`, with no scan at all: the table is
//! first read from a dataset into memory, then the query runs over those batches, best of N.
//! This is the floor under any query from captures, whatever the speed of their parsing.
//!
//! The same data is timed twice, its text columns (`capture`, `name`, `category`) once as
//! dictionaries (as the export writes them) and once as `Utf8View` (as the engine's tables give
//! them), to show what the engine's grouping costs for each string type.
//!
//! ```text
//! cargo run --release -p tracecap-query --example engine_floor -- DATASET [SQL] [RUNS]
//! ```

use std::sync::Arc;
use std::time::{Duration, Instant};

use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::datasource::MemTable;
use datafusion::prelude::{SessionConfig, SessionContext};
use tracecap_query::{Config, Engine, Inputs};

const QUERY: &str = "SELECT name, count(*) AS n, sum(dur) AS total FROM slices GROUP BY name";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dataset = args
        .next()
        .ok_or("usage: engine_floor DATASET [SQL] [RUNS]")?;
    let sql = args.next().unwrap_or_else(|| QUERY.to_owned());
    let runs: usize = args.next().map_or(Ok(5), |r| r.parse())?;
    let config = Config::default();

    let engine = Engine::new(&config)?;
    engine.register(None, &Inputs::find(&[dataset.into()])?)?;
    let from_dataset = best(runs, || engine.collect(&sql).map(drop))?;
    let batches = engine.collect("SELECT * FROM slices")?;
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();

    let dictionary = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
    let memory = in_memory(&text_as(&batches, &dictionary)?, config.partitions)?;
    let floor = best(runs, || engine.runtime().block_on(run(&memory, &sql)))?;
    let views = text_as(&batches, &DataType::Utf8View)?;
    let views = in_memory(&views, config.partitions)?;
    let view_floor = best(runs, || engine.runtime().block_on(run(&views, &sql)))?;

    println!(
        "{rows} rows, {} partitions, best of {runs}",
        config.partitions
    );
    println!("from the dataset:                  {from_dataset:?}");
    println!("in memory, names as dictionaries:  {floor:?}");
    println!("in memory, names as Utf8View:      {view_floor:?}");
    Ok(())
}

/// The shortest of `runs` timings of `f`.
fn best<E>(runs: usize, mut f: impl FnMut() -> Result<(), E>) -> Result<Duration, E> {
    let mut best = Duration::MAX;
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        f()?;
        best = best.min(start.elapsed());
    }
    Ok(best)
}

/// A session whose `slices` is `batches`, dealt round-robin into `partitions` partitions.
fn in_memory(
    batches: &[RecordBatch],
    partitions: usize,
) -> datafusion::error::Result<SessionContext> {
    let schema = batches
        .first()
        .map_or_else(|| Arc::new(Schema::empty()), RecordBatch::schema);
    let n = partitions.max(1);
    let mut parts = vec![Vec::new(); n];
    for (i, batch) in batches.iter().enumerate() {
        parts[i % n].push(batch.clone());
    }
    let ctx =
        SessionContext::new_with_config(SessionConfig::new().with_target_partitions(partitions));
    ctx.register_table("slices", Arc::new(MemTable::try_new(schema, parts)?))?;
    Ok(ctx)
}

async fn run(ctx: &SessionContext, sql: &str) -> datafusion::error::Result<()> {
    ctx.sql(sql).await?.collect().await.map(drop)
}

/// `batches` with every column the engine holds as `Utf8View` or as a dictionary (the
/// export's dictionary-encoded text) cast to `to`.
fn text_as(
    batches: &[RecordBatch],
    to: &DataType,
) -> Result<Vec<RecordBatch>, Box<dyn std::error::Error>> {
    let mut out = Vec::with_capacity(batches.len());
    for batch in batches {
        let schema = batch.schema();
        let mut fields = Vec::new();
        let mut columns = Vec::new();
        for (field, column) in schema.fields().iter().zip(batch.columns()) {
            if matches!(
                field.data_type(),
                DataType::Dictionary(..) | DataType::Utf8View
            ) {
                columns.push(cast(column, to)?);
                fields.push(Field::new(field.name(), to.clone(), field.is_nullable()));
            } else {
                columns.push(Arc::clone(column));
                fields.push(field.as_ref().clone());
            }
        }
        out.push(RecordBatch::try_new(
            Arc::new(Schema::new(fields)),
            columns,
        )?);
    }
    Ok(out)
}
