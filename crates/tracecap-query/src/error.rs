//! Why a query could not run.

use std::fmt;

/// Why a query could not run. A damaged capture is not an error: its rows before the fault are
/// queried and the fault is reported in the `captures` table and by [`crate::Engine::faults`].
#[derive(Debug)]
pub enum Error {
    /// Finding or reading the inputs failed.
    Inputs(tracecap_arrow::Error),
    /// A side of [`crate::Sides`] holds no capture and no dataset.
    NoInputs {
        /// The side's schema (`a`, `b`), `None` for the only side.
        side: Option<String>,
        /// What was found instead ([`crate::Inputs::why_empty`]).
        why: String,
    },
    /// A Parquet file of a dataset could not be read (cut short, overwritten, not Parquet): the
    /// dataset is the user's data, so the query fails and names the file.
    Dataset(crate::DamagedFile),
    /// The engine refused or failed the query: bad SQL, an unknown table or column, a type
    /// error, or a failure while running it (DataFusion's message).
    Query(datafusion::error::DataFusionError),
    /// Writing the result failed.
    Io(std::io::Error),
}

impl Error {
    /// Whether the query itself is at fault (SQL, planning), not the inputs or the machine.
    pub fn is_query(&self) -> bool {
        matches!(self, Error::Query(_))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Inputs(e) => write!(f, "{e}"),
            Error::NoInputs { side, why } => {
                let side = side
                    .as_ref()
                    .map_or(String::new(), |s| format!(" of side {s}"));
                write!(f, "no capture or dataset in the inputs{side} ({why})")
            }
            Error::Dataset(e) => write!(f, "{e}"),
            Error::Query(e) => write!(f, "{e}"),
            Error::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Inputs(e) => Some(e),
            Error::NoInputs { .. } => None,
            Error::Dataset(e) => Some(e),
            Error::Query(e) => Some(e),
            Error::Io(e) => Some(e),
        }
    }
}

impl From<tracecap_arrow::Error> for Error {
    fn from(e: tracecap_arrow::Error) -> Self {
        Error::Inputs(e)
    }
}

impl From<datafusion::error::DataFusionError> for Error {
    fn from(e: datafusion::error::DataFusionError) -> Self {
        match crate::DamagedFile::find(&e) {
            Some(d) => Error::Dataset(crate::DamagedFile {
                path: d.path.clone(),
                message: d.message.clone(),
            }),
            None => Error::Query(e),
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}

impl From<datafusion::arrow::error::ArrowError> for Error {
    fn from(e: datafusion::arrow::error::ArrowError) -> Self {
        Error::from(datafusion::error::DataFusionError::from(e))
    }
}
