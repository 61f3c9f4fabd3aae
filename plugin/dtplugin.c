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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/hw_breakpoint.h>
#include <perf/perf_dlfilter.h>

#include "../resolver/dtprof.h"

#define EXPORT __attribute__((visibility("default")))
#define PROG "dtplugin"

EXPORT struct perf_dlfilter_fns perf_dlfilter_fns;

enum skid_mode { SKID_AUTO, SKID_ON, SKID_OFF };

/* The answer for (perf's dso, address in it, flags), remembered: a profile
 * samples few instructions many times, and perf keeps a dso's name at one
 * address for the whole run. */
struct sample_slot {
	const char *dso;
	uint64_t addr;
	unsigned flags;
	struct dt_session *session;
	struct dt_answer ans;
};
#define SAMPLE_SLOTS 4096

struct state {
	struct dt_report *report;
	struct dt_dsos *dsos;
	struct sample_slot slots[SAMPLE_SLOTS];
	const char *last_event;
	int last_ev;
	unsigned ev_flags[DT_REPORT_MAX_EVENTS];
	unsigned ev_has[DT_REPORT_MAX_EVENTS];	/* DT_SAMPLE_* it carries */
	bool ev_seen[DT_REPORT_MAX_EVENTS];
	/* dlargs */
	bool want_report, want_annotate, want_stat, want_sharing, want_advise;
	const char *code_symbol;	/* code=SYMBOL */
	const char *html;		/* html=FILE */
	enum dt_sort sort;
	const char *annotate_type, *advise_type, *filter_type, *output, *vmlinux;
	enum dt_format format;
	enum skid_mode skid;
};

#define note(...) dt_message(PROG, __VA_ARGS__)

static void log_note(void *arg, const char *msg)
{
	(void)arg;
	note("%s", msg);
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
	} else if (KEY("advise")) {
		st->want_advise = true;
		st->advise_type = val && *val ? val : NULL;
	} else if (KEY("html") && val && *val) {
		st->html = val;
	} else if (KEY("code") && val && *val) {
		st->code_symbol = val;
	} else if (KEY("stat") && !val) {
		st->want_stat = true;
	} else if (KEY("sharing") && !val) {
		st->want_sharing = true;
	} else if (KEY("sort") && val) {
		int k = dt_sort_from_str(val);
		if (k < 0) {
			note("sort=%s: use samples, period or weight", val);
			return -EINVAL;
		}
		st->sort = (enum dt_sort)k;
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
	struct dt_dsos_opts o = { .sz = sizeof(o), .vmlinux = st->vmlinux,
				  .log = log_note };
	if (dt_dsos_new(&o, &st->dsos)) {
		dt_report_free(st->report);
		free(st);
		return -ENOMEM;
	}
	/* The report is the default; every other table replaces it (ask for
	 * both with report).  With filter=TYPE perf prints the kept samples,
	 * and tables only when asked for. */
	if ((st->code_symbol || st->html) && dt_report_keep_pcs(st->report)) {
		dt_dsos_free(st->dsos);
		dt_report_free(st->report);
		free(st);
		return -ENOMEM;
	}
	if (!st->want_annotate && !st->want_sharing && !st->want_stat &&
	    !st->want_advise && !st->code_symbol && !st->html && !st->filter_type)
		st->want_report = true;
	*data = st;
	return 0;
}

static bool is_fault_event(const struct perf_event_attr *a)
{
	if (a->type != PERF_TYPE_SOFTWARE)
		return false;
	switch (a->config) {
	case PERF_COUNT_SW_PAGE_FAULTS:
	case PERF_COUNT_SW_PAGE_FAULTS_MIN:
	case PERF_COUNT_SW_PAGE_FAULTS_MAJ:
	case PERF_COUNT_SW_ALIGNMENT_FAULTS:
	case PERF_COUNT_SW_EMULATION_FAULTS:
		return true;
	default:
		return false;
	}
}

/* What an event's samples carry, from its attributes (or, from a perf
 * without attr(), from the first sample's non-zero fields).  An execute
 * breakpoint's addr is the breakpoint, not data. */
static unsigned sample_fields(const struct perf_event_attr *a,
			      const struct perf_dlfilter_sample *s)
{
	unsigned has = 0;

	if (!a)
		return (s->addr ? DT_SAMPLE_ADDR : 0) | (s->weight ? DT_SAMPLE_WEIGHT : 0) |
		       (s->data_src ? DT_SAMPLE_DATA_SRC : 0) | DT_SAMPLE_TID |
		       (s->cpu >= 0 ? DT_SAMPLE_CPU : 0);
	if ((a->sample_type & PERF_SAMPLE_ADDR) &&
	    !(a->type == PERF_TYPE_BREAKPOINT && (a->bp_type & HW_BREAKPOINT_X)))
		has |= DT_SAMPLE_ADDR;
	if (a->sample_type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		has |= DT_SAMPLE_WEIGHT;
	if (a->sample_type & PERF_SAMPLE_DATA_SRC)
		has |= DT_SAMPLE_DATA_SRC;
	if (a->sample_type & PERF_SAMPLE_TID)
		has |= DT_SAMPLE_TID;
	if (a->sample_type & PERF_SAMPLE_CPU)
		has |= DT_SAMPLE_CPU;
	return has;
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
		 * instruction that waited; execute breakpoints (mem:A:x),
		 * precise events (:pp) and faults land on it. */
		struct perf_event_attr *attr = perf_dlfilter_fns.attr ?
					       perf_dlfilter_fns.attr(ctx) : NULL;
		bool precise = attr && (attr->precise_ip ||
					attr->type == PERF_TYPE_BREAKPOINT ||
					is_fault_event(attr));
		bool skid = st->skid == SKID_ON || (st->skid == SKID_AUTO && !precise);
		st->ev_flags[ev] = skid ? DT_RESOLVE_SKID : 0;
		st->ev_has[ev] = sample_fields(attr, s);
		st->ev_seen[ev] = true;
	}
	st->last_event = name;
	st->last_ev = ev;
	return ev;
}

/* Instruction bytes as perf has them (its object_code reads the recorded
 * binary through its own maps and caches); the file is the fallback. */
struct code_source {
	void *ctx;
	uint64_t delta;		/* runtime address - link-time address */
};

static int read_object_code(void *arg, uint64_t pc, uint8_t *buf, size_t len)
{
	const struct code_source *c = arg;

	if (!perf_dlfilter_fns.object_code)
		return 0;
	return perf_dlfilter_fns.object_code(c->ctx, pc + c->delta, buf,
					     (__u32)len);
}

static struct dt_session *attribute(struct state *st, unsigned flags,
				    const struct perf_dlfilter_sample *sample,
				    void *ctx, struct dt_answer *ans)
{
	const struct perf_dlfilter_al *al = perf_dlfilter_fns.resolve_ip(ctx);
	struct dt_session *s;
	enum dt_reason why = DT_NO_DSO;
	uint64_t pc;

	if (!al || !al->dso) {
		dt_answer_miss(ans, sample->ip, why);
		return NULL;
	}
	struct sample_slot *slot = &st->slots[((uintptr_t)al->dso * 31 + al->addr * 0x9e3779b1u + flags) % SAMPLE_SLOTS];
	if (slot->dso == al->dso && slot->addr == al->addr && slot->flags == flags) {
		*ans = slot->ans;
		return slot->session;
	}
	s = dt_dsos_get(st->dsos, al->dso, al->buildid, al->buildid_size, &why);
	if (!s) {
		dt_answer_miss(ans, sample->ip, why);
	} else if (dt_dsos_link_pc(st->dsos, al->dso, al->addr, al->sym, al->symoff, &pc)) {
		dt_answer_miss(ans, sample->ip, DT_NO_INSN);
	} else {
		struct code_source src = { ctx, sample->ip - pc };
		dt_session_set_code_reader(s, read_object_code, &src);
		dt_resolve_sample(s, pc, flags, ans);
		dt_session_set_code_reader(s, NULL, NULL);	/* ctx ends here */
	}
	*slot = (struct sample_slot){ al->dso, al->addr, flags, s, *ans };
	return s;
}

EXPORT int filter_event(void *data, const struct perf_dlfilter_sample *sample,
			void *ctx)
{
	struct state *st = data;
	struct dt_answer ans;
	int ev = event_index(st, sample, ctx);
	struct dt_session *s = attribute(st, st->ev_flags[ev], sample, ctx, &ans);

	struct dt_sample smp = {
		.period = sample->period, .addr = sample->addr,
		.weight = sample->weight, .data_src = sample->data_src,
		.tid = sample->tid, .cpu = sample->cpu, .has = st->ev_has[ev],
	};

	dt_report_add_sample(st->report, ev, s, &ans, &smp);
	if (st->filter_type)
		return ans.reason == DT_OK &&
		       dt_type_name_matches(s, ans.type, st->filter_type) ? 0 : 1;
	return 1;
}

/* One table; the first error is kept, out of memory said. */
static void print_table(FILE *f, struct state *st, enum dt_table t,
			const char *type, const char *symbol, int *err)
{
	struct dt_table_opts o = { .format = st->format, .type = type,
				   .sort = st->sort, .symbol = symbol };
	int e = dt_report_print(f, st->report, t, &o);

	if (e == -ENOMEM)
		note("out of memory printing a table");
	if (e && !*err)
		*err = e;
}

static int print_tables(struct state *st)
{
	FILE *f = stdout;
	int err = 0;

	if (!st->want_report && !st->want_annotate && !st->want_stat &&
	    !st->want_sharing && !st->want_advise && !st->code_symbol)
		return 0;
	if (st->output) {
		f = fopen(st->output, "w");
		if (!f) {
			note("cannot write '%s': %s", st->output, strerror(errno));
			return -errno;
		}
	}
	if (st->want_report)
		print_table(f, st, DT_TABLE_TYPES, NULL, NULL, &err);
	if (st->want_annotate)
		print_table(f, st, DT_TABLE_ANNOTATE, st->annotate_type, NULL, &err);
	if (st->want_sharing)
		print_table(f, st, DT_TABLE_SHARING, NULL, NULL, &err);
	if (st->code_symbol)
		print_table(f, st, DT_TABLE_CODE, NULL, st->code_symbol, &err);
	if (st->want_advise)
		print_table(f, st, DT_TABLE_ADVISE, st->advise_type, NULL, &err);
	if (st->want_stat)
		print_table(f, st, DT_TABLE_STAT, NULL, NULL, &err);
	/* a full disk must not lose the report in silence */
	int werr = fflush(f) || ferror(f) ? errno : 0;
	if (f != stdout && fclose(f) && !werr)
		werr = errno;
	if (werr) {
		note("cannot write '%s': %s", st->output ? st->output : "(stdout)",
		     strerror(werr ? werr : EIO));
		err = -EIO;
	}
	return err;
}

/* html=FILE: the page, and a message naming FILE when it cannot be
 * written whole. */
static int write_html(struct state *st)
{
	FILE *f = fopen(st->html, "w");
	int err;

	if (!f) {
		note("cannot write '%s': %s", st->html, strerror(errno));
		return -errno;
	}
	err = dt_report_print(f, st->report, DT_TABLE_HTML, NULL);
	if (ferror(f) | fclose(f)) {
		note("cannot write '%s': %s", st->html, strerror(errno ? errno : EIO));
		return -EIO;
	}
	if (err)
		note("'%s': %s", st->html, err == -EPROTO ?
		     "the totals do not add up (internal error)" : strerror(-err));
	return err;
}

EXPORT int stop(void *data, void *ctx)
{
	struct state *st = data;
	int err;

	(void)ctx;
	if (!st)	/* start() failed (a bad --dlarg): perf still calls us */
		return 0;
	err = print_tables(st);
	if (st->html)
		err |= write_html(st);
	dt_report_free(st->report);
	dt_dsos_free(st->dsos);
	free(st);
	return err ? -1 : 0;
}

EXPORT const char *filter_description(const char **long_description)
{
	*long_description =
		"dtprof " DTPROF_VERSION ": name the C type and field each sample's memory access touches.\n"
		"  --dlarg report          types and offsets (the default)\n"
		"  --dlarg annotate[=TYPE] annotated layouts: samples per field, holes, cache lines\n"
		"  --dlarg advise[=TYPE]   a proposed member order of the hot structs, as C\n"
		"  --dlarg code=SYMBOL     the function's instructions with the types they touch\n"
		"  --dlarg html=FILE       all of it as one self-contained HTML page\n"
		"  --dlarg stat            samples per unresolved reason (only)\n"
		"  --dlarg sharing         threads per cache line: false and true sharing\n"
		"  --dlarg sort=samples|period|weight  order of the rows\n"
		"  --dlarg format=tsv|json machine-readable tables\n"
		"  --dlarg filter=TYPE     keep only the samples that access TYPE\n"
		"  --dlarg output=FILE     write the tables to FILE\n"
		"  --dlarg skid=auto|on|off  attribute non-precise samples to the access before them\n"
		"  --dlarg vmlinux=PATH    kernel image with debug info";
	return "dtprof data-type profile: types, fields and layouts of sampled accesses";
}
