// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The objects data addresses show: for each sample typed T at offset off
 * with address a, the object T at a - off.  Per object, the threads that
 * touched it and when, so that a type's objects split into those one
 * thread kept to itself and those threads of one process shared: a
 * thread writing it while another touched it within the window.
 *
 * This is what tells per-thread objects from one shared object when the
 * type's cache lines alone look the same, and what the advice needs
 * before it keeps members apart (or packs them) for threads' sake.  And
 * which members a thread reads together: two offsets of one object one
 * thread touched within CO_WINDOW_NS (1 us, as pahole's --perf-data-type;
 * precise memory events sample that densely, cpu-clock's 4 kHz never).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../arrays.h"
#include "report.h"

#define OBJ_THREADS 4
#define OBJECT_MEETING_PERCENT 5
#define OBJECT_MIN_MEETINGS 2
#define MAX_OBJECTS (1u << 17)
#define MAX_CO_PAIRS (1u << 16)

struct object_thread {
	int32_t tid;
	bool timed;
	bool wrote;
	struct pace pace;		/* of its samples on it */
	uint64_t last, last_write;	/* ns */
	int64_t last_offset;		/* of its last access, at last */
};

/* Two offsets of one type one thread touched on one object within
 * CO_WINDOW_NS: read together (co-access), for the advice. */
struct co_pair {
	uint32_t ti;
	int64_t a, b;			/* a < b */
	uint64_t n;
};

struct object_seen {
	uint64_t base;			/* runtime address of the object */
	int32_t pid;			/* in this process (-1: not known) */
	uint32_t ti;			/* its type row */
	uint8_t n;
	uint32_t met;			/* samples where two threads met
					 * within the window, one writing */
	bool crowded;			/* more threads than kept */
	bool unsure;			/* two threads, one writing, that did
					 * not meet, sampled too thinly to
					 * say they were not there at once */
	uint64_t samples;
	uint64_t tracked;		/* of them, with their thread kept */
	struct object_thread t[OBJ_THREADS];
};

/* Both tables: arrays with an open-addressing index (arrays.h). */
struct objects {
	struct object_seen *v;
	size_t n, cap;
	uint32_t *index;
	size_t index_size;
	struct co_pair *pairs;
	size_t npairs, pairs_cap;
	uint32_t *pair_index;
	size_t pair_index_size;
	uint64_t untracked;		/* samples past MAX_OBJECTS */
	uint64_t pairs_lost;		/* pairs past MAX_CO_PAIRS */
};

static uint64_t object_hash(uint64_t base, int32_t pid, uint32_t ti)
{
	return hash_mix(hash_mix(hash_mix(HASH_SEED, base), (uint32_t)pid), ti);
}

static uint64_t pair_hash(uint32_t ti, int64_t a, int64_t b)
{
	return hash_mix(hash_mix(hash_mix(HASH_SEED, ti), (uint64_t)a), (uint64_t)b);
}

/* Offsets a and b of type ti read together once more. */
static int pair_add(struct objects *o, uint32_t ti, int64_t a, int64_t b)
{
	if (a > b) {
		int64_t x = a;
		a = b;
		b = x;
	}
	uint64_t h = pair_hash(ti, a, b);
	uint32_t k = INDEX_FIND(o->pair_index, o->pair_index_size, h, i,
				o->pairs[i].ti == ti && o->pairs[i].a == a && o->pairs[i].b == b);
	if (!k) {
		if (o->npairs == MAX_CO_PAIRS) {
			o->pairs_lost++;
			return 0;
		}
		if (INDEX_READY(o->pair_index, o->pair_index_size, o->npairs, i,
				pair_hash(o->pairs[i].ti, o->pairs[i].a, o->pairs[i].b)) ||
		    GROW(o->pairs, o->pairs_cap, o->npairs, 256))
			return -ENOMEM;
		o->pair_index[INDEX_FREE(o->pair_index, o->pair_index_size, h)] =
			(uint32_t)++o->npairs;
		o->pairs[o->npairs - 1] = (struct co_pair){ ti, a, b, 0 };
		k = (uint32_t)o->npairs;
	}
	o->pairs[k - 1].n++;
	return 0;
}

void objects_co_pairs(const struct dt_report *r, uint32_t ti,
		      void (*fn)(void *arg, int64_t a, int64_t b, uint64_t n), void *arg)
{
	const struct objects *o = r->objects;

	for (size_t i = 0; o && i < o->npairs; i++)
		if (o->pairs[i].ti == ti)
			fn(arg, o->pairs[i].a, o->pairs[i].b, o->pairs[i].n);
}

/* The object at base of type ti in process pid (one address in two
 * processes is two objects), added when new; NULL past the table
 * (counted) or out of memory (*err). */
static struct object_seen *object_get(struct objects *o, uint64_t base, int32_t pid,
				      uint32_t ti, int *err)
{
	uint64_t h = object_hash(base, pid, ti);
	uint32_t k = INDEX_FIND(o->index, o->index_size, h, i,
				o->v[i].base == base && o->v[i].pid == pid && o->v[i].ti == ti);

	if (k)
		return &o->v[k - 1];
	if (o->n == MAX_OBJECTS) {
		o->untracked++;
		return NULL;
	}
	if (INDEX_READY(o->index, o->index_size, o->n, i,
			object_hash(o->v[i].base, o->v[i].pid, o->v[i].ti)) ||
	    GROW(o->v, o->cap, o->n, 1024)) {
		*err = -ENOMEM;
		return NULL;
	}
	o->index[INDEX_FREE(o->index, o->index_size, h)] = (uint32_t)o->n + 1;
	o->v[o->n] = (struct object_seen){ .base = base, .pid = pid, .ti = ti };
	return &o->v[o->n++];
}

int objects_add(struct dt_report *r, uint32_t ti, const struct dt_answer *ans,
		const struct dt_sample *smp)
{
	struct objects *o = r->objects;
	uint64_t base = smp->addr - (uint64_t)ans->offset;
	bool timed = (smp->has & DT_SAMPLE_TIME) != 0;
	bool wrote = (ans->access & DT_ACCESS_STORE) != 0;
	int32_t pid = smp->has & DT_SAMPLE_PID ? smp->pid : -1;
	int32_t tid = smp->has & DT_SAMPLE_TID ? smp->tid : -1;
	int err = 0;

	if (!o) {
		o = r->objects = calloc(1, sizeof(*o));
		if (!o)
			return -ENOMEM;
	}
	struct object_seen *ob = object_get(o, base, pid, ti, &err);
	if (!ob)
		return err;
	ob->samples++;
	/* threads only within a known process: without the pid, forked
	 * processes' objects at one address would look shared */
	if (tid < 0 || pid < 0)
		return 0;
	struct object_thread *me = NULL;
	for (unsigned i = 0; i < ob->n && !me; i++)
		if (ob->t[i].tid == tid)
			me = &ob->t[i];
	if (!me && ob->n == OBJ_THREADS) {
		ob->crowded = true;
		return 0;
	}
	if (!me) {
		me = &ob->t[ob->n++];
		*me = (struct object_thread){ .tid = tid, .timed = timed,
					      .last_offset = ans->offset,
					      .pace.first = smp->time };
	} else if (me->timed && timed) {
		if (me->last_offset != ans->offset &&
		    within(smp->time, me->last, CO_WINDOW_NS))
			err = pair_add(o, ti, me->last_offset, ans->offset);
		pace_note(&me->pace, smp->time, me->last, r->window);
	}
	ob->tracked++;
	me->last_offset = ans->offset;
	me->timed &= timed;
	if (timed) {
		me->last = smp->time;
		if (wrote)
			me->last_write = smp->time;
	}
	me->wrote |= wrote;
	bool met = false, unsure = false;
	for (unsigned i = 0; i < ob->n && !met; i++) {
		const struct object_thread *x = &ob->t[i];
		if (x == me || !(wrote || x->wrote))	/* (of one process) */
			continue;
		bool timed_both = me->timed && x->timed;
		met = timed_both &&
		      ((wrote && within(smp->time, x->last, r->window)) ||
		       (x->wrote && within(smp->time, x->last_write, r->window)));
		unsure |= !met && (!timed_both ||
				   pace_unsure(&me->pace, &x->pace, smp->time, x->last,
					       r->window));
	}
	ob->met += met;
	ob->unsure |= unsure && !met;
	return err;
}

void objects_free(struct objects *o)
{
	if (!o)
		return;
	free(o->pairs);
	free(o->pair_index);
	free(o->v);
	free(o->index);
	free(o);
}

uint64_t objects_untracked(const struct dt_report *r)
{
	return r->objects ? r->objects->untracked + r->objects->pairs_lost : 0;
}

/* Whether two of ob's threads, one writing, came in an order too short
 * to say they were never on it at once (pace_order_unsure). */
static bool order_unsure(const struct object_seen *ob)
{
	for (unsigned i = 0; i < ob->n; i++)
		for (unsigned j = i + 1; j < ob->n; j++) {
			const struct object_thread *a = &ob->t[i], *b = &ob->t[j];
			if ((a->wrote || b->wrote) && a->timed && b->timed &&
			    pace_order_unsure(&a->pace, a->last, &b->pace, b->last))
				return true;
		}
	return false;
}

/* One object into its type's facts. */
static void facts_add(struct object_facts *t, const struct object_seen *ob)
{
	t->objects++;
	/* as for lines: a hand-over meets once or twice */
	bool shared = ob->met >= OBJECT_MIN_MEETINGS &&
		      ob->met * 100 >= ob->samples * OBJECT_MEETING_PERCENT;
	t->shared += shared;
	t->several += ob->n > 1 || ob->crowded;
	t->crowded += ob->crowded;
	/* threads that met there, too seldom to confirm, were there at
	 * once all the same: nothing refutes it */
	t->unsure += ob->unsure || (ob->met ? !shared : order_unsure(ob));
	t->tracked += ob->tracked;
	for (unsigned k = 0; k < OBJECT_HOTTEST; k++) {
		if (ob->samples <= t->hot_samples[k])
			continue;
		memmove(&t->hot_base[k + 1], &t->hot_base[k],
			(OBJECT_HOTTEST - 1 - k) * sizeof(t->hot_base[0]));
		memmove(&t->hot_samples[k + 1], &t->hot_samples[k],
			(OBJECT_HOTTEST - 1 - k) * sizeof(t->hot_samples[0]));
		t->hot_base[k] = ob->base;
		t->hot_samples[k] = ob->samples;
		break;
	}
}

void objects_facts(const struct dt_report *r, struct object_facts *f)
{
	const struct objects *o = r->objects;

	memset(f, 0, r->ntypes * sizeof(*f));
	for (size_t i = 0; o && i < o->n; i++)
		if (o->v[i].ti < r->ntypes)
			facts_add(&f[o->v[i].ti], &o->v[i]);
}

void objects_facts_of(const struct dt_report *r, uint32_t ti, struct object_facts *f)
{
	const struct objects *o = r->objects;

	memset(f, 0, sizeof(*f));
	for (size_t i = 0; o && i < o->n; i++)
		if (o->v[i].ti == ti)
			facts_add(f, &o->v[i]);
}
