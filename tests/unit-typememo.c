// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * typememo.c: an answer kept about a DIE comes back only for that DIE
 * and that question, only in the thread that kept it, and never after a
 * session closed (the addresses a closed session's DIEs had may be
 * another file's in the next one).
 */
#include <pthread.h>
#include <stdint.h>

#include "../lib/engine/internal.h"
#include "tap.h"

#define MANY 100000		/* far more DIEs than the table has slots */

static char dies[MANY];		/* stand-ins for DIEs' addresses */

/* In a thread of its own: the main thread's answer is not there, and
 * one kept here is this thread's. */
static void *other_thread(void *arg)
{
	struct type_answer a;
	bool *seen = arg;

	seen[0] = type_memo_get(TYPE_SIZE, &dies[0], &a);
	type_memo_put(TYPE_SIZE, &dies[0], &(struct type_answer){ .size = 99, .ok = true });
	seen[1] = type_memo_get(TYPE_SIZE, &dies[0], &a) && a.size == 99;
	return NULL;
}

int main(void)
{
	struct type_answer a;

	ok(!type_memo_get(TYPE_SIZE, &dies[0], &a), "nothing kept at first");
	type_memo_put(TYPE_SIZE, &dies[0], &(struct type_answer){ .size = 24, .ok = true });
	ok(type_memo_get(TYPE_SIZE, &dies[0], &a) && a.ok && a.size == 24,
	   "a size kept comes back");
	ok(!type_memo_get(TYPE_OF, &dies[0], &a) && !type_memo_get(TYPE_PEELED, &dies[0], &a),
	   "for that question only");
	ok(!type_memo_get(TYPE_SIZE, &dies[1], &a), "and that DIE only");

	pthread_t t;
	bool seen[2] = { true, false };
	ok(pthread_create(&t, NULL, other_thread, seen) == 0 && pthread_join(t, NULL) == 0,
	   "another thread ran");
	ok(!seen[0] && seen[1], "it has a table of its own");
	ok(type_memo_get(TYPE_SIZE, &dies[0], &a) && a.size == 24,
	   "and left this thread's answer alone");

	/* more DIEs than slots: many answers are pushed out, none comes
	 * back for another DIE */
	size_t kept = 0, wrong = 0;
	for (size_t i = 0; i < MANY; i++)
		type_memo_put(TYPE_SIZE, &dies[i], &(struct type_answer){ .size = i, .ok = true });
	for (size_t i = 0; i < MANY; i++)
		if (type_memo_get(TYPE_SIZE, &dies[i], &a)) {
			kept++;
			wrong += a.size != i;
		}
	ok(kept > 0 && kept < MANY && wrong == 0,
	   "%d DIEs: %zu answers kept, %zu of them another DIE's", MANY, kept, wrong);

	type_memo_forget();
	size_t after = 0;
	for (size_t i = 0; i < MANY; i++)
		after += type_memo_get(TYPE_SIZE, &dies[i], &a);
	ok(after == 0, "a session closed: none of the %zu comes back (%zu did)", kept, after);
	type_memo_put(TYPE_SIZE, &dies[5], &(struct type_answer){ .size = 5, .ok = true });
	ok(type_memo_get(TYPE_SIZE, &dies[5], &a) && a.size == 5, "answers kept after it come back");
	return done_testing();
}
