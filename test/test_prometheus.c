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

static char tmp[256];
#include "test_shell.h"

static char build[1024] = "build";

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
	const char *slash = strrchr(argv[0], '/');

	(void)argc;
	/* BUILD/test/test_prometheus -> BUILD */
	if (slash && slash - argv[0] >= 5 && !strncmp(slash - 5, "/test", 5))
		snprintf(build, sizeof(build), "%.*s", (int)(slash - argv[0] - 5), argv[0]);
	snprintf(tmp, sizeof(tmp), "/tmp/test_prometheus.XXXXXX");
	if (!mkdtemp(tmp))
		return 1;
	T_RUN(test_prometheus_scrape);
	sh(0, "rm -rf %s", tmp);
	return T_DONE();
}
