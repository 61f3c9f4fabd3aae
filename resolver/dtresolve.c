// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * dtresolve: one request line in, one answer line out, in order.  Options,
 * the line loop and the exit code live here; parsing is lineparse.c,
 * answering is the library, printing is report.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "dtprof.h"
#include "lineparse.h"
#include "lineread.h"

#define PROG "dtresolve"

enum { EXIT_INPUT = 1, EXIT_USAGE = 2 };

struct options {
	const char *binary;
	const char *debuginfo_path;
	struct dt_print_ctx print;
	bool format_given;
	bool stat;
	bool aggregate;
	enum dt_table table;		/* with aggregate */
	const char *type;		/* annotate only this type */
	const char *event;		/* column name in tables */
	unsigned resolve_flags;
};

struct run {
	struct options opt;
	struct dt_session *session;
	struct dt_report *report;	/* --stat, --aggregate */
	int event;
	bool warned_no_binary;
	int status;
};

static void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void msg(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: " PROG " [-e BINARY] [--format=tsv|perf|json] [--stat] [-v] [FILE...]\n"
"\n"
"Name the C type and field each memory-access instruction touches.\n"
"Reads request lines from the FILEs (or standard input) and writes one\n"
"answer line per request line, in order.\n"
"\n"
"Request lines:\n"
"  ADDR              link-time address in BINARY (0x hex); the instruction\n"
"                    there is decoded\n"
"  ADDR REG OFFSET   base register (rdi, %%rdi) and signed offset (16, -0x58)\n"
"\n"
"Answer (tsv): ADDR<TAB>TYPE<TAB>OFFSET<TAB>FIELD\n"
"\n"
"Options:\n"
"  -e, --exe=BINARY        the ELF file the addresses belong to\n"
"      --debuginfo-path=P  where libdwfl looks for separate debug info\n"
"      --skid              ADDR lines are samples of a non-precise event\n"
"                          (cpu-clock): attribute the nearest memory access\n"
"                          before ADDR in its basic block\n"
"  -f, --format=FMT        tsv (default), perf (\"struct page +8 (lru.next)\")\n"
"                          or json (one object per line)\n"
"  -s, --stat              print counts per reason to stderr at the end\n"
"      --aggregate[=TABLE] instead of a line per request, print a table at\n"
"                          the end: report (types and offsets, default) or\n"
"                          annotate (per-type layouts); --format=tsv|json\n"
"                          for machine-readable tables\n"
"      --type=NAME         annotate only this type (\"struct page\")\n"
"      --event=NAME        name of the table column (default: lines)\n"
"  -v, --verbose           tsv: append dso, variable and reason columns\n"
"  -h, --help              this text\n"
"  -V, --version           version\n"
"\n"
"Exit status: 0 on success, 1 when an input file or BINARY could not be\n"
"read (every line is still answered), 2 on a usage error.\n"
"Environment: DTPROF_DEBUG=1 traces each step on stderr.\n");
}

static void log_cb(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, PROG ": debug: %s\n", line);
}

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "exe", required_argument, NULL, 'e' },
		{ "format", required_argument, NULL, 'f' },
		{ "stat", no_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "debuginfo-path", required_argument, NULL, 'D' },
		{ "skid", no_argument, NULL, 'k' },
		{ "aggregate", optional_argument, NULL, 'a' },
		{ "type", required_argument, NULL, 't' },
		{ "event", required_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c, fmt;

	while ((c = getopt_long(argc, argv, "e:f:svhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			o->binary = optarg;
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
		case 'a':
			o->aggregate = true;
			if (!optarg || !strcmp(optarg, "report")) {
				o->table = DT_TABLE_TYPES;
			} else if (!strcmp(optarg, "annotate")) {
				o->table = DT_TABLE_ANNOTATE;
			} else {
				msg("unknown table '%s' (report, annotate)", optarg);
				return EXIT_USAGE;
			}
			break;
		case 't':
			o->type = optarg;
			break;
		case 'E':
			o->event = optarg;
			break;
		case 's':
			o->stat = true;
			break;
		case 'v':
			o->print.verbose = true;
			break;
		case 'D':
			o->debuginfo_path = optarg;
			break;
		case 'k':
			o->resolve_flags |= DT_RESOLVE_SKID;
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

static void answer_line(struct run *r, const char *name, unsigned long lineno,
			const char *line, size_t len)
{
	struct line_req req;
	struct dt_answer ans;
	char ex[80];

	line_parse(line, len, &req);
	if (req.kind == LINE_BAD) {
		excerpt(line, len, ex, sizeof(ex));
		msg("%s:%lu: %s: '%s'", name, lineno, req.error, ex);
		dt_answer_miss(&ans, 0, DT_BAD_LINE);
	} else if (!r->session) {
		if (!r->opt.binary && !r->warned_no_binary) {
			msg("%s:%lu: no binary to resolve addresses in: use -e BINARY",
			    name, lineno);
			r->warned_no_binary = true;
		}
		dt_answer_miss(&ans, req.addr, DT_NO_DSO);
	} else if (req.kind == LINE_ADDR) {
		dt_resolve_sample(r->session, req.addr, r->opt.resolve_flags, &ans);
	} else {
		int reg = dt_session_reg(r->session, req.reg);
		if (reg < 0) {
			msg("%s:%lu: unknown register '%s' for %s", name, lineno,
			    req.reg, dt_session_arch(r->session));
			dt_answer_miss(&ans, req.addr, DT_NO_REG);
		} else {
			dt_resolve_op(r->session, req.addr, reg, req.offset, &ans);
		}
	}
	if (r->report)
		dt_report_add(r->report, r->event, r->session, &ans, 1);
	if (!r->opt.aggregate)
		dt_answer_print(stdout, &r->opt.print, &ans);
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

static void open_binary(struct run *r)
{
	struct dt_session_opts so = {
		.sz = sizeof(so),
		.debuginfo_path = r->opt.debuginfo_path,
		.log = log_cb,
	};
	int err = dt_session_open(r->opt.binary, &so, &r->session);

	if (err) {
		msg("cannot open '%s': %s; every line counts as no_dso",
		    r->opt.binary, dt_strerror(err));
		r->status = EXIT_INPUT;
		return;
	}
	if (!dt_session_has_debuginfo(r->session))
		msg("'%s' has no debug info: its accesses count as no_debuginfo",
		    r->opt.binary);
}

int main(int argc, char **argv)
{
	struct run r = { .status = 0 };
	int err = parse_options(argc, argv, &r.opt);

	if (err)
		return err;
	r.opt.print.dso = r.opt.binary;
	if (r.opt.stat || r.opt.aggregate) {
		if (dt_report_new(&r.report)) {
			msg("out of memory");
			return EXIT_INPUT;
		}
		r.event = dt_report_event(r.report, r.opt.event ? r.opt.event : "lines");
	}
	/* Output is block-buffered and flushed before every read that may
	 * block (lineread.c): an interactive pipe still sees each answer
	 * before dtresolve waits for the next request. */
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	if (r.opt.binary)
		open_binary(&r);

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
			.format = r.opt.format_given ? r.opt.print.format : DT_FORMAT_PERF,
			.type = r.opt.type,
		};
		if (dt_report_print(stdout, r.report, r.opt.table, &to))
			r.status = EXIT_INPUT;
	}
	if (r.opt.stat)
		dt_report_print(stderr, r.report, DT_TABLE_STAT, NULL);
	dt_report_free(r.report);
	dt_session_close(r.session);
	if (fflush(stdout) || ferror(stdout)) {
		msg("error writing output: %s", strerror(errno));
		return EXIT_INPUT;
	}
	return r.status;
}
