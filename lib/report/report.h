/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The aggregation's tables, shared by report.c (counting, types, layouts,
 * reasons) and sharing.c (threads per cache line).  Front ends see only
 * dtprof.h's struct dt_report.
 */
#ifndef DTPROF_REPORT_H
#define DTPROF_REPORT_H

#include "../dtprof.h"
#include "../sized.h"
#include "out.h"

#define NEV DT_REPORT_MAX_EVENTS
#define CACHE_LINE 64

/* What a row counts, per event.  A read-modify-write counts in loads,
 * in stores and in rmw; an access of unknown kind in none of them. */
struct counts {
	uint64_t samples[NEV], period[NEV];
	uint64_t loads[NEV], stores[NEV], rmw[NEV];
	uint64_t weight[NEV];		/* sum of the samples' weights */
	uint64_t weighed[NEV];		/* samples that carried a weight */
	uint64_t level[NEV][DT_LVL_COUNT];	/* by data source */
	uint64_t by_addr[NEV];		/* of the samples, those typed by their
					 * heap block (DT_SAMPLE_BY_ADDRESS) */
};

struct offset_row {
	int64_t offset;
	char *field;
	unsigned size;			/* access size first seen, 0 */
	struct counts c;
};

struct type_row {
	char *name;
	struct counts c;
	struct dt_session *session;	/* whose type it is, NULL for
					 * pseudo types (one row for all) */
	uint64_t type_id;
	struct offset_row *offs;
	size_t noffs, cap;
	uint32_t *off_slot;		/* offs by (offset, field) once there
					 * are many: arrays.h */
	size_t off_slots;
	uint64_t phase[CACHE_LINE];	/* samples with a data address by
					 * the object's start modulo 64 */
	uint64_t addressed;		/* their sum */
	bool shared_name;		/* another binary has a type of this
					 * name (set when printing) */
};

struct sharing;
struct sharing_view;
struct objects;
struct pc_table;

struct dt_report {
	char events[NEV][128];		/* names, "" unnamed: no allocation,
					 * so no event is lost or split */
	int nev;
	struct counts total;
	struct counts by_reason[DT_REASON_COUNT];
	struct type_row *types;
	size_t ntypes, cap;
	uint32_t *type_slot;		/* open addressing over types by
					 * (name, session): arrays.h */
	size_t type_slots;
	struct hot_key *hot;		/* HOT_SLOTS, the fast path */
	uint64_t lost[NEV];		/* samples we failed to store */
	bool any_weight, any_level, any_addr;
	uint64_t window;		/* dt_report_set_window, ns */
	uint64_t addr_why[DT_ADDR_WHY_COUNT];	/* register route: samples
						 * with an address (OK) and
						 * without, by reason */
	bool no_threads;		/* dt_report_no_threads: no sharing */
	bool reasons_only;		/* resolved samples in by_reason[DT_OK]
					 * (dt_report_reasons_only) */
	struct sharing *sharing;	/* sharing.c, NULL until a tid */
	struct objects *objects;	/* objects.c, NULL until an address */
	struct heap *heap;		/* heap.c, NULL until an allocator event */
	uint64_t sharing_lost;		/* samples it had no memory for */
	struct pc_table *pcs;		/* codeview.c: dt_report_keep_pcs() */
	uint64_t in_file;		/* dt_report_incomplete: samples the
					 * input held, when more than added */
};

/* The offset where type t's cache lines start: objects seen at one
 * alignment (data addresses) start their lines there; else 0. */
unsigned type_line_phase(const struct type_row *t);
/* The cache line of offset off in type t. */
int64_t type_line_of(const struct type_row *t, int64_t off);
/* The same, of a type whose lines start at phase (type_line_phase()). */
int64_t line_at_phase(int64_t off, unsigned phase);

/* How to record what confirms or refutes a suspected flag, for the
 * sharing table and the advice: each line starts with prefix, and table
 * is dtresolve's --aggregate= ("sharing", "advise=struct foo"). */
void report_confirm_hint(FILE *f, const char *prefix, const char *table);

/* Whether two times are at most window apart. */
static inline bool within(uint64_t a, uint64_t b, uint64_t window)
{
	return (a > b ? a - b : b - a) <= window;
}

/* How one thread's samples came on one real line or object: when the
 * first came, and how many came within a window of its previous one
 * there (near) or not (far). */
struct pace {
	uint64_t first;			/* ns */
	uint32_t near, far;
};

static inline void pace_note(struct pace *p, uint64_t now, uint64_t last,
			     uint64_t window)
{
	if (within(now, last, window))
		p->near++;
	else
		p->far++;
}

/* Whether a thread sampled on a line or object until o_last (pace op)
 * had left it by now (a hand-over): its samples there came dense, most
 * within a window of the one before, and none for more than a window,
 * nor for as long as its own rate there (its samples' gaps over their
 * span) would have filled with LEFT_SAMPLES samples.  A thread still
 * there is that silent one time in a thousand (e^-7); one sampled at
 * about one a window, silent for one window, a third of the time. */
#define LEFT_SAMPLES 7
static inline bool pace_left(const struct pace *op, uint64_t now, uint64_t o_last,
			     uint64_t window)
{
	uint64_t gaps = (uint64_t)op->near + op->far;

	return now >= o_last && !within(now, o_last, window) &&
	       op->near >= 2 && op->near > op->far && o_last >= op->first &&
	       (double)(now - o_last) * (double)gaps >=
	       LEFT_SAMPLES * (double)(o_last - op->first);
}

/* Whether two threads that never met in the samples of one line may
 * still have been there at once: the thread sampled now (its pace me)
 * and thread o (pace op, last there at o_last, one of them writing).
 * Not when their samples do not interleave so far (me's all came after
 * o's last: an object set up by one thread and used by another, which
 * pace_order_unsure() judges at the end, when all the samples are in),
 * nor when o had left (pace_left).  Otherwise, as for a lock every
 * thread takes now and then, sampled there a few times a second, the
 * samples cannot say: nothing is refuted. */
static inline bool pace_unsure(const struct pace *me, const struct pace *op,
			       uint64_t now, uint64_t o_last, uint64_t window)
{
	return me->first <= o_last && !pace_left(op, now, o_last, window);
}

/* A thread's samples on a line or object, from its pace. */
static inline uint64_t pace_samples(const struct pace *p)
{
	return (uint64_t)p->near + p->far + 1;
}

/* Two threads, one writing, whose samples on one line or object did not
 * interleave (one's all before the other's first): whether too few came
 * for that order to show they were never there at once.  Two threads
 * there all along, sampled at random, fall in one order or the other
 * with probability 2 / C(na + nb, na): three samples of one and two of
 * the other do so one time in five.  An order that chance gives more
 * often than one time in ORDER_CHANCE says nothing: a flag refuted
 * wrongly hides sharing, one left suspected only asks for more samples.
 * One in a thousand takes seven samples of each thread, or two of one
 * and 62 of the other. */
#define ORDER_CHANCE 1000
static inline bool pace_order_unsure(const struct pace *a, uint64_t a_last,
				     const struct pace *b, uint64_t b_last)
{
	if (a->first <= b_last && b->first <= a_last)
		return false;	/* interleaved: pace_unsure's to judge */
	uint64_t na = pace_samples(a), nb = pace_samples(b), c = 1;

	/* c = C(na + k, k) for k up to nb, while under 2 * ORDER_CHANCE */
	for (uint64_t k = 1; k <= nb && c < 2 * ORDER_CHANCE; k++)
		c = c * (na + k) / k;
	return c < 2 * ORDER_CHANCE;
}

/* ---- objects.c ---- */
/* Count one addressed sample typed row ti (ans->offset into it) on the
 * object it touched.  0 or -ENOMEM. */
int objects_add(struct dt_report *r, uint32_t ti, const struct dt_answer *ans,
		const struct dt_sample *smp);
void objects_free(struct objects *o);
#define OBJECT_HOTTEST 3
/* What the addresses show of one type's objects. */
struct object_facts {
	uint64_t objects;		/* distinct objects (start addresses) */
	uint64_t several;		/* touched by more than one thread */
	uint64_t shared;		/* written by one thread while another
					 * of its process touched it, within
					 * the window */
	uint64_t crowded;		/* touched by more threads than an
					 * object keeps: meetings may be
					 * unseen */
	uint64_t tracked;		/* samples on them whose process and
					 * thread are known and kept: what
					 * may say no thread shares them */
	uint64_t unsure;		/* touched by two threads, one
					 * writing, that met too seldom to
					 * confirm, or never met, sampled
					 * too thinly to say they were not
					 * there at once */
	uint64_t hot_base[OBJECT_HOTTEST], hot_samples[OBJECT_HOTTEST];
};
/* Samples past the objects' table, and pairs past the co-access one. */
uint64_t objects_untracked(const struct dt_report *r);
/* f[0..r->ntypes): each type's facts. */
void objects_facts(const struct dt_report *r, struct object_facts *f);
/* The facts of type row ti alone. */
void objects_facts_of(const struct dt_report *r, uint32_t ti, struct object_facts *f);
/* Offsets a < b of type row ti one thread touched on one object within
 * CO_WINDOW_NS of each other, n times: each pair. */
#define CO_WINDOW_NS 1000
void objects_co_pairs(const struct dt_report *r, uint32_t ti,
		      void (*fn)(void *arg, int64_t a, int64_t b, uint64_t n), void *arg);

/* The samples of bytes [lo, hi) of t whose access could not tell the
 * bitfields there apart ("{state|prio}"); false when none.  *which: one
 * such field's spelling. */
bool report_bits_undecided(const struct type_row *t, uint64_t lo, uint64_t hi,
			   struct counts *c, const char **which);
/* The same for the storage unit of the run of bitfields that layout row
 * last ends (false when it ends none, or none could not be told). */
bool report_bitfield_run_undecided(const struct type_row *t, const struct dt_layout *l,
				   size_t last, struct counts *c, const char **which);

/* ---- reallines.c ---- */
struct real_lines;
/* REAL_LINE_UNSURE: two threads, one writing, touched the line with
 * no meeting seen, but too few samples to say they were not there at
 * once (a thread sampled there less often than once a window, or
 * without times): not a meeting, and no refutation either. */
enum { REAL_LINE_FALSE = 1, REAL_LINE_TRUE = 2, REAL_LINE_UNSURE = 4 };
/* Count one addressed sample (type row ti, offset into it) of thread
 * smp->tid of process pid in its real line: *rl made on first use.  1
 * when its meetings are seen, 0 when the sample is past the table's or
 * the line's room (counted as untracked), or -ENOMEM. */
int real_lines_add(struct real_lines **rl, uint32_t ti, int64_t offset,
		   const struct dt_answer *ans, const struct dt_sample *smp,
		   int32_t pid, uint64_t window);
/* Each real line's meetings, by the meeting samples' type row and
 * offset: their kind (REAL_LINE_*) and how many samples met (0 for a
 * line only REAL_LINE_UNSURE). */
void real_lines_meetings(const struct real_lines *rl,
			 void (*fn)(void *arg, uint64_t line, uint32_t ti,
				    int64_t offset, unsigned kind, uint64_t samples),
			 void *arg);
uint64_t real_lines_untracked(const struct real_lines *rl);
/* Meetings past a line's room: their lines' flags can be neither
 * confirmed nor refuted. */
uint64_t real_lines_meetings_lost(const struct real_lines *rl);
void real_lines_free(struct real_lines *rl);

/* ---- sharing.c ---- */
/* Remember which thread touched offset row oi of type ti, how, and
 * where: n samples alike smp (its address and time are one sample's:
 * n is 1 with them).  0 or -ENOMEM (the samples are then left out of
 * this table only). */
int sharing_add(struct dt_report *r, uint32_t ti, uint32_t oi,
		const struct dt_answer *ans, const struct dt_sample *smp, uint64_t n);
void sharing_free(struct sharing *sh);
void sharing_print(struct out *o, const struct dt_report *r,
		   const struct dt_table_opts *opts);
/* The flagged lines of r, for annotate's banners: NULL when out of memory. */
struct sharing_view *sharing_view_new(const struct dt_report *r);
void sharing_view_free(struct sharing_view *sv);
/* How many threads touched cache line `line` of type ti (0: none seen or
 * no view), the flag's text ("" when none) and its evidence. */
unsigned sharing_view_line(const struct sharing_view *sv, uint32_t ti,
			   int64_t line, const char **flags, const char **evidence);
/* What threads did to bytes [lo, hi) of type ti, from the view's lines:
 * a thread wrote them while another touched other bytes of the line
 * (writes_beside), a thread touched them while another wrote other bytes
 * of the line (touched_beside_writes), several threads wrote them. */
struct range_sharing {
	bool writes_beside, touched_beside_writes, written_by_threads;
	int32_t writer;		/* the thread with the most stores there */
	int32_t writer_pid;	/* and its process (-1: not known) */
	unsigned threads;	/* 0, 1 or 2: how many threads of one
				 * process touch it (2: several) */
	int32_t toucher;	/* threads == 1: that one */
	int32_t toucher_pid;	/* and its process */
	unsigned processes;	/* 2: other processes touch it too */
	/* what data addresses say of the lines that make writes_beside:
	 * one of them confirmed (threads met in a real line), or one
	 * neither confirmed nor refuted (no addresses: suspected) */
	bool beside_confirmed, beside_suspected;
};
void sharing_view_range(const struct sharing_view *sv, uint32_t ti,
			int64_t lo, int64_t hi, struct range_sharing *out);
/* ---- codeview.c ---- */
/* Count n samples at ans->pc, and on the access they were charged to. */
void codeview_add(struct dt_report *r, int ev, struct dt_session *s,
		  const struct dt_answer *ans, uint64_t n);
void codeview_free(struct pc_table *t);
/* Each instruction of s that samples of event 0 were charged to, with
 * how many and the answer they were charged with (its reason, type_id
 * and offset; dt_resolve_pc()'s, resolved once a report, when they were
 * charged with several).  dt_report_keep_pcs kept them; none otherwise. */
void codeview_each_charged(const struct dt_report *r, struct dt_session *s,
			   void (*fn)(void *arg, uint64_t pc, uint64_t charged,
				      const struct dt_answer *a),
			   void *arg);
/* Samples of event ev at (s, pc) and charged to it; false when no row. */
bool codeview_counts(const struct dt_report *r, int ev, const struct dt_session *s,
		     uint64_t pc, uint64_t *samples, uint64_t *charged);
/* Function symbol of every binary sampled, instruction by instruction,
 * with its source lines: any regular file the DWARF names, or confined
 * (a page to share) those under the unit's compilation directory or one
 * of source_dirs (':'-separated, may be NULL). */
void codeview_print(struct out *o, const struct dt_report *r, const char *symbol,
		    bool confined, const char *source_dirs);

/* The functions with the most samples (event 0), hottest first. */
struct hot_function {
	struct dt_session *s;
	const char *name;		/* interned in s */
	uint64_t samples;
	uint64_t start, size;		/* its symbol's (the lowest, for a
					 * name held twice) */
};
size_t codeview_hot_functions(const struct dt_report *r,
			      struct hot_function *out, size_t max);
/* One of them, as codeview_print() prints a function: in its own binary,
 * found without the binaries' name tables. */
void codeview_print_function(struct out *o, const struct dt_report *r,
			     const struct hot_function *fn, bool confined,
			     const char *source_dirs);

/* ---- heap.c ---- */
struct heap;
/* An allocation site and what its blocks saw. */
struct heap_site {
	struct dt_session *s;		/* its binary, NULL: none known */
	uint64_t pc;			/* link-time return address */
	struct dt_answer type;		/* dt_resolve_alloc_site()'s */
	uint64_t allocs, frees, live, max_live;
	uint64_t bytes, min_size, max_size;
	uint64_t samples;		/* with a data address in its blocks */
	uint64_t typed_samples;		/* of them, typed by their block */
	uint64_t contradicted;		/* typed by their instruction as an
					 * object the block cannot hold */
	char *contra_note;		/* what such a sample's answer notes
					 * (made at the first, NULL before) */
	char *dso, *sym;		/* no binary (s NULL): where perf put
					 * it, pc the offset in sym; NULL */
};
struct heap_totals {
	uint64_t events, unmatched, allocs, live, in_blocks, by_address;
	uint64_t agreed;		/* typed by their instruction as what
					 * their block holds there */
	uint64_t contradicted;		/* as what it cannot hold */
	uint64_t stale;			/* blocks a newer one overlapped */
	uint64_t refused;		/* returns of a block past the address
					 * space: not followed */
};
void heap_free(struct heap *h);
const struct heap_site *heap_sites(const struct heap *h, size_t *n);
void heap_totals(const struct heap *h, struct heap_totals *t);

/* ---- views.c: the registry of views ---- */
/* What every view prints with: the output layer (out.h, in the format
 * the options ask), the report, its type rows sorted as the options say,
 * the options.  0 or -ENOMEM. */
typedef int report_view_fn(struct out *o, const struct dt_report *r, struct type_row **v,
			   const struct dt_table_opts *opts);
/* heapview.c: the allocation sites (the objects view) */
report_view_fn heap_print;
/* report.c's own tables: the types, annotate, the reasons */
report_view_fn report_print_types, report_print_annotate, report_print_stat;
/* r's type rows in the order sort asks, NULL-terminated (free());
 * NULL without memory. */
struct type_row **report_sorted_types(const struct dt_report *r, enum dt_sort sort);
/* rows + reasons == samples, per event and per column, and a type's
 * offsets == the type: 0, else -EPROTO, said on f (NULL: not said). */
int report_check_totals(FILE *f, const struct dt_report *r);

/* ---- html.c ---- */
/* The whole report as one HTML page.  0 or -ENOMEM. */
int html_print(struct out *o, const struct dt_report *r, struct type_row **v,
	       const char *source_dirs);

/* ---- advise.c ---- */
/* Proposed member orders of the hot structs (o->type: that one), as C
 * (or tsv).  0 or -ENOMEM. */
report_view_fn advise_print;
/* The advice on row t alone (sv: the sharing facts, may be NULL).  0,
 * -ENOENT (no DWARF for it) or -ENOMEM. */
int advise_type(struct out *o, const struct dt_report *r,
		const struct sharing_view *sv, const struct type_row *t);

/* Whether row t is a type the user named `query` (annotate=, advise=,
 * the sharing table's type): full name, bare tag or typedef name. */
bool report_type_selected(const struct type_row *t, const char *query);
/* In the human tables (as a C comment: advise), the note on a name:
 * which types it matched when more than one, or the close names when
 * none. */
void report_name_note(FILE *f, const struct dt_report *r, const char *query,
		      bool as_c);
/* The samples layout row i of t stands for (a member's: not those of the
 * holes inside it). */
void report_row_counts(const struct type_row *t, const struct dt_layout *l,
		       size_t i, struct counts *c);
/* The counts of t's offset rows in [lo, hi). */
void report_sum_range(const struct type_row *t, uint64_t lo, uint64_t hi,
		      struct counts *c);
/* Samples of event e counted under a reason (not resolved to a type). */
uint64_t report_unresolved(const struct dt_report *r, int e);
/* Event e's name ("samples" when the input named none). */
const char *report_event_name(const struct dt_report *r, int e);
const char *report_type_label(const struct type_row *t, char *buf, size_t len);
/* The row of type name in binary s (NULL: pseudo types and types without
 * DWARF), or of offset off and field in t, added when new; NULL when out
 * of memory.  *idx: its index. */
struct type_row *report_type_row(struct dt_report *r, const char *name,
				 struct dt_session *s, size_t *idx);
struct offset_row *report_offset_row(struct type_row *t, int64_t off,
				     const char *field, size_t *idx);

#endif
