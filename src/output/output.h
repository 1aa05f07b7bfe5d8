/* SPDX-License-Identifier: MIT */
/*
 * What the hist file printer (output.c) shares with the other read-outs
 * of a histogram (iter.c, json.c): the sorted entry list and the text of
 * one key, so every read-out lists the same entries in the same order
 * with the same words.
 *
 * Layers (README "Architecture"): common < map schema < filter expr < core
 * < synth < actions < parse [output] < api < ftrace.
 * output/ calls actions/ and below, never parse/.
 */
#ifndef HIST_OUTPUT_H
#define HIST_OUTPUT_H

#include "core/trigger.h"

/*
 * H's entries in MAP, in the order the hist file prints them: *OUT is an
 * array of *NR elements (free it with hist__free()).
 * Context: control thread, concurrently with hits; allocates.
 * Returns 0 or -HIST_ENOMEM.
 */
int hist__hist_sorted(const struct hist__hist *h, struct hist_map *map,
		      struct hist_map_elt ***out, uint32_t *nr) HIST__INTERNAL;

/* The read-out's kind of a key with modifiers FLAGS (HIST__F_*), in the
 * printer's precedence (.hex first: common_stacktrace.hex is a number). */
enum hist_key_kind hist__key_kind(uint32_t flags) HIST__INTERNAL;

/* The read-out's str of key K of KIND (SLOT its bytes, COMM the element's
 * comm) into BUF of CAP bytes: the symbol, comm, syscall name or string;
 * NULL for the kinds without one. */
const char *hist__key_str(const struct hist__hist *h, const struct hist__field *k,
			  uint32_t kind, const uint8_t *slot, const char *comm,
			  char *buf, size_t cap) HIST__INTERNAL;

/* The value of key K (not a stack) in its read-out form as the hist file
 * prints it after "name: ", padding included (the kernel's columns);
 * SYMOFF: a .sym-offset key's wider symbol column.  The one printer of
 * key values: the hist file, the reader's "text" and hist_merge_print(). */
void hist__print_key_text(struct hist__sb *sb, const struct hist_read_key *k,
			  bool symoff) HIST__INTERNAL;

/*
 * How the hist file labels one key of an entry's "{ ... }" block: NAME,
 * then TAIL: ": " before a value, ":\n" before a stack's frames (one a
 * line), ".stacktrace" or "" (a NAME that has it) right before a field's
 * stack.  STACK: the frames end the key with a newline.
 */
struct hist__key_label {
	const char *name, *tail;
	bool stack;
};

/*
 * The "{ ... }" block of one entry with NR keys labelled LABELS, VALUE
 * printing key I's value or frames: the one layout of the hist file's
 * keys (output.c) and hist_merge_print()'s (merge_print.c).  Inline so
 * that VALUE, a static function of the caller, is called directly in the
 * read-out's loop over every entry.
 */
static inline void hist__print_key_block(struct hist__sb *sb, uint32_t nr,
					 const struct hist__key_label *labels,
					 void (*value)(struct hist__sb *sb, uint32_t i,
						       const void *arg),
					 const void *arg)
{
	bool multiline = false;
	uint32_t i;

	hist__sb_puts(sb, "{ ");
	for (i = 0; i < nr; i++) {
		if (i)
			hist__sb_puts(sb, ", ");
		hist__sb_puts(sb, labels[i].name);
		hist__sb_puts(sb, labels[i].tail);
		multiline |= labels[i].stack;
		value(sb, i, arg);
	}
	if (!multiline)
		hist__sb_putc(sb, ' ');
	hist__sb_putc(sb, '}');
}

/* ADDR through the host's symbol resolver, or 0x... (the kernel's %ps /
 * %pS with WITH_OFFSET), padded to WIDTH. */
void hist__print_sym(struct hist__sb *sb, const struct hist_host *host,
		     uint64_t addr, int with_offset, unsigned width) HIST__INTERNAL;

/* V as hundredths of a percent of TOTAL, as the hist file computes it;
 * UINT32_MAX where it prints [ERROR]. */
uint32_t hist__percentage(uint64_t v, uint64_t total) HIST__INTERNAL;

/* The read-out's style of a value column (one HIST_VAL_* or 0) from the
 * field's HIST__F_* modifiers, in the kernel's precedence: .percent,
 * .graph, .hex. */
uint32_t hist__val_flags(uint32_t field_flags) HIST__INTERNAL;

/* " NAME: V" as one value column of a hist entry prints, in the style of
 * FLAGS (HIST_VAL_*, the first of percent, graph, hex that is set):
 * .percent of TOTAL, .graph against the column's MAX, .hex, or plain. */
void hist__print_val(struct hist__sb *sb, const char *name, uint32_t flags,
		     uint64_t v, uint64_t total, uint64_t max) HIST__INTERNAL;

/* Print every hist trigger of EV as the hist file frames them (header,
 * trigger info), with BODY printing each section's contents. */
int hist__print_sections(struct hist_event *ev, hist_write_fn write, void *arg,
			 int (*body)(struct hist__sb *sb, const struct hist__trigger *t)) HIST__INTERNAL;

/* The hist file's trigger-info line of T. */
void hist__hist_print_info(struct hist__sb *sb, const struct hist__trigger *t) HIST__INTERNAL;

/* Each value column's sum over the N entries ELTS of H in MAP (TOTAL, for
 * .percent and the reader's totals) and largest entry (MAX, for .graph).
 * Inline: as a call, the hist file's read-out of 1M entries took ~30%
 * longer (`hist-bench --readout`, hist_event_print_hist row, 8 pairs). */
static inline void hist__col_stats(const struct hist__hist *h, struct hist_map *map,
				   struct hist_map_elt *const *elts, uint32_t n,
				   uint64_t *total, uint64_t *max)
{
	uint32_t i, j;

	memset(total, 0, h->nr_vals * sizeof(*total));
	memset(max, 0, h->nr_vals * sizeof(*max));
	for (i = 0; i < n; i++) {
		for (j = 0; j < h->nr_vals; j++) {
			uint64_t v = hist__map_sum(map, elts[i], j);

			total[j] += v;
			if (v > max[j])
				max[j] = v;
		}
	}
}


/* The hist file's "Snapshot taken" block up to the key block (the caller
 * prints the key and the newline), and its Totals block: the hist file
 * and hist_merge_print() print them alike. */
void hist__print_snapshot_head(struct hist__sb *sb, bool onmax, const char *var,
			       uint64_t value) HIST__INTERNAL;
void hist__print_totals(struct hist__sb *sb, uint64_t hits, uint64_t entries,
			uint64_t dropped) HIST__INTERNAL;

/* Copy SRC to DST (CAP bytes) without the padding: leading and trailing
 * blanks dropped, inner runs of blanks squeezed to one space (a key's
 * "text" in the read-outs). */
void hist__squeeze(char *dst, size_t cap, const char *src) HIST__INTERNAL;

/*
 * One histogram of the JSON read-out (README "JSON"): the object of INFO
 * with the entries NEXT(ARG) gives until NULL, up to and including
 * "totals" and without the closing brace (the caller may add members).
 * hist_event_print_json() and hist_merge_print_json() write with it.
 */
void hist__json_hist(struct hist__sb *sb, const struct hist_read_info *info,
		     const struct hist_read_entry *(*next)(void *arg), void *arg) HIST__INTERNAL;

#endif
