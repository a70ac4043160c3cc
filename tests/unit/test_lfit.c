/* animfs/lfit.h: the greedy line reduction of a glTF import keeps the keys the check key
 * by key keeps (ties on a quantised grid too), and reads each key a bounded number of
 * times however long a line runs (an edit of a million keys on one line was quadratic). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "animfs/lfit.h"

struct keys {
	size_t n, w;
	float *t, *v;
	double tol;
	unsigned long reads, most; /* most: fail past this many reads (0: no limit) */
};

static double k_dt(const void *ctx, size_t a, size_t i)
{
	const struct keys *k = ctx;
	return k->t[i] - k->t[a];
}

static double k_val(const void *ctx, size_t a, size_t i, size_t j)
{
	struct keys *k = (struct keys *)ctx;
	(void)a;
	if (++k->reads > k->most && k->most)
		fail_msg("more than %lu reads of %zu values: not linear", k->most, k->n * k->w);
	return k->v[i * k->w + j];
}

static double k_tol(const void *ctx, size_t i, size_t j)
{
	const struct keys *k = ctx;
	(void)i;
	(void)j;
	return k->tol;
}

/* The reduction as the importers did it before: every candidate checked key by key. */
static void reference(const struct keys *k, unsigned char *keep)
{
	size_t at = 0;
	keep[0] = keep[k->n - 1] = 1;
	while (at + 1 < k->n) {
		size_t c = at + 1;
		for (; c + 1 < k->n && !keep[c]; c++) {
			int ok = 1;
			for (size_t i = at + 1; ok && i < c + 1; i++) {
				double f = (k->t[i] - k->t[at]) / (double)(k->t[c + 1] - k->t[at]);
				for (size_t j = 0; ok && j < k->w; j++) {
					double va = k->v[at * k->w + j], vc = k->v[(c + 1) * k->w + j];
					ok = !(fabs(va + (vc - va) * f - k->v[i * k->w + j]) > k->tol);
				}
			}
			if (!ok)
				break;
		}
		keep[c] = 1;
		at = c;
	}
}

static uint32_t rnd(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

/* random curves of every kind the importers meet: noise, steps of a quantised grid (a key
 * exactly half a step off the line: a tie), ramps and flat runs, forced keys */
static void test_same_keys(void **state)
{
	(void)state;
	uint32_t s = 2026;
	for (int round = 0; round < 3000; round++) {
		struct keys k = { 2 + rnd(&s) % 200, 1 + rnd(&s) % 4, NULL, NULL, 0, 0, 0 };
		double step = (rnd(&s) % 3 == 0) ? 0.75 / 512 : (rnd(&s) % 2 ? 1000.0 / 32767 : 1.0);
		unsigned char *want = calloc(k.n, 1), *got = calloc(k.n, 1);
		k.t = calloc(k.n, sizeof(float));
		k.v = calloc(k.n * k.w, sizeof(float));
		assert_non_null(want);
		assert_non_null(got);
		assert_non_null(k.t);
		assert_non_null(k.v);
		k.tol = step / 2;
		int kind = (int)(rnd(&s) % 4);
		for (size_t i = 0; i < k.n; i++) {
			k.t[i] = kind == 3 ? (float)i : (float)i / 30.0f + (float)(rnd(&s) % 3) * 1e-4f;
			if (i && k.t[i] <= k.t[i - 1])
				k.t[i] = k.t[i - 1] + 1.0f / 64;
			for (size_t j = 0; j < k.w; j++) {
				double v = kind == 0 ? (double)(rnd(&s) % 1000) / 1000 * step * 3
					   : kind == 1 ? (double)(rnd(&s) % 3) * step / 2 /* ties */
					   : kind == 2 ? (double)i * step / 2 + (rnd(&s) % 8 == 0 ? step / 2 : 0)
						       : (double)(i / 17) * step;
				k.v[i * k.w + j] = (float)v;
			}
			if (rnd(&s) % 50 == 0)
				want[i] = got[i] = 1; /* a key the file had: kept */
		}
		reference(&k, want);
		af_lfit_reduce(&(struct af_lfit){ k.n, k.w, k_dt, k_val, k_tol, &k }, got);
		for (size_t i = 0; i < k.n; i++)
			if (want[i] != got[i])
				fail_msg("round %d (kind %d, %zu keys of %zu): key %zu is %s", round, kind, k.n, k.w, i,
					 want[i] ? "dropped" : "kept");
		free(want);
		free(got);
		free(k.t);
		free(k.v);
	}
}

/* one line over a million keys: two keys kept, each key read a few times */
static void test_linear(void **state)
{
	(void)state;
	struct keys k = { 1000000, 3, NULL, NULL, 0.5 * 1000.0 / 32767, 0, 16 * 3000000ul };
	unsigned char *keep = calloc(k.n, 1);
	size_t kept = 0;
	k.t = calloc(k.n, sizeof(float));
	k.v = calloc(k.n * k.w, sizeof(float));
	assert_non_null(keep);
	assert_non_null(k.t);
	assert_non_null(k.v);
	for (size_t i = 0; i < k.n; i++) {
		k.t[i] = (float)i / 30.0f;
		k.v[i * 3] = 5.0f;
	}
	af_lfit_reduce(&(struct af_lfit){ k.n, k.w, k_dt, k_val, k_tol, &k }, keep);
	for (size_t i = 0; i < k.n; i++)
		kept += keep[i];
	assert_int_equal(kept, 2);
	free(keep);
	free(k.t);
	free(k.v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_keys),
		cmocka_unit_test(test_linear),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
