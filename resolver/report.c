// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Everything that prints answers, for every front end: the per-line
 * formats (tsv, perf, json), and the aggregated tables (types and
 * offsets, annotated layouts, reasons) with their tsv and json forms.
 * Front ends never format an answer or a table themselves.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dtprof.h"
#include "arrays.h"

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

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(f, "\\%c", *c);
		else if (*c < 0x20)
			fprintf(f, "\\u%04x", *c);
		else
			fputc(*c, f);
	}
	fputc('"', f);
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
		       const struct dt_answer *a)
{
	fprintf(f, "{\"addr\":\"%#" PRIx64 "\",\"type\":", a->pc);
	json_string(f, a->type);
	fprintf(f, ",\"offset\":%" PRId64 ",\"field\":", a->offset);
	json_string(f, a->field);
	fputs(",\"var\":", f);
	json_string(f, a->var);
	fputs(",\"reason\":", f);
	json_string(f, dt_reason_str(a->reason));
	if (a->note && *a->note) {
		fputs(",\"note\":", f);
		json_string(f, a->note);
	}
	if (ctx->dso) {
		fputs(",\"dso\":", f);
		json_string(f, ctx->dso);
	}
	fputs("}\n", f);
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
		*p++ = '\t';
		p = put_str(p, end, ctx->dso ? ctx->dso : "");
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
	switch (ctx->format) {
	case DT_FORMAT_PERF:
		print_perf(f, a);
		return;
	case DT_FORMAT_JSON:
		print_json(f, ctx, a);
		return;
	case DT_FORMAT_TSV:
		print_tsv(f, ctx, a);
		return;
	}
}

/* ---- aggregation ---- */

#define NEV DT_REPORT_MAX_EVENTS

struct counts {
	uint64_t samples[NEV];
	uint64_t period[NEV];
};

struct offset_row {
	int64_t offset;
	char *field;
	struct counts c;
};

struct type_row {
	char *name;
	struct counts c;
	struct dt_session *session;	/* where its layout comes from */
	uint64_t type_id;
	struct offset_row *offs;
	size_t noffs, cap;
};

/* Fast path: the same interned (type, field, offset) answers recur. */
struct hot_key {
	const char *type, *field;
	int64_t offset;
	size_t type_idx, off_idx;
};
#define HOT_SLOTS 4096

struct dt_report {
	char *events[NEV];
	int nev;
	struct counts total;
	struct counts by_reason[DT_REASON_COUNT];
	struct type_row *types;
	size_t ntypes, cap;
	struct hot_key hot[HOT_SLOTS];
	uint64_t lost[NEV];		/* samples we failed to store */
};

int dt_report_new(struct dt_report **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void dt_report_free(struct dt_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->ntypes; i++) {
		for (size_t j = 0; j < r->types[i].noffs; j++)
			free(r->types[i].offs[j].field);
		free(r->types[i].offs);
		free(r->types[i].name);
	}
	free(r->types);
	for (int e = 0; e < r->nev; e++)
		free(r->events[e]);
	free(r);
}

int dt_report_event(struct dt_report *r, const char *name)
{
	for (int e = 0; e < r->nev; e++)
		if (!strcmp(r->events[e], name))
			return e;
	if (r->nev == NEV)
		return NEV - 1;
	const char *n = r->nev == NEV - 1 ? "(other events)" : name;
	r->events[r->nev] = strdup(n);
	if (!r->events[r->nev])
		return r->nev ? r->nev - 1 : 0;
	return r->nev++;
}

static void count(struct counts *c, int ev, uint64_t period)
{
	c->samples[ev]++;
	c->period[ev] += period;
}

static struct type_row *type_row_get(struct dt_report *r, const char *name,
				     size_t *idx)
{
	for (size_t i = 0; i < r->ntypes; i++)
		if (!strcmp(r->types[i].name, name)) {
			*idx = i;
			return &r->types[i];
		}
	if (GROW(r->types, r->cap, r->ntypes, 32))
		return NULL;
	struct type_row *t = &r->types[r->ntypes];
	memset(t, 0, sizeof(*t));
	t->name = strdup(name);
	if (!t->name)
		return NULL;
	*idx = r->ntypes++;
	return t;
}

static struct offset_row *offset_row_get(struct type_row *t, int64_t off,
					 const char *field, size_t *idx)
{
	for (size_t i = 0; i < t->noffs; i++)
		if (t->offs[i].offset == off && !strcmp(t->offs[i].field, field)) {
			*idx = i;
			return &t->offs[i];
		}
	if (GROW(t->offs, t->cap, t->noffs, 8))
		return NULL;
	struct offset_row *o = &t->offs[t->noffs];
	memset(o, 0, sizeof(*o));
	o->offset = off;
	o->field = strdup(field);
	if (!o->field)
		return NULL;
	*idx = t->noffs++;
	return o;
}

int dt_report_add(struct dt_report *r, int ev, struct dt_session *s,
		  const struct dt_answer *ans, uint64_t period)
{
	if (ev < 0 || ev >= NEV)
		ev = 0;
	if (r->nev <= ev)
		r->nev = ev + 1;	/* an unnamed event: named at print */
	count(&r->total, ev, period);
	if (ans->reason != DT_OK) {
		count(&r->by_reason[ans->reason < DT_REASON_COUNT ?
				    ans->reason : DT_BAD_LINE], ev, period);
		return 0;
	}

	size_t h = ((uintptr_t)ans->type * 31 + (uintptr_t)ans->field * 7 +
		    (uint64_t)ans->offset) % HOT_SLOTS;
	struct hot_key *k = &r->hot[h];
	if (!(k->type == ans->type && k->field == ans->field &&
	      k->offset == ans->offset)) {
		size_t ti, oi;
		struct type_row *t = type_row_get(r, ans->type, &ti);
		struct offset_row *o = t ? offset_row_get(t, ans->offset,
							  ans->field, &oi) : NULL;
		if (!o) {
			r->lost[ev]++;
			return -ENOMEM;
		}
		if (!t->session && s && ans->type_id) {
			t->session = s;
			t->type_id = ans->type_id;
		}
		*k = (struct hot_key){ ans->type, ans->field, ans->offset, ti, oi };
	}
	struct type_row *t = &r->types[k->type_idx];
	count(&t->c, ev, period);
	count(&t->offs[k->off_idx].c, ev, period);
	return 0;
}

uint64_t dt_report_samples(const struct dt_report *r, int ev)
{
	uint64_t n = 0;

	for (int e = 0; e < NEV; e++)
		if (ev < 0 || ev == e)
			n += r->total.samples[e];
	return n;
}

/* ---- table printing ---- */

static const char *event_name(const struct dt_report *r, int e)
{
	return e < r->nev && r->events[e] ? r->events[e] : "samples";
}

static int nevents(const struct dt_report *r)
{
	return r->nev ? r->nev : 1;
}

/* rows + reasons == samples, per event; else say so loudly. */
static int check_totals(FILE *f, const struct dt_report *r)
{
	int bad = 0;

	for (int e = 0; e < nevents(r); e++) {
		uint64_t sum = r->lost[e];
		for (size_t i = 0; i < r->ntypes; i++)
			sum += r->types[i].c.samples[e];
		for (int k = 0; k < DT_REASON_COUNT; k++)
			sum += r->by_reason[k].samples[e];
		if (sum != r->total.samples[e] || r->lost[e]) {
			fprintf(f, "# ERROR: %s: rows add up to %" PRIu64
				" samples of %" PRIu64 " (%" PRIu64 " lost)\n",
				event_name(r, e), sum, r->total.samples[e], r->lost[e]);
			fprintf(stderr, "dtprof: internal error: totals of %s do not add up\n",
				event_name(r, e));
			bad = -EPROTO;
		}
	}
	return bad;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Sort helpers: by samples of the first event, then the others. */
static int cmp_counts(const struct counts *a, const struct counts *b)
{
	for (int e = 0; e < NEV; e++) {
		if (a->samples[e] != b->samples[e])
			return a->samples[e] > b->samples[e] ? -1 : 1;
	}
	return 0;
}

static int cmp_type_ptr(const void *x, const void *y)
{
	const struct type_row *a = *(struct type_row *const *)x;
	const struct type_row *b = *(struct type_row *const *)y;
	int c = cmp_counts(&a->c, &b->c);

	return c ? c : strcmp(a->name, b->name);
}

static int cmp_off(const void *x, const void *y)
{
	const struct offset_row *a = x, *b = y;
	int c = cmp_counts(&a->c, &b->c);

	if (c)
		return c;
	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

static struct type_row **sorted_types(const struct dt_report *r)
{
	struct type_row **v = calloc(r->ntypes + 1, sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < r->ntypes; i++) {
		v[i] = &r->types[i];
		if (v[i]->noffs)
			qsort(v[i]->offs, v[i]->noffs, sizeof(*v[i]->offs), cmp_off);
	}
	qsort(v, r->ntypes, sizeof(*v), cmp_type_ptr);
	return v;
}

static uint64_t unresolved(const struct dt_report *r, int e)
{
	uint64_t n = 0;

	for (int k = 1; k < DT_REASON_COUNT; k++)
		n += r->by_reason[k].samples[e];
	return n;
}

static void print_header(FILE *f, const struct dt_report *r)
{
	fprintf(f, "# dtprof: data-type profile\n#\n");
	for (int e = 0; e < nevents(r); e++) {
		uint64_t n = r->total.samples[e];
		fprintf(f, "# event '%s': %" PRIu64 " samples, period %" PRIu64
			", %.1f%% resolved to a type\n", event_name(r, e), n,
			r->total.period[e], pct(n - unresolved(r, e), n));
	}
	fprintf(f, "#\n");
}

static void print_counts_human(FILE *f, const struct dt_report *r,
			       const struct counts *c)
{
	for (int e = 0; e < nevents(r); e++)
		fprintf(f, " %7.2f%% %7.2f%% %9" PRIu64, pct(c->samples[e],
			r->total.samples[e]), pct(c->period[e], r->total.period[e]),
			c->samples[e]);
}

static void print_counts_tsv(FILE *f, const struct dt_report *r,
			     const struct counts *c)
{
	for (int e = 0; e < nevents(r); e++)
		fprintf(f, "\t%" PRIu64 "\t%" PRIu64, c->samples[e], c->period[e]);
}

static void print_counts_json(FILE *f, const struct dt_report *r,
			      const struct counts *c)
{
	fputs(",\"samples\":[", f);
	for (int e = 0; e < nevents(r); e++)
		fprintf(f, "%s%" PRIu64, e ? "," : "", c->samples[e]);
	fputs("],\"period\":[", f);
	for (int e = 0; e < nevents(r); e++)
		fprintf(f, "%s%" PRIu64, e ? "," : "", c->period[e]);
	fputc(']', f);
}

static void types_human(FILE *f, const struct dt_report *r,
			struct type_row **v)
{
	print_header(f, r);
	fputs("#", f);
	for (int e = 0; e < nevents(r); e++)
		fprintf(f, " %-26s", event_name(r, e));
	fputs("\n#", f);
	for (int e = 0; e < nevents(r); e++)
		fputs(" Samples%  Period%   Samples", f);
	fputs("  Data Type / offset (field)\n", f);
	for (size_t i = 0; i < r->ntypes; i++) {
		struct type_row *t = v[i];
		fputc(' ', f);
		print_counts_human(f, r, &t->c);
		fprintf(f, "  %s\n", t->name);
		if (t->name[0] == '(')
			continue;	/* pseudo types have no offsets */
		for (size_t j = 0; j < t->noffs; j++) {
			struct offset_row *o = &t->offs[j];
			fputc(' ', f);
			print_counts_human(f, r, &o->c);
			fprintf(f, "      %s +%" PRId64 " (%s)\n", t->name, o->offset,
				o->field[0] ? o->field : "no field");
		}
	}
	struct counts unk = { { 0 }, { 0 } };
	for (int e = 0; e < nevents(r); e++)
		for (int k = 1; k < DT_REASON_COUNT; k++) {
			unk.samples[e] += r->by_reason[k].samples[e];
			unk.period[e] += r->by_reason[k].period[e];
		}
	bool any_unknown = false;
	for (int e = 0; e < nevents(r); e++)
		any_unknown |= unk.samples[e] != 0;
	if (!any_unknown)
		return;
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

static void tsv_event_header(FILE *f, const struct dt_report *r)
{
	for (int e = 0; e < nevents(r); e++)
		fprintf(f, "\tsamples:%s\tperiod:%s", event_name(r, e),
			event_name(r, e));
	fputc('\n', f);
}

static void types_tsv(FILE *f, const struct dt_report *r, struct type_row **v)
{
	fputs("type\toffset\tfield", f);
	tsv_event_header(f, r);
	for (size_t i = 0; i < r->ntypes; i++)
		for (size_t j = 0; j < v[i]->noffs; j++) {
			struct offset_row *o = &v[i]->offs[j];
			fprintf(f, "%s\t%" PRId64 "\t%s", v[i]->name, o->offset,
				o->field);
			print_counts_tsv(f, r, &o->c);
			fputc('\n', f);
		}
	for (int k = 1; k < DT_REASON_COUNT; k++) {
		fprintf(f, "%s\t\t%s", DT_TYPE_UNKNOWN, dt_reason_str((enum dt_reason)k));
		print_counts_tsv(f, r, &r->by_reason[k]);
		fputc('\n', f);
	}
}

static void types_json(FILE *f, const struct dt_report *r, struct type_row **v)
{
	fputs("{\"events\":[", f);
	for (int e = 0; e < nevents(r); e++) {
		fprintf(f, "%s{\"name\":", e ? "," : "");
		json_string(f, event_name(r, e));
		fprintf(f, ",\"samples\":%" PRIu64 ",\"period\":%" PRIu64 "}",
			r->total.samples[e], r->total.period[e]);
	}
	fputs("],\"types\":[", f);
	for (size_t i = 0; i < r->ntypes; i++) {
		fprintf(f, "%s{\"type\":", i ? "," : "");
		json_string(f, v[i]->name);
		print_counts_json(f, r, &v[i]->c);
		fputs(",\"offsets\":[", f);
		for (size_t j = 0; j < v[i]->noffs; j++) {
			struct offset_row *o = &v[i]->offs[j];
			fprintf(f, "%s{\"offset\":%" PRId64 ",\"field\":", j ? "," : "",
				o->offset);
			json_string(f, o->field);
			print_counts_json(f, r, &o->c);
			fputc('}', f);
		}
		fputs("]}", f);
	}
	fputs("],\"unresolved\":[", f);
	for (int k = 1, first = 1; k < DT_REASON_COUNT; k++) {
		fprintf(f, "%s{\"reason\":\"%s\"", first ? "" : ",",
			dt_reason_str((enum dt_reason)k));
		print_counts_json(f, r, &r->by_reason[k]);
		fputc('}', f);
		first = 0;
	}
	fputs("]}\n", f);
}

static void stat_table(FILE *f, const struct dt_report *r, enum dt_format fmt)
{
	if (fmt == DT_FORMAT_JSON) {
		fputs("{\"reasons\":{", f);
		for (int k = 0; k < DT_REASON_COUNT; k++) {
			fprintf(f, "%s\"%s\":[", k ? "," : "",
				k ? dt_reason_str((enum dt_reason)k) : "resolved");
			for (int e = 0; e < nevents(r); e++)
				fprintf(f, "%s%" PRIu64, e ? "," : "", k ?
					r->by_reason[k].samples[e] :
					r->total.samples[e] - unresolved(r, e));
			fputc(']', f);
		}
		fputs("}}\n", f);
		return;
	}
	bool human = fmt != DT_FORMAT_TSV;
	fputs(human ? "# reason" : "reason", f);
	for (int e = 0; e < nevents(r); e++)
		fprintf(f, human ? "\t%s\tpercent" : "\t%s", event_name(r, e));
	fputc('\n', f);
	for (int k = 0; k < DT_REASON_COUNT; k++) {
		bool any = k == 0;
		for (int e = 0; e < nevents(r); e++)
			any |= r->by_reason[k].samples[e] != 0;
		if (!any && human)
			continue;
		fputs(k ? dt_reason_str((enum dt_reason)k) : "resolved", f);
		for (int e = 0; e < nevents(r); e++) {
			uint64_t n = k ? r->by_reason[k].samples[e] :
				     r->total.samples[e] - unresolved(r, e);
			fprintf(f, "\t%" PRIu64, n);
			if (human)
				fprintf(f, "\t%.1f", pct(n, r->total.samples[e]));
		}
		fputc('\n', f);
	}
	fputs("total", f);
	for (int e = 0; e < nevents(r); e++)
		fprintf(f, human ? "\t%" PRIu64 "\t100.0" : "\t%" PRIu64,
			r->total.samples[e]);
	fputc('\n', f);
}

/* ---- annotated layouts ---- */

#define CACHE_LINE 64

/* Samples per event of offsets within [lo, hi) of type t. */
static void sum_range(const struct type_row *t, uint64_t lo, uint64_t hi,
		      struct counts *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t j = 0; j < t->noffs; j++) {
		const struct offset_row *o = &t->offs[j];
		if (o->offset < 0 || (uint64_t)o->offset < lo ||
		    (uint64_t)o->offset >= hi)
			continue;
		for (int e = 0; e < NEV; e++) {
			c->samples[e] += o->c.samples[e];
			c->period[e] += o->c.period[e];
		}
	}
}

/* The samples a layout row stands for.  A member's are those inside it
 * but not in the holes and padding inside it (a union's member shorter
 * than the union, a nested struct's tail): an access there touched no
 * field of the member, and its hole or padding row shows it. */
static void row_counts(const struct type_row *t, const struct dt_layout *l,
		       size_t i, struct counts *c)
{
	const struct dt_layout_row *row = &l->rows[i];
	uint64_t lo = row->offset, hi = lo + (row->size ? row->size : 1);

	sum_range(t, lo, hi, c);
	if (row->kind != DT_LAYOUT_MEMBER)
		return;
	for (size_t j = 0; j < l->n; j++) {
		const struct dt_layout_row *g = &l->rows[j];
		struct counts gap;
		if ((g->kind != DT_LAYOUT_HOLE && g->kind != DT_LAYOUT_PADDING) ||
		    g->offset < lo || g->offset + g->size > hi)
			continue;
		sum_range(t, g->offset, g->offset + g->size, &gap);
		for (int e = 0; e < NEV; e++) {
			c->samples[e] -= gap.samples[e];
			c->period[e] -= gap.period[e];
		}
	}
}

static void annotate_one_human(FILE *f, const struct dt_report *r,
			       const struct type_row *t,
			       const struct dt_layout *l)
{
	uint64_t lines = (l->size + CACHE_LINE - 1) / CACHE_LINE;

	fprintf(f, "\nAnnotate type: '%s' (%" PRIu64 " bytes, %" PRIu64
		" cache line%s)\n", t->name, l->size, lines, lines == 1 ? "" : "s");
	for (int e = 0; e < nevents(r); e++)
		fprintf(f, "# %s: %" PRIu64 " samples, %.1f%% of all\n",
			event_name(r, e), t->c.samples[e],
			pct(t->c.samples[e], r->total.samples[e]));
	fputs("#", f);
	for (int e = 0; e < nevents(r); e++)
		fputs("  Samples   Share", f);
	fputs("  Offset   Size  Field\n", f);

	uint64_t next_line = CACHE_LINE;
	for (size_t i = 0; i < l->n; i++) {
		const struct dt_layout_row *row = &l->rows[i];
		while (row->offset >= next_line && i > 0) {
			fprintf(f, "# %s cache line %" PRIu64 " (offset %" PRIu64 ") %s\n",
				"----------", next_line / CACHE_LINE, next_line,
				"----------");
			next_line += CACHE_LINE;
		}
		struct counts c;
		row_counts(t, l, i, &c);
		fputc(' ', f);
		for (int e = 0; e < nevents(r); e++) {
			if ((row->kind == DT_LAYOUT_HOLE || row->kind == DT_LAYOUT_PADDING) &&
			    !c.samples[e])
				fprintf(f, " %8s %7s", "", "");
			else
				fprintf(f, " %8" PRIu64 " %6.1f%%", c.samples[e],
					pct(c.samples[e], t->c.samples[e]));
		}
		fprintf(f, " %7" PRIu64 " %6" PRIu64 "  %*s", row->offset, row->size,
			(int)(row->depth * 4), "");
		bool straddles = row->size && row->offset / CACHE_LINE !=
				 (row->offset + row->size - 1) / CACHE_LINE;
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
	}
}

static void annotate_one_tsv(FILE *f, const struct dt_report *r,
			     const struct type_row *t, const struct dt_layout *l)
{
	static const char *const kinds[] = { "type", "member", "hole", "padding" };

	for (size_t i = 0; i < l->n; i++) {
		const struct dt_layout_row *row = &l->rows[i];
		struct counts c;
		row_counts(t, l, i, &c);
		fprintf(f, "%s\t%" PRIu64 "\t%" PRIu64 "\t%u\t%s\t%s\t%s\t%" PRIu64,
			t->name, row->offset, row->size, row->depth, kinds[row->kind],
			row->kind == DT_LAYOUT_TYPE ? t->name : row->name, row->type,
			row->offset / CACHE_LINE);
		print_counts_tsv(f, r, &c);
		fputc('\n', f);
	}
}

static void annotate_one_json(FILE *f, const struct dt_report *r,
			      const struct type_row *t, const struct dt_layout *l)
{
	static const char *const kinds[] = { "type", "member", "hole", "padding" };

	fputs("{\"type\":", f);
	json_string(f, t->name);
	fprintf(f, ",\"size\":%" PRIu64 ",\"rows\":[", l->size);
	for (size_t i = 0; i < l->n; i++) {
		const struct dt_layout_row *row = &l->rows[i];
		struct counts c;
		row_counts(t, l, i, &c);
		fprintf(f, "%s{\"offset\":%" PRIu64 ",\"size\":%" PRIu64
			",\"depth\":%u,\"kind\":\"%s\",\"name\":", i ? "," : "",
			row->offset, row->size, row->depth, kinds[row->kind]);
		json_string(f, row->kind == DT_LAYOUT_TYPE ? t->name : row->name);
		fputs(",\"member_type\":", f);
		json_string(f, row->type);
		fprintf(f, ",\"cache_line\":%" PRIu64, row->offset / CACHE_LINE);
		print_counts_json(f, r, &c);
		fputc('}', f);
	}
	fputs("]}\n", f);
}

static int annotate(FILE *f, const struct dt_report *r, struct type_row **v,
		    const struct dt_table_opts *o)
{
	bool found = false;

	if (o->format == DT_FORMAT_PERF)
		print_header(f, r);
	if (o->format == DT_FORMAT_TSV) {
		fputs("type\toffset\tsize\tdepth\tkind\tname\tmember_type\tcache_line", f);
		tsv_event_header(f, r);
	}
	for (size_t i = 0; i < r->ntypes; i++) {
		const struct type_row *t = v[i];
		const struct dt_layout *l;
		if (o->type && strcmp(o->type, t->name))
			continue;
		if (!t->session || dt_layout_get(t->session, t->type_id, &l))
			continue;	/* pseudo types, base types without DWARF */
		found = true;
		switch (o->format) {
		case DT_FORMAT_TSV:
			annotate_one_tsv(f, r, t, l);
			break;
		case DT_FORMAT_JSON:
			annotate_one_json(f, r, t, l);
			break;
		case DT_FORMAT_PERF:
			annotate_one_human(f, r, t, l);
			break;
		}
	}
	if (!found && o->type && o->format == DT_FORMAT_PERF)
		fprintf(f, "\nNo samples of type '%s'.\n", o->type);
	return 0;
}

int dt_report_print(FILE *f, const struct dt_report *r, enum dt_table t,
		    const struct dt_table_opts *opts)
{
	struct dt_table_opts o = { .format = DT_FORMAT_PERF };
	struct type_row **v;
	int err;

	if (opts)
		o = *opts;
	v = sorted_types(r);
	if (!v)
		return -ENOMEM;
	err = check_totals(f, r);
	switch (t) {
	case DT_TABLE_TYPES:
		if (o.format == DT_FORMAT_TSV)
			types_tsv(f, r, v);
		else if (o.format == DT_FORMAT_JSON)
			types_json(f, r, v);
		else
			types_human(f, r, v);
		break;
	case DT_TABLE_ANNOTATE:
		annotate(f, r, v, &o);
		break;
	case DT_TABLE_STAT:
		stat_table(f, r, o.format);
		break;
	}
	free(v);
	return err;
}
