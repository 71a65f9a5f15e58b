"""Pure-Python reader of syscall_capture ``.dat`` files (magic 78 06 17 a5), used as a
benchmark baseline.

It is the kind of reader a Python user would write for this format with nothing but the
standard library: read the file into memory, walk the segments with ``struct.unpack_from``,
append each syscall record to Python lists.

Covers the layout of the newest tracer (github.com/gedimitr/syscall_capture at bd2618e, which
made the corpus): a 28-byte header with the clock reference, u32 segments, and records with
optional return value, thread id, entry timestamp and f32 duration. One row per syscall record:
  - ``number`` and ``name`` (x86-64 numbering; ``syscall_<n>`` for an unassigned number);
  - ``ret``: the raw return value (-errno on failure), 0 when the record has none;
  - ``thread``: the record's thread id, or the header's pid when the record has none;
  - ``timestamp_ns`` (CLOCK_MONOTONIC) and ``duration_ns`` (float): None when not recorded;
  - ``args``: the argument IEs decoded to Python values: an int, ``bytes`` for a full buffer
    or string, ``("partial", original_length, bytes)``, ``("stat", 16 integers)``,
    ``("pollfds", [(fd, events, revents), ...])``, ``("sigaction", handler, flags)`` or None
    for a NULL sigaction, ``("intp", pointer, pointee)``.
Fillers, the writer's runs of zero bytes ("tag 0, length 0" segments) and the uname header
segment give no rows; the header byte-order flag is honoured; several captures appended in one
file (a forked child writes its own header after its parent's) are read one after another.

Leaves out: files of writers older than September 2019 (20-byte header, multi-unit durations,
errno field); the SigAction words past the first 24 bytes (garbage, per the format notes);
recovery from damage. A stale tail, an unknown segment or a cut segment raises
``SyscallFormatError``, which carries the rows read before it.
"""

import struct

MAGIC = b"\x78\x06\x17\xa5"
HEADER_SIZE = 28

SEGMENT_HEADER = 1
SEGMENT_SYSCALL = 2
SEGMENT_FILLER = 3

FLAG_RESULT = 0x01
FLAG_TID = 0x02
FLAG_TIMESTAMP = 0x04
FLAG_DURATION = 0x08

# x86-64 Linux system call names: numbers 0-334, then 424-450 (335-423 are unassigned).
_LOW_NAMES = """
read write open close stat fstat lstat poll lseek mmap mprotect munmap brk rt_sigaction
rt_sigprocmask rt_sigreturn ioctl pread64 pwrite64 readv writev access pipe select
sched_yield mremap msync mincore madvise shmget shmat shmctl dup dup2 pause nanosleep
getitimer alarm setitimer getpid sendfile socket connect accept sendto recvfrom sendmsg
recvmsg shutdown bind listen getsockname getpeername socketpair setsockopt getsockopt clone
fork vfork execve exit wait4 kill uname semget semop semctl shmdt msgget msgsnd msgrcv
msgctl fcntl flock fsync fdatasync truncate ftruncate getdents getcwd chdir fchdir rename
mkdir rmdir creat link unlink symlink readlink chmod fchmod chown fchown lchown umask
gettimeofday getrlimit getrusage sysinfo times ptrace getuid syslog getgid setuid setgid
geteuid getegid setpgid getppid getpgrp setsid setreuid setregid getgroups setgroups
setresuid getresuid setresgid getresgid getpgid setfsuid setfsgid getsid capget capset
rt_sigpending rt_sigtimedwait rt_sigqueueinfo rt_sigsuspend sigaltstack utime mknod uselib
personality ustat statfs fstatfs sysfs getpriority setpriority sched_setparam sched_getparam
sched_setscheduler sched_getscheduler sched_get_priority_max sched_get_priority_min
sched_rr_get_interval mlock munlock mlockall munlockall vhangup modify_ldt pivot_root
_sysctl prctl arch_prctl adjtimex setrlimit chroot sync acct settimeofday mount umount2
swapon swapoff reboot sethostname setdomainname iopl ioperm create_module init_module
delete_module get_kernel_syms query_module quotactl nfsservctl getpmsg putpmsg afs_syscall
tuxcall security gettid readahead setxattr lsetxattr fsetxattr getxattr lgetxattr fgetxattr
listxattr llistxattr flistxattr removexattr lremovexattr fremovexattr tkill time futex
sched_setaffinity sched_getaffinity set_thread_area io_setup io_destroy io_getevents
io_submit io_cancel get_thread_area lookup_dcookie epoll_create epoll_ctl_old epoll_wait_old
remap_file_pages getdents64 set_tid_address restart_syscall semtimedop fadvise64
timer_create timer_settime timer_gettime timer_getoverrun timer_delete clock_settime
clock_gettime clock_getres clock_nanosleep exit_group epoll_wait epoll_ctl tgkill utimes
vserver mbind set_mempolicy get_mempolicy mq_open mq_unlink mq_timedsend mq_timedreceive
mq_notify mq_getsetattr kexec_load waitid add_key request_key keyctl ioprio_set ioprio_get
inotify_init inotify_add_watch inotify_rm_watch migrate_pages openat mkdirat mknodat
fchownat futimesat newfstatat unlinkat renameat linkat symlinkat readlinkat fchmodat
faccessat pselect6 ppoll unshare set_robust_list get_robust_list splice tee sync_file_range
vmsplice move_pages utimensat epoll_pwait signalfd timerfd_create eventfd fallocate
timerfd_settime timerfd_gettime accept4 signalfd4 eventfd2 epoll_create1 dup3 pipe2
inotify_init1 preadv pwritev rt_tgsigqueueinfo perf_event_open recvmmsg fanotify_init
fanotify_mark prlimit64 name_to_handle_at open_by_handle_at clock_adjtime syncfs sendmmsg
setns getcpu process_vm_readv process_vm_writev kcmp finit_module sched_setattr
sched_getattr renameat2 seccomp getrandom memfd_create kexec_file_load bpf execveat
userfaultfd membarrier mlock2 copy_file_range preadv2 pwritev2 pkey_mprotect pkey_alloc
pkey_free statx io_pgetevents rseq
"""
_HIGH_NAMES = """
pidfd_send_signal io_uring_setup io_uring_enter io_uring_register open_tree move_mount
fsopen fsconfig fsmount fspick pidfd_open clone3 close_range openat2 pidfd_getfd faccessat2
process_madvise epoll_pwait2 mount_setattr quotactl_fd landlock_create_ruleset
landlock_add_rule landlock_restrict_self memfd_secret process_mrelease futex_waitv
set_mempolicy_home_node
"""
SYSCALL_NAMES = dict(enumerate(_LOW_NAMES.split()))
SYSCALL_NAMES.update(enumerate(_HIGH_NAMES.split(), start=424))


def syscall_name(number):
    return SYSCALL_NAMES.get(number) or f"syscall_{number}"


class SyscallFormatError(ValueError):
    """A file this reader cannot read. ``columns`` holds the rows read before the fault."""

    def __init__(self, message, offset, columns=None):
        super().__init__(f"{message} at offset {offset}")
        self.offset = offset
        self.columns = columns


class _Layout:
    """The struct formats of one byte order."""

    def __init__(self, order):
        self.order = order
        self.header = struct.Struct(order + "BBHiqq")  # after the magic
        self.segment = struct.Struct(order + "II")
        self.record = struct.Struct(order + "HBx")
        self.i64 = struct.Struct(order + "q")
        self.i32 = struct.Struct(order + "i")
        self.f32 = struct.Struct(order + "f")
        self.ie = struct.Struct(order + "HH")
        self.u32 = struct.Struct(order + "I")
        # dev, ino, mode, nlink, uid, gid, rdev, size, blksize, blocks, atime, mtime, ctime
        self.stat = struct.Struct(order + "QQIQIIQqqqqqqqqq")
        self.pollfd = struct.Struct(order + "ihh")
        self.sigaction = struct.Struct(order + "QQQ")
        self.intp = struct.Struct(order + "QQ")
        # A segment tag equal to the magic read in this byte order starts a new capture.
        self.magic_tag = self.u32.unpack(MAGIC)[0]


LITTLE = _Layout("<")
BIG = _Layout(">")


def read_header(data, pos):
    """Parse the fixed header at ``pos``. Returns ``(layout, header dict)``."""
    if data[pos:pos + 4] != MAGIC:
        raise SyscallFormatError("not a syscall_capture file (bad magic)", pos)
    if pos + HEADER_SIZE > len(data):
        raise SyscallFormatError("header cut short", pos)
    layout = BIG if data[pos + 5] & 1 else LITTLE
    version, flags, _, pid, epoch_s, clock_ref_ns = layout.header.unpack_from(data, pos + 4)
    if version != 1:
        raise SyscallFormatError(f"unsupported version {version}", pos + 4)
    after = pos + HEADER_SIZE
    if after + 8 > len(data) or layout.u32.unpack_from(data, after)[0] != SEGMENT_HEADER:
        raise SyscallFormatError(
            "no header segment after a 28-byte header (writers before 2019-09 are not "
            "supported)", pos + HEADER_SIZE)
    return layout, {"pid": pid, "epoch_s": epoch_s, "clock_ref_ns": clock_ref_ns,
                    "flags": flags}


def decode_args(data, pos, end, L):
    """Decode the argument IEs of a record from ``pos`` to ``end``; returns a list."""
    args = []
    while pos < end:
        tag, length = L.ie.unpack_from(data, pos)
        value = pos + 4
        if value + length > end:
            raise ValueError("argument runs past its record")
        if tag == 1:
            args.append((L.i32 if length == 4 else L.i64).unpack_from(data, value)[0])
        elif tag == 2:
            args.append(data[value:value + length])
        elif tag == 3:
            (original_length,) = L.u32.unpack_from(data, value)
            args.append(("partial", original_length, data[value + 4:value + length]))
        elif tag == 4:
            args.append(("stat",) + L.stat.unpack_from(data, value))
        elif tag == 5:
            fds = data[value:value + length - length % 8]
            args.append(("pollfds", list(L.pollfd.iter_unpack(fds))))
        elif tag == 6:
            if length == 0:
                args.append(None)
            else:
                handler, _, flags = L.sigaction.unpack_from(data, value)
                args.append(("sigaction", handler, flags))
        elif tag == 7:
            args.append(("intp",) + L.intp.unpack_from(data, value))
        else:
            args.append(("unknown", tag, data[value:value + length]))
        pos = value + (length + 3) // 4 * 4
    return args


def parse_calls(data):
    """Read the syscall records of a capture held in ``data`` (bytes).

    Returns a dict of column lists, one entry per syscall record in file order: ``number``,
    ``name``, ``ret``, ``thread``, ``timestamp_ns``, ``duration_ns``, ``args`` (see the module
    docstring). Raises ``SyscallFormatError`` on an empty file, a stale tail, an unknown
    segment or a cut one.
    """
    numbers = []
    names = []
    rets = []
    threads = []
    timestamps = []
    durations = []
    arg_lists = []
    columns = {"number": numbers, "name": names, "ret": rets, "thread": threads,
               "timestamp_ns": timestamps, "duration_ns": durations, "args": arg_lists}
    if not data:
        raise SyscallFormatError("empty file", 0, columns)

    L, header = read_header(data, 0)
    pid = header["pid"]
    pos = HEADER_SIZE
    n = len(data)
    while pos < n:
        if pos + 8 > n:
            raise SyscallFormatError("segment header cut short", pos, columns)
        tag, length = L.segment.unpack_from(data, pos)
        body = pos + 8
        end = body + length
        if end > n:
            raise SyscallFormatError(
                f"segment runs past the end of the file (needs {length} bytes, "
                f"{n - body} left)", pos, columns)

        if tag == SEGMENT_SYSCALL:
            try:
                number, flags = L.record.unpack_from(data, body)
                p = body + 4
                ret = 0
                tid = pid
                timestamp = duration = None
                if flags & FLAG_RESULT:
                    (ret,) = L.i64.unpack_from(data, p)
                    p += 8
                if flags & FLAG_TID:
                    (tid,) = L.i32.unpack_from(data, p)
                    p += 4
                if flags & FLAG_TIMESTAMP:
                    (timestamp,) = L.i64.unpack_from(data, p)
                    p += 8
                if flags & FLAG_DURATION:
                    (duration,) = L.f32.unpack_from(data, p)
                    p += 4
                if p > end:
                    raise ValueError("fixed fields run past the record")
                args = decode_args(data, p, end, L)
            except (struct.error, ValueError) as e:
                raise SyscallFormatError(f"malformed syscall record ({e})", pos,
                                         columns) from None
            numbers.append(number)
            names.append(syscall_name(number))
            rets.append(ret)
            threads.append(tid)
            timestamps.append(timestamp)
            durations.append(duration)
            arg_lists.append(args)
        elif tag == SEGMENT_FILLER or tag == SEGMENT_HEADER or (tag == 0 and length == 0):
            pass
        elif tag == L.magic_tag:
            L, header = read_header(data, pos)
            pid = header["pid"]
            pos += HEADER_SIZE
            continue
        else:
            raise SyscallFormatError(f"unknown segment tag {tag:#x}", pos, columns)
        pos = body + (length + 3) // 4 * 4
    return columns


def read_calls(path):
    """Read the syscall_capture file at ``path``; see ``parse_calls``."""
    with open(path, "rb") as f:
        data = f.read()
    return parse_calls(data)


if __name__ == "__main__":
    import sys

    for arg in sys.argv[1:]:
        try:
            cols = read_calls(arg)
            print(f"{arg}: {len(cols['number'])} calls")
        except SyscallFormatError as e:
            rows = len(e.columns["number"]) if e.columns else 0
            print(f"{arg}: {rows} calls, then {e}")
