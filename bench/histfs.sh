#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/histfs.sh BUILD: the time of `cat hist` through histfs for a full
# 2048-entry table (the default size=), next to reading a file of similar
# size through the mount (pass-through: FUSE's own cost) and from tracefs
# directly.  Target (issue 19): under 10 ms a read.  Needs root, FUSE and
# tracefs; runs in a private mount namespace.  Prints one line a case:
#   CASE  bytes  median-ms  min-ms  max-ms  (READS reads)
set -eu
BUILD=${1:-build}
READS=${READS:-50}
HISTFS=$(cd "$BUILD" && pwd)/histfs
[ "$(id -u)" = 0 ] || { echo "SKIP not root"; exit 0; }
[ -x "$HISTFS" ] || { echo "SKIP $HISTFS not built"; exit 0; }
command -v python3 >/dev/null || { echo "SKIP no python3 (the timer)"; exit 0; }
exec unshare -m sh -c '
set -eu
mount --make-rprivate /
real=$(mktemp -d /tmp/histfs-bench-real.XXXXXX)
mnt=$(mktemp -d /tmp/histfs-bench-mnt.XXXXXX)
mount -t tracefs nodev "$real"
"$1" -f --tracefs "$real" "$mnt" 2>/dev/null &
pid=$!
for i in $(seq 50); do grep -q " $mnt fuse" /proc/mounts && break; sleep 0.1; done
T=$mnt/events/sched/sched_process_fork
echo "hist:keys=child_pid:vals=hitcount:size=2048" > $T/trigger
# fill it: every fork is a new child_pid
n=0
while :; do
	for i in $(seq 200); do /bin/true; done
	n=$(grep -o "Entries: [0-9]*" $T/hist | cut -d" " -f2)
	[ "$n" -ge 2048 ] && break
done
python3 - "$2" "$T/hist" "$mnt/available_events" "$real/available_events" <<PY
import os, sys, time
reads = int(sys.argv[1])
def bench(name, path):
    ts, size = [], 0
    for _ in range(reads):
        t0 = time.perf_counter()
        with open(path, "rb") as f:
            size = len(f.read())
        ts.append((time.perf_counter() - t0) * 1000)
    ts.sort()
    print("%-36s %8d B  median %6.2f ms  min %6.2f  max %6.2f  (%d reads)"
          % (name, size, ts[len(ts) // 2], ts[0], ts[-1], reads))
bench("histfs: cat hist (2048 entries)", sys.argv[2])
bench("histfs: cat available_events", sys.argv[3])
bench("tracefs: cat available_events", sys.argv[4])
PY
grep -E "Entries|Hits" $T/hist | tr -s " " | tr "\n" " "; echo
# a busy mount (EBUSY) must not leave histfs serving: set -e would
# have ended the script there, histfs running in the namespace
# (SIGTERM only to a histfs still serving: its handler removes the
# instance; one already leaving does so itself)
umount "$mnt" 2>/dev/null || umount -l "$mnt"
for i in $(seq 50); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
kill $pid 2>/dev/null || true
wait $pid || true
umount "$real"; rmdir "$real" "$mnt"
' sh "$HISTFS" "$READS"
