// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * dtplugin.so: perf's dlfilter ABI glue.  perf script calls filter_event()
 * for every sample; we name the sample's data type through libdtprof,
 * count it in a dt_report, and drop it (or keep it, with filter=TYPE).
 * stop() prints the tables.  Everything else lives in the library.
 *
 *   perf script --dlfilter dtplugin.so [--dlarg annotate[=TYPE]] ...
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <perf/perf_dlfilter.h>

#include "../resolver/dtprof.h"

#define EXPORT __attribute__((visibility("default")))
#define PROG "dtplugin"

EXPORT struct perf_dlfilter_fns perf_dlfilter_fns;

enum skid_mode { SKID_AUTO, SKID_ON, SKID_OFF };

struct dso {
	char *name;			/* as perf names it */
	struct dt_session *session;	/* NULL: cannot be attributed */
	enum dt_reason why;		/* when session is NULL */
	bool kernel;
	bool kaslr_known;
	int64_t kaslr;			/* runtime - link-time (kernel) */
};

struct state {
	struct dt_report *report;
	struct dso *dsos;
	size_t ndsos, cap;
	struct dso *last_dso;
	const char *last_dso_name;
	const char *last_event;
	int last_ev;
	unsigned ev_flags[DT_REPORT_MAX_EVENTS];
	bool ev_seen[DT_REPORT_MAX_EVENTS];
	/* dlargs */
	bool want_report, want_annotate, want_stat;
	const char *annotate_type, *filter_type, *output, *vmlinux;
	enum dt_format format;
	enum skid_mode skid;
};

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int parse_arg(struct state *st, const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t klen = eq ? (size_t)(eq - arg) : strlen(arg);
	const char *val = eq ? eq + 1 : NULL;

#define KEY(k) (klen == strlen(k) && !strncmp(arg, k, klen))
	if (KEY("report") && !val) {
		st->want_report = true;
	} else if (KEY("annotate")) {
		st->want_annotate = true;
		st->annotate_type = val && *val ? val : NULL;
	} else if (KEY("stat") && !val) {
		st->want_stat = true;
	} else if (KEY("format") && val) {
		int f = dt_format_from_str(val);
		if (f != DT_FORMAT_TSV && f != DT_FORMAT_JSON) {
			note("format=%s: use tsv or json", val);
			return -EINVAL;
		}
		st->format = (enum dt_format)f;
	} else if (KEY("filter") && val && *val) {
		st->filter_type = val;
	} else if (KEY("output") && val && *val) {
		st->output = val;
	} else if (KEY("vmlinux") && val && *val) {
		st->vmlinux = val;
	} else if (KEY("skid") && val) {
		if (!strcmp(val, "auto"))
			st->skid = SKID_AUTO;
		else if (!strcmp(val, "on"))
			st->skid = SKID_ON;
		else if (!strcmp(val, "off"))
			st->skid = SKID_OFF;
		else {
			note("skid=%s: use auto, on or off", val);
			return -EINVAL;
		}
	} else {
		note("unknown --dlarg '%s' (see: perf script --list-dlfilters)", arg);
		return -EINVAL;
	}
#undef KEY
	return 0;
}

EXPORT int start(void **data, void *ctx)
{
	struct state *st = calloc(1, sizeof(*st));
	int argc = 0;
	char **argv;

	if (!st || dt_report_new(&st->report)) {
		free(st);
		return -ENOMEM;
	}
	st->format = DT_FORMAT_PERF;
	argv = perf_dlfilter_fns.args ? perf_dlfilter_fns.args(ctx, &argc) : NULL;
	for (int i = 0; i < argc; i++) {
		int err = parse_arg(st, argv[i]);
		if (err) {
			dt_report_free(st->report);
			free(st);
			return err;
		}
	}
	/* The report is the default; annotate replaces it (ask for both with
	 * report); stat adds to it.  With filter=TYPE perf prints the kept
	 * samples, and tables only when asked for. */
	if (!st->want_annotate && !st->filter_type)
		st->want_report = true;
	*data = st;
	return 0;
}

static bool is_kernel_dso(const char *name)
{
	return name[0] == '[' && strstr(name, "kernel.kallsyms");
}

static char *find_vmlinux(const struct state *st)
{
	/* where Debian's -dbg package and kernel builds put it */
	static const char *const dirs[][2] = {
		{ "/usr/lib/debug/boot/vmlinux-", "" },
		{ "/usr/lib/debug/lib/modules/", "/vmlinux" },
		{ "/boot/vmlinux-", "" },
		{ "/lib/modules/", "/build/vmlinux" },
	};
	struct utsname u;
	char path[512];

	if (st->vmlinux)
		return strdup(st->vmlinux);
	if (uname(&u))
		return NULL;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s%s%s", dirs[i][0], u.release,
			 dirs[i][1]);
		if (access(path, R_OK) == 0)
			return strdup(path);
	}
	return NULL;
}

/* perf's build-id cache holds the exact binary that was recorded. */
static char *buildid_cache_path(const struct perf_dlfilter_al *al)
{
	const char *home = getenv("HOME");
	char path[512];
	int n;

	if (!home || !al->buildid || !al->buildid_size)
		return NULL;
	n = snprintf(path, sizeof(path), "%s/.debug/.build-id/%02x/", home,
		     al->buildid[0]);
	for (__u32 i = 1; i < al->buildid_size && n > 0 && (size_t)n < sizeof(path) - 8; i++)
		n += snprintf(path + n, sizeof(path) - (size_t)n, "%02x", al->buildid[i]);
	if (n <= 0 || (size_t)n >= sizeof(path) - 8)
		return NULL;
	strcat(path, "/elf");
	return access(path, R_OK) == 0 ? strdup(path) : NULL;
}

static bool build_id_matches(struct dt_session *s,
			     const struct perf_dlfilter_al *al)
{
	const uint8_t *id;
	size_t n = dt_session_build_id(s, &id);

	/* no build-id on either side: nothing to compare */
	if (!al->buildid || !al->buildid_size || !n)
		return true;
	return n == al->buildid_size && !memcmp(id, al->buildid, n);
}

static void open_dso(struct state *st, struct dso *d,
		     const struct perf_dlfilter_al *al)
{
	char *path = NULL;
	int err;

	d->kernel = is_kernel_dso(d->name);
	d->why = DT_NO_DSO;
	if (d->kernel) {
		path = find_vmlinux(st);
		if (!path) {
			note("no vmlinux with debug info for '%s' (install linux-image-$(uname -r)-dbg or use --dlarg vmlinux=PATH): its samples count as no_debuginfo",
			     d->name);
			d->why = DT_NO_DEBUGINFO;
			return;
		}
	} else if (d->name[0] == '[') {
		return;		/* [vdso], [unknown], [anon]...: no file */
	} else {
		path = strdup(d->name);
		if (!path)
			return;
	}
	err = dt_session_open(path, NULL, &d->session);
	if (!err && !d->kernel && !build_id_matches(d->session, al)) {
		char *cached = buildid_cache_path(al);
		dt_session_close(d->session);
		d->session = NULL;
		if (cached)
			err = dt_session_open(cached, NULL, &d->session);
		else
			note("'%s' is not the binary that was recorded (build-id differs) and perf's build-id cache has no copy: its samples count as no_dso",
			     d->name);
		free(path);
		path = cached;
	}
	if (err) {
		note("cannot open '%s': %s: its samples count as no_dso", path,
		     dt_strerror(err));
	} else if (d->session && !dt_session_has_debuginfo(d->session)) {
		note("'%s' has no debug info: its samples count as no_debuginfo",
		     path);
	}
	free(path);
}

static struct dso *dso_get(struct state *st, const struct perf_dlfilter_al *al)
{
	if (st->last_dso && al->dso == st->last_dso_name)
		return st->last_dso;
	for (size_t i = 0; i < st->ndsos; i++)
		if (!strcmp(st->dsos[i].name, al->dso)) {
			st->last_dso = &st->dsos[i];
			st->last_dso_name = al->dso;
			return st->last_dso;
		}
	if (st->ndsos == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 16;
		struct dso *v = reallocarray(st->dsos, cap, sizeof(*v));
		if (!v)
			return NULL;
		st->dsos = v;
		st->cap = cap;
	}
	struct dso *d = &st->dsos[st->ndsos];
	memset(d, 0, sizeof(*d));
	d->name = strdup(al->dso);
	if (!d->name)
		return NULL;
	st->ndsos++;
	open_dso(st, d, al);
	st->last_dso = d;
	st->last_dso_name = al->dso;
	return d;
}

/* Kernel: perf gives the runtime address; KASLR moved the image.  The
 * symbol perf found tells the offset once. */
static bool kernel_link_pc(struct dso *d, const struct perf_dlfilter_al *al,
			   uint64_t *pc)
{
	if (!d->kaslr_known) {
		uint64_t start, size;
		if (!al->sym || dt_session_symbol(d->session, al->sym, &start, &size))
			return false;
		d->kaslr = (int64_t)(al->addr - al->symoff - start);
		d->kaslr_known = true;
	}
	*pc = al->addr - (uint64_t)d->kaslr;
	return true;
}

static int event_index(struct state *st, const struct perf_dlfilter_sample *s,
		       void *ctx)
{
	const char *name = s->event ? s->event : "samples";

	if (name == st->last_event)
		return st->last_ev;
	int ev = dt_report_event(st->report, name);
	if (!st->ev_seen[ev]) {
		/* Samples of events without precise ip land after the
		 * instruction that waited; execute breakpoints (mem:A:x) and
		 * precise events (:pp) land on it. */
		struct perf_event_attr *attr = perf_dlfilter_fns.attr ?
					       perf_dlfilter_fns.attr(ctx) : NULL;
		bool precise = attr && (attr->precise_ip ||
					attr->type == PERF_TYPE_BREAKPOINT);
		bool skid = st->skid == SKID_ON || (st->skid == SKID_AUTO && !precise);
		st->ev_flags[ev] = skid ? DT_RESOLVE_SKID : 0;
		st->ev_seen[ev] = true;
	}
	st->last_event = name;
	st->last_ev = ev;
	return ev;
}

static struct dt_session *attribute(struct state *st, unsigned flags,
				    const struct perf_dlfilter_sample *sample,
				    void *ctx, struct dt_answer *ans)
{
	const struct perf_dlfilter_al *al = perf_dlfilter_fns.resolve_ip(ctx);
	struct dso *d;
	uint64_t pc;

	if (!al || !al->dso) {
		dt_answer_miss(ans, sample->ip, DT_NO_DSO);
		return NULL;
	}
	d = dso_get(st, al);
	if (!d || !d->session) {
		dt_answer_miss(ans, sample->ip, d ? d->why : DT_NO_DSO);
		return NULL;
	}
	if (d->kernel ? !kernel_link_pc(d, al, &pc) :
	    dt_session_addr_from_offset(d->session, al->addr, &pc)) {
		dt_answer_miss(ans, sample->ip, DT_NO_INSN);
		return d->session;
	}
	dt_resolve_sample(d->session, pc, flags, ans);
	return d->session;
}

EXPORT int filter_event(void *data, const struct perf_dlfilter_sample *sample,
			void *ctx)
{
	struct state *st = data;
	struct dt_answer ans;
	int ev = event_index(st, sample, ctx);
	struct dt_session *s = attribute(st, st->ev_flags[ev], sample, ctx, &ans);

	dt_report_add(st->report, ev, s, &ans, sample->period);
	if (st->filter_type)
		return ans.reason == DT_OK && !strcmp(ans.type, st->filter_type) ? 0 : 1;
	return 1;
}

static int print_tables(struct state *st)
{
	struct dt_table_opts o = { .format = st->format, .type = st->annotate_type };
	FILE *f = stdout;
	int err = 0;

	if (!st->want_report && !st->want_annotate && !st->want_stat)
		return 0;
	if (st->output) {
		f = fopen(st->output, "w");
		if (!f) {
			note("cannot write '%s': %s", st->output, strerror(errno));
			return -errno;
		}
	}
	if (st->want_report)
		err |= dt_report_print(f, st->report, DT_TABLE_TYPES, &o);
	if (st->want_annotate)
		err |= dt_report_print(f, st->report, DT_TABLE_ANNOTATE, &o);
	if (st->want_stat)
		err |= dt_report_print(f, st->report, DT_TABLE_STAT, &o);
	if (fflush(f) || ferror(f))
		err = -EIO;
	if (f != stdout && fclose(f))
		err = -EIO;
	return err;
}

EXPORT int stop(void *data, void *ctx)
{
	struct state *st = data;
	int err;

	(void)ctx;
	err = print_tables(st);
	dt_report_free(st->report);
	for (size_t i = 0; i < st->ndsos; i++) {
		dt_session_close(st->dsos[i].session);
		free(st->dsos[i].name);
	}
	free(st->dsos);
	free(st);
	return err ? -1 : 0;
}

EXPORT const char *filter_description(const char **long_description)
{
	*long_description =
		"dtprof " DTPROF_VERSION ": name the C type and field each sample's memory access touches.\n"
		"  --dlarg report          types and offsets (the default)\n"
		"  --dlarg annotate[=TYPE] annotated layouts: samples per field, holes, cache lines\n"
		"  --dlarg stat            samples per unresolved reason\n"
		"  --dlarg format=tsv|json machine-readable tables\n"
		"  --dlarg filter=TYPE     keep only the samples that access TYPE\n"
		"  --dlarg output=FILE     write the tables to FILE\n"
		"  --dlarg skid=auto|on|off  attribute non-precise samples to the access before them\n"
		"  --dlarg vmlinux=PATH    kernel image with debug info";
	return "dtprof data-type profile: types, fields and layouts of sampled accesses";
}
