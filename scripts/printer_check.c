/* printer-check: proves the fast float printers equal to the searches that define the
 * text (src/core/num.c): the f32 printer on every one of the 2^32 bit patterns, the f64
 * printer on N random doubles (a third random bit patterns, a third short decimals and
 * their neighbours, a third widened floats: exact ties and exact integers).
 *   printer-check [-t THREADS] [-s STEP] [-r LO:HI] [-d N]   STEP > 1: every STEP-th
 *   f32 pattern only; -s 0: no f32; -r: the f32 patterns LO..HI-1 only (so that the
 *   whole check can be run in slices, e.g. -r 0x00000000:0x10000000); N f64 values
 *   (default 0)
 * Prints the mismatches (at most 20 of each), how many values the fast printers left to
 * the searches, and the run times; exits 1 on any mismatch. The unit test test_num runs
 * a sampled version of the same comparisons. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "animfs/bytes.h"
#include "animfs/num.h"

struct part {
	uint64_t lo, hi, step;
	uint64_t checked, deferred, bad;
	int f64;
};

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t printed;

static uint64_t mix(uint64_t x) /* splitmix64: value i of a fixed random sequence */
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

static double f64_case(uint64_t i)
{
	uint64_t r = mix(i), r2 = mix(i ^ 0x5555555555555555ull);
	switch (i % 3) {
	case 0: /* any bit pattern */
		return af_f64_from_bits(r);
	case 1: { /* a decimal of 1..17 digits, and its neighbours */
		char t[48];
		uint64_t p10 = 1;
		for (int d = 1 + (int)(r2 % 17); d > 0; d--)
			p10 *= 10;
		snprintf(t, sizeof(t), "%llue%d", (unsigned long long)(r % p10 ? r % p10 : 1),
			 (int)(r2 >> 8 & 0x3FF) % 630 - 320);
		double v = strtod(t, NULL);
		int step = (int)(r2 >> 40 & 3);
		return step == 1 ? nextafter(v, 0) : step == 2 ? nextafter(v, INFINITY) : v;
	}
	default: /* a float widened: few mantissa bits, exact integers and halves */
		return (double)af_f32_from_bits((uint32_t)r);
	}
}

/* One value, by its bits: the fast printer's text (or, when it defers, the full
 * printer's) against the search's. */
static void check(struct part *p, uint64_t bits, int f64)
{
	char a[AF_NUM_MAX], b[AF_NUM_MAX];
	double v = af_f64_from_bits(bits);
	float f = af_f32_from_bits((uint32_t)bits);
	size_t na = f64 ? af_fmt_f64_fast(a, v) : af_fmt_f32_fast(a, f);
	if (!na) {
		p->deferred++;
		na = f64 ? af_fmt_f64(a, v) : af_fmt_f32_uncached(a, f);
	}
	size_t nb = f64 ? af_fmt_f64_search(b, v) : af_fmt_f32_search(b, f);
	p->checked++;
	if (na == nb && !memcmp(a, b, na))
		return;
	p->bad++;
	pthread_mutex_lock(&print_lock);
	if (printed++ < 20)
		printf("MISMATCH %s 0x%0*llx: fast '%s' search '%s'\n", f64 ? "f64" : "f32",
		       f64 ? 16 : 8, (unsigned long long)bits, a, b);
	pthread_mutex_unlock(&print_lock);
}

static void *run(void *arg)
{
	struct part *p = arg;
	for (uint64_t i = p->lo; i < p->hi; i += p->step) {
		check(p, p->f64 ? af_f64_bits(f64_case(i)) : i, p->f64);
	}
	return NULL;
}

/* values first..total-1 (f32 patterns by step, or f64 case numbers) split over the
 * threads */
static int phase(int threads, int f64, uint64_t first, uint64_t total, uint64_t step)
{
	struct part parts[64];
	pthread_t tid[64];
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint64_t chunk = ((total - first) / step + threads - 1) / threads * step;
	for (int i = 0; i < threads; i++) {
		parts[i] = (struct part){ .lo = first + chunk * i, .hi = first + chunk * (i + 1),
					  .step = step, .f64 = f64 };
		if (parts[i].hi > total)
			parts[i].hi = total;
		pthread_create(&tid[i], NULL, run, &parts[i]);
	}
	uint64_t checked = 0, deferred = 0, bad = 0;
	for (int i = 0; i < threads; i++) {
		pthread_join(tid[i], NULL);
		checked += parts[i].checked;
		deferred += parts[i].deferred;
		bad += parts[i].bad;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double sec = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (f64)
		printf("f64: %llu values checked (%d threads) in %.1f s: %llu mismatches, %llu left "
		       "by the fast printer to the search\n", (unsigned long long)checked, threads,
		       sec, (unsigned long long)bad, (unsigned long long)deferred);
	else
		printf("f32: %llu patterns 0x%08llx..0x%08llx checked (step %llu, %d threads) in "
		       "%.1f s: %llu mismatches, %llu left by the fast printer to the search\n",
		       (unsigned long long)checked, (unsigned long long)first,
		       (unsigned long long)(total - 1), (unsigned long long)step, threads, sec,
		       (unsigned long long)bad, (unsigned long long)deferred);
	fflush(stdout);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	int threads = 2, opt, bad = 0;
	uint64_t step = 1, n64 = 0, lo = 0, hi = 1ull << 32;
	char *end;
	while ((opt = getopt(argc, argv, "t:s:r:d:")) != -1) {
		if (opt == 't')
			threads = atoi(optarg);
		else if (opt == 's')
			step = strtoull(optarg, NULL, 0);
		else if (opt == 'd')
			n64 = strtoull(optarg, NULL, 0);
		else if (opt == 'r') {
			lo = strtoull(optarg, &end, 0);
			if (*end != ':' || (hi = strtoull(end + 1, &end, 0), *end) || lo >= hi ||
			    hi > 1ull << 32)
				return fprintf(stderr, "printer-check: -r LO:HI, LO < HI <= 0x100000000\n"), 2;
		} else
			return fprintf(stderr, "usage: printer-check [-t THREADS] [-s STEP] [-r LO:HI] [-d N]\n"), 2;
	}
	if (threads < 1 || threads > 64)
		return fprintf(stderr, "printer-check: bad -t\n"), 2;
	if (step)
		bad |= phase(threads, 0, lo, hi, step);
	if (n64)
		bad |= phase(threads, 1, 0, n64, 1);
	return bad;
}
