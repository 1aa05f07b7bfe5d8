/* SPDX-License-Identifier: MIT */
/* Handlers and actions.  Not implemented yet: see issue "Inter-event". */
#include "actions/actions.h"

int hist__actions_parse(struct hist__fctx *fc)
{
	if (!fc->nr_actions)
		return 0;
	/* Rejected without a log entry until the inter-event work lands. */
	hist__perr_add(fc->err, -HIST_EINVAL, -1, NULL, 0);
	return -HIST_EINVAL;
}

bool hist__actions_match(const struct hist__hist *a, const struct hist__hist *b)
{
	return a->nr_actions == 0 && b->nr_actions == 0;
}

void hist__actions_print_spec(struct hist__sb *sb, const struct hist__hist *h)
{
	(void)sb;
	(void)h;
}

void hist__actions_print_entry(struct hist__sb *sb, const struct hist__hist *h,
			       struct hist_map_elt *elt)
{
	(void)sb;
	(void)h;
	(void)elt;
}

void hist__actions_print_snapshot(struct hist__sb *sb, const struct hist__hist *h)
{
	(void)sb;
	(void)h;
}
