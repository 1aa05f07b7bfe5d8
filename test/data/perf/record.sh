#!/bin/sh
# Records the perf.data files of this directory (run as root on a machine
# with perf and trace-cmd; it writes into the current directory).  The
# tracepoints are filtered on the workload's commands so that the files
# stay small on a busy machine; the rare events are taken whole.
set -e
P="perf record -q -B -N --synth=task"
WL='for i in 1 2 3; do ls /usr >/dev/null; cat /proc/version >/dev/null; done; sleep 0.05'
SW='prev_comm == "ls" || next_comm == "ls" || prev_comm == "cat" || next_comm == "cat"'
WK='comm == "ls" || comm == "cat"'

# file mode, system-wide, several events
$P -a -o sched.perf.data \
	-e sched:sched_switch --filter "$SW" \
	-e sched:sched_wakeup --filter "$WK" \
	-e sched:sched_process_fork -e sched:sched_process_exec \
	-e sched:sched_process_exit -- sh -c "$WL"

# pipe mode (perf record -o -)
$P -a -o - -e raw_syscalls:sys_enter --filter "$WK" \
	-e sched:sched_switch --filter "$SW" -- sh -c "$WL" > syscalls.pipe.perf.data

# callchains (-g): stacktrace keys
$P -a -g -o stack.perf.data -e sched:sched_process_fork \
	-e sched:sched_process_exec -- sh -c 'for i in 1 2 3 4; do /bin/true; ls >/dev/null; done'

# zstd-compressed records (-z), per-task (no -a)
$P -z -o zstd.perf.data -e sched:sched_switch -e sched:sched_wakeup \
	-e raw_syscalls:sys_exit -- sh -c "$WL"

# LOST and LOST_SAMPLES: a one-page buffer against a fast system-call loop
cp /bin/dd ./lostwl
$P --synth=no -m 1 -a -o lost.perf.data -e raw_syscalls:sys_enter --filter 'comm == "lostwl"' -- \
	./lostwl if=/dev/zero of=/dev/null bs=1 count=30000 2>/dev/null
rm -f lostwl

# perf record --threads: a directory (the header file data, the records
# of each recording thread in data.N), one mmap thread per CPU
rm -rf threads.perf.data
$P --threads -a -o threads.perf.data -e raw_syscalls:sys_enter --filter "$WK" \
	-e sched:sched_process_exec -- sh -c "$WL"

# --threads with -z: each thread's data.N has a zstd stream of its own
rm -rf threads-zstd.perf.data
$P --threads -z -a -o threads-zstd.perf.data -e raw_syscalls:sys_enter --filter "$WK" \
	-e sched:sched_process_exec -- sh -c "$WL"

chmod 644 *.perf.data threads.perf.data/* threads-zstd.perf.data/*
