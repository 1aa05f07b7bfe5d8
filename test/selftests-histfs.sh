#!/bin/sh
# SPDX-License-Identifier: MIT
# Run the kernel's own ftrace trigger selftests (GPL test data, kept
# outside the project: ../shared/selftests-ftrace, or $SELFTESTS) with
# their own runner against histfs mounted over /sys/kernel/tracing, in a
# private mount namespace so the machine keeps its tracefs.  The tests
# are run unchanged from a scratch copy (in which their `poll` helper is
# built); nothing of them enters the project.
#
#   sh test/selftests-histfs.sh [BUILD] [TEST-DIR...]
#
# Prints ftracetest's summary; the logs stay in $LOGDIR (default
# /tmp/histfs-ftt-logs).  Needs root, FUSE and tracefs.
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
rm -rf "$LOGDIR"
export LOGDIR
[ $# -gt 0 ] || set -- test.d/trigger/
unshare -m sh -c '
	set -e
	mount --make-rprivate /
	real=$(mktemp -d /tmp/histfs-real.XXXXXX)
	mount -t tracefs nodev "$real"
	mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
	"$1" -f --tracefs "$real" /sys/kernel/tracing 2>"$LOGDIR.histfs-stderr" &
	pid=$!
	for i in 1 2 3 4 5 6 7 8 9 10; do
		grep -q " /sys/kernel/tracing fuse" /proc/mounts && break
		sleep 0.2
	done
	cd "$3"; shift 3
	./ftracetest -l "$LOGDIR" "$@" || true
	cd /
	umount /sys/kernel/tracing
	wait $pid || true
	left=$(ls "$real/instances" | grep "^histfs\." || true)
	[ -z "$left" ] || echo "LEFT BEHIND: $left"
	umount "$real"; rmdir "$real"
' sh "$HISTFS" "$SCRATCH" "$SCRATCH" "$@"
