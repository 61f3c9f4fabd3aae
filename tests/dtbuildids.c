// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Test helper and fuzz target: the build-id table of a perf.data file as
 * dtprof reads it (lib/engine/perfdata.c), one line an entry, in perf
 * buildid-list's form, with what else an entry says:
 *   BUILDID NAME [kernel] [guest]
 * With -c, first "samples N", the samples its data section holds, and
 * "times FIRST LAST" (ns) when the file records them.
 * Exit status 0, 1 for no table (said on stderr), 2 for usage.
 *   dtbuildids [-c] PERF.DATA
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../lib/dtprof.h"

static int print_entry(void *arg, const struct dt_build_id_entry *e)
{
	(void)arg;
	for (size_t i = 0; i < e->build_id_size; i++)
		printf("%02x", e->build_id[i]);
	printf(" %s%s%s\n", e->name, e->kernel ? " kernel" : "", e->host ? "" : " guest");
	return 0;
}

int main(int argc, char **argv)
{
	bool count = argc == 3 && !strcmp(argv[1], "-c");

	if (argc != 2 && !count) {
		fprintf(stderr, "usage: dtbuildids [-c] PERF.DATA\n");
		return 2;
	}
	const char *path = argv[argc - 1];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "dtbuildids: %s: %s\n", path, strerror(errno));
		return 1;
	}
	/* -c: the samples the data section holds, on the first line */
	uint64_t n;
	int cerr = count ? dt_perfdata_count_samples(fd, &n) : 0;
	if (count && cerr)
		printf("samples ? %s\n", strerror(-cerr));
	else if (count)
		printf("samples %llu\n", (unsigned long long)n);
	uint64_t first, last;
	if (count && !dt_perfdata_sample_times(fd, &first, &last))
		printf("times %llu %llu\n", (unsigned long long)first,
		       (unsigned long long)last);
	int err = dt_perfdata_build_ids(fd, print_entry, NULL);
	close(fd);
	if (err)
		fprintf(stderr, "dtbuildids: %s: %s\n", argv[1],
			err == -EPROTO ? "not a perf.data file, or a corrupt build-id table" :
			err == -ENOENT ? "no build-id table" : strerror(-err));
	return err ? 1 : 0;
}
