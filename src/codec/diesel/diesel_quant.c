/* Diesel animation quantisation: pos_u16 centimetres and the 32-bit packed
 * "smallest three" quaternion (spec 5.2, 5.5, 6.5). The printers check their own
 * text with the encoders below, so unedited values re-encode exactly by construction.
 * Built with -ffp-contract=off (CMakeLists): printer and encoder must compute alike. */
#include <math.h>
#include <string.h>

#include "animfs/num.h"
#include "diesel.h"

static const double p10[] = { 1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };

double diesel_u16_to_cm(uint16_t code)
{
	return ((double)code - 32767.0) * 1000.0 / 32767.0;
}

int diesel_cm_to_u16(double cm, uint16_t *code)
{
	if (!(cm > -1001.0 && cm < 1001.0)) /* also false for NaN */
		return -1;
	double v = floor(cm * 32767.0 / 1000.0 + 0.5) + 32767.0;
	if (v < 0 || v > 65535)
		return -1;
	*code = (uint16_t)v;
	return 0;
}

static double comp10(unsigned v)
{
	return ((double)v - 512.0) * 0.75 / 512.0; /* exact in binary */
}

void diesel_unpack_quat(uint32_t code, double q[4])
{
	unsigned k = code & 3;
	double a = comp10((code >> 2) & 1023), b = comp10((code >> 12) & 1023),
	       c = comp10((code >> 22) & 1023);
	double r = 1.0 - a * a - b * b - c * c;
	q[(k + 1) & 3] = a;
	q[(k + 2) & 3] = b;
	q[(k + 3) & 3] = c;
	q[k] = sqrt(r > 0 ? r : 0);
}

static unsigned quant10(double c)
{
	double v = floor(c * 2048.0 / 3.0 + 0.5) + 512.0;
	return v < 0 ? 0 : v > 1023 ? 1023 : (unsigned)v;
}

static uint32_t pack_with(const double q[4], int k)
{
	double s = q[k] < 0 ? -1.0 : 1.0;
	uint32_t code = (uint32_t)k;
	for (int j = 1; j <= 3; j++)
		code |= (uint32_t)quant10(s * q[(k + j) & 3]) << (2 + 10 * (j - 1));
	return code;
}

/* The windowed minimum-error k-rule of spec 6.5: candidates are the components
 * within 0.02 of the largest magnitude; the one whose packed form decodes closest
 * to the typed values wins; ties go to the larger magnitude, then the lower k.
 * A lone candidate wins without the comparison (its error is finite when the
 * values are); diesel_pack_quat_all always compares (test_diesel checks they agree). */
uint32_t diesel_pack_quat(const double q[4])
{
	double m = 0;
	int ncand = 0, only = 0;
	for (int i = 0; i < 4; i++)
		if (fabs(q[i]) > m)
			m = fabs(q[i]);
	for (int k = 0; k < 4; k++)
		if (fabs(q[k]) >= m - 0.02)
			ncand++, only = k;
	if (ncand == 1 && m < INFINITY)
		return pack_with(q, only);
	return diesel_pack_quat_all(q);
}

uint32_t diesel_pack_quat_all(const double q[4])
{
	double m = 0, best_err = INFINITY;
	uint32_t best = 0;
	int best_k = -1;
	for (int i = 0; i < 4; i++)
		if (fabs(q[i]) > m)
			m = fabs(q[i]);
	for (int k = 0; k < 4; k++) {
		if (!(fabs(q[k]) >= m - 0.02))
			continue;
		double s = q[k] < 0 ? -1.0 : 1.0, dec[4], err = 0;
		uint32_t code = pack_with(q, k);
		diesel_unpack_quat(code, dec);
		for (int i = 0; i < 4; i++) {
			double e = fabs(dec[i] - s * q[i]);
			if (e > err)
				err = e;
		}
		if (err < best_err || (err == best_err && fabs(q[k]) > fabs(q[best_k]))) {
			best_err = err;
			best = code;
			best_k = k;
		}
	}
	return best;
}

static size_t fmt_cm_slow(char *out, uint16_t code)
{
	double cm = diesel_u16_to_cm(code);
	for (int d = 0; d <= 6; d++) {
		int64_t r = (int64_t)llround(cm * p10[d]);
		uint16_t back;
		/* r / 10^d is what strtod returns for the text: both are exact doubles */
		if (!diesel_cm_to_u16((double)r / p10[d], &back) && back == code)
			return af_fmt_dec(out, r, d);
	}
	return af_fmt_f64(out, cm); /* unreachable: 2 decimals always suffice */
}

/* There are only 65,536 codes: their texts are made at build time by this same file
 * compiled as a generator (-DDSL_CM_TABLE_GEN, see CMakeLists.txt), so a process
 * pays nothing to start and each key costs a copy. test_diesel compares the table
 * with fmt_cm_slow on every code. */
#define CM_TXT 8 /* "-1000.0" .. "1000.03": at most 7 characters + NUL */
#ifdef DSL_CM_TABLE_GEN
#include <stdio.h>

int main(int argc, char **argv)
{
	char t[AF_NUM_MAX], tmp[4096];
	/* OUT.tmp renamed to OUT at the end: a failed run leaves no OUT for make to trust */
	if (argc != 2 || snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]) >= (int)sizeof(tmp) ||
	    !freopen(tmp, "w", stdout)) {
		fprintf(stderr, "usage: animfs-gen-cm OUT.h\n");
		return 2;
	}
	printf("/* Generated at build time from src/codec/diesel_quant.c: do not edit. */\n");
	uint8_t len[65536];
	printf("static const char cm_txt[65536][%d] = {\n", CM_TXT);
	for (uint32_t c = 0; c < 65536; c++) {
		size_t n = fmt_cm_slow(t, (uint16_t)c);
		len[c] = (uint8_t)(n < CM_TXT ? n : 0); /* 0: diesel_fmt_cm asks the slow path */
		printf("\t\"%s\",\n", len[c] ? t : "");
	}
	printf("};\nstatic const uint8_t cm_len[65536] = {");
	for (uint32_t c = 0; c < 65536; c++)
		printf("%s%u,", c % 32 ? "" : "\n\t", len[c]);
	printf("\n};\n");
	return fclose(stdout) || rename(tmp, argv[1]) ? 1 : 0;
}
#else
#include "diesel_cm_table.h"

size_t diesel_fmt_cm(char *out, uint16_t code)
{
	if (!cm_len[code])
		return fmt_cm_slow(out, code);
	memcpy(out, cm_txt[code], CM_TXT);
	return cm_len[code];
}
#endif

size_t diesel_fmt_cm_slow(char *out, uint16_t code)
{
	return fmt_cm_slow(out, code);
}

/* llround for |x| < 2^52, inline: x - trunc(x) is exact there, so comparing it with
 * one half rounds exactly as llround does (half away from zero). */
static int64_t round_half_away(double x)
{
	int64_t t = (int64_t)x;
	double f = x - (double)t;
	return t + (f >= 0.5) - (f <= -0.5);
}

size_t diesel_fmt_quat(char *out, uint32_t code)
{
	double q[4], v[4];
	int64_t r[4];
	diesel_unpack_quat(code, q);
	for (int d = 3; d <= 9; d++) {
		for (int i = 0; i < 4; i++) {
			r[i] = round_half_away(q[i] * p10[d]); /* |q| <= 1 */
			v[i] = (double)r[i] / p10[d];
		}
		if (diesel_pack_quat(v) != code)
			continue;
		char *p = out;
		for (int i = 0; i < 4; i++) {
			if (i) {
				*p++ = ',';
				*p++ = ' ';
			}
			p += af_fmt_dec(p, r[i], d);
		}
		return (size_t)(p - out);
	}
	return 0;
}

#ifndef DSL_CM_TABLE_GEN
/* ---------------------------------------------------------------- name set */

static uint64_t str_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

int diesel_strset_init(struct diesel_strset *set, struct af_arena *a, size_t count)
{
	size_t cap = 16;
	while (cap < count * 2)
		cap *= 2;
	set->cap = cap;
	set->s = af_arena_array(a, cap, sizeof(*set->s));
	set->len = af_arena_array(a, cap, sizeof(*set->len));
	set->val = af_arena_array(a, cap, sizeof(*set->val));
	return set->s && set->len && set->val ? 0 : AF_ENOMEM;
}

size_t diesel_strset_put(struct diesel_strset *set, const char *s, size_t n, int *found)
{
	size_t i = (size_t)str_hash(s, n) & (set->cap - 1);
	while (set->s[i]) {
		if (set->len[i] == n && !memcmp(set->s[i], s, n)) {
			*found = 1;
			return i;
		}
		i = (i + 1) & (set->cap - 1);
	}
	set->s[i] = s;
	set->len[i] = n;
	*found = 0;
	return i;
}
#endif
