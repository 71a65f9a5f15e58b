//! The GL calls the apitrace tests write: their signature ids and a writer that defines them.

use tracecap_apitrace::write::Writer;

pub const PUSH: u64 = 10;
pub const POP: u64 = 11;
pub const DRAW: u64 = 12;
pub const SWAP: u64 = 13;
pub const GET: u64 = 14;

/// A version-6 writer with `glPushDebugGroup`, `glPopDebugGroup`, `glDrawArrays`,
/// `glXSwapBuffers` and `glGetIntegerv` defined.
pub fn writer() -> Writer {
    let mut w = Writer::new(6, 6, &[(b"process.name", b"/usr/bin/demo")]);
    w.function(
        PUSH,
        b"glPushDebugGroup",
        &[b"source", b"id", b"length", b"message"],
    );
    w.function(POP, b"glPopDebugGroup", &[]);
    w.function(DRAW, b"glDrawArrays", &[b"mode", b"first", b"count"]);
    w.function(SWAP, b"glXSwapBuffers", &[b"dpy", b"drawable"]);
    w.function(GET, b"glGetIntegerv", &[b"pname", b"params"]);
    w
}
