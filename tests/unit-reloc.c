// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Each architecture's apply_reloc on one instruction or data field at a
 * time: the patched instruction read back by libopcodes (what a linked
 * program would disassemble to), values a field cannot hold refused, and
 * GOT forms sent to "nowhere".
 */
#include <elf.h>

#include "../lib/engine/internal.h"
#include "tap.h"

#define NOWHERE 0x40000ull

struct a64_case {
	const char *what;
	unsigned type;
	uint32_t insn;		/* the unrelocated instruction */
	uint64_t place, symbol;
	int64_t addend;
	const char *want;	/* disassembly after, NULL: refused */
};

static const struct a64_case a64_cases[] = {
	{ "adrp: the symbol's page", R_AARCH64_ADR_PREL_PG_HI21, 0x90000000,
	  0x10000, 0x23000, 0x10, "adrp x0, 0x23000" },
	{ "adrp backwards", R_AARCH64_ADR_PREL_PG_HI21, 0x90000001,
	  0x23004, 0x10000, 0, "adrp x1, 0x10000" },
	{ "adrp out of range", R_AARCH64_ADR_PREL_PG_HI21, 0x90000000,
	  0x10000, 0x10000 + (1ull << 33), 0, NULL },
	{ "adrp through the GOT: nowhere", R_AARCH64_ADR_GOT_PAGE, 0x90000000,
	  0x10000, 0x23000, 0, "adrp x0, 0x40000" },
	{ "add: the low 12 bits", R_AARCH64_ADD_ABS_LO12_NC, 0x91000000,
	  0x10004, 0x23000, 0x10, "add x0, x0, #0x10" },
	{ "ldr x: the low 12 bits, in 8s", R_AARCH64_LDST64_ABS_LO12_NC, 0xf9400001,
	  0x10004, 0x23018, 0, "ldr x1, [x0, #24]" },
	{ "ldr w: in 4s", R_AARCH64_LDST32_ABS_LO12_NC, 0xb9400001,
	  0x10004, 0x23000, 0x24, "ldr w1, [x0, #36]" },
	{ "ldrh: in 2s", R_AARCH64_LDST16_ABS_LO12_NC, 0x79400001,
	  0x10004, 0x23006, 0, "ldrh w1, [x0, #6]" },
	{ "ldrb", R_AARCH64_LDST8_ABS_LO12_NC, 0x39400001,
	  0x10004, 0x23007, 0, "ldrb w1, [x0, #7]" },
	{ "ldr x of a misaligned address: refused", R_AARCH64_LDST64_ABS_LO12_NC,
	  0xf9400001, 0x10004, 0x23014, 0, NULL },
	{ "bl", R_AARCH64_CALL26, 0x94000000, 0x10000, 0x12000, 0, "bl 0x12000" },
	{ "bl out of range", R_AARCH64_CALL26, 0x94000000, 0x10000,
	  0x10000 + (1ull << 28), 0, NULL },
	{ "b.eq", R_AARCH64_CONDBR19, 0x54000000, 0x10000, 0x10040, 0, "b.eq 0x10040" },
	{ "tbz", R_AARCH64_TSTBR14, 0x36000000, 0x10000, 0x10020, 0, "tbz w0, #0, 0x10020" },
};

static void a64(void)
{
	struct decoder *d = decoder_new(&dt_arch_aarch64);

	if (!ok(d != NULL, "aarch64 decoder"))
		return;
	for (size_t i = 0; i < sizeof(a64_cases) / sizeof(a64_cases[0]); i++) {
		const struct a64_case *c = &a64_cases[i];
		uint8_t b[4];
		struct decoded_insn insn;
		char text[128];

		dt_put_le(b, c->insn, 4);
		bool applied = dt_arch_aarch64.apply_reloc(c->type, c->symbol, c->addend,
							   c->place, NOWHERE, b, sizeof(b));
		if (!c->want) {
			ok(!applied, "a64 %s", c->what);
			continue;
		}
		if (!ok(applied, "a64 %s: applied", c->what))
			continue;
		decoder_run(d, c->place, b, sizeof(b), &insn);
		decoded_insn_text(&insn, text, sizeof(text));
		is_str(text, c->want, "a64 %s", c->what);
	}
	decoder_free(d);
}

static void data_fields(void)
{
	uint8_t b[8] = { 0 };

	ok(dt_arch_aarch64.apply_reloc(R_AARCH64_ABS64, 0x23000, 8, 0x10000, NOWHERE, b, 8) &&
	   dt_get_le(b, 8) == 0x23008, "a64 ABS64: symbol + addend");
	ok(dt_arch_aarch64.apply_reloc(R_AARCH64_PREL32, 0x23000, 0, 0x10000, NOWHERE, b, 4) &&
	   dt_get_le(b, 4) == 0x13000, "a64 PREL32: from the field");
	ok(!dt_arch_aarch64.apply_reloc(R_AARCH64_PREL32, 0x10000 + (1ull << 32), 0, 0x10000,
					NOWHERE, b, 4), "a64 PREL32 out of range: refused");
	ok(dt_arch_aarch64.apply_reloc(R_AARCH64_ABS32, 0xffffffff, 0, 0x10000, NOWHERE, b, 4) &&
	   dt_get_le(b, 4) == 0xffffffff, "a64 ABS32: an unsigned 32-bit value");
	ok(!dt_arch_aarch64.apply_reloc(R_AARCH64_ABS32, 1ull << 33, 0, 0x10000, NOWHERE, b, 4),
	   "a64 ABS32 past 32 bits: refused");
	ok(!dt_arch_aarch64.apply_reloc(R_AARCH64_ABS64, 0x23000, 0, 0x10000, NOWHERE, b, 7),
	   "a64 ABS64 with 7 bytes left: refused");
	ok(!dt_arch_aarch64.apply_reloc(R_AARCH64_CALL26, 0x12000, 0, 0x10000, NOWHERE, b, 3),
	   "a64 an instruction with 3 bytes left: refused");
	ok(!dt_arch_aarch64.apply_reloc(0xffff, 0, 0, 0, NOWHERE, b, 8),
	   "a64 an unknown type: refused");
	ok(dt_arch_x86_64.apply_reloc(R_X86_64_PC32, 0x2000, -4, 0x1000, NOWHERE, b, 4) &&
	   dt_get_le(b, 4) == 0xffc, "x86-64 PC32: symbol + addend - place");
	ok(!dt_arch_x86_64.apply_reloc(R_X86_64_32, 1ull << 32, 0, 0x1000, NOWHERE, b, 4),
	   "x86-64 32 with a value past 32 bits: refused");
	ok(dt_arch_x86_64.apply_reloc(R_X86_64_GOTPCREL, 0x2000, -4, 0x1000, NOWHERE, b, 4) &&
	   dt_get_le(b, 4) == NOWHERE - 4 - 0x1000, "x86-64 GOTPCREL: nowhere");
}

int main(void)
{
	a64();
	data_fields();
	return done_testing();
}
