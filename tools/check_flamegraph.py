#!/usr/bin/env python3
"""Checks tracecap's flame graphs in a real browser: they parse, open in Chromium and show colors.

Usage:
  tools/check_flamegraph.py --tracecap target/debug/tracecap CAPTURE...
      for each CAPTURE runs `tracecap flamegraph CAPTURE -o FILE.svg` and
      `tracecap flamegraph CAPTURE --folded`, for all of them together the same two commands, for
      each two consecutive CAPTUREs A B that have a stack in common
      `tracecap diff A B --flamegraph FILE.svg`, and for the first CAPTURE
      `tracecap diff CAPTURE CAPTURE --flamegraph FILE.svg`; then checks:
  1. every command exits 0 and every SVG parses with xml.etree;
  2. the folded lines read as `stack weight`, one line per stack; the total weight is > 0
     (unless the capture is named with --allow-empty, and then the SVG says "No slices"); the
     folded stacks of all CAPTUREs together are those of each CAPTURE added up; the SVG's
     `total_samples` (the width of the whole graph) is the folded total, and for a diff A B the
     folded total of B;
  3. headless Chromium loads each SVG without an XML error page (`--dump-dom` does not show
     "This page contains the following errors") and takes a screenshot of it;
  4. with Pillow, the screenshot of a flame graph has at least --min-warm (a fraction of its
     pixels) flame-colored pixels: red above green and above blue, with red at least 150 and
     the smallest channel at most 60% of red (the "hot" palette; the pale yellow background
     and the text do not count);
  5. the screenshot of a diff shows the colors the folded stacks of A and B call for: at least
     --min-diff-pixels reddish pixels (255,c,c) when stacks that are slower in B cover clearly
     more than that, fewer when no stack is slower in B, and the same for bluish pixels
     (c,c,255) and stacks faster in B (see diff_colors; the change is in absolute times, or in
     shares when the SVG's notes say that A was scaled to B's total); red shows in at least one
     diff of two CAPTUREs and blue in at least one (`A B A` gives both when B is slower than A
     everywhere); the diff of a capture with itself shows neither. Consecutive CAPTUREs without
     a stack in common are not compared, so pass captures of the same program one after the
     other.

  tools/check_flamegraph.py --svg FILE.svg... [--expect flame|diff|same|empty]
      checks SVG files alone (steps 1, 3, 4 and 5): flame graphs (the default), diffs with red
      and blue, diffs without either, or graphs without frames.

Chromium is `chromium` or `chromium-browser` (or $CHROMIUM); when neither is installed and the
script runs as root it installs Debian's `chromium` with apt-get (running `apt-get update` first
if the package is not found) and fails if that fails. Pillow is installed with pip when missing.
--keep DIR keeps the SVGs, folded files and screenshots in DIR. Exit status 1 when any check
fails; one line per check on stdout.
"""
import argparse
import importlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

FAILURES = []
TIMINGS = {"chromium": 0.0, "tracecap": 0.0}
CHROMIUM_TIMEOUT = 120
TRACECAP_TIMEOUT = 900
XML_ERROR_PAGE = "This page contains the following errors"
NO_SLICES = "No slices"
SVG_NS = "{http://www.w3.org/2000/svg}"
DIFF_NOTES = re.compile(r"<!--\s*NOTES:\s*differential: A (\d+) ns, B (\d+) ns")


def check(label, ok, detail="", info=""):
    """Prints one line for a check (with detail when it fails, info when it passes) and records
    a failure; returns ok."""
    status = "ok  " if ok else "FAIL"
    note = info if ok else detail
    print(f"{status} {label}" + (f": {note}" if note else ""), flush=True)
    if not ok:
        FAILURES.append(f"{label}: {detail}" if detail else label)
    return ok


def tail(text, lines=6):
    """The last lines of a command's output, joined with " | ", for a failure message; without
    Chromium's complaints about the missing D-Bus of a container."""
    text = text.decode("utf-8", "replace") if isinstance(text, bytes) else (text or "")
    kept = [line for line in text.strip().splitlines()
            if "dbus" not in line.lower() and line.strip()]
    return " | ".join(kept[-lines:])


# --- tools --------------------------------------------------------------------------------------


def ensure_pillow():
    """Imports Pillow's Image, installing Pillow with pip first if it is missing."""
    try:
        return importlib.import_module("PIL.Image")
    except ImportError:
        pass
    base = [sys.executable, "-m", "pip", "install", "--quiet", "pillow"]
    for cmd in (base, base + ["--break-system-packages"]):
        done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if done.returncode == 0:
            break
    importlib.invalidate_caches()
    try:
        return importlib.import_module("PIL.Image")
    except ImportError:
        check("Pillow", False, "not installed, and `pip install pillow` failed")
        return None


def find_chromium():
    """The Chromium binary, installing Debian's package when there is none (as root)."""
    candidates = [os.environ.get("CHROMIUM"), "chromium", "chromium-browser"]
    for name in candidates:
        if name and shutil.which(name):
            return shutil.which(name)
    if os.geteuid() != 0:
        check("chromium", False, "neither `chromium` nor `chromium-browser` is installed "
              "(and not root, so not installing it)")
        return None
    print("     installing chromium with apt-get", flush=True)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    install = ["apt-get", "install", "-y", "-qq", "chromium"]
    try:
        done = subprocess.run(install, env=env, capture_output=True)
        if done.returncode != 0:
            subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True)
            done = subprocess.run(install, env=env, capture_output=True)
        problem = f"exit {done.returncode}: {tail(done.stderr)}"
    except OSError as err:
        problem = str(err)
    for name in ("chromium", "chromium-browser"):
        if shutil.which(name):
            return shutil.which(name)
    check("chromium", False, f"`apt-get install -y chromium` did not install it ({problem})")
    return None


def chromium_run(chromium, profile, args):
    """Runs headless Chromium with a throwaway profile; returns (exit code, stdout, stderr)."""
    cmd = [
        chromium,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        "--no-first-run",
        "--mute-audio",
        f"--user-data-dir={profile}",
    ] + args
    start = time.monotonic()
    try:
        done = subprocess.run(cmd, capture_output=True, timeout=CHROMIUM_TIMEOUT)
        result = (done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr)
    except subprocess.TimeoutExpired:
        result = (None, "", f"timed out after {CHROMIUM_TIMEOUT} s".encode())
    TIMINGS["chromium"] += time.monotonic() - start
    return result


def run_tracecap(tracecap, args, label):
    """Runs tracecap; returns its stdout as text, or None (after a failed check) on an error."""
    start = time.monotonic()
    try:
        done = subprocess.run([tracecap] + args, capture_output=True, timeout=TRACECAP_TIMEOUT)
    except subprocess.TimeoutExpired:
        check(label, False, f"`tracecap {' '.join(args)}` timed out after {TRACECAP_TIMEOUT} s")
        return None
    except OSError as err:
        check(label, False, f"cannot run {tracecap}: {err}")
        return None
    finally:
        TIMINGS["tracecap"] += time.monotonic() - start
    if done.returncode != 0:
        check(label, False, f"`tracecap {' '.join(args)}` exited {done.returncode}: "
              f"{tail(done.stderr)}")
        return None
    return done.stdout.decode("utf-8", "replace")


# --- checks -------------------------------------------------------------------------------------


def parse_svg(path, label):
    """Parses an SVG with xml.etree; returns the root element or None."""
    if not check(f"{label}: SVG written", os.path.isfile(path) and os.path.getsize(path) > 0,
                 f"{path} is missing or empty"):
        return None
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as err:
        check(f"{label}: SVG parses as XML", False, str(err))
        return None
    if not check(f"{label}: SVG parses as XML", root.tag in ("svg", SVG_NS + "svg"),
                 f"root element is <{root.tag}>, not <svg>"):
        return None
    return root


def total_samples(root):
    """The `total_samples` of inferno's frames element (the whole graph's width), or None."""
    for element in root.iter():
        if element.get("id") == "frames" and element.get("total_samples") is not None:
            try:
                return int(element.get("total_samples"))
            except ValueError:
                return None
    return None


def svg_text(root):
    """All the text of an SVG."""
    return " ".join(t for t in root.itertext())


def svg_height(root):
    """The height attribute of the SVG, in pixels, or None."""
    try:
        return int(float(root.get("height", "").rstrip("px")))
    except ValueError:
        return None


def is_warm(r, g, b):
    """Flame-colored: the "hot" palette's reds, oranges and yellows, not its pale background."""
    return r >= 150 and r > g and r > b and min(g, b) <= 0.6 * r


def is_reddish(r, g, b):
    """A differential frame that got slower: (255, c, c) with c clearly below 255."""
    return r >= 200 and r - max(g, b) >= 40 and abs(g - b) <= 20


def is_bluish(r, g, b):
    """A differential frame that got faster: (c, c, 255) with c clearly below 255."""
    return b >= 200 and b - max(r, g) >= 40 and abs(r - g) <= 20


def pixel_counts(image_module, png):
    """The numbers of warm, reddish and bluish pixels of a PNG, and its pixel count."""
    with image_module.open(png) as image:
        rgb = image.convert("RGB")
        histogram = rgb.getcolors(maxcolors=rgb.width * rgb.height)
        total = rgb.width * rgb.height
    warm = reddish = bluish = 0
    for count, (r, g, b) in histogram:
        if is_warm(r, g, b):
            warm += count
        if is_reddish(r, g, b):
            reddish += count
        if is_bluish(r, g, b):
            bluish += count
    return warm, reddish, bluish, total


def check_in_browser(ctx, svg, root, label, expect):
    """Loads an SVG in headless Chromium, screenshots it and counts its colors.

    expect: "flame" (warm pixels), "empty" (a page without frames) or a DiffColors (reddish
    and bluish pixels present or absent).
    """
    if ctx.chromium is None:
        check(f"{label}: opens in Chromium", False, "no Chromium")
        return
    url = "file://" + os.path.abspath(svg)
    profile = tempfile.mkdtemp(prefix="chromium-", dir=ctx.workdir)
    try:
        code, dom, err = chromium_run(ctx.chromium, profile, ["--dump-dom", url])
        loaded = code == 0 and "<svg" in dom and XML_ERROR_PAGE not in dom
        detail = ""
        if XML_ERROR_PAGE in dom:
            start = dom.find(XML_ERROR_PAGE)
            detail = "Chromium shows an XML error page: " + " ".join(dom[start:start + 300].split())
        elif code != 0:
            detail = f"chromium --dump-dom exited {code}: {tail(err)}"
        elif "<svg" not in dom:
            detail = f"no <svg> in Chromium's DOM: {dom[:200]!r}"
        check(f"{label}: loads in Chromium without an XML error", loaded, detail)

        png = os.path.splitext(svg)[0] + ".png"
        if os.path.exists(png):
            os.remove(png)
        height = min(max(svg_height(root) or 900, 200), 4000)
        code, _, err = chromium_run(
            ctx.chromium, profile, [f"--screenshot={png}", f"--window-size=1200,{height}", url])
        if not check(f"{label}: Chromium screenshot", os.path.isfile(png) and os.path.getsize(png),
                     f"no screenshot (exit {code}): {tail(err)}"):
            return
    finally:
        shutil.rmtree(profile, ignore_errors=True)

    if ctx.image is None:
        check(f"{label}: colors", False, "no Pillow")
        return
    try:
        warm, reddish, bluish, total = pixel_counts(ctx.image, png)
    except OSError as err:
        check(f"{label}: screenshot is a PNG", False, str(err))
        return
    if expect == "flame":
        need = int(ctx.min_warm * total)
        counts = f"{warm} of {total} pixels are flame-colored"
        check(f"{label}: flame colors", warm >= need,
              f"{counts} (need {need}, --min-warm {ctx.min_warm}); screenshot {png}", counts)
    elif isinstance(expect, DiffColors):
        need = ctx.min_diff_pixels
        for color, count, want, why, change in (
                ("red", reddish, expect.red, expect.why_red, "slower"),
                ("blue", bluish, expect.blue, expect.why_blue, "faster")):
            counted = f"{count} {'reddish' if color == 'red' else 'bluish'} pixels"
            if want is None:
                print(f"     {label}: {counted} (not checked: {why})", flush=True)
            elif want:
                check(f"{label}: {color} frames ({change} in B)", count >= need,
                      f"{counted}, need {need}: {why}; screenshot {png}", counted)
            else:
                check(f"{label}: no {color} frames", count < need,
                      f"{counted}, expected fewer than {need}: {why}; screenshot {png}", counted)
    elif expect == "empty":
        check(f"{label}: no frames", warm < max(1, int(ctx.min_warm * total)),
              f"{warm} flame-colored pixels in a graph without stacks; screenshot {png}")


def parse_folded(text, label):
    """Reads folded lines; returns {stack: weight}, or None after a failed check."""
    stacks = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        stack, _, weight = line.rpartition(" ")
        if not stack or not weight.isdigit() or stack in stacks:
            problem = "repeats a stack" if stack in stacks else "is not `stack weight`"
            check(f"{label}: folded lines read as `stack weight`", False,
                  f"line {number} {problem}: {line[:200]!r}")
            return None
        stacks[stack] = int(weight)
    check(f"{label}: folded lines read as `stack weight`", True, info=f"{len(stacks)} stacks")
    return stacks


def check_flamegraph(ctx, inputs, name, label):
    """`tracecap flamegraph INPUTS -o` and `--folded`; returns the folded stacks or None."""
    svg = os.path.join(ctx.workdir, f"{name}.svg")
    folded_text = run_tracecap(ctx.tracecap, ["flamegraph"] + inputs + ["--folded"],
                               f"{label}: flamegraph --folded")
    stacks = None
    if folded_text is not None:
        with open(os.path.join(ctx.workdir, f"{name}.folded"), "w", encoding="utf-8") as out:
            out.write(folded_text)
        stacks = parse_folded(folded_text, label)
    folded_total = None if stacks is None else sum(stacks.values())
    allowed_empty = all(os.path.abspath(i) in ctx.allow_empty for i in inputs)
    if folded_total is not None:
        if allowed_empty:
            check(f"{label}: folded total weight", True, f"{folded_total} ns (may be empty)")
        else:
            check(f"{label}: folded total weight > 0", folded_total > 0,
                  "no stacks (--allow-empty CAPTURE accepts a capture without slices)",
                  f"{folded_total} ns")

    if run_tracecap(ctx.tracecap, ["flamegraph"] + inputs + ["-o", svg],
                    f"{label}: flamegraph -o") is None:
        return stacks
    root = parse_svg(svg, label)
    if root is None:
        return stacks
    width = total_samples(root)
    empty = folded_total == 0
    if empty:
        check(f"{label}: SVG says there are no slices", NO_SLICES in svg_text(root),
              f"no {NO_SLICES!r} in the SVG's text")
    elif folded_total is not None:
        check(f"{label}: SVG total is the folded total", width == folded_total,
              f"total_samples {width}, folded total {folded_total}", f"{width} ns")
    check_in_browser(ctx, svg, root, label, "empty" if empty else "flame")
    return stacks


class DiffColors:
    """What a differential flame graph should show: red (True: some, False: none, None: not
    checked) and blue, each with the reason."""

    def __init__(self, red, blue, why_red="", why_blue=""):
        self.red, self.blue = red, blue
        self.why_red, self.why_blue = why_red, why_blue


def diff_colors(a, b, a_drawn, min_pixels):
    """The colors the differential flame graph of the folded stacks a and b should show.

    Follows inferno: a frame has the color of the folded line that opens it, its stack's own
    line when the stack has self time in B (white otherwise); the change is
    d = b - a * (a_drawn / total of a), where a_drawn is the total of A the graph was drawn from
    (smaller when A was scaled to B's total), and the tint is c = 100 + 150 * (max|d| - |d|) /
    max|d| on (255, c, c) when d > 0 and on (c, c, 255) when d < 0, max|d| over the drawn
    lines; a frame is as wide as its stack and the stacks above it, of 1180 pixels for B's total,
    and 15 pixels high. A color is expected when the frames clearly of it (c <= 200) cover twice
    min_pixels or more (their labels hide part of them), and expected absent when no frame has
    even a faint tint of it (c <= 235).
    """
    total_a, total_b = sum(a.values()), sum(b.values())
    scale = a_drawn / total_a if a_drawn is not None and total_a else 1.0
    changes = {s: w - round(a.get(s, 0) * scale) for s, w in b.items() if w > 0}
    widest = max([abs(d) for d in changes.values()] + [1])
    widths = dict.fromkeys(changes, 0)
    for stack, weight in b.items():
        frames = stack.split(";")
        for depth in range(1, len(frames) + 1):
            prefix = ";".join(frames[:depth])
            if prefix in widths:
                widths[prefix] += weight
    clear = {"red": 0.0, "blue": 0.0}
    tinted = {"red": 0.0, "blue": 0.0}
    for stack, change in changes.items():
        if change == 0:
            continue
        tint = 100 + 150 * (widest - abs(change)) // widest
        area = widths[stack] / max(total_b, 1) * 1180 * 15
        color = "red" if change > 0 else "blue"
        if tint <= 200:
            clear[color] += area
        if tint <= 235:
            tinted[color] += area
    how = ("A scaled to B's total: shares compared" if abs(scale - 1.0) > 1e-9
           else "absolute times compared")
    expected = {}
    for color, change in (("red", "slower"), ("blue", "faster")):
        if clear[color] >= 2 * min_pixels:
            expected[color] = (True, f"stacks {change} in B cover about {int(clear[color])} "
                                     f"pixels ({how})")
        elif tinted[color] == 0:
            expected[color] = (False, f"no stack is {change} in B ({how})")
        else:
            expected[color] = (None, f"the {change} stacks cover only about "
                                     f"{int(tinted[color])} pixels ({how})")
    return DiffColors(expected["red"][0], expected["blue"][0],
                      expected["red"][1], expected["blue"][1])


def notes_totals(svg):
    """The totals of A and B the differential SVG was drawn from, as its notes give them."""
    with open(svg, encoding="utf-8", errors="replace") as f:
        match = DIFF_NOTES.search(f.read(64 * 1024))
    return (int(match.group(1)), int(match.group(2))) if match else (None, None)


def check_diff(ctx, a, b, folded_a, folded_b, name, label):
    """`tracecap diff A B --flamegraph`: the SVG, its width (B's total) and its colors.

    Returns the DiffColors checked, or None."""
    svg = os.path.join(ctx.workdir, f"{name}.svg")
    if run_tracecap(ctx.tracecap, ["diff", a, b, "--flamegraph", svg],
                    f"{label}: diff --flamegraph") is None:
        return None
    root = parse_svg(svg, label)
    if root is None:
        return None
    b_total = sum(folded_b.values())
    if not b_total:
        check(f"{label}: SVG says there are no slices", NO_SLICES in svg_text(root),
              f"no {NO_SLICES!r} in the SVG's text")
        check_in_browser(ctx, svg, root, label, "empty")
        return None
    width = total_samples(root)
    check(f"{label}: SVG total is B's folded total", width == b_total,
          f"total_samples {width}, B's folded total {b_total}", f"{width} ns")
    a_drawn, b_drawn = notes_totals(svg)
    if a_drawn is None:
        print(f"     {label}: no `NOTES: differential: A .. ns, B .. ns` comment; taking the "
              "colors for absolute times", flush=True)
    else:
        check(f"{label}: the notes' B total is B's folded total", b_drawn == b_total,
              f"notes say B {b_drawn} ns, folded {b_total} ns")
    colors = diff_colors(folded_a, folded_b, a_drawn, ctx.min_diff_pixels)
    check_in_browser(ctx, svg, root, label, colors)
    return colors


class Context:
    """What the checks share."""

    def __init__(self, args, workdir):
        self.tracecap = args.tracecap
        self.workdir = workdir
        self.min_warm = args.min_warm
        self.min_diff_pixels = args.min_diff_pixels
        self.allow_empty = {os.path.abspath(p) for p in args.allow_empty}
        self.image = ensure_pillow()
        self.chromium = find_chromium()


def short(path):
    """A capture's file name, for labels."""
    return os.path.basename(path.rstrip("/")) or path


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tracecap", help="the tracecap binary")
    parser.add_argument("captures", nargs="*", metavar="CAPTURE")
    parser.add_argument("--svg", nargs="+", default=[], metavar="FILE",
                        help="check these SVG files alone")
    parser.add_argument("--expect", choices=("flame", "diff", "same", "empty"), default="flame",
                        help="what the --svg files show (default flame)")
    parser.add_argument("--allow-empty", action="append", default=[], metavar="CAPTURE",
                        help="a capture that may have no slices with a duration")
    parser.add_argument("--min-warm", type=float, default=0.01,
                        help="fraction of a flame graph's screenshot pixels that must be "
                             "flame-colored (default 0.01)")
    parser.add_argument("--min-diff-pixels", type=int, default=100,
                        help="reddish and bluish pixels a diff needs of each (default 100)")
    parser.add_argument("--keep", metavar="DIR", help="keep the outputs in DIR")
    args = parser.parse_args()
    svgs = [(path, args.expect) for path in args.svg]
    if not svgs and not args.captures:
        parser.error("give CAPTUREs (with --tracecap) or --svg FILEs")
    if args.captures and not args.tracecap:
        parser.error("--tracecap is needed to check CAPTUREs")

    started = time.monotonic()
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        workdir = os.path.abspath(args.keep)
    else:
        workdir = tempfile.mkdtemp(prefix="check_flamegraph-")
    try:
        ctx = Context(args, workdir)
        for path, kind in svgs:
            label = f"{short(path)} ({kind})"
            copy = os.path.join(workdir, short(path))
            if not check(f"{label}: exists", os.path.isfile(path), f"no file {path}"):
                continue
            if os.path.abspath(path) != os.path.abspath(copy):
                shutil.copyfile(path, copy)
            root = parse_svg(copy, label)
            if root is not None:
                if kind == "diff":
                    kind = DiffColors(True, True, "--expect diff", "--expect diff")
                elif kind == "same":
                    kind = DiffColors(False, False, "--expect same", "--expect same")
                check_in_browser(ctx, copy, root, label, kind)

        captures = args.captures
        folded = {}
        for index, capture in enumerate(captures):
            folded[capture] = check_flamegraph(
                ctx, [capture], f"flame-{index}", f"flamegraph {short(capture)}")
        if len(captures) > 1:
            # A capture named twice is read once.
            unique = list(dict.fromkeys(captures))
            label = f"flamegraph of all {len(unique)} captures"
            together = check_flamegraph(ctx, unique, "flame-all", label)
            parts = [folded[c] for c in unique]
            if together is not None and None not in parts:
                summed = {}
                for part in parts:
                    for stack, weight in part.items():
                        summed[stack] = summed.get(stack, 0) + weight
                differ = sorted(s for s in set(summed) | set(together)
                                if summed.get(s) != together.get(s))
                check(f"{label}: the stacks of the captures added up", not differ,
                      f"{len(differ)} stacks differ, such as {differ[0][:100]!r}: "
                      f"{together.get(differ[0])} ns together, {summed.get(differ[0])} ns "
                      "added up" if differ else "", f"{sum(together.values())} ns")

        reds, blues = [], []
        for index in range(len(captures) - 1):
            a, b = captures[index], captures[index + 1]
            label = f"diff {short(a)} {short(b)}"
            if os.path.abspath(a) == os.path.abspath(b) or None in (folded[a], folded[b]):
                continue
            if not set(folded[a]) & set(folded[b]):
                print(f"skip {label}: no stack in common", flush=True)
                continue
            colors = check_diff(ctx, a, b, folded[a], folded[b], f"diff-{index}", label)
            if colors is not None and colors.red:
                reds.append(label)
            if colors is not None and colors.blue:
                blues.append(label)
        if len(captures) > 1:
            check("the diffs of the captures show red and blue", bool(reds) and bool(blues),
                  "no diff of two consecutive CAPTUREs has stacks slower in the second (red: "
                  f"{', '.join(reds) or 'none'}) or none has stacks faster in it (blue: "
                  f"{', '.join(blues) or 'none'}); pass captures of the same program one after "
                  "the other, such as A B A", f"red in {', '.join(reds)}; blue in {', '.join(blues)}")
        if captures and folded[captures[0]] is not None:
            first = captures[0]
            check_diff(ctx, first, first, folded[first], folded[first], "diff-same",
                       f"diff {short(first)} with itself")
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)

    elapsed = time.monotonic() - started
    print(f"     {elapsed:.1f} s in all: {TIMINGS['chromium']:.1f} s in Chromium, "
          f"{TIMINGS['tracecap']:.1f} s in tracecap"
          + (f"; outputs in {workdir}" if args.keep else ""))
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed:", file=sys.stderr)
        for failure in FAILURES:
            print(f"  {failure}", file=sys.stderr)
        return 1
    print("all flame graph checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
