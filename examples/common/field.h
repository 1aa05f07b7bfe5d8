/* SPDX-License-Identifier: MIT */
/*
 * A field of an event by name, for the tools (hist-replay's record
 * decoding and markers, hist-live's reading of kernel filters): one
 * lookup, header-only, so every tool and test that includes it links
 * nothing more.
 */
#ifndef HIST_TOOL_FIELD_H
#define HIST_TOOL_FIELD_H

#include <string.h>

#include "libhist.h"

/* D's field NAME, or NULL. */
static inline const struct hist_field_desc *tool_find_field(const struct hist_event_desc *d,
							     const char *name)
{
	uint32_t i;

	for (i = 0; d && i < d->nr_fields; i++)
		if (!strcmp(d->fields[i].name, name))
			return &d->fields[i];
	return NULL;
}

#endif
