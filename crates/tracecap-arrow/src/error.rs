//! Why a capture could not be turned into batches.

use arrow_schema::ArrowError;

/// An error of this crate. A damaged capture is not one: its fault is in
/// [`CaptureSummary::fault`](crate::CaptureSummary::fault) and every record before it is in the
/// batches.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The bytes are no capture of a known format.
    NotACapture(tracecap::NotACapture),
    /// Building a batch, or the consumer of the batches, failed.
    Arrow(ArrowError),
    /// Reading or writing a file failed (the message names the path).
    Io(std::io::Error),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::NotACapture(why) => write!(f, "{why}"),
            Error::Arrow(e) => write!(f, "{e}"),
            Error::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<ArrowError> for Error {
    fn from(e: ArrowError) -> Self {
        Error::Arrow(e)
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}

#[cfg(feature = "parquet")]
impl From<parquet::errors::ParquetError> for Error {
    fn from(e: parquet::errors::ParquetError) -> Self {
        Error::Arrow(ArrowError::from(e))
    }
}
