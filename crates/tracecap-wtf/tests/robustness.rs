//! Damaged input: prefixes and single-byte mutations of every corpus file. No panic, error offsets
//! inside the file, and every event before the damage still returned unchanged.

mod common;

use tracecap_testkit::Rng;
use tracecap_wtf::json::ArgsJson;
use tracecap_wtf::timeline::Timeline;
use tracecap_wtf::{Capture, Container};

#[derive(Debug, PartialEq)]
struct Seen {
    offset: u64,
    wire_id: u32,
    time: u32,
    /// End of the unit whose damage could change this event: the event itself (legacy) or its
    /// chunk (chunked).
    safe_end: u64,
}

/// Walks everything a consumer would touch; returns the events and the error, if any.
fn walk(bytes: &[u8], deep: bool) -> (Vec<Seen>, Option<tracecap_wtf::Error>) {
    let trace = match Capture::parse(bytes) {
        Ok(t) => t,
        Err(e) => return (Vec::new(), Some(e)),
    };
    let chunk_ends: Vec<u64> = trace
        .chunks()
        .map_while(Result::ok)
        .map(|c| c.offset + chunk_len(bytes, c.offset))
        .collect();
    let legacy = trace.header().container == Container::Legacy;
    let mut fmt = ArgsJson::new();
    let mut seen = Vec::new();
    let mut events = trace.events();
    let mut err = None;
    let mut prev: Option<(u64, usize)> = None;
    for ev in events.by_ref() {
        match ev {
            Ok(ev) => {
                if let Some((_, i)) = prev {
                    if legacy {
                        let s: &mut Seen = &mut seen[i];
                        s.safe_end = ev.offset;
                    }
                }
                let safe_end = if legacy {
                    bytes.len() as u64
                } else {
                    chunk_ends
                        .get(ev.chunk as usize)
                        .copied()
                        .unwrap_or(u64::MAX)
                };
                if deep {
                    let _ = fmt.args(&ev);
                    let _ = ev.zone_create();
                }
                for a in ev.args() {
                    if a.is_err() {
                        break;
                    }
                }
                prev = Some((ev.offset, seen.len()));
                seen.push(Seen {
                    offset: ev.offset,
                    wire_id: ev.wire_id,
                    time: ev.time,
                    safe_end,
                });
            }
            Err(e) => {
                err = Some(e);
            }
        }
    }
    assert!(events.next().is_none(), "fused");
    if deep {
        {
            let tl = Timeline::build(&trace);
            for z in &tl.zones {
                let _ = z.scopes().count();
            }
        }
        let _ = trace.header();
    }
    (seen, err)
}

fn chunk_len(bytes: &[u8], at: u64) -> u64 {
    let at = at as usize;
    u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as u64
}

fn damaged(name: &str, orig: &[Seen], bytes: &[u8], damage_at: u64, deep: bool) {
    let (got, err) = walk(bytes, deep);
    if let Some(e) = err {
        assert!(
            e.offset <= bytes.len() as u64,
            "{name}: error offset {:#x} beyond {:#x}: {e}",
            e.offset,
            bytes.len()
        );
    }
    let must: Vec<&Seen> = orig.iter().filter(|s| s.safe_end <= damage_at).collect();
    assert!(
        got.len() >= must.len(),
        "{name}: damage at {damage_at:#x}: {} events, expected at least {}",
        got.len(),
        must.len()
    );
    for (a, b) in got.iter().zip(must) {
        assert_eq!(
            (a.offset, a.wire_id, a.time),
            (b.offset, b.wire_id, b.time),
            "{name}"
        );
    }
}

fn run(select: impl Fn(&str, u64) -> bool) {
    let files = common::traces_where(select);
    if files.is_empty() {
        return;
    }
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for (name, bytes) in &files {
        let small = bytes.len() <= 8192;
        let big = bytes.len() > 1 << 20;
        let (orig, err) = walk(bytes, small);
        assert!(err.is_none(), "{name}: {err:?}");
        // Prefixes: every length for small files; event boundaries and random cuts otherwise.
        // Each walk reads everything before its cut, so the cost grows with the square of the
        // events tried: chunked files get up to 4000 evenly spaced event boundaries, legacy
        // files 400, and the largest files 4. Plus random offsets inside events.
        let chunked = name.starts_with("cff");
        let cuts: Vec<usize> = if small {
            (0..bytes.len()).collect()
        } else {
            let n = if big {
                4
            } else if chunked {
                orig.len().min(4000)
            } else {
                400
            };
            let step = (orig.len() / n).max(1);
            let mut c: Vec<usize> = orig
                .iter()
                .step_by(step)
                .map(|s| s.offset as usize)
                .collect();
            c.extend((0..n.min(200) / 2).map(|_| (rng.next_u64() % bytes.len() as u64) as usize));
            c
        };
        for cut in cuts {
            damaged(name, &orig, &bytes[..cut], cut as u64, small);
        }
        // Single-byte mutations.
        let count = if small {
            1000
        } else if big {
            2
        } else {
            40
        };
        let mut m = bytes.clone();
        for _ in 0..count {
            let pos = (rng.next_u64() % bytes.len() as u64) as usize;
            let old = m[pos];
            m[pos] = match rng.next_u64() % 4 {
                0 => 0xFF,
                1 => 0,
                _ => old ^ (1 << (rng.next_u64() % 8)),
            };
            damaged(name, &orig, &m, pos as u64, small);
            m[pos] = old;
        }
        eprintln!("{name}: damage survived");
    }
}

#[test]
fn small_files_every_prefix_and_many_mutations() {
    run(|_, len| len <= 8192);
}

#[test]
fn chunked_big() {
    run(|n, len| len > 8192 && n.starts_with("cff"));
}

#[test]
fn legacy_heads() {
    run(|n, len| len > 8192 && n.starts_with("legacy") && !n.ends_with(".xz"));
}

#[test]
fn legacy_full() {
    run(|n, _| n.ends_with(".xz"));
}

/// What identifies a record across a cut: offset, wire id, time, zone, name and argument bytes,
/// and where it ends.
#[derive(Debug, PartialEq)]
struct Record<'a> {
    offset: u64,
    wire_id: u32,
    time: u32,
    zone: Option<u16>,
    name: &'a str,
    args: &'a [u8],
    end: u64,
}

/// Every record of `bytes` and the fault that ended the walk, if any.
fn records(bytes: &[u8]) -> (Vec<Record<'_>>, Option<tracecap_wtf::Error>) {
    let trace = match Capture::parse(bytes) {
        Ok(t) => t,
        Err(e) => return (Vec::new(), Some(e)),
    };
    let mut out = Vec::new();
    for ev in trace.events() {
        match ev {
            Ok(ev) => out.push(Record {
                offset: ev.offset,
                wire_id: ev.wire_id,
                time: ev.time,
                zone: ev.zone,
                name: ev.name(),
                args: ev.arg_bytes(),
                end: ev.args_offset() + ev.arg_bytes().len() as u64,
            }),
            Err(e) => return (out, Some(e)),
        }
    }
    (out, None)
}

/// Every corpus file cut at the start, middle and end of each of its first 200 records and at
/// 200 seeded random points: the cut file's records are the whole file's, in order, and include
/// every record whose next record starts at or before the cut; the fault lies within the cut
/// file, and the timeline reports the same fault.
#[test]
fn cuts_keep_every_record_before_them() {
    let files = common::traces();
    let mut rng = Rng(0x5EED_0017);
    for (name, bytes) in &files {
        let (whole, err) = records(bytes);
        assert!(err.is_none(), "{name}: {err:?}");
        let spans: Vec<(u64, u64)> = whole.iter().map(|r| (r.offset, r.end)).collect();
        let mut cuts = tracecap_testkit::cut_points(&spans, bytes.len() + 1, &mut rng);
        cuts.retain(|&c| c <= bytes.len() as u64);
        for cut in cuts {
            let part = &bytes[..cut as usize];
            let (got, err) = records(part);
            let at = err.as_ref().map(|e| e.offset);
            tracecap_testkit::check_cut(name, cut, &whole, &spans, &got, at);
            let tl = Timeline::build(&match Capture::parse(part) {
                Ok(t) => t,
                Err(_) => continue,
            });
            assert_eq!(tl.fault, err, "{name} cut at {cut:#x}: timeline");
        }
    }
}
