//! The fault guard: a file that shrinks while it is mapped never ends the process with a bare
//! `SIGBUS`. The guard has two modes, process-wide:
//!
//! - **exit** (the default, for the command-line tool): the process ends with a message naming
//!   the file, and outputs being written are removed;
//! - **recover** (switched on by [`recover_shrunk_maps`], for hosts that must go on, such as an
//!   interpreter embedding this library): the missing pages read as zeros and the map is marked
//!   [shrunk](Watch::shrunk).
//!
//! [`open`](super::open) registers every map it makes ([`watch`]); writers of outputs register
//! their temporary files ([`remove_on_exit`]). The first registration installs a `SIGBUS`
//! handler (Unix only; elsewhere every call here does nothing). When a fault's address lies in a
//! registered map, the handler, in exit mode,
//!
//! 1. writes `error: <path>: the file shrank while it was being read ...` to standard error,
//! 2. removes every registered temporary output,
//! 3. exits with status 2 (the tool's status for I/O errors).
//!
//! In recover mode it instead maps anonymous, zero-filled, read-only pages over the map from the
//! faulting page to the map's end, sets the map's shrunk flag and returns: the faulting read runs
//! again and reads zeros, which the parsers take as any other untrusted input (at worst a format
//! error). The caller asks [`Watch::shrunk`] (or `Input::shrunk`) after reading and reports that
//! the file shrank rather than trusting the result. Outputs are not removed, since the process
//! goes on. Should that mapping fail, the handler does what exit mode does.
//!
//! A fault anywhere else is not ours, in either mode: the handler puts back the handler that was
//! there before (or the default action) and returns, so the faulting access runs again under it.
//!
//! While an output is registered, `SIGINT`, `SIGTERM` and `SIGHUP` also remove it before the
//! process ends, but only where those signals had their default action (a program that handles
//! them itself keeps its own handling). A command that follows a growing capture makes the first
//! `SIGINT` a request to stop instead ([`interrupt_requests_stop`]), and finishes its output.
//!
//! Everything the handler touches is a fixed table of atomics, and it calls only `write`,
//! `unlink`, `nanosleep`, `sigaction`, `raise` and `_exit`, which are async-signal-safe, and, in
//! recover mode, `mmap`, which POSIX does not list as such but which is a bare system call in the
//! C libraries of Linux and macOS (it takes no lock the interrupted code could hold).

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

/// Switches the guard to recover mode, for the whole process and for good: a fault in a watched
/// map no longer ends the process; the map's pages from the faulting one to its end are replaced
/// by zeros and the map reports [`Watch::shrunk`]. Outputs are then not removed. For hosts that
/// must not die when a file is truncated under them (an interpreter embedding this library); the
/// command-line tool keeps the default, exit mode. Calling it again does nothing.
pub fn recover_shrunk_maps() {
    imp::recover();
}

/// Whether recover mode is on ([`recover_shrunk_maps`]); [`open`](super::open) then reads a file
/// into memory rather than map it unguarded when every slot is taken.
pub fn recovering() -> bool {
    imp::recovering()
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

/// Makes the first `SIGINT` (Ctrl-C) a request to stop rather than the end of the process, for
/// a command that follows a capture until the user says stop ([`stop_requested`] turns true)
/// and must then finish its output. A second `SIGINT` ends the process as before. Only where
/// `SIGINT` had its default action; calling it again does nothing.
pub fn interrupt_requests_stop() {
    imp::interrupt_requests_stop();
}

/// Whether a `SIGINT` asked to stop since [`interrupt_requests_stop`].
pub fn stop_requested() -> bool {
    imp::stop_requested()
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

impl Watch {
    /// Whether the file shrank under the map since it was registered: a read past the file's
    /// new end faulted and, in recover mode ([`recover_shrunk_maps`]), the map's bytes from the
    /// faulting page on were replaced by zeros. Always false in exit mode (such a fault ends the
    /// process) and before any read reached a missing page.
    pub fn shrunk(&self) -> bool {
        imp::shrunk(self.slot)
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
    use std::sync::atomic::{fence, AtomicBool, AtomicPtr, AtomicUsize, Ordering};
    use std::sync::{Once, OnceLock};

    use super::{SHRUNK_EXIT, SLOTS};

    /// One registered map: its address range, the message to print (owned through `msg`) and
    /// whether the handler replaced missing pages of it by zeros.
    ///
    /// `start` and `len` are written only by the slot's owner (who took it through `taken`),
    /// under the sequence lock `seq`: odd while they change, so the handler reads a consistent
    /// pair, one registration's, or sees that it did not.
    struct MapSlot {
        taken: AtomicBool,
        seq: AtomicUsize,
        start: AtomicUsize,
        len: AtomicUsize,
        msg: AtomicPtr<Vec<u8>>,
        shrunk: AtomicBool,
    }

    #[allow(clippy::declare_interior_mutable_const)] // used only as an array initialiser
    const FREE_MAP: MapSlot = MapSlot {
        taken: AtomicBool::new(false),
        seq: AtomicUsize::new(0),
        start: AtomicUsize::new(0),
        len: AtomicUsize::new(0),
        msg: AtomicPtr::new(ptr::null_mut()),
        shrunk: AtomicBool::new(false),
    };
    #[allow(clippy::declare_interior_mutable_const)] // used only as an array initialiser
    const FREE_OUTPUT: AtomicPtr<CString> = AtomicPtr::new(ptr::null_mut());

    static MAPS: [MapSlot; SLOTS] = [FREE_MAP; SLOTS];
    static OUTPUTS: [AtomicPtr<CString>; SLOTS] = [FREE_OUTPUT; SLOTS];

    /// The actions that were in place before ours, to hand faults that are not ours back to.
    static PREVIOUS_BUS: OnceLock<libc::sigaction> = OnceLock::new();
    static TERM_INSTALLED: Once = Once::new();

    /// Recover mode (see [`super::recover_shrunk_maps`]).
    static RECOVER: AtomicBool = AtomicBool::new(false);

    /// The page size, read when the handler is installed (`sysconf` is not async-signal-safe);
    /// 0 if it could not be read, and then the handler never recovers.
    static PAGE: AtomicUsize = AtomicUsize::new(0);

    pub(super) fn recover() {
        install_bus();
        RECOVER.store(true, Ordering::SeqCst);
    }

    pub(super) fn recovering() -> bool {
        RECOVER.load(Ordering::SeqCst)
    }

    pub(super) fn shrunk(slot: usize) -> bool {
        MAPS.get(slot)
            .is_some_and(|s| s.shrunk.load(Ordering::Acquire))
    }

    /// Sets a slot's range (its owner only), under its sequence lock.
    fn set_range(s: &MapSlot, start: usize, len: usize) {
        s.seq.fetch_add(1, Ordering::Relaxed);
        fence(Ordering::Release);
        s.start.store(start, Ordering::Relaxed);
        s.len.store(len, Ordering::Relaxed);
        s.seq.fetch_add(1, Ordering::Release);
    }

    /// A slot's range as one registration set it (async-signal-safe): `None` for a free slot or
    /// one whose range is changing.
    fn range(s: &MapSlot) -> Option<(usize, usize)> {
        let seq = s.seq.load(Ordering::Acquire);
        if seq % 2 == 1 {
            return None;
        }
        let start = s.start.load(Ordering::Relaxed);
        let len = s.len.load(Ordering::Relaxed);
        fence(Ordering::Acquire);
        if s.seq.load(Ordering::Relaxed) != seq || start == 0 {
            return None;
        }
        Some((start, len))
    }

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
        s.shrunk.store(false, Ordering::Release);
        set_range(s, map.as_ptr() as usize, map.len());
        Some(slot)
    }

    pub(super) fn unwatch(slot: usize) {
        let Some(s) = MAPS.get(slot) else { return };
        set_range(s, 0, 0);
        let msg = s.msg.swap(ptr::null_mut(), Ordering::AcqRel);
        if !msg.is_null() {
            // SAFETY: `msg` came from `Box::into_raw` in `watch`; the swap made this the only owner
            // (the handler takes the pointer with a swap too, and then never gives it back).
            drop(unsafe { Box::from_raw(msg) });
        }
        s.shrunk.store(false, Ordering::Release);
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
            // SAFETY: `sysconf` only reads a system value.
            let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
            if let Ok(page) = usize::try_from(page) {
                if page.is_power_of_two() {
                    PAGE.store(page, Ordering::SeqCst);
                }
            }
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

    /// Whether the first `SIGINT` only asks to stop (see [`super::interrupt_requests_stop`]).
    static STOP_MODE: AtomicBool = AtomicBool::new(false);
    /// Set by the first `SIGINT` in stop mode.
    static STOP: AtomicBool = AtomicBool::new(false);

    pub(super) fn interrupt_requests_stop() {
        STOP_MODE.store(true, Ordering::SeqCst);
        install_term();
    }

    pub(super) fn stop_requested() -> bool {
        STOP.load(Ordering::SeqCst)
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

    /// Recover mode's repair of the map `start..start + len`, which faulted at `addr`: maps
    /// anonymous zero pages, read-only, over it from `addr`'s page to its end (the map's last page
    /// included, as the kernel mapped it whole). Whether that worked. Touches only atomics and
    /// `mmap`.
    fn zero_fill(start: usize, len: usize, addr: usize) -> bool {
        let page = PAGE.load(Ordering::Relaxed);
        if page == 0 || start % page != 0 {
            return false;
        }
        let from = addr & !(page - 1);
        let Some(end) = (start + len).checked_next_multiple_of(page) else {
            return false;
        };
        // SAFETY: `from..end` is page-aligned and lies within the kernel's mapping of a live map:
        // `range` read a consistent registration (registered after the map was made, unregistered
        // before it is unmapped) that contains `addr`, and the faulting thread is reading `addr`
        // through the map it holds, so that registration is this map, which stays mapped while
        // the thread is in this handler. No Rust value lives in those pages: they hold only the
        // file's bytes (which another program may change at any time anyway), and the zeros that
        // replace them are read-only, as the file's pages were, and are unmapped with the map.
        // A SIGBUS there means the file no longer backs the faulting page (it shrank, or its
        // storage failed); the owner learns of the replacement through the slot's `shrunk`
        // flag. `mmap` is a bare system call (see the module docs) and changes `errno` only when
        // it fails, and then the process ends.
        let p = unsafe {
            libc::mmap(
                from as *mut libc::c_void,
                end - from,
                libc::PROT_READ,
                libc::MAP_FIXED | libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        p != libc::MAP_FAILED
    }

    extern "C" fn on_bus(_sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO handlers; for SIGBUS `si_addr`
        // is the faulting address.
        let addr = unsafe { (*info).si_addr() } as usize;
        for s in &MAPS {
            let Some((start, len)) = range(s) else {
                continue;
            };
            if addr >= start && addr - start < len {
                if RECOVER.load(Ordering::SeqCst) && zero_fill(start, len, addr) {
                    // The faulting read runs again on the zero pages.
                    s.shrunk.store(true, Ordering::Release);
                    return;
                }
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
        if sig == libc::SIGINT
            && STOP_MODE.load(Ordering::SeqCst)
            && !STOP.swap(true, Ordering::SeqCst)
        {
            return;
        }
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
    pub(super) fn recover() {}
    pub(super) fn recovering() -> bool {
        false
    }
    pub(super) fn shrunk(_slot: usize) -> bool {
        false
    }
    pub(super) fn remove_on_exit(_path: &Path) -> Option<usize> {
        None
    }
    pub(super) fn ending() -> bool {
        false
    }
    pub(super) fn creating(_delta: isize) {}
    pub(super) fn keep_output(_slot: usize) {}
    pub(super) fn interrupt_requests_stop() {}
    pub(super) fn stop_requested() -> bool {
        false
    }
}
