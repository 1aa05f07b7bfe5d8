#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Start-up of hist-replay on a small recording, beside the first thing a
# user runs on it, `trace-cmd report | wc -l`; and hist-replay on a large
# recording, against an older build if one is given (OLD_REPLAY).
#
# Rounds are interleaved (A, B, A, B, ...) so that the load of the
# machine hits both alike; each row is the median wall time of its
# rounds, process start included.  The histogram's Hits must equal the
# sched_switch lines of `trace-cmd report`, or the row fails.
#
#   bench/startup.sh [ROUNDS]                  (default 11)
#   HIST_REPLAY=build/hist-replay  OLD_REPLAY=/tmp/old/hist-replay
#   SMALL=test/data/sched.v7-zstd.dat  LARGE=../shared/data/large/large.v7-zstd.dat
set -u
rounds=${1:-11}
new=${HIST_REPLAY:-build/hist-replay}
old=${OLD_REPLAY:-}
small=${SMALL:-test/data/sched.v7-zstd.dat}
large=${LARGE:-../shared/data/large/large.v7-zstd.dat}
trig='sched/sched_switch hist:keys=prev_pid'
ltrig='raw_syscalls/sys_enter hist:keys=common_pid:size=16384'

[ -x "$new" ] || { echo "startup: $new not built (make)"; exit 1; }
command -v trace-cmd >/dev/null || { echo "startup: trace-cmd not installed"; exit 1; }

# "wall cpu" ms of one run of "$@" (stdout to /dev/null); cpu is user +
# system time of every process of the run, the pipeline's included
ms() {
	local TIMEFORMAT='%3R %3U %3S' t
	t=$({ time "$@" >/dev/null 2>&1; } 2>&1)
	echo "$t" | awk '{ printf "%.1f %.1f\n", $1 * 1000, ($2 + $3) * 1000 }'
}

# median of column $1 of the lines on stdin
median() {
	awk -v c="$1" '{ print $c }' | sort -g |
		awk '{ v[NR] = $1 } END { printf "%.1f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

report_wc() { trace-cmd report "$1" 2>/dev/null | wc -l; }

# correctness first
want=$(trace-cmd report "$small" 2>/dev/null | grep -c ' sched_switch: ')
got=$("$new" -t "$trig" "$small" | sed -n 's/^    Hits: //p')
if [ "$want" != "$got" ]; then
	echo "startup: $small: hist-replay Hits $got, trace-cmd report has $want sched_switch: FAIL"
	exit 1
fi

a=(); b=()
for ((i = 0; i < rounds; i++)); do
	a+=("$(ms "$new" -t "$trig" "$small")")
	b+=("$(ms report_wc "$small")")
done
printf '%s (%s report lines), median of %d rounds:\n' "$small" "$(report_wc "$small")" "$rounds"
printf '  %-42s %9s %9s\n' "" "wall ms" "cpu ms"
for side in a b; do
	if [ $side = a ]; then
		name="hist-replay -t '${trig%%:size*}'"; rows=("${a[@]}")
	else
		name="trace-cmd report | wc -l"; rows=("${b[@]}")
	fi
	printf '  %-42s %9s %9s\n' "$name" "$(printf '%s\n' "${rows[@]}" | median 1)" \
		"$(printf '%s\n' "${rows[@]}" | median 2)"
done
awk -v aw="$(printf '%s\n' "${a[@]}" | median 1)" -v bw="$(printf '%s\n' "${b[@]}" | median 1)" \
    -v ac="$(printf '%s\n' "${a[@]}" | median 2)" -v bc="$(printf '%s\n' "${b[@]}" | median 2)" \
    'BEGIN { printf "  %-42s %8.1fx %8.1fx\n", "trace-cmd report / hist-replay", bw / aw, bc / ac }'

if [ -r "$large" ]; then
	c=(); d=()
	for ((i = 0; i < (rounds + 1) / 2; i++)); do
		c+=("$(ms "$new" -t "$ltrig" "$large")")
		[ -n "$old" ] && d+=("$(ms "$old" -t "$ltrig" "$large")")
	done
	printf '%s, median of %d rounds:\n' "$large" "${#c[@]}"
	printf '  %-42s %9s %9s\n' "hist-replay -t '${ltrig%%:size*}'" "wall ms" "cpu ms"
	printf '  %-42s %9s %9s\n' "$new" "$(printf '%s\n' "${c[@]}" | median 1)" \
		"$(printf '%s\n' "${c[@]}" | median 2)"
	[ -n "$old" ] && printf '  %-42s %9s %9s\n' "$old" "$(printf '%s\n' "${d[@]}" | median 1)" \
		"$(printf '%s\n' "${d[@]}" | median 2)"
fi
exit 0
