// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Buffered line reading from a file descriptor; see lineread.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lineread.h"

#define READ_CHUNK 65536

void line_reader_init(struct line_reader *r, int fd,
		      void (*before_read)(void *arg), void *arg)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->before_read = before_read;
	r->arg = arg;
}

/* Make room for READ_CHUNK more bytes after the unread ones. */
static bool make_room(struct line_reader *r)
{
	if (r->start) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	if (r->cap - r->end >= READ_CHUNK)
		return true;
	size_t cap = r->cap ? r->cap * 2 : 2 * READ_CHUNK;
	if (cap < r->cap) {
		r->err = ENOMEM;
		return false;
	}
	char *b = realloc(r->buf, cap);
	if (!b) {
		r->err = ENOMEM;
		return false;
	}
	r->buf = b;
	r->cap = cap;
	return true;
}

const char *line_reader_next(struct line_reader *r, size_t *len)
{
	size_t scanned = 0;	/* bytes after start known to hold no '\n' */

	for (;;) {
		char *nl = r->buf ? memchr(r->buf + r->start + scanned, '\n',
					   r->end - r->start - scanned) : NULL;
		if (nl) {
			const char *line = r->buf + r->start;
			*len = (size_t)(nl - line);
			r->start = (size_t)(nl - r->buf) + 1;
			return line;
		}
		if (r->eof || r->err) {
			if (r->end == r->start)
				return NULL;
			const char *line = r->buf + r->start;	/* no '\n' */
			*len = r->end - r->start;
			r->start = r->end;
			return line;
		}
		scanned = r->end - r->start;
		if (!make_room(r))
			continue;
		if (r->before_read)
			r->before_read(r->arg);
		ssize_t n = read(r->fd, r->buf + r->end, r->cap - r->end);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			r->err = errno;
		else if (n == 0)
			r->eof = true;
		else
			r->end += (size_t)n;
	}
}

void line_reader_release(struct line_reader *r)
{
	free(r->buf);
	memset(r, 0, sizeof(*r));
}
