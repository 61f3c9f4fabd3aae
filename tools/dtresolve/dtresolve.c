// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * dtresolve: one request line in, one answer line out, in order.  Options,
 * the line loop and the exit code live here; answering is stream.c and the
 * library, printing is report.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/dtprof.h"
#include "lineread.h"
#include "stream.h"
#include "../../frontend/env.h"
#include "../../frontend/process.h"

#define PROG "dtresolve"

enum { EXIT_INPUT = 1, EXIT_USAGE = 2 };

struct options {
	struct stream_opts stream;
	char *debug_dirs;		/* --debug-dir, as a libdwfl path */
	struct dt_print_ctx print;
	bool format_given;
	bool stat;
	bool aggregate;
	enum dt_table table;		/* with aggregate */
	const char *type;		/* annotate only this type */
	const char *symbol;		/* --aggregate=code=SYMBOL */
	const char *source_dirs;	/* --source-dir: html's sources */
	enum dt_sort sort;
	bool merge, diff;		/* the arguments are tables */
	const char *event;		/* column name for lines without one */
	uint64_t window;		/* --window: sharing, ns */
	bool window_given;
};

/* Messages that may come once per input line or once per binary: the
 * first MESSAGES_SHOWN of each kind are said, the others counted and
 * summed up at the end (a million garbage lines, or lines naming 200,000
 * missing binaries, would bury the rest). */
#define MESSAGES_SHOWN 20
enum msg_kind { MSG_LINE, MSG_BINARY, MSG_KINDS };

struct run {
	struct options opt;
	struct stream *stream;
	struct dt_report *report;	/* --stat, --aggregate, --merge */
	struct dt_dsos *dsos;		/* --merge, --diff: layouts */
	const char *said[8];		/* per-stream messages said once */
	unsigned long said_n[MSG_KINDS], unsaid[MSG_KINDS];
	bool tracing;			/* DTPROF_DEBUG: every message said */
	int status;
	struct dt_env env;		/* the environment, as options */
};

#define msg(...) dt_message(PROG, __VA_ARGS__)

static void usage(FILE *f)
{
	fprintf(f,
"usage: " PROG " [-e BINARY] [--format=tsv|perf|json] [--aggregate[=TABLE]]\n"
"                 [--skid[=auto|on|off]] [--stat] [-v] [FILE...]\n"
"       " PROG " --merge [--aggregate[=TABLE]] [--format=F] TABLE...\n"
"       " PROG " --diff [--format=tsv|json] BEFORE AFTER\n"
"\n"
"Name the C type and field each memory-access instruction touches.\n"
"Reads request lines from the FILEs (or standard input) and writes one\n"
"answer line per request line, in order.\n"
"\n"
"Request lines:\n"
"  ADDR              link-time address in BINARY (0x hex); the instruction\n"
"                    there is decoded\n"
"  ADDR REG OFFSET   base register (rdi, %%rdi) and signed offset (16, -0x58)\n"
"  perf script text  samples (-F ip, ip,sym,symoff,dso, ip,dsoff, with or\n"
"                    without comm, pid, tid, time, event, period, addr) and\n"
"                    --show-mmap-events / --show-task-events records; with\n"
"                    uregs or iregs (perf record --user-regs), the data\n"
"                    address each access touched, for sharing, objects and\n"
"                    advice: -F " DT_PERF_SCRIPT_REGS_FIELDS "\n"
"\n"
"Answer (tsv): ADDR<TAB>TYPE<TAB>OFFSET<TAB>FIELD; json adds the data\n"
"address, or why a line with registers has none\n"
"\n"
"Options:\n"
"  -e, --exe=BINARY        the ELF file of ADDR lines, and of perf lines that\n"
"                          name no binary (a program, library, vmlinux, or an\n"
"                          object file or kernel module, relocated)\n"
"  -f, --format=FMT        tsv (default), perf (\"struct page +8 (lru.next)\")\n"
"                          or json (one object per line)\n"
"  -v, --verbose           tsv: append binary, variable, reason and how the\n"
"                          address was mapped (addr, tuple, dsoff, maps, sym,\n"
"                          exe, record), then a note when an answer has more\n"
"                          to say (the containers, or the structs starting\n"
"                          like a header, that fit a bad_offset; the one\n"
"                          such struct an answer was taken from; the entry\n"
"                          a list walk's look-ahead is not named by)\n"
"      --aggregate[=TABLE] instead of a line per request, print a table at\n"
"                          the end: report (types and offsets, default),\n"
"                          annotate[=TYPE] (per-type layouts), sharing[=TYPE]\n"
"                          (threads per cache line), advise[=TYPE] (a\n"
"                          proposed member order, as C), stat (samples\n"
"                          per reason), code=SYMBOL (a function's\n"
"                          instructions with the types they touch),\n"
"                          objects (heap blocks by allocation site, from\n"
"                          a dtprof-record profile) or html (all of it,\n"
"                          one page);\n"
"                          --format=tsv|json for machines\n"
"      --sort=KEY          order rows by samples (default), period or weight\n"
"      --window=MS         sharing: two threads' accesses to one real cache\n"
"                          line confirm a flag when at most MS apart (10)\n"
"      --merge             the FILEs are tables (--format=tsv reports of\n"
"                          dtresolve or dtplugin.so, or perf.data files,\n"
"                          read through dtplugin.so): print their sum\n"
"      --diff              compare two such tables: share of each type and\n"
"                          field before and after, with their offsets and\n"
"                          cache lines\n"
"      --type=NAME         annotate, advise or share only this type: its\n"
"                          name, bare tag or typedef (\"page\", \"cJSON\")\n"
"      --event=NAME        table column of lines without an event (lines)\n"
"      --skid[=RULE]       attribute a sample to the nearest memory access\n"
"                          before it in its basic block: on (--skid), off,\n"
"                          or auto (default: perf lines of non-precise\n"
"                          events such as cpu-clock)\n"
"  -s, --stat              print counts per reason to stderr at the end,\n"
"                          and how many samples got a data address\n"
"      --debug-dir=DIR     also look for separate debug info under DIR\n"
"                          (DIR/.build-id/xx/yyyy.debug, debuglinks, kernel\n"
"                          modules under DIR/lib/modules/RELEASE)\n"
"      --debuginfo-path=P  libdwfl's whole search path instead\n"
"      --vmlinux=PATH      kernel image with DWARF for kernel samples\n"
"      --source-dir=DIR[:DIR...]  html: embed source lines of files under\n"
"                          these too (always: each unit's own directory)\n"
"  -h, --help              this text\n"
"  -V, --version           version\n"
"\n"
"Exit status: 0 on success, 1 when an input file or BINARY could not be\n"
"read (every line is still answered), 2 on a usage error.\n"
"Environment: DTPROF_DEBUG=1 traces each step on stderr; DTPROF_NO_TRACK=1\n"
"names registers only through variables (no instruction tracking);\n"
"PERF and DTPROF_PLUGIN name the perf and dtplugin.so that read perf.data\n"
"files for --merge and --diff; inflated copies of compressed debug files\n"
"are kept in DTPROF_CACHE_DIR (default ~/.cache/dtprof; DTPROF_NO_CACHE=1:\n"
"none); DTPROF_KEEP_FUNCTIONS=N keeps N functions decoded (default 2048);\n"
"DTPROF_NO_QUICK_DECODE=1 decodes every x86-64 instruction with libopcodes.\n");
}

/* --aggregate=VIEW[=ARG]: the table (the report's table of views), and
 * the type or function it is about. */
static int parse_table(struct options *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	enum dt_view_arg va;
	int t = dt_table_from_str(arg, len, &va);

	if (t < 0) {
		char names[256];
		size_t n = 0;
		static const char *const suffix[] = { "", "[=TYPE]", "=SYMBOL" };
		names[0] = '\0';
		for (int k = 0; k < DT_TABLE_COUNT && n < sizeof(names); k++) {
			const char *name = dt_table_str((enum dt_table)k);
			enum dt_view_arg ka;
			if (dt_table_from_str(name, strlen(name), &ka) >= 0)
				n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s%s",
						      n ? ", " : "", name, suffix[ka]);
		}
		msg("unknown table '%s' (%s)", arg, names);
		return -1;
	}
	if (eq && va == DT_VIEW_ARG_NONE) {
		msg("--aggregate=%.*s takes no type", (int)len, arg);
		return -1;
	}
	if (va == DT_VIEW_ARG_SYMBOL && !(eq && eq[1])) {
		msg("--aggregate=%.*s=SYMBOL: name the function", (int)len, arg);
		return -1;
	}
	o->table = (enum dt_table)t;
	if (eq && eq[1] && va == DT_VIEW_ARG_TYPE)
		o->type = eq + 1;
	if (eq && eq[1] && va == DT_VIEW_ARG_SYMBOL)
		o->symbol = eq + 1;
	return 0;
}

/* Whether a message of kind k may still be said; counts it when not. */
static bool may_say(struct run *r, enum msg_kind k)
{
	if (r->said_n[k] < MESSAGES_SHOWN || r->tracing) {
		r->said_n[k]++;
		return true;
	}
	r->unsaid[k]++;
	return false;
}

static void say_unsaid(const struct run *r)
{
	static const char *const what[MSG_KINDS] = {
		[MSG_LINE] = "messages about input lines",
		[MSG_BINARY] = "messages about binaries",
	};

	for (int k = 0; k < MSG_KINDS; k++)
		if (r->unsaid[k])
			msg("%lu more %s not shown (the first %d were)", r->unsaid[k],
			    what[k], MESSAGES_SHOWN);
}

/* The library's messages: about binaries (a run's arg), or before any
 * run (NULL) */
static void log_cb(void *arg, const char *line)
{
	struct run *r = arg;

	if (!r || may_say(r, MSG_BINARY))
		dt_message(PROG, "%s", line);
}

static int add_debug_dir(struct options *o, const char *dir)
{
	const char *base = o->debug_dirs ? o->debug_dirs : ":.debug:/usr/lib/debug";
	size_t n = strlen(base) + strlen(dir) + 2;
	char *p = malloc(n);

	if (!p)
		return -ENOMEM;
	snprintf(p, n, "%s:%s", base, dir);
	free(o->debug_dirs);
	o->debug_dirs = p;
	o->stream.debuginfo_path = p;
	return 0;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "exe", required_argument, NULL, 'e' },
		{ "format", required_argument, NULL, 'f' },
		{ "stat", no_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "debuginfo-path", required_argument, NULL, 'D' },
		{ "debug-dir", required_argument, NULL, 'G' },
		{ "vmlinux", required_argument, NULL, 'K' },
		{ "source-dir", required_argument, NULL, 'R' },
		{ "skid", optional_argument, NULL, 'k' },
		{ "aggregate", optional_argument, NULL, 'a' },
		{ "type", required_argument, NULL, 't' },
		{ "event", required_argument, NULL, 'E' },
		{ "sort", required_argument, NULL, 'S' },
		{ "window", required_argument, NULL, 'W' },
		{ "merge", no_argument, NULL, 'M' },
		{ "diff", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c, fmt;

	o->print.sz = sizeof(o->print);
	while ((c = getopt_long(argc, argv, "e:f:svhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			o->stream.exe = optarg;
			break;
		case 'f':
			fmt = dt_format_from_str(optarg);
			if (fmt < 0) {
				msg("unknown format '%s' (tsv, perf, json)", optarg);
				return EXIT_USAGE;
			}
			o->print.format = (enum dt_format)fmt;
			o->format_given = true;
			break;
		case 's':
			o->stat = true;
			break;
		case 'v':
			o->print.verbose = true;
			break;
		case 'D':
			o->stream.debuginfo_path = optarg;
			break;
		case 'G':
			if (add_debug_dir(o, optarg))
				return EXIT_INPUT;
			break;
		case 'K':
			o->stream.vmlinux = optarg;
			break;
		case 'R':
			o->source_dirs = optarg;
			break;
		case 'k':
			if (!optarg || !strcmp(optarg, "on"))
				o->stream.skid = SKID_ON;
			else if (!strcmp(optarg, "off"))
				o->stream.skid = SKID_OFF;
			else if (!strcmp(optarg, "auto"))
				o->stream.skid = SKID_AUTO;
			else {
				msg("unknown skid rule '%s' (auto, on, off)", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'a':
			o->aggregate = true;
			if (parse_table(o, optarg ? optarg : "report"))
				return EXIT_USAGE;
			break;
		case 't':
			o->type = optarg;
			break;
		case 'E':
			o->event = optarg;
			break;
		case 'S':
			fmt = dt_sort_from_str(optarg);
			if (fmt < 0) {
				msg("unknown sort key '%s' (samples, period, weight)", optarg);
				return EXIT_USAGE;
			}
			o->sort = (enum dt_sort)fmt;
			break;
		case 'W':
			if (dt_window_from_str(optarg, &o->window)) {
				msg("--window=%s: milliseconds, a number from 0", optarg);
				return EXIT_USAGE;
			}
			o->window_given = true;
			break;
		case 'M':
			o->merge = o->aggregate = true;
			break;
		case 'F':
			o->diff = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf(PROG " (dtprof) " DTPROF_VERSION "\n");
			exit(0);
		default:
			fprintf(stderr, "Try '" PROG " --help'.\n");
			return EXIT_USAGE;
		}
	}
	if (o->merge && o->diff) {
		msg("--merge and --diff: one at a time");
		return EXIT_USAGE;
	}
	return 0;
}

/* A printable excerpt of a bad line for the message. */
static void excerpt(const char *line, size_t len, char *buf, size_t size)
{
	size_t i, j = 0;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];
		char one[8];
		int n = c >= 0x20 && c < 0x7f && c != '\'' ?
			snprintf(one, sizeof(one), "%c", c) :
			snprintf(one, sizeof(one), "\\x%02x", c);
		if (j + (size_t)n + 4 > size)	/* keep room for "..." */
			break;
		memcpy(buf + j, one, (size_t)n);
		j += (size_t)n;
	}
	if (i < len) {
		memcpy(buf + j, "...", 3);
		j += 3;
	}
	buf[j] = '\0';
}

/* Whether message m was said; remembers it when not. */
static bool said_before(struct run *r, const char *m)
{
	size_t i;

	for (i = 0; i < sizeof(r->said) / sizeof(r->said[0]) && r->said[i]; i++)
		if (r->said[i] == m)
			return true;
	if (i < sizeof(r->said) / sizeof(r->said[0]))
		r->said[i] = m;
	return false;
}

static void answer_line(struct run *r, const char *name, unsigned long lineno,
			const char *line, size_t len)
{
	struct stream_result res;
	char ex[80];

	stream_answer(r->stream, line, len, &res);
	if (res.error && res.ans.reason == DT_BAD_LINE) {
		if (may_say(r, MSG_LINE)) {
			excerpt(line, len, ex, sizeof(ex));
			msg("%s:%lu: %s: '%s'", name, lineno, res.error, ex);
		}
	} else if (res.error && res.ans.reason == DT_NO_REG) {
		if (may_say(r, MSG_LINE))
			msg("%s:%lu: %s '%s' for %s", name, lineno, res.error,
			    res.error_arg, dt_session_arch(stream_exe(r->stream)));
	} else if (res.error && !said_before(r, res.error)) {
		/* the same for every line (no binary, out of memory): once */
		msg("%s:%lu: %s", name, lineno, res.error);
	}
	if (res.has_alloc && (r->report || res.alloc.event != DT_ALLOC_EXEC)) {
		/* the heap's blocks live in a report: one of its own when no
		 * table is asked for */
		if (!r->report && !dt_report_new(&r->report))
			dt_report_reasons_only(r->report);
		if (!r->report || dt_report_alloc(r->report, &res.alloc) == -ENOMEM) {
			if (!said_before(r, "out of memory for the heap's blocks"))
				msg("%s:%lu: out of memory for the heap's blocks", name, lineno);
		}
	}
	if (r->report && res.sample)
		res.session = dt_report_type_by_address(r->report, res.session, &res.ans,
							&res.smp);
	if (r->report && res.sample) {
		int ev = dt_report_event(r->report, res.event[0] ? res.event :
					 r->opt.event ? r->opt.event : "lines");
		struct dt_answer a = res.ans;	/* tables count link-time pcs */
		if (res.link_pc)
			a.pc = res.link_pc;
		dt_report_add_sample(r->report, ev, res.session, &a, &res.smp);
	}
	if (!r->opt.aggregate) {
		struct dt_print_ctx pc = r->opt.print;
		pc.dso = res.dso;
		pc.how = res.how;
		dt_answer_print_sample(stdout, &pc, &res.ans, res.sample ? &res.smp : NULL,
				       res.sample ? res.link_pc : 0);
	}
}

static void flush_output(void *arg)
{
	(void)arg;
	fflush(stdout);
}

static void run_stream(struct run *r, int fd, const char *name)
{
	struct line_reader in;
	const char *line;
	size_t len;
	unsigned long lineno = 0;

	line_reader_init(&in, fd, flush_output, NULL);
	while ((line = line_reader_next(&in, &len)))
		answer_line(r, name, ++lineno, line, len);
	if (in.err) {
		msg("error reading '%s': %s", name, strerror(in.err));
		r->status = EXIT_INPUT;
	}
	line_reader_release(&in);
}

static int start(struct run *r)
{
	r->opt.stream.log = log_cb;
	r->opt.stream.log_arg = r;
	int err = stream_new(&r->opt.stream, &r->stream);

	if (!r->stream) {
		msg("out of memory");
		return EXIT_INPUT;
	}
	if (err)
		r->status = EXIT_INPUT;		/* the message came through log_cb */
	if ((r->opt.stat || r->opt.aggregate) && (dt_report_new(&r->report) ||
	    ((r->opt.symbol || r->opt.table == DT_TABLE_HTML ||
	      r->opt.table == DT_TABLE_ADVISE) &&
	     dt_report_keep_pcs(r->report)))) {
		msg("out of memory");
		return EXIT_INPUT;
	}
	if (r->report && r->opt.window_given)
		dt_report_set_window(r->report, r->opt.window);
	if (r->report && !r->opt.aggregate)
		dt_report_reasons_only(r->report);	/* --stat alone */
	if (r->report && (r->opt.table == DT_TABLE_TYPES || r->opt.table == DT_TABLE_CODE))
		dt_report_no_threads(r->report);	/* not shown */
	return 0;
}

/* ---- --merge and --diff: tables in ---- */

/* The dtplugin.so that reads perf.data files: DTPROF_PLUGIN, the one
 * beside this program (a build tree), or perf's own search. */
static const char *plugin_path(char *buf, size_t len)
{
	const char *env = getenv("DTPROF_PLUGIN");
	ssize_t n;

	if (env && *env)
		return env;
	n = readlink("/proc/self/exe", buf, len - 1);
	if (n > 0) {
		buf[n] = '\0';
		char *slash = strrchr(buf, '/');
		if (slash && (size_t)(slash - buf) + sizeof("/dtplugin.so") <= len) {
			strcpy(slash, "/dtplugin.so");
			if (access(buf, R_OK) == 0)
				return buf;
		}
	}
	return "dtplugin.so";
}

/* perf script through the plugin's tsv report, as a stream. */
static FILE *perf_data_table(const char *path, pid_t *child)
{
	char plugin[PATH_MAX];
	const char *perf = getenv("PERF") && *getenv("PERF") ? getenv("PERF") : "perf";
	const char *argv[] = { perf, "script", "-i", path, "--dlfilter",
			       plugin_path(plugin, sizeof(plugin)), "--dlarg",
			       "format=tsv", NULL };
	int fd[2];

	if (pipe(fd))
		return NULL;
	fflush(stdout);
	*child = fork();
	if (*child < 0) {
		close(fd[0]);
		close(fd[1]);
		return NULL;
	}
	if (*child == 0) {
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		execvp(perf, (char *const *)argv);
		fprintf(stderr, PROG ": cannot run '%s': %s\n", perf, strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	return fdopen(fd[0], "r");
}

/* Add one table (tsv, or a perf.data read through the plugin) to rep. */
static int load_table(struct run *r, struct dt_report *rep, const char *path)
{
	pid_t child = -1;
	unsigned long bad, nbad;
	FILE *in = fopen(path, "r");

	if (!in) {
		msg("cannot open '%s': %s", path, strerror(errno));
		return EXIT_INPUT;
	}
	if (dt_perfdata_is(fileno(in))) {
		fclose(in);
		in = perf_data_table(path, &child);
		if (!in) {
			msg("cannot run perf for '%s': %s", path, strerror(errno));
			return EXIT_INPUT;
		}
	}
	int err = dt_report_read_tsv(rep, in, r->dsos, &bad, &nbad);
	fclose(in);
	int status = 0;
	if (child > 0 && (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) ||
			  WEXITSTATUS(status))) {
		msg("'%s': perf script with dtplugin.so failed (set PERF, DTPROF_PLUGIN)", path);
		return EXIT_INPUT;
	}
	if (err == -EINVAL) {
		msg("%s:%lu: not a dtprof types table in tsv (format=tsv); %lu line%s"
		    " not read", path, bad, nbad, nbad == 1 ? "" : "s");
		return EXIT_INPUT;
	}
	if (err == -EOVERFLOW) {
		msg("%s:%lu: its counts and those before it sum past 2^64 - 1: "
		    "not merged", path, bad);
		return EXIT_INPUT;
	}
	if (err) {
		msg("cannot read '%s': %s", path, strerror(-err));
		return EXIT_INPUT;
	}
	return 0;
}

static int run_tables(struct run *r, int argc, char **argv)
{
	struct dt_dsos_opts o = { .sz = sizeof(o), .log = log_cb, .log_arg = r,
				  .session = &r->env.session,
				  .buildid_dir = r->env.buildid_dir };
	struct dt_table_opts to = {
		.sz = sizeof(to),
		.format = r->opt.format_given ? r->opt.print.format : DT_FORMAT_PERF,
		.type = r->opt.type, .sort = r->opt.sort,
	};
	struct dt_report *after = NULL;
	int status = 0;

	if (r->opt.diff && argc - optind != 2) {
		msg("--diff takes two tables, BEFORE and AFTER");
		return EXIT_USAGE;
	}
	if (r->opt.merge && argc == optind) {
		msg("--merge takes one table or more");
		return EXIT_USAGE;
	}
	if (dt_dsos_new(&o, &r->dsos) || (!r->report && dt_report_new(&r->report)) ||
	    (r->opt.diff && dt_report_new(&after))) {
		msg("out of memory");
		return EXIT_INPUT;
	}
	if (r->opt.diff) {
		status |= load_table(r, r->report, argv[optind]);
		status |= load_table(r, after, argv[optind + 1]);
		if (!status && dt_report_print_diff(stdout, r->report, after,
						    argv[optind], argv[optind + 1], &to)) {
			msg("'%s' and '%s' have no event in common", argv[optind],
			    argv[optind + 1]);
			status = EXIT_INPUT;
		}
	} else {
		for (int i = optind; i < argc; i++)
			status |= load_table(r, r->report, argv[i]);
		if (dt_report_print(stdout, r->report, r->opt.table, &to))
			status = EXIT_INPUT;
	}
	dt_report_free(after);
	return status ? EXIT_INPUT : 0;
}

int main(int argc, char **argv)
{
	static struct run r = { .status = 0 };
	int err = parse_options(argc, argv, &r.opt);

	dt_env_read(&r.env);
	r.tracing = r.env.debug;
	if (r.env.warning[0])
		msg("%s", r.env.warning);
	/* dtresolve owns its process: a kernel's session may tune the heap,
	 * and libdw's asserts on a failed allocation answer no_memory */
	r.env.session.large_debug_info = frontend_tune_heap;
	frontend_catch_libdw_aborts();
	r.opt.stream.session = &r.env.session;
	r.opt.stream.buildid_dir = r.env.buildid_dir;
	if (err || (err = start(&r))) {
		stream_free(r.stream);
		free(r.opt.debug_dirs);
		return err;
	}
	/* Output is block-buffered and flushed before every read that may
	 * block (lineread.c): an interactive pipe still sees each answer
	 * before dtresolve waits for the next request. */
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	if (r.opt.merge || r.opt.diff) {
		r.status = run_tables(&r, argc, argv);
		goto out;
	}

	if (optind == argc)
		run_stream(&r, STDIN_FILENO, "<stdin>");
	for (int i = optind; i < argc; i++) {
		bool is_stdin = !strcmp(argv[i], "-");
		int fd = is_stdin ? STDIN_FILENO : open(argv[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			msg("cannot open '%s': %s", argv[i], strerror(errno));
			r.status = EXIT_INPUT;
			continue;
		}
		run_stream(&r, fd, is_stdin ? "<stdin>" : argv[i]);
		if (!is_stdin)
			close(fd);
	}
	if (r.opt.aggregate) {
		struct dt_table_opts to = {
			.sz = sizeof(to),
			.format = r.opt.format_given ? r.opt.print.format : DT_FORMAT_PERF,
			.type = r.opt.type, .sort = r.opt.sort,
			.symbol = r.opt.symbol, .source_dirs = r.opt.source_dirs,
		};
		int perr = dt_report_print(stdout, r.report, r.opt.table, &to);
		if (perr == -ENOMEM)
			msg("out of memory printing the table");
		if (perr)
			r.status = EXIT_INPUT;
	}
	if (r.opt.stat && dt_report_print(stderr, r.report, DT_TABLE_STAT, NULL) == -ENOMEM) {
		msg("out of memory printing the counts per reason");
		r.status = EXIT_INPUT;
	}
out:
	say_unsaid(&r);
	dt_report_free(r.report);
	dt_dsos_free(r.dsos);
	stream_free(r.stream);
	free(r.opt.debug_dirs);
	if (fflush(stdout) || ferror(stdout)) {
		msg("error writing output: %s", strerror(errno));
		return EXIT_INPUT;
	}
	return r.status;
}
