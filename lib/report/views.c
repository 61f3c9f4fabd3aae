// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The views of a report, in one table: the name both front ends take
 * (--aggregate=NAME, --dlarg NAME), what its argument names, whether its
 * text carries the totals check, and its printer.  A view is a file of
 * lib/report/ and a line here (doc/DESIGN.md); dt_report_print() and the
 * front ends' parsers read this table, nothing else.  Every printer
 * writes through one output layer (out.h), in the format asked.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static int print_sharing(struct out *o, const struct dt_report *r, struct type_row **v,
			 const struct dt_table_opts *opts)
{
	(void)v;
	sharing_print(o, r, opts);
	return 0;
}

static int print_code(struct out *o, const struct dt_report *r, struct type_row **v,
		      const struct dt_table_opts *opts)
{
	(void)v;
	codeview_print(o, r, opts->symbol ? opts->symbol : "", false, NULL);
	return 0;
}

static int print_html(struct out *o, const struct dt_report *r, struct type_row **v,
		      const struct dt_table_opts *opts)
{
	return html_print(o, r, v, opts->source_dirs);
}

static const struct view {
	const char *name;
	enum dt_view_arg arg;
	bool totals_said;	/* a text whose totals check is printed on it
				 * (not advise's C, not the HTML page: their
				 * front ends say it from the return value) */
	report_view_fn *print;
} views[DT_TABLE_COUNT] = {
	[DT_TABLE_TYPES] = { "report", DT_VIEW_ARG_NONE, true, report_print_types },
	[DT_TABLE_ANNOTATE] = { "annotate", DT_VIEW_ARG_TYPE, true, report_print_annotate },
	[DT_TABLE_STAT] = { "stat", DT_VIEW_ARG_NONE, true, report_print_stat },
	[DT_TABLE_OBJECTS] = { "objects", DT_VIEW_ARG_NONE, false, heap_print },
	[DT_TABLE_SHARING] = { "sharing", DT_VIEW_ARG_TYPE, true, print_sharing },
	[DT_TABLE_ADVISE] = { "advise", DT_VIEW_ARG_TYPE, false, advise_print },
	[DT_TABLE_CODE] = { "code", DT_VIEW_ARG_SYMBOL, true, print_code },
	[DT_TABLE_HTML] = { "html", DT_VIEW_ARG_NONE, false, print_html },
};

int dt_table_from_str(const char *name, size_t len, enum dt_view_arg *arg)
{
	for (int t = 0; t < DT_TABLE_COUNT; t++)
		if (views[t].name && strlen(views[t].name) == len &&
		    !strncmp(views[t].name, name, len)) {
			if (arg)
				*arg = views[t].arg;
			return t;
		}
	return -1;
}

const char *dt_table_str(enum dt_table t)
{
	return (unsigned)t < DT_TABLE_COUNT && views[t].name ? views[t].name : "";
}

int dt_report_print(FILE *f, const struct dt_report *r, enum dt_table t,
		    const struct dt_table_opts *opts)
{
	struct dt_table_opts o;

	if (!sized_in(&o, sizeof(o), opts) || (unsigned)t >= DT_TABLE_COUNT ||
	    !views[t].print)
		return -EINVAL;
	if (!opts)
		o.format = DT_FORMAT_PERF;
	struct type_row **v = report_sorted_types(r, o.sort);
	if (!v)
		return -ENOMEM;
	struct out out;
	out_init(&out, f, o.format);
	int err = report_check_totals(views[t].totals_said ? f : NULL, r);
	if (views[t].print(&out, r, v, &o) == -ENOMEM && !err)
		err = -ENOMEM;
	free(v);
	return err;
}
