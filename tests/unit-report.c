// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * dt_report_reasons_only(), what `dtresolve --stat` without --aggregate
 * counts in: resolved samples in one row, no type or offset rows kept,
 * and the reasons table the same, its totals adding up.  Beside it, a
 * report that keeps types, fed the same answers.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../resolver/dtprof.h"
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
	return done_testing();
}
