#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Soak test (make soak; not part of make check): hist-live and histfs on
# the live kernel for SOAK_SECONDS (default 600) at a high event rate,
# side by side, each in its own trace instance, while histfs gets a
# trigger added or removed every second.  Then checks, for each tool:
#
#   1. resident memory is flat after warm-up: the RSS sampled every 10 s
#      grows by at most SOAK_RSS_SLACK_KB (default 4096) from the sample
#      at 60 s (half the run, in a run under 2 minutes) to the last one;
#   2. every event is counted or reported lost: the workload makes a known
#      number of read(2) calls (dd bs=1 from /dev/zero, rounds of
#      SOAK_READS), and dd's reads counted by a trigger (`if comm ==
#      "dd"`), plus the events the tool reports lost (hist-live: its
#      '# lost:' line, from the kernel's per-CPU ring-buffer statistics;
#      histfs: the hist file's "# N events lost by the kernel", from the
#      same statistics of its instance), cover them, without counting
#      more than were made (slack: the loader's own reads per dd process);
#   3. no trace instance is left behind (instances/hist-live.PID,
#      instances/histfs.PID*), and both tools exit 0;
#   4. histfs keeps up with the changes: none fails, none takes longer
#      than SOAK_MAX_CHANGE_S (default 5) seconds.
#
# hist-live takes its triggers at start (it has no interface to change
# them), so it prints and keeps counting every SOAK_LIVE_INTERVAL seconds;
# histfs takes writes, so it is the one whose triggers change every second:
# a second histogram (keyed by task, on sys_enter or sys_exit in turn) is
# added, read, and removed, over and over, next to the permanent counting
# trigger.
#
# Needs root and tracefs; histfs also needs FUSE (else it is left out, and
# said so).  The result goes to stdout; bench/README.md keeps the last one.
set -u
B=${BUILD:-build}
SECS=${SOAK_SECONDS:-600}
READS=${SOAK_READS:-200000}
SLACK_KB=${SOAK_RSS_SLACK_KB:-4096}
LIVE_INTERVAL=${SOAK_LIVE_INTERVAL:-60}
# a trigger change (a write, or a read and a write) that takes longer fails
MAX_CHANGE_S=${SOAK_MAX_CHANGE_S:-5}
T=${TRACEFS:-/sys/kernel/tracing}
tool=$B/hist-live
hfs=$B/histfs
[ -x "$tool" ] || { echo "soak: $tool missing (make first)"; exit 2; }
[ "$(id -u)" = 0 ] || { echo "SKIP soak: needs root"; exit 0; }
[ -d "$T/events" ] || mount -t tracefs nodev "$T" 2>/dev/null
[ -d "$T/events/raw_syscalls" ] || { echo "SKIP soak: no tracefs raw_syscalls"; exit 0; }
use_hfs=1
if [ ! -x "$hfs" ] || [ ! -e /dev/fuse ]; then
	echo "soak: histfs left out ($hfs or /dev/fuse missing)"
	use_hfs=0
fi

tmp=$(mktemp -d)
[ -n "${SOAK_KEEP:-}" ] && echo "soak: files in $tmp"
hpid=
cleanup() {
	if [ -n "$hpid" ]; then
		umount "$tmp/mnt" 2>/dev/null
		wait "$hpid" 2>/dev/null
	fi
	[ -n "${SOAK_KEEP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
# the workload: rounds of dd reading /dev/zero a byte at a time until the
# time is up; each round's count is written down so the total is known
cat > "$tmp/work.sh" <<EOF
#!/bin/sh
end=\$((\$(date +%s) + $SECS))
n=0
while [ \$(date +%s) -lt \$end ]; do
	dd if=/dev/zero of=/dev/null bs=1 count=$READS status=none
	n=\$((n + 1))
done
echo \$n > $tmp/rounds
EOF
chmod +x "$tmp/work.sh"

DD_TRIGGER='hist:keys=id.syscall:vals=hitcount:sort=hitcount.descending if comm == "dd"'
# histfs first, with its counting trigger in, so it sees the whole workload
if [ "$use_hfs" = 1 ]; then
	mkdir "$tmp/mnt"
	"$hfs" -f --tracefs "$T" "$tmp/mnt" 2> "$tmp/hfs.err" &
	hpid=$!
	i=0
	while ! grep -q " $tmp/mnt fuse" /proc/mounts && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	M=$tmp/mnt/events/raw_syscalls
	if ! echo "$DD_TRIGGER" >> "$M/sys_enter/trigger"; then
		echo "soak: FAIL histfs did not take the counting trigger"
		sed 's/^/  /' "$tmp/hfs.err" | tail -5
		exit 1
	fi
fi

start=$(date +%s)
"$tool" -q -i "$LIVE_INTERVAL" \
	-t "raw_syscalls/sys_enter $DD_TRIGGER" \
	-t 'raw_syscalls/sys_enter hist:keys=common_pid.execname:vals=hitcount:sort=hitcount.descending:size=16384' \
	-t 'raw_syscalls/sys_exit hist:keys=common_pid.execname:vals=hitcount:size=16384' \
	-- "$tmp/work.sh" > "$tmp/out" 2> "$tmp/err" &
pid=$!
: > "$tmp/rss"
: > "$tmp/hrss"
# fields 14 and 15 of /proc/PID/stat (after the ')' that ends the name)
cpu_ticks() {
	sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $12 + $13 }'
}
# every 10 s: both RSS and CPU
(
	while kill -0 "$pid" 2>/dev/null; do
		now=$(( $(date +%s) - start ))
		# RSS (KiB) and CPU so far (utime + stime, clock ticks)
		r=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
		c=$(cpu_ticks "$pid")
		[ -n "$r" ] && echo "$now $r $c" >> "$tmp/rss"
		if [ -n "$hpid" ]; then
			r=$(awk '/^VmRSS/ { print $2 }' "/proc/$hpid/status" 2>/dev/null)
			c=$(cpu_ticks "$hpid")
			[ -n "$r" ] && echo "$now $r $c" >> "$tmp/hrss"
		fi
		sleep 10
	done
) &
sampler=$!
# every second: histfs gets a trigger added or removed (and its hist read
# before a removal); each change's duration (ms) goes to hfs.ops
VAR='hist:keys=common_pid.execname:vals=hitcount:size=16384'
: > "$tmp/hfs.ops"
if [ "$use_hfs" = 1 ]; then
	(
		tick=0
		while kill -0 "$pid" 2>/dev/null; do
			# sys_enter on even pairs of seconds, sys_exit on odd ones
			ev=sys_enter
			[ $(((tick / 2) % 2)) = 1 ] && ev=sys_exit
			t0=$(date +%s%N)
			if [ $((tick % 2)) = 0 ]; then
				op=add
				echo "$VAR" >> "$M/$ev/trigger" 2>> "$tmp/hfs.writes" || op=add-failed
			else
				op=rm
				cat "$M/$ev/hist" > /dev/null 2>> "$tmp/hfs.writes" || op=read-failed
				echo "!$VAR" >> "$M/$ev/trigger" 2>> "$tmp/hfs.writes" || op=rm-failed
			fi
			echo "$op $(( ($(date +%s%N) - t0) / 1000000 ))" >> "$tmp/hfs.ops"
			tick=$((tick + 1))
			sleep 1
		done
	) &
	changer=$!
fi
wait "$pid"
rc=$?
end=$(date +%s)
kill "$sampler" 2>/dev/null
stuck=0
if [ "$use_hfs" = 1 ]; then
	# a change still waiting 30 s after the end is stuck: say so, and end
	# it (a FUSE request gives way to SIGKILL)
	i=0
	while kill -0 "$changer" 2>/dev/null && [ $i -lt 30 ]; do
		sleep 1
		i=$((i + 1))
	done
	if kill -0 "$changer" 2>/dev/null; then
		stuck=1
		kill -9 "$changer" 2>/dev/null
		echo "stuck $(( ($(date +%s) - start) * 1000 ))" >> "$tmp/hfs.ops"
	fi
	wait "$changer" 2>/dev/null
fi
adds=$(grep -c '^add ' "$tmp/hfs.ops")
rms=$(grep -c '^rm ' "$tmp/hfs.ops")
wfail=$(grep -c 'failed' "$tmp/hfs.ops")
slowest=$(awk 'm < $2 { m = $2 } END { print m + 0 }' "$tmp/hfs.ops")
median=$(sort -n -k2 "$tmp/hfs.ops" | awk '{ v[NR] = $2 } END { print NR ? v[int((NR + 1) / 2)] : 0 }')
dur=$((end - start))

# dd's read(2) calls (sys_read, id 0) in a histogram of DD_TRIGGER on stdin
dd_reads() {
	awk '/^\{ id: sys_read / { for (i = 1; i <= NF; i++) if ($i == "hitcount:") s += $(i + 1) } END { print s + 0 }'
}

hcounted=0
hlost=0
hrc=0
hleft=0
htrig=
if [ "$use_hfs" = 1 ]; then
	cat "$M/sys_enter/hist" > "$tmp/hfs.hist" 2>> "$tmp/hfs.err"
	htrig=$(grep -vc '^#' "$M/sys_enter/trigger" 2>/dev/null)
	# the FUSE connection (its minor), should histfs not see the unmount
	conn=$(mountpoint -d "$tmp/mnt" 2>/dev/null | cut -d: -f2)
	umount "$tmp/mnt" || echo "soak: umount $tmp/mnt failed"
	# a mount namespace made meanwhile (unshare(1), another histfs's
	# test or bench) keeps a copy of the mount, and histfs serves it
	# until that namespace goes: after 30 s, end our connection
	i=0
	while kill -0 "$hpid" 2>/dev/null && [ $i -lt 30 ]; do
		sleep 1
		i=$((i + 1))
	done
	if kill -0 "$hpid" 2>/dev/null && [ -n "$conn" ]; then
		C=/sys/fs/fuse/connections
		[ -e "$C/$conn" ] || mount -t fusectl none "$C" 2>/dev/null
		echo "soak: histfs still serves a copy of the mount in another namespace; aborting its FUSE connection $conn"
		echo 1 > "$C/$conn/abort" 2>/dev/null
	fi
	wait "$hpid"
	hrc=$?
	hleft=$(ls "$T/instances" 2>/dev/null | grep -c "^histfs\.$hpid\(\.\|\$\)")
	hpid=
	hcounted=$(dd_reads < "$tmp/hfs.hist")
	hlost=$(sed -n 's/^# \([0-9]*\) events lost by the kernel.*/\1/p' "$tmp/hfs.hist" | tail -n 1)
	hlost=${hlost:-0}
	# and what histfs skipped to answer in time (read, not counted)
	hskip=$(sed -n 's/^# \([0-9]*\) events skipped by histfs.*/\1/p' "$tmp/hfs.hist" | tail -n 1)
	hlost=$((hlost + ${hskip:-0}))
fi

rounds=$(cat "$tmp/rounds" 2>/dev/null || echo 0)
made=$((rounds * READS))
# the last (final) print: dd's read(2) calls (sys_read, id 0), from the
# trigger filtered on comm == "dd"
# (from the last sys_enter header on: the output of -i is tens of MB)
at=$(grep -n '^# raw_syscalls/sys_enter' "$tmp/out" | tail -n 1 | cut -d: -f1)
final=$(tail -n +"${at:-1}" "$tmp/out")
counted=$(printf '%s' "$final" | dd_reads)
lost=$(grep '^# lost:' "$tmp/err" "$tmp/out" 2>/dev/null | tail -n 1 | sed -n 's/.*total \([0-9]*\) events.*/\1/p')
lost=${lost:-0}
left=$(ls "$T/instances" 2>/dev/null | grep -c "^hist-live\.$pid\$")
# the whole-system trigger's hits (the second Hits: of the section)
events=$(printf '%s' "$final" | awk '/Hits:/ { if (++n == 2) print $2 }')
events=${events:-0}

fail=0
# RSS after warm-up (the first sample at 60 s; in a short run, at half of
# it), last, max
warm=60
[ "$SECS" -lt 120 ] && warm=$((SECS / 2))
rss_line() { # file name
	first=$(awk -v w="$warm" '$1 >= w { print $2; exit }' "$1")
	last=$(tail -n 1 "$1" | awk '{ print $2 }')
	max=$(awk 'm < $2 { m = $2 } END { print m + 0 }' "$1")
	echo "soak: $2 RSS (KiB) after warm-up ${first:-?}, last ${last:-?}, max $max ($(wc -l < "$1") samples)"
	# CPU up to the last sample (the names' tracking and ordered reading
	# are in it: bench/README.md)
	tk=$(tail -n 1 "$1" | awk '{ print $3 + 0 }')
	ts=$(tail -n 1 "$1" | awk '{ print $1 + 0 }')
	hz=$(getconf CLK_TCK)
	echo "soak: $2 CPU $((tk / hz)) s in $ts s ($(( ts > 0 ? tk * 100 / hz / ts : 0 ))% of one CPU)"
	if [ -n "$first" ] && [ -n "$last" ] && [ $((last - first)) -gt "$SLACK_KB" ]; then
		echo "soak: FAIL $2 RSS grew by $((last - first)) KiB after warm-up"
		fail=1
	fi
}
# counted + lost >= made >= counted - slack, for one tool
check_count() { # name counted lost
	if [ $(($2 + $3)) -lt "$made" ]; then
		echo "soak: FAIL $1: $((made - $2 - $3)) reads neither counted nor reported lost"
		fail=1
	fi
	# each dd process makes a few reads of its own (the loader, locale)
	if [ "$2" -gt $((made + rounds * 64)) ]; then
		echo "soak: FAIL $1 counted more reads than dd made"
		fail=1
	fi
}
if [ "$use_hfs" = 1 ]; then
	echo "soak: $dur s, hist-live exit $rc, histfs exit $hrc"
else
	echo "soak: $dur s, hist-live exit $rc"
fi
echo "soak: workload: $rounds rounds x $READS reads = $made read(2) calls by dd"
echo "soak: hist-live: sys_enter events counted (every process): $events ($((events / (dur + 1))) per second)"
echo "soak: hist-live: dd's reads counted $counted, events reported lost $lost"
rss_line "$tmp/rss" hist-live
echo "soak: hist-live: instances left: $left"
[ "$rc" -eq 0 ] || { echo "soak: FAIL hist-live exit $rc"; sed 's/^/  /' "$tmp/err" | tail -5; fail=1; }
[ "$made" -gt 0 ] || { echo "soak: FAIL the workload did not run"; fail=1; }
check_count hist-live "$counted" "$lost"
[ "$left" -eq 0 ] || { echo "soak: FAIL hist-live: $left instance(s) left"; fail=1; }
if [ "$use_hfs" = 1 ]; then
	echo "soak: histfs: triggers added $adds, removed $rms, failed $wfail (one change a second wanted: $((adds + rms)) in $dur s); a change took $median ms (median), $slowest ms at most; at the end $htrig trigger(s) on sys_enter"
	echo "soak: histfs: dd's reads counted $hcounted, events reported lost $hlost"
	rss_line "$tmp/hrss" histfs
	echo "soak: histfs: instances left: $hleft"
	[ "$hrc" -eq 0 ] || { echo "soak: FAIL histfs exit $hrc"; sed 's/^/  /' "$tmp/hfs.err" | tail -5; fail=1; }
	[ "$wfail" -eq 0 ] || { echo "soak: FAIL $wfail trigger writes failed"; sed 's/^/  /' "$tmp/hfs.writes" | tail -5; fail=1; }
	[ "$adds" -gt 0 ] && [ "$rms" -gt 0 ] || { echo "soak: FAIL histfs got no trigger changes"; fail=1; }
	[ "$stuck" = 0 ] || echo "soak: FAIL a histfs trigger change was still waiting at the end (killed)"
	if [ "$slowest" -gt $((MAX_CHANGE_S * 1000)) ]; then
		echo "soak: FAIL a histfs trigger change took $slowest ms (limit ${MAX_CHANGE_S} s)"
		fail=1
	fi
	check_count histfs "$hcounted" "$hlost"
	[ "$hleft" -eq 0 ] || { echo "soak: FAIL histfs: $hleft instance(s) left"; fail=1; }
fi
[ "$fail" -eq 0 ] && echo "soak: PASS"
exit "$fail"
