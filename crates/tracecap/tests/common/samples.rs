//! Orbit's sampled stacks read with a plain protobuf decoding (`CallstackSample` ->
//! `InternedCallstack` -> `AddressInfo` -> `InternedString`, with the Orbit crate's prost types,
//! not through the views or the adapter): what the stack exporters are checked against.

use std::collections::HashMap;

use prost::Message;
use tracecap::orbit::proto::orbit_grpc_protos as orbit;

/// One frame: function, module, address.
pub type Frame = (String, String, u64);

/// One sample: thread, time, frames innermost first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sampled {
    pub tid: u64,
    pub ts: u64,
    pub frames: Vec<Frame>,
}

/// What a capture holds: its `CallstackSample`s whose callstack is interned, and how many
/// `CallstackSample` events it has in all. `None` when it is not a whole ORBT capture.
pub fn oracle(data: &[u8]) -> Option<(Vec<Sampled>, usize)> {
    if data.get(..4)? != b"ORBT" {
        return None;
    }
    let start = u64::from_le_bytes(data.get(8..16)?.try_into().ok()?);
    let mut at = usize::try_from(start).ok()?;
    let mut strings = HashMap::new();
    let mut stacks = HashMap::new();
    let mut infos: HashMap<u64, orbit::AddressInfo> = HashMap::new();
    let mut samples = Vec::new();
    let mut finished = false;
    while let Some(mut rest) = data.get(at..).filter(|r| !r.is_empty()) {
        let before = rest.len();
        let Ok(len) = prost::encoding::decode_varint(&mut rest) else {
            break;
        };
        let head = before - rest.len();
        let Some(bytes) = rest.get(..len as usize) else {
            break;
        };
        let Ok(ev) = orbit::ClientCaptureEvent::decode(bytes) else {
            break;
        };
        at += head + len as usize;
        use orbit::client_capture_event::Event as E;
        match ev.event {
            Some(E::InternedString(s)) => {
                strings.insert(s.key, String::from_utf8_lossy(&s.intern).into_owned());
            }
            Some(E::InternedCallstack(c)) => {
                stacks.insert(c.key, c.intern.unwrap_or_default().pcs);
            }
            Some(E::AddressInfo(a)) => {
                infos.entry(a.absolute_address).or_insert(a);
            }
            Some(E::CallstackSample(s)) => samples.push(s),
            Some(E::CaptureFinished(_)) => {
                finished = true;
                break;
            }
            _ => {}
        }
    }
    if !finished {
        return None;
    }
    let string = |key| strings.get(&key).cloned().unwrap_or_default();
    let resolved = samples
        .iter()
        .filter_map(|s| {
            let pcs = stacks.get(&s.callstack_id)?;
            let frames = pcs
                .iter()
                .map(|&pc| match infos.get(&pc) {
                    Some(a) => {
                        let name = string(a.function_name_key);
                        let name = if name.is_empty() {
                            format!("{pc:#x}")
                        } else {
                            name
                        };
                        (name, string(a.module_name_key), pc)
                    }
                    None => (format!("{pc:#x}"), String::new(), pc),
                })
                .collect();
            Some(Sampled {
                tid: u64::from(s.tid),
                ts: s.timestamp_ns,
                frames,
            })
        })
        .collect();
    Some((resolved, samples.len()))
}
