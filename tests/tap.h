/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A tiny TAP producer for the C unit tests: plan, ok, is_int, is_str,
 * skip_all, todo, done_testing.  Failures print got/want and file:line.
 */
#ifndef DTPROF_TAP_H
#define DTPROF_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_count, tap_failed;
static const char *tap_todo;	/* non-NULL: following tests are TODO */

static void tap_result(int pass, const char *file, int line,
		       const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));
static void tap_result(int pass, const char *file, int line,
		       const char *fmt, va_list ap)
{
	tap_count++;
	printf("%sok %d - ", pass ? "" : "not ", tap_count);
	vprintf(fmt, ap);
	if (tap_todo)
		printf(" # TODO %s", tap_todo);
	putchar('\n');
	if (!pass) {
		if (!tap_todo)
			tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
}

static inline int tap_ok(int pass, const char *file, int line,
			 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static inline int tap_ok(int pass, const char *file, int line,
			 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_result(pass, file, line, fmt, ap);
	va_end(ap);
	return pass;
}

static inline int tap_is_int(int64_t got, int64_t want, const char *file,
			     int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static inline int tap_is_int(int64_t got, int64_t want, const char *file,
			     int line, const char *fmt, ...)
{
	va_list ap;
	int pass = got == want;

	va_start(ap, fmt);
	tap_result(pass, file, line, fmt, ap);
	va_end(ap);
	if (!pass)
		printf("#        got: %" PRId64 "\n#   expected: %" PRId64 "\n",
		       got, want);
	return pass;
}

static inline int tap_is_str(const char *got, const char *want,
			     const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static inline int tap_is_str(const char *got, const char *want,
			     const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	int pass = got && want ? !strcmp(got, want) : got == want;

	va_start(ap, fmt);
	tap_result(pass, file, line, fmt, ap);
	va_end(ap);
	if (!pass)
		printf("#        got: '%s'\n#   expected: '%s'\n",
		       got ? got : "(null)", want ? want : "(null)");
	return pass;
}

#define plan(n) printf("1..%d\n", (n))
#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, ...) \
	tap_is_int((int64_t)(got), (int64_t)(want), __FILE__, __LINE__, __VA_ARGS__)
#define is_str(got, want, ...) \
	tap_is_str((got), (want), __FILE__, __LINE__, __VA_ARGS__)
#define todo_start(why) (tap_todo = (why))
#define todo_end() (tap_todo = NULL)

static inline void skip_all(const char *why)
{
	printf("1..0 # SKIP %s\n", why);
	exit(0);
}

static inline int done_testing(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif
