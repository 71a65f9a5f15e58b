//! Flame graphs of the `slices` table: folding slices into stacks and drawing them as SVG.
//!
//! [`fold_sql`] is the query whose result [`Folder`] folds. On each track, slices arrive ordered
//! by start time, then by depth, then by duration; a stack of open frames follows the nesting. A slice at depth
//! `d` first closes every open frame at depth `d` or deeper, then opens its own frame on top of
//! the remaining ones (a depth beyond the top of the stack makes the slice a child of the current
//! top). A closed frame's self time is its duration minus the durations of its direct children
//! (at least 0), and it is added to the frame's stack: the frame names from the root to the frame,
//! joined with `;` — the "folded stacks" format of the flame graph tools. Frames without self time
//! give no line. Slices without a duration (never closed) give no weight and are counted; their
//! frames stay open, so the slices closed inside them keep them in their stacks.
//!
//! [`stream`] folds capture files by the same rules straight from the adapters' timelines, with
//! a stack of open frames per track and a tree of frames ([`crate::Engine::fold`] takes that road
//! for capture files, and the query's for datasets).
//!
//! Frame names are cleaned so that every folded line reads back unambiguously: `;` becomes `:`,
//! a tab becomes a space, other control characters (such as `\n`) are removed, surrounding
//! whitespace is trimmed, an empty or null name becomes `(unnamed)`, and a space in front of a
//! trailing number (as in `Job 12`) becomes a no-break space (U+00A0), because the folded format
//! reads a last space-separated number as a count.
//!
//! [`render`] draws a [`Folded`] as an interactive SVG flame graph, [`render_diff`] draws the
//! differential flame graph of two of them, both with the `inferno` crate.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Int64Array, RecordBatch, StringArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Int64Type};
use datafusion::error::DataFusionError;
use inferno::flamegraph::{self, Options};

pub mod stream;
mod tree;

/// The name given to a slice or track whose name is null or empty after cleaning.
const UNNAMED: &str = "(unnamed)";

/// The label of the counts in the drawn flame graphs of calls: weights are nanoseconds.
const COUNT_NAME: &str = "ns";

/// The label of the counts in the drawn flame graphs of sampled stacks.
const SAMPLES_NAME: &str = "samples";

/// The label in front of a frame's name in the drawn flame graphs' details line.
const NAME_TYPE: &str = "Slice:";

/// Width in pixels of the SVG written for a flame graph without any stack.
const EMPTY_WIDTH: usize = 1200;

/// The largest total (about 13 days in nanoseconds) drawn with the weights as they are: inferno
/// adds the weights up, and multiplies changes by 150, in 64-bit integers. Larger totals are
/// drawn with the weights divided by [`draw_divisor`] and inferno's `factor` multiplying the
/// counts it shows back.
const DRAW_LIMIT: u128 = 1 << 50;

/// The query whose result [`Folder`] folds.
///
/// It selects the columns `capture`, `track`, `ts`, `dur`, `depth` and `name` of every slice and,
/// when `per_track` is set, the name of the slice's track as `track_name` (a left join with the
/// `tracks` table, so a slice whose track is missing there is still counted, under `track <id>`).
/// Rows are ordered by capture, track, start time, depth and duration, the order
/// [`Folder::push`] expects. The duration comes last because of slices that start at the same
/// time at the same depth: all of them but the last ended where they began (their duration is
/// 0), and the last one, with a duration or never closed, is the parent of the deeper slices
/// that follow.
///
/// `schema` names the schema that holds the `slices` and `tracks` tables (for example `Some("a")`
/// reads `"a".slices` and `"a".tracks`); it is quoted, so it is used exactly as given.
pub fn fold_sql(schema: Option<&str>, per_track: bool) -> String {
    let prefix = match schema {
        Some(schema) => format!("\"{}\".", schema.replace('"', "\"\"")),
        None => String::new(),
    };
    if per_track {
        format!(
            "SELECT s.capture, s.track, s.ts, s.dur, s.depth, s.name, t.name AS track_name \
             FROM {prefix}slices s \
             LEFT JOIN {prefix}tracks t ON s.capture = t.capture AND s.track = t.track \
             ORDER BY s.capture, s.track, s.ts, s.depth, s.dur NULLS LAST"
        )
    } else {
        format!(
            "SELECT s.capture, s.track, s.ts, s.dur, s.depth, s.name \
             FROM {prefix}slices s \
             ORDER BY s.capture, s.track, s.ts, s.depth, s.dur NULLS LAST"
        )
    }
}

/// What the stacks of a flame graph are made of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StacksFrom {
    /// Sampled call stacks when the inputs have any (`stack_samples` of kind `sample`), else
    /// nested calls.
    #[default]
    Auto,
    /// Sampled call stacks only: each sample adds its weight (1) to its stack, root first.
    Samples,
    /// Nested calls only: the slices of thread tracks, and of the slice tracks under a thread
    /// but its thread states ([`tracecap::timeline::THREAD_STATES_SUFFIX`]); never scheduling
    /// slices on CPU tracks, other global or process-wide slices, or counters.
    Calls,
}

/// [`fold_sql`] for calls alone ([`StacksFrom::Calls`]): the slices of thread tracks, and of
/// the slice tracks under a thread but its thread states (tracks named with
/// [`tracecap::timeline::THREAD_STATES_SUFFIX`]). A slice whose track is not in `tracks` is
/// left out (nothing tells what it is).
pub fn fold_calls_sql(schema: Option<&str>, per_track: bool) -> String {
    let prefix = match schema {
        Some(schema) => format!("\"{}\".", schema.replace('"', "\"\"")),
        None => String::new(),
    };
    let states = tracecap::timeline::THREAD_STATES_SUFFIX.replace('\'', "''");
    let track_name = if per_track {
        ", t.name AS track_name"
    } else {
        ""
    };
    format!(
        "SELECT s.capture, s.track, s.ts, s.dur, s.depth, s.name{track_name} \
         FROM {prefix}slices s \
         JOIN {prefix}tracks t ON s.capture = t.capture AND s.track = t.track \
         LEFT JOIN {prefix}tracks p ON t.capture = p.capture AND t.parent = p.track \
         WHERE t.kind = 'thread' OR (t.kind = 'slices' AND p.kind = 'thread' \
         AND t.name NOT LIKE '%{states}') \
         ORDER BY s.capture, s.track, s.ts, s.depth, s.dur NULLS LAST"
    )
}

/// The query of the sampled stacks' weights: `capture`, `track`, `stack`, `weight` (summed)
/// and, with `per_track`, `track_name`, over the samples of kind `sample`.
pub fn samples_sql(schema: Option<&str>, per_track: bool) -> String {
    let prefix = match schema {
        Some(schema) => format!("\"{}\".", schema.replace('"', "\"\"")),
        None => String::new(),
    };
    if per_track {
        format!(
            "SELECT s.capture, s.track, s.stack, sum(s.weight) AS weight, t.name AS track_name \
             FROM {prefix}stack_samples s \
             LEFT JOIN {prefix}tracks t ON s.capture = t.capture AND s.track = t.track \
             WHERE s.kind = 'sample' GROUP BY s.capture, s.track, s.stack, t.name"
        )
    } else {
        format!(
            "SELECT s.capture, 0 AS track, s.stack, sum(s.weight) AS weight \
             FROM {prefix}stack_samples s WHERE s.kind = 'sample' GROUP BY s.capture, s.stack"
        )
    }
}

/// The query of the frames [`SampleFolder`] names stacks with: `capture`, `stack`, `depth`,
/// `function`.
pub fn frames_sql(schema: Option<&str>) -> String {
    let prefix = match schema {
        Some(schema) => format!("\"{}\".", schema.replace('"', "\"\"")),
        None => String::new(),
    };
    format!("SELECT capture, stack, depth, function FROM {prefix}stack_frames")
}

/// Folds sampled stacks from the rows of [`frames_sql`] (all of them first) and then of
/// [`samples_sql`]: each stack's functions root first (the largest depth first), cleaned as
/// frame names are, under its track's name with `per_track`.
#[derive(Debug, Default)]
pub struct SampleFolder {
    per_track: bool,
    /// Each (capture, stack)'s frames by depth.
    frames: std::collections::HashMap<(String, u64), BTreeMap<i64, String>>,
    stacks: BTreeMap<String, u64>,
}

impl SampleFolder {
    /// A fold with no frames and no samples.
    pub fn new(per_track: bool) -> Self {
        SampleFolder {
            per_track,
            ..SampleFolder::default()
        }
    }

    /// Takes the frames of a batch of [`frames_sql`]'s rows.
    pub fn push_frames(&mut self, batch: &RecordBatch) -> Result<(), DataFusionError> {
        let capture = column(batch, "capture", &DataType::Utf8)?;
        let capture = strings(&capture, "capture")?;
        let stack = column(batch, "stack", &DataType::UInt64)?;
        let stack = unsigned(&stack, "stack")?;
        let depth = column(batch, "depth", &DataType::Int64)?;
        let depth = integers(&depth, "depth")?;
        let function = column(batch, "function", &DataType::Utf8)?;
        let function = strings(&function, "function")?;
        for i in 0..batch.num_rows() {
            let key = (capture.value(i).to_owned(), stack.value(i));
            let name = clean_name((!function.is_null(i)).then(|| function.value(i)));
            self.frames
                .entry(key)
                .or_default()
                .insert(depth.value(i), name.into_owned());
        }
        Ok(())
    }

    /// Adds the samples of a batch of [`samples_sql`]'s rows (a stack without frames is left
    /// out).
    pub fn push_samples(&mut self, batch: &RecordBatch) -> Result<(), DataFusionError> {
        let capture = column(batch, "capture", &DataType::Utf8)?;
        let capture = strings(&capture, "capture")?;
        let track = column(batch, "track", &DataType::Int64)?;
        let track = integers(&track, "track")?;
        let stack = column(batch, "stack", &DataType::UInt64)?;
        let stack = unsigned(&stack, "stack")?;
        let weight = column(batch, "weight", &DataType::Int64)?;
        let weight = integers(&weight, "weight")?;
        let names = if self.per_track {
            Some(column(batch, "track_name", &DataType::Utf8)?)
        } else {
            None
        };
        let names = names
            .as_ref()
            .map(|n| strings(n, "track_name"))
            .transpose()?;
        let mut line = String::new();
        for i in 0..batch.num_rows() {
            let key = (capture.value(i).to_owned(), stack.value(i));
            let Some(frames) = self.frames.get(&key) else {
                continue;
            };
            line.clear();
            if let Some(names) = names {
                let raw = (!names.is_null(i)).then(|| names.value(i));
                line.push_str(&track_root(raw, Some(track.value(i))));
            }
            for name in frames.values().rev() {
                if !line.is_empty() {
                    line.push(';');
                }
                line.push_str(name);
            }
            let w = u64::try_from(weight.value(i)).unwrap_or(0);
            if w > 0 && !line.is_empty() {
                add_weight(&mut self.stacks, &line, w);
            }
        }
        Ok(())
    }

    /// The folded samples.
    pub fn finish(self) -> Folded {
        Folded::from_parts(self.stacks, 0).counting_samples(true)
    }
}

/// Folded stacks: each stack (frame names from the root to the leaf, joined with `;`) with the
/// total self time, in nanoseconds, of the frames it ends with, or with its number of samples.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Folded {
    stacks: BTreeMap<String, u64>,
    skipped_open: u64,
    samples: bool,
}

impl Folded {
    /// Folded stacks of the given weights, with `skipped_open` slices never closed.
    pub(crate) fn from_parts(stacks: BTreeMap<String, u64>, skipped_open: u64) -> Self {
        Folded {
            stacks,
            skipped_open,
            samples: false,
        }
    }

    /// These stacks, their weights counted in samples (`true`) or in nanoseconds.
    pub(crate) fn counting_samples(mut self, samples: bool) -> Self {
        self.samples = samples;
        self
    }

    /// Whether the weights are numbers of samples (stacks from sampled call stacks) rather than
    /// nanoseconds of self time.
    pub fn of_samples(&self) -> bool {
        self.samples
    }

    /// The stacks and their weights (nanoseconds of self time), in byte order of the stacks.
    pub fn stacks(&self) -> &BTreeMap<String, u64> {
        &self.stacks
    }

    /// The folded lines, `stack weight` each, without a line break, in byte order of the stacks.
    pub fn lines(&self) -> impl Iterator<Item = String> + '_ {
        self.stacks
            .iter()
            .map(|(stack, weight)| format!("{stack} {weight}"))
    }

    /// Writes the folded lines, each `stack weight` followed by `\n`: the input format of
    /// `flamegraph.pl` and `inferno-flamegraph`.
    pub fn write_to(&self, out: &mut dyn Write) -> io::Result<()> {
        for (stack, weight) in &self.stacks {
            writeln!(out, "{stack} {weight}")?;
        }
        Ok(())
    }

    /// The sum of all weights, in nanoseconds (saturating at `u64::MAX`).
    pub fn total(&self) -> u64 {
        self.stacks
            .values()
            .fold(0u64, |sum, weight| sum.saturating_add(*weight))
    }

    /// Whether there is no stack at all.
    pub fn is_empty(&self) -> bool {
        self.stacks.is_empty()
    }

    /// The number of distinct stacks.
    pub fn len(&self) -> usize {
        self.stacks.len()
    }

    /// The number of slices left out because their duration is null (they were never closed).
    pub fn skipped_open(&self) -> u64 {
        self.skipped_open
    }

    /// These stacks with every weight scaled by `total / self.total()` (rounded to the nearest
    /// nanosecond; stacks that round to 0 are dropped), so that they add up to about `total`.
    ///
    /// Passing `a.scaled_to(b.total())` as `a` to [`render_diff`] compares each stack's share of
    /// its side rather than its absolute time: the colors then show what takes a larger or
    /// smaller part of `b` than of `a`, even when `b` is much longer or shorter. Without stacks
    /// (a total of 0) there is nothing to scale and the result has no stacks either.
    pub fn scaled_to(&self, total: u64) -> Folded {
        let own = wide_total(&self.stacks);
        let stacks = self
            .stacks
            .iter()
            .filter_map(|(stack, weight)| {
                let scaled = (u128::from(*weight) * u128::from(total))
                    .saturating_add(own / 2)
                    .checked_div(own)?;
                let scaled = u64::try_from(scaled).unwrap_or(u64::MAX);
                (scaled > 0).then(|| (stack.clone(), scaled))
            })
            .collect();
        Folded {
            stacks,
            skipped_open: self.skipped_open,
            samples: self.samples,
        }
    }

    /// Adds the stacks and the skipped-slice count of `other` to these.
    pub fn merge(&mut self, other: &Folded) {
        for (stack, weight) in &other.stacks {
            add_weight(&mut self.stacks, stack, *weight);
        }
        self.skipped_open = self.skipped_open.saturating_add(other.skipped_open);
        self.samples |= other.samples;
    }
}

/// The sum of the weights of `stacks`, without saturating.
fn wide_total(stacks: &BTreeMap<String, u64>) -> u128 {
    stacks.values().map(|weight| u128::from(*weight)).sum()
}

/// What the weights of a graph whose widths add up to `total` are divided by to keep their total
/// within [`DRAW_LIMIT`]: 1 for any total of a real capture.
fn draw_divisor(total: u128) -> u64 {
    u64::try_from(total.div_ceil(DRAW_LIMIT))
        .unwrap_or(u64::MAX)
        .max(1)
}

/// `weight` divided by `divisor` (at least 1), rounded to the nearest integer.
fn scale_down(weight: u64, divisor: u64) -> u64 {
    let divisor = divisor.max(1);
    weight / divisor + u64::from(weight % divisor >= divisor - divisor / 2)
}

/// Adds `weight` to the entry of `stack`, creating it if needed.
fn add_weight(stacks: &mut BTreeMap<String, u64>, stack: &str, weight: u64) {
    match stacks.get_mut(stack) {
        Some(total) => *total = total.saturating_add(weight),
        None => {
            stacks.insert(stack.to_owned(), weight);
        }
    }
}

/// An open frame on the current track.
#[derive(Debug)]
struct Frame {
    /// The slice's duration in nanoseconds.
    dur: u64,
    /// The sum of the durations of its direct children seen so far.
    children: u64,
    /// The length of the folded path before this frame's name was appended.
    path_len: usize,
    /// Whether the slice was never closed (its duration is null): it gives no weight.
    open: bool,
}

/// The track whose slices are being folded.
#[derive(Debug, PartialEq, Eq)]
struct TrackKey {
    capture: Option<String>,
    track: Option<i64>,
}

/// Folds the rows of [`fold_sql`] into [`Folded`] stacks, batch after batch.
///
/// Only the open frames of the current track and the folded stacks are kept, never the rows: the
/// batches may be the stream of the query's result. See the [module documentation](self) for the
/// folding rules.
#[derive(Debug)]
pub struct Folder {
    per_track: bool,
    current: Option<TrackKey>,
    /// The folded path of the open frames (with the track's name as root when `per_track`).
    path: String,
    frames: Vec<Frame>,
    folded: Folded,
}

impl Folder {
    /// A folder with no stacks yet. With `per_track`, every stack starts with the name of its
    /// track (the column `track_name`, which [`fold_sql`] selects when asked to).
    pub fn new(per_track: bool) -> Self {
        Folder {
            per_track,
            current: None,
            path: String::new(),
            frames: Vec::new(),
            folded: Folded::default(),
        }
    }

    /// Folds the rows of one batch, which continue the rows of the previous batches.
    ///
    /// The batch needs the columns `capture`, `track`, `dur`, `depth`, `name` and, with
    /// `per_track`, `track_name`, in any type that casts to text (`capture`, `name`,
    /// `track_name`) or to a 64-bit integer (`track`, `dur`, `depth`); other columns are ignored.
    /// A null depth counts as 0.
    pub fn push(&mut self, batch: &RecordBatch) -> Result<(), DataFusionError> {
        let capture = column(batch, "capture", &DataType::Utf8)?;
        let capture = strings(&capture, "capture")?;
        let track = column(batch, "track", &DataType::Int64)?;
        let track = integers(&track, "track")?;
        let dur = column(batch, "dur", &DataType::Int64)?;
        let dur = integers(&dur, "dur")?;
        let depth = column(batch, "depth", &DataType::Int64)?;
        let depth = integers(&depth, "depth")?;
        let name = column(batch, "name", &DataType::Utf8)?;
        let name = strings(&name, "name")?;
        let track_name = if self.per_track {
            Some(column(batch, "track_name", &DataType::Utf8)?)
        } else {
            None
        };
        let track_name = match &track_name {
            Some(array) => Some(strings(array, "track_name")?),
            None => None,
        };

        for row in 0..batch.num_rows() {
            let row_capture = capture.is_valid(row).then(|| capture.value(row));
            let row_track = track.is_valid(row).then(|| track.value(row));
            let same_track = self
                .current
                .as_ref()
                .is_some_and(|key| key.track == row_track && key.capture.as_deref() == row_capture);
            if !same_track {
                self.close_all();
                self.current = Some(TrackKey {
                    capture: row_capture.map(str::to_owned),
                    track: row_track,
                });
                if let Some(track_name) = track_name {
                    let raw = track_name.is_valid(row).then(|| track_name.value(row));
                    self.path.push_str(&track_root(raw, row_track));
                }
            }

            let row_depth = if depth.is_valid(row) {
                usize::try_from(depth.value(row)).unwrap_or(0)
            } else {
                0
            };
            while self.frames.len() > row_depth {
                self.close_top();
            }

            let open = dur.is_null(row);
            if open {
                self.folded.skipped_open = self.folded.skipped_open.saturating_add(1);
            }
            let row_dur = if open {
                0
            } else {
                u64::try_from(dur.value(row)).unwrap_or(0)
            };
            let raw_name = name.is_valid(row).then(|| name.value(row));
            let path_len = self.path.len();
            if !self.path.is_empty() {
                self.path.push(';');
            }
            self.path.push_str(&clean_name(raw_name));
            self.frames.push(Frame {
                dur: row_dur,
                children: 0,
                path_len,
                open,
            });
        }
        Ok(())
    }

    /// Closes every open frame and returns the folded stacks.
    pub fn finish(mut self) -> Folded {
        self.close_all();
        self.folded
    }

    /// Closes the top frame: adds its self time to its stack and its duration to its parent
    /// (nothing for a slice never closed).
    fn close_top(&mut self) {
        let Some(frame) = self.frames.pop() else {
            return;
        };
        let self_time = frame.dur.saturating_sub(frame.children);
        if self_time > 0 && !frame.open {
            add_weight(&mut self.folded.stacks, &self.path, self_time);
        }
        self.path.truncate(frame.path_len);
        if let Some(parent) = self.frames.last_mut().filter(|_| !frame.open) {
            parent.children = parent.children.saturating_add(frame.dur);
        }
    }

    /// Closes every open frame of the current track and forgets its root.
    fn close_all(&mut self) {
        while !self.frames.is_empty() {
            self.close_top();
        }
        self.path.clear();
    }
}

/// The column `name` of `batch`, cast to `to` if it has another type.
fn column(batch: &RecordBatch, name: &str, to: &DataType) -> Result<ArrayRef, DataFusionError> {
    let array = batch.column_by_name(name).ok_or_else(|| {
        DataFusionError::Execution(format!(
            "flame graph: the slices have no column `{name}` (columns: {})",
            batch
                .schema()
                .fields()
                .iter()
                .map(|field| field.name().as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })?;
    if array.data_type() == to {
        Ok(Arc::clone(array))
    } else {
        Ok(cast(array, to)?)
    }
}

/// `array` as text (it was cast to `Utf8`).
fn strings<'a>(array: &'a ArrayRef, name: &str) -> Result<&'a StringArray, DataFusionError> {
    array.as_string_opt::<i32>().ok_or_else(|| {
        DataFusionError::Internal(format!("flame graph: column `{name}` is not text"))
    })
}

/// `array` as 64-bit integers (it was cast to `Int64`).
fn integers<'a>(array: &'a ArrayRef, name: &str) -> Result<&'a Int64Array, DataFusionError> {
    array.as_primitive_opt::<Int64Type>().ok_or_else(|| {
        DataFusionError::Internal(format!("flame graph: column `{name}` is not an integer"))
    })
}

/// `array` as unsigned 64-bit integers (it was cast to `UInt64`).
fn unsigned<'a>(
    array: &'a ArrayRef,
    name: &str,
) -> Result<&'a datafusion::arrow::array::UInt64Array, DataFusionError> {
    array
        .as_primitive_opt::<datafusion::arrow::datatypes::UInt64Type>()
        .ok_or_else(|| {
            DataFusionError::Internal(format!("flame graph: column `{name}` is not an integer"))
        })
}

/// The root frame of a track: its cleaned name, or `track <id>` when it has none.
fn track_root(raw: Option<&str>, track: Option<i64>) -> Cow<'_, str> {
    let name = clean_name(raw);
    if name != UNNAMED {
        return name;
    }
    match track {
        Some(track) => Cow::Owned(format!("track {track}")),
        None => Cow::Borrowed(UNNAMED),
    }
}

/// Whether `c` must not appear in a frame name: a control character, or a code point that XML
/// does not allow.
fn is_unwanted(c: char) -> bool {
    c.is_control() || c == '\u{fffe}' || c == '\u{ffff}'
}

/// The position of the last space of `name` when what follows it is something the folded format
/// would read as a count: ASCII digits and dots only.
fn trailing_count_space(name: &str) -> Option<usize> {
    let space = name.rfind(' ')?;
    let tail = name.get(space + 1..)?;
    let looks_like_count = !tail.is_empty() && tail.chars().all(|c| c.is_ascii_digit() || c == '.');
    looks_like_count.then_some(space)
}

/// A frame name that keeps the folded format unambiguous and the SVG valid; see the
/// [module documentation](self).
fn clean_name(raw: Option<&str>) -> Cow<'_, str> {
    let Some(raw) = raw else {
        return Cow::Borrowed(UNNAMED);
    };
    let trimmed = raw.trim();
    let needs_rewrite = trimmed.contains(|c: char| c == ';' || is_unwanted(c))
        || trailing_count_space(trimmed).is_some();
    let mut name = if needs_rewrite {
        let mut name: String = trimmed
            .chars()
            .filter_map(|c| match c {
                ';' => Some(':'),
                '\t' => Some(' '),
                c if is_unwanted(c) => None,
                c => Some(c),
            })
            .collect();
        let clean_len = name.trim_end().len();
        name.truncate(clean_len);
        let start = name.len() - name.trim_start().len();
        name.drain(..start);
        if let Some(space) = trailing_count_space(&name) {
            name.replace_range(space..=space, "\u{a0}");
        }
        Cow::Owned(name)
    } else {
        Cow::Borrowed(trimmed)
    };
    if name.is_empty() {
        name = Cow::Borrowed(UNNAMED);
    }
    name
}

/// Orders folded lines for [`flamegraph::from_lines`] in flame chart mode.
///
/// inferno merges the frames of adjacent lines that share a prefix of frames, so lines are sorted
/// frame by frame (the byte order of whole stacks, which inferno's other modes sort by and
/// require, puts `a b` between `a` and `a;c` and draws `a` twice). Flame chart mode takes the
/// lines as they are, reversed, so the sorted lines are reversed here.
fn chart_order<T>(rows: &mut [(&str, T)]) {
    rows.sort_by(|x, y| x.0.split(';').cmp(y.0.split(';')));
    rows.reverse();
}

/// The drawing options shared by [`render`] and [`render_diff`].
fn options(title: &str, subtitle: Option<String>) -> Options<'static> {
    let mut options = Options::default();
    options.title = clean_text(title);
    options.subtitle = subtitle;
    options.count_name = COUNT_NAME.to_owned();
    options.name_type = NAME_TYPE.to_owned();
    // The color of a frame comes from a hash of its name, so a name keeps its color.
    options.hash = true;
    options.flame_chart = true;
    options
}

/// `text` without the characters that XML does not allow.
fn clean_text(text: &str) -> String {
    text.chars()
        .map(|c| if c == '\t' || c == '\n' { ' ' } else { c })
        .filter(|c| !is_unwanted(*c))
        .collect()
}

/// `text` with the XML special characters escaped.
fn escape_xml(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in clean_text(text).chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&apos;"),
            c => escaped.push(c),
        }
    }
    escaped
}

/// Writes a small SVG with the title and a message, for flame graphs without any stack (inferno
/// refuses to draw those).
fn write_empty_svg(title: &str, message: &str, out: &mut dyn Write) -> io::Result<()> {
    let center = EMPTY_WIDTH / 2;
    writeln!(out, r#"<?xml version="1.0" standalone="no"?>"#)?;
    writeln!(
        out,
        r#"<svg version="1.1" width="{EMPTY_WIDTH}" height="80" viewBox="0 0 {EMPTY_WIDTH} 80" xmlns="http://www.w3.org/2000/svg">"#
    )?;
    writeln!(
        out,
        r##"<rect x="0" y="0" width="100%" height="100%" fill="#eeeeee"/>"##
    )?;
    writeln!(
        out,
        r#"<text x="{center}" y="28" text-anchor="middle" font-family="monospace" font-size="17">{}</text>"#,
        escape_xml(title)
    )?;
    writeln!(
        out,
        r#"<text x="{center}" y="58" text-anchor="middle" font-family="monospace" font-size="12">{}</text>"#,
        escape_xml(message)
    )?;
    writeln!(out, "</svg>")
}

/// The subtitle that reports slices left out, if any.
fn skipped_note(skipped: u64) -> Option<String> {
    (skipped > 0).then(|| {
        let s = if skipped == 1 { "" } else { "s" };
        format!("{skipped} slice{s} without a duration (never closed) left out")
    })
}

/// Draws `folded` as an interactive SVG flame graph titled `title` into `out`.
///
/// Frame widths are self plus children time in nanoseconds; a frame's color comes from its name.
/// Without any stack the SVG only shows the title and says that there are no slices to draw.
/// A total beyond about 13 days (2^50 ns) is drawn from weights divided down to that, so the
/// counts the graph shows are then rounded.
pub fn render(folded: &Folded, title: &str, out: &mut dyn Write) -> io::Result<()> {
    if folded.total() == 0 {
        let mut message = String::from("No slices with a duration: nothing to draw.");
        if let Some(note) = skipped_note(folded.skipped_open) {
            message = format!("{message} ({note})");
        }
        return write_empty_svg(title, &message, out);
    }
    let mut rows: Vec<(&str, u64)> = folded
        .stacks
        .iter()
        .map(|(stack, weight)| (stack.as_str(), *weight))
        .collect();
    chart_order(&mut rows);
    let divisor = draw_divisor(wide_total(&folded.stacks));
    let lines: Vec<String> = rows
        .iter()
        .map(|(stack, weight)| format!("{stack} {}", scale_down(*weight, divisor)))
        .collect();
    let mut options = options(title, skipped_note(folded.skipped_open));
    options.factor = divisor as f64;
    if folded.samples {
        options.count_name = SAMPLES_NAME.to_owned();
        options.name_type = "Function:".to_owned();
    }
    flamegraph::from_lines(&mut options, lines.iter().map(String::as_str), out)
}

/// Every stack of `a` or `b` with its weight in `a` and in `b` (0 where it is missing).
fn diff_rows<'a>(a: &'a Folded, b: &'a Folded) -> BTreeMap<&'a str, (u64, u64)> {
    let mut rows: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    for (stack, weight) in &a.stacks {
        rows.entry(stack.as_str()).or_default().0 = *weight;
    }
    for (stack, weight) in &b.stacks {
        rows.entry(stack.as_str()).or_default().1 = *weight;
    }
    rows
}

/// Writes the differential folded lines of `a` (before) and `b` (after): `stack a_weight
/// b_weight` and `\n` for every stack of either, in byte order of the stacks — the input format
/// of differential flame graphs (`difffolded.pl`, `inferno-diff-folded`).
pub fn write_diff_folded(a: &Folded, b: &Folded, out: &mut dyn Write) -> io::Result<()> {
    for (stack, (weight_a, weight_b)) in diff_rows(a, b) {
        writeln!(out, "{stack} {weight_a} {weight_b}")?;
    }
    Ok(())
}

/// Draws the differential flame graph of `a` (before) and `b` (after) into `out`.
///
/// Frames have the widths of `b`; a frame is red when its self time grew from `a` to `b` (slower
/// in `b`), blue when it shrank, the deeper the larger the change, and white when it stayed the
/// same; the color scale goes up to the largest change of a drawn frame. Stacks only in `a` have
/// no width in `b` and do not show. The changes are absolute
/// times: when `b` is much longer than `a`, nearly everything is red; see [`Folded::scaled_to`]
/// to compare shares instead. The SVG's notes comment gives the totals it was drawn from, as
/// `<!--NOTES: differential: A <total of a> ns, B <total of b> ns-->`. When `b` has no stack,
/// the SVG only shows the title and says so.
pub fn render_diff(a: &Folded, b: &Folded, title: &str, out: &mut dyn Write) -> io::Result<()> {
    // Sampled stacks weigh samples, calls their self time in ns.
    let samples = a.samples || b.samples;
    let (what, unit) = if samples {
        ("sampled stacks", SAMPLES_NAME)
    } else {
        ("slices with a duration", COUNT_NAME)
    };
    if b.total() == 0 {
        let message = if a.total() == 0 {
            format!("No {what} on either side: nothing to draw.")
        } else {
            format!("No {what} in B, the side whose widths are drawn: nothing to draw.")
        };
        return write_empty_svg(title, &message, out);
    }
    // Stacks only in `a` would have no width; left out, they do not set the color scale either
    // (inferno scales colors to the largest change of any line).
    let mut rows: Vec<(&str, (u64, u64))> = diff_rows(a, b)
        .into_iter()
        .filter(|(_, (_, weight_b))| *weight_b > 0)
        .collect();
    chart_order(&mut rows);
    // B's weights are the widths, added up by inferno; A's only enter the changes, which stay
    // within what inferno computes in 64-bit integers when each is at most DRAW_LIMIT.
    let divisor = draw_divisor(wide_total(&b.stacks));
    let limit = u64::try_from(DRAW_LIMIT).unwrap_or(u64::MAX);
    let lines: Vec<String> = rows
        .iter()
        .map(|(stack, (weight_a, weight_b))| {
            let weight_a = scale_down(*weight_a, divisor).min(limit);
            let weight_b = scale_down(*weight_b, divisor);
            format!("{stack} {weight_a} {weight_b}")
        })
        .collect();
    let weight = if samples { "samples" } else { "self time" };
    let subtitle = format!(
        "widths: B; red: more {weight} in B than in A, blue: less (totals: A {} {unit}, B {} {unit})",
        a.total(),
        b.total()
    );
    let mut options = options(title, Some(subtitle));
    options.notes = format!(
        "differential: A {} {unit}, B {} {unit}",
        a.total(),
        b.total()
    );
    options.factor = divisor as f64;
    if samples {
        options.count_name = SAMPLES_NAME.to_owned();
        options.name_type = "Function:".to_owned();
    }
    flamegraph::from_lines(&mut options, lines.iter().map(String::as_str), out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{
        DictionaryArray, Int32Array, LargeStringArray, StringViewArray,
    };
    use datafusion::arrow::datatypes::{Field, Int32Type, Schema};

    /// One row of the fold query.
    #[derive(Clone, Debug)]
    struct Row {
        capture: &'static str,
        track: i64,
        ts: i64,
        dur: Option<i64>,
        depth: i32,
        name: &'static str,
        track_name: Option<&'static str>,
    }

    fn row(track: i64, ts: i64, dur: Option<i64>, depth: i32, name: &'static str) -> Row {
        Row {
            capture: "c1",
            track,
            ts,
            dur,
            depth,
            name,
            track_name: None,
        }
    }

    /// The rows as a batch with the column types of the `slices` table.
    fn batch(rows: &[Row]) -> RecordBatch {
        let capture: DictionaryArray<Int32Type> = rows.iter().map(|r| r.capture).collect();
        let name: DictionaryArray<Int32Type> = rows.iter().map(|r| r.name).collect();
        let track_name: StringArray = rows.iter().map(|r| r.track_name).collect();
        let schema = Schema::new(vec![
            Field::new("capture", capture.data_type().clone(), false),
            Field::new("track", DataType::Int64, false),
            Field::new("ts", DataType::Int64, false),
            Field::new("dur", DataType::Int64, true),
            Field::new("depth", DataType::Int32, false),
            Field::new("name", name.data_type().clone(), false),
            Field::new("track_name", DataType::Utf8, true),
        ]);
        RecordBatch::try_new(
            Arc::new(schema),
            vec![
                Arc::new(capture),
                Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.track))),
                Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.ts))),
                Arc::new(Int64Array::from_iter(rows.iter().map(|r| r.dur))),
                Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.depth))),
                Arc::new(name),
                Arc::new(track_name),
            ],
        )
        .unwrap() // ok: test batch of matching columns
    }

    fn fold_batches(per_track: bool, batches: &[RecordBatch]) -> Folded {
        let mut folder = Folder::new(per_track);
        for batch in batches {
            folder.push(batch).unwrap(); // ok: test batches have the slices columns
        }
        folder.finish()
    }

    fn fold(rows: &[Row]) -> Folded {
        fold_batches(false, &[batch(rows)])
    }

    fn stacks(folded: &Folded) -> Vec<(&str, u64)> {
        folded
            .stacks()
            .iter()
            .map(|(stack, weight)| (stack.as_str(), *weight))
            .collect()
    }

    fn svg(render_with: impl FnOnce(&mut Vec<u8>) -> io::Result<()>) -> String {
        let mut out = Vec::new();
        render_with(&mut out).unwrap(); // ok: writing to a Vec does not fail
        String::from_utf8(out).unwrap()
    }

    /// Checks that the tags of `xml` are well nested, skipping the declaration, the doctype,
    /// comments and CDATA sections.
    fn assert_well_nested(xml: &str) {
        let mut open: Vec<&str> = Vec::new();
        let mut rest = xml;
        while let Some(start) = rest.find('<') {
            rest = &rest[start..];
            let skip_to = |rest: &mut &str, end: &str| {
                let at = rest
                    .find(end)
                    .unwrap_or_else(|| panic!("unterminated {end}"));
                *rest = &rest[at + end.len()..];
            };
            if rest.starts_with("<?") {
                skip_to(&mut rest, "?>");
            } else if rest.starts_with("<!--") {
                skip_to(&mut rest, "-->");
            } else if rest.starts_with("<![CDATA[") {
                skip_to(&mut rest, "]]>");
            } else if rest.starts_with("<!") {
                skip_to(&mut rest, ">");
            } else {
                let end = rest.find('>').expect("unterminated tag");
                let tag = &rest[1..end];
                rest = &rest[end + 1..];
                if let Some(name) = tag.strip_prefix('/') {
                    assert_eq!(open.pop(), Some(name.trim()), "mismatched </{name}>");
                } else if !tag.ends_with('/') {
                    let name = tag.split_whitespace().next().expect("empty tag");
                    open.push(name);
                }
            }
        }
        assert!(open.is_empty(), "unclosed tags: {open:?}");
    }

    fn assert_svg(svg: &str) {
        assert!(
            svg.starts_with("<?xml") || svg.starts_with("<svg"),
            "not an SVG: {}",
            &svg[..svg.len().min(200)]
        );
        assert!(svg.contains("<svg"));
        assert!(svg.trim_end().ends_with("</svg>"));
        assert_well_nested(svg);
    }

    /// The `rgb(r,g,b)` fills of the frames of an SVG.
    fn fills(svg: &str) -> Vec<(u8, u8, u8)> {
        svg.split("fill=\"rgb(")
            .skip(1)
            .filter_map(|rest| {
                let inside = &rest[..rest.find(')')?];
                let parts: Vec<u8> = inside.split(',').map(|p| p.parse().unwrap()).collect();
                Some((parts[0], parts[1], parts[2]))
            })
            .collect()
    }

    #[test]
    fn nesting_has_self_time_at_every_level() {
        let folded = fold(&[
            row(1, 0, Some(100), 0, "main"),
            row(1, 10, Some(50), 1, "update"),
            row(1, 20, Some(10), 2, "physics"),
        ]);
        assert_eq!(
            stacks(&folded),
            vec![
                ("main", 50),
                ("main;update", 40),
                ("main;update;physics", 10)
            ]
        );
        assert_eq!(folded.total(), 100);
        assert_eq!(folded.skipped_open(), 0);
        assert_eq!(
            folded.lines().collect::<Vec<_>>(),
            vec!["main 50", "main;update 40", "main;update;physics 10"]
        );
        let mut out = Vec::new();
        folded.write_to(&mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "main 50\nmain;update 40\nmain;update;physics 10\n"
        );
    }

    #[test]
    fn siblings_close_each_other_and_same_names_add_up() {
        let folded = fold(&[
            row(1, 0, Some(100), 0, "frame"),
            row(1, 0, Some(30), 1, "update"),
            row(1, 30, Some(20), 1, "draw"),
            row(1, 35, Some(5), 2, "flush"),
            row(1, 60, Some(10), 1, "update"),
            row(1, 100, Some(40), 0, "frame"),
            row(1, 110, Some(40), 1, "draw"),
        ]);
        assert_eq!(
            stacks(&folded),
            vec![
                ("frame", 40),
                ("frame;draw", 55),
                ("frame;draw;flush", 5),
                ("frame;update", 40),
            ]
        );
        assert_eq!(folded.total(), 140);
    }

    #[test]
    fn equal_timestamps_nest_by_depth() {
        let folded = fold(&[
            row(1, 5, Some(10), 0, "a"),
            row(1, 5, Some(10), 1, "b"),
            row(1, 5, Some(4), 2, "c"),
            row(1, 9, Some(0), 2, "zero"),
        ]);
        // `a` has no self time and gives no line; a zero-length slice gives none either.
        assert_eq!(stacks(&folded), vec![("a;b", 6), ("a;b;c", 4)]);
    }

    #[test]
    fn tracks_and_captures_flush_their_stacks() {
        let mut rows = vec![
            row(1, 0, Some(100), 0, "main"),
            row(1, 10, Some(30), 1, "work"),
            // Track 2 starts: `main` and `work` of track 1 close, and `idle` is a root although
            // its depth says otherwise.
            row(2, 20, Some(50), 1, "idle"),
            row(2, 30, Some(5), 2, "poll"),
        ];
        let mut other = rows.clone();
        for r in &mut other {
            r.capture = "c2";
        }
        rows.extend(other);
        let folded = fold(&rows);
        assert_eq!(
            stacks(&folded),
            vec![
                ("idle", 90),
                ("idle;poll", 10),
                ("main", 140),
                ("main;work", 60)
            ]
        );
        // Only the capture changes between two rows of the same track id: still a new track.
        let folded = fold(&[
            row(1, 0, Some(100), 0, "main"),
            Row {
                capture: "c2",
                ..row(1, 10, Some(30), 1, "work")
            },
        ]);
        assert_eq!(stacks(&folded), vec![("main", 100), ("work", 30)]);
    }

    #[test]
    fn open_slices_are_skipped_and_counted() {
        let folded = fold(&[
            row(1, 0, Some(100), 0, "main"),
            row(1, 10, Some(20), 1, "work"),
            // Never closed: no weight, and no time taken from `main`, but it still closes
            // `work` and stays in the stack of the slice closed inside it.
            row(1, 40, None, 1, "hang"),
            row(1, 50, Some(10), 2, "inner"),
            row(1, 200, None, 0, "exit"),
        ]);
        assert_eq!(folded.skipped_open(), 2);
        assert_eq!(
            stacks(&folded),
            vec![("main", 80), ("main;hang;inner", 10), ("main;work", 20)]
        );
        let only_open = fold(&[row(1, 0, None, 0, "a")]);
        assert!(only_open.is_empty());
        assert_eq!(only_open.skipped_open(), 1);
        assert_eq!(only_open.total(), 0);
    }

    #[test]
    fn depth_jumps_make_children_of_the_top() {
        let folded = fold(&[
            row(1, 0, Some(10), 3, "deep_root"),
            row(1, 0, Some(4), 7, "deeper"),
            row(1, 20, Some(100), 0, "main"),
            row(1, 30, Some(30), 5, "jump"),
            row(1, 40, Some(10), 2, "back"),
            row(1, 50, Some(10), -1, "negative"),
        ]);
        assert_eq!(
            stacks(&folded),
            vec![
                ("deep_root", 6),
                ("deep_root;deeper", 4),
                ("main", 70),
                ("main;jump", 20),
                ("main;jump;back", 10),
                ("negative", 10),
            ]
        );
    }

    #[test]
    fn children_longer_than_their_parent_leave_no_self_time() {
        let folded = fold(&[
            row(1, 0, Some(10), 0, "parent"),
            row(1, 0, Some(8), 1, "a"),
            row(1, 5, Some(8), 1, "b"),
            row(1, 20, Some(-5), 0, "negative"),
        ]);
        assert_eq!(stacks(&folded), vec![("parent;a", 8), ("parent;b", 8)]);
    }

    #[test]
    fn names_are_cleaned() {
        let folded = fold(&[
            row(1, 0, Some(100), 0, "a;b"),
            row(1, 0, Some(10), 1, "line\nbreak\r"),
            row(1, 10, Some(10), 1, "Job 12"),
            row(1, 20, Some(10), 1, "  \t "),
            row(1, 30, Some(10), 1, "tab\tbed 1.5"),
            row(1, 40, Some(10), 1, "Job 12 b"),
        ]);
        assert_eq!(
            stacks(&folded),
            vec![
                ("a:b", 50),
                ("a:b;(unnamed)", 10),
                ("a:b;Job 12 b", 10),
                ("a:b;Job\u{a0}12", 10),
                ("a:b;linebreak", 10),
                ("a:b;tab bed\u{a0}1.5", 10),
            ]
        );
        assert_eq!(clean_name(None), "(unnamed)");
        assert_eq!(clean_name(Some("plain")), Cow::Borrowed("plain"));
        assert_eq!(clean_name(Some("x 1")), "x\u{a0}1");
        assert_eq!(clean_name(Some("x\u{0}y")), "xy");
        // Every folded line reads back as the stack and one count.
        for line in folded.lines() {
            let (stack, count) = line.rsplit_once(' ').unwrap();
            count.parse::<u64>().unwrap();
            assert!(stack
                .rsplit_once(' ')
                .is_none_or(|(_, tail)| tail.parse::<f64>().is_err()));
        }
    }

    #[test]
    fn per_track_roots_are_track_names() {
        let rows = vec![
            Row {
                track_name: Some("Main thread"),
                ..row(1, 0, Some(100), 0, "main")
            },
            Row {
                track_name: Some("Main thread"),
                ..row(1, 10, Some(10), 1, "work")
            },
            Row {
                track_name: Some("io;pool"),
                ..row(2, 0, Some(30), 0, "read")
            },
            Row {
                track_name: None,
                ..row(3, 0, Some(5), 0, "main")
            },
        ];
        let folded = fold_batches(true, &[batch(&rows)]);
        assert_eq!(
            stacks(&folded),
            vec![
                ("Main thread;main", 90),
                ("Main thread;main;work", 10),
                ("io:pool;read", 30),
                ("track 3;main", 5),
            ]
        );
        // Without per_track the same rows have no root frame.
        let folded = fold_batches(false, &[batch(&rows)]);
        assert_eq!(
            stacks(&folded),
            vec![("main", 95), ("main;work", 10), ("read", 30)]
        );
        // per_track needs the column.
        let mut folder = Folder::new(true);
        let without = batch(&rows).project(&[0, 1, 2, 3, 4, 5]).unwrap();
        let error = folder.push(&without).unwrap_err();
        assert!(error.to_string().contains("track_name"), "{error}");
    }

    /// A track with nesting, siblings, open slices and a second track and capture.
    fn varied_rows() -> Vec<Row> {
        let mut rows = vec![
            row(1, 0, Some(100), 0, "main"),
            row(1, 0, Some(40), 1, "update"),
            row(1, 5, Some(10), 2, "physics"),
            row(1, 15, None, 2, "open"),
            row(1, 20, Some(5), 3, "step"),
            row(1, 50, Some(30), 1, "draw"),
            row(1, 55, Some(10), 2, "flush"),
            row(1, 100, Some(20), 0, "main"),
            row(1, 105, Some(5), 1, "update"),
            row(2, 0, Some(60), 0, "io"),
            row(2, 10, Some(15), 1, "read"),
            row(2, 30, Some(5), 4, "jump"),
        ];
        let mut other: Vec<Row> = rows.iter().take(6).cloned().collect();
        for r in &mut other {
            r.capture = "c2";
            r.track_name = Some("T");
        }
        rows.extend(other);
        rows
    }

    #[test]
    fn any_split_into_batches_folds_the_same() {
        let rows = varied_rows();
        for per_track in [false, true] {
            let whole = fold_batches(per_track, &[batch(&rows)]);
            assert!(whole.total() > 0);
            for first in 0..=rows.len() {
                for second in first..=rows.len() {
                    let batches = [
                        batch(&rows[..first]),
                        batch(&rows[first..second]),
                        batch(&rows[second..]),
                    ];
                    assert_eq!(
                        fold_batches(per_track, &batches),
                        whole,
                        "split at {first} and {second}, per_track {per_track}"
                    );
                }
            }
        }
    }

    #[test]
    fn other_column_types_are_cast() {
        let rows = varied_rows();
        let expected = fold(&rows);
        let schema = Schema::new(vec![
            Field::new("name", DataType::Utf8View, false),
            Field::new("capture", DataType::LargeUtf8, false),
            Field::new("track", DataType::Int32, false),
            Field::new("depth", DataType::Int64, false),
            Field::new("dur", DataType::Int64, true),
        ]);
        let batch = RecordBatch::try_new(
            Arc::new(schema),
            vec![
                Arc::new(StringViewArray::from_iter_values(
                    rows.iter().map(|r| r.name),
                )),
                Arc::new(LargeStringArray::from_iter_values(
                    rows.iter().map(|r| r.capture),
                )),
                Arc::new(Int32Array::from_iter_values(
                    rows.iter().map(|r| r.track as i32),
                )),
                Arc::new(Int64Array::from_iter_values(
                    rows.iter().map(|r| i64::from(r.depth)),
                )),
                Arc::new(Int64Array::from_iter(rows.iter().map(|r| r.dur))),
            ],
        )
        .unwrap();
        assert_eq!(fold_batches(false, std::slice::from_ref(&batch)), expected);
        let mut folder = Folder::new(false);
        let error = folder
            .push(&batch.project(&[0, 1, 2, 3]).unwrap())
            .unwrap_err();
        assert!(error.to_string().contains("`dur`"), "{error}");
    }

    #[test]
    fn merge_adds_stacks_and_counts() {
        let mut a = fold(&[row(1, 0, Some(10), 0, "x"), row(1, 10, None, 0, "y")]);
        let b = fold(&[row(1, 0, Some(5), 0, "x"), row(1, 10, Some(1), 0, "z")]);
        a.merge(&b);
        assert_eq!(stacks(&a), vec![("x", 15), ("z", 1)]);
        assert_eq!(a.skipped_open(), 1);
        assert_eq!(a.len(), 2);
    }

    #[test]
    fn scaled_to_keeps_the_shares() {
        let folded = fold(&[
            row(1, 0, Some(30), 0, "a"),
            row(1, 30, Some(10), 0, "b"),
            row(1, 40, Some(1), 0, "tiny"),
            row(1, 50, None, 0, "open"),
        ]);
        let scaled = folded.scaled_to(410);
        assert_eq!(stacks(&scaled), vec![("a", 300), ("b", 100), ("tiny", 10)]);
        assert_eq!(scaled.skipped_open(), 1);
        assert_eq!(
            stacks(&folded.scaled_to(41)),
            vec![("a", 30), ("b", 10), ("tiny", 1)]
        );
        // 1 * 4 / 41 rounds to 0: dropped.
        assert_eq!(stacks(&folded.scaled_to(4)), vec![("a", 3), ("b", 1)]);
        assert!(Folded::default().scaled_to(100).is_empty());
        let huge = fold(&[row(1, 0, Some(i64::MAX), 0, "x")]);
        assert_eq!(stacks(&huge.scaled_to(u64::MAX)), vec![("x", u64::MAX)]);
        // Totals beyond u64::MAX still scale by the true total.
        let rows: Vec<Row> = ["a", "b", "c", "d", "e", "f"]
            .into_iter()
            .enumerate()
            .map(|(i, name)| row(1, i as i64, Some(i64::MAX), 0, name))
            .collect();
        let scaled = fold(&rows).scaled_to(600);
        assert!(stacks(&scaled).iter().all(|(_, weight)| *weight == 100));
    }

    #[test]
    fn fold_sql_names_the_tables() {
        assert_eq!(
            fold_sql(None, false),
            "SELECT s.capture, s.track, s.ts, s.dur, s.depth, s.name FROM slices s \
             ORDER BY s.capture, s.track, s.ts, s.depth, s.dur NULLS LAST"
        );
        let sql = fold_sql(Some("a"), true);
        assert!(
            sql.contains("FROM \"a\".slices s LEFT JOIN \"a\".tracks t"),
            "{sql}"
        );
        assert!(sql.contains("t.name AS track_name"), "{sql}");
        assert!(fold_sql(Some("x\"y"), false).contains("\"x\"\"y\".slices"));
    }

    #[test]
    fn fold_sql_runs_in_datafusion() {
        use datafusion::datasource::MemTable;
        use datafusion::prelude::SessionContext;

        let rows = varied_rows();
        // The rows in another order: the query orders them.
        let mut shuffled = rows.clone();
        shuffled.reverse();
        let slices = batch(&shuffled).project(&[0, 1, 2, 3, 4, 5]).unwrap();
        let track_capture: DictionaryArray<Int32Type> = ["c1", "c1", "c2"].into_iter().collect();
        let tracks = RecordBatch::try_new(
            Arc::new(Schema::new(vec![
                Field::new("capture", track_capture.data_type().clone(), false),
                Field::new("track", DataType::Int64, false),
                Field::new("name", DataType::Utf8, true),
            ])),
            vec![
                Arc::new(track_capture),
                Arc::new(Int64Array::from(vec![1, 2, 1])),
                Arc::new(StringArray::from(vec![Some("Main"), Some("IO"), None])),
            ],
        )
        .unwrap();

        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let results = runtime.block_on(async {
            let ctx = SessionContext::new();
            ctx.sql("CREATE SCHEMA a").await.unwrap();
            for (name, batch) in [("a.slices", &slices), ("a.tracks", &tracks)] {
                let table = MemTable::try_new(batch.schema(), vec![vec![batch.clone()]]).unwrap();
                ctx.register_table(name, Arc::new(table)).unwrap();
            }
            let mut results = Vec::new();
            for per_track in [false, true] {
                let sql = fold_sql(Some("a"), per_track);
                let batches = ctx.sql(&sql).await.unwrap().collect().await.unwrap();
                results.push(fold_batches(per_track, &batches));
            }
            results
        });
        assert_eq!(results[0], fold(&rows));
        assert_eq!(
            stacks(&results[1])
                .iter()
                .map(|(stack, _)| stack.split(';').next().unwrap())
                .collect::<std::collections::BTreeSet<_>>(),
            ["IO", "Main", "track 1"].into_iter().collect()
        );
        assert_eq!(results[1].total(), results[0].total());
    }

    #[test]
    fn render_draws_the_frames() {
        let folded = fold(&[
            row(1, 0, Some(100), 0, "main"),
            row(1, 10, Some(50), 1, "up<da>te & co"),
            row(1, 20, Some(10), 2, "physics"),
        ]);
        let svg = svg(|out| render(&folded, "Slices of <c1>", out));
        assert_svg(&svg);
        assert!(svg.contains("main"));
        assert!(svg.contains("up&lt;da&gt;te &amp; co"));
        assert!(svg.contains("physics"));
        assert!(svg.contains("Slices of &lt;c1&gt;"));
        assert!(svg.contains(" ns"));
        assert!(svg.contains("total_samples=\"100\""));
        assert!(!fills(&svg).is_empty());
        // The color of a frame comes from its name.
        assert_eq!(svg, self::svg(|out| render(&folded, "Slices of <c1>", out)));
    }

    #[test]
    fn render_merges_frames_whose_names_sort_around_the_separator() {
        // In byte order `render pass` sorts between `render` and `render;draw`.
        let folded = fold(&[
            row(1, 0, Some(100), 0, "frame"),
            row(1, 0, Some(40), 1, "render"),
            row(1, 0, Some(10), 2, "draw"),
            row(1, 40, Some(30), 1, "render pass"),
        ]);
        let svg = svg(|out| render(&folded, "t", out));
        assert_svg(&svg);
        assert_eq!(svg.matches("<title>render (").count(), 1, "{svg}");
        assert_eq!(svg.matches("<title>render pass (").count(), 1);
    }

    #[test]
    fn render_of_nothing_is_a_valid_svg() {
        let empty = Folder::new(false).finish();
        let svg = svg(|out| render(&empty, "Empty & <nothing>", out));
        assert_svg(&svg);
        assert!(svg.contains("No slices"));
        assert!(svg.contains("Empty &amp; &lt;nothing&gt;"));
        let open = fold(&[row(1, 0, None, 0, "open")]);
        let svg = self::svg(|out| render(&open, "t", out));
        assert_svg(&svg);
        assert!(svg.contains("1 slice without a duration"));
        let svg = self::svg(|out| render_diff(&open, &empty, "t", out));
        assert_svg(&svg);
        assert!(svg.contains("either side"));
    }

    #[test]
    fn render_draws_huge_weights() {
        // Three durations of i64::MAX add up to more than u64::MAX.
        let huge = fold(&[
            row(1, 0, Some(i64::MAX), 0, "a"),
            row(1, 1, Some(i64::MAX), 0, "b"),
            row(1, 2, Some(i64::MAX), 0, "c"),
            row(1, 3, Some(1), 0, "d"),
        ]);
        assert_eq!(huge.total(), u64::MAX);
        let svg = self::svg(|out| render(&huge, "t", out));
        assert_svg(&svg);
        // Drawn with the weights divided down and inferno's factor multiplying them back: the
        // counts shown are within a divisor (about 2^14) of the weights.
        assert!(svg.contains("<title>a (9,223,372,036,854,7"), "{svg}");
        assert!(svg.contains("ns, 33.33%)</title>"));
        let small = fold(&[row(1, 0, Some(5), 0, "a")]);
        for (a, b) in [(&small, &huge), (&huge, &small), (&huge, &huge)] {
            let svg = self::svg(|out| render_diff(a, b, "t", out));
            assert_svg(&svg);
            assert!(svg.contains("<title>a ("));
        }
    }

    /// A profile where `slow` takes longer in B and `fast` shorter.
    fn before_after() -> (Folded, Folded) {
        let a = fold(&[
            row(1, 0, Some(100), 0, "main"),
            row(1, 0, Some(20), 1, "slow"),
            row(1, 20, Some(60), 1, "fast"),
            row(1, 80, Some(10), 1, "gone"),
        ]);
        let b = fold(&[
            row(1, 0, Some(100), 0, "main"),
            row(1, 0, Some(60), 1, "slow"),
            row(1, 60, Some(20), 1, "fast"),
            row(1, 80, Some(5), 1, "new"),
        ]);
        (a, b)
    }

    #[test]
    fn diff_folded_has_both_weights() {
        let (a, b) = before_after();
        let mut out = Vec::new();
        write_diff_folded(&a, &b, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "main 10 15\nmain;fast 60 20\nmain;gone 10 0\nmain;new 0 5\nmain;slow 20 60\n"
        );
    }

    #[test]
    fn render_diff_colors_slower_red_and_faster_blue() {
        let (a, b) = before_after();
        let svg = svg(|out| render_diff(&a, &b, "A vs B", out));
        assert_svg(&svg);
        // Widths are B's.
        assert!(svg.contains("total_samples=\"100\""));
        assert!(svg.contains("<!--NOTES: differential: A 100 ns, B 100 ns-->"));
        let frame = |name: &str| {
            let at = svg
                .find(&format!("<title>{name} ("))
                .unwrap_or_else(|| panic!("no frame {name}"));
            fills(&svg[at..])[0]
        };
        let (r, g, b_) = frame("slow");
        assert!(r == 255 && g == b_ && g < 200, "slow is {:?}", (r, g, b_));
        let (r, g, b_) = frame("fast");
        assert!(b_ == 255 && r == g && r < 200, "fast is {:?}", (r, g, b_));
        assert!(svg.contains("fast (20 ns"), "widths are B's");
        assert!(!svg.contains("<title>gone ("), "only in A: no width");
        let fills = fills(&svg);
        assert!(fills.iter().any(|&(r, g, b)| r == 255 && g < 240 && g == b));
        assert!(fills.iter().any(|&(r, g, b)| b == 255 && r < 240 && r == g));
        // A stack only in A, far larger than any change drawn, does not wash the colors out.
        let mut with_gone = a.clone();
        with_gone.merge(&fold(&[row(1, 0, Some(1_000_000), 0, "gone")]));
        let svg = self::svg(|out| render_diff(&with_gone, &b, "t", out));
        let at = svg.find("<title>slow (").unwrap();
        let (r, g, b_) = self::fills(&svg[at..])[0];
        assert!(
            r == 255 && g == 100 && b_ == 100,
            "slow is {:?}",
            (r, g, b_)
        );
        // Scaled to the same total, a frame that grew less than the whole is blue.
        let longer = fold(&[
            row(1, 0, Some(1000), 0, "main"),
            row(1, 0, Some(100), 1, "slow"),
            row(1, 100, Some(500), 1, "fast"),
        ]);
        let absolute = self::svg(|out| render_diff(&a, &longer, "t", out));
        assert!(!self::fills(&absolute)
            .iter()
            .any(|&(r, g, b)| b == 255 && r < 240 && r == g));
        let shares = self::svg(|out| render_diff(&a.scaled_to(longer.total()), &longer, "t", out));
        assert!(self::fills(&shares)
            .iter()
            .any(|&(r, g, b)| b == 255 && r < 240 && r == g));
        // Swapped sides swap the colors.
        let svg = self::svg(|out| render_diff(&b, &a, "B vs A", out));
        let at = svg.find("<title>slow (").unwrap();
        let (r, g, b_) = self::fills(&svg[at..])[0];
        assert!(b_ == 255 && r == g, "slow is {:?}", (r, g, b_));
    }
}
