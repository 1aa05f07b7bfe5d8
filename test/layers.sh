#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The one-way order of src/'s modules, checked.  README.md's
# "Architecture" section writes the order down on two lines,
#
#   layers: common < map schema < filter expr < ... < api < ftrace
#   ftrace files: format kallsyms meta < ... < tracedat
#
# (modules of one rank, between two '<', may not use each other either),
# and this script fails on any edge that points the other way, read from
#   - the #include "dir/..." lines of every src/*/*.[ch] file, and
#   - the objects: each undefined hist_/hist__ symbol of build/src/D/F.o
#     resolved to the folder (or, inside ftrace/, the file) that defines it.
# The second line orders the files of the ftrace host, which has no
# folders of its own.  Run by make check (HIST_BUILD: the object tree).
B=${HIST_BUILD:-build}
README=${HIST_README:-README.md}
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); echo "ok - $1"; }
notok() { fail=$((fail + 1)); echo "not ok - $1"; }

# rank_file ORDER OUT: "name rank" for each name of ORDER ("a b < c < d").
rank_file() {
	echo "$1" | awk '{ r = 0; for (i = 1; i <= NF; i++) {
		if ($i == "<") r++; else print $i, r } }' > "$2"
}

# violations RANKS EDGES: the lines of EDGES ("from to why...") whose TO
# is not strictly below FROM (or is not ranked at all); FROM == TO is fine.
violations() {
	awk 'NR == FNR { rank[$1] = $2; next }
	     $1 == $2 { next }
	     !($1 in rank) || !($2 in rank) || rank[$2] >= rank[$1] {
		print "  " $1 " -> " $2 ":", substr($0, index($0, $3)) }' "$1" "$2"
}

# check NAME RANKS EDGES: one test line for a set of edges.
check() {
	violations "$2" "$3" > "$tmp/bad"
	if [ -s "$tmp/bad" ]; then
		notok "$1: $(wc -l < "$tmp/bad") edge(s) against the written order"
		cat "$tmp/bad"
	else
		ok "$1 ($(wc -l < "$3") edges)"
	fi
}

layers=$(sed -n 's/^ *layers: *//p' "$README" | head -n 1)
ffiles=$(sed -n 's/^ *ftrace files: *//p' "$README" | head -n 1)
if [ -z "$layers" ] || [ -z "$ffiles" ]; then
	notok "$README writes the order (lines 'layers:' and 'ftrace files:')"
	echo "$pass passed, $fail failed"
	exit 1
fi
rank_file "$layers" "$tmp/ranks"
rank_file "$ffiles" "$tmp/franks"

# The checker itself: a made-up upward edge must be caught.
echo "common api made-up" > "$tmp/fake"
if [ -n "$(violations "$tmp/ranks" "$tmp/fake")" ]; then
	ok "an edge from common/ up to api/ is reported"
else
	notok "an edge from common/ up to api/ is reported"
fi

# Every module folder (pkg/ holds no code) and every ftrace file is placed.
missing=""
for d in src/*/; do
	d=${d%/}; d=${d#src/}
	[ "$d" = pkg ] && continue
	grep -q "^$d " "$tmp/ranks" || missing="$missing $d/"
done
for f in src/ftrace/*.c; do
	f=$(basename "$f" .c)
	grep -q "^$f " "$tmp/franks" || missing="$missing ftrace/$f.c"
done
if [ -n "$missing" ]; then
	notok "every module and ftrace file has a place in the order:$missing"
else
	ok "every module and ftrace file has a place in the order"
fi

# ---- #include lines ------------------------------------------------------
: > "$tmp/inc"
for f in src/*/*.c src/*/*.h; do
	d=${f#src/}; d=${d%%/*}
	[ "$d" = pkg ] && continue
	sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f" |
	while read -r h; do
		case $h in
		*/*) echo "${h%%/*} $f includes $h" ;;
		hist_ftrace.h) echo "ftrace $f includes $h" ;;
		esac
	done | sed "s|^|$d |" >> "$tmp/inc"
done
check "#include lines of src/" "$tmp/ranks" "$tmp/inc"

# ---- objects -------------------------------------------------------------
: > "$tmp/defs"
: > "$tmp/uses"
absent=""
for f in src/*/*.c; do
	d=${f#src/}; d=${d%%/*}
	o=$B/${f%.c}.o
	if [ ! -f "$o" ]; then
		absent="$absent $o"
		continue
	fi
	u=$d
	[ "$d" = ftrace ] && u="ftrace/$(basename "$f" .c)"
	nm -g --defined-only "$o" | awk -v u="$u" '$3 ~ /^hist_/ { print $3, u }' >> "$tmp/defs"
	nm -u "$o" | awk -v u="$u" -v f="$f" '$2 ~ /^hist_/ { print $2, u, f }' >> "$tmp/uses"
done
if [ -n "$absent" ]; then
	notok "objects built (run make first):$absent"
else
	ok "objects of every src/ file built in $B"
fi
sort -k1,1 "$tmp/defs" > "$tmp/d"
sort -k1,1 "$tmp/uses" > "$tmp/u"
# "user definer symbol file"
join "$tmp/u" "$tmp/d" | awk '{ print $2, $4, $1, $3 }' > "$tmp/edges"
# folders: ftrace/F is the folder ftrace
sed 's|^\(ftrace\)/[^ ]*|\1|; s|^\([^ ]*\) ftrace/[^ ]*|\1 ftrace|' "$tmp/edges" |
	awk '{ print $1, $2, "uses", $3, "(" $4 ")" }' > "$tmp/fold"
check "objects of src/: calls between folders" "$tmp/ranks" "$tmp/fold"
# files of the ftrace host
awk '$1 ~ /^ftrace\// && $2 ~ /^ftrace\// {
	sub(/^ftrace\//, "", $1); sub(/^ftrace\//, "", $2)
	print $1, $2, "uses", $3, "(" $4 ")" }' "$tmp/edges" > "$tmp/ftr"
check "objects of src/ftrace/: calls between its files" "$tmp/franks" "$tmp/ftr"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
