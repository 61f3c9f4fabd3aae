// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * From heat to a layout: for a hot struct, a proposed member order,
 * printed as a C definition that compiles, with what it should change
 * (cache lines the hot accesses touch, lines a writer shares with other
 * threads, holes, size, alignment).  The rules, in order:
 *   1. members with >= 0.5% of the struct's samples are hot, the others
 *      cold (a hot member is touched on the hot path; 0.5% keeps out the
 *      few samples of setup code, and keeps in a field written on one
 *      step in a hundred, listwalk's hits);
 *   2. hot members that a thread writes while other threads touch other
 *      members of the same line (the sharing table's facts), or other
 *      hot members of the struct in other lines (a layout that already
 *      keeps them apart stays so), get a cache line of their own, after
 *      the others (aligned(64) on the first), with the hot members that
 *      only that thread touches;
 *   3. the other hot members come first, hottest first, packed into as
 *      few 64-byte lines as their sizes allow, largest alignment first
 *      within a line (no holes);
 *   4. cold members fill what is left of those lines, then follow,
 *      largest alignment first (holes closed as pahole does); a writer's
 *      line takes only those no other thread touches, the others start
 *      a line of their own;
 *   5. bitfields that follow each other stay together in their order, a
 *      flexible array member stays last;
 *   6. when the hot members already sit in as few lines as the proposal
 *      and no writer shares a line, the answer is "nothing worth
 *      changing".
 * The layout is computed as the psABI lays out C structs (x86-64 and
 * AArch64 agree); it is checked first against the compiler's own layout
 * of the current order, and the struct is left alone if they differ.
 */
#define _GNU_SOURCE	/* qsort_r */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../arrays.h"
#include "report.h"

enum group { G_HOT, G_FILL, G_WRITE, G_COLD, G_LAST, G_FIRST };

/* Members placed as one: a member, or bitfields that follow each other. */
struct unit {
	size_t first, n;		/* cs->m[first .. first + n) */
	uint64_t offset, bytes;		/* where they are now */
	uint64_t align, footprint;	/* footprint: bytes rounded to align */
	struct counts c;
	struct range_sharing sh;
	enum group group;
	bool hot;			/* >= 0.5% of the struct's samples */
	bool placed;			/* pack_by_co_access: in a line */
	size_t bin;			/* hot: the line planned for it */
};

struct plan {
	const struct type_row *t;
	const struct dt_cstruct *cs;
	struct unit *u;
	size_t nu;
	size_t *order;			/* units, in the proposed order */
	uint64_t *old_bit, *new_bit;	/* per member */
	bool *line_start;		/* per member: aligned(64) added */
	uint64_t size_after, align_after;
	uint64_t holes_before, holes_after;
	unsigned lines_before, lines_after;	/* with hot members */
	unsigned shared_before, shared_after;	/* with a writer and others */
	bool true_sharing;
	bool suspected;			/* keeping a writer apart would rest on
					 * sharing no address confirms */
	struct object_facts objects;	/* what addresses show of its objects */
	uint64_t *co;			/* nu x nu: how much two units are read
					 * together (co_access), or NULL */
	bool co_in_time;		/* from data addresses and times */
	bool addresses_cover;		/* half of its samples have addresses */
	bool addresses_refute;		/* nine in ten on objects with their
					 * process and thread known: enough
					 * to say threads share none of them */
	const char *verdict;		/* set: no proposal, and why */
	bool refused;			/* the verdict is a refusal (not
					 * "nothing worth changing") */
};

static uint64_t round_up(uint64_t v, uint64_t a)
{
	return a ? (v + a - 1) / a * a : v;
}

/* Bit offsets of the members taken in order morder[0..n), as the psABI
 * places them: a member at its alignment, a bitfield in the next bits
 * unless it would cross a unit of its declared type.  The struct's size
 * and alignment come back. */
static uint64_t lay_out(const struct dt_cstruct *cs, const size_t *morder,
			size_t n, const bool *line_start, uint64_t *bits,
			uint64_t *align)
{
	uint64_t pos = 0, a = cs->explicit_align ? cs->explicit_align : 1;

	for (size_t k = 0; k < n; k++) {
		size_t i = morder[k];
		const struct dt_cmember *m = &cs->m[i];
		uint64_t ma = line_start && line_start[i] && m->align < CACHE_LINE ?
			      CACHE_LINE : m->align;
		if (m->bit_size) {
			uint64_t unit = m->unit_size * 8;
			if (pos / unit != (pos + m->bit_size - 1) / unit)
				pos = round_up(pos, unit);
			bits[i] = pos;
			pos += m->bit_size;
		} else {
			pos = round_up(pos, ma * 8);
			bits[i] = pos;
			pos += m->size * 8;
		}
		if (ma > a)
			a = ma;
	}
	*align = a;
	return round_up((pos + 7) / 8, a);
}

static uint64_t member_bits(const struct dt_cmember *m)
{
	return m->bit_size ? m->bit_size : m->size * 8;
}

static uint64_t holes(const struct dt_cstruct *cs, uint64_t size)
{
	uint64_t used = 0;

	for (size_t i = 0; i < cs->n; i++)
		used += member_bits(&cs->m[i]);
	return size - (used + 7) / 8;
}

/* The units of cs, with their heat and what threads did to them. */
static int make_units(struct plan *p, const struct sharing_view *sv,
		      uint32_t ti)
{
	const struct dt_cstruct *cs = p->cs;

	p->u = calloc(cs->n ? cs->n : 1, sizeof(*p->u));
	if (!p->u)
		return -ENOMEM;
	for (size_t i = 0; i < cs->n; i++) {
		const struct dt_cmember *m = &cs->m[i];
		struct unit *u = p->nu ? &p->u[p->nu - 1] : NULL;
		uint64_t lo = m->offset;	/* a bitfield's: of its first bit */
		uint64_t hi = m->bit_size ? (m->bit_offset + m->bit_size + 7) / 8 :
			      m->offset + m->size;
		if (u && m->bit_size && cs->m[u->first + u->n - 1].bit_size) {
			u->n++;		/* bitfields stay together */
			if (hi > u->offset + u->bytes)
				u->bytes = hi - u->offset;
			if (m->align > u->align)
				u->align = m->align;
			continue;
		}
		p->u[p->nu++] = (struct unit){ .first = i, .n = 1, .offset = lo,
					       .bytes = hi - lo, .align = m->align };
	}
	for (size_t k = 0; k < p->nu; k++) {
		struct unit *u = &p->u[k];
		u->footprint = round_up(u->bytes ? u->bytes : 1, u->align);
		report_sum_range(p->t, u->offset, u->offset + (u->bytes ? u->bytes : 1), &u->c);
		sharing_view_range(sv, ti, (int64_t)u->offset,
				   (int64_t)(u->offset + u->bytes), &u->sh);
	}
	return 0;
}

static bool is_hot(const struct unit *u, uint64_t total)
{
	return u->c.samples[0] && u->c.samples[0] * 200 >= total;
}

/* The cache lines (offset / 64) the hot units cover at the given offsets
 * (bytes, per unit), and among them those where a writer meets another
 * thread's hot member (a reader's, or another writer's). */
#define MAX_LINES 4096
static void count_lines(const struct plan *p, const uint64_t *unit_off,
			unsigned *lines, unsigned *shared)
{
	static const int32_t none = -1;
	int32_t writer[MAX_LINES];	/* -1: no writer yet */
	uint8_t state[MAX_LINES] = { 0 };	/* 1 hot, 2 shared */

	*lines = *shared = 0;
	for (size_t l = 0; l < MAX_LINES; l++)
		writer[l] = none;
	for (size_t k = 0; k < p->nu; k++) {
		const struct unit *u = &p->u[k];
		if (u->group != G_HOT && u->group != G_WRITE &&
		    !(u->group == G_FIRST && u->hot))
			continue;
		uint64_t a = unit_off[k] / CACHE_LINE;
		uint64_t b = (unit_off[k] + (u->bytes ? u->bytes : 1) - 1) / CACHE_LINE;
		for (uint64_t l = a; l <= b && l < MAX_LINES; l++) {
			int32_t w = u->group == G_WRITE ? u->sh.writer : none;
			if (state[l] && writer[l] != w && (w != none || writer[l] != none))
				state[l] = 2;	/* two writers, or a writer and a reader */
			else if (!state[l])
				state[l] = 1;
			if (w != none)
				writer[l] = w;
		}
	}
	for (size_t l = 0; l < MAX_LINES; l++) {
		*lines += state[l] != 0;
		*shared += state[l] == 2;
	}
}

static int cmp_heat(const void *x, const void *y, void *plan)
{
	const struct plan *p = plan;
	const struct unit *a = &p->u[*(const size_t *)x], *b = &p->u[*(const size_t *)y];

	if (a->c.samples[0] != b->c.samples[0])
		return a->c.samples[0] > b->c.samples[0] ? -1 : 1;
	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

/* Within a line, and among cold members: the line (bin), the members
 * placed there before those that fill it, largest alignment first (no
 * holes between them), then the order they had. */
static int cmp_align(const void *x, const void *y, void *plan)
{
	const struct plan *p = plan;
	const struct unit *a = &p->u[*(const size_t *)x], *b = &p->u[*(const size_t *)y];
	bool fa = a->group == G_FILL, fb = b->group == G_FILL;

	if (a->bin != b->bin)
		return a->bin < b->bin ? -1 : 1;
	if (fa != fb)
		return fa ? 1 : -1;
	if (a->align != b->align)
		return a->align > b->align ? -1 : 1;
	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

static int cmp_writer(const void *x, const void *y, void *plan)
{
	const struct plan *p = plan;
	const struct unit *a = &p->u[*(const size_t *)x], *b = &p->u[*(const size_t *)y];

	if (a->sh.writer != b->sh.writer)
		return a->sh.writer < b->sh.writer ? -1 : 1;
	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

#define MAX_BINS 256

/* After the first n units of the order, the cold ones and then the last:
 * each time the most aligned one that fits the current position without
 * padding, else the most aligned one (the positions are estimates; the
 * layout is computed after). */
static void close_holes(struct plan *p, size_t n)
{
	uint64_t pos = 0;

	for (size_t k = 0; k < n; k++) {
		const struct unit *u = &p->u[p->order[k]];
		uint64_t a = p->line_start[u->first] ? CACHE_LINE : u->align;
		pos = round_up(pos, a) + u->bytes;
	}
	for (enum group g = G_COLD; g <= G_LAST; g++) {
		for (;;) {
			size_t best = SIZE_MAX;
			bool best_fits = false;
			for (size_t k = 0; k < p->nu; k++) {
				const struct unit *u = &p->u[k];
				bool fits = pos % u->align == 0;
				if (u->group != g || u->bin == SIZE_MAX)
					continue;
				if (best == SIZE_MAX || (fits && !best_fits) ||
				    (fits == best_fits && u->align > p->u[best].align))
					best = k, best_fits = fits;
			}
			if (best == SIZE_MAX)
				break;
			p->u[best].bin = SIZE_MAX;	/* placed */
			p->order[n++] = best;
			pos = round_up(pos, p->u[best].align) + p->u[best].bytes;
		}
	}
}

/* The proposed order of the units (rules 2 to 5).  Each "bin" is a run
 * of lines that starts a line: the hot members' lines, hottest first,
 * then one per writing thread. */
/* The units of group g, into v, sorted by cmp; how many. */
static size_t units_of(struct plan *p, enum group g, size_t *v,
		       int (*cmp)(const void *, const void *, void *))
{
	size_t n = 0;

	for (size_t k = 0; k < p->nu; k++)
		if (p->u[k].group == g)
			v[n++] = k;
	qsort_r(v, n, sizeof(*v), cmp, p);
	return n;
}

/* Bytes left in the last line of a bin that holds used bytes. */
static uint64_t line_room(uint64_t used)
{
	return used ? (CACHE_LINE - used % CACHE_LINE) % CACHE_LINE : CACHE_LINE;
}

/* ---- co-access: members read in the same function ---- */

/* One function's samples on one unit. */
struct fn_unit {
	uint64_t fn;			/* the function's start */
	size_t unit;
	uint64_t samples;
};

struct co_build {
	struct plan *p;
	struct fn_unit *v;
	size_t n, cap;
	bool oom;
};

/* The unit holding byte off of the struct, or SIZE_MAX. */
static size_t unit_at(const struct plan *p, int64_t off)
{
	for (size_t k = 0; off >= 0 && k < p->nu; k++) {
		const struct unit *u = &p->u[k];
		if ((uint64_t)off >= u->offset && (uint64_t)off < u->offset + (u->bytes ? u->bytes : 1))
			return k;
	}
	return SIZE_MAX;
}

static void co_add(void *arg, uint64_t pc, uint64_t charged, const struct dt_answer *a)
{
	struct co_build *b = arg;
	const struct type_row *t = b->p->t;
	const char *name;
	uint64_t start, size;

	if (a->reason != DT_OK || a->type_id != t->type_id ||
	    dt_session_symbol_at(t->session, pc, &name, &start, &size))
		return;
	size_t k = unit_at(b->p, a->offset);
	if (k == SIZE_MAX)
		return;
	for (size_t i = 0; i < b->n; i++)
		if (b->v[i].fn == start && b->v[i].unit == k) {
			b->v[i].samples += charged;
			return;
		}
	if (GROW(b->v, b->cap, b->n, 64)) {
		b->oom = true;
		return;
	}
	b->v[b->n++] = (struct fn_unit){ start, k, charged };
}

struct co_time {
	struct plan *p;
	uint64_t total;
};

static void co_pair(void *arg, int64_t a, int64_t b, uint64_t n)
{
	struct co_time *c = arg;
	struct plan *p = c->p;
	size_t ua = unit_at(p, a), ub = unit_at(p, b);

	if (ua == SIZE_MAX || ub == SIZE_MAX || ua == ub)
		return;
	p->co[ua * p->nu + ub] += n;
	p->co[ub * p->nu + ua] += n;
	c->total += n;
}

/* Which units are read together.  With data addresses and times dense
 * enough (precise memory events): the members one thread touched on one
 * object within CO_WINDOW_NS, weighted by how often.  Else the members
 * read in the same function: the weight of two is, summed over the
 * functions that read both, the lesser of their samples there.  NULL
 * (heat alone) without either. */
#define CO_MAX_UNITS 512
#define CO_MIN_PAIRS 8
static void co_access(struct plan *p, const struct dt_report *r)
{
	struct co_build b = { .p = p };

	if (!p->nu || p->nu > CO_MAX_UNITS)
		return;
	if (p->t->addressed && r->objects) {
		struct co_time c = { .p = p };
		p->co = calloc(p->nu * p->nu, sizeof(*p->co));
		if (p->co)
			objects_co_pairs(r, (uint32_t)(p->t - r->types), co_pair, &c);
		if (c.total >= CO_MIN_PAIRS) {
			p->co_in_time = true;
			return;
		}
		free(p->co);
		p->co = NULL;
	}
	if (!r->pcs)
		return;
	codeview_each_charged(r, p->t->session, co_add, &b);
	p->co = b.oom ? NULL : calloc(p->nu * p->nu, sizeof(*p->co));
	for (size_t i = 0; p->co && i < b.n; i++)
		for (size_t j = i + 1; j < b.n; j++) {
			if (b.v[i].fn != b.v[j].fn || b.v[i].unit == b.v[j].unit)
				continue;
			uint64_t w = b.v[i].samples < b.v[j].samples ? b.v[i].samples :
				     b.v[j].samples;
			p->co[b.v[i].unit * p->nu + b.v[j].unit] += w;
			p->co[b.v[j].unit * p->nu + b.v[i].unit] += w;
		}
	free(b.v);
}

/* How much unit k is read with the units of bin b already placed. */
static uint64_t co_weight(const struct plan *p, size_t k, size_t b)
{
	uint64_t w = 0;

	for (size_t j = 0; j < p->nu; j++)
		if (j != k && p->u[j].bin == b && p->u[j].placed)
			w += p->co[k * p->nu + j];
	return w;
}

/* Hot units into lines by co-access: each line starts with the hottest
 * unit left and takes the unit read most with its members while one
 * fits; then lines that fit together are merged (fewer lines). */
static size_t pack_by_co_access(struct plan *p, const size_t *hot, size_t nhot,
				uint64_t *used, size_t nbins)
{
	for (size_t i = 0; i < nhot; i++) {
		struct unit *u = &p->u[hot[i]];
		if (u->placed)
			continue;
		/* bin 0 holds only a fixed header so far: the first line
		 * goes on after it */
		size_t b = nbins == 1 && i == 0 && used[0] < CACHE_LINE ? 0 : nbins;
		if (b == nbins) {
			if (nbins == MAX_BINS)
				b = nbins - 1;
			else
				used[nbins++] = 0;
		}
		u->bin = b;
		u->placed = true;
		used[b] += u->footprint;
		for (;;) {
			size_t best = SIZE_MAX;
			uint64_t best_w = 0;
			for (size_t j = 0; j < nhot; j++) {
				const struct unit *v = &p->u[hot[j]];
				uint64_t w;
				if (v->placed || v->footprint > line_room(used[b]) ||
				    !(w = co_weight(p, hot[j], b)) || w <= best_w)
					continue;
				best = hot[j];
				best_w = w;
			}
			if (best == SIZE_MAX)
				break;
			p->u[best].bin = b;
			p->u[best].placed = true;
			used[b] += p->u[best].footprint;
		}
	}
	/* a line's group moves whole into an earlier line it fits in */
	for (size_t b = 1; b < nbins; b++)
		for (size_t a = 0; a < b; a++) {
			if (!used[b] || used[a] % CACHE_LINE + used[b] > CACHE_LINE ||
			    used[a] + used[b] > CACHE_LINE || used[b] > CACHE_LINE)
				continue;
			for (size_t k = 0; k < p->nu; k++)
				if (p->u[k].placed && p->u[k].bin == b)
					p->u[k].bin = a;
			used[a] += used[b];
			used[b] = 0;
			break;
		}
	return nbins;
}

#define NO_WRITER INT32_MIN

/* A writer's bin: the thread that writes there (NO_WRITER: a bin of
 * readers), and its process. */
struct bin_writer {
	int32_t tid, pid;
};

/* Whether another thread of the writer's process touches unit u (the
 * sharing table's facts; another process's threads are never sharers):
 * such a member, cold or not, must not share the writer's line. */
static bool touched_beside(const struct unit *u, struct bin_writer w)
{
	return u->sh.threads && u->sh.toucher_pid == w.pid &&
	       (u->sh.threads > 1 || u->sh.toucher != w.tid);
}

/* Where a member after the last writer's line goes: the cold ones no
 * other thread touches stay in that line, the others start a line of
 * their own, the last ones (a flexible array) last. */
static int tail_rank(const struct unit *u, struct bin_writer writer)
{
	return u->group == G_LAST ? 2 : touched_beside(u, writer) ? 1 : 0;
}

/* The members after the last writer's line, order[tail..nu), by
 * tail_rank(), each rank in the order close_holes() gave (a struct's
 * members are few: insertion), and the first one another thread
 * touches starting a line. */
static void keep_off_writer(struct plan *p, size_t tail, struct bin_writer writer)
{
	size_t *v = p->order + tail, n = p->nu - tail;

	for (size_t i = 1; i < n; i++) {
		size_t k = v[i], j = i;
		int r = tail_rank(&p->u[k], writer);
		for (; j && tail_rank(&p->u[v[j - 1]], writer) > r; j--)
			v[j] = v[j - 1];
		v[j] = k;
	}
	for (size_t i = 0; i < n; i++)
		if (touched_beside(&p->u[v[i]], writer)) {
			p->line_start[p->u[v[i]].first] = true;
			break;
		}
}

static void plan_order(struct plan *p)
{
	size_t n = 0, nbins = 0;
	size_t *v = p->order;		/* scratch until the order is made */
	uint64_t used[MAX_BINS];
	struct bin_writer bin_writer[MAX_BINS];

	for (size_t b = 0; b < MAX_BINS; b++)
		bin_writer[b].tid = NO_WRITER;
	/* a common header stays first, in order: bin 0 starts with it */
	for (size_t k = 0; k < p->nu; k++)
		if (p->u[k].group == G_FIRST) {
			if (!nbins)
				used[nbins++] = 0;
			p->u[k].bin = 0;
			used[0] = round_up(used[0], p->u[k].align) + p->u[k].footprint;
		}
	size_t nhot = units_of(p, G_HOT, v, cmp_heat);

	/* hot members read together share lines; without counts per
	 * instruction, first fit, hottest first, into 64-byte lines */
	if (p->co)
		nbins = pack_by_co_access(p, v, nhot, used, nbins);
	for (size_t i = 0; !p->co && i < nhot; i++) {
		struct unit *u = &p->u[v[i]];
		size_t b = 0;
		while (b < nbins && u->footprint > line_room(used[b]))
			b++;
		if (b == nbins && nbins < MAX_BINS)
			used[nbins++] = 0;
		u->bin = b < nbins ? b : nbins - 1;
		used[u->bin] += u->footprint;
	}
	/* writers: a bin per thread */
	size_t nw = units_of(p, G_WRITE, v, cmp_writer);
	for (size_t i = 0; i < nw; i++) {
		struct unit *u = &p->u[v[i]];
		bool next = !i || u->sh.writer != p->u[v[i - 1]].sh.writer;
		if (next && nbins < MAX_BINS) {
			bin_writer[nbins] = (struct bin_writer){ u->sh.writer, u->sh.writer_pid };
			used[nbins++] = 0;
		}
		u->bin = nbins - 1;
		used[u->bin] += u->footprint;
		p->line_start[u->first] |= next;
	}
	/* cold members fill what a bin leaves of its last line, where
	 * another bin follows (else they simply follow); a writer's line
	 * only with those no other thread touches */
	for (size_t b = 0; b + 1 < nbins; b++)
		for (size_t k = 0; k < p->nu && used[b] % CACHE_LINE; k++) {
			struct unit *u = &p->u[k];
			if (u->group != G_COLD || u->footprint > line_room(used[b]) ||
			    used[b] % u->align ||
			    (bin_writer[b].tid != NO_WRITER && touched_beside(u, bin_writer[b])))
				continue;
			u->group = G_FILL;
			u->bin = b;
			used[b] += u->footprint;
		}
	size_t first = 0;
	for (size_t k = 0; k < p->nu; k++)	/* in their order */
		if (p->u[k].group == G_FIRST)
			p->order[first++] = k;
	n = first;
	for (size_t k = 0; k < p->nu; k++)
		if (p->u[k].group == G_HOT || p->u[k].group == G_FILL ||
		    p->u[k].group == G_WRITE)
			p->order[n++] = k;
	qsort_r(p->order + first, n - first, sizeof(*p->order), cmp_align, p);
	size_t tail = n;
	close_holes(p, n);
	if (nbins && bin_writer[nbins - 1].tid != NO_WRITER && used[nbins - 1] % CACHE_LINE)
		keep_off_writer(p, tail, bin_writer[nbins - 1]);
}

static void plan_free(struct plan *p)
{
	free(p->co);
	free(p->u);
	free(p->order);
	free(p->old_bit);
	free(p->new_bit);
	free(p->line_start);
}

/* Members in the order of the units in uorder. */
static size_t members_of(const struct plan *p, const size_t *uorder,
			 size_t *morder)
{
	size_t n = 0;

	for (size_t k = 0; k < p->nu; k++)
		for (size_t j = 0; j < p->u[uorder[k]].n; j++)
			morder[n++] = p->u[uorder[k]].first + j;
	return n;
}

/* A hot member that only one thread touches, a thread that writes a line
 * of its own, goes into that line: it adds no thread there, and keeps
 * what the thread works on together.  It is often written too, with the
 * stores unsampled (a store retires fast, and cpu-clock samples land
 * after it: counters' rx_packets once had 186 loads and no store). */
static void join_writers_own(struct plan *p)
{
	for (size_t k = 0; k < p->nu; k++) {
		struct unit *u = &p->u[k];
		if (u->group != G_HOT || u->sh.threads != 1)
			continue;
		for (size_t w = 0; w < p->nu; w++)
			if (p->u[w].group == G_WRITE &&
			    p->u[w].sh.writer == u->sh.toucher) {
				u->group = G_WRITE;
				u->sh.writer = u->sh.toucher;
				break;
			}
	}
}

/* Hot unit u is written by one thread while other threads touch the
 * struct's hot members: beside it in its line (the sharing table's flag)
 * or in other lines, where packing the hot members together would put
 * them beside it.  Only what data addresses confirm counts: a flag the
 * real lines refute is per-thread objects (nothing to keep apart); one
 * that nothing confirms or refutes makes the plan suspected. */
static bool written_apart(struct plan *p, const struct unit *u, uint64_t total)
{
	if (!u->c.stores[0])
		return false;
	if (u->sh.writes_beside) {
		if (u->sh.beside_confirmed)
			return true;
		p->suspected |= u->sh.beside_suspected;
		return false;
	}
	if (u->sh.threads != 1)
		return false;
	for (size_t k = 0; k < p->nu; k++) {
		const struct unit *v = &p->u[k];
		/* another process's threads share no memory with u's */
		if (v != u && is_hot(v, total) && v->sh.threads &&
		    v->sh.toucher_pid == u->sh.toucher_pid &&
		    (v->sh.threads > 1 || v->sh.toucher != u->sh.toucher)) {
			/* apart today: it matters only if threads share
			 * objects, which only addresses tell */
			if (p->objects.shared)
				return true;
			/* the samples without an address may be the ones
			 * on a shared object: refuted only when few are */
			p->suspected |= !p->addresses_refute;
			return false;
		}
	}
	return false;
}

/* Whether path is in a directory the dynamic loader searches by default
 * (/lib, /usr/lib, their lib64 and multiarch ones: /usr/lib/x86_64-
 * linux-gnu): a system library, glibc's and its kind.  A program's own
 * libraries in a directory of their own (/usr/lib/firefox-esr/) are not. */
static bool in_loader_dir(const char *path)
{
	static const char *const dirs[] = { "/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/" };
	const char *last = strrchr(path, '/');

	for (size_t i = 0; last && i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		size_t n = strlen(dirs[i]);
		if (strncmp(path, dirs[i], n))
			continue;
		const char *sub = path + n;	/* what follows the directory */
		if (sub == last + 1)
			return true;
		const char *slash = strchr(sub, '/');
		return slash == last && memmem(sub, (size_t)(slash - sub), "-linux-", 7);
	}
	return false;
}

/* A struct the profiled program does not define (glibc's malloc_chunk,
 * a header's FILE): not its to reorder.  A kernel's and its modules' are
 * (their debug files live under /usr/lib/debug, no loader directory). */
static const char *system_type(const struct type_row *t, const struct dt_cstruct *cs)
{
	const char *bin = t->session ? dt_session_path(t->session) : "";

	if (!strncmp(cs->decl_file, "/usr/include/", 13) ||
	    !strncmp(cs->decl_file, "/usr/local/include/", 19))
		return "defined in a system header: not the program's to reorder";
	if (in_loader_dir(bin))
		return "defined in a system library: not the program's to reorder";
	return NULL;
}

static int plan_make(struct plan *p, const struct dt_report *r,
		     const struct sharing_view *sv, const struct type_row *t,
		     const struct dt_cstruct *cs)
{
	size_t n = cs->n ? cs->n : 1;
	uint64_t align, *uoff;
	size_t *morder, *ident;
	int err;

	memset(p, 0, sizeof(*p));
	p->t = t;
	p->cs = cs;
	if (t->addressed)
		objects_facts_of(r, (uint32_t)(t - r->types), &p->objects);
	p->addresses_cover = t->addressed * 2 >= t->c.samples[0] && t->addressed;
	/* no sharing is said only from samples whose process and thread
	 * the objects kept, on objects no crowd of threads touched and none
	 * two threads touched too seldom to tell whether at once */
	p->addresses_refute = p->objects.tracked * 10 >= t->c.samples[0] * 9 &&
			      p->objects.tracked && !p->objects.crowded &&
			      !p->objects.unsure;
	p->verdict = cs->why_not ? cs->why_not : system_type(t, cs);
	p->refused = p->verdict != NULL;
	if (p->refused)
		return 0;
	p->order = calloc(n, sizeof(*p->order));
	p->old_bit = calloc(n, sizeof(*p->old_bit));
	p->new_bit = calloc(n, sizeof(*p->new_bit));
	p->line_start = calloc(n, sizeof(*p->line_start));
	morder = calloc(n, sizeof(*morder));
	ident = calloc(n, sizeof(*ident));
	uoff = calloc(n, sizeof(*uoff));
	err = !p->order || !p->old_bit || !p->new_bit || !p->line_start ||
	      !morder || !ident || !uoff ?
	      -ENOMEM : make_units(p, sv, (uint32_t)(t - r->types));
	if (err)
		goto out;
	/* the compiler's layout of the current order, as the psABI says */
	for (size_t i = 0; i < cs->n; i++)
		ident[i] = i;
	bool same = lay_out(cs, ident, cs->n, NULL, p->old_bit, &align) == cs->size &&
		    align == cs->align;
	for (size_t i = 0; same && i < cs->n; i++) {
		const struct dt_cmember *m = &cs->m[i];
		same = p->old_bit[i] == (m->bit_size ? m->bit_offset : m->offset * 8);
	}
	if (!same) {
		p->verdict = "its layout in the binary is not the one its members' "
			     "types give (packed, or members the DWARF leaves out)";
		p->refused = true;
		goto out;
	}
	uint64_t total = t->c.samples[0];
	bool writer_shares = false;	/* a writer beside other threads now */
	for (size_t k = 0; k < p->nu; k++) {
		struct unit *u = &p->u[k];
		bool flex = cs->m[u->first].flexible;
		u->hot = is_hot(u, total);
		u->group = u->first < cs->fixed_prefix ? G_FIRST : flex ? G_LAST :
			   !u->hot ? G_COLD : written_apart(p, u, total) ? G_WRITE : G_HOT;
		writer_shares |= u->group == G_WRITE && u->sh.writes_beside;
		p->true_sharing |= u->sh.written_by_threads;
		uoff[k] = u->offset;
	}
	join_writers_own(p);
	count_lines(p, uoff, &p->lines_before, &p->shared_before);
	p->holes_before = holes(cs, cs->size);
	co_access(p, r);
	plan_order(p);
	members_of(p, p->order, morder);
	p->size_after = lay_out(cs, morder, cs->n, p->line_start, p->new_bit,
				&p->align_after);
	p->holes_after = holes(cs, p->size_after);
	for (size_t k = 0; k < p->nu; k++)
		uoff[k] = p->new_bit[p->u[k].first] / 8;
	count_lines(p, uoff, &p->lines_after, &p->shared_after);
	if (!p->lines_before) {
		p->verdict = "no member has 0.5% of its samples";
		p->refused = true;
	} else if (p->suspected && p->objects.unsure) {
		p->verdict = "threads share an object of it, one writing, sampled "
			     "too seldom there\n *   to tell whether at once (false "
			     "sharing suspected): no change until more\n *   samples a "
			     "second (perf record -F 20000) or a longer run confirm or refute it";
		p->refused = true;
	} else if (p->suspected) {
		p->verdict = "threads may share its objects (false sharing suspected, "
			     "from the type's\n *   lines alone): no change until data "
			     "addresses confirm or refute it";
		p->refused = true;
	} else if (!writer_shares && p->lines_after >= p->lines_before)
		p->verdict = "nothing worth changing: the hot members already "
			     "sit in as few cache lines as they can";
out:
	free(morder);
	free(ident);
	free(uoff);
	return err;
}

/* ---- printing ---- */

static const char *group_note(enum group g)
{
	switch (g) {
	case G_HOT: return "hot, read together";
	case G_FILL: return "cold, filling the line";
	case G_WRITE: return "written by one thread while other threads touch "
			     "its line: a line of its own";
	case G_COLD: return "cold";
	case G_LAST: return "flexible array member: stays last";
	case G_FIRST: return "a header another struct starts with too: stays first";
	}
	return "";
}

/* A hot/cold split, when the hot members fit one line and the cold part
 * is large: the cold members behind a pointer make the object the hot
 * line plus the pointer, at one more load per cold access.  Said, not
 * laid out: whether it pays depends on how objects are allocated and
 * walked, which samples do not show. */
#define SPLIT_OBJECTS 16
static void print_split(FILE *f, const struct plan *p)
{
	uint64_t hot = 0, cold_samples = 0, total = p->t->c.samples[0];

	for (size_t k = 0; k < p->nu; k++) {
		const struct unit *u = &p->u[k];
		if (u->group == G_HOT || u->group == G_WRITE || u->group == G_FIRST)
			hot += u->footprint;	/* a header stays in front */
		else
			cold_samples += u->c.samples[0];
	}
	/* it pays with many objects, in caches that hold more of them:
	 * none when the addresses show only a few */
	if (!hot || hot > CACHE_LINE || p->cs->size < hot + 2 * CACHE_LINE ||
	    (p->addresses_cover && p->objects.objects < SPLIT_OBJECTS))
		return;
	fprintf(f, " * hot/cold split: the hot members take %" PRIu64 " bytes; the other %"
		PRIu64 " bytes behind a pointer\n *   would make each object %" PRIu64
		" bytes (hot part + 8), at one more load for the cold accesses (%.1f%% of"
		" its samples)\n", hot, p->cs->size - hot, hot + 8,
		total ? 100.0 * (double)cold_samples / (double)total : 0.0);
	if (!p->addresses_cover)
		fputs(" *   (worth it only with many such objects: data addresses would"
		      " count them)\n", f);
	else
		fprintf(f, " *   (%" PRIu64 " objects seen in the samples)\n", p->objects.objects);
}

/* What a bigger struct costs: per object, and for the objects the data
 * addresses showed (a floor: objects no sample touched cost too). */
static void print_memory_cost(FILE *f, const struct plan *p)
{
	uint64_t more = p->size_after - p->cs->size;

	fprintf(f, " * memory: +%" PRIu64 " bytes per object", more);
	if (p->objects.objects)
		fprintf(f, "; %" PRIu64 " object%s seen in the samples: +%" PRIu64
			" bytes at least", p->objects.objects,
			p->objects.objects == 1 ? "" : "s", more * p->objects.objects);
	else
		fputs(" (how many objects: record data addresses)", f);
	fputc('\n', f);
}

static void print_header(FILE *f, const struct dt_report *r, const struct plan *p)
{
	const struct dt_cstruct *cs = p->cs;
	const struct type_row *t = p->t;

	fprintf(f, "/*\n * dtprof advice for %s: %" PRIu64 " samples of %s,"
		" %" PRIu64 " bytes\n", t->name, t->c.samples[0],
		report_event_name(r, 0), cs->size);
	if (cs->decl_file[0])
		fprintf(f, " * defined in %s\n", cs->decl_file);
	if (p->verdict) {
		fprintf(f, " * %s%s\n", p->refused ? "not reordered: " : "", p->verdict);
		if (p->suspected && !p->objects.unsure) {
			char table[300];
			snprintf(table, sizeof(table), "advise=%s", t->name);
			report_confirm_hint(f, " *   ", table);
		}
		if (p->size_after && p->size_after < cs->size)
			fprintf(f, " * (an order by alignment alone would take it from %"
				PRIu64 " to %" PRIu64 " bytes,\n *  as pahole --reorganize"
				" does; the heat does not ask for it)\n", cs->size,
				p->size_after);
		fputs(" */\n", f);
		return;
	}
	fprintf(f, " * cache lines with hot members: %u -> %u%s\n", p->lines_before,
		p->lines_after, p->shared_before ? " (the writers' own lines among them)" : "");
	fputs(p->co_in_time ? " * hot members one thread reads together on one object"
			      " (within 1 us) share lines\n" :
	      p->co ? " * hot members read in the same functions share lines (co-access)\n" :
	      " * hot members packed hottest first (no per-instruction counts: no co-access)\n", f);
	if (p->shared_before || p->shared_after)
		fprintf(f, " * lines a writer shares with other threads' members: %u -> %u\n",
			p->shared_before, p->shared_after);
	fprintf(f, " * size: %" PRIu64 " -> %" PRIu64 " bytes; holes and padding: %"
		PRIu64 " -> %" PRIu64 " bytes\n", cs->size, p->size_after,
		p->holes_before, p->holes_after);
	if (p->size_after > cs->size)
		print_memory_cost(f, p);
	print_split(f, p);
	if (p->align_after != cs->align)
		fprintf(f, " * ALIGNMENT CHANGES: %" PRIu64 " -> %" PRIu64 " bytes, so that"
			" the writers start a cache line;\n *   objects must be allocated"
			" that aligned (aligned_alloc, not malloc) for it to hold\n",
			cs->align, p->align_after);
	else
		fprintf(f, " * alignment: %" PRIu64 " bytes, unchanged (lines are counted"
			" from the struct's start)\n", cs->align);
	if (p->true_sharing)
		fputs(" * true sharing: several threads write the same member; no order\n"
		      " *   fixes that (per-thread copies or batching do)\n", f);
	if (strstr(cs->decl_file, "/uapi/"))
		fputs(" * WARNING: defined in a uapi header: user-space ABI, it must not"
		      " be reordered\n", f);
	else
		fputs(" * before applying: a struct in an ABI (a uapi header, an on-disk"
		      " or wire format,\n *   shared memory) cannot simply be reordered\n", f);
	fputs(" */\n", f);
}

static void print_c(FILE *f, const struct dt_report *r, const struct plan *p)
{
	const struct dt_cstruct *cs = p->cs;
	const char *name = p->t->name;	/* a typedef's for an anonymous struct */
	bool tagged = !strncmp(name, "struct ", 7);
	enum group last = (enum group)-1;
	size_t last_bin = SIZE_MAX;

	print_header(f, r, p);
	if (p->verdict)
		return;
	fprintf(f, "%s {\n", tagged ? name : "typedef struct");
	for (size_t k = 0; k < p->nu; k++) {
		const struct unit *u = &p->u[p->order[k]];
		if (u->group != last || (u->group <= G_WRITE && u->bin != last_bin))
			fprintf(f, "\t/* %s */\n", group_note(u->group));
		if ((u->group == G_COLD || u->group == G_LAST) && p->line_start[u->first])
			fputs("\t/* touched by other threads: off the writer's line */\n", f);
		last = u->group;
		last_bin = u->bin;
		for (size_t j = 0; j < u->n; j++) {
			size_t i = u->first + j;
			const struct dt_cmember *m = &cs->m[i];
			fprintf(f, "\t%s%s;", m->decl, p->line_start[i] &&
				m->align < CACHE_LINE ? " __attribute__((aligned(64)))" : "");
			if (m->bit_size)
				fprintf(f, "\t/* bit +%" PRIu64 " (was +%" PRIu64 ")", p->new_bit[i],
					p->old_bit[i]);
			else
				fprintf(f, "\t/* +%" PRIu64 " (was +%" PRIu64 ")", p->new_bit[i] / 8,
					p->old_bit[i] / 8);
			if (j == 0)
				fprintf(f, ": %" PRIu64 " samples, %" PRIu64 " loads, %" PRIu64
					" stores", u->c.samples[0], u->c.loads[0], u->c.stores[0]);
			fputs(" */\n", f);
		}
	}
	fputc('}', f);
	uint64_t natural = 1;	/* DWARF gives the alignment even unasked */
	for (size_t i = 0; i < cs->n; i++)
		if (cs->m[i].align > natural)
			natural = cs->m[i].align;
	if (cs->explicit_align > natural)
		fprintf(f, " __attribute__((aligned(%" PRIu64 ")))", cs->explicit_align);
	fprintf(f, "%s%s;\n", tagged ? "" : " ", tagged ? "" : name);
	fprintf(f, "_Static_assert(sizeof(%s) == %" PRIu64 ", \"dtprof: the size "
		"this advice was computed for\");\n", name, p->size_after);
}

static const char *const group_key[] = { "hot", "fill", "write", "cold", "last", "first" };

/* Rows only for a proposal: a verdict has none (the json and the C
 * comment say it). */
static void print_tsv(struct out *o, const struct plan *p)
{
	for (size_t k = 0; !p->verdict && k < p->nu; k++) {
		const struct unit *u = &p->u[p->order[k]];
		for (size_t j = 0; j < u->n; j++) {
			size_t i = u->first + j;
			const struct dt_cmember *m = &p->cs->m[i];
			out_cell(o, p->t->name);
			out_cell(o, m->name);
			out_cell_u64(o, p->new_bit[i]);
			out_cell_u64(o, p->old_bit[i]);
			out_cell_u64(o, member_bits(m));
			out_cell_u64(o, m->bit_size != 0);
			out_cell(o, group_key[u->group]);
			out_cell_u64(o, j ? 0 : u->c.samples[0]);
			out_cell_u64(o, j ? 0 : u->c.loads[0]);
			out_cell_u64(o, j ? 0 : u->c.stores[0]);
			out_row_end(o);
		}
	}
}

static void print_json(struct out *o, const struct plan *p)
{
	out_object(o, NULL);
	out_str(o, "type", p->t->name);
	out_u64(o, "size_before", p->cs->size);
	if (p->verdict) {
		out_str(o, "verdict", p->verdict);
		out_end(o);
		return;
	}
	out_u64(o, "size_after", p->size_after);
	out_u64(o, "align_before", p->cs->align);
	out_u64(o, "align_after", p->align_after);
	out_u64(o, "lines_before", p->lines_before);
	out_u64(o, "lines_after", p->lines_after);
	out_u64(o, "shared_before", p->shared_before);
	out_u64(o, "shared_after", p->shared_after);
	out_array(o, "members");
	for (size_t k = 0; k < p->nu; k++) {
		const struct unit *u = &p->u[p->order[k]];
		for (size_t j = 0; j < u->n; j++) {
			size_t i = u->first + j;
			const struct dt_cmember *m = &p->cs->m[i];
			out_object(o, NULL);
			out_str(o, "name", m->name);
			out_str(o, "decl", m->decl);
			out_u64(o, "new_bit", p->new_bit[i]);
			out_u64(o, "old_bit", p->old_bit[i]);
			out_u64(o, "bits", member_bits(m));
			out_str(o, "group", group_key[u->group]);
			out_u64(o, "samples", j ? 0 : u->c.samples[0]);
			out_u64(o, "loads", j ? 0 : u->c.loads[0]);
			out_u64(o, "stores", j ? 0 : u->c.stores[0]);
			out_end(o);
		}
	}
	out_end(o);
	out_end(o);
}

int advise_type(struct out *o, const struct dt_report *r,
		const struct sharing_view *sv, const struct type_row *t)
{
	struct dt_cstruct *cs;
	struct plan p;
	int err = dt_cstruct_new(t->session, t->type_id, &cs);

	if (err)
		return err;
	err = plan_make(&p, r, sv, t, cs);
	if (!err && out_tsv(o))
		print_tsv(o, &p);
	else if (!err && out_json(o))
		print_json(o, &p);
	else if (!err)
		print_c(o->f, r, &p);
	plan_free(&p);
	dt_cstruct_free(cs);
	return err;
}

/* The structs worth advice: the one named, or every struct (tagged or a
 * typedef's) with 1% of all samples (at most ten, hottest first). */
int advise_print(struct out *o, const struct dt_report *r, struct type_row **v,
		 const struct dt_table_opts *opts)
{
	static const char *const cols[] = {
		"type", "member", "new_bit", "old_bit", "bits", "bitfield", "group",
		"samples", "loads", "stores", NULL
	};
	struct sharing_view *sv = r->sharing ? sharing_view_new(r) : NULL;
	int shown = 0, err = 0;
	FILE *f = o->f;

	if (out_tsv(o)) {
		out_header(o, cols);
	} else if (out_json(o)) {
		out_object(o, NULL);
		out_array(o, "advice");
	} else if (r->sharing && !sv) {
		fputs("/* out of memory for the sharing facts: advice without them */\n", f);
	}
	if (opts->type && out_text(o))
		report_name_note(f, r, opts->type, true);
	for (size_t i = 0; i < r->ntypes && shown < 10 && !err; i++) {
		const struct type_row *t = v[i];
		if (!t->session || !t->type_id)
			continue;
		const struct dt_layout *l;
		if (opts->type ? !report_type_selected(t, opts->type) :
		    t->c.samples[0] * 100 < r->total.samples[0] ||
		    !strncmp(t->name, "union ", 6))
			continue;
		if (dt_layout_get(t->session, t->type_id, &l) ||
		    (!opts->type && l->n < 2))
			continue;	/* no DWARF for it, or no members */
		if (shown++ && !out_tsv(o))
			out_newline(o);	/* json: after the comma */
		err = advise_type(o, r, sv, t);
		if (err == -ENOENT)
			err = 0;	/* no DWARF for it: nothing to say */
	}
	if (out_json(o)) {
		out_end(o);
		out_end(o);
	}
	sharing_view_free(sv);
	return err;
}
