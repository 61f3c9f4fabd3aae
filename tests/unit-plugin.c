// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * dtplugin.so driven the way perf drives it, through a fake
 * perf_dlfilter_fns: memory-event samples, several events, binaries
 * without DWARF, unreadable code, missing dsos, filter=TYPE, output=FILE.
 * The plugin's own code is what runs; only perf is faked.
 */
#define _GNU_SOURCE	/* dladdr */
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <gelf.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <inttypes.h>
#include <linux/perf_event.h>
#include <perf/perf_dlfilter.h>

#include "../lib/dtprof.h"
#include "tap.h"

struct node { struct node *next; long key; long val; };

__attribute__((noinline, used)) long probe_key(struct node *n)
{
	return n->key;
}

__attribute__((noinline, used)) void probe_store(struct node *n, long v)
{
	n->val = v;
}

/* The sample being fed, as the fake resolve_ip reports it. */
static struct perf_dlfilter_al fake_al;
static bool fake_al_null;
static struct perf_event_attr fake_attr;
static char *fake_argv[8];
static int fake_argc;

static const struct perf_dlfilter_al *fake_resolve_ip(void *ctx)
{
	(void)ctx;
	return fake_al_null ? NULL : &fake_al;
}

static char **fake_args(void *ctx, int *argc)
{
	(void)ctx;
	*argc = fake_argc;
	return fake_argv;
}

/* object_code: NULL fake_code = unreadable (0 bytes: the plugin falls
 * back to the file); else these bytes. */
static const uint8_t *fake_code;
static size_t fake_code_len;
static int object_code_calls;

static __s32 fake_object_code(void *ctx, __u64 ip, void *buf, __u32 len)
{
	(void)ctx;
	(void)ip;
	object_code_calls++;
	if (!fake_code)
		return 0;
	if (len > fake_code_len)
		len = (__u32)fake_code_len;
	memcpy(buf, fake_code, len);
	return (__s32)len;
}

static struct perf_event_attr *fake_get_attr(void *ctx)
{
	(void)ctx;
	return &fake_attr;
}

/* File offset of a link-time address of the ELF at path. */
static uint64_t file_offset(const char *path, uint64_t addr)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	size_t n;
	uint64_t off = 0;

	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && !elf_getphdrnum(e, &n))
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_filesz)
				off = addr - ph.p_vaddr + ph.p_offset;
		}
	elf_end(e);
	close(fd);
	return off;
}

struct plugin {
	int (*start)(void **, void *);
	int (*filter_event)(void *, const struct perf_dlfilter_sample *, void *);
	int (*stop)(void *, void *);
	const char *(*describe)(const char **);
	struct perf_dlfilter_fns *fns;
};

/* What the next samples carry besides the instruction. */
static struct { int tid, cpu; uint64_t addr, weight, data_src; } fake_sample = {
	1, 0, 0x7ffd00001008, 120, 0x68100142,
};

/* Each sample a microsecond after the one before. */
static uint64_t fake_time;

static int feed(struct plugin *p, void *data, const char *event, const char *dso,
		uint64_t addr)
{
	struct perf_dlfilter_sample s = {
		.size = sizeof(s), .ip = 0x7f0000001000, .pid = 1,
		.time = fake_time += 1000,
		.tid = fake_sample.tid, .cpu = fake_sample.cpu,
		.addr = fake_sample.addr, .period = 1, .weight = fake_sample.weight,
		.data_src = fake_sample.data_src, .event = event,
	};

	fake_al_null = dso == NULL;
	fake_al = (struct perf_dlfilter_al){ .size = sizeof(fake_al),
		.dso = dso, .addr = addr, .is_64_bit = 1 };
	return p->filter_event(data, &s, NULL);
}

/* Samples of every kind of answer: 8 on struct node (two events), a
 * binary without DWARF, an offset past the code, a missing file, a FIFO,
 * [vdso] and no dso at all.  Returns how many perf was told to keep. */
static int feed_mix(struct plugin *p, void *data, const char *self,
		    uint64_t off, const char *fifo)
{
	int kept = 0;

	for (int i = 0; i < 5; i++)
		kept += feed(p, data, "mem-loads", self, off) == 0;
	for (int i = 0; i < 3; i++)
		kept += feed(p, data, "mem-stores", self, off) == 0;
	kept += feed(p, data, "mem-loads", "/bin/true", 0x1000) == 0;
	kept += feed(p, data, "mem-loads", self, 0x7fffffffffff) == 0;
	kept += feed(p, data, "mem-loads", "/nonexistent/dso", 0x10) == 0;
	kept += feed(p, data, "mem-loads", fifo, 0x10) == 0;
	kept += feed(p, data, "mem-loads", "[vdso]", 0x10) == 0;
	kept += feed(p, data, "mem-loads", NULL, 0) == 0;
	return kept;
}

static char *slurp(const char *path)
{
	static char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	return buf;
}

/* The first access of kind in function sym of the ELF at path that the
 * library names a type for (found with the library itself), or 0. */
static uint64_t find_access(const char *path, const char *sym,
			    enum dt_access kind)
{
	struct dt_session *s;
	uint64_t start, size, found = 0;

	if (dt_session_open(path, NULL, &s))
		return 0;
	if (!dt_session_symbol(s, sym, &start, &size))
		for (uint64_t pc = start; pc < start + size && !found;) {
			struct dt_answer a;
			char t[128];
			int len = dt_session_disasm(s, pc, t, sizeof(t));
			if (len <= 0)
				break;
			if (dt_resolve_pc(s, pc, &a) == DT_OK && a.type[0] != '(' &&
			    a.access == kind)
				found = pc;
			pc += (uint64_t)len;
		}
	dt_session_close(s);
	return found;
}

static void diag_lines(const char *what, const char *text)
{
	printf("# %s\n", what);
	for (const char *l = text; *l;) {
		const char *e = strchr(l, '\n');
		int len = e ? (int)(e - l) : (int)strlen(l);
		printf("#   %.*s\n", len, l);
		l += len + (e != NULL);
	}
}

/* The stat table's rows ("reason\tloads\tstores"), at most 32. */
struct stat_rows {
	int n;
	char name[32][24];
	long c[32][2];
};

static void read_stat(const char *t, struct stat_rows *r)
{
	r->n = 0;
	for (const char *l = t; *l && r->n < 32; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0)) {
		char name[24];
		long a, b;
		if (sscanf(l, "%23[a-z_]\t%ld\t%ld", name, &a, &b) == 3) {
			snprintf(r->name[r->n], sizeof(r->name[0]), "%s", name);
			r->c[r->n][0] = a;
			r->c[r->n][1] = b;
			r->n++;
		}
	}
}

/* Why stat table got is not the baseline's with some samples moved to
 * no_memory, or NULL. */
static const char *stat_diff(const struct stat_rows *base, const struct stat_rows *got)
{
	if (got->n != base->n)
		return "other rows";
	for (int i = 0; i < got->n; i++) {
		if (strcmp(got->name[i], base->name[i]))
			return "other rows";
		bool total = !strcmp(got->name[i], "total");
		bool oom = !strcmp(got->name[i], "no_memory");
		for (int k = 0; k < 2; k++) {
			if (total && got->c[i][k] != base->c[i][k])
				return "totals do not add up";
			if (!total && !oom && got->c[i][k] > base->c[i][k])
				return "samples moved to a reason other than no_memory";
		}
	}
	return NULL;
}

/* A perf.data with only a build-id table naming the binaries names[]
 * (ids of size 0: nothing to compare), opened and left open as perf
 * leaves its input, so that the plugin opens them ahead: the descriptor,
 * or -1.  The layout is lib/engine/perfdata.c's. */
static int open_perfdata(const char *path, const char *const *names, int n)
{
	uint8_t buf[8192] = "PERFILE2";
	uint64_t h[] = { 104, 0, 0, 0, 104, 0, 0, 0, 1u << 2, 0, 0, 0 };
	size_t at = 120;

	memcpy(buf + 8, h, sizeof(h));
	for (int i = 0; i < n; i++) {
		size_t len = (strlen(names[i]) + 1 + 7) / 8 * 8;
		uint16_t misc = 2 | 1u << 15, size = (uint16_t)(36 + len);
		int32_t pid = -1;
		if (at + size > sizeof(buf))
			return -1;
		memset(buf + at, 0, size);
		memcpy(buf + at + 4, &misc, 2);
		memcpy(buf + at + 6, &size, 2);
		memcpy(buf + at + 8, &pid, 4);
		memcpy(buf + at + 36, names[i], strlen(names[i]));
		at += size;
	}
	uint64_t sec[] = { 120, at - 120 };
	memcpy(buf + 104, sec, sizeof(sec));
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0 && write(fd, buf, at) != (ssize_t)at) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* A run's child: an abort whose stack passes through libdw is libdw's
 * own assert (its message may not print: it needs memory), exit 4. */
static void libdw_abort(int sig)
{
	void *pcs[64];
	int n = backtrace(pcs, 64);
	Dl_info info;

	for (int i = 0; i < n; i++)
		if (dladdr(pcs[i], &info) && info.dli_fname &&
		    strstr(info.dli_fname, "/libdw"))
			_exit(4);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Whether the last oom_run() counted samples as no_memory. */
static bool no_memory_counted;

/* One run of the plugin under failmalloc, out of memory from allocation
 * after on for count allocations (after -1: no limit): its stat table;
 * NULL when start() or stop() failed (said: a clean stop).  With base,
 * the table is compared with it: "" when every sample is counted as
 * there or as no_memory, else why not (printed). */
static const char *oom_run(struct plugin *p, const char *self, uint64_t off,
			   const char *out, void (*arm)(long, long), long after,
			   long count, const struct stat_rows *base)
{
	void *data = NULL;
	int kept = 0, rc;
	struct stat_rows got;
	enum { MIXES = 700 };	/* 9,800 samples: over two chunks */

	unlink(out);
	arm(after, count);
	rc = p->start(&data, NULL);
	if (!rc) {
		for (int i = 0; i < MIXES; i++)
			kept += feed_mix(p, data, self, off, "/nonexistent/fifo");
		rc = p->stop(data, NULL);
	}
	arm(-1, 0);
	if (rc)
		return NULL;
	const char *t = slurp(out), *why;
	if (!base)
		return t;
	read_stat(t, &got);
	if ((why = kept ? "a sample kept" : stat_diff(base, &got))) {
		printf("# after %ld, count %ld: %s\n", after, count, why);
		diag_lines("table", t);
		return why;
	}
	no_memory_counted = false;
	for (int i = 0; i < got.n; i++)
		if (!strcmp(got.name[i], "no_memory") && got.c[i][0] + got.c[i][1])
			no_memory_counted = true;
	return "";
}

/* DT_PLUGIN_OOM=1, under tests/failmalloc.so (t8003): the plugin with
 * its second thread, out of memory from each of many points of a run on,
 * for good or for 40 allocations.  Every run either fails start() or
 * stop() (said: a clean stop), or counts every sample fed, each as
 * without the limit or as no_memory.  A perf.data is open, as under
 * perf: the binaries it names are opened ahead, their indexes built while
 * the thread waits. */
static int oom_runs(struct plugin *p, const char *self, uint64_t off)
{
	void (*arm)(long, long) = (void (*)(long, long))dlsym(RTLD_DEFAULT, "dt_failmalloc_arm");
	char out[] = "/tmp/dtprof-unit-plugin-oom.XXXXXX", outarg[64];
	int bad = 0, partial = 0, failed = 0, runs = 0, aborted = 0;
	struct stat_rows base;

	if (!arm)
		skip_all("not under failmalloc.so");
	char pd[] = "/tmp/dtprof-unit-plugin-perfdata.XXXXXX";
	close(mkstemp(pd));
	const char *names[] = { self, "/bin/true", "/nonexistent/dso" };
	int pdfd = open_perfdata(pd, names, 3);
	ok(pdfd >= 0, "a perf.data naming the binaries, open as perf keeps it");
	close(mkstemp(out));
	snprintf(outarg, sizeof(outarg), "output=%s", out);
	fake_argv[0] = "stat";
	fake_argv[1] = "format=tsv";
	fake_argv[2] = outarg;
	fake_argv[3] = "threads=2";
	fake_argc = 4;
	for (long after = -1; after < 3000; after += after < 200 ? 3 : 97) {
		for (long count = -1; count <= 40; count += 41) {
			if (after < 0) {	/* the baseline, no limit */
				const char *t = oom_run(p, self, off, out, arm, after, count, NULL);
				base.n = 0;
				if (t)
					read_stat(t, &base);
				if (!ok(t && base.n > 10, "the baseline run"))
					diag_lines("its table", t ? t : "");
				break;
			}
			/* each run in a child of its own: libdw asserts on some
			 * failed allocations (its concurrent hash tables), and
			 * the plugin installs no handler to catch that, so such
			 * a run ends its process, as it would end perf */
			char errs[] = "/tmp/dtprof-unit-plugin-err.XXXXXX";
			int efd = mkstemp(errs), status = 0;
			fflush(NULL);
			pid_t pid = fork();
			if (pid == 0) {
				void *warm[1];
				backtrace(warm, 1);	/* loads what it needs now */
				signal(SIGABRT, libdw_abort);
				dup2(efd, 2);
				const char *t = oom_run(p, self, off, out, arm, after, count, &base);
				_exit(t == NULL ? 1 : *t ? 3 : no_memory_counted ? 2 : 0);
			}
			close(efd);
			runs++;
			if (pid < 0 || waitpid(pid, &status, 0) != pid) {
				bad++;
				unlink(errs);
				continue;
			}
			const char *e = slurp(errs);
			fputs(e, stderr);
			unlink(errs);
			if (WIFEXITED(status) && WEXITSTATUS(status) == 4) {
				aborted++;	/* libdw's own assert */
			} else if (!WIFEXITED(status) || WEXITSTATUS(status) >= 3) {
				printf("# after %ld, count %ld: status %#x\n", after, count,
				       (unsigned)status);
				bad++;
			} else if (WEXITSTATUS(status) == 1) {
				failed++;
			} else if (WEXITSTATUS(status) == 2) {
				partial++;
			}
		}
	}
	unlink(out);
	close(pdfd);
	unlink(pd);
	ok(bad == 0, "out of memory anywhere in %d threads=2 runs: every sample counted, as without "
	   "the limit or as no_memory (%d failed start or stop, %d counted no_memory, "
	   "%d ended by libdw's assert)", runs, failed, partial, aborted);
	ok(partial > 0, "some runs went on with no_memory samples");
	ok(aborted * 10 <= runs, "libdw's asserts end at most a tenth of the runs (%d of %d)",
	   aborted, runs);
	return done_testing();
}

int main(int argc, char **argv)
{
	const char *so = argc > 1 ? argv[1] : getenv("DT_PLUGIN");
	char self[4096], out[] = "/tmp/dtprof-unit-plugin.XXXXXX";
	struct plugin p;
	uint64_t load = 0;
	void *h, *data = NULL;

	if (!so)
		skip_all("no plugin path (argv[1] or DT_PLUGIN)");
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	if (!ok(h != NULL, "dlopen %s (%s)", so, h ? "" : dlerror()))
		return done_testing();
	p.start = (int (*)(void **, void *))dlsym(h, "start");
	p.filter_event = (int (*)(void *, const struct perf_dlfilter_sample *, void *))
			 dlsym(h, "filter_event");
	p.stop = (int (*)(void *, void *))dlsym(h, "stop");
	p.describe = (const char *(*)(const char **))dlsym(h, "filter_description");
	p.fns = dlsym(h, "perf_dlfilter_fns");
	ok(p.start && p.filter_event && p.stop && p.describe && p.fns,
	   "the dlfilter entry points and perf_dlfilter_fns are exported");
	ok(dlsym(h, "dt_session_open") == NULL, "library symbols stay hidden");
	const char *long_desc = NULL;
	ok(strstr(p.describe(&long_desc), "data-type") && long_desc &&
	   strstr(long_desc, "annotate"), "filter_description describes it");

	/* the load in probe_key, found with the library itself */
	load = find_access(self, "probe_key", DT_ACCESS_LOAD);
	if (!ok(load != 0, "found the load in probe_key"))
		return done_testing();

	p.fns->resolve_ip = fake_resolve_ip;
	p.fns->args = fake_args;
	p.fns->attr = fake_get_attr;
	p.fns->object_code = fake_object_code;
	fake_attr.type = PERF_TYPE_RAW;
	fake_attr.precise_ip = 2;	/* a precise memory event: no skid */
	if (getenv("DT_PLUGIN_OOM"))
		return oom_runs(&p, self, file_offset(self, load));

	close(mkstemp(out));
	fake_argv[0] = "stat";
	fake_argv[1] = "format=tsv";
	fake_argv[2] = "report";
	char outarg[64];
	snprintf(outarg, sizeof(outarg), "output=%s", out);
	fake_argv[3] = outarg;
	fake_argv[4] = "threads=1";
	fake_argc = 5;
	is_int(p.start(&data, NULL), 0, "start accepts report, stat, format, output, threads=1");

	uint64_t off = file_offset(self, load);
	/* a FIFO (perf.data may name anything): refused, never opened to block */
	char fifo[] = "/tmp/dtprof-fifo-XXXXXX";
	int ffd = mkstemp(fifo);
	if (ffd >= 0) {
		close(ffd);
		unlink(fifo);
	}
	ok(ffd >= 0 && mkfifo(fifo, 0600) == 0, "a FIFO to name as a dso");
	is_int(feed_mix(&p, data, self, off, fifo), 0,
	       "every sample is dropped from perf's own output");
	is_int(p.stop(data, NULL), 0, "stop prints the tables");

	char *t = strdup(slurp(out));
	ok(strstr(t, "event\ttype\toffset\tfield\tsamples\tperiod\tloads\tstores\trmw"
		  "\tweight\tweight_samples\tsrc_L1\tsrc_LFB\tsrc_L2\tsrc_L3\tsrc_HITM"
		  "\tsrc_RAM\tsrc_remote_RAM\tsrc_remote_cache\tsrc_uncached\tsrc_other"
		  "\tbuild_id\tdso\ttype_id\tby_address\n") != NULL,
	   "tsv header: the fixed schema, one row per event");
	ok(strstr(t, "mem-loads\tstruct node\t8\tkey\t5\t5\t5\t0\t0\t0\t0\t") != NULL &&
	   strstr(t, "mem-stores\tstruct node\t8\tkey\t3\t3\t3\t0\t0\t0\t0\t") != NULL,
	   "both events counted on struct node +8 (key), as loads");
	ok(strstr(t, "mem-loads\t(unknown)\t\tno_debuginfo\t1\t1\t") != NULL,
	   "a binary without DWARF: no_debuginfo");
	ok(strstr(t, "mem-loads\t(unknown)\t\tno_insn\t1\t1\t") != NULL,
	   "an offset outside the file's code: no_insn");
	ok(strstr(t, "mem-loads\t(unknown)\t\tno_dso\t4\t4\t") != NULL,
	   "missing file, a FIFO, [vdso], no dso at all: no_dso");
	ok(strstr(t, "resolved\t5\t3\n") && strstr(t, "total\t11\t3\n"),
	   "stat: resolved and totals per event");
	if (tap_failed)
		printf("# output:\n%s", t);

	ok(object_code_calls > 0, "instruction bytes were asked of perf's object_code");

	/* threads=2: the same samples named on the plugin's own thread, the
	 * same tables; perf's object_code is not asked from there (its ctx
	 * is valid only during filter_event) */
	object_code_calls = 0;
	fake_argv[4] = "threads=2";
	is_int(p.start(&data, NULL), 0, "start with threads=2");
	is_int(feed_mix(&p, data, self, off, fifo), 0,
	       "threads=2: every sample is dropped from perf's own output");
	is_int(p.stop(data, NULL), 0, "threads=2: stop prints the tables");
	is_str(slurp(out), t, "threads=2 prints what threads=1 does");
	is_int(object_code_calls, 0, "threads=2 reads instructions from the file");
	unlink(fifo);
	free(t);
	fake_argv[4] = "threads=3";
	data = NULL;
	ok(p.start(&data, NULL) < 0, "threads=3 makes start fail");
	p.stop(data, NULL);

	/* object_code's bytes win over the file's: say a ret is there */
	static const uint8_t ret[] = { 0xc3 };
	fake_code = ret;
	fake_code_len = sizeof(ret);
	fake_argv[0] = "format=tsv";
	fake_argv[1] = outarg;
	fake_argv[2] = "threads=1";
	fake_argc = 3;
	is_int(p.start(&data, NULL), 0, "start");
	feed(&p, data, "mem-loads", self, off + 1);	/* a pc not cached yet */
	is_int(p.stop(data, NULL), 0, "stop");
	t = slurp(out);
	ok(strstr(t, "mem-loads\t(stack operation)\t0\t\t1\t1\t") != NULL,
	   "the bytes perf's object_code gave are the ones decoded");
	fake_code = NULL;

	/* filter=TYPE keeps exactly the samples of that type */
	fake_argv[0] = "filter=struct node";
	fake_argc = 1;
	data = NULL;
	is_int(p.start(&data, NULL), 0, "start accepts filter=TYPE");
	is_int(feed(&p, data, "mem-loads", self, off), 0, "a struct node sample is kept");
	is_int(feed(&p, data, "mem-loads", "/bin/true", 0x1000), 1, "another is dropped");
	is_int(p.stop(data, NULL), 0, "stop");

	/* a write error (a full disk) fails stop(), with a message */
	fake_argv[0] = "output=/dev/full";
	fake_argc = 1;
	data = NULL;
	is_int(p.start(&data, NULL), 0, "start with output=/dev/full");
	feed(&p, data, "mem-loads", self, off);
	ok(p.stop(data, NULL) != 0, "stop fails when the report cannot be written");

	/* ---- weights, data sources and sharing, on synthetic samples (no
	 * PMU here: what real perf mem samples carry, field by field) ---- */
	uint64_t store = find_access(self, "probe_store", DT_ACCESS_STORE), st_off;
	ok(store != 0, "found the store in probe_store");
	st_off = file_offset(self, store);

#define SRC(lvl) (PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVL, HIT) | PERF_MEM_S(LVL, lvl))
	static const struct {
		uint64_t data_src;
		const char *level;
	} sources[] = {
		{ SRC(L1), "L1" },
		{ SRC(LFB), "LFB" },
		{ SRC(L2), "L2" },
		{ SRC(L3), "L3" },
		{ SRC(L3) | PERF_MEM_S(SNOOP, HITM), "HITM" },
		{ SRC(LOC_RAM), "RAM" },
		{ SRC(REM_RAM1), "remote_RAM" },
		{ SRC(REM_RAM2), "remote_RAM" },
		{ SRC(REM_CCE1), "remote_cache" },
		{ SRC(UNC), "uncached" },
		{ PERF_MEM_S(LVL, NA), "other" },
		{ PERF_MEM_S(LVL, MISS) | PERF_MEM_S(LVL, L1), "other" },	/* a miss */
		/* the level-number encoding (Skylake and later, AMD, Arm SPE) */
		{ PERF_MEM_S(LVLNUM, L2) | PERF_MEM_S(LVL, HIT), "L2" },
		{ PERF_MEM_S(LVLNUM, RAM) | PERF_MEM_S(LVL, HIT), "RAM" },
		{ PERF_MEM_S(LVLNUM, RAM) | PERF_MEM_S(REMOTE, REMOTE) |
		  PERF_MEM_S(LVL, HIT), "remote_RAM" },
		{ PERF_MEM_S(LVLNUM, ANY_CACHE) | PERF_MEM_S(REMOTE, REMOTE) |
		  PERF_MEM_S(SNOOP, HITM) | PERF_MEM_S(LVL, HIT), "remote_cache" },
		{ PERF_MEM_S(LVLNUM, LFB) | PERF_MEM_S(LVL, HIT), "LFB" },
		{ PERF_MEM_S(LVLNUM, L3) | PERF_MEM_S(LVL, HIT), "L3" },
	};
	static const char *const levels[] = {
		"L1", "LFB", "L2", "L3", "HITM", "RAM", "remote_RAM",
		"remote_cache", "uncached", "other",
	};
	for (int layout = 0; layout < 2; layout++) {
		/* PERF_SAMPLE_WEIGHT (a u64) or WEIGHT_STRUCT (perf hands the
		 * filter its first 32 bits as weight, the rest as ins_lat) */
		fake_attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_CPU |
			(layout ? PERF_SAMPLE_WEIGHT_STRUCT : PERF_SAMPLE_WEIGHT);
		fake_argv[0] = "format=tsv";
		fake_argv[1] = outarg;
		fake_argc = 2;
		data = NULL;
		is_int(p.start(&data, NULL), 0, "weights %s: start",
		       layout ? "WEIGHT_STRUCT" : "WEIGHT");
		uint64_t want_weight = 0;
		for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++) {
			fake_sample.data_src = sources[i].data_src;
			fake_sample.weight = 10 * (i + 1);
			want_weight += fake_sample.weight;
			feed(&p, data, "mem-loads", self, off);
		}
		is_int(p.stop(data, NULL), 0, "stop");
		t = slurp(out);
		const char *row = strstr(t, "mem-loads\tstruct node\t8\tkey\t");
		uint64_t col[32] = { 0 };
		int ncol = 0;
		for (const char *c = row; c && ncol < 32; ncol++) {
			col[ncol] = strtoull(c, NULL, 10);
			c = strchr(c, '\t');
			c = c && c[1] != '\n' ? c + 1 : NULL;
		}
		/* columns: event type offset field samples period loads stores
		 * rmw weight weight_samples src_* */
		size_t nsrc = sizeof(sources) / sizeof(sources[0]);
		ok(row && col[4] == nsrc && col[9] == want_weight && col[10] == nsrc,
		   "weights %s: %zu samples weigh %" PRIu64 " in all",
		   layout ? "WEIGHT_STRUCT" : "WEIGHT", nsrc, want_weight);
		for (int l = 0; l < 10; l++) {
			uint64_t want = 0;
			for (size_t i = 0; i < nsrc; i++)
				want += !strcmp(sources[i].level, levels[l]);
			is_int(col[11 + l], want, "data source %s: %" PRIu64 " samples",
			       levels[l], want);
		}
	}
	if (tap_failed)
		printf("# output:\n%s", t);

	/* the same samples in the human report: a mean-weight column and the
	 * data-source table, shown as TAP comments (the README quotes them:
	 * `build/tests/unit-plugin | sed -n 's/^# synthetic: //p'`) */
	fake_argv[0] = outarg;
	fake_argc = 1;
	data = NULL;
	is_int(p.start(&data, NULL), 0, "data sources, human report: start");
	for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++) {
		fake_sample.data_src = sources[i].data_src;
		fake_sample.weight = 10 * (i + 1);
		feed(&p, data, "mem-loads", self, off);
	}
	is_int(p.stop(data, NULL), 0, "stop");
	t = slurp(out);
	ok(strstr(t, "MeanWt") && strstr(t, "# data sources"),
	   "human report: a mean-weight column and a data-source table");
	for (const char *l = t; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		printf("# synthetic: %.*s\n", (int)strcspn(l, "\n"), l);

	/* sharing, confirmed by data addresses: thread 2 stores val (+16)
	 * while thread 1 loads key (+8) in the same cache line; then the
	 * same two fields of objects a page apart: refuted */
	for (int same_line = 1; same_line >= 0; same_line--) {
		fake_argv[0] = "sharing";
		fake_argv[1] = "format=tsv";
		fake_argv[2] = outarg;
		fake_argc = 3;
		data = NULL;
		is_int(p.start(&data, NULL), 0, "sharing: start");
		for (int i = 0; i < 4; i++) {
			fake_sample.tid = 1;
			fake_sample.cpu = 0;
			fake_sample.addr = 0x7ffd00001000 + 8;
			feed(&p, data, "mem-loads", self, off);
			fake_sample.tid = 2;
			fake_sample.cpu = 1;
			fake_sample.addr = (same_line ? 0x7ffd00001000 : 0x7ffd00002000) + 16;
			feed(&p, data, "mem-loads", self, st_off);
		}
		is_int(p.stop(data, NULL), 0, "stop");
		t = slurp(out);
		const char *want = same_line ? "false_sharing\tconfirmed" :
				   "false_sharing\trefuted";
		ok(strstr(t, "struct node\t0\t8\tkey\t1\t0\t4\t4\t0\t0\t") &&
		   strstr(t, "struct node\t0\t16\tval\t2\t1\t4\t0\t4\t0\t") &&
		   strstr(t, want), "sharing: thread 2 writes val, thread 1 reads key: %s", want);
		if (tap_failed)
			printf("# output:\n%s", t);
	}
	/* data addresses put the objects 48 bytes into a cache line: the
	 * lines follow them (val, at +16, starts line 1); sort=weight puts one
	 * heavy sample of val before four light ones of key */
	fake_attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR |
				PERF_SAMPLE_WEIGHT;
	fake_sample.tid = 1;
	for (int by_weight = 0; by_weight < 2; by_weight++) {
		fake_argv[0] = "report";
		fake_argv[1] = "annotate";
		fake_argv[2] = by_weight ? "sort=weight" : "sort=samples";
		fake_argv[3] = "format=tsv";
		fake_argv[4] = outarg;
		fake_argc = 5;
		data = NULL;
		is_int(p.start(&data, NULL), 0, "%s: start", fake_argv[2]);
		fake_sample.weight = 1;
		fake_sample.addr = 0x7ffd00001030 + 8;
		for (int i = 0; i < 4; i++)
			feed(&p, data, "mem-loads", self, off);
		fake_sample.weight = 100;
		fake_sample.addr = 0x7ffd00001030 + 16;
		feed(&p, data, "mem-loads", self, st_off);
		is_int(p.stop(data, NULL), 0, "stop");
		t = slurp(out);
		const char *k = strstr(t, "mem-loads\tstruct node\t8\tkey\t");
		const char *v = strstr(t, "mem-loads\tstruct node\t16\tval\t");
		ok(k && v && (by_weight ? v < k : k < v), "%s: %s first", fake_argv[2],
		   by_weight ? "val (weight 100)" : "key (4 samples)");
		ok(strstr(t, "mem-loads\tstruct node\t16\t8\t1\tmember\tval\tlong int\t1\t") &&
		   strstr(t, "mem-loads\tstruct node\t8\t8\t1\tmember\tkey\tlong int\t0\t"),
		   "%s: lines follow the objects' alignment (val starts line 1)", fake_argv[2]);
		if (tap_failed)
			printf("# output:\n%s", t);
	}
	fake_sample.tid = 1;
	fake_sample.cpu = 0;
	fake_attr.sample_type = 0;


	fake_argv[0] = "bogus=1";
	fake_argc = 1;
	data = NULL;
	ok(p.start(&data, NULL) < 0, "an unknown dlarg makes start fail");
	/* perf calls stop() after a failed start(), with the NULL data */
	is_int(p.stop(data, NULL), 0, "stop after a failed start is harmless");
	fake_argv[0] = "format=xml";
	ok(p.start(&data, NULL) < 0, "a bad format makes start fail");

	unlink(out);
	dlclose(h);
	return done_testing();
}
