/* Build-time generator of the power-of-ten tables behind the fast float printer in
 * src/core/num.c (run by CMake; writes a C header to stdout). Everything is computed
 * with exact big-integer arithmetic, so the tables do not depend on the host's floats.
 *   g[k]  a multiplier just above 10^-k: g = floor(10^-k 2^-e[k]) + 1, 64 bits for f32,
 *         128 bits for f64
 *   kreg[q], kirr[q]  floor(log10(2^q)) and floor(log10(3/4 2^q)) for the binary
 *   exponents q (v = c 2^q); the f64 printer needs kreg only.
 *   f32[be]  for each biased f32 exponent be (0..254) of a regular value, what the
 *         printer's common case needs in one record: g and k = kreg[q] for its q; the
 *         shift sh = 64 - T that puts each scaled value in a product's high word, plus
 *         the 2 of the value's quarter units; g 2^(sh+1) (the scaled half width, as a
 *         128-bit number); and the implicit bit of the significand (0 when be = 0).
 * The double estimate in floor_log10 is only a starting point: every k is settled by
 * exact comparison. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIMBS 48 /* 1536 bits: 2^(1077 + 127) is the largest number used */
#define QMIN (-149) /* f32: v = c 2^q */
#define QMAX 104
#define DQMIN (-1074) /* f64 */
#define DQMAX 971

struct big {
	uint32_t d[LIMBS]; /* least significant first */
};

static void big_set(struct big *a, uint32_t v)
{
	memset(a, 0, sizeof(*a));
	a->d[0] = v;
}

static void big_mul(struct big *a, uint32_t m)
{
	uint64_t carry = 0;
	for (int i = 0; i < LIMBS; i++) {
		uint64_t t = (uint64_t)a->d[i] * m + carry;
		a->d[i] = (uint32_t)t;
		carry = t >> 32;
	}
	if (carry) {
		fprintf(stderr, "gen_pow10: overflow\n");
		exit(1);
	}
}

static void big_div(struct big *a, uint32_t m)
{
	uint64_t rem = 0;
	for (int i = LIMBS - 1; i >= 0; i--) {
		uint64_t t = rem << 32 | a->d[i];
		a->d[i] = (uint32_t)(t / m);
		rem = t % m;
	}
}

static int big_cmp(const struct big *a, const struct big *b)
{
	for (int i = LIMBS - 1; i >= 0; i--)
		if (a->d[i] != b->d[i])
			return a->d[i] < b->d[i] ? -1 : 1;
	return 0;
}

static int big_bits(const struct big *a)
{
	for (int i = LIMBS - 1; i >= 0; i--)
		if (a->d[i])
			for (int b = 31; b >= 0; b--)
				if (a->d[i] >> b & 1)
					return 32 * i + b + 1;
	return 0;
}

/* bits [lo, lo + 64) of a */
static uint64_t big_bits64(const struct big *a, int lo)
{
	uint64_t v = 0;
	for (int b = 63; b >= 0; b--) {
		int i = lo + b;
		v = v << 1 | (i >= 0 && i < 32 * LIMBS ? a->d[i / 32] >> (i % 32) & 1 : 0);
	}
	return v;
}

static void big_shl(struct big *a, int n)
{
	for (int i = 32 * LIMBS - 1; i >= 0; i--) {
		int from = i - n;
		uint32_t bit = from >= 0 ? a->d[from / 32] >> (from % 32) & 1 : 0;
		a->d[i / 32] = (a->d[i / 32] & ~(1u << (i % 32))) | bit << (i % 32);
	}
}

/* times * 10^n */
static void big_pow10(struct big *a, int n, uint32_t times)
{
	big_set(a, times);
	for (int i = 0; i < n; i++)
		big_mul(a, 10);
}

/* 10^k <= num / den * 2^q, compared as den 2^-q 10^k <= num 2^q 10^-k (whole numbers) */
static int fits(uint32_t num, uint32_t den, int q, int k)
{
	struct big l, r;
	big_pow10(&l, k > 0 ? k : 0, den);
	big_shl(&l, q < 0 ? -q : 0);
	big_pow10(&r, k < 0 ? -k : 0, num);
	big_shl(&r, q > 0 ? q : 0);
	return big_cmp(&l, &r) <= 0;
}

/* floor(log10(num / den * 2^q)): an estimate in double, then settled exactly */
static int floor_log10(uint32_t num, uint32_t den, int q)
{
	int k = (int)floor((q + log2((double)num / den)) * 0.30102999566398120);
	while (!fits(num, den, q, k))
		k--;
	while (fits(num, den, q, k + 1))
		k++;
	return k;
}

/* w (64 or 128) bits g and e with 10^-k < g 2^e <= 10^-k + 2^e, 2^(w-1) <= g < 2^w;
 * g is returned as hi, lo 64-bit words (lo unused when w = 64) */
static void mult(int k, int w, uint64_t *hi, uint64_t *lo, int *e)
{
	struct big a;
	int at;
	if (k <= 0) {
		big_pow10(&a, -k, 1);
		at = big_bits(&a) - w;
		*e = at;
	} else {
		struct big d;
		big_pow10(&d, k, 1);
		int b = big_bits(&d);
		big_set(&a, 1);
		big_shl(&a, b + w - 1);
		for (int i = 0; i < k; i++)
			big_div(&a, 10);
		at = 0;
		*e = -(b + w - 1);
	}
	*hi = big_bits64(&a, at + w - 64);
	*lo = w == 128 ? big_bits64(&a, at) : 0;
	uint64_t *low = w == 128 ? lo : hi;
	if (!(*hi >> 63) || (*hi == UINT64_MAX && (w == 64 || *lo == UINT64_MAX))) {
		fprintf(stderr, "gen_pow10: k=%d out of range\n", k);
		exit(1);
	}
	if (++*low == 0) /* + 1: strictly above 10^-k */
		++*hi;
}

static void print_k(const char *name, const int *k, int n)
{
	printf("static const int16_t %s[%d] = {", name, n);
	for (int i = 0; i < n; i++)
		printf("%s%d,", i % 16 ? " " : "\n\t", k[i]);
	printf("\n};\n");
}

/* the fraction of the scaled values is kept in T = -(q + e) bits (num.c): T must lie
 * in tlo..thi for every q */
static int check_T(const int *kq, int qmin, int qmax, int kmin, const int *e, int tlo, int thi)
{
	for (int q = qmin; q <= qmax; q++) {
		int T = -(q + e[kq[q - qmin] - kmin]);
		if (T < tlo || T > thi) {
			fprintf(stderr, "gen_pow10: q=%d: T=%d outside %d..%d\n", q, T, tlo, thi);
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static int kreg[QMAX - QMIN + 1], kirr[QMAX - QMIN + 1], kd[DQMAX - DQMIN + 1];
	static int e[1024], ed[1024];
	static uint64_t g[1024], gh[1024], gl[1024];
	int kmin = 0, kmax = 0, dmin = 0, dmax = 0;
	for (int q = QMIN; q <= QMAX; q++) {
		int a = kreg[q - QMIN] = floor_log10(1, 1, q), b = kirr[q - QMIN] = floor_log10(3, 4, q);
		kmin = a < kmin ? a : b < kmin ? b : kmin;
		kmax = a > kmax ? a : b > kmax ? b : kmax;
	}
	for (int q = DQMIN; q <= DQMAX; q++) {
		int a = kd[q - DQMIN] = floor_log10(1, 1, q);
		dmin = a < dmin ? a : dmin;
		dmax = a > dmax ? a : dmax;
	}
	for (int k = kmin; k <= kmax; k++) {
		uint64_t unused;
		mult(k, 64, &g[k - kmin], &unused, &e[k - kmin]);
	}
	for (int k = dmin; k <= dmax; k++)
		mult(k, 128, &gh[k - dmin], &gl[k - dmin], &ed[k - dmin]);
	if (check_T(kreg, QMIN, QMAX, kmin, e, 56, 64) || check_T(kirr, QMIN, QMAX, kmin, e, 56, 64) ||
	    check_T(kd, DQMIN, DQMAX, dmin, ed, 124, 128))
		return 1;
	/* OUT.tmp renamed to OUT at the end: a failed run leaves no OUT for make to trust */
	char tmp[4096];
	if (argc != 2 || snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]) >= (int)sizeof(tmp) ||
	    !freopen(tmp, "w", stdout)) {
		fprintf(stderr, "usage: gen_pow10 OUT.h\n");
		return 2;
	}
	printf("/* Generated by scripts/gen_pow10.c at build time: do not edit. */\n");
	printf("/* f32: 64-bit multipliers */\n");
	printf("#define P10_QMIN (%d)\n#define P10_QMAX %d\n", QMIN, QMAX);
	printf("#define P10_KMIN (%d)\n#define P10_KMAX %d\n", kmin, kmax);
	printf("static const uint64_t p10_g[%d] = {\n", kmax - kmin + 1);
	for (int k = kmin; k <= kmax; k++)
		printf("\t0x%016llxull, /* 10^%d */\n", (unsigned long long)g[k - kmin], -k);
	printf("};\n");
	print_k("p10_e", e, kmax - kmin + 1);
	print_k("p10_kreg", kreg, QMAX - QMIN + 1);
	print_k("p10_kirr", kirr, QMAX - QMIN + 1);
	printf("struct p10_scale {\n\tuint64_t g, hw_lo;\n\tuint32_t hidden;\n\tuint16_t hw_hi;\n"
	       "\tint8_t k;\n\tuint8_t sh2;\n};\n");
	printf("static const struct p10_scale p10_f32[255] = {\n");
	for (int be = 0; be < 255; be++) {
		int q = be ? be - 150 : -149, k = kreg[q - QMIN];
		int sh = 64 + q + e[k - kmin]; /* 64 - T: 0..8 (check_T) */
		uint64_t gk = g[k - kmin];
		if (k < -128 || k > 127) {
			fprintf(stderr, "gen_pow10: k=%d does not fit the record\n", k);
			return 1;
		}
		printf("\t{ 0x%016llxull, 0x%016llxull, 0x%06x, %u, %d, %d }, /* be %d */\n",
		       (unsigned long long)gk, (unsigned long long)(gk << (sh + 1)), be ? 1u << 23 : 0u,
		       (unsigned)(gk >> (63 - sh)), k, sh + 2, be);
	}
	printf("};\n");
	printf("/* f64: 128-bit multipliers (high, low word) */\n");
	printf("#define P10D_QMIN (%d)\n#define P10D_QMAX %d\n", DQMIN, DQMAX);
	printf("#define P10D_KMIN (%d)\n#define P10D_KMAX %d\n", dmin, dmax);
	printf("static const uint64_t p10d_g[%d][2] = {\n", dmax - dmin + 1);
	for (int k = dmin; k <= dmax; k++)
		printf("\t{ 0x%016llxull, 0x%016llxull }, /* 10^%d */\n", (unsigned long long)gh[k - dmin],
		       (unsigned long long)gl[k - dmin], -k);
	printf("};\n");
	print_k("p10d_e", ed, dmax - dmin + 1);
	print_k("p10d_kreg", kd, DQMAX - DQMIN + 1);
	return fclose(stdout) || rename(tmp, argv[1]) ? 1 : 0;
}
