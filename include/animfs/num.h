/* Number text policy shared by every codec.
 * Floats print as the shortest decimal that reads back to identical bits, always
 * with a '.' or an exponent ("1.0", "1.0e-05"); ".nan", ".inf", "-.inf", "-0.0".
 * A NaN with a payload other than the canonical quiet NaN prints as
 * "nan:0x7fa00001" (its bits), which the parsers read back exactly. */
#ifndef ANIMFS_NUM_H
#define ANIMFS_NUM_H

#include <stddef.h>
#include <stdint.h>

#define AF_NUM_MAX 40 /* enough for any number this module prints, plus NUL */

/* Every printer below may store up to AF_NUM_MAX bytes at out (they copy in fixed-size
 * blocks), so out must have room for that many whatever the text's length. */

/* Each returns the length written (no NUL is counted; one is written). */
size_t af_fmt_f32(char *out, float v);
/* The same text, always computed (af_fmt_f32 memoises recent values). */
size_t af_fmt_f32_uncached(char *out, float v);
/* n values as ", v0, v1, ...", each af_fmt_f32_uncached's text after ", " (a row of
 * a key: one call for its values). out needs room for n * (2 + AF_NUM_MAX) bytes. */
size_t af_fmt_f32_row(char *out, const float *v, unsigned n);
/* The two ways af_fmt_f32_uncached computes it, for the tests and scripts/printer_check.c:
 * the fast printer (returns 0 in the rare case it leaves to the search) and the search
 * that defines the text (the fewest digits that read back, by trial parsing). */
size_t af_fmt_f32_fast(char *out, float v);
size_t af_fmt_f32_search(char *out, float v);
size_t af_fmt_f64(char *out, double v);
/* Its fast printer (0 when it leaves the value to the search) and the search that
 * defines the text (printf's digits, the fewest that read back). */
size_t af_fmt_f64_fast(char *out, double v);
size_t af_fmt_f64_search(char *out, double v);
size_t af_fmt_f16(char *out, uint16_t half_bits);
/* Fixed number of decimals, trailing zeros kept to at least one ("1.50" -> "1.5"?
 * no: exactly `decimals` digits after the point, minimum 1). */
size_t af_fmt_fixed(char *out, double v, int decimals);
/* r / 10^decimals with exactly `decimals` digits after the point, "15.0" when 0
 * (decimals <= 18). */
size_t af_fmt_dec(char *out, int64_t r, int decimals);
size_t af_fmt_u64(char *out, uint64_t v);
size_t af_fmt_i64(char *out, int64_t v);
/* "0x" + exactly `digits` upper-case hex digits. */
size_t af_fmt_hex(char *out, uint64_t v, int digits);

/* Parsers take the scalar text (not NUL-terminated) and return 0 or -1.
 * Accepted: decimal numbers with optional sign, fraction and exponent; integers;
 * .nan .NaN .NAN, [+-].inf .Inf .INF; nan:0x<bits>. No hex floats, no "inf". */
int af_parse_f64(const char *s, size_t n, double *out);
int af_parse_f32(const char *s, size_t n, float *out);   /* correctly rounded */
int af_parse_f16(const char *s, size_t n, uint16_t *out); /* via double, RNE; -1 on overflow */
/* Integers: decimal or 0x hex, optional sign for the signed form. */
int af_parse_u64(const char *s, size_t n, uint64_t *out);
int af_parse_i64(const char *s, size_t n, int64_t *out);
/* One hex digit's value (either case), or -1 when c is not one. */
int af_hex_digit(char c);

/* IEEE binary16 <-> float. */
float af_f16_to_f32(uint16_t h);
/* Round to nearest even; returns -1 if the value overflows to infinity. */
int af_f64_to_f16(double v, uint16_t *out);

#endif
