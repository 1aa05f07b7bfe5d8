/* SPDX-License-Identifier: MIT */
/*
 * A libtracefs program, unchanged but for tracefs_set_tracing_dir(),
 * run against a histfs mount (test/test_histfs.c builds it with
 * `pkg-config libtracefs` when Debian's libtracefs-dev is installed):
 * tracefs_hist_* on a kernel event (two keys), tracefs_synth_* for a fork-to-exit
 * latency, and a hist on the synthetic event.
 *
 *   libtracefs-check MOUNTPOINT      exit 0 when everything worked
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tracefs.h>

static int failures;

#define CHECK(c)                                                               \
	do {                                                                   \
		if (!(c)) {                                                    \
			fprintf(stderr, "libtracefs-check:%d: %s\n", __LINE__, #c); \
			failures++;                                            \
		}                                                              \
	} while (0)

static void forks(int n)
{
	while (n--) {
		pid_t p = fork();

		if (p == 0)
			_exit(0);
		if (p > 0)
			waitpid(p, NULL, 0);
	}
}

static char *event_file(const char *sys, const char *ev, const char *file)
{
	return tracefs_event_file_read(NULL, sys, ev, file, NULL);
}

int main(int argc, char **argv)
{
	const char *systems[] = { "sched", NULL };
	const char *synth_sys[] = { "synthetic", NULL };
	struct tracefs_synth *synth;
	struct tracefs_hist *hist, *shist;
	struct tep_handle *tep, *tep2;
	char *text, pid[32], want[64];

	if (argc != 2) {
		fprintf(stderr, "usage: libtracefs-check MOUNTPOINT\n");
		return 2;
	}
	CHECK(tracefs_set_tracing_dir(argv[1]) == 0);
	CHECK(!strcmp(tracefs_tracing_dir(), argv[1]));
	tep = tracefs_local_events_system(NULL, systems);
	CHECK(tep != NULL);
	if (!tep)
		return 1;

	/* a histogram of a kernel event: start, pause, continue, clear, destroy */
	hist = tracefs_hist_alloc(tep, "sched", "sched_process_fork", "child_comm",
				  TRACEFS_HIST_KEY_NORMAL);
	CHECK(hist != NULL);
	CHECK(tracefs_hist_add_value(hist, "child_pid") == 0);
	/* a second key: our forks all have the one parent */
	CHECK(tracefs_hist_add_key(hist, "parent_pid", TRACEFS_HIST_KEY_NORMAL) == 0);
	CHECK(tracefs_hist_add_sort_key(hist, "child_comm") == 0);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	{
		/* the children's comm is ours */
		FILE *f = fopen("/proc/self/comm", "r");
		char comm[32] = "";

		if (f && fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = 0;
		if (f)
			fclose(f);
		snprintf(want, sizeof(want), "{ child_comm: %s ", comm);
	}
	/* only our forks: the machine forks too */
	CHECK(tracefs_hist_append_filter(hist, TRACEFS_FILTER_COMPARE, "parent_pid",
					 TRACEFS_COMPARE_EQ, pid) == 0);
	if (tracefs_hist_start(NULL, hist)) {
		/* say why */
		char *t = event_file("sched", "sched_process_fork", "trigger");
		char *e = tracefs_instance_file_read(NULL, "error_log", NULL);

		fprintf(stderr, "libtracefs-check: tracefs_hist_start: %m\ntrigger:\n%s"
			"error_log:\n%s", t ? t : "", e ? e : "");
		free(t);
		free(e);
		failures++;
	}
	forks(5);
	text = event_file("sched", "sched_process_fork", "hist");
	CHECK(text && strstr(text, want) && strstr(text, "hitcount:          5"));
	if (text && !strstr(text, want))
		fputs(text, stderr);
	CHECK(text && strstr(text, "child_pid:"));
	snprintf(want, sizeof(want), "parent_pid: %10s }", pid);
	CHECK(text && strstr(text, want));
	free(text);
	CHECK(tracefs_hist_pause(NULL, hist) == 0);
	text = event_file("sched", "sched_process_fork", "trigger");
	CHECK(text && strstr(text, "[paused]"));
	free(text);
	CHECK(tracefs_hist_continue(NULL, hist) == 0);
	CHECK(tracefs_hist_reset(NULL, hist) == 0);
	text = event_file("sched", "sched_process_fork", "hist");
	CHECK(text && strstr(text, "Hits: 0"));
	free(text);
	CHECK(tracefs_hist_destroy(NULL, hist) == 0);
	text = event_file("sched", "sched_process_fork", "trigger");
	CHECK(text && !strncmp(text, "# Available triggers:", 21));
	free(text);
	tracefs_hist_free(hist);

	/* a synthetic event: fork -> exit of the child, its latency */
	synth = tracefs_synth_alloc(tep, "forklat", "sched", "sched_process_fork", "sched",
				    "sched_process_exit", "child_pid", "pid", "pid");
	CHECK(synth != NULL);
	if (!synth)
		return 1;
	CHECK(tracefs_synth_add_compare_field(synth, TRACEFS_TIMESTAMP_USECS,
					      TRACEFS_TIMESTAMP_USECS,
					      TRACEFS_SYNTH_DELTA_END, "lat") == 0);
	CHECK(tracefs_synth_create(synth) == 0);
	text = tracefs_instance_file_read(NULL, "synthetic_events", NULL);
	CHECK(text && strstr(text, "forklat"));
	free(text);
	tep2 = tracefs_local_events_system(NULL, synth_sys);
	CHECK(tep2 != NULL);
	shist = tep2 ? tracefs_hist_alloc(tep2, "synthetic", "forklat", "pid",
					  TRACEFS_HIST_KEY_NORMAL)
		     : NULL;
	CHECK(shist != NULL);
	if (shist) {
		CHECK(tracefs_hist_add_value(shist, "lat") == 0);
		CHECK(tracefs_hist_start(NULL, shist) == 0);
		forks(5);
		text = event_file("synthetic", "forklat", "hist");
		CHECK(text && strstr(text, "{ pid:") && strstr(text, "lat:"));
		free(text);
		CHECK(tracefs_hist_destroy(NULL, shist) == 0);
		tracefs_hist_free(shist);
	}
	CHECK(tracefs_synth_destroy(synth) == 0);
	text = tracefs_instance_file_read(NULL, "synthetic_events", NULL);
	CHECK(!text || !strstr(text, "forklat"));
	free(text);
	tracefs_synth_free(synth);
	tep_free(tep);
	if (tep2)
		tep_free(tep2);
	printf("libtracefs-check: %d failures\n", failures);
	return failures ? 1 : 0;
}
