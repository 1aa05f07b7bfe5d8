/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: histfs's write handlers, with histfs's own code for the
 * text of a write (examples/histfs/writes.c: the trim, the hist-command
 * test of a trigger write, the cut of a synthetic_events/dynamic_events
 * write into commands, the dynamic_events split between libhist and the
 * kernel).  The commands go to libhist as fs.c sends them; what fs.c
 * would pass to the kernel's file is only read (no kernel here).
 *
 * Input: writes separated by NUL bytes; each write is a selector byte, an
 * event byte, then the bytes written.  The selector picks the file:
 * 0 events/SYS/EV/trigger (the event byte picks one of fuzz_common.h's
 * events), 1 synthetic_events, 2 dynamic_events, 3 events/synthetic/NAME/
 * filter (the event byte picks a synthetic event), 4 its trigger.  At the
 * end every file is printed.
 */
#include "fuzz_common.h"
#include "../examples/histfs/writes.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FHW_MAX_WRITES 64

struct fhw {
	hist_ctx *ctx;
	int dyn;
};

/* fs.c's write_line(): libhist's commands to libhist, the others read */
static int fhw_line(void *arg, char *cmd)
{
	struct fhw *w = arg;
	struct hist_error err;
	struct fz_names nm;
	char *v[64];
	int synth = !w->dyn, ret;

	if (!synth) {
		char **names = strncmp(cmd, "-:", 2) && cmd[0] != 'e' ? NULL :
			       fz_synth_names(w->ctx, &nm, v, 64);

		synth = hfs_dyn_is_synth(cmd, names);
		if (hfs_dyn_is_synth_eprobe(cmd, names))
			return -EOPNOTSUPP;
	}
	if (!synth) {
		fz_touch(cmd, strlen(cmd));
		return 0;
	}
	{
		/* --kernel 5.10/5.11's check of a definition (hctx_old_synth()) */
		char echo[256];
		unsigned pos;
		int old = hfs_synth_check_5_10(cmd + (w->dyn && !strncmp(cmd, "s:", 2) ? 2 : 0),
					       echo, sizeof(echo), &pos);

		/* the caret falls inside the echoed command */
		if (old > 0 && pos > strlen(echo))
			abort();
	}
	ret = hist_synth_parse(w->ctx, cmd, w->dyn, &err);
	return ret > 0 ? -ret : ret;
}

static hist_event *fhw_synth_event(hist_ctx *ctx, uint8_t pick)
{
	struct fz_names nm;
	char *v[64];
	size_t n;

	fz_synth_names(ctx, &nm, v, 64);
	for (n = 0; v[n]; n++)
		;
	return n ? hist_event_lookup(ctx, "synthetic", v[pick % n]) : NULL;
}

static void fhw_write(hist_ctx *ctx, uint8_t sel, uint8_t pick, const char *buf,
		      size_t size)
{
	struct fhw w = { ctx, 0 };
	struct hist_error err;
	hist_event *ev = NULL;
	char *cmd;

	switch (sel % 5) {
	case 1:
	case 2:
		w.dyn = sel % 5 == 2;
		hfs_each_line(buf, size, !w.dyn, fhw_line, &w);
		return;
	case 0:
		ev = hist_event_lookup(ctx, fz_events[pick % FZ_NR_EVENTS].system,
				       fz_events[pick % FZ_NR_EVENTS].name);
		break;
	default:
		ev = fhw_synth_event(ctx, pick);
		break;
	}
	cmd = hfs_command(buf, size);
	if (!cmd || !ev) {
		free(cmd);
		return;
	}
	if (sel % 5 == 3)
		hist_event_set_filter(ev, cmd, &err);
	else if (*cmd && hctx_is_hist_cmd(cmd))
		hist_trigger_parse(ev, cmd, &err);
	else
		fz_touch(cmd, strlen(cmd));	/* the kernel's trigger file */
	free(cmd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hist_ctx *ctx = fz_ctx_create();
	size_t i = 0;
	unsigned nr = 0;

	if (!ctx)
		return 0;
	while (i + 2 <= size && nr++ < FHW_MAX_WRITES) {
		const uint8_t *end = memchr(data + i + 2, 0, size - i - 2);
		size_t len = (end ? (size_t)(end - data) : size) - i - 2;

		/* a FUSE write is bytes with a length: no NUL byte inside */
		fhw_write(ctx, data[i], data[i + 1], (const char *)data + i + 2, len);
		i += 2 + len + 1;
	}
	fz_print_all(ctx);
	hist_ctx_destroy(ctx);
	return 0;
}
