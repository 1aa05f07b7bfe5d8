#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Soak test (make soak; not part of make check): hist-live on the live
# kernel for SOAK_SECONDS (default 600) at a high event rate, then checks
#
#   1. resident memory is flat after warm-up: the RSS sampled every 10 s
#      grows by at most SOAK_RSS_SLACK_KB (default 4096) from the sample
#      at 60 s to the last one;
#   2. every event is counted or reported lost: the workload makes a known
#      number of read(2) calls (dd bs=1 from /dev/zero, SOAK_ROUNDS rounds
#      of SOAK_READS), and dd's reads counted by a trigger, plus the
#      events hist-live reports lost (from the kernel's per-CPU ring-buffer
#      statistics, its '# lost:' line), cover them, without counting more
#      than were made (slack: the loader's own reads per dd process);
#   3. no trace instance is left behind (instances/hist-live.*).
#
# Needs root and tracefs; prints SKIP otherwise.  The result goes to
# stdout; bench/README.md keeps the last one.
set -u
B=${BUILD:-build}
SECS=${SOAK_SECONDS:-600}
READS=${SOAK_READS:-200000}
SLACK_KB=${SOAK_RSS_SLACK_KB:-4096}
T=${TRACEFS:-/sys/kernel/tracing}
tool=$B/hist-live
[ -x "$tool" ] || { echo "soak: $tool missing (make first)"; exit 2; }
[ "$(id -u)" = 0 ] || { echo "SKIP soak: needs root"; exit 0; }
[ -d "$T/events" ] || mount -t tracefs nodev "$T" 2>/dev/null
[ -d "$T/events/raw_syscalls" ] || { echo "SKIP soak: no tracefs raw_syscalls"; exit 0; }

tmp=$(mktemp -d)
[ -n "${SOAK_KEEP:-}" ] && echo "soak: files in $tmp"
trap '[ -n "${SOAK_KEEP:-}" ] || rm -rf "$tmp"' EXIT
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

start=$(date +%s)
"$tool" -q -i 60 \
	-t 'raw_syscalls/sys_enter hist:keys=id.syscall:vals=hitcount:sort=hitcount.descending if comm == "dd"' \
	-t 'raw_syscalls/sys_enter hist:keys=common_pid.execname:vals=hitcount:sort=hitcount.descending:size=16384' \
	-t 'raw_syscalls/sys_exit hist:keys=common_pid.execname:vals=hitcount:size=16384' \
	-- "$tmp/work.sh" > "$tmp/out" 2> "$tmp/err" &
pid=$!
: > "$tmp/rss"
while kill -0 "$pid" 2>/dev/null; do
	r=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
	[ -n "$r" ] && echo "$(( $(date +%s) - start )) $r" >> "$tmp/rss"
	sleep 10
done
wait "$pid"
rc=$?
end=$(date +%s)

rounds=$(cat "$tmp/rounds" 2>/dev/null || echo 0)
made=$((rounds * READS))
# the last (final) print: dd's read(2) calls (sys_read, id 0), from the
# trigger filtered on comm == "dd"
final=$(awk '/^# raw_syscalls\/sys_enter/ { buf = "" } { buf = buf $0 "\n" } END { printf "%s", buf }' "$tmp/out")
counted=$(printf '%s' "$final" | awk '/^\{ id: sys_read / { for (i = 1; i <= NF; i++) if ($i == "hitcount:") s += $(i + 1) } END { print s + 0 }')
lost=$(grep '^# lost:' "$tmp/err" "$tmp/out" 2>/dev/null | tail -n 1 | sed -n 's/.*total \([0-9]*\) events.*/\1/p')
lost=${lost:-0}
rss_first=$(awk '$1 >= 60 { print $2; exit }' "$tmp/rss")
rss_last=$(tail -n 1 "$tmp/rss" | awk '{ print $2 }')
rss_max=$(awk 'm < $2 { m = $2 } END { print m }' "$tmp/rss")
left=$(ls "$T/instances" 2>/dev/null | grep -c "^hist-live\.$pid\$")
# the whole-system trigger's hits (the second Hits: of the section)
events=$(printf '%s' "$final" | awk '/Hits:/ { if (++n == 2) print $2 }')
events=${events:-0}

fail=0
echo "soak: hist-live for $((end - start)) s, exit $rc"
echo "soak: workload: $rounds rounds x $READS reads = $made read(2) calls by dd"
echo "soak: sys_enter events counted (every process): $events ($((events / (end - start + 1))) per second)"
echo "soak: dd's reads counted $counted, events reported lost $lost"
echo "soak: RSS (KiB) at 60 s $rss_first, last $rss_last, max $rss_max ($(wc -l < "$tmp/rss") samples)"
echo "soak: instances left: $left"
[ "$rc" -eq 0 ] || { echo "soak: FAIL hist-live exit $rc"; sed 's/^/  /' "$tmp/err" | tail -5; fail=1; }
[ "$made" -gt 0 ] || { echo "soak: FAIL the workload did not run"; fail=1; }
if [ $((counted + lost)) -lt "$made" ]; then
	echo "soak: FAIL $((made - counted - lost)) reads neither counted nor reported lost"
	fail=1
fi
# each dd process makes a few reads of its own (the loader, locale)
if [ "$counted" -gt $((made + rounds * 64)) ]; then
	echo "soak: FAIL counted more reads than dd made"
	fail=1
fi
if [ -n "$rss_first" ] && [ $((rss_last - rss_first)) -gt "$SLACK_KB" ]; then
	echo "soak: FAIL RSS grew by $((rss_last - rss_first)) KiB after warm-up"
	fail=1
fi
[ "$left" -eq 0 ] || { echo "soak: FAIL $left instance(s) left"; fail=1; }
[ "$fail" -eq 0 ] && echo "soak: PASS"
exit "$fail"
