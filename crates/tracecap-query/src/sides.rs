//! One or two sides of inputs, found and registered in one engine: what `query`, `diff` and
//! `flamegraph` run on, in the command-line tool and in Python alike, and what they report of
//! the inputs afterwards ([`Problem`]). The hosts only render: the CLI prints the problems as
//! warnings, Python raises or warns.
//!
//! ```no_run
//! use std::path::PathBuf;
//! use tracecap_query::{Config, Sides};
//!
//! let a = [PathBuf::from("before.prof")];
//! let b = [PathBuf::from("after.prof")];
//! let sides = Sides::open(&[(Some("a"), &a[..]), (Some("b"), &b[..])], &Config::default())?;
//! let sql = tracecap_query::diff::sql(&tracecap_query::diff::keys("name").unwrap());
//! for batch in sides.engine().query(&sql)? {
//!     let _rows = batch?;
//! }
//! for problem in sides.problems() {
//!     eprintln!("warning: {problem}");
//! }
//! # Ok::<(), tracecap_query::Error>(())
//! ```

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::engine::{Config, Engine};
use crate::error::Error;
use crate::faults::Fault;
use crate::inputs::Inputs;

/// The engine over one or two sides of inputs (registered in the default schema, or in schemas
/// named by the sides, such as `a` and `b`), with what was found on each side.
pub struct Sides {
    engine: Arc<Engine>,
    inputs: Vec<Inputs>,
}

impl Sides {
    /// Finds the inputs of each side (with the cache of `config`, when it has one, recalling
    /// what earlier searches found) and registers their tables. A side with nothing to query is
    /// [`Error::NoInputs`].
    pub fn open(sides: &[(Option<&str>, &[PathBuf])], config: &Config) -> Result<Sides, Error> {
        let engine = Engine::new(config)?;
        let mut found = Vec::with_capacity(sides.len());
        for &(schema, paths) in sides {
            let inputs = Inputs::find_with(paths, engine.config().cache.as_deref())?;
            if inputs.is_empty() {
                return Err(Error::NoInputs {
                    side: schema.map(str::to_owned),
                    why: inputs.why_empty(),
                });
            }
            engine.register(schema, &inputs)?;
            found.push(inputs);
        }
        Ok(Sides {
            engine: Arc::new(engine),
            inputs: found,
        })
    }

    /// The engine the sides are registered in.
    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// What was found for each side, in the order of the sides.
    pub fn inputs(&self) -> &[Inputs] {
        &self.inputs
    }

    /// Every input that is no capture or could not be read, then every capture found damaged so
    /// far (call it after the queries ran): what a host warns of, or fails on when strict.
    pub fn problems(&self) -> Vec<Problem<'_>> {
        let mut problems = Vec::new();
        for inputs in &self.inputs {
            for (path, why) in &inputs.not_captures {
                problems.push(Problem::NotCapture { path, why });
            }
            for e in &inputs.unreadable {
                problems.push(Problem::Unreadable(e));
            }
        }
        problems.extend(self.engine.faults().into_iter().map(Problem::Fault));
        problems
    }

    /// What the cache of parsed tables noted (entries it could not read and removed), to be
    /// shown once; empty without a cache.
    pub fn cache_notes(&self) -> Vec<String> {
        self.engine
            .config()
            .cache
            .as_ref()
            .map(|cache| cache.notes())
            .unwrap_or_default()
    }
}

/// Something wrong with one input of [`Sides`]; its text is the warning a host shows.
#[derive(Debug)]
pub enum Problem<'s> {
    /// An input named on its own is no capture (`empty file`, `unknown format`, `not a regular
    /// file`): skipped.
    NotCapture {
        /// The input.
        path: &'s Path,
        /// Why it is none.
        why: &'static str,
    },
    /// A file under a directory input could not be read (the error names it): skipped.
    Unreadable(&'s io::Error),
    /// A capture was damaged, shrank while read, or could not be opened: its rows before the
    /// fault were queried.
    Fault(Fault),
}

impl fmt::Display for Problem<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::NotCapture { path, why } => {
                write!(f, "{}: not a capture ({why}), skipped", path.display())
            }
            Problem::Unreadable(e) => write!(f, "{e}, skipped"),
            Problem::Fault(fault) => write!(f, "{fault}"),
        }
    }
}
