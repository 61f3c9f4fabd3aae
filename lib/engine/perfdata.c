// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The build-id table of a perf.data file (its HEADER_BUILD_ID feature):
 * perf record writes one entry for each binary its samples hit, with the
 * name and build-id perf script will give those samples.  Read with
 * pread, so the reader's offset in the file is left alone.  The file is
 * input like any other: every offset and size is checked.
 *
 * The layout (perf's util/header.h): a header of 104 bytes — "PERFILE2",
 * its size, the attributes' size and section, the data section, an
 * unused section, a bitmap of 256 features; after the data, one
 * { offset, size } section per feature set, in bit order.  A build-id
 * record: { u32 type; u16 misc; u16 size; s32 pid; u8 build_id[20];
 * u8 id_size; u8 pad[3]; char filename[]; }, size covering the name and
 * its padding; id_size counts when misc has PERF_RECORD_MISC_BUILD_ID_SIZE,
 * else the id is 20 bytes, as perf reads it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../dtprof.h"

#define MAGIC "PERFILE2"
#define HEADER_SIZE 104
#define FEATURE_BITMAP_AT 72
#define HEADER_TRACING_DATA 1	/* the tracepoints' formats (trace-event-info) */
#define HEADER_BUILD_ID 2
#define HEADER_SAMPLE_TIME 21	/* { u64 first, last; } sample times */
#define RECORD_NAME_AT 36	/* header 8, pid 4, build-id 20 + size 4 */
#define MISC_CPUMODE_MASK 7
#define MISC_KERNEL 1
#define MISC_BUILD_ID_SIZE (1u << 15)
#define HOST_PID (-1)
#define MAX_TABLE (64u << 20)	/* larger: not a table perf wrote */
#define MAX_TRACING (256u << 20)	/* larger: not the formats perf wrote */

static uint64_t u64_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static bool read_at(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			return false;
		}
		done += (size_t)n;
	}
	return true;
}

bool dt_perfdata_is(int fd)
{
	struct stat st;
	char magic[8];

	return !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	       read_at(fd, magic, sizeof(magic), 0) && !memcmp(magic, MAGIC, 8);
}

/* Where feature section `feature` (< 64) is: its offset and size;
 * -ENOENT without one, -EPROTO when this is no perf.data file of this
 * machine's byte order. */
static int find_feature(int fd, unsigned feature, uint64_t *off, uint64_t *size)
{
	uint8_t h[HEADER_SIZE], sec[16];

	if (!read_at(fd, h, sizeof(h), 0) || memcmp(h, MAGIC, 8) ||
	    u64_at(h + 8) != HEADER_SIZE)
		return -EPROTO;
	uint64_t data_off = u64_at(h + 40), data_size = u64_at(h + 48);
	uint64_t bits = u64_at(h + FEATURE_BITMAP_AT);
	if (!(bits & (1ull << feature)))
		return -ENOENT;
	/* one section per feature set before it */
	uint64_t index = (uint64_t)__builtin_popcountll(bits & ((1ull << feature) - 1));
	uint64_t at;
	if (__builtin_add_overflow(data_off, data_size, &at) ||
	    __builtin_add_overflow(at, index * sizeof(sec), &at) ||
	    !read_at(fd, sec, sizeof(sec), at))
		return -EPROTO;
	*off = u64_at(sec);
	*size = u64_at(sec + 8);
	return 0;
}

/* Where the build-id table is (find_feature), of a size perf writes. */
static int find_table(int fd, uint64_t *off, uint64_t *size)
{
	int err = find_feature(fd, HEADER_BUILD_ID, off, size);

	return !err && *size > MAX_TABLE ? -EPROTO : err;
}

int dt_perfdata_sample_times(int fd, uint64_t *first, uint64_t *last)
{
	uint8_t t[16];
	uint64_t off, size;
	int err = find_feature(fd, HEADER_SAMPLE_TIME, &off, &size);

	if (err)
		return err;
	if (size < sizeof(t) || !read_at(fd, t, sizeof(t), off))
		return -EPROTO;
	*first = u64_at(t);
	*last = u64_at(t + 8);
	return *first <= *last ? 0 : -EPROTO;
}

int dt_perfdata_tracing_data(int fd, void **data, size_t *len)
{
	uint64_t off, size;
	int err = find_feature(fd, HEADER_TRACING_DATA, &off, &size);

	*data = NULL;
	*len = 0;
	if (err)
		return err;
	if (!size || size > MAX_TRACING)
		return -EPROTO;
	void *buf = malloc((size_t)size);
	if (!buf)
		return -ENOMEM;
	if (!read_at(fd, buf, (size_t)size, off)) {
		free(buf);
		return -EPROTO;
	}
	*data = buf;
	*len = (size_t)size;
	return 0;
}

int dt_perfdata_build_ids(int fd, dt_build_id_fn *fn, void *arg)
{
	uint64_t off, size;
	int err = find_table(fd, &off, &size);

	if (err)
		return err;
	uint8_t *t = malloc(size ? size : 1);
	if (!t)
		return -ENOMEM;
	if (!read_at(fd, t, size, off)) {
		free(t);
		return -EPROTO;
	}
	err = 0;
	for (uint64_t at = 0; at < size && !err; ) {
		uint16_t misc, len;
		int32_t pid;
		if (size - at < RECORD_NAME_AT + 1) {
			err = -EPROTO;
			break;
		}
		memcpy(&misc, t + at + 4, sizeof(misc));
		memcpy(&len, t + at + 6, sizeof(len));
		memcpy(&pid, t + at + 8, sizeof(pid));
		const uint8_t *rec = t + at;
		/* the name must end inside the record */
		if (len <= RECORD_NAME_AT || len > size - at ||
		    !memchr(rec + RECORD_NAME_AT, '\0', len - RECORD_NAME_AT)) {
			err = -EPROTO;
			break;
		}
		struct dt_build_id_entry e = {
			.name = (const char *)rec + RECORD_NAME_AT,
			.build_id = rec + 12,
			.build_id_size = misc & MISC_BUILD_ID_SIZE ? rec[32] : 20,
			.kernel = (misc & MISC_CPUMODE_MASK) == MISC_KERNEL,
			.host = pid == HOST_PID,
		};
		if (e.build_id_size > 20) {
			err = -EPROTO;
			break;
		}
		err = fn(arg, &e);
		at += len;
	}
	free(t);
	return err;
}

#define RECORD_SAMPLE 9		/* PERF_RECORD_SAMPLE */
#define RECORD_COMPRESSED 81	/* PERF_RECORD_COMPRESSED (zstd) */
#define RECORD_COMPRESSED2 83	/* PERF_RECORD_COMPRESSED2 (perf 6.15) */

int dt_perfdata_count_samples(int fd, uint64_t *samples)
{
	uint8_t h[HEADER_SIZE];
	struct stat st;
	long page = sysconf(_SC_PAGESIZE);

	*samples = 0;
	if (!read_at(fd, h, sizeof(h), 0) || memcmp(h, MAGIC, 8) ||
	    u64_at(h + 8) != HEADER_SIZE || fstat(fd, &st))
		return -EPROTO;
	uint64_t off = u64_at(h + 40), size = u64_at(h + 48), end;
	if (__builtin_add_overflow(off, size, &end) || end > (uint64_t)st.st_size ||
	    page <= 0)
		return -EPROTO;
	if (!size)
		return 0;
	/* mapped, not read: only each record's 8-byte header is touched */
	uint64_t base = off / (uint64_t)page * (uint64_t)page;
	size_t len = (size_t)(end - base);
	uint8_t *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, (off_t)base);
	if (map == MAP_FAILED)
		return -errno;
	/* read ahead on the session's own descriptor; the mapping's
	 * advice would be the process's */
	posix_fadvise(fd, (off_t)base, (off_t)len, POSIX_FADV_SEQUENTIAL);
	const uint8_t *p = map + (off - base), *stop = map + len;
	int err = 0;
	while (p < stop && !err) {
		uint32_t type;
		uint16_t rsize;
		if (stop - p < 8) {
			err = -EPROTO;
			break;
		}
		memcpy(&type, p, sizeof(type));
		memcpy(&rsize, p + 6, sizeof(rsize));
		if (rsize < 8 || rsize > stop - p)
			err = -EPROTO;
		else if (type == RECORD_COMPRESSED || type == RECORD_COMPRESSED2)
			err = -ENOTSUP;	/* the samples are inside, in zstd */
		else
			*samples += type == RECORD_SAMPLE;
		p += rsize;
	}
	munmap(map, len);
	return err;
}
