/* Number text policy: shortest round-trip printing for f16/f32/f64 and strict parsing. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "animfs/bytes.h"
#include "animfs/num.h"

static int has_dot_or_exp(const char *s)
{
	return strchr(s, '.') || strchr(s, 'e') || !strncmp(s, "nan:", 4);
}

static void check_f32_bits(uint32_t bits)
{
	char t[AF_NUM_MAX];
	float v = af_f32_from_bits(bits), back;
	size_t n = af_fmt_f32(t, v);
	assert_int_equal(n, strlen(t));
	assert_true(has_dot_or_exp(t));
	assert_int_equal(af_parse_f32(t, n, &back), 0);
	if (af_f32_bits(back) != bits)
		fail_msg("f32 0x%08x printed as '%s' reads back as 0x%08x", bits, t, af_f32_bits(back));
}

static void test_f32_edges(void **state)
{
	(void)state;
	static const uint32_t edges[] = { 0, 0x80000000u, 1, 0x80000001u, 0x007FFFFFu, 0x00800000u,
					  0x7F7FFFFFu, 0xFF7FFFFFu, 0x7F800000u, 0xFF800000u,
					  0x7FC00000u, 0xFFC00000u, 0x7FA00001u, 0x3F800000u,
					  0x3DCCCCCDu, 0x4B7FFFFFu, 0x4B800001u };
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		check_f32_bits(edges[i]);
	char t[AF_NUM_MAX];
	af_fmt_f32(t, 1.0f);
	assert_string_equal(t, "1.0");
	af_fmt_f32(t, 1e-5f);
	assert_string_equal(t, "1.0e-05");
	af_fmt_f32(t, -0.0f);
	assert_string_equal(t, "-0.0");
	af_fmt_f32(t, 0.1f);
	assert_string_equal(t, "0.1");
	af_fmt_f32(t, 2.5f);
	assert_string_equal(t, "2.5");
	af_fmt_f32(t, 1e20f);
	assert_string_equal(t, "1.0e+20");
	af_fmt_f32(t, af_f32_from_bits(0x7FC00000u));
	assert_string_equal(t, ".nan");
	af_fmt_f32(t, INFINITY);
	assert_string_equal(t, ".inf");
	af_fmt_f32(t, -INFINITY);
	assert_string_equal(t, "-.inf");
	af_fmt_f32(t, af_f32_from_bits(0xFFC00000u));
	assert_string_equal(t, "nan:0xFFC00000");
	af_fmt_f32(t, 0.47058824f);
	assert_string_equal(t, "0.47058824");
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t next32(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static void test_f32_random(void **state)
{
	(void)state;
	/* two million random bit patterns across every exponent */
	for (int i = 0; i < 2000000; i++)
		check_f32_bits(next32());
}

static void check_fast_is_search(uint32_t bits)
{
	char a[AF_NUM_MAX], b[AF_NUM_MAX];
	float v = af_f32_from_bits(bits);
	size_t na = af_fmt_f32_uncached(a, v), nb = af_fmt_f32_search(b, v);
	if (na != nb || memcmp(a, b, na + 1))
		fail_msg("f32 0x%08x: fast printer '%s', search '%s'", bits, a, b);
}

/* The sampled version of scripts/printer_check.c (which checks all 2^32 patterns):
 * the fast printer writes exactly the search's text. Every 1999th pattern (both
 * signs, every exponent), every power of two and its neighbours (the narrower lower
 * half-interval), the subnormals near zero, and a million random patterns. */
static void test_f32_fast_is_search(void **state)
{
	(void)state;
	for (uint64_t b = 7; b < 1ull << 32; b += 1999)
		check_fast_is_search((uint32_t)b);
	for (uint32_t e = 0; e < 256; e++)
		for (int d = -2; d <= 2; d++) {
			check_fast_is_search((e << 23) + (uint32_t)d);
			check_fast_is_search(0x80000000u | ((e << 23) + (uint32_t)d));
		}
	for (uint32_t b = 1; b < 100000; b++)
		check_fast_is_search(b);
	for (int i = 0; i < 1000000; i++)
		check_fast_is_search(next32());
}

/* The memo in af_fmt_f32 must give the computed text: repeats from a small pool
 * (hits), colliding slots (evictions) and fresh values, a million each way. */
static void test_f32_memo(void **state)
{
	(void)state;
	uint32_t pool[3000];
	for (int i = 0; i < 3000; i++)
		pool[i] = next32();
	for (int i = 0; i < 1000000; i++) {
		uint32_t bits = i % 3 ? pool[next32() % 3000] : next32();
		float v = af_f32_from_bits(bits);
		char a[AF_NUM_MAX], b[AF_NUM_MAX];
		size_t na = af_fmt_f32(a, v), nb = af_fmt_f32_uncached(b, v);
		assert_int_equal(na, nb);
		assert_memory_equal(a, b, na + 1);
	}
}

/* A row is ", " and af_fmt_f32_uncached's text for each value: random rows of 0..5
 * values, with the special values and the powers of two (the printer's other paths)
 * mixed in. */
static void test_f32_row(void **state)
{
	(void)state;
	static const uint32_t odd[] = { 0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u,
					0x7FC00000u, 0x7FA00001u, 0x00000001u, 0x3F800000u,
					0x00800000u, 0x7F7FFFFFu, 0x3F000000u, 0xBE800000u };
	for (int i = 0; i < 200000; i++) {
		float v[5];
		unsigned n = next32() % 6;
		for (unsigned j = 0; j < n; j++) {
			uint32_t r = next32();
			v[j] = af_f32_from_bits(r % 4 ? next32() : odd[r / 4 % (sizeof(odd) / sizeof(odd[0]))]);
		}
		char row[5 * (2 + AF_NUM_MAX)], want[5 * (2 + AF_NUM_MAX)], *w = want;
		for (unsigned j = 0; j < n; j++) {
			memcpy(w, ", ", 2);
			w += 2 + af_fmt_f32_uncached(w + 2, v[j]);
		}
		size_t len = af_fmt_f32_row(row, v, n);
		assert_int_equal(len, (size_t)(w - want));
		assert_memory_equal(row, want, len);
	}
}

static void test_f32_shortest(void **state)
{
	(void)state;
	/* shortest: no printed value has a shorter decimal that also round-trips */
	for (int i = 0; i < 20000; i++) {
		uint32_t bits = next32() & 0x7FFFFFFFu;
		float v = af_f32_from_bits(bits);
		if (isnan(v) || isinf(v) || v == 0)
			continue;
		char t[AF_NUM_MAX], s[64];
		af_fmt_f32(t, v);
		int sig = 0;
		for (const char *p = t; *p && *p != 'e'; p++)
			if (*p >= '1' && *p <= '9')
				sig = 1;
		(void)sig;
		/* a precision one less than what %.9g needs for the printed digits must fail */
		for (int p = 1; p < 9; p++) {
			snprintf(s, sizeof(s), "%.*e", p - 1, (double)v);
			if (strtof(s, NULL) == v) {
				/* count significant digits in t */
				int digits = 0, started = 0;
				for (const char *q = t; *q && *q != 'e'; q++) {
					if (*q >= '0' && *q <= '9') {
						if (*q != '0')
							started = 1;
						if (started)
							digits++;
					}
				}
				/* trailing zeros of positional output can pad; strip them */
				const char *e = strchr(t, 'e');
				const char *end = e ? e : t + strlen(t);
				while (end > t && (end[-1] == '0' || end[-1] == '.')) {
					if (end[-1] == '0' && started)
						digits--;
					end--;
				}
				if (digits > p)
					fail_msg("%s has %d digits but %d suffice (%s)", t, digits, p, s);
				break;
			}
		}
	}
}

static void test_f16_exhaustive(void **state)
{
	(void)state;
	for (uint32_t h = 0; h < 65536; h++) {
		char t[AF_NUM_MAX];
		uint16_t back = 0;
		size_t n = af_fmt_f16(t, (uint16_t)h);
		assert_true(has_dot_or_exp(t));
		assert_int_equal(af_parse_f16(t, n, &back), 0);
		int isnan_h = (h & 0x7C00) == 0x7C00 && (h & 0x3FF);
		if (isnan_h && h == 0x7E00) {
			assert_int_equal(back, 0x7E00);
			continue;
		}
		if (back != h)
			fail_msg("half 0x%04x printed as '%s' reads back as 0x%04x", h, t, back);
		if (!isnan_h && (h & 0x7C00) != 0x7C00) {
			/* the float value agrees */
			assert_true(af_f16_to_f32((uint16_t)h) == af_f16_to_f32(back));
		}
	}
	uint16_t h;
	assert_int_equal(af_parse_f16("65504.0", 7, &h), 0);
	assert_int_equal(h, 0x7BFF);
	assert_int_equal(af_parse_f16("70000.0", 7, &h), -1);
	assert_int_equal(af_parse_f16("5.96e-08", 8, &h), 0);
	assert_int_equal(h, 0x0001);
}

static void test_f64(void **state)
{
	(void)state;
	for (int i = 0; i < 200000; i++) {
		uint64_t bits = (uint64_t)next32() << 32 | next32();
		double v = af_f64_from_bits(bits), back;
		char t[AF_NUM_MAX];
		size_t n = af_fmt_f64(t, v);
		assert_int_equal(af_parse_f64(t, n, &back), 0);
		if (af_f64_bits(back) != bits)
			fail_msg("f64 0x%016llx printed as '%s'", (unsigned long long)bits, t);
	}
	char t[AF_NUM_MAX];
	af_fmt_f64(t, 0.1);
	assert_string_equal(t, "0.1");
}

static void check_f64_fast_is_search(double v)
{
	char a[AF_NUM_MAX], b[AF_NUM_MAX];
	size_t na = af_fmt_f64(a, v), nb = af_fmt_f64_search(b, v);
	if (na != nb || memcmp(a, b, na + 1))
		fail_msg("f64 0x%016llx: fast printer '%s', search '%s'",
			 (unsigned long long)af_f64_bits(v), a, b);
}

/* The f64 half of scripts/printer_check.c, sampled: random patterns, widened floats
 * (exact integers and ties), round decimals and their neighbours, powers of two. */
static void test_f64_fast_is_search(void **state)
{
	(void)state;
	for (int i = 0; i < 100000; i++) {
		double v = af_f64_from_bits((uint64_t)next32() << 32 | next32());
		check_f64_fast_is_search(v);
		check_f64_fast_is_search((double)af_f32_from_bits(next32()));
		double d = (double)(next32() % 100000) * pow(10, (int)(next32() % 60) - 30);
		check_f64_fast_is_search(d);
		check_f64_fast_is_search(nextafter(d, 0));
		check_f64_fast_is_search(nextafter(d, INFINITY));
	}
	for (int e = -1074; e <= 1023; e++)
		check_f64_fast_is_search(ldexp(1.0, e));
}

/* af_fmt_u64 and af_fmt_dec (fixed-size copies, two digits at a time) against printf */
static void test_fmt_dec(void **state)
{
	(void)state;
	char a[AF_NUM_MAX], b[64], f[32];
	for (int i = 0; i < 1000000; i++) {
		uint64_t r = (uint64_t)next32() << 32 | next32(), v = r >> (next32() % 64);
		size_t n = af_fmt_u64(a, v);
		snprintf(b, sizeof(b), "%llu", (unsigned long long)v);
		assert_string_equal(a, b);
		assert_int_equal(n, strlen(b));
		int d = (int)(next32() % 19);
		int64_t x = (int64_t)(v >> 1) * (next32() & 1 ? -1 : 1);
		uint64_t ax = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x, p = 1;
		for (int k = 0; k < d; k++)
			p *= 10;
		snprintf(f, sizeof(f), "%0*llu", d, (unsigned long long)(ax % p));
		snprintf(b, sizeof(b), "%s%llu.%s", x < 0 ? "-" : "", (unsigned long long)(ax / p),
			 d ? f : "0");
		n = af_fmt_dec(a, x, d);
		assert_string_equal(a, b);
		assert_int_equal(n, strlen(b));
	}
	/* three decimals, every value around the short path's range (|x| < 10000) */
	for (int64_t x = -10100; x <= 10100; x++) {
		uint64_t ax = x < 0 ? (uint64_t)-x : (uint64_t)x;
		snprintf(b, sizeof(b), "%s%llu.%03llu", x < 0 ? "-" : "", (unsigned long long)(ax / 1000),
			 (unsigned long long)(ax % 1000));
		size_t n = af_fmt_dec(a, x, 3);
		assert_string_equal(a, b);
		assert_int_equal(n, strlen(b));
	}
}

static void test_parse_strict(void **state)
{
	(void)state;
	float f;
	double d;
	assert_int_equal(af_parse_f32("1", 1, &f), 0);
	assert_true(f == 1.0f);
	assert_int_equal(af_parse_f32("-2.5e3", 6, &f), 0);
	assert_true(f == -2500.0f);
	assert_int_equal(af_parse_f32("abc", 3, &f), -1);
	assert_int_equal(af_parse_f32("inf", 3, &f), -1);
	assert_int_equal(af_parse_f32("0x10", 4, &f), -1);
	assert_int_equal(af_parse_f32("1e", 2, &f), -1);
	assert_int_equal(af_parse_f32("", 0, &f), -1);
	assert_int_equal(af_parse_f32("1.0 ", 4, &f), -1);
	assert_int_equal(af_parse_f64(".5", 2, &d), 0);
	assert_true(d == 0.5);
	assert_int_equal(af_parse_f64("-.inf", 5, &d), 0);
	assert_true(isinf(d) && d < 0);
	assert_int_equal(af_parse_f32("nan:0x7FA00001", 14, &f), 0);
	assert_int_equal(af_f32_bits(f), 0x7FA00001u);
	assert_int_equal(af_parse_f32("nan:0x3F800000", 14, &f), -1); /* not a NaN */
	uint64_t u;
	int64_t s;
	assert_int_equal(af_parse_u64("0x1DC686E0", 10, &u), 0);
	assert_true(u == 0x1DC686E0u);
	assert_int_equal(af_parse_u64("18446744073709551615", 20, &u), 0);
	assert_int_equal(af_parse_u64("18446744073709551616", 20, &u), -1);
	assert_int_equal(af_parse_u64("-1", 2, &u), -1);
	assert_int_equal(af_parse_i64("-9223372036854775808", 20, &s), 0);
	assert_true(s == INT64_MIN);
	assert_int_equal(af_parse_i64("9223372036854775808", 19, &s), -1);
}

static void test_fixed_hex(void **state)
{
	(void)state;
	char t[AF_NUM_MAX];
	af_fmt_fixed(t, 14.8015, 2);
	assert_string_equal(t, "14.80");
	af_fmt_fixed(t, 15.0, 0);
	assert_string_equal(t, "15.0");
	af_fmt_fixed(t, -0.001, 2);
	assert_string_equal(t, "0.00");
	af_fmt_fixed(t, -453.5727, 4);
	assert_string_equal(t, "-453.5727");
	af_fmt_fixed(t, 0.70605, 3);
	assert_string_equal(t, "0.706");
	af_fmt_fixed(t, 2e12, 2);
	assert_string_equal(t, "2000000000000.00");
	for (int i = 0; i < 100000; i++) {
		double v = ((double)(next32() % 2000001) - 1000000.0) / 997.0;
		for (int dd = 0; dd <= 9; dd++) {
			double back;
			size_t n = af_fmt_fixed(t, v, dd);
			assert_int_equal(af_parse_f64(t, n, &back), 0);
			if (fabs(back - v) > 0.5 * pow(10, -dd) * (1 + 1e-9))
				fail_msg("%.17g with %d decimals printed as %s", v, dd, t);
		}
	}
	af_fmt_hex(t, 0x0883CC85u, 8);
	assert_string_equal(t, "0x0883CC85");
	af_fmt_i64(t, -42);
	assert_string_equal(t, "-42");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_f32_edges),     cmocka_unit_test(test_f32_random),
		cmocka_unit_test(test_f32_memo),      cmocka_unit_test(test_f32_fast_is_search),
		cmocka_unit_test(test_f32_row),
		cmocka_unit_test(test_f32_shortest),  cmocka_unit_test(test_f16_exhaustive),
		cmocka_unit_test(test_f64),           cmocka_unit_test(test_f64_fast_is_search),
		cmocka_unit_test(test_parse_strict),  cmocka_unit_test(test_fmt_dec),
		cmocka_unit_test(test_fixed_hex),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
