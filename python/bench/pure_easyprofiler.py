"""Pure-Python reader of EasyProfiler ``.prof`` captures, used as a benchmark baseline.

It is the kind of reader a Python user would write for this format with nothing but the
standard library: read the file into memory, walk the records with ``struct.unpack_from``,
append each row to Python lists.

Covers:
  - files written by EasyProfiler 1.0.0 up to 2.1.x (header layouts of 1.0.0, 1.0.1-1.2.x,
    1.3.x, 2.0.x and 2.1.x; u32 thread ids before 1.3.0); other versions raise
    ``EasyProfilerError``;
  - one row per block or event record (events are blocks whose descriptor kind is 0; they
    begin where they end): thread id, name, begin and end in ns, and the kind;
  - the name is the run-time name stored in the record when there is one, otherwise the
    descriptor's name (``block #<id>`` for a descriptor index past the table);
  - times in ns as EasyProfiler's own reader computes them, ``int(ticks * (1e9 / freq))``
    in double precision, or the stored value when the CPU frequency is 0.

Leaves out:
  - value records (``EASY_VALUE``) and context switches: they are stepped over, not decoded;
  - nesting (the file stores records children-first with no parent links; no depth is computed);
  - bookmarks, and the adjustments EasyProfiler's GUI reader makes (dropping records that end
    before the capture's begin time, clamping earlier begins);
  - recovery from damage: a cut or malformed file raises ``EasyProfilerError``, which carries
    the rows read before the fault.
"""

import struct

MAGIC = 0x45617379  # bytes 79 73 61 45 on disk

V1_0_0 = 0x01000000
V1_3_0 = 0x01030000
V2_0_0 = 0x02000000
V2_1_0 = 0x02010000
V2_2_0 = 0x02020000

KIND_EVENT = 0
KIND_BLOCK = 1
KIND_VALUE = 2

U16 = struct.Struct("<H")
U32 = struct.Struct("<I")
U64 = struct.Struct("<Q")
DESCRIPTOR = struct.Struct("<HIiIBBH")  # size, id, line, color, kind, status, name length
RECORD = struct.Struct("<HQQI")  # size, begin, end, descriptor index
RECORD_NAME = RECORD.size  # offset of the run-time name from the record's size field


class EasyProfilerError(ValueError):
    """A file this reader cannot read. ``columns`` holds the rows read before the fault."""

    def __init__(self, message, offset, columns=None):
        super().__init__(f"{message} at offset {offset}")
        self.offset = offset
        self.columns = columns


def version_text(version):
    return f"{version >> 24}.{(version >> 16) & 0xFF}.{version & 0xFFFF}"


def read_header(data):
    """Return the header as a dict, with ``size`` the offset of the first descriptor."""
    if len(data) < 8:
        raise EasyProfilerError("file too short for a header", 0)
    magic, version = struct.unpack_from("<II", data, 0)
    if magic != MAGIC:
        raise EasyProfilerError(f"not an EasyProfiler capture (magic {magic:#010x})", 0)
    if not V1_0_0 <= version < V2_2_0:
        raise EasyProfilerError(
            f"unsupported version {version_text(version)} ({version:#010x}); "
            "this reader knows 1.0.0 to 2.1.x", 4)
    pos = 8
    try:
        if version == V1_0_0:
            pid = 0
        elif version < V1_3_0:
            (pid,) = U32.unpack_from(data, pos)
            pos += 4
        else:
            (pid,) = U64.unpack_from(data, pos)
            pos += 8
        cpu_frequency, begin, end = struct.unpack_from("<qQQ", data, pos)
        pos += 24
        if version < V2_0_0:
            records, _, descriptors, _ = struct.unpack_from("<IQIQ", data, pos)
        else:
            _, _, records, descriptors = struct.unpack_from("<QQII", data, pos)
        pos += 24
        threads = bookmarks = None
        if version >= V2_1_0:
            threads, bookmarks, padding = struct.unpack_from("<IHH", data, pos)
            pos += 8
            if padding != 0:
                raise EasyProfilerError("non-zero header padding", pos - 2)
    except struct.error:
        raise EasyProfilerError("header cut short", pos) from None
    return {
        "version": version,
        "pid": pid,
        "cpu_frequency": cpu_frequency,
        "begin": begin,
        "end": end,
        "records": records,
        "descriptors": descriptors,
        "threads": threads,
        "bookmarks": bookmarks,
        "size": pos,
    }


def read_descriptors(data, pos, count):
    """Return ``(names, kinds, end offset)`` of the descriptor table starting at ``pos``."""
    names = []
    kinds = []
    for _ in range(count):
        if pos + 2 > len(data):
            raise EasyProfilerError("descriptor cut short", pos)
        (size,) = U16.unpack_from(data, pos)
        if size == 0:  # an empty slot
            names.append("")
            kinds.append(KIND_BLOCK)
            pos += 2
            continue
        if size < DESCRIPTOR.size - 2 or pos + 2 + size > len(data):
            raise EasyProfilerError("malformed descriptor", pos)
        _, _, _, _, kind, _, name_length = DESCRIPTOR.unpack_from(data, pos)
        start = pos + DESCRIPTOR.size
        name = data[start:start + name_length].split(b"\0", 1)[0]
        names.append(name.decode("utf-8", "replace"))
        kinds.append(kind)
        pos += 2 + size
    return names, kinds, pos


def parse_slices(data):
    """Read the blocks and events of an EasyProfiler capture held in ``data`` (bytes).

    Returns a dict of column lists, one entry per block or event record in file order
    (threads one after another, each thread's records children-first as stored):
    ``thread`` (int), ``name`` (str), ``begin_ns`` and ``end_ns`` (int) and ``kind``
    (``"block"`` or ``"event"``). Raises ``EasyProfilerError`` on a file it cannot read.
    """
    header = read_header(data)
    version = header["version"]
    names, kinds, pos = read_descriptors(data, header["size"], header["descriptors"])
    frequency = header["cpu_frequency"]
    factor = 1e9 / frequency if frequency else None

    threads = []
    names_out = []
    begins = []
    ends = []
    kinds_out = []
    columns = {"thread": threads, "name": names_out, "begin_ns": begins, "end_ns": ends,
               "kind": kinds_out}

    thread_id = U32 if version < V1_3_0 else U64
    n = len(data)
    threads_left = header["threads"]
    try:
        while (threads_left > 0) if threads_left is not None else (pos < n):
            (tid,) = thread_id.unpack_from(data, pos)
            pos += thread_id.size
            (name_size,) = U16.unpack_from(data, pos)
            pos += 2 + name_size

            # Context switches: stepped over.
            (count,) = U32.unpack_from(data, pos)
            pos += 4
            for _ in range(count):
                (size,) = U16.unpack_from(data, pos)
                pos += 2 + size

            (count,) = U32.unpack_from(data, pos)
            pos += 4
            for _ in range(count):
                size, begin, end, index = RECORD.unpack_from(data, pos)
                if size < RECORD.size - 1 or pos + 2 + size > n:
                    raise EasyProfilerError("malformed or cut record", pos, columns)
                kind = kinds[index] if index < len(kinds) else KIND_BLOCK
                if kind != KIND_VALUE:
                    if data[pos + RECORD_NAME]:
                        end_of_name = data.find(b"\0", pos + RECORD_NAME, pos + 2 + size)
                        if end_of_name < 0:
                            raise EasyProfilerError("record name without NUL", pos, columns)
                        name = data[pos + RECORD_NAME:end_of_name].decode("utf-8", "replace")
                    elif index < len(names):
                        name = names[index]
                    else:
                        name = f"block #{index}"
                    if factor is not None:
                        begin = int(begin * factor)
                        end = int(end * factor)
                    threads.append(tid)
                    names_out.append(name)
                    begins.append(begin)
                    ends.append(end)
                    kinds_out.append("event" if kind == KIND_EVENT else "block")
                pos += 2 + size

            if threads_left is not None:
                threads_left -= 1
    except struct.error:
        raise EasyProfilerError("file cut short", pos, columns) from None

    if version >= V2_1_0:
        if pos + 4 > n or U32.unpack_from(data, pos)[0] != MAGIC:
            raise EasyProfilerError("missing end signature", pos, columns)
    return columns


def read_slices(path):
    """Read the EasyProfiler capture at ``path``; see ``parse_slices``."""
    with open(path, "rb") as f:
        data = f.read()
    return parse_slices(data)


if __name__ == "__main__":
    import sys

    for arg in sys.argv[1:]:
        cols = read_slices(arg)
        blocks = cols["kind"].count("block")
        print(f"{arg}: {len(cols['thread'])} rows ({blocks} blocks, "
              f"{len(cols['thread']) - blocks} events)")
