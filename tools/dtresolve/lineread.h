/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Reading request lines from a file descriptor, of any length, with a
 * hook that runs before every read that may block: front ends flush their
 * output there, so an interactive pipe sees each answer before dtresolve
 * waits for more input, while batch runs write in large blocks.
 */
#ifndef DTPROF_LINEREAD_H
#define DTPROF_LINEREAD_H

#include <stdbool.h>
#include <stddef.h>

struct line_reader {
	int fd;
	char *buf;
	size_t cap, start, end;
	bool eof;
	int err;		/* errno of a failed read, 0 if none */
	void (*before_read)(void *arg);
	void *arg;
};

void line_reader_init(struct line_reader *r, int fd,
		      void (*before_read)(void *arg), void *arg);
/* The next line without its '\n', valid until the next call; NULL at the
 * end of input or on a read error (r->err).  A last line without '\n'
 * counts as a line. */
const char *line_reader_next(struct line_reader *r, size_t *len);
void line_reader_release(struct line_reader *r);

#endif
