// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A function decoded once: every instruction's address, length, kind of
 * memory access and whether it starts a basic block.  Built on first use
 * per function (bounds from DWARF, or the ELF symbol table without it) and
 * kept for the session.  Skid compensation walks it backwards.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "arrays.h"

#define MAX_FUNC_BYTES (1 << 20)	/* larger "functions" are data */

struct funcmap_cache {
	struct func_map **maps;		/* sorted by start */
	size_t n, cap;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Index of the instruction starting exactly at pc, or -1. */
long func_map_index(const struct func_map *fm, uint64_t pc)
{
	size_t at = AT_OR_BELOW(fm->n, i, fm->insns[i].pc, pc);

	return at && fm->insns[at - 1].pc == pc ? (long)(at - 1) : -1;
}

static struct func_map *build(struct dt_session *s, uint64_t start,
			      uint64_t end)
{
	struct func_map *fm = calloc(1, sizeof(*fm));
	uint64_t *targets = NULL;
	size_t ntargets = 0, cap = 0;
	struct decoded_insn insn;
	bool next_leads = true;

	if (!fm)
		return NULL;
	fm->start = start;
	fm->end = end;
	for (uint64_t pc = start; pc < end;) {
		size_t avail;
		const uint8_t *code = session_code_at(s, pc, &avail);
		if (!code || !decoder_run(s->decoder, pc, code,
					  avail < end - pc ? avail : end - pc, &insn))
			break;	/* padding or data: the rest is not code */
		if (GROW(fm->insns, fm->cap, fm->n, 64))
			goto fail;
		struct dt_mem_op op;
		uint64_t target;
		struct func_insn *fi = &fm->insns[fm->n++];
		fi->pc = pc;
		fi->len = (uint8_t)insn.len;
		fi->op = (uint8_t)s->arch->classify(insn.toks, insn.ntoks, &op);
		fi->leader = next_leads;
		/* what it does to registers, for track.c: decoded once here */
		struct dt_def d = { .kind = DT_DEF_NONE, .dst = -1, .src = -1 };
		if (s->arch->def)
			s->arch->def(insn.toks, insn.ntoks, pc, insn.len, &d);
		bool simple = (d.kind == DT_DEF_LOAD || d.kind == DT_DEF_STORE) &&
			      d.mem.base >= 0 && d.mem.index < 0 &&
			      d.mem.segment < 0 && !d.mem.pc_relative;
		fi->def = (uint8_t)d.kind;
		fi->def_dst = (int8_t)d.dst;
		fi->def_src = (int8_t)d.src;
		fi->mem_base = (int8_t)(simple ? d.mem.base : -1);
		fi->mem_disp = simple ? d.mem.disp :
			       d.kind == DT_DEF_ADDR || d.kind == DT_DEF_ADDI ? d.value : 0;
		enum dt_flow flow = s->arch->flow(insn.toks, insn.ntoks, &target);
		next_leads = flow != DT_FLOW_NEXT;
		if ((flow == DT_FLOW_BRANCH || flow == DT_FLOW_JUMP) &&
		    target >= start && target < end) {
			if (GROW(targets, cap, ntargets, 32))
				goto fail;
			targets[ntargets++] = target;
		}
		pc += insn.len;
	}
	if (ntargets)
		qsort(targets, ntargets, sizeof(*targets), cmp_u64);
	for (size_t i = 0; i < ntargets; i++) {
		long k = func_map_index(fm, targets[i]);
		if (k >= 0)
			fm->insns[k].leader = true;
	}
	free(targets);
	session_debug(s, "function %#llx..%#llx: %zu instructions, %zu branch targets",
		      (unsigned long long)start, (unsigned long long)end, fm->n,
		      ntargets);
	return fm;
fail:
	free(targets);
	free(fm->insns);
	free(fm);
	return NULL;
}

/* Function bounds around pc: DWARF's function ranges where there are
 * some (already indexed for scopes), else the symbol table. */
static bool function_bounds(struct dt_session *s, uint64_t pc,
			    uint64_t *start, uint64_t *end)
{
	GElf_Off off;
	GElf_Sym sym;
	Dwarf_Addr addr = pc + s->elf_bias, lo, hi;

	if (scope_function_range(s, pc + (uint64_t)s->dwarf_adjust, &lo, &hi) &&
	    hi - lo <= MAX_FUNC_BYTES) {
		*start = lo - (uint64_t)s->dwarf_adjust;
		*end = hi - (uint64_t)s->dwarf_adjust;
		return true;
	}

	if (!dwfl_module_addrinfo(s->mod, addr, &off, &sym, NULL, NULL, NULL))
		return false;
	if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_size ||
	    sym.st_size > MAX_FUNC_BYTES)
		return false;
	*start = pc - off;
	*end = *start + sym.st_size;
	return pc < *end;
}

const struct func_map *funcmap_get(struct dt_session *s, uint64_t pc)
{
	struct funcmap_cache *c = s->funcmaps;
	uint64_t start, end;

	if (!c) {
		c = s->funcmaps = calloc(1, sizeof(*c));
		if (!c)
			return NULL;
	}
	size_t lo = AT_OR_BELOW(c->n, i, c->maps[i]->start, pc);
	if (lo > 0 && pc < c->maps[lo - 1]->end)
		return c->maps[lo - 1];
	if (!function_bounds(s, pc, &start, &end))
		return NULL;
	if (GROW(c->maps, c->cap, c->n, 64))
		return NULL;
	struct func_map *fm = build(s, start, end);
	if (!fm)
		return NULL;
	memmove(&c->maps[lo + 1], &c->maps[lo], (c->n - lo) * sizeof(*c->maps));
	c->maps[lo] = fm;
	c->n++;
	return fm;
}

void funcmap_cache_free(struct funcmap_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->maps[i]->insns);
		free(c->maps[i]);
	}
	free(c->maps);
	free(c);
}
