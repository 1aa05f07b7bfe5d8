/* SPDX-License-Identifier: MIT */
/*
 * tracing_map: a lock-free, insert-only hash map of fixed-size elements.
 *
 * Data structures
 * ---------------
 * struct hist_map (map_inline.h) holds, in its first cache line, what every
 * hit reads and nobody writes after create: the slot and sum arrays, their
 * geometry and the hash hook.
 * The element counter NR_ELTS sits on a cache line of its own; it is written
 * only when a new key is inserted.
 *
 * SLOTS is an open-addressing table of 2^(bits+1) slots (load factor at
 * most 0.5, like the kernel's), linear probing, 64-byte aligned.  Elements
 * live inline in their slot (layout in map_inline.h): the state word, the
 * key, the home slot's sums and the payload are adjacent, so a hit with no
 * collision touches one slot and, for slots of 16, 32 or 64 bytes, exactly
 * one cache line.  A key's chain starts at the slot its hash picks, or,
 * in a table of 32-byte slots that fits a last-level cache, at the first
 * slot of that slot's line (hist__map_start()), so that the hit path
 * looks at both slots of the line at once (hist__map_first_line32()).
 * For an 8-byte key and two sums a slot is 32 bytes: 64 bytes of table
 * per element of capacity.  A 16 to 40-byte key with two sums takes a
 * whole 64-byte line when there are several cpu slots, so that its
 * home's sums can be inline too (see below).
 *
 * The state word of a slot moves only forward until the next clear:
 *
 *	EMPTY (0) --CAS--> BUSY|tag --release--> READY|home|tag --or--> +CROSSED
 *	                           \--store----> DEAD
 *
 * TAG is 16 bits of the key's hash, so a prober skips most foreign slots
 * without touching their key.  DEAD is a claim that lost the capacity race:
 * it is never reused (a slot going back to EMPTY would cut the probe chain
 * of any key placed after it) and probers step over it.
 *
 * PCPU is an array of nr_cpus + 1 counter blocks, one cache line each,
 * holding hits and drops; the cpu argument of an insert picks one (cpu %
 * nr_cpus), so concurrent hits from different cpus write no common line.
 * The last block is the shared one (HIST__MAP_SHARED callers).
 *
 * Per-cpu sums (pcpu_sums)
 * ------------------------
 * Every element has an owner for each of its sum words, so that no hit
 * needs a locked instruction and no two cpus write one line per event:
 *
 * - The inline sums, in the slot after the key, belong to the element's
 *   HOME: the cpu slot whose hit created it (HIST__MAP_HOME_SHARED for a
 *   HIST__MAP_SHARED creator, whose inline sums then take the shared
 *   callers' atomic adds).  A hit through the home slot on an element
 *   that no other slot has hit touches one line: key and sums together.
 * - SUMS holds nr_cpus + 1 copies of every element's sums, each copy an
 *   array of capacity * nr_sums u64 indexed by the element index (the
 *   claim order, kept in the slot's meta word), each on lines of its
 *   own.  A hit through any other slot adds to that slot's copy; the
 *   last copy takes the atomic adds of HIST__MAP_SHARED callers.  Such a
 *   hit also sets CROSSED in the state word (once), and from then on the
 *   home slot adds to its copy as well: a key popular on several cpus
 *   keeps a read-only element line instead of one the home cpu writes
 *   and the others read on every event.
 *
 * Two elements of one cache line with different home slots would have
 * two owners writing that line, so the element created second looks at
 * the other element of its line (32-byte slots, two per line): if that
 * one is another slot's, or CROSSED, both are marked CROSSED and the
 * copies take over.  Marking an element CROSSED marks its line neighbour
 * too (the line is now read by another cpu on every hit).  A home hit
 * then checks nothing but its own state word.  These are placement
 * hints: a neighbour missed in a race costs a shared line, never a
 * count, since each word still has one writer.  Inline sums are used
 * only where that check covers every neighbour (32-byte slots), where a
 * slot is a line of its own (64-byte slots: no neighbour), or where
 * there is one cpu slot; other maps publish every element CROSSED and
 * keep no inline sums.
 *
 * The MULTI word of the params (the context's: set once two threads own
 * cpu slots) turns the inline sums off for every later hit: from then on
 * the home slot adds to its copy as the others do, and no hit writes a
 * table line.  With two writer threads, a line written by one and read
 * by the other (a neighbour, a probe passing over it, or the hardware
 * prefetchers) costs more than the copy line each hit then writes (see
 * hist__map_not_home()).  One thread that hits through several slots
 * keeps the inline sums.
 *
 * A read adds the inline sums and the copies marked in USED (a copy's
 * first use sets its bit), so reads cost the copies in use, not nr_cpus.
 * This is the kernel's per-cpu counter idea; the copies cost nr_cpus + 1
 * times 8 bytes per sum per element of capacity, allocated up front (a
 * hit never allocates) and never touched unless a key is hit from more
 * than one slot, so it is an option of the map.
 *
 * With hits_sum0 (sum 0 counts the hits, as a hist's hitcount does) the
 * map keeps no hit counter: a hit writes its sums and nothing else, and
 * hist__map_hits() adds up sum 0 of every element.
 *
 * Concurrency contract
 * --------------------
 * 1. hist__map_insert(), hist__map_lookup(), hist__map_collect(), the
 *    element accessors and the counter reads may run on any number of
 *    threads at once.  None of them locks or allocates.
 * 2. create, destroy and clear run on the control thread with no insert,
 *    lookup or collect in flight on the map (clear zeroes slots with plain
 *    stores; only the hits/drops/entries reads may overlap it).  Element
 *    pointers obtained before a clear are dangling in meaning afterwards.
 *    The caller publishes the map (or the end of a clear) to other threads
 *    with its own release/acquire or thread start; the zeroed slots and
 *    counters become visible to them through that.
 * 3. A new element is claimed by the CAS EMPTY -> BUSY|home|tag on its slot
 *    (HOME: the claiming cpu slot's); only the winner writes the slot's
 *    meta word, key and (through elt_init) its payload.  The store-release
 *    of READY|home|tag publishes all of those.
 * 4. Every load of a state word that may lead to reading a key or payload is
 *    an acquire and pairs with the release in 3 (the CAS also acquires on
 *    failure, for the same reason).  A READY slot never changes again, so
 *    its key and non-sum payload can be read without further ordering.
 *    One read comes before the state's: hist__map_first_line32() loads the
 *    key word of a line's second slot (relaxed; the claimant stores an
 *    8-byte key relaxed for it) only to guess which slot to look at, and
 *    compares the key again after the acquire before it uses the slot.
 * 5. Capacity is rationed by a relaxed fetch_add on NR_ELTS made after the
 *    slot is claimed; the claim that finds the counter at or past capacity
 *    marks its slot DEAD and counts a drop.  The counter is never decremented
 *    before a clear, so once it has passed capacity every later claim fails;
 *    a relaxed pre-check skips the claim altogether when the map is full.
 *    At most one DEAD slot per concurrent inserter can appear.
 * 6. An insert that meets a BUSY slot with its own tag waits (bounded spin)
 *    for it to turn READY or DEAD before deciding, so two inserts of the
 *    same new key yield one element: the first to claim a slot in the key's
 *    probe chain wins and every later one finds it.  If the spin runs out
 *    (the claimant stayed preempted; HIST__MAP_SPIN) the insert counts a
 *    drop and returns NULL rather than risk a duplicate.  An insert through
 *    an exclusive slot that meets a claim of that same slot does not wait
 *    at all and drops at once: the claimant is the thread's own hit that
 *    a signal handler interrupted, and it cannot go on before the handler
 *    returns (waiting would only stretch the handler, and a stream of
 *    signals would keep the claimant from ever finishing).  The kernel's
 *    tracing_map drops such a key too, after retrying.  A lookup never
 *    waits: an unpublished element is simply not there yet.
 * 7. Sums are u64 words updated by relaxed atomic adds and read by relaxed
 *    atomic loads: no ordering, exact once the writers are quiescent.
 * 8. Hits and drops are relaxed atomic adds on the per-cpu block (several
 *    threads may share a cpu slot); totals are relaxed sums at read time.
 * 9. Progress: lookup and collect are wait-free (bounded by the table size).
 *    Insert is lock-free except for the bounded wait in 6, after which it
 *    gives up; it never blocks on another thread indefinitely.
 * 10. Exclusive cpu slots (*_cpu calls with SLOT < nr_cpus): the caller
 *    guarantees that calls with one SLOT come from one thread at a time
 *    (see map.h); a handler that interrupts a call on that thread may make
 *    its own.  Under that rule the slot's counters, its sum copy and the
 *    inline sums of the elements whose HOME it is have one writer thread,
 *    which updates them with hist__add_local(): one instruction, so an
 *    interrupting handler's add and the interrupted one both land, and no
 *    locked instruction.  Readers load them relaxed (aligned words: never
 *    torn) and are exact once the writer is quiescent, as in 7.
 *    HIST__MAP_SHARED calls use relaxed atomic adds on the shared
 *    block, the shared copy and the inline sums of HOME_SHARED elements;
 *    the two kinds never mix on one word.  HOME is published with READY
 *    and never changes, so every hit agrees on whose the inline sums are.
 *    CROSSED is a relaxed fetch_or: it only tells the home slot to stop
 *    using words that stay its own, so a home hit that misses the bit for
 *    a while is still exact.  Without pcpu_sums the *_cpu calls are the
 *    atomic ones.
 */
#include "common/platform.h"
#include "map/map.h"

/*
 * Loads of a BUSY slot before giving up (contract 6).  A claim takes tens
 * of nanoseconds, but a claimant can be preempted in the middle of one
 * (userspace threads; the kernel's tracing_map runs with preemption off):
 * 2^20 paused loads last tens of milliseconds, several scheduler time
 * slices, so that a drop is left for a claimant that stays off the cpu.
 */
#define HIST__MAP_SPIN (1u << 20)

/*
 * The largest table whose chains start at even slots for
 * hist__map_first_line32(): 8 MiB, the 2^18 slots of the kernel's largest
 * size= (2^17 entries).  A table that outgrows a last-level cache gets a
 * memory miss per hit, and the branch-free pick of a line's slot then
 * holds the adds back until the line arrives: u1m and zipf1m ran 6-10%
 * slower with it, where the tables in cache ran 10-25% faster.
 */
#define HIST__MAP_LINE2_MAX ((size_t)8 << 20)

#define HIST__MAP_BITS_MIN 7
#define HIST__MAP_BITS_MAX 24
/* Sanity bounds that keep every size computation far from overflow. */
#define HIST__MAP_KEY_MAX 2040	/* key words fit the meta word's 8 bits */
#define HIST__MAP_PAYLOAD_MAX (1u << 20)
#define HIST__MAP_CPUS_MAX 4096

_Static_assert(offsetof(struct hist_map, capacity) <= HIST__CACHELINE,
	       "the fields every hit reads share one cache line");
_Static_assert(HIST__MAP_KEY_MAX / 8 < 256, "key words fit in 8 bits");
_Static_assert(HIST__MAP_CPUS_MAX < HIST__MAP_HOME_SHARED, "every cpu slot has a HOME value");

static void *zalloc_aligned(size_t size, void **raw)
{
	uintptr_t p;

	*raw = hist__zalloc(size + HIST__CACHELINE - 1);
	if (!*raw)
		return NULL;
	p = ((uintptr_t)*raw + HIST__CACHELINE - 1) & ~(uintptr_t)(HIST__CACHELINE - 1);
	return (void *)p;
}

static inline struct hist_map_elt *map_slot(const struct hist_map *m, uint32_t idx)
{
	return (struct hist_map_elt *)(m->slots + (size_t)idx * m->stride);
}

/* The other element of E's cache line, when another owner can have it. */
static struct hist_map_elt *line_neighbour(const struct hist_map *m, struct hist_map_elt *e)
{
	return m->nb_xor ? (struct hist_map_elt *)((uintptr_t)e ^ m->nb_xor) : NULL;
}

static inline uint64_t load_u64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * The high word picks the start slot, the low word gives the tag, so the
 * two are independent.  A test hook's 32-bit hash serves as both.
 */
static inline uint64_t map_hash(const struct hist_map *m, const void *key)
{
	const unsigned char *k = key;

	if (hist__unlikely(m->hash != NULL)) {
		uint32_t h32 = m->hash(key, m->key_size);

		return (uint64_t)h32 << 32 | h32;
	}
	if (hist__likely(m->key_size == 8))
		return hist__map_hash8(load_u64(k));
	return hist__map_hash_words(k, m->key_size / 8);
}

static inline bool key_equal(const struct hist_map *m, const struct hist_map_elt *e,
			     const void *key)
{
	if (hist__likely(m->key_size == 8))
		return e->data[0] == load_u64(key);
	return memcmp(e->data, key, m->key_size) == 0;
}

/* Contract 8 and 10: one drop in SLOT's block. */
static struct hist_map_elt *count_drop(struct hist_map *m, uint32_t slot)
{
	struct hist__map_pcpu *pc = hist__map_pcpu_of(m, slot);

	if (hist__map_slot_local(m, slot))
		/* One instruction: the slot's owner is the only writer. */
		hist__add_local(&pc->drops, 1);
	else
		/* Relaxed: a statistic; orders nothing. */
		hist__add_relaxed(&pc->drops, 1);
	return NULL;
}

void hist__map_count_drop(struct hist_map *m, uint32_t slot)
{
	count_drop(m, slot);
}

/*
 * Contract 6: returns the state S of E once it is no longer BUSY, or BUSY
 * on timeout, or at once when SLOT is exclusive and claimed E itself.
 */
static uint32_t wait_busy(const struct hist_map *m, struct hist_map_elt *e, uint32_t s,
			  uint32_t slot)
{
	uint32_t i;

	/* An exclusive slot, with or without per-cpu sums (contract 6). */
	if (slot < m->nr_cpus && (s & HIST__MAP_HOME_MASK) == hist__map_home_bits(m, slot))
		return s;

	for (i = 0; i < HIST__MAP_SPIN && (s & HIST__MAP_FLAGS) == HIST__MAP_BUSY; i++) {
		hist__cpu_relax();
		/* Acquire: pairs with the claimant's READY release (contract 3). */
		s = hist__load_acquire(&e->state);
	}
	return s;
}

/*
 * CROSSED if E, being created through SLOT, must not use inline sums
 * because the other element of its cache line is another owner's (or
 * CROSSED, so read by other cpus): that neighbour is then marked CROSSED
 * too, and neither owner writes the line.  A placement hint only (see
 * "Per-cpu sums"): two elements created at once may both miss the other,
 * which costs speed, never a count.
 */
static uint32_t line_check(struct hist_map *m, struct hist_map_elt *e, uint32_t slot)
{
	struct hist_map_elt *nb = line_neighbour(m, e);
	uint32_t ns;

	if (!nb)
		return 0;
	/* Relaxed: a hint; no data of NB is read. */
	ns = hist__load_relaxed(&nb->state);
	if ((ns & HIST__MAP_FLAGS) != HIST__MAP_READY ||
	    (ns & HIST__MAP_OWNER_BITS) == hist__map_home_bits(m, slot))
		return 0;
	if (!(ns & HIST__MAP_CROSSED))
		/* Relaxed: as in hist__map_cross(). */
		hist__or_relaxed(&nb->state, HIST__MAP_CROSSED);
	return HIST__MAP_CROSSED;
}

/*
 * Contract 3 and 5, after winning the CAS: reserve capacity, fill the slot
 * and publish it.  Returns false (slot now DEAD) when the map is full.
 */
static bool fill_claimed(struct hist_map *m, struct hist_map_elt *e, uint32_t tag,
			 const void *key, uint32_t slot, void *init_arg)
{
	/* Relaxed: the counter rations capacity only; the BUSY state owns the slot.
	 * The value is the element's index: unique among successful claims. */
	uint32_t idx = hist__fetch_add_relaxed(&m->nr_elts, 1);

	if (idx >= m->capacity) {
		/* Relaxed: DEAD publishes nothing; no one reads past its state. */
		hist__store_relaxed(&e->state, HIST__MAP_DEAD);
		return false;
	}
	e->meta = m->meta_words | idx;
	if (hist__likely(m->key_size == 8))
		/* Relaxed: hist__map_first_line32() may read it before the
		 * state says READY (and then does not use it). */
		hist__store_relaxed(&e->data[0], load_u64(key));
	else
		memcpy(e->data, key, m->key_size);
	if (m->elt_init)
		m->elt_init(hist__map_elt_payload(e), init_arg);
	/* Release: publishes meta, key and the elt_init payload (contract 3).
	 * SLOT becomes the element's home: its owner adds to the inline sums. */
	hist__store_release(&e->state, HIST__MAP_READY | hist__map_home_bits(m, slot) | tag |
					       m->publish_bits | line_check(m, e, slot));
	return true;
}

enum hist__probe { HIST__PROBE_NEXT, HIST__PROBE_FOUND, HIST__PROBE_DROP };

/* Settle one slot of KEY's probe chain for an insert. */
static enum hist__probe probe_insert(struct hist_map *m, struct hist_map_elt *e,
				      uint32_t tag, const void *key, uint32_t slot,
				      void *init_arg)
{
	/* Acquire: pairs with the READY release before the key compare (contract 4). */
	uint32_t s = hist__load_acquire(&e->state);

	for (;;) {
		switch (s & HIST__MAP_FLAGS) {
		case 0:
			/* Relaxed: a hint; fill_claimed's fetch_add decides. */
			if (hist__load_relaxed(&m->nr_elts) >= m->capacity)
				return HIST__PROBE_DROP;
			/* Acq_rel; acquire on failure: we may compare the winner's key. */
			if (!hist__cas_acq_rel(&e->state, &s,
					       HIST__MAP_BUSY | hist__map_home_bits(m, slot) | tag))
				continue;
			if (!fill_claimed(m, e, tag, key, slot, init_arg))
				return HIST__PROBE_DROP;
			return HIST__PROBE_FOUND;
		case HIST__MAP_BUSY:
			if ((s & HIST__MAP_TAG) != tag)
				return HIST__PROBE_NEXT;
			s = wait_busy(m, e, s, slot);
			if ((s & HIST__MAP_FLAGS) == HIST__MAP_BUSY)
				return HIST__PROBE_DROP;
			continue;
		case HIST__MAP_READY:
			if ((s & HIST__MAP_TAG) == tag && key_equal(m, e, key))
				return HIST__PROBE_FOUND;
			return HIST__PROBE_NEXT;
		default:
			return HIST__PROBE_NEXT;	/* DEAD */
		}
	}
}

struct hist_map_elt *hist__map_insert_slow(struct hist_map *m, const void *key,
					   uint32_t slot, void *init_arg)
{
	uint64_t h = map_hash(m, key);
	uint32_t tag = (uint32_t)h & HIST__MAP_TAG;
	uint32_t idx = hist__map_start(m, h);
	uint32_t n;

	for (n = 0; n < m->nr_slots; n++, idx = (idx + 1) & m->mask) {
		struct hist_map_elt *e = map_slot(m, idx);

		switch (probe_insert(m, e, tag, key, slot, init_arg)) {
		case HIST__PROBE_FOUND:
			hist__map_count_hit(m, slot);
			return e;
		case HIST__PROBE_DROP:
			return count_drop(m, slot);
		case HIST__PROBE_NEXT:
			break;
		}
	}
	/* Unreachable while DEAD slots stay few: there is always an EMPTY one. */
	return count_drop(m, slot);
}

struct hist_map_elt *hist__map_insert(struct hist_map *m, const void *key, uint32_t cpu,
				      void *init_arg)
{
	/* Atomic counting: the cpu's block, or the shared one with pcpu_sums
	 * (an exclusive slot's block must not see atomic adds, contract 10). */
	if (m->sums)
		cpu = HIST__MAP_SHARED;
	else if (hist__unlikely(cpu >= m->nr_cpus))
		cpu %= m->nr_cpus;
	return hist__map_insert_slow(m, key, cpu, init_arg);
}

void hist__map_mark_used(struct hist_map *m, uint32_t copy)
{
	/* Release: once per copy; readers need it only at rest (contract 10). */
	hist__or_release(&m->used[copy / 64], 1ull << (copy % 64));
}

uint64_t *hist__map_cross(struct hist_map *m, struct hist_map_elt *e, uint32_t slot)
{
	struct hist_map_elt *nb = line_neighbour(m, e);

	/* Relaxed: a hint for the home slot's owner (see CROSSED); the
	 * inline sums stay its own whenever it sees the bit (contract 10).
	 * The neighbour too: its line is now read by another cpu on every
	 * hit of E, so its owner had better stop writing it. */
	hist__or_relaxed(&e->state, HIST__MAP_CROSSED);
	if (nb && (hist__load_relaxed(&nb->state) & HIST__MAP_FLAGS) == HIST__MAP_READY)
		hist__or_relaxed(&nb->state, HIST__MAP_CROSSED);
	return hist__map_copy_sums(m, e, slot);
}

uint64_t *hist__map_sums_other(struct hist_map *m, struct hist_map_elt *e, uint32_t s,
			       uint32_t slot)
{
	return hist__map_sums_at(m, e, s, slot);
}

/* The next used copy at or after S, or nr_cpus + 1. */
static uint32_t next_used(const struct hist_map *m, uint32_t s)
{
	while (s <= m->nr_cpus) {
		/* Relaxed: a flag set once; exact at rest (contract 10). */
		uint64_t w = hist__load_relaxed(&m->used[s / 64]) >> (s % 64);

		if (!w) {
			s = (s / 64 + 1) * 64;
			continue;
		}
		while (!(w & 1)) {
			w >>= 1;
			s++;
		}
		return s;
	}
	return m->nr_cpus + 1;
}

uint64_t hist__map_sum(const struct hist_map *m, struct hist_map_elt *e, uint32_t i)
{
	size_t off = (size_t)(e->meta & HIST__MAP_IDX_MASK) * m->nr_sums + i;
	uint64_t sum;
	uint32_t s;

	if (!m->sums)
		return hist__map_sum_read(m, e, i);
	/* Relaxed: sums are atomic words; exact at rest (contract 10). */
	sum = m->inline_home ? hist__load_relaxed(&hist__map_inline_sums(m, e)[i]) : 0;
	for (s = next_used(m, 0); s <= m->nr_cpus; s = next_used(m, s + 1))
		/* Relaxed: sums are atomic words; exact at rest (contract 10). */
		sum += hist__load_relaxed(&m->sums[s][off]);
	return sum;
}

struct hist_map_elt *hist__map_lookup(struct hist_map *m, const void *key)
{
	uint64_t h = map_hash(m, key);
	uint32_t tag = (uint32_t)h & HIST__MAP_TAG;
	uint32_t idx = hist__map_start(m, h);
	uint32_t n;

	for (n = 0; n < m->nr_slots; n++, idx = (idx + 1) & m->mask) {
		struct hist_map_elt *e = map_slot(m, idx);
		/* Acquire: pairs with the READY release before the key compare (contract 4). */
		uint32_t s = hist__load_acquire(&e->state);

		if (s == 0)
			return NULL;
		if ((s & ~HIST__MAP_OWNER_BITS) == (HIST__MAP_READY | tag) && key_equal(m, e, key))
			return e;
	}
	return NULL;
}

/*
 * One sweep of the table: the published elements into OUT (room for MAX)
 * and, for NR > 0, their inline sums into SUMS (NR words each).  Every
 * slot is written at OUT[n] and counted only if published: a half full
 * table makes "is it published?" a coin toss, too costly as a branch
 * (a third faster on 2M slots).  The words of an unpublished slot are
 * read and dropped (atomic words); n < MAX keeps the writes in bounds.
 */
static uint32_t sweep(struct hist_map *m, struct hist_map_elt **out, uint64_t *sums,
		      uint32_t nr, uint32_t max)
{
	bool inl = !m->sums || m->inline_home;
	uint32_t n = 0, i, j;

	for (i = 0; i < m->nr_slots && n < max; i++) {
		struct hist_map_elt *e = map_slot(m, i);
		/* Acquire: pairs with the READY release; the caller reads the element. */
		uint32_t st = hist__load_acquire(&e->state);
		const uint64_t *c = hist__map_inline_sums(m, e);

		for (j = 0; j < nr; j++)
			/* Relaxed: as in hist__map_sum(). */
			sums[(size_t)n * nr + j] = inl ? hist__load_relaxed(&c[j]) : 0;
		out[n] = e;
		n += (st & HIST__MAP_FLAGS) == HIST__MAP_READY;
	}
	return n;
}

uint32_t hist__map_collect(struct hist_map *m, struct hist_map_elt **out, uint32_t max)
{
	return sweep(m, out, NULL, 0, max);
}

uint32_t hist__map_snapshot(struct hist_map *m, struct hist_map_elt **out, uint64_t *sums,
			    uint32_t nr, uint32_t max)
{
	uint32_t n, i, j, s;

	if (nr > m->nr_sums)
		nr = m->nr_sums;
	n = sweep(m, out, sums, nr, max);
	if (!m->sums)
		return n;
	for (s = next_used(m, 0); s <= m->nr_cpus; s = next_used(m, s + 1)) {
		const uint64_t *copy = m->sums[s];

		for (i = 0; i < n; i++) {
			const uint64_t *c = copy + (size_t)(out[i]->meta & HIST__MAP_IDX_MASK) *
						   m->nr_sums;

			for (j = 0; j < nr; j++)
				sums[(size_t)i * nr + j] += hist__load_relaxed(&c[j]);
		}
	}
	return n;
}

/* hits_sum0: the hits are the sum 0 of every element, copies included. */
static uint64_t hits_of_sum0(const struct hist_map *m)
{
	uint32_t n = hist__load_relaxed(&m->nr_elts), i, c;
	uint64_t sum = 0;

	for (i = 0; i < m->nr_slots; i++) {
		struct hist_map_elt *e = map_slot(m, i);

		/* Acquire: pairs with the READY release (contract 4). */
		if ((!m->sums || m->inline_home) &&
		    (hist__load_acquire(&e->state) & HIST__MAP_FLAGS) == HIST__MAP_READY)
			/* Relaxed: as in hist__map_sum(). */
			sum += hist__load_relaxed(&hist__map_inline_sums(m, e)[0]);
	}
	if (!m->sums)
		return sum;
	if (n > m->capacity)
		n = m->capacity;
	/* Copies are indexed by element: only the first N were ever used. */
	for (c = next_used(m, 0); c <= m->nr_cpus; c = next_used(m, c + 1))
		for (i = 0; i < n; i++)
			/* Relaxed: as in hist__map_sum(). */
			sum += hist__load_relaxed(&m->sums[c][(size_t)i * m->nr_sums]);
	return sum;
}

uint64_t hist__map_hits(const struct hist_map *m)
{
	uint64_t sum = 0;
	uint32_t i;

	if (m->hits_sum0)
		return hits_of_sum0(m);
	for (i = 0; i <= m->nr_cpus; i++)
		/* Relaxed: a statistic (contracts 8, 10). */
		sum += hist__load_relaxed(&m->pcpu[i].hits);
	return sum;
}

uint64_t hist__map_drops(const struct hist_map *m)
{
	uint64_t sum = 0;
	uint32_t i;

	for (i = 0; i <= m->nr_cpus; i++)
		/* Relaxed: a statistic (contracts 8, 10). */
		sum += hist__load_relaxed(&m->pcpu[i].drops);
	return sum;
}

uint32_t hist__map_entries(const struct hist_map *m)
{
	/* Relaxed: a count; it may include claims still being filled. */
	uint32_t n = hist__load_relaxed(&m->nr_elts);

	return n < m->capacity ? n : m->capacity;
}

bool hist__map_slots32(const struct hist_map *m)
{
	return m->fast8 && m->hits_sum0 && m->inline_home && m->stride == 32;
}

bool hist__map_pcpu_sums(const struct hist_map *m)
{
	return m->sums != NULL;
}

bool hist__map_line2(const struct hist_map *m)
{
	return m->start_mask == HIST__MAP_START_LINE2;
}

uint32_t hist__map_capacity(const struct hist_map *m)
{
	return m->capacity;
}

uint32_t hist__map_key_size(const struct hist_map *m)
{
	return m->key_size;
}

static bool params_valid(const struct hist_map_params *p)
{
	if (!p || p->bits < HIST__MAP_BITS_MIN || p->bits > HIST__MAP_BITS_MAX)
		return false;
	if (!p->key_size || p->key_size % 8 || p->key_size > HIST__MAP_KEY_MAX)
		return false;
	if (p->payload_size % 8 || p->payload_size > HIST__MAP_PAYLOAD_MAX)
		return false;
	/* key and inline sums: an 8-bit word offset */
	return p->nr_sums <= 64 && p->key_size / 8 + p->nr_sums < 256;
}

/*
 * Slots of up to 32 bytes are rounded to a power of two so that none
 * straddles a cache line (one miss per hit); so are those of up to 64
 * with inline sums on a map of several cpu slots, so that each is a line
 * no other owner writes.  Larger ones span lines anyway and are only
 * kept 8-byte aligned for the u64 sums.  A 16-byte key's slot grows
 * from 32 bytes (no inline sums) to 64: 64 bytes more table per element
 * of capacity, for one line per hit instead of the element's and the
 * copy's (comm keys 170 -> 155 instructions per hit, 5-8% faster).
 */
static uint32_t slot_stride(const struct hist_map_params *p, bool inline_sums)
{
	uint32_t stride = (uint32_t)sizeof(struct hist_map_elt) + p->key_size + p->payload_size;

	if (inline_sums || !p->pcpu_sums)
		stride += p->nr_sums * 8;	/* the home slot's, or everybody's */

	if (stride <= 16)
		return 16;
	if (stride <= 32)
		return 32;
	if (stride <= 64 && inline_sums && p->nr_cpus > 1)
		return 64;
	return stride;
}

struct hist_map *hist__map_create(const struct hist_map_params *p)
{
	struct hist_map *m;
	void *raw;
	size_t bytes;

	if (!params_valid(p))
		return NULL;
	m = zalloc_aligned(sizeof(*m), &raw);
	if (!m)
		return NULL;
	m->self_raw = raw;
	m->key_size = p->key_size;
	m->payload_size = p->payload_size;
	m->capacity = 1u << p->bits;
	m->nr_slots = 2u << p->bits;
	m->mask = m->nr_slots - 1;
	m->shift = 32 - (p->bits + 1);
	/*
	 * The home slot's sums go inline when no two owners can write one
	 * line through them: a single cpu slot, 32-byte slots (two per
	 * line, the neighbour checked when an element is created, see
	 * line_check()) or 64-byte ones (a line each).  Larger slots
	 * straddle lines; they keep their sums in the copies only.
	 */
	m->nr_cpus = p->nr_cpus ? p->nr_cpus : 1;
	m->inline_home = p->pcpu_sums && p->nr_sums &&
			 (m->nr_cpus == 1 || slot_stride(p, true) <= 64);
	m->nb_xor = m->inline_home && m->nr_cpus > 1 && slot_stride(p, true) == 32 ? 32 : 0;
	m->stride = slot_stride(p, m->inline_home);
	/* The payload follows the key and the sums in the element. */
	m->meta_words = (m->key_size / 8 + (m->inline_home || !p->pcpu_sums ? p->nr_sums : 0))
			<< HIST__MAP_WORDS_SHIFT;
	/* Per-cpu sums without inline ones: every hit uses the copies. */
	m->publish_bits = p->pcpu_sums && p->nr_sums && !m->inline_home ? HIST__MAP_CROSSED : 0;
	if (m->nr_cpus > HIST__MAP_CPUS_MAX)
		goto fail;
	m->nr_sums = p->nr_sums;
	m->multi = p->multi ? p->multi : &m->zero;
	m->elt_init = p->elt_init;
	m->hash = p->hash;
	m->fast8 = m->key_size == 8 && !m->hash;
	m->hits_sum0 = p->hits_sum0 && m->nr_sums;
	m->start_mask = hist__map_slots32(m) &&
				(size_t)m->nr_slots * m->stride <= HIST__MAP_LINE2_MAX
			? HIST__MAP_START_LINE2 : ~0u;

	bytes = (size_t)m->nr_slots * m->stride;
	if (bytes / m->stride != m->nr_slots)
		goto fail;
	m->slots = zalloc_aligned(bytes, &m->slots_raw);
	if (!m->slots)
		goto fail;
	m->pcpu = zalloc_aligned((size_t)(m->nr_cpus + 1) * sizeof(*m->pcpu), &m->pcpu_raw);
	if (!m->pcpu)
		goto fail;
	if (p->pcpu_sums && m->nr_sums) {
		/* capacity >= 128, so every copy is a whole number of lines. */
		size_t words = (size_t)m->capacity * m->nr_sums;
		uint64_t *base = zalloc_aligned((m->nr_cpus + 1) * words * 8, &m->sums_raw);
		uint32_t i;

		m->sums = hist__zalloc((m->nr_cpus + 1) * sizeof(*m->sums));
		m->used = hist__zalloc((m->nr_cpus / 64 + 1) * sizeof(*m->used));
		if (!base || !m->sums || !m->used)
			goto fail;
		for (i = 0; i <= m->nr_cpus; i++)
			m->sums[i] = base + i * words;
	}
	return m;
fail:
	hist__map_destroy(m);
	return NULL;
}

void hist__map_destroy(struct hist_map *m)
{
	if (!m)
		return;
	hist__free(m->slots_raw);
	hist__free(m->pcpu_raw);
	hist__free(m->sums_raw);
	hist__free(m->sums);
	hist__free(m->used);
	hist__free(m->self_raw);
}

void hist__map_clear(struct hist_map *m)
{
	uint32_t i, used;

	/*
	 * Contract 2: no other call in flight, so plain accesses will do.  A
	 * slot that was never claimed is still all zero, so only claimed ones
	 * are wiped: a big, sparsely used table keeps its untouched pages.
	 */
	for (i = 0; i < m->nr_slots; i++) {
		struct hist_map_elt *e = map_slot(m, i);

		/* Relaxed: no writer runs (contract 2); the word is atomic elsewhere. */
		if (hist__load_relaxed(&e->state))
			memset(e, 0, m->stride);
	}
	used = hist__load_relaxed(&m->nr_elts);
	if (used > m->capacity)
		used = m->capacity;
	for (i = 0; i <= m->nr_cpus; i++) {
		/* Only copies that were added to hold anything, in their first
		 * USED elements. */
		if (m->sums && (m->used[i / 64] >> (i % 64) & 1))
			memset(m->sums[i], 0, (size_t)used * m->nr_sums * 8);
		/* Relaxed: counters are atomic words; the caller orders the reset. */
		hist__store_relaxed(&m->pcpu[i].hits, 0);
		hist__store_relaxed(&m->pcpu[i].drops, 0);
	}
	for (i = 0; m->used && i <= m->nr_cpus / 64; i++)
		/* Relaxed: as above (contract 2). */
		hist__store_relaxed(&m->used[i], 0);
	/* Relaxed: as above (contract 2). */
	hist__store_relaxed(&m->nr_elts, 0);
}
