// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Untrusted text made safe to print.  DWARF names, ELF symbols, paths,
 * event names and source lines may hold any byte: a tab or newline would
 * split a tsv row, ESC would drive the user's terminal, and a byte that
 * is not UTF-8 would make JSON invalid.  Such bytes are written as the
 * four characters \xHH (as git and perf do for names they do not trust);
 * everything else, UTF-8 included, is left as it is.
 */
#include <stdio.h>
#include <string.h>

#include "../dtprof.h"
#include "internal.h"

/* How many bytes of s form one printable character: a printable ASCII
 * byte, or a whole UTF-8 sequence that is no C1 control (U+0080..9F);
 * 0 when s[0] must be escaped. */
static size_t printable_run(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n;
	unsigned lo = 0x80, hi = 0xbf;

	if (c >= 0x20 && c < 0x7f)
		return 1;
	if (c < 0xc2 || c > 0xf4)
		return 0;	/* C0, DEL, a stray continuation, overlong */
	if (c < 0xe0) {
		n = 2;
		if (c == 0xc2 && s[1] < 0xa0)
			return 0;	/* C1 controls: CSI is U+009B */
	} else if (c < 0xf0) {
		n = 3;
		lo = c == 0xe0 ? 0xa0 : 0x80;	/* overlong */
		hi = c == 0xed ? 0x9f : 0xbf;	/* surrogates */
	} else {
		n = 4;
		lo = c == 0xf0 ? 0x90 : 0x80;
		hi = c == 0xf4 ? 0x8f : 0xbf;	/* past U+10FFFF */
	}
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

bool dt_text_is_safe(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = printable_run(p);
		if (!n)
			return false;
		p += n;
	}
	return true;
}

size_t dt_text_escape(const char *s, char *buf, size_t len)
{
	return text_escape(s, buf, len, false);
}

size_t text_escape(const char *s, char *buf, size_t len, bool keep_layout)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t out = 0;

	while (*p) {
		size_t n = keep_layout && (*p == '\n' || *p == '\t') ? 1 :
			   printable_run(p);
		char esc[4] = { '\\', 'x', hex[*p >> 4], hex[*p & 15] };
		const char *from = n ? (const char *)p : esc;
		size_t m = n ? n : 4;
		for (size_t i = 0; i < m; i++, out++)
			if (out + 1 < len)
				buf[out] = from[i];
		p += n ? n : 1;
	}
	if (len)
		buf[out < len ? out : len - 1] = '\0';
	return out;
}

void dt_text_put(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = printable_run(p);
		if (n) {
			fwrite(p, 1, n, f);
			p += n;
		} else {
			fprintf(f, "\\x%02x", *p++);
		}
	}
}
