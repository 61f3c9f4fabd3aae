// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Register tables against libdw's own names for the same DWARF numbers,
 * and every spelling of a register mapping to one number.
 */
#include <elfutils/libdwfl.h>

#include "../arch/arch.h"
#include "tap.h"

struct names {
	const struct dt_arch *arch;
	int checked;
};

static int check_name(void *arg, int regno, const char *setname,
		      const char *prefix, const char *regname, int bits,
		      int type)
{
	struct names *n = arg;
	const char *ours = n->arch->reg_name(regno);

	(void)setname; (void)prefix; (void)bits; (void)type;
	if (ours) {
		is_str(ours, regname, "%s: DWARF register %d is %s",
		       n->arch->name, regno, regname);
		n->checked++;
	}
	return 0;
}

static void against_libdw(const struct dt_arch *arch, const char *elf)
{
	static const Dwfl_Callbacks cb = {
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
	};
	Dwfl *dwfl = dwfl_begin(&cb);
	Dwfl_Module *mod = dwfl_report_offline(dwfl, "self", elf, -1);
	struct names n = { arch, 0 };

	dwfl_report_end(dwfl, NULL, NULL);
	if (ok(mod != NULL, "libdwfl opens %s", elf)) {
		dwfl_module_register_names(mod, check_name, &n);
		ok(n.checked >= 17, "%s: %d registers compared with libdw",
		   arch->name, n.checked);
	}
	dwfl_end(dwfl);
}

static int reg(const char *name)
{
	return dt_arch_x86_64.reg_from_name(name, strlen(name));
}

int main(void)
{
	const struct dt_arch *x86 = dt_arch_for_machine(62);

	ok(x86 == &dt_arch_x86_64, "EM_X86_64 selects x86-64");
	ok(dt_arch_for_name("x86_64") == x86, "x86_64 is a name for x86-64");
	ok(dt_arch_for_machine(0) == NULL, "EM_NONE selects nothing");
	against_libdw(x86, "/proc/self/exe");

	static const struct { const char *name; int dwarf; } spellings[] = {
		{ "rax", 0 }, { "%eax", 0 }, { "ax", 0 }, { "al", 0 }, { "ah", 0 },
		{ "rdx", 1 }, { "dl", 1 }, { "rcx", 2 }, { "cl", 2 }, { "ebx", 3 },
		{ "rsi", 4 }, { "sil", 4 }, { "rdi", 5 }, { "%edi", 5 }, { "dil", 5 },
		{ "rbp", 6 }, { "bpl", 6 }, { "rsp", 7 }, { "spl", 7 },
		{ "r8", 8 }, { "r8d", 8 }, { "r8w", 8 }, { "r8b", 8 },
		{ "%r15", 15 }, { "r15d", 15 }, { "rip", 16 }, { "fs", 54 },
		{ "gs", 55 }, { "es", 50 }, { "eip", 16 }, { "r12l", 12 },
		{ "r13w", 13 }, { "%r11b", 11 }, { "bh", 3 },
		{ "x0", -1 }, { "r16", -1 }, { "r7", -1 }, { "r8q", -1 },
		{ "", -1 }, { "%", -1 }, { "raxx", -1 }, { "xmm0", -1 },
		{ "r08d", -1 }, { "r16d", -1 }, { "eipx", -1 },
	};
	for (size_t i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++)
		is_int(reg(spellings[i].name), spellings[i].dwarf, "'%s' is %d",
		       spellings[i].name, spellings[i].dwarf);
	is_int(x86->dwarf_sp, reg("rsp"), "stack pointer");
	is_int(x86->dwarf_fp, reg("rbp"), "frame pointer");
	is_int(x86->dwarf_pc, reg("rip"), "program counter");

	/* the facts generic code takes from the table, for every ISA */
	const struct dt_arch *all[] = { &dt_arch_x86_64, &dt_arch_aarch64 };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		const struct dt_arch *a = all[i];
		ok(a->ngpr > 0 && a->ngpr <= DT_MAX_GPRS, "%s: %u general registers",
		   a->name, a->ngpr);
		ok(a->dwarf_sp >= 0 && (unsigned)a->dwarf_sp < a->ngpr &&
		   a->dwarf_retval >= 0 && (unsigned)a->dwarf_retval < a->ngpr,
		   "%s: the stack pointer and return register are general", a->name);
		is_int(a->ptr_size, 8, "%s: 8-byte pointers", a->name);
		ok(a->plt_entry == 16 && a->plt_header >= 16, "%s: a PLT layout",
		   a->name);
		ok(a->tests_bits != NULL, "%s: says which bits an instruction tests",
		   a->name);
	}
	is_int(dt_arch_aarch64.plt_header, 32, "aarch64: PLT0 is 32 bytes");
	is_int(dt_arch_x86_64.ngpr, 16, "x86-64: rax..r15 (16 is rip)");
	return done_testing();
}
