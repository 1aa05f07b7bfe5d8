#!/bin/sh
# Shrink each target's corpus with afl-cmin: fuzz/corpus/<t> plus, when a
# campaign ran, its queue ($FUZZ_OUT/<t>/default/queue).  Kept files are
# renamed by content hash (id-<sha1>); seed-* and crash-* files stay as
# they are, whatever afl-cmin thinks of them (crash-* are regressions).
set -eu
bin=${FUZZ_BIN:-build-fuzz/fuzz}
out=${FUZZ_OUT:-build-fuzz/out}
work=${FUZZ_WORK:-build-fuzz}
mkdir -p "$work"
for t in "$@"; do
	tmp=$(mktemp -d "$work/cmin.XXXXXX")	# (afl-cmin refuses /tmp)
	mkdir "$tmp/in" "$tmp/min"
	cp fuzz/corpus/"$t"/* "$tmp/in/" 2>/dev/null || true
	if [ -d "$out/$t/default/queue" ]; then
		for f in "$out/$t/default/queue"/id:*; do
			[ -f "$f" ] && cp "$f" "$tmp/in/q-$(sha1sum "$f" | cut -c1-16)"
		done
	fi
	AFL_NO_UI=1 AFL_SKIP_BIN_CHECK=1 afl-cmin -i "$tmp/in" -o "$tmp/min" -m none -t 5000 \
		-- "$bin/fuzz_$t" >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
	for f in fuzz/corpus/"$t"/id-*; do
		[ -f "$f" ] && rm -f "$f"
	done
	for f in "$tmp/min"/*; do
		case $(basename "$f") in
		seed-*|crash-*) ;;
		*) cp "$f" "fuzz/corpus/$t/id-$(sha1sum "$f" | cut -c1-16)" ;;
		esac
	done
	echo "$t: $(ls "$tmp/in" | wc -l) inputs -> $(ls fuzz/corpus/"$t" | wc -l) kept"
	rm -rf "$tmp"
done
