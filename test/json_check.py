#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Parse a libhist JSON document with Python's json module and check it
against the schema documented in README.md ("JSON").  Used by
test/test_iter.c; exits 0 when the file is valid, 1 with the reasons.

  json_check.py [--replay | --live | --malloc | --merge] [--expect-comm-hex HEX]
                [--same-hists OTHER.json]
                [--expect-entries N,N..] [--expect-hits N] [--expect-kind KIND]
                [--expect-event SYSTEM/EVENT]... FILE
"""
import argparse
import json
import sys

KINDS = {"number", "hex", "sym", "execname", "syscall", "log2", "buckets",
         "string", "stacktrace"}
errors = []


def fail(where, msg):
    errors.append("%s: %s" % (where, msg))


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def check_keys(where, obj, allowed, required):
    if not isinstance(obj, dict):
        fail(where, "not an object")
        return False
    for k in required:
        if k not in obj:
            fail(where, "missing %r" % k)
    for k in obj:
        if k not in allowed:
            fail(where, "unknown member %r" % k)
    return True


def check_key(where, k, field):
    if not check_keys(where, k, {"name", "value", "text", "frames"}, ["name"]):
        return
    if field and k["name"] != field["name"]:
        fail(where, "name %r, column %r" % (k["name"], field["name"]))
    if field and field["kind"] == "stacktrace":
        frames = k.get("frames")
        if not isinstance(frames, list):
            fail(where, "a stack without frames")
            return
        for i, f in enumerate(frames):
            w = "%s.frames[%d]" % (where, i)
            if check_keys(w, f, {"addr", "text"}, ["addr", "text"]):
                if not is_int(f["addr"]) or not isinstance(f["text"], str):
                    fail(w, "bad frame")
        return
    if "value" not in k or "text" not in k or not isinstance(k["text"], str):
        fail(where, "value and text are required")
        return
    want_str = field and field["kind"] == "string"
    if want_str and not isinstance(k["value"], str):
        fail(where, "a string key's value is not a string")
    if field and not want_str and not is_int(k["value"]):
        fail(where, "a numeric key's value is not an integer")


def check_var(where, v):
    if check_keys(where, v, {"name", "value"}, ["name", "value"]):
        if not isinstance(v["name"], str):
            fail(where, "name")
        if not (v["value"] is None or is_int(v["value"])
                or isinstance(v["value"], str)):
            fail(where, "value is not a number, string or null")


def check_hist(where, h):
    check_keys(where, h, {"trigger", "paused", "name", "key_fields", "entries",
                          "snapshot", "totals"},
               ["trigger", "paused", "key_fields", "entries", "totals"])
    if not isinstance(h.get("trigger"), str) or \
            not h["trigger"].startswith("hist:"):
        fail(where, "trigger")
    if not isinstance(h.get("paused"), bool):
        fail(where, "paused is not a boolean")
    fields = h.get("key_fields", [])
    for i, f in enumerate(fields):
        w = "%s.key_fields[%d]" % (where, i)
        if check_keys(w, f, {"name", "kind", "width", "signed"}, ["name", "kind"]):
            if f["kind"] not in KINDS:
                fail(w, "kind %r" % f["kind"])
            if (f["kind"] == "buckets") != ("width" in f):
                fail(w, "width goes with buckets")
            if "signed" in f and (f["signed"] is not True or
                                  f["kind"] in ("string", "stacktrace")):
                fail(w, "signed is true, and only for a numeric key")
    entries = h.get("entries", [])
    for i, e in enumerate(entries):
        w = "%s.entries[%d]" % (where, i)
        if not check_keys(w, e, {"keys", "values", "vars", "tracks"},
                          ["keys", "values"]):
            continue
        if len(e["keys"]) != len(fields):
            fail(w, "%d keys, %d columns" % (len(e["keys"]), len(fields)))
        for j, k in enumerate(e["keys"]):
            check_key("%s.keys[%d]" % (w, j), k,
                      fields[j] if j < len(fields) else None)
        for j, v in enumerate(e["values"]):
            wv = "%s.values[%d]" % (w, j)
            if check_keys(wv, v, {"name", "value", "percent", "graph"},
                          ["name", "value"]):
                if not is_int(v["value"]) or v["value"] < 0:
                    fail(wv, "value is not a u64")
                if "percent" in v and not (v["percent"] is None or
                                           isinstance(v["percent"], float)):
                    fail(wv, "percent")
                if "graph" in v and not isinstance(v["graph"], str):
                    fail(wv, "graph")
        for j, v in enumerate(e.get("vars", [])):
            check_var("%s.vars[%d]" % (w, j), v)
        for j, t in enumerate(e.get("tracks", [])):
            wt = "%s.tracks[%d]" % (w, j)
            if check_keys(wt, t, {"handler", "var", "value", "saved"},
                          ["handler", "var", "value", "saved"]):
                if t["handler"] not in ("onmax", "onchange"):
                    fail(wt, "handler")
                if not t["var"].startswith("$") or not is_int(t["value"]):
                    fail(wt, "var or value")
                for k, s in enumerate(t["saved"]):
                    check_var("%s.saved[%d]" % (wt, k), s)
    if "snapshot" in h:
        s = h["snapshot"]
        if check_keys(where + ".snapshot", s, {"handler", "var", "value", "keys"},
                      ["handler", "var", "value", "keys"]):
            for j, k in enumerate(s["keys"]):
                check_key("%s.snapshot.keys[%d]" % (where, j), k,
                          fields[j] if j < len(fields) else None)
    t = h.get("totals")
    if check_keys(where + ".totals", t, {"hits", "entries", "dropped"},
                  ["hits", "entries", "dropped"]):
        if not all(is_int(t[k]) for k in ("hits", "entries", "dropped")):
            fail(where + ".totals", "not integers")
        elif t["entries"] != len(entries):
            fail(where + ".totals", "entries %d, listed %d" %
                 (t["entries"], len(entries)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--replay", action="store_true")
    ap.add_argument("--live", action="store_true")
    ap.add_argument("--malloc", action="store_true")
    ap.add_argument("--merge", action="store_true")
    ap.add_argument("--same-hists", metavar="OTHER",
                    help="the histograms must equal OTHER's, event by event")
    ap.add_argument("--expect-event", action="append", default=[])
    ap.add_argument("--expect-comm-hex")
    ap.add_argument("--expect-entries")
    ap.add_argument("--expect-hits", type=int)
    ap.add_argument("--expect-kind")
    ap.add_argument("file")
    a = ap.parse_args()
    with open(a.file, "rb") as f:
        raw = f.read()
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        print("# %s: not valid JSON: %s" % (a.file, e))
        return 1
    top = {"events"}
    optional = set()
    if a.replay:
        top = {"libhist", "trace", "instance", "records", "events", "error_log",
               "lost", "damage"}
    elif a.live:
        top = {"libhist", "elapsed", "final", "records", "lost", "events"}
        optional = {"interval"}
    elif a.malloc:
        top = {"libhist", "program", "events"}
    elif a.merge:
        top = {"libhist", "events"}
    check_keys("document", doc, top | optional, sorted(top))
    # hist-live's per-CPU losses also say where they come from
    cpu_keys = {"cpu", "events", "unknown"}
    if a.live:
        cpu_keys |= {"overrun", "commit_overrun", "dropped"}
    if (a.replay or a.live) and \
            check_keys("lost", doc.get("lost"), {"total", "unknown", "cpus"},
                       ["total", "unknown", "cpus"]):
        for i, c in enumerate(doc["lost"]["cpus"]):
            check_keys("lost.cpus[%d]" % i, c, cpu_keys,
                       ["cpu", "events", "unknown"])
        if sum(c["events"] for c in doc["lost"]["cpus"]) != doc["lost"]["total"]:
            fail("lost", "per-CPU events do not add up to the total")
    hists = []
    for i, ev in enumerate(doc.get("events", [])):
        w = "events[%d]" % i
        if check_keys(w, ev, {"system", "event", "histograms"},
                      ["system", "event", "histograms"]):
            for j, h in enumerate(ev["histograms"]):
                check_hist("%s.histograms[%d]" % (w, j), h)
                hists.append(h)
    for want in a.expect_event:
        ok = any("%s/%s" % (ev.get("system"), ev.get("event")) == want and
                 any(h["totals"]["hits"] > 0 for h in ev.get("histograms", []))
                 for ev in doc.get("events", []))
        if not ok:
            fail("document", "no hits for %s" % want)
    if a.expect_entries:
        want = [int(x) for x in a.expect_entries.split(",")]
        got = [len(h.get("entries", [])) for h in hists]
        if want != got:
            fail("document", "entries per histogram %r, expected %r" % (got, want))
    if a.expect_hits is not None and \
            not any(h["totals"]["hits"] == a.expect_hits for h in hists):
        fail("document", "no histogram with %d hits" % a.expect_hits)
    if a.same_hists:
        with open(a.same_hists, "rb") as f:
            other = json.loads(f.read().decode("utf-8"))
        theirs = {(e["system"], e["event"]): e["histograms"]
                  for e in other.get("events", [])}
        for ev in doc.get("events", []):
            w = "%s/%s" % (ev.get("system"), ev.get("event"))
            hs = theirs.get((ev.get("system"), ev.get("event")))
            if hs is None or len(hs) != len(ev.get("histograms", [])):
                fail(w, "not the histograms of %s" % a.same_hists)
                continue
            for j, (x, y) in enumerate(zip(ev["histograms"], hs)):
                for k in sorted(set(x) | set(y)):
                    if x.get(k) == y.get(k):
                        continue
                    if k != "entries" or len(x[k]) != len(y.get(k, [])):
                        fail("%s[%d]" % (w, j), "%s differs from %s" %
                             (k, a.same_hists))
                        continue
                    for i, (p, q) in enumerate(zip(x[k], y[k])):
                        if p != q:
                            fail("%s[%d].entries[%d]" % (w, j, i),
                                 "%s\n  %s has %s" % (json.dumps(p),
                                                       a.same_hists, json.dumps(q)))
                            break
    if a.expect_kind and not any(f["kind"] == a.expect_kind for h in hists
                                 for f in h.get("key_fields", [])):
        fail("document", "no key of kind %r" % a.expect_kind)
    if a.expect_comm_hex:
        want = bytes.fromhex(a.expect_comm_hex).decode("utf-8")
        found = any(k.get("value") == want for h in hists
                    for e in h["entries"] for k in e["keys"])
        if not found:
            fail("document", "no key with the value %r" % want)
    for e in errors:
        print("# " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
