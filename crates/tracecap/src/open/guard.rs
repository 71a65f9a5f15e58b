//! The fault guard: a file that shrinks while it is mapped ends the process with a message naming
//! the file, never with a bare `SIGBUS`; outputs being written are removed when that happens.
//!
//! [`open`](super::open) registers every map it makes ([`watch`]); writers of outputs register
//! their temporary files ([`remove_on_exit`]). The first registration installs a `SIGBUS`
//! handler (Unix only; elsewhere both calls do nothing). When a fault's address lies in a
//! registered map, the handler
//!
//! 1. writes `error: <path>: the file shrank while it was being read ...` to standard error,
//! 2. removes every registered temporary output,
//! 3. exits with status 2 (the tool's status for I/O errors).
//!
//! A fault anywhere else is not ours: the handler puts back the handler that was there before
//! (or the default action) and returns, so the faulting access runs again under it.
//!
//! While an output is registered, `SIGINT`, `SIGTERM` and `SIGHUP` also remove it before the
//! process ends, but only where those signals had their default action (a program that handles
//! them itself keeps its own handling).
//!
//! Everything the handler touches is a fixed table of atomics, and it calls only `write`,
//! `unlink`, `sigaction`, `raise` and `_exit`, which are async-signal-safe.

#![allow(unsafe_code)]

use std::path::Path;

/// How many maps and outputs can be registered at once; registrations beyond that go unguarded.
/// A parallel export holds one output per table per worker thread (eleven tables), so this
/// covers some ninety workers.
const SLOTS: usize = 1024;

/// Exit status after a mapped file shrank.
pub const SHRUNK_EXIT: i32 = 2;

/// A map registered with the guard; dropping it unregisters the map.
#[derive(Debug)]
pub struct Watch {
    #[cfg_attr(not(unix), allow(dead_code))]
    slot: usize,
}

/// A temporary output registered with the guard; dropping it unregisters the output (it does not
/// remove the file).
#[derive(Debug)]
pub struct OutputWatch {
    #[cfg_attr(not(unix), allow(dead_code))]
    slot: usize,
}

/// Registers `map`, the bytes of the file at `path`. `None` when every slot is taken (the map
/// then works unguarded) or the platform has no guard.
pub fn watch(map: &[u8], path: &Path) -> Option<Watch> {
    imp::watch(map, path).map(|slot| Watch { slot })
}

/// Registers `path`, a temporary output this process is writing, to be removed if the process is
/// ended by a fault in a watched map or by `SIGINT`, `SIGTERM` or `SIGHUP`.
pub fn remove_on_exit(path: &Path) -> Option<OutputWatch> {
    imp::remove_on_exit(path).map(|slot| OutputWatch { slot })
}

/// Whether the guard is ending the process (a signal or a shrunk input): an output created from
/// now on would escape the removal, so its creator removes it itself.
pub fn ending() -> bool {
    imp::ending()
}

/// Marks an output being created, from before its registration to after its creator checked
/// [`ending`]: a handler ending the process waits (a little) for these, so that no output is
/// created after the handler removed the outputs and before the process is gone.
#[derive(Debug)]
pub struct Creating(());

/// Starts a [`Creating`] mark; dropping it ends the mark.
pub fn creating() -> Creating {
    imp::creating(1);
    Creating(())
}

impl Drop for Creating {
    fn drop(&mut self) {
        imp::creating(-1);
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        imp::unwatch(self.slot);
    }
}

impl Drop for OutputWatch {
    fn drop(&mut self) {
        imp::keep_output(self.slot);
    }
}

#[cfg(unix)]
mod imp {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;
    use std::ptr;
    use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
    use std::sync::{Once, OnceLock};

    use super::{SHRUNK_EXIT, SLOTS};

    /// One registered map: its address range and the message to print, owned through `msg`.
    struct MapSlot {
        taken: AtomicBool,
        start: AtomicUsize,
        len: AtomicUsize,
        msg: AtomicPtr<Vec<u8>>,
    }

    #[allow(clippy::declare_interior_mutable_const)] // used only as an array initialiser
    const FREE_MAP: MapSlot = MapSlot {
        taken: AtomicBool::new(false),
        start: AtomicUsize::new(0),
        len: AtomicUsize::new(0),
        msg: AtomicPtr::new(ptr::null_mut()),
    };
    #[allow(clippy::declare_interior_mutable_const)] // used only as an array initialiser
    const FREE_OUTPUT: AtomicPtr<CString> = AtomicPtr::new(ptr::null_mut());

    static MAPS: [MapSlot; SLOTS] = [FREE_MAP; SLOTS];
    static OUTPUTS: [AtomicPtr<CString>; SLOTS] = [FREE_OUTPUT; SLOTS];

    /// The actions that were in place before ours, to hand faults that are not ours back to.
    static PREVIOUS_BUS: OnceLock<libc::sigaction> = OnceLock::new();
    static TERM_INSTALLED: Once = Once::new();

    pub(super) fn watch(map: &[u8], path: &Path) -> Option<usize> {
        install_bus();
        let (slot, s) = MAPS.iter().enumerate().find(|(_, s)| {
            s.taken
                .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
        })?;
        let msg = format!(
            "error: {}: the file shrank while it was being read (was it truncated or replaced by another program?)\n",
            path.display()
        );
        s.msg
            .store(Box::into_raw(Box::new(msg.into_bytes())), Ordering::Release);
        s.len.store(map.len(), Ordering::Release);
        s.start.store(map.as_ptr() as usize, Ordering::Release);
        Some(slot)
    }

    pub(super) fn unwatch(slot: usize) {
        let Some(s) = MAPS.get(slot) else { return };
        s.start.store(0, Ordering::Release);
        s.len.store(0, Ordering::Release);
        let msg = s.msg.swap(ptr::null_mut(), Ordering::AcqRel);
        if !msg.is_null() {
            // SAFETY: `msg` came from `Box::into_raw` in `watch`; the swap made this the only owner
            // (the handler takes the pointer with a swap too, and then never gives it back).
            drop(unsafe { Box::from_raw(msg) });
        }
        s.taken.store(false, Ordering::Release);
    }

    pub(super) fn remove_on_exit(path: &Path) -> Option<usize> {
        install_bus();
        install_term();
        let c = CString::new(path.as_os_str().as_bytes()).ok()?;
        let boxed = Box::into_raw(Box::new(c));
        for (slot, s) in OUTPUTS.iter().enumerate() {
            if s.compare_exchange(ptr::null_mut(), boxed, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                return Some(slot);
            }
        }
        // SAFETY: `boxed` was not stored anywhere; this is its only owner.
        drop(unsafe { Box::from_raw(boxed) });
        None
    }

    pub(super) fn keep_output(slot: usize) {
        let Some(s) = OUTPUTS.get(slot) else { return };
        let p = s.swap(ptr::null_mut(), Ordering::AcqRel);
        if !p.is_null() {
            // SAFETY: from `Box::into_raw` in `remove_on_exit`; the swap made this the only owner.
            drop(unsafe { Box::from_raw(p) });
        }
    }

    fn action(handler: usize) -> libc::sigaction {
        // SAFETY: `sigaction` is plain data; all zeroes is a valid value (no flags, empty mask).
        let mut a: libc::sigaction = unsafe { std::mem::zeroed() };
        a.sa_sigaction = handler;
        a.sa_flags = libc::SA_SIGINFO;
        a
    }

    fn install_bus() {
        PREVIOUS_BUS.get_or_init(|| {
            let ours = action(on_bus as *const () as usize);
            // SAFETY: all zeroes is a valid `sigaction` to be overwritten by the call.
            let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
            // SAFETY: both pointers are to live `sigaction` values; `on_bus` has the signature
            // SA_SIGINFO asks for.
            unsafe { libc::sigaction(libc::SIGBUS, &ours, &mut old) };
            old
        });
    }

    fn install_term() {
        TERM_INSTALLED.call_once(|| {
            for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                // SAFETY: all zeroes is a valid `sigaction`; a null new action only reads the
                // current one into `old`.
                let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
                unsafe { libc::sigaction(sig, ptr::null(), &mut old) };
                if old.sa_sigaction == libc::SIG_DFL {
                    let ours = action(on_term as *const () as usize);
                    // SAFETY: as in `install_bus`.
                    unsafe { libc::sigaction(sig, &ours, ptr::null_mut()) };
                }
            }
        });
    }

    /// Set by the handlers before they remove the outputs; see [`super::ending`].
    static ENDING: AtomicBool = AtomicBool::new(false);

    /// Outputs being created (see [`super::Creating`]).
    static CREATING: AtomicUsize = AtomicUsize::new(0);

    pub(super) fn ending() -> bool {
        ENDING.load(Ordering::SeqCst)
    }

    pub(super) fn creating(delta: isize) {
        if delta > 0 {
            CREATING.fetch_add(1, Ordering::SeqCst);
        } else {
            CREATING.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// Unlinks every registered output (async-signal-safe). An output registered after the scan
    /// passed its slot sees [`ENDING`] and removes itself; the scan waits up to 100 ms for the
    /// outputs being created (on other threads) to do so, then looks once more.
    fn remove_outputs() {
        ENDING.store(true, Ordering::SeqCst);
        unlink_outputs();
        for _ in 0..100 {
            if CREATING.load(Ordering::SeqCst) == 0 {
                break;
            }
            let ms = libc::timespec {
                tv_sec: 0,
                tv_nsec: 1_000_000,
            };
            // SAFETY: `nanosleep` is async-signal-safe; `ms` is a live timespec.
            unsafe { libc::nanosleep(&ms, ptr::null_mut()) };
        }
        unlink_outputs();
    }

    fn unlink_outputs() {
        for s in &OUTPUTS {
            let p = s.swap(ptr::null_mut(), Ordering::AcqRel);
            if !p.is_null() {
                // SAFETY: `p` is a live CString (its owner gives it up only through a swap, and
                // this swap took it); it is leaked here because the process is about to end.
                unsafe { libc::unlink((*p).as_ptr()) };
            }
        }
    }

    extern "C" fn on_bus(_sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO handlers; for SIGBUS `si_addr`
        // is the faulting address.
        let addr = unsafe { (*info).si_addr() } as usize;
        for s in &MAPS {
            let start = s.start.load(Ordering::Acquire);
            let len = s.len.load(Ordering::Acquire);
            if start != 0 && addr >= start && addr - start < len {
                let msg = s.msg.swap(ptr::null_mut(), Ordering::AcqRel);
                if !msg.is_null() {
                    // SAFETY: the swap took ownership of a live Vec (leaked: the process ends).
                    let bytes = unsafe { &*msg };
                    unsafe { libc::write(2, bytes.as_ptr().cast(), bytes.len()) };
                }
                remove_outputs();
                // SAFETY: `_exit` ends the process without running anything else.
                unsafe { libc::_exit(SHRUNK_EXIT) };
            }
        }
        // Not a fault in a watched map: put the previous action back and let the access fault
        // again under it.
        if let Some(old) = PREVIOUS_BUS.get() {
            // SAFETY: `old` is the action `sigaction` reported when ours was installed.
            unsafe { libc::sigaction(libc::SIGBUS, old, ptr::null_mut()) };
        }
    }

    extern "C" fn on_term(sig: libc::c_int, _info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
        remove_outputs();
        // Ours was installed only over the default action: restore it and end as the signal
        // would have ended the process.
        let dfl = action(libc::SIG_DFL);
        // SAFETY: `dfl` is a live `sigaction`; `raise` is async-signal-safe.
        unsafe {
            libc::sigaction(sig, &dfl, ptr::null_mut());
            libc::raise(sig);
        }
    }
}

#[cfg(not(unix))]
mod imp {
    use std::path::Path;

    pub(super) fn watch(_map: &[u8], _path: &Path) -> Option<usize> {
        None
    }
    pub(super) fn unwatch(_slot: usize) {}
    pub(super) fn remove_on_exit(_path: &Path) -> Option<usize> {
        None
    }
    pub(super) fn ending() -> bool {
        false
    }
    pub(super) fn creating(_delta: isize) {}
    pub(super) fn keep_output(_slot: usize) {}
}
