#!/usr/bin/env python3
"""renumber_sites.py IN.tgt OUT.tgt

Writes a tracegen text trace with every call site renamed s0, s1, ... in the order of the
events' own `site` lines (then any other site in order of appearance), the `after` sites of
`time` and `compute` lines and the site table (`site N NAME`) through the same map. Binaries
built once per process count (samples/apps/npb-like) put the same call at different addresses;
renumbered, traces of one code at several scales name their calls alike when their events
correspond, which shows what `tracegen extrapolate` says beyond the call sites
(bench/extrapolate-npb.sh, tests/e2e/extrapolate_npb.sh).
"""
import re, sys
lines = [l.rstrip("\n") for l in open(sys.argv[1])]
names = {}
def ren(tok):
    if tok == "-" or tok.startswith("@"):
        return tok
    if tok not in names:
        names[tok] = f"s{len(names)}"
    return names[tok]
for s in lines:  # the events' own sites first, in event order
    if re.match(r"^\s+site ", s):
        for t in s.split()[1:]:
            ren(t)
out = []
for s in lines:
    m = re.match(r"^(site \d+ )(\S+)$", s)
    if m:
        s = m.group(1) + ren(m.group(2))
    elif re.match(r"^\s+site ", s):
        ind = s[: len(s) - len(s.lstrip())]
        s = ind + "site " + " ".join(ren(t) for t in s.split()[1:])
    else:
        s = re.sub(r"(\bafter )(\S+)", lambda m: m.group(1) + ren(m.group(2)), s)
    out.append(s)
open(sys.argv[2], "w").write("\n".join(out) + "\n")
