// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * LD_PRELOAD into a host (perf): counts the calls that would change the
 * process behind the host's back (mallopt, sbrk, setenv, putenv,
 * unsetenv) and, at exit, writes to $HOSTWATCH every signal's handler,
 * the blocked set and those counts, so that two runs of the host, with a
 * drop-all dlfilter and with the plugin, compare line for line.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000	/* the kernel's, set by glibc */
#endif

static atomic_int n_mallopt, n_sbrk, n_setenv;

#define NEXT(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

int mallopt(int param, int value)
{
	n_mallopt++;
	return NEXT(mallopt)(param, value);
}

void *sbrk(intptr_t inc)
{
	n_sbrk++;
	return NEXT(sbrk)(inc);
}

int setenv(const char *name, const char *value, int overwrite)
{
	n_setenv++;
	return NEXT(setenv)(name, value, overwrite);
}

int putenv(char *s)
{
	n_setenv++;
	return NEXT(putenv)(s);
}

int unsetenv(const char *name)
{
	n_setenv++;
	return NEXT(unsetenv)(name);
}

__attribute__((destructor)) static void report(void)
{
	const char *path = getenv("HOSTWATCH");
	FILE *f = path ? fopen(path, "w") : NULL;
	sigset_t blocked;

	if (!f)
		return;
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction sa;
		if (sig == 32 || sig == 33)	/* glibc's own, for threads */
			continue;
		if (sigaction(sig, NULL, &sa))
			continue;
		fprintf(f, "signal %d %s flags %#x\n", sig,
			sa.sa_handler == SIG_DFL ? "default" :
			sa.sa_handler == SIG_IGN ? "ignored" : "caught",
			(unsigned)sa.sa_flags & ~SA_RESTORER);
	}
	sigprocmask(SIG_BLOCK, NULL, &blocked);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != 32 && sig != 33 && sigismember(&blocked, sig))
			fprintf(f, "blocked %d\n", sig);
	fprintf(f, "mallopt %d\nsbrk %d\nsetenv %d\n", n_mallopt, n_sbrk, n_setenv);
	fclose(f);
}
