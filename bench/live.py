#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hist-live beside bpftrace: the CPU each adds per event.

The same aggregation (system calls of dd counted per comm: the kernel's
raw_syscalls/sys_enter, filtered on comm) on the same workload (dd if=/dev/zero
of=/dev/null bs=1 count=N: about 2N system calls), rounds interleaved (each
round starts with the next tool):

  dd alone                 dd's CPU (user + system) is the baseline;
  dd under TOOL            dd's CPU minus the baseline is the work the kernel's
                           recording (hist-live) or the BPF program (bpftrace)
                           does in dd's context; plus the tool's own CPU from
                           just before dd starts to its exit (its final drain
                           and print included, its start-up not);
  per event                (slowdown + own CPU) / events counted.

Counts must agree within the losses hist-live reports.  Then the idle cost:
hist-live's own CPU over IDLE seconds with the trigger on and no dd.
--also LABEL=PATH adds another hist-live binary (an older build, say) to
every round, beside the others.  "own sys" is the part of the tool's own
CPU spent in the kernel (for hist-live: reading the pages).

dd runs as a copy named hlbench-dd (its comm): on a shared machine other
dd processes run meanwhile, and a filter on "dd" would count them too.

Usage (root, tracefs, bpftrace installed: apt-get install -y bpftrace):
  nice bench/live.py [--count N] [--rounds R] [--idle SECONDS] [--hist-live PATH]
                    [--also LABEL=PATH]...
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
    """(utime, stime) of PID in seconds (/proc/PID/stat)."""
    with open("/proc/%d/stat" % pid) as f:
        s = f.read()
    fields = s[s.rindex(")") + 2:].split()
    return int(fields[11]) / HZ, int(fields[12]) / HZ


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
    """SIGINT, then the tool's total CPU (rusage: user, system) and its output."""
    p.send_signal(signal.SIGINT)
    out = p.stdout.read()
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = status
    return (ru.ru_utime, ru.ru_stime), out, err


def under(tool, argv, ready, stream, count):
    """dd's CPU under TOOL, the tool's own CPU meanwhile (total, system part)."""
    p, early = start_tool(argv, ready, stream)
    time.sleep(0.5)                 # let start-up CPU settle
    u0, s0 = proc_cpu(p.pid)
    dd = run_dd(count)
    (u1, s1), out, err = stop_tool(p)
    return dd, (u1 - u0) + (s1 - s0), s1 - s0, "".join(early) + out, err


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
    ap.add_argument("--also", action="append", default=[], metavar="LABEL=PATH",
                    help="another hist-live binary in every round")
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
    trig = 'raw_syscalls/sys_enter hist:keys=common_pid.execname if comm == "%s"' % COMM
    lives = [("hist-live", a.hist_live)]
    for x in a.also:
        label, _, path = x.partition("=")
        if not path:
            sys.exit("bench: --also wants LABEL=PATH, not %r" % x)
        lives.append((label, path))
    bpf = [bpftrace, "-e",
           'tracepoint:raw_syscalls:sys_enter /comm == "%s"/ { @[comm] = count(); }' % COMM]

    rows = {"dd alone": [], "bpftrace": []}
    for label, _ in lives:
        rows[label] = []
    # each round starts one tool later: none is always first after dd alone
    tools = lives + [("bpftrace", None)]
    for r in range(a.rounds):
        rows["dd alone"].append({"dd": run_dd(a.count)})
        line = "# round %d: dd %.3f s" % (r + 1, rows["dd alone"][-1]["dd"])
        for label, path in tools[r % len(tools):] + tools[:r % len(tools)]:
            if path is None:
                dd, own, sys_, out, err = under(label, bpf, "Attaching", "out", a.count)
                hits, lost = bpftrace_count(out), 0
            else:
                argv = [path] + (["-b", a.buffer_kb] if a.buffer_kb else []) + ["-t", trig]
                dd, own, sys_, out, err = under(label, argv, "running", "err", a.count)
                hits, lost = hist_live_count(out)
            rows[label].append({"dd": dd, "own": own, "sys": sys_, "events": hits,
                                "lost": lost})
            line += "; %s dd %.3f + own %.3f s, %d" % (label, dd, own, hits)
            line += " + %d lost" % lost if path else ""
        print(line, flush=True)

    base = statistics.median(x["dd"] for x in rows["dd alone"])
    print("\nworkload: dd if=/dev/zero of=/dev/null bs=1 count=%d, %d rounds, medians"
          % (a.count, a.rounds))
    print("%-10s %10s %10s %10s %10s %12s %10s %12s" %
          ("tool", "dd CPU s", "slowdown s", "own CPU s", "own sys s", "events", "lost",
           "ns/event"))
    print("%-10s %10.3f %10s %10s %10s %12s %10s %12s" % ("none", base, "-", "-", "-", "-",
                                                          "-", "-"))
    for tool in [label for label, _ in lives] + ["bpftrace"]:
        v = rows[tool]
        dd = statistics.median(x["dd"] for x in v)
        own = statistics.median(x["own"] for x in v)
        own_sys = statistics.median(x["sys"] for x in v)
        ev = statistics.median(x["events"] for x in v)
        lost = statistics.median(x["lost"] for x in v)
        per = [((x["dd"] - base) + x["own"]) / max(x["events"], 1) * 1e9 for x in v]
        print("%-10s %10.3f %10.3f %10.3f %10.3f %12d %10d %12.0f" %
              (tool, dd, dd - base, own, own_sys, ev, lost, statistics.median(per)))
    bt = rows["bpftrace"]
    agree = all(abs((h["events"] + h["lost"]) - b["events"]) <= max(h["lost"], 200)
                or h["events"] == b["events"]
                for label, _ in lives for h, b in zip(rows[label], bt))
    print("counts agree within the reported losses: %s" % ("yes" if agree else "NO"))

    if a.idle > 0:
        p, _ = start_tool([a.hist_live, "-t", trig], "running", "err")
        time.sleep(0.5)
        before = sum(proc_cpu(p.pid))
        time.sleep(a.idle)
        after = sum(proc_cpu(p.pid))
        stop_tool(p)
        print("hist-live idle: %.3f s of CPU in %.0f s (%.3f%% of one CPU)" %
              (after - before, a.idle, (after - before) / a.idle * 100))
    shutil.rmtree(tmp)
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
