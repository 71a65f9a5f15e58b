//! One capture file walked: opened, handed to a walk (the rows of a table, the stacks of a flame
//! graph), and what went wrong with it recorded as a [`Fault`]. The scans of the tables and the
//! streamed flame graphs take the same steps through [`walk_capture`].

use tracecap::open::CaptureFile;
use tracecap::{FormatError, Input};

use crate::faults::{Fault, FaultKind, Faults};

/// Why a walk of a capture did not reach its end, other than a fault of the capture.
#[derive(Debug)]
pub(crate) enum WalkError<E> {
    /// The file is no capture any more (it changed since it was found).
    NotACapture,
    /// The walk failed (the consumer stopped, Arrow failed, ...).
    Failed(E),
}

/// Why the walks of the captures must stop.
#[derive(Debug)]
pub(crate) enum Stop<E> {
    /// The file shrank while it was read; the message names it.
    Shrunk(String),
    /// The walk failed.
    Failed(E),
}

/// Opens `capture` and hands its bytes to `walk`, which returns the capture's fault, if any.
///
/// A file that cannot be opened or is no capture any more, and a damaged capture, are recorded
/// in `faults` and end well (the next capture may be walked). A file that shrank while it was
/// read is recorded and stops the walks: what was read of it cannot be trusted. A failed walk
/// stops them too.
pub(crate) fn walk_capture<E>(
    capture: &CaptureFile,
    faults: &Faults,
    walk: impl FnOnce(&Input) -> Result<Option<FormatError>, WalkError<E>>,
) -> Result<(), Stop<E>> {
    let source = &capture.source;
    let fault = |kind| Fault {
        capture: source.id.clone(),
        path: source.path.clone(),
        kind,
    };
    let input = match tracecap::open(&source.path) {
        Ok(input) => input,
        Err(e) => {
            faults.add(fault(FaultKind::Unreadable(e.to_string())));
            return Ok(());
        }
    };
    let walked = walk(&input);
    // Under the fault guard's recover mode, a file cut while it was read reads as zeros past its
    // new end: what the walk made of it cannot be trusted.
    if input.shrunk() {
        faults.add(fault(FaultKind::Shrunk));
        return Err(Stop::Shrunk(format!(
            "{}: the file shrank while it was being read (was it truncated or replaced by another program?)",
            source.path.display()
        )));
    }
    match walked {
        Ok(Some(damage)) => faults.add(fault(FaultKind::Damaged((&damage).into()))),
        Ok(None) => {}
        Err(WalkError::NotACapture) => {
            faults.add(fault(FaultKind::Unreadable(
                "not a capture any more".into(),
            )));
        }
        Err(WalkError::Failed(e)) => return Err(Stop::Failed(e)),
    }
    Ok(())
}
