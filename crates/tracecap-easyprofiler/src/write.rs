//! Writing `.prof` files of every version from an owned model (feature `write`), and reading a
//! capture back into that model. Used by the round-trip tests and to generate bench inputs.

use std::vec;
use std::vec::Vec;

use crate::capture::Capture;
use crate::descriptor::DescriptorKind;
use crate::error::Error;
use crate::header::SIGNATURE;
use crate::lookup::KindTable;
use crate::record::Record;
use crate::value::DataType;
use crate::version::Version;

/// A whole capture, owned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureModel {
    /// Version to write (selects the layouts).
    pub version: Version,
    /// Process id (not written for 1.0.0 and older; truncated to u32 before 1.3.0 is an error).
    pub pid: u64,
    /// Ticks per second, or 0 for nanoseconds.
    pub cpu_frequency: i64,
    /// Capture start.
    pub begin_time: u64,
    /// Capture end.
    pub end_time: u64,
    /// Descriptors; record ids index this list.
    pub descriptors: Vec<DescriptorModel>,
    /// Threads.
    pub threads: Vec<ThreadModel>,
    /// Bookmarks (2.1+ only).
    pub bookmarks: Vec<BookmarkModel>,
}

/// A descriptor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DescriptorModel {
    /// Stored id.
    pub id: u32,
    /// Source line.
    pub line: i32,
    /// ARGB colour.
    pub color: u32,
    /// Kind.
    pub kind: DescriptorKind,
    /// Status bits.
    pub status: u8,
    /// Name (no NUL inside).
    pub name: Vec<u8>,
    /// File (no NUL inside).
    pub file: Vec<u8>,
}

/// A thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadModel {
    /// Thread id (must fit u32 before 1.3.0).
    pub id: u64,
    /// Name (no NUL inside; empty for unnamed).
    pub name: Vec<u8>,
    /// Context switches.
    pub context_switches: Vec<ContextSwitchModel>,
    /// Blocks, events and values in completion order.
    pub records: Vec<RecordModel>,
}

/// A context switch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContextSwitchModel {
    /// Switched out at.
    pub begin: u64,
    /// Back at.
    pub end: u64,
    /// Thread switched in (must fit u32 before 1.3.0).
    pub target_thread: u64,
    /// Task name (no NUL inside).
    pub name: Vec<u8>,
}

/// A record of a thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordModel {
    /// A block or event (its descriptor says which).
    Block {
        /// Begin.
        begin: u64,
        /// End.
        end: u64,
        /// Descriptor index.
        id: u32,
        /// Run-time name (no NUL inside).
        name: Vec<u8>,
    },
    /// A value (its descriptor must be of kind value).
    Value {
        /// Capture time.
        time: u64,
        /// Descriptor index.
        id: u32,
        /// Source variable identity.
        value_id: u64,
        /// Element type.
        data_type: DataType,
        /// Array flag.
        is_array: bool,
        /// Raw data.
        data: Vec<u8>,
    },
}

/// A bookmark.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookmarkModel {
    /// Position in ns.
    pub position: u64,
    /// ARGB colour.
    pub color: u32,
    /// Text (no NUL inside).
    pub text: Vec<u8>,
}

/// Why a model cannot be written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// A record or string is larger than its size field allows.
    #[error("{0} too large for its u16 size field")]
    TooLarge(&'static str),
    /// A string contains a NUL byte.
    #[error("{0} contains a NUL byte")]
    Nul(&'static str),
    /// A thread or pid does not fit the version's 32-bit field.
    #[error("{0} does not fit 32 bits in this version")]
    NarrowId(&'static str),
    /// The version cannot hold this (bookmarks before 2.1, or more than 65535 of them).
    #[error("this version cannot hold {0}")]
    Unsupported(&'static str),
    /// More than u32::MAX items.
    #[error("too many {0}")]
    TooMany(&'static str),
}

fn cstr(out: &mut Vec<u8>, s: &[u8], what: &'static str) -> Result<(), WriteError> {
    if s.contains(&0) {
        return Err(WriteError::Nul(what));
    }
    out.extend_from_slice(s);
    out.push(0);
    Ok(())
}

fn size16(n: usize, what: &'static str) -> Result<u16, WriteError> {
    u16::try_from(n).map_err(|_| WriteError::TooLarge(what))
}

fn count32(n: usize, what: &'static str) -> Result<u32, WriteError> {
    u32::try_from(n).map_err(|_| WriteError::TooMany(what))
}

fn narrow(v: u64, what: &'static str) -> Result<u32, WriteError> {
    u32::try_from(v).map_err(|_| WriteError::NarrowId(what))
}

/// Appends `payload` with its u16 size prefix; returns the size.
fn sized(out: &mut Vec<u8>, payload: &[u8], what: &'static str) -> Result<u64, WriteError> {
    let size = size16(payload.len(), what)?;
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(payload);
    Ok(u64::from(size))
}

impl CaptureModel {
    /// Serialises the model in its version's layout.
    pub fn to_bytes(&self) -> Result<Vec<u8>, WriteError> {
        let v = self.version;
        let mut desc = Vec::new();
        let mut desc_mem = 0u64;
        let mut p = Vec::new();
        for d in &self.descriptors {
            p.clear();
            p.extend_from_slice(&d.id.to_le_bytes());
            p.extend_from_slice(&d.line.to_le_bytes());
            p.extend_from_slice(&d.color.to_le_bytes());
            p.push(d.kind.to_u8());
            p.push(d.status);
            let name_len = size16(d.name.len() + 1, "descriptor name")?;
            p.extend_from_slice(&name_len.to_le_bytes());
            cstr(&mut p, &d.name, "descriptor name")?;
            cstr(&mut p, &d.file, "descriptor file")?;
            desc_mem += sized(&mut desc, &p, "descriptor")?;
        }

        let mut body = Vec::new();
        let mut blocks_count = 0u64;
        let mut memory_size = 0u64;
        for t in &self.threads {
            if v.wide_ids() {
                body.extend_from_slice(&t.id.to_le_bytes());
            } else {
                body.extend_from_slice(&narrow(t.id, "thread id")?.to_le_bytes());
            }
            let name_size = size16(t.name.len() + 1, "thread name")?;
            body.extend_from_slice(&name_size.to_le_bytes());
            cstr(&mut body, &t.name, "thread name")?;
            body.extend_from_slice(
                &count32(t.context_switches.len(), "context switches")?.to_le_bytes(),
            );
            for cs in &t.context_switches {
                p.clear();
                p.extend_from_slice(&cs.begin.to_le_bytes());
                p.extend_from_slice(&cs.end.to_le_bytes());
                if v.wide_ids() {
                    p.extend_from_slice(&cs.target_thread.to_le_bytes());
                } else {
                    p.extend_from_slice(&narrow(cs.target_thread, "target thread")?.to_le_bytes());
                }
                cstr(&mut p, &cs.name, "context switch name")?;
                memory_size += sized(&mut body, &p, "context switch")?;
                blocks_count += 1;
            }
            body.extend_from_slice(&count32(t.records.len(), "records")?.to_le_bytes());
            for r in &t.records {
                p.clear();
                match r {
                    RecordModel::Block {
                        begin,
                        end,
                        id,
                        name,
                    } => {
                        p.extend_from_slice(&begin.to_le_bytes());
                        p.extend_from_slice(&end.to_le_bytes());
                        p.extend_from_slice(&id.to_le_bytes());
                        cstr(&mut p, name, "block name")?;
                    }
                    RecordModel::Value {
                        time,
                        id,
                        value_id,
                        data_type,
                        is_array,
                        data,
                    } => {
                        p.extend_from_slice(&time.to_le_bytes());
                        p.extend_from_slice(&time.to_le_bytes());
                        p.extend_from_slice(&id.to_le_bytes());
                        p.extend_from_slice(&[0, 0]);
                        p.extend_from_slice(&size16(data.len(), "value data")?.to_le_bytes());
                        p.push(data_type.to_u8());
                        p.push(u8::from(*is_array));
                        p.extend_from_slice(&value_id.to_le_bytes());
                        p.extend_from_slice(data);
                    }
                }
                memory_size += sized(&mut body, &p, "record")?;
                blocks_count += 1;
            }
        }

        let mut out = Vec::with_capacity(72 + desc.len() + body.len() + 16);
        out.extend_from_slice(&SIGNATURE.to_le_bytes());
        out.extend_from_slice(&v.0.to_le_bytes());
        let blocks_count =
            u32::try_from(blocks_count).map_err(|_| WriteError::TooMany("records"))?;
        let descriptors_count = count32(self.descriptors.len(), "descriptors")?;
        if v.new_header_order() {
            out.extend_from_slice(&self.pid.to_le_bytes());
            out.extend_from_slice(&self.cpu_frequency.to_le_bytes());
            out.extend_from_slice(&self.begin_time.to_le_bytes());
            out.extend_from_slice(&self.end_time.to_le_bytes());
            out.extend_from_slice(&memory_size.to_le_bytes());
            out.extend_from_slice(&desc_mem.to_le_bytes());
            out.extend_from_slice(&blocks_count.to_le_bytes());
            out.extend_from_slice(&descriptors_count.to_le_bytes());
        } else {
            if v.wide_ids() {
                out.extend_from_slice(&self.pid.to_le_bytes());
            } else if v.has_pid() {
                out.extend_from_slice(&narrow(self.pid, "pid")?.to_le_bytes());
            }
            out.extend_from_slice(&self.cpu_frequency.to_le_bytes());
            out.extend_from_slice(&self.begin_time.to_le_bytes());
            out.extend_from_slice(&self.end_time.to_le_bytes());
            out.extend_from_slice(&blocks_count.to_le_bytes());
            out.extend_from_slice(&memory_size.to_le_bytes());
            out.extend_from_slice(&descriptors_count.to_le_bytes());
            out.extend_from_slice(&desc_mem.to_le_bytes());
        }
        if v.has_end_signature() {
            out.extend_from_slice(&count32(self.threads.len(), "threads")?.to_le_bytes());
            let n = u16::try_from(self.bookmarks.len())
                .map_err(|_| WriteError::TooMany("bookmarks"))?;
            out.extend_from_slice(&n.to_le_bytes());
            out.extend_from_slice(&[0, 0]);
        } else if !self.bookmarks.is_empty() {
            return Err(WriteError::Unsupported("bookmarks"));
        }
        out.extend_from_slice(&desc);
        out.extend_from_slice(&body);
        if v.has_end_signature() {
            out.extend_from_slice(&SIGNATURE.to_le_bytes());
            if !self.bookmarks.is_empty() {
                for b in &self.bookmarks {
                    p.clear();
                    p.extend_from_slice(&b.position.to_le_bytes());
                    p.extend_from_slice(&b.color.to_le_bytes());
                    cstr(&mut p, &b.text, "bookmark text")?;
                    sized(&mut out, &p, "bookmark")?;
                }
                out.extend_from_slice(&SIGNATURE.to_le_bytes());
            }
        }
        Ok(out)
    }

    /// Reads a whole capture back into a model (everything the writer writes).
    pub fn from_bytes(bytes: &[u8]) -> Result<CaptureModel, Error> {
        let c = Capture::parse(bytes)?;
        let h = c.header();
        let kinds = KindTable::new(&c)?;
        let mut m = CaptureModel {
            version: h.version,
            pid: h.pid.unwrap_or(0),
            cpu_frequency: h.cpu_frequency,
            begin_time: h.begin_time,
            end_time: h.end_time,
            descriptors: Vec::new(),
            threads: Vec::new(),
            bookmarks: Vec::new(),
        };
        for d in c.descriptors() {
            let d = d?;
            m.descriptors.push(DescriptorModel {
                id: d.id,
                line: d.line,
                color: d.color,
                kind: d.kind,
                status: d.status,
                name: d.name.to_vec(),
                file: d.file.to_vec(),
            });
        }
        let mut threads = c.threads();
        for t in threads.by_ref() {
            let t = t?;
            let mut tm = ThreadModel {
                id: t.id,
                name: t.name.to_vec(),
                context_switches: Vec::new(),
                records: Vec::new(),
            };
            for cs in t.context_switches() {
                let cs = cs?;
                tm.context_switches.push(ContextSwitchModel {
                    begin: cs.begin,
                    end: cs.end,
                    target_thread: cs.target_thread,
                    name: cs.name.to_vec(),
                });
            }
            for r in t.records(&kinds) {
                tm.records.push(match r? {
                    Record::Block(b) => RecordModel::Block {
                        begin: b.begin,
                        end: b.end,
                        id: b.id,
                        name: b.name.to_vec(),
                    },
                    Record::Value(v) => RecordModel::Value {
                        time: v.time,
                        id: v.id,
                        value_id: v.value_id,
                        data_type: v.data_type,
                        is_array: v.is_array,
                        data: v.data.to_vec(),
                    },
                });
            }
            m.threads.push(tm);
        }
        for b in threads.tail()? {
            let b = b?;
            m.bookmarks.push(BookmarkModel {
                position: b.position,
                color: b.color,
                text: b.text.to_vec(),
            });
        }
        Ok(m)
    }
}

impl CaptureModel {
    /// This capture with every thread's records and context switches repeated until the whole
    /// is about `target_bytes`: each copy is shifted in time past the end of the previous one,
    /// so nesting and order stay valid. For benches on the shape of a real capture (its mix of
    /// kinds, its trees, its value types) at any size.
    pub fn repeated(&self, target_bytes: usize) -> Result<CaptureModel, WriteError> {
        let one = self.to_bytes()?.len().max(1);
        let copies = target_bytes.div_ceil(one).max(1) as u64;
        let mut m = self.clone();
        // Shifting by the capture's whole span (plus one) keeps each copy after the last.
        let first = self.threads.iter().flat_map(times).min().unwrap_or(0);
        let last = self.threads.iter().flat_map(times).max().unwrap_or(0);
        let span = last.saturating_sub(first).saturating_add(1);
        for (t, src) in m.threads.iter_mut().zip(&self.threads) {
            for k in 1..copies {
                let shift = span.saturating_mul(k);
                t.context_switches
                    .extend(src.context_switches.iter().map(|cs| ContextSwitchModel {
                        begin: cs.begin.saturating_add(shift),
                        end: cs.end.saturating_add(shift),
                        ..cs.clone()
                    }));
                t.records.extend(src.records.iter().map(|r| {
                    let mut r = r.clone();
                    match &mut r {
                        RecordModel::Block { begin, end, .. } => {
                            *begin = begin.saturating_add(shift);
                            *end = end.saturating_add(shift);
                        }
                        RecordModel::Value { time, .. } => *time = time.saturating_add(shift),
                    }
                    r
                }));
            }
        }
        m.end_time = m
            .end_time
            .saturating_add(span.saturating_mul(copies.saturating_sub(1)));
        Ok(m)
    }

    /// A deterministic capture of about `target_bytes`, shaped like `profiler_sample`'s output:
    /// 4 threads of frames, each frame a tree of nested blocks (depth up to 6) with events and
    /// scalar, array and string values, timestamps in ticks at 2.6 GHz. For benches and timing.
    pub fn synthetic(target_bytes: usize) -> CaptureModel {
        let mut m = CaptureModel {
            version: Version::V2_1_0,
            pid: 4242,
            cpu_frequency: 2_599_958_000,
            begin_time: 1_000_000,
            end_time: 0,
            descriptors: Vec::new(),
            threads: Vec::new(),
            bookmarks: Vec::new(),
        };
        let kinds = [
            (DescriptorKind::Block, "Frame"),
            (DescriptorKind::Block, "update"),
            (DescriptorKind::Block, "physics"),
            (DescriptorKind::Block, "collide"),
            (DescriptorKind::Value, "count"),
            (DescriptorKind::Event, "marker"),
            (DescriptorKind::Value, "matrix"),
            (DescriptorKind::Value, "label"),
        ];
        for (i, (kind, name)) in kinds.iter().enumerate() {
            m.descriptors.push(DescriptorModel {
                id: i as u32,
                line: 10 * i as i32,
                color: 0xff00_0000 | (i as u32 * 0x1234),
                kind: *kind,
                status: 1,
                name: name.as_bytes().to_vec(),
                file: b"/src/game/main.cpp".to_vec(),
            });
        }
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let threads = 4usize;
        let per_thread = target_bytes / threads;
        for t in 0..threads {
            let mut records = Vec::new();
            let mut bytes = 0usize;
            let mut clock = 1_000_000u64;
            // Emits one subtree in completion order; returns its (begin, end).
            fn subtree(
                depth: u32,
                clock: &mut u64,
                next: &mut dyn FnMut() -> u64,
                out: &mut Vec<RecordModel>,
                bytes: &mut usize,
            ) {
                let begin = *clock;
                *clock += 1 + next() % 50;
                if depth < 5 {
                    let children = next() % 4;
                    for _ in 0..children {
                        subtree(depth + 1, clock, next, out, bytes);
                    }
                }
                let r = match next() % 10 {
                    0 => RecordModel::Value {
                        time: *clock,
                        id: 4,
                        value_id: 0,
                        data_type: DataType::Int32,
                        is_array: false,
                        data: (next() as u32).to_le_bytes().to_vec(),
                    },
                    1 => RecordModel::Value {
                        time: *clock,
                        id: 6,
                        value_id: 0x7fff_0000,
                        data_type: DataType::Double,
                        is_array: true,
                        data: [1.5f64, -2.0, 3.25]
                            .iter()
                            .flat_map(|f| f.to_le_bytes())
                            .collect(),
                    },
                    2 => RecordModel::Value {
                        time: *clock,
                        id: 7,
                        value_id: 0,
                        data_type: DataType::String,
                        is_array: true,
                        data: b"frame label\0".to_vec(),
                    },
                    3 => RecordModel::Block {
                        begin: *clock,
                        end: *clock,
                        id: 5,
                        name: vec![],
                    },
                    _ => RecordModel::Block {
                        begin,
                        end: *clock + 1,
                        id: 1 + (depth % 3),
                        name: vec![],
                    },
                };
                *bytes += match &r {
                    RecordModel::Value { data, .. } => 36 + data.len(),
                    RecordModel::Block { .. } => 23,
                };
                out.push(r);
                *clock += 2;
            }
            while bytes < per_thread {
                let begin = clock;
                for _ in 0..3 {
                    subtree(1, &mut clock, &mut next, &mut records, &mut bytes);
                }
                records.push(RecordModel::Block {
                    begin,
                    end: clock + 1,
                    id: 0,
                    name: vec![],
                });
                bytes += 23;
                clock += 10;
            }
            m.end_time = m.end_time.max(clock);
            m.threads.push(ThreadModel {
                id: 1000 + t as u64,
                name: std::format!("Worker {t}").into_bytes(),
                context_switches: Vec::new(),
                records,
            });
        }
        m
    }
}

/// Every timestamp of a thread's records and context switches.
fn times(t: &ThreadModel) -> impl Iterator<Item = u64> + '_ {
    let records = t.records.iter().flat_map(|r| match r {
        RecordModel::Block { begin, end, .. } => [*begin, *end],
        RecordModel::Value { time, .. } => [*time, *time],
    });
    let switches = t.context_switches.iter().flat_map(|cs| [cs.begin, cs.end]);
    records.chain(switches)
}
