// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The objects view: allocation sites, hottest first (samples whose data
 * address lay in their blocks), each with the type it proves (or why it
 * proves none: then only its function and line), its blocks' sizes,
 * how many were allocated, freed and live at once, and how many samples
 * its blocks typed.  What heap.c keeps from dtprof-record's events.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define SITES_SHOWN 50		/* in the text form; tsv and json: all */

static int cmp_site(const void *x, const void *y)
{
	const struct heap_site *a = *(const struct heap_site *const *)x;
	const struct heap_site *b = *(const struct heap_site *const *)y;

	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	if (a->allocs != b->allocs)
		return a->allocs > b->allocs ? -1 : 1;
	return a->pc < b->pc ? -1 : a->pc > b->pc;
}

/* Where site t is: "function+0xOFF", its source line, its binary. */
struct where {
	char fn[256];
	const char *file;
	unsigned line;
	const char *dso;
};

static void where_of(const struct heap_site *t, struct where *w)
{
	const char *name = NULL;
	uint64_t start = 0, size = 0;

	w->file = "";
	w->line = 0;
	w->dso = t->s ? dt_session_path(t->s) : t->dso ? t->dso : "";
	if (t->s && !dt_session_symbol_at(t->s, t->pc, &name, &start, &size) && name)
		snprintf(w->fn, sizeof(w->fn), "%s+%#" PRIx64, name, t->pc - start);
	else if (!t->s && t->sym)	/* no binary: the name perf gave */
		snprintf(w->fn, sizeof(w->fn), "%s+%#" PRIx64, t->sym, t->pc);
	else
		snprintf(w->fn, sizeof(w->fn), "%#" PRIx64, t->pc);
	if (t->s && dt_session_srcline(t->s, t->pc, &w->file, &w->line))
		w->file = "";
}

static const char *type_of(const struct heap_site *t)
{
	return t->type.reason == DT_OK ? t->type.type : "";
}

static void site_tsv(struct out *o, const struct heap_site *t, const struct where *w)
{
	out_cell(o, type_of(t));
	out_cell(o, t->type.reason == DT_OK ? "" : dt_reason_str(t->type.reason));
	out_cell(o, t->type.var);
	out_cell(o, w->fn);
	out_cell(o, w->file);
	out_cell_u64(o, w->line);
	out_cell(o, w->dso);
	out_cell_u64(o, t->allocs);
	out_cell_u64(o, t->frees);
	out_cell_u64(o, t->live);
	out_cell_u64(o, t->max_live);
	out_cell_u64(o, t->min_size);
	out_cell_u64(o, t->max_size);
	out_cell_u64(o, t->bytes);
	out_cell_u64(o, t->samples);
	out_cell_u64(o, t->typed_samples);
	out_cell_u64(o, t->contradicted);
	out_row_end(o);
}

static void site_json(struct out *o, const struct heap_site *t, const struct where *w)
{
	out_object(o, NULL);
	out_str(o, "type", type_of(t));
	if (t->type.reason != DT_OK)
		out_str(o, "untyped", dt_reason_str(t->type.reason));
	out_str(o, "var", t->type.var);
	out_str(o, "function", w->fn);
	out_str(o, "file", w->file);
	out_u64(o, "line", w->line);
	out_str(o, "dso", w->dso);
	out_u64(o, "allocs", t->allocs);
	out_u64(o, "frees", t->frees);
	out_u64(o, "live", t->live);
	out_u64(o, "max_live", t->max_live);
	out_u64(o, "min_size", t->min_size);
	out_u64(o, "max_size", t->max_size);
	out_u64(o, "bytes", t->bytes);
	out_u64(o, "samples", t->samples);
	out_u64(o, "by_address", t->typed_samples);
	out_u64(o, "contradicted", t->contradicted);
	out_end(o);
}

static void site_text(struct out *o, const struct heap_site *t, const struct where *w)
{
	char type[320], size[48];
	const char *base = strrchr(w->file, '/');

	if (t->type.reason == DT_OK)
		snprintf(type, sizeof(type), "%s%s%s%s", t->type.type,
			 t->type.var[0] ? " (" : "", t->type.var, t->type.var[0] ? ")" : "");
	else
		snprintf(type, sizeof(type), "untyped (%s)", dt_reason_str(t->type.reason));
	if (t->min_size == t->max_size)
		snprintf(size, sizeof(size), "%" PRIu64, t->min_size);
	else
		snprintf(size, sizeof(size), "%" PRIu64 "..%" PRIu64, t->min_size, t->max_size);
	out_printf(o, " %9" PRIu64 " %9" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64
		   "  %-14s  ", t->samples, t->typed_samples, t->allocs, t->live,
		   t->max_live, size);
	dt_text_put(o->f, type);
	out_printf(o, "  ");
	dt_text_put(o->f, w->fn);
	if (w->line) {
		out_printf(o, " ");
		dt_text_put(o->f, base ? base + 1 : w->file);
		out_printf(o, ":%u", w->line);
	}
	out_printf(o, "\n");
}

int heap_print(struct out *o, const struct dt_report *r, struct type_row **v,
	       const struct dt_table_opts *opts)
{
	static const char *const cols[] = {
		"type", "untyped", "var", "function", "file", "line", "dso", "allocs",
		"frees", "live", "max_live", "min_size", "max_size", "bytes",
		"samples", "by_address", "contradicted", NULL
	};
	size_t n;
	const struct heap_site *sites = heap_sites(r->heap, &n);
	const struct heap_site **order = calloc(n ? n : 1, sizeof(*order));
	struct heap_totals tot;

	(void)v;
	(void)opts;
	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		order[i] = &sites[i];
	if (n > 1)
		qsort(order, n, sizeof(*order), cmp_site);
	heap_totals(r->heap, &tot);
	if (out_json(o)) {
		out_object(o, NULL);
		out_u64(o, "allocator_events", tot.events);
		out_u64(o, "unmatched", tot.unmatched);
		out_u64(o, "freed_unseen", tot.stale);
		out_u64(o, "refused", tot.refused);
		out_u64(o, "by_address", tot.by_address);
		out_u64(o, "agreed", tot.agreed);
		out_u64(o, "contradicted", tot.contradicted);
		out_array(o, "sites");
	} else if (out_tsv(o)) {
		out_header(o, cols);
	} else {
		out_comment(o, "dtprof: heap blocks by allocation site");
		out_comment_blank(o);
		if (!r->heap) {
			out_comment(o, "no allocator events: record with dtprof-record "
				    "(uprobes on malloc and the like) to see them");
			free(order);
			return 0;
		}
		out_comment(o, "%" PRIu64 " allocator events, %" PRIu64 " blocks at %zu sites, %"
			    PRIu64 " live at the end", tot.events, tot.allocs, n, tot.live);
		if (tot.unmatched || tot.stale || tot.refused)
			out_comment(o, "%" PRIu64 " frees and returns of blocks not seen allocated "
				    "(before the recording), %" PRIu64 " blocks freed unseen (a newer "
				    "one overlapped them), %" PRIu64 " not followed (past the address "
				    "space)", tot.unmatched, tot.stale, tot.refused);
		out_comment(o, "%" PRIu64 " samples had a data address in a block, %" PRIu64
			    " of them typed by it (by address)", tot.in_blocks, tot.by_address);
		out_comment(o, "in blocks of typed sites, typed by their instruction: %" PRIu64
			    " as what the block holds there, %" PRIu64 " as what it cannot hold",
			    tot.agreed, tot.contradicted);
		out_comment(o, "a site proves a type only by the variable its pointer goes to");
		out_comment_blank(o);
		out_printf(o, "#   Samples  ByAddr   Allocs     Live  MaxLive  Size            "
			   "Type (variable)  Site\n");
	}
	for (size_t i = 0; i < n; i++) {
		struct where w;
		if (out_text(o) && (i == SITES_SHOWN || !order[i]->samples) && i) {
			out_comment(o, "%zu sites more (tsv or json: all)", n - i);
			break;
		}
		where_of(order[i], &w);
		if (out_tsv(o))
			site_tsv(o, order[i], &w);
		else if (out_json(o))
			site_json(o, order[i], &w);
		else
			site_text(o, order[i], &w);
	}
	if (out_json(o)) {
		out_end(o);
		out_end(o);
	}
	free(order);
	return 0;
}
