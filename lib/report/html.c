// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The HTML report: one self-contained page (no network, no external
 * script or font) with the sortable type table, each hot struct drawn
 * by cache line as 64 byte cells coloured by heat (holes and padding
 * hatched, sharing flags on the line), the advice beside it, and the
 * code view of the hottest functions.  Everything printed comes from the
 * same tables as the text views: their printers write into the page.
 */
#define _GNU_SOURCE	/* open_memstream */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define HTML_TYPES 8		/* structs drawn */
#define HTML_LINES 64		/* cache lines drawn per struct */
#define HTML_FUNCTIONS 3	/* code views */
#define TABLE_ROWS 10		/* type rows shown before "show all" */

/* text as HTML, control bytes and bytes that are not UTF-8 as \xHH */
static void esc_line(FILE *f, const char *text, size_t len)
{
	char small[512], *s = small, *safe = NULL;
	char *copy = strndup(text, len);
	size_t n;

	if (!copy)
		return;
	n = dt_text_escape(copy, small, sizeof(small));
	if (n >= sizeof(small) && (safe = malloc(n + 1))) {
		dt_text_escape(copy, safe, n + 1);
		s = safe;
	}
	for (; *s; s++)
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	free(safe);
	free(copy);
}

/* text as HTML; its newlines and tabs kept (a <pre>'s layout) */
static void esc(FILE *f, const char *text)
{
	while (*text) {
		size_t n = strcspn(text, "\n\t");
		if (n)
			esc_line(f, text, n);
		text += n;
		if (*text)
			fputc(*text++, f);
	}
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* What a text printer writes, escaped into a <pre>. */
typedef int print_fn(FILE *f, const void *arg);

static void pre_of(FILE *f, const char *cls, print_fn *fn, const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m) {
		fputs("<p class=\"err\">out of memory</p>\n", f);
		return;
	}
	fn(m, arg);
	fclose(m);
	fprintf(f, "<pre class=\"%s\">", cls);
	esc(f, buf ? buf : "");
	fputs("</pre>\n", f);
	free(buf);
}

static const char style[] =
"body{font:14px/1.4 sans-serif;margin:1.5em;color:#222}"
"h1{font-size:1.4em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}"
"table{border-collapse:collapse}td,th{padding:2px 8px;text-align:right}"
"td:first-child,th:first-child{text-align:left}"
"th{cursor:pointer;background:#eee;user-select:none}th.asc::after{content:' \\25B2'}"
"tr.more{display:none}table.open tr.more{display:table-row}"
"th.desc::after{content:' \\25BC'}tr:nth-child(even){background:#f7f7f7}"
".pair{display:flex;gap:2em;align-items:flex-start}.map{flex:0 0 auto}"
".line{margin:.6em 0}.lh{font-weight:bold;font-size:.9em}"
".flag{color:#b00}.bytes{display:grid;grid-template-columns:repeat(64,10px);"
"gap:1px;margin:3px 0}.bytes i{height:18px;display:block;border-radius:1px}"
".bytes i.hole{background:repeating-linear-gradient(45deg,#ddd 0 2px,#fff 2px 4px)}"
".bytes i.store{box-shadow:inset 0 -4px #2255cc}.bytes i.first{outline:1px solid #555}"
".members td{font-size:.85em}pre{background:#f6f6f6;padding:.6em;overflow:auto;"
"font-size:12px}.adv{flex:1 1 30em;min-width:0}.adv pre{white-space:pre-wrap}"
".fold{color:#888;font-size:.9em;font-style:italic}"
".legend i{display:inline-block;width:10px;"
"height:14px;margin:0 3px 0 10px;vertical-align:middle}";

/* Sorting by a column click; #selftest sorts the type table by samples
 * and checks the order, for the headless-browser test. */
static const char script[] =
"function sortTable(th){var t=th.closest('table'),b=t.tBodies[0],i=th.cellIndex,"
"asc=!th.classList.contains('asc');Array.prototype.forEach.call(th.parentNode.cells,"
"function(c){c.classList.remove('asc','desc')});th.classList.add(asc?'asc':'desc');"
"var rows=Array.prototype.slice.call(b.rows);rows.sort(function(x,y){"
"var a=x.cells[i].dataset.v||x.cells[i].textContent,"
"c=y.cells[i].dataset.v||y.cells[i].textContent,na=parseFloat(a),nc=parseFloat(c);"
"var r=isNaN(na)||isNaN(nc)?a.localeCompare(c):na-nc;return asc?r:-r});"
"rows.forEach(function(r){b.appendChild(r)})}"
"document.querySelectorAll('table.sortable th').forEach(function(th){"
"th.addEventListener('click',function(){sortTable(th)})});"
"if(location.hash==='#selftest'){var th=document.querySelector('#types th[data-num]');"
"sortTable(th);var v=Array.prototype.map.call(document.querySelectorAll('#types tbody tr'),"
"function(r){return parseFloat(r.cells[th.cellIndex].dataset.v)});"
"var ok=v.every(function(x,k){return !k||v[k-1]<=x});"
"document.body.dataset.selftest=ok&&v.length?'pass':'fail';"
"var cs=document.querySelectorAll('.heat i[data-s]'),before=Array.prototype.map.call(cs,"
"function(c){return c.style.background});setScale(true);"
"var changed=Array.prototype.some.call(cs,function(c,k){return c.style.background!==before[k]});"
"setScale(false);document.body.dataset.scale=changed||!cs.length?'pass':'fail'}"
"function setScale(lin){document.querySelectorAll('.heat').forEach(function(m){"
"var hot=parseFloat(m.dataset.hot)||1;m.querySelectorAll('i[data-s]').forEach(function(c){"
"var s=parseFloat(c.dataset.s),h=lin?s/hot:Math.log1p(s)/Math.log1p(hot);"
"c.style.background=s?'hsl(10,85%,'+(92-Math.floor(h*47))+'%)':'hsl(210,85%,94%)'})})}"
"document.querySelectorAll('input[name=scale]').forEach(function(b){"
"b.addEventListener('change',function(){setScale(b.value==='linear')})});"
"document.body.dataset.ok='1';";

static void type_table(FILE *f, const struct dt_report *r, struct type_row **v,
		       const int *drawn)
{
	fputs("<h2>Types</h2>\n<table id=\"types\" class=\"sortable\"><thead><tr>"
	      "<th>Type</th><th data-num>Samples</th><th data-num>Share</th>"
	      "<th data-num>Loads</th><th data-num>Stores</th>", f);
	if (r->any_weight)
		fputs("<th data-num>Mean weight</th>", f);
	fputs("</tr></thead><tbody>\n", f);
	for (size_t i = 0; i < r->ntypes; i++) {
		const struct type_row *t = v[i];
		const struct counts *c = &t->c;
		fprintf(f, "<tr%s><td>", i >= TABLE_ROWS ? " class=\"more\"" : "");
		if (drawn[i] >= 0)
			fprintf(f, "<a href=\"#t%d\">", drawn[i]);
		esc(f, t->name);
		fprintf(f, "%s</td><td data-v=\"%" PRIu64 "\">%" PRIu64 "</td>"
			"<td data-v=\"%.4f\">%.2f%%</td><td data-v=\"%" PRIu64 "\">%"
			PRIu64 "</td><td data-v=\"%" PRIu64 "\">%" PRIu64 "</td>",
			drawn[i] >= 0 ? "</a>" : "", c->samples[0], c->samples[0],
			share(c->samples[0], r->total.samples[0]),
			share(c->samples[0], r->total.samples[0]), c->loads[0],
			c->loads[0], c->stores[0], c->stores[0]);
		if (r->any_weight) {
			double w = c->weighed[0] ? (double)c->weight[0] / (double)c->weighed[0] : 0;
			fprintf(f, "<td data-v=\"%.1f\">%.1f</td>", w, w);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	if (r->ntypes > TABLE_ROWS)
		fprintf(f, "<button id=\"all\" onclick=\"document.getElementById('types')"
			".classList.toggle('open')\">show or hide all %zu types</button>\n",
			r->ntypes);
}

/* The layout row drawn at byte off: the deepest member holding it, else
 * the hole or padding there; SIZE_MAX when none (past the end). */
static size_t row_at(const struct dt_layout *l, uint64_t off)
{
	size_t best = SIZE_MAX;

	for (size_t i = 1; i < l->n; i++) {
		const struct dt_layout_row *row = &l->rows[i];
		if (off < row->offset || off >= row->offset + (row->size ? row->size : 1))
			continue;
		if (best == SIZE_MAX || row->depth >= l->rows[best].depth)
			best = i;
	}
	return best;
}

/* What a layout row stands for, of the first event: the samples, loads
 * and stores report_row_counts() gives, computed once per row, and its
 * member path ("link.next": the names of the rows enclosing it). */
struct row_heat {
	uint64_t samples, loads, stores;
	char path[256];
};

/* Row i's member path from the names above it (rows come in layout
 * order: a member's enclosing rows are the last ones at each depth). */
static void row_path(const struct dt_layout *l, size_t i, const size_t *last,
		     char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned d = 1; d <= l->rows[i].depth && n < len; d++) {
		const char *name = d == l->rows[i].depth ? l->rows[i].name :
				   l->rows[last[d]].name;
		if (!*name)
			continue;	/* an anonymous member adds no name */
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "." : "", name);
	}
}

static struct row_heat *rows_heat(const struct type_row *t,
				  const struct dt_layout *l)
{
	struct row_heat *h = calloc(l->n, sizeof(*h));
	size_t last[64] = { 0 };	/* per depth, the last row there */
	struct counts c;

	for (size_t i = 0; h && i < l->n; i++) {
		report_row_counts(t, l, i, &c);
		h[i].samples = c.samples[0];
		h[i].loads = c.loads[0];
		h[i].stores = c.stores[0];
		if (l->rows[i].depth < 64) {
			last[l->rows[i].depth] = i;
			row_path(l, i, last, h[i].path, sizeof(h[i].path));
		}
	}
	return h;
}

/* After the last bitfield of a storage unit: its bytes' samples whose
 * bits could not be told apart (each bitfield's row has only its own). */
static void bits_row(FILE *f, const struct type_row *t, const struct dt_layout *l,
		     size_t last)
{
	const struct dt_layout_row *row = &l->rows[last];
	const char *which;
	struct counts c;

	if (!report_bitfield_run_undecided(t, l, last, &c, &which))
		return;
	fputs("<tr><td><i>bits not told apart: ", f);
	esc(f, which);
	fprintf(f, "</i></td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%" PRIu64
		"</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td></tr>\n", row->offset,
		row->size, c.samples[0], c.loads[0], c.stores[0]);
}

/* A run of cache lines without samples, folded into one line. */
static void folded(FILE *f, uint64_t from, uint64_t to)
{
	if (from == to)
		return;
	fprintf(f, "<div class=\"line fold\">cache line%s %" PRIu64, to - from > 1 ? "s" : "",
		from);
	if (to - from > 1)
		fprintf(f, "..%" PRIu64, to - 1);
	fputs(": no samples</div>\n", f);
}

static void heat_map(FILE *f, const struct dt_report *r,
		     const struct sharing_view *sv, const struct type_row *t,
		     const struct dt_layout *l)
{
	unsigned phase = type_line_phase(t);
	uint64_t lines = (l->size + phase + CACHE_LINE - 1) / CACHE_LINE;
	uint64_t hottest = 1, drawn = 0, empty_from = 0;
	/* a big struct's lines without samples are folded, so its hot
	 * lines are not lost among the empty ones */
	bool fold = lines > 4;
	struct row_heat *h = rows_heat(t, l);
	struct counts c;

	if (!h) {
		fputs("<p class=\"err\">out of memory for the heat map</p>\n", f);
		return;
	}
	for (size_t i = 1; i < l->n; i++)
		if (l->rows[i].kind == DT_LAYOUT_MEMBER && h[i].samples > hottest)
			hottest = h[i].samples;
	fprintf(f, "<div class=\"heat\" data-hot=\"%" PRIu64 "\">\n", hottest);
	for (uint64_t n = 0; n < lines && drawn < HTML_LINES; n++) {
		int64_t lo = (int64_t)(n * CACHE_LINE) - (int64_t)phase;
		const char *flag, *evidence;
		unsigned tids = sharing_view_line(sv, (uint32_t)(t - r->types),
						  (int64_t)n, &flag, &evidence);
		report_sum_range(t, lo < 0 ? 0 : (uint64_t)lo, (uint64_t)(lo + CACHE_LINE), &c);
		if (fold && !c.samples[0] && !*flag)
			continue;
		folded(f, empty_from, n);
		empty_from = n + 1;
		drawn++;
		fprintf(f, "<div class=\"line\"><div class=\"lh\">cache line %" PRIu64
			" (offset %" PRId64 "): %" PRIu64 " samples, %" PRIu64 " loads, %"
			PRIu64 " stores", n, lo < 0 ? 0 : lo, c.samples[0], c.loads[0],
			c.stores[0]);
		if (tids)
			fprintf(f, "; %u thread%s", tids, tids == 1 ? "" : "s");
		if (*flag)
			fprintf(f, ": <span class=\"flag\">%s, %s</span>", flag, evidence);
		fputs("</div>\n<div class=\"bytes\">", f);
		for (int64_t b = lo; b < lo + CACHE_LINE; b++) {
			size_t i = b < 0 ? SIZE_MAX : row_at(l, (uint64_t)b);
			const struct dt_layout_row *row = i == SIZE_MAX ? NULL : &l->rows[i];
			if (!row || row->kind != DT_LAYOUT_MEMBER) {
				fprintf(f, "<i class=\"hole\" title=\"+%" PRId64 ": %s\"></i>",
					b, !row ? "outside the struct" :
					row->kind == DT_LAYOUT_HOLE ? "hole" : "padding");
				continue;
			}
			/* a log scale by default: a field with a twentieth of
			 * the hottest one's samples still shows (the page's
			 * scale switch redraws from data-s) */
			double heat = log1p((double)h[i].samples) / log1p((double)hottest);
			bool first = (uint64_t)b == row->offset;	/* the field starts */
			fprintf(f, "<i class=\"%s%s\" data-s=\"%" PRIu64 "\" style=\"background:"
				"hsl(%d,85%%,%d%%)\" title=\"+%" PRId64 " ", h[i].stores ? "store" : "",
				first ? " first" : "", h[i].samples, h[i].samples ? 10 : 210,
				h[i].samples ? 92 - (int)(heat * 47) : 94, b);
			esc(f, h[i].path[0] ? h[i].path : "(anonymous)");
			fprintf(f, ": %" PRIu64 " samples, %" PRIu64 " loads, %" PRIu64
				" stores\"></i>", h[i].samples, h[i].loads, h[i].stores);
		}
		fputs("</div>\n<table class=\"members\"><tr><th>Field</th><th>Offset</th>"
		      "<th>Size</th><th>Samples</th><th>Loads</th><th>Stores</th></tr>\n", f);
		for (size_t i = 1; i < l->n; i++) {
			const struct dt_layout_row *row = &l->rows[i];
			if (type_line_of(t, (int64_t)row->offset) != (int64_t)n ||
			    (fold && !h[i].samples && row->kind == DT_LAYOUT_MEMBER &&
			     row->size >= CACHE_LINE))
				continue;	/* a member as big as a line shows
						 * in the lines it has samples in */
			fprintf(f, "<tr><td>%*s", (int)(row->depth - 1) * 2, "");
			if (row->kind == DT_LAYOUT_MEMBER)
				esc(f, h[i].path[0] ? h[i].path : "(anonymous)");
			else
				fputs(row->kind == DT_LAYOUT_HOLE ? "<i>hole</i>" : "<i>padding</i>", f);
			fprintf(f, "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%" PRIu64
				"</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td></tr>\n",
				row->offset, row->size, h[i].samples, h[i].loads, h[i].stores);
			bits_row(f, t, l, i);
		}
		fputs("</table></div>\n", f);
	}
	folded(f, empty_from, drawn < HTML_LINES ? lines : empty_from);
	if (drawn == HTML_LINES && empty_from < lines)
		fprintf(f, "<p>cache lines %" PRIu64 "..%" PRIu64 " not drawn (at most %d"
			" lines with samples a struct).</p>\n", empty_from, lines - 1, HTML_LINES);
	fputs("</div>\n", f);
	free(h);
}

struct advice_arg {
	const struct dt_report *r;
	const struct sharing_view *sv;
	const struct type_row *t;
};

static int print_advice(FILE *f, const void *arg)
{
	const struct advice_arg *a = arg;
	struct out o;

	out_init(&o, f, DT_FORMAT_PERF);
	return advise_type(&o, a->r, a->sv, a->t);
}

struct code_arg {
	const struct dt_report *r;
	const struct hot_function *fn;
	const char *source_dirs;
};

static int print_code(FILE *f, const void *arg)
{
	const struct code_arg *a = arg;
	struct out o;

	/* the page is meant to be shared: only the program's own sources */
	out_init(&o, f, DT_FORMAT_PERF);
	codeview_print_function(&o, a->r, a->fn, true, a->source_dirs);
	return 0;
}

int html_print(struct out *o, const struct dt_report *r, struct type_row **v,
	       const char *source_dirs)
{
	FILE *f = o->f;	/* a page of its own, whatever the format */
	struct sharing_view *sv = r->sharing ? sharing_view_new(r) : NULL;
	int *drawn = calloc(r->ntypes ? r->ntypes : 1, sizeof(*drawn));
	const struct dt_layout *layouts[HTML_TYPES];
	size_t ndrawn = 0;

	if (!drawn) {
		sharing_view_free(sv);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->ntypes; i++) {
		const struct type_row *t = v[i];
		const struct dt_layout *l;
		drawn[i] = -1;
		if (ndrawn < HTML_TYPES && t->session && t->type_id &&
		    t->name[0] != '(' && !dt_layout_get(t->session, t->type_id, &l) &&
		    l->n > 1 && l->size) {
			layouts[ndrawn] = l;
			drawn[i] = (int)ndrawn++;
		}
	}
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<title>dtprof: data-type profile</title>\n<style>%s</style></head>\n"
		"<body>\n<h1>dtprof: data-type profile</h1>\n", style);
	for (int e = 0; e < (r->nev ? r->nev : 1); e++) {
		uint64_t n = r->total.samples[e];
		fputs("<p>event '", f);
		esc(f, report_event_name(r, e));
		fprintf(f, "': %" PRIu64 " samples, %.1f%% resolved to a type, %" PRIu64
			" loads, %" PRIu64 " stores</p>\n", n,
			share(n - report_unresolved(r, e), n), r->total.loads[e],
			r->total.stores[e]);
	}
	if (r->nev > 1)
		fputs("<p>Tables and heat maps show the first event.</p>\n", f);
	type_table(f, r, v, drawn);
	fputs("<p class=\"legend\">Heat maps: one cell per byte, redder is hotter; scale "
	      "<label><input type=\"radio\" name=\"scale\" value=\"log\" checked>log</label> "
	      "<label><input type=\"radio\" name=\"scale\" value=\"linear\">linear</label>"
	      "<i style=\"background:hsl(10,85%,45%)\"></i>hottest field"
	      "<i style=\"background:hsl(210,85%,94%)\"></i>no samples"
	      "<i class=\"store\" style=\"background:#fff;box-shadow:inset 0 -4px #2255cc\"></i>"
	      "stored to<i style=\"background:repeating-linear-gradient(45deg,#ddd 0 2px,#fff 2px 4px)\">"
	      "</i>hole or padding. Each line's fields and counts are listed below it (a"
	      " cell's, on hover); lines without samples are folded.</p>\n", f);
	for (size_t i = 0, k = 0; i < r->ntypes; i++) {
		if (drawn[i] < 0)
			continue;
		const struct type_row *t = v[i];
		const struct dt_layout *l = layouts[k++];
		struct advice_arg aa = { r, sv, t };
		fprintf(f, "<section id=\"t%d\"><h2>", drawn[i]);
		esc(f, t->name);
		fprintf(f, "</h2>\n<p>%" PRIu64 " bytes, %" PRIu64 " samples (%.1f%% of all),"
			" %" PRIu64 " loads, %" PRIu64 " stores</p>\n<div class=\"pair\">"
			"<div class=\"map\">\n", l->size, t->c.samples[0],
			share(t->c.samples[0], r->total.samples[0]), t->c.loads[0],
			t->c.stores[0]);
		heat_map(f, r, sv, t, l);
		fputs("</div><div class=\"adv\"><h3>Advice</h3>\n", f);
		pre_of(f, "advice", print_advice, &aa);
		fputs("</div></div></section>\n", f);
	}
	struct hot_function hot[HTML_FUNCTIONS];
	size_t nhot = codeview_hot_functions(r, hot, HTML_FUNCTIONS);
	if (nhot)
		fputs("<h2>Code</h2>\n", f);
	for (size_t i = 0; i < nhot; i++) {
		struct code_arg ca = { r, &hot[i], source_dirs };
		fputs("<h3>", f);
		esc(f, hot[i].name);
		fprintf(f, " <small>(%" PRIu64 " sample%s)</small></h3>\n", hot[i].samples,
			hot[i].samples == 1 ? "" : "s");
		pre_of(f, "code", print_code, &ca);
	}
	fprintf(f, "<script>%s</script>\n</body></html>\n", script);
	free(drawn);
	sharing_view_free(sv);
	return 0;
}
