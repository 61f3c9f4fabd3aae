// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * dt_report_reasons_only(), what `dtresolve --stat` without --aggregate
 * counts in: resolved samples in one row, no type or offset rows kept,
 * and the reasons table the same, its totals adding up.  Beside it, a
 * report that keeps types, fed the same answers.  Then the plugin's
 * shortcuts: dt_report_add_many() counts as that many dt_report_add()s,
 * and dt_report_no_threads() leaves every table but sharing as it was.
 * And the recording hint a suspected flag prints: a command a shell runs
 * as printed, whatever the type's name holds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/dtprof.h"
#include "../lib/report/report.h"
#include <stddef.h>
#include <errno.h>
#include "tap.h"

/* A table of r as text (freed by the caller). */
static char *print(const struct dt_report *r, enum dt_table t, int *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*err = dt_report_print(f, r, t, NULL);
	fclose(f);
	return buf;
}

static void feed(struct dt_report *r)
{
	struct dt_answer hit, miss;
	int ev = dt_report_event(r, "lines");

	dt_answer_miss(&miss, 0x1000, DT_NO_VAR);
	dt_answer_miss(&hit, 0x1004, DT_OK);
	hit.type = "struct point";
	hit.offset = 8;
	hit.field = "y";
	for (int i = 0; i < 3; i++)
		dt_report_add(r, ev, NULL, &hit, 1);
	dt_report_add(r, ev, NULL, &miss, 1);
}

/* Every table of r, one after the other. */
static char *all_tables(const struct dt_report *r)
{
	static const enum dt_table tables[] = {
		DT_TABLE_TYPES, DT_TABLE_ANNOTATE, DT_TABLE_STAT, DT_TABLE_SHARING,
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		struct dt_table_opts o = { .sz = sizeof(o), .format = DT_FORMAT_TSV };
		dt_report_print(f, r, tables[i], &o);
	}
	fclose(f);
	return buf;
}

/* Samples one at a time against the same as sums, each answer's first
 * sample alone (as the plugin does: the rows come in the same order). */
static void many_against_one_by_one(void)
{
	struct dt_report *one, *many;
	struct dt_answer a[3];
	const unsigned n[3] = { 5, 1, 1000 };
	const uint64_t period = 7;

	if (!ok(!dt_report_new(&one) && !dt_report_new(&many), "two more reports"))
		return;
	dt_answer_miss(&a[0], 0x2000, DT_OK);
	a[0].type = "struct q";
	a[0].offset = 16;
	a[0].field = "next";
	a[0].access = DT_ACCESS_RMW;
	dt_answer_miss(&a[1], 0x2004, DT_NO_VAR);
	a[2] = a[0];
	a[2].offset = 0;
	a[2].field = "head";
	a[2].access = DT_ACCESS_LOAD;
	int e1 = dt_report_event(one, "cpu-clock"), e2 = dt_report_event(many, "cpu-clock");
	for (int i = 0; i < 3; i++) {
		for (unsigned k = 0; k < n[i]; k++)
			dt_report_add(one, e1, NULL, &a[i], period);
		dt_report_add(many, e2, NULL, &a[i], period);
		is_int(dt_report_add_many(many, e2, NULL, &a[i], n[i] - 1,
					  (n[i] - 1) * period), 0, "sums added");
	}
	is_int(dt_report_add_many(many, e2, NULL, &a[1], 0, 0), 0, "none is nothing");
	is_int((int)dt_report_samples(many, -1), 1006, "1,006 samples");
	char *t1 = all_tables(one), *t2 = all_tables(many);
	is_str(t2, t1, "every table as one sample at a time");
	free(t1);
	free(t2);
	dt_report_free(one);
	dt_report_free(many);
}

/* Samples of threads one at a time against the same as alike sums
 * (each thread's first sample at an answer alone, as the plugin's
 * tallies are): every table the same, the sharing table's threads and
 * CPUs too; and a sample with an address is not summed. */
static void alike_against_one_by_one(void)
{
	struct dt_report *one, *alike;
	struct dt_answer a;
	const int32_t tids[3] = { 11, 12, 11 };
	const int32_t cpus[3] = { 0, 1, 1 };
	const unsigned n[3] = { 4, 9, 2 };

	if (!ok(!dt_report_new(&one) && !dt_report_new(&alike), "two reports of threads"))
		return;
	dt_answer_miss(&a, 0x2100, DT_OK);
	a.type = "struct q";
	a.offset = 8;
	a.field = "count";
	a.access = DT_ACCESS_STORE;
	a.type_id = 0;
	int e1 = dt_report_event(one, "cpu-clock"), e2 = dt_report_event(alike, "cpu-clock");
	for (int i = 0; i < 3; i++) {
		struct dt_sample smp = { .sz = sizeof(smp), .period = 3, .pid = 10,
					 .tid = tids[i], .cpu = cpus[i],
					 .has = DT_SAMPLE_PID | DT_SAMPLE_TID | DT_SAMPLE_CPU };
		for (unsigned k = 0; k < n[i]; k++)
			dt_report_add_sample(one, e1, NULL, &a, &smp);
		dt_report_add_sample(alike, e2, NULL, &a, &smp);
		smp.period = 3 * (n[i] - 1);
		is_int(dt_report_add_alike(alike, e2, NULL, &a, &smp, n[i] - 1), 0,
		       "thread %d's later samples added alike", (int)tids[i]);
	}
	char *t1 = all_tables(one), *t2 = all_tables(alike);
	is_str(t2, t1, "every table as one sample at a time, threads and CPUs too");
	ok(strstr(t1, "\t11\t") && strstr(t1, "\t12\t"), "the sharing table shows both threads");
	free(t1);
	free(t2);
	struct dt_sample addr = { .sz = sizeof(addr), .period = 1, .addr = 0x1000,
				  .has = DT_SAMPLE_ADDR };
	is_int(dt_report_add_alike(alike, e2, NULL, &a, &addr, 2), -EINVAL,
	       "samples with an address are each their own");
	dt_report_free(one);
	dt_report_free(alike);
}

/* Threads are kept for the sharing table only. */
static void without_threads(void)
{
	struct dt_report *kept, *not_kept;
	struct dt_answer a;

	if (!ok(!dt_report_new(&kept) && !dt_report_new(&not_kept), "reports with and without threads"))
		return;
	dt_report_no_threads(not_kept);
	dt_answer_miss(&a, 0x3000, DT_OK);
	a.type = "struct q";
	a.offset = 8;
	a.field = "count";
	a.access = DT_ACCESS_STORE;
	for (int tid = 1; tid <= 2; tid++) {
		struct dt_sample s = { .sz = sizeof(s), .period = 1, .tid = tid,
				       .cpu = tid, .has = DT_SAMPLE_TID | DT_SAMPLE_CPU };
		dt_report_add_sample(kept, 0, NULL, &a, &s);
		dt_report_add_sample(not_kept, 0, NULL, &a, &s);
	}
	struct dt_table_opts o = { .sz = sizeof(o), .format = DT_FORMAT_TSV };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	dt_report_print(f, kept, DT_TABLE_SHARING, &o);
	fclose(f);
	ok(strstr(buf, "struct q\t0\t8\tcount\t2\t") != NULL, "kept: thread 2 of struct q's line");
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	dt_report_print(f, not_kept, DT_TABLE_SHARING, &o);
	fclose(f);
	ok(!strstr(buf, "struct q"), "not kept: no row");
	free(buf);
	int err;
	char *t1 = print(kept, DT_TABLE_TYPES, &err), *t2 = print(not_kept, DT_TABLE_TYPES, &err);
	is_str(t2, t1, "the types table the same");
	is_int(err, 0, "its totals add up");
	free(t1);
	free(t2);
	dt_report_free(kept);
	dt_report_free(not_kept);
}

/* Samples kept per instruction (the code view), each charged to the
 * instruction before it, highest address first: every sample's charged
 * row is new, so the rows grow while the sample's own row is held.  Small
 * blocks allocated between the samples keep the rows from growing in
 * place.  Each row must end with its sample and its charge. */
static void pcs_growing(void)
{
	enum { N = 800 };
	struct dt_report *r;
	static int session_key;		/* the code view only compares it */
	struct dt_session *s = (struct dt_session *)&session_key;
	void *spacers[N];
	unsigned wrong = 0;

	if (!ok(!dt_report_new(&r) && !dt_report_keep_pcs(r), "a report keeping pcs"))
		return;
	for (unsigned i = 0; i < N; i++) {
		struct dt_answer a;
		dt_answer_miss(&a, 0x10000 - 4 * i, DT_OK);
		a.access_pc = a.pc - 4;
		a.type = "struct q";
		a.field = "x";
		dt_report_add(r, 0, s, &a, 1);
		spacers[i] = malloc(64);
	}
	for (unsigned i = 1; i < N; i++) {
		uint64_t samples, charged;
		if (!codeview_counts(r, 0, s, 0x10000 - 4 * i, &samples, &charged) ||
		    samples != 1 || charged != 1)
			wrong++;
	}
	is_int((int)wrong, 0, "799 rows of one sample and one charge each");
	for (unsigned i = 0; i < N; i++)
		free(spacers[i]);
	dt_report_free(r);
}

/* The hint's dtresolve line quotes the table as one shell word: run
 * through sh, it gives the name back. */
static void hint_quoted(void)
{
	static const char name[] = "advise=struct foo<'a'> $(x) \"q\"";
	char *buf = NULL, cmd[1024], got[256] = "";
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	report_confirm_hint(f, "# ", name);
	fclose(f);
	const char *at = strstr(buf, "--aggregate=");
	const char *end = at ? strchr(at, '\n') : NULL;
	if (!ok(at && end, "the hint names dtresolve --aggregate=")) {
		free(buf);
		return;
	}
	snprintf(cmd, sizeof(cmd), "printf %%s %.*s", (int)(end - at), at);
	FILE *p = popen(cmd, "r");
	if (p) {
		if (!fgets(got, sizeof(got), p))
			got[0] = '\0';
		pclose(p);
	}
	is_str(got, "--aggregate=advise=struct foo<'a'> $(x) \"q\"",
	       "a quote in the name survives the shell");
	free(buf);
}

/* Structs a caller sizes (sz): one from an older header, shorter, is
 * read as far as it goes; one from a newer header, longer, only with a
 * zero tail. */
static void sized_structs(void)
{
	struct dt_report *r;
	struct dt_answer a;
	struct { struct dt_sample s; uint64_t newer; } big;
	struct { struct dt_table_opts o; uint64_t newer; } bigo;

	if (!ok(!dt_report_new(&r), "a report for sized structs"))
		return;
	dt_answer_miss(&a, 0x4000, DT_OK);
	a.type = "struct q";
	a.offset = 8;
	a.field = "count";
	/* an older header's sample: up to pid, without time and addr_why */
	struct dt_sample old = { .sz = offsetof(struct dt_sample, time), .period = 3,
				 .tid = 5, .has = DT_SAMPLE_TID | DT_SAMPLE_TIME,
				 .time = 12345 };
	is_int(dt_report_add_sample(r, 0, NULL, &a, &old), 0, "an older, shorter sample: counted");
	memset(&big, 0, sizeof(big));
	big.s = (struct dt_sample){ .sz = sizeof(big), .period = 1 };
	is_int(dt_report_add_sample(r, 0, NULL, &a, &big.s), 0,
	       "a newer, longer sample with a zero tail: counted");
	big.newer = 1;
	is_int(dt_report_add_sample(r, 0, NULL, &a, &big.s), -EINVAL,
	       "a newer sample with a field this library does not know: refused");
	is_int((int)dt_report_samples(r, -1), 2, "two samples counted");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct dt_table_opts older = { .sz = offsetof(struct dt_table_opts, sort),
				       .format = DT_FORMAT_TSV, .sort = 99 };
	is_int(dt_report_print(f, r, DT_TABLE_TYPES, &older), 0,
	       "an older, shorter table opts: printed (its sort left out)");
	memset(&bigo, 0, sizeof(bigo));
	bigo.o = (struct dt_table_opts){ .sz = sizeof(bigo), .format = DT_FORMAT_TSV };
	bigo.newer = 7;
	is_int(dt_report_print(f, r, DT_TABLE_TYPES, &bigo.o), -EINVAL,
	       "a newer table opts with an unknown field set: refused");
	struct dt_table_opts forgot = { .format = DT_FORMAT_TSV };
	is_int(dt_report_print(f, r, DT_TABLE_TYPES, &forgot), -EINVAL,
	       "table opts whose .sz was forgotten: refused");
	struct dt_sample no_sz = { .period = 1 };
	is_int(dt_report_add_sample(r, 0, NULL, &a, &no_sz), -EINVAL,
	       "a sample whose .sz was forgotten: refused");
	fclose(f);
	ok(buf && strstr(buf, "struct q\t") && strstr(buf, "\t4\t"),
	   "the types table counts period 3 + 1");
	free(buf);
	dt_report_free(r);
}

/* The views, by name, in both directions; a table out of range is refused. */
static void view_names(void)
{
	static const struct { const char *name; enum dt_table t; enum dt_view_arg a; } want[] = {
		{ "report", DT_TABLE_TYPES, DT_VIEW_ARG_NONE },
		{ "annotate", DT_TABLE_ANNOTATE, DT_VIEW_ARG_TYPE },
		{ "sharing", DT_TABLE_SHARING, DT_VIEW_ARG_TYPE },
		{ "code", DT_TABLE_CODE, DT_VIEW_ARG_SYMBOL },
		{ "advise", DT_TABLE_ADVISE, DT_VIEW_ARG_TYPE },
		{ "stat", DT_TABLE_STAT, DT_VIEW_ARG_NONE },
		{ "objects", DT_TABLE_OBJECTS, DT_VIEW_ARG_NONE },
		{ "html", DT_TABLE_HTML, DT_VIEW_ARG_NONE },
	};
	struct dt_report *r;
	enum dt_view_arg a;

	is_int(sizeof(want) / sizeof(want[0]), DT_TABLE_COUNT, "every table has a view");
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		a = (enum dt_view_arg)-1;
		is_int(dt_table_from_str(want[i].name, strlen(want[i].name), &a), want[i].t,
		       "view %s", want[i].name);
		is_int(a, want[i].a, "view %s: its argument", want[i].name);
		is_str(dt_table_str(want[i].t), want[i].name, "table %d's name", want[i].t);
	}
	is_int(dt_table_from_str("annotated", 9, &a), -1, "no view 'annotated'");
	is_int(dt_table_from_str("annotate=x", 8, &a), DT_TABLE_ANNOTATE, "a name's length is its own");
	is_str(dt_table_str(DT_TABLE_COUNT), "", "no name past the last");
	if (!ok(!dt_report_new(&r), "a report for the views"))
		return;
	is_int(dt_report_print(stdout, r, DT_TABLE_COUNT, NULL), -EINVAL, "no such table: -EINVAL");
	dt_report_free(r);
}

int main(void)
{
	struct dt_report *counted, *typed;
	int err;

	if (!ok(!dt_report_new(&counted) && !dt_report_new(&typed), "two reports"))
		return done_testing();
	dt_report_reasons_only(counted);
	feed(counted);
	feed(typed);

	char *stat = print(counted, DT_TABLE_STAT, &err);
	char *stat_typed = print(typed, DT_TABLE_STAT, &err);
	is_str(stat, stat_typed, "the same reasons table");
	ok(strstr(stat, "resolved\t3\t75.0\n") && strstr(stat, "no_var\t1\t25.0\n") &&
	   strstr(stat, "total\t4\t100.0\n"), "3 resolved, 1 no_var, 4 in all");
	is_int(err, 0, "totals add up");
	free(stat);
	free(stat_typed);

	char *types = print(counted, DT_TABLE_TYPES, &err);
	ok(!strstr(types, "struct point"), "no type row kept");
	ok(!strstr(types, "ERROR"), "and its table says nothing is amiss");
	is_int(err, 0, "totals add up there too");
	free(types);
	types = print(typed, DT_TABLE_TYPES, &err);
	ok(strstr(types, "struct point +8 (y)") != NULL, "the other keeps struct point +8 (y)");
	free(types);
	dt_report_free(counted);
	dt_report_free(typed);
	many_against_one_by_one();
	alike_against_one_by_one();
	sized_structs();
	view_names();
	without_threads();
	pcs_growing();
	hint_quoted();
	return done_testing();
}
