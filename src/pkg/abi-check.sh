#!/bin/sh
# The exported API must be exactly what the public headers declare.
#
#   abi-check.sh headers CC MAP HEADER...   every function declared in the
#                                           HEADERs is in MAP's global list,
#                                           and MAP lists nothing else
#   abi-check.sh exports LIB MAP            LIB's dynamic symbols are exactly
#                                           MAP's global list
#
# Exits 1 with a diff on a mismatch, so the build fails.
set -eu
mode=$1; shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# names in the global: section of a version script
map_names() {
	sed -e 's,/\*.*\*/,,g' "$1" | awk '
		/global:/ { on = 1; next }
		/local:/ { on = 0 }
		on { gsub(/[ \t;]/, ""); if ($0 != "") print }' | sort -u
}

case $mode in
headers)
	cc=$1; map=$2; shift 2
	for h in "$@"; do
		# comments go with the preprocessor, and lines of included
		# headers by the line markers; a declaration is a hist_ name
		# followed by "(" (function pointer typedefs are "(*name)(")
		$cc -E -Iinclude -x c "$h" |
			awk -v f="$h" '/^# [0-9]+ "/ { cur = $3; next }
				cur == "\"" f "\"" { print }' |
			grep -oE '(^|[^(*a-zA-Z0-9_])[*]*hist_[a-z0-9_]+[ \t]*\(' |
			grep -oE 'hist_[a-z0-9_]+'
	done | sort -u > "$tmp/header"
	map_names "$map" > "$tmp/map"
	what="header declarations (<) vs $map (>)"
	;;
exports)
	lib=$1; map=$2
	nm -D --defined-only "$lib" | awk '{ print $NF }' | sed 's/@.*//' |
		grep -v '^LIBHIST' | sort -u > "$tmp/header"
	map_names "$map" > "$tmp/map"
	what="symbols exported by $lib (<) vs $map (>)"
	;;
*)
	echo "usage: $0 headers CC MAP HEADER... | exports LIB MAP" >&2
	exit 2
	;;
esac
if ! diff "$tmp/header" "$tmp/map" > "$tmp/diff"; then
	echo "abi-check: $what differ:" >&2
	cat "$tmp/diff" >&2
	exit 1
fi
