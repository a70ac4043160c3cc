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

#define NUM_TEXT_MAX 128 /* longest number text the parsers accept */

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

size_t af_fmt_f32(char *out, float v)
{
	uint32_t bits = af_f32_bits(v);
	int neg = (int)(bits >> 31);
	if (isnan(v) || isinf(v))
		return special(out, neg, isnan(v), bits == 0x7FC00000u, bits, 8);
	if (v == 0)
		return (size_t)snprintf(out, AF_NUM_MAX, neg ? "-0.0" : "0.0");
	double av = fabs((double)v);
	char dig[32], best[32];
	int e = 0, be = 0, bk = 0;
	int lo = 1, hi = 9;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		int k = sci_digits(av, mid, dig, &e);
		char txt[48];
		size_t n = layout(txt, 0, dig, k, e);
		float back;
		if (af_parse_f32(txt, n, &back) == 0 && back == fabsf(v)) {
			memcpy(best, dig, (size_t)k);
			bk = k;
			be = e;
			hi = mid - 1;
		} else {
			lo = mid + 1;
		}
	}
	if (!bk)
		bk = sci_digits(av, 9, best, &be);
	return layout(out, neg, best, bk, be);
}

size_t af_fmt_f64(char *out, double v)
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

size_t af_fmt_f16(char *out, uint16_t h)
{
	int neg = h >> 15;
	if ((h & 0x7C00) == 0x7C00)
		return special(out, neg, (h & 0x3FF) != 0, h == 0x7E00, h, 4);
	if ((h & 0x7FFF) == 0)
		return (size_t)snprintf(out, AF_NUM_MAX, neg ? "-0.0" : "0.0");
	double av = fabs((double)af_f16_to_f32(h));
	char dig[32], best[32];
	int e = 0, be = 0, bk = 0;
	for (int p = 1; p <= 9 && !bk; p++) {
		int k = sci_digits(av, p, dig, &e);
		char txt[48];
		size_t n = layout(txt, 0, dig, k, e);
		uint16_t back;
		if (af_parse_f16(txt, n, &back) == 0 && back == (h & 0x7FFF)) {
			memcpy(best, dig, (size_t)k);
			bk = k;
			be = e;
		}
	}
	if (!bk)
		bk = sci_digits(av, 9, best, &be);
	return layout(out, neg, best, bk, be);
}

size_t af_fmt_fixed(char *out, double v, int decimals)
{
	if (decimals <= 0) {
		int n = snprintf(out, AF_NUM_MAX, "%.0f.0", v);
		return n > 0 ? (size_t)n : 0;
	}
	if (decimals > 17)
		decimals = 17;
	int n = snprintf(out, AF_NUM_MAX, "%.*f", decimals, v);
	return n > 0 ? (size_t)n : 0;
}

size_t af_fmt_u64(char *out, uint64_t v)
{
	char tmp[24];
	int k = 0;
	do {
		tmp[k++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (int i = 0; i < k; i++)
		out[i] = tmp[k - 1 - i];
	out[k] = 0;
	return (size_t)k;
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

/* nan:0x<hex> -> bits; 1 when matched. */
static int match_nanbits(const char *s, size_t n, uint64_t *bits)
{
	if (n < 7 || memcmp(s, "nan:0x", 6) != 0 || n > 6 + 16)
		return 0;
	uint64_t v = 0;
	for (size_t i = 6; i < n; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return 0;
		v = v << 4 | (uint64_t)d;
	}
	*bits = v;
	return 1;
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
	if (n - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		i += 2;
		if (n - i > 16)
			return -1;
		for (; i < n; i++) {
			char c = s[i];
			int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
				: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
			if (d < 0)
				return -1;
			v = v << 4 | (uint64_t)d;
		}
		*out = v;
		return 0;
	}
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
