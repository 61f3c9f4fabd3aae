// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Everything that prints answers, for every front end: the per-line
 * formats (tsv, perf, json), and the aggregated tables (types and
 * offsets, annotated layouts, reasons) with their tsv and json forms.
 * Front ends never format an answer or a table themselves.
 */
#define _GNU_SOURCE	/* qsort_r */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../dtprof.h"
#include "../arrays.h"
#include "report.h"

int dt_format_from_str(const char *s)
{
	if (!strcmp(s, "tsv"))
		return DT_FORMAT_TSV;
	if (!strcmp(s, "perf"))
		return DT_FORMAT_PERF;
	if (!strcmp(s, "json"))
		return DT_FORMAT_JSON;
	return -1;
}

/* perf's typeoff spelling: "struct page +8 (lru.next)"; a type with no
 * member there reads "(no field)", as perf prints it. */
static void print_perf(FILE *f, const struct dt_answer *a)
{
	if (a->reason != DT_OK || a->type[0] == '(') {
		fprintf(f, "%s\n", a->type);
		return;
	}
	fprintf(f, "%s +%" PRId64 " (%s)\n", a->type, a->offset,
		a->field[0] ? a->field : "no field");
}

static void print_json(FILE *f, const struct dt_print_ctx *ctx,
		       const struct dt_answer *a, const struct dt_sample *smp,
		       uint64_t link_pc)
{
	struct out o;

	out_init(&o, f, DT_FORMAT_JSON);
	out_object(&o, NULL);
	out_hex(&o, "addr", a->pc);
	out_str(&o, "type", a->type);
	out_i64(&o, "offset", a->offset);
	out_str(&o, "field", a->field);
	if (a->type_size)
		out_u64(&o, "type_size", a->type_size);
	out_str(&o, "var", a->var);
	out_str(&o, "reason", dt_reason_str(a->reason));
	if (a->access)
		out_str(&o, "access", dt_access_str(a->access));
	if (a->note && *a->note)
		out_str(&o, "note", a->note);
	if (ctx->dso)
		out_str(&o, "dso", ctx->dso);
	if (link_pc) {
		out_hex(&o, "link_pc", link_pc);
		out_hex(&o, "access_pc", a->access_pc ? a->access_pc : link_pc);
	}
	if (smp && (smp->has & DT_SAMPLE_PID))
		out_i64(&o, "pid", smp->pid);
	if (smp && (smp->has & DT_SAMPLE_TIME))
		out_u64(&o, "time", smp->time);
	if (smp && (smp->has & DT_SAMPLE_ADDR))
		out_hex(&o, "data_addr", smp->addr);
	if (smp && (smp->has & DT_SAMPLE_ADDR_WHY) && smp->addr_why != DT_ADDR_OK)
		out_str(&o, "no_data_addr", dt_addr_why_str(smp->addr_why));
	if (smp && (smp->has & DT_SAMPLE_BY_ADDRESS))
		out_bool(&o, "by_address", true);
	out_end(&o);
}

int dt_window_from_str(const char *s, uint64_t *ns)
{
	char *end;
	double ms;

	errno = 0;
	ms = strtod(s, &end);
	if (errno || end == s || *end || !(ms >= 0) || ms > 1e12)
		return -EINVAL;
	*ns = (uint64_t)(ms * 1e6);
	return 0;
}

int dt_sort_from_str(const char *s)
{
	if (!strcmp(s, "samples"))
		return DT_SORT_SAMPLES;
	if (!strcmp(s, "period"))
		return DT_SORT_PERIOD;
	if (!strcmp(s, "weight"))
		return DT_SORT_WEIGHT;
	return -1;
}

/* Append helpers for the tsv line: printf costs more than the lookup on
 * the cached path, so the common format is assembled by hand. */
static char *put_str(char *p, const char *end, const char *s)
{
	size_t n = strlen(s);

	if (n > (size_t)(end - p))
		n = (size_t)(end - p);
	memcpy(p, s, n);
	return p + n;
}

static char *put_hex(char *p, uint64_t v)
{
	char tmp[16];
	int n = 0;

	do {
		tmp[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	*p++ = '0';
	*p++ = 'x';
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put_dec(char *p, int64_t v)
{
	char tmp[20];
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	int n = 0;

	if (v < 0)
		*p++ = '-';
	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static void print_tsv(FILE *f, const struct dt_print_ctx *ctx,
		      const struct dt_answer *a)
{
	char line[2048];
	char *p = line, *end = line + sizeof(line) - 64;

	if (a->pc == 0) {
		p = put_str(p, end, "0");	/* a bad line has no address */
	} else {
		p = put_hex(p, a->pc);
	}
	*p++ = '\t';
	p = put_str(p, end, a->type);
	*p++ = '\t';
	p = put_dec(p, a->offset);
	*p++ = '\t';
	p = put_str(p, end, a->field);
	if (ctx->verbose) {
		char dso[1024];		/* a path perf printed: any byte */
		dt_text_escape(ctx->dso ? ctx->dso : "", dso, sizeof(dso));
		*p++ = '\t';
		p = put_str(p, end, dso);
		*p++ = '\t';
		p = put_str(p, end, a->var);
		*p++ = '\t';
		p = put_str(p, end, dt_reason_str(a->reason));
		if (ctx->how || (a->note && *a->note)) {
			*p++ = '\t';
			p = put_str(p, end, ctx->how ? ctx->how : "");
		}
		if (a->note && *a->note) {
			*p++ = '\t';
			p = put_str(p, end, a->note);
		}
	}
	*p++ = '\n';
	fwrite(line, 1, (size_t)(p - line), f);
}

void dt_answer_print(FILE *f, const struct dt_print_ctx *ctx,
		     const struct dt_answer *a)
{
	dt_answer_print_sample(f, ctx, a, NULL, 0);
}

void dt_answer_print_sample(FILE *f, const struct dt_print_ctx *ctx,
			    const struct dt_answer *a, const struct dt_sample *smp,
			    uint64_t link_pc)
{
	struct dt_print_ctx c;
	struct dt_sample sc;

	sized_in(&c, sizeof(c), ctx);	/* unknown fields: not used */
	ctx = &c;
	if (smp) {
		sized_in(&sc, sizeof(sc), smp);
		smp = &sc;
	}
	switch (ctx->format) {
	case DT_FORMAT_PERF:
		print_perf(f, a);
		return;
	case DT_FORMAT_JSON:
		print_json(f, ctx, a, smp, link_pc);
		return;
	case DT_FORMAT_TSV:
		print_tsv(f, ctx, a);
		return;
	}
}

/* ---- aggregation ---- */

/* Fast path: the same interned (session, type, field, offset) answers
 * recur. */
struct hot_key {
	const struct dt_session *session;
	const char *type, *field;
	int64_t offset;
	size_t type_idx, off_idx;
};
#define HOT_SLOTS 4096

int dt_report_new(struct dt_report **out)
{
	struct dt_report *r = calloc(1, sizeof(*r));

	if (r)
		r->hot = calloc(HOT_SLOTS, sizeof(*r->hot));
	if (!r || !r->hot) {
		free(r);
		*out = NULL;
		return -ENOMEM;
	}
	r->window = DT_SHARING_WINDOW_NS;
	*out = r;
	return 0;
}

void dt_report_set_window(struct dt_report *r, uint64_t ns)
{
	r->window = ns;
}

void dt_report_free(struct dt_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->ntypes; i++) {
		for (size_t j = 0; j < r->types[i].noffs; j++)
			free(r->types[i].offs[j].field);
		free(r->types[i].offs);
		free(r->types[i].off_slot);
		free(r->types[i].name);
	}
	free(r->types);
	free(r->type_slot);
	sharing_free(r->sharing);
	objects_free(r->objects);
	heap_free(r->heap);
	codeview_free(r->pcs);
	free(r->hot);
	free(r);
}

int dt_report_event(struct dt_report *r, const char *name)
{
	char safe[sizeof(r->events[0])];

	/* perf's event names are the user's (-e name=...): any byte */
	dt_text_escape(name, safe, sizeof(safe));
	for (int e = 0; e < r->nev; e++)
		if (r->events[e][0] && !strcmp(r->events[e], safe))
			return e;
	if (r->nev == NEV)
		return NEV - 1;
	const char *n = r->nev == NEV - 1 ? "(other events)" : safe;
	snprintf(r->events[r->nev], sizeof(r->events[r->nev]), "%s", n);
	return r->nev++;
}

/* n samples alike, smp's period and weight their sums */
static void count(struct counts *c, int ev, enum dt_access access,
		  const struct dt_sample *smp, int level, uint64_t n)
{
	c->samples[ev] += n;
	c->period[ev] += smp->period;
	if (access & DT_ACCESS_LOAD)
		c->loads[ev] += n;
	if (access & DT_ACCESS_STORE)
		c->stores[ev] += n;
	if (access == DT_ACCESS_RMW)
		c->rmw[ev] += n;
	if (smp->has & DT_SAMPLE_WEIGHT) {
		c->weight[ev] += smp->weight;
		c->weighed[ev] += n;
	}
	if (level >= 0)
		c->level[ev][level] += n;
	if (smp->has & DT_SAMPLE_BY_ADDRESS)
		c->by_addr[ev] += n;
}

static uint64_t type_row_hash(const char *name, const struct dt_session *s)
{
	return hash_mix(hash_bytes(name, strlen(name), HASH_SEED), (uintptr_t)s);
}

/* Rows are per (type name, binary): the same name in two binaries may be
 * two layouts, and tables keyed by build-id merge only like with like.
 * Pseudo types and types without DWARF are one row whatever the binary. */
struct type_row *report_type_row(struct dt_report *r, const char *name,
				 struct dt_session *s, size_t *idx)
{
	uint64_t h = type_row_hash(name, s);
	uint32_t k = INDEX_FIND(r->type_slot, r->type_slots, h, i,
				r->types[i].session == s && !strcmp(r->types[i].name, name));

	if (k) {
		*idx = k - 1;
		return &r->types[k - 1];
	}
	if (INDEX_READY(r->type_slot, r->type_slots, r->ntypes, i,
			type_row_hash(r->types[i].name, r->types[i].session)) ||
	    GROW(r->types, r->cap, r->ntypes, 32))
		return NULL;
	struct type_row *t = &r->types[r->ntypes];
	memset(t, 0, sizeof(*t));
	t->name = strdup(name);
	if (!t->name)
		return NULL;
	t->session = s;
	*idx = r->ntypes++;
	r->type_slot[INDEX_FREE(r->type_slot, r->type_slots, h)] = (uint32_t)r->ntypes;
	return t;
}

static uint64_t offset_row_hash(int64_t off, const char *field)
{
	return hash_mix(hash_str(field), (uint64_t)off);
}

/* A type's first offset rows are searched in turn; past this many (an
 * array, a huge struct, a crafted table) through a hash index. */
#define OFFSET_ROWS_LINEAR 16

struct offset_row *report_offset_row(struct type_row *t, int64_t off,
				     const char *field, size_t *idx)
{
	uint64_t h = offset_row_hash(off, field);
	uint32_t k = 0;

	if (t->off_slot)
		k = INDEX_FIND(t->off_slot, t->off_slots, h, i,
			       t->offs[i].offset == off && !strcmp(t->offs[i].field, field));
	else
		for (size_t i = 0; i < t->noffs && !k; i++)
			if (t->offs[i].offset == off && !strcmp(t->offs[i].field, field))
				k = (uint32_t)i + 1;
	if (k) {
		*idx = k - 1;
		return &t->offs[k - 1];
	}
	if ((t->noffs >= OFFSET_ROWS_LINEAR &&
	     INDEX_READY(t->off_slot, t->off_slots, t->noffs, i,
			 offset_row_hash(t->offs[i].offset, t->offs[i].field))) ||
	    GROW(t->offs, t->cap, t->noffs, 8))
		return NULL;
	struct offset_row *o = &t->offs[t->noffs];
	memset(o, 0, sizeof(*o));
	o->offset = off;
	o->field = strdup(field);
	if (!o->field)
		return NULL;
	*idx = t->noffs++;
	if (t->off_slot)
		t->off_slot[INDEX_FREE(t->off_slot, t->off_slots, h)] = (uint32_t)t->noffs;
	return o;
}

/* n samples with one answer: one sample's fields (n = 1), or the sums of
 * n samples' periods that carry nothing else (dt_report_add_many). */
static int add_samples(struct dt_report *r, int ev, struct dt_session *s,
		       const struct dt_answer *ans, const struct dt_sample *smp,
		       uint64_t n)
{
	int level = smp->has & DT_SAMPLE_DATA_SRC ?
		    (int)dt_data_src_level(smp->data_src) : -1;

	if (ev < 0 || ev >= NEV)
		ev = 0;
	if (r->nev <= ev)
		r->nev = ev + 1;	/* an unnamed event: named at print */
	r->any_weight |= (smp->has & DT_SAMPLE_WEIGHT) != 0;
	r->any_level |= level >= 0;
	if ((smp->has & DT_SAMPLE_ADDR_WHY) && (unsigned)smp->addr_why < DT_ADDR_WHY_COUNT)
		r->addr_why[smp->addr_why] += n;
	count(&r->total, ev, ans->access, smp, level, n);
	/* the code view's instructions are the sample's own binary's */
	struct dt_session *code = smp->has & DT_SAMPLE_BY_ADDRESS && smp->insn ? smp->insn : s;
	if (r->pcs && code)
		codeview_add(r, ev, code, ans, n);
	if (ans->reason != DT_OK || r->reasons_only) {
		count(&r->by_reason[ans->reason < DT_REASON_COUNT ?
				    ans->reason : DT_BAD_LINE], ev, ans->access,
		      smp, level, n);
		return 0;
	}

	struct dt_session *key = ans->type_id ? s : NULL;
	size_t h = ((uintptr_t)ans->type * 31 + (uintptr_t)ans->field * 7 +
		    (uintptr_t)key * 13 + (uint64_t)ans->offset) % HOT_SLOTS;
	struct hot_key *k = &r->hot[h];
	if (!(k->type == ans->type && k->field == ans->field &&
	      k->offset == ans->offset && k->session == key)) {
		size_t ti, oi;
		struct type_row *t = report_type_row(r, ans->type, key, &ti);
		struct offset_row *o = t ? report_offset_row(t, ans->offset,
							  ans->field, &oi) : NULL;
		if (!o) {
			r->lost[ev] += n;
			return -ENOMEM;
		}
		if (key && !t->type_id)
			t->type_id = ans->type_id;
		if (!o->size)
			o->size = ans->size;
		*k = (struct hot_key){ key, ans->type, ans->field, ans->offset, ti, oi };
	}
	struct type_row *t = &r->types[k->type_idx];
	count(&t->c, ev, ans->access, smp, level, n);
	count(&t->offs[k->off_idx].c, ev, ans->access, smp, level, n);
	if ((smp->has & DT_SAMPLE_ADDR) && smp->addr) {
		t->phase[(smp->addr - (uint64_t)ans->offset) % CACHE_LINE]++;
		t->addressed++;
		r->any_addr = true;
		if (ans->type_id && objects_add(r, (uint32_t)k->type_idx, ans, smp))
			r->sharing_lost++;
	}
	if ((smp->has & DT_SAMPLE_TID) && !r->no_threads &&
	    sharing_add(r, (uint32_t)k->type_idx, (uint32_t)k->off_idx, ans, smp, n))
		r->sharing_lost++;
	return 0;
}

int dt_report_add(struct dt_report *r, int ev, struct dt_session *s,
		  const struct dt_answer *ans, uint64_t period)
{
	return dt_report_add_many(r, ev, s, ans, 1, period);
}

int dt_report_add_sample(struct dt_report *r, int ev, struct dt_session *s,
			 const struct dt_answer *ans, const struct dt_sample *smp)
{
	struct dt_sample c;

	if (!sized_in(&c, sizeof(c), smp))
		return -EINVAL;
	return add_samples(r, ev, s, ans, &c, 1);
}

int dt_report_add_alike(struct dt_report *r, int ev, struct dt_session *s,
			const struct dt_answer *ans, const struct dt_sample *smp, uint64_t n)
{
	struct dt_sample c;

	if (!sized_in(&c, sizeof(c), smp))
		return -EINVAL;
	/* an address, a weight or a time is each sample's own */
	if (c.has & (DT_SAMPLE_ADDR | DT_SAMPLE_WEIGHT | DT_SAMPLE_TIME | DT_SAMPLE_ADDR_WHY))
		return -EINVAL;
	return n ? add_samples(r, ev, s, ans, &c, n) : 0;
}

int dt_report_add_many(struct dt_report *r, int ev, struct dt_session *s,
		       const struct dt_answer *ans, uint64_t n, uint64_t period)
{
	struct dt_sample smp = { .sz = sizeof(smp), .period = period, .tid = -1,
				 .cpu = -1 };

	return n ? add_samples(r, ev, s, ans, &smp, n) : 0;
}

void dt_report_reasons_only(struct dt_report *r)
{
	r->reasons_only = true;
}

void dt_report_no_threads(struct dt_report *r)
{
	r->no_threads = true;
}

size_t dt_report_type_names(const struct dt_report *r, const char **names,
			    size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < r->ntypes; i++) {
		if (r->types[i].name[0] == '(')
			continue;
		if (n < max)
			names[n] = r->types[i].name;
		n++;
	}
	return n;
}

uint64_t dt_report_samples(const struct dt_report *r, int ev)
{
	uint64_t n = 0;

	for (int e = 0; e < NEV; e++)
		if (ev < 0 || ev == e)
			n += r->total.samples[e];
	return n;
}

/* Objects whose data addresses put them at one alignment in nine of ten
 * samples have their cache lines start there; otherwise (no addresses,
 * objects at many alignments) lines are counted from the type's start. */
unsigned type_line_phase(const struct type_row *t)
{
	unsigned best = 0;

	if (!t->addressed)
		return 0;
	for (unsigned p = 1; p < CACHE_LINE; p++)
		if (t->phase[p] > t->phase[best])
			best = p;
	return t->phase[best] * 10 >= t->addressed * 9 ? best : 0;
}

int64_t line_at_phase(int64_t off, unsigned phase)
{
	int64_t at = off + (int64_t)phase;

	return at >= 0 ? at / CACHE_LINE : (at - CACHE_LINE + 1) / CACHE_LINE;
}

int64_t type_line_of(const struct type_row *t, int64_t off)
{
	return line_at_phase(off, type_line_phase(t));
}

/* ---- table printing ---- */

const char *report_event_name(const struct dt_report *r, int e)
{
	return e < r->nev && r->events[e][0] ? r->events[e] : "samples";
}

static int nevents(const struct dt_report *r)
{
	return r->nev ? r->nev : 1;
}

static void add_counts(struct counts *to, const struct counts *c)
{
	for (int e = 0; e < NEV; e++) {
		to->samples[e] += c->samples[e];
		to->period[e] += c->period[e];
		to->loads[e] += c->loads[e];
		to->stores[e] += c->stores[e];
		to->rmw[e] += c->rmw[e];
		to->weight[e] += c->weight[e];
		to->weighed[e] += c->weighed[e];
		to->by_addr[e] += c->by_addr[e];
		for (int l = 0; l < DT_LVL_COUNT; l++)
			to->level[e][l] += c->level[e][l];
	}
}

static void sub_counts(struct counts *to, const struct counts *c)
{
	for (int e = 0; e < NEV; e++) {
		to->samples[e] -= c->samples[e];
		to->period[e] -= c->period[e];
		to->loads[e] -= c->loads[e];
		to->stores[e] -= c->stores[e];
		to->rmw[e] -= c->rmw[e];
		to->weight[e] -= c->weight[e];
		to->weighed[e] -= c->weighed[e];
		to->by_addr[e] -= c->by_addr[e];
		for (int l = 0; l < DT_LVL_COUNT; l++)
			to->level[e][l] -= c->level[e][l];
	}
}

/* The first column of a that differs from b's, as a name, or NULL. */
static const char *counts_differ(const struct counts *a, const struct counts *b,
				 int e)
{
	if (a->samples[e] != b->samples[e])
		return "samples";
	if (a->loads[e] != b->loads[e] || a->stores[e] != b->stores[e] ||
	    a->rmw[e] != b->rmw[e])
		return "loads/stores";
	if (a->weighed[e] != b->weighed[e] || a->weight[e] != b->weight[e])
		return "weights";
	if (a->by_addr[e] != b->by_addr[e])
		return "samples typed by address";
	for (int l = 0; l < DT_LVL_COUNT; l++)
		if (a->level[e][l] != b->level[e][l])
			return "data sources";
	return NULL;
}

/* rows + reasons == samples, per event and per column, and a type's
 * offsets == the type; else say so loudly. */
int report_check_totals(FILE *f, const struct dt_report *r)
{
	struct counts sum = { 0 }, type_sum;
	int bad = 0;

	for (size_t i = 0; i < r->ntypes; i++) {
		add_counts(&sum, &r->types[i].c);
		memset(&type_sum, 0, sizeof(type_sum));
		for (size_t j = 0; j < r->types[i].noffs; j++)
			add_counts(&type_sum, &r->types[i].offs[j].c);
		for (int e = 0; e < nevents(r); e++) {
			const char *what = counts_differ(&type_sum, &r->types[i].c, e);
			if (what && f)
				fprintf(f, "# ERROR: %s: the %s of %s's offsets do not add up\n",
					report_event_name(r, e), what, r->types[i].name);
			if (what)
				bad = -EPROTO;
		}
	}
	for (int k = 0; k < DT_REASON_COUNT; k++)
		add_counts(&sum, &r->by_reason[k]);
	for (int e = 0; e < nevents(r); e++) {
		const char *what = counts_differ(&sum, &r->total, e);
		sum.samples[e] += r->lost[e];
		if ((what || r->lost[e]) && f)
			fprintf(f, "# ERROR: %s: rows add up to %" PRIu64
				" samples of %" PRIu64 " (%" PRIu64 " lost; %s)\n",
				report_event_name(r, e), sum.samples[e], r->total.samples[e],
				r->lost[e], what ? what : "samples");
		if (what || r->lost[e])
			bad = -EPROTO;
	}
	if (bad)
		fprintf(stderr, "dtprof: internal error: totals do not add up\n");
	return bad;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Sort order of every table: by the chosen column of the first event,
 * then the others (qsort_r's argument: the enum dt_sort). */
static uint64_t sort_value(const struct counts *c, int e, enum dt_sort key)
{
	switch (key) {
	case DT_SORT_PERIOD:
		return c->period[e];
	case DT_SORT_WEIGHT:
		return c->weight[e];
	case DT_SORT_SAMPLES:
		break;
	}
	return c->samples[e];
}

static int cmp_counts(const struct counts *a, const struct counts *b,
		      enum dt_sort key)
{
	for (int e = 0; e < NEV; e++) {
		uint64_t x = sort_value(a, e, key), y = sort_value(b, e, key);
		if (x != y)
			return x > y ? -1 : 1;
	}
	for (int e = 0; e < NEV; e++)
		if (a->samples[e] != b->samples[e])
			return a->samples[e] > b->samples[e] ? -1 : 1;
	return 0;
}

static int cmp_type_ptr(const void *x, const void *y, void *key)
{
	const struct type_row *a = *(struct type_row *const *)x;
	const struct type_row *b = *(struct type_row *const *)y;
	int c = cmp_counts(&a->c, &b->c, *(enum dt_sort *)key);

	return c ? c : strcmp(a->name, b->name);
}

static int cmp_off(const void *x, const void *y, void *key)
{
	const struct offset_row *a = x, *b = y;
	int c = cmp_counts(&a->c, &b->c, *(enum dt_sort *)key);

	if (c)
		return c;
	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

static int cmp_name_ptr(const void *x, const void *y)
{
	const struct type_row *a = *(struct type_row *const *)x;
	const struct type_row *b = *(struct type_row *const *)y;

	return strcmp(a->name, b->name);
}

/* Which rows share their name with a row of another binary: those are
 * labelled with their binary (report_type_label). */
static void mark_shared_names(struct type_row **v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_name_ptr);
	for (size_t i = 0; i < n; i++)
		v[i]->shared_name = false;
	for (size_t i = 1; i < n; i++)
		if (!strcmp(v[i]->name, v[i - 1]->name) && v[i]->session &&
		    v[i - 1]->session && v[i]->session != v[i - 1]->session)
			v[i]->shared_name = v[i - 1]->shared_name = true;
}

struct type_row **report_sorted_types(const struct dt_report *r,
				      enum dt_sort sort)
{
	struct type_row **v = calloc(r->ntypes + 1, sizeof(*v));

	if (!v)
		return NULL;
	/* offsets are sorted in place: the fast path's indexes go stale */
	memset(r->hot, 0, HOT_SLOTS * sizeof(*r->hot));
	for (size_t i = 0; i < r->ntypes; i++) {
		v[i] = &r->types[i];
		if (v[i]->noffs)
			qsort_r(v[i]->offs, v[i]->noffs, sizeof(*v[i]->offs), cmp_off, &sort);
		free(v[i]->off_slot);	/* made again when a row is added */
		v[i]->off_slot = NULL;
		v[i]->off_slots = 0;
	}
	mark_shared_names(v, r->ntypes);
	qsort_r(v, r->ntypes, sizeof(*v), cmp_type_ptr, &sort);
	return v;
}

uint64_t report_unresolved(const struct dt_report *r, int e)
{
	uint64_t n = 0;

	for (int k = 1; k < DT_REASON_COUNT; k++)
		n += r->by_reason[k].samples[e];
	return n;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* A type's name for people: with its binary when another binary has a
 * type of the same name ("struct node [libfoo.so]"). */
const char *report_type_label(const struct type_row *t, char *buf, size_t len)
{
	if (!t->shared_name)
		return t->name;
	snprintf(buf, len, "%s [%s]", t->name, base_name(dt_session_path(t->session)));
	return buf;
}

void dt_report_incomplete(struct dt_report *r, uint64_t in_file)
{
	r->in_file = in_file;
}

/* The warning of an incomplete input: a comment line in text and tsv
 * (--merge skips it), an "incomplete" member in json; nothing when the
 * input was read whole. */
static void print_incomplete(struct out *o, const struct dt_report *r)
{
	if (!r->in_file)
		return;
	if (out_json(o)) {
		out_object(o, "incomplete");
		out_u64(o, "samples_read", dt_report_samples(r, -1));
		out_u64(o, "samples_in_file", r->in_file);
		out_end(o);
		return;
	}
	out_comment(o, "WARNING: only %" PRIu64 " of the %" PRIu64 " samples in "
		    "perf.data were read (perf stopped early, or its options "
		    "left samples out): these tables count those",
		    dt_report_samples(r, -1), r->in_file);
}

static void print_header(struct out *o, const struct dt_report *r)
{
	FILE *f = o->f;

	fprintf(f, "# dtprof: data-type profile\n");
	print_incomplete(o, r);
	fputs("#\n", f);
	for (int e = 0; e < nevents(r); e++) {
		uint64_t n = r->total.samples[e];
		fprintf(f, "# event '%s': %" PRIu64 " samples, period %" PRIu64
			", %.1f%% resolved to a type, %" PRIu64 " loads, %" PRIu64
			" stores (%" PRIu64 " both)\n", report_event_name(r, e), n,
			r->total.period[e], pct(n - report_unresolved(r, e), n),
			r->total.loads[e], r->total.stores[e], r->total.rmw[e]);
		if (r->total.weighed[e])
			fprintf(f, "# event '%s': %" PRIu64 " samples with a weight,"
				" mean %.1f\n", report_event_name(r, e), r->total.weighed[e],
				(double)r->total.weight[e] / (double)r->total.weighed[e]);
	}
	fprintf(f, "#\n");
}

static double mean_weight(const struct counts *c, int e)
{
	return c->weighed[e] ? (double)c->weight[e] / (double)c->weighed[e] : 0.0;
}

static void print_counts_human(FILE *f, const struct dt_report *r,
			       const struct counts *c)
{
	for (int e = 0; e < nevents(r); e++) {
		fprintf(f, " %7.2f%% %7.2f%% %9" PRIu64 " %8" PRIu64 " %8" PRIu64,
			pct(c->samples[e], r->total.samples[e]),
			pct(c->period[e], r->total.period[e]), c->samples[e],
			c->loads[e], c->stores[e]);
		if (r->any_weight)
			fprintf(f, " %8.1f", mean_weight(c, e));
	}
}

static void counts_json(struct out *o, const struct dt_report *r,
			const struct counts *c)
{
	static const char *const names[] = {
		"samples", "period", "loads", "stores", "rmw", "weight",
		"weight_samples", "by_address",
	};
	const uint64_t *cols[] = { c->samples, c->period, c->loads, c->stores,
				   c->rmw, c->weight, c->weighed, c->by_addr };

	for (size_t k = 0; k < sizeof(cols) / sizeof(cols[0]); k++) {
		out_array(o, names[k]);
		for (int e = 0; e < nevents(r); e++)
			out_u64(o, NULL, cols[k][e]);
		out_end(o);
	}
	if (!r->any_level)
		return;
	out_object(o, "sources");
	for (int l = 0; l < DT_LVL_COUNT; l++) {
		out_array(o, dt_mem_level_str((enum dt_mem_level)l));
		for (int e = 0; e < nevents(r); e++)
			out_u64(o, NULL, c->level[e][l]);
		out_end(o);
	}
	out_end(o);
}

static void unknown_counts(const struct dt_report *r, struct counts *unk)
{
	memset(unk, 0, sizeof(*unk));
	for (int k = 1; k < DT_REASON_COUNT; k++)
		add_counts(unk, &r->by_reason[k]);
}

/* Per type and field, where the loads were served from (perf mem's
 * data sources), in percent of the row's samples that had one. */
static void sources_human(FILE *f, const struct dt_report *r,
			  struct type_row **v)
{
	char label[512];

	fprintf(f, "\n# data sources (samples with one; %% of the row)\n#");
	fputs(" event                  Samples  MeanWt", f);
	int width[DT_LVL_COUNT];	/* a column as wide as its level's name */
	for (int l = 0; l < DT_LVL_COUNT; l++) {
		const char *name = dt_mem_level_str((enum dt_mem_level)l);
		width[l] = strlen(name) > 7 ? (int)strlen(name) : 7;
		fprintf(f, " %*s", width[l], name);
	}
	fputs("  Data Type / offset (field)\n", f);
	for (size_t i = 0; i < r->ntypes; i++) {
		const struct type_row *t = v[i];
		for (size_t j = 0; j <= t->noffs; j++) {
			const struct counts *c = j ? &t->offs[j - 1].c : &t->c;
			for (int e = 0; e < nevents(r); e++) {
				uint64_t n = 0;
				for (int l = 0; l < DT_LVL_COUNT; l++)
					n += c->level[e][l];
				if (!n)
					continue;
				fprintf(f, "  %-20.20s %9" PRIu64 " %7.1f", report_event_name(r, e),
					n, mean_weight(c, e));
				for (int l = 0; l < DT_LVL_COUNT; l++)
					fprintf(f, " %*.1f%%", width[l] - 1, pct(c->level[e][l], n));
				const char *name = report_type_label(t, label, sizeof(label));
				if (j)
					fprintf(f, "      %s +%" PRId64 " (%s)\n", name,
						t->offs[j - 1].offset, t->offs[j - 1].field[0] ?
						t->offs[j - 1].field : "no field");
				else
					fprintf(f, "  %s\n", name);
			}
		}
	}
}

static void types_human(struct out *o, const struct dt_report *r,
			struct type_row **v)
{
	FILE *f = o->f;
	const char *wt = r->any_weight ? "   MeanWt" : "";
	char label[512];

	print_header(o, r);
	fputs("#", f);
	for (int e = 0; e < nevents(r); e++)
		fprintf(f, " %-*s", r->any_weight ? 53 : 44, report_event_name(r, e));
	fputs("\n#", f);
	for (int e = 0; e < nevents(r); e++)
		fprintf(f, " Samples%%  Period%%   Samples    Loads   Stores%s", wt);
	fputs("  Data Type / offset (field)\n", f);
	for (size_t i = 0; i < r->ntypes; i++) {
		struct type_row *t = v[i];
		const char *name = report_type_label(t, label, sizeof(label));
		fputc(' ', f);
		print_counts_human(f, r, &t->c);
		fprintf(f, "  %s\n", name);
		if (t->name[0] == '(')
			continue;	/* pseudo types have no offsets */
		for (size_t j = 0; j < t->noffs; j++) {
			struct offset_row *w = &t->offs[j];
			fputc(' ', f);
			print_counts_human(f, r, &w->c);
			fprintf(f, "      %s +%" PRId64 " (%s)\n", name, w->offset,
				w->field[0] ? w->field : "no field");
		}
	}
	struct counts unk;
	unknown_counts(r, &unk);
	bool any_unknown = false;
	for (int e = 0; e < nevents(r); e++)
		any_unknown |= unk.samples[e] != 0;
	if (any_unknown) {
		fputc(' ', f);
		print_counts_human(f, r, &unk);
		fprintf(f, "  %s\n", DT_TYPE_UNKNOWN);
		for (int k = 1; k < DT_REASON_COUNT; k++) {
			bool any = false;
			for (int e = 0; e < nevents(r); e++)
				any |= r->by_reason[k].samples[e] != 0;
			if (!any)
				continue;
			fputc(' ', f);
			print_counts_human(f, r, &r->by_reason[k]);
			fprintf(f, "      %s %s\n", DT_TYPE_UNKNOWN,
				dt_reason_str((enum dt_reason)k));
		}
	}
	if (r->any_level)
		sources_human(f, r, v);
}

/* The columns every tsv table shares after its own, in this order (the
 * stable schema of dtplugin(1)), ending with the binary's. */
static void counts_header(struct out *o)
{
	static const char *const names[] = {
		"samples", "period", "loads", "stores", "rmw", "weight",
		"weight_samples", NULL
	};
	char name[64];

	for (size_t k = 0; names[k]; k++)
		out_cell(o, names[k]);
	for (int l = 0; l < DT_LVL_COUNT; l++) {
		snprintf(name, sizeof(name), "src_%s", dt_mem_level_str((enum dt_mem_level)l));
		out_cell(o, name);
	}
	out_cell(o, "build_id");
	out_cell(o, "dso");
	out_cell(o, "type_id");
	out_cell(o, "by_address");
	out_row_end(o);
}

static void counts_tsv(struct out *o, const struct counts *c, int e)
{
	const uint64_t cols[] = { c->samples[e], c->period[e], c->loads[e],
				  c->stores[e], c->rmw[e], c->weight[e], c->weighed[e] };

	for (size_t k = 0; k < sizeof(cols) / sizeof(cols[0]); k++)
		out_cell_u64(o, cols[k]);
	for (int l = 0; l < DT_LVL_COUNT; l++)
		out_cell_u64(o, c->level[e][l]);
}

/* The binary of a row: build-id in hex ("" when none), path, and the
 * type's DWARF offset there (a layout is found again by it; "" for a
 * pseudo type); then the row's samples typed by address, and the row
 * ends. */
static void binary_tsv(struct out *o, const struct type_row *t, uint64_t by_addr)
{
	const uint8_t *id;
	size_t n = t && t->session ? dt_session_build_id(t->session, &id) : 0;

	out_cell_hexbytes(o, n ? id : NULL, n);
	out_cell(o, t && t->session ? dt_session_path(t->session) : "");
	if (t && t->session && t->type_id)
		out_cell_u64(o, t->type_id);
	else
		out_cell(o, "");
	out_cell_u64(o, by_addr);
	out_row_end(o);
}

static void types_tsv(struct out *o, const struct dt_report *r, struct type_row **v)
{
	print_incomplete(o, r);
	out_cell(o, "event");
	out_cell(o, "type");
	out_cell(o, "offset");
	out_cell(o, "field");
	counts_header(o);
	for (size_t i = 0; i < r->ntypes; i++)
		for (size_t j = 0; j < v[i]->noffs; j++) {
			struct offset_row *w = &v[i]->offs[j];
			for (int e = 0; e < nevents(r); e++) {
				if (!w->c.samples[e])
					continue;
				out_cell(o, report_event_name(r, e));
				out_cell(o, v[i]->name);
				out_cell_i64(o, w->offset);
				out_cell(o, w->field);
				counts_tsv(o, &w->c, e);
				binary_tsv(o, v[i], w->c.by_addr[e]);
			}
		}
	for (int k = 1; k < DT_REASON_COUNT; k++)
		for (int e = 0; e < nevents(r); e++) {
			if (!r->by_reason[k].samples[e])
				continue;
			out_cell(o, report_event_name(r, e));
			out_cell(o, DT_TYPE_UNKNOWN);
			out_cell(o, "");
			out_cell(o, dt_reason_str((enum dt_reason)k));
			counts_tsv(o, &r->by_reason[k], e);
			binary_tsv(o, NULL, 0);
		}
}

/* The binary of a row in json: its build-id and path (none for a pseudo
 * type). */
static void binary_json(struct out *o, const struct type_row *t)
{
	const uint8_t *id;
	size_t n;

	if (!t->session)
		return;
	n = dt_session_build_id(t->session, &id);
	out_hexbytes(o, "build_id", id, n);
	out_str(o, "dso", dt_session_path(t->session));
}

static void types_json(struct out *o, const struct dt_report *r, struct type_row **v)
{
	out_object(o, NULL);
	out_array(o, "events");
	for (int e = 0; e < nevents(r); e++) {
		out_object(o, NULL);
		out_str(o, "name", report_event_name(r, e));
		out_u64(o, "samples", r->total.samples[e]);
		out_u64(o, "period", r->total.period[e]);
		out_u64(o, "loads", r->total.loads[e]);
		out_u64(o, "stores", r->total.stores[e]);
		out_u64(o, "rmw", r->total.rmw[e]);
		out_end(o);
	}
	out_end(o);
	print_incomplete(o, r);
	out_array(o, "types");
	for (size_t i = 0; i < r->ntypes; i++) {
		out_object(o, NULL);
		out_str(o, "type", v[i]->name);
		binary_json(o, v[i]);
		counts_json(o, r, &v[i]->c);
		out_array(o, "offsets");
		for (size_t j = 0; j < v[i]->noffs; j++) {
			struct offset_row *w = &v[i]->offs[j];
			out_object(o, NULL);
			out_i64(o, "offset", w->offset);
			out_str(o, "field", w->field);
			counts_json(o, r, &w->c);
			out_end(o);
		}
		out_end(o);
		out_end(o);
	}
	out_end(o);
	out_array(o, "unresolved");
	for (int k = 1; k < DT_REASON_COUNT; k++) {
		out_object(o, NULL);
		out_str(o, "reason", dt_reason_str((enum dt_reason)k));
		counts_json(o, r, &r->by_reason[k]);
		out_end(o);
	}
	out_end(o);
	out_end(o);
}

/* Whether samples came with registers to compute addresses from. */
static bool addr_tried(const struct dt_report *r)
{
	for (int w = 0; w < DT_ADDR_WHY_COUNT; w++)
		if (r->addr_why[w])
			return true;
	return false;
}

/* The register route's coverage, and why the other samples have none. */
static void addr_lines(FILE *f, const struct dt_report *r)
{
	uint64_t all = 0;

	for (int w = 0; w < DT_ADDR_WHY_COUNT; w++)
		all += r->addr_why[w];
	fprintf(f, "#\n# data addresses from sampled registers: %" PRIu64 " of %" PRIu64
		" samples (%.1f%%)\n", r->addr_why[DT_ADDR_OK], all,
		pct(r->addr_why[DT_ADDR_OK], all));
	for (int w = 1; w < DT_ADDR_WHY_COUNT; w++)
		if (r->addr_why[w])
			fprintf(f, "#   no address, %s: %" PRIu64 "\n",
				dt_addr_why_str((enum dt_addr_why)w), r->addr_why[w]);
}

static void stat_json(struct out *o, const struct dt_report *r)
{
	out_object(o, NULL);
	out_object(o, "reasons");
	for (int k = 0; k < DT_REASON_COUNT; k++) {
		out_array(o, k ? dt_reason_str((enum dt_reason)k) : "resolved");
		for (int e = 0; e < nevents(r); e++)
			out_u64(o, NULL, k ? r->by_reason[k].samples[e] :
				    r->total.samples[e] - report_unresolved(r, e));
		out_end(o);
	}
	out_end(o);
	if (addr_tried(r)) {
		out_object(o, "addresses");
		for (int w = 0; w < DT_ADDR_WHY_COUNT; w++)
			out_u64(o, dt_addr_why_str((enum dt_addr_why)w), r->addr_why[w]);
		out_end(o);
	}
	if (r->heap) {
		out_array(o, "by_address");
		for (int e = 0; e < nevents(r); e++)
			out_u64(o, NULL, r->total.by_addr[e]);
		out_end(o);
	}
	print_incomplete(o, r);
	out_end(o);
}

/* Of the resolved samples, those typed by their heap block (a comment:
 * the rows above add up without it). */
static void by_address_line(struct out *o, const struct dt_report *r)
{
	struct heap_totals t;

	if (!r->heap)
		return;
	heap_totals(r->heap, &t);
	for (int e = 0; e < nevents(r); e++)
		out_comment(o, "%s: %" PRIu64 " of the resolved typed by their heap block's "
			    "allocation site (by address); %" PRIu64 " allocator events",
			    report_event_name(r, e), r->total.by_addr[e], t.events);
	if (t.contradicted)
		out_comment(o, "%" PRIu64 " samples typed by their instruction as an object "
			    "their heap block cannot hold: one of the two answers is wrong "
			    "(--aggregate=objects lists the sites)", t.contradicted);
}

/* The reasons in text (with each event's percent, and the addresses'
 * coverage) and tsv (every reason, counts only). */
static void stat_table(struct out *o, const struct dt_report *r)
{
	bool text = out_text(o);

	if (out_json(o)) {
		stat_json(o, r);
		return;
	}
	print_incomplete(o, r);
	out_cell(o, text ? "# reason" : "reason");
	for (int e = 0; e < nevents(r); e++) {
		out_cell(o, report_event_name(r, e));
		if (text)
			out_cell(o, "percent");
	}
	out_row_end(o);
	for (int k = 0; k < DT_REASON_COUNT; k++) {
		bool any = k == 0;
		for (int e = 0; e < nevents(r); e++)
			any |= r->by_reason[k].samples[e] != 0;
		if (!any && text)
			continue;
		out_cell(o, k ? dt_reason_str((enum dt_reason)k) : "resolved");
		for (int e = 0; e < nevents(r); e++) {
			uint64_t n = k ? r->by_reason[k].samples[e] :
				     r->total.samples[e] - report_unresolved(r, e);
			out_cell_u64(o, n);
			if (text)
				out_cell_double(o, pct(n, r->total.samples[e]), 1);
		}
		out_row_end(o);
	}
	out_cell(o, "total");
	for (int e = 0; e < nevents(r); e++) {
		out_cell_u64(o, r->total.samples[e]);
		if (text)
			out_cell(o, "100.0");
	}
	out_row_end(o);
	if (text && addr_tried(r))
		addr_lines(o->f, r);
	by_address_line(o, r);
}

/* ---- annotated layouts ---- */

/* Counts of the offsets within [lo, hi) of type t that keep(o, arg)
 * takes (all of them when keep is NULL). */
static void sum_offsets(const struct type_row *t, uint64_t lo, uint64_t hi,
			bool (*keep)(const struct offset_row *o, void *arg),
			void *arg, struct counts *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t j = 0; j < t->noffs; j++) {
		const struct offset_row *o = &t->offs[j];
		if (o->offset < 0 || (uint64_t)o->offset < lo ||
		    (uint64_t)o->offset >= hi || (keep && !keep(o, arg)))
			continue;
		add_counts(c, &o->c);
	}
}

void report_sum_range(const struct type_row *t, uint64_t lo, uint64_t hi,
		      struct counts *c)
{
	sum_offsets(t, lo, hi, NULL, NULL, c);
}

/* The last component of a member path ("flags.state": "state"); a
 * candidates list ("{state|prio}") is one component. */
static const char *path_leaf(const char *field)
{
	const char *leaf = field;
	int depth = 0;

	for (const char *p = field; *p; p++) {
		depth += (*p == '{') - (*p == '}');
		if (*p == '.' && !depth)
			leaf = p + 1;
	}
	return leaf;
}

/* Rows of the bitfield named name. */
static bool leaf_is(const struct offset_row *o, void *name)
{
	return !strcmp(path_leaf(o->field), name);
}

/* Rows whose access named several bitfields ("{state|prio}"): the last
 * one's field in *which. */
static bool leaf_undecided(const struct offset_row *o, void *which)
{
	if (path_leaf(o->field)[0] != '{')
		return false;
	*(const char **)which = o->field;
	return true;
}

bool report_bits_undecided(const struct type_row *t, uint64_t lo, uint64_t hi,
			   struct counts *c, const char **which)
{
	*which = "";
	sum_offsets(t, lo, hi, leaf_undecided, which, c);
	return (*which)[0] != '\0';
}

/* The samples a layout row stands for.  A member's are those inside it
 * but not in the holes and padding inside it (a union's member shorter
 * than the union, a nested struct's tail): an access there touched no
 * field of the member, and its hole or padding row shows it.  A
 * bitfield's are those whose bits named it (the mask or shift said
 * which), not every sample of its bytes: the bytes' samples the access
 * could not tell ("{state|prio}") are the run's (report_bits_undecided). */
void report_row_counts(const struct type_row *t, const struct dt_layout *l,
		       size_t i, struct counts *c)
{
	struct counts gap;
	const struct dt_layout_row *row = &l->rows[i];
	uint64_t lo = row->offset, hi = lo + (row->size ? row->size : 1);

	if (row->kind == DT_LAYOUT_MEMBER && row->bit_size) {
		sum_offsets(t, lo, hi, leaf_is, (void *)row->name, c);
		return;
	}
	report_sum_range(t, lo, hi, c);
	if (row->kind != DT_LAYOUT_MEMBER)
		return;
	for (size_t j = 0; j < l->n; j++) {
		const struct dt_layout_row *g = &l->rows[j];
		if ((g->kind != DT_LAYOUT_HOLE && g->kind != DT_LAYOUT_PADDING) ||
		    g->offset < lo || g->offset + g->size > hi)
			continue;
		report_sum_range(t, g->offset, g->offset + g->size, &gap);
		sub_counts(c, &gap);
	}
}

bool report_bitfield_run_undecided(const struct type_row *t, const struct dt_layout *l,
				   size_t last, struct counts *c, const char **which)
{
	const struct dt_layout_row *row = &l->rows[last];
	size_t first = last;

	if (row->kind != DT_LAYOUT_MEMBER || !row->bit_size ||
	    (last + 1 < l->n && l->rows[last + 1].bit_size &&
	     l->rows[last + 1].offset < row->offset + row->size))
		return false;	/* not the run's last bitfield */
	while (first > 1 && l->rows[first - 1].bit_size &&
	       l->rows[first - 1].offset == row->offset)
		first--;
	return report_bits_undecided(t, l->rows[first].offset,
				     row->offset + (row->size ? row->size : 1), c, which);
}

/* After a run of bitfields in one storage unit: the samples of its bytes
 * whose bits could not be told apart, as a row of their own. */
static void bits_undecided_row(FILE *f, const struct dt_report *r,
			       const struct type_row *t, const struct dt_layout *l,
			       size_t last)
{
	const struct dt_layout_row *row = &l->rows[last];
	const char *which;
	struct counts c;

	if (!report_bitfield_run_undecided(t, l, last, &c, &which))
		return;
	fputc(' ', f);
	for (int e = 0; e < nevents(r); e++)
		fprintf(f, " %8" PRIu64 " %6.1f%% %8" PRIu64 " %8" PRIu64, c.samples[e],
			pct(c.samples[e], t->c.samples[e]), c.loads[e], c.stores[e]);
	fprintf(f, " %7" PRIu64 " %6" PRIu64 "  %*s/* bits not told apart: %s */\n",
		row->offset, row->size, (int)(row->depth * 4), "", which);
}

/* The separator before cache line n of t, with the line's counts and,
 * when threads are known, how many touched it and its sharing flag. */
static void line_banner(FILE *f, const struct dt_report *r,
			const struct sharing_view *sv, const struct type_row *t,
			int64_t n, unsigned phase)
{
	struct counts c;
	int64_t lo = n * CACHE_LINE - (int64_t)phase, hi = lo + CACHE_LINE;
	const char *flag, *evidence;
	unsigned tids = sharing_view_line(sv, (uint32_t)(t - r->types), n,
					  &flag, &evidence);

	report_sum_range(t, lo < 0 ? 0 : (uint64_t)lo, (uint64_t)hi, &c);
	fprintf(f, "# ---------- cache line %" PRId64 " (offset %" PRId64 "):", n,
		lo < 0 ? 0 : lo);
	for (int e = 0; e < nevents(r); e++)
		fprintf(f, " %s%" PRIu64 " samples, %" PRIu64 " loads, %" PRIu64
			" stores", e ? "; " : "", c.samples[e], c.loads[e], c.stores[e]);
	if (tids)
		fprintf(f, "; %u thread%s", tids, tids == 1 ? "" : "s");
	if (*flag)
		fprintf(f, ": %s, %s", flag, evidence);
	fputs(" ----------\n", f);
}

static void annotate_one_human(FILE *f, const struct dt_report *r,
			       const struct sharing_view *sv,
			       const struct type_row *t,
			       const struct dt_layout *l)
{
	unsigned phase = type_line_phase(t);
	uint64_t lines = (l->size + phase + CACHE_LINE - 1) / CACHE_LINE;
	struct counts c;
	char label[512];

	fprintf(f, "\nAnnotate type: '%s' (%" PRIu64 " bytes, %" PRIu64
		" cache line%s)\n", report_type_label(t, label, sizeof(label)),
		l->size, lines, lines == 1 ? "" : "s");
	for (int e = 0; e < nevents(r); e++)
		fprintf(f, "# %s: %" PRIu64 " samples, %.1f%% of all, %" PRIu64
			" loads, %" PRIu64 " stores\n", report_event_name(r, e),
			t->c.samples[e], pct(t->c.samples[e], r->total.samples[e]),
			t->c.loads[e], t->c.stores[e]);
	if (phase)
		fprintf(f, "# the objects start %u bytes into a cache line (data addresses)\n",
			phase);
	fputs("#", f);
	for (int e = 0; e < nevents(r); e++)
		fputs("  Samples   Share    Loads   Stores", f);
	fputs("  Offset   Size  Field\n", f);

	int64_t line = -1;
	for (size_t i = 0; i < l->n; i++) {
		const struct dt_layout_row *row = &l->rows[i];
		int64_t row_line = type_line_of(t, (int64_t)row->offset);
		while (line < row_line)
			line_banner(f, r, sv, t, ++line, phase);
		report_row_counts(t, l, i, &c);
		fputc(' ', f);
		for (int e = 0; e < nevents(r); e++) {
			if ((row->kind == DT_LAYOUT_HOLE || row->kind == DT_LAYOUT_PADDING) &&
			    !c.samples[e])
				fprintf(f, " %8s %7s %8s %8s", "", "", "", "");
			else
				fprintf(f, " %8" PRIu64 " %6.1f%% %8" PRIu64 " %8" PRIu64,
					c.samples[e], pct(c.samples[e], t->c.samples[e]),
					c.loads[e], c.stores[e]);
		}
		fprintf(f, " %7" PRIu64 " %6" PRIu64 "  %*s", row->offset, row->size,
			(int)(row->depth * 4), "");
		bool straddles = row->size && type_line_of(t, (int64_t)row->offset) !=
				 type_line_of(t, (int64_t)(row->offset + row->size - 1));
		switch (row->kind) {
		case DT_LAYOUT_TYPE:
			fprintf(f, "%s", t->name);
			break;
		case DT_LAYOUT_MEMBER:
			fprintf(f, "%s %s", row->type, row->name[0] ? row->name : "(anonymous)");
			if (row->bit_size)
				fprintf(f, ":%u", row->bit_size);
			break;
		case DT_LAYOUT_HOLE:
			fprintf(f, "/* hole: %" PRIu64 " byte%s */", row->size,
				row->size == 1 ? "" : "s");
			break;
		case DT_LAYOUT_PADDING:
			fprintf(f, "/* padding: %" PRIu64 " byte%s */", row->size,
				row->size == 1 ? "" : "s");
			break;
		}
		if (straddles && row->kind != DT_LAYOUT_TYPE)
			fputs("  /* crosses cache line */", f);
		fputc('\n', f);
		bits_undecided_row(f, r, t, l, i);
	}
}

static const char *const layout_kinds[] = { "type", "member", "hole", "padding" };

static void annotate_one_tsv(struct out *o, const struct dt_report *r,
			     const struct type_row *t, const struct dt_layout *l)
{
	struct counts c;

	for (size_t i = 0; i < l->n; i++) {
		const struct dt_layout_row *row = &l->rows[i];
		report_row_counts(t, l, i, &c);
		for (int e = 0; e < nevents(r); e++) {
			out_cell(o, report_event_name(r, e));
			out_cell(o, t->name);
			out_cell_u64(o, row->offset);
			out_cell_u64(o, row->size);
			out_cell_u64(o, row->depth);
			out_cell(o, layout_kinds[row->kind]);
			out_cell(o, row->kind == DT_LAYOUT_TYPE ? t->name : row->name);
			out_cell(o, row->type);
			out_cell_i64(o, type_line_of(t, (int64_t)row->offset));
			counts_tsv(o, &c, e);
			binary_tsv(o, t, c.by_addr[e]);
		}
	}
}

/* One type's layout: one json document (a line) each. */
static void annotate_one_json(struct out *o, const struct dt_report *r,
			      const struct type_row *t, const struct dt_layout *l)
{
	struct counts c;

	out_object(o, NULL);
	out_str(o, "type", t->name);
	binary_json(o, t);
	out_u64(o, "size", l->size);
	out_u64(o, "line_phase", type_line_phase(t));
	out_array(o, "rows");
	for (size_t i = 0; i < l->n; i++) {
		const struct dt_layout_row *row = &l->rows[i];
		report_row_counts(t, l, i, &c);
		out_object(o, NULL);
		out_u64(o, "offset", row->offset);
		out_u64(o, "size", row->size);
		out_u64(o, "depth", row->depth);
		out_str(o, "kind", layout_kinds[row->kind]);
		out_str(o, "name", row->kind == DT_LAYOUT_TYPE ? t->name : row->name);
		out_str(o, "member_type", row->type);
		out_i64(o, "cache_line", type_line_of(t, (int64_t)row->offset));
		counts_json(o, r, &c);
		out_end(o);
	}
	out_end(o);
	out_end(o);
}

bool report_type_selected(const struct type_row *t, const char *query)
{
	return dt_type_name_matches(t->session, t->name, query);
}

void report_confirm_hint(FILE *f, const char *prefix, const char *table)
{
	fprintf(f, "%sperf record -e cpu-clock --user-regs -- PROGRAM     (registers: any machine)\n"
		"%sperf script -F " DT_PERF_SCRIPT_REGS_FIELDS " --show-mmap-events |\n"
		"%s    dtresolve --aggregate='", prefix, prefix, prefix);
	/* one shell word: a quote in a type's name ("foo<'a'>") closes,
	 * escapes and reopens it (names hold no control bytes: escaped) */
	for (const char *c = table; *c; c++)
		if (*c == '\'')
			fputs("'\\''", f);
		else
			fputc(*c, f);
	fprintf(f, "'\n%sor perf mem record / perf record -d where the PMU gives data addresses\n",
		prefix);
}

void report_name_note(FILE *f, const struct dt_report *r, const char *query,
		      bool as_c)
{
	const char *open = as_c ? "/* " : "\n", *close = as_c ? " */\n" : "\n";
	size_t matched = 0, close_names = 0;
	const char *first = NULL;

	for (size_t i = 0; i < r->ntypes; i++) {
		const struct type_row *t = &r->types[i];
		if (!report_type_selected(t, query))
			continue;
		if (first && strcmp(first, t->name)) {
			if (!matched++)
				fprintf(f, "%s'%s' matches more than one type: %s", open,
					query, first);
			fprintf(f, ", %s", t->name);
		}
		first = first ? first : t->name;
	}
	if (matched) {
		fputs(close, f);
		return;
	}
	if (first)
		return;
	fprintf(f, "%sNo samples of type '%s'.", open, query);
	for (size_t i = 0; i < r->ntypes && close_names < 5; i++)
		if (r->types[i].name[0] != '(' &&
		    dt_type_name_close(r->types[i].name, query))
			fprintf(f, "%s%s", close_names++ ? ", " : " Close names: ",
				r->types[i].name);
	fputs(close, f);
}

int report_print_annotate(struct out *o, const struct dt_report *r, struct type_row **v,
			  const struct dt_table_opts *opts)
{
	struct sharing_view *sv = NULL;
	FILE *f = o->f;

	if (out_text(o)) {
		print_header(o, r);
		sv = r->sharing ? sharing_view_new(r) : NULL;
		if (r->sharing && !sv)
			fputs("# out of memory: cache lines printed without their threads\n", f);
		if (opts->type)
			report_name_note(f, r, opts->type, false);
	}
	if (out_tsv(o)) {
		static const char *const cols[] = {
			"event", "type", "offset", "size", "depth", "kind", "name",
			"member_type", "cache_line", NULL
		};
		for (size_t k = 0; cols[k]; k++)
			out_cell(o, cols[k]);
		counts_header(o);
	}
	for (size_t i = 0; i < r->ntypes; i++) {
		const struct type_row *t = v[i];
		const struct dt_layout *l;
		if (opts->type && !report_type_selected(t, opts->type))
			continue;
		if (!t->session || dt_layout_get(t->session, t->type_id, &l))
			continue;	/* pseudo types, base types without DWARF */
		if (out_tsv(o))
			annotate_one_tsv(o, r, t, l);
		else if (out_json(o))
			annotate_one_json(o, r, t, l);
		else
			annotate_one_human(f, r, sv, t, l);
	}

	sharing_view_free(sv);
	return 0;
}

int report_print_types(struct out *o, const struct dt_report *r, struct type_row **v,
		       const struct dt_table_opts *opts)
{
	(void)opts;
	if (out_tsv(o))
		types_tsv(o, r, v);
	else if (out_json(o))
		types_json(o, r, v);
	else
		types_human(o, r, v);
	return 0;
}

int report_print_stat(struct out *o, const struct dt_report *r, struct type_row **v,
		      const struct dt_table_opts *opts)
{
	(void)v;
	(void)opts;
	stat_table(o, r);
	return 0;
}
