/* The fast raw DEFLATE decoder (core/inflate.c) against zlib: every stream zlib's
 * deflate makes (each level and strategy, small and large windows and memory levels,
 * stored, fixed and dynamic blocks, data of several kinds and sizes) decodes here to
 * zlib's bytes and input count; on damaged and truncated streams and under output
 * limits, whatever the fast decoder accepts zlib accepts with the same result (it may
 * decline more: af_zframe then asks zlib). Through af_zframe_inflate, zlib framing:
 * the same bytes, and the same errors as zlib's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <zlib.h>

#include "animfs/buf.h"
#include "animfs/diag.h"
#include "animfs/inflate.h"
#include "animfs/zframe.h"
#include "zlib_ref.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

enum kind { RANDOM, TEXT, FLOATS, RUNS, MIXED, NKINDS };

static void fill(uint8_t *p, size_t n, enum kind k)
{
	static const char words[] = "keyframe rotation position bone_ 0.5, 1.0, -0.25 time: events ";
	for (size_t i = 0; i < n; i++) {
		switch (k) {
		case RANDOM:
			p[i] = (uint8_t)next();
			break;
		case TEXT:
			p[i] = (uint8_t)words[next() % (sizeof(words) - 1)];
			break;
		case FLOATS: { /* slowly moving float32 keys, as in animation data */
			float f = (float)(i / 4) * 0.001f + (float)(next() % 4) * 1e-6f;
			uint8_t b[4];
			memcpy(b, &f, 4);
			p[i] = b[i % 4];
			break;
		}
		case RUNS:
			p[i] = (uint8_t)(i / (1 + next() % 300) % 3);
			break;
		default:
			p[i] = i % 1000 < 500 ? (uint8_t)next() : (uint8_t)words[(i * 7) % 20];
		}
	}
}

static size_t deflate_raw(const uint8_t *in, size_t n, uint8_t *out, size_t cap, int level,
			  int wbits, int memlevel, int strategy)
{
	z_stream zs = { 0 };
	assert_int_equal(deflateInit2(&zs, level, Z_DEFLATED, -wbits, memlevel, strategy), Z_OK);
	zs.next_in = (Bytef *)in;
	zs.avail_in = (uInt)n;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	size_t m = zs.total_out;
	deflateEnd(&zs);
	return m;
}

/* A stream zlib made: decoded here, exactly. */
static void same_as_made(const uint8_t *data, size_t n, const uint8_t *z, size_t zn)
{
	uint8_t *out = malloc(n + 64);
	size_t used = 0, len = 0;
	assert_non_null(out);
	assert_int_equal(af_inflate_fast(z, zn, out, n, n + 64, &used, &len), 0);
	assert_int_equal(len, n);
	assert_int_equal(used, zn);
	assert_memory_equal(out, data, n);
	/* one byte too little room: declined */
	if (n)
		assert_int_not_equal(af_inflate_fast(z, zn, out, n - 1, n + 64, &used, &len), 0);
	free(out);
}

static void test_every_setting(void **state)
{
	static const size_t sizes[] = { 0, 1, 7, 258, 259, 1000, 32768 + 5, 70000, 300000 };
	static const int strategies[] = { Z_DEFAULT_STRATEGY, Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE,
					  Z_FIXED };
	(void)state;
	size_t cap = 2 * 300000 + 4096; /* past compressBound: memLevel 1 stores more */
	uint8_t *data = malloc(300000), *z = malloc(cap);
	assert_non_null(data);
	assert_non_null(z);
	for (int k = 0; k < NKINDS; k++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			fill(data, sizes[s], (enum kind)k);
			int big = sizes[s] > 100000; /* fewer settings: the suite's time */
			for (int level = 0; level <= 9; level += big ? 3 : 1) {
				size_t zn = deflate_raw(data, sizes[s], z, cap, level, 15, 8, Z_DEFAULT_STRATEGY);
				same_as_made(data, sizes[s], z, zn);
			}
			for (size_t st = 1; st < sizeof(strategies) / sizeof(strategies[0]); st++) {
				size_t zn = deflate_raw(data, sizes[s], z, cap, 6, 15, 8, strategies[st]);
				same_as_made(data, sizes[s], z, zn);
			}
			for (int wbits = 9; wbits <= 15 && !big; wbits += 3)
				for (int mem = 1; mem <= 9; mem += 4) {
					size_t zn = deflate_raw(data, sizes[s], z, cap, 9, wbits, mem,
								Z_DEFAULT_STRATEGY);
					same_as_made(data, sizes[s], z, zn);
				}
		}
	free(data);
	free(z);
}

/* What the fast decoder takes, zlib takes the same way. */
static void agrees(const uint8_t *z, size_t zn, size_t limit, unsigned *declined)
{
	uint8_t *a = malloc(limit + 64), *b = malloc(limit + 1);
	size_t au = 0, al = 0, bu = 0, bl = 0;
	assert_non_null(a);
	assert_non_null(b);
	int fa = af_inflate_fast(z, zn, a, limit, limit + 64, &au, &al);
	int fb = zlib_raw(z, zn, b, limit, &bu, &bl);
	if (fa == 0) {
		assert_int_equal(fb, 0);
		assert_int_equal(al, bl);
		assert_int_equal(au, bu);
		assert_memory_equal(a, b, al);
	} else if (fb == 0) {
		(*declined)++;
	}
	free(a);
	free(b);
}

static void test_damaged_streams(void **state)
{
	(void)state;
	size_t n = 40000, cap = compressBound(40000) + 64;
	uint8_t *data = malloc(n), *z = malloc(cap), *m = malloc(cap);
	unsigned declined = 0, cases = 0;
	/* ANIMFS_INFLATE_ROUNDS: more damage per stream, for a longer run by hand */
	int rounds = getenv("ANIMFS_INFLATE_ROUNDS") ? atoi(getenv("ANIMFS_INFLATE_ROUNDS")) : 300;
	assert_non_null(data);
	assert_non_null(z);
	assert_non_null(m);
	for (int k = 0; k < NKINDS; k++) {
		fill(data, n, (enum kind)k);
		for (int level = 0; level <= 9; level += 3) {
			int strategy = level == 3 ? Z_FIXED : Z_DEFAULT_STRATEGY;
			size_t zn = deflate_raw(data, n, z, cap, level, 15, 8, strategy);
			for (int i = 0; i < rounds; i++, cases++) {
				memcpy(m, z, zn);
				size_t mn = zn;
				switch (i % 4) {
				case 0: /* a bit flipped */
					m[next() % zn] ^= (uint8_t)(1u << (next() % 8));
					break;
				case 1: /* a flip in the first bytes: the block headers and codes */
					m[next() % (zn < 64 ? zn : 64)] ^= (uint8_t)(1u << (next() % 8));
					break;
				case 2: /* truncated */
					mn = next() % zn;
					break;
				default: /* a byte replaced */
					m[next() % zn] = (uint8_t)next();
				}
				agrees(m, mn, n, &declined);
				agrees(m, mn, n / 2, &declined); /* under a smaller limit */
			}
		}
	}
	/* random bytes as a stream: mostly refused by both */
	for (int i = 0; i < 7 * rounds; i++, cases++) {
		size_t mn = 1 + next() % 200;
		for (size_t j = 0; j < mn; j++)
			m[j] = (uint8_t)next();
		agrees(m, mn, 4096, &declined);
	}
	print_message("%u damaged streams; %u zlib decoded and the fast decoder declined\n", cases,
		      declined);
	free(data);
	free(z);
	free(m);
}

/* Hand-made streams at zlib's edges. */
static void test_edges(void **state)
{
	(void)state;
	uint8_t out[300];
	size_t used, len;
	unsigned declined = 0;
	/* fixed block: literal 'a' (0x61: code 0x30 + 0x61 = 0x91, 8 bits), then a match
	 * of length 3 (symbol 257, 7 bits 0000001) at distance 2 (code 1, 5 bits 00001):
	 * too far back; zlib: "invalid distance too far back" */
	static const uint8_t far[] = { 0x4b, 0x04, 0x42, 0x00 };
	assert_int_not_equal(af_inflate_fast(far, sizeof(far), out, sizeof(out), sizeof(out), &used, &len), 0);
	agrees(far, sizeof(far), 100, &declined);
	/* block type 3 */
	static const uint8_t bad_type[] = { 0x07, 0x00 };
	assert_int_not_equal(af_inflate_fast(bad_type, 2, out, 10, 10, &used, &len), 0);
	/* a stored block whose NLEN is not LEN's complement */
	static const uint8_t bad_stored[] = { 0x01, 0x02, 0x00, 0xfd, 0xfe, 'h', 'i' };
	assert_int_not_equal(af_inflate_fast(bad_stored, sizeof(bad_stored), out, 10, 10, &used, &len), 0);
	/* a good stored block, then bytes after it that are not the stream's */
	static const uint8_t stored[] = { 0x01, 0x02, 0x00, 0xfd, 0xff, 'h', 'i', 0xAA, 0xBB };
	assert_int_equal(af_inflate_fast(stored, sizeof(stored), out, 10, 10, &used, &len), 0);
	assert_int_equal(used, 7);
	assert_int_equal(len, 2);
	assert_memory_equal(out, "hi", 2);
	agrees(stored, sizeof(stored), 10, &declined);
	/* an empty fixed block: 3 bits of header and 7 of end-of-block, in 2 bytes */
	static const uint8_t empty[] = { 0x03, 0x00 };
	assert_int_equal(af_inflate_fast(empty, 2, out, 10, 10, &used, &len), 0);
	assert_int_equal(used, 2);
	assert_int_equal(len, 0);
	assert_int_not_equal(af_inflate_fast(empty, 1, out, 10, 10, &used, &len), 0);
	assert_int_equal(declined, 0);
}

/* zlib framing through af_zframe_inflate: the fast path's bytes and count, and on a
 * damaged stream zlib's own error (the fast path declines, zlib answers). */
static void test_zlib_framing(void **state)
{
	(void)state;
	size_t n = 50000;
	uLongf zn = compressBound(n);
	uint8_t *data = malloc(n), *z = malloc(zn + 8);
	struct af_diag d;
	assert_non_null(data);
	assert_non_null(z);
	af_diag_init(&d);
	fill(data, n, FLOATS);
	assert_int_equal(compress2(z, &zn, data, n, 6), Z_OK);
	memcpy(z + zn, "tail", 4); /* bytes after the stream: not consumed */
	struct af_buf out = AF_BUF_INIT;
	size_t used = 0;
	assert_int_equal(af_zframe_inflate(z, zn + 4, n, &out, &used, &d), 0);
	assert_int_equal(out.len, n);
	assert_int_equal(used, zn);
	assert_memory_equal(out.data, data, n);
	af_buf_free(&out);
	/* the Adler-32 trailer damaged: zlib's error */
	z[zn - 1] ^= 1;
	assert_int_equal(af_zframe_inflate(z, zn, n, &out, &used, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "incorrect data check"));
	af_buf_free(&out);
	z[zn - 1] ^= 1;
	/* one byte short of the output: zlib's bound error */
	af_diag_clear(&d);
	assert_int_equal(af_zframe_inflate(z, zn, n - 1, &out, &used, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "more than"));
	af_buf_free(&out);
	/* a header with a preset dictionary: zlib's answer */
	af_diag_clear(&d);
	uint8_t dict[] = { 0x78, 0xBB, 0, 0, 0, 0, 0x03, 0x00 };
	assert_int_equal(af_zframe_inflate(dict, sizeof(dict), 100, &out, &used, &d), AF_EINVAL);
	af_buf_free(&out);
	af_diag_free(&d);
	free(data);
	free(z);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_setting),
		cmocka_unit_test(test_damaged_streams),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_zlib_framing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
