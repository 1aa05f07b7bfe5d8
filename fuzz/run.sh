#!/bin/sh
# AFL++ campaigns: one per target named on the command line, FUZZ_SECONDS
# each, FUZZ_JOBS at a time, seeded from fuzz/corpus/<t> with
# fuzz/dict/<t>.dict.  Prints one line per target from afl's fuzzer_stats
# and exits non-zero if any campaign found a crash or a hang (the inputs
# are in $FUZZ_OUT/<t>/default/crashes and hangs).
set -u
bin=${FUZZ_BIN:-build-fuzz/fuzz}
out=${FUZZ_OUT:-build-fuzz/out}
secs=${FUZZ_SECONDS:-60}
jobs=${FUZZ_JOBS:-2}
command -v afl-fuzz >/dev/null || { echo "afl-fuzz not found (apt-get install afl++)"; exit 1; }
mkdir -p "$out"

run_one() {
	t=$1
	rm -rf "$out/$t"
	AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
	AFL_NO_AFFINITY=1 AFL_SKIP_CRASHES=1 \
		afl-fuzz -i "fuzz/corpus/$t" -o "$out/$t" -x "fuzz/dict/$t.dict" \
		-m none -t 2000 -V "$secs" -- "$bin/fuzz_$t" >"$out/$t.log" 2>&1
}

running=0
for t in "$@"; do
	echo "fuzz: $t for ${secs}s (log $out/$t.log)"
	run_one "$t" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait

bad=0
printf '%-10s %12s %8s %7s %7s %7s %8s\n' target execs "execs/s" paths crashes hangs seconds
for t in "$@"; do
	s="$out/$t/default/fuzzer_stats"
	if [ ! -f "$s" ]; then
		echo "$t: no fuzzer_stats (see $out/$t.log)"; bad=1; continue
	fi
	g() { sed -n "s/^$1 *: *//p" "$s"; }
	# execs/s: the average over the run (fuzzer_stats' own is the last rate)
	printf '%-10s %12s %8s %7s %7s %7s %8s\n' "$t" "$(g execs_done)" \
		"$(( $(g execs_done) / ($(g run_time) + 1) ))" "$(g corpus_count)" \
		"$(g saved_crashes)" "$(g saved_hangs)" "$(g run_time)"
	[ "$(g saved_crashes)" = 0 ] && [ "$(g saved_hangs)" = 0 ] || bad=1
done
exit $bad
