#!/usr/bin/env python3
"""compare_counts.py INSPECT.json COUNTS.json [BYTES_FACTOR]

Compares the per-rank MPI call counts and bytes of a trace (`tracegen inspect --format json`)
with those the PMPI counting library (tests/support/mpi_count.c) measured on a run: exit 0 if
every rank's operation counts and bytes match (bytes times BYTES_FACTOR), else 1 and the first
differences listed.
"""
import json
import sys

want = json.load(open(sys.argv[1]))
got = json.load(open(sys.argv[2]))
factor = int(sys.argv[3]) if len(sys.argv) > 3 else 1
bad = []
if len(got["per_rank"]) != len(want["per_rank"]):
    bad.append(f"{len(got['per_rank'])} ranks counted, {len(want['per_rank'])} in the trace")
for w, g in zip(want["per_rank"], got["per_rank"]):
    r = w["rank"]
    if g["ops"] != w["ops"]:
        for op in sorted(set(w["ops"]) | set(g["ops"])):
            if w["ops"].get(op, 0) != g["ops"].get(op, 0):
                bad.append(f"rank {r} {op}: {g['ops'].get(op, 0)} calls, trace {w['ops'].get(op, 0)}")
    for key in ("bytes_sent", "bytes_received"):
        if g[key] != w[key] * factor:
            bad.append(f"rank {r} {key}: {g[key]}, expected {w[key] * factor}")
for b in bad[:20]:
    print("  " + b)
sys.exit(1 if bad else 0)
