#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What task names cost hist-live: its own CPU and dd's slowdown per
trigger set, for one or more hist-live binaries, rounds interleaved.

  bench/live_names.py LABEL|BINARY|TRIGGER[|TRIGGER...] ...

Each round runs dd alone (the baseline), then each LABEL: hist-live with
its triggers, started 1 s before a dd of N bytes (bs=1: about 2N system
calls) and stopped with SIGINT 0.3 s after it; hist-live's own CPU from
just before dd to its exit (final drain and print included).  dd is a
copy named hlcost-dd, so a filter on that name counts only it (other
benchmarks run dd, and bench/live.py its own copy, meanwhile).  Each
LABEL's last output is left in /tmp/live_names.LABEL.out.

Environment: N (default 500000), ROUNDS (default 5).  Root, tracefs.
"""
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HZ = os.sysconf("SC_CLK_TCK")
N = int(os.environ.get("N", "500000"))
ROUNDS = int(os.environ.get("ROUNDS", "5"))


def cpu(pid):
    with open("/proc/%d/stat" % pid) as f:
        s = f.read()
    v = s[s.rindex(")") + 2:].split()
    return (int(v[11]) + int(v[12])) / HZ


def run_dd(dd):
    p = subprocess.Popen([dd, "if=/dev/zero", "of=/dev/null", "bs=1", "count=%d" % N],
                         stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    return ru.ru_utime + ru.ru_stime


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    tmp = tempfile.mkdtemp(prefix="live_names.")
    dd = os.path.join(tmp, "hlcost-dd")
    shutil.copy(shutil.which("dd"), dd)
    configs = []
    for arg in sys.argv[1:]:
        label, binary, *trigs = arg.split("|")
        configs.append((label, binary, trigs))
    res = {c[0]: [] for c in configs}
    base = []
    for _ in range(ROUNDS):
        base.append(run_dd(dd))
        for label, binary, trigs in configs:
            cmd = [binary, "-q"]
            for t in trigs:
                cmd += ["-t", t]
            with open("/tmp/live_names.%s.out" % label, "w") as out:
                p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
                time.sleep(1.0)
                c0 = last = cpu(p.pid)
                d = run_dd(dd)
                time.sleep(0.3)
                p.send_signal(signal.SIGINT)
                while p.poll() is None:
                    try:
                        last = cpu(p.pid)
                    except OSError:
                        break
                    time.sleep(0.01)
            res[label].append((d, last - c0))
    b = statistics.median(base)
    print("dd alone: %.3f s of CPU (median of %d rounds), %d bytes" % (b, ROUNDS, N))
    for label, v in res.items():
        d = statistics.median(x[0] for x in v)
        o = statistics.median(x[1] for x in v)
        print("%-14s dd %.3f s (+%.3f), hist-live's own %.3f s" % (label, d, d - b, o))
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
