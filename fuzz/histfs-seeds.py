#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Seeds of the histfs_writes fuzz target from real inputs: every
conformance case's `triggers` file, each line turned into the write histfs
would receive for it (fuzz/fuzz_histfs_writes.c describes the format).
Run from the top folder; writes fuzz/corpus/histfs_writes/seed-conf-*."""
import os

# fuzz_common.h's fz_events, in order
EVENTS = ["sched/sched_switch", "sched/sched_waking", "sched/sched_wakeup",
          "sched/sched_process_fork", "sched/sched_process_exec",
          "sched/sched_process_exit", "kmem/kmalloc", "raw_syscalls/sys_enter",
          "raw_syscalls/sys_exit", "syscalls/sys_enter_openat", "ftrace/print",
          "fuzz/kinds"]

def write_of(line):
    target, _, text = line.partition("\t")
    text = text.encode() + b"\n"
    if target == "synthetic_events":
        return bytes([1, 0]) + text
    if target == "dynamic_events":
        return bytes([2, 0]) + text
    if target.startswith("synthetic/"):
        return bytes([4, 0]) + text
    if target.startswith("/events/synthetic/") and target.endswith("/filter"):
        return bytes([3, 0]) + text
    if target in EVENTS:
        return bytes([0, EVENTS.index(target)]) + text
    return None

cases = "test/conformance/cases"
out = "fuzz/corpus/histfs_writes"
os.makedirs(out, exist_ok=True)
for case in sorted(os.listdir(cases)):
    writes = []
    with open(os.path.join(cases, case, "triggers")) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            w = write_of(line)
            if w:
                writes.append(w)
    if writes:
        with open(os.path.join(out, "seed-conf-" + case), "wb") as f:
            f.write(b"\0".join(writes))
