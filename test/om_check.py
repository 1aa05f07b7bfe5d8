#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check OpenMetrics text with a strict parser (prometheus_client's
OpenMetrics parser: families, suffixes, _count iff _sum, bucket order,
escaping, # EOF), then print "ok N samples" and, with --sum NAME, the sum
of the samples named NAME.  Exit 77 when prometheus_client is missing
(Debian: python3-prometheus-client), 1 on a bad document."""
import sys

try:
    from prometheus_client.openmetrics.parser import text_string_to_metric_families
except ImportError:
    print("SKIP python3-prometheus-client missing")
    sys.exit(77)

path = sys.argv[1]
want = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--sum" else None
text = open(path, encoding="utf-8").read()
n = 0
total = 0
seen = set()
try:
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            key = (s.name, tuple(sorted(s.labels.items())))
            if key in seen:
                raise ValueError("duplicate sample %r" % (key,))
            seen.add(key)
            n += 1
            if s.name == want:
                total += int(s.value)
except Exception as e:  # the parser raises ValueError and friends
    print("bad OpenMetrics in %s: %s" % (path, e))
    sys.exit(1)
print("ok %d samples" % n)
if want:
    print("sum %d" % total)
