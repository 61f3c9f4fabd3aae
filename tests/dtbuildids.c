// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Test helper and fuzz target: the build-id table of a perf.data file as
 * dtprof reads it (resolver/perfdata.c), one line an entry, in perf
 * buildid-list's form, with what else an entry says:
 *   BUILDID NAME [kernel] [guest]
 * Exit status 0, 1 for no table (said on stderr), 2 for usage.
 *   dtbuildids PERF.DATA
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../resolver/dtprof.h"

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
	if (argc != 2) {
		fprintf(stderr, "usage: dtbuildids PERF.DATA\n");
		return 2;
	}
	int fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "dtbuildids: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	int err = dt_perfdata_build_ids(fd, print_entry, NULL);
	close(fd);
	if (err)
		fprintf(stderr, "dtbuildids: %s: %s\n", argv[1],
			err == -EPROTO ? "not a perf.data file, or a corrupt build-id table" :
			err == -ENOENT ? "no build-id table" : strerror(-err));
	return err ? 1 : 0;
}
