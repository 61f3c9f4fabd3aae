// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Opening the binaries of a profile before their samples come.  perf
 * script spends its first tenth of a second or so loading the kernel's
 * symbols, with the second CPU idle; opening debug info (libc's is
 * zlib-compressed, and libdw decompresses all of it) is most of what the
 * plugin does on a small profile.  perf.data's build-id table says which
 * binaries have samples, by the names perf will give them, so the
 * resolving thread opens those first (dt_dsos_prefetch keeps what
 * opening says until a sample asks).
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/dtprof.h"
#include "prefetch.h"

#define MAX_PREFETCH 256	/* past that many binaries, on demand */

int prefetch_find_perfdata(void)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *e;
	int found = -1;

	if (!dir)
		return -1;
	while (found < 0 && (e = readdir(dir))) {
		char *end;
		long n = strtol(e->d_name, &end, 10);
		struct stat st;
		char path[64];
		/* perf's descriptor is only looked at; the file is read
		 * through one of our own */
		if (*end || end == e->d_name || n == dirfd(dir) ||
		    fstat((int)n, &st) || !S_ISREG(st.st_mode))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%ld", n);
		int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0 && dt_perfdata_is(fd))
			found = fd;
		else if (fd >= 0)
			close(fd);
	}
	closedir(dir);
	return found;
}

struct prefetch {
	struct dt_dsos *dsos;
	pthread_mutex_t *lock;
	unsigned n;
};

/* The entries worth opening ahead: this machine's files and kernel (a
 * module's entry names its .ko, its samples "[name]"; guests' binaries
 * are not here). */
static bool openable(const struct dt_build_id_entry *e)
{
	return e->host && (e->kernel ? dt_dso_is_kernel(e->name) : e->name[0] == '/');
}

struct all_kept {
	const struct dt_dsos *dsos;
	bool kept;
};

static int kept_one(void *arg, const struct dt_build_id_entry *e)
{
	struct all_kept *k = arg;

	if (openable(e) && !dt_dsos_answers_kept(k->dsos, e->name, e->build_id, e->build_id_size))
		k->kept = false;
	return !k->kept;
}

bool prefetch_all_kept(const struct dt_dsos *dsos, int fd)
{
	struct all_kept k = { dsos, true };

	return fd >= 0 && !dt_perfdata_build_ids(fd, kept_one, &k) && k.kept;
}

static int prefetch_one(void *arg, const struct dt_build_id_entry *e)
{
	struct prefetch *p = arg;

	if (!openable(e))
		return 0;
	pthread_mutex_lock(p->lock);
	dt_dsos_prefetch(p->dsos, e->name, e->build_id, e->build_id_size);
	pthread_mutex_unlock(p->lock);
	return ++p->n == MAX_PREFETCH;
}

void prefetch_dsos(struct dt_dsos *dsos, pthread_mutex_t *lock, int fd)
{
	struct prefetch p = { dsos, lock, 0 };

	if (fd < 0)
		return;
	dt_perfdata_build_ids(fd, prefetch_one, &p);	/* what it read, if not all */
	close(fd);
}
