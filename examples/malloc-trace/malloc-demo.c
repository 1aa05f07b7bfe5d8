/* SPDX-License-Identifier: MIT */
/*
 * A workload to try libhist-malloc.so on, with allocations whose sizes
 * are known: 4 threads, each 2000 x malloc(64), 200 x malloc(4000) and
 * 20 x malloc(1 MiB) (served by mmap, so much slower), all freed.
 *
 *   LD_PRELOAD=build/examples/malloc-trace/libhist-malloc.so \
 *	build/examples/malloc-trace/malloc-demo
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 4

/* every block escapes through here, so no compiler can drop a
 * malloc/free pair it can see through */
static void *volatile keep;

static void *work(void *arg)
{
	static const struct { size_t size; int count; } plan[] = {
		{ 64, 2000 }, { 4000, 200 }, { 1 << 20, 20 },
	};
	size_t i;
	int k;

	(void)arg;
	for (i = 0; i < sizeof(plan) / sizeof(plan[0]); i++) {
		for (k = 0; k < plan[i].count; k++) {
			char *p = malloc(plan[i].size);

			if (!p)
				return NULL;
			memset(p, k, 16);
			keep = p;
			free(p);
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	int i;

	for (i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, work, NULL))
			return 1;
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("malloc-demo: %d threads done\n", THREADS);
	return 0;
}
