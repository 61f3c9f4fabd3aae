// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The request line forms of dtresolve.  Accepted, for example:
 *   0x401136
 *   0x401136 rdi 16
 *   0x401136 %rax -0x58
 * Fields are separated by blanks; anything else is a bad line with a
 * reason the caller reports.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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

void line_parse(const char *line, size_t len, struct line_req *req)
{
	struct field f[MAX_FIELDS];
	size_t n = split_fields(line, len, f);

	memset(req, 0, sizeof(*req));
	req->kind = LINE_BAD;
	if (n == 0) {
		req->error = "empty line";
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
