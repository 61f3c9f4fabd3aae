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

/* Whether type t holds an object spelled name off bytes in: itself at 0,
 * a member's (any of a union's), an element's, so on down.  An anonymous
 * aggregate on the way, known by a typedef in answers, holds anything
 * (no contradiction can be told). */
static bool holds(struct dt_session *s, Dwarf_Die *t0, uint64_t off, const char *name,
		  int depth)
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
	}
	if (aggregate && !dwarf_diename(&t))
		return true;
	if (tag == DW_TAG_array_type) {
		Dwarf_Die e;
		uint64_t es;
		if (!die_type(&t, &e) || !type_byte_size(&e, &es) || !es ||
		    (type_byte_size(&t, &size) && size && off >= size))
			return false;
		return holds(s, &e, off % es, name, depth + 1);
	}
	if (!aggregate)
		return false;
	const struct member_table *mt = member_table_get(s, &t);
	for (size_t i = 0; mt && i < mt->n; i++)
		if (off >= mt->v[i].start && off < mt->v[i].end &&
		    holds(s, (Dwarf_Die *)&mt->v[i].mt, off - mt->v[i].start, name, depth + 1))
			return true;
	return false;
}

bool dt_type_holds(struct dt_session *s, uint64_t type_id, uint64_t offset,
		   const char *type)
{
	Dwarf_Die t;
	volatile bool r = true;	/* out of memory: no contradiction told */

	if (!type_id || !session_offdie(s, type_id, &t))
		return true;
	struct oom_guard g;
	OOM_GUARD(s, g, return r);
	r = holds(s, &t, offset, type, 0);
	OOM_UNGUARD(g);
	return r;
}
