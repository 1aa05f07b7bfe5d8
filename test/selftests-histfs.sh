#!/bin/sh
# SPDX-License-Identifier: MIT
# Run the kernel's own ftrace trigger selftests (GPL test data, kept
# outside the project: ../shared/selftests-ftrace, or $SELFTESTS) with
# their own runner against histfs mounted over /sys/kernel/tracing, in a
# private mount namespace so the machine keeps its tracefs.  The tests
# are run unchanged from a scratch copy (in which their `poll` helper is
# built); nothing of them enters the project.
#
#   sh test/selftests-histfs.sh [BUILD] [TEST-DIR-OR-FILE...]
#
# Prints ftracetest's summary of each pass (see PINNED) and their sum;
# the logs stay in $LOGDIR (default /tmp/histfs-ftt-logs; a pinned
# test's in $LOGDIR.kVERSION).  Needs root, FUSE and tracefs.
set -eu
BUILD=${1:-build}
[ $# -gt 0 ] && shift
SRC=${SELFTESTS:-$(cd "$(dirname "$0")/../.." && pwd)/shared/selftests-ftrace}
LOGDIR=${LOGDIR:-/tmp/histfs-ftt-logs}
HISTFS=$(cd "$BUILD" && pwd)/histfs
[ "$(id -u)" = 0 ] || { echo "SKIP not root"; exit 0; }
[ -c /dev/fuse ] || { echo "SKIP no /dev/fuse"; exit 0; }
[ -x "$HISTFS" ] || { echo "SKIP $HISTFS not built (libfuse3-dev)"; exit 0; }
[ -x "$SRC/ftracetest" ] || { echo "SKIP no selftests at $SRC"; exit 0; }
SCRATCH=$(mktemp -d /tmp/histfs-ftt.XXXXXX)
trap 'rm -rf "$SCRATCH"' EXIT
cp -r "$SRC/." "$SCRATCH/"
${CC:-cc} -o "$SCRATCH/poll" "$SCRATCH/poll.c" 2>/dev/null || true
# The stored runner helpers (test.d/functions, about 2020) are older than
# most of the tests: they cannot check a `PROG:program` requirement (the
# tests asking for ping report UNSUPPORTED whether ping is there or not),
# their README check splits a pattern with blanks into words, so such a
# requirement is never checked (a test runs, and may pass, on a README
# without the feature), and they lack clear_dynamic_events, which the
# eprobe test calls.  Two helpers of ours, written for this script, are
# appended to the scratch copy and replace them; the tests themselves
# are not touched.  Set SELFTESTS_RAW=1 to run the stored helpers as
# they are.
[ -n "${SELFTESTS_RAW:-}" ] || cat >>"$SCRATCH/test.d/functions" <<'SHIM'

# ---- appended by libhist's test/selftests-histfs.sh ----
# Each argument: FILE (must exist), PATTERN:README (a fixed string of
# README), NAME:tracer (in available_tracers), NAME:program (on $PATH).
check_requires() {
	for req in "$@"; do
		case "$req" in
		*:README)
			grep -Fq -- "${req%:README}" README || {
				echo "README has no \"${req%:README}\""
				exit_unsupported
			} ;;
		*:tracer)
			grep -wq -- "${req%:tracer}" available_tracers || {
				echo "no tracer ${req%:tracer}"
				exit_unsupported
			} ;;
		*:program)
			command -v "${req%:program}" >/dev/null || {
				echo "no program ${req%:program}"
				exit_unsupported
			} ;;
		*)
			[ -e "$req" ] || {
				echo "no $req"
				exit_unsupported
			} ;;
		esac
	done
}

# Remove every dynamic event: "-:GROUP/NAME" for each line, a few rounds
# (an event another one is attached to goes only after that one).
clear_dynamic_events() {
	for round in 1 2 3 4 5; do
		grep -q '^[^#]' dynamic_events || return 0
		grep -v '^#' dynamic_events | while read -r def rest; do
			echo "-:${def#*:}" >> dynamic_events 2>/dev/null || true
		done
	done
}
SHIM
# Tests whose expectations are those of an older kernel than the one
# libhist follows, each with that kernel: they run in a second mount of
# histfs with --kernel VERSION (histfs.1 says what that version changes),
# as they would run against that kernel.  A newer kernel fails them as
# it is: trigger-extended-error-support.tc reads a failed command's
# "ERROR:" from the hist file, which 4.17 to 5.1 printed there (5.2
# moved it to error_log and the test left the kernel's tree); the stored
# trigger-synthetic_event_syntax_errors.tc is the version of 5.10 and
# 5.11, whose carets are those of their word-by-word parser (5.12
# rewrote the parser and the test with it).
PINNED="test.d/trigger/inter-event/trigger-extended-error-support.tc=5.1
test.d/trigger/inter-event/trigger-synthetic_event_syntax_errors.tc=5.11"

# One mount of histfs (--kernel $2 unless empty) over /sys/kernel/tracing
# in a private mount namespace, ftracetest on the tests $3...
run_pass() {
	unshare -m sh -c '
	set -e
	mount --make-rprivate /
	real=$(mktemp -d /tmp/histfs-real.XXXXXX)
	mount -t tracefs nodev "$real"
	mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
	log=$1; histfs=$2; kernel=$3; shift 3
	"$histfs" -f ${kernel:+--kernel "$kernel"} --tracefs "$real" \
		/sys/kernel/tracing 2>"$log.histfs-stderr" &
	pid=$!
	for i in 1 2 3 4 5 6 7 8 9 10; do
		grep -q " /sys/kernel/tracing fuse" /proc/mounts && break
		sleep 0.2
	done
	cd "$SCRATCH"
	./ftracetest -l "$log" "$@" || true
	cd /
	umount /sys/kernel/tracing
	wait $pid || true
	left=$(ls "$real/instances" | grep "^histfs\.$pid\(\.\|$\)" || true)
	[ -z "$left" ] || echo "LEFT BEHIND: $left"
	umount "$real"; rmdir "$real"
	' sh "$1" "$HISTFS" "$2" $3
}

rm -rf "$LOGDIR" "$LOGDIR".k*
export SCRATCH
[ $# -gt 0 ] || set -- test.d/trigger/
# the tests of the arguments, in ftracetest's order, the pinned ones aside
all=$(cd "$SCRATCH" && for t in "$@"; do
	if [ -d "$t" ]; then find "$t" -name '*.tc'; else echo "$t"; fi
done | sed 's|//*|/|g' | sort)
main= pinned=
for t in $all; do
	k=
	for p in $PINNED; do [ "${p%=*}" = "$t" ] && k=${p#*=}; done
	if [ -n "$k" ]; then pinned="$pinned $t=$k"; else main="$main $t"; fi
done
OUT=$(mktemp /tmp/histfs-ftt-out.XXXXXX)
trap 'rm -rf "$SCRATCH" "$OUT"' EXIT
[ -z "$main" ] || run_pass "$LOGDIR" "" "$main" | tee -a "$OUT"
for p in $pinned; do
	echo "=== with --kernel ${p#*=}: ${p%=*}"
	run_pass "$LOGDIR.k${p#*=}" "${p#*=}" "${p%=*}" | tee -a "$OUT"
done
if [ -n "$pinned" ]; then
	echo "=== all runs"
	for what in passed failed unresolved untested unsupported xfailed; do
		echo "# of $what: $(sed -n "s/^# of $what: *//p" "$OUT" |
			awk '{ n += $1 } END { print n + 0 }')"
	done
fi
