// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The plugin's reader of the event formats perf.data carries (its
 * tracing data, perf's trace-event-info layout): a dtprof-record probe's
 * format found and its fields read from a payload; other systems'
 * formats passed over; and every truncation of the data, a foreign byte
 * order and a bad magic refused without reading past the bytes given
 * (the sanitizer build checks that).
 */
#include <stdlib.h>
#include <string.h>

#include "../plugin/allocevents.h"
#include "tap.h"

/* The fields every event's format starts with. */
#define COMMON_FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"

static const char malloc_format[] =
	"name: malloc\n"
	"ID: 1234\n"
	"format:\n"
	COMMON_FIELDS
	"\n"
	"\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 size;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"(%lx) size=0x%Lx\", REC->__probe_ip, REC->size\n";

/* The kernel's kmem_cache_alloc as 6.x tracefs has it (the gfp flags'
 * table shortened): a __data_loc string and __print_flags */
static const char kmem_format[] =
	"name: kmem_cache_alloc\n"
	"ID: 503\n"
	"format:\n"
	COMMON_FIELDS
	"\n"
	"\tfield:unsigned long call_site;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:__data_loc char[] name;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:size_t bytes_req;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t bytes_alloc;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long gfp_flags;\toffset:48;\tsize:8;\tsigned:0;\n"
	"\tfield:int node;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:bool accounted;\toffset:60;\tsize:1;\tsigned:0;\n"
	"\n"
	"print fmt: \"call_site=%pS ptr=%p name=%s bytes_req=%zu bytes_alloc=%zu "
	"gfp_flags=%s node=%d accounted=%s\", (void *)REC->call_site, REC->ptr, "
	"__get_str(name), REC->bytes_req, REC->bytes_alloc, (REC->gfp_flags) ? "
	"__print_flags(REC->gfp_flags, \"|\", {( unsigned long)((( gfp_t)((((1UL))) << (8)))), "
	"\"__GFP_ZERO\"}, { 0, ((void *)0) } ) : \"none\", REC->node, "
	"REC->accounted ? \"true\" : \"false\"\n";

struct blob {
	unsigned char b[8192];
	size_t n;
};

static void put(struct blob *x, const void *p, size_t n)
{
	memcpy(x->b + x->n, p, n);
	x->n += n;
}

static void put_u32(struct blob *x, uint32_t v) { put(x, &v, sizeof(v)); }
static void put_u64(struct blob *x, uint64_t v) { put(x, &v, sizeof(v)); }
static void put_str(struct blob *x, const char *s) { put(x, s, strlen(s) + 1); }

/* Tracing data as perf writes it: a system "other" first, then
 * system's one event of format text. */
static void make(struct blob *x, const char *system, const char *text, int endian)
{
	static const unsigned char magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i',
						 'n', 'g' };
	unsigned char e = (unsigned char)endian, l = 8;

	x->n = 0;
	put(x, magic, sizeof(magic));
	put_str(x, "0.6");
	put(x, &e, 1);
	put(x, &l, 1);
	put_u32(x, 4096);
	put_str(x, "header_page");
	put_u64(x, 3);
	put(x, "abc", 3);
	put_str(x, "header_event");
	put_u64(x, 0);
	put_u32(x, 1);			/* an ftrace format */
	put_u64(x, 2);
	put(x, "xy", 2);
	put_u32(x, 2);			/* two systems */
	put_str(x, "other");
	put_u32(x, 1);
	put_u64(x, 5);
	put(x, "junk!", 5);
	put_str(x, system);
	put_u32(x, 1);
	put_u64(x, strlen(text));
	put(x, text, strlen(text));
}

int main(void)
{
	struct blob x;
	const char *why = NULL;
	const uint16_t one = 1;
	int little = *(const unsigned char *)&one;
	unsigned char raw[24] = { 0 };
	uint64_t v = 0, size = 0x28;

	memcpy(raw + 16, &size, sizeof(size));
	make(&x, "dtprof_7", malloc_format, !little);
	struct alloc_events *a = alloc_events_parse(x.b, x.n, &why);
	if (ok(a != NULL, "the probe's format read (%s)", a ? "ok" : why)) {
		ok(alloc_events_field(a, 1234, raw, sizeof(raw), "size", &v) && v == 0x28,
		   "its size field read from a payload");
		ok(!alloc_events_field(a, 1234, raw, sizeof(raw), "ptr", &v), "no such field");
		ok(!alloc_events_field(a, 99, raw, sizeof(raw), "size", &v), "no such event");
		ok(!alloc_events_field(a, 1234, raw, 20, "size", &v),
		   "a payload too short for the field");
		alloc_events_free(a);
	}
	size_t refused = 0;
	for (size_t n = 0; n < x.n; n++) {
		unsigned char *copy = malloc(n ? n : 1);
		memcpy(copy, x.b, n);
		a = alloc_events_parse(copy, n, &why);
		refused += a == NULL;
		alloc_events_free(a);
		free(copy);
	}
	ok(refused == x.n, "every one of its %zu truncations refused", x.n);
	make(&x, "dtprof_7", malloc_format, little);
	ok(!alloc_events_parse(x.b, x.n, &why) && why, "the other byte order refused: %s", why);
	make(&x, "sched", malloc_format, !little);
	ok(!alloc_events_parse(x.b, x.n, &why), "no dtprof_ system: nothing to read");
	/* the kernel's (dtprof-record --kernel) */
	unsigned char kraw[64] = { 0 };
	uint64_t site = 0xffffffff81655ee0ull, ptr = 0xffff888133e82e40ull, req = 184;
	memcpy(kraw + 8, &site, 8);
	memcpy(kraw + 16, &ptr, 8);
	memcpy(kraw + 32, &req, 8);
	make(&x, "kmem", kmem_format, !little);
	a = alloc_events_parse(x.b, x.n, &why);
	if (ok(a != NULL, "kmem:kmem_cache_alloc's format read (%s)", a ? "ok" : why)) {
		uint64_t cs = 0, p = 0, n = 0;
		ok(alloc_events_field(a, 503, kraw, sizeof(kraw), "call_site", &cs) && cs == site &&
		   alloc_events_field(a, 503, kraw, sizeof(kraw), "ptr", &p) && p == ptr &&
		   alloc_events_field(a, 503, kraw, sizeof(kraw), "bytes_req", &n) && n == req,
		   "its call site, block and size read from a payload");
		alloc_events_free(a);
	}
	make(&x, "dtprof_7", malloc_format, !little);
	x.b[3] = 'X';
	ok(!alloc_events_parse(x.b, x.n, &why), "a bad magic refused");
	return done_testing();
}
