//! `tracecap query SQL INPUT...`: SQL over captures and datasets; `tracecap query --schema`.

use std::io::Write;
use std::path::{Path, PathBuf};

use std::sync::Arc;
use tracecap_arrow::Table;

use tracecap_query::{Cache, Config, Inputs};

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
    let mut batches = sides.engine().query(sql).map_err(query_error)?;
    results::write(&mut batches, args.format, args.output.as_deref(), out)?;
    drop(batches);
    sides.finish(args.strict, err)
}

/// The library's [`tracecap_query::Sides`], opened from a command line: standard input is
/// refused, and so is an output file among the inputs.
pub struct Sides(tracecap_query::Sides);

impl std::ops::Deref for Sides {
    type Target = tracecap_query::Sides;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl Sides {
    /// Finds the inputs of each side and registers them, with `threads` partitions and, with
    /// `cache`, the cache of parsed tables the environment names ([`Cache::from_env`]).
    pub fn open(
        sides: &[(Option<&str>, &Vec<PathBuf>)],
        (threads, cache): (Option<usize>, bool),
        output: Option<&Path>,
    ) -> Result<Sides, CliError> {
        if sides.iter().flat_map(|s| s.1).any(|p| p.as_os_str() == "-") {
            return Err(CliError::Usage(
                "query, diff and flamegraph read files and directories, not standard input (-)"
                    .into(),
            ));
        }
        let config = Config {
            partitions: threads.unwrap_or(Config::default().partitions),
            cache: cache.then(Cache::from_env).flatten().map(Arc::new),
            ..Config::default()
        };
        let sides: Vec<(Option<&str>, &[PathBuf])> =
            sides.iter().map(|&(s, p)| (s, p.as_slice())).collect();
        let opened = tracecap_query::Sides::open(&sides, &config).map_err(|e| match e {
            tracecap_query::Error::NoInputs { .. } => CliError::Verdict(e.to_string()),
            other => query_error(other),
        })?;
        if let Some(output) = output {
            for inputs in opened.inputs() {
                refuse_overwrite(output, inputs)?;
            }
        }
        Ok(Sides(opened))
    }

    /// Warns of every input that is no capture or was damaged; with `strict`, they make exit 1.
    pub fn finish(&self, strict: bool, err: &mut dyn Write) -> Result<(), CliError> {
        let problems = self.problems();
        for problem in &problems {
            writeln!(err, "warning: {problem}")?;
        }
        for note in self.cache_notes() {
            writeln!(err, "warning: {note}")?;
        }
        if strict && !problems.is_empty() {
            return Err(CliError::Verdict(format!(
                "{} input(s) damaged or not captures (see the warnings)",
                problems.len()
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
        tracecap_query::Error::Inputs(tracecap_arrow::Error::Io(io)) => CliError::Io(io),
        other => CliError::Usage(other.to_string()),
    }
}
