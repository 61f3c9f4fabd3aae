// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Which threads touch which fields of a cache line, and the two patterns
 * worth a layout change: false sharing (a thread writes field A while
 * another reads or writes field B of the same line) and true sharing
 * (several threads write the same field).
 *
 * Threads are (process, thread) pairs: threads of two processes share
 * no memory these tables can see (a shared mapping is not known here),
 * so they never make a flag together.  Samples without their process
 * (perf script text with a lone thread id) are taken as one process.
 *
 * Without data addresses the lines are the type's (offset / 64): two
 * threads may have touched two different objects, so a flag is only
 * suspected.  With data addresses (perf mem, PERF_SAMPLE_ADDR, or the
 * registers dtresolve reads) the real lines are kept too, and a flag is
 * graded: confirmed when a thread wrote a real line that another thread
 * of its process touched within the window (both ways: the write may
 * come first or second), in at least MEETING_PERCENT of the line's
 * samples (one object handed from thread to thread meets once); refuted when every thread's accesses to the
 * line carry addresses (at least half of them) and no two threads ever
 * met in one real line.  Lines then follow the objects' real alignment.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../arrays.h"
#include "report.h"

/* One thread's accesses to one offset row: the type's index, the row's
 * offset and field (its string, stable while the report lives: rows are
 * sorted in place when printed, so their indexes are not). */
struct touch {
	uint32_t ti;
	int32_t pid, tid;		/* pid -1: not known */
	int64_t offset;
	const char *field;
	unsigned size;
	uint64_t samples, loads, stores, rmw;
	uint64_t cpus;			/* bit n: cpu n */
	bool more_cpus;			/* a cpu past 63 */
	uint64_t addressed;		/* samples with a data address */
	int64_t line;			/* the view's copy: its cache line,
					 * set before sorting */
};

struct sharing {
	struct touch *touch;
	size_t ntouch, cap;
	uint32_t *index;		/* open addressing: touch index + 1 */
	size_t index_size;
	struct real_lines *lines;	/* reallines.c: from data addresses */
	uint64_t no_pid;		/* addressed samples of no known
					 * process: not in the real lines */
};

enum { FLAG_FALSE = REAL_LINE_FALSE, FLAG_TRUE = REAL_LINE_TRUE };
/* A flag is confirmed when threads met in at least this share of its
 * line's samples, and this many times: not a hand-over. */
#define MEETING_PERCENT 5
#define MIN_MEETINGS 2

static size_t touch_hash(uint32_t ti, const char *field, int64_t off,
			 int32_t pid, int32_t tid)
{
	uint64_t h = ((uint64_t)ti * 0x9e3779b97f4a7c15ull) ^
		     ((uint64_t)(uintptr_t)field * 0xc2b2ae3d27d4eb4full) ^
		     ((uint64_t)off * 0x165667b19e3779f9ull) ^ (uint32_t)tid ^
		     ((uint64_t)(uint32_t)pid << 32);
	return (size_t)(h ^ (h >> 29));
}

/* Whether two touches are of one thread, and of one process. */
static bool same_thread(const struct touch *a, const struct touch *b)
{
	return a->pid == b->pid && a->tid == b->tid;
}

static bool same_process(const struct touch *a, const struct touch *b)
{
	return a->pid == b->pid;
}

static struct touch *touch_get(struct sharing *sh, uint32_t ti,
			       const struct offset_row *o, int32_t pid, int32_t tid)
{
	if (INDEX_READY(sh->index, sh->index_size, sh->ntouch, i,
			touch_hash(sh->touch[i].ti, sh->touch[i].field,
				   sh->touch[i].offset, sh->touch[i].pid,
				   sh->touch[i].tid)))
		return NULL;
	size_t h = touch_hash(ti, o->field, o->offset, pid, tid) & (sh->index_size - 1);
	for (; sh->index[h]; h = (h + 1) & (sh->index_size - 1)) {
		struct touch *t = &sh->touch[sh->index[h] - 1];
		if (t->ti == ti && t->field == o->field && t->offset == o->offset &&
		    t->tid == tid && t->pid == pid)
			return t;
	}
	if (GROW(sh->touch, sh->cap, sh->ntouch, 64))
		return NULL;
	struct touch *t = &sh->touch[sh->ntouch];
	memset(t, 0, sizeof(*t));
	t->ti = ti;
	t->offset = o->offset;
	t->field = o->field;
	t->size = o->size;
	t->pid = pid;
	t->tid = tid;
	sh->index[h] = (uint32_t)++sh->ntouch;
	return t;
}

int sharing_add(struct dt_report *r, uint32_t ti, uint32_t oi,
		const struct dt_answer *ans, const struct dt_sample *smp, uint64_t n)
{
	struct sharing *sh = r->sharing;

	if (!sh) {
		sh = r->sharing = calloc(1, sizeof(*sh));
		if (!sh)
			return -ENOMEM;
	}
	int32_t pid = smp->has & DT_SAMPLE_PID ? smp->pid : -1;
	struct touch *t = touch_get(sh, ti, &r->types[ti].offs[oi], pid, smp->tid);
	if (!t)
		return -ENOMEM;
	t->samples += n;
	t->loads += (ans->access & DT_ACCESS_LOAD) ? n : 0;
	t->stores += (ans->access & DT_ACCESS_STORE) ? n : 0;
	t->rmw += ans->access == DT_ACCESS_RMW ? n : 0;
	if ((smp->has & DT_SAMPLE_CPU) && smp->cpu >= 0) {
		if (smp->cpu < 64)
			t->cpus |= 1ull << smp->cpu;
		else
			t->more_cpus = true;
	}
	if (!(smp->has & DT_SAMPLE_ADDR) || !smp->addr)
		return 0;
	/* one address in two processes is two lines: without the process
	 * (perf script's default fields have no pid), forked processes
	 * would meet in lines they never shared */
	if (!(smp->has & DT_SAMPLE_PID)) {
		sh->no_pid++;
		return 0;
	}
	int seen = real_lines_add(&sh->lines, ti, r->types[ti].offs[oi].offset,
				  ans, smp, pid, r->window);
	if (seen < 0)
		return seen;
	t->addressed += (uint64_t)seen;	/* what may refute a flag */
	return 0;
}

void sharing_free(struct sharing *sh)
{
	if (!sh)
		return;
	free(sh->touch);
	free(sh->index);
	real_lines_free(sh->lines);
	free(sh);
}

/* ---- flags ---- */

/* One type's cache line as the table prints it. */
struct group {
	uint32_t ti;
	int64_t line;
	size_t first, n;		/* touches, in the sorted array */
	uint64_t samples;
	unsigned tids;			/* distinct threads */
	unsigned pids;			/* distinct processes */
	unsigned flags;			/* from the fields and threads */
	unsigned confirmed;		/* flags seen in one real line */
	uint64_t confirmed_lines;
	unsigned met;			/* flags of the meetings seen */
	uint64_t met_samples;		/* samples that met another thread */
	uint64_t last_line;		/* real line + 1 last counted */
	bool refuted;			/* flags the real lines refute */
	bool unsure;			/* a real line two threads touched,
					 * sampled too thinly to refute */
};


static int64_t line_of(const struct dt_report *r, uint32_t ti, int64_t off)
{
	return type_line_of(&r->types[ti], off);
}

/* Touches by type, line, offset, field, process and thread (a total
 * order: the table is the same whatever order they were made in).  Their
 * lines are computed before (each one's, once: a type's line phase reads
 * its 64 counters), and a row's field is one string, so most
 * comparisons of fields are of one pointer. */
static int cmp_touch(const void *x, const void *y)
{
	const struct touch *a = x, *b = y;

	if (a->ti != b->ti)
		return a->ti < b->ti ? -1 : 1;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	int fc = a->field == b->field ? 0 : strcmp(a->field, b->field);
	if (fc)
		return fc;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static int cmp_group(const void *x, const void *y)
{
	const struct group *a = x, *b = y;
	bool fa = (a->flags && !a->refuted) || a->confirmed;
	bool fb = (b->flags && !b->refuted) || b->confirmed;

	if (fa != fb)
		return fa ? -1 : 1;
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	if (a->ti != b->ti)
		return a->ti < b->ti ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

/* Whether two touches of one type are of different fields: their bytes
 * do not overlap (an access of unknown size is taken as one byte). */
static bool distinct_fields(const struct touch *x, const struct touch *y)
{
	int64_t xe = x->offset + (x->size ? x->size : 1);
	int64_t ye = y->offset + (y->size ? y->size : 1);

	return xe <= y->offset || ye <= x->offset;
}

static void group_flags(const struct touch *v, struct group *g)
{
	for (size_t i = 0; i < g->n; i++) {
		const struct touch *w = &v[g->first + i];
		bool seen = false;
		bool seen_pid = false;
		for (size_t j = 0; j < i; j++) {
			seen |= same_thread(&v[g->first + j], w);
			seen_pid |= same_process(&v[g->first + j], w);
		}
		g->tids += !seen;
		g->pids += !seen_pid;
		g->samples += w->samples;
		if (!w->stores)
			continue;
		for (size_t j = 0; j < g->n; j++) {
			const struct touch *o = &v[g->first + j];
			if (same_thread(o, w) || !same_process(o, w))
				continue;
			if (distinct_fields(w, o))
				g->flags |= FLAG_FALSE;
			else if (o->stores)
				g->flags |= FLAG_TRUE;
		}
	}
}

/* The group of type ti's line in g[0..n), sorted by type and line (the
 * view's order), or n. */
static size_t group_find(const struct group *g, size_t n, uint32_t ti,
			 int64_t line)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g[mid].ti < ti || (g[mid].ti == ti && g[mid].line < line))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && g[lo].ti == ti && g[lo].line == line ? lo : n;
}

struct confirming {
	const struct dt_report *r;
	struct group *g;
	size_t ng;
};

static void add_meeting(void *arg, uint64_t line, uint32_t ti, int64_t offset,
			unsigned kind, uint64_t samples)
{
	struct confirming *c = arg;
	size_t gi = group_find(c->g, c->ng, ti, line_of(c->r, ti, offset));

	if (gi == c->ng)
		return;
	c->g[gi].unsure |= (kind & REAL_LINE_UNSURE) != 0;
	if (!samples)
		return;		/* unsure only: no meeting */
	c->g[gi].met |= kind & (FLAG_FALSE | FLAG_TRUE);
	c->g[gi].met_samples += samples;
	if (c->g[gi].last_line != line + 1) {	/* lines come in order */
		c->g[gi].last_line = line + 1;
		c->g[gi].confirmed_lines++;
	}
}

/* Flags the real lines prove: threads
 * that met in one line within the window, a writer at other bytes (false
 * sharing) or two writers at the same bytes (true sharing), in a good
 * part of the line's samples (one object handed from thread to thread
 * meets once or twice). */
static void confirm(const struct dt_report *r, struct group *g, size_t ng)
{
	struct confirming c = { r, g, ng };

	real_lines_meetings(r->sharing->lines, add_meeting, &c);
	for (size_t i = 0; i < ng; i++)
		if (g[i].met_samples >= MIN_MEETINGS &&
		    g[i].met_samples * 100 >= g[i].samples * MEETING_PERCENT) {
			g[i].confirmed = g[i].met;
		} else {
			g[i].confirmed_lines = 0;
			/* they were there at once, too seldom to confirm:
			 * nothing refutes it */
			g[i].unsure |= g[i].met_samples != 0;
		}
}

/* Whether addresses cover a group's accesses well enough that not
 * meeting in a real line refutes its flag: each thread has addresses for
 * at least half of its samples in the line, and so has every field it
 * touched there with a twentieth of them or more (a field whose address
 * is never known, read through a pointer chase, may be the shared one). */
static bool addresses_cover(const struct touch *v, const struct group *g)
{
	for (size_t i = 0; i < g->n; i++) {
		const struct touch *w = &v[g->first + i];
		uint64_t samples = 0, addressed = 0;
		for (size_t j = 0; j < g->n; j++) {
			const struct touch *o = &v[g->first + j];
			if (same_thread(o, w)) {
				samples += o->samples;
				addressed += o->addressed;
			}
		}
		if (addressed * 2 < samples ||
		    (w->samples * 20 >= samples && w->addressed * 2 < w->samples))
			return false;
	}
	return true;
}

/* Names of the flags (FLAG_FALSE | FLAG_TRUE): for people, in tables. */
static const char *const flag_text[] = {
	"", "false sharing", "true sharing", "false+true sharing",
};
static const char *const flag_key[] = {
	"", "false_sharing", "true_sharing", "false_sharing,true_sharing",
};

/* The flags a group shows and how sure they are: confirmed by real
 * lines, refuted by them, or suspected (the type's lines only). */
static unsigned shown_flags(const struct group *g, const char **evidence)
{
	if (g->confirmed) {
		*evidence = "confirmed";
		return g->confirmed;
	}
	if (!g->flags) {
		*evidence = "";
		return 0;
	}
	*evidence = g->refuted ? "refuted" : "suspected";
	return g->flags;
}

static void cpus_text(const struct touch *t, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int c = 0; c < 64 && n + 8 < len; c++)
		if (t->cpus >> c & 1)
			n += (size_t)snprintf(buf + n, len - n, "%s%d", n ? "," : "", c);
	if (t->more_cpus && n + 2 < len)
		n += (size_t)snprintf(buf + n, len - n, "%s+", n ? "," : "");
	if (!n)
		snprintf(buf, len, "-");
}

static void print_human(FILE *f, const struct dt_report *r,
			const struct touch *v, const struct group *g, size_t ng)
{
	size_t shared = 0, confirmed = 0, suspected = 0, refuted = 0, thin = 0;
	char label[512], cpus[256];
	struct object_facts *objs = r->objects && r->ntypes ?
				    calloc(r->ntypes, sizeof(*objs)) : NULL;

	if (objs)
		objects_facts(r, objs);

	for (size_t i = 0; i < ng; i++) {
		const char *ev;
		shared += g[i].tids > 1;
		if (shown_flags(&g[i], &ev)) {
			confirmed += g[i].confirmed != 0;
			suspected += !g[i].confirmed && !g[i].refuted;
			thin += !g[i].confirmed && !g[i].refuted && g[i].unsure;
			refuted += g[i].refuted;
		}
	}
	fprintf(f, "# dtprof: cache lines and the threads that touch them\n#\n"
		"# %zu type cache lines touched, %zu by more than one thread, %zu flagged"
		" (%zu confirmed, %zu suspected), %zu refuted\n",
		ng, shared, confirmed + suspected, confirmed, suspected, refuted);
	if (r->any_addr)
		fprintf(f, "# data addresses: a flag is confirmed when two threads met in one real\n"
			"# line within %.3g ms, refuted when addresses cover the line's accesses\n"
			"# and they never did, sampled there densely enough to show it\n",
			(double)r->window / 1e6);
	else
		fputs("# no data addresses: a flag can only be suspected\n", f);
	if (suspected > thin) {
		fputs("# a suspected flag may be threads touching different objects; to confirm\n"
		      "# or refute it:\n", f);
		report_confirm_hint(f, "#   ", "sharing");
	}
	if (thin)
		fprintf(f, "# %zu suspected with addresses: two threads in one real line, one writing,\n"
			"# sampled there too seldom to tell whether at once; more samples a second\n"
			"# (perf record -F 20000) or a longer run may confirm or refute them\n", thin);
	if (r->sharing_lost)
		fprintf(f, "# %" PRIu64 " samples left out of this table: out of memory\n",
			r->sharing_lost);
	if (r->sharing && real_lines_untracked(r->sharing->lines))
		fprintf(f, "# %" PRIu64 " addressed samples past the real-line table or a"
			" line's four threads:\n# their meetings not seen\n",
			real_lines_untracked(r->sharing->lines));
	if (r->sharing && real_lines_meetings_lost(r->sharing->lines))
		fprintf(f, "# %" PRIu64 " meetings past a real line's room: no flag refuted\n",
			real_lines_meetings_lost(r->sharing->lines));
	if (r->sharing && r->sharing->no_pid)
		fprintf(f, "# %" PRIu64 " addressed samples of no known process (add pid to"
			" perf script -F): not used to confirm or refute\n", r->sharing->no_pid);
	if (objects_untracked(r))
		fprintf(f, "# %" PRIu64 " addressed samples past the objects' tables:"
			" not counted in their objects\n", objects_untracked(r));
	for (size_t i = 0; i < ng; i++) {
		const struct group *gr = &g[i];
		const struct type_row *t = &r->types[gr->ti];
		const char *ev;
		unsigned fl = shown_flags(gr, &ev);
		if (gr->tids < 2)
			continue;
		int64_t lo = gr->line * CACHE_LINE - (int64_t)type_line_phase(t);
		fprintf(f, "\n%s, cache line %" PRId64 " (offsets %" PRId64 "..%" PRId64 "): %"
			PRIu64 " samples, %u threads", report_type_label(t, label, sizeof(label)),
			gr->line, lo < 0 ? 0 : lo, lo + CACHE_LINE - 1, gr->samples, gr->tids);
		if (gr->pids > 1)	/* they share nothing across processes */
			fprintf(f, " of %u processes", gr->pids);
		if (fl)
			fprintf(f, ": %s, %s", flag_text[fl], ev);
		if (gr->confirmed_lines)
			fprintf(f, " (%" PRIu64 " real line%s)", gr->confirmed_lines,
				gr->confirmed_lines == 1 ? "" : "s");
		if (objs && objs[gr->ti].objects)
			fprintf(f, "\n# objects with addresses: %" PRIu64 ", %" PRIu64
				" touched by several threads, %" PRIu64 " written by one while"
				" another touched it", objs[gr->ti].objects,
				objs[gr->ti].several, objs[gr->ti].shared);
		for (unsigned k = 0; objs && k < OBJECT_HOTTEST &&
				     objs[gr->ti].hot_samples[k]; k++)
			fprintf(f, "%s%#" PRIx64 " (%" PRIu64 " sample%s)",
				k ? ", " : "\n# hottest objects: ", objs[gr->ti].hot_base[k],
				objs[gr->ti].hot_samples[k],
				objs[gr->ti].hot_samples[k] == 1 ? "" : "s");
		fputs("\n#      pid/tid      cpus             Samples    Loads   Stores   Offset  Field\n", f);
		for (size_t j = 0; j < gr->n; j++) {
			const struct touch *w = &v[gr->first + j];
			char who[32];
			if (w->pid >= 0)
				snprintf(who, sizeof(who), "%d/%d", w->pid, w->tid);
			else
				snprintf(who, sizeof(who), "%d", w->tid);
			cpus_text(w, cpus, sizeof(cpus));
			fprintf(f, "  %15s  %-14s %9" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8"
				PRId64 "  %s\n", who, cpus, w->samples, w->loads,
				w->stores, w->offset, w->field[0] ? w->field : "(no field)");
		}
	}
	free(objs);
}

static void print_tsv(struct out *o, const struct dt_report *r,
		      const struct touch *v, const struct group *g, size_t ng)
{
	static const char *const cols[] = {
		"type", "line", "offset", "field", "tid", "cpus", "samples", "loads",
		"stores", "rmw", "flags", "evidence", "pid", NULL
	};
	char cpus[256];

	out_header(o, cols);
	for (size_t i = 0; i < ng; i++) {
		const struct type_row *t = &r->types[g[i].ti];
		const char *ev;
		unsigned fl = shown_flags(&g[i], &ev);
		for (size_t j = 0; j < g[i].n; j++) {
			const struct touch *w = &v[g[i].first + j];
			cpus_text(w, cpus, sizeof(cpus));
			out_cell(o, t->name);
			out_cell_i64(o, g[i].line);
			out_cell_i64(o, w->offset);
			out_cell(o, w->field);
			out_cell_i64(o, w->tid);
			out_cell(o, cpus);
			out_cell_u64(o, w->samples);
			out_cell_u64(o, w->loads);
			out_cell_u64(o, w->stores);
			out_cell_u64(o, w->rmw);
			out_cell(o, flag_key[fl]);
			out_cell(o, ev);
			out_cell_i64(o, w->pid);
			out_row_end(o);
		}
	}
}

static void print_json(struct out *o, const struct dt_report *r,
		       const struct touch *v, const struct group *g, size_t ng)
{
	out_object(o, NULL);
	out_array(o, "sharing");
	for (size_t i = 0; i < ng; i++) {
		const struct type_row *t = &r->types[g[i].ti];
		const char *ev;
		unsigned fl = shown_flags(&g[i], &ev);
		out_object(o, NULL);
		out_str(o, "type", t->name);
		out_i64(o, "line", g[i].line);
		out_u64(o, "samples", g[i].samples);
		out_u64(o, "threads", g[i].tids);
		out_str(o, "flags", flag_key[fl]);
		out_str(o, "evidence", ev);
		out_array(o, "touches");
		for (size_t j = 0; j < g[i].n; j++) {
			const struct touch *w = &v[g[i].first + j];
			out_object(o, NULL);
			out_i64(o, "pid", w->pid);
			out_i64(o, "tid", w->tid);
			out_i64(o, "offset", w->offset);
			out_str(o, "field", w->field);
			out_u64(o, "samples", w->samples);
			out_u64(o, "loads", w->loads);
			out_u64(o, "stores", w->stores);
			out_u64(o, "rmw", w->rmw);
			out_array(o, "cpus");
			for (int c = 0; c < 64; c++)
				if (w->cpus >> c & 1)
					out_u64(o, NULL, (uint64_t)c);
			out_end(o);
			out_end(o);
		}
		out_end(o);
		out_end(o);
	}
	out_end(o);
	out_end(o);
}

/* The touches sorted by type and line, grouped into lines, flagged and
 * ranked: what every view of sharing prints from. */
struct sharing_view {
	struct touch *v;
	struct group *g;		/* by type and line: group_find */
	size_t ng;
};

void sharing_view_free(struct sharing_view *sv)
{
	if (!sv)
		return;
	free(sv->v);
	free(sv->g);
	free(sv);
}

struct sharing_view *sharing_view_new(const struct dt_report *r)
{
	const struct sharing *sh = r->sharing;
	size_t n = sh ? sh->ntouch : 0;
	struct sharing_view *sv = calloc(1, sizeof(*sv));

	if (!sv)
		return NULL;
	if (!n)
		return sv;
	sv->v = malloc(n * sizeof(*sv->v));
	sv->g = calloc(n, sizeof(*sv->g));
	if (!sv->v || !sv->g) {
		sharing_view_free(sv);
		return NULL;
	}
	memcpy(sv->v, sh->touch, n * sizeof(*sv->v));
	/* each type's line phase once (it reads the type's 64 counters) */
	unsigned *phase = malloc((r->ntypes ? r->ntypes : 1) * sizeof(*phase));
	if (!phase) {
		sharing_view_free(sv);
		return NULL;
	}
	for (size_t ti = 0; ti < r->ntypes; ti++)
		phase[ti] = type_line_phase(&r->types[ti]);
	for (size_t i = 0; i < n; i++)
		sv->v[i].line = line_at_phase(sv->v[i].offset, phase[sv->v[i].ti]);
	free(phase);
	qsort(sv->v, n, sizeof(*sv->v), cmp_touch);
	for (size_t i = 0; i < n; i++) {
		int64_t line = sv->v[i].line;
		struct group *last = sv->ng ? &sv->g[sv->ng - 1] : NULL;
		if (!last || last->ti != sv->v[i].ti || last->line != line)
			sv->g[sv->ng++] = (struct group){ .ti = sv->v[i].ti, .line = line,
							  .first = i };
		sv->g[sv->ng - 1].n++;
	}
	for (size_t i = 0; i < sv->ng; i++)
		group_flags(sv->v, &sv->g[i]);
	if (sh->lines)
		confirm(r, sv->g, sv->ng);
	/* a meeting the lines had no room for may be any line's */
	bool all_met_seen = !real_lines_meetings_lost(sh->lines);
	for (size_t i = 0; i < sv->ng; i++)
		sv->g[i].refuted = sv->g[i].flags && !sv->g[i].confirmed && all_met_seen &&
				   !sv->g[i].unsure && addresses_cover(sv->v, &sv->g[i]);
	return sv;
}

unsigned sharing_view_line(const struct sharing_view *sv, uint32_t ti,
			   int64_t line, const char **flags, const char **evidence)
{
	size_t i = sv ? group_find(sv->g, sv->ng, ti, line) : 0;

	*flags = *evidence = "";
	if (!sv || i == sv->ng)
		return 0;
	*flags = flag_text[shown_flags(&sv->g[i], evidence)];
	return sv->g[i].tids;
}

void sharing_view_range(const struct sharing_view *sv, uint32_t ti,
			int64_t lo, int64_t hi, struct range_sharing *out)
{
	uint64_t most = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; sv && i < sv->ng; i++) {
		const struct group *g = &sv->g[i];
		if (g->ti != ti)
			continue;
		bool beside = out->writes_beside;
		out->writes_beside = false;
		for (size_t a = 0; a < g->n; a++) {
			const struct touch *w = &sv->v[g->first + a];
			if (w->offset < lo || w->offset >= hi)
				continue;
			/* threads are counted in the first toucher's process:
			 * another process's are never its sharers */
			if (out->threads && w->pid != out->toucher_pid)
				out->processes = 2;
			else if (!out->threads ||
				 (out->threads == 1 && out->toucher != w->tid)) {
				out->threads++;
				out->toucher = w->tid;
				out->toucher_pid = w->pid;
			}
			if (w->stores > most) {
				most = w->stores;
				out->writer = w->tid;
				out->writer_pid = w->pid;
			}
			for (size_t b = 0; b < g->n; b++) {
				const struct touch *o = &sv->v[g->first + b];
				bool inside = o->offset >= lo && o->offset < hi;
				if (same_thread(o, w) || !same_process(o, w))
					continue;
				if (w->stores && !inside)
					out->writes_beside = true;
				if (o->stores && !inside)
					out->touched_beside_writes = true;
				if (w->stores && o->stores && inside)
					out->written_by_threads = true;
			}
		}
		if (out->writes_beside) {	/* this line makes it so */
			if (g->confirmed & FLAG_FALSE)
				out->beside_confirmed = true;
			else if (!g->refuted)
				out->beside_suspected = true;
		}
		out->writes_beside |= beside;
	}
}

void sharing_print(struct out *o, const struct dt_report *r,
		   const struct dt_table_opts *opts)
{
	struct sharing_view *sv = sharing_view_new(r);
	FILE *f = o->f;
	size_t ng;

	if (!sv) {
		fprintf(f, "# ERROR: out of memory for the sharing table\n");
		return;
	}
	ng = sv->ng;
	if (opts->type) {	/* one type only: keep its lines */
		size_t kept = 0;
		for (size_t i = 0; i < ng; i++)
			if (report_type_selected(&r->types[sv->g[i].ti], opts->type))
				sv->g[kept++] = sv->g[i];
		ng = kept;
	}
	/* flagged lines first, then the busiest (sv is not looked up again);
	 * no groups may mean no array at all, and qsort wants one */
	if (ng > 1)
		qsort(sv->g, ng, sizeof(*sv->g), cmp_group);
	if (opts->type && out_text(o))
		report_name_note(f, r, opts->type, false);
	if (out_tsv(o))
		print_tsv(o, r, sv->v, sv->g, ng);
	else if (out_json(o))
		print_json(o, r, sv->v, sv->g, ng);
	else
		print_human(f, r, sv->v, sv->g, ng);
	sharing_view_free(sv);
}
