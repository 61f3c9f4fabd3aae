// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The request line forms of dtresolve.  Accepted, for example:
 *   0x401136
 *   0x401136 rdi 16
 *   0x401136 %rax -0x58
 * and the lines perf script prints (see perf_sample() below for its
 * grammar).  Anything else is a bad line with a reason the caller reports.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/dtprof.h"
#include "lineparse.h"

#define MAX_FIELDS 4
#define MAX_FIELD_LEN 64

struct field {
	const char *p;
	size_t len;
};

static size_t split_fields(const char *line, size_t len, struct field *f)
{
	size_t n = 0, i = 0;

	while (i < len) {
		while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
			i++;
		if (i == len)
			break;
		size_t start = i;
		while (i < len && line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
			i++;
		if (n == MAX_FIELDS)
			return n + 1;	/* too many: the caller rejects */
		f[n].p = line + start;
		f[n].len = i - start;
		n++;
	}
	return n;
}

/* "0x" hex, nothing else: an address. */
static bool parse_addr(const struct field *f, uint64_t *out)
{
	char buf[MAX_FIELD_LEN + 1];
	char *end;

	if (f->len < 3 || f->len > 18 || f->p[0] != '0' ||
	    (f->p[1] != 'x' && f->p[1] != 'X'))
		return false;
	memcpy(buf, f->p, f->len);
	buf[f->len] = '\0';
	for (size_t i = 2; i < f->len; i++)
		if (!isxdigit((unsigned char)buf[i]))
			return false;
	errno = 0;
	*out = strtoull(buf, &end, 16);
	return !errno && *end == '\0';
}

/* Signed decimal or signed "0x" hex. */
static bool parse_offset(const struct field *f, int64_t *out)
{
	char buf[MAX_FIELD_LEN + 1];
	const char *s = buf;
	bool neg = false;
	char *end;

	if (!f->len || f->len > MAX_FIELD_LEN)
		return false;
	memcpy(buf, f->p, f->len);
	buf[f->len] = '\0';
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	uint64_t u = strtoull(s, &end, 0);
	/* strtoull's base 0 would take "010" as octal: decimal is meant */
	if (s[0] == '0' && s[1] && s[1] != 'x' && s[1] != 'X')
		u = strtoull(s, &end, 10);
	if (errno || *end || u > (uint64_t)INT64_MAX + neg)
		return false;
	*out = neg ? (int64_t)(0 - u) : (int64_t)u;
	return true;
}

static void perf_line(const char *line, size_t len, struct line_req *req);

void line_parse(const char *line, size_t len, struct line_req *req)
{
	struct field f[MAX_FIELDS];
	size_t n = split_fields(line, len, f);

	memset(req, 0, sizeof(*req));
	req->kind = LINE_BAD;
	req->pid = req->parent_pid = req->tid = req->cpu = -1;
	req->period = 1;
	if (n == 0) {
		req->error = "empty line";
		return;
	}
	/* the request forms start with 0x; perf script never prints it first */
	if (!(f[0].len > 2 && f[0].p[0] == '0' && (f[0].p[1] == 'x' || f[0].p[1] == 'X'))) {
		perf_line(line, len, req);
		return;
	}
	if (n != 1 && n != 3) {
		req->error = "expected ADDR or ADDR REG OFFSET";
		return;
	}
	if (!parse_addr(&f[0], &req->addr)) {
		req->error = "address is not 0x-prefixed hex";
		return;
	}
	if (n == 1) {
		req->kind = LINE_ADDR;
		return;
	}
	const char *r = f[1].p;
	size_t rl = f[1].len;
	if (rl && *r == '%') {
		r++;
		rl--;
	}
	if (!rl || rl >= sizeof(req->reg)) {
		req->error = "register name too long";
		return;
	}
	memcpy(req->reg, r, rl);
	req->reg[rl] = '\0';
	if (!parse_offset(&f[2], &req->offset)) {
		req->error = "offset is not a signed decimal or 0x number";
		return;
	}
	req->kind = LINE_TUPLE;
}

/* ---- perf script text ---- */

static bool is_hex_digit(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* The space-separated word at *p (empty at the end); *p moves past it. */
static struct span next_word(const char **p, const char *end)
{
	while (*p < end && **p == ' ')
		(*p)++;
	const char *t = *p;
	while (*p < end && **p != ' ')
		(*p)++;
	return (struct span){ t, (size_t)(*p - t) };
}

static bool span_is(struct span s, const char *lit)
{
	return s.len == strlen(lit) && !memcmp(s.p, lit, s.len);
}

static const char *find(const char *p, const char *end, const char *needle)
{
	size_t n = strlen(needle);

	for (; p + n <= end; p++)
		if (!memcmp(p, needle, n))
			return p;
	return NULL;
}

/* Unsigned number at *p in base 0 (0x hex, else decimal), bounded by end;
 * false when there is none. */
static bool number_at(const char **p, const char *end, int base, uint64_t *v)
{
	char buf[32];
	size_t n = 0;
	char *stop;

	while (*p + n < end && n < sizeof(buf) - 1 &&
	       (isxdigit((unsigned char)(*p)[n]) || (*p)[n] == 'x' || (*p)[n] == 'X'))
		n++;
	if (!n)
		return false;
	memcpy(buf, *p, n);
	buf[n] = '\0';
	errno = 0;
	*v = strtoull(buf, &stop, base);
	if (errno || stop == buf)
		return false;
	*p += stop - buf;
	return true;
}

/* [p, *end) ends in "+0xHEX" (sym+0x14, dso+0x1114): cut it off into *v. */
static bool split_hex_suffix(const char *p, const char **end, uint64_t *v)
{
	const char *plus = *end;

	while (plus > p && plus[-1] != '+')
		plus--;
	if (plus == p)
		return false;
	plus--;			/* at the '+' */
	const char *h = plus + 1;
	if (*end - h < 3 || h[0] != '0' || h[1] != 'x' ||
	    !number_at(&h, *end, 16, v) || h != *end)
		return false;
	*end = plus;
	return true;
}

/* "PID/TID" or "PID" at p. */
static int pid_at(const char *p, const char *end)
{
	uint64_t v;

	if (p < end && *p == '-')
		return -1;	/* the kernel's -1/0 */
	return number_at(&p, end, 10, &v) && v <= 0x7fffffff ? (int)v : -1;
}

/*
 * PERF_RECORD_MMAP2 10170/10170: [0x561adb302000(0x1000) @ 0x1000 fe:00 10995947 151515452]: r-xp /tmp/y/wl-lib
 * PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1269a88) @ 0xffffffff81000000]: x [kernel.kallsyms]_text
 * PERF_RECORD_COMM exec: wl-lib:11050/11050
 * PERF_RECORD_FORK(11051:11051):(11050:11050)
 */
static void perf_record(const char *rec, const char *end, struct line_req *req)
{
	const char *p;

	req->kind = LINE_RECORD;
	if (!strncmp(rec, "PERF_RECORD_MMAP", 16)) {
		p = rec + 16 + (rec + 16 < end && rec[16] == '2');
		while (p < end && *p == ' ')
			p++;
		req->pid = pid_at(p, end);
		const char *br = find(p, end, "[");
		if (!br) {
			req->kind = LINE_BAD;
			req->error = "PERF_RECORD_MMAP without [start(len) @ pgoff]";
			return;
		}
		p = br + 1;
		if (!number_at(&p, end, 0, &req->map_start) || p >= end || *p++ != '(' ||
		    !number_at(&p, end, 0, &req->map_len) || p >= end || *p++ != ')') {
			req->kind = LINE_BAD;
			req->error = "PERF_RECORD_MMAP: bad [start(len)]";
			return;
		}
		const char *at = find(p, end, "@ ");
		const char *close = find(p, end, "]: ");
		if (!at || !close || at > close) {
			req->kind = LINE_BAD;
			req->error = "PERF_RECORD_MMAP: no @ pgoff";
			return;
		}
		p = at + 2;
		if (!number_at(&p, close, 0, &req->map_pgoff)) {
			req->kind = LINE_BAD;
			req->error = "PERF_RECORD_MMAP: bad pgoff";
			return;
		}
		/* "]: r-xp FILE": the protection, then the file to the end */
		p = close + 3;
		while (p < end && *p != ' ')
			p++;
		if (p < end)
			p++;
		req->file = (struct span){ p, (size_t)(end - p) };
		req->kind = LINE_MMAP;
		return;
	}
	if (!strncmp(rec, "PERF_RECORD_COMM exec:", 22)) {
		p = end;
		while (p > rec && p[-1] != ':')
			p--;
		req->pid = pid_at(p, end);
		req->kind = LINE_EXEC;
		return;
	}
	if (!strncmp(rec, "PERF_RECORD_FORK(", 17)) {
		p = rec + 17;
		req->pid = pid_at(p, end);
		const char *par = find(p, end, "):(");
		if (par)
			req->parent_pid = pid_at(par + 3, end);
		req->kind = req->pid >= 0 && req->parent_pid >= 0 ? LINE_FORK : LINE_RECORD;
	}
}

/* "5299.126083" (perf's default, microseconds) or "5299.126083123"
 * (--ns) as nanoseconds. */
static bool time_at(const char *t, size_t n, uint64_t *ns)
{
	const char *dot = memchr(t, '.', n), *q = t;
	uint64_t sec, frac = 0;
	size_t digits;

	if (!dot || !number_at(&q, dot, 10, &sec) || q != dot || sec >= UINT64_MAX / 1000000000)
		return false;
	digits = (size_t)(t + n - dot - 1);
	if (!digits || digits > 9)
		return false;
	for (const char *d = dot + 1; d < t + n; d++) {
		if (!isdigit((unsigned char)*d))
			return false;
		frac = frac * 10 + (uint64_t)(*d - '0');
	}
	for (size_t k = digits; k < 9; k++)
		frac *= 10;
	*ns = sec * 1000000000 + frac;
	return true;
}

/* An address column: hex digits that perf right-aligns in 16 columns, so
 * a shorter one follows enough blanks.  That is what tells the ip from a
 * pid, a period or a symbol that happens to be spelled in hex ("add"). */
static bool is_address_at(const char *line, const char *tok, size_t n)
{
	size_t blanks = 0;

	if (n == 0 || n > 16)
		return false;
	for (const char *b = tok; b > line && b[-1] == ' '; b--)
		blanks++;
	if (tok == line)
		return n == 16;
	return blanks >= 1 && blanks + n >= 17;
}

/* The register dump perf script -F uregs / iregs puts after the ip, its
 * symbol and its dso: the longest run of register tokens ending the line
 * that starts with "ABI:".  Kept in req->regs; returns where the rest of
 * the line ends. */
static const char *regs_suffix(const char *line, const char *stop,
			       struct line_req *req)
{
	const char *p = stop, *start = NULL;

	while (p > line) {
		const char *e = p;
		while (e > line && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		const char *t = e;
		while (t > line && t[-1] != ' ' && t[-1] != '\t')
			t--;
		bool abi;
		size_t nl;
		uint64_t v;
		if (t == e || !dt_perf_reg_token(t, (size_t)(e - t), &abi, &nl, &v))
			break;
		if (abi)
			start = t;
		p = t;
	}
	if (!start)
		return stop;
	req->regs = (struct span){ start, (size_t)(stop - start) };
	while (start > line && (start[-1] == ' ' || start[-1] == '\t'))
		start--;
	return start;
}

/*
 * A sample line.  perf prints its fields in a fixed order; the ones that
 * matter here:
 *   [comm] [pid[/tid]] [[cpu]] [time:] [period] [event:] [addr [sym] [(dso)]] ip [sym[+0xoff]] [(dso[+0xoff])]
 *           wl-lib 10172  5299.126083:    1000000 cpu-clock:      7fd0c2597114 walk_hot+0x14 (/tmp/y/libwalk.so)
 *       7f9f7b595114 (/tmp/y/libwalk.so+0x1114)
 * The ip is the last address column (a memory event prints addr first);
 * its symbol runs to the dso group, which is the last balanced (...) group
 * ending the line.  The pid is the last integer before the first token
 * ending in ':' (time or event); the event is the last token ending in ':'
 * before the ip that is not a time; the period is an integer between time
 * and event.  Symbols containing blanks or parentheses (C++) and paths
 * containing blanks are kept whole.
 */
static void alloc_probe(const char *end, struct line_req *req);

static void perf_sample(const char *line, const char *end, struct line_req *req)
{
	const char *stop = end, *ip = NULL, *ip_end = NULL;

	while (stop > line && (stop[-1] == ' ' || stop[-1] == '\t' || stop[-1] == '\r'))
		stop--;
	stop = regs_suffix(line, stop, req);
	/* the dso group */
	if (stop > line && stop[-1] == ')') {
		int depth = 0;
		const char *q = stop;
		while (q > line) {
			q--;
			if (*q == ')')
				depth++;
			else if (*q == '(' && --depth == 0)
				break;
		}
		if (depth == 0 && *q == '(' && q > line && q[-1] == ' ') {
			const char *d = q + 1, *de = stop - 1;
			/* perf 6.12 dsoff: "(dso+0x1114)" */
			req->has_dsoff = split_hex_suffix(d, &de, &req->dsoff);
			req->dso = (struct span){ d, (size_t)(de - d) };
			stop = q;
		}
	}
	/* address columns; the last one is the ip */
	for (const char *p = line; p < stop;) {
		while (p < stop && (*p == ' ' || *p == '\t'))
			p++;
		const char *t = p;
		while (p < stop && *p != ' ' && *p != '\t')
			p++;
		size_t n = (size_t)(p - t), i;
		for (i = 0; i < n && is_hex_digit(t[i]); i++)
			;
		if (i == n && is_address_at(line, t, n)) {
			if (ip)
				req->has_data_addr = true;
			ip = t;
			ip_end = p;
		}
	}
	if (!ip) {
		req->error = "neither ADDR [REG OFFSET] nor a perf script line with an address";
		return;
	}
	const char *h = ip;
	number_at(&h, ip_end, 16, &req->addr);

	/* the symbol: from after the ip to the dso group */
	const char *s = ip_end, *se = stop;
	while (s < se && *s == ' ')
		s++;
	while (se > s && se[-1] == ' ')
		se--;
	if (se > s) {
		req->has_symoff = split_hex_suffix(s, &se, &req->symoff);
		req->sym = (struct span){ s, (size_t)(se - s) };
		if (span_is(req->sym, "[unknown]"))
			req->sym = (struct span){ NULL, 0 };
	}

	/* the header: fields before the first address column */
	const char *hdr_end = ip;
	if (req->has_data_addr) {
		/* the addr column comes first: the header ends before it */
		for (const char *p = line; p < ip;) {
			struct span w = next_word(&p, ip);
			size_t i;
			for (i = 0; i < w.len && is_hex_digit(w.p[i]); i++)
				;
			if (w.len && i == w.len && is_address_at(line, w.p, w.len)) {
				const char *a = w.p;
				number_at(&a, w.p + w.len, 16, &req->data_addr);
				hdr_end = w.p;
				break;
			}
		}
	}
	bool seen_colon = false, after_time = false, after_thread = false;
	int last_int = -1, last_tid = -1;
	bool both = false;
	uint64_t pending_int = 0;
	bool have_pending = false;
	for (const char *p = line; p < hdr_end;) {
		struct span w = next_word(&p, hdr_end);
		const char *t = w.p;
		size_t n = w.len;
		if (!n)
			break;
		if (n > 2 && t[0] == '[' && t[n - 1] == ']' && !seen_colon) {
			const char *q = t + 1;
			uint64_t v;
			if (number_at(&q, t + n - 1, 10, &v) && q == t + n - 1 && v < 0x7fffffff)
				req->cpu = (int)v;	/* "[001]" */
			continue;
		}
		bool digits = true, slash = false, dot = false;
		for (size_t i = 0; i < n; i++) {
			if (t[i] == '/' && i)
				slash = true;
			else if (t[i] == '.' && i)
				dot = true;
			else if (!isdigit((unsigned char)t[i]) && !(t[i] == ':' && i == n - 1))
				digits = false;
		}
		if (t[n - 1] == ':') {
			if (digits && dot && !slash) {
				after_time = true;		/* "5299.126083:" */
				req->has_time = time_at(t, n - 1, &req->time);
			} else if (!(digits && !dot)) {
				req->event = (struct span){ t, n - 1 };
				if ((after_time || after_thread) && have_pending)
					req->period = pending_int;
			}
			if (!seen_colon && last_int >= 0) {
				req->pid = last_int;
				req->tid = last_tid;
				req->pid_and_tid = both;
			}
			seen_colon = true;
			have_pending = false;
		} else if (digits && !dot) {
			const char *q = t;
			uint64_t v;
			if (number_at(&q, t + n, 10, &v)) {
				/* after "pid/tid", a lone number before the
				 * event is the period ("-F pid,tid,period,event":
				 * no time between them), not a thread; a later
				 * "pid/tid" is (the first was a comm) */
				if (!seen_colon && (!after_thread || slash) && v <= 0x7fffffff) {
					last_int = (int)v;	/* pid, or pid/tid */
					last_tid = (int)v;
					both = false;
					const char *sl = memchr(t, '/', n);
					uint64_t tid;
					if (sl && (q = sl + 1, number_at(&q, t + n, 10, &tid)) &&
					    tid <= 0x7fffffff) {
						last_tid = (int)tid;
						both = true;
						after_thread = true;
					}
				}
				pending_int = v;
				have_pending = !slash;
			}
		}
	}
	if (!seen_colon && last_int >= 0) {
		req->pid = last_int;
		req->tid = last_tid;
		req->pid_and_tid = both;
	}
	req->kind = LINE_SAMPLE;
	if (req->event.len)
		alloc_probe(ip, req);
}

/* The word "key=..." among the words of [p, end): its value, an empty
 * span when none. */
static struct span arg_word(const char *p, const char *end, const char *key)
{
	size_t kl = strlen(key);

	while (p < end) {
		struct span w = next_word(&p, end);
		if (!w.len)
			break;
		if (w.len > kl + 1 && !memcmp(w.p, key, kl) && w.p[kl] == '=')
			return (struct span){ w.p + kl + 1, w.len - kl - 1 };
	}
	return (struct span){ NULL, 0 };
}

/* The value of "key=0x..." among the words of [p, end), false when none
 * (or not a number). */
static bool probe_arg(const char *p, const char *end, const char *key, uint64_t *v)
{
	struct span w = arg_word(p, end, key);
	const char *q;

	if (w.len <= 2 || w.p[0] != '0' || w.p[1] != 'x')
		return false;
	q = w.p + 2;
	return number_at(&q, w.p + w.len, 16, v) && q == w.p + w.len;
}

/* A kmem: tracepoint's call site, "func+0x1d" or "0xffffffff81234567"
 * (perf prints an address it knows no symbol of), into req. */
static bool call_site_of(struct span w, struct line_req *req)
{
	const char *q = w.p, *end = w.p + w.len;

	if (w.len > 2 && w.p[0] == '0' && w.p[1] == 'x') {
		q += 2;
		req->site_sym = (struct span){ NULL, 0 };
		return number_at(&q, end, 16, &req->site_off) && q == end;
	}
	for (const char *plus = end; plus-- > w.p;) {
		if (*plus != '+')
			continue;
		if (plus == w.p || end - plus < 4 || plus[1] != '0' || plus[2] != 'x')
			return false;
		q = plus + 3;
		req->site_sym = (struct span){ w.p, (size_t)(plus - w.p) };
		return number_at(&q, end, 16, &req->site_off) && q == end;
	}
	return false;
}

/* The kernel's kmem: tracepoints (dtprof-record --kernel): an allocation
 * with its call site, or a free. */
static void kernel_alloc(const char *args, const char *end, enum dt_alloc_probe which,
			 struct line_req *req)
{
	struct span ptr = arg_word(args, end, "ptr");

	/* kfree(NULL) prints "(nil)" */
	if (!(ptr.len == 5 && !memcmp(ptr.p, "(nil)", 5)) &&
	    !probe_arg(args, end, "ptr", &req->alloc_ptr))
		return;
	if (which == DT_PROBE_KERNEL_ALLOC) {
		struct span n = arg_word(args, end, "bytes_req");
		const char *q = n.p;
		if (!n.len || !number_at(&q, n.p + n.len, 10, &req->alloc_size) ||
		    q != n.p + n.len || !call_site_of(arg_word(args, end, "call_site"), req))
			return;
	}
	req->probe = which == DT_PROBE_KERNEL_ALLOC ? PROBE_KERNEL_ALLOC : PROBE_KERNEL_FREE;
	req->alloc_unread = false;
}

/* A sample line of dtprof-record's probes ("dtprof_PID:malloc"): which,
 * and its arguments, found between the event and the ip. */
static void alloc_probe(const char *end, struct line_req *req)
{
	const char *args = req->event.p + req->event.len + 1;
	uint64_t nmemb = 1, size = 0;
	enum dt_alloc_probe which = dt_alloc_probe_of(req->event.p, req->event.len);
	enum alloc_probe p;

	if (which == DT_PROBE_NONE)
		return;
	/* the allocator's, whatever follows: no data access of the program
	 * (PROBE_NONE: its fields not read) */
	req->kind = LINE_ALLOC;
	req->probe = PROBE_NONE;
	req->alloc_unread = which != DT_PROBE_OTHER;	/* until read */
	switch (which) {
	case DT_PROBE_ALLOC: case DT_PROBE_CALLOC: p = PROBE_ALLOC; break;
	case DT_PROBE_REALLOC: p = PROBE_REALLOC; break;
	case DT_PROBE_FREE: p = PROBE_FREE; break;
	case DT_PROBE_RETURN: p = PROBE_RETURN; break;
	case DT_PROBE_RETURN_CODE: p = PROBE_RETURN_CODE; break;
	case DT_PROBE_STORED: p = PROBE_STORED; break;
	case DT_PROBE_KERNEL_ALLOC: case DT_PROBE_KERNEL_FREE:
		kernel_alloc(args, end, which, req);
		return;
	default: return;
	}
	if (p == PROBE_RETURN || p == PROBE_RETURN_CODE) {
		if (!probe_arg(args, end, "ret", &req->alloc_ptr))
			return;
	} else if (p == PROBE_FREE || p == PROBE_STORED) {
		if (!probe_arg(args, end, "ptr", &req->alloc_ptr))
			return;
	} else {
		if (!probe_arg(args, end, "size", &size))
			return;
		if (probe_arg(args, end, "nmemb", &nmemb))
			req->alloc_elem = size;
		if (p == PROBE_REALLOC && !probe_arg(args, end, "ptr", &req->alloc_ptr))
			return;
		if (__builtin_mul_overflow(size, nmemb, &req->alloc_size))
			req->alloc_size = UINT64_MAX;
	}
	req->probe = p;
	req->alloc_unread = false;
}

static void perf_line(const char *line, size_t len, struct line_req *req)
{
	const char *end = line + len;
	const char *rec = find(line, end, "PERF_RECORD_");

	if (memchr(line, '\0', len)) {
		req->error = "NUL byte in line";
		return;
	}
	if (rec) {
		perf_record(rec, end, req);
		return;
	}
	perf_sample(line, end, req);
}
