// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Tables read back: the tsv types table either front end prints
 * (dtplugin format=tsv, dtresolve --aggregate --format=tsv) summed into a
 * report (merging runs and machines), and two reports compared field by
 * field (perf diff's idea, for data types).
 */
#define _GNU_SOURCE	/* qsort_r */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../arrays.h"
#include "report.h"

/* The types table's columns (report.c prints them; dtplugin(1) documents
 * them as a stable schema). */
enum col {
	C_EVENT, C_TYPE, C_OFFSET, C_FIELD, C_SAMPLES, C_PERIOD, C_LOADS,
	C_STORES, C_RMW, C_WEIGHT, C_WEIGHED, C_LEVEL0,
	C_BUILD_ID = C_LEVEL0 + DT_LVL_COUNT, C_DSO, C_TYPE_ID, C_BY_ADDRESS,
	C_COUNT
};

static int split_tabs(char *line, char **col, int max)
{
	int n = 0;

	col[n++] = line;
	for (char *p = line; *p && n < max; p++)
		if (*p == '\t') {
			*p = '\0';
			col[n++] = p + 1;
		}
	return n;
}

static bool number(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !*end && !errno;
}

static size_t parse_build_id(const char *hex, uint8_t *id, size_t max)
{
	size_t n = 0;

	while (hex[0] && hex[1] && n < max) {
		unsigned b;
		if (sscanf(hex, "%2x", &b) != 1)
			return 0;
		id[n++] = (uint8_t)b;
		hex += 2;
	}
	return hex[0] ? 0 : n;
}

static void add_row_counts(struct counts *c, int ev, const uint64_t *v)
{
	c->samples[ev] += v[C_SAMPLES];
	c->period[ev] += v[C_PERIOD];
	c->loads[ev] += v[C_LOADS];
	c->stores[ev] += v[C_STORES];
	c->rmw[ev] += v[C_RMW];
	c->weight[ev] += v[C_WEIGHT];
	c->weighed[ev] += v[C_WEIGHED];
	c->by_addr[ev] += v[C_BY_ADDRESS];
	for (int l = 0; l < DT_LVL_COUNT; l++)
		c->level[ev][l] += v[C_LEVEL0 + l];
}

/* s when it is safe to print, else its escaped copy (malloc'd); NULL
 * when out of memory. */
static char *safe_copy(char *s)
{
	if (dt_text_is_safe(s))
		return s;
	size_t n = dt_text_escape(s, NULL, 0);
	char *e = malloc(n + 1);
	if (e)
		dt_text_escape(s, e, n + 1);
	return e;
}

/* Whether adding row v to c (event ev) would pass 2^64 - 1 in any
 * column: every row adds to r->total, the largest sum, so checking it
 * covers the type and offset rows too. */
static bool row_overflows(const struct counts *c, int ev, const uint64_t *v)
{
	uint64_t sum;
	bool over = __builtin_add_overflow(c->samples[ev], v[C_SAMPLES], &sum) ||
		    __builtin_add_overflow(c->period[ev], v[C_PERIOD], &sum) ||
		    __builtin_add_overflow(c->loads[ev], v[C_LOADS], &sum) ||
		    __builtin_add_overflow(c->stores[ev], v[C_STORES], &sum) ||
		    __builtin_add_overflow(c->rmw[ev], v[C_RMW], &sum) ||
		    __builtin_add_overflow(c->weight[ev], v[C_WEIGHT], &sum) ||
		    __builtin_add_overflow(c->weighed[ev], v[C_WEIGHED], &sum);

	for (int l = 0; l < DT_LVL_COUNT && !over; l++)
		over = __builtin_add_overflow(c->level[ev][l], v[C_LEVEL0 + l], &sum);
	return over;
}

/* One data row into r: 0, -EINVAL (not of the schema), -EOVERFLOW (a sum
 * would pass 64 bits: nothing of the row added) or -ENOMEM. */
static int add_row(struct dt_report *r, char **col, struct dt_dsos *dsos)
{
	uint64_t v[C_COUNT] = { 0 };
	int64_t offset = 0;
	char *end;

	for (int k = C_SAMPLES; k < C_BUILD_ID; k++)
		if (!number(col[k], &v[k]))
			return -EINVAL;
	if (!number(col[C_BY_ADDRESS], &v[C_BY_ADDRESS]) || v[C_BY_ADDRESS] > v[C_SAMPLES])
		return -EINVAL;
	if (v[C_LOADS] > v[C_SAMPLES] || v[C_STORES] > v[C_SAMPLES] ||
	    v[C_RMW] > v[C_LOADS] || v[C_RMW] > v[C_STORES])
		return -EINVAL;
	int ev = dt_report_event(r, col[C_EVENT]);
	if (row_overflows(&r->total, ev, v))
		return -EOVERFLOW;
	if (r->nev <= ev)
		r->nev = ev + 1;
	r->any_weight |= v[C_WEIGHED] != 0;
	for (int l = 0; l < DT_LVL_COUNT; l++)
		r->any_level |= v[C_LEVEL0 + l] != 0;
	if (!strcmp(col[C_TYPE], DT_TYPE_UNKNOWN)) {
		int reason = dt_reason_from_str(col[C_FIELD]);
		if (reason <= 0 || col[C_OFFSET][0])
			return -EINVAL;
		add_row_counts(&r->by_reason[reason], ev, v);
		add_row_counts(&r->total, ev, v);
		return 0;
	}
	errno = 0;
	offset = strtoll(col[C_OFFSET], &end, 10);
	if (!col[C_OFFSET][0] || *end || errno || !col[C_TYPE][0])
		return -EINVAL;

	/* the binary, when it is here and the same build: layouts */
	struct dt_session *s = NULL;
	uint64_t type_id = 0;
	uint8_t id[64];
	size_t id_len = parse_build_id(col[C_BUILD_ID], id, sizeof(id));
	if (dsos && col[C_DSO][0] && number(col[C_TYPE_ID], &type_id) && type_id) {
		enum dt_reason why;
		s = dt_dsos_get(dsos, col[C_DSO], id_len ? id : NULL, id_len, &why);
	}
	/* a table is a file anyone may have written: its names made safe
	 * to print, as the front ends' own are */
	char *type = safe_copy(col[C_TYPE]), *field = safe_copy(col[C_FIELD]);
	size_t ti, oi;
	struct type_row *t = type && field ? report_type_row(r, type, s, &ti) : NULL;
	struct offset_row *o = t ? report_offset_row(t, offset, field, &oi) : NULL;
	if (type != col[C_TYPE])
		free(type);
	if (field != col[C_FIELD])
		free(field);
	if (!o)
		return -ENOMEM;
	if (s && !t->type_id)
		t->type_id = type_id;
	add_row_counts(&o->c, ev, v);
	add_row_counts(&t->c, ev, v);
	add_row_counts(&r->total, ev, v);
	return 0;
}

int dt_report_read_tsv(struct dt_report *r, FILE *in, struct dt_dsos *dsos,
		       unsigned long *bad_line, unsigned long *nbad)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned long no = 0;
	int err = 0;
	bool header = false;

	*bad_line = *nbad = 0;
	while ((len = getline(&line, &cap, in)) > 0) {
		char *col[C_COUNT + 1];
		no++;
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (len && line[len - 1] == '\r')	/* a table from Windows */
			line[--len] = '\0';
		if (!len || line[0] == '#')
			continue;
		int n = split_tabs(line, col, C_COUNT + 1);
		if (!header) {
			/* the header names the schema: refuse any other table */
			if (n < C_TYPE_ID || strcmp(col[C_EVENT], "event") ||
			    strcmp(col[C_TYPE], "type") || strcmp(col[C_FIELD], "field") ||
			    strcmp(col[C_SAMPLES], "samples")) {
				*bad_line = no;
				*nbad = 1;
				err = -EINVAL;
				break;
			}
			header = true;
			continue;
		}
		if (n == C_TYPE_ID)
			col[n++] = "";		/* a table without type ids */
		if (n == C_BY_ADDRESS)
			col[n++] = "0";		/* nor samples typed by address */
		int e = n == C_COUNT ? add_row(r, col, dsos) : -EINVAL;
		if (e == -ENOMEM || e == -EOVERFLOW) {
			*bad_line = no;
			*nbad = 1;
			err = e;
			break;
		}
		if (e) {
			if (!*bad_line)
				*bad_line = no;
			++*nbad;
			err = -EINVAL;
		}
	}
	if (!err && !header && ferror(in))
		err = -EIO;
	else if (!err && !header) {
		*bad_line = no ? no : 1;
		*nbad = 1;
		err = -EINVAL;		/* empty: not a table */
	}
	free(line);
	return err;
}

/* ---- diff ---- */

/* One type, or one field of a type, on both sides. */
struct diff_row {
	const char *type;
	char key[256];			/* field, or "+OFFSET" without one;
					 * "" for the type's own row */
	size_t type_row;		/* index of the type's own row */
	double weight;			/* the larger of the two shares */
	uint64_t n[2];			/* samples before, after */
	int64_t offset[2], line[2];	/* of the first row seen */
	bool seen[2];
};

struct diff {
	struct diff_row *rows;
	size_t n, cap;
	uint32_t *slot;			/* rows by (type, key): arrays.h */
	size_t slots;
};

static uint64_t diff_hash(const char *type, const char *key)
{
	return hash_mix(hash_str(type), hash_bytes(key, strnlen(key, 255), HASH_SEED));
}

static struct diff_row *diff_row_get(struct diff *d, const char *type,
				     const char *key)
{
	/* keys are kept cut to the row's 255 bytes: compared the same way */
	uint64_t h = diff_hash(type, key);
	uint32_t k = INDEX_FIND(d->slot, d->slots, h, i,
				!strcmp(d->rows[i].type, type) &&
				!strncmp(d->rows[i].key, key, sizeof(d->rows[i].key) - 1));

	if (k)
		return &d->rows[k - 1];
	if (INDEX_READY(d->slot, d->slots, d->n, i,
			diff_hash(d->rows[i].type, d->rows[i].key)) ||
	    GROW(d->rows, d->cap, d->n, 64))
		return NULL;
	struct diff_row *row = &d->rows[d->n++];
	memset(row, 0, sizeof(*row));
	row->type = type;
	snprintf(row->key, sizeof(row->key), "%s", key);
	d->slot[INDEX_FREE(d->slot, d->slots, h)] = (uint32_t)d->n;
	return row;
}

static int diff_side(struct diff *d, const struct dt_report *r, int ev, int side)
{
	for (size_t i = 0; i < r->ntypes; i++) {
		const struct type_row *t = &r->types[i];
		struct diff_row *tr = diff_row_get(d, t->name, "");
		if (!tr)
			return -ENOMEM;
		size_t type_row = (size_t)(tr - d->rows);
		tr->type_row = type_row;
		tr->n[side] += t->c.samples[ev];
		tr->seen[side] = true;
		for (size_t j = 0; j < t->noffs; j++) {
			const struct offset_row *o = &t->offs[j];
			char key[64];
			if (!o->c.samples[ev])
				continue;
			if (!o->field[0])
				snprintf(key, sizeof(key), "+%" PRId64, o->offset);
			struct diff_row *fr = diff_row_get(d, t->name, o->field[0] ? o->field : key);
			if (!fr)
				return -ENOMEM;
			fr->type_row = type_row;
			if (!fr->seen[side]) {
				fr->offset[side] = o->offset;
				fr->line[side] = type_line_of(t, o->offset);
			}
			fr->n[side] += o->c.samples[ev];
			fr->seen[side] = true;
		}
	}
	return 0;
}

static double share(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0.0;
}

/* Types by their larger share, each followed by its fields, the same
 * way (qsort_r's argument: the rows). */
static int cmp_diff(const void *x, const void *y, void *rows)
{
	const struct diff_row *a = *(const struct diff_row *const *)x;
	const struct diff_row *b = *(const struct diff_row *const *)y;
	const struct diff_row *ta = (struct diff_row *)rows + a->type_row;
	const struct diff_row *tb = (struct diff_row *)rows + b->type_row;

	if (ta != tb) {
		if (ta->weight != tb->weight)
			return ta->weight > tb->weight ? -1 : 1;
		return ta < tb ? -1 : 1;
	}
	if (!a->key[0] != !b->key[0])
		return a->key[0] ? 1 : -1;	/* the type's row first */
	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	return strcmp(a->key, b->key);
}

/* One row of the diff in tsv (empty offset and line on a side that has
 * none) or json (no such member then). */
static void diff_row_out(struct out *o, const char *evname, const struct diff_row *r,
			 double sa, double sb)
{
	static const char *const side[2][2] = {
		{ "offset_before", "line_before" }, { "offset_after", "line_after" },
	};
	char delta[32];

	if (out_json(o)) {
		out_object(o, NULL);
		out_str(o, "event", evname);
		out_str(o, "type", r->type);
		out_str(o, "field", r->key);
		for (int k = 0; k < 2; k++)
			if (r->key[0] && r->seen[k]) {
				out_i64(o, side[k][0], r->offset[k]);
				out_i64(o, side[k][1], r->line[k]);
			}
		out_u64(o, "samples_before", r->n[0]);
		out_u64(o, "samples_after", r->n[1]);
		out_double(o, "share_before", sa, 4);
		out_double(o, "share_after", sb, 4);
		out_double(o, "delta", sb - sa, 4);
		out_end(o);
		return;
	}
	out_cell(o, evname);
	out_cell(o, r->type);
	out_cell(o, r->key);
	for (int k = 0; k < 2; k++) {
		if (r->key[0] && r->seen[k]) {
			out_cell_i64(o, r->offset[k]);
			out_cell_i64(o, r->line[k]);
		} else {
			out_cell(o, "");
			out_cell(o, "");
		}
	}
	out_cell_u64(o, r->n[0]);
	out_cell_u64(o, r->n[1]);
	out_cell_double(o, sa, 4);
	out_cell_double(o, sb, 4);
	snprintf(delta, sizeof(delta), "%+.4f", sb - sa);
	out_cell(o, delta);
	out_row_end(o);
}

/* One row of the diff for people. */
static void diff_row_text(FILE *f, const struct diff_row *r, double sa, double sb)
{
	char where[64] = "";

	if (r->key[0]) {
		char oa[24] = "-", ob[24] = "-", la[24] = "-", lb[24] = "-";
		if (r->seen[0]) {
			snprintf(oa, sizeof(oa), "%" PRId64, r->offset[0]);
			snprintf(la, sizeof(la), "%" PRId64, r->line[0]);
		}
		if (r->seen[1]) {
			snprintf(ob, sizeof(ob), "%" PRId64, r->offset[1]);
			snprintf(lb, sizeof(lb), "%" PRId64, r->line[1]);
		}
		snprintf(where, sizeof(where), "%6s -> %-6s  %3s -> %-3s", oa, ob, la, lb);
	}
	fprintf(f, " %7.2f%% %7.2f%% %+8.2f%%  %-28s  ", sa, sb, sb - sa, where);
	if (!r->key[0])
		fprintf(f, "%s\n", r->type);
	else if (r->key[0] == '+')
		fprintf(f, "    %s %s (no field)\n", r->type, r->key);
	else
		fprintf(f, "    %s (%s)\n", r->type, r->key);
}

static void print_diff_event(struct out *o, const struct dt_report *a,
			     const struct dt_report *b, int ea, int eb,
			     const char *name_a, const char *name_b, struct diff *d)
{
	uint64_t total[2] = { a->total.samples[ea], b->total.samples[eb] };
	const char *evname = b->events[eb][0] ? b->events[eb] : "samples";
	const struct diff_row **v = calloc(d->n + 1, sizeof(*v));
	FILE *f = o->f;

	if (!v) {
		out_comment(o, "ERROR: out of memory for the diff");
		return;
	}
	for (size_t i = 0; i < d->n; i++) {
		struct diff_row *r = &d->rows[i];
		double sa = share(r->n[0], total[0]), sb = share(r->n[1], total[1]);
		r->weight = sa > sb ? sa : sb;
		v[i] = r;
	}
	qsort_r(v, d->n, sizeof(*v), cmp_diff, d->rows);

	if (out_text(o)) {
		fprintf(f, "# dtprof diff, event '%s': before '%s' %" PRIu64
			" samples, after '%s' %" PRIu64 " samples\n#\n", evname,
			name_a, total[0], name_b, total[1]);
		fputs("#  Before    After     Delta   Offset  (before -> after)   Line  Data Type (field)\n", f);
	}
	for (size_t i = 0; i < d->n; i++) {
		const struct diff_row *r = v[i];
		double sa = share(r->n[0], total[0]), sb = share(r->n[1], total[1]);
		if (out_text(o))
			diff_row_text(f, r, sa, sb);
		else
			diff_row_out(o, evname, r, sa, sb);
	}
	free(v);
}

int dt_report_print_diff(FILE *f, const struct dt_report *a,
			 const struct dt_report *b, const char *name_a,
			 const char *name_b, const struct dt_table_opts *opts)
{
	static const char *const cols[] = {
		"event", "type", "field", "offset_before", "line_before",
		"offset_after", "line_after", "samples_before", "samples_after",
		"share_before", "share_after", "delta", NULL
	};
	struct dt_table_opts o;
	struct out out;
	bool any = false;

	if (!sized_in(&o, sizeof(o), opts))
		return -EINVAL;
	if (!opts)
		o.format = DT_FORMAT_PERF;
	out_init(&out, f, o.format);
	if (out_tsv(&out)) {
		out_header(&out, cols);
	} else if (out_json(&out)) {
		out_object(&out, NULL);
		out_array(&out, "diff");
	}
	for (int eb = 0; eb < (b->nev ? b->nev : 1); eb++) {
		int ea = -1;
		for (int e = 0; e < a->nev; e++)
			if (a->events[e][0] && b->events[eb][0] && !strcmp(a->events[e], b->events[eb]))
				ea = e;
		if (ea < 0 && a->nev <= 1 && b->nev <= 1)
			ea = 0;		/* one event each: compare them */
		if (ea < 0)
			continue;
		struct diff d = { 0 };
		if (diff_side(&d, a, ea, 0) || diff_side(&d, b, eb, 1)) {
			free(d.rows);
			free(d.slot);
			return -ENOMEM;
		}
		print_diff_event(&out, a, b, ea, eb, name_a, name_b, &d);
		free(d.rows);
		free(d.slot);
		any = true;
	}
	if (out_json(&out)) {
		out_end(&out);
		out_end(&out);
	}
	return any ? 0 : -ENOENT;
}
