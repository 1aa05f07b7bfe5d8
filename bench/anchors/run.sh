#!/bin/sh
# The reference harness (../shared/bench-anchors) with libhist as a sixth
# contender: copies the harness to a temporary directory, adds
# adapt_libhist.c (this directory) as its stub describes, links
# build/libhist.a and runs the harness's own run.sh there.  The harness's
# settings pass through: EVENTS, ROUNDS, VG_EVENTS, VG_WORKLOADS; and
# LIBHIST_SUMS=per-cpu or shared sets libhist's hist_ctx_opts.sums.
#   bench/anchors/run.sh                       # 20M events, 5 rounds
#   EVENTS=10000000 ROUNDS=3 VG_EVENTS=1000000 bench/anchors/run.sh
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
src=${ANCHORS:-$root/../shared/bench-anchors}
[ -f "$src/bench.c" ] || { echo "anchors: no harness at $src (set ANCHORS=)" >&2; exit 1; }
make -C "$root" -s build/libhist.a
work=$(mktemp -d /tmp/anchors.XXXXXX)
trap 'rm -rf "$work"' EXIT
cp -R "$src"/. "$work"/
cp "$root/bench/anchors/adapt_libhist.c" "$work"/
cd "$work"
sed -i 's/^SRCS *= \(.*\)$/SRCS    = \1 adapt_libhist.c/' Makefile
sed -i "s|^LIBS *= \(.*\)$|LIBS    = $root/build/libhist.a \1|" Makefile
sed -i "s|^CFLAGS *?= \(.*\)$|CFLAGS  ?= \1 -I$root/include|" Makefile
sed -i 's/contender_mutex, contender_percpu;/contender_mutex, contender_percpu, contender_libhist;/' bench.c
sed -i 's/&contender_mutex, &contender_percpu,$/\&contender_mutex, \&contender_percpu, \&contender_libhist,/' bench.c
sed -i 's/^CONTENDERS="\(.*\)"$/CONTENDERS="\1 libhist"/' run.sh
grep -q adapt_libhist.c Makefile && grep -q '&contender_libhist' bench.c &&
	grep -q 'libhist"' run.sh || { echo "anchors: the harness changed; patch failed" >&2; exit 1; }
./run.sh
