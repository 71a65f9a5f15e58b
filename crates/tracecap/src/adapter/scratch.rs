//! Per-thread scratch arrays that stay off the heap when they grow large.
//!
//! A walk that must hold something per record of a thread (EasyProfiler's nesting rebuild does,
//! in the adapter here and in the columnar export) asks for a slice of `n` plain-bytes elements. Up to a budget the slice lives in a reused `Vec`;
//! beyond it (with `std`), in a temporary file mapped into memory, so the heap stays bounded
//! whatever the size of the capture and the operating system pages the scratch out to disk when
//! memory is short. The file's storage is taken when it is made, so a full file system is an
//! error then rather than a `SIGBUS` at a write through the map. If no temporary file can be
//! made, or it finds no room, the heap is used after all: a conversion never fails for want of a
//! scratch file.

use alloc::vec::Vec;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// Default budget of one scratch array on the heap: 16 MiB.
pub const HEAP_BUDGET: usize = 16 << 20;

/// A growable array of `T`, on the heap up to `budget` bytes and in a mapped file beyond.
pub struct Scratch<T> {
    heap: Vec<T>,
    #[cfg(feature = "std")]
    file: Option<file::Mapped>,
    /// Without `std` there is no file to go to: everything is on the heap.
    #[cfg(feature = "std")]
    budget: usize,
}

impl<T: FromBytes + IntoBytes + KnownLayout + Immutable + Copy> Scratch<T> {
    /// An empty scratch whose arrays stay on the heap up to `budget` bytes.
    pub fn new(budget: usize) -> Self {
        #[cfg(not(feature = "std"))]
        let _ = budget;
        Scratch {
            heap: Vec::new(),
            #[cfg(feature = "std")]
            file: None,
            #[cfg(feature = "std")]
            budget,
        }
    }

    /// `n` elements, each `fill`.
    pub fn reset(&mut self, n: usize, fill: T) -> &mut [T] {
        let slice = self.reuse(n);
        slice.fill(fill);
        slice
    }

    /// `n` elements whose values are whatever was there before (zeros where nothing was), for a
    /// caller that writes each element before it reads it: the heap array only grows, and is
    /// not filled again from thread to thread.
    pub fn reuse(&mut self, n: usize) -> &mut [T] {
        let bytes = n.saturating_mul(core::mem::size_of::<T>());
        #[cfg(feature = "std")]
        {
            self.file = None;
            if bytes > self.budget {
                // Give the heap array back before the file takes over.
                self.heap = Vec::new();
                self.file = file::Mapped::new(bytes)
                    .ok()
                    .flatten()
                    .filter(|f| <[T]>::ref_from_bytes(f.bytes()).is_ok());
            }
            if let Some(file) = self.file.as_mut() {
                return <[T]>::mut_from_bytes(file.bytes_mut()).unwrap_or(&mut []);
            }
        }
        let _ = bytes;
        if self.heap.len() < n {
            // A zeroed allocation: fresh pages come zeroed from the system, so growing costs no
            // pass over the elements. What the array held is not kept (callers write before
            // they read). Without the memory, the array is empty and the walk that asked for it
            // reports its table full.
            self.heap = Vec::new();
            self.heap = T::new_vec_zeroed(n).unwrap_or_default();
        }
        self.heap.get_mut(..n).unwrap_or(&mut [])
    }

    /// Whether the last [`Scratch::reset`] put the array in a file (for tests and notes).
    #[cfg(all(test, feature = "std"))]
    pub(crate) fn in_file(&self) -> bool {
        self.file.is_some()
    }

    #[cfg(all(test, feature = "std"))]
    pub(crate) fn budget(&self) -> usize {
        self.budget
    }
}

#[cfg(feature = "std")]
mod file {
    use std::fs::{File, OpenOptions};
    use std::io::{Seek, SeekFrom, Write};
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicU64, Ordering};

    static NEXT: AtomicU64 = AtomicU64::new(0);

    /// A temporary file of a given size, mapped read-write; removed from the directory at once
    /// where the system allows it (Unix), otherwise when dropped.
    pub(super) struct Mapped {
        map: memmap2::MmapMut,
        _file: File,
        path: Option<PathBuf>,
    }

    impl Mapped {
        /// A file in the system's temporary directory; `Ok(None)` for a zero size (nothing to
        /// map).
        pub(super) fn new(len: usize) -> std::io::Result<Option<Self>> {
            Mapped::new_in(&std::env::temp_dir(), len)
        }

        /// A file in `dir`. An error when `dir`'s file system has no room for `len` bytes.
        pub(super) fn new_in(dir: &Path, len: usize) -> std::io::Result<Option<Self>> {
            if len == 0 {
                return Ok(None);
            }
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let path = dir.join(format!("tracecap-scratch-{}-{n}", std::process::id()));
            let mut file = OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(&path)?;
            let removed = std::fs::remove_file(&path).is_ok();
            let path = (!removed).then_some(path);
            let mapped = file.set_len(len as u64).and_then(|()| {
                // SAFETY: the file was just created by this process with `create_new` (so nobody
                // else had it open) and unlinked where the system allows it; nothing else maps or
                // resizes it while the map lives, which is what memmap2 asks of the caller.
                #[allow(unsafe_code)]
                let map = unsafe { memmap2::MmapMut::map_mut(&file)? };
                reserve(&mut file, &map, len)?;
                Ok(map)
            });
            match mapped {
                Ok(map) => Ok(Some(Mapped {
                    map,
                    _file: file,
                    path,
                })),
                Err(e) => {
                    if let Some(path) = path {
                        let _ = std::fs::remove_file(path);
                    }
                    Err(e)
                }
            }
        }

        pub(super) fn bytes(&self) -> &[u8] {
            &self.map
        }

        pub(super) fn bytes_mut(&mut self) -> &mut [u8] {
            &mut self.map
        }
    }

    /// Gives every page of the new (sparse) file its storage before the map is used: a write
    /// through the map to a page the file system has no room for would kill the process
    /// (`SIGBUS`), while here it is an error, and the caller uses the heap instead.
    fn reserve(file: &mut File, map: &memmap2::MmapMut, len: usize) -> std::io::Result<()> {
        // One call maps every page writable, which also costs far less than a fault per page
        // when the array is first filled.
        #[cfg(target_os = "linux")]
        if map.advise(memmap2::Advice::PopulateWrite).is_ok() {
            return Ok(());
        }
        #[cfg(not(target_os = "linux"))]
        let _ = map;
        // Elsewhere, before Linux 5.14, or short of room: zeros written through the file, whose
        // failure is an error.
        static ZEROS: [u8; 1 << 16] = [0; 1 << 16];
        file.seek(SeekFrom::Start(0))?;
        let mut left = len;
        while left > 0 {
            let n = left.min(ZEROS.len());
            file.write_all(ZEROS.get(..n).unwrap_or_default())?;
            left -= n;
        }
        file.flush()
    }

    impl Drop for Mapped {
        fn drop(&mut self) {
            if let Some(path) = &self.path {
                let _ = std::fs::remove_file(path);
            }
        }
    }

    #[cfg(all(test, target_os = "linux"))]
    mod tests {
        use super::*;

        /// A 1 MiB tmpfs mounted for the test (needs root), unmounted when dropped.
        struct SmallFs(PathBuf);

        impl SmallFs {
            fn mount() -> Option<SmallFs> {
                let dir =
                    std::env::temp_dir().join(format!("tracecap-smallfs-{}", std::process::id()));
                std::fs::create_dir_all(&dir).ok()?;
                let mounted = std::process::Command::new("mount")
                    .args(["-t", "tmpfs", "-o", "size=1m", "tmpfs"])
                    .arg(&dir)
                    .stderr(std::process::Stdio::null())
                    .status()
                    .is_ok_and(|s| s.success());
                if !mounted {
                    let _ = std::fs::remove_dir(&dir);
                    return None;
                }
                Some(SmallFs(dir))
            }
        }

        impl Drop for SmallFs {
            fn drop(&mut self) {
                let _ = std::process::Command::new("umount").arg(&self.0).status();
                let _ = std::fs::remove_dir(&self.0);
            }
        }

        #[test]
        fn a_file_system_without_room_is_an_error_not_a_crash_later() {
            let Some(fs) = SmallFs::mount() else {
                eprintln!("SKIPPED: cannot mount a tmpfs here (not root?)");
                return;
            };
            let small = Mapped::new_in(&fs.0, 256 << 10).unwrap().unwrap();
            assert!(small.bytes().iter().all(|&b| b == 0));
            drop(small);
            assert!(Mapped::new_in(&fs.0, 8 << 20).is_err());
            // No file is left behind.
            assert_eq!(std::fs::read_dir(&fs.0).unwrap().count(), 0);
        }
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;

    #[test]
    fn small_arrays_stay_on_the_heap_large_ones_go_to_a_file() {
        let mut s = Scratch::<u64>::new(1024);
        assert_eq!(s.reset(128, 7).len(), 128);
        assert!(!s.in_file());
        let big = s.reset(1000, 9);
        assert_eq!(big.len(), 1000);
        assert!(big.iter().all(|&x| x == 9));
        big[999] = 1;
        assert_eq!(big[999], 1);
        assert!(s.in_file());
        assert_eq!(s.reset(3, 1), &[1, 1, 1]);
        assert!(!s.in_file());
        assert_eq!(s.budget(), 1024);
        assert!(s.reset(0, 0).is_empty());
    }
}
