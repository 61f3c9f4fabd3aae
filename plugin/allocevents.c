// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The payloads of dtprof-record's allocator events (uprobes: the size
 * asked for, the block returned, the block freed) are fields of each
 * sample's raw data, laid out by the event's format.  The probes are
 * removed when the recording ends, so the formats come from perf.data
 * itself: its tracing data (perf's trace-event-info.c writes it), read
 * here as far as the events' formats and parsed by libtraceevent.
 *
 * The tracing data: "\027\010\104tracing", a version string, the
 * endianness (1: big), the long size, the page size (u32); the header
 * page and header event ("header_page\0", u64 size, text; the same for
 * "header_event"); the ftrace formats (u32 count, each u64 size and
 * text); then per system (u32 count) its name, and its events (u32
 * count, each u64 size and its format text).  Numbers are in the
 * recording host's order: another order is not read.  Every size is
 * checked against the section.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "../lib/dtprof.h"
#include "allocevents.h"

struct alloc_events {
	struct tep_handle *tep;
	unsigned events;		/* formats parsed */
};

struct cursor {
	const uint8_t *p, *end;
};

static const void *take(struct cursor *c, size_t n)
{
	const uint8_t *at = c->p;

	if ((size_t)(c->end - c->p) < n)
		return NULL;
	c->p += n;
	return at;
}

static bool u32_of(struct cursor *c, uint32_t *v)
{
	const void *p = take(c, sizeof(*v));

	return p && memcpy(v, p, sizeof(*v));
}

static bool u64_of(struct cursor *c, uint64_t *v)
{
	const void *p = take(c, sizeof(*v));

	return p && memcpy(v, p, sizeof(*v));
}

/* A NUL-terminated string at the cursor, NULL when none ends inside. */
static const char *str_of(struct cursor *c)
{
	const uint8_t *nul = memchr(c->p, '\0', (size_t)(c->end - c->p));
	const char *s = (const char *)c->p;

	if (!nul)
		return NULL;
	c->p = nul + 1;
	return s;
}

/* A "name\0", u64 size and that many bytes, skipped. */
static bool skip_named(struct cursor *c, const char *name)
{
	const char *s = str_of(c);
	uint64_t size;

	return s && !strcmp(s, name) && u64_of(c, &size) && take(c, size);
}

static bool parse(struct alloc_events *a, const uint8_t *data, size_t len)
{
	static const uint8_t magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct cursor c = { data, data + len };
	const uint8_t *m = take(&c, sizeof(magic)), *endian, *long_size;
	uint32_t page_size, n, systems;
	const uint16_t host = 1;

	if (!m || memcmp(m, magic, sizeof(magic)) || !str_of(&c) ||
	    !(endian = take(&c, 1)) || !(long_size = take(&c, 1)) ||
	    !u32_of(&c, &page_size) ||
	    *endian != (*(const uint8_t *)&host ? 0 : 1) ||
	    !skip_named(&c, "header_page") || !skip_named(&c, "header_event") ||
	    !u32_of(&c, &n))
		return false;
	tep_set_long_size(a->tep, *long_size);
	tep_set_page_size(a->tep, (int)page_size);
	for (uint32_t i = 0; i < n; i++) {	/* ftrace's own formats */
		uint64_t size;
		if (!u64_of(&c, &size) || !take(&c, size))
			return false;
	}
	if (!u32_of(&c, &systems))
		return false;
	for (uint32_t i = 0; i < systems; i++) {
		const char *sys = str_of(&c);
		if (!sys || !u32_of(&c, &n))
			return false;
		for (uint32_t k = 0; k < n; k++) {
			uint64_t size;
			const char *text;
			if (!u64_of(&c, &size) || !(text = take(&c, size)))
				return false;
			/* only ours: another tracepoint's format may use what
			 * this libtraceevent cannot parse */
			if ((!strncmp(sys, "dtprof_", 7) || !strcmp(sys, "kmem")) &&
			    !tep_parse_event(a->tep, text, (unsigned long)size, sys))
				a->events++;
		}
	}
	return a->events > 0;
}

struct alloc_events *alloc_events_parse(const void *data, size_t len, const char **why)
{
	struct alloc_events *a = calloc(1, sizeof(*a));

	if (!a || !(a->tep = tep_alloc()) || !parse(a, data, len)) {
		*why = !a || !a->tep ? "out of memory reading the event formats" :
		       "perf.data's event formats cannot be read";
		alloc_events_free(a);
		return NULL;
	}
	return a;
}

struct alloc_events *alloc_events_open(int fd, const char **why)
{
	struct alloc_events *a;
	void *data;
	size_t len;
	int err;

	if (fd < 0) {
		*why = "perf reads a pipe, whose event formats the plugin cannot read";
		return NULL;
	}
	err = dt_perfdata_tracing_data(fd, &data, &len);
	if (err) {
		*why = err == -ENOMEM ? "out of memory reading the event formats" :
		       "perf.data carries no event formats (tracing data)";
		return NULL;
	}
	a = alloc_events_parse(data, len, why);
	free(data);
	return a;
}

void alloc_events_free(struct alloc_events *a)
{
	if (!a)
		return;
	if (a->tep)
		tep_free(a->tep);
	free(a);
}

bool alloc_events_field(const struct alloc_events *a, uint64_t id, const void *raw,
			size_t raw_size, const char *name, uint64_t *val)
{
	struct tep_event *e = id <= INT32_MAX ? tep_find_event(a->tep, (int)id) : NULL;
	struct tep_format_field *f = e ? tep_find_field(e, name) : NULL;
	unsigned long long v;

	if (!f || f->offset < 0 || f->size <= 0 || f->size > 8 ||
	    (size_t)f->offset + (size_t)f->size > raw_size ||
	    tep_read_number_field(f, raw, &v))
		return false;
	*val = v;
	return true;
}
