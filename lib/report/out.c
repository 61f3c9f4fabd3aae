// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The views' one output layer (out.h): json built member by member, tsv
 * cell by cell, text made safe in one place.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"

void out_init(struct out *o, FILE *f, enum dt_format format)
{
	*o = (struct out){ .f = f, .format = format };
}

const char *out_safe(const char *s, char *buf, size_t len)
{
	if (!s)
		return "";
	if (dt_text_is_safe(s))
		return s;
	dt_text_escape(s, buf, len);
	return buf;
}

/* ---- json ---- */

/* s as a json string: quotes and backslashes escaped, any other byte
 * made safe first (dt_text_escape()'s "\x1b", whose backslash json then
 * escapes). */
static void json_string(FILE *f, const char *s)
{
	char small[256], *big = NULL;
	const char *t = s ? s : "";

	if (!dt_text_is_safe(t)) {
		size_t n = dt_text_escape(t, small, sizeof(small));
		if (n >= sizeof(small) && (big = malloc(n + 1))) {
			dt_text_escape(t, big, n + 1);
			t = big;
		} else {
			t = small;
		}
	}
	fputc('"', f);
	for (const char *c = t; *c; c++) {
		if (*c == '"' || *c == '\\')
			fputc('\\', f);
		fputc(*c, f);
	}
	fputc('"', f);
	free(big);
}

/* The comma and key before a value at the current level. */
static void json_before(struct out *o, const char *key)
{
	if (o->depth) {
		if (o->has_value[o->depth - 1])
			fputc(',', o->f);
		o->has_value[o->depth - 1] = true;
	}
	if (o->break_next)
		fputc('\n', o->f);
	o->break_next = false;
	if (key && o->depth && o->is_object[o->depth - 1]) {
		json_string(o->f, key);
		fputc(':', o->f);
	}
}

static void json_open(struct out *o, const char *key, bool object)
{
	json_before(o, key);
	fputc(object ? '{' : '[', o->f);
	if (o->depth < OUT_MAX_DEPTH) {
		o->is_object[o->depth] = object;
		o->has_value[o->depth] = false;
	}
	o->depth++;
}

void out_object(struct out *o, const char *key)
{
	json_open(o, key, true);
}

void out_array(struct out *o, const char *key)
{
	json_open(o, key, false);
}

void out_end(struct out *o)
{
	if (!o->depth)
		return;
	o->break_next = false;
	o->depth--;
	fputc(o->depth < OUT_MAX_DEPTH && o->is_object[o->depth] ? '}' : ']', o->f);
	if (!o->depth)
		fputc('\n', o->f);
}

void out_str(struct out *o, const char *key, const char *s)
{
	json_before(o, key);
	json_string(o->f, s);
}

void out_u64(struct out *o, const char *key, uint64_t v)
{
	json_before(o, key);
	fprintf(o->f, "%" PRIu64, v);
}

void out_i64(struct out *o, const char *key, int64_t v)
{
	json_before(o, key);
	fprintf(o->f, "%" PRId64, v);
}

void out_hex(struct out *o, const char *key, uint64_t v)
{
	json_before(o, key);
	fprintf(o->f, "\"%#" PRIx64 "\"", v);
}

void out_double(struct out *o, const char *key, double v, int prec)
{
	json_before(o, key);
	fprintf(o->f, "%.*f", prec, v);
}

void out_bool(struct out *o, const char *key, bool v)
{
	json_before(o, key);
	fputs(v ? "true" : "false", o->f);
}

static void hexbytes(FILE *f, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", b[i]);
}

void out_hexbytes(struct out *o, const char *key, const uint8_t *b, size_t n)
{
	json_before(o, key);
	fputc('"', o->f);
	hexbytes(o->f, b, n);
	fputc('"', o->f);
}

void out_newline(struct out *o)
{
	if (o->depth)
		o->break_next = true;
	else
		fputc('\n', o->f);
}

/* ---- tsv ---- */

static void cell_before(struct out *o)
{
	if (o->cells++)
		fputc('\t', o->f);
}

void out_header(struct out *o, const char *const *names)
{
	for (size_t i = 0; names[i]; i++)
		out_cell(o, names[i]);
	out_row_end(o);
}

void out_cell(struct out *o, const char *s)
{
	cell_before(o);
	dt_text_put(o->f, s ? s : "");	/* any byte, escaped, whole */
}

void out_cell_u64(struct out *o, uint64_t v)
{
	cell_before(o);
	fprintf(o->f, "%" PRIu64, v);
}

void out_cell_i64(struct out *o, int64_t v)
{
	cell_before(o);
	fprintf(o->f, "%" PRId64, v);
}

void out_cell_double(struct out *o, double v, int prec)
{
	cell_before(o);
	fprintf(o->f, "%.*f", prec, v);
}

void out_cell_hexbytes(struct out *o, const uint8_t *b, size_t n)
{
	cell_before(o);
	hexbytes(o->f, b, n);
}

void out_row_end(struct out *o)
{
	fputc('\n', o->f);
	o->cells = 0;
}

/* ---- text ---- */

void out_comment(struct out *o, const char *fmt, ...)
{
	va_list ap;

	if (out_json(o))
		return;
	fputs("# ", o->f);
	va_start(ap, fmt);
	vfprintf(o->f, fmt, ap);
	va_end(ap);
	fputc('\n', o->f);
}

void out_comment_blank(struct out *o)
{
	if (!out_json(o))
		fputs("#\n", o->f);
}

void out_printf(struct out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(o->f, fmt, ap);
	va_end(ap);
}
