/* f32-exhaustive: proves the fast float printer equal to the search that defines the
 * text (src/core/num.c), by comparing both on every one of the 2^32 f32 bit patterns.
 *   f32-exhaustive [-t THREADS] [-s STEP]   STEP > 1 checks every STEP-th pattern only
 * Prints the mismatches (at most 20), how many patterns the fast printer left to the
 * search, and the run time; exits 1 on any mismatch. The unit test test_num runs a
 * sampled version of the same comparison. */
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
};

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t printed;

static void *run(void *arg)
{
	struct part *p = arg;
	char a[AF_NUM_MAX], b[AF_NUM_MAX];
	for (uint64_t i = p->lo; i < p->hi; i += p->step) {
		float v = af_f32_from_bits((uint32_t)i);
		size_t na = af_fmt_f32_fast(a, v);
		if (!na) {
			p->deferred++;
			na = af_fmt_f32_uncached(a, v);
		}
		size_t nb = af_fmt_f32_search(b, v);
		p->checked++;
		if (na != nb || memcmp(a, b, na)) {
			p->bad++;
			pthread_mutex_lock(&print_lock);
			if (printed++ < 20)
				printf("MISMATCH 0x%08x: fast '%s' search '%s'\n", (unsigned)i, a, b);
			pthread_mutex_unlock(&print_lock);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = 2, opt;
	uint64_t step = 1;
	while ((opt = getopt(argc, argv, "t:s:")) != -1) {
		if (opt == 't')
			threads = atoi(optarg);
		else if (opt == 's')
			step = strtoull(optarg, NULL, 0);
		else
			return fprintf(stderr, "usage: f32-exhaustive [-t THREADS] [-s STEP]\n"), 2;
	}
	if (threads < 1 || threads > 64 || step < 1)
		return fprintf(stderr, "f32-exhaustive: bad -t or -s\n"), 2;
	struct part parts[64];
	pthread_t tid[64];
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint64_t total = 1ull << 32, chunk = (total / step + threads - 1) / threads * step;
	for (int i = 0; i < threads; i++) {
		parts[i] = (struct part){ .lo = chunk * i, .hi = chunk * (i + 1), .step = step };
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
	printf("f32: %llu patterns checked (step %llu, %d threads) in %.1f s: %llu mismatches, "
	       "%llu left by the fast printer to the search\n",
	       (unsigned long long)checked, (unsigned long long)step, threads, sec,
	       (unsigned long long)bad, (unsigned long long)deferred);
	return bad ? 1 : 0;
}
