#!/bin/sh
# Runs every test binary, prints each one's output, and sums their
# "N passed, N failed" lines into the final line of `make check`.
build=$1; shift
total_pass=0; total_fail=0; broken=""
for t in "$@"; do
	name=$(basename "$t")
	if [ -n "$TSAN_ONLY" ] && ! grep -qs "HIST_TEST_TSAN" "test/$name.c"; then
		continue
	fi
	out=$("$t" 2>&1); rc=$?
	printf '%s\n' "$out" | grep -v '^ok ' 
	line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
	if [ -z "$line" ]; then
		broken="$broken $name(rc=$rc)"; total_fail=$((total_fail + 1)); continue
	fi
	p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')
	f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
	total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		broken="$broken $name(rc=$rc)"; total_fail=$((total_fail + 1))
	fi
done
[ -n "$broken" ] && echo "broken test programs:$broken"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
