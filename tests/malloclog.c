// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Every heap block of a run, for truth by execution: LD_PRELOAD this with
 * MALLOCLOG=FILE and each malloc, calloc, realloc, aligned allocation and
 * free appends a line "a|f ADDRESS SIZE NS PID" to FILE (hex address, the
 * block's usable size, CLOCK_MONOTONIC time: perf record -k
 * CLOCK_MONOTONIC gives its samples the same clock; the process, for a
 * log of several).  Lines are buffered
 * under a lock and written at 64 kB, at exit, and when the log is full.
 * dlsym's own allocation comes from a small static arena.
 * With MALLOCLOG_MARKS=1 too (a run under valgrind's lackey), the log
 * starts with "m BASE SIZE 0 PID" (a read-only region) and "b BIAS 0 0
 * PID" (the program's load bias), and the k-th event reads byte k mod
 * SIZE of the region, under the lock: lackey's trace shows the load, so
 * the events fall in place among the program's accesses.
 * With MALLOCLOG_STARTS=1, each program the process runs starts its log
 * with "s 1 0 NS PID": an exec, the blocks of the image before gone; and
 * FILE is appended to, never emptied (a log of every process the
 * variables reach: remove it first).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <malloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static void *(*real_memalign)(size_t, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char buf[1 << 16];
static size_t used;
static int fd = -1;
static __thread int inside;	/* an allocation of our own: not logged */

#define MARKS_SIZE (1u << 20)
static const volatile char *marks;	/* MALLOCLOG_MARKS: see above */
static unsigned long seq;

/* dlsym may calloc before real_calloc is known */
static char arena[4096];
static size_t arena_used;

static void flush_locked(void)
{
	size_t off = 0;

	while (fd >= 0 && off < used) {
		ssize_t n = write(fd, buf + off, used - off);
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	used = 0;
}

static void log_line(char op, void *p, size_t size)
{
	struct timespec ts;
	char line[80];

	if (!p || fd < 0 || inside)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	int n = snprintf(line, sizeof(line), "%c %lx %zx %llu %d\n", op, (unsigned long)p,
			 size, (unsigned long long)ts.tv_sec * 1000000000ull +
			 (unsigned long long)ts.tv_nsec, (int)getpid());
	pthread_mutex_lock(&lock);
	if (used + (size_t)n > sizeof(buf))
		flush_locked();
	memcpy(buf + used, line, (size_t)n);
	used += (size_t)n;
	if (marks)
		(void)marks[seq++ % MARKS_SIZE];
	pthread_mutex_unlock(&lock);
}

/* The first object dl_iterate_phdr reports is the program. */
static int first_bias(struct dl_phdr_info *info, size_t size, void *out)
{
	(void)size;
	*(unsigned long *)out = (unsigned long)info->dlpi_addr;
	return 1;
}

static void marks_start(void)
{
	unsigned long bias = 0;
	char line[80];
	void *m = mmap(NULL, MARKS_SIZE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED || fd < 0)
		return;
	dl_iterate_phdr(first_bias, &bias);
	int n = snprintf(line, sizeof(line), "m %lx %x 0 %d\nb %lx 0 0 %d\n",
			 (unsigned long)m, MARKS_SIZE, (int)getpid(), bias, (int)getpid());
	if (write(fd, line, (size_t)n) != n)
		return;
	marks = m;
}

static void flush_at_exit(void)
{
	pthread_mutex_lock(&lock);
	flush_locked();
	pthread_mutex_unlock(&lock);
}

__attribute__((constructor)) static void init(void)
{
	inside++;
	real_malloc = dlsym(RTLD_NEXT, "malloc");
	real_calloc = dlsym(RTLD_NEXT, "calloc");
	real_realloc = dlsym(RTLD_NEXT, "realloc");
	real_free = dlsym(RTLD_NEXT, "free");
	real_memalign = dlsym(RTLD_NEXT, "memalign");
	real_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
	real_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
	const char *path = getenv("MALLOCLOG");
	bool starts = getenv("MALLOCLOG_STARTS") != NULL;
	if (path)	/* a log of several programs: each appends */
		fd = open(path, O_WRONLY | O_CREAT | (starts ? 0 : O_TRUNC) | O_APPEND | O_CLOEXEC,
			  0644);
	if (getenv("MALLOCLOG_MARKS"))
		marks_start();
	atexit(flush_at_exit);
	inside--;
	if (starts)
		log_line('s', (void *)1, 0);
}

void *malloc(size_t n)
{
	if (!real_malloc)
		init();
	void *p = real_malloc(n);
	log_line('a', p, p ? malloc_usable_size(p) : 0);
	return p;
}

void *calloc(size_t n, size_t m)
{
	if (!real_calloc) {	/* dlsym's own */
		size_t want = (n * m + 15) & ~(size_t)15;
		if (arena_used + want > sizeof(arena))
			return NULL;
		arena_used += want;
		return arena + arena_used - want;
	}
	void *p = real_calloc(n, m);
	log_line('a', p, p ? malloc_usable_size(p) : 0);
	return p;
}

void *realloc(void *old, size_t n)
{
	if (!real_realloc)
		init();
	void *p = real_realloc(old, n);
	if (p || !n) {
		log_line('f', old, 0);
		log_line('a', p, p ? malloc_usable_size(p) : 0);
	}
	return p;
}

void free(void *p)
{
	if ((char *)p >= arena && (char *)p < arena + sizeof(arena))
		return;
	if (!real_free)
		init();
	log_line('f', p, 0);
	real_free(p);
}

void *memalign(size_t a, size_t n)
{
	void *p = real_memalign(a, n);
	log_line('a', p, p ? malloc_usable_size(p) : 0);
	return p;
}

void *aligned_alloc(size_t a, size_t n)
{
	void *p = real_aligned_alloc(a, n);
	log_line('a', p, p ? malloc_usable_size(p) : 0);
	return p;
}

int posix_memalign(void **out, size_t a, size_t n)
{
	int err = real_posix_memalign(out, a, n);
	if (!err)
		log_line('a', *out, malloc_usable_size(*out));
	return err;
}
