// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * One instruction through libopcodes, in process.  The styled-print
 * callback hands us the instruction as typed tokens (mnemonic, register,
 * address offset, immediate...), so operands are read from structure, not
 * by re-parsing objdump text.  The architecture's quick decoder, where it
 * has one, hands out the same tokens for the common instructions first.
 */
#define PACKAGE "dtprof"	/* bfd.h refuses to compile without it */
#include <dis-asm.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct decoder {
	disassemble_info info;
	disassembler_ftype print_insn;
	struct decoded_insn *out;	/* tokens of the current run */
	const struct dt_arch *arch;
	bool quick;			/* arch->quick_decode goes first */
	struct dt_tok_sink sink;	/* its tokens go to out too */
};

static enum dt_tok_kind tok_kind(enum disassembler_style st)
{
	switch (st) {
	case dis_style_mnemonic: return DT_TOK_MNEMONIC;
	case dis_style_sub_mnemonic: return DT_TOK_SUB_MNEMONIC;
	case dis_style_assembler_directive: return DT_TOK_DIRECTIVE;
	case dis_style_register: return DT_TOK_REGISTER;
	case dis_style_immediate: return DT_TOK_IMMEDIATE;
	case dis_style_address: return DT_TOK_ADDRESS;
	case dis_style_address_offset: return DT_TOK_ADDRESS_OFFSET;
	case dis_style_symbol: return DT_TOK_SYMBOL;
	case dis_style_comment_start: return DT_TOK_COMMENT;
	case dis_style_text:
	default: return DT_TOK_TEXT;
	}
}

/* The next token's storage, NULL (and out->overflow) when full. */
static char *token_room(struct decoded_insn *out, size_t *room)
{
	*room = sizeof(out->text) - out->text_used;
	if (out->ntoks >= DECODE_MAX_TOKS || *room < 2) {
		out->overflow = true;
		return NULL;
	}
	return out->text + out->text_used;
}

/* The token just written at dst, n bytes (n >= room: it did not fit). */
static void token_done(struct decoded_insn *out, enum dt_tok_kind kind,
		       char *dst, size_t n, size_t room)
{
	if (n >= room) {
		out->overflow = true;
		return;
	}
	if (n == 0)
		return;		/* empty text tokens carry nothing */
	out->toks[out->ntoks].kind = kind;
	out->toks[out->ntoks].text = dst;
	out->ntoks++;
	out->text_used += n + 1;
}

static void push_text(struct decoded_insn *out, enum dt_tok_kind kind,
		      const char *str, size_t len)
{
	size_t room;
	char *dst = token_room(out, &room);

	if (!dst)
		return;
	if (len < room) {
		memcpy(dst, str, len);
		dst[len] = '\0';
	}
	token_done(out, kind, dst, len, room);
}

static void push_token(struct decoded_insn *out, enum dt_tok_kind kind,
		       const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
static void push_token(struct decoded_insn *out, enum dt_tok_kind kind,
		       const char *fmt, va_list ap)
{
	if (!strcmp(fmt, "%s") || !strcmp(fmt, "%.*s")) {
		/* what libopcodes prints (binutils 2.40: "%.*s" for nearly
		 * every token): no formatting to do */
		size_t max = fmt[1] == '.' ? (size_t)va_arg(ap, int) : SIZE_MAX;
		const char *str = va_arg(ap, const char *);
		push_text(out, kind, str, strnlen(str, max));
		return;
	}
	size_t room;
	char *dst = token_room(out, &room);
	if (!dst)
		return;
	int n = vsnprintf(dst, room, fmt, ap);
	if (n < 0) {
		out->overflow = true;
		return;
	}
	token_done(out, kind, dst, (size_t)n, room);
}

static void quick_put(struct dt_tok_sink *sink, enum dt_tok_kind kind,
		      const char *text, size_t len)
{
	struct decoder *d = (struct decoder *)((char *)sink -
					       offsetof(struct decoder, sink));
	push_text(d->out, kind, text, len);
}

static int styled_cb(void *stream, enum disassembler_style st,
		     const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int styled_cb(void *stream, enum disassembler_style st,
		     const char *fmt, ...)
{
	struct decoder *d = stream;
	va_list ap;

	va_start(ap, fmt);
	push_token(d->out, tok_kind(st), fmt, ap);
	va_end(ap);
	return 0;
}

/* Unstyled output is rare (older code paths); keep it as text. */
static int plain_cb(void *stream, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int plain_cb(void *stream, const char *fmt, ...)
{
	struct decoder *d = stream;
	va_list ap;

	va_start(ap, fmt);
	push_token(d->out, DT_TOK_TEXT, fmt, ap);
	va_end(ap);
	return 0;
}

/* Branch targets: an address token rather than objdump's "<sym+off>". */
static void print_address_cb(bfd_vma addr, struct disassemble_info *info)
{
	(*info->fprintf_styled_func)(info->stream, dis_style_address,
				     "0x%llx", (unsigned long long)addr);
}

struct decoder *decoder_new(const struct dt_arch *arch)
{
	const bfd_arch_info_type *ai = bfd_scan_arch(arch->bfd_arch);
	struct decoder *d;

	if (!ai)
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	init_disassemble_info(&d->info, d, plain_cb, styled_cb);
	d->info.arch = ai->arch;
	d->info.mach = ai->mach;
	d->info.endian = BFD_ENDIAN_LITTLE;
	d->info.read_memory_func = buffer_read_memory;
	d->info.print_address_func = print_address_cb;
	disassemble_init_for_target(&d->info);
	d->print_insn = disassembler(ai->arch, false, ai->mach, NULL);
	if (!d->print_insn) {
		decoder_free(d);
		return NULL;
	}
	d->arch = arch;
	d->quick = arch->quick_decode != NULL;
	d->sink.put = quick_put;
	return d;
}

void decoder_use_quick(struct decoder *d, bool quick)
{
	d->quick = quick && d->arch->quick_decode;
}

void decoder_free(struct decoder *d)
{
	if (!d)
		return;
	disassemble_free_target(&d->info);
	free(d);
}

unsigned decoder_run(struct decoder *d, uint64_t pc, const uint8_t *bytes,
		     size_t avail, struct decoded_insn *out)
{
	out->pc = pc;
	out->len = 0;
	out->ntoks = 0;
	out->text_used = 0;
	out->overflow = false;
	if (!avail)
		return 0;

	d->out = out;
	if (d->quick) {
		unsigned n = d->arch->quick_decode(pc, bytes, avail, &d->sink);
		if (n && n <= avail && !out->overflow) {
			d->out = NULL;
			out->len = n;
			return n;
		}
		out->ntoks = 0;		/* left to libopcodes */
		out->text_used = 0;
		out->overflow = false;
	}
	d->info.buffer = (bfd_byte *)bytes;
	d->info.buffer_vma = pc;
	d->info.buffer_length = avail;
	int n = d->print_insn(pc, &d->info);
	d->out = NULL;
	if (n <= 0 || (size_t)n > avail || out->overflow)
		return 0;
	/* libopcodes prints "(bad)" for undefined encodings and ".byte 0x8b"
	 * when the bytes end inside an instruction */
	for (size_t i = 0; i < out->ntoks; i++)
		if (out->toks[i].kind == DT_TOK_DIRECTIVE ||
		    strstr(out->toks[i].text, "(bad)"))
			return 0;
	out->len = (unsigned)n;
	return out->len;
}

void decoded_insn_text(const struct decoded_insn *insn, char *buf,
		       size_t len)
{
	size_t used = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < insn->ntoks; i++) {
		if (insn->toks[i].kind == DT_TOK_COMMENT)
			break;
		int n = snprintf(buf + used, len - used, "%s",
				 insn->toks[i].text);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
	/* libopcodes pads the mnemonic with blanks or a tab: one blank */
	char *w = buf;
	for (char *r = buf; *r; r++) {
		if (*r == '\t')
			*r = ' ';
		if (!(*r == ' ' && (r[1] == ' ' || r[1] == '\t' || r[1] == '\0')))
			*w++ = *r;
	}
	*w = '\0';
}
