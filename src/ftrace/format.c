/* SPDX-License-Identifier: MIT */
/*
 * Event `format` files and events/header_page.
 *
 * A format file is line oriented:
 *
 *   name: sched_switch
 *   ID: 372
 *   format:
 *   <TAB>field:unsigned short common_type;<TAB>offset:0;<TAB>size:2;<TAB>signed:0;
 *   ...                                   (common fields, a blank line,
 *   <TAB>field:char prev_comm[16];<TAB>...  then the event's own fields)
 *
 *   print fmt: "prev_comm=%s ...", REC->prev_comm, ...
 *
 * The field kind is decided here, once, from the declared C type, with the
 * rules the kernel's own filter code uses (a '[' plus "char" anywhere in
 * the type is a string), so that libhist treats a field as the kernel
 * would.  Errors name the 1-based line.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftrace_int.h"

#define MAX_FIELDS 1024
#define MAX_DECL 512

void hist__msg(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!buf || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* One field line, as parsed. */
struct fline {
	char name[MAX_DECL];
	char type[MAX_DECL];
	uint32_t offset;
	uint32_t size;
	int is_signed;
};

static int is_ident(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

static int is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static const char *skip_space(const char *s, const char *end)
{
	while (s < end && is_space((unsigned char)*s))
		s++;
	return s;
}

static const char *trim_end(const char *s, const char *end)
{
	while (end > s && is_space((unsigned char)end[-1]))
		end--;
	return end;
}

/* Decimal number of S..END (whitespace around allowed). */
static int parse_u32(const char *s, const char *end, uint32_t *out)
{
	uint64_t v = 0;

	s = skip_space(s, end);
	end = trim_end(s, end);
	if (s == end)
		return -1;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

/*
 * Split the declaration "unsigned long args[6]" into the name "args" and
 * the type "unsigned long[6]": the array suffix moves to the type, which
 * is how the kernel spells the field's type internally.
 */
static int parse_decl(const char *s, const char *end, struct fline *f,
		      const char **why)
{
	const char *suffix = NULL, *name, *tend;
	size_t tlen, slen = 0, nlen;

	s = skip_space(s, end);
	end = trim_end(s, end);
	if (s == end) {
		*why = "empty field declaration";
		return -1;
	}
	if (end[-1] == ']') {
		const char *p = end - 1;

		while (p > s && *p != '[')
			p--;
		if (*p != '[') {
			*why = "unbalanced ']' in field declaration";
			return -1;
		}
		suffix = p;
		slen = (size_t)(end - p);
		end = trim_end(s, p);
	}
	name = end;
	while (name > s && is_ident((unsigned char)name[-1]))
		name--;
	nlen = (size_t)(end - name);
	if (!nlen) {
		*why = "field declaration without a name";
		return -1;
	}
	tend = trim_end(s, name);
	tlen = (size_t)(tend - s);
	if (!tlen) {
		*why = "field declaration without a type";
		return -1;
	}
	if (nlen >= sizeof(f->name) || tlen + slen >= sizeof(f->type)) {
		*why = "field declaration too long";
		return -1;
	}
	memcpy(f->name, name, nlen);
	f->name[nlen] = '\0';
	memcpy(f->type, s, tlen);
	if (slen)
		memcpy(f->type + tlen, suffix, slen);
	f->type[tlen + slen] = '\0';
	return 0;
}

/*
 * "<WS>field:<decl>;<WS>offset:N;<WS>size:N;<WS>signed:N;" (signed is
 * optional: old kernels did not print it).  Unknown "key:value;" pairs
 * are skipped so that a newer kernel's additions do not break us.
 */
static int parse_field_line(const char *s, const char *end, struct fline *f,
			    const char **why)
{
	const char *semi;
	int have_off = 0, have_size = 0;

	s = skip_space(s, end);
	/* Kernels before 2.6.35 spelled some "field special:". */
	if ((size_t)(end - s) >= 14 && !memcmp(s, "field special:", 14)) {
		s += 14;
	} else if ((size_t)(end - s) >= 6 && !memcmp(s, "field:", 6)) {
		s += 6;
	} else {
		*why = "expected 'field:'";
		return -1;
	}
	semi = memchr(s, ';', (size_t)(end - s));
	if (!semi) {
		*why = "field declaration without ';'";
		return -1;
	}
	if (parse_decl(s, semi, f, why))
		return -1;
	f->is_signed = 0;
	s = semi + 1;
	for (;;) {
		const char *colon, *key;
		uint32_t v;

		s = skip_space(s, end);
		if (s == end)
			break;
		key = s;
		colon = memchr(s, ':', (size_t)(end - s));
		semi = memchr(s, ';', (size_t)(end - s));
		if (!colon || (semi && semi < colon)) {
			*why = "expected 'key:value;' after the declaration";
			return -1;
		}
		if (!semi)
			semi = end;
		if (parse_u32(colon + 1, semi, &v)) {
			*why = "bad number in field attributes";
			return -1;
		}
		if (colon - key == 6 && !memcmp(key, "offset", 6)) {
			f->offset = v;
			have_off = 1;
		} else if (colon - key == 4 && !memcmp(key, "size", 4)) {
			f->size = v;
			have_size = 1;
		} else if (colon - key == 6 && !memcmp(key, "signed", 6)) {
			f->is_signed = v != 0;
		}
		s = semi < end ? semi + 1 : end;
	}
	if (!have_off || !have_size) {
		*why = have_off ? "field without 'size:'" : "field without 'offset:'";
		return -1;
	}
	if ((uint64_t)f->offset + f->size > 0xffffffffu) {
		*why = "field offset + size overflows";
		return -1;
	}
	return 0;
}

/* The type without "__data_loc"/"__rel_loc" and surrounding blanks. */
static int elem_is(const char *type, const char *prefix, const char *want)
{
	const char *s = strstr(type, prefix);
	size_t n = strlen(want);

	if (!s)
		return 0;
	s += strlen(prefix);
	while (is_space((unsigned char)*s))
		s++;
	return !strncmp(s, want, n) && !s[n];
}

static int is_char_ptr(const char *type)
{
	char t[32];
	size_t n = 0;

	/* Compare with blanks removed: "const char *", "char*", ... */
	for (; *type && n < sizeof(t) - 1; type++)
		if (!is_space((unsigned char)*type))
			t[n++] = *type;
	t[n] = '\0';
	return !strcmp(t, "char*") || !strcmp(t, "constchar*");
}

static uint8_t field_kind(const char *type, uint32_t size)
{
	if (strstr(type, "__data_loc")) {
		if (strstr(type, "char"))
			return HIST_FIELD_DYN_STRING;
		if (elem_is(type, "__data_loc", "unsigned long[]"))
			return HIST_FIELD_STACK;
		return HIST_FIELD_DYN_ARRAY;
	}
	if (strstr(type, "__rel_loc"))
		return strstr(type, "char") ? HIST_FIELD_REL_STRING :
					      HIST_FIELD_REL_ARRAY;
	if (strchr(type, '[')) {
		if (strstr(type, "char"))
			return size ? HIST_FIELD_STRING : HIST_FIELD_FLEX_STRING;
		return HIST_FIELD_ARRAY;
	}
	if (is_char_ptr(type))
		return HIST_FIELD_PTR_STRING;
	if (size == 1 || size == 2 || size == 4 || size == 8)
		return HIST_FIELD_INT;
	/* A scalar of another size (a struct, __int128): raw bytes. */
	return HIST_FIELD_ARRAY;
}

static char *dup_n(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

void hist_ftrace_event_free(struct hist_ftrace_event *e)
{
	uint32_t i;

	if (!e)
		return;
	for (i = 0; i < e->desc.nr_fields; i++) {
		free((void *)e->desc.fields[i].name);
		free((void *)e->desc.fields[i].type);
	}
	free((void *)e->desc.fields);
	free((void *)e->desc.system);
	free((void *)e->desc.name);
	free(e->print_fmt);
	free(e);
}

/* Value after "KEY:" on a line, or NULL if the line is not KEY. */
static const char *line_key(const char *s, const char *end, const char *key)
{
	size_t n = strlen(key);

	if ((size_t)(end - s) < n || memcmp(s, key, n))
		return NULL;
	return skip_space(s + n, end);
}

static int add_field(struct hist_ftrace_event *e, uint32_t *cap,
		     const struct fline *fl)
{
	struct hist_field_desc *fields = (struct hist_field_desc *)e->desc.fields;
	struct hist_field_desc *f;

	if (e->desc.nr_fields == *cap) {
		uint32_t ncap = *cap ? *cap * 2 : 16;

		fields = realloc(fields, ncap * sizeof(*fields));
		if (!fields)
			return -HIST_ENOMEM;
		e->desc.fields = fields;
		*cap = ncap;
	}
	f = &fields[e->desc.nr_fields];
	memset(f, 0, sizeof(*f));
	f->name = dup_n(fl->name, strlen(fl->name));
	f->type = dup_n(fl->type, strlen(fl->type));
	if (!f->name || !f->type) {
		free((void *)f->name);
		free((void *)f->type);
		return -HIST_ENOMEM;
	}
	f->offset = fl->offset;
	f->size = fl->size;
	f->is_signed = (uint8_t)fl->is_signed;
	f->kind = field_kind(fl->type, fl->size);
	e->desc.nr_fields++;
	return 0;
}

int hist_ftrace_parse_format(const char *text, size_t len, const char *system,
			     struct hist_ftrace_event **out, char *errbuf,
			     size_t errlen)
{
	enum { HEAD, FIELDS, DONE } state = HEAD;
	const char *p, *end, *why = NULL;
	struct hist_ftrace_event *e;
	struct fline fl;
	uint32_t cap = 0, lineno = 0;
	int have_id = 0, have_format = 0, ret = -HIST_EINVAL;

	*out = NULL;
	if (!text)
		len = 0;
	/* A NUL ends the text: some writers pad with them. */
	p = text;
	end = len ? text + strnlen(text, len) : text;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -HIST_ENOMEM;
	e->desc.system = dup_n(system ? system : "", strlen(system ? system : ""));
	if (!e->desc.system)
		goto nomem;

	while (p < end && state != DONE) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *s = skip_space(p, le), *v;

		lineno++;
		if (s == le) {
			/* Blank: separates common and event fields. */
		} else if ((v = line_key(s, le, "print fmt:"))) {
			/* One line: the kernel escapes newlines in it. */
			const char *pe = trim_end(v, le);

			e->print_fmt = dup_n(v, (size_t)(pe - v));
			if (!e->print_fmt)
				goto nomem;
			state = DONE;
		} else if (state == FIELDS) {
			if (parse_field_line(s, le, &fl, &why))
				goto bad;
			if (e->desc.nr_fields >= MAX_FIELDS) {
				why = "too many fields";
				goto bad;
			}
			ret = add_field(e, &cap, &fl);
			if (ret)
				goto fail;
			ret = -HIST_EINVAL;
		} else if ((v = line_key(s, le, "name:"))) {
			const char *ne = trim_end(v, le);

			if (e->desc.name || v == ne) {
				why = e->desc.name ? "second 'name:'" : "empty name";
				goto bad;
			}
			e->desc.name = dup_n(v, (size_t)(ne - v));
			if (!e->desc.name)
				goto nomem;
		} else if ((v = line_key(s, le, "ID:"))) {
			if (have_id || parse_u32(v, le, &e->desc.id)) {
				why = have_id ? "second 'ID:'" : "bad ID";
				goto bad;
			}
			have_id = 1;
		} else if (line_key(s, le, "format:")) {
			state = FIELDS;
			have_format = 1;
		} else {
			why = "unexpected line (expected name:, ID: or format:)";
			goto bad;
		}
		p = nl ? nl + 1 : end;
	}
	lineno++;
	if (!e->desc.name) {
		why = "missing 'name:'";
		goto bad;
	}
	if (!have_id) {
		why = "missing 'ID:'";
		goto bad;
	}
	if (!have_format) {
		why = "missing 'format:'";
		goto bad;
	}
	*out = e;
	return 0;
nomem:
	ret = -HIST_ENOMEM;
	why = "out of memory";
	goto fail;
bad:
	if (e->desc.name)
		hist__msg(errbuf, errlen, "format of %s: line %u: %s",
			  e->desc.name, lineno, why);
	else
		hist__msg(errbuf, errlen, "format: line %u: %s", lineno, why);
	hist_ftrace_event_free(e);
	return ret;
fail:
	hist__msg(errbuf, errlen, "format: line %u: %s", lineno,
		  why ? why : "out of memory");
	hist_ftrace_event_free(e);
	return ret;
}

/*
 * header_page lists the sub-buffer header as fields: we need where the
 * commit word sits and how wide it is (the kernel's long), and where the
 * data starts.
 */
int hist_ftrace_parse_header_page(const char *text, size_t len,
				  struct hist_ftrace_page_fmt *out,
				  char *errbuf, size_t errlen)
{
	const char *p = text, *end, *why;
	int have_commit = 0, have_data = 0;
	uint32_t lineno = 0, data_size = 0;
	struct fline fl;

	memset(out, 0, sizeof(*out));
	end = text && len ? text + strnlen(text, len) : text;
	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *s = skip_space(p, le);

		lineno++;
		p = nl ? nl + 1 : end;
		if (s == le)
			continue;
		if (parse_field_line(s, le, &fl, &why)) {
			hist__msg(errbuf, errlen, "header_page: line %u: %s",
				  lineno, why);
			return -HIST_EINVAL;
		}
		if (!strcmp(fl.name, "commit")) {
			out->commit_offset = fl.offset;
			out->commit_size = fl.size;
			have_commit = 1;
		} else if (!strcmp(fl.name, "data")) {
			out->data_offset = fl.offset;
			data_size = fl.size;
			have_data = 1;
		}
	}
	if (!have_commit || !have_data) {
		hist__msg(errbuf, errlen, "header_page: no '%s' field",
			  have_commit ? "data" : "commit");
		return -HIST_EINVAL;
	}
	if (out->commit_size != 4 && out->commit_size != 8) {
		hist__msg(errbuf, errlen, "header_page: commit size %u (want 4 or 8)",
			  out->commit_size);
		return -HIST_EINVAL;
	}
	if (out->commit_offset + out->commit_size > out->data_offset ||
	    out->data_offset < 8 || out->data_offset > 4096) {
		hist__msg(errbuf, errlen,
			  "header_page: inconsistent layout (commit at %u, data at %u)",
			  out->commit_offset, out->data_offset);
		return -HIST_EINVAL;
	}
	/* The kernel's sub-buffer size, unless the caller knows better. */
	out->page_size = (uint32_t)((uint64_t)out->data_offset + data_size <= 0xffffffffu ?
				    out->data_offset + data_size : 0);
	return 0;
}
