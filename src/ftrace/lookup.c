/* SPDX-License-Identifier: MIT */
/*
 * Read-only queries over an opened trace.dat: file facts, event formats by
 * name or ID, saved cmdlines, printk formats, kallsyms, and the hist_host
 * callbacks built on them.  Any number of threads may call them once open
 * has returned: the only change they make is the first use of a table
 * (kallsyms, printk formats, cmdlines), which hist__td_load() makes once
 * under a lock and publishes.
 */
#include <stdio.h>
#include <string.h>

#include "ftrace_int.h"

int hist_tracedat_version(const struct hist_tracedat *td)
{
	return td->version;
}

uint32_t hist_tracedat_nr_cpus(const struct hist_tracedat *td)
{
	return td->nr_cpus;
}

const char *hist_tracedat_clock(const struct hist_tracedat *td)
{
	return td->clock;
}

uint32_t hist_tracedat_nr_events(const struct hist_tracedat *td)
{
	return td->nr_events;
}

const struct hist_ftrace_event *hist_tracedat_event(const struct hist_tracedat *td,
						    uint32_t i)
{
	return i < td->nr_events ? td->events[i] : NULL;
}

const struct hist_ftrace_event *hist_tracedat_find_event(const struct hist_tracedat *td,
							 const char *system,
							 const char *name)
{
	uint32_t i;

	for (i = 0; i < td->nr_events; i++) {
		const struct hist_event_desc *d = &td->events[i]->desc;

		if (!strcmp(d->name, name) && (!system || !strcmp(d->system, system)))
			return td->events[i];
	}
	return NULL;
}

const struct hist_ftrace_event *hist_tracedat_event_by_id(const struct hist_tracedat *td,
							  uint32_t id)
{
	uint32_t i;

	if (id < td->nr_by_id)
		return td->by_id[id];
	for (i = 0; i < td->nr_events; i++)
		if (td->events[i]->desc.id == id)
			return td->events[i];
	return NULL;
}

const char *hist_tracedat_cmdline(const struct hist_tracedat *td, int32_t pid)
{
	hist__td_load(td, HIST__LZ_CMDLINES);
	return hist__cmdlines_find(&td->cmdlines, pid);
}

int hist_tracedat_comm_cb(void *data, int32_t pid, char comm[16])
{
	const char *s;

	hist__td_load(data, HIST__LZ_CMDLINES);
	s = hist__cmdlines_find(&((struct hist_tracedat *)data)->cmdlines, pid);

	if (!s)
		return -HIST_ENOENT;
	snprintf(comm, 16, "%s", s);
	return 0;
}

const char *hist_tracedat_printk_fmt(const struct hist_tracedat *td, uint64_t addr)
{
	hist__td_load(td, HIST__LZ_PRINTK);
	return hist__printk_find(&td->printk, addr);
}

const char *hist_tracedat_uname(const struct hist_tracedat *td)
{
	return td->uname ? td->uname : "";
}

int64_t hist_tracedat_ts_offset(const struct hist_tracedat *td)
{
	return td->ts_offset;
}

const struct hist_ftrace_page_fmt *hist_tracedat_page_fmt(const struct hist_tracedat *td)
{
	return &td->pfmt;
}

int hist_tracedat_sym(void *data, uint64_t addr, int with_offset, char *buf, size_t len)
{
	const struct hist_tracedat *td = data;

	if (!td)
		return -1;
	hist__td_load(td, HIST__LZ_KSYMS);
	if (!td->ksyms.nr)
		return -1;
	return hist__ksyms_lookup(&td->ksyms, addr, with_offset, buf, len);
}

int hist_tracedat_sym_addr(void *data, const char *name, size_t n, uint64_t *addr)
{
	const struct hist_tracedat *td = data;
	uint32_t i;

	if (!td || !name || !addr)
		return -1;
	hist__td_load(td, HIST__LZ_KSYMS);
	for (i = 0; i < td->ksyms.nr; i++) {
		const char *s = td->ksyms.text + td->ksyms.syms[i].name;

		if (!strncmp(s, name, n) && s[n] == 0) {
			*addr = td->ksyms.syms[i].addr;
			return 0;
		}
	}
	return -1;
}

int hist_tracedat_find_event_cb(void *data, const char *system, const char *name,
				struct hist_event_desc *out)
{
	const struct hist_ftrace_event *e;

	if (!data || !name)
		return -HIST_ENOENT;
	e = hist_tracedat_find_event(data, system, name);
	if (!e)
		return -HIST_ENOENT;
	*out = e->desc;
	out->host_event = (void *)e;
	return 0;
}
