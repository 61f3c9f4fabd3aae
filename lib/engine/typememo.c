// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Answers about type DIEs, kept: typewalk.c's die_type, type_peel and
 * type_byte_size are asked the same questions over and over (a kernel
 * run: 1.1 million, 960,000 and 950,000 of them about 450,000, 136,000
 * and 125,000 DIEs), and each of libdw's answers looks the DIE's
 * abbreviation up in a locked table and walks its attributes.
 *
 * A table per thread (the plugin's workers answer at once), direct-mapped
 * by the DIE's address in the mapped debug file: an answer costs a hash
 * and a compare, and a collision only asks libdw again.  Addresses are a
 * DIE's for as long as its session lives; when any session closes, the
 * epoch moves on and every thread's kept answers are stale.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "../arrays.h"
#include "internal.h"

#define MEMO_SLOTS 8192		/* of each question, a power of two */

struct memo_slot {
	const void *addr;	/* the DIE asked about, NULL: empty */
	unsigned long epoch;
	struct type_answer a;
};

struct type_memo {
	struct memo_slot slot[TYPE_QUESTIONS][MEMO_SLOTS];
};

static atomic_ulong epoch = 1;
static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static __thread struct type_memo *memo;

static void make_key(void)
{
	if (pthread_key_create(&key, free) != 0)
		key = (pthread_key_t)-1;
}

/* This thread's table, made on first use (freed when the thread ends);
 * NULL without memory: nothing kept. */
static struct type_memo *table(void)
{
	if (memo)
		return memo;
	pthread_once(&key_once, make_key);
	if (key == (pthread_key_t)-1 || !(memo = calloc(1, sizeof(*memo))))
		return NULL;
	if (pthread_setspecific(key, memo) != 0) {
		free(memo);
		memo = NULL;
	}
	return memo;
}

static struct memo_slot *slot_of(enum type_question q, const void *addr)
{
	struct type_memo *t = table();

	return t ? &t->slot[q][hash_mix(HASH_SEED, (uint64_t)(uintptr_t)addr) &
			       (MEMO_SLOTS - 1)] : NULL;
}

bool type_memo_get(enum type_question q, const void *addr, struct type_answer *a)
{
	struct memo_slot *m = slot_of(q, addr);

	if (!m || m->addr != addr || m->epoch != atomic_load_explicit(&epoch,
							memory_order_relaxed))
		return false;
	*a = m->a;
	return true;
}

void type_memo_put(enum type_question q, const void *addr,
		   const struct type_answer *a)
{
	struct memo_slot *m = slot_of(q, addr);

	if (m)
		*m = (struct memo_slot){ addr, atomic_load(&epoch), *a };
}

void type_memo_forget(void)
{
	atomic_fetch_add(&epoch, 1);
}
