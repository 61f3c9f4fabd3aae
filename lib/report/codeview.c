// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The code view: a function's instructions with their source lines, the
 * samples taken at each, and for each memory access the type, offset,
 * field and kind it touches (perf annotate --code-with-type's idea).  A
 * sample that skid compensation moved to an earlier access is counted
 * where it was taken (Samples) and on the access it was charged to
 * (Charged), so both the profile and the attribution can be read.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../arrays.h"
#include "report.h"

struct pc_count {
	struct dt_session *s;
	uint64_t pc;
	uint64_t samples[NEV], charged[NEV];
	/* what the samples charged here were answered (advise's co-access
	 * reads it back): one type and offset, or several */
	uint64_t charged_type;
	int64_t charged_offset;
	enum { CHARGED_NONE, CHARGED_ONE, CHARGED_MIXED } charged_as;
};

struct pc_table {
	struct pc_count *v;
	size_t n, cap;
	struct dt_answer *resolved;	/* [i]: v[i].pc's, when charged
					 * with several answers
					 * (codeview_each_charged(); reason
					 * DT_REASON_COUNT: not asked yet) */
	size_t nresolved;
	uint32_t *index;		/* open addressing: v index + 1 */
	size_t index_size;
	uint64_t lost;			/* samples it had no memory for */
};

static size_t pc_hash(const struct dt_session *s, uint64_t pc)
{
	return (size_t)(((uintptr_t)s >> 4) * 0x9e3779b97f4a7c15ull ^ pc * 0xff51afd7ed558ccdull);
}

/* The row of (s, pc): its index + 1, 0 when none. */
static uint32_t pc_index(const struct pc_table *t, const struct dt_session *s,
			 uint64_t pc)
{
	return INDEX_FIND(t->index, t->index_size, pc_hash(s, pc), i,
			  t->v[i].s == s && t->v[i].pc == pc);
}

/* The row of (s, pc), NULL when none (or no table). */
static const struct pc_count *pc_find(const struct pc_table *t,
				      const struct dt_session *s, uint64_t pc)
{
	uint32_t k = t ? pc_index(t, s, pc) : 0;

	return k ? &t->v[k - 1] : NULL;
}

/* The row of (s, pc), added when new: its index + 1, 0 when out of
 * memory.  Adding may move the rows: keep indexes, not pointers. */
static uint32_t pc_get(struct pc_table *t, struct dt_session *s, uint64_t pc)
{
	if (INDEX_READY(t->index, t->index_size, t->n, i,
			pc_hash(t->v[i].s, t->v[i].pc)))
		return 0;
	uint32_t k = pc_index(t, s, pc);
	if (k)
		return k;
	if (t->n >= UINT32_MAX - 1 || GROW(t->v, t->cap, t->n, 256))
		return 0;
	t->index[INDEX_FREE(t->index, t->index_size, pc_hash(s, pc))] = (uint32_t)t->n + 1;
	t->v[t->n] = (struct pc_count){ .s = s, .pc = pc };
	return (uint32_t)++t->n;
}

int dt_report_keep_pcs(struct dt_report *r)
{
	if (!r->pcs && !(r->pcs = calloc(1, sizeof(*r->pcs))))
		return -ENOMEM;
	return 0;
}

void codeview_add(struct dt_report *r, int ev, struct dt_session *s,
		  const struct dt_answer *ans, uint64_t n)
{
	bool charged = ans->reason == DT_OK && ans->access_pc;
	uint32_t to = charged ? pc_get(r->pcs, s, ans->access_pc) : 0;
	uint32_t at = !charged || to ? pc_get(r->pcs, s, ans->pc) : 0;

	if (!at) {
		r->pcs->lost += n;
		return;
	}
	r->pcs->v[at - 1].samples[ev] += n;
	if (!charged)
		return;
	struct pc_count *c = &r->pcs->v[to - 1];
	c->charged[ev] += n;
	if (c->charged_as == CHARGED_NONE) {
		c->charged_as = CHARGED_ONE;
		c->charged_type = ans->type_id;
		c->charged_offset = ans->offset;
	} else if (c->charged_type != ans->type_id || c->charged_offset != ans->offset) {
		c->charged_as = CHARGED_MIXED;
	}
}

bool codeview_counts(const struct dt_report *r, int ev, const struct dt_session *s,
		     uint64_t pc, uint64_t *samples, uint64_t *charged)
{
	const struct pc_count *c = pc_find(r->pcs, s, pc);

	if (!c)
		return false;
	*samples = c->samples[ev];
	*charged = c->charged[ev];
	return true;
}

void codeview_each_charged(const struct dt_report *r, struct dt_session *s,
			   void (*fn)(void *arg, uint64_t pc, uint64_t charged,
				      const struct dt_answer *a),
			   void *arg)
{
	struct pc_table *t = r->pcs;

	if (!t)
		return;
	/* rows are only added while counting: once printing, n is final */
	if (t->nresolved != t->n) {
		struct dt_answer *v = realloc(t->resolved, t->n * sizeof(*v));
		if (v) {
			for (size_t i = t->nresolved; i < t->n; i++)
				v[i].reason = DT_REASON_COUNT;
			t->resolved = v;
			t->nresolved = t->n;
		}
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct pc_count *c = &t->v[i];
		if (c->s != s || !c->charged[0])
			continue;
		if (c->charged_as == CHARGED_ONE) {
			/* the answer its samples were charged with */
			struct dt_answer a = { .pc = c->pc, .access_pc = c->pc,
					       .reason = DT_OK, .type_id = c->charged_type,
					       .offset = c->charged_offset };
			fn(arg, c->pc, c->charged[0], &a);
			continue;
		}
		struct dt_answer one, *a = t->nresolved == t->n ? &t->resolved[i] : &one;
		if (a == &one || a->reason == DT_REASON_COUNT)
			dt_resolve_pc(s, c->pc, a);
		fn(arg, c->pc, c->charged[0], a);
	}
}

void codeview_free(struct pc_table *t)
{
	if (!t)
		return;
	free(t->v);
	free(t->index);
	free(t->resolved);
	free(t);
}

/* ---- printing ---- */

/* Lines of one source file, read once per print. */
struct source {
	const char *path;		/* interned: compared by pointer */
	char *text;
	char **line;
	size_t nlines;
	const char *why;		/* not read: why, said once a print */
	bool said;
};

/* The source files of one print, each read once: an inlined header's
 * lines alternate with the function's own.  A confined print (the HTML
 * page, meant to be shared) reads only files under the unit's
 * compilation directory or one of dirs. */
#define SOURCES 8
struct sources {
	struct source f[SOURCES];
	unsigned next;			/* the slot to reuse next */
	bool confined;
	const char *dirs;		/* ':'-separated, may be NULL */
};

/* A source file larger than this is not a source file. */
#define SOURCE_MAX (64u << 20)

/* Whether the real path of file lies under the real path of dir. */
static bool under_dir(const char *real_file, const char *dir, size_t dlen)
{
	char d[PATH_MAX], *real_dir;
	bool in;

	if (!dlen || dlen >= sizeof(d))
		return false;
	memcpy(d, dir, dlen);
	d[dlen] = '\0';
	if (!(real_dir = realpath(d, NULL)))
		return false;
	size_t n = strlen(real_dir);
	in = !strncmp(real_file, real_dir, n) &&
	     (real_file[n] == '/' || (n == 1 && real_dir[0] == '/'));
	free(real_dir);
	return in;
}

/* Why a confined print may not show path (NULL: it may): the file must
 * lie under the unit's compilation directory or a directory named. */
static const char *confined_why(const struct sources *c, const char *path,
				const char *comp_dir)
{
	char *real = realpath(path, NULL);
	bool in = false;

	if (!real)
		return "not found";
	in = comp_dir && under_dir(real, comp_dir, strlen(comp_dir));
	for (const char *d = c->dirs; !in && d && *d;) {
		const char *end = strchr(d, ':');
		size_t n = end ? (size_t)(end - d) : strlen(d);
		in = under_dir(real, d, n);
		d = end ? end + 1 : d + n;
	}
	free(real);
	return in ? NULL : "outside the unit's compilation directory and every "
		    "source-dir: its lines are not copied into a page meant to "
		    "be shared";
}

/* The text of path: a regular file only (a FIFO, a device or
 * /dev/stdin would block or never end), read whole. */
static const char *read_regular(const char *path, char **text)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	const char *why = NULL;

	*text = NULL;
	if (fd < 0)
		return "cannot be read";
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		why = "not a regular file";
	else if ((uint64_t)st.st_size > SOURCE_MAX)
		why = "larger than 64 MB";
	else if (!(*text = malloc((size_t)st.st_size + 1)))
		why = "out of memory";
	size_t len = 0;
	while (!why && len < (size_t)st.st_size) {
		ssize_t n = read(fd, *text + len, (size_t)st.st_size - len);
		if (n <= 0)
			break;		/* shrank meanwhile: what was read */
		len += (size_t)n;
	}
	close(fd);
	if (why) {
		free(*text);
		*text = NULL;
		return why;
	}
	(*text)[len] = '\0';
	return NULL;
}

static void source_read(const struct sources *c, struct source *src,
			const char *path, const char *comp_dir)
{
	size_t len;

	free(src->text);
	free(src->line);
	*src = (struct source){ .path = path };
	if (!*path)
		return;
	if (c->confined && (src->why = confined_why(c, path, comp_dir)))
		return;
	if ((src->why = read_regular(path, &src->text)))
		return;
	len = strlen(src->text);
	size_t n = 1;
	for (size_t i = 0; i < len; i++)
		n += src->text[i] == '\n';
	src->line = calloc(n, sizeof(*src->line));
	if (!src->line)
		return;
	for (char *p = src->text; p && src->nlines < n;) {
		src->line[src->nlines++] = p;
		p = strchr(p, '\n');
		if (p)
			*p++ = '\0';
	}
}

/* The file at path (an interned pointer), read at its first use. */
static struct source *source_get(struct sources *c, const char *path,
				 const char *comp_dir)
{
	for (unsigned i = 0; i < SOURCES; i++)
		if (c->f[i].path == path)
			return &c->f[i];
	struct source *src = &c->f[c->next++ % SOURCES];
	source_read(c, src, path, comp_dir);
	return src;
}

static void sources_free(struct sources *c)
{
	for (unsigned i = 0; i < SOURCES; i++) {
		free(c->f[i].text);
		free(c->f[i].line);
	}
}

static const char *source_text(const struct source *src, unsigned line)
{
	const char *t = line && line <= src->nlines ? src->line[line - 1] : "";

	while (*t == ' ' || *t == '\t')
		t++;
	return t;
}

static const char *access_word(enum dt_access a)
{
	return a == DT_ACCESS_RMW ? "load+store" : a == DT_ACCESS_STORE ? "store" :
	       a == DT_ACCESS_LOAD ? "load" : "";
}

/* One function of session s; the sessions are those samples came from. */
static void print_function(struct out *o, const struct dt_report *r,
			   struct dt_session *s, const char *symbol,
			   uint64_t start, uint64_t size, struct sources *src,
			   size_t *nrows)
{
	FILE *f = o->f;
	enum dt_format format = o->format;
	int nev = r->nev ? r->nev : 1;
	uint64_t total[NEV] = { 0 };
	const char *last_file = NULL;
	unsigned last_line = 0;

	for (uint64_t pc = start; pc < start + size; pc++) {
		const struct pc_count *c = pc_find(r->pcs, s, pc);
		for (int e = 0; c && e < nev; e++)
			total[e] += c->samples[e];
	}
	if (format == DT_FORMAT_PERF) {
		fputs("\nCode: ", f);
		dt_text_put(f, symbol);
		fprintf(f, " in %s (%#" PRIx64 ", %" PRIu64 " bytes):",
			dt_session_path(s), start, size);
		for (int e = 0; e < nev; e++)
			fprintf(f, "%s %" PRIu64 " samples of %s", e ? "," : "", total[e],
				report_event_name(r, e));
		fputs("\n#", f);
		for (int e = 0; e < nev; e++)
			fputs("  Samples  Charged", f);
		fputs("  Address       Instruction                               Data access\n", f);
	}
	for (uint64_t pc = start; pc < start + size;) {
		char text[256];
		int len = dt_session_disasm(s, pc, text, sizeof(text));
		const struct pc_count *c = pc_find(r->pcs, s, pc);
		struct dt_answer a;
		const char *file;
		unsigned line;
		char data[512] = "";

		if (len <= 0) {
			if (format == DT_FORMAT_PERF)
				fprintf(f, "# cannot decode the instruction at %#" PRIx64 "\n", pc);
			break;
		}
		dt_resolve_pc(s, pc, &a);
		if (a.reason == DT_OK && a.type[0] != '(')
			snprintf(data, sizeof(data), "%s +%" PRId64 " (%s) %s", a.type,
				 a.offset, a.field[0] ? a.field : "no field",
				 access_word(a.access));
		else if (a.reason == DT_OK)
			snprintf(data, sizeof(data), "%s", a.type);
		else if (a.reason != DT_NO_MEM_OP)
			snprintf(data, sizeof(data), "(%s)", dt_reason_str(a.reason));
		dt_session_srcline(s, pc, &file, &line);
		if (format == DT_FORMAT_PERF) {
			if (file != last_file || line != last_line) {
				const char *base = strrchr(file, '/'), *dir = NULL;
				if (src->confined)
					dt_session_comp_dir(s, pc, &dir);
				struct source *sf = source_get(src, file, dir);
				if (sf->why && !sf->said) {
					fputs("# source lines of '", f);
					dt_text_put(f, file);
					fprintf(f, "' left out: %s\n", sf->why);
					sf->said = true;
				}
				/* a file name and its text: any byte */
				fputs("  ", f);
				dt_text_put(f, base ? base + 1 : file);
				fprintf(f, ":%u  ", line);
				dt_text_put(f, source_text(sf, line));
				fputc('\n', f);
				last_file = file;
				last_line = line;
			}
			fputc(' ', f);
			for (int e = 0; e < nev; e++)
				fprintf(f, " %8" PRIu64 " %8" PRIu64, c ? c->samples[e] : 0,
					c ? c->charged[e] : 0);
			fprintf(f, "  %#-12" PRIx64 "  %-40s  %s\n", pc, text, data);
		} else if (format == DT_FORMAT_JSON) {
			for (int e = 0; e < nev; e++) {
				if ((*nrows)++)
					out_newline(o);
				out_object(o, NULL);
				out_str(o, "event", report_event_name(r, e));
				out_str(o, "symbol", symbol);
				out_str(o, "dso", dt_session_path(s));
				out_u64(o, "address", pc);
				out_u64(o, "samples", c ? c->samples[e] : 0);
				out_u64(o, "charged", c ? c->charged[e] : 0);
				out_str(o, "file", file);
				out_u64(o, "line", line);
				out_str(o, "instruction", text);
				out_str(o, "type", a.reason == DT_OK ? a.type : "");
				out_i64(o, "offset", a.reason == DT_OK ? a.offset : 0);
				out_str(o, "field", a.reason == DT_OK ? a.field : "");
				out_str(o, "access", a.reason == DT_OK ?
					dt_access_str(a.access) : "");
				out_end(o);
			}
		} else {
			char addr[24];
			snprintf(addr, sizeof(addr), "%#" PRIx64, pc);
			for (int e = 0; e < nev; e++) {
				out_cell(o, report_event_name(r, e));
				out_cell(o, symbol);
				out_cell(o, dt_session_path(s));
				out_cell(o, addr);
				out_cell_u64(o, c ? c->samples[e] : 0);
				out_cell_u64(o, c ? c->charged[e] : 0);
				out_cell(o, file);
				out_cell_u64(o, line);
				out_cell(o, text);
				out_cell(o, a.reason == DT_OK ? a.type : "");
				out_cell_i64(o, a.reason == DT_OK ? a.offset : 0);
				out_cell(o, a.reason == DT_OK ? a.field : "");
				out_cell(o, a.reason == DT_OK ? dt_access_str(a.access) : "");
				out_row_end(o);
			}
		}
		pc += (uint64_t)len;
	}
}

/* The samples the table had no memory for, in the text form. */
static void say_lost(struct out *o, const struct pc_table *t)
{
	if (t && t->lost && out_text(o))
		fprintf(o->f, "# %" PRIu64 " samples left out of the code view: out of memory\n",
			t->lost);
}

void codeview_print(struct out *o, const struct dt_report *r, const char *symbol,
		    bool confined, const char *source_dirs)
{
	static const char *const cols[] = {
		"event", "symbol", "dso", "address", "samples", "charged", "file",
		"line", "instruction", "type", "offset", "field", "access", NULL
	};
	const struct pc_table *t = r->pcs;
	struct dt_session *done[64];
	size_t ndone = 0;
	struct sources src = { .confined = confined, .dirs = source_dirs };
	bool found = false;
	FILE *f = o->f;
	size_t nrows = 0;

	if (out_tsv(o)) {
		out_header(o, cols);
	} else if (out_json(o)) {
		out_object(o, NULL);
		out_array(o, "code");
	} else if (!t) {
		fputs("# the code view needs samples kept per instruction\n", f);
	}
	say_lost(o, t);
	for (size_t i = 0; t && i < t->n && ndone < 64; i++) {
		struct dt_session *s = t->v[i].s;
		uint64_t start, size;
		bool seen = false;
		for (size_t j = 0; j < ndone; j++)
			seen |= done[j] == s;
		if (seen)
			continue;
		done[ndone++] = s;
		if (dt_session_symbol(s, symbol, &start, &size) || !size)
			continue;
		found = true;
		print_function(o, r, s, symbol, start, size, &src, &nrows);
	}
	if (!found && out_text(o)) {
		fputs("\nNo function '", f);
		dt_text_put(f, symbol);
		fputs("' in the binaries sampled.\n", f);
	}
	if (out_json(o)) {
		out_end(o);
		out_end(o);
	}
	sources_free(&src);
}

void codeview_print_function(struct out *o, const struct dt_report *r,
			     const struct hot_function *fn, bool confined,
			     const char *source_dirs)
{
	struct sources src = { .confined = confined, .dirs = source_dirs };
	size_t nrows = 0;

	say_lost(o, r->pcs);
	if (fn->size)
		print_function(o, r, fn->s, fn->name, fn->start, fn->size, &src, &nrows);
	sources_free(&src);
}

static int cmp_hot_fn(const void *x, const void *y)
{
	const struct hot_function *a = x, *b = y;

	return a->samples != b->samples ? (a->samples > b->samples ? -1 : 1) :
	       strcmp(a->name, b->name);
}

static int cmp_pc_row(const void *x, const void *y)
{
	const struct pc_count *a = *(const struct pc_count *const *)x;
	const struct pc_count *b = *(const struct pc_count *const *)y;

	if (a->s != b->s)
		return (uintptr_t)a->s < (uintptr_t)b->s ? -1 : 1;
	return (a->pc > b->pc) - (a->pc < b->pc);
}

static int cmp_fn_key(const void *x, const void *y)
{
	const struct hot_function *a = x, *b = y;

	if (a->s != b->s)
		return (uintptr_t)a->s < (uintptr_t)b->s ? -1 : 1;
	return (uintptr_t)a->name < (uintptr_t)b->name ? -1 :
	       (uintptr_t)a->name > (uintptr_t)b->name;
}

/* The functions of the pcs with samples, by (session, pc): a function's
 * pcs come together, and dt_session_symbol_at answers most of them from
 * the last one; then one row per function (names are interned: a
 * function is its session and name pointer). */
size_t codeview_hot_functions(const struct dt_report *r,
			      struct hot_function *out, size_t max)
{
	const struct pc_table *t = r->pcs;
	const struct pc_count **rows = t && t->n ? malloc(t->n * sizeof(*rows)) : NULL;
	struct hot_function *all = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; rows && i < t->n; i++)
		rows[i] = &t->v[i];
	if (rows)
		qsort(rows, t->n, sizeof(*rows), cmp_pc_row);
	for (size_t i = 0; rows && i < t->n; i++) {
		const char *name;
		uint64_t start, size;
		if (dt_session_symbol_at(rows[i]->s, rows[i]->pc, &name, &start, &size))
			continue;
		if (!n || all[n - 1].s != rows[i]->s || all[n - 1].name != name) {
			if (GROW(all, cap, n, 16))
				break;
			all[n++] = (struct hot_function){ rows[i]->s, name, 0, start, size };
		}
		all[n - 1].samples += rows[i]->samples[0];
	}
	free(rows);
	/* a function whose pcs another's came between: one row */
	if (n)
		qsort(all, n, sizeof(*all), cmp_fn_key);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && all[m - 1].s == all[i].s && all[m - 1].name == all[i].name) {
			all[m - 1].samples += all[i].samples;
			if (all[i].start < all[m - 1].start) {	/* a name held twice */
				all[m - 1].start = all[i].start;
				all[m - 1].size = all[i].size;
			}
		} else
			all[m++] = all[i];
	}
	n = m;
	if (n)
		qsort(all, n, sizeof(*all), cmp_hot_fn);
	if (n > max)
		n = max;
	if (n)
		memcpy(out, all, n * sizeof(*out));
	free(all);
	return n;
}
