/* SPDX-License-Identifier: MIT */
/*
 * A real Prometheus scrapes hist-replay --listen: test/prom_e2e.py starts
 * both on 127.0.0.1, waits for a scrape and checks the counts and
 * histogram_quantile() through Prometheus's HTTP API, then survives
 * hostile clients.  SKIP (with the reason) where prometheus or
 * libmicrohttpd is missing.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "util.h"

static char tmp[256];
#include "test_shell.h"

static char build[1024];

static void test_prometheus_scrape(void)
{
	const char *py = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
	int rc;

	if (sh(0, "%s/hist-replay --listen 127.0.0.1:x /dev/null 2>&1 | grep -q libmicrohttpd",
	       build) == 0) {
		printf("# SKIP hist-replay built without libmicrohttpd (libmicrohttpd-dev)\n");
		return;
	}
	rc = sh(1, "%s test/prom_e2e.py %s", py, build);
	if (rc == 77) {
		printf("# SKIP prometheus missing (Debian: prometheus)\n");
		return;
	}
	sh(0, "sed 's/^/# /' %s/out", tmp);
	T_EQ(rc, 0);
}

int main(int argc, char **argv)
{
	(void)argc;
	t_build_dir(build, sizeof(build), argv[0]);
	if (t_scratch(tmp, sizeof(tmp), "test_prometheus"))
		return 1;
	T_RUN(test_prometheus_scrape);
	t_scratch_remove(tmp);
	return T_DONE();
}
