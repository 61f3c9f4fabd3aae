// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * dtplugin.so: perf's dlfilter ABI glue.  perf script calls filter_event()
 * for every sample; we name the sample's data type through libdtprof,
 * count it in a dt_report, and drop it (or keep it, with filter=TYPE).
 * stop() prints the tables.  Everything else lives in the library.
 *
 * With two CPUs or more the naming runs on a thread of its own: perf's
 * thread only copies what resolve_ip says into a chunk (handoff.c), and
 * the other thread resolves and counts the chunks in order.  Before the
 * first chunk it opens the binaries perf.data lists (prefetch.c), and
 * while no chunk waits it builds their whole-binary indexes; when perf
 * has read the last sample, its thread answers sites of other binaries
 * (help()).  A site's first sample is always counted or handed over; its
 * later ones of the same event that carry only a period (no data address,
 * no thread a table shows) perf's thread adds to the site's tally itself,
 * in either mode, which stop() adds to the tables: a memo probe and two
 * adds a sample.  For the others: once two chunks in a row named no
 * new site to resolve and the other thread has counted them, perf's
 * thread counts the samples itself (handing a sample over costs more
 * than counting an answered one), until a sample's site has no answer
 * yet: from it on, chunks again (hand_over()).  Every table is the one
 * counting in perf.data's order in one thread makes.
 * filter=TYPE must answer before filter_event returns, so it resolves in
 * perf's thread, as does threads=1.
 *
 *   perf script --dlfilter dtplugin.so [--dlarg annotate[=TYPE]] ...
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/hw_breakpoint.h>
#include <perf/perf_dlfilter.h>

#include "../lib/dtprof.h"
#include "allocevents.h"
#include "handoff.h"
#include "prefetch.h"
#include "sites.h"
#include "../frontend/env.h"

#define EXPORT __attribute__((visibility("default")))
#define PROG "dtplugin"

EXPORT struct perf_dlfilter_fns perf_dlfilter_fns;

enum skid_mode { SKID_AUTO, SKID_ON, SKID_OFF };

/* One sample, as perf's thread hands it over; the fields of memory
 * events apart (a cpu-clock profile never touches their pages). */
struct pending {
	uint32_t site;
	uint8_t kind;			/* index in the event kinds */
	uint8_t has;			/* DT_SAMPLE_*: they fit */
	uint16_t cpu;			/* NO_CPU: none */
	int32_t pid, tid;
	uint64_t period;
};
#define NO_CPU UINT16_MAX
struct pending_data {
	uint64_t addr, weight, data_src;
	uint64_t time;			/* with an address: the sharing window */
};
#define DATA_FIELDS (DT_SAMPLE_ADDR | DT_SAMPLE_WEIGHT | DT_SAMPLE_DATA_SRC)

_Static_assert(DT_SAMPLE_TIME < 256, "struct pending's has keeps 8 bits");
_Static_assert(sizeof(struct pending) == 24, "a chunk's samples stay 24 bytes");

#define CHUNK_SAMPLES 4096
struct chunk {
	unsigned n;
	struct pending p[CHUNK_SAMPLES];
	struct pending_data d[CHUNK_SAMPLES];	/* [i] when p[i] has them */
};

/* What perf's thread knows of an event: how its samples resolve and which
 * fields they carry, by perf's name pointer. */
struct event_kind {
	const char *name;		/* perf's: freed before stop() */
	char copy[128];			/* for the report (it keeps 127 bytes) */
	unsigned flags, has;
	bool allocator;			/* dtprof-record's "dtprof_PID:malloc" */
	uint8_t alloc;			/* then which call: ALLOC_* */
	bool tallies;			/* its samples may be tallied (sites.h):
					 * none of its fields is kept one sample
					 * at a time (state's per_sample) */
};
#define EVENT_KINDS 64		/* more share the last one's name */

/* What an allocator event of dtprof-record says (event_kind's alloc). */
enum {
	ALLOC_NONE,		/* not one this plugin knows: left out */
	ALLOC_ENTER,		/* malloc, aligned_alloc, new...: "size" */
	ALLOC_CALLOC,		/* calloc: "nmemb", "size" */
	ALLOC_RESIZE,		/* realloc: "ptr", "size" */
	ALLOC_RETURN,		/* any of them returned "ret" */
	ALLOC_FREE,		/* free, delete: "ptr" */
	ALLOC_KERNEL_BLOCK,	/* kmem:kmalloc, kmem_cache_alloc: "ptr",
				 * "bytes_req", at "call_site" */
	ALLOC_KERNEL_FREE,	/* kmem:kfree, kmem_cache_free: "ptr" */
	ALLOC_STORED,		/* posix_memalign stored its block: "ptr" */
	ALLOC_RETURN_CODE,	/* posix_memalign returned "ret", an error
				 * code (0: the block it stored) */
};

/* A tally's context (sites.h): an event, and when the report keeps
 * threads, the sample's process, thread and CPU (-1: none). */
struct tally_ctx {
	unsigned kind;
	int32_t pid, tid, cpu;
};
#define NO_CTX UINT32_MAX

struct state {
	/* filter_event()'s, in the first cache line with the memo's pointer
	 * (sites' first member): perf's own work between two samples
	 * evicts what a sample touches, and each line is a miss.  The event
	 * of the last sample, when its samples may tally (else an address
	 * no event name has), and its memo tag bits (sites_memo_tag()'s,
	 * with MEMO_OPEN) */
	const char *fast_event;
	uint64_t fast_tag;
	int32_t fast_pid, fast_tid, fast_cpu;	/* and its thread, when kept */
	bool threads_kept;		/* the report keeps samples' threads */
	bool aging;			/* the chunk being filled has samples */
	unsigned chunk_age;		/* samples read since its first */
	uint64_t last_time;		/* of the samples perf passed */
	/* perf's thread adds, before the chunks that name them */
	struct sites sites;
	/* perf's thread */
	struct event_kind kinds[EVENT_KINDS + 1];	/* + a spare */
	unsigned nkinds, last_kind;
	struct handoff *handoff;	/* NULL: resolve in perf's thread */
	int perfdata_fd;		/* for the resolving thread's prelude */
	int count_fd;			/* perf.data again: stop() checks that
					 * perf passed every sample */
	struct chunk *chunk;		/* being filled */
	unsigned chunk_new_sites;	/* sites it added that need resolving */
	unsigned last_new_sites;	/* the same of the chunk before */
	bool counting_here;		/* the other thread paused: perf's
					 * thread resolves and counts */
	uint32_t answered_below;	/* sites before it answered, when the
					 * other thread paused */
	uint64_t handed, counted_here;	/* samples each way (DTPROF_DEBUG) */
	uint64_t pauses_tried, pauses_behind;	/* and the pauses tried, and
						 * refused: the other thread
						 * behind (DTPROF_DEBUG) */
	struct tally_ctx ctxs[MEMO_CTX_MAX + 1];	/* what a memo tag's
							 * context is */
	unsigned nctxs, last_ctx;
	struct ctx_bits kind_ctxs[EVENT_KINDS + 1];	/* each event's
							 * contexts */
	unsigned per_sample;		/* DT_SAMPLE_* the report keeps one
					 * sample at a time: a sample with
					 * one is never tallied (all with
					 * filter=TYPE, which answers each) */
	/* the resolving thread (perf's, without a handoff) */
	struct dt_report *report;
	struct dt_dsos *dsos;
	pthread_mutex_t dsos_lock;	/* both threads open binaries */
	bool oom_said;
	bool regs_said;			/* sampled registers: said once */
	uint64_t filter_kept;		/* samples filter=TYPE kept */
	uint64_t allocator_events;	/* dtprof-record's, left out */
	uint64_t allocator_fed;		/* and those the heap's blocks took */
	struct alloc_events *allocs;	/* their formats, when read */
	const char *allocs_why;		/* why not, when tried */
	bool allocs_tried;
	bool help;			/* --dlarg help: the list, no tables */
	struct dt_env env;		/* the environment, as options */
	uint64_t batched;		/* samples added as sums (DTPROF_DEBUG) */
	uint64_t tallied;		/* of them, perf's thread's tallies */
	int kind_ev[EVENT_KINDS];	/* the report's event + 1, 0: not yet */
	/* dlargs */
	bool want[DT_TABLE_COUNT];	/* the views asked for */
	const char *view_arg[DT_TABLE_COUNT];	/* annotate=TYPE, code=SYMBOL */
	const char *html;		/* html=FILE */
	const char *source_dirs;	/* source-dir=DIR[:DIR...] */
	enum dt_sort sort;
	const char *filter_type, *output, *vmlinux;
	enum dt_format format;
	enum skid_mode skid;
	int threads;			/* threads=N; 0: by the CPUs online */
};

_Static_assert(offsetof(struct state, sites.memo_shift) + sizeof(unsigned) <= 64,
	       "filter_event() reads one line of the state");

#define note(...) dt_message(PROG, __VA_ARGS__)

/* Every --dlarg: perf script --list-dlfilters and --dlarg help. */
static const char dlargs_help[] =
		"dtprof " DTPROF_VERSION ": name the C type and field each sample's memory access touches.\n"
		"  --dlarg report          types and offsets (the default)\n"
		"  --dlarg annotate[=TYPE] annotated layouts: samples per field, holes, cache lines\n"
		"  --dlarg advise[=TYPE]   a proposed member order of the hot structs, as C\n"
		"  --dlarg code=SYMBOL     the function's instructions with the types they touch\n"
		"  --dlarg html=FILE       all of it as one self-contained HTML page\n"
		"  --dlarg source-dir=DIR[:DIR...]  html: embed source lines from\n"
		"                          these too (always: each unit's directory)\n"
		"  --dlarg stat            samples per unresolved reason (only)\n"
		"  --dlarg objects         heap blocks by allocation site (dtprof-record's\n"
		"                          allocator events)\n"
		"  --dlarg sharing[=TYPE]  threads per cache line: false and true sharing\n"
		"  --dlarg window=MS       sharing: data addresses of two threads within MS\n"
		"                          of each other in one line confirm a flag (10)\n"
		"  --dlarg sort=samples|period|weight  order of the rows\n"
		"  --dlarg format=tsv|json machine-readable tables\n"
		"  --dlarg filter=TYPE     keep only the samples that access TYPE\n"
		"  --dlarg output=FILE     write the tables to FILE\n"
		"  --dlarg skid=auto|on|off  attribute non-precise samples to the access before them\n"
		"  --dlarg threads=1|2     resolve on a second CPU while perf reads, opening the binaries\n"
		"                          perf.data lists ahead (default: 2 CPUs or more, unless\n"
		"                          every binary's answers are kept from an earlier run)\n"
		"  --dlarg vmlinux=PATH    kernel image with debug info\n"
		"  --dlarg help            this list (every sample dropped, no table)";

static void log_note(void *arg, const char *msg)
{
	(void)arg;
	note("%s", msg);
}

/* The fields the report keeps one sample at a time: with none of them,
 * samples of one site and event only add to sums. */
static unsigned per_sample_fields(const struct state *st)
{
	return DATA_FIELDS | (st->threads_kept ? DT_SAMPLE_TID : 0);
}

/* Whether a view that prints to the tables' output is asked for. */
static bool wants_a_table(const struct state *st)
{
	for (int t = 0; t < DT_TABLE_COUNT; t++)
		if (st->want[t])
			return true;
	return false;
}

static int parse_arg(struct state *st, const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t klen = eq ? (size_t)(eq - arg) : strlen(arg);
	const char *val = eq ? eq + 1 : NULL;
	enum dt_view_arg va;
	/* a view, by the report's table of them (the page goes to a file) */
	int t = dt_table_from_str(arg, klen, &va);

#define KEY(k) (klen == strlen(k) && !strncmp(arg, k, klen))
	if (t >= 0 && t != DT_TABLE_HTML &&
	    (va == DT_VIEW_ARG_TYPE || (va == DT_VIEW_ARG_NONE && !val) ||
	     (va == DT_VIEW_ARG_SYMBOL && val && *val))) {
		st->want[t] = true;
		st->view_arg[t] = val && *val ? val : NULL;
	} else if (KEY("html") && val && *val) {
		st->html = val;
	} else if (KEY("source-dir") && val && *val) {
		st->source_dirs = val;
	} else if (KEY("help") && !val) {
		st->help = true;
	} else if (KEY("sort") && val) {
		int k = dt_sort_from_str(val);
		if (k < 0) {
			note("sort=%s: use samples, period or weight", val);
			return -EINVAL;
		}
		st->sort = (enum dt_sort)k;
	} else if (KEY("window") && val) {
		uint64_t ns;
		if (dt_window_from_str(val, &ns)) {
			note("window=%s: milliseconds, a number from 0", val);
			return -EINVAL;
		}
		dt_report_set_window(st->report, ns);
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
	} else if (KEY("threads") && val) {
		if (strcmp(val, "1") && strcmp(val, "2")) {
			note("threads=%s: use 1 or 2", val);
			return -EINVAL;
		}
		st->threads = *val - '0';
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

static void consume_chunk(void *arg, void *chunk);

/* The resolving thread's first work: the binaries perf.data says have
 * samples, opened while perf loads symbols. */
static void open_ahead(void *arg)
{
	struct state *st = arg;

	prefetch_dsos(st->dsos, &st->dsos_lock, st->perfdata_fd);
	st->perfdata_fd = -1;
}

/* Compile units a slice of idle work walks: a few milliseconds at most,
 * the delay a chunk that comes meanwhile may see. */
#define PREPARE_UNITS 4

/* The resolving thread, waiting for samples: the indexes of the whole
 * binaries opened so far that answers may need (made on first need
 * otherwise), a slice at a time.  perf's thread resolves nothing then
 * (help() waits for the slice to end): the sessions are this thread's. */
static bool prepare(void *arg)
{
	struct state *st = arg;

	return !dt_dsos_prepare(st->dsos, PREPARE_UNITS);
}

/* A resolving thread of its own, unless one CPU or filter=TYPE (which
 * answers in filter_event) or threads=1 says otherwise, or, unless
 * threads=2 asks for it, every binary of the profile has its answers
 * kept from an earlier run: then there is little naming to take off
 * perf's thread, and a second thread costs more CPU than it saves (the
 * sites it counts cross between the CPUs' caches).  Failing to make one
 * is not an error: perf's thread resolves. */
static void start_thread(struct state *st)
{
	int threads = st->threads ? st->threads :
		      sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;
	struct handoff_work work = {
		.prelude = open_ahead, .consume = consume_chunk,
		.idle = prepare, .arg = st,
	};

	if (threads < 2 || st->filter_type)
		return;
	st->perfdata_fd = prefetch_find_perfdata();
	if (!st->threads && prefetch_all_kept(st->dsos, st->perfdata_fd)) {
		close(st->perfdata_fd);
		st->perfdata_fd = -1;
		if (st->env.debug)
			note("every binary of the profile has its answers kept: "
			     "one thread (threads=2 for two)");
		return;
	}
	if (handoff_start(&st->handoff, sizeof(struct chunk), &work)) {
		if (st->perfdata_fd >= 0)
			close(st->perfdata_fd);
		return;
	}
	st->chunk = handoff_chunk(st->handoff);
	st->chunk->n = 0;
}

/* start()'s way out: what it made so far freed, err returned. */
static int start_failed(struct state *st, int err)
{
	if (st->count_fd >= 0)
		close(st->count_fd);
	dt_dsos_free(st->dsos);
	dt_report_free(st->report);
	sites_free(&st->sites);
	free(st);
	return err;
}

EXPORT int start(void **data, void *ctx)
{
	struct state *st = aligned_alloc(64, (sizeof(*st) + 63) & ~(size_t)63);
	int argc = 0;
	char **argv;

	if (st)
		memset(st, 0, sizeof(*st));
	if (!st || sites_init(&st->sites) || dt_report_new(&st->report)) {
		if (st)
			sites_free(&st->sites);
		free(st);
		return -ENOMEM;
	}
	pthread_mutex_init(&st->dsos_lock, NULL);
	st->perfdata_fd = -1;
	st->count_fd = prefetch_find_perfdata();
	st->format = DT_FORMAT_PERF;
	argv = perf_dlfilter_fns.args ? perf_dlfilter_fns.args(ctx, &argc) : NULL;
	for (int i = 0; i < argc; i++) {
		int err = parse_arg(st, argv[i]);
		if (err) {
			return start_failed(st, err);
		}
	}
	/* perf's process is not ours: no heap tuning, no signal handler
	 * (out of memory inside libdw's own asserts ends perf, as libdw
	 * means it to; its out-of-memory handler, set per session, answers
	 * no_memory).  The environment's say, as options. */
	dt_env_read(&st->env);
	if (st->env.warning[0])
		note("%s", st->env.warning);
	struct dt_dsos_opts o = { .sz = sizeof(o), .vmlinux = st->vmlinux,
				  .log = log_note, .session = &st->env.session,
				  .buildid_dir = st->env.buildid_dir };
	if (dt_dsos_new(&o, &st->dsos)) {
		return start_failed(st, -ENOMEM);
	}
	/* The report is the default; every other table replaces it (ask for
	 * both with report).  With filter=TYPE perf prints the kept samples,
	 * and tables only when asked for. */
	/* advise reads which functions read which members (co-access) */
	if ((st->want[DT_TABLE_CODE] || st->html || st->want[DT_TABLE_ADVISE]) &&
	    dt_report_keep_pcs(st->report)) {
		return start_failed(st, -ENOMEM);
	}
	if (st->help) {
		printf("%s\n", dlargs_help);
		fflush(stdout);
	}
	if (!wants_a_table(st) && !st->html && !st->filter_type)
		st->want[DT_TABLE_TYPES] = true;
	st->threads_kept = st->want[DT_TABLE_ANNOTATE] || st->want[DT_TABLE_SHARING] ||
			   st->want[DT_TABLE_ADVISE] || st->html;
	if (!st->threads_kept)
		dt_report_no_threads(st->report);	/* no table shows them */
	/* a tally keeps the thread in its context */
	st->per_sample = st->filter_type || st->help ? ~0u : DATA_FIELDS;
	st->fast_event = (const char *)&st->fast_event;	/* no sample's */
	start_thread(st);
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
		return (s->addr ? DT_SAMPLE_ADDR | (s->time ? DT_SAMPLE_TIME : 0) : 0) |
		       (s->weight ? DT_SAMPLE_WEIGHT : 0) |
		       (s->data_src ? DT_SAMPLE_DATA_SRC : 0) | DT_SAMPLE_TID |
		       DT_SAMPLE_PID | (s->cpu >= 0 ? DT_SAMPLE_CPU : 0);
	if ((a->sample_type & PERF_SAMPLE_ADDR) &&
	    !(a->type == PERF_TYPE_BREAKPOINT && (a->bp_type & HW_BREAKPOINT_X)))
		has |= DT_SAMPLE_ADDR;
	if (a->sample_type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		has |= DT_SAMPLE_WEIGHT;
	if (a->sample_type & PERF_SAMPLE_DATA_SRC)
		has |= DT_SAMPLE_DATA_SRC;
	if (a->sample_type & PERF_SAMPLE_TID)
		has |= DT_SAMPLE_TID | DT_SAMPLE_PID;
	if (a->sample_type & PERF_SAMPLE_CPU)
		has |= DT_SAMPLE_CPU;
	/* a time only matters beside an address (the sharing window) */
	if ((a->sample_type & PERF_SAMPLE_TIME) && (has & DT_SAMPLE_ADDR))
		has |= DT_SAMPLE_TIME;
	return has;
}

/* How event name's samples resolve and what they carry (perf's thread),
 * and in *index its place in st->kinds (past EVENT_KINDS events, the last
 * one's: the report counts those as "(other events)" anyway). */
/* Which call an allocator event of dtprof-record's is (ALLOC_*; its
 * samples are no data access of the program, never counted as one). */
static uint8_t allocator_call(const char *name)
{
	switch (dt_alloc_probe_of(name, strlen(name))) {
	case DT_PROBE_ALLOC: return ALLOC_ENTER;
	case DT_PROBE_CALLOC: return ALLOC_CALLOC;
	case DT_PROBE_REALLOC: return ALLOC_RESIZE;
	case DT_PROBE_FREE: return ALLOC_FREE;
	case DT_PROBE_RETURN: return ALLOC_RETURN;
	case DT_PROBE_KERNEL_ALLOC: return ALLOC_KERNEL_BLOCK;
	case DT_PROBE_KERNEL_FREE: return ALLOC_KERNEL_FREE;
	case DT_PROBE_STORED: return ALLOC_STORED;
	case DT_PROBE_RETURN_CODE: return ALLOC_RETURN_CODE;
	case DT_PROBE_NONE:
	case DT_PROBE_OTHER:
		break;
	}
	return ALLOC_NONE;
}

static const struct event_kind *event_kind(struct state *st,
					   const struct perf_dlfilter_sample *s,
					   void *ctx, unsigned *index)
{
	const char *name = s->event ? s->event : "samples";
	unsigned i = st->last_kind;

	if (i >= st->nkinds || st->kinds[i].name != name)
		for (i = 0; i < st->nkinds && st->kinds[i].name != name; i++)
			;
	if (i < st->nkinds) {
		*index = st->last_kind = i;
		return &st->kinds[i];
	}
	/* Samples of events without precise ip land after the instruction
	 * that waited; execute breakpoints (mem:A:x), precise events (:pp)
	 * and faults land on it. */
	struct perf_event_attr *attr = perf_dlfilter_fns.attr ?
				       perf_dlfilter_fns.attr(ctx) : NULL;
	bool precise = attr && (attr->precise_ip ||
				attr->type == PERF_TYPE_BREAKPOINT ||
				is_fault_event(attr));
	bool skid = st->skid == SKID_ON || (st->skid == SKID_AUTO && !precise);
	if (attr && (attr->sample_type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR)) &&
	    !(attr->sample_type & PERF_SAMPLE_ADDR) && !st->regs_said) {
		st->regs_said = true;
		note("this perf.data has sampled registers, which perf does not pass to a "
		     "dlfilter: for data addresses from them (sharing confirmed or refuted), "
		     "use perf script -F " DT_PERF_SCRIPT_REGS_FIELDS " --show-mmap-events"
		     " | dtresolve --aggregate=sharing");
	}
	struct event_kind *k = &st->kinds[st->nkinds < EVENT_KINDS ? st->nkinds :
					  EVENT_KINDS];	/* the spare */

	*k = (struct event_kind){ .name = name,
				  .flags = skid ? DT_RESOLVE_SKID : 0,
				  .has = sample_fields(attr, s),
				  .allocator = dt_alloc_probe_of(name, strlen(name)) !=
					       DT_PROBE_NONE };
	k->tallies = !k->allocator && !(k->has & st->per_sample);
	if (k->allocator)
		k->alloc = allocator_call(name);
	snprintf(k->copy, sizeof(k->copy), "%s", name);
	*index = st->nkinds < EVENT_KINDS ? st->last_kind = st->nkinds++ :
		 EVENT_KINDS - 1;
	return k;
}

/* The report's index of kind k's event (the resolving thread). */
static int report_event(struct state *st, unsigned k)
{
	if (!st->kind_ev[k])
		st->kind_ev[k] = dt_report_event(st->report, st->kinds[k].copy) + 1;
	return st->kind_ev[k] - 1;
}

/* Instruction bytes as perf has them (its object_code reads the recorded
 * binary through its own maps and caches); the file is the fallback.
 * Only in perf's thread: ctx is valid during filter_event alone. */
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

/* Name a site's type, under its binary's lock (either thread).  In
 * perf's thread during filter_event (ctx_valid) the instruction bytes are
 * perf's object_code's; ctx is valid only there. */
static void resolve_site(struct state *st, struct site *t, void *ctx,
			 bool ctx_valid)
{
	enum dt_reason why = DT_NO_DSO;
	struct dt_session *s = NULL;
	uint64_t pc = 0;
	int linked = -1;

	pthread_mutex_lock(&st->dsos_lock);
	if (t->dso)
		s = dt_dsos_get(st->dsos, t->dso->name, t->dso->build_id,
				t->dso->build_id_size, &why);
	if (s)
		linked = dt_dsos_link_pc(st->dsos, t->dso->name, t->addr, t->sym,
					 t->symoff, &pc);
	pthread_mutex_unlock(&st->dsos_lock);
	if (!s) {
		dt_answer_miss(&t->ans, t->ip, why);
		if (t->dso)
			atomic_store_explicit(&t->dso->binary->no_session, (int)why + 1,
					      memory_order_release);
	} else if (linked) {
		dt_answer_miss(&t->ans, t->ip, DT_NO_INSN);
	} else {
		struct code_source src = { ctx, t->ip - pc };
		if (ctx_valid)
			dt_session_set_code_reader(s, read_object_code, &src);
		dt_resolve_sample(s, pc, t->flags, &t->ans);
		dt_session_set_code_reader(s, NULL, NULL);	/* ctx ends here */
	}
	t->session = s;
}

/* Site i with its answer (the resolving thread): resolved here unless
 * perf's thread, helping at the end (help()), has it; NULL for NO_SITE. */
static struct site *site_answer(struct state *st, uint32_t i,
				void *ctx, bool ctx_valid)
{
	if (i == NO_SITE)
		return NULL;
	struct site *t = sites_at(&st->sites, i);
	if (atomic_load_explicit(&t->answered, memory_order_acquire))
		return t;
	struct binary_lock *b = t->dso ? t->dso->binary : NULL;
	if (b) {
		atomic_store(&b->waiting, true);
		pthread_mutex_lock(&b->lock);
		atomic_store(&b->waiting, false);
	}
	/* the helper answers only under the lock: answered is final here */
	if (!atomic_load_explicit(&t->answered, memory_order_relaxed)) {
		resolve_site(st, t, ctx, ctx_valid);
		atomic_store_explicit(&t->answered, true, memory_order_release);
	}
	if (b)
		pthread_mutex_unlock(&b->lock);
	return t;
}

/* 1 + the reason site t is not resolved, when that needs no resolving:
 * perf placed it in no binary, or its binary has no session.  0: it must
 * be resolved. */
static int known_miss(const struct site *t)
{
	return !t->dso ? DT_NO_DSO + 1 :
	       atomic_load_explicit(&t->dso->binary->no_session, memory_order_acquire);
}

/* Answers site t if known_miss() knows its answer.  Only in perf's thread
 * while the other is paused: no chunk is consumed, so no one else answers
 * t. */
static bool answer_known(struct site *t)
{
	int why = known_miss(t);

	if (!why)
		return false;
	dt_answer_miss(&t->ans, t->ip, (enum dt_reason)(why - 1));
	t->session = NULL;
	atomic_store_explicit(&t->answered, true, memory_order_release);
	return true;
}

/* perf's thread, done reading while the resolving thread still counts:
 * it answers sites too, from the last one back (the other thread goes
 * forward), in binaries whose lock is free and not waited for.  Both
 * threads use one session per binary, so their answers are the ones the
 * resolving thread alone would give. */
static void help(void *arg)
{
	struct state *st = arg;

	for (uint32_t i = st->sites.n; i-- > 0;) {
		struct site *t = sites_at(&st->sites, i);
		struct binary_lock *b = t->dso ? t->dso->binary : NULL;
		if (!b || atomic_load_explicit(&t->answered, memory_order_acquire) ||
		    atomic_load(&b->waiting) || pthread_mutex_trylock(&b->lock))
			continue;
		if (!atomic_load_explicit(&t->answered, memory_order_relaxed)) {
			resolve_site(st, t, NULL, false);
			atomic_store_explicit(&t->answered, true, memory_order_release);
		}
		pthread_mutex_unlock(&b->lock);
	}
}

/* Add sums of site t (answered) to the report. */
static void add_sums(struct state *st, const struct site *t, struct site_sums *sums)
{
	dt_report_add_many(st->report, report_event(st, sums->kind), t->session,
			   &t->ans, sums->n, sums->period);
	sums->n = sums->period = 0;
}

/* n samples of site in context ctx, with these periods, to the report
 * (sites_tallies_each()).  Its first sample was counted: it has its
 * answer, and the rows the sums add to exist (sums commute). */
static void add_tally(void *arg, uint32_t site, unsigned ctx, uint64_t n,
		      uint64_t period)
{
	struct state *st = arg;
	const struct tally_ctx *c = &st->ctxs[ctx];
	struct site *a = site_answer(st, site, NULL, false);

	st->tallied += n;
	if (!st->threads_kept) {
		struct site_sums sums = { .kind = (uint8_t)c->kind, .n = n, .period = period };
		add_sums(st, a, &sums);
		return;
	}
	struct dt_sample smp = {
		.sz = sizeof(smp), .period = period,
		.pid = c->pid, .tid = c->tid, .cpu = c->cpu,
		.has = st->kinds[c->kind].has & (DT_SAMPLE_PID | DT_SAMPLE_TID | DT_SAMPLE_CPU),
	};
	dt_report_add_alike(st->report, report_event(st, c->kind), a->session, &a->ans,
			    &smp, n);
}

/* Every site's kept-back samples in the report: the counting thread's
 * batches and perf's thread's tallies (in perf's thread, the other one
 * ended, before the tables).  A site with a tally had its first sample
 * counted, so it has its answer. */
static void flush_sums(struct state *st)
{
	for (uint32_t i = 0; i < st->sites.n; i++) {
		struct site *t = sites_at(&st->sites, i);
		if (t->batch.n)
			add_sums(st, t, &t->batch);
	}
	sites_tallies_each(&st->sites, add_tally, st);
}

/* A sample that only adds to its site's sums: it has a period and nothing
 * the report keeps per sample, and is not its site's first (whose count
 * makes the report's rows in the order one sample at a time makes them).
 * Not inlined: bench/callgrind.sh counts its instructions. */
static __attribute__((noinline)) bool batched(struct state *st, struct site *t,
					      const struct pending *p)
{
	if (!t->counted || (p->has & per_sample_fields(st))) {
		t->counted = true;
		return false;
	}
	if (t->batch.n && t->batch.kind != p->kind)
		add_sums(st, t, &t->batch);
	t->batch.kind = p->kind;
	t->batch.n++;
	st->batched++;
	t->batch.period += p->period;
	return true;
}

/* An allocator event to the heap's blocks (the counting thread, in
 * perf.data's order with the samples): a return's site is the binary and
 * link-time address it returned to, asked under its binary's lock (the
 * report proves the site's type there). */
static void feed_alloc(struct state *st, const struct pending *p,
		       const struct pending_data *d)
{
	struct dt_alloc a = { .sz = sizeof(a), .pid = p->pid, .tid = p->tid,
			      .time = d->time, .size = d->weight, .ptr = d->addr,
			      .elem_size = d->data_src };
	struct binary_lock *b = NULL;

	switch (st->kinds[p->kind].alloc) {
	case ALLOC_RESIZE:
		a.resize = true;
		/* fall through */
	case ALLOC_ENTER:
	case ALLOC_CALLOC:
		a.event = DT_ALLOC_ENTER;
		break;
	case ALLOC_RETURN_CODE:
		a.by_pointer = true;
		/* fall through */
	case ALLOC_RETURN:
		a.event = DT_ALLOC_RETURN;
		break;
	case ALLOC_STORED:
		a.event = DT_ALLOC_STORED;
		break;
	case ALLOC_KERNEL_BLOCK:
		a.event = DT_ALLOC_BLOCK;
		a.kernel = true;
		break;
	case ALLOC_KERNEL_FREE:
		a.kernel = true;
		/* fall through */
	default:
		a.event = DT_ALLOC_FREE;
		break;
	}
	if ((a.event == DT_ALLOC_RETURN || a.event == DT_ALLOC_BLOCK) && p->site != NO_SITE) {
		const struct site *t = sites_at(&st->sites, p->site);
		enum dt_reason why;
		if (t->dso) {
			b = t->dso->binary;
			atomic_store(&b->waiting, true);
			pthread_mutex_lock(&b->lock);
			atomic_store(&b->waiting, false);
			pthread_mutex_lock(&st->dsos_lock);
			a.site = dt_dsos_get(st->dsos, t->dso->name, t->dso->build_id,
					     t->dso->build_id_size, &why);
			if (a.site && dt_dsos_link_pc(st->dsos, t->dso->name, t->addr, t->sym,
						      t->symoff, &a.site_pc)) {
				a.site = NULL;
				why = DT_NO_INSN;
			}
			if (!a.site) {	/* named as perf named it (the kernel's
					 * sites keep their symbol) */
				a.site_dso = t->dso->name;
				a.site_sym = t->sym;
				a.site_symoff = t->sym ? t->symoff : 0;
				a.site_why = why;
			}
			pthread_mutex_unlock(&st->dsos_lock);
		}
	}
	int err = dt_report_alloc(st->report, &a);
	if (b)
		pthread_mutex_unlock(&b->lock);
	if (err == -ENOMEM && !st->oom_said) {
		note("out of memory keeping the heap's blocks: allocation sites are missing");
		st->oom_said = true;
	}
	st->allocator_fed++;
}

/* Resolve and count one sample (the resolving thread); NULL when out of
 * memory (counted as such, and said once). */
static const struct site *count(struct state *st, const struct pending *p,
				const struct pending_data *d, void *ctx, bool ctx_valid)
{
	if (st->kinds[p->kind].allocator) {
		feed_alloc(st, p, d);
		return NULL;
	}
	struct site *a = site_answer(st, p->site, ctx, ctx_valid);

	if (a && batched(st, a, p))
		return a;
	struct dt_sample smp = {
		.sz = sizeof(smp),
		.period = p->period, .pid = p->pid, .tid = p->tid,
		.cpu = p->cpu == NO_CPU ? -1 : p->cpu, .has = p->has,
	};
	if (p->has & DATA_FIELDS) {
		smp.addr = d->addr;
		smp.weight = d->weight;
		smp.data_src = d->data_src;
		smp.time = d->time;
	}
	struct dt_answer oom;

	if (!a) {
		dt_answer_miss(&oom, 0, DT_NO_MEMORY);
		if (!st->oom_said)
			note("out of memory keeping the samples' places: "
			     "those samples count as no_memory");
		st->oom_said = true;
	}
	dt_report_add_sample(st->report, report_event(st, p->kind),
			     a ? a->session : NULL, a ? &a->ans : &oom, &smp);
	return a;
}

/* The sample's site (perf's thread), from what perf's resolve_ip said of
 * it, al, with its event (kind, index k); *memo: its memo entry, NULL
 * when it has none. */
static uint32_t site_of(struct state *st, const struct perf_dlfilter_sample *sample,
			const struct event_kind *kind, unsigned c,
			const struct perf_dlfilter_al *al, struct site_memo **memo)
{
	const struct dso_name *dso;

	*memo = NULL;
	if (!al || !al->dso)	/* answered no_dso, by ip */
		return sites_get(&st->sites, NULL, sample->ip, kind->flags, sample->ip, 0, NULL);
	uint64_t tag = sites_memo_tag(al->dso, al->buildid_size, c);
	struct site_memo *m = sites_memo_find(&st->sites, tag, al->addr);
	if (m) {
		*memo = m;
		return m->site - 1;
	}
	dso = sites_dso(&st->sites, al->dso, al->buildid, al->buildid_size);
	if (!dso)
		return NO_SITE;
	uint32_t site = sites_get(&st->sites, dso, al->addr, kind->flags, sample->ip,
				  al->symoff, dso->kernel_side ? al->sym : NULL);
	*memo = sites_memo_put(&st->sites, tag, al->addr, site);
	return site;
}

static void consume_chunk(void *arg, void *chunk)
{
	struct state *st = arg;
	const struct chunk *c = chunk;

	for (unsigned i = 0; i < c->n; i++)
		count(st, &c->p[i], &c->d[i], NULL, false);
}

/* Whether site i has its answer (perf's thread, the other paused). */
static bool answered_here(struct state *st, uint32_t i)
{
	if (i < st->answered_below)
		return true;
	if (i == NO_SITE)
		return false;
	struct site *t = sites_at(&st->sites, i);
	return atomic_load_explicit(&t->answered, memory_order_acquire) ||
	       answer_known(t);
}

/* perf's thread: the chunk to the other thread.  After two chunks that
 * added no site to resolve (the one the other thread may still be
 * counting, and the one just handed over: waiting for them is short), it
 * tries to pause the other thread: once the queue is drained, every site
 * so far has its answer. */
static void publish(struct state *st)
{
	st->chunk = handoff_publish(st->handoff);
	st->chunk->n = 0;
	st->aging = false;
	st->chunk_age = 0;
	if (!st->chunk_new_sites && !st->last_new_sites) {
		st->pauses_tried++;
		if (handoff_pause(st->handoff)) {
			st->counting_here = true;
			st->answered_below = st->sites.n;
		} else {
			st->pauses_behind++;
		}
	}
	st->last_new_sites = st->chunk_new_sites;
	st->chunk_new_sites = 0;
}

/* perf's thread beside a resolving thread: it counts the sample itself
 * while that thread is paused and the sample's site has its answer, else
 * queues it. */
static void queue(struct state *st, const struct pending *p,
		  const struct pending_data *d, bool new_site, void *ctx)
{
	if (st->counting_here) {
		if (answered_here(st, p->site)) {
			count(st, p, d, ctx, true);
			st->counted_here++;
			return;
		}
		st->counting_here = false;	/* the other thread resolves it */
	}
	struct chunk *c = st->chunk;
	st->aging = true;
	c->p[c->n] = *p;
	if (p->has & DATA_FIELDS)
		c->d[c->n] = *d;
	c->n++;
	st->handed++;
	st->chunk_new_sites += new_site && !known_miss(sites_at(&st->sites, p->site));
}

/* perf's thread: a chunk goes over when full, or once perf has read a
 * chunk's worth of samples since its first: with most samples tallied,
 * its new sites would wait long while the other thread has nothing to
 * resolve. */
static void age_chunk(struct state *st)
{
	if (st->chunk->n && (st->chunk->n == CHUNK_SAMPLES ||
			     ++st->chunk_age == CHUNK_SAMPLES))
		publish(st);
}

/* The context of a sample of event k (thread: whose thread it keeps,
 * NULL for none), NO_CTX when MEMO_CTX_MAX + 1 are taken. */
static unsigned ctx_of(struct state *st, unsigned k, const struct perf_dlfilter_sample *thread)
{
	struct tally_ctx want = { k, -1, -1, -1 };
	unsigned i = st->last_ctx;

	if (thread) {
		want.pid = thread->pid;
		want.tid = thread->tid;
		want.cpu = thread->cpu >= 0 && thread->cpu < NO_CPU ? thread->cpu : -1;
	}
#define SAME_CTX(c) ((c).kind == want.kind && (c).pid == want.pid && \
		     (c).tid == want.tid && (c).cpu == want.cpu)
	if (i < st->nctxs && SAME_CTX(st->ctxs[i]))
		return i;
	for (i = 0; i < st->nctxs; i++)
		if (SAME_CTX(st->ctxs[i]))
			return st->last_ctx = i;
#undef SAME_CTX
	if (st->nctxs > MEMO_CTX_MAX)
		return NO_CTX;
	st->ctxs[st->nctxs] = want;
	st->kind_ctxs[k].w[st->nctxs / 64] |= 1ull << st->nctxs % 64;
	return st->last_ctx = st->nctxs++;
}

/* A sample added to its site's tally, in the open memo entry m. */
static inline void tally(struct state *st, struct site_memo *m, uint64_t period)
{
	m->period += period;
	/* full: its sums to a tally; without memory for that, the entry
	 * closes (for good: its count stays full) and the pair's later
	 * samples are counted one at a time */
	if (++m->n == UINT32_MAX && !sites_memo_spill(&st->sites, m))
		m->tag &= ~MEMO_OPEN;
}

/* An allocator event of dtprof-record (event k) to the heap's blocks,
 * handed over like a sample or fed here: its payload's fields read by
 * the event formats perf.data carries (allocevents.c).  False when it
 * cannot be read: a pipe, no formats, a field missing. */
static bool allocator_sample(struct state *st, const struct perf_dlfilter_sample *sample,
			     void *ctx, unsigned k)
{
	const struct event_kind *kind = &st->kinds[k];
	uint64_t ptr = 0, size = 0, nmemb = 1, elem = 0, call_site = 0;
	bool ok = false;

	if (!st->allocs_tried) {
		int fd = prefetch_find_perfdata();
		st->allocs_tried = true;
		st->allocs = alloc_events_open(fd, &st->allocs_why);
		if (fd >= 0)
			close(fd);
	}
	struct perf_event_attr *attr = perf_dlfilter_fns.attr ?
				       perf_dlfilter_fns.attr(ctx) : NULL;
	if (!st->allocs || !attr || !sample->raw_data)
		return false;
#define FIELD(name, v) alloc_events_field(st->allocs, attr->config, sample->raw_data, \
					  sample->raw_size, name, v)
	switch (kind->alloc) {
	case ALLOC_ENTER:
		ok = FIELD("size", &size);
		break;
	case ALLOC_CALLOC:
		ok = FIELD("size", &elem) && FIELD("nmemb", &nmemb);
		if (ok && __builtin_mul_overflow(elem, nmemb, &size))
			size = UINT64_MAX;
		break;
	case ALLOC_RESIZE:
		ok = FIELD("size", &size) && FIELD("ptr", &ptr);
		break;
	case ALLOC_RETURN:
	case ALLOC_RETURN_CODE:
		ok = FIELD("ret", &ptr);
		break;
	case ALLOC_FREE:
	case ALLOC_KERNEL_FREE:
	case ALLOC_STORED:
		ok = FIELD("ptr", &ptr);
		break;
	case ALLOC_KERNEL_BLOCK:
		ok = FIELD("ptr", &ptr) && FIELD("bytes_req", &size) &&
		     FIELD("call_site", &call_site) && perf_dlfilter_fns.resolve_address;
		break;
	}
#undef FIELD
	if (!ok)
		return false;
	uint32_t sites_before = st->sites.n;
	struct site_memo *m;
	uint32_t site = NO_SITE;
	if (kind->alloc == ALLOC_RETURN || kind->alloc == ALLOC_RETURN_CODE) {
		/* where it returned to: the sample's ip */
		site = site_of(st, sample, kind, NO_CTX, perf_dlfilter_fns.resolve_ip(ctx), &m);
	} else if (kind->alloc == ALLOC_KERNEL_BLOCK) {
		/* the kernel's call site, as a sample there would be */
		struct perf_dlfilter_sample at = *sample;
		struct perf_dlfilter_al al = { .size = sizeof(al) };
		at.ip = call_site;
		if (!perf_dlfilter_fns.resolve_address(ctx, call_site, &al))
			site = site_of(st, &at, kind, NO_CTX, &al, &m);
	}
	struct pending p = {
		.site = site,
		.kind = (uint8_t)k, .has = DT_SAMPLE_ADDR,	/* d goes too */
		.pid = sample->pid, .tid = sample->tid, .cpu = NO_CPU,
	};
	struct pending_data d = { .addr = ptr, .weight = size, .data_src = elem,
				  .time = sample->time };

	if (st->handoff) {
		queue(st, &p, &d, st->sites.n != sites_before, ctx);
		age_chunk(st);
	} else {
		feed_alloc(st, &p, &d);
	}
	return true;
}

/* Every sample filter_event() does not tally: al is what resolve_ip
 * said of it, when asked (al_asked). */
static __attribute__((noinline)) int
filter_slow(struct state *st, const struct perf_dlfilter_sample *sample, void *ctx,
	    const struct perf_dlfilter_al *al, bool al_asked)
{
	unsigned k;

	if (st->help)
		return 1;	/* --dlarg help: every sample dropped */
	if (sample->time > st->last_time)	/* perf passes them in order */
		st->last_time = sample->time;
	const struct event_kind *kind = event_kind(st, sample, ctx, &k);
	if (kind->allocator) {
		/* the spare kind's index is another event's */
		if (kind != &st->kinds[k] || !allocator_sample(st, sample, ctx, k))
			st->allocator_events++;	/* left out: said at stop() */
		return 1;
	}
	unsigned c = ctx_of(st, k, kind->tallies && st->threads_kept ? sample : NULL);
	bool fast = kind->tallies && sample->event && kind->name == sample->event &&
		    c != NO_CTX;
	st->fast_event = fast ? sample->event : (const char *)&st->fast_event;
	st->fast_tag = (uint64_t)c << 48 | MEMO_OPEN;
	st->fast_pid = sample->pid;
	st->fast_tid = sample->tid;
	st->fast_cpu = sample->cpu;
	uint32_t sites_before = st->sites.n;
	struct site_memo *m;
	uint32_t site = site_of(st, sample, kind, c,
				al_asked ? al : perf_dlfilter_fns.resolve_ip(ctx), &m);

	/* Only a context that tallies opens: a new entry at once, whether
	 * the pair had a sample before (its entry taken by another since) or
	 * this is its first, which goes its way below (nothing in between
	 * reads the entry).  The first sample of a site in another thread,
	 * the site's first of this event having gone its way (its answer
	 * known, its rows made), is tallied too: the thread's own rows
	 * (sharing's) are made when the tallies are added, and no table's
	 * order depends on when they were made. */
	bool first = true;	/* the pair's: counted one at a time */
	if (m && (m->tag & MEMO_OPEN)) {
		first = false;
	} else if (m && kind->tallies && m->n < UINT32_MAX) {
		bool kin_seen;
		first = sites_first(&st->sites, site, c, &st->kind_ctxs[k], &kin_seen) &&
			!kin_seen;
		m->tag |= MEMO_OPEN;
	}
	if (!first) {
		tally(st, m, sample->period);
		if (st->handoff)
			age_chunk(st);
		return 1;
	}
	struct pending p = {
		.site = site, .kind = (uint8_t)k, .has = (uint8_t)kind->has,
		.pid = sample->pid, .tid = sample->tid, .period = sample->period,
		.cpu = sample->cpu >= 0 && sample->cpu < NO_CPU ? (uint16_t)sample->cpu : NO_CPU,
	};
	struct pending_data d = { sample->addr, sample->weight, sample->data_src,
				  sample->time };
	const struct site *a = NULL;

	if (st->handoff) {
		queue(st, &p, &d, st->sites.n != sites_before, ctx);
		age_chunk(st);
	} else {
		a = count(st, &p, &d, ctx, true);
		st->counted_here++;
	}
	if (st->handoff)
		return 1;
	if (st->filter_type) {
		bool keep = a && a->ans.reason == DT_OK &&
			    dt_type_name_matches(a->session, a->ans.type, st->filter_type);
		st->filter_kept += keep;
		return keep ? 0 : 1;
	}
	return 1;
}

/* Most samples, once a profile's sites are known: of the event before
 * theirs, which may tally, at a site perf's thread found recently whose
 * memo entry is open.  One call into perf (resolve_ip), one memo entry
 * read and added to; everything else is filter_slow()'s. */
EXPORT int filter_event(void *data, const struct perf_dlfilter_sample *sample,
			void *ctx)
{
	struct state *st = data;

	if (sample->event != st->fast_event ||
	    (st->threads_kept && (sample->tid != st->fast_tid || sample->pid != st->fast_pid ||
				  sample->cpu != st->fast_cpu)))
		return filter_slow(st, sample, ctx, NULL, false);
	const struct perf_dlfilter_al *al = perf_dlfilter_fns.resolve_ip(ctx);
	/* sites_memo_tag(), its checks folded */
	if (!al || !al->dso || ((uintptr_t)al->dso >> 48 | al->buildid_size >> 8))
		return filter_slow(st, sample, ctx, al, true);
	uint64_t tag = (uintptr_t)al->dso | (uint64_t)al->buildid_size << 55 | st->fast_tag;
	struct site_memo *m = sites_memo_set(&st->sites, tag & ~MEMO_OPEN, al->addr);
	if (m->tag != tag || m->addr != al->addr) {
		m++;			/* the set's other way */
		_Static_assert(MEMO_WAYS == 2, "filter_event looks at two ways");
		if (m->tag != tag || m->addr != al->addr)
			return filter_slow(st, sample, ctx, al, true);
	}
	tally(st, m, sample->period);
	if (sample->time > st->last_time)	/* perf passes them in order */
		st->last_time = sample->time;
	/* age_chunk(), knowing the chunk is not full (queue() sends it
	 * when it is) and has samples when aging */
	if (st->aging && ++st->chunk_age == CHUNK_SAMPLES)
		publish(st);
	return 1;
}

/* One table; the first error is kept, out of memory said. */
static void print_table(FILE *f, struct state *st, enum dt_table t,
			const char *type, const char *symbol, int *err)
{
	struct dt_table_opts o = { .sz = sizeof(o), .format = st->format,
				   .type = type, .sort = st->sort, .symbol = symbol };
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

	if (!wants_a_table(st))
		return 0;
	if (st->output) {
		f = fopen(st->output, "w");
		if (!f) {
			note("cannot write '%s': %s", st->output, strerror(errno));
			return -errno;
		}
	}
	/* a view's argument is its type or its function: each view reads
	 * the one it takes */
	for (int t = 0; t < DT_TABLE_COUNT; t++)
		if (st->want[t])
			print_table(f, st, (enum dt_table)t, st->view_arg[t],
				    st->view_arg[t], &err);
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
	struct dt_table_opts o = { .sz = sizeof(o), .format = DT_FORMAT_PERF,
				   .source_dirs = st->source_dirs };
	err = dt_report_print(f, st->report, DT_TABLE_HTML, &o);
	if (ferror(f) | fclose(f)) {
		note("cannot write '%s': %s", st->html, strerror(errno ? errno : EIO));
		return -EIO;
	}
	if (err)
		note("'%s': %s", st->html, err == -EPROTO ?
		     "the totals do not add up (internal error)" : strerror(-err));
	return err;
}

/* Whether perf passed every sample of its perf.data: when perf stops
 * early (out of memory: "Unexpected error", exit 255) it still calls
 * stop(), and the tables would look whole.  Said once, and in them. */
static void check_complete(struct state *st)
{
	uint64_t in_file, first, last;
	uint64_t seen = dt_report_samples(st->report, -1) + st->allocator_events +
			st->allocator_fed;
	int err;

	if (st->count_fd < 0)
		return;		/* a pipe: no count to compare with */
	/* perf passes samples in time order: its last is the file's last
	 * when it read them all.  Only when it is not (or the file does not
	 * say) are the samples counted, which costs a pass over the data
	 * section (0.3 s for 11 M samples). */
	if (!dt_perfdata_sample_times(st->count_fd, &first, &last) && last &&
	    st->last_time >= last) {
		close(st->count_fd);
		st->count_fd = -1;
		return;
	}
	err = dt_perfdata_count_samples(st->count_fd, &in_file);
	close(st->count_fd);
	st->count_fd = -1;
	if (err == -ENOTSUP && st->env.debug)
		note("perf.data holds compressed records: its samples not counted");
	if (err || in_file <= seen)
		return;
	note("only %" PRIu64 " of the %" PRIu64 " samples in perf.data reached "
	     "the plugin: perf stopped early, or its options (--time, --cpu, "
	     "--pid, --tid) left samples out; the tables count those",
	     seen, in_file);
	dt_report_incomplete(st->report, in_file);
}

/* filter=TYPE kept no sample: said, with the close names of the types
 * the samples did touch (as annotate= does). */
static void filter_missed(struct state *st)
{
	const char *names[4096], *close[5];
	size_t n = dt_report_type_names(st->report, names, 4096), k = 0;
	char list[1024] = "";

	for (size_t i = 0; i < n && i < 4096 && k < 5; i++)
		if (dt_type_name_close(names[i], st->filter_type))
			close[k++] = names[i];
	for (size_t i = 0, len = 0; i < k && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
					i ? ", " : "; close names: ", close[i]);
	note("filter=%s kept no sample: no sample touched that type%s",
	     st->filter_type, list);
}

EXPORT int stop(void *data, void *ctx)
{
	struct state *st = data;
	int err;

	(void)ctx;
	if (!st)	/* start() failed (a bad --dlarg): perf still calls us */
		return 0;
	if (st->handoff)	/* the last samples resolved, the thread ended */
		handoff_finish(st->handoff, st->chunk->n > 0, help, st);
	flush_sums(st);
	if (st->env.debug)
		note("%" PRIu64 " samples handed to the resolving thread, %" PRIu64
		     " counted on perf's, %" PRIu64 " held in sums there; %" PRIu64
		     " added to the tables as sums; %" PRIu64 " pauses tried, %"
		     PRIu64 " with that thread behind; memo of %u sets, %" PRIu64
		     " entries with sums taken by others", st->handed, st->counted_here,
		     st->tallied, st->batched + st->tallied, st->pauses_tried,
		     st->pauses_behind, 1u << (64 - st->sites.memo_shift),
		     st->sites.memo_spills);
	if (st->allocator_events)
		note("%" PRIu64 " allocator events of dtprof-record left out (%s): the heap's "
		     "blocks miss them; dtresolve reads them from perf script's text (perf script -F "
		     DT_PERF_SCRIPT_REGS_FIELDS ",trace --show-mmap-events | dtresolve "
		     "--aggregate)", st->allocator_events,
		     st->allocs_why ? st->allocs_why : "a call or field the plugin does not know");
	else if (st->allocator_fed && st->env.debug)
		note("%" PRIu64 " allocator events of dtprof-record kept the heap's blocks",
		     st->allocator_fed);
	if (!st->help) {
		check_complete(st);
		if (st->filter_type && !st->filter_kept)
			filter_missed(st);
	}
	err = st->help ? 0 : print_tables(st);
	if (st->html)
		err |= write_html(st);
	dt_report_free(st->report);
	dt_dsos_free(st->dsos);
	pthread_mutex_destroy(&st->dsos_lock);
	sites_free(&st->sites);
	alloc_events_free(st->allocs);
	free(st);
	return err ? -1 : 0;
}

EXPORT const char *filter_description(const char **long_description)
{
	*long_description = dlargs_help;
	return "dtprof data-type profile: types, fields and layouts of sampled accesses";
}
