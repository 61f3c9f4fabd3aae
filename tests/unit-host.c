// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The library leaves the process that hosts it alone: with every
 * variable the front ends read set, a session opened with default options
 * traces nothing, writes no cache, installs no signal handler and leaves
 * the heap as it was; the options, not the environment, turn each on.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/dtprof.h"
#include "tap.h"

static int logged;

static void count_log(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
	logged++;
}

/* Every instruction of main asked about: the library at work. */
static void work(struct dt_session *s)
{
	uint64_t start, size;

	if (dt_session_symbol(s, "main", &start, &size))
		return;
	for (uint64_t pc = start; pc < start + size;) {
		struct dt_answer a;
		char text[128];
		int len = dt_session_disasm(s, pc, text, sizeof(text));
		dt_resolve_pc(s, pc, &a);
		pc += len > 0 ? (uint64_t)len : 1;
	}
}

int main(void)
{
	char self[4096], dir[] = "/tmp/dtprof-host-XXXXXX", sub[4200];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct sigaction before, after;
	struct dt_session *s;
	struct stat st;

	self[n > 0 ? n : 0] = '\0';
	if (!mkdtemp(dir))
		return skip_all("cannot make a directory in /tmp"), 0;
	snprintf(sub, sizeof(sub), "%s/cache", dir);
	setenv("DTPROF_DEBUG", "1", 1);
	setenv("DTPROF_NO_TRACK", "1", 1);
	setenv("DTPROF_CACHE_DIR", sub, 1);
	setenv("XDG_CACHE_HOME", dir, 1);
	setenv("HOME", dir, 1);
	setenv("DTPROF_KEEP_FUNCTIONS", "1", 1);
	sigaction(SIGABRT, NULL, &before);
	char *heap = sbrk(0);

	struct dt_session_opts o = { .sz = sizeof(o), .log = count_log };
	if (!ok(!dt_session_open(self, &o, &s), "open this test"))
		return done_testing();
	work(s);
	dt_session_close(s);
	is_int(logged, 0, "DTPROF_DEBUG set, no DT_SESSION_TRACE: nothing traced");
	sigaction(SIGABRT, NULL, &after);
	ok(after.sa_handler == before.sa_handler && after.sa_flags == before.sa_flags,
	   "SIGABRT's disposition as it was");
	ok(stat(sub, &st) && stat(dir, &st) == 0,
	   "no cache directory made from DTPROF_CACHE_DIR");
	ok((char *)sbrk(0) - heap < 64 << 20, "the heap not grown ahead");

	o.flags = DT_SESSION_TRACE;
	if (!ok(!dt_session_open(self, &o, &s), "open it again, tracing"))
		return done_testing();
	work(s);
	dt_session_close(s);
	ok(logged > 0, "DT_SESSION_TRACE: %d lines traced", logged);
	rmdir(dir);
	return done_testing();
}
