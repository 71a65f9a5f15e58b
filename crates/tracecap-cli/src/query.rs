//! `tracecap query SQL INPUT...`: SQL over captures and datasets; `tracecap query --schema`.

use std::io::Write;
use std::path::{Path, PathBuf};

use std::sync::Arc;
use tracecap_arrow::Table;

use tracecap_query::{Cache, Config, Engine, Inputs};

use crate::error::CliError;
use crate::results::{self, ResultFormat};

/// The command line of `tracecap query`.
pub struct QueryArgs {
    /// The SQL (`None` with `--schema`).
    pub sql: Option<String>,
    /// Capture files, directories of captures and datasets.
    pub inputs: Vec<PathBuf>,
    /// How the result is written.
    pub format: ResultFormat,
    /// Where (standard output when `None`).
    pub output: Option<PathBuf>,
    /// Exit 1 when an input is damaged or no capture.
    pub strict: bool,
    /// Partitions run at once.
    pub threads: Option<usize>,
    /// Read and fill the cache of parsed tables.
    pub cache: bool,
}

/// Runs `tracecap query`.
pub fn run(args: &QueryArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CliError> {
    let Some(sql) = &args.sql else {
        return schema(out);
    };
    let sides = Sides::open(
        &[(None, &args.inputs)],
        (args.threads, args.cache),
        args.output.as_deref(),
    )?;
    let mut batches = sides.engine.query(sql).map_err(query_error)?;
    results::write(&mut batches, args.format, args.output.as_deref(), out)?;
    drop(batches);
    sides.finish(args.strict, err)
}

/// The engine over one or two sides of inputs (registered in the default schema, or in the
/// schemas `a` and `b`), with what was found.
pub struct Sides {
    /// The engine.
    pub engine: Engine,
    inputs: Vec<Inputs>,
}

impl Sides {
    /// Finds the inputs of each side and registers them, with `threads` partitions and, with
    /// `cache`, the cache of parsed tables the environment names ([`Cache::from_env`]). An
    /// output file among the inputs is refused, and so are sides with nothing to query.
    pub fn open(
        sides: &[(Option<&str>, &Vec<PathBuf>)],
        (threads, cache): (Option<usize>, bool),
        output: Option<&Path>,
    ) -> Result<Sides, CliError> {
        let config = Config {
            partitions: threads.unwrap_or(Config::default().partitions),
            cache: cache.then(Cache::from_env).flatten().map(Arc::new),
            ..Config::default()
        };
        let engine = Engine::new(&config).map_err(query_error)?;
        let mut found = Vec::new();
        for (schema, paths) in sides {
            if paths.iter().any(|p| p.as_os_str() == "-") {
                return Err(CliError::Usage(
                    "query, diff and flamegraph read files and directories, not standard input (-)"
                        .into(),
                ));
            }
            let inputs = Inputs::find_with(paths, config.cache.as_deref()).map_err(input_error)?;
            if let Some(output) = output {
                refuse_overwrite(output, &inputs)?;
            }
            if inputs.is_empty() {
                let side = schema.map_or(String::new(), |s| format!(" of side {s}"));
                return Err(CliError::Verdict(format!(
                    "no capture or dataset in the inputs{side} ({})",
                    inputs.why_empty()
                )));
            }
            engine.register(*schema, &inputs).map_err(query_error)?;
            found.push(inputs);
        }
        Ok(Sides {
            engine,
            inputs: found,
        })
    }

    /// What was found for each side, in the order of the sides.
    pub fn inputs(&self) -> &[Inputs] {
        &self.inputs
    }

    /// Warns of every input that is no capture or was damaged; with `strict`, they make exit 1.
    pub fn finish(&self, strict: bool, err: &mut dyn Write) -> Result<(), CliError> {
        let mut bad = 0;
        for inputs in &self.inputs {
            for (path, why) in &inputs.not_captures {
                writeln!(
                    err,
                    "warning: {}: not a capture ({why}), skipped",
                    path.display()
                )?;
                bad += 1;
            }
            for e in &inputs.unreadable {
                writeln!(err, "warning: {e}, skipped")?;
                bad += 1;
            }
        }
        for fault in self.engine.faults() {
            writeln!(err, "warning: {fault}")?;
            bad += 1;
        }
        if let Some(cache) = &self.engine.config().cache {
            for note in cache.notes() {
                writeln!(err, "warning: {note}")?;
            }
        }
        if strict && bad > 0 {
            return Err(CliError::Verdict(format!(
                "{bad} input(s) damaged or not captures (see the warnings)"
            )));
        }
        Ok(())
    }
}

/// Refuses an output file that is one of the captures, or inside one of the datasets.
fn refuse_overwrite(output: &Path, inputs: &Inputs) -> Result<(), CliError> {
    if output == Path::new("-") {
        return Ok(());
    }
    // Captures are regular files: an output that is none (a device, a file not there yet) is
    // none of them, and the thousands of captures of a folder are not looked at one by one.
    let hit = std::fs::metadata(output).is_ok_and(|out| {
        use std::os::unix::fs::MetadataExt;
        out.is_file()
            && inputs.captures.iter().any(|c| {
                std::fs::metadata(&c.source.path)
                    .is_ok_and(|m| m.dev() == out.dev() && m.ino() == out.ino())
            })
    });
    let out_dir = output
        .parent()
        .map(|p| {
            if p.as_os_str().is_empty() {
                Path::new(".")
            } else {
                p
            }
        })
        .and_then(|p| std::fs::canonicalize(p).ok());
    let in_dataset = inputs.datasets.iter().any(|d| {
        let d = std::fs::canonicalize(d).ok();
        matches!((&out_dir, d), (Some(o), Some(d)) if o.starts_with(&d))
    });
    if hit || in_dataset {
        return Err(CliError::Usage(format!(
            "the output {} is {} the inputs: refusing to overwrite it",
            output.display(),
            if hit { "one of" } else { "inside a dataset of" }
        )));
    }
    Ok(())
}

/// Every table and column with its type.
fn schema(out: &mut dyn Write) -> Result<(), CliError> {
    for table in Table::ALL {
        let holds = match table.format() {
            Some(f) => format!("{} captures only", f.name()),
            None => "every capture".into(),
        };
        writeln!(out, "{} ({holds})", table.name())?;
        let schema = tracecap_query::schema(table);
        let width = schema
            .fields()
            .iter()
            .map(|f| f.name().len())
            .max()
            .unwrap_or(0);
        for field in schema.fields() {
            let null = if field.is_nullable() { "" } else { " not null" };
            writeln!(
                out,
                "  {:width$}  {}{null}",
                field.name(),
                field.data_type(),
            )?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// A query that cannot be planned or run: usage (exit 2), with DataFusion's message.
pub fn query_error(e: tracecap_query::Error) -> CliError {
    match e {
        tracecap_query::Error::Io(io) => CliError::Io(io),
        other => CliError::Usage(other.to_string()),
    }
}

fn input_error(e: tracecap_query::Error) -> CliError {
    match e {
        tracecap_query::Error::Inputs(tracecap_arrow::Error::Io(io)) => CliError::Io(io),
        other => CliError::Usage(other.to_string()),
    }
}
