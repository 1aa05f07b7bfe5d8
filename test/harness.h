/* SPDX-License-Identifier: MIT */
/*
 * A tiny TAP-style harness: no external framework, no libc beyond stdio,
 * so the tests also build for the freestanding configuration's host side.
 *
 *   static void test_x(void) { T_ASSERT(1 + 1 == 2); T_STREQ(a, b); }
 *   int main(void) { T_RUN(test_x); return T_DONE(); }
 *
 * Each T_RUN is one test; it fails if any assertion in it fails.  The
 * program ends with "N passed, N failed" and exits non-zero on failure.
 */
#ifndef HIST_TEST_HARNESS_H
#define HIST_TEST_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>

static int t__pass, t__fail, t__cur_failed;

/* The tests' pseudo-random numbers: xorshift64 on the state *S (not 0). */
static inline uint64_t t_xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#define T_FAILF(...)                                                           \
	do {                                                                   \
		printf("#   %s:%d: ", __FILE__, __LINE__);                    \
		printf(__VA_ARGS__);                                           \
		printf("\n");                                                  \
		t__cur_failed = 1;                                             \
	} while (0)

#define T_ASSERT(c)                                                            \
	do {                                                                   \
		if (!(c))                                                      \
			T_FAILF("assertion failed: %s", #c);                   \
	} while (0)

#define T_EQ(a, b)                                                             \
	do {                                                                   \
		long long t__a = (long long)(a), t__b = (long long)(b);        \
		if (t__a != t__b)                                              \
			T_FAILF("%s == %lld, expected %s == %lld", #a, t__a,   \
				#b, t__b);                                     \
	} while (0)

#define T_EQU(a, b)                                                            \
	do {                                                                   \
		unsigned long long t__a = (unsigned long long)(a),             \
				   t__b = (unsigned long long)(b);             \
		if (t__a != t__b)                                              \
			T_FAILF("%s == %llu, expected %llu", #a, t__a, t__b); \
	} while (0)

#define T_STREQ(a, b)                                                          \
	do {                                                                   \
		const char *t__a = (a), *t__b = (b);                           \
		if (!t__a || !t__b || strcmp(t__a, t__b))                      \
			T_FAILF("strings differ:\n--- got:\n%s\n--- expected:\n%s", \
				t__a ? t__a : "(null)", t__b ? t__b : "(null)"); \
	} while (0)

/* T_ONLY=name[,name...] runs only the tests named (while debugging one) */
#define T_RUN(fn)                                                              \
	do {                                                                   \
		const char *t__only = getenv("T_ONLY");                        \
		if (t__only && !strstr(t__only, #fn))                          \
			break;                                                 \
		t__cur_failed = 0;                                             \
		fn();                                                          \
		if (t__cur_failed) {                                           \
			t__fail++;                                             \
			printf("not ok %d - %s\n", t__pass + t__fail, #fn);    \
		} else {                                                       \
			t__pass++;                                             \
			printf("ok %d - %s\n", t__pass + t__fail, #fn);        \
		}                                                              \
		fflush(stdout);                                                \
	} while (0)

#define T_DONE()                                                               \
	(printf("%d passed, %d failed\n", t__pass, t__fail), t__fail ? 1 : 0)

#endif
