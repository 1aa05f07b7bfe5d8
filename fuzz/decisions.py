#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Decision coverage from gcovr --decisions --json: each conditional
decision (if, while, for, ?:) counts twice (taken true, taken false), each
switch case once; lines gcovr cannot map to a decision are counted apart.
Prints one line: decisions: P% (covered out of total), N uncheckable."""
import json
import sys

data = json.load(open(sys.argv[1]))
total = covered = unchecked = 0
for f in data["files"]:
    for line in f["lines"]:
        d = line.get("gcovr/decision")
        if not d:
            continue
        if d["type"] == "conditional":
            total += 2
            covered += (d["count_true"] > 0) + (d["count_false"] > 0)
        elif d["type"] == "switch":
            total += 1
            covered += d["count"] > 0
        else:
            unchecked += 1
pct = 100.0 * covered / total if total else 100.0
print("decisions: %.1f%% (%d out of %d), %d uncheckable" % (pct, covered, total, unchecked))
