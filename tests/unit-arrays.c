// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * arrays.h's hashes as the tables use them: the low bits pick a slot, so
 * keys that differ only in their high bits, or are aligned (functions'
 * entries, allocations 16 bytes apart), must still spread over the slots.
 */
#include <stdbool.h>

#include "../lib/arrays.h"
#include "tap.h"

#define SLOTS 1024

/* Distinct slots of a SLOTS table taken by n keys start + k * step. */
static unsigned slots_taken(uint64_t start, uint64_t step, unsigned n)
{
	static bool used[SLOTS];
	unsigned taken = 0;

	memset(used, 0, sizeof(used));
	for (unsigned k = 0; k < n; k++) {
		size_t i = hash_mix(HASH_SEED, start + k * step) & (SLOTS - 1);
		taken += !used[i];
		used[i] = true;
	}
	return taken;
}

int main(void)
{
	/* 1,024 random keys fill about 1 - 1/e of 1,024 slots: 647 */
	static const struct {
		uint64_t step;
		const char *what;
	} strides[] = {
		{ 1, "consecutive" }, { 8, "8 bytes apart" },
		{ 16, "16 bytes apart (functions' entries, allocations)" },
		{ 64, "a cache line apart" }, { 4096, "a page apart" },
		{ 1ull << 20, "a megabyte apart" }, { 1ull << 32, "apart above bit 32" },
		{ 1ull << 40, "apart above bit 40" }, { 1ull << 52, "apart above bit 52" },
	};
	for (size_t i = 0; i < sizeof(strides) / sizeof(strides[0]); i++) {
		unsigned taken = slots_taken(0x7f0000001234ull, strides[i].step, SLOTS);
		ok(taken > 600, "keys %s spread like random ones: %u of %d slots",
		   strides[i].what, taken, SLOTS);
	}
	/* sort_u64: as qsort sorts, whatever the keys */
	static uint64_t keys[5000], want[5000];
	static const struct {
		size_t n;
		uint64_t base, mask;
		const char *what;
	} sorts[] = {
		{ 0, 0, 0, "no keys" }, { 1, 7, 0, "one key" },
		{ 50, 0, ~0ull, "50 keys (qsort's)" },
		{ 5000, 0x400000, 0xfffff, "a binary's addresses" },
		{ 5000, 0xffffffff81000000ull, 0xffffff, "a kernel's addresses" },
		{ 5000, 0, ~0ull, "any 64 bits" }, { 5000, 0, 15, "many equal" },
		{ 5000, 42, 0, "all equal" },
	};
	srand(3);
	for (size_t t = 0; t < sizeof(sorts) / sizeof(sorts[0]); t++) {
		size_t n = sorts[t].n;
		for (size_t i = 0; i < n; i++) {
			uint64_t r = (uint64_t)rand() << 42 ^ (uint64_t)rand() << 21 ^ (uint64_t)rand();
			keys[i] = want[i] = sorts[t].base + (r & sorts[t].mask);
		}
		if (n > 1)
			qsort(want, n, sizeof(*want), sort_u64_cmp);
		sort_u64(keys, n);
		ok(!n || !memcmp(keys, want, n * sizeof(*keys)), "sort_u64: %s", sorts[t].what);
	}
	is_int(hash_str(NULL), 0, "hash_str of no string is 0");
	is_int(hash_str("list.h"), hash_bytes("list.h", 6, HASH_SEED),
	       "hash_str is hash_bytes of the string from HASH_SEED");
	ok(hash_str("") != hash_str("a"), "hash_str tells strings apart");
	return done_testing();
}
