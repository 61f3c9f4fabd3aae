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

#include "report.h"

#define OBJ_THREADS 4
#define OBJECT_MEETING_PERCENT 5
#define OBJECT_MIN_MEETINGS 2
#define MAX_OBJECTS (1u << 17)

struct object_thread {
	int32_t pid, tid;
	bool timed;
	bool wrote;
	uint64_t last, last_write;	/* ns */
	int64_t last_offset;		/* of its last access, at last */
};

/* Two offsets of one type one thread touched on one object within
 * CO_WINDOW_NS: read together (co-access), for the advice. */
struct co_pair {
	uint32_t ti;			/* UINT32_MAX: empty */
	int64_t a, b;			/* a < b */
	uint64_t n;
};
#define MAX_CO_PAIRS (1u << 16)

struct object_seen {
	uint64_t base;			/* runtime address of the object */
	uint32_t ti;			/* its type row; UINT32_MAX: empty */
	uint8_t n;
	uint32_t met;			/* samples where two threads met
					 * within the window, one writing */
	bool crowded;			/* more threads than kept */
	uint64_t samples;
	struct object_thread t[OBJ_THREADS];
};

struct objects {
	struct object_seen *slot;
	size_t size, used;
	uint64_t untracked;		/* samples past MAX_OBJECTS */
	struct co_pair *pairs;
	size_t pairs_size, pairs_used;
};

static size_t obj_hash(uint64_t base, uint32_t ti)
{
	uint64_t h = (base ^ ((uint64_t)ti << 40)) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h ^ (h >> 31));
}

static int grow(struct objects *o)
{
	size_t n = o->size ? o->size * 2 : 1024;
	struct object_seen *ns;

	if (n > MAX_OBJECTS)
		return -ENOSPC;
	ns = malloc(n * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		ns[i].ti = UINT32_MAX;
	for (size_t i = 0; i < o->size; i++) {
		if (o->slot[i].ti == UINT32_MAX)
			continue;
		size_t h = obj_hash(o->slot[i].base, o->slot[i].ti) & (n - 1);
		while (ns[h].ti != UINT32_MAX)
			h = (h + 1) & (n - 1);
		ns[h] = o->slot[i];
	}
	free(o->slot);
	o->slot = ns;
	o->size = n;
	return 0;
}

static size_t pair_hash(uint32_t ti, int64_t a, int64_t b)
{
	uint64_t h = ((uint64_t)ti << 32 ^ (uint64_t)a * 0x9e3779b97f4a7c15ull) ^
		     (uint64_t)b * 0xc2b2ae3d27d4eb4full;

	return (size_t)(h ^ (h >> 29));
}

static int pairs_grow(struct objects *o)
{
	size_t n = o->pairs_size ? o->pairs_size * 2 : 256;
	struct co_pair *np;

	if (n > MAX_CO_PAIRS)
		return -ENOSPC;
	np = malloc(n * sizeof(*np));
	if (!np)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		np[i].ti = UINT32_MAX;
	for (size_t i = 0; i < o->pairs_size; i++) {
		const struct co_pair *q = &o->pairs[i];
		if (q->ti == UINT32_MAX)
			continue;
		size_t h = pair_hash(q->ti, q->a, q->b) & (n - 1);
		while (np[h].ti != UINT32_MAX)
			h = (h + 1) & (n - 1);
		np[h] = *q;
	}
	free(o->pairs);
	o->pairs = np;
	o->pairs_size = n;
	return 0;
}

/* Offsets a and b of type ti read together once more. */
static void pair_add(struct objects *o, uint32_t ti, int64_t a, int64_t b)
{
	if (a > b) {
		int64_t x = a;
		a = b;
		b = x;
	}
	if ((o->pairs_used + 1) * 4 > o->pairs_size * 3 && pairs_grow(o))
		return;		/* past the table: co-access is advice only */
	size_t h = pair_hash(ti, a, b) & (o->pairs_size - 1);
	while (o->pairs[h].ti != UINT32_MAX &&
	       (o->pairs[h].ti != ti || o->pairs[h].a != a || o->pairs[h].b != b))
		h = (h + 1) & (o->pairs_size - 1);
	if (o->pairs[h].ti == UINT32_MAX) {
		o->pairs[h] = (struct co_pair){ ti, a, b, 0 };
		o->pairs_used++;
	}
	o->pairs[h].n++;
}

void objects_co_pairs(const struct dt_report *r, uint32_t ti,
		      void (*fn)(void *arg, int64_t a, int64_t b, uint64_t n), void *arg)
{
	const struct objects *o = r->objects;

	for (size_t i = 0; o && i < o->pairs_size; i++)
		if (o->pairs[i].ti == ti)
			fn(arg, o->pairs[i].a, o->pairs[i].b, o->pairs[i].n);
}

static bool near(uint64_t a, uint64_t b, uint64_t window)
{
	return (a > b ? a - b : b - a) <= window;
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

	if (!o) {
		o = r->objects = calloc(1, sizeof(*o));
		if (!o)
			return -ENOMEM;
	}
	if ((o->used + 1) * 4 > o->size * 3 && grow(o)) {
		o->untracked++;
		return 0;
	}
	size_t h = obj_hash(base, ti) & (o->size - 1);
	while (o->slot[h].ti != UINT32_MAX &&
	       (o->slot[h].ti != ti || o->slot[h].base != base))
		h = (h + 1) & (o->size - 1);
	struct object_seen *ob = &o->slot[h];
	if (ob->ti == UINT32_MAX) {
		memset(ob, 0, sizeof(*ob));
		ob->ti = ti;
		ob->base = base;
		o->used++;
	}
	ob->samples++;
	if (tid < 0)
		return 0;
	struct object_thread *me = NULL;
	for (unsigned i = 0; i < ob->n && !me; i++)
		if (ob->t[i].tid == tid && ob->t[i].pid == pid)
			me = &ob->t[i];
	if (!me && ob->n == OBJ_THREADS) {
		ob->crowded = true;
		return 0;
	}
	if (!me) {
		me = &ob->t[ob->n++];
		*me = (struct object_thread){ .pid = pid, .tid = tid, .timed = timed,
					      .last_offset = ans->offset };
	} else if (me->timed && timed && me->last_offset != ans->offset &&
		   near(smp->time, me->last, CO_WINDOW_NS)) {
		pair_add(o, ti, me->last_offset, ans->offset);
	}
	me->last_offset = ans->offset;
	me->timed &= timed;
	if (timed) {
		me->last = smp->time;
		if (wrote)
			me->last_write = smp->time;
	}
	me->wrote |= wrote;
	for (unsigned i = 0; me->timed && i < ob->n; i++) {
		const struct object_thread *x = &ob->t[i];
		if (x == me || x->pid != pid || !x->timed)
			continue;
		if ((wrote && near(smp->time, x->last, r->window)) ||
		    (x->wrote && near(smp->time, x->last_write, r->window))) {
			ob->met++;
			break;
		}
	}
	return 0;
}

void objects_free(struct objects *o)
{
	if (!o)
		return;
	free(o->pairs);
	free(o->slot);
	free(o);
}

void objects_facts(const struct dt_report *r, struct object_facts *f)
{
	const struct objects *o = r->objects;

	memset(f, 0, r->ntypes * sizeof(*f));
	for (size_t i = 0; o && i < o->size; i++) {
		const struct object_seen *ob = &o->slot[i];
		if (ob->ti == UINT32_MAX || ob->ti >= r->ntypes)
			continue;
		struct object_facts *t = &f[ob->ti];
		t->objects++;
		/* as for lines: a hand-over meets once or twice */
		t->shared += ob->met >= OBJECT_MIN_MEETINGS &&
			     ob->met * 100 >= ob->samples * OBJECT_MEETING_PERCENT;
		t->several += ob->n > 1 || ob->crowded;
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
	for (size_t i = 0; i < r->ntypes; i++)
		f[i].untracked = o ? o->untracked : 0;
}
