/* SPDX-License-Identifier: MIT */
/*
 * The `hist_debug` file (CONFIG_HIST_TRIGGERS_DEBUG): each hist trigger's
 * fields, flags, variable slots, references, field variables and actions,
 * in the layout of the kernel's histogram design notes, and the hit
 * variant (core/variants.c) each one takes.  Pointers are
 * printed as 16 hex digits, like the kernel's hashed %p: they identify an
 * object within one dump, nothing more.
 */
#include "core/trigger.h"
#include "actions/actions.h"
#include "common/fmt.h"
#include "output/output.h"

static void ptr(struct hist__sb *sb, const void *p)
{
	hist__sb_hex(sb, (uint64_t)(uintptr_t)p, 16, '0');
}

static void line_u(struct hist__sb *sb, const char *label, uint64_t v)
{
	hist__sb_puts(sb, label);
	hist__sb_u64(sb, v, 0, ' ');
	hist__sb_putc(sb, '\n');
}

static void line_s(struct hist__sb *sb, const char *label, const char *s)
{
	hist__sb_puts(sb, label);
	hist__sb_puts(sb, s ? s : "(null)");
	hist__sb_putc(sb, '\n');
}

static void show_flags(struct hist__sb *sb, uint32_t fl)
{
	hist__sb_puts(sb, "      flags:\n");
	if (fl & HIST__F_KEY)
		hist__sb_puts(sb, "        HIST_FIELD_FL_KEY\n");
	else if (fl & HIST__F_HITCOUNT)
		hist__sb_puts(sb, "        VAL: HIST_FIELD_FL_HITCOUNT\n");
	else if (fl & HIST__F_VAR)
		hist__sb_puts(sb, "        HIST_FIELD_FL_VAR\n");
	else if (fl & HIST__F_VAR_REF)
		hist__sb_puts(sb, "        HIST_FIELD_FL_VAR_REF\n");
	else
		hist__sb_puts(sb, "        VAL: normal u64 value\n");
	if (fl & HIST__F_ALIAS)
		hist__sb_puts(sb, "        HIST_FIELD_FL_ALIAS\n");
	else if (fl & HIST__F_CONST)
		hist__sb_puts(sb, "        HIST_FIELD_FL_CONST\n");
}

static void show_field(struct hist__sb *sb, const struct hist__field *f,
		       int var_idx, uint32_t extra_flags, uint32_t size)
{
	uint32_t fl = f->flags | extra_flags;

	show_flags(sb, fl);
	if (f->ef)
		line_s(sb, "      ftrace_event_field name: ", f->ef->name);
	if (fl & HIST__F_VAR) {
		line_s(sb, "      var.name: ", f->var_name);
		line_u(sb, "      var.idx (into tracing_map_elt.vars[]): ",
		       (uint64_t)var_idx);
	}
	if (fl & HIST__F_CONST)
		line_u(sb, "      constant: ", f->constant);
	if (fl & HIST__F_ALIAS)
		line_u(sb, "      var_ref_idx (into hist_data->var_refs[]): ",
		       (uint64_t)f->operands[0]->ref_idx);
	if (fl & HIST__F_VAR_REF) {
		line_s(sb, "      name: ", f->name);
		line_u(sb, "      var.idx (into tracing_map_elt.vars[]): ",
		       (uint64_t)f->ref_var_idx);
		hist__sb_puts(sb, "      var.hist_data: ");
		ptr(sb, f->ref_hist);
		hist__sb_putc(sb, '\n');
		line_u(sb, "      var_ref_idx (into hist_data->var_refs[]): ",
		       (uint64_t)f->ref_idx);
		if (f->ref_system) {
			line_s(sb, "      system: ", f->ref_system);
			line_s(sb, "      event_name: ", f->ref_event);
		}
	}
	line_s(sb, "      type: ", f->type ? f->type : "u64");
	line_u(sb, "      size: ", size);
	line_u(sb, "      is_signed: ", f->is_signed);
}

static void show_hist(struct hist__sb *sb, const struct hist__hist *h)
{
	uint32_t i, n = 0;

	hist__sb_puts(sb, "hist_data: ");
	ptr(sb, h);
	hist__sb_puts(sb, "\n\n");
	line_u(sb, "  n_vals: ", h->nr_vals + h->nr_vars);
	line_u(sb, "  n_keys: ", h->nr_keys);
	line_u(sb, "  n_fields: ", h->nr_vals + h->nr_vars + h->nr_keys);
	hist__sb_puts(sb, "\n  val fields:\n\n");
	for (i = 0; i < h->nr_vals; i++, n++) {
		hist__sb_puts(sb, "    hist_data->fields[");
		hist__sb_u64(sb, n, 0, ' ');
		hist__sb_puts(sb, "]:\n");
		show_field(sb, h->vals[i], -1, 0, h->vals[i]->size);
		hist__sb_putc(sb, '\n');
	}
	for (i = 0; i < h->nr_vars; i++, n++) {
		hist__sb_puts(sb, "    hist_data->fields[");
		hist__sb_u64(sb, n, 0, ' ');
		hist__sb_puts(sb, "]:\n");
		show_field(sb, h->vars[i], (int)i, HIST__F_VAR, h->vars[i]->size);
		hist__sb_putc(sb, '\n');
	}
	hist__sb_puts(sb, "  key fields:\n\n");
	for (i = 0; i < h->nr_keys; i++, n++) {
		hist__sb_puts(sb, "    hist_data->fields[");
		hist__sb_u64(sb, n, 0, ' ');
		hist__sb_puts(sb, "]:\n");
		show_field(sb, h->keys[i], -1, HIST__F_KEY, h->keys[i]->key_size);
		hist__sb_putc(sb, '\n');
	}
	if (h->nr_refs) {
		hist__sb_puts(sb, "  variable reference fields:\n\n");
		for (i = 0; i < h->nr_refs; i++) {
			hist__sb_puts(sb, "    hist_data->var_refs[");
			hist__sb_u64(sb, i, 0, ' ');
			hist__sb_puts(sb, "]:\n");
			show_field(sb, h->refs[i], -1, 0, h->refs[i]->size);
			hist__sb_putc(sb, '\n');
		}
	}
	if (h->nr_fvars) {
		hist__sb_puts(sb, "  field variables:\n\n");
		for (i = 0; i < h->nr_fvars; i++) {
			const struct hist__fvar *fv = h->fvars[i];

			hist__sb_puts(sb, "    hist_data->field_vars[");
			hist__sb_u64(sb, i, 0, ' ');
			hist__sb_puts(sb, "]:\n\n      field_vars[");
			hist__sb_u64(sb, i, 0, ' ');
			hist__sb_puts(sb, "].var:\n      flags:\n        HIST_FIELD_FL_VAR\n");
			line_s(sb, "      var.name: ", fv->name);
			line_u(sb, "      var.idx (into tracing_map_elt.vars[]): ",
			       (uint64_t)fv->slot);
			hist__sb_puts(sb, "\n      field_vars[");
			hist__sb_u64(sb, i, 0, ' ');
			hist__sb_puts(sb, "].val:\n");
			if (fv->val->ef)
				line_s(sb, "      ftrace_event_field name: ", fv->val->ef->name);
			line_s(sb, "      type: ", fv->val->type);
			line_u(sb, "      size: ", fv->val->size);
			line_u(sb, "      is_signed: ", fv->val->is_signed);
			hist__sb_putc(sb, '\n');
		}
	}
	hist__actions_print_debug(sb, h);
	/* not in the kernel's file: which hit path the trigger takes */
	hist__sb_puts(sb, "\n  hit variant: ");
	hist__variant_name(sb, h->variant);
	hist__sb_putc(sb, '\n');
}

static int debug_body(struct hist__sb *sb, const struct hist__trigger *t)
{
	show_hist(sb, t->hist);
	return 0;
}

int hist_event_print_hist_debug(hist_event *ev, hist_write_fn write, void *arg)
{
	return hist__print_sections(ev, write, arg, debug_body);
}
