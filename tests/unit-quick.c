// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * arch/x86_64_quick.c against libopcodes: wherever the quick decoder
 * takes an instruction, its length and tokens must be libopcodes' own.
 * Compared on every instruction (a linear sweep of the executable
 * sections) of this test, the C library it runs with and the x86-64
 * binaries named on the command line (t2021 compiles them with gcc and
 * clang at several -O levels; make bench-kernel passes the vmlinux), on
 * each instruction cut short, and on random bytes from a fixed seed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <link.h>
#include <time.h>
#include <unistd.h>

#include <gelf.h>

#include "../lib/engine/internal.h"
#include "tap.h"

#define RANDOM_BUFFERS 200000

struct tally {
	size_t insns, quick, differ, cut_differ;
};

static struct decoder *by_libopcodes, *by_quick;
static const struct dt_arch *x86;

static void show(const char *who, const struct decoded_insn *in)
{
	char text[256];

	decoded_insn_text(in, text, sizeof(text));
	printf("#   %s: %u bytes, %zu tokens: %s\n", who, in->len, in->ntoks,
	       text);
}

static bool same_tokens(const struct decoded_insn *a,
			const struct decoded_insn *b)
{
	if (a->len != b->len || a->ntoks != b->ntoks)
		return false;
	for (size_t i = 0; i < a->ntoks; i++)
		if (a->toks[i].kind != b->toks[i].kind ||
		    strcmp(a->toks[i].text, b->toks[i].text))
			return false;
	return true;
}

/* The instruction at bytes both ways; a difference is counted and the
 * first few are shown.  Returns libopcodes' length. */
static unsigned compare(uint64_t pc, const uint8_t *bytes, size_t avail,
			struct tally *t)
{
	static struct decoded_insn want, got;
	unsigned len = decoder_run(by_libopcodes, pc, bytes, avail, &want);

	decoder_run(by_quick, pc, bytes, avail, &got);
	t->insns++;
	if (!same_tokens(&want, &got)) {
		if (t->differ++ < 10) {
			printf("# at 0x%llx, %zu bytes available:\n",
			       (unsigned long long)pc, avail);
			show("libopcodes", &want);
			show("quick", &got);
		}
	}
	return len;
}

/* Whether the quick decoder takes the instruction (tokens thrown away). */
static void drop(struct dt_tok_sink *sink, enum dt_tok_kind kind,
		 const char *text, size_t len)
{
	(void)sink, (void)kind, (void)text, (void)len;
}

static bool quick_takes(uint64_t pc, const uint8_t *bytes, size_t avail)
{
	struct dt_tok_sink sink = { .put = drop };

	return x86->quick_decode(pc, bytes, avail, &sink) != 0;
}

/* CPU seconds of one decoder over the section's instructions (each as
 * libopcodes delimits it), for the diagnostic line: not a test. */
static double decode_all(struct decoder *d, uint64_t addr,
			 const uint8_t *b, size_t size)
{
	static struct decoded_insn out;
	struct timespec t0, t1;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	for (size_t off = 0; off < size;) {
		unsigned len = decoder_run(d, addr + off, b + off, size - off, &out);
		off += len ? len : 1;
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	return (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
}

static void sweep(const char *path)
{
	double slow = 0, fast = 0;
	struct tally t = { 0 };
	int fd = open(path, O_RDONLY);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	GElf_Ehdr eh;

	if (!elf || !gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64) {
		ok(false, "%s: an x86-64 ELF file", path);
		goto out;
	}
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) ||
		    !(data = elf_getdata(scn, NULL)) || !data->d_buf)
			continue;
		const uint8_t *b = data->d_buf;
		for (size_t off = 0; off < data->d_size;) {
			uint64_t pc = sh.sh_addr + off;
			size_t avail = data->d_size - off;
			unsigned len = compare(pc, b + off, avail, &t);

			if (quick_takes(pc, b + off, avail)) {
				t.quick++;
				/* cut short, both must refuse it */
				struct tally cut = { 0 };
				compare(pc, b + off, len ? len - 1 : 0, &cut);
				t.cut_differ += cut.differ;
			}
			off += len ? len : 1;
		}
		slow += decode_all(by_libopcodes, sh.sh_addr, b, data->d_size);
		fast += decode_all(by_quick, sh.sh_addr, b, data->d_size);
	}
	if (t.insns)
		printf("# %s: libopcodes %.0f ns an instruction, the quick decoder "
		       "first %.0f ns\n", path, slow * 1e9 / (double)t.insns,
		       fast * 1e9 / (double)t.insns);
	ok(t.insns > 0 && t.quick > 0, "%s: %zu instructions, %zu (%.1f%%) "
	   "taken by the quick decoder", path, t.insns, t.quick,
	   t.insns ? 100.0 * (double)t.quick / (double)t.insns : 0.0);
	is_int(t.differ, 0, "%s: the quick decoder's tokens are libopcodes' "
	       "(%zu compared)", path, t.insns);
	is_int(t.cut_differ, 0, "%s: each of them cut short, both refuse it",
	       path);
out:
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

/* Random bytes, biased to what the quick decoder reads: its prefixes,
 * REX and the opcodes it knows, then any ModRM, SIB and displacement. */
static void random_bytes(void)
{
	static const uint8_t firsts[] = {
		0x66, 0x64, 0x65, 0x40, 0x41, 0x44, 0x48, 0x49, 0x4c, 0x4f,
		0x0f, 0x01, 0x03, 0x29, 0x2b, 0x31, 0x39, 0x3b, 0x3c, 0x3d,
		0x50, 0x5f, 0x63, 0x68, 0x69, 0x6a, 0x6b, 0x74, 0x80, 0x81,
		0x83, 0x84, 0x85, 0x88, 0x89, 0x8a, 0x8b, 0x8d, 0x90, 0x98,
		0x99, 0xa8, 0xa9, 0xb8, 0xc0, 0xc1, 0xc3, 0xc6, 0xc7, 0xc9,
		0xcc, 0xd0, 0xd1, 0xd3, 0xe8, 0xe9, 0xeb, 0xf6, 0xf7, 0xff,
		0x1f, 0xb6, 0xb7, 0xbe, 0xbf, 0xaf, 0x44, 0x94, 0x84, 0xf3,
		0xf2, 0xf0, 0x2e, 0x3e, 0x67,
	};
	uint64_t seed = 0x5eed0fd7c0de1234ull;
	struct tally t = { 0 };
	uint8_t buf[16];

	for (size_t n = 0; n < RANDOM_BUFFERS; n++) {
		for (size_t i = 0; i < sizeof(buf); i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			uint8_t r = (uint8_t)(seed >> 33);
			buf[i] = i < 4 && (seed >> 60) < 12 ?
				 firsts[r % sizeof(firsts)] : r;
		}
		size_t avail = 1 + (size_t)(seed >> 40) % sizeof(buf);
		if (quick_takes(0xffffffff81000000ull + n, buf, avail))
			t.quick++;
		compare(0xffffffff81000000ull + n, buf, avail, &t);
	}
	ok(t.quick > RANDOM_BUFFERS / 10, "random bytes: %zu of %d taken by "
	   "the quick decoder", t.quick, RANDOM_BUFFERS);
	is_int(t.differ, 0, "random bytes: where taken, libopcodes' tokens");
}

static int libc_path(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	if (strstr(info->dlpi_name, "/libc.so")) {
		snprintf(data, 4096, "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char self[4096], libc[4096] = "";
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	self[n > 0 ? n : 0] = '\0';
	elf_version(EV_CURRENT);
	x86 = dt_arch_for_machine(EM_X86_64);
	by_libopcodes = decoder_new(x86);
	by_quick = decoder_new(x86);
	if (!x86 || !x86->quick_decode || !by_libopcodes || !by_quick) {
		printf("Bail out! no x86-64 decoder\n");
		return 1;
	}
	decoder_use_quick(by_libopcodes, false);
	decoder_use_quick(by_quick, true);

	random_bytes();
	sweep(self);
	dl_iterate_phdr(libc_path, libc);
	ok(libc[0], "the C library found: %s", libc);
	if (libc[0])
		sweep(libc);
	for (int i = 1; i < argc; i++)
		sweep(argv[i]);
	decoder_free(by_libopcodes);
	decoder_free(by_quick);
	return done_testing();
}
