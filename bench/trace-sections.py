#!/usr/bin/env python3
"""Bytes per section of tracegen text traces (docs/trace-format.md), plain and zstd-compressed.

    bench/trace-sections.py [--level N] [--header | --header-only] [[--label NAME] TRACE]...

A trace may be zstd-compressed (decompressed with the `zstd` program first). Each line is
filed in one section:

  header      the magic line, ranks, origin, clock, footprint, recordings, peers, datatypes,
              communicators
  sites       the site table (`site N NAME` in the header)
  frames      `program` and `frame` lines
  structure   `event`, an event's `site` and `loop` lines, blank lines and comments
  params      parameter lines (`comm`, `count`, `dest`, ...), `matched` excepted
  matched     `matched` lines (the senders wildcard receives matched)
  times       `time` and `compute` lines (histograms, drift ranges)

and printed per section as PLAIN/ZSTD: its plain bytes and the bytes of that section alone
compressed with zstd (default level 19, what the writer uses for traces of this size), then
the whole text's (the whole compresses better than the sum of its sections: they share
strings) and the file's size as it is (with the writer's zstd frame: checksum, content size).
One line per trace (NAME: --label's, else the file's name):

  NAME  header  sites  frames  structure  params  matched  times  whole  file
"""
import subprocess
import sys

SECTIONS = ["header", "sites", "frames", "structure", "params", "matched", "times"]
HEADER_WORDS = {"tracegen-trace", "ranks", "origin", "clock", "footprint", "recordings", "peers", "datatype", "comm"}


def text_of(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] == b"\x28\xb5\x2f\xfd":
        data = subprocess.run(["zstd", "-dc"], input=data, stdout=subprocess.PIPE, check=True).stdout
    return data.decode("ascii")


def zsize(text, level):
    if not text:
        return 0
    out = subprocess.run(["zstd", f"-{level}", "--ultra" if level > 19 else "-q", "-c", "-q"], input=text.encode(),
                         stdout=subprocess.PIPE, check=True).stdout
    return len(out)


def sections(text):
    parts = {s: [] for s in SECTIONS}
    in_events = False
    for line in text.splitlines(keepends=True):
        words = line.split()
        first = words[0] if words else ""
        if first == "event":
            in_events = True
        if not words or first.startswith("#") or first == "event":
            s = "structure"
        elif not in_events:
            s = "sites" if first == "site" else "frames" if first in ("program", "frame") else "header"
            if first not in HEADER_WORDS and s == "header" and first != "site":
                s = "header"
        elif first in ("site", "loop"):
            s = "structure"
        elif first in ("time", "compute"):
            s = "times"
        elif first == "matched":
            s = "matched"
        elif first == "footprint":  # may follow the events
            s = "header"
        else:
            s = "params"
        parts[s].append(line)
    return {s: "".join(v) for s, v in parts.items()}


def header_line():
    return "%-24s" % "trace" + "".join("%15s" % s for s in SECTIONS + ["whole", "file"])


def main(argv):
    level = 19
    label = None
    rows = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--level", "--label"):
            if i + 1 >= len(argv):
                sys.exit(f"{a} needs a value")
            if a == "--level":
                level = int(argv[i + 1])
            else:
                label = argv[i + 1]
            i += 2
            continue
        if a == "--header":
            print(header_line())
        elif a == "--header-only":
            print(header_line())
            return
        else:
            rows.append((label or a.split("/")[-1], a))
            label = None
        i += 1
    for name, path in rows:
        text = text_of(path)
        parts = sections(text)
        cells = ["%d/%d" % (len(parts[s]), zsize(parts[s], level)) for s in SECTIONS]
        cells.append("%d/%d" % (len(text), zsize(text, level)))
        with open(path, "rb") as f:
            cells.append("%d" % len(f.read()))
        print("%-24s" % name[:24] + "".join("%15s" % c for c in cells))


if __name__ == "__main__":
    main(sys.argv[1:])
