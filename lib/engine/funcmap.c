// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A function decoded once: every instruction's address, length, kind of
 * memory access, what it does to registers and stack memory, and its
 * basic blocks with their successors.  Built on first use per function
 * (bounds from DWARF, or the ELF symbol table without it) and kept while
 * it is among the recently used: a kernel's questions span thousands of
 * functions, and their maps and dataflow states would otherwise stay for
 * the session (30 MB of a vmlinux run's heap).  Skid compensation walks it
 * backwards; track.c runs its dataflow over the blocks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "../arrays.h"

#define MAX_FUNC_BYTES (1 << 20)	/* larger "functions" are data */
/* Maps kept between questions: s->keep_functions of them (a large
 * program's hot functions fit; a kernel's thousands are trimmed to the
 * most recently asked), holding no more instructions than these (7 MB) */
#define MAPS_KEPT_INSNS (1u << 17)

/* What a direct call to target may change (funcmap_call_clobbers). */
struct call_clobbers {
	uint64_t target;
	uint64_t writes;
};

struct funcmap_cache {
	struct func_map **maps;		/* sorted by start */
	size_t n, cap;
	struct symbol_list funcs;	/* bounds without DWARF (assembly) */
	struct call_clobbers *calls;	/* by target */
	size_t ncalls, calls_cap;
	uint32_t *calls_slot;		/* open addressing over calls: arrays.h */
	size_t calls_size;
	uint64_t clock;			/* questions asked: func_map.used */
	size_t insns;			/* in maps */
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

size_t func_map_block(const struct func_map *fm, size_t i)
{
	return AT_OR_BELOW(fm->nblocks, b, fm->blocks[b].first, i) - 1;
}

/* Copy what arch->def says into the compact per-instruction form. */
static void take_def(struct func_insn *fi, const struct dt_def *d)
{
	bool based = d->mem.base >= 0 && d->mem.segment < 0 && !d->mem.pc_relative;
	bool moves = d->kind == DT_DEF_LOAD || d->kind == DT_DEF_STORE;

	fi->def = (uint8_t)d->kind;
	fi->def_dst = (int8_t)d->dst;
	fi->def_src = (int8_t)d->src;
	fi->def_src2 = (int8_t)d->src2;
	fi->def_src3 = (int8_t)d->src3;
	fi->scale = (uint8_t)d->scale;
	fi->clobbers = d->clobbers;
	/* write-back: followed when it fits, else the base is lost */
	fi->wb_reg = -1;
	if (d->wb_reg >= 0 && d->wb_value == (int16_t)d->wb_value && d->wb_reg != d->dst)
		fi->wb_reg = (int8_t)d->wb_reg, fi->wb_value = (int16_t)d->wb_value;
	else if (d->wb_reg >= 0 && d->wb_reg < 64)
		fi->clobbers |= 1ull << d->wb_reg;
	if (d->kind == DT_DEF_ADDR || d->kind == DT_DEF_ADDI ||
	    d->kind == DT_DEF_ADD || d->kind == DT_DEF_MUL || d->kind == DT_DEF_CALL ||
	    d->kind == DT_DEF_SUB || d->kind == DT_DEF_ORI)
		fi->value = d->value;
	/* a spill through an index is not followed, only noted */
	if (moves && (!based || (d->kind == DT_DEF_STORE && d->mem.index >= 0)))
		fi->def = d->kind == DT_DEF_LOAD ? DT_DEF_OTHER : DT_DEF_NONE;
	fi->mem_base = (int8_t)(based ? d->mem.base : -1);
	fi->mem_index = (int8_t)d->mem.index;
	fi->mem_scale = (uint8_t)d->mem.scale;
	fi->mem_disp = d->mem.disp;
	/* a pointer loaded from a static: its link-time address */
	fi->mem_static = d->kind == DT_DEF_LOAD && d->mem.index < 0 &&
			 d->mem.segment < 0 && (d->mem.pc_relative || d->mem.base < 0);
	if (fi->mem_static) {
		fi->def = DT_DEF_LOAD;
		if (d->mem.pc_relative)
			fi->mem_disp = (int64_t)(fi->pc + fi->len) + d->mem.disp;
	}
	fi->mem_span = (uint8_t)(d->mem_span > 255 ? 255 : d->mem_span);
	if (d->kind == DT_DEF_STORE && !fi->mem_span)
		fi->mem_span = 8;
}

/* Blocks from the leaders, and their successors from the last
 * instruction's flow. */
static int build_blocks(struct func_map *fm)
{
	size_t cap = 0;

	for (size_t i = 0; i < fm->n; i++) {
		if (!fm->insns[i].leader && i)
			continue;
		if (GROW(fm->blocks, cap, fm->nblocks, 16))
			return -1;
		fm->blocks[fm->nblocks++] = (struct func_block){
			.first = (uint32_t)i, .succ = { -1, -1 } };
	}
	for (size_t b = 0; b < fm->nblocks; b++) {
		struct func_block *fb = &fm->blocks[b];
		fb->end = b + 1 < fm->nblocks ? fm->blocks[b + 1].first : (uint32_t)fm->n;
		const struct func_insn *last = &fm->insns[fb->end - 1];
		bool falls = last->flow == DT_FLOW_NEXT || last->flow == DT_FLOW_CALL ||
			     last->flow == DT_FLOW_BRANCH;
		int k = 0;
		if (falls && b + 1 < fm->nblocks)
			fb->succ[k++] = (int32_t)(b + 1);
		if (last->flow == DT_FLOW_BRANCH || last->flow == DT_FLOW_JUMP) {
			long t = func_map_index(fm, (uint64_t)last->value);
			if (t >= 0)
				fb->succ[k++] = (int32_t)func_map_block(fm, (size_t)t);
			else if (last->value >= (int64_t)fm->start &&
				 last->value < (int64_t)fm->end)
				fm->indirect_jumps = true;	/* into an instruction */
		}
		if (last->flow == DT_FLOW_INDIRECT)
			fm->indirect_jumps = true;
	}
	return 0;
}

static void func_map_free(struct func_map *fm);

/* The instruction at pc, decoded into *fi (its kind, what it does to
 * registers) and its flow, with a branch's target in fi->value; false
 * when no instruction of the function [.., end) is there (padding, data). */
static bool decode_insn(struct dt_session *s, uint64_t pc, uint64_t end,
			struct func_insn *fi, enum dt_flow *flow)
{
	struct decoded_insn insn;
	struct dt_mem_op op;
	uint64_t target;
	size_t avail;
	const uint8_t *code = session_insn_at(s, pc, &avail);

	if (!code || !decoder_run(s->decoder, pc, code,
				  avail < end - pc ? avail : end - pc, &insn))
		return false;
	*fi = (struct func_insn){ .pc = pc };
	fi->len = (uint8_t)insn.len;
	struct dt_def d = { .kind = DT_DEF_NONE, .dst = -1, .src = -1,
			    .src2 = -1, .src3 = -1, .wb_reg = -1 };
	if (s->arch->classify_def) {
		fi->op = (uint8_t)s->arch->classify_def(insn.toks, insn.ntoks,
							pc, insn.len, &op, &d);
	} else {
		fi->op = (uint8_t)s->arch->classify(insn.toks, insn.ntoks, &op);
		if (s->arch->def)
			s->arch->def(insn.toks, insn.ntoks, pc, insn.len, &d);
	}
	fi->fuses = fi->op == DT_OP_MEMORY && op.fuses;
	take_def(fi, &d);
	if (fi->op == DT_OP_MEMORY) {
		if (op.base < 0 || op.index >= 0 || op.segment >= 0)
			fi->acc = ACC_OTHER;
		else if (op.disp == fi->mem_disp && op.size <= UINT8_MAX && op.base < 128)
			fi->acc = ACC_BASED, fi->acc_base = (int8_t)op.base,
			fi->acc_size = (uint8_t)op.size;
	}
	*flow = s->arch->flow(insn.toks, insn.ntoks, &target);
	fi->flow = (uint8_t)*flow;
	if (*flow == DT_FLOW_BRANCH || *flow == DT_FLOW_JUMP)
		fi->value = (int64_t)target;
	return true;
}

static struct func_map *build(struct dt_session *s, uint64_t start,
			      uint64_t end)
{
	struct func_map *fm = calloc(1, sizeof(*fm));
	uint64_t *targets = NULL;
	size_t ntargets = 0, cap = 0;
	bool next_leads = true;

	if (!fm)
		return NULL;
	fm->start = start;
	fm->end = end;
	for (uint64_t pc = start; pc < end;) {
		struct func_insn in;
		enum dt_flow flow;
		/* what it does to registers, for track.c: decoded once here */
		if (!decode_insn(s, pc, end, &in, &flow))
			break;	/* padding or data: the rest is not code */
		if (GROW(fm->insns, fm->cap, fm->n, 64))
			goto fail;
		struct func_insn *fi = &fm->insns[fm->n++];
		*fi = in;
		fi->leader = next_leads;
		next_leads = flow != DT_FLOW_NEXT;
		uint64_t target = (uint64_t)fi->value;
		/* targets outside: tail calls */
		if ((flow == DT_FLOW_BRANCH || flow == DT_FLOW_JUMP) &&
		    target >= start && target < end) {
			if (GROW(targets, cap, ntargets, 32))
				goto fail;
			targets[ntargets++] = target;
		}
		pc += fi->len;
	}
	if (ntargets)
		qsort(targets, ntargets, sizeof(*targets), cmp_u64);
	for (size_t i = 0; i < ntargets; i++) {
		long k = func_map_index(fm, targets[i]);
		if (k >= 0)
			fm->insns[k].leader = fm->insns[k].target = true;
	}
	free(targets);
	targets = NULL;
	if (fm->n && build_blocks(fm))
		goto fail;
	FIT(fm->insns, fm->cap, fm->n);	/* a kernel has thousands of maps */
	session_debug(s, "function %#llx..%#llx: %zu instructions, %zu branch targets",
		      (unsigned long long)start, (unsigned long long)end, fm->n,
		      ntargets);
	return fm;
fail:
	free(targets);
	func_map_free(fm);
	return NULL;
}

/* Function bounds around pc: DWARF's function ranges where there are
 * some (already indexed for scopes), else the symbol table. */
static bool function_bounds(struct dt_session *s, uint64_t pc,
			    uint64_t *start, uint64_t *end)
{
	struct symbol_list *f = &s->funcmaps->funcs;
	Dwarf_Addr lo, hi;

	if (scope_function_range(s, pc + (uint64_t)s->dwarf_adjust, &lo, &hi) &&
	    hi - lo <= MAX_FUNC_BYTES) {
		*start = lo - (uint64_t)s->dwarf_adjust;
		*end = hi - (uint64_t)s->dwarf_adjust;
		return true;
	}
	/* sorted once: libdwfl's own lookup searches every symbol each time */
	if (!f->loaded)
		symbols_load(s, STT_FUNC, f, false);
	size_t at = AT_OR_BELOW(f->n, i, f->v[i].start, pc);
	/* the innermost that holds pc: aliases share a start, and a symbol
	 * may lie inside a larger one; look back a little */
	for (size_t i = at, k = 0; i > 0 && k < 8; i--, k++) {
		const struct object_symbol *y = &f->v[i - 1];
		if (pc - y->start < y->size) {
			*start = y->start;
			*end = y->start + y->size;
			return y->size <= MAX_FUNC_BYTES;
		}
	}
	return false;
}

struct func_map *funcmap_get(struct dt_session *s, uint64_t pc)
{
	struct funcmap_cache *c = s->funcmaps;
	uint64_t start, end;

	if (!c) {
		c = s->funcmaps = calloc(1, sizeof(*c));
		if (!c)
			return NULL;
	}
	size_t lo = AT_OR_BELOW(c->n, i, c->maps[i]->start, pc);
	if (lo > 0 && pc < c->maps[lo - 1]->end) {
		c->maps[lo - 1]->used = ++c->clock;
		return c->maps[lo - 1];
	}
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
	c->insns += fm->n;
	fm->used = ++c->clock;
	return fm;
}

void funcmap_trim(struct dt_session *s)
{
	struct funcmap_cache *c = s->funcmaps;
	struct lru_item *v;

	if (!c || (c->n <= s->keep_functions && c->insns <= MAPS_KEPT_INSNS) ||
	    !(v = malloc(c->n * sizeof(*v))))
		return;
	for (size_t i = 0; i < c->n; i++)
		v[i] = (struct lru_item){ c->maps[i]->used, c->maps[i]->n };
	uint64_t oldest = lru_cutoff(v, c->n, s->keep_functions, MAPS_KEPT_INSNS);
	free(v);
	size_t k = 0;
	for (size_t i = 0; i < c->n; i++) {
		if (c->maps[i]->used >= oldest) {
			c->maps[k++] = c->maps[i];
		} else {
			c->insns -= c->maps[i]->n;
			func_map_free(c->maps[i]);
		}
	}
	session_debug(s, "%zu decoded functions freed, %zu kept", c->n - k, k);
	c->n = k;
}

#define MAX_LEAF_BYTES 1024	/* larger callees: every caller-saved register */

/* Whether every way out of fm is a return, and nothing is called. */
/* The registers one instruction may write, into *w; false when it calls,
 * jumps through a register or leaves the function [start, end) other
 * than by returning (a tail call): then its callers assume the worst. */
static bool leaf_insn(const struct func_insn *in, uint64_t start, uint64_t end,
		      uint64_t *w)
{
	if (in->flow == DT_FLOW_CALL || in->flow == DT_FLOW_INDIRECT)
		return false;
	if ((in->flow == DT_FLOW_JUMP || in->flow == DT_FLOW_BRANCH) &&
	    ((uint64_t)in->value < start || (uint64_t)in->value >= end))
		return false;	/* a tail call */
	*w |= func_insn_writes(in);
	return true;
}

/* What the leaf function [start, end) writes: from its map when it has
 * one, else decoded up to the first call (most callees make one early:
 * no map is built for them). */
static bool leaf_writes(struct dt_session *s, uint64_t start, uint64_t end,
			uint64_t *w)
{
	struct funcmap_cache *c = s->funcmaps;
	size_t lo = c ? AT_OR_BELOW(c->n, i, c->maps[i]->start, start) : 0;
	const struct func_map *fm = lo && c->maps[lo - 1]->start == start ?
				    c->maps[lo - 1] : NULL;

	*w = 0;
	if (fm) {
		for (size_t i = 0; i < fm->n; i++)
			if (!leaf_insn(&fm->insns[i], start, end, w))
				return false;
		return fm->n > 0;
	}
	uint64_t pc = start;
	while (pc < end) {
		struct func_insn in;
		enum dt_flow flow;
		if (!decode_insn(s, pc, end, &in, &flow))
			break;	/* padding or data, as build() stops there */
		if (!leaf_insn(&in, start, end, w))
			return false;
		pc += in.len;
	}
	return pc > start;
}

static uint64_t calls_hash(uint64_t target)
{
	return hash_mix(HASH_SEED, target);
}

static uint64_t call_clobbers(struct dt_session *s, uint64_t target)
{
	uint64_t all = s->arch->caller_saved, w;
	Dwarf_Addr lo, hi, at = target + (uint64_t)s->dwarf_adjust;

	/* a small function of this binary's DWARF (not a PLT stub, whose
	 * lookup would search every symbol) */
	if (!target || !scope_function_range(s, at, &lo, &hi) || lo != at ||
	    hi - lo > MAX_LEAF_BYTES ||
	    !leaf_writes(s, target, hi - (uint64_t)s->dwarf_adjust, &w))
		return all;
	return w & all;
}

uint64_t funcmap_call_clobbers(struct dt_session *s, uint64_t target)
{
	struct funcmap_cache *c = s->funcmaps;
	uint32_t k = c ? INDEX_FIND(c->calls_slot, c->calls_size, calls_hash(target), i,
				    c->calls[i].target == target) : 0;

	if (k)
		return c->calls[k - 1].writes;
	uint64_t w = call_clobbers(s, target);
	/* remembered when there is room; else worked out again next time */
	if (!c || INDEX_READY(c->calls_slot, c->calls_size, c->ncalls, i,
			      calls_hash(c->calls[i].target)) ||
	    GROW(c->calls, c->calls_cap, c->ncalls, 64))
		return w;
	c->calls[c->ncalls] = (struct call_clobbers){ target, w };
	c->calls_slot[INDEX_FREE(c->calls_slot, c->calls_size, calls_hash(target))] =
		(uint32_t)++c->ncalls;
	return w;
}

static void func_map_free(struct func_map *fm)
{
	track_states_free(fm->track);
	free(fm->blocks);
	free(fm->insns);
	free(fm);
}

void funcmap_cache_free(struct funcmap_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		func_map_free(c->maps[i]);
	free(c->maps);
	free(c->calls);
	free(c->calls_slot);
	free(c->funcs.v);
	free(c);
}
