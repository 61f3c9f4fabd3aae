// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Variables with a static address: globals, file statics and function
 * statics (DW_OP_addr locations), indexed by address once per session, so
 * a pc-relative or absolute operand names its variable, type and field.
 * Data without DWARF falls back to the ELF symbol: its name, no type.
 * The program's thread-locals ("DW_OP_const8u off; DW_OP_GNU_push_tls_address"
 * or DW_OP_form_tls_address) share the index, at TLS_TAG + their offset
 * in the TLS block: no link-time address has that bit.  A kernel's per-CPU
 * variables (linked from 0 in .data..percpu) are at PERCPU_TAG + their
 * offset, so only a per-CPU access ("%gs:0x1a0") can name one.
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "../arrays.h"
#include "internal.h"

#define MAX_NEST 16
#define TLS_TAG (1ull << 63)
#define PERCPU_TAG (1ull << 62)
#define TAGS (TLS_TAG | PERCPU_TAG)

/* Which tag an index key has: a tag is set on an offset below PERCPU_TAG,
 * so a kernel's addresses (0xffffffff81000000: both bits) have none. */
static uint64_t tag_of(uint64_t key)
{
	return (key & TAGS) == TAGS ? 0 : key & TAGS;
}

struct global_var {
	uint64_t start, size;	/* link-time */
	Dwarf_Off die;
};

/* A GOT slot the dynamic linker fills with the offset of one of this
 * module's thread-locals from the thread pointer (initial-exec). */
struct tpoff_slot {
	uint64_t slot;		/* link-time address of the GOT slot */
	uint64_t off;		/* the variable's offset in the module's block */
};

struct slot_list {
	struct tpoff_slot *v;
	size_t n, cap;
};

#define FOREIGN_TLS UINT64_MAX

/* Variables sorted by start. */
struct var_list {
	struct global_var *v;
	size_t n, cap;
};

/* One unit's variables, its functions' statics too: those are used by
 * the unit's own code only, so they are looked for there; and the unit's
 * declarations of variables other units define ("extern int x;"). */
struct cu_vars {
	Dwarf_Off cu;
	struct var_list vars;
	struct symbol_list decls;	/* start: the DIE's key; by name */
	bool function_statics;		/* those in vars too (walked late:
					 * every function body of the unit) */
};

struct global_index {
	struct var_list all;		/* every unit's unit-level variables */
	bool all_indexed;
	struct symbol_list tls_syms;	/* STT_TLS symbols, by name */
	struct symbol_list tls_by_start;	/* the same, by offset */
	/* the dynamic relocations of thread-locals' GOT slots: TPOFF
	 * (initial-exec), DTPMOD and DTPOFF (general-dynamic pairs), each
	 * sorted by slot; off FOREIGN_TLS: another module's variable */
	struct slot_list tpoffs, dtpmods, dtpoffs;
	bool tls_slots_loaded;
	struct symbol_list syms;	/* ELF data symbols, by address */
	struct symbol_list syms_by_name;	/* the same, by name */
	struct symbol_list decls;	/* relocatable files: unit-level
					 * declarations (start: DIE key), by
					 * name */
	enum { SYMTAB_UNKNOWN, SYMTAB_FULL, SYMTAB_PARTIAL } symtab;
	struct cu_vars *cus;		/* the units of pcs asked about */
	size_t ncus, cus_cap;
	uint32_t *cus_slot;		/* open addressing over cus: arrays.h */
	size_t cus_size;
};

/* libdw's DW_AT_location of it into *loc (once: loc->code 0 until
 * then), for what the walk's bytes leave to libdw. */
static bool libdw_location(struct die_children *it, Dwarf_Attribute *loc)
{
	Dwarf_Die *d;

	if (loc->code)
		return true;
	return (d = children_die(it)) && dwarf_attr(d, DW_AT_location, loc);
}

/* "DW_OP_addr A": the variable lives at A.  DWARF 5 (clang) says
 * "DW_OP_addrx i": entry i of .debug_addr.  loc is the variable's
 * DW_AT_location; a single expression is read from the walk's bytes when
 * it can be: libdw would keep every expression it decodes (a kernel's
 * statics: 8 MB). */
static bool static_address(struct dt_session *s, struct die_children *it,
			   Dwarf_Attribute *loc, uint64_t *addr)
{
	Dwarf_Attribute res;
	Dwarf_Addr a;
	Dwarf_Op *e;
	size_t n;
	unsigned as;
	const unsigned char *b = children_block(&s->walker, it, DW_AT_location, &n, &as);

	if (b && n == 1 + as && b[0] == DW_OP_addr) {
		uint64_t v = 0;
		for (unsigned i = as; i-- > 0;)	/* little-endian: children.c */
			v = v << 8 | b[1 + i];
		*addr = v;
		return true;
	}
	if (b && (!n || (b[0] != DW_OP_addrx && b[0] != DW_OP_GNU_addr_index)))
		return false;	/* an expression that is no address */
	if (!libdw_location(it, loc) || dwarf_getlocation(loc, &e, &n) != 0 || n != 1)
		return false;
	if (e[0].atom == DW_OP_addr) {
		*addr = e[0].number;
		return true;
	}
	if ((e[0].atom == DW_OP_addrx || e[0].atom == DW_OP_GNU_addr_index) &&
	    dwarf_getlocation_attr(loc, &e[0], &res) == 0 &&
	    dwarf_formaddr(&res, &a) == 0) {
		*addr = a;
		return true;
	}
	return false;
}

/* "DW_OP_const*u off; DW_OP_GNU_push_tls_address" (or form_tls_address),
 * the location loc: a thread-local at offset off of its module's TLS
 * block. */
static bool tls_offset(Dwarf_Attribute *loc, uint64_t *off)
{
	Dwarf_Op *e;
	size_t n;

	if (dwarf_getlocation(loc, &e, &n) != 0 || n != 2 ||
	    (e[1].atom != DW_OP_GNU_push_tls_address &&
	     e[1].atom != DW_OP_form_tls_address))
		return false;
	switch (e[0].atom) {
	case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u:
	case DW_OP_const8u: case DW_OP_constu:
		*off = e[0].number;
		return *off < TLS_TAG;
	default:
		return false;	/* DW_OP_addrx-based forms: not read */
	}
}

static int cmp_sym_start(const void *a, const void *b)
{
	const struct object_symbol *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_sym_name(const void *a, const void *b)
{
	return strcmp(((const struct object_symbol *)a)->name,
		      ((const struct object_symbol *)b)->name);
}

void symbols_load(struct dt_session *s, int type, struct symbol_list *l,
		  bool by_name)
{
	int n = dwfl_module_getsymtab(s->mod);
	Elf *percpu_elf = NULL;
	size_t percpu_ndx = SHN_UNDEF;

	l->loaded = true;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *elf;
		const char *name = dwfl_module_getsym_info(s->mod, i, &sym, &addr,
							   &shndx, &elf, NULL);
		if (!name || GELF_ST_TYPE(sym.st_info) != type ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_size)
			continue;
		uint64_t at = type == STT_TLS ? sym.st_value : addr - s->elf_bias;
		if (type == STT_TLS && at >= TLS_TAG)
			continue;	/* no TLS block is that large */
		if (GROW(l->v, l->cap, l->n, 64))
			return;	/* ENOMEM: the session stops answering */
		int bind = GELF_ST_BIND(sym.st_info);
		/* the section index is of the file whose table this is */
		if (s->areas.percpu_size && elf && elf != percpu_elf) {
			GElf_Shdr sh;
			Elf_Scn *scn = section_named(elf, PERCPU_SECTION, &sh);
			percpu_elf = elf;
			percpu_ndx = scn ? elf_ndxscn(scn) : SHN_UNDEF;
		}
		l->v[l->n++] = (struct object_symbol){ at, sym.st_size, name,
			bind == STB_GLOBAL || bind == STB_WEAK,
			percpu_ndx != SHN_UNDEF && shndx == percpu_ndx };
	}
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), by_name ? cmp_sym_name : cmp_sym_start);
}

/* GCC gives AArch64 thread-locals no location (there is no DTPREL
 * relocation for DWARF there): a unit-level variable without one is
 * placed by the ELF symbol, when exactly one STT_TLS symbol has its name
 * and its size.  *off: where in the module's TLS block. */
/* In l, sorted by name: the entries named name, v[*first .. return). */
static size_t named(const struct symbol_list *l, const char *name, size_t *first)
{
	size_t hi = AT_OR_BELOW(l->n, i, strcmp(l->v[i].name, name) <= 0 ? 0 : 1, 0);
	size_t lo = hi;

	while (lo > 0 && !strcmp(l->v[lo - 1].name, name))
		lo--;
	*first = lo;
	return hi;
}

static bool tls_symbol_offset(struct dt_session *s, struct global_index *ix,
			      const char *name, uint64_t size, uint64_t *off)
{
	size_t lo;

	if (!name)
		return false;
	if (!ix->tls_syms.loaded)
		symbols_load(s, STT_TLS, &ix->tls_syms, true);
	size_t hi = named(&ix->tls_syms, name, &lo);
	if (hi - lo != 1 || ix->tls_syms.v[lo].size != size)
		return false;	/* none, two of that name, or not this one */
	*off = ix->tls_syms.v[lo].start;
	return true;
}

/* A unit-level declaration of a variable, by its linkage name (the ELF
 * symbol's), in decls. */
static void add_declaration(struct dt_session *s, Dwarf_Die *var,
			    struct symbol_list *decls)
{
	Dwarf_Attribute a;
	const char *name = dwarf_formstring(dwarf_attr(var, DW_AT_linkage_name, &a));

	if (!name)
		name = dwarf_diename(var);
	if (name && !GROW(decls->v, decls->cap, decls->n, 16))
		decls->v[decls->n++] = (struct object_symbol){
			session_die_key(s, var), 0, name, true, false };
}

/* The variable it (a child of a unit, a namespace or, at depth > 0 with
 * decls NULL, a function body) appended to out when it has a static
 * address; with decls, a unit-level declaration goes there. */
static void index_variable(struct dt_session *s, struct die_children *it,
			   struct global_index *ix, struct var_list *out,
			   struct symbol_list *decls, int depth)
{
	uint64_t addr, size;
	Dwarf_Die t, *c;
	Dwarf_Attribute loc = { .code = 0 };	/* libdw's, when asked */
	bool by_symbol = false, has_loc;

	if (decls && depth == 0 && children_has(&s->walker, it, DW_AT_declaration)) {
		if ((c = children_die(it)))
			add_declaration(s, c, decls);
		return;
	}
	has_loc = children_has(&s->walker, it, DW_AT_location);
	if (has_loc && static_address(s, it, &loc, &addr)) {
		addr -= (uint64_t)s->dwarf_adjust;
		if (addr < s->areas.percpu_size)
			addr |= PERCPU_TAG;
	} else if (has_loc && libdw_location(it, &loc) && tls_offset(&loc, &addr)) {
		addr |= TLS_TAG;
	} else if (depth == 0 && !has_loc &&
		   !children_has(&s->walker, it, DW_AT_declaration)) {
		by_symbol = true;	/* maybe a thread-local */
	} else {
		return;
	}
	if (!(c = children_die(it)) || !die_type(c, &t) || !type_byte_size(&t, &size) ||
	    !size)
		return;
	if (by_symbol) {
		if (!tls_symbol_offset(s, ix, dwarf_diename(c), size, &addr))
			return;
		addr |= TLS_TAG;
	}
	if (GROW(out->v, out->cap, out->n, 256))
		return;
	out->v[out->n++] = (struct global_var){ addr, size, session_die_key(s, c) };
}

/* Variables among parent's children (with vars), appended to out; with
 * into_functions, also the statics inside function bodies (the costly
 * part of a large unit).  With decls, the unit-level declarations too. */
static void index_children(struct dt_session *s, Dwarf_Die *parent,
			   struct die_children *parent_c, struct global_index *ix,
			   struct var_list *out, struct symbol_list *decls, int depth,
			   bool vars, bool into_functions)
{
	struct die_children it;

	if (depth > MAX_NEST ||
	    !children_first_in(&s->walker, parent, parent_c, &it))
		return;
	do {
		struct die_children in = it;
		switch (it.tag) {
		case DW_TAG_variable:
			if (vars)
				index_variable(s, &it, ix, out, decls, depth);
			break;
		case DW_TAG_subprogram:
		case DW_TAG_lexical_block:
		case DW_TAG_inlined_subroutine:
			if (into_functions)	/* function statics */
				index_children(s, NULL, &in, ix, out, NULL, depth + 1,
					       true, true);
			break;
		case DW_TAG_namespace:
			index_children(s, NULL, &in, ix, out, NULL, depth + 1, vars,
				       into_functions);
			break;
		default:
			break;
		}
	} while (children_next(&s->walker, &it));
}

static int cmp_start(const void *a, const void *b)
{
	const struct global_var *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void sort_vars(struct var_list *l)
{
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), cmp_start);
}

static uint64_t cu_hash(Dwarf_Off cu)
{
	return hash_mix(HASH_SEED, cu);
}

/* The unit-level variables of the unit cu, indexed on first use; NULL
 * without memory. */
static struct cu_vars *cu_vars(struct dt_session *s, struct global_index *ix,
			       Dwarf_Die *cu)
{
	Dwarf_Off off = session_die_key(s, cu);
	uint32_t k = INDEX_FIND(ix->cus_slot, ix->cus_size, cu_hash(off), i,
				ix->cus[i].cu == off);

	if (k)
		return &ix->cus[k - 1];
	if (INDEX_READY(ix->cus_slot, ix->cus_size, ix->ncus, i,
			cu_hash(ix->cus[i].cu)) ||
	    GROW(ix->cus, ix->cus_cap, ix->ncus, 16))
		return NULL;
	struct cu_vars *c = &ix->cus[ix->ncus];
	*c = (struct cu_vars){ .cu = off };
	index_children(s, cu, NULL, ix, &c->vars, &c->decls, 0, true, false);
	sort_vars(&c->vars);
	if (c->decls.n)
		qsort(c->decls.v, c->decls.n, sizeof(*c->decls.v), cmp_sym_name);
	ix->cus_slot[INDEX_FREE(ix->cus_slot, ix->cus_size, cu_hash(off))] =
		(uint32_t)++ix->ncus;
	return c;
}

void global_index_free(struct global_index *ix)
{
	if (!ix)
		return;
	for (size_t i = 0; i < ix->ncus; i++)
		free(ix->cus[i].vars.v), free(ix->cus[i].decls.v);
	free(ix->cus);
	free(ix->cus_slot);
	free(ix->tpoffs.v);
	free(ix->dtpmods.v);
	free(ix->dtpoffs.v);
	free(ix->tls_syms.v);
	free(ix->tls_by_start.v);
	free(ix->syms_by_name.v);
	free(ix->syms.v);
	free(ix->decls.v);
	free(ix->all.v);
	free(ix);
}

/* The variable containing addr: the last starting at or below it. */
static const struct global_var *find(const struct var_list *l, uint64_t addr)
{
	size_t lo = AT_OR_BELOW(l->n, i, l->v[i].start, addr);

	/* variables may nest (a static inside a larger object is rare);
	 * look back a little for one that covers addr */
	for (size_t i = lo, k = 0; i > 0 && k < 8; i--, k++)
		if (addr - l->v[i - 1].start < l->v[i - 1].size)
			return &l->v[i - 1];
	return NULL;
}


/* Without DWARF for it: the ELF symbol, as a name without a type. */
static enum dt_reason elf_symbol(struct dt_session *s, uint64_t addr,
				 struct dt_answer *ans)
{
	struct global_index *ix = s->globals;

	if (!ix)
		return DT_NO_VAR;
	const struct symbol_list *l = &ix->syms;
	if (!l->loaded)
		symbols_load(s, STT_OBJECT, &ix->syms, false);
	size_t lo = AT_OR_BELOW(l->n, i, l->v[i].start, addr);
	if (!lo || addr - l->v[lo - 1].start >= l->v[lo - 1].size)
		return DT_NO_VAR;
	ans->var = session_intern(s, l->v[lo - 1].name);
	return DT_NO_TYPE;
}

/* The allocated section holding addr: its header and name ("" when it
 * has none); false when none does.  *any: the file has section headers. */
static bool section_at(struct dt_session *s, uint64_t addr, GElf_Shdr *sh,
		       const char **name, bool *any)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	*any = !elf_getshdrstrndx(s->elf, &shstrndx);
	while (*any && (scn = elf_nextscn(s->elf, scn))) {
		if (!gelf_getshdr(scn, sh) || !(sh->sh_flags & SHF_ALLOC) ||
		    addr < sh->sh_addr || addr - sh->sh_addr >= sh->sh_size)
			continue;
		*name = elf_strptr(s->elf, shstrndx, sh->sh_name);
		if (!*name)
			*name = "";
		return true;
	}
	return false;
}

/* Whether addr can hold a variable: an allocated, non-code section that
 * is not the GOT (a GOT slot holds the address of a variable, a pointer
 * the linker made: no DWARF variable is there), nor, where a segment
 * register reaches per-CPU data (x86-64), a module's per-CPU section
 * (the kernel's is below percpu_size): a per-CPU variable is reached
 * through %gs, never at its own address.  AArch64 adds tpidr_el1 to the
 * variable's address, which the dataflow names as the variable. */
static bool in_data_section(struct dt_session *s, uint64_t addr)
{
	GElf_Shdr sh;
	const char *name;
	bool any;

	if (addr < s->areas.percpu_size)
		return false;	/* per-CPU offsets are no address without %gs */
	if (!section_at(s, addr, &sh, &name, &any))
		return !any;	/* no sections to tell: look anyway */
	return !(sh.sh_flags & SHF_EXECINSTR) && strncmp(name, ".got", 4) &&
	       (s->arch->percpu_segment < 0 || strcmp(name, PERCPU_SECTION));
}

/* The session's index, made empty on first use; NULL without memory. */
static struct global_index *global_index_get(struct dt_session *s)
{
	if (!s->globals)
		s->globals = calloc(1, sizeof(*s->globals));
	return s->globals;
}

void globals_entry(struct dt_session *s, struct die_children *c, int depth)
{
	struct global_index *ix;

	/* as index_children(cu, ix, &ix->all, NULL, 0, true, false) would */
	if (c->tag == DW_TAG_variable && depth <= MAX_NEST &&
	    (ix = global_index_get(s)))
		index_variable(s, c, ix, &ix->all, NULL, depth);
}

void globals_walked(struct dt_session *s)
{
	struct global_index *ix = global_index_get(s);

	if (!ix)
		return;
	sort_vars(&ix->all);
	ix->all_indexed = true;
	session_debug(s, "indexed %zu static variables", ix->all.n);
}

/* The declarations of variables at unit level ("extern unsigned long
 * jiffies;"), sized, by name. */
static void load_declarations(struct dt_session *s, struct global_index *ix)
{
	Dwarf_CU *unit = NULL;
	Dwarf_Die cu;
	struct symbol_list *l = &ix->decls;
	struct die_children it;

	l->loaded = true;
	while (session_next_unit(s, &unit, &cu)) {
		if (!children_first(&s->walker, &cu, &it))
			continue;
		do {
			Dwarf_Die t, *c;
			uint64_t size;
			const char *name;
			if (it.tag != DW_TAG_variable ||
			    !children_has(&s->walker, &it, DW_AT_declaration) ||
			    !(c = children_die(&it)) || !(name = dwarf_diename(c)) ||
			    !die_type(c, &t) || !type_byte_size(&t, &size) || !size)
				continue;
			if (GROW(l->v, l->cap, l->n, 256))
				return;
			l->v[l->n++] = (struct object_symbol){ session_die_key(s, c), size, name, true, false };
		} while (children_next(&s->walker, &it));
	}
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), cmp_sym_name);
}

/* A relocatable file's access to a variable it does not define (a
 * module's to the kernel's): the slot relocs.c gave the symbol, and the
 * declaration of its name; every unit's declaration must give one size. */
static bool extern_var_at(struct dt_session *s, uint64_t addr, Dwarf_Die *var,
			  uint64_t *off)
{
	const char *name = reloc_extern_at(s->externs, addr, off);
	struct global_index *ix;

	if (!name || !s->dwarf || !(ix = global_index_get(s)))
		return false;
	if (!ix->decls.loaded)
		load_declarations(s, ix);
	const struct object_symbol *v = ix->decls.v;
	size_t lo, hi = named(&ix->decls, name, &lo);
	if (lo == hi)
		return false;
	for (size_t i = lo + 1; i < hi; i++)
		if (v[i].size != v[lo].size)
			return false;
	return *off < v[lo].size && session_offdie(s, v[lo].start, var);
}

/* Whether the ELF symbol can be what a declaration of its name means:
 * a global one, or a local one no other symbol of its kind (by_name:
 * data or thread-local, sorted by name) shares its name with (the linker
 * makes hidden globals local; a unit's static of a name a global also
 * has is not what another unit's declaration names). */
static bool declarable(struct dt_session *s, struct symbol_list *by_name,
		       int type, const struct object_symbol *sym)
{
	size_t lo;

	if (sym->global)
		return true;
	if (!by_name->loaded)
		symbols_load(s, type, by_name, true);
	return named(by_name, sym->name, &lo) - lo == 1;
}

/* A symbol's name without its version: an executable's copy of a
 * library's variable is "stderr@GLIBC_2.2.5" in its .symtab, "stderr" in
 * the declaration.  A name too long for buf is kept whole. */
static const char *unversioned(const char *name, char *buf, size_t len)
{
	const char *at = strchr(name, '@');

	if (!at || at == name || (size_t)(at - name) >= len)
		return name;
	memcpy(buf, name, (size_t)(at - name));
	buf[at - name] = '\0';
	return buf;
}

/* A variable another unit defines and cu declares ("extern int x;"): the
 * ELF symbol at addr, when it is declarable and cu declares exactly one
 * variable of its name.  C gives both one type.  Remembered among cu's
 * variables, so every unit need not be walked for the definition.  A
 * thread-local's tagged offset is looked for among the STT_TLS symbols
 * (their values are offsets in the TLS block). */
static const struct global_var *declared(struct dt_session *s,
					 struct global_index *ix,
					 struct cu_vars *c, uint64_t addr)
{
	bool tls = tag_of(addr) == TLS_TAG, percpu = tag_of(addr) == PERCPU_TAG;
	struct symbol_list *l = tls ? &ix->tls_by_start : &ix->syms;
	struct symbol_list *by_name = tls ? &ix->tls_syms : &ix->syms_by_name;
	int type = tls ? STT_TLS : STT_OBJECT;
	uint64_t tag = tls ? TLS_TAG : percpu ? PERCPU_TAG : 0;
	uint64_t at = addr - tag;
	const struct object_symbol *sym = NULL;
	size_t first = 0, hi = 0;
	char buf[256];

	if (!c->decls.n)
		return NULL;
	if (!l->loaded)
		symbols_load(s, type, l, false);
	/* aliases share a start (environ, __environ): any may be declared */
	for (size_t i = AT_OR_BELOW(l->n, j, l->v[j].start, at), k = 0;
	     i > 0 && k < 8 && hi - first != 1; i--, k++) {
		sym = &l->v[i - 1];
		/* a per-CPU symbol's value is an offset, not an address */
		if (at - sym->start < sym->size && sym->percpu == percpu &&
		    declarable(s, by_name, type, sym))
			hi = named(&c->decls, unversioned(sym->name, buf, sizeof(buf)),
				   &first);
	}
	if (hi - first != 1 || GROW(c->vars.v, c->vars.cap, c->vars.n, 16))
		return NULL;
	uint64_t start = tag + sym->start;
	size_t pos = AT_OR_BELOW(c->vars.n, i, c->vars.v[i].start, start);
	memmove(&c->vars.v[pos + 1], &c->vars.v[pos], (c->vars.n - pos) * sizeof(*c->vars.v));
	c->vars.v[pos] = (struct global_var){ start, sym->size, c->decls.v[first].start };
	c->vars.n++;
	return &c->vars.v[pos];
}

/* A static variable inside a function of c's unit cu (a function's
 * "static int calls;"), those indexed into c's variables the first time
 * an address is in none of the others: walking every function body is
 * the costly part of a unit. */
static const struct global_var *function_static(struct dt_session *s,
						struct global_index *ix,
						struct cu_vars *c, Dwarf_Die *cu,
						uint64_t addr)
{
	if (!c->function_statics) {
		c->function_statics = true;
		session_debug(s, "address %#llx: indexing the statics of unit "
			      "<%#llx>'s functions", (unsigned long long)addr,
			      (unsigned long long)c->cu);
		index_children(s, cu, NULL, ix, &c->vars, NULL, 0, false, true);
		sort_vars(&c->vars);
	}
	return find(&c->vars, addr);
}

/* Whether elf has a full symbol table (.symtab, not only .dynsym). */
static bool has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while (elf && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB &&
		    sh.sh_entsize && sh.sh_size / sh.sh_entsize > 1)
			return true;
	return false;
}

/* Whether link-time addr is data the compiler made, not a variable: no
 * sized data symbol covers it, in a full symbol table (libdwfl reads the
 * file's, else its debug file's).  Every variable with a static address
 * gets a symbol of its size (".type x, @object; .size x, 8"); literal
 * pools (".LC0", the constants of floating-point code), jump tables and
 * string literals get none.  Such reads are common and would otherwise
 * make the index of every unit, the costliest walk of the DWARF.  Not
 * for thread-local or per-CPU offsets (tagged, not addresses) nor
 * relocatable files (their symbols are section-relative). */
static bool compiler_data(struct dt_session *s, struct global_index *ix,
			  uint64_t addr)
{
	if (tag_of(addr) || s->relocatable)
		return false;
	if (ix->symtab == SYMTAB_UNKNOWN)
		ix->symtab = has_symtab(s->elf) || has_symtab(dwarf_getelf(s->dwarf)) ?
			     SYMTAB_FULL : SYMTAB_PARTIAL;
	if (ix->symtab != SYMTAB_FULL)
		return false;
	const struct symbol_list *l = &ix->syms;
	if (!l->loaded)
		symbols_load(s, STT_OBJECT, &ix->syms, false);
	/* aliases and nested objects: look back a little, as find() does */
	for (size_t i = AT_OR_BELOW(l->n, j, l->v[j].start, addr), k = 0;
	     i > 0 && k < 8; i--, k++)
		if (addr - l->v[i - 1].start < l->v[i - 1].size)
			return false;
	return true;
}

/* The DWARF variable holding link-time addr: a unit-level one of the pc's
 * unit, else one the pc's unit declares, else (when a sized data symbol
 * covers addr) a static of one of its functions, else a unit-level one of
 * any unit (the costly index of every unit, made the first time it is
 * needed).  The answer does not depend on the order: a function static
 * has a sized symbol ("calls.3", "f.calls") but never one a unit-level
 * declaration names, and no two objects overlap.  Nor does it depend on
 * what was asked before. */
static const struct global_var *global_find(struct dt_session *s, uint64_t pc,
					    uint64_t addr)
{
	struct global_index *ix = global_index_get(s);
	const struct global_var *g = NULL;
	struct cu_vars *own = NULL;
	Dwarf_Die cu;

	if (!ix || !s->dwarf)
		return NULL;
	if (scope_cu(s, pc + (uint64_t)s->dwarf_adjust, &cu) &&
	    (own = cu_vars(s, ix, &cu)) &&
	    ((g = find(&own->vars, addr)) || (g = declared(s, ix, own, addr))))
		return g;
	/* whether or not the index of every unit is made yet */
	if (compiler_data(s, ix, addr)) {
		session_debug(s, "address %#llx (pc %#llx): no variable of its "
			      "unit, no data symbol: compiler data",
			      (unsigned long long)addr, (unsigned long long)pc);
		return NULL;
	}
	if (own && (g = function_static(s, ix, own, &cu, addr)))
		return g;
	if (!ix->all_indexed) {
		session_debug(s, "address %#llx (pc %#llx) is in no variable of "
			      "its unit: indexing every unit's",
			      (unsigned long long)addr, (unsigned long long)pc);
		units_walk(s, SIZE_MAX);
	}
	return find(&ix->all, addr);
}

bool global_var_at(struct dt_session *s, uint64_t pc, uint64_t addr,
		   Dwarf_Die *var, uint64_t *off)
{
	const struct global_var *g;

	if (extern_var_at(s, addr, var, off))
		return true;
	if (!in_data_section(s, addr) || !(g = global_find(s, pc, addr)) ||
	    !session_offdie(s, g->die, var))
		return false;
	*off = addr - g->start;
	return true;
}

/* var, holding the access at off, accessed at pc: its member there (in an
 * element of an array of step-sized elements, when step > 0). */
static enum dt_reason static_var_attribute(struct dt_session *s, Dwarf_Die *var,
					   uint64_t off, uint64_t step,
					   const struct access *acc,
					   struct dt_answer *ans)
{
	struct type_hit th;
	Dwarf_Die type;
	uint64_t size;

	if (step && (!die_type(var, &type) ||
		     !type_in_array_of_step(s, &type, off, step)))
		return DT_NO_VAR;	/* addr + some steps: not in an array */
	/* a step from its last element leaves it: the base is likely the
	 * next variable's less an element ("lea tokens-8(%rip),%r13" for
	 * tokens[i - 1], i from 1), not this one's */
	if (step && type_byte_size(&type, &size) && off + step > size)
		return DT_NO_VAR;
	ans->var = session_intern(s, dwarf_diename(var));
	enum dt_reason r = var_member_at(s, var, off, acc, &th);
	if (r == DT_OK)
		answer_take(ans, &th);
	return r;
}

/* Where in the program's TLS block tpoff from the thread pointer is, -1
 * when outside it: variant II (x86-64) puts the block just below the
 * thread pointer, variant I (AArch64) after a control block above it. */
static int64_t tls_block_offset(const struct dt_session *s, int64_t tpoff)
{
	uint64_t tcb = s->arch->tls_tcb_size, align = s->areas.tls_align;

	if (!tcb)
		return s->areas.tls_block && tpoff < 0 && tpoff >= -(int64_t)s->areas.tls_block ?
		       tpoff + (int64_t)s->areas.tls_block : -1;
	if (!align || align > (1u << 20))
		return -1;
	int64_t start = (int64_t)((tcb + align - 1) / align * align);
	return tpoff >= start && tpoff - start < (int64_t)(DT_THREAD_POINTER_SPAN / 2) ?
	       tpoff - start : -1;
}

/* The variable indexed at tag | off (a thread-local at off in the TLS
 * block, a per-CPU variable at off in the per-CPU area), accessed at pc:
 * its member there. */
static enum dt_reason tagged_attribute(struct dt_session *s, uint64_t pc,
				       uint64_t tag, uint64_t off, uint64_t step,
				       const struct access *acc,
				       struct dt_answer *ans)
{
	const struct global_var *g;
	Dwarf_Die var;

	if (off >= PERCPU_TAG || !(g = global_find(s, pc, tag | off)) ||
	    !session_offdie(s, g->die, &var))
		return DT_NO_VAR;
	return static_var_attribute(s, &var, (tag | off) - g->start, step, acc, ans);
}

enum dt_reason tls_attribute(struct dt_session *s, uint64_t pc, int64_t tpoff,
			     uint64_t step, const struct access *acc,
			     struct dt_answer *ans)
{
	int64_t off = tls_block_offset(s, tpoff);

	if (off < 0)
		return DT_NO_REG;	/* the thread's control block, not ours */
	return tagged_attribute(s, pc, TLS_TAG, (uint64_t)off, step, acc, ans);
}

static int cmp_tpoff(const void *a, const void *b)
{
	const struct tpoff_slot *x = a, *y = b;

	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* The offset in this module's TLS block of the thread-local a TPOFF
 * relocation names: its own symbol's value plus the addend, or the
 * addend alone for a local one (symbol 0); false for another module's. */
static bool tpoff_target(Elf *elf, GElf_Shdr *rela_sh, const GElf_Rela *r,
			 uint64_t *off)
{
	size_t symi = GELF_R_SYM(r->r_info);
	GElf_Sym sym;

	if (symi == 0) {
		*off = (uint64_t)r->r_addend;
		return true;
	}
	Elf_Scn *symscn = elf_getscn(elf, rela_sh->sh_link);
	Elf_Data *syms = symscn ? elf_getdata(symscn, NULL) : NULL;
	if (!syms || !gelf_getsym(syms, (int)symi, &sym) ||
	    GELF_ST_TYPE(sym.st_info) != STT_TLS || sym.st_shndx == SHN_UNDEF)
		return false;
	*off = sym.st_value + (uint64_t)r->r_addend;
	return true;
}

static int add_slot(struct slot_list *l, uint64_t slot, uint64_t off)
{
	if (GROW(l->v, l->cap, l->n, 16))
		return -1;
	l->v[l->n++] = (struct tpoff_slot){ slot, off };
	return 0;
}

static void sort_slots(struct slot_list *l)
{
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), cmp_tpoff);
}

/* The entry of l for slot, NULL when none. */
static const struct tpoff_slot *slot_entry(const struct slot_list *l,
					   uint64_t slot)
{
	size_t k = AT_OR_BELOW(l->n, i, l->v[i].slot, slot);

	return k && l->v[k - 1].slot == slot ? &l->v[k - 1] : NULL;
}

static void load_tls_slots(struct dt_session *s, struct global_index *ix)
{
	const struct dt_arch *a = s->arch;
	Elf_Scn *scn = NULL;

	ix->tls_slots_loaded = true;
	if (!a->tpoff_reloc && !a->dtpmod_reloc)
		return;
	while ((scn = elf_nextscn(s->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		/* the dynamic linker's (.rela.dyn): not a kernel's
		 * --emit-relocs copies of every link-time relocation */
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    !(sh.sh_flags & SHF_ALLOC) || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela r;
			uint64_t off;
			if (!gelf_getrela(d, (int)i, &r))
				continue;
			unsigned type = (unsigned)GELF_R_TYPE(r.r_info);
			bool own = tpoff_target(s->elf, &sh, &r, &off) && off < TLS_TAG;
			int e = 0;
			if (type == a->tpoff_reloc && own)
				e = add_slot(&ix->tpoffs, r.r_offset, off);
			else if (type == a->dtpmod_reloc && own)
				e = add_slot(&ix->dtpmods, r.r_offset, 0);
			else if (type == a->dtpoff_reloc)
				e = add_slot(&ix->dtpoffs, r.r_offset, own ? off : FOREIGN_TLS);
			if (e)
				return;
		}
	}
	sort_slots(&ix->tpoffs);
	sort_slots(&ix->dtpmods);
	sort_slots(&ix->dtpoffs);
}

bool tls_got_offset(struct dt_session *s, uint64_t slot, uint64_t *off)
{
	struct global_index *ix = global_index_get(s);
	const struct tpoff_slot *e;

	if (!ix)
		return false;
	if (!ix->tls_slots_loaded)
		load_tls_slots(s, ix);
	if (!(e = slot_entry(&ix->tpoffs, slot)))
		return false;	/* not a slot of one of our thread-locals */
	*off = e->off;
	return true;
}

bool tls_dtv_offset(struct dt_session *s, uint64_t slot, uint64_t *off)
{
	struct global_index *ix = global_index_get(s);
	const struct tpoff_slot *e;
	const uint8_t *bytes;
	size_t avail;

	if (!ix)
		return false;
	if (!ix->tls_slots_loaded)
		load_tls_slots(s, ix);
	if (!slot_entry(&ix->dtpmods, slot))
		return false;	/* not a pair of this module's */
	if ((e = slot_entry(&ix->dtpoffs, slot + 8))) {
		*off = e->off;	/* general-dynamic, a variable the linker
				 * could not place (a preemptible one) */
		return e->off != FOREIGN_TLS;
	}
	/* local-dynamic (the block's start: 0) or a local variable's
	 * general-dynamic pair: the offset is the second slot's bytes */
	if (!(bytes = session_code_at(s, slot + 8, &avail)) || avail < 8)
		return false;
	uint64_t v = dt_get_le(bytes, 8);	/* both targets are little-endian */
	if (v >= TLS_TAG)
		return false;
	*off = v;
	return true;
}

enum dt_reason tls_block_attribute(struct dt_session *s, uint64_t pc,
				   uint64_t off, const struct access *acc,
				   struct dt_answer *ans)
{
	return tagged_attribute(s, pc, TLS_TAG, off, 0, acc, ans);
}

/* A module's own per-CPU variable (relocatable files: its per-CPU
 * section where libdwfl placed it) at addr. */
static bool module_percpu_var_at(struct dt_session *s, uint64_t pc, uint64_t addr,
				 Dwarf_Die *var, uint64_t *off)
{
	GElf_Shdr sh;
	const char *name;
	bool any;
	const struct global_var *g;

	if (!s->relocatable || !section_at(s, addr, &sh, &name, &any) ||
	    strcmp(name, PERCPU_SECTION) || !(g = global_find(s, pc, addr)) ||
	    !session_offdie(s, g->die, var))
		return false;
	*off = addr - g->start;
	return true;
}

enum dt_reason percpu_attribute(struct dt_session *s, uint64_t pc, uint64_t off,
				uint64_t step, const struct access *acc,
				struct dt_answer *ans)
{
	Dwarf_Die var;
	uint64_t in;

	if (extern_var_at(s, off, &var, &in) ||	/* a module's use of the kernel's */
	    module_percpu_var_at(s, pc, off, &var, &in))	/* or its own */
		return static_var_attribute(s, &var, in, step, acc, ans);
	if (off >= s->areas.percpu_size)
		return DT_NO_REG;	/* not a kernel, or not its per-CPU area */
	return tagged_attribute(s, pc, PERCPU_TAG, off, step, acc, ans);
}

enum dt_reason global_attribute(struct dt_session *s, uint64_t pc,
				uint64_t addr, uint64_t step,
				const struct access *acc, struct dt_answer *ans)
{
	Dwarf_Die var;
	uint64_t off;

	if (!global_var_at(s, pc, addr, &var, &off))	/* externs too */
		return in_data_section(s, addr) ? elf_symbol(s, addr, ans) : DT_NO_VAR;
	return static_var_attribute(s, &var, off, step, acc, ans);
}
