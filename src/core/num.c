/* Number text policy: shortest round-trip float printing and strict parsing.
 * The printer finds the fewest significant digits whose text parses back to the
 * identical bits using the same parser the codecs use, so round trips are exact
 * by construction. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/bytes.h"
#include "animfs/num.h"
#include "num_pow10.h" /* generated at build time by scripts/gen_pow10.c */

#define NUM_TEXT_MAX 128 /* longest number text the parsers accept */

static const char two_digits[201] = "00010203040506070809101112131415161718192021222324"
				     "25262728293031323334353637383940414243444546474849"
				     "50515253545556575859606162636465666768697071727374"
				     "75767778798081828384858687888990919293949596979899";

/* v's digits, at least `min` of them (leading zeros), ending just before end;
 * returns where they start */
static char *digits_before(char *end, uint64_t v, int min)
{
	char *p = end;
	while (v >= 100) {
		p -= 2;
		memcpy(p, two_digits + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, two_digits + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	while (end - p < min)
		*--p = '0';
	return p;
}

/* Build the YAML text from significant digits dig[0..k) and exponent e
 * (value = d0.d1d2... x 10^e). */
static size_t layout(char *out, int neg, const char *dig, int k, int e)
{
	char *p = out;
	while (k > 1 && dig[k - 1] == '0')
		k--;
	if (neg)
		*p++ = '-';
	if (e >= -4 && e < 10) {
		if (e >= 0) {
			for (int i = 0; i <= e; i++)
				*p++ = i < k ? dig[i] : '0';
			*p++ = '.';
			if (k > e + 1)
				for (int i = e + 1; i < k; i++)
					*p++ = dig[i];
			else
				*p++ = '0';
		} else {
			*p++ = '0';
			*p++ = '.';
			for (int i = 0; i < -e - 1; i++)
				*p++ = '0';
			for (int i = 0; i < k; i++)
				*p++ = dig[i];
		}
	} else {
		*p++ = dig[0];
		*p++ = '.';
		if (k > 1)
			for (int i = 1; i < k; i++)
				*p++ = dig[i];
		else
			*p++ = '0';
		*p++ = 'e';
		*p++ = e < 0 ? '-' : '+';
		int ae = e < 0 ? -e : e;
		if (ae >= 100)
			*p++ = (char)('0' + ae / 100);
		*p++ = (char)('0' + ae / 10 % 10);
		*p++ = (char)('0' + ae % 10);
	}
	*p = 0;
	return (size_t)(p - out);
}

/* "%.*e" of |v| into significant digits and exponent. */
static int sci_digits(double av, int prec, char *dig, int *e)
{
	char tmp[64];
	int n = snprintf(tmp, sizeof(tmp), "%.*e", prec - 1, av);
	int k = 0;
	char *ep = strchr(tmp, 'e');
	if (n <= 0 || !ep)
		return 0;
	for (char *q = tmp; q < ep; q++)
		if (*q >= '0' && *q <= '9')
			dig[k++] = *q;
	*e = atoi(ep + 1);
	return k;
}

static size_t special(char *out, int neg, int isnan, int canonical, uint64_t bits, int hexdigits)
{
	if (isnan) {
		if (canonical)
			return (size_t)snprintf(out, AF_NUM_MAX, ".nan");
		return (size_t)snprintf(out, AF_NUM_MAX, "nan:0x%0*llX", hexdigits,
					(unsigned long long)bits);
	}
	return (size_t)snprintf(out, AF_NUM_MAX, neg ? "-.inf" : ".inf");
}

static const double p10[23] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
				1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
				1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };

/* x * 10^s in double: exact power for |s| <= 22, else two steps (callers verify). */
static double scale10(double x, int s)
{
	while (s > 22) {
		x *= 1e22;
		s -= 22;
	}
	while (s < -22) {
		x /= 1e22;
		s += 22;
	}
	return s >= 0 ? x * p10[s] : x / p10[-s];
}

/* D * 10^k as a correctly rounded double (Clinger's fast path): D and 10^|k| are
 * exact doubles, so the one multiply or divide rounds once. -1 outside that range. */
static int exact_dec_to_f64(uint64_t D, int k, double *out)
{
	if (D > (1ull << 53) || k < -22 || k > 22)
		return -1;
	*out = k >= 0 ? (double)D * p10[k] : (double)D / p10[-k];
	return 0;
}

/* D * 10^k as a correctly rounded float, on the fast path only: the cast of the
 * correctly rounded double is correct unless that double sits exactly on a float
 * midpoint (or is subnormal/huge). */
static int fast_dec_to_f32(uint64_t D, int k, float *out)
{
	double d;
	if (exact_dec_to_f64(D, k, &d))
		return -1;
	if (d != 0 && (d < 0x1p-126 || d >= 0x1p127))
		return -1;
	if ((af_f64_bits(d) & 0x1FFFFFFFu) == 0x10000000u)
		return -1;
	*out = (float)d;
	return 0;
}

static int ndigits(uint64_t D)
{
	int n = 1;
	while (D >= 10) {
		D /= 10;
		n++;
	}
	return n;
}

static int digits_of(uint64_t D, char *dig)
{
	int n = ndigits(D);
	for (int i = n - 1; i >= 0; i--) {
		dig[i] = (char)('0' + D % 10);
		D /= 10;
	}
	return n;
}

/* Does D * 10^k read back (through af_parse_f32's rules) as exactly target? */
static int f32_roundtrips(uint64_t D, int k, const void *target)
{
	float back;
	if (D == 0)
		return 0;
	if (fast_dec_to_f32(D, k, &back) == 0)
		return back == *(const float *)target;
	char dig[24], txt[48];
	int n = digits_of(D, dig);
	size_t len = layout(txt, 0, dig, n, n - 1 + k);
	return af_parse_f32(txt, len, &back) == 0 && back == *(const float *)target;
}

/* The same for a half float (the parser's rule: correctly rounded double, then RNE). */
static int f16_roundtrips(uint64_t D, int k, const void *target)
{
	uint16_t back;
	double d;
	if (D == 0)
		return 0;
	if (exact_dec_to_f64(D, k, &d) == 0)
		return af_f64_to_f16(d, &back) == 0 && back == *(const uint16_t *)target;
	char dig[24], txt[48];
	int n = digits_of(D, dig);
	size_t len = layout(txt, 0, dig, n, n - 1 + k);
	return af_parse_f16(txt, len, &back) == 0 && back == *(const uint16_t *)target;
}

/* Shortest digits for the positive value av: binary search on the number of
 * significant digits p (if p digits round-trip, so do p+1), trying the two
 * p-digit neighbours of av at each step, so inexact scaling cannot hide an answer. */
static size_t shortest(char *out, int neg, double av, int maxp,
		       int (*roundtrips)(uint64_t, int, const void *), const void *target)
{
	int e2;
	frexp(av, &e2);
	int e10 = (int)floor((e2 - 1) * 0.30102999566398120); /* floor(log10(av)), maybe -1 off */
	uint64_t bestD = 0;
	int bests = 0;
	int lo = 1, hi = maxp;
	while (lo <= hi) {
		int p = (lo + hi) / 2;
		int s = p - 1 - e10;
		double x = scale10(av, s);
		double fl = floor(x);
		int ok_lo = 0, ok_hi = 0;
		uint64_t dlo = 0, dhi = 0;
		if (fl < 0x1p53) {
			dlo = (uint64_t)fl;
			dhi = dlo + 1;
			ok_lo = roundtrips(dlo, -s, target);
			ok_hi = roundtrips(dhi, -s, target);
		}
		if (ok_lo || ok_hi) {
			bestD = ok_lo && (!ok_hi || x - fl <= (double)dhi - x) ? dlo : dhi;
			bests = s;
			hi = p - 1;
		} else {
			lo = p + 1;
		}
	}
	char dig[32];
	if (bestD) {
		int n = digits_of(bestD, dig);
		return layout(out, neg, dig, n, n - 1 - bests);
	}
	int e = 0, k = sci_digits(av, 17, dig, &e); /* not reached for finite input */
	return layout(out, neg, dig, k, e);
}

/* The reference f32 printer: the search above, which defines the text (the fast
 * printer below must agree with it on every bit pattern; scripts/printer_check.c). */
size_t af_fmt_f32_search(char *out, float v)
{
	uint32_t bits = af_f32_bits(v);
	int neg = (int)(bits >> 31);
	if (isnan(v) || isinf(v))
		return special(out, neg, isnan(v), bits == 0x7FC00000u, bits, 8);
	if (v == 0)
		return (size_t)snprintf(out, AF_NUM_MAX, neg ? "-0.0" : "0.0");
	float target = fabsf(v);
	return shortest(out, neg, (double)target, 9, f32_roundtrips, &target);
}

/* ---- the fast f32 printer (the Schubfach idea: R. Giulietti, "The Schubfach way to
 * render doubles", 2020). For v = c 2^q the texts that read back as v are the decimals
 * inside its rounding interval [l, r] (the ends belong to it when c is even: the
 * parser rounds ties to even). With k = floor(log10(width)) the interval holds at
 * most one multiple of 10^(k+1) and at least one of 10^k; the search's answer is that
 * multiple of 10^(k+1) when there is one, else the multiple of 10^k nearest v (the
 * lower on a tie). l, v and r are scaled by 10^-k with one 64x64-bit multiply by a
 * table value g that is above the exact power by less than one unit; a result whose
 * fraction is too small to tell the error from an exact integer is settled by exact
 * divisibility, and anything still undecided goes to the search (never seen in
 * practice: scripts/printer_check.c counts them). The tables: num_pow10.h. */

static const uint32_t pow5[14] = { 1,	    5,	      25,	125,	   625,	    3125,     15625,
				   78125,   390625,   1953125,	9765625,   48828125, 244140625,
				   1220703125 };

/* cp 2^q 10^-k: its floor, whether it is exact, and the fraction as computed (T bits,
 * above the exact one by at most cp) */
struct scaled {
	uint64_t fl, frac, one;
	int exact;
};

static int is_int_scaled(uint32_t cp, int q, int k)
{
	int tz = __builtin_ctz(cp);
	if (k >= 0 && (k > 13 || cp % pow5[k]))
		return 0;
	return tz + q - k >= 0; /* the power of two left after the fives */
}

static inline __attribute__((always_inline)) int scale_f32(uint32_t cp, int q, int k, struct scaled *s)
{
	uint64_t g = p10_g[k - P10_KMIN];
	int T = -(q + p10_e[k - P10_KMIN]); /* 56..64: the generator checks it */
	unsigned __int128 P = (unsigned __int128)g * cp; /* exact value + (0, cp] */
	s->one = T == 64 ? 0 : 1ull << T; /* 0: 2^64 */
	s->frac = (uint64_t)P & (s->one - 1);
	s->fl = (uint64_t)(P >> T);
	if (s->frac > cp) {
		s->exact = 0;
		return 0;
	}
	if (!is_int_scaled(cp, q, k))
		return -1;
	s->exact = 1;
	return 0;
}


/* The 8 decimal digits of v < 10^8, one per byte, the first in the lowest byte: two
 * 4-digit halves in 32-bit lanes, split into 2-digit and then 1-digit lanes by
 * multiplies (x * 10486 >> 20 is x / 100 below 10^4, x * 103 >> 10 is x / 10 below
 * 100), so no digit takes a division or a store of its own. */
static inline __attribute__((always_inline)) uint64_t digits8(uint32_t v)
{
	uint64_t x = (uint64_t)(v / 10000) | (uint64_t)(v % 10000) << 32;
	uint64_t q = (x * 10486) >> 20 & 0x0000007F0000007Full;
	x = q | (x - q * 100) << 16;
	q = (x * 103) >> 10 & 0x000F000F000F000Full;
	return q | (x - q * 10) << 8;
}

/* 8 bytes at p, the lowest byte of v first */
static void put8(char *p, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	memcpy(p, &v, 8);
}

#define ZEROS8 0x3030303030303030ull /* "00000000" */

/* D * 10^k as text, 0 < D < 10^9: layout()'s text. The digits stay in two registers
 * (a: the first 8 as ASCII, b: the 9th, '0' after the last) and are stored 8 bytes at
 * a time, shifted into place: no byte is read back from memory (at most 26 bytes are
 * stored into out, NUL included). The digit count and the trailing zeros are read off
 * the digit lanes (the lowest nonzero byte is the first digit, the highest the last
 * significant one), with no loop: a loop per trailing zero is a branch the processor
 * cannot predict. */
static inline __attribute__((always_inline)) size_t f32_digits(char *out, int neg, uint64_t D, int k)
{
	char *p = out;
	uint32_t d = (uint32_t)D;
	uint64_t a, b = ZEROS8;
	int nt; /* all digits */
	if (d >= 100000000) {
		uint64_t r = digits8(d % 100000000);
		a = (uint64_t)(d / 100000000) | r << 8;
		b += r >> 56;
		nt = 9;
	} else {
		uint64_t w = digits8(d); /* d > 0: some lane is not zero */
		int lz = __builtin_ctzll(w) >> 3;
		a = w >> (8 * lz); /* the leading zeros shifted out */
		nt = 8 - lz;
	}
	/* significant digits: the 9th when it is not 0, else up to a's last nonzero lane */
	int n = b != ZEROS8 ? 9 : ((63 - __builtin_clzll(a)) >> 3) + 1;
	a += ZEROS8;
	int e = nt - 1 + k;
	*p = '-';
	p += neg;
	if (e >= 0 && e < 10) {
		put8(p, a);
		if (n > e + 1) { /* n <= 9, so e <= 7 and at most 8 fraction digits */
			int s = 8 * (e + 1);
			p[e + 1] = '.';
			put8(p + e + 2, s == 64 ? b : a >> s | b << (64 - s));
			p += n + 1;
		} else {
			put8(p + 8, b);
			memcpy(p + e + 1, ".0", 2);
			p += e + 3;
		}
	} else if (e >= -4 && e < 0) {
		memcpy(p, "0.000000", 8);
		p += 1 - e;
		put8(p, a);
		put8(p + 8, b);
		p += n;
	} else {
		p[0] = (char)a;
		p[1] = '.';
		put8(p + 2, a >> 8 | b << 56);
		p += n > 1 ? n + 1 : 3; /* "d.0" when there is one digit (the byte after is '0') */
		*p++ = 'e';
		*p++ = e < 0 ? '-' : '+';
		int ae = e < 0 ? -e : e;
		memcpy(p, two_digits + 2 * ae, 2);
		p += 2;
	}
	*p = 0;
	return (size_t)(p - out);
}

/* The decimal (in units of 10^k) for the scaled interval l..r around x, whose ends
 * belong to it when `closed`: the multiple of 10 inside when there is one, else the
 * integer inside; 0 when both integers around x are inside (*s is the lower; the
 * caller picks by nearness), or when the scaled values say the impossible. */
static inline __attribute__((always_inline)) uint64_t pick(const struct scaled *l, const struct scaled *x, const struct scaled *r,
		     int closed, uint64_t *s)
{
	/* in units of 10^k / 4: the multiples 4n allowed are lmin..rmax */
	uint64_t lmin = closed ? l->fl + !l->exact : l->fl + 1;
	uint64_t rmax = closed || !r->exact ? r->fl : r->fl - 1;
	uint64_t u = x->fl >> 2, up = u / 10 * 10;
	int upin = up && 4 * up >= lmin, wpin = 4 * (up + 10) <= rmax;
	*s = u;
	if (upin != wpin)
		return upin ? up : up + 10;
	int uin = 4 * u >= lmin, win = 4 * (u + 1) <= rmax;
	if (uin != win)
		return uin ? u : u + 1;
	if (!uin || upin)
		*s = 0; /* cannot happen (width >= 1 and < 10 units) */
	return 0;
}

/* 0 when the search must answer */
static __attribute__((noinline)) size_t f32_fast_exact(char *out, uint32_t bits, float av)
{
	int neg = (int)(bits >> 31);
	uint32_t be = bits >> 23 & 0xFF, t = bits & 0x7FFFFF;
	uint32_t c = be ? t | 1u << 23 : t;
	int q = be ? (int)be - 150 : -149;
	int irregular = t == 0 && be > 1; /* the lower neighbour is half as far */
	int k = irregular ? p10_kirr[q - P10_QMIN] : p10_kreg[q - P10_QMIN];
	uint32_t cb = c << 2;
	struct scaled l, x, r;
	uint64_t s, D;
	if (scale_f32(cb - (irregular ? 1 : 2), q, k, &l) || scale_f32(cb, q, k, &x) ||
	    scale_f32(cb + 2, q, k, &r))
		return 0;
	if ((D = pick(&l, &x, &r, !(c & 1), &s)))
		return f32_digits(out, neg, D, k);
	if (!s)
		return 0;
	uint64_t mid = 4 * s + 2; /* both in: the nearer, the lower on a tie */
	uint64_t near = (x.one - 1) >> 8;
	if ((x.fl == mid && !x.exact && x.frac < near) ||
	    (x.fl + 1 == mid && x.frac > (x.one - 1) - near)) {
		/* within 2^-10 of the tie: decide it the way the search does, in double */
		double xd = scale10((double)av, -k), fl = floor(xd);
		if (fl != (double)s)
			return 0;
		return f32_digits(out, neg, xd - fl <= (fl + 1) - xd ? s : s + 1, k);
	}
	return f32_digits(out, neg, x.fl < mid || (x.fl == mid && x.exact) ? s : s + 1, k);
}

/* The same answer, the common case first. For a regular value (the neighbours equally
 * far: every value but the powers of two) one record per exponent (p10_f32) gives g,
 * k, the shift that puts each scaled value in a product's high word and its fraction
 * in the low word, and the scaled half width g 2^(sh+1): one product for x, and l and
 * r are x -/+ that, the same numbers as products of g with the ends (so their errors
 * stay below 2^35 of the low word: the significand shifted is below 2^34). In units
 * of 10^k the texts allowed are the integers dmin..dmax; the answer is the multiple of
 * 10 among them if there is one (at most one: the width is below 10 units), else the
 * integer nearest x, which is always inside (the half width is at least half a unit).
 * The nearest needs no test of x's own error: it moves the answer only near the
 * middle of two integers, and the tie test's margin (2^-10 units) is far wider. What
 * the rules of f32_fast_exact settle goes there: the powers of two, an end within the
 * error bound of an integer (whether it belongs to the interval depends on parity),
 * and x within 2^-10 units of the middle of two integers (the search decides those in
 * double). Equal to f32_fast_exact on all 2^32 patterns (scripts/printer_check.c
 * checks the pair against the search). 0: the search answers. */
static inline __attribute__((always_inline)) size_t f32_fast(char *out, uint32_t bits, float av)
{
	uint32_t be = bits >> 23 & 0xFF, t = bits & 0x7FFFFF;
	if (t == 0)
		return f32_fast_exact(out, bits, av);
	const struct p10_scale *sc = &p10_f32[be];
	uint64_t cx = (uint64_t)(t | sc->hidden) << sc->sh2; /* 4 c 2^sh */
	unsigned __int128 Px = (unsigned __int128)sc->g * cx; /* 4 x / 10^k */
	unsigned __int128 hw = (unsigned __int128)sc->hw_hi << 64 | sc->hw_lo;
	unsigned __int128 Pl = Px - hw, Pr = Px + hw;
	const uint64_t bound = 1ull << 35;
	if ((uint64_t)Pl <= bound || (uint64_t)Pr <= bound)
		return f32_fast_exact(out, bits, av);
	uint32_t dmin = (uint32_t)(((uint64_t)(Pl >> 64) + 4) >> 2);
	uint32_t dmax = (uint32_t)((uint64_t)(Pr >> 64) >> 2);
	uint32_t m = dmax / 10 * 10;
	if (m >= dmin)
		return f32_digits(out, (int)(bits >> 31), m, sc->k);
	/* x mod 4 units of 10^k / 4, in 2^-62: the middle is 2^63 */
	uint64_t xf = (uint64_t)(Px >> 64);
	uint64_t y = (xf & 3) << 62 | (uint64_t)Px >> 2;
	if (y - (0x8000000000000000ull - (1ull << 54)) < 1ull << 55)
		return f32_fast_exact(out, bits, av);
	return f32_digits(out, (int)(bits >> 31), (uint32_t)((xf + 2) >> 2), sc->k);
}

/* af_fmt_f32_fast, inline in the printers below (a call per value costs ~10%; a row of
 * values costs one call) */
static inline __attribute__((always_inline)) size_t f32_text(char *out, float v)
{
	uint32_t bits = af_f32_bits(v);
	if ((bits & 0x7FFFFFFF) - 1 < 0x7F7FFFFF) /* finite and not zero */
		return f32_fast(out, bits, fabsf(v));
	if (v == 0) { /* the search's text, without its snprintf */
		memcpy(out, "-0.0", 5);
		if (bits >> 31)
			return 4;
		memcpy(out, "0.0", 4);
		return 3;
	}
	return af_fmt_f32_search(out, v); /* NaN and the infinities */
}

size_t af_fmt_f32_fast(char *out, float v)
{
	return f32_text(out, v);
}

/* af_fmt_f32 without the memo below (the unit test compares the two). */
size_t af_fmt_f32_uncached(char *out, float v)
{
	size_t n = f32_text(out, v);
	return n ? n : af_fmt_f32_search(out, v);
}

size_t af_fmt_f32_row(char *out, const float *v, unsigned n)
{
	char *p = out;
	for (unsigned i = 0; i < n; i++) {
		memcpy(p, ", ", 2);
		p += 2;
		size_t m = f32_text(p, v[i]);
		p += m ? m : af_fmt_f32_search(p, v[i]);
	}
	return (size_t)(p - out);
}

/* Animation files repeat the same floats (every track of a clip shares its key
 * times): a small per-thread direct-mapped memo of finished texts, keyed by the bits,
 * so a repeat costs a copy (~5 ns, against ~30 ns for the fast printer). */
#define F32_MEMO 1024
struct f32_memo { /* 16 bytes: the memo stays small in the cache; longer texts pass by */
	uint32_t bits;
	uint8_t len; /* 0: empty */
	char txt[11];
};
static _Thread_local struct f32_memo f32_memo[F32_MEMO];

size_t af_fmt_f32(char *out, float v)
{
	uint32_t bits = af_f32_bits(v);
	struct f32_memo *e = &f32_memo[(bits * 0x9E3779B1u) >> 22];
	if (e->len && e->bits == bits) {
		memcpy(out, e->txt, sizeof(e->txt));
		return e->len;
	}
	size_t n = af_fmt_f32_uncached(out, v);
	if (n < sizeof(e->txt)) {
		memcpy(e->txt, out, n + 1);
		e->bits = bits;
		e->len = (uint8_t)n;
	}
	return n;
}

/* The reference f64 printer: for each number of significant digits, printf's correctly
 * rounded digits (ties to even); the fewest that read back win (a binary search). */
size_t af_fmt_f64_search(char *out, double v)
{
	uint64_t bits = af_f64_bits(v);
	int neg = (int)(bits >> 63);
	if (isnan(v) || isinf(v))
		return special(out, neg, isnan(v), bits == 0x7FF8000000000000ull, bits, 16);
	if (v == 0)
		return (size_t)snprintf(out, AF_NUM_MAX, neg ? "-0.0" : "0.0");
	double av = fabs(v);
	char dig[32], best[32];
	int e = 0, be = 0, bk = 0;
	int lo = 1, hi = 17;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		int k = sci_digits(av, mid, dig, &e);
		char txt[48];
		size_t n = layout(txt, 0, dig, k, e);
		double back;
		if (af_parse_f64(txt, n, &back) == 0 && back == av) {
			memcpy(best, dig, (size_t)k);
			bk = k;
			be = e;
			hi = mid - 1;
		} else {
			lo = mid + 1;
		}
	}
	if (!bk)
		bk = sci_digits(av, 17, best, &be);
	return layout(out, neg, best, bk, be);
}

/* ---- the fast f64 printer: the f32 printer's idea with 128-bit multipliers. Away
 * from powers of two the rounding interval is symmetric, so the search's answer is the
 * multiple of 10^(k+1) inside when there is one, else the multiple of 10^k nearest v,
 * the even one on a tie (printf's rounding). At a power of two the nearer lower
 * neighbour makes the search's answer depend on its path: those 2046 values, like the
 * undecided ones, go to the search. scripts/printer_check.c -d compares the two. */
static const uint64_t pow5_64[24] = {
	1ull,		   5ull,	       25ull,		   125ull,
	625ull,		   3125ull,	       15625ull,	   78125ull,
	390625ull,	   1953125ull,	       9765625ull,	   48828125ull,
	244140625ull,	   1220703125ull,      6103515625ull,	   30517578125ull,
	152587890625ull,   762939453125ull,    3814697265625ull,   19073486328125ull,
	95367431640625ull, 476837158203125ull, 2384185791015625ull, 11920928955078125ull,
};

/* cp 2^q 10^-k for cp < 2^56 (only fl and exact are set) */
static int scale_f64(uint64_t cp, int q, int k, struct scaled *s)
{
	const uint64_t *g = p10d_g[k - P10D_KMIN];
	int sh = -(q + p10d_e[k - P10D_KMIN]) - 64; /* 60..64: the generator checks it */
	unsigned __int128 lo = (unsigned __int128)cp * g[1], hi = (unsigned __int128)cp * g[0];
	unsigned __int128 mid = hi + (lo >> 64); /* the product is mid 2^64 + low word of lo */
	s->fl = (uint64_t)(mid >> sh);
	s->frac = s->one = 0;
	if ((mid & (((unsigned __int128)1 << sh) - 1)) || (uint64_t)lo > cp) {
		s->exact = 0;
		return 0;
	}
	if (k >= 0 && (k > 23 || cp % pow5_64[k]))
		return -1;
	if (__builtin_ctzll(cp) + q - k < 0) /* the power of two left after the fives */
		return -1;
	s->exact = 1;
	return 0;
}

static size_t f64_fast(char *out, uint64_t bits)
{
	int neg = (int)(bits >> 63);
	uint64_t be = bits >> 52 & 0x7FF, t = bits & ((1ull << 52) - 1);
	if (t == 0 && be > 1)
		return 0; /* a power of two */
	uint64_t c = be ? t | 1ull << 52 : t, cb = c << 2, s, D;
	int q = be ? (int)be - 1075 : -1074, k = p10d_kreg[q - P10D_QMIN];
	struct scaled l, x, r;
	if (scale_f64(cb - 2, q, k, &l) || scale_f64(cb, q, k, &x) || scale_f64(cb + 2, q, k, &r))
		return 0;
	if (!(D = pick(&l, &x, &r, !(c & 1), &s))) {
		if (!s)
			return 0;
		uint64_t mid = 4 * s + 2; /* both in: the nearer, the even one on a tie */
		D = x.fl < mid || (x.fl == mid && x.exact && !(s & 1)) ? s : s + 1;
	}
	char dig[24], *p = digits_before(dig + 24, D, 1);
	return layout(out, neg, p, (int)(dig + 24 - p), (int)(dig + 24 - p) - 1 + k);
}

size_t af_fmt_f64_fast(char *out, double v)
{
	if (isnan(v) || isinf(v) || v == 0)
		return af_fmt_f64_search(out, v);
	return f64_fast(out, af_f64_bits(v));
}

size_t af_fmt_f64(char *out, double v)
{
	size_t n = af_fmt_f64_fast(out, v);
	return n ? n : af_fmt_f64_search(out, v);
}

size_t af_fmt_f16(char *out, uint16_t h)
{
	int neg = h >> 15;
	if ((h & 0x7C00) == 0x7C00)
		return special(out, neg, (h & 0x3FF) != 0, h == 0x7E00, h, 4);
	if ((h & 0x7FFF) == 0)
		return (size_t)snprintf(out, AF_NUM_MAX, neg ? "-0.0" : "0.0");
	uint16_t target = h & 0x7FFF;
	return shortest(out, neg, (double)af_f16_to_f32(target), 6, f16_roundtrips, &target);
}

size_t af_fmt_fixed(char *out, double v, int decimals)
{
	if (decimals < 0)
		decimals = 0;
	if (decimals <= 9 && fabs(v) < 1e9) {
		/* one rounding of |v| * 10^d, then integer digits: no printf on the hot path */
		int64_t D = (int64_t)floor(fabs(v) * p10[decimals] + 0.5);
		return af_fmt_dec(out, v < 0 ? -D : D, decimals);
	}
	if (decimals > 17)
		decimals = 17;
	int n = decimals ? snprintf(out, AF_NUM_MAX, "%.*f", decimals, v)
			 : snprintf(out, AF_NUM_MAX, "%.0f.0", v);
	return n > 0 ? (size_t)n : 0;
}

/* How many decimal digits v has (1 for 0), without a division loop. */
static inline int dec_digits(uint64_t v)
{
	static const uint64_t p10u[20] = {
		1ull,	       1ull * 10,     1ull * 100,    1000ull,	  10000ull,
		100000ull,     1000000ull,    10000000ull,   100000000ull, 1000000000ull,
		10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
		100000000000000ull, 1000000000000000ull, 10000000000000000ull,
		100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
	};
	int n = (int)(((64 - __builtin_clzll(v | 1)) * 1233) >> 12); /* digits, or one less */
	n += n < 20 && v >= p10u[n];
	return n + !n; /* "0" */
}

size_t af_fmt_u64(char *out, uint64_t v)
{
	int n = dec_digits(v);
	digits_before(out + n, v, 1);
	out[n] = 0;
	return (size_t)n;
}

/* af_fmt_dec for all but its most common case (below): the frame this needs is not
 * paid by that case */
static __attribute__((noinline)) size_t fmt_dec_wide(char *out, int64_t r, uint64_t a, int decimals)
{
	char tmp[48], *o = out;
	if (a < 100000000 && decimals >= 0 && decimals < 8) {
		/* up to 8 digits: all in one register (digits8), stored 8 bytes at a time */
		int n = dec_digits(a);
		n = n > decimals ? n : decimals + 1;
		uint64_t c = (digits8((uint32_t)a) >> (8 * (8 - n))) + ZEROS8;
		int ip = n - decimals;
		*o = '-';
		o += r < 0;
		put8(o, c);
		if (!decimals) {
			memcpy(o + n, ".0", 3);
			return (size_t)(o + n + 2 - out);
		}
		o[ip] = '.';
		put8(o + ip + 1, c >> (8 * ip)); /* ip < n <= 8 */
		o[n + 1] = 0;
		return (size_t)(o + n + 1 - out);
	}
	memset(tmp + 24, '0', 24); /* what the fixed-size copies read past the digits */
	char *p = digits_before(tmp + 24, a, decimals + 1);
	size_t n = (size_t)(tmp + 24 - p), ip = n - (size_t)decimals;
	*o = '-';
	o += r < 0;
	if (n <= 16) { /* fixed-size copies (the callers' AF_NUM_MAX bytes hold them) */
		memcpy(o, p, 16);
		o[ip] = '.';
		memcpy(o + ip + 1, p + ip, 16);
		o += n + 1 + !decimals; /* "15.0" when there are no decimals */
		*o = 0;
		return (size_t)(o - out);
	}
	memcpy(o, p, ip);
	o += ip;
	*o++ = '.';
	memcpy(o, decimals ? p + ip : "0", decimals ? (size_t)decimals : 1);
	o += decimals ? decimals : 1;
	*o = 0;
	return (size_t)(o - out);
}

size_t af_fmt_dec(char *out, int64_t r, int decimals)
{
	uint64_t a = r < 0 ? (uint64_t)0 - (uint64_t)r : (uint64_t)r;
	if (decimals == 3 && a < 10000) { /* "-0.062", "1.000": a packed quaternion's usual text */
		char *o = out;
		uint32_t i = (uint32_t)a / 1000, f = (uint32_t)a - 1000 * i, h = f / 100;
		*o = '-';
		o += r < 0;
		o[0] = (char)('0' + i);
		o[1] = '.';
		o[2] = (char)('0' + h);
		memcpy(o + 3, two_digits + 2 * (f - 100 * h), 2);
		o[5] = 0;
		return (size_t)(o + 5 - out);
	}
	return fmt_dec_wide(out, r, a, decimals);
}

size_t af_fmt_i64(char *out, int64_t v)
{
	if (v < 0) {
		out[0] = '-';
		return 1 + af_fmt_u64(out + 1, (uint64_t)0 - (uint64_t)v);
	}
	return af_fmt_u64(out, (uint64_t)v);
}

size_t af_fmt_hex(char *out, uint64_t v, int digits)
{
	static const char hx[] = "0123456789ABCDEF";
	if (digits < 1)
		digits = 1;
	if (digits > 16)
		digits = 16;
	out[0] = '0';
	out[1] = 'x';
	for (int i = 0; i < digits; i++)
		out[2 + i] = hx[(v >> (4 * (digits - 1 - i))) & 15];
	out[2 + digits] = 0;
	return (size_t)digits + 2;
}

/* ---- parsing ---- */

static int match_special(const char *s, size_t n, double *out)
{
	static const char *const nans[] = { ".nan", ".NaN", ".NAN" };
	static const char *const infs[] = { ".inf", ".Inf", ".INF" };
	int sign = 1;
	for (int i = 0; i < 3; i++)
		if (n == 4 && !memcmp(s, nans[i], 4)) {
			*out = NAN;
			return 1;
		}
	if (n && (s[0] == '+' || s[0] == '-')) {
		sign = s[0] == '-' ? -1 : 1;
		s++;
		n--;
	}
	for (int i = 0; i < 3; i++)
		if (n == 4 && !memcmp(s, infs[i], 4)) {
			*out = sign * INFINITY;
			return 1;
		}
	return 0;
}

int af_hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
		: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* 1 to 16 hex digits (no prefix) -> *v; -1 otherwise. */
static int hex_u64(const char *s, size_t n, uint64_t *v)
{
	uint64_t acc = 0;
	if (n < 1 || n > 16)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int d = af_hex_digit(s[i]);
		if (d < 0)
			return -1;
		acc = acc << 4 | (uint64_t)d;
	}
	*v = acc;
	return 0;
}

/* nan:0x<hex> -> bits; 1 when matched. */
static int match_nanbits(const char *s, size_t n, uint64_t *bits)
{
	return n > 6 && memcmp(s, "nan:0x", 6) == 0 && hex_u64(s + 6, n - 6, bits) == 0;
}

/* Strict decimal syntax; copies into buf (NUL-terminated). */
static int decimal_text(const char *s, size_t n, char *buf)
{
	size_t i = 0, digits = 0;
	if (n == 0 || n >= NUM_TEXT_MAX)
		return -1;
	if (s[i] == '+' || s[i] == '-')
		i++;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++, digits++;
	if (i < n && s[i] == '.') {
		i++;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++, digits++;
	}
	if (!digits)
		return -1;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		size_t ed = 0;
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++, ed++;
		if (!ed)
			return -1;
	}
	if (i != n)
		return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	return 0;
}

/* Clinger's fast path on syntax-checked text: up to 19 significant digits and a
 * small power of ten convert with a single rounding. -1 = use the slow path. */
static int split_decimal(const char *s, size_t n, int *neg, uint64_t *D, int *k)
{
	size_t i = 0;
	int digits = 0, frac = 0, ex = 0, eneg = 0;
	uint64_t v = 0;
	*neg = 0;
	if (s[i] == '+' || s[i] == '-')
		*neg = s[i++] == '-';
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (v == 0 && s[i] == '0')
			continue;
		if (++digits > 19)
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (i < n && s[i] == '.')
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
			frac++;
			if (v == 0 && s[i] == '0')
				continue;
			if (++digits > 19)
				return -1;
			v = v * 10 + (uint64_t)(s[i] - '0');
		}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (s[i] == '+' || s[i] == '-')
			eneg = s[i++] == '-';
		for (; i < n; i++) {
			if (ex > 10000)
				return -1;
			ex = ex * 10 + (s[i] - '0');
		}
	}
	*D = v;
	*k = (eneg ? -ex : ex) - frac;
	return 0;
}

static int fast_parse_f32(const char *s, size_t n, float *out)
{
	int neg, k;
	uint64_t D;
	if (split_decimal(s, n, &neg, &D, &k))
		return -1;
	if (D == 0) {
		*out = neg ? -0.0f : 0.0f;
		return 0;
	}
	if (fast_dec_to_f32(D, k, out))
		return -1;
	if (neg)
		*out = -*out;
	return 0;
}

static int fast_parse_f64(const char *s, size_t n, double *out)
{
	int neg, k;
	uint64_t D;
	if (split_decimal(s, n, &neg, &D, &k))
		return -1;
	if (D == 0) {
		*out = neg ? -0.0 : 0.0;
		return 0;
	}
	double d;
	if (exact_dec_to_f64(D, k, &d))
		return -1;
	*out = neg ? -d : d;
	return 0;
}

int af_parse_f64(const char *s, size_t n, double *out)
{
	char buf[NUM_TEXT_MAX];
	uint64_t bits;
	if (match_special(s, n, out))
		return 0;
	if (match_nanbits(s, n, &bits)) {
		double v = af_f64_from_bits(bits);
		if (!isnan(v))
			return -1;
		*out = v;
		return 0;
	}
	if (decimal_text(s, n, buf))
		return -1;
	if (fast_parse_f64(buf, n, out) == 0)
		return 0;
	*out = strtod(buf, NULL);
	return 0;
}

int af_parse_f32(const char *s, size_t n, float *out)
{
	char buf[NUM_TEXT_MAX];
	uint64_t bits;
	double sp;
	if (match_special(s, n, &sp)) {
		*out = (float)sp;
		return 0;
	}
	if (match_nanbits(s, n, &bits)) {
		if (bits > 0xFFFFFFFFu || !isnan(af_f32_from_bits((uint32_t)bits)))
			return -1;
		*out = af_f32_from_bits((uint32_t)bits);
		return 0;
	}
	if (decimal_text(s, n, buf))
		return -1;
	if (fast_parse_f32(buf, n, out) == 0)
		return 0;
	*out = strtof(buf, NULL);
	return 0;
}

int af_parse_f16(const char *s, size_t n, uint16_t *out)
{
	uint64_t bits;
	double v;
	if (match_nanbits(s, n, &bits)) {
		if (bits > 0xFFFF || (bits & 0x7C00) != 0x7C00 || !(bits & 0x3FF))
			return -1;
		*out = (uint16_t)bits;
		return 0;
	}
	if (af_parse_f64(s, n, &v))
		return -1;
	return af_f64_to_f16(v, out);
}

int af_parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;
	if (n == 0)
		return -1;
	if (s[0] == '+')
		i++;
	if (n - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X'))
		return hex_u64(s + i + 2, n - i - 2, out);
	if (i == n)
		return -1;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int af_parse_i64(const char *s, size_t n, int64_t *out)
{
	uint64_t u;
	if (n && s[0] == '-') {
		if (af_parse_u64(s + 1, n - 1, &u) || (n > 1 && s[1] == '+'))
			return -1;
		if (u > (uint64_t)INT64_MAX + 1)
			return -1;
		*out = u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u;
		return 0;
	}
	if (af_parse_u64(s, n, &u) || u > (uint64_t)INT64_MAX)
		return -1;
	*out = (int64_t)u;
	return 0;
}

float af_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h >> 15) << 31;
	uint32_t e = (h >> 10) & 31, m = h & 0x3FF;
	if (e == 31)
		return af_f32_from_bits(sign | 0x7F800000u | m << 13);
	if (e == 0) {
		float f = (float)m * (1.0f / 16777216.0f); /* m * 2^-24, exact */
		return sign ? -f : f;
	}
	return af_f32_from_bits(sign | (e + 112) << 23 | m << 13);
}

int af_f64_to_f16(double v, uint16_t *out)
{
	uint16_t sign = signbit(v) ? 0x8000 : 0;
	double a = fabs(v);
	if (isnan(v)) {
		*out = 0x7E00;
		return 0;
	}
	if (isinf(v)) {
		*out = sign | 0x7C00;
		return 0;
	}
	if (a < 0x1p-14) {
		double q = nearbyint(a * 0x1p24); /* 0..1024, RNE */
		*out = sign | (uint16_t)q;
		return 0;
	}
	int ex;
	frexp(a, &ex); /* a = m * 2^ex, m in [0.5, 1) */
	int e = ex - 1;
	double mant = nearbyint(ldexp(a, 10 - e));
	if (mant >= 2048) {
		mant = 1024;
		e++;
	}
	if (e + 15 >= 31)
		return -1;
	*out = sign | (uint16_t)((e + 15) << 10) | (uint16_t)((int)mant - 1024);
	return 0;
}
