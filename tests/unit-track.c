// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Unit tests of track.c's value lattice on integers: how n * m + c values
 * (an index, an index plus a constant, a multiple of an element size) are
 * made, added, multiplied, subtracted and met at joins.  The file is
 * included whole so its static helpers can be called; the rest of the
 * library comes from libdtprof.a as usual.
 */
#include "../lib/engine/track.c"

#include "tap.h"

static struct tval v(struct dt_session *s, uint32_t id)
{
	return value(s, id);
}

int main(void)
{
	struct dt_session s = { .path = NULL };
	uint32_t i = FRESH_INSN(3), j = FRESH_INSN(7);

	/* fresh values: INT(id, 1, 0), not interned */
	is_int(v(&s, i).kind, TV_INT, "a fresh id is an integer");
	is_int(v(&s, i).n, 1, "a fresh integer is a multiple of 1");
	is_int(v(&s, i).sym, i, "named by its own id");
	is_int(make_int(&s, i, 1), i, "INT(i, 1, 0) is the fresh id itself");
	is_int(make_int(&s, 0, 1), 0, "an unnamed multiple of 1 says nothing");
	is_int(make_int(&s, 0, 0), 0, "a multiple of 0 says nothing");
	is_int(make_int(&s, 0, MAX_MULT + 1), 0, "too large a multiple says nothing");

	/* i + 28, times 2: the constant follows (gcc -O0's folded offsets) */
	uint32_t a = add_const(&s, i, 28);
	is_int(v(&s, a).sym, i, "i + 28 keeps i's name");
	is_int(v(&s, a).n, 1, "i + 28: multiple 1");
	is_int(v(&s, a).c, 28, "i + 28: constant 28");
	uint32_t b = mul_value(&s, a, 2);
	is_int(v(&s, b).n, 2, "(i + 28) * 2: multiple 2");
	is_int(v(&s, b).c, 56, "(i + 28) * 2: constant 56");
	is_int(add_const(&s, add_const(&s, i, 5), -5), i, "i + 5 - 5 is i again");

	/* the same name adds up: i + 2i is 3i; different names keep the gcd */
	uint32_t two_i = mul_value(&s, i, 2);
	uint32_t three_i = add_values(&s, 0, two_i, i, 1, 0, false);
	is_int(v(&s, three_i).n, 3, "2i + i is 3i");
	is_int(v(&s, three_i).sym, i, "and still names i");
	uint32_t mixed = add_values(&s, 0, mul_value(&s, i, 4), mul_value(&s, j, 6), 1, 0, false);
	is_int(v(&s, mixed).n, 2, "4i + 6j: a multiple of 2");
	is_int(v(&s, mixed).sym, 0, "4i + 6j names no one index");
	uint32_t scaled = add_values(&s, 0, two_i, i, 8, 3, false);
	is_int(v(&s, scaled).n, 10, "2i + 8i + 3: 10i");
	is_int(v(&s, scaled).c, 3, "2i + 8i + 3: + 3");

	/* subtraction: 32i - i is 31i (an element of 248 bytes as 8 * 31) */
	uint32_t d = sub_values(&s, mul_value(&s, i, 32), i, 1);
	is_int(v(&s, d).n, 31, "32i - i is 31i");
	is_int(v(&s, mul_value(&s, d, 8)).n, 248, "times 8: 248i");
	uint32_t dj = sub_values(&s, mul_value(&s, i, 6), mul_value(&s, j, 4), 1);
	is_int(v(&s, dj).n, 2, "6i - 4j: a multiple of 2");

	/* products: a multiple of both multiples */
	uint32_t p = mul_values(&s, mul_value(&s, i, 296), j);
	is_int(v(&s, p).n, 296, "296i * j: a multiple of 296");
	uint32_t pc = mul_values(&s, add_const(&s, mul_value(&s, i, 4), 2), mul_value(&s, j, 3));
	is_int(v(&s, pc).n, 6, "(4i + 2) * 3j: a multiple of 2 * 3");

	/* joins: the meet keeps what every path agrees on */
	uint32_t m4 = make_int(&s, 0, 4), m6 = make_int(&s, 0, 6);
	is_int(v(&s, meet_values(&s, m4, m6)).n, 2, "meet of 4k and 6k: 2k");
	is_int(meet_values(&s, i, add_const(&s, i, 1)), 0,
	       "meet of i and i + 1 (a loop counter): unknown");
	uint32_t step8 = meet_values(&s, mul_value(&s, i, 8), add_const(&s, mul_value(&s, i, 8), 8));
	is_int(v(&s, step8).n, 8, "meet of 8i and 8i + 8 (a loop's p += 8): 8k");
	is_int(v(&s, step8).c, 0, "from the smaller constant");
	is_int(v(&s, meet_values(&s, add_const(&s, m4, 2), add_const(&s, m4, 6))).n, 4,
	       "meet of 4k + 2 and 4k + 6: 4k + 2");
	is_int(v(&s, meet_values(&s, add_const(&s, m4, 2), add_const(&s, m4, 6))).c, 2,
	       "(the constant kept)");

	/* interning: equal values are one id */
	is_int(add_const(&s, i, 28), a, "the same value interns to the same id");
	is_int(mul_value(&s, a, 2), b, "again");

	track_values_free(s.track_values);
	return done_testing();
}
