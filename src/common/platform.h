/* SPDX-License-Identifier: MIT */
/*
 * The one place that knows the compiler, the atomics and the C library.
 *
 * Everything else in src/ (the ftrace adapter aside) includes only this
 * header and its own module headers, so a kernel shim or an RTOS port
 * replaces this file and nothing else.  The core needs from the platform:
 * fixed-width integers, memcpy/memset/memcmp/strlen-like helpers, an
 * allocator (routed through hist_set_allocator()), and C11-style atomics
 * on 32- and 64-bit words.
 *
 * Layers (README "Architecture"): [common] < map schema < filter expr <
 * core < synth < actions < parse output < api < ftrace.
 * common/ calls nothing; every other module may call it.
 */
#ifndef HIST_PLATFORM_H
#define HIST_PLATFORM_H

/* Freestanding headers only: the compiler provides these everywhere. */
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef HIST_FREESTANDING
/*
 * No C library: these are the only libc functions the core calls.
 * src/common/freestanding.c provides them (a port may provide faster ones
 * and leave that file out); they keep their standard names because the
 * compiler itself emits calls to memcpy/memset/memmove/memcmp.
 */
void *memcpy(void *restrict d, const void *restrict s, size_t n);
void *memmove(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
void *memchr(const void *s, int c, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t n);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
char *strstr(const char *h, const char *n);
/* Bytes of the static arena that replaces malloc (hist_set_allocator()
 * can still install another allocator). */
#ifndef HIST_ARENA_SIZE
#define HIST_ARENA_SIZE (8u << 20)
#endif
#else
#include <string.h>
#endif

#if defined(__GNUC__) || defined(__clang__)
#define hist__likely(x) __builtin_expect(!!(x), 1)
#define hist__unlikely(x) __builtin_expect(!!(x), 0)
#define HIST__INTERNAL __attribute__((visibility("hidden")))
#define HIST__ALIGNED(n) __attribute__((aligned(n)))
#define HIST__UNUSED __attribute__((unused))
#define HIST__NOINLINE __attribute__((noinline))
#define HIST__ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define hist__likely(x) (x)
#define hist__unlikely(x) (x)
#define HIST__INTERNAL
#define HIST__ALIGNED(n)
#define HIST__UNUSED
#define HIST__NOINLINE
#define HIST__ALWAYS_INLINE inline
#endif

#define HIST__CACHELINE 64
#define HIST__ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Atomics.  The GCC/Clang __atomic builtins work on plain integer objects,
 * which lets structures stay plain C (readable from C++ and from a kernel
 * build that maps these macros onto READ_ONCE/smp_load_acquire/cmpxchg).
 * Orderings are spelled out at every use site; see the contract at the top
 * of src/map/map.c.
 */
#define hist__load_relaxed(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define hist__load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define hist__store_relaxed(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define hist__store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define hist__add_relaxed(p, v) ((void)__atomic_fetch_add((p), (v), __ATOMIC_RELAXED))
#define hist__fetch_add_relaxed(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
#define hist__fetch_sub_relaxed(p, v) __atomic_fetch_sub((p), (v), __ATOMIC_RELAXED)
/* Strong CAS; on failure *expected is updated with the current value. */
#define hist__cas_acq_rel(p, expected, desired)                                  \
	__atomic_compare_exchange_n((p), (expected), (desired), false,           \
				    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)
#define hist__and_relaxed(p, v) ((void)__atomic_fetch_and((p), (v), __ATOMIC_RELAXED))
#define hist__or_relaxed(p, v) ((void)__atomic_fetch_or((p), (v), __ATOMIC_RELAXED))
#define hist__or_release(p, v) ((void)__atomic_fetch_or((p), (v), __ATOMIC_RELEASE))
/* Sequentially consistent: for the rare store-then-load handshakes
 * (two threads each publish a word, then look for the other's). */
#define hist__cas_seq_cst(p, expected, desired)                                  \
	__atomic_compare_exchange_n((p), (expected), (desired), false,           \
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)
#define hist__load_seq_cst(p) __atomic_load_n((p), __ATOMIC_SEQ_CST)
/*
 * *P += V for a word that one thread alone writes (a cpu slot's sums and
 * counters, contract 10 in map.c) and others read with relaxed loads.
 * The owner may be interrupted by a signal handler that adds to the same
 * word, so the add must be one instruction: signals are taken between
 * instructions, never inside one (the kernel's this_cpu_add() rests on
 * the same fact for interrupts).  x86 has a memory-destination add
 * without the LOCK prefix: no bus lock, and an aligned 8-byte store is
 * never torn for a reader.  Other ISAs load and store separately, so they
 * take a relaxed atomic add (one instruction with Arm LSE); so do TSan
 * builds, which cannot see into the asm.
 */
#if defined(__SANITIZE_THREAD__)
#define HIST__LOCAL_ADD_ATOMIC 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define HIST__LOCAL_ADD_ATOMIC 1
#endif
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && \
	!defined(HIST__LOCAL_ADD_ATOMIC)
static inline void hist__add_local(uint64_t *p, uint64_t v)
{
	__asm__ __volatile__("addq %1, %0" : "+m"(*p) : "er"(v) : "cc");
}
#else
#define hist__add_local(p, v) hist__add_relaxed((p), (v))
#endif
/* Orders this thread's accesses against a signal handler on the same
 * thread: a compiler barrier, no instruction. */
#define hist__signal_fence() __atomic_signal_fence(__ATOMIC_SEQ_CST)
/* A spin-wait hint: lets the other hardware thread of the core run and
 * slows the loop down (x86 PAUSE, Arm YIELD), so a bounded spin lasts
 * long enough to outwait a claimant that an interrupt held up. */
#if defined(__x86_64__) || defined(__i386__)
#define hist__cpu_relax() __builtin_ia32_pause()
#elif defined(__aarch64__) || defined(__arm__)
#define hist__cpu_relax() __asm__ __volatile__("yield" ::: "memory")
#else
#define hist__cpu_relax() hist__signal_fence()
#endif

/*
 * V, with the compiler kept from knowing where it came from: a value a
 * compare picks stays a conditional move instead of turning into a
 * branch where a later test of the same compare would make a branch look
 * cheaper (a branch on data goes the wrong way whenever the data does).
 * No instruction.
 */
#if defined(__GNUC__) || defined(__clang__)
static inline uintptr_t hist__opaque(uintptr_t v)
{
	__asm__("" : "+r"(v));
	return v;
}
#else
#define hist__opaque(v) ((uintptr_t)(v))
#endif

/*
 * The calling thread's thread pointer, read in one instruction where the
 * ABI keeps one there: the x86-64 ABI puts the address of the thread's
 * control block at %fs:0 (glibc and musl alike), unique among the
 * threads alive at once.  Elsewhere HIST__HAVE_THREAD_POINTER is 0 and
 * the caller takes the address of a thread-local word instead.
 */
#if defined(__x86_64__) && defined(__linux__) && (defined(__GNUC__) || defined(__clang__)) && \
	!defined(HIST_FREESTANDING)
#define HIST__HAVE_THREAD_POINTER 1
static inline uintptr_t hist__thread_pointer(void)
{
	uintptr_t p;

	/* Not volatile: the same value everywhere in one thread. */
	__asm__("mov %%fs:0, %0" : "=r"(p));
	return p;
}
#else
#define HIST__HAVE_THREAD_POINTER 0
#endif

/* Allocation: zeroed memory through the hook set by hist_set_allocator(). */
void *hist__zalloc(size_t size) HIST__INTERNAL;
void hist__free(void *p) HIST__INTERNAL;
char *hist__strdup(const char *s) HIST__INTERNAL;
char *hist__strndup(const char *s, size_t n) HIST__INTERNAL;
/* Room for NEED elements of ELEM bytes in the array *ARRP (a T **) of
 * *CAP: its capacity doubled from FIRST, contents copied, the rest zeroed.
 * 0 or -HIST_ENOMEM (*ARRP and *CAP unchanged).  May allocate. */
int hist__grow(void *arrp, size_t *cap, size_t need, size_t elem,
	       size_t first) HIST__INTERNAL;

/*
 * A deferred free, embedded in every object that a running hit may still
 * be reading when a control call takes it away (like the kernel's
 * rcu_head), so that retiring it never allocates: see hist__retire().
 */
struct hist__retired {
	struct hist__retired *next;
	void (*free_fn)(void *p);
	void *p;
};

/* Text helpers that the freestanding build cannot take from libc. */
int hist__parse_u64(const char *s, size_t n, int base, uint64_t *out) HIST__INTERNAL;
int hist__parse_s64(const char *s, size_t n, int base, int64_t *out) HIST__INTERNAL;

#endif /* HIST_PLATFORM_H */
