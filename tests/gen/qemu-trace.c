// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A QEMU TCG plugin for qemu-user (Debian's qemu-aarch64): the accuracy
 * generator's truth for binaries valgrind cannot run.  It prints what
 * valgrind's lackey prints, so tests/gen/check-one reads both the same way:
 *   "I  ADDR,0" before each executed instruction that touches memory,
 *   " L ADDR,SIZE" / " S ADDR,SIZE" for each of its loads and stores.
 * Usage: qemu-aarch64 -plugin ./qemu-trace.so,out=FILE ./prog
 *
 * The plugin API is declared here (QEMU's qemu-plugin.h, API version 1,
 * which QEMU 4.2 to 7.2 accept), so no QEMU headers are needed to build it.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;
typedef uint32_t qemu_plugin_meminfo_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct {
	const char *target_name;
	struct { int min, cur; } version;
	bool system_emulation;
	union { struct { int smp_vcpus, max_vcpus; } system; };
} qemu_info_t;

enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_mem_rw { QEMU_PLUGIN_MEM_R = 1, QEMU_PLUGIN_MEM_W,
			  QEMU_PLUGIN_MEM_RW };
typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*mem_cb)(unsigned int vcpu, qemu_plugin_meminfo_t info,
		       uint64_t vaddr, void *udata);
typedef void (*udata_cb)(qemu_plugin_id_t id, void *udata);
typedef void (*exec_cb)(unsigned int vcpu, void *udata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    exec_cb cb,
					    enum qemu_plugin_cb_flags flags,
					    void *udata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn, mem_cb cb,
				      enum qemu_plugin_cb_flags flags,
				      enum qemu_plugin_mem_rw rw, void *udata);
unsigned int qemu_plugin_mem_size_shift(qemu_plugin_meminfo_t info);
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, udata_cb cb,
				    void *udata);

EXPORT int qemu_plugin_version = 1;

static FILE *out;
static bool said;	/* this execution's "I" line is out */

/* each execution starts anew: its accesses follow one "I" line, as
 * lackey's do (an ldp's two loads are one execution) */
static void on_exec(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	said = false;
}

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info,
		   uint64_t vaddr, void *udata)
{
	uint64_t pc = (uint64_t)(uintptr_t)udata;

	(void)vcpu;
	if (!said)
		fprintf(out, "I  %llx,0\n", (unsigned long long)pc);
	said = true;
	fprintf(out, " %c %llx,%u\n", qemu_plugin_mem_is_store(info) ? 'S' : 'L',
		(unsigned long long)vaddr, 1u << qemu_plugin_mem_size_shift(info));
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	for (size_t i = 0, n = qemu_plugin_tb_n_insns(tb); i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t pc = qemu_plugin_insn_vaddr(insn);
		qemu_plugin_register_vcpu_insn_exec_cb(insn, on_exec,
						       QEMU_PLUGIN_CB_NO_REGS, NULL);
		qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW,
						 (void *)(uintptr_t)pc);
	}
}

static void on_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	if (out)
		fclose(out);
	out = NULL;
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			       int argc, char **argv)
{
	(void)info;
	for (int i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out = fopen(argv[i] + 4, "w");
	if (!out) {
		fprintf(stderr, "qemu-trace: give out=FILE\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_exit, NULL);
	return 0;
}
