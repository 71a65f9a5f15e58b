//! The bench trace: a stream shaped like glxgears-style GL traffic (immediate-mode vertices,
//! matrix calls, enums, bitmasks, arrays, some blobs and strings), made with the crate's writer.
//! Shared by the apitrace bench and the apitrace examples (included with `#[path]`), with the
//! value visit both walks do.

use tracecap_apitrace::write::{WDetail, WValue, Writer};
use tracecap_apitrace::{Detail, Parsed, SigLookup, Value};

/// Visits a value and everything nested in it (floats touched); returns a count to keep the work.
/// Scalars are matched in line (a real consumer's `match` would be); only nested values take the
/// (recursive, so never inlined) call.
#[inline(always)]
pub fn visit<T: SigLookup>(v: &Value<'_>, t: &T) -> u64 {
    match v {
        Value::Array(_) | Value::Struct(_) | Value::Repr(_) => visit_nested(v, t),
        Value::Float(f) => u64::from(f.to_bits() & 1),
        _ => 1,
    }
}

/// [`visit`] of an array, a struct or a repr.
fn visit_nested<T: SigLookup>(v: &Value<'_>, t: &T) -> u64 {
    match v {
        Value::Array(a) => {
            a.iter(t)
                .map(|x| x.map_or(0, |x| visit(&x, t)))
                .sum::<u64>()
                + 1
        }
        Value::Struct(s) => {
            s.iter(t)
                .map(|x| x.map_or(0, |x| visit(&x, t)))
                .sum::<u64>()
                + 1
        }
        Value::Repr(r) => r.human(t).map_or(0, |x| visit(&x, t)) + 1,
        _ => visit(v, t),
    }
}

/// Visits every detail of an event read in one pass: in place when the reader kept them all.
#[inline(always)]
pub fn visit_parsed<T: SigLookup>(ev: &Parsed<'_, '_, T>) -> u64 {
    let mut n = 0;
    if let Some(kept) = ev.kept() {
        for d in kept {
            n += match d {
                Detail::Arg { value, .. } | Detail::Ret(value) => visit(value, ev.table()),
                _ => 1,
            };
        }
    } else {
        for d in ev.details() {
            n += match d.expect("a detail of a validated event") {
                Detail::Arg { value, .. } | Detail::Ret(value) => visit(&value, ev.table()),
                _ => 1,
            };
        }
    }
    n
}

/// A version-6 stream of at least `target` bytes.
pub fn gl_stream(target: usize) -> Vec<u8> {
    let mut w = Writer::new(6, 6, &[(b"process.name", b"/usr/bin/glxgears")]);
    w.function(10, b"glBegin", &[b"mode"]);
    w.function(11, b"glEnd", &[]);
    w.function(12, b"glVertex3f", &[b"x", b"y", b"z"]);
    w.function(13, b"glNormal3f", &[b"nx", b"ny", b"nz"]);
    w.function(14, b"glRotatef", &[b"angle", b"x", b"y", b"z"]);
    w.function(15, b"glPushMatrix", &[]);
    w.function(16, b"glPopMatrix", &[]);
    w.function(17, b"glCallList", &[b"list"]);
    w.function(18, b"glClear", &[b"mask"]);
    w.function(19, b"glXSwapBuffers", &[b"dpy", b"drawable"]);
    w.function(20, b"glLightfv", &[b"light", b"pname", b"params"]);
    w.function(
        21,
        b"glBufferData",
        &[b"target", b"size", b"data", b"usage"],
    );
    w.function(
        22,
        b"glShaderSource",
        &[b"shader", b"count", b"string", b"length"],
    );
    w.enum_sig(
        1,
        &[
            (b"GL_QUAD_STRIP", 8),
            (b"GL_QUADS", 7),
            (b"GL_TRIANGLES", 4),
        ],
    );
    w.enum_sig(2, &[(b"GL_LIGHT0", 0x4000)]);
    w.enum_sig(3, &[(b"GL_POSITION", 0x1203)]);
    w.enum_sig(4, &[(b"GL_ARRAY_BUFFER", 0x8892)]);
    w.bitmask_sig(
        5,
        &[
            (b"GL_COLOR_BUFFER_BIT", 0x4000),
            (b"GL_DEPTH_BUFFER_BIT", 0x100),
        ],
    );
    let mut i = 0u64;
    let mut stream_len = 0;
    let blob = vec![0x5au8; 4096];
    let source = b"void main() { gl_FragColor = vec4(1.0, 0.5, 0.25, 1.0); }".to_vec();
    while stream_len < target {
        // One "frame": a few hundred calls.
        let c = w.enter(
            0,
            18,
            &[WDetail::Arg(
                0,
                WValue::Bitmask {
                    sig: 5,
                    value: 0x4100,
                },
            )],
        );
        w.leave(c, &[]);
        for g in 0..3u64 {
            let c = w.enter(0, 15, &[]);
            w.leave(c, &[]);
            let f = |v: f32| WValue::Float(v);
            let c = w.enter(
                0,
                14,
                &[
                    WDetail::Arg(0, f(i as f32 * 0.5)),
                    WDetail::Arg(1, f(0.0)),
                    WDetail::Arg(2, f(0.0)),
                    WDetail::Arg(3, f(1.0)),
                ],
            );
            w.leave(c, &[]);
            let c = w.enter(0, 10, &[WDetail::Arg(0, WValue::Enum { sig: 1, value: 8 })]);
            w.leave(c, &[]);
            for v in 0..40u64 {
                let x = (v as f32 * 0.1).sin();
                let y = (v as f32 * 0.1).cos();
                let c = w.enter(
                    0,
                    13,
                    &[
                        WDetail::Arg(0, f(x)),
                        WDetail::Arg(1, f(y)),
                        WDetail::Arg(2, f(0.0)),
                    ],
                );
                w.leave(c, &[]);
                let c = w.enter(
                    0,
                    12,
                    &[
                        WDetail::Arg(0, f(x * 3.0)),
                        WDetail::Arg(1, f(y * 3.0)),
                        WDetail::Arg(2, f(g as f32 * 0.5)),
                    ],
                );
                w.leave(c, &[]);
            }
            let c = w.enter(0, 11, &[]);
            w.leave(c, &[]);
            let c = w.enter(0, 17, &[WDetail::Arg(0, WValue::UInt(g + 1))]);
            w.leave(c, &[]);
            let c = w.enter(0, 16, &[]);
            w.leave(c, &[]);
        }
        let params = WValue::Array(vec![
            WValue::Float(5.0),
            WValue::Float(5.0),
            WValue::Float(10.0),
            WValue::Float(0.0),
        ]);
        let c = w.enter(
            0,
            20,
            &[
                WDetail::Arg(
                    0,
                    WValue::Enum {
                        sig: 2,
                        value: 0x4000,
                    },
                ),
                WDetail::Arg(
                    1,
                    WValue::Enum {
                        sig: 3,
                        value: 0x1203,
                    },
                ),
                WDetail::Arg(2, params),
            ],
        );
        w.leave(c, &[]);
        if i % 16 == 0 {
            let c = w.enter(
                0,
                21,
                &[
                    WDetail::Arg(
                        0,
                        WValue::Enum {
                            sig: 4,
                            value: 0x8892,
                        },
                    ),
                    WDetail::Arg(1, WValue::UInt(blob.len() as u64)),
                    WDetail::Arg(2, WValue::Blob(blob.clone())),
                    WDetail::Arg(3, WValue::UInt(0x88e4)),
                ],
            );
            w.leave(c, &[]);
            let c = w.enter(
                0,
                22,
                &[
                    WDetail::Arg(0, WValue::UInt(3)),
                    WDetail::Arg(1, WValue::UInt(1)),
                    WDetail::Arg(2, WValue::Array(vec![WValue::String(source.clone())])),
                    WDetail::Arg(3, WValue::Null),
                ],
            );
            w.leave(c, &[]);
        }
        let c = w.enter(
            0,
            19,
            &[
                WDetail::Arg(0, WValue::Pointer(0x55d0_1234_5678)),
                WDetail::Arg(1, WValue::UInt(0x0200_0002)),
            ],
        );
        w.leave(c, &[]);
        i += 1;
        if i % 64 == 0 {
            stream_len = w.stream_len();
        }
    }
    w.finish()
}
