// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Where a sampled load was served from, in the few classes a layout
 * decision needs, from perf's union perf_mem_data_src (PERF_SAMPLE_DATA_SRC:
 * perf mem, precise load and store events).  Both encodings are read: the
 * old PERF_MEM_LVL_* bits and the newer level number with its remote bit.
 */
#include <linux/perf_event.h>

#include "../dtprof.h"

#define FIELD(v, shift, bits) ((unsigned)((v) >> (shift)) & ((1u << (bits)) - 1))

const char *dt_mem_level_str(enum dt_mem_level l)
{
	static const char *const names[DT_LVL_COUNT] = {
		"L1", "LFB", "L2", "L3", "HITM", "RAM", "remote_RAM",
		"remote_cache", "uncached", "other",
	};
	return (unsigned)l < DT_LVL_COUNT ? names[l] : "other";
}

/* From the level number (Intel since Skylake, AMD IBS, Arm SPE). */
static enum dt_mem_level from_level_number(unsigned num, bool remote)
{
	switch (num) {
	case PERF_MEM_LVLNUM_L1:
		return remote ? DT_LVL_REMOTE_CACHE : DT_LVL_L1;
	case PERF_MEM_LVLNUM_L2:
		return remote ? DT_LVL_REMOTE_CACHE : DT_LVL_L2;
	case PERF_MEM_LVLNUM_L3:
	case PERF_MEM_LVLNUM_L4:
		return remote ? DT_LVL_REMOTE_CACHE : DT_LVL_L3;
	case PERF_MEM_LVLNUM_ANY_CACHE:
		return remote ? DT_LVL_REMOTE_CACHE : DT_LVL_OTHER;
	case PERF_MEM_LVLNUM_LFB:
		return DT_LVL_LFB;
	case PERF_MEM_LVLNUM_RAM:
		return remote ? DT_LVL_REMOTE_RAM : DT_LVL_RAM;
	case 0x08:		/* PERF_MEM_LVLNUM_UNC (Linux 6.6) */
		return DT_LVL_UNCACHED;
	default:		/* CXL, I/O, PMEM, not available */
		return DT_LVL_OTHER;
	}
}

enum dt_mem_level dt_data_src_level(uint64_t d)
{
	unsigned lvl = FIELD(d, PERF_MEM_LVL_SHIFT, 14);
	unsigned snoop = FIELD(d, PERF_MEM_SNOOP_SHIFT, 5);
	unsigned num = FIELD(d, PERF_MEM_LVLNUM_SHIFT, 4);
	bool remote = FIELD(d, PERF_MEM_REMOTE_SHIFT, 1);

	/* a miss says where the access did not hit, not where it did */
	if ((lvl & PERF_MEM_LVL_MISS) && !(lvl & PERF_MEM_LVL_HIT))
		return lvl & PERF_MEM_LVL_UNC ? DT_LVL_UNCACHED : DT_LVL_OTHER;
	if (snoop & PERF_MEM_SNOOP_HITM)
		return remote || (lvl & (PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_REM_CCE2)) ?
		       DT_LVL_REMOTE_CACHE : DT_LVL_HITM;
	if (lvl & PERF_MEM_LVL_UNC)
		return DT_LVL_UNCACHED;
	if (num && num != PERF_MEM_LVLNUM_NA)
		return from_level_number(num, remote);
	if (lvl & PERF_MEM_LVL_L1)
		return DT_LVL_L1;
	if (lvl & PERF_MEM_LVL_LFB)
		return DT_LVL_LFB;
	if (lvl & PERF_MEM_LVL_L2)
		return DT_LVL_L2;
	if (lvl & PERF_MEM_LVL_L3)
		return DT_LVL_L3;
	if (lvl & PERF_MEM_LVL_LOC_RAM)
		return DT_LVL_RAM;
	if (lvl & (PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_REM_RAM2))
		return DT_LVL_REMOTE_RAM;
	if (lvl & (PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_REM_CCE2))
		return DT_LVL_REMOTE_CACHE;
	return DT_LVL_OTHER;
}
