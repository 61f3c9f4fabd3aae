// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * What an allocation site proves of the block it gets: the type of the
 * pointer the allocator returned, as the code uses it.  At the return
 * address the return register holds that pointer, whatever path led
 * there; the variable DWARF places in it there (or in a register it is
 * copied to before control can go elsewhere) is the proof.  A void *
 * result kept as void *, a pointer passed straight to another call, a
 * site whose first instructions branch: no proof, and the site stays
 * untyped (shown by its function and line, never guessed from a size).
 *
 * And a type's member at an offset (the block's start taken as the
 * type's), the same walk an access's own answer takes.
 */
#include <dwarf.h>
#include <errno.h>
#include <string.h>

#include "internal.h"

/* Instructions after the return address that may still copy the
 * pointer before a variable names it ("mov %rax,%rbx" then p in rbx). */
#define SITE_STEPS 6

/* Whether ans names a real type (not a pseudo type, a miss). */
static bool typed(const struct dt_answer *ans)
{
	return ans->reason == DT_OK && ans->type_id && ans->type[0] != '(';
}

enum dt_reason dt_resolve_alloc_site(struct dt_session *s, uint64_t pc,
				     struct dt_answer *ans)
{
	const struct func_map *fm = funcmap_get(s, pc);
	long i = fm ? func_map_index(fm, pc) : -1;
	int ret = s->arch->dwarf_retval;

	dt_answer_miss(ans, pc, DT_NO_VAR);
	if (i <= 0 || ret < 0 || ret >= 64 || fm->insns[i - 1].flow != DT_FLOW_CALL) {
		ans->reason = DT_NO_INSN;
		ans->note = session_intern(s, "not the return address of a call");
		return ans->reason;
	}
	uint64_t holds = 1ULL << ret;	/* registers the pointer is in */
	for (int step = 0; step < SITE_STEPS && (size_t)i < fm->n; step++, i++) {
		const struct func_insn *in = &fm->insns[i];
		/* another way in: the registers may hold something else */
		if (step && in->leader)
			break;
		for (int r = 0; r < 64; r++) {
			struct dt_answer a;
			if (!(holds >> r & 1) || dt_resolve_op(s, in->pc, r, 0, &a) != DT_OK ||
			    !typed(&a))
				continue;
			*ans = a;
			ans->pc = pc;
			ans->offset = 0;
			ans->field = "";
			return DT_OK;
		}
		if (in->flow != DT_FLOW_NEXT)
			break;		/* a branch, a call: proof ends here */
		uint64_t w = func_insn_writes(in);
		bool copy = in->def == DT_DEF_COPY && in->def_src >= 0 && in->def_src < 64 &&
			    (holds >> in->def_src & 1) && in->def_dst >= 0 && in->def_dst < 64;
		holds &= ~w;
		if (copy)
			holds |= 1ULL << in->def_dst;
		if (!holds)
			break;
	}
	return ans->reason;
}

/* Instructions followed from the return address to the reload of the
 * slot a call stored its block in. */
#define STORED_STEPS 12

/* Whether instruction in writes memory over [base + disp, base + disp + 8). */
static bool stores_slot(const struct func_insn *in, int base, int64_t disp)
{
	return in->mem_span && in->mem_base == base && in->mem_index < 0 &&
	       in->mem_disp < disp + 8 && disp < in->mem_disp + in->mem_span;
}

enum dt_reason dt_resolve_alloc_site_stored(struct dt_session *s, uint64_t pc,
					    struct dt_answer *ans)
{
	const struct func_map *fm = funcmap_get(s, pc);
	long i = fm ? func_map_index(fm, pc) : -1;
	int sp = s->arch->dwarf_sp, fp = s->arch->dwarf_fp, arg = s->arch->dwarf_arg0;

	dt_answer_miss(ans, pc, DT_NO_VAR);
	if (i <= 0 || sp < 0 || arg < 0 || fm->insns[i - 1].flow != DT_FLOW_CALL) {
		ans->reason = DT_NO_INSN;
		ans->note = session_intern(s, "not the return address of a call");
		return ans->reason;
	}
	/* the slot: the call's first argument, the stack or frame pointer
	 * plus a constant, set in the call's own block ("lea 0x8(%rsp),%rdi",
	 * "lea -0x18(%rbp),%rdi", "mov %rsp,%rdi"), its base unchanged since */
	int64_t slot = 0;
	int base = -1;
	uint64_t written = 0;
	for (long k = i - 2; k >= 0; k--) {
		const struct func_insn *in = &fm->insns[k];
		uint64_t w = func_insn_writes(in);
		if (w >> arg & 1) {
			if (in->def_dst == arg && (in->def_src == sp || (fp >= 0 && in->def_src == fp)) &&
			    (in->def == DT_DEF_ADDI || in->def == DT_DEF_COPY) &&
			    !(written >> in->def_src & 1)) {
				base = in->def_src;
				slot = in->def == DT_DEF_ADDI ? in->value : 0;
			}
			break;
		}
		written |= w;
		if (in->leader)
			break;
	}
	if (base < 0) {
		ans->note = session_intern(s, "the block's pointer is not stored to the stack");
		return ans->reason;
	}
	/* every path from the return address: the first reload of the slot
	 * into a register a variable names proves the block's type; a store
	 * over the slot, a move of its base, a call or the end of
	 * STORED_STEPS ends a path.  All the proofs found must agree. */
	long todo[2 * STORED_STEPS + 2];
	int steps[2 * STORED_STEPS + 2], ntodo = 0, proofs = 0;
	todo[ntodo] = i;
	steps[ntodo++] = 0;
	while (ntodo) {
		ntodo--;
		long k = todo[ntodo];
		int step = steps[ntodo];
		for (; step < STORED_STEPS && k >= 0 && (size_t)k < fm->n; step++) {
			const struct func_insn *in = &fm->insns[k];
			if (in->def == DT_DEF_LOAD && in->mem_base == base && in->mem_index < 0 &&
			    in->mem_disp == slot && in->def_dst >= 0 && in->def_dst < 64 &&
			    (size_t)k + 1 < fm->n) {
				struct dt_answer a;
				if (dt_resolve_op(s, fm->insns[k + 1].pc, in->def_dst, 0, &a) != DT_OK ||
				    !typed(&a))
					break;
				if (proofs++ && a.type_id != ans->type_id) {
					dt_answer_miss(ans, pc, DT_NO_VAR);
					ans->note = session_intern(s, "the block is reloaded as two types");
					return ans->reason;
				}
				*ans = a;
				ans->pc = pc;
				ans->offset = 0;
				ans->field = "";
				break;
			}
			if ((func_insn_writes(in) >> base & 1) || stores_slot(in, base, slot) ||
			    in->flow == DT_FLOW_CALL || in->flow == DT_FLOW_END ||
			    in->flow == DT_FLOW_INDIRECT)
				break;
			if (in->flow == DT_FLOW_BRANCH || in->flow == DT_FLOW_JUMP) {
				long t = func_map_index(fm, (uint64_t)in->value);
				if (in->flow == DT_FLOW_BRANCH && t >= 0 && ntodo < (int)(sizeof(todo) / sizeof(todo[0]))) {
					todo[ntodo] = t;
					steps[ntodo++] = step + 1;
				}
				if (in->flow == DT_FLOW_JUMP) {
					k = t;
					continue;
				}
			}
			k++;
		}
	}
	if (!proofs)
		ans->note = session_intern(s, "the block is not reloaded where a variable names it");
	return ans->reason;
}

enum dt_reason dt_resolve_type_offset(struct dt_session *s, uint64_t type_id,
				      int64_t offset, unsigned size,
				      struct dt_answer *ans)
{
	struct access acc = { .size = size };
	struct type_hit th;
	Dwarf_Die type;

	dt_answer_miss(ans, 0, DT_NO_TYPE);
	if (!type_id || !session_offdie(s, type_id, &type))
		return ans->reason;
	struct oom_guard g;
	OOM_GUARD(s, g, { dt_answer_miss(ans, 0, DT_NO_MEMORY); return DT_NO_MEMORY; });
	enum dt_reason r = type_member_at(s, &type, NULL, offset, &acc, &th);
	OOM_UNGUARD(g);
	ans->reason = r;
	ans->type = th.type ? th.type : DT_TYPE_UNKNOWN;
	ans->type_id = th.type_id;
	ans->type_size = th.size;
	ans->offset = th.offset;
	ans->field = th.field ? th.field : "";
	ans->size = size;
	return r;
}

/* Whether t is a character type (char, signed or unsigned, and their
 * typedefs: uint8_t, u8), through which C reads any object's bytes. */
static bool char_type(Dwarf_Die *t0)
{
	Dwarf_Die t;
	Dwarf_Attribute a;
	Dwarf_Word enc, size;

	if (!type_peel(t0, &t) || dwarf_tag(&t) != DW_TAG_base_type ||
	    dwarf_formudata(dwarf_attr(&t, DW_AT_encoding, &a), &enc) ||
	    dwarf_formudata(dwarf_attr(&t, DW_AT_byte_size, &a), &size))
		return false;
	return size == 1 && (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char ||
			     enc == DW_ATE_signed || enc == DW_ATE_unsigned);
}

/* Whether types a and b are one, however spelled: the same after their
 * typedefs and qualifiers, pointer for pointer (GCObject * and struct
 * GCObject *). */
static bool same_type(Dwarf_Die *a0, Dwarf_Die *b0, int depth)
{
	Dwarf_Die a, b;
	bool va = !type_peel(a0, &a), vb = !type_peel(b0, &b);

	if (va || vb)
		return va == vb;	/* void */
	int tag = dwarf_tag(&a);
	if (tag != dwarf_tag(&b) || depth > 8)
		return false;
	if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
	    tag == DW_TAG_rvalue_reference_type) {
		Dwarf_Die pa, pb;
		bool ha = die_type(&a, &pa), hb = die_type(&b, &pb);
		return ha && hb ? same_type(&pa, &pb, depth + 1) : ha == hb;
	}
	char sa[512], sb[512];
	type_spell(&a, sa, sizeof(sa));
	type_spell(&b, sb, sizeof(sb));
	return !strcmp(sa, sb);
}

/* Whether view (a struct or union type, peeled) sees aggregate t (peeled)
 * as one object: one of the two starts with every member of the other
 * (a header's view: Lua's GCObject of a Table, a TString of a site's
 * GCObject *), or view is a union with a member so seen (Lua's union
 * GCUnion over a Table). */
static bool views(struct dt_session *s, Dwarf_Die *t, Dwarf_Die *view, int depth)
{
	int tt = dwarf_tag(t), vt = dwarf_tag(view);

	if (depth > 4)
		return false;
	if (tt == DW_TAG_structure_type && vt == DW_TAG_structure_type)
		return type_starts_like(s, view, t) || type_starts_like(s, t, view);
	if (vt != DW_TAG_union_type)
		return false;
	const struct member_table *mt = member_table_get(s, view);
	for (size_t i = 0; mt && i < mt->n; i++) {
		Dwarf_Die m = mt->v[i].mt;	/* peeled */
		if (!mt->v[i].start && (same_type(t, &m, 0) || views(s, t, &m, depth + 1)))
			return true;
	}
	return false;
}

/* Whether type t holds an object spelled name off bytes in: itself at 0,
 * a member's (any of a union's), an element's, so on down; with view
 * (name's own type, peeled), also the same type spelled otherwise, and an
 * aggregate view sees as one object.
 * An anonymous aggregate on the way, known by a typedef in answers,
 * holds anything (no contradiction can be told). */
static bool holds(struct dt_session *s, Dwarf_Die *t0, uint64_t off, const char *name,
		  Dwarf_Die *view, int depth)
{
	char buf[512];
	const char *typedef_name = NULL;
	uint64_t size;
	Dwarf_Die t;

	if (depth > 16 || !type_peel_named(t0, &t, &typedef_name))
		return false;
	int tag = dwarf_tag(&t);
	bool aggregate = tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
			 tag == DW_TAG_class_type;
	if (off == 0) {
		type_spell(&t, buf, sizeof(buf));
		if (!strcmp(buf, name) || (typedef_name && !strcmp(typedef_name, name)))
			return true;
		if (view && (same_type(&t, view, 0) || (aggregate && views(s, &t, view, 0))))
			return true;
	}
	if (aggregate && !dwarf_diename(&t))
		return true;
	if (tag == DW_TAG_array_type) {
		Dwarf_Die e;
		uint64_t es;
		if (!die_type(&t, &e) || !type_byte_size(&e, &es) || !es ||
		    (type_byte_size(&t, &size) && size && off >= size))
			return false;
		if (char_type(&e))
			return true;	/* a buffer of bytes: storage for anything */
		return holds(s, &e, off % es, name, view, depth + 1);
	}
	if (!aggregate)
		return false;
	const struct member_table *mt = member_table_get(s, &t);
	for (size_t i = 0; mt && i < mt->n; i++)
		if (off >= mt->v[i].start && off < mt->v[i].end &&
		    holds(s, (Dwarf_Die *)&mt->v[i].mt, off - mt->v[i].start, name, view,
			  depth + 1))
			return true;
	return false;
}

bool dt_type_holds_view(struct dt_session *s, uint64_t type_id, uint64_t offset,
			const char *type, uint64_t view_id)
{
	Dwarf_Die t, v0, v;
	volatile bool r = true;	/* out of memory: no contradiction told */

	if (!type_id || !session_offdie(s, type_id, &t))
		return true;
	struct oom_guard g;
	OOM_GUARD(s, g, return r);
	Dwarf_Die *const view = view_id && session_offdie(s, view_id, &v0) &&
				type_peel(&v0, &v) ? &v : NULL;
	/* bytes: a block of chars holds anything, and any object's bytes
	 * may be read as chars */
	r = char_type(&t) || (view && char_type(view)) || !strcmp(type, "char") ||
	    !strcmp(type, "unsigned char") || !strcmp(type, "signed char") ||
	    holds(s, &t, offset, type, view, 0);
	OOM_UNGUARD(g);
	return r;
}

bool dt_type_holds(struct dt_session *s, uint64_t type_id, uint64_t offset,
		   const char *type)
{
	return dt_type_holds_view(s, type_id, offset, type, 0);
}
