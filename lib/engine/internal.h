/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Shared between libdtprof's files only: the session object and the small
 * interfaces of decode.c, scope.c, typewalk.c and util.c.
 */
#ifndef DTPROF_INTERNAL_H
#define DTPROF_INTERNAL_H

#include <errno.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <setjmp.h>

#include "../../arch/arch.h"
#include "../dtprof.h"
#include "../sized.h"
#include "../dwarf/children.h"
#include "../dwarf/linefiles.h"
#include "../dwarf/loclist.h"
#include "../dwarf/pages.h"
#include "../dwarf/sections.h"

/* ---- util.c: string interning and the answer cache ---- */

/* Interned strings: equal strings share one pointer, freed together. */
struct dt_strtab {
	char **slots;		/* open addressing, NULL = empty */
	size_t cap, used;
	struct strtab_chunk *chunks;
};
/* Interned copy of s[0..len), NULL on allocation failure. */
const char *strtab_intern(struct dt_strtab *t, const char *s, size_t len);
void strtab_release(struct dt_strtab *t);

struct answer_key {
	uint64_t pc;
	int64_t disp;
	int reg;		/* ANSWER_KEY_DECODE for dt_resolve_pc */
};
#define ANSWER_KEY_DECODE (-1000)

struct cached_answer;
struct answer_cache {
	struct cached_answer *v;	/* util.c */
	size_t n, cap;
	uint32_t *slot;			/* index over v: arrays.h */
	size_t size;
};
/* The cached answer for key, NULL when absent. */
const struct dt_answer *cache_find(const struct answer_cache *c,
				   const struct answer_key *key);
/* Store a copy; 0 or -ENOMEM (the answer is then simply not cached). */
int cache_store(struct answer_cache *c, const struct answer_key *key,
		const struct dt_answer *ans);
void cache_release(struct answer_cache *c);

/* ---- decode.c: one instruction through libopcodes ---- */

#define DECODE_MAX_TOKS 64
#define DECODE_TEXT_SIZE 512

struct decoded_insn {
	uint64_t pc;
	unsigned len;
	size_t ntoks;
	struct dt_tok toks[DECODE_MAX_TOKS];
	char text[DECODE_TEXT_SIZE];	/* token storage, NUL-separated */
	size_t text_used;
	bool overflow;
};

struct decoder;
/* A decoder for arch; NULL when libopcodes does not know it. */
struct decoder *decoder_new(const struct dt_arch *arch);
void decoder_free(struct decoder *d);
/* Decode the instruction at pc from bytes[0..avail).  Returns its length,
 * or 0 when the bytes are not an instruction. */
unsigned decoder_run(struct decoder *d, uint64_t pc, const uint8_t *bytes,
		     size_t avail, struct decoded_insn *out);
/* Whether the arch's quick decoder goes first (the default; a session
 * turns it off under DTPROF_NO_QUICK_DECODE=1): tests compare the two. */
void decoder_use_quick(struct decoder *d, bool quick);
/* The tokens joined back into text. */
void decoded_insn_text(const struct decoded_insn *insn, char *buf,
		       size_t len);


/* A kernel links its per-CPU variables from address 0 in this section. */
#define PERCPU_SECTION ".data..percpu"

/* ---- members.c ---- */

struct member_entry {
	Dwarf_Die m, mt;	/* the member, its type peeled */
	uint64_t start, end;	/* the bytes it spans */
	uint64_t first_bit, nbits;	/* a bitfield's bits in the parent
					 * (type_bitfield_bits); nbits 0:
					 * not a bitfield */
};
/* An aggregate's storage members, in declaration order. */
struct member_table {
	const void *die;	/* the aggregate's DIE (where its bytes are) */
	struct member_entry *v;
	size_t n;
};
struct member_tables;
/* Aggregate t's table, read on first use; NULL without memory. */
const struct member_table *member_table_get(struct dt_session *s, Dwarf_Die *t);
void member_tables_free(struct member_tables *mt);

/* ---- typememo.c: answers about type DIEs, kept per thread ---- */
enum type_question { TYPE_OF, TYPE_PEELED, TYPE_SIZE, TYPE_QUESTIONS };
struct type_answer {
	Dwarf_Die die;		/* TYPE_OF's type, TYPE_PEELED's peeled type */
	const char *name;	/* TYPE_PEELED's last typedef, or NULL */
	uint64_t size;		/* TYPE_SIZE's */
	bool ok;
};
/* The answer kept for question q about the DIE at addr: true with *a. */
bool type_memo_get(enum type_question q, const void *addr, struct type_answer *a);
void type_memo_put(enum type_question q, const void *addr,
		   const struct type_answer *a);
/* A session closes: its DIEs' addresses mean nothing now, in any thread. */
void type_memo_forget(void);

/* ---- session.c ---- */


/* scope.c's own state: which unit holds a pc, and the call frame
 * information, each found once. */
struct scope_state {
	struct scope_index *index;	/* built lazily */
	struct cu_ranges *cu_ranges;	/* built lazily */
	Dwarf_Aranges *aranges;		/* .debug_aranges (libdw's), once read */
	bool aranges_read;
	struct unit_table *units;	/* units aranges named */
	/* call frame information, .eh_frame's then .debug_frame's (looked
	 * up once: libdwfl searches the sections again each time a file
	 * has none, a kernel's .eh_frame) */
	bool cfi_looked;
	Dwarf_CFI *cfi[2];
	Dwarf_Addr cfi_bias[2];
};

/* unitwalk.c: how far the walk of every unit has gone. */
struct units_walk {
	Dwarf_CU *at;			/* the last unit walked */
	bool done;			/* every unit: the walk is over */
};

/* oom.c: out of memory, once met. */
struct oom_state {
	bool no_memory;			/* libdw ran out of memory: every
					 * answer is no_memory */
	bool said;			/* the log has said it once */
	bool libdw_left;		/* a jump out of libdw: its state is
					 * not handed back to it */
};

/* Split DWARF: the units are skeletons of .dwo files (session.c). */
struct split_state {
	bool on;			/* skeleton units (session_unit_die) */
	bool missing_said;		/* a .dwo was not found: said */
	bool unsafe_said;		/* a .dwo or .dwp not a regular file:
					 * said */
};

/* The areas statics may live in beside the binary's own (globals.c). */
struct static_areas {
	uint64_t tls_block;		/* PT_TLS size rounded to its
					 * alignment, 0: none or unusable */
	uint64_t tls_align;		/* its alignment, 0 likewise */
	bool has_tls;			/* a PT_TLS segment, a library's too */
	uint64_t percpu_size;		/* a kernel's per-CPU area, linked at
					 * address 0 (.data..percpu): its
					 * size, else 0 */
};

/* Instruction bytes the host hands over instead of the file's. */
struct code_source {
	dt_code_reader *fn;		/* when set */
	void *arg;
	uint8_t buf[32];		/* what fn returned */
};

struct dt_session {
	char *path;
	const char *shown_path;		/* path, escaped (dt_session_path) */
	const struct dt_arch *arch;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Elf *elf;			/* the file with the code */
	const uint8_t *image;		/* elf_rawfile of it */
	size_t image_size;
	Dwarf *dwarf;			/* NULL: no debug info */
	int64_t dwarf_adjust;		/* link-time pc + adjust = DWARF pc */
	uint64_t elf_bias;		/* link-time pc + bias = libdwfl address */
	struct decoder *decoder;
	struct dt_strtab strings;
	struct answer_cache cache;
	struct scope_state scope;	/* scope.c: units, ranges, CFI */
	struct units_walk walk;		/* unitwalk.c */
	struct funcmap_cache *funcmaps;		/* funcmap.c, built lazily */
	struct layout_cache *layouts;		/* layout.c, built lazily */
	struct member_tables *members;		/* members.c, built lazily */
	struct global_index *globals;		/* globals.c, built lazily */
	struct reloc_externs *externs;		/* relocatable files: relocs.c */
	struct container_index *containers;	/* containers.c, built lazily */
	struct typedef_cache *typedefs;		/* typenames.c, built lazily */
	struct track_values *track_values;	/* track.c's interned values */
	struct children_walker walker;	/* children.c's: its unit shapes */
	struct answer_store *store;	/* answerstore.c's: kept across runs */
	void (*log)(void *arg, const char *msg);
	void *log_arg;
	bool debug;			/* DT_SESSION_TRACE */
	bool errno_unreliable;		/* DT_SESSION_ERRNO_UNRELIABLE */
	unsigned keep_functions;	/* DTPROF_KEEP_FUNCTIONS: decoded
					 * functions and their variables' homes
					 * kept between questions */
	bool no_track;			/* DTPROF_NO_TRACK=1: registers only
					 * through variables (track.c off) */
	struct oom_state oom;		/* oom.c */
	struct split_state split;	/* split DWARF (.dwo, .dwp) */
	bool large_debug_info;		/* over LARGE_DEBUG_INFO: not indexed
					 * ahead (dt_session_prepare), every
					 * unit's functions indexed in the
					 * walk of every unit (unitwalk.c) */
	struct debug_pages pages;	/* pages.c, set up at open */
	struct static_areas areas;	/* thread-locals, per-CPU data */
	bool relocatable;		/* a .o or .ko: its code relocated here
					 * (relocs.c), never read_code's */
	struct code_source code;	/* instruction bytes from the host */
};

/* Bytes at link-time address pc: a pointer into the file image and how
 * many bytes follow in the same loadable segment; NULL when unmapped. */
const uint8_t *session_code_at(struct dt_session *s, uint64_t pc,
			       size_t *avail);
/* The same for an instruction: NULL outside the executable sections
 * (the ELF header, .rodata, .data), and *avail ends with its section. */
const uint8_t *session_insn_at(struct dt_session *s, uint64_t pc,
			       size_t *avail);
/* Defined, sized symbols of one type (STT_OBJECT, STT_FUNC: by
 * link-time address; STT_TLS: by offset in the module's TLS block),
 * sorted by start or by name; the list stops short when memory runs
 * out (globals.c). */
struct object_symbol {
	uint64_t start, size;
	const char *name;		/* libdwfl's, lives with the module */
	bool global;			/* STB_GLOBAL or STB_WEAK */
	bool percpu;			/* in a kernel's per-CPU area: start
					 * is an offset in it */
};

struct symbol_list {
	struct object_symbol *v;
	size_t n, cap;
	bool loaded;
};

void symbols_load(struct dt_session *s, int type, struct symbol_list *l,
		  bool by_name);
/* Trace line through the log callback when DTPROF_DEBUG=1. */
void session_debug(const struct dt_session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A warning through the log callback (always, unlike session_debug). */
void session_warn(const struct dt_session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Interned string, "" on allocation failure or NULL input: escaped as
 * dt_text_escape() does (a name, a note: anything printed)... */
const char *session_intern(struct dt_session *s, const char *str);
/* ...escaped but for its tabs and newlines (C text: the advice)... */
const char *session_intern_lines(struct dt_session *s, const char *str);
/* ...or as it is (a path to open, a symbol name to look up). */
const char *session_intern_raw(struct dt_session *s, const char *str);
/* text.c: dt_text_escape(), keeping tabs and newlines with keep_layout. */
size_t text_escape(const char *s, char *buf, size_t len, bool keep_layout);

/* ---- scope.c: which variable lives in a register at pc ---- */

struct var_hit {
	Dwarf_Die var;		/* the variable or parameter */
	Dwarf_Die pointee;	/* the type its pointer value points to */
	const char *typedef_name;	/* last typedef on the way, or NULL */
	int64_t bias;		/* var == reg + bias (DW_OP_bregN bias) */
	bool strict;		/* tracked, and not an array's element:
				 * trusted inside the pointee only */
	uint64_t step;		/* tracked: bias is known modulo step only
				 * (an index into a member array), 0 */
};
/* The address range of the function (or the piece of a split function)
 * around DWARF address pc, from the per-unit index. */
bool scope_function_range(struct dt_session *s, Dwarf_Addr pc,
			  Dwarf_Addr *lo, Dwarf_Addr *hi);
/* The function starting at DWARF address pc (a direct call's target). */
bool scope_function_entry(struct dt_session *s, Dwarf_Addr pc, Dwarf_Die *fn);
/* The data type a pointer type points to (typedefs peeled, the last
 * one's name kept); false for void, functions and non-pointers. */
bool type_pointee(Dwarf_Die *type, Dwarf_Die *pointee,
		  const char **typedef_name);
/* The compile unit covering DWARF address pc (aranges, else a scan). */
bool scope_cu(struct dt_session *s, Dwarf_Addr pc, Dwarf_Die *cu);
/* The same unit as the binary holds it (a split unit's skeleton, as
 * dwarf_addrdie() answers): its line table and compilation directory. */
bool scope_cu_outer(struct dt_session *s, Dwarf_Addr pc, Dwarf_Die *cu);
/* Candidates for a base register at DWARF address pc, innermost scope
 * first, at most max.  Returns DT_OK with *nhits >= 1, or the reason:
 * DT_NO_CU, DT_NO_VAR, DT_NO_TYPE. */
enum dt_reason scope_find_vars(struct dt_session *s, Dwarf_Addr pc, int reg,
			       struct var_hit *hits, size_t max,
			       size_t *nhits);

struct scope_index;
void scope_index_free(struct scope_index *ix);
/* Between questions: the register homes of the functions least recently
 * asked about freed past a budget (built again if asked). */
void scope_trim(struct dt_session *s);
/* One unit in the walk of every unit (unitwalk.c): its function ranges
 * indexed, as its first question would, from its entries (and its
 * namespaces') handed in one at a time.  begin: NULL when the unit is
 * indexed already (or memory is short); end: into the index. */
struct cu_funcs;
struct cu_funcs *scope_unit_begin(struct dt_session *s, Dwarf_Die *cu);
void scope_unit_entry(struct dt_session *s, struct cu_funcs *c,
		      struct die_children *it);
void scope_unit_end(struct dt_session *s, struct cu_funcs *c);

/* ---- unitwalk.c ---- */
/* Namespaces inside namespaces walked, at most (deeper ones are corrupt
 * or hostile data, not C++). */
#define MAX_NAMESPACE_DEPTH 64
/* Up to max_units more units walked, in file order, into the indexes of
 * every unit (containers.c, globals.c; in a large debug file scope.c's
 * functions too); true when the walk is over, those indexes complete. */
bool units_walk(struct dt_session *s, size_t max_units);
struct cu_ranges;
void cu_ranges_free(struct cu_ranges *cr);
struct unit_table;
void unit_table_free(struct unit_table *t);
struct layout_cache;
struct typedef_cache;
void layout_cache_free(struct layout_cache *c);

struct access;
/* ---- globals.c: variables with a static address ---- */
struct global_index;
struct reloc_externs;
void global_index_free(struct global_index *ix);
/* One entry of a unit (or of a namespace, depth deep) in the walk of
 * every unit (unitwalk.c), into the index of every unit's static
 * variables; the walk is over. */
void globals_entry(struct dt_session *s, struct die_children *c, int depth);
void globals_walked(struct dt_session *s);
/* The program's thread-local at tpoff from the thread pointer (TLS
 * variant II, x86-64: below it; variant I, AArch64: after the thread
 * control block), accessed at pc: like global_attribute (step too).
 * DT_NO_REG when tpoff is not in the program's TLS block. */
enum dt_reason tls_attribute(struct dt_session *s, uint64_t pc, int64_t tpoff,
			     uint64_t step, const struct access *acc,
			     struct dt_answer *ans);
/* Initial-exec ("mov x@gottpoff(%rip),%rax; mov %fs:disp(%rax),%edx"):
 * whether a TPOFF relocation fills the GOT slot at link-time address
 * slot with the offset of one of the module's own thread-locals from the
 * thread pointer; *off: where that variable is in the module's block. */
bool tls_got_offset(struct dt_session *s, uint64_t slot, uint64_t *off);
/* General- and local-dynamic: whether the GOT pair at link-time address
 * slot names one of the module's own thread-locals (DTPMOD of this
 * module, then the offset: a DTPOFF relocation's, or the bytes there);
 * *off: where __tls_get_addr(slot) points in the module's block. */
bool tls_dtv_offset(struct dt_session *s, uint64_t slot, uint64_t *off);
/* Whether a direct call to target calls __tls_get_addr (its PLT stub). */
bool session_is_tls_get_addr(struct dt_session *s, uint64_t target);
/* The module's thread-local holding offset off of its TLS block,
 * accessed at pc: like global_attribute. */
enum dt_reason tls_block_attribute(struct dt_session *s, uint64_t pc,
				   uint64_t off, const struct access *acc,
				   struct dt_answer *ans);
/* A kernel's per-CPU variable at offset off of the per-CPU area (x86-64:
 * "%gs:off"), accessed at pc; step as for global_attribute.  DT_NO_REG
 * when the binary has no zero-based per-CPU area or off is outside it. */
enum dt_reason percpu_attribute(struct dt_session *s, uint64_t pc, uint64_t off,
				uint64_t step, const struct access *acc,
				struct dt_answer *ans);
/* Attribute a link-time data address, accessed at link-time pc, to the
 * static variable holding it (looked for in pc's compile unit first):
 * fills type, offset, field, var of *ans.  step > 0: addr is known modulo
 * step only, answered when it falls in an array of step-sized elements.
 * DT_OK, DT_NO_VAR, DT_NO_TYPE (an ELF symbol without DWARF: its name in
 * ans->var), DT_BAD_OFFSET. */
enum dt_reason global_attribute(struct dt_session *s, uint64_t pc,
				uint64_t addr, uint64_t step,
				const struct access *acc, struct dt_answer *ans);
/* The static variable holding link-time addr: true with *var and the
 * offset of addr in it. */
bool global_var_at(struct dt_session *s, uint64_t pc, uint64_t addr,
		   Dwarf_Die *var, uint64_t *off);

/* ---- containers.c: the structs that embed a struct ---- */
struct container_index;
struct type_hit;
struct access;
void container_index_free(struct container_index *ix);
/* One entry of a unit (or of a namespace, depth deep) in the walk of
 * every unit (unitwalk.c) into the index of containers, next its next
 * sibling (NULL: the last); the walk is over: the index is sorted,
 * complete. */
void containers_entry(struct dt_session *s, struct die_children *c,
		      const struct die_children *next, int depth);
void containers_walked(struct dt_session *s);
/* Whether struct o starts with every member of struct t (two or more:
 * name, place, bits and type), as a header starts the structs that
 * embed it by its members (C's common initial sequence). */
bool type_starts_like(struct dt_session *s, Dwarf_Die *t, Dwarf_Die *o);
/* One access through a pointer: its offset from the pointee, its size. */
struct probe {
	int64_t off;
	unsigned len;
};
/* A pointer to pointee used at probes[0] outside it (container_of): the
 * member of the one container whose layout holds it, where every other
 * access through the same pointer (probes[1..]) reads a whole member too.
 * DT_OK with *out; DT_BAD_OFFSET when no container or several fit, said
 * in why (candidates named) for -v. */
enum dt_reason container_member_at(struct dt_session *s, Dwarf_Die *pointee,
				   const struct probe *probes, size_t nprobes,
				   const struct access *acc,
				   struct type_hit *out, char *why, size_t why_len);

/* ---- funcmap.c: a function decoded once ---- */

struct func_insn {
	uint64_t pc;
	uint64_t clobbers;	/* registers written besides def_dst */
	int64_t value;		/* ADDR, ADDI, ADD, MUL constant; branch or
				 * direct call target */
	int64_t mem_disp;	/* memory loaded, stored or written:
				 * mem_base + mem_disp */
	uint8_t len;
	uint8_t op;		/* enum dt_op_kind */
	uint8_t flow;		/* enum dt_flow */
	bool leader;		/* first instruction of a basic block */
	bool target;		/* a branch or jump goes here */
	bool fuses;		/* macro-fuses with a following jcc */
	uint8_t def;		/* enum dt_def_kind, for track.c */
	int8_t def_dst, def_src, def_src2, def_src3;
	uint8_t scale;		/* DT_DEF_ADD */
	int8_t mem_base;	/* -1: no register base (pc-relative...) */
	int8_t mem_index;	/* an index register too (times mem_scale), or -1 */
	uint8_t mem_scale;
	bool mem_static;	/* LOAD from the static at mem_disp */
	uint8_t mem_span;	/* bytes it may write there, 0: none */
	int8_t wb_reg;		/* write-back: wb_reg += wb_value, or -1 */
	int16_t wb_value;
	/* the memory operand as classify reads it (op DT_OP_MEMORY), for
	 * questions about the function's other accesses: */
	uint8_t acc;		/* enum func_access */
	int8_t acc_base;	/* ACC_BASED: base register, */
	uint8_t acc_size;	/* size, and mem_disp the displacement */
};
enum func_access {
	ACC_DECODE,		/* decode it again to know */
	ACC_BASED,		/* base + mem_disp, no index, no segment */
	ACC_OTHER,		/* anything else */
};

/* A basic block: instructions [first, end) and where control goes next. */
struct func_block {
	uint32_t first, end;
	int32_t succ[2];	/* block indexes, -1 when none */
};

struct func_map {
	uint64_t start, end;	/* link-time [start, end) */
	struct func_insn *insns;
	size_t n, cap;
	struct func_block *blocks;
	size_t nblocks;
	bool indirect_jumps;	/* some block has successors we do not know */
	struct track_states *track;	/* track.c's, built on first use */
	uint64_t used;		/* funcmap_get's clock when last asked for */
};

/* The registers instruction in writes, bit n for DWARF register n (n <
 * 64): its destination, its write-back and what it clobbers besides (a
 * call's caller-saved registers are for the caller to add). */
static inline uint64_t func_insn_writes(const struct func_insn *in)
{
	uint64_t w = in->clobbers;

	if (in->def_dst >= 0 && in->def_dst < 64)
		w |= 1ull << in->def_dst;
	if (in->wb_reg >= 0 && in->wb_reg < 64)
		w |= 1ull << in->wb_reg;
	return w;
}

/* The decoded function containing pc, built on first use; NULL when pc is
 * in no sized function symbol or memory ran out. */
struct func_map *funcmap_get(struct dt_session *s, uint64_t pc);
/* Registers a direct call to target may change: what the callee's own
 * instructions write, when it is a leaf that returns (gcc's -fipa-ra keeps
 * values in other caller-saved registers across such calls); else every
 * caller-saved register. */
uint64_t funcmap_call_clobbers(struct dt_session *s, uint64_t target);
/* Index of the instruction starting at pc, -1 when none does. */
long func_map_index(const struct func_map *fm, uint64_t pc);
/* Index of the block holding instruction i. */
size_t func_map_block(const struct func_map *fm, size_t i);
struct funcmap_cache;
void funcmap_cache_free(struct funcmap_cache *c);
/* Between questions: the least recently used maps freed when they hold
 * more than a budget of instructions (they are built again if asked). */
void funcmap_trim(struct dt_session *s);

/* The variable lying in memory at reg + disp at DWARF address pc: a local
 * on the stack (DW_OP_fbreg through the frame base and the CFA, or
 * DW_OP_bregN), piece by piece for clang's split structs.  DT_OK with
 * *var and the offset within it, DT_NO_CU or DT_NO_VAR. */
enum dt_reason scope_find_memory_var(struct dt_session *s, Dwarf_Addr pc,
				     int reg, int64_t disp, Dwarf_Die *var,
				     uint64_t *var_off);

/* ---- track.c: pointers no variable describes ---- */

/* Register reg just before link-time pc holds a pointer no variable
 * describes: what the function's dataflow proved it points to (copies,
 * spills and reloads, loads of pointer members, call results, address
 * arithmetic).  DT_OK with *hit, or DT_NO_VAR. */
enum dt_reason track_register(struct dt_session *s, uint64_t pc, int reg,
			      struct var_hit *hit);
/* Register reg at pc holds a constant address (lea of a static, adrp +
 * add): true with *addr, and *step when it is known modulo step only (an
 * index into a static array of step-sized elements, 0: exact). */
bool track_address(struct dt_session *s, uint64_t pc, int reg, uint64_t *addr,
		   uint64_t *step);
/* Register reg at pc holds an integer the dataflow knows as n * m + c (an
 * index plus a constant): true with *c. */
bool track_integer(struct dt_session *s, uint64_t pc, int reg, int64_t *c);
/* What register reg at pc is proven a multiple of, besides its constant
 * (n * m + c: n); 1 when nothing is known. */
uint64_t track_multiple_of(struct dt_session *s, uint64_t pc, int reg);
struct track_states;
void track_states_free(struct track_states *t);
/* Whether hit h, which gave r and th for an access, may answer it: a
 * tracked struct pointer (strict) only inside its struct; past its end
 * it is most often the first member of a container (a list_head at
 * offset 0 of its struct), not an array element. */
struct type_hit;
bool track_hit_trusted(const struct var_hit *h, enum dt_reason r,
		       const struct type_hit *th);
struct track_values;
void track_values_free(struct track_values *v);

/* ---- typewalk.c: the member at an offset ---- */

/* What an instruction does at its memory operand, as far as naming the
 * member it touches goes. */
struct access {
	unsigned size;		/* bytes, 0 when unknown */
	bool fp;		/* through a floating-point or vector register */
	uint64_t bits;		/* the bits it tests or changes, counted from
				 * its first byte (test/and/or $imm); 0: all */
	/* a load whose value the code dereferences next ("mov 0x18(%rax),
	 * %rcx; movzbl 0x4e(%rcx),%edx"): at that offset, that many bytes;
	 * union members that cannot be such a pointer are not candidates */
	bool deref_known;
	int64_t deref_off;
	unsigned deref_size;
};

struct type_hit {
	const char *type;	/* interned name of the outer type */
	uint64_t type_id;	/* its DIE offset */
	int64_t offset;		/* offset within it */
	const char *field;	/* interned member path, "" when none */
	uint64_t size;		/* sizeof the type, 0 when unknown */
	bool beyond_end;	/* off >= size: taken as an array element */
};
/* A member's name as dtprof prints it ("" when anonymous; the vtable
 * pointer as "_vptr.Class" whichever compiler), in buf or static. */
const char *member_name(Dwarf_Die *m, char *buf, size_t len);
/* Copy a type hit into an answer: type, id, size, offset, field. */
void answer_take(struct dt_answer *ans, const struct type_hit *th);
/* Name the type die (reached through typedef_name, may be NULL) and the
 * member at off; the access (NULL: unknown) chooses between union members
 * (size, then float or integer) and between bitfields sharing a byte (the
 * bits it tests).  DT_OK or DT_BAD_OFFSET. */
enum dt_reason type_member_at(struct dt_session *s, Dwarf_Die *type,
			      const char *typedef_name, int64_t off,
			      const struct access *acc, struct type_hit *out);

/* The member at off of variable var's own type (an array: of its element
 * type, off taken within the element).  As type_member_at(). */
enum dt_reason var_member_at(struct dt_session *s, Dwarf_Die *var, uint64_t off,
			     const struct access *acc, struct type_hit *out);
/* Whether an access of access_size bytes at off reads one whole scalar
 * member of type (or lands in a bitfield's storage): not the middle of a
 * member, not padding.  access_size 0: any size. */
bool type_access_fits(struct dt_session *s, Dwarf_Die *type, uint64_t off,
		      unsigned access_size);
/* Whether off lies in an array (at any depth of type) whose elements are
 * a divisor of step bytes: a pointer known modulo step may be answered
 * there (the element at off stands for all of them). */
bool type_in_array_of_step(struct dt_session *s, Dwarf_Die *type, uint64_t off,
			   uint64_t step);
/* The bare link (a struct whose members all point to its own type:
 * struct list_head) holding off inside type, type itself not counted:
 * *link and off within it; *in_union when the way down went through a
 * union (the link is one view of those bytes). */
bool type_link_at(struct dt_session *s, Dwarf_Die *type, uint64_t off,
		  const struct access *acc, Dwarf_Die *link, uint64_t *link_off,
		  bool *in_union);
/* t (peeled) is a pointer, or a pointer-sized struct whose bytes are one
 * pointer (Rust's Box<T>, NonNull<T>, Option<Box<T>> by its niche, a C
 * struct { T *p; }), looking through variant parts: true with *ptr, the
 * pointer type.  Dereferencing a register that holds one of them can only
 * follow that pointer. */
bool type_wrapped_pointer(Dwarf_Die *t, Dwarf_Die *ptr, int depth);
/* The pointer type of the member starting exactly at off in type (the
 * innermost, through nested members and arrays); false when none is. */
bool type_member_type_at(struct dt_session *s, Dwarf_Die *type, uint64_t off,
			 Dwarf_Die *out);
/* DW_AT_type of die, through abstract origins and specifications. */
bool die_type(Dwarf_Die *die, Dwarf_Die *type);
/* Strip typedefs and qualifiers; false when they end in void. */
bool type_peel(Dwarf_Die *in, Dwarf_Die *out);
/* The same, keeping the last typedef's name (an anonymous struct is known
 * by it), NULL when none. */
bool type_peel_named(Dwarf_Die *in, Dwarf_Die *out, const char **typedef_name);
bool type_byte_size(Dwarf_Die *t, uint64_t *size);
/* ---- session.c: DIEs of split DWARF ---- */
/* A key for die valid across the binary's DWARF and its .dwo files (its
 * offset, for the binary's own DIEs); 0 without memory. */
uint64_t session_die_key(struct dt_session *s, Dwarf_Die *die);
/* The DIE of a key from session_die_key(). */
bool session_offdie(struct dt_session *s, uint64_t key, Dwarf_Die *die);
/* A skeleton unit's DIE becomes its split unit's (from the .dwo); false,
 * said once, when the .dwo cannot be found.  Other units stay as they are. */
bool session_unit_die(struct dt_session *s, Dwarf_Die *cu);
/* Iterate the compile units (split units in place of their skeletons):
 * *cu starts NULL; false at the end. */
bool session_next_unit(struct dt_session *s, Dwarf_CU **cu, Dwarf_Die *die);

/* ---- oom.c ---- */
struct oom_guard {
	sigjmp_buf env;
	struct oom_guard *outer;
};
/* initial-exec: in the plugin (dlopen'd) the default model allocates a
 * thread's copy with malloc on its first use, and glibc aborts when that
 * fails: out of memory must not kill perf */
#define OOM_TLS __thread __attribute__((tls_model("initial-exec")))
extern OOM_TLS struct oom_guard *oom_current;
/* Send libdw's out-of-memory exits and asserts of s to the current guard. */
void oom_watch(struct dt_session *s);
/* Out of memory without a jump: the log says so once. */
void oom_said(struct dt_session *s);
/* Whether errno ENOMEM after a call means an allocation failed in it
 * (false under valgrind: oom.c). */
bool oom_errno_says(const struct dt_session *s);
/* After the jump: s is closed to further questions, and the log says so. */
void oom_caught(struct dt_session *s);
/* OOM_GUARD(s, g, on_oom): run the rest of the block under guard g; on
 * out of memory in libdw, jump to the statement on_oom (after oom_caught).
 * errno is 0 after it.
 * OOM_UNGUARD(g) ends it.  Variables changed between them must be
 * volatile to be read in on_oom. */
#define OOM_GUARD(s, g, on_oom) do {					\
	(g).outer = oom_current;					\
	oom_current = &(g);						\
	if (sigsetjmp((g).env, 0)) {					\
		oom_current = (g).outer;				\
		oom_caught(s);						\
		on_oom;							\
	}								\
	errno = 0;	/* an abort with ENOMEM: a failed allocation */	\
} while (0)
#define OOM_UNGUARD(g) (oom_current = (g).outer)

/* ---- demangle.c ---- */
/* The demangled name of a C++ or Rust symbol, without parameters
 * (malloc'd), or NULL when it is not mangled. */
char *symbol_demangle(const char *mangled);
/* Where a legacy Rust name's "::h<16 hex>" hash starts, or 0. */
size_t symbol_rust_hash_start(const char *demangled);

/* ---- relocs.c ---- */
/* An address past every allocated section of a relocatable file (as
 * libdwfl placed them): where a relocation that leaves the file points. */
uint64_t reloc_nowhere(Elf *elf);
/* Apply relocation section relsec (SHT_RELA) to copy, the size bytes of
 * the section it relocates, at addr, with arch->apply_reloc (not NULL):
 * how many relocations could not be applied. */
size_t reloc_apply(Elf *elf, const struct dt_arch *arch, Elf_Scn *relsec,
		   uint8_t *copy, size_t size, uint64_t addr, uint64_t nowhere,
		   struct reloc_externs *ex);
/* The symbols a relocatable file uses but does not define (a module's
 * use of the kernel's variables), each given addresses of its own past
 * nowhere by reloc_apply.  NULL without memory (then they point at
 * nowhere). */
struct reloc_externs *reloc_externs_new(uint64_t nowhere);
void reloc_externs_free(struct reloc_externs *ex);
/* The undefined symbol whose slot holds addr, and addr's offset in it;
 * NULL when none. */
const char *reloc_extern_at(const struct reloc_externs *ex, uint64_t addr,
			    uint64_t *off);

/* ---- debuginfo.c ---- */
/* ROOT/.build-id/xx/rest<suffix> for build-id id[0..n) into buf; false
 * when it does not fit or there is no id. */
bool build_id_path(char *buf, size_t len, const char *root, const void *id,
		   size_t n, const char *suffix);
/* An fd of path when it is a regular file with build-id id[0..idlen)
 * (idlen <= 0: none known), or, without build-ids, the debuglink CRC
 * (when have_crc); -1 otherwise.  Never blocks on a FIFO. */
int debuginfo_open_checked(const char *path, const void *id, int idlen,
			   bool have_crc, GElf_Word crc);
/* The same for an fd opened by the caller (closed when refused; -1 in,
 * -1 out). */
int debuginfo_check_fd(int fd, const void *id, int idlen, bool have_crc,
		       GElf_Word crc);
/* A malloc'd copy of libdwfl's search_path (NULL or "": the default,
 * ":.debug:/usr/lib/debug") for strtok_r on ':'; *entries: past its
 * leading flags ('-': no CRC checks, '+'), *crc_check from them.  NULL
 * without memory. */
char *debuginfo_path_split(const char *search_path, char **entries,
			   bool *crc_check);
/* Separate debug info of file_name (with build-id id, .gnu_debuglink
 * debuglink and its crc) along search_path (libdwfl's syntax; NULL: the
 * default): an fd and *found (malloc'd path), or -1. */
int debuginfo_search(const char *file_name, const char *search_path,
		     const void *id, int idlen, const char *debuglink,
		     GElf_Word crc, char **found);

/* ---- debugcache.c: decompressed copies of debug files ---- */
/* cache: the cache's directory, NULL when there is none. */
/* An fd of the cache's copy of the debug file with build-id id[0..idlen),
 * and *found (malloc'd path); -1 when there is none (or no cache). */
int debugcache_open(const char *cache, const void *id, int idlen, char **found);
/* Whether debug file fd (of build-id id) has compressed DWARF that a copy
 * in the cache would spare inflating again. */
bool debugcache_wanted(const char *cache, int fd, const void *id, int idlen);
/* Stores debug (libdw's Elf of it, its sections inflated) in the cache as
 * a plain ELF file: 0, or -errno when it could not (no harm done). */
int debugcache_store(const char *cache, Elf *debug, const void *id, int idlen);
/* CACHE/.build-id/xx/rest<suffix>, this user's regular file, opened to
 * read; -1 when none.  And written whole (atomically: a temporary file
 * renamed): 0 or -errno. */
int debugcache_open_named(const char *cache, const void *id, int idlen,
			  const char *suffix);
int debugcache_store_bytes(const char *cache, const void *id, int idlen,
			   const char *suffix, const void *buf, size_t len);

/* ---- answerstore.c: dt_resolve_sample's answers kept across runs ---- */
struct answer_store;
/* The store of session s's binary, its file in cache read when its key
 * (build-id, engine, shape: the session's flags that change answers and
 * which debug info it found) matches; a store that keeps nothing when
 * there is no cache or build-id.  NULL without memory. */
struct answer_store *answer_store_open(struct dt_session *s, const char *cache,
				       unsigned shape);
const struct dt_answer *answer_store_find(const struct answer_store *st, uint64_t pc,
					  unsigned flags);
void answer_store_put(struct answer_store *st, uint64_t pc, unsigned flags,
		      const struct dt_answer *ans);
/* Whether the file was read, answers or none (the session then builds
 * no index ahead: dt_session_prepare). */
bool answer_store_loaded(const struct answer_store *st);
/* Whether cache holds answers this engine kept for the binary of build
 * id (a file whose header says so: its key, which needs the binary
 * open, is not checked). */
bool answer_store_kept(const char *cache, const uint8_t *id, size_t idlen);
/* Write the file again when the session added answers, and free. */
void answer_store_close(struct dt_session *s, struct answer_store *st, const char *cache);

/* ---- typenames.c ---- */
void typedef_cache_free(struct typedef_cache *c);

/* perf's spelling of a type: "struct page", "char*", "int[4]". */
void type_spell(Dwarf_Die *die, char *buf, size_t len);
/* The bits [*first_bit, *first_bit + *nbits) bitfield m (of type mtype,
 * peeled) occupies in its parent; false for other members. */
bool type_bitfield_bits(Dwarf_Die *m, Dwarf_Die *mtype, uint64_t *first_bit,
			uint64_t *nbits);
/* The bytes [start, end) member m (of type mtype, peeled) occupies in its
 * parent; open_ended for a flexible array member. */
bool member_extent(Dwarf_Die *m, Dwarf_Die *mtype, uint64_t *start,
		   uint64_t *end, bool *open_ended);

#endif
