#!/usr/bin/env python3
"""Checks tracecap's converted traces against the official Perfetto schema and the Trace Event rules.

Usage:
  tools/check_trace.py --tracecap target/debug/tracecap CAPTURE...
      converts each capture to .pftrace and .json (in a temporary directory) with
      `tracecap convert --json`, then checks both files and compares their counts with the summary
      convert printed and with `tracecap info --json` of the capture;
  tools/check_trace.py FILE.pftrace|FILE.json... [--summary SUMMARY.json]
      checks the files alone (and against a saved `convert --json` summary).

The Perfetto file is decoded with perfetto_trace_pb2.Trace from the `perfetto` PyPI package
(pip install perfetto protobuf). Exit status 1 when any check fails.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

FAILURES = []


def fail(where, msg):
    FAILURES.append(f"{where}: {msg}")
    print(f"FAIL {where}: {msg}")


def load_trace_proto():
    try:
        from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb
    except ImportError:
        try:
            from perfetto.trace_processor import perfetto_trace_pb2 as pb  # older layouts
        except ImportError:
            sys.exit("the `perfetto` package is missing: pip install perfetto protobuf")
    return pb


def check_pftrace(path):
    """Decodes with the official schema; returns counts and checks structure."""
    pb = load_trace_proto()
    trace = pb.Trace()
    with open(path, "rb") as f:
        trace.ParseFromString(f.read())
    te = pb.TrackEvent
    counts = Counter()
    tracks = {}
    interned = defaultdict(set)  # (seq, table) -> iids
    cleared = set()
    open_slices = defaultdict(list)  # track uuid -> stack of begin ts
    last_ts = {}
    for i, p in enumerate(trace.packet):
        seq = p.trusted_packet_sequence_id
        if p.sequence_flags & 1 or p.incremental_state_cleared:
            cleared.add(seq)
            for k in [k for k in interned if k[0] == seq]:
                interned[k].clear()
        if p.HasField("interned_data"):
            d = p.interned_data
            for table, entries in (("name", d.event_names), ("cat", d.event_categories),
                                   ("arg", d.debug_annotation_names),
                                   ("str", d.debug_annotation_string_values)):
                for e in entries:
                    interned[(seq, table)].add(e.iid)
        if p.HasField("track_descriptor"):
            t = p.track_descriptor
            if t.uuid in tracks:
                fail(path, f"track {t.uuid} declared twice")
            if t.HasField("parent_uuid") and t.parent_uuid not in tracks:
                fail(path, f"track {t.uuid} declared before its parent {t.parent_uuid}")
            kind = ("process" if t.HasField("process") else "thread" if t.HasField("thread")
                    else "counter" if t.HasField("counter") else "other")
            tracks[t.uuid] = kind
            counts["tracks"] += 1
            counts["tracks_" + kind] += 1
        if p.HasField("track_event"):
            e = p.track_event
            if seq not in cleared:
                fail(path, f"packet {i}: track event before the sequence cleared its state")
            if e.track_uuid not in tracks:
                fail(path, f"packet {i}: event on undeclared track {e.track_uuid}")
            if e.HasField("name_iid") and e.name_iid not in interned[(seq, "name")]:
                fail(path, f"packet {i}: name_iid {e.name_iid} not interned")
            for c in e.category_iids:
                if c not in interned[(seq, "cat")]:
                    fail(path, f"packet {i}: category iid {c} not interned")
            for a in e.debug_annotations:
                if a.HasField("name_iid") and a.name_iid not in interned[(seq, "arg")]:
                    fail(path, f"packet {i}: annotation name iid {a.name_iid} not interned")
                if a.HasField("string_value_iid") and a.string_value_iid not in interned[(seq, "str")]:
                    fail(path, f"packet {i}: string value iid {a.string_value_iid} not interned")
            ts = p.timestamp
            if e.type in (te.TYPE_SLICE_BEGIN, te.TYPE_SLICE_END):
                if ts < last_ts.get(e.track_uuid, 0):
                    fail(path, f"packet {i}: time goes back on track {e.track_uuid}")
                last_ts[e.track_uuid] = ts
            if e.type == te.TYPE_SLICE_BEGIN:
                counts["slices"] += 1
                open_slices[e.track_uuid].append(ts)
            elif e.type == te.TYPE_SLICE_END:
                stack = open_slices[e.track_uuid]
                if not stack:
                    fail(path, f"packet {i}: slice end without begin on track {e.track_uuid}")
                elif stack.pop() > ts:
                    fail(path, f"packet {i}: slice ends before it begins")
            elif e.type == te.TYPE_INSTANT:
                counts["instants"] += 1
            elif e.type == te.TYPE_COUNTER:
                counts["counter_samples"] += 1
                if tracks.get(e.track_uuid) != "counter":
                    fail(path, f"packet {i}: counter sample on a non-counter track")
    for uuid, stack in open_slices.items():
        if stack:
            fail(path, f"{len(stack)} slices left open on track {uuid}")
    return counts


def check_json(path):
    """Trace Event rules: B/E pairs per thread in order, X dur >= 0, metadata names every thread."""
    with open(path) as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    counts = Counter()
    thread_names, process_names = set(), set()
    stacks = defaultdict(list)
    used_threads, used_pids = set(), set()
    last_ts = {}
    for i, e in enumerate(events):
        ph = e.get("ph")
        key = (e.get("pid"), e.get("tid"))
        if ph == "M":
            if e.get("name") == "thread_name":
                thread_names.add(key)
            elif e.get("name") == "process_name":
                process_names.add(e.get("pid"))
            continue
        if "ts" not in e or not isinstance(e["ts"], (int, float)):
            fail(path, f"event {i}: no numeric ts")
            continue
        used_pids.add(e.get("pid"))
        if ph in ("B", "E"):
            if e["ts"] < last_ts.get(key, float("-inf")):
                fail(path, f"event {i}: B/E time goes back on thread {key}")
            last_ts[key] = e["ts"]
        if ph == "B":
            counts["slices"] += 1
            stacks[key].append(e["ts"])
            used_threads.add(key)
        elif ph == "E":
            if not stacks[key]:
                fail(path, f"event {i}: E without B on thread {key}")
            elif stacks[key].pop() > e["ts"]:
                fail(path, f"event {i}: E before its B")
        elif ph == "X":
            counts["slices"] += 1
            used_threads.add(key)
            if not (isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0):
                fail(path, f"event {i}: X with bad dur {e.get('dur')!r}")
        elif ph == "i" or ph == "I":
            counts["instants"] += 1
            if e.get("s", "t") == "t":
                used_threads.add(key)
        elif ph == "C":
            counts["counter_samples"] += 1
    for key, stack in stacks.items():
        if stack:
            fail(path, f"{len(stack)} B events without E on thread {key}")
    for key in sorted(used_threads - thread_names, key=str):
        fail(path, f"thread {key} has events but no thread_name metadata")
    for pid in sorted(used_pids - process_names, key=str):
        fail(path, f"process {pid} has events but no process_name metadata")
    return counts


def compare(where, counts, summary, keys):
    for k in keys:
        if counts.get(k, 0) != summary.get(k, 0):
            fail(where, f"{k}: file has {counts.get(k, 0)}, convert reported {summary.get(k, 0)}")


def compare_with_info(where, summary, info, classes=None):
    """What `tracecap info --json` reports must all be in the converted timeline, mapped as
    docs/conversion.md says for each format."""
    fmt = info.get("format")
    if fmt == "syscall":
        if summary["slices"] != info["syscalls"]:
            fail(where, f"slices {summary['slices']} != syscalls {info['syscalls']}")
    elif fmt == "easyprofiler":
        r = info["records"]
        if summary["slices"] != r["blocks"] + r["context_switches"]:
            fail(where, f"slices {summary['slices']} != blocks {r['blocks']} + context switches {r['context_switches']}")
        points = summary["instants"] + summary["counter_samples"]
        want = r["events"] + r["values"] + info.get("bookmarks", 0)
        if points != want:
            fail(where, f"instants + counter samples {points} != events + values + bookmarks {want}")
        if summary["threads"] != len(info["threads"]):
            fail(where, f"thread tracks {summary['threads']} != threads {len(info['threads'])}")
    elif fmt == "apitrace":
        compare_apitrace(where, summary, info)
    elif fmt == "orbit":
        compare_orbit(where, summary, info)
    elif fmt == "wtf":
        compare_wtf(where, summary, info, classes or {})
    else:
        fail(where, f"no count mapping for format {fmt!r}")


def compare_apitrace(where, summary, info):
    # Every call is a slice, every frame one more, and each debug group pushed by a call that
    # completed one more (`debug_group_pushes` counts every push call, completed or not).
    lo = info["calls"] + info["frames"]
    hi = lo + info["debug_group_pushes"]
    if not lo <= summary["slices"] <= hi:
        fail(where, f"slices {summary['slices']} not in calls + frames {lo} .. + debug group pushes {hi}")
    if summary["threads"] != info["threads"]:
        fail(where, f"thread tracks {summary['threads']} != threads {info['threads']}")
    if summary["instants"] or summary["counter_samples"]:
        fail(where, "apitrace has no instants or counters")


ORBIT_SLICES = ["function_call", "api_scope_start", "api_scope_start_async", "scheduling_slice",
                "thread_state_slice"]
ORBIT_INSTANTS = ["capture_started", "api_string_event", "callstack_sample", "tracepoint_event",
                  "gpu_queue_submission", "present_event", "warning_event",
                  "error_enabling_orbit_api_event", "error_enabling_user_space_instrumentation_event",
                  "lost_perf_records_event", "out_of_order_events_discarded_event"]
ORBIT_COUNTERS = ["api_track_double", "api_track_float", "api_track_int", "api_track_int64",
                  "api_track_uint", "api_track_uint64"]


def compare_orbit(where, summary, info):
    n = info.get("event_counts", {})
    c = lambda keys: sum(n.get(k, 0) for k in keys)
    # A GPU job is a slice with its three stages nested in it.
    want = c(ORBIT_SLICES) + 4 * n.get("gpu_job", 0)
    if summary["slices"] != want:
        fail(where, f"slices {summary['slices']} != calls, scopes, scheduling and state slices, 4 per GPU job {want}")
    if summary["instants"] != c(ORBIT_INSTANTS):
        fail(where, f"instants {summary['instants']} != {c(ORBIT_INSTANTS)} ({', '.join(ORBIT_INSTANTS)})")
    # A memory usage event gives one sample per field it carries (system, process, cgroup).
    lo, mem = c(ORBIT_COUNTERS), n.get("memory_usage_event", 0)
    if not lo <= summary["counter_samples"] <= lo + 16 * mem:
        fail(where, f"counter samples {summary['counter_samples']} not in [{lo}, {lo} + memory fields]")


def compare_wtf(where, summary, info, classes):
    """`classes`: event name -> (class, flags), from the define records of `tracecap dump --json`."""
    by_name = info.get("events_by_name", {})
    structural = {"wtf.event#define", "wtf.zone#create", "wtf.zone#delete", "wtf.zone#set",
                  "wtf.scope#leave", "wtf.timeRange#begin", "wtf.timeRange#end",
                  "wtf.timing#frameStart", "wtf.timing#frameEnd"}
    slices = by_name.get("wtf.timeRange#begin", 0) + by_name.get("wtf.timing#frameStart", 0)
    instants, appends = 0, 0
    for name, count in by_name.items():
        cls, flags = classes.get(name, ("instance", 0))
        if cls == "scope":
            slices += count
        elif name == "wtf.scope#appendData" or flags & 0x10:
            appends += count  # merged into its scope, or an instant when it comes too late
        elif name not in structural:
            instants += count
    if summary["slices"] != slices:
        fail(where, f"slices {summary['slices']} != scopes + time ranges + frames {slices}")
    if not instants <= summary["instants"] <= instants + appends:
        fail(where, f"instants {summary['instants']} not in [{instants}, {instants} + {appends} appends]")
    zones = sum(1 for z in info.get("zones", []) if z.get("events"))
    if summary["threads"] > len(info.get("zones", [])) or summary["threads"] < min(zones, 1):
        fail(where, f"thread tracks {summary['threads']} vs zones {info.get('zones')}")


def wtf_classes(tool, capture):
    res = subprocess.run([tool, "dump", "--json", capture], capture_output=True, text=True)
    classes = {}
    for line in res.stdout.splitlines():
        if '"define"' in line:
            d = json.loads(line)
            if d.get("kind") == "define":
                classes[d["name"]] = (d["class"], d["flags"])
    return classes


def run_tool(tool, capture, tmp):
    res = subprocess.run([tool, "info", "--json", capture], capture_output=True, text=True)
    if not res.stdout.strip():
        # Not a capture at all (an empty file, ...): convert must refuse it the same way.
        conv = subprocess.run([tool, "convert", capture, "-o", os.path.join(tmp, "x.json")],
                              capture_output=True, text=True)
        if conv.returncode != res.returncode or conv.returncode == 0:
            fail(capture, f"info exited {res.returncode} but convert {conv.returncode}")
        else:
            print(f"note {capture}: not a capture ({res.stderr.strip()}), refused by both")
        return
    info = json.loads(res.stdout)
    classes = wtf_classes(tool, capture) if info.get("format") == "wtf" else None
    base = os.path.join(tmp, os.path.basename(capture))
    for ext in (".pftrace", ".json"):
        out = base + ext
        res = subprocess.run([tool, "convert", capture, "-o", out, "--json"],
                             capture_output=True, text=True)
        if res.returncode != 0:
            if (info.get("error") or info.get("fault")) and res.returncode == 1 and res.stderr.startswith("{"):
                # A damaged capture (info reports its error too): what precedes it is converted.
                print(f"note {capture}: damaged ({info.get('error') or info.get('fault')}), checking the part before it")
            else:
                fail(capture, f"convert to {ext} exited {res.returncode}: {res.stderr.strip()}")
                continue
        # The summary is the first line of standard error (the fault, if any, follows it).
        summary = json.loads(res.stderr.splitlines()[0])
        counts = check_pftrace(out) if ext == ".pftrace" else check_json(out)
        keys = ["slices", "instants", "counter_samples"]
        if ext == ".pftrace":
            counts["tracks_counter"] = counts.get("tracks_counter", 0)
            compare(out, {"tracks": counts["tracks"], "counter_tracks": counts["tracks_counter"],
                          "threads": counts.get("tracks_thread", 0), **counts},
                    summary, keys + ["tracks", "counter_tracks", "threads"])
        else:
            compare(out, counts, summary, keys)
        compare_with_info(out, summary, info, classes)
        print(f"ok   {out}: {dict((k, counts.get(k, 0)) for k in keys)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--tracecap", help="the tracecap binary: convert and check each capture")
    ap.add_argument("--summary", help="a saved `tracecap convert --json` summary to compare with")
    args = ap.parse_args()
    if args.tracecap:
        with tempfile.TemporaryDirectory() as tmp:
            for c in args.files:
                run_tool(args.tracecap, c, tmp)
    else:
        summary = json.load(open(args.summary)) if args.summary else None
        for f in args.files:
            counts = check_pftrace(f) if not f.endswith(".json") else check_json(f)
            if summary:
                compare(f, counts, summary, ["slices", "instants", "counter_samples"])
            print(f"ok   {f}: {dict(counts)}")
    if FAILURES:
        print(f"{len(FAILURES)} failed")
        sys.exit(1)
    print("all traces ok")


if __name__ == "__main__":
    main()
