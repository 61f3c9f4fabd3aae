// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * t8003 runs it under tests/failmalloc.so: a session used from two threads,
 * as the plugin's are, the second thread out of memory once at each of
 * its allocations in turn.  libdw 0.192 keeps a table of per-thread
 * allocators; when growing it for a new thread fails, the table is NULL
 * while its count is not, and dwarf_end reads it: the session must close
 * without handing that state back to libdw (oom.c).  Every session
 * closes, and some second threads ran out of memory inside libdw.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include "../lib/dtprof.h"
#include "tap.h"
#include "../frontend/process.h"

static void (*arm)(long after, long count);

/* Every instruction of function sym asked about; the answers that are
 * no_memory, counted. */
static int resolve_all(struct dt_session *s, const char *sym)
{
	uint64_t start, size;
	int no_memory = 0;

	if (dt_session_symbol(s, sym, &start, &size))
		return 0;
	for (uint64_t pc = start; pc < start + size;) {
		struct dt_answer a;
		char text[128];
		int len = dt_session_disasm(s, pc, text, sizeof(text));
		if (len <= 0)
			break;
		no_memory += dt_resolve_pc(s, pc, &a) == DT_NO_MEMORY;
		pc += (uint64_t)len;
	}
	return no_memory;
}

struct second {
	struct dt_session *s;
	long after;
	int no_memory;
};

/* The second thread: its first use of the session's libdw, which grows
 * libdw's table of threads, among the allocations that may fail. */
static void *second_thread(void *arg)
{
	struct second *j = arg;

	arm(j->after, 1);
	j->no_memory = resolve_all(j->s, "dt_session_close");
	arm(-1, 0);
	return NULL;
}

int main(void)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int opened = 0, closed = 0, short_of_memory = 0;

	frontend_catch_libdw_aborts();	/* as dtresolve does */
	arm = (void (*)(long, long))dlsym(RTLD_DEFAULT, "dt_failmalloc_arm");
	if (!arm)
		skip_all("not under failmalloc.so");
	self[n > 0 ? n : 0] = '\0';
	for (long after = 0; after < 400; after++) {
		struct dt_session *s;
		if (dt_session_open(self, NULL, &s))
			continue;
		opened++;
		/* the first thread: libdw allocates for it first */
		resolve_all(s, "main");
		struct second j = { s, after, 0 };
		pthread_t t;
		if (pthread_create(&t, NULL, second_thread, &j) == 0)
			pthread_join(t, NULL);
		short_of_memory += j.no_memory > 0;
		dt_session_close(s);
		closed++;
	}
	ok(opened == 400 && closed == opened,
	   "%d sessions closed after their second thread ran out of memory", closed);
	ok(short_of_memory > 0, "in %d of them, its questions answered no_memory",
	   short_of_memory);
	return done_testing();
}
