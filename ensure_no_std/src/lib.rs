//! A `#![no_std]` static library that walks one small capture of each format with the format
//! crates' allocation-free cores (every crate with `default-features = false`).
//!
//! It brings its own `#[panic_handler]` and is built with `panic = "abort"`: if any dependency
//! linked `std`, rustc would report a second `panic_impl` and the build would fail. Each
//! `tracecap_*_count` function returns the number of records its walk saw, or -1 on an error;
//! `check.c` links the library and checks the counts.
//!
//! The captures in `captures/` are synthetic, built in code and written by the crates' own
//! writers (see `gen/`).
#![no_std]

use core::panic::PanicInfo;

/// EasyProfiler 2.1 (`.prof`).
static EASYPROFILER: &[u8] = include_bytes!("../captures/easyprofiler.prof");
/// syscall_capture (`.dat`, little-endian).
static SYSCALL: &[u8] = include_bytes!("../captures/syscall.dat");
/// apitrace version 6, the event stream without its container (decompression needs std).
static APITRACE: &[u8] = include_bytes!("../captures/apitrace.stream");
/// Web Tracing Framework, chunked format 10.
static WTF: &[u8] = include_bytes!("../captures/wtf.wtf-trace");
/// Orbit (`ORBT` version 1) with `CaptureFinished`.
static ORBIT: &[u8] = include_bytes!("../captures/orbit.orbit");

/// A count, or -1 for an error.
fn count<E>(walk: Result<u32, E>) -> i64 {
    walk.map_or(-1, i64::from)
}

/// Thread heads, context switches, blocks, events, values and bookmarks, through a
/// `FixedKindTable` and the closure walk.
#[no_mangle]
pub extern "C" fn tracecap_easyprofiler_count() -> i64 {
    use tracecap_easyprofiler::{Capture, Error, FixedKindTable};
    let walk = || -> Result<u32, Error> {
        let capture = Capture::parse(EASYPROFILER)?;
        let kinds = FixedKindTable::<64>::new(&capture)?;
        let mut n = 0u32;
        capture.events_with(&kinds).try_for_each_event::<tracecap_easyprofiler::Error, _>(|_| {
            n += 1;
            Ok(())
        })?;
        Ok(n)
    };
    count(walk())
}

/// Syscall records, with their arguments read.
#[no_mangle]
pub extern "C" fn tracecap_syscall_count() -> i64 {
    use tracecap_syscall::{Capture, Error};
    let walk = || -> Result<u32, Error> {
        let capture = Capture::parse(SYSCALL)?;
        let mut n = 0u32;
        for call in capture.events() {
            let call = call?;
            n += 1 + call.args().count() as u32;
        }
        Ok(n)
    };
    count(walk())
}

/// ENTER and LEAVE events of the uncompressed stream, through a `FixedSigTable`.
#[no_mangle]
pub extern "C" fn tracecap_apitrace_count() -> i64 {
    use tracecap_apitrace::{Error, FixedSigTable, Stream};
    let walk = || -> Result<u32, Error> {
        let stream = Stream::parse(APITRACE)?;
        let mut n = 0u32;
        for event in stream.events_with(FixedSigTable::<32>::new()) {
            event?;
            n += 1;
        }
        Ok(n)
    };
    count(walk())
}

/// Every event, built-ins included, through a `FixedDefinitionTable`.
#[no_mangle]
pub extern "C" fn tracecap_wtf_count() -> i64 {
    use tracecap_wtf::{Capture, Error, FixedDefinitionTable};
    let walk = || -> Result<u32, Error> {
        let capture = Capture::parse(WTF)?;
        let mut n = 0u32;
        for event in capture.events_with(FixedDefinitionTable::<64, 256>::new()) {
            event?;
            n += 1;
        }
        Ok(n)
    };
    count(walk())
}

/// Every event, each interned definition kept in a `FixedInternTable` and the instrumented
/// functions in a `FixedFunctionTable`.
#[no_mangle]
pub extern "C" fn tracecap_orbit_count() -> i64 {
    use tracecap_orbit::{Capture, Error, FixedFunctionTable, FixedInternTable};
    let walk = || -> Result<u32, Error> {
        let capture = Capture::parse(ORBIT)?;
        let _functions = FixedFunctionTable::<64>::from_capture(&capture)?;
        let mut interned = FixedInternTable::<64, 64, 16>::new();
        let mut n = 0u32;
        for event in capture.events() {
            interned.add(&event?)?;
            n += 1;
        }
        Ok(n)
    };
    count(walk())
}

/// The messages of the Orbit capture section, read with the byte layer alone: a LEB128 length,
/// then that many bytes, until the end of the file.
#[no_mangle]
pub extern "C" fn tracecap_wire_count() -> i64 {
    let walk = || -> Result<u32, tracecap_wire::Error> {
        let mut r = tracecap_wire::Reader::at(ORBIT, 0);
        r.skip(24)?;
        let mut n = 0u32;
        while !r.is_empty() {
            let len = r.uleb64()?;
            r.bytes_u64(len)?;
            n += 1;
        }
        Ok(n)
    };
    count(walk())
}

#[panic_handler]
fn panic(_: &PanicInfo<'_>) -> ! {
    loop {}
}
