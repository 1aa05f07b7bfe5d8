/* SPDX-License-Identifier: MIT */
/*
 * The `hist` file: header, trigger-info line, sorted entries and totals,
 * byte for byte as the kernel prints them.
 */
#include "core/trigger.h"
#include "common/fmt.h"
#include "output/output.h"
#include "actions/actions.h"

/* ---- trigger info --------------------------------------------------- */

static void print_var(struct hist__sb *sb, const struct hist__field *f)
{
	hist__sb_puts(sb, f->var_name);
	hist__sb_putc(sb, '=');
	/* a variable of FIELD.stacktrace prints as FIELD
	 * (k14-newer-keys, 6.12) */
	if ((f->flags & HIST__F_STACKTRACE) && f->ef && !(f->flags & HIST__F_EXPR)) {
		hist__sb_puts(sb, hist__field_name(f));
		return;
	}
	hist__field_print(sb, f);
}

void hist__hist_print_info(struct hist__sb *sb, const struct hist__trigger *t)
{
	const struct hist__hist *h = t->hist;
	uint32_t i;
	bool first = true;

	hist__sb_puts(sb, "hist:");
	if (h->name) {
		hist__sb_puts(sb, h->name);
		hist__sb_putc(sb, ':');
	}
	hist__sb_puts(sb, "keys=");
	for (i = 0; i < h->nr_keys; i++) {
		const struct hist__field *k = h->keys[i];

		if (i)
			hist__sb_putc(sb, ',');
		if ((k->flags & HIST__F_STACKTRACE) && !k->ef)
			hist__sb_puts(sb, k->name ? k->name : "stacktrace");
		else
			hist__field_print(sb, k);
	}
	hist__sb_puts(sb, ":vals=");
	if (!h->nohitcount) {
		hist__sb_puts(sb, "hitcount");
		first = false;
	}
	for (i = 1; i < h->nr_vals; i++) {
		if (!first)
			hist__sb_putc(sb, ',');
		first = false;
		hist__field_print(sb, h->vals[i]);
	}
	if (h->nr_vars) {
		hist__sb_putc(sb, ':');
		for (i = 0; i < h->nr_vars; i++) {
			if (i)
				hist__sb_putc(sb, ',');
			print_var(sb, h->vars[i]);
		}
	}
	hist__sb_puts(sb, ":sort=");
	for (i = 0; i < h->nr_sort; i++) {
		const struct hist__sort_key *sk = &h->sort[i];

		if (i)
			hist__sb_putc(sb, ',');
		if (sk->val_idx == 0)
			hist__sb_puts(sb, "hitcount");
		else if (sk->val_idx > 0)
			hist__field_print(sb, h->vals[sk->val_idx]);
		else
			hist__field_print(sb, h->keys[sk->key_idx]);
		if (sk->descending)
			hist__sb_puts(sb, ".descending");
	}
	hist__sb_puts(sb, ":size=");
	hist__sb_u64(sb, 1ull << h->map_bits, 0, ' ');
	if (h->uses_ts) {
		hist__sb_puts(sb, ":clock=");
		hist__sb_puts(sb, h->clock);
	}
	if (h->nohitcount)
		hist__sb_puts(sb, ":nohitcount");
	hist__actions_print_spec(sb, h);
	if (t->filter_text) {
		hist__sb_puts(sb, " if ");
		hist__sb_puts(sb, t->filter_text);
	}
	hist__sb_puts(sb, (hist__load_relaxed(&t->paused) & 1u) ? " [paused]\n"
								  : " [active]\n");
}

/* ---- sorting --------------------------------------------------------- */

/*
 * One entry of a snapshot: the element and its sums, the per-cpu copies
 * added up once (hist__map_snapshot()), so that sorting does not add
 * them up again for every comparison.
 */
struct row {
	struct hist_map_elt *elt;
	uint64_t sum[HIST__VALS_MAX];
};

struct sort_ctx {
	const struct hist__hist *h;
	uint32_t key_size;
	/* radix key of a first sort key that is a value: see prefix_val() */
	uint32_t val, shift;
	bool descending;
	uint64_t max;
};

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_num(const uint8_t *a, const uint8_t *b, uint32_t size, bool sign)
{
	switch (size) {
	case 1:
		return sign ? ((int8_t)*a > (int8_t)*b) - ((int8_t)*a < (int8_t)*b)
			    : cmp_u64(*a, *b);
	case 2: {
		uint16_t x, y;
		memcpy(&x, a, 2);
		memcpy(&y, b, 2);
		return sign ? ((int16_t)x > (int16_t)y) - ((int16_t)x < (int16_t)y)
			    : cmp_u64(x, y);
	}
	case 4: {
		uint32_t x, y;
		memcpy(&x, a, 4);
		memcpy(&y, b, 4);
		return sign ? ((int32_t)x > (int32_t)y) - ((int32_t)x < (int32_t)y)
			    : cmp_u64(x, y);
	}
	case 8: {
		uint64_t x, y;
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		return sign ? ((int64_t)x > (int64_t)y) - ((int64_t)x < (int64_t)y)
			    : cmp_u64(x, y);
	}
	}
	return 0; /* other widths have no order (the kernel's cmp_none) */
}

/* The kernel's per-key comparison rules (kernel/trace/tracing_map.c:
 * tracing_map_cmp_string() and the numeric comparators by field type). */
static int cmp_key(const struct hist__field *k, const uint8_t *a, const uint8_t *b)
{
	const uint8_t *x = a + k->key_offset, *y = b + k->key_offset;
	const struct hist__field *base = k;

	if (k->flags & HIST__F_STACKTRACE)
		return 0;
	if (k->flags & (HIST__F_LOG2 | HIST__F_BUCKET))
		base = k->operands[0];
	if (k->flags & HIST__F_STRING) {
		if (!base->ef)
			return 0; /* comm: a string slot has no numeric order */
		return strncmp((const char *)x, (const char *)y, k->key_size);
	}
	if (!base->ef || (base->flags & HIST__F_CPU))
		return cmp_num(x, y, 8, k->is_signed);
	return cmp_num(x, y, base->ef->size, base->ef->is_signed);
}

static int cmp_entries(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *sc = arg;
	const struct hist__hist *h = sc->h;
	const struct row *a = pa, *b = pb;
	uint32_t i;

	for (i = 0; i < h->nr_sort; i++) {
		const struct hist__sort_key *sk = &h->sort[i];
		int c;

		if (sk->val_idx >= 0)
			c = cmp_u64(a->sum[sk->val_idx], b->sum[sk->val_idx]);
		else
			c = cmp_key(h->keys[sk->key_idx], hist__map_elt_key(a->elt),
				    hist__map_elt_key(b->elt));
		if (c)
			return sk->descending ? -c : c;
	}
	/* ties: raw key bytes, so the order is deterministic */
	return memcmp(hist__map_elt_key(a->elt), hist__map_elt_key(b->elt), sc->key_size);
}

/*
 * For a hist sorted on one value (the default: hitcount), cmp_entries()'s
 * order as one u64: the value (reversed when descending) in the high
 * bits, then as many leading key bits, read big-endian (memcmp order), as
 * fit below it.  Rows with equal prefixes go through cmp_entries(), so
 * hist__sort_keyed() gives exactly the comparator's order: a radix sort
 * instead of ~20 comparisons per entry.
 */
static uint64_t prefix_val(const void *item, void *arg)
{
	const struct sort_ctx *sc = arg;
	const struct row *r = item;
	const uint8_t *key = hist__map_elt_key(r->elt);
	uint64_t v = r->sum[sc->val], k = 0;
	uint32_t i, n = sc->key_size < 8 ? sc->key_size : 8;

	if (sc->descending)
		v = sc->max - v;
	if (sc->shift == 0)
		return v;
	for (i = 0; i < n; i++)
		k |= (uint64_t)key[i] << (56 - 8 * i);
	return v << sc->shift | k >> (64 - sc->shift);
}

/* Sort ROWS (N pointers to struct row) as cmp_entries() orders them. */
static int sort_rows(void **rows, uint32_t n, struct sort_ctx *sc)
{
	const struct hist__hist *h = sc->h;
	uint32_t i, bits;

	if (n < 2)
		return 0;
	if (h->nr_sort != 1 || h->sort[0].val_idx < 0)
		return hist__sort(rows, n, cmp_entries, sc);
	sc->val = (uint32_t)h->sort[0].val_idx;
	sc->descending = h->sort[0].descending;
	sc->max = 0;
	for (i = 0; i < n; i++) {
		uint64_t v = ((const struct row *)rows[i])->sum[sc->val];

		if (v > sc->max)
			sc->max = v;
	}
	for (bits = 0; bits < 64 && sc->max >> bits; bits++)
		;
	/* 40 key bits leave few equal prefixes even among millions of rows. */
	sc->shift = 64 - bits < 40 ? 64 - bits : 40;
	return hist__sort_keyed(rows, n, prefix_val, cmp_entries, sc);
}

int hist__hist_sorted(const struct hist__hist *h, struct hist_map *map,
		      struct hist_map_elt ***out, uint32_t *nr)
{
	/* Room for every element published before the walk starts; one
	 * published during it may be left out (hist__map_collect()). */
	uint32_t n, i, j, nv = h->nr_vals, cap = hist__map_entries(map) + 1;
	struct hist_map_elt **elts = hist__zalloc(sizeof(*elts) * cap);
	uint64_t *sums = hist__zalloc(sizeof(*sums) * cap * nv);
	struct row *rows = hist__zalloc(sizeof(*rows) * cap);
	void **order = hist__zalloc(sizeof(*order) * cap);
	struct sort_ctx sc;
	int ret = -HIST_ENOMEM;

	if (!elts || !sums || !rows || !order)
		goto fail;
	n = hist__map_snapshot(map, elts, sums, nv, cap);
	for (i = 0; i < n; i++) {
		rows[i].elt = elts[i];
		for (j = 0; j < nv; j++)
			rows[i].sum[j] = sums[(size_t)i * nv + j];
		order[i] = &rows[i];
	}
	memset(&sc, 0, sizeof(sc));
	sc.h = h;
	sc.key_size = hist__map_key_size(map);
	ret = sort_rows(order, n, &sc);
	if (ret)
		goto fail;
	for (i = 0; i < n; i++)
		elts[i] = ((struct row *)order[i])->elt;
	*out = elts;
	*nr = n;
	elts = NULL;
fail:
	hist__free(elts);
	hist__free(sums);
	hist__free(rows);
	hist__free(order);
	return ret;
}

/* ---- entries ------------------------------------------------------- */

void hist__print_sym(struct hist__sb *sb, const struct hist_host *host,
		     uint64_t addr, int with_offset, unsigned width)
{
	char buf[512];
	int n = -1;

	if (host && host->sym)
		n = host->sym(host->data, addr, with_offset, buf, sizeof(buf));
	if (n < 0 || (size_t)n >= sizeof(buf)) {
		/* the kernel prints an unknown address as 0x%lx */
		struct hist__sb t;

		hist__sb_init_buf(&t, buf, sizeof(buf));
		hist__sb_puts(&t, "0x");
		hist__sb_hex(&t, addr, 0, '0');
		hist__sb_finish(&t);
		n = (int)strlen(buf);
	}
	hist__sb_str(sb, buf, (size_t)n, width, true);
}

static void print_stack(struct hist__sb *sb, const struct hist_host *host,
			const uint8_t *slot)
{
	uint32_t i;

	for (i = 0; i < HIST__STACK_MAX; i++) {
		uint64_t ip;

		memcpy(&ip, slot + i * 8, 8);
		if (!ip)
			return;
		hist__sb_spaces(sb, 9);
		hist__print_sym(sb, host, ip, 1, 0);
		hist__sb_putc(sb, '\n');
	}
}

enum hist_key_kind hist__key_kind(uint32_t flags)
{
	if (flags & HIST__F_HEX)
		return HIST_KEY_HEX;
	if (flags & (HIST__F_SYM | HIST__F_SYM_OFFSET))
		return HIST_KEY_SYM;
	if (flags & HIST__F_EXECNAME)
		return HIST_KEY_EXECNAME;
	if (flags & HIST__F_SYSCALL)
		return HIST_KEY_SYSCALL;
	if (flags & HIST__F_LOG2)
		return HIST_KEY_LOG2;
	if (flags & HIST__F_BUCKET)
		return HIST_KEY_BUCKET;
	if (flags & HIST__F_STRING)
		return HIST_KEY_STRING;
	return HIST_KEY_NUMBER;
}

const char *hist__key_str(const struct hist__hist *h, const struct hist__field *k,
			  uint32_t kind, const uint8_t *slot, const char *comm,
			  char *buf, size_t cap)
{
	const struct hist_host *host = h->ev->host;
	const char *name = NULL;
	struct hist__sb sb;
	uint64_t v;

	memcpy(&v, slot, 8);
	hist__sb_init_buf(&sb, buf, cap);
	switch (kind) {
	case HIST_KEY_SYM:
		hist__print_sym(&sb, host, v, (k->flags & HIST__F_SYM_OFFSET) != 0, 0);
		break;
	case HIST_KEY_EXECNAME:
		hist__sb_putn(&sb, comm, strnlen(comm, HIST__COMM_LEN));
		break;
	case HIST_KEY_SYSCALL:
		if (host && host->syscall_name)
			name = host->syscall_name(host->data, v);
		hist__sb_puts(&sb, name ? name : "unknown_syscall");
		break;
	case HIST_KEY_STRING:
		hist__sb_putn(&sb, (const char *)slot,
			      strnlen((const char *)slot, k->key_size));
		break;
	default:
		return NULL;
	}
	hist__sb_finish(&sb);
	return buf;
}

void hist__print_key_text(struct hist__sb *sb, const struct hist_read_key *k, bool symoff)
{
	const char *s = k->str ? k->str : "";

	switch (k->kind) {
	case HIST_KEY_HEX:
		hist__sb_hex(sb, k->value, 0, ' ');
		break;
	case HIST_KEY_SYM:
		hist__sb_putc(sb, '[');
		hist__sb_hex(sb, k->value, 0, ' ');
		hist__sb_puts(sb, "] ");
		hist__sb_str(sb, s, strlen(s), symoff ? 55 : 45, true);
		break;
	case HIST_KEY_EXECNAME:
		hist__sb_str(sb, s, strlen(s), 16, true);
		hist__sb_putc(sb, '[');
		hist__sb_u64(sb, k->value, 10, ' ');
		hist__sb_putc(sb, ']');
		break;
	case HIST_KEY_SYSCALL:
		hist__sb_str(sb, s, strlen(s), 30, true);
		hist__sb_putc(sb, '[');
		hist__sb_u64(sb, k->value, 3, ' ');
		hist__sb_putc(sb, ']');
		break;
	case HIST_KEY_LOG2:
		hist__sb_puts(sb, "~ 2^");
		hist__sb_u64_left(sb, k->value, 2);
		break;
	case HIST_KEY_BUCKET:
		hist__sb_puts(sb, "~ ");
		hist__sb_u64(sb, k->value, 0, ' ');
		hist__sb_putc(sb, '-');
		hist__sb_u64(sb, k->value + k->width - 1, 0, ' ');
		break;
	case HIST_KEY_STRING:
		hist__sb_str(sb, s, strlen(s), 50, true);
		break;
	default:
		hist__sb_u64(sb, k->value, 10, ' ');
		break;
	}
}

/* hist__print_key_text() of key K of an element: SLOT is K's bytes in
 * the compound key, COMM the element's saved comm (.execname). */
static void key_print_value(struct hist__sb *sb, const struct hist__hist *h,
			    const struct hist__field *k, const uint8_t *slot,
			    const char *comm)
{
	char buf[HIST__KEY_SIZE_MAX + 512];
	struct hist_read_key rk;

	memset(&rk, 0, sizeof(rk));
	rk.kind = hist__key_kind(k->flags);
	memcpy(&rk.value, slot, 8);
	rk.width = k->bucket;
	rk.str = hist__key_str(h, k, rk.kind, slot, comm, buf, sizeof(buf));
	hist__print_key_text(sb, &rk, (k->flags & HIST__F_SYM_OFFSET) != 0);
}

/* The labels of H's keys in its "{ ... }" blocks. */
static void key_labels(const struct hist__hist *h, struct hist__key_label *l)
{
	uint32_t i;

	for (i = 0; i < h->nr_keys; i++) {
		const struct hist__field *k = h->keys[i];

		l[i].name = hist__field_name(k);
		l[i].tail = ": ";
		l[i].stack = false;
		if (!(k->flags & HIST__F_STACKTRACE))
			continue;
		if (k->ef) {
			l[i].tail = ".stacktrace";
			l[i].stack = true;
			continue;
		}
		l[i].name = k->name ? k->name : "stacktrace";
		/* common_stacktrace.hex: the first frame, in hex
		 * (k14-newer-keys, 6.12) */
		if (!(k->flags & HIST__F_HEX)) {
			l[i].tail = ":\n";
			l[i].stack = true;
		}
	}
}

/* One element's key as hist__print_key_block() reads it. */
struct key_arg {
	const struct hist__hist *h;
	const struct hist__key_label *labels;
	const uint8_t *key;
	const char *comm;	/* the element's saved comm (.execname) */
};

static void key_value(struct hist__sb *sb, uint32_t i, const void *arg)
{
	const struct key_arg *a = arg;
	const struct hist__field *k = a->h->keys[i];
	const uint8_t *slot = a->key + k->key_offset;

	if (a->labels[i].stack)
		print_stack(sb, a->h->ev->host, slot);
	else
		key_print_value(sb, a->h, k, slot, a->comm);
}

/* The "{ key: ... }" block of KEY (COMM: the element's saved comm). */
static void print_key(struct hist__sb *sb, const struct hist__hist *h,
		      const struct hist__key_label *labels, const uint8_t *key,
		      const char *comm)
{
	struct key_arg a = { h, labels, key, comm };

	hist__print_key_block(sb, h->nr_keys, labels, key_value, &a);
}

/* The kernel's percentage in hundredths, or UINT32_MAX for "[ERROR]". */
uint32_t hist__percentage(uint64_t v, uint64_t total)
{
	if (!total)
		return v ? UINT32_MAX : 0;
	if (v < UINT64_MAX / 10000)
		return (uint32_t)(v * 10000 / total);
	total /= 10000;
	if (!total)
		return v ? UINT32_MAX : 0;
	return (uint32_t)(v / total);
}

uint32_t hist__val_flags(uint32_t field_flags)
{
	return field_flags & HIST__F_PERCENT ? HIST_VAL_PERCENT :
	       field_flags & HIST__F_GRAPH ? HIST_VAL_GRAPH :
	       field_flags & HIST__F_HEX ? HIST_VAL_HEX : 0;
}

void hist__print_val(struct hist__sb *sb, const char *name, uint32_t flags,
		     uint64_t v, uint64_t total, uint64_t max)
{
	hist__sb_putc(sb, ' ');
	hist__sb_puts(sb, name);
	if (flags & HIST_VAL_PERCENT) {
		uint32_t pc = hist__percentage(v, total);

		if (pc == UINT32_MAX) {
			hist__sb_puts(sb, " (%):[ERROR]");
			return;
		}
		hist__sb_puts(sb, " (%): ");
		hist__sb_u64(sb, pc / 100, 3, ' ');
		hist__sb_putc(sb, '.');
		hist__sb_u64(sb, pc % 100, 2, '0');
	} else if (flags & HIST_VAL_GRAPH) {
		uint32_t pc = hist__percentage(v, max), n, i;

		hist__sb_puts(sb, ": ");
		if (pc == UINT32_MAX) {
			hist__sb_str(sb, "[ERROR]", 7, 20, false);
			return;
		}
		n = (uint32_t)((uint64_t)pc * 20 / 10000);
		for (i = 0; i < 20; i++)
			hist__sb_putc(sb, i < n ? '#' : ' ');
	} else if (flags & HIST_VAL_HEX) {
		hist__sb_puts(sb, ": ");
		hist__sb_hex(sb, v, 10, ' ');
	} else {
		hist__sb_puts(sb, ": ");
		hist__sb_u64(sb, v, 10, ' ');
	}
}

void hist__print_snapshot_head(struct hist__sb *sb, bool onmax, const char *var,
			       uint64_t value)
{
	hist__sb_puts(sb, "\nSnapshot taken (see tracing/snapshot).  Details:\n");
	hist__sb_puts(sb, "\ttriggering value { ");
	hist__sb_puts(sb, onmax ? "onmax(" : "onchange(");
	hist__sb_puts(sb, var);
	hist__sb_puts(sb, ") }: ");
	hist__sb_u64(sb, value, 10, ' ');
	hist__sb_puts(sb, "\ttriggered by event with key: ");
}

void hist__print_totals(struct hist__sb *sb, uint64_t hits, uint64_t entries,
			uint64_t dropped)
{
	hist__sb_puts(sb, "\nTotals:\n    Hits: ");
	hist__sb_u64(sb, hits, 0, ' ');
	hist__sb_puts(sb, "\n    Entries: ");
	hist__sb_u64(sb, entries, 0, ' ');
	hist__sb_puts(sb, "\n    Dropped: ");
	hist__sb_u64(sb, dropped, 0, ' ');
	hist__sb_putc(sb, '\n');
}

static void print_entry(struct hist__sb *sb, const struct hist__hist *h,
			const struct hist__key_label *labels,
			struct hist_map *map, struct hist_map_elt *elt,
			const uint64_t *total, const uint64_t *max)
{
	uint32_t i;

	print_key(sb, h, labels, hist__map_elt_key(elt),
		  (const char *)hist__map_elt_payload(elt) + h->comm_off);
	if (!h->nohitcount)
		hist__print_val(sb, "hitcount", hist__val_flags(h->vals[0]->flags),
				hist__map_sum(map, elt, 0), total[0], max[0]);
	for (i = 1; i < h->nr_vals; i++) {
		const struct hist__field *f = h->vals[i];

		/* expression values are summed but never printed (b17) */
		if (f->flags & (HIST__F_VAR | HIST__F_EXPR))
			continue;
		hist__sb_putc(sb, ' ');
		hist__print_val(sb, hist__field_name(f), hist__val_flags(f->flags),
				hist__map_sum(map, elt, i), total[i], max[i]);
	}
	hist__actions_print_entry(sb, h, elt);
	hist__sb_putc(sb, '\n');
}

/* The block of the first snapshot() action that took a snapshot. */
static void print_snapshot(struct hist__sb *sb, const struct hist__hist *h,
			   const struct hist__key_label *labels)
{
	struct hist__action_info ai;
	uint32_t i;

	for (i = 0; i < h->nr_actions; i++) {
		hist__actions_info(h, i, &ai);
		if (ai.kind != HIST__A_SNAPSHOT || !ai.snap_taken)
			continue;
		hist__print_snapshot_head(sb, ai.handler == HIST__H_ONMAX, ai.var_str,
					  ai.snap_val);
		print_key(sb, h, labels, ai.snap_key, ai.snap_comm);
		hist__sb_putc(sb, '\n');
		return;
	}
}

/* One trigger's section: entries, snapshot block, Totals. */
static int hist_print(struct hist__sb *sb, const struct hist__trigger *t)
{
	const struct hist__hist *h = t->hist;
	struct hist_map *map = h->map;
	uint64_t total[HIST__VALS_MAX], max[HIST__VALS_MAX];
	struct hist__key_label labels[HIST__KEYS_MAX];
	struct hist_map_elt **elts;
	uint32_t n, i;
	int ret = hist__hist_sorted(h, map, &elts, &n);

	if (ret)
		return ret;
	hist__col_stats(h, map, elts, n, total, max);
	key_labels(h, labels);
	for (i = 0; i < n; i++)
		print_entry(sb, h, labels, map, elts[i], total, max);
	print_snapshot(sb, h, labels);
	hist__print_totals(sb, hist__map_hits(map), n, hist__map_drops(map));
	hist__free(elts);
	return 0;
}

int hist__print_sections(struct hist_event *ev, hist_write_fn write, void *arg,
			 int (*body)(struct hist__sb *sb, const struct hist__trigger *t))
{
	struct hist__trigger *t;
	struct hist__sb sb;
	int n = 0, ret = 0;

	hist__sb_init(&sb, write, arg);
	for (t = ev->trig_head; t && !ret; t = t->next) {
		if (t->kind != HIST__T_HIST)
			continue;
		if (n++)
			hist__sb_puts(&sb, "\n\n");
		hist__sb_puts(&sb, "# event histogram\n#\n# trigger info: ");
		hist__hist_print_info(&sb, t);
		hist__sb_puts(&sb, "#\n\n");
		ret = body(&sb, t);
	}
	if (!ret)
		ret = hist__sb_finish(&sb);
	return ret;
}

int hist_event_print_hist(hist_event *ev, hist_write_fn write, void *arg)
{
	return hist__print_sections(ev, write, arg, hist_print);
}
