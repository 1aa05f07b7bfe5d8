#!/bin/sh
# Print "NAME PAGE" for each function a section-3 page documents besides
# the one it is named after: the names before "\-" in its NAME section.
# `make install` writes a ".so man3/PAGE.3" page for each NAME.
for page in "$@"; do
	base=$(basename "$page" .3)
	sed -n '/^\.SH NAME/{n;p;q;}' "$page" | sed 's/ *\\-.*//' | tr ', ' '\n\n' |
		while read -r name; do
			[ -n "$name" ] && [ "$name" != "$base" ] && echo "$name $base"
		done
done
exit 0
