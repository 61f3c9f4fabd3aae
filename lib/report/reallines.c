// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Real cache lines, from data addresses: per 64-byte line of memory, the
 * threads that touched it and when, and the meetings among them.  A
 * meeting is a sample of one thread in a line another thread of its
 * process wrote within the window, or a write by it in a line another
 * thread touched within the window: at other bytes it is false sharing,
 * at the same bytes by two writers true sharing.
 *
 * Each thread keeps only its last access and its last write in the line:
 * enough to tell, sample by sample, what it did within the window, and a
 * line stays a few hundred bytes however many fields its threads touch.
 *
 * Not meeting is evidence only where the samples could show a meeting.
 * Two threads whose samples on a line do not interleave (an object set
 * up by one and used by the other), or whose first one's came within a
 * window of each other and stopped (a hand-over), did not share it.  A
 * mutex every thread takes now and then, sampled there twice a second,
 * meets nothing in the samples and is shared all the same: such a line
 * is marked unsure, never refuted (pace_unsure, report.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../arrays.h"
#include "report.h"

/* One access: where in the line, and which type row and offset. */
struct line_access {
	uint64_t time;			/* ns */
	uint32_t ti;
	uint8_t byte, size;
	int64_t offset;
};

struct line_thread {
	int32_t tid;
	bool timed;			/* all its samples here had times */
	bool wrote;
	struct pace pace;		/* of its samples here */
	struct line_access last, last_write;
};

/* The meetings of one line, by the object the sample touched: its type
 * row, and the offset in it where the line starts (offset - byte: one
 * value for every access to one object in one line).  offset is the
 * first meeting access's. */
struct line_meeting {
	uint32_t ti;
	uint8_t kind;			/* REAL_LINE_FALSE | REAL_LINE_TRUE */
	uint32_t samples;
	int64_t line_start, offset;
};

#define LINE_THREADS 4
#define LINE_MEETINGS 4
struct real_line {
	uint64_t key;			/* address / 64 */
	int32_t pid;			/* its process: one address in two
					 * processes is two lines */
	uint8_t nthreads, nmeetings;
	struct line_thread t[LINE_THREADS];
	struct line_meeting m[LINE_MEETINGS];
};
#define MAX_REAL_LINES (1u << 16)

/* An array of lines with an open-addressing index (arrays.h). */
struct real_lines {
	struct real_line *v;
	size_t n, cap;
	uint32_t *index;
	size_t index_size;
	uint64_t untracked;		/* samples past a table's room */
	uint64_t meetings_lost;		/* meetings past a line's room */
};

static uint64_t line_hash(uint64_t key, int32_t pid)
{
	return hash_mix(hash_mix(HASH_SEED, key), (uint32_t)pid);
}

/* Line key's entry, added when new; NULL past the table (counted) or
 * out of memory (*err). */
static struct real_line *line_get(struct real_lines *rl, uint64_t key, int32_t pid,
				   int *err)
{
	uint64_t h = line_hash(key, pid);
	uint32_t k = INDEX_FIND(rl->index, rl->index_size, h, i,
				rl->v[i].key == key && rl->v[i].pid == pid);

	if (k)
		return &rl->v[k - 1];
	if (rl->n == MAX_REAL_LINES) {
		rl->untracked++;
		return NULL;
	}
	if (INDEX_READY(rl->index, rl->index_size, rl->n, i,
			line_hash(rl->v[i].key, rl->v[i].pid)) ||
	    GROW(rl->v, rl->cap, rl->n, 256)) {
		*err = -ENOMEM;
		return NULL;
	}
	rl->index[INDEX_FREE(rl->index, rl->index_size, h)] = (uint32_t)rl->n + 1;
	rl->v[rl->n] = (struct real_line){ .key = key, .pid = pid };
	return &rl->v[rl->n++];
}

static bool overlap(const struct line_access *a, const struct line_access *b)
{
	return a->byte < b->byte + b->size && b->byte < a->byte + a->size;
}

/* What access a (a write when wrote) meets of thread o's within the
 * window: REAL_LINE_FALSE, REAL_LINE_TRUE or 0. */
static unsigned meets(const struct line_access *a, bool wrote,
		      const struct line_thread *o, uint64_t window)
{
	unsigned kind = 0;

	/* another thread's write near in time: beside a is false sharing,
	 * on a's bytes true sharing if a writes too */
	if (o->wrote && within(a->time, o->last_write.time, window))
		kind |= !overlap(a, &o->last_write) ? REAL_LINE_FALSE :
			wrote ? REAL_LINE_TRUE : 0;
	/* a write beside another thread's access near in time */
	if (wrote && within(a->time, o->last.time, window) && !overlap(a, &o->last))
		kind |= REAL_LINE_FALSE;
	return kind;
}

/* kind: REAL_LINE_*; a meeting sample counts when FALSE or TRUE is in it. */
static void note_meeting(struct real_lines *rl, struct real_line *l,
			 const struct line_access *a, unsigned kind)
{
	int64_t line_start = a->offset - a->byte;
	uint32_t met = (kind & (REAL_LINE_FALSE | REAL_LINE_TRUE)) != 0;

	for (unsigned i = 0; i < l->nmeetings; i++) {
		struct line_meeting *m = &l->m[i];
		if (m->ti == a->ti && m->line_start == line_start) {
			m->kind |= (uint8_t)kind;
			m->samples += met;
			return;
		}
	}
	if (l->nmeetings == LINE_MEETINGS) {
		rl->meetings_lost++;
		return;
	}
	l->m[l->nmeetings++] = (struct line_meeting){
		.ti = a->ti, .kind = (uint8_t)kind, .samples = met,
		.line_start = line_start, .offset = a->offset };
}

int real_lines_add(struct real_lines **rlp, uint32_t ti, int64_t offset,
		   const struct dt_answer *ans, const struct dt_sample *smp,
		   int32_t pid, uint64_t window)
{
	struct real_lines *rl = *rlp;
	uint64_t key = smp->addr / CACHE_LINE;
	bool wrote = (ans->access & DT_ACCESS_STORE) != 0;
	bool timed = (smp->has & DT_SAMPLE_TIME) != 0;
	struct line_access a = {
		.time = smp->time, .ti = ti, .offset = offset,
		.byte = (uint8_t)(smp->addr % CACHE_LINE),
	};
	unsigned room = CACHE_LINE - a.byte;

	a.size = (uint8_t)(!ans->size ? 1 : ans->size < room ? ans->size : room);
	if (!rl) {
		rl = *rlp = calloc(1, sizeof(*rl));
		if (!rl)
			return -ENOMEM;
	}
	int err = 0;
	struct real_line *l = line_get(rl, key, pid, &err);
	if (!l)
		return err;
	struct line_thread *me = NULL;
	for (unsigned i = 0; i < l->nthreads && !me; i++)
		if (l->t[i].tid == smp->tid)
			me = &l->t[i];
	if (!me && l->nthreads == LINE_THREADS) {
		rl->untracked++;
		return 0;	/* its meetings would go unseen */
	}
	if (!me) {
		me = &l->t[l->nthreads++];
		*me = (struct line_thread){ .tid = smp->tid, .timed = timed,
					    .pace.first = a.time };
	} else if (timed && me->timed) {
		pace_note(&me->pace, a.time, me->last.time, window);
	}
	me->timed &= timed;
	unsigned kind = 0;
	for (unsigned i = 0; i < l->nthreads; i++) {
		const struct line_thread *o = &l->t[i];
		if (o == me || !(wrote || o->wrote))
			continue;	/* (the line is of one process) */
		bool timed_both = me->timed && o->timed;
		unsigned k = timed_both ? meets(&a, wrote, o, window) : 0;
		if (!k && (!timed_both ||
			   pace_unsure(&me->pace, &o->pace, a.time, o->last.time, window)))
			k = REAL_LINE_UNSURE;
		kind |= k;
	}
	if (kind)
		note_meeting(rl, l, &a, kind);
	me->last = a;
	if (wrote) {
		me->last_write = a;
		me->wrote = true;
	}
	return 1;
}

/* Line l's pairs of threads, one writing, whose samples there came in
 * an order too short to refute anything (pace_order_unsure): unsure, on
 * each one's last access's type row. */
static void order_unsure(const struct real_line *l,
			 void (*fn)(void *arg, uint64_t line, uint32_t ti,
				    int64_t offset, unsigned kind, uint64_t samples),
			 void *arg)
{
	for (unsigned i = 0; i < l->nthreads; i++)
		for (unsigned j = i + 1; j < l->nthreads; j++) {
			const struct line_thread *a = &l->t[i], *b = &l->t[j];
			if (!(a->wrote || b->wrote) || !a->timed || !b->timed ||
			    !pace_order_unsure(&a->pace, a->last.time, &b->pace,
					       b->last.time))
				continue;
			fn(arg, l->key, a->last.ti, a->last.offset, REAL_LINE_UNSURE, 0);
			fn(arg, l->key, b->last.ti, b->last.offset, REAL_LINE_UNSURE, 0);
		}
}

void real_lines_meetings(const struct real_lines *rl,
			 void (*fn)(void *arg, uint64_t line, uint32_t ti,
				    int64_t offset, unsigned kind, uint64_t samples),
			 void *arg)
{
	for (size_t i = 0; rl && i < rl->n; i++) {
		const struct real_line *l = &rl->v[i];
		for (unsigned k = 0; k < l->nmeetings; k++)
			fn(arg, l->key, l->m[k].ti, l->m[k].offset, l->m[k].kind,
			   l->m[k].samples);
		order_unsure(l, fn, arg);
	}
}

uint64_t real_lines_untracked(const struct real_lines *rl)
{
	return rl ? rl->untracked : 0;
}

uint64_t real_lines_meetings_lost(const struct real_lines *rl)
{
	return rl ? rl->meetings_lost : 0;
}

void real_lines_free(struct real_lines *rl)
{
	if (!rl)
		return;
	free(rl->v);
	free(rl->index);
	free(rl);
}
