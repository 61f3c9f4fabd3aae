/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * dtresolve's request stream: every line form answered, with the state
 * perf script text needs (maps per process, the binaries it names, the
 * events it shows).  main() only reads lines and prints what comes back.
 */
#ifndef DTPROF_STREAM_H
#define DTPROF_STREAM_H

#include "../../lib/dtprof.h"
#include "lineparse.h"

enum skid_rule { SKID_AUTO, SKID_ON, SKID_OFF };

struct stream_opts {
	const char *exe;		/* -e: link-time addresses, NULL */
	const char *debuginfo_path;
	const char *vmlinux;
	enum skid_rule skid;
	void (*log)(void *arg, const char *msg);
	void *log_arg;
	const struct dt_session_opts *session;	/* every session's, NULL */
	const char *buildid_dir;	/* perf's build-id cache, NULL */
};

struct stream_result {
	struct dt_answer ans;
	struct dt_session *session;	/* that answered, or NULL */
	const char *dso;		/* binary the address was found in */
	const char *how;		/* the interpretation: addr, tuple,
					 * dsoff, maps, sym, exe, record */
	bool sample;			/* counts in tables (not a record) */
	uint64_t link_pc;		/* the instruction's link-time address
					 * in session (ans.pc is the line's),
					 * 0 when none was found */
	char event[128];		/* perf's event name, "" if none */
	struct dt_sample smp;		/* period, tid, cpu, data address */
	bool has_alloc;			/* an allocator event: alloc */
	struct dt_alloc alloc;
	const char *error;		/* a message for this line, or NULL */
	char error_arg[64];		/* what the message is about */
};

struct stream;
/* 0, or -ENOMEM, or -ENOENT when the -e binary cannot be opened (o->log
 * has been told why; the stream still answers: its lines say no_dso). */
int stream_new(const struct stream_opts *o, struct stream **out);
void stream_free(struct stream *st);
/* Answer one line (no newline). */
void stream_answer(struct stream *st, const char *line, size_t len,
		   struct stream_result *res);
/* The -e session, NULL when none or not opened. */
struct dt_session *stream_exe(struct stream *st);

#endif
