#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hist-live beside bpftrace: the CPU each adds per event.

The same aggregation (system calls of dd counted per comm: the kernel's
raw_syscalls/sys_enter, filtered on comm) on the same workload (dd if=/dev/zero
of=/dev/null bs=1 count=N: about 2N system calls), rounds interleaved:

  dd alone                 dd's CPU (user + system) is the baseline;
  dd under TOOL            dd's CPU minus the baseline is the work the kernel's
                           recording (hist-live) or the BPF program (bpftrace)
                           does in dd's context; plus the tool's own CPU from
                           just before dd starts to its exit (its final drain
                           and print included, its start-up not);
  per event                (slowdown + own CPU) / events counted.

Counts must agree within the losses hist-live reports.  Then the idle cost:
hist-live's own CPU over IDLE seconds with the trigger on and no dd.

dd runs as a copy named hlbench-dd (its comm): on a shared machine other
dd processes run meanwhile, and a filter on "dd" would count them too.

Usage (root, tracefs, bpftrace installed: apt-get install -y bpftrace):
  nice bench/live.py [--count N] [--rounds R] [--idle SECONDS] [--hist-live PATH]
"""
import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HZ = os.sysconf("SC_CLK_TCK")
DD = None        # the copy of dd (main() makes it)
COMM = "hlbench-dd"


def proc_cpu(pid):
    """utime + stime of PID in seconds (/proc/PID/stat)."""
    with open("/proc/%d/stat" % pid) as f:
        s = f.read()
    fields = s[s.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / HZ


def run_dd(count):
    """dd's CPU in seconds, from its rusage."""
    p = subprocess.Popen([DD, "if=/dev/zero", "of=/dev/null", "bs=1",
                          "count=%d" % count], stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = status
    return ru.ru_utime + ru.ru_stime


def start_tool(argv, ready, stream):
    """Start ARGV; return once a line of STREAM ("out"/"err") holds READY."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    f = p.stdout if stream == "out" else p.stderr
    lines = []
    deadline = time.time() + 60
    while time.time() < deadline:
        line = f.readline()
        if not line:
            break
        lines.append(line)
        if ready in line:
            return p, lines
    p.kill()
    p.wait()
    sys.exit("bench: %s did not start: %s" % (argv[0], "".join(lines)[-2000:]))


def stop_tool(p):
    """SIGINT, then the tool's total CPU (rusage) and its output."""
    p.send_signal(signal.SIGINT)
    out = p.stdout.read()
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = status
    return ru.ru_utime + ru.ru_stime, out, err


def under(tool, argv, ready, stream, count):
    p, early = start_tool(argv, ready, stream)
    time.sleep(0.5)                 # let start-up CPU settle
    before = proc_cpu(p.pid)
    dd = run_dd(count)
    total, out, err = stop_tool(p)
    return dd, total - before, "".join(early) + out, err


def hist_live_count(out):
    hits = re.search(r"\{ common_pid: %s +\[ *\d+\] \} hitcount: +(\d+)" % COMM, out)
    lost = re.search(r"# lost:.* total (\d+) events", out)
    return (int(hits.group(1)) if hits else 0), (int(lost.group(1)) if lost else 0)


def bpftrace_count(out):
    m = re.search(r"@\[%s\]: (\d+)" % COMM, out)
    return int(m.group(1)) if m else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=500000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--idle", type=float, default=10)
    ap.add_argument("--hist-live", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "build", "hist-live"))
    ap.add_argument("--buffer-kb", default=None,
                    help="hist-live -b (default: its own default)")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench: needs root (tracefs, BPF)")
    bpftrace = shutil.which("bpftrace")
    if not bpftrace:
        sys.exit("bench: bpftrace is not installed (apt-get install -y bpftrace)")
    global DD
    tmp = tempfile.mkdtemp(prefix="hlbench.")
    DD = os.path.join(tmp, COMM)
    shutil.copy(shutil.which("dd"), DD)
    live = [a.hist_live, "-t",
            'raw_syscalls/sys_enter hist:keys=common_pid.execname if comm == "%s"' % COMM]
    if a.buffer_kb:
        live[1:1] = ["-b", a.buffer_kb]
    bpf = [bpftrace, "-e",
           'tracepoint:raw_syscalls:sys_enter /comm == "%s"/ { @[comm] = count(); }' % COMM]

    rows = {"dd alone": [], "hist-live": [], "bpftrace": []}
    for r in range(a.rounds):
        rows["dd alone"].append({"dd": run_dd(a.count)})
        dd, own, out, err = under("hist-live", live, "running", "err", a.count)
        hits, lost = hist_live_count(out)
        rows["hist-live"].append({"dd": dd, "own": own, "events": hits, "lost": lost})
        dd, own, out, err = under("bpftrace", bpf, "Attaching", "out", a.count)
        rows["bpftrace"].append({"dd": dd, "own": own, "events": bpftrace_count(out),
                                 "lost": 0})
        print("# round %d: dd %.3f s; hist-live dd %.3f + own %.3f s, %d hits + %d lost;"
              " bpftrace dd %.3f + own %.3f s, %d" %
              (r + 1, rows["dd alone"][-1]["dd"], rows["hist-live"][-1]["dd"],
               rows["hist-live"][-1]["own"], hits, lost, rows["bpftrace"][-1]["dd"],
               rows["bpftrace"][-1]["own"], rows["bpftrace"][-1]["events"]),
              flush=True)

    base = statistics.median(x["dd"] for x in rows["dd alone"])
    print("\nworkload: dd if=/dev/zero of=/dev/null bs=1 count=%d, %d rounds, medians"
          % (a.count, a.rounds))
    print("%-10s %10s %10s %10s %12s %10s %12s" %
          ("tool", "dd CPU s", "slowdown s", "own CPU s", "events", "lost", "ns/event"))
    print("%-10s %10.3f %10s %10s %12s %10s %12s" % ("none", base, "-", "-", "-", "-", "-"))
    for tool in ("hist-live", "bpftrace"):
        v = rows[tool]
        dd = statistics.median(x["dd"] for x in v)
        own = statistics.median(x["own"] for x in v)
        ev = statistics.median(x["events"] for x in v)
        lost = statistics.median(x["lost"] for x in v)
        per = [((x["dd"] - base) + x["own"]) / max(x["events"], 1) * 1e9 for x in v]
        print("%-10s %10.3f %10.3f %10.3f %12d %10d %12.0f" %
              (tool, dd, dd - base, own, ev, lost, statistics.median(per)))
    hl = rows["hist-live"]
    bt = rows["bpftrace"]
    agree = all(abs((h["events"] + h["lost"]) - b["events"]) <= max(h["lost"], 200)
                or h["events"] == b["events"] for h, b in zip(hl, bt))
    print("counts agree within the reported losses: %s" % ("yes" if agree else "NO"))

    if a.idle > 0:
        p, _ = start_tool(live, "running", "err")
        time.sleep(0.5)
        before = proc_cpu(p.pid)
        time.sleep(a.idle)
        after = proc_cpu(p.pid)
        stop_tool(p)
        print("hist-live idle: %.3f s of CPU in %.0f s (%.3f%% of one CPU)" %
              (after - before, a.idle, (after - before) / a.idle * 100))
    shutil.rmtree(tmp)
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
