/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The one output layer of the views (out.c): every table's tsv rows and
 * json documents, and the comment lines the text and tsv forms share, go
 * through it.  It owns what every format gets right once: json's commas,
 * nesting and string escapes, tsv's cells and tabs, and text made safe
 * whatever bytes a name holds (dt_text_escape()).  A view says what its
 * rows and members are; the layer says how each format spells them.
 */
#ifndef DTPROF_REPORT_OUT_H
#define DTPROF_REPORT_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../dtprof.h"

#define OUT_MAX_DEPTH 32

struct out {
	FILE *f;
	enum dt_format format;
	/* json: the open levels, innermost last; whether each is an object
	 * (members have keys) and has a value already (the next gets a
	 * comma) */
	unsigned depth;
	bool is_object[OUT_MAX_DEPTH], has_value[OUT_MAX_DEPTH];
	bool break_next;		/* out_newline(): the next value at
					 * this level starts a line */
	/* tsv and text rows: cells so far in the row */
	unsigned cells;
};

void out_init(struct out *o, FILE *f, enum dt_format format);
static inline bool out_json(const struct out *o)
{
	return o->format == DT_FORMAT_JSON;
}
static inline bool out_tsv(const struct out *o)
{
	return o->format == DT_FORMAT_TSV;
}
static inline bool out_text(const struct out *o)
{
	return o->format == DT_FORMAT_PERF;
}

/* ---- json ----
 * key names the member in an object, and is NULL for a value in an
 * array (or the document itself).  Containers nest up to OUT_MAX_DEPTH. */
void out_object(struct out *o, const char *key);
void out_array(struct out *o, const char *key);
/* Close the innermost object or array; at depth 0 the document ends
 * with a newline. */
void out_end(struct out *o);
void out_str(struct out *o, const char *key, const char *s);
void out_u64(struct out *o, const char *key, uint64_t v);
void out_i64(struct out *o, const char *key, int64_t v);
/* v as a string in hex, "0x1f" */
void out_hex(struct out *o, const char *key, uint64_t v);
/* v with prec decimals */
void out_double(struct out *o, const char *key, double v, int prec);
void out_bool(struct out *o, const char *key, bool v);
/* bytes as one string of hex digits, "" when n is 0 */
void out_hexbytes(struct out *o, const char *key, const uint8_t *b, size_t n);
/* a line break (layout only): inside a container, before the next
 * value (after its comma), if one comes; at depth 0, now */
void out_newline(struct out *o);

/* ---- tsv rows (and text rows of tab-separated cells) ----
 * A header is its column names; a row, cells ended by out_row_end(). */
void out_header(struct out *o, const char *const *names);
void out_cell(struct out *o, const char *s);
void out_cell_u64(struct out *o, uint64_t v);
void out_cell_i64(struct out *o, int64_t v);
void out_cell_double(struct out *o, double v, int prec);
void out_cell_hexbytes(struct out *o, const uint8_t *b, size_t n);
void out_row_end(struct out *o);

/* ---- text ----
 * A comment line, "# " and the text (tsv readers skip them), in text and
 * tsv; nothing in json, whose documents carry the facts as members. */
void out_comment(struct out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "#" alone: a comment line that separates others */
void out_comment_blank(struct out *o);
/* Free text in the text form (a view's own layout), through the layer
 * so that every byte a view writes passes one place. */
void out_printf(struct out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* s made safe (dt_text_escape()) into buf of len bytes: for a name a
 * view lays out itself. */
const char *out_safe(const char *s, char *buf, size_t len);

#endif
