/* The name index (include/animfs/nameidx.h) and the ~N rule it serves (spec 10.1,
 * shm_dedupe): first position, counts, the caller's word, ASCII case folding, an
 * allocation that fails; the ~N names of repeated names (as the old rule gave them
 * where a name repeats once; each name unique however often it repeats), and 200 000
 * names with many repeats deduplicated in one pass. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cmocka.h>

#include "animfs/diag.h"
#include "animfs/nameidx.h"
#include "../../src/container/shm.h"

static const char *at(const void *ctx, size_t i)
{
	return ((const char *const *)ctx)[i];
}

static void test_index(void **state)
{
	const char *names[] = {"a.b", "A.B", "c", "a.b", ""};
	struct af_nameidx x;
	(void)state;
	assert_int_equal(af_nameidx_init(&x, 5, 0, at, names), 0);
	assert_int_equal(af_nameidx_find(&x, "a.b"), -1);
	for (size_t i = 0; i < 5; i++)
		af_nameidx_add(&x, i);
	assert_int_equal(af_nameidx_find(&x, "a.b"), 0); /* the first of a name */
	assert_int_equal(af_nameidx_find(&x, "A.B"), 1);
	assert_int_equal(af_nameidx_find(&x, ""), 4);
	assert_int_equal(af_nameidx_find(&x, "d"), -1);
	assert_int_equal(af_nameidx_count(&x, "a.b"), 2);
	assert_null(af_nameidx_aux(&x, "d"));
	*af_nameidx_aux(&x, "c") = 7;
	assert_int_equal(*af_nameidx_aux(&x, "c"), 7);
	af_nameidx_free(&x);
	assert_int_equal(af_nameidx_find(&x, "c"), -1); /* freed: empty, safe */
	assert_int_equal(af_nameidx_init(&x, 5, 1, at, names), 0);
	for (size_t i = 0; i < 5; i++)
		af_nameidx_add(&x, i);
	assert_int_equal(af_nameidx_find(&x, "A.b"), 0);
	assert_int_equal(af_nameidx_count(&x, "a.B"), 3);
	af_nameidx_free(&x);
	af_alloc_fail_at(1);
	assert_int_equal(af_nameidx_init(&x, 5, 0, at, names), AF_ENOMEM);
	af_alloc_fail_at(0);
	assert_int_equal(af_nameidx_find(&x, "c"), -1);
	af_nameidx_free(&x);
}

static void dedupe_is(const char *const *in, const char *const *want, size_t n)
{
	const char **names = calloc(n, sizeof(*names));
	struct af_arena arena;
	af_arena_init(&arena);
	assert_non_null(names);
	for (size_t i = 0; i < n; i++)
		names[i] = shm_keep(&arena, in[i]);
	assert_int_equal(shm_dedupe(names, n, &arena), 0);
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], want[i]))
			fail_msg("name %zu: '%s', wanted '%s'", i, names[i], want[i]);
	free(names);
	af_arena_free(&arena);
}

static void test_dedupe(void **state)
{
	(void)state;
	/* one repeat each: what the rule always gave */
	const char *in1[] = {"MAP.MAPM", "map.mapm", "A", "B.X", "b.x", "NOEXT", "noext"};
	const char *want1[] = {"MAP.MAPM", "map~1.mapm", "A", "B.X", "b~1.x", "NOEXT", "noext~1"};
	dedupe_is(in1, want1, 7);
	/* repeats: the first N free (before: DUP~1.BIN twice); a genuine DUP~1.BIN after */
	const char *in2[] = {"DUP.BIN", "DUP.BIN", "dup.bin", "DUP~1.BIN", "DUP.BIN", "DUP~2.BIN"};
	const char *want2[] = {"DUP.BIN", "DUP~1.BIN", "dup~2.bin", "DUP~1~1.BIN", "DUP~3.BIN",
			       "DUP~2~1.BIN"};
	dedupe_is(in2, want2, 6);
	/* a genuine ~N name first: the suffix skips it */
	const char *in3[] = {"X~1.T", "X.T", "X.T", "X.T"};
	const char *want3[] = {"X~1.T", "X.T", "X~2.T", "X~3.T"};
	dedupe_is(in3, want3, 4);
}

static int by_name_folded(const void *a, const void *b)
{
	return strcasecmp(*(const char *const *)a, *(const char *const *)b);
}

/* 200 000 names, a tenth of them one name: unique afterwards, in one pass (a pairwise
 * rule would make 2*10^10 comparisons here, minutes under ASan). */
static void test_dedupe_many(void **state)
{
	size_t n = 200000;
	const char **names = calloc(n, sizeof(*names));
	struct af_arena arena;
	(void)state;
	af_arena_init(&arena);
	assert_non_null(names);
	for (size_t i = 0; i < n; i++) {
		char name[AF_MEMBER_NAME_MAX];
		snprintf(name, sizeof(name), i % 10 == 3 ? "SAME.BIN" : "N%07zu.BIN", i / 2);
		names[i] = shm_keep(&arena, name);
	}
	assert_int_equal(shm_dedupe(names, n, &arena), 0);
	for (size_t i = 0; i < n; i++)
		assert_true(names[i][0]);
	assert_string_equal(names[13], "SAME~1.BIN");
	assert_string_equal(names[n - 7], "SAME~19999.BIN");
	/* unique: sort and compare neighbours, case folded */
	qsort(names, n, sizeof(*names), by_name_folded);
	for (size_t i = 1; i < n; i++)
		if (!strcasecmp(names[i - 1], names[i]))
			fail_msg("'%s' shown twice", names[i]);
	free(names);
	af_arena_free(&arena);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index),
		cmocka_unit_test(test_dedupe),
		cmocka_unit_test(test_dedupe_many),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
