#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hist-live beside bpftrace: the CPU each adds per event.

The same aggregation (system calls of dd counted per comm: the kernel's
raw_syscalls/sys_enter, filtered on comm) on the same workload (dd if=/dev/zero
of=/dev/null bs=1 count=N: about 2N system calls), rounds interleaved (each
round starts with the next tool), every run of dd under a tool right after a
run of dd alone:

  dd alone                 dd's CPU (user + system) is the baseline;
  dd under TOOL            dd's CPU minus that of the run of dd alone just
                           before it is the work the kernel's recording
                           (hist-live) or the BPF program (bpftrace) does in
                           dd's context (paired: a machine whose load drifts
                           moves both); plus the tool's own CPU from just
                           before dd starts to its exit (its final drain and
                           print included, its start-up not);
  per event                (slowdown + own CPU) / events counted.

Medians over the rounds, with the spread (lowest..highest) of ns/event and
the machine's load average (1 minute) at each round: on a shared machine
dd's slowdown moves by more than the difference between the tools, so
compare runs made at the same load, and only medians of many rounds.
"lowest" is (lowest dd CPU under the tool - lowest dd alone + lowest own
CPU) / events: the least disturbed runs, since interference only adds.
Each round also names the trace instances that were recording when it
began (other people's tools: their recording of dd's system calls is CPU
in dd's context that no tool measured here caused).

Counts must agree within the losses hist-live reports.  Then the idle cost:
hist-live's own CPU over IDLE seconds with the trigger on and no dd.
--also LABEL=PATH adds another hist-live binary (an older build, say) to
every round, beside the others.  "own sys" is the part of the tool's own
CPU spent in the kernel (for hist-live: reading the pages).

dd runs as a copy named hlbd-PID (its comm, PID this script's): on a shared
machine other dd processes run meanwhile, which a filter on "dd" would
count too, and so may another run of this bench (two under one name
counted 2,000,249 calls in a round).

Usage (root, tracefs, bpftrace installed: apt-get install -y bpftrace):
  nice bench/live.py [--count N] [--rounds R] [--idle SECONDS] [--hist-live PATH]
                    [--also LABEL=PATH]...
"""
import argparse
import os
import random
import re
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HZ = os.sysconf("SC_CLK_TCK")
DD = None        # the copy of dd (main() makes it)
COMM = "hlbd-%d" % os.getpid()


def proc_cpu(pid):
    """(total, system) CPU of PID's threads so far, in seconds.  The total
    is the scheduler's count in ns (/proc/PID/task/*/schedstat): stat's
    utime and stime are whole clock ticks (10 ms), and reading the start
    from them put up to 10 ms of start-up into the tool's own CPU.  The
    system part is stat's, as exact as the ticks."""
    total = 0
    for t in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, t)) as f:
                total += int(f.read().split()[0])
        except OSError:
            pass        # a thread that just ended: its time is the process's
    with open("/proc/%d/stat" % pid) as f:
        s = f.read()
    fields = s[s.rindex(")") + 2:].split()
    return total / 1e9, int(fields[12]) / HZ


def run_dd(count):
    """dd's CPU in seconds, from its rusage."""
    p = subprocess.Popen([DD, "if=/dev/zero", "of=/dev/null", "bs=1",
                          "count=%d" % count], stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = status
    return ru.ru_utime + ru.ru_stime


def start_tool(argv, ready, stream, tries=2):
    """Start ARGV; return once a line of STREAM ("out"/"err") holds READY.
    A start that shows nothing for 30 s is killed and tried again (a
    bpftrace once sat attached without its "Attaching" line for 13
    minutes, holding up the whole run)."""
    for _ in range(tries):
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        f = p.stdout if stream == "out" else p.stderr
        buf = b""
        deadline = time.time() + 30
        while time.time() < deadline:
            r, _, _ = select.select([f], [], [], max(deadline - time.time(), 0))
            if not r:
                break
            chunk = os.read(f.fileno(), 65536)
            if not chunk:
                break
            buf += chunk
            if ready.encode() in buf:
                return p, [buf.decode(errors="replace")]
        p.kill()
        p.wait()
    sys.exit("bench: %s did not start: %s" % (argv[0], buf.decode(errors="replace")[-2000:]))


def stop_tool(p):
    """SIGINT, then the tool's total CPU (rusage: user, system) and its output."""
    p.send_signal(signal.SIGINT)
    got = {p.stdout: b"", p.stderr: b""}
    open_ = [p.stdout, p.stderr]
    while open_:        # both to their end, without reaping (wait4 below)
        for f in select.select(open_, [], [])[0]:
            chunk = os.read(f.fileno(), 65536)
            if chunk:
                got[f] += chunk
            else:
                open_.remove(f)
    out, err = (got[f].decode(errors="replace") for f in (p.stdout, p.stderr))
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = status
    return (ru.ru_utime, ru.ru_stime), out, err


def under(tool, argv, ready, stream, count):
    """dd's CPU under TOOL, the tool's own CPU meanwhile (total, system part)."""
    p, early = start_tool(argv, ready, stream)
    time.sleep(0.5)                 # let start-up CPU settle
    t0, s0 = proc_cpu(p.pid)
    dd = run_dd(count)
    (u1, s1), out, err = stop_tool(p)
    return dd, (u1 + s1) - t0, s1 - s0, "".join(early) + out, err


def hist_live_count(out):
    hits = re.search(r"\{ common_pid: %s +\[ *\d+\] \} hitcount: +(\d+)" % COMM, out)
    lost = re.search(r"# lost:.* total (\d+) events", out)
    return (int(hits.group(1)) if hits else 0), (int(lost.group(1)) if lost else 0)


def bpftrace_count(out):
    m = re.search(r"@\[%s\]: (\d+)" % COMM, out)
    return int(m.group(1)) if m else 0


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def foreign_tracers():
    """Trace instances that record while no tool of ours runs: other
    people's tools on a shared machine.  Their recording of dd's system
    calls (a histfs or hist-live of someone else's test) is CPU in dd's
    context that neither tool caused."""
    top = "/sys/kernel/tracing"
    names = []
    dirs = [(top, "top")] + [(os.path.join(top, "instances", d), d)
                             for d in sorted(os.listdir(os.path.join(top, "instances")))]
    for path, name in dirs:
        try:
            with open(os.path.join(path, "tracing_on")) as f:
                on = f.read().strip() == "1"
            with open(os.path.join(path, "set_event")) as f:
                events = f.read().split()
        except OSError:
            continue
        if on and events:
            names.append("%s(%s)" % (name, ",".join(events[:3]) +
                                     (",..." if len(events) > 3 else "")))
    return names


def uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=500000)
    ap.add_argument("--rounds", type=int, default=9)
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
    loads = []
    foreign = []
    print("# start: %s" % uptime(), flush=True)
    # each round starts one tool later: none is always first after dd alone
    tools = lives + [("bpftrace", None)]
    for r in range(a.rounds):
        loads.append(loadavg())
        others = foreign_tracers()
        foreign.append(len(others))
        line = "# round %d (load %.2f%s):" % (r + 1, loads[-1],
                                             ", tracing: " + " ".join(others) if others else "")
        for label, path in tools[r % len(tools):] + tools[:r % len(tools)]:
            alone = run_dd(a.count)
            rows["dd alone"].append({"dd": alone})
            if path is None:
                dd, own, sys_, out, err = under(label, bpf, "Attaching", "out", a.count)
                hits, lost = bpftrace_count(out), 0
            else:
                argv = [path] + (["-b", a.buffer_kb] if a.buffer_kb else []) + ["-t", trig]
                dd, own, sys_, out, err = under(label, argv, "running", "err", a.count)
                hits, lost = hist_live_count(out)
            rows[label].append({"dd": dd, "alone": alone, "own": own, "sys": sys_,
                                "events": hits, "lost": lost})
            line += " %s dd %.3f (alone %.3f) + own %.3f s, %d" % (label, dd, alone, own,
                                                                  hits)
            line += " + %d lost;" % lost if path else ";"
        print(line, flush=True)
    print("# end: %s" % uptime(), flush=True)

    base = statistics.median(x["dd"] for x in rows["dd alone"])
    print("\nworkload: dd if=/dev/zero of=/dev/null bs=1 count=%d, %d rounds, medians;"
          " load %.2f..%.2f (median %.2f)"
          % (a.count, a.rounds, min(loads), max(loads), statistics.median(loads)))
    print("rounds that began with another tracer recording: %d of %d"
          % (sum(1 for x in foreign if x), a.rounds))
    print("%-10s %9s %10s %9s %9s %9s %8s %8s %9s %7s" %
          ("tool", "dd CPU s", "slowdown s", "own CPU s", "own sys s", "events", "lost",
           "ns/event", "spread", "lowest"))
    print("%-10s %9.3f %10s %9s %9s %9s %8s %8s %9s %7s" % ("none", base, "-", "-", "-", "-",
                                                           "-", "-", "-", "-"))
    low_alone = min(x["dd"] for x in rows["dd alone"])
    for tool in [label for label, _ in lives] + ["bpftrace"]:
        v = rows[tool]
        dd = statistics.median(x["dd"] for x in v)
        slow = statistics.median(x["dd"] - x["alone"] for x in v)
        own = statistics.median(x["own"] for x in v)
        own_sys = statistics.median(x["sys"] for x in v)
        ev = statistics.median(x["events"] for x in v)
        lost = statistics.median(x["lost"] for x in v)
        per = [((x["dd"] - x["alone"]) + x["own"]) / max(x["events"], 1) * 1e9 for x in v]
        # interference only adds CPU: the lowest runs are the least
        # disturbed ones (dd under the tool, dd alone, the tool's own)
        low = ((min(x["dd"] for x in v) - low_alone) + min(x["own"] for x in v)) \
            / max(ev, 1) * 1e9
        print("%-10s %9.3f %10.3f %9.3f %9.3f %9d %8d %8.0f %4.0f..%-4.0f %7.0f" %
              (tool, dd, slow, own, own_sys, ev, lost, statistics.median(per),
               min(per), max(per), low))
    bt = rows["bpftrace"]
    agree = all(abs((h["events"] + h["lost"]) - b["events"]) <= max(h["lost"], 200)
                or h["events"] == b["events"]
                for label, _ in lives for h, b in zip(rows[label], bt))
    print("counts agree within the reported losses: %s" % ("yes" if agree else "NO"))
    # the same round's runs: which tool added less, round by round
    def added(x):
        return ((x["dd"] - x["alone"]) + x["own"]) / max(x["events"], 1) * 1e9

    rng = random.Random(1)
    for label, _ in lives:
        diff = [added(h) - added(b) for h, b in zip(rows[label], bt)]
        wins = sum(d <= 0 for d in diff)
        print("%s added no more than bpftrace in %d of %d rounds" % (label, wins, a.rounds))
        # dd's own CPU varies by a fifth from run to run, more than the
        # tools differ: the median of the rounds' differences, with a
        # bootstrap interval, says how sure the comparison is
        boot = sorted(statistics.median(rng.choices(diff, k=len(diff)))
                      for _ in range(10000))
        print("%s minus bpftrace, paired by round: median %+.0f ns/event, "
              "90%% interval %+.0f..%+.0f" %
              (label, statistics.median(diff), boot[500], boot[9499]))

    if a.idle > 0:
        p, _ = start_tool([a.hist_live, "-t", trig], "running", "err")
        time.sleep(0.5)
        before = proc_cpu(p.pid)[0]
        time.sleep(a.idle)
        after = proc_cpu(p.pid)[0]
        stop_tool(p)
        print("hist-live idle: %.3f s of CPU in %.0f s (%.3f%% of one CPU)" %
              (after - before, a.idle, (after - before) / a.idle * 100))
    shutil.rmtree(tmp)
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
