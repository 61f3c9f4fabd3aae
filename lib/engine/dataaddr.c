// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Data addresses without a PMU: the address an access touched, from the
 * registers perf sampled (perf record --user-regs / --intr-regs).
 *
 * The registers are those at the sampled ip, before its instruction ran.
 * The access a sample is charged to is that instruction, or one before it
 * in its basic block (skid).  Its address is base + index * scale + disp
 * only when every instruction from the access up to the ip is on one
 * straight path and writes neither register; anything else is no address,
 * with its reason.  A wrong address would confirm sharing that is not
 * there: when in doubt, none.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

static const char *const why_names[DT_ADDR_WHY_COUNT] = {
	[DT_ADDR_OK] = "ok",
	[DT_ADDR_NO_REGS] = "no_regs",
	[DT_ADDR_OTHER_IP] = "regs_of_other_ip",
	[DT_ADDR_NO_OPERAND] = "no_operand",
	[DT_ADDR_SEGMENT] = "segment",
	[DT_ADDR_NARROW] = "narrow_regs",
	[DT_ADDR_UNRECORDED] = "reg_not_recorded",
	[DT_ADDR_CHANGED] = "reg_changed",
	[DT_ADDR_NO_PATH] = "no_straight_path",
};

const char *dt_addr_why_str(enum dt_addr_why w)
{
	return (unsigned)w < DT_ADDR_WHY_COUNT ? why_names[w] : "?";
}

/* ---- perf script's register dump ---- */

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* A hex digit's value, 16 for anything else (no locale: perf's text). */
static unsigned hex_value(char c)
{
	unsigned l = (unsigned char)c | 32;

	return c >= '0' && c <= '9' ? (unsigned)(c - '0') :
	       l >= 'a' && l <= 'f' ? l - 'a' + 10 : 16;
}

bool dt_perf_reg_token(const char *t, size_t n, bool *abi, size_t *name_len,
		    uint64_t *val)
{
	size_t i = 0;

	/* the name: letters and digits, up to the colon */
	for (; i < n && t[i] != ':'; i++) {
		unsigned l = (unsigned char)t[i] | 32;
		if (!(l >= 'a' && l <= 'z') && !(t[i] >= '0' && t[i] <= '9'))
			return false;
	}
	if (!i || i == n)
		return false;
	*name_len = i;
	*abi = i == 3 && !memcmp(t, "ABI", 3);
	*val = 0;
	if (*abi) {		/* "ABI:2" */
		for (i++; i < n; i++)
			if (t[i] < '0' || t[i] > '9')
				return false;
		return n > 4;
	}
	if (n - i < 4 || t[i + 1] != '0' || t[i + 2] != 'x' || n - i - 3 > 16)
		return false;
	for (i += 3; i < n; i++) {
		unsigned d = hex_value(t[i]);
		if (d > 15)
			return false;
		*val = *val << 4 | d;
	}
	return true;
}

/* Whether NUL-terminated want is name[0..len). */
static bool name_is(const char *want, const char *name, size_t len)
{
	return want && want[0] == name[0] && !strncmp(want, name, len) && !want[len];
}

static int perf_reg_number(const struct dt_arch *a, const char *name, size_t len)
{
	for (unsigned r = 0; r < a->perf_regs_n && r < 64; r++)
		if (name_is(a->perf_regs[r], name, len))
			return (int)r;
	return -1;
}

int dt_session_perf_regs(const struct dt_session *s, const char *text,
			 size_t len, uint64_t ip, struct dt_regs *out)
{
	const struct dt_arch *a = s->arch;
	const char *p = text, *end = text + len;
	struct dt_regs cur;
	bool in_group = false, cur_ip_ok = false, found = false, any = false;

	memset(out, 0, sizeof(*out));
	if (!a->perf_regs)
		return -EINVAL;
	/* groups start with "ABI:n"; iregs and uregs may both be there */
	for (;;) {
		while (p < end && is_space(*p))
			p++;
		const char *t = p;
		while (p < end && !is_space(*p))
			p++;
		size_t n = (size_t)(p - t), nl;
		uint64_t v;
		bool abi = false;
		if (n && !dt_perf_reg_token(t, n, &abi, &nl, &v))
			return -EINVAL;
		if (!n || abi) {
			if (in_group && cur_ip_ok && !found) {
				*out = cur;
				found = true;
			}
			if (!n)
				break;
			memset(&cur, 0, sizeof(cur));
			in_group = any = true;
			cur_ip_ok = false;
			continue;
		}
		if (!in_group)
			return -EINVAL;
		int r = perf_reg_number(a, t, nl);
		if (name_is(a->perf_ip, t, nl))
			cur_ip_ok = v == ip;
		if (r >= 0) {
			cur.mask |= 1ull << r;
			cur.val[r] = v;
		}
	}
	return found ? 0 : any ? -ENOENT : -EINVAL;
}

/* ---- the address ---- */

/* Whether the instructions from access_pc up to (not including) pc run
 * in a straight line without writing base or index. */
static enum dt_addr_why unchanged(struct dt_session *s, uint64_t access_pc,
				  uint64_t pc, int base, int index)
{
	const struct func_map *fm = funcmap_get(s, pc);
	long i = fm ? func_map_index(fm, access_pc) : -1;
	long j = fm ? func_map_index(fm, pc) : -1;

	if (i < 0 || j < 0 || i > j)
		return DT_ADDR_NO_PATH;
	for (long k = i; k < j; k++) {
		const struct func_insn *in = &fm->insns[k];
		if (in->flow != DT_FLOW_NEXT || fm->insns[k + 1].leader)
			return DT_ADDR_NO_PATH;
		uint64_t w = func_insn_writes(in);
		if ((base >= 0 && base < 64 && w >> base & 1) ||
		    (index >= 0 && index < 64 && w >> index & 1))
			return DT_ADDR_CHANGED;
	}
	return DT_ADDR_OK;
}

static bool reg_value(const struct dt_regs *regs, int r, uint64_t *v)
{
	if (r < 0) {
		*v = 0;
		return true;
	}
	if (r >= 64 || !(regs->mask >> r & 1))
		return false;
	*v = regs->val[r];
	return true;
}

enum dt_addr_why dt_session_data_addr(struct dt_session *s, uint64_t pc,
				      uint64_t access_pc, uint64_t ip,
				      const struct dt_regs *regs,
				      uint64_t *addr)
{
	struct decoded_insn insn;
	struct dt_mem_op op;
	uint64_t base, index;
	size_t avail;
	const uint8_t *code;

	*addr = 0;
	if (!regs || !regs->mask)
		return DT_ADDR_NO_REGS;
	if (!access_pc || access_pc > pc)
		return DT_ADDR_NO_OPERAND;
	code = session_insn_at(s, access_pc, &avail);
	if (!code || !decoder_run(s->decoder, access_pc, code, avail, &insn) ||
	    s->arch->classify(insn.toks, insn.ntoks, &op) != DT_OP_MEMORY)
		return DT_ADDR_NO_OPERAND;
	if (op.segment >= 0)
		return DT_ADDR_SEGMENT;
	if (op.narrow)
		return DT_ADDR_NARROW;
	if (!reg_value(regs, op.base, &base) || !reg_value(regs, op.index, &index))
		return DT_ADDR_UNRECORDED;
	if (access_pc != pc) {
		enum dt_addr_why w = unchanged(s, access_pc, pc, op.base, op.index);
		if (w != DT_ADDR_OK)
			return w;
	}
	/* pc-relative and absolute operands move with the code: ip - pc */
	uint64_t bias = ip - pc;
	if (op.pc_relative)
		*addr = access_pc + insn.len + (uint64_t)op.disp + bias;
	else if (op.absolute)
		*addr = (uint64_t)op.disp + bias;
	else
		*addr = base + index * (uint64_t)(op.scale ? op.scale : 1) +
			(uint64_t)op.disp;
	return DT_ADDR_OK;
}
