// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The views' output layer (lib/report/out.c): json commas and nesting,
 * line breaks only between values, strings escaped whatever bytes they
 * hold; tsv cells with their tabs, any byte of a name made safe; comment
 * lines in text and tsv and never in json.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../lib/report/out.h"
#include "tap.h"

struct buf {
	char *s;
	size_t len;
	FILE *f;
};

static void open_buf(struct buf *b, struct out *o, enum dt_format fmt)
{
	b->s = NULL;
	b->f = open_memstream(&b->s, &b->len);
	out_init(o, b->f, fmt);
}

static const char *close_buf(struct buf *b)
{
	fclose(b->f);
	return b->s;
}

int main(void)
{
	struct buf b;
	struct out o;

	/* nesting, keys, commas; the document ends its line */
	open_buf(&b, &o, DT_FORMAT_JSON);
	out_object(&o, NULL);
	out_str(&o, "a", "x");
	out_array(&o, "v");
	out_u64(&o, NULL, 1);
	out_i64(&o, NULL, -2);
	out_object(&o, NULL);
	out_end(&o);
	out_end(&o);
	out_hex(&o, "pc", 0x1f);
	out_double(&o, "d", 0.5, 2);
	out_bool(&o, "t", true);
	out_hexbytes(&o, "id", (const uint8_t *)"\x01\xab", 2);
	out_end(&o);
	is_str(close_buf(&b),
	       "{\"a\":\"x\",\"v\":[1,-2,{}],\"pc\":\"0x1f\",\"d\":0.50,\"t\":true,\"id\":\"01ab\"}\n",
	       "json: members, arrays, nesting and commas");
	free(b.s);

	/* a line break comes before the next value, after its comma, and
	 * never before a closing bracket */
	open_buf(&b, &o, DT_FORMAT_JSON);
	out_array(&o, NULL);
	out_u64(&o, NULL, 1);
	out_newline(&o);
	out_u64(&o, NULL, 2);
	out_newline(&o);
	out_end(&o);
	is_str(close_buf(&b), "[1,\n2]\n", "json: line breaks only between values");
	free(b.s);

	/* quotes, backslashes and bytes that are not text, in keys too */
	open_buf(&b, &o, DT_FORMAT_JSON);
	out_object(&o, NULL);
	out_str(&o, "k\"", "a\"b\\c\x1b\xff\n");
	out_str(&o, "null", NULL);
	out_end(&o);
	is_str(close_buf(&b), "{\"k\\\"\":\"a\\\"b\\\\c\\\\x1b\\\\xff\\\\x0a\",\"null\":\"\"}\n",
	       "json: strings escaped whatever bytes they hold");
	free(b.s);

	/* tsv: cells, tabs between them, a name's tab and newline escaped */
	open_buf(&b, &o, DT_FORMAT_TSV);
	static const char *const cols[] = { "type", "n", NULL };
	out_header(&o, cols);
	out_cell(&o, "struct a\tb\n");
	out_cell_u64(&o, 3);
	out_cell_i64(&o, -4);
	out_cell_double(&o, 1.25, 1);
	out_cell(&o, "");
	out_row_end(&o);
	out_comment(&o, "note %d", 1);
	out_comment(&o, "%s", "");
	is_str(close_buf(&b), "type\tn\nstruct a\\x09b\\x0a\t3\t-4\t1.2\t\n# note 1\n# \n",
	       "tsv: cells, escapes, comments");
	free(b.s);

	/* a blank comment is "#"; json has none */
	open_buf(&b, &o, DT_FORMAT_PERF);
	out_comment_blank(&o);
	is_str(close_buf(&b), "#\n", "text: an empty comment line");
	free(b.s);
	open_buf(&b, &o, DT_FORMAT_JSON);
	out_comment(&o, "not in json");
	is_str(close_buf(&b), "", "json: no comment lines");
	free(b.s);

	done_testing();
}
