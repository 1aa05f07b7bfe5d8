#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end: a real Prometheus scrapes hist-replay --listen.

hist-replay replays a real recording (tracefs-free) and serves its tables
on 127.0.0.1; Prometheus (Debian's) runs on 127.0.0.1 with a scrape config
for it, both on free ports, its data in a temporary directory.  Once a
scrape is in, its HTTP API must give: Totals' Hits, the sum of the
hitcount counters and each entry's count as the hist text prints them, and
histogram_quantile() equal to the interpolation Prometheus defines over
the buckets of the hist (and inside the bucket hist_reader_quantile names,
as --quantiles reports it).  Then hostile clients (garbage, a huge header,
a slow half request, a flood of connections) must leave the exporter
serving.  Usage: prom_e2e.py BUILD_DIR.  Exit 0 pass, 1 fail, 77 skip."""
import json, os, re, shutil, socket, subprocess, sys, tempfile, time, urllib.parse, urllib.request

build = sys.argv[1]
prom = shutil.which("prometheus")
if not prom:
    print("SKIP prometheus missing (Debian: prometheus)")
    sys.exit(77)
replay = os.path.join(build, "hist-replay")
trace = "test/data/sched.v7-zstd.dat"
triggers = ["sched/sched_switch hist:keys=prev_pid.log2",
            "sched/sched_switch hist:keys=next_comm:vals=hitcount,prev_prio"]
fails = []


def fail(msg):
    print("FAIL " + msg)
    fails.append(msg)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def get(url, headers=None, timeout=5):
    req = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.read().decode()


tmp = tempfile.mkdtemp(prefix="prom_e2e.")
procs = []
try:
    args = [replay, "--quantiles", "0.5,0.9"]
    for t in triggers:
        args += ["-t", t]
    text = subprocess.run(args + [trace], capture_output=True, text=True, check=True).stdout
    exp = subprocess.Popen(args + ["--listen", "127.0.0.1:0", trace], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    procs.append(exp)
    line = exp.stderr.readline()
    m = re.search(r"on port (\d+)", line)
    if not m:
        raise SystemExit("FAIL exporter did not start: " + line)
    eport = int(m.group(1))
    metrics = get("http://127.0.0.1:%d/metrics" % eport)

    pport = free_port()
    cfg = os.path.join(tmp, "prometheus.yml")
    with open(cfg, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                "scrape_configs:\n  - job_name: hist\n    static_configs:\n"
                "      - targets: ['127.0.0.1:%d']\n" % eport)
    p = subprocess.Popen([prom, "--config.file=" + cfg, "--storage.tsdb.path=" + os.path.join(tmp, "data"),
                          "--web.listen-address=127.0.0.1:%d" % pport],
                         stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "prom.log"), "w"))
    procs.append(p)

    def query(q):
        u = "http://127.0.0.1:%d/api/v1/query?%s" % (pport, urllib.parse.urlencode({"query": q}))
        d = json.loads(get(u))
        if d.get("status") != "success":
            raise RuntimeError(str(d))
        return d["data"]["result"]

    deadline = time.time() + 90
    res = []
    while time.time() < deadline:
        try:
            res = query("hist_sched_sched_switch_hits_total")
            if res:
                break
        except Exception:
            pass
        time.sleep(0.5)
    if not res:
        log = open(os.path.join(tmp, "prom.log")).read()[-2000:]
        raise SystemExit("FAIL no scrape within 90 s; prometheus log:\n" + log)
    up = query('up{job="hist"}')
    if not up or up[0]["value"][1] != "1":
        fail("the scrape is not up: %r" % up)

    # Totals: Hits of the first section
    hits = [int(x) for x in re.findall(r"^    Hits: (\d+)", text, re.M)]
    if int(float(res[0]["value"][1])) != hits[0]:
        fail("hits_total %s != Hits %d" % (res[0]["value"][1], hits[0]))
    # the counters of the second trigger, entry by entry
    counts = dict(re.findall(r"^\{ next_comm: (\S+)\s*\} hitcount:\s+(\d+)", text, re.M))
    got = {r["metric"]["next_comm"]: int(float(r["value"][1]))
           for r in query("hist_sched_sched_switch_hist1_hitcount_total")}
    if got != {k: int(v) for k, v in counts.items()}:
        fail("per-entry hitcounts differ: %d vs %d entries" % (len(got), len(counts)))
    s = query("sum(hist_sched_sched_switch_hist1_prev_prio_total)")
    want = sum(int(x) for x in re.findall(r"prev_prio:\s+(\d+)", text))
    if int(float(s[0]["value"][1])) != want:
        fail("sum of prev_prio %s != %d" % (s[0]["value"][1], want))

    # histogram_quantile against Prometheus's own definition over our buckets
    buckets = []
    for m in re.finditer(r'^hist_sched_sched_switch_prev_pid_log2_bucket\{le="([^"]+)"\} (\d+)', metrics, re.M):
        buckets.append((float("inf") if m.group(1) == "+Inf" else float(m.group(1)), int(m.group(2))))
    summary = dict(re.findall(r'^hist_sched_sched_switch_prev_pid_quantiles\{quantile="([^"]+)"\} (\d+)',
                              metrics, re.M))
    for q in (0.5, 0.9):
        total = buckets[-1][1]
        rank = q * total
        lo_le, below = 0.0, 0
        for le, c in buckets:
            if c >= rank:
                break
            lo_le, below = le, c
        expect = lo_le + (le - lo_le) * (rank - below) / (c - below)
        r = query("histogram_quantile(%g, hist_sched_sched_switch_prev_pid_log2_bucket)" % q)
        v = float(r[0]["value"][1])
        if abs(v - expect) > 1e-6 * max(1.0, expect):
            fail("histogram_quantile(%g) = %g, expected %g" % (q, v, expect))
        hi = float(summary.get("%g" % q, "nan"))
        if not (v <= hi and (hi == 1 or v >= hi / 2)):
            fail("histogram_quantile(%g) = %g outside the hist's bucket (%g, %g]" % (q, v, hi / 2, hi))
        print("ok histogram_quantile(%g) = %g (hist: bucket up to %g)" % (q, v, hi))

    # hostile clients, then the exporter must still answer
    def raw(data, wait=0.5):
        try:
            c = socket.create_connection(("127.0.0.1", eport), timeout=2)
            c.sendall(data)
            time.sleep(wait)
            try:
                c.recv(4096)
            except Exception:
                pass
            c.close()
        except Exception:
            pass
    raw(b"GARBAGE\r\n\r\n")
    raw(b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 200000 + b"\r\n\r\n")
    raw(b"\x00\xff" * 1000 + b"\r\n\r\n")
    raw(b"GET /" + b"%" * 5000 + b" HTTP/1.1\r\n\r\n")
    slow = [socket.create_connection(("127.0.0.1", eport)) for _ in range(3)]
    for c in slow:
        c.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")   # never finished
    flood = []
    for _ in range(40):
        try:
            flood.append(socket.create_connection(("127.0.0.1", eport), timeout=1))
        except Exception:
            break
    for c in flood + slow:
        c.close()
    time.sleep(0.5)
    again = get("http://127.0.0.1:%d/metrics" % eport)
    if again != metrics or exp.poll() is not None:
        fail("the exporter changed or died after hostile clients")
    code = None
    try:
        get("http://127.0.0.1:%d/nothing" % eport)
    except urllib.error.HTTPError as e:
        code = e.code
    if code != 404:
        fail("unknown path gave %r, not 404" % code)
    print("ok %d entries, %d hits checked through Prometheus" % (len(got), hits[0]))
finally:
    for p in procs:
        p.terminate()
    for p in procs:
        try:
            p.wait(timeout=10)
        except Exception:
            p.kill()
    shutil.rmtree(tmp, ignore_errors=True)
sys.exit(1 if fails else 0)
