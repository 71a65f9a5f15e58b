//! The captures a query could not read whole: collected while partitions are scanned, read
//! after the query.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

use tracecap::FormatError;

/// A capture that could not be read whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The capture's id (the `capture` column).
    pub capture: String,
    /// Its file.
    pub path: PathBuf,
    /// What went wrong.
    pub kind: FaultKind,
}

/// What went wrong with a capture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// The capture is damaged: every row before the fault was queried, and the `captures` table
    /// holds the fault.
    Damaged(Damage),
    /// The file is no capture (any more: it changed after the inputs were found), or could not
    /// be opened; none of its rows were queried.
    Unreadable(String),
    /// The file shrank while it was read (another program truncated or replaced it): the rows
    /// read from it cannot be trusted, and the query failed with an I/O error naming it. Seen
    /// only under the fault guard's recover mode (`tracecap::open::guard`); otherwise the
    /// process ends.
    Shrunk,
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            FaultKind::Damaged(e) => write!(f, "{}: {e} (rows before it queried)", self.capture),
            FaultKind::Unreadable(why) => write!(f, "{}: {why}, skipped", self.capture),
            FaultKind::Shrunk => write!(
                f,
                "{}: the file shrank while it was being read, the query failed",
                self.capture
            ),
        }
    }
}

/// Where and how a capture is damaged: a [`FormatError`] as text, which the cache of parsed
/// tables keeps with the rows before it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Damage {
    what: String,
    offset: u64,
}

impl Damage {
    /// The fault `what` (without its offset) at the absolute file offset `offset`.
    pub fn new(what: impl Into<String>, offset: u64) -> Damage {
        Damage {
            what: what.into(),
            offset,
        }
    }

    /// What is wrong, without the file offset ([`FormatError::what`]).
    pub fn what(&self) -> &str {
        &self.what
    }

    /// The absolute file offset of the fault.
    pub fn offset(&self) -> u64 {
        self.offset
    }
}

impl From<&FormatError> for Damage {
    fn from(e: &FormatError) -> Damage {
        Damage::new(e.what().to_string(), e.offset())
    }
}

/// As [`FormatError`] shows itself.
impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at offset {:#x}", self.what, self.offset)
    }
}

/// The faults found so far, once per capture (a capture scanned for two tables is reported
/// once, with its earliest fault).
#[derive(Debug, Default)]
pub(crate) struct Faults(Mutex<BTreeMap<String, Fault>>);

impl Faults {
    pub(crate) fn add(&self, fault: Fault) {
        let Ok(mut all) = self.0.lock() else {
            return;
        };
        let earlier = match (all.get(&fault.capture).map(|f| &f.kind), &fault.kind) {
            (None, _) => true,
            (Some(FaultKind::Shrunk), _) => false,
            (Some(_), FaultKind::Shrunk) => true,
            (Some(FaultKind::Damaged(old)), FaultKind::Damaged(new)) => new.offset() < old.offset(),
            (Some(FaultKind::Damaged(_)), FaultKind::Unreadable(_)) => true,
            (Some(FaultKind::Unreadable(_)), _) => false,
        };
        if earlier {
            all.insert(fault.capture.clone(), fault);
        }
    }

    pub(crate) fn list(&self) -> Vec<Fault> {
        self.0
            .lock()
            .map(|all| all.values().cloned().collect())
            .unwrap_or_default()
    }
}
