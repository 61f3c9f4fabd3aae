// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Everything that prints answers, for every front end: the per-line
 * formats (tsv, perf, json) and the per-reason counters.  Front ends
 * never format an answer themselves.
 */
#include <inttypes.h>
#include <string.h>

#include "dtprof.h"

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

void dt_stat_add(struct dt_stat *st, const struct dt_answer *ans)
{
	if (ans->reason == DT_OK)
		st->resolved++;
	else if (ans->reason < DT_REASON_COUNT)
		st->by_reason[ans->reason]++;
}

uint64_t dt_stat_total(const struct dt_stat *st)
{
	uint64_t t = st->resolved;

	for (int r = 0; r < DT_REASON_COUNT; r++)
		t += st->by_reason[r];
	return t;
}

void dt_stat_print(FILE *f, const struct dt_stat *st)
{
	uint64_t total = dt_stat_total(st);

	fprintf(f, "# reason\tcount\tpercent\n");
	fprintf(f, "resolved\t%" PRIu64 "\t%.1f\n", st->resolved,
		total ? 100.0 * (double)st->resolved / (double)total : 0.0);
	for (int r = 1; r < DT_REASON_COUNT; r++)
		if (st->by_reason[r])
			fprintf(f, "%s\t%" PRIu64 "\t%.1f\n",
				dt_reason_str((enum dt_reason)r),
				st->by_reason[r],
				100.0 * (double)st->by_reason[r] / (double)total);
	fprintf(f, "total\t%" PRIu64 "\n", total);
}
