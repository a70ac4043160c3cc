/* RefPack: hand-built streams for every opcode kind at its limits (long runs, far
 * offsets, both header forms), our compressor against the decoder and the spec 6.4
 * rules on many generated inputs, and corrupt streams that must fail cleanly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/container/refpack.h"

static uint32_t rng = 12345;
static uint8_t rnd8(void)
{
	rng = rng * 1103515245u + 12345u;
	return (uint8_t)(rng >> 16);
}

static int unpack(const uint8_t *s, size_t n, uint64_t expect, struct af_buf *out, char *msg)
{
	struct af_diag d;
	af_diag_init(&d);
	af_buf_reset(out);
	int rc = af_refpack_decompress(s, n, expect, out, &d);
	if (msg)
		af_diag_format(&d, "s", msg, 512);
	af_diag_free(&d);
	return rc;
}

static void test_small_opcodes(void **state)
{
	(void)state;
	/* 4 literals, a 2-byte copy (len 3, dist 4), a 3-byte copy with 1 literal (len 4,
	 * dist 2), a 4-byte copy with 2 literals (len 5, dist 1: a run), stop with 3 */
	static const uint8_t s[] = { 0x10, 0xFB, 0x00, 0x00, 0x16,
				     0xE0, 'a', 'b', 'c', 'd',
				     0x00, 0x03,
				     0x80, 0x40, 0x01, 'x',
				     0xC2, 0x00, 0x00, 0x00, 'y', 'z',
				     0xFF, '1', '2', '3' };
	static const char want[] = "abcdabcxcxcxyzzzzzz123";
	struct af_buf out = AF_BUF_INIT;
	char msg[512];
	assert_int_equal(unpack(s, sizeof(s), 22, &out, msg), 0);
	assert_int_equal(out.len, 22);
	assert_memory_equal(out.data, want, 22);
	/* the header's size is trusted when the caller knows none */
	assert_int_equal(unpack(s, sizeof(s), UINT64_MAX, &out, NULL), 0);
	/* 4-byte sizes (flag 0x80) and the compressed-size field (flag 0x01) */
	uint8_t big[sizeof(s) + 5];
	big[0] = 0x91;
	big[1] = 0xFB;
	memcpy(big + 2, "\x00\x00\x00\x1A", 4); /* compressed size: skipped */
	memcpy(big + 6, "\x00\x00\x00\x16", 4);
	memcpy(big + 10, s + 5, sizeof(s) - 5);
	assert_int_equal(unpack(big, 10 + sizeof(s) - 5, 22, &out, msg), 0);
	assert_memory_equal(out.data, want, 22);
	/* appending keeps what the buffer held; limits count from the append point */
	af_buf_reset(&out);
	af_buf_append(&out, "PFX", 3);
	struct af_diag d;
	af_diag_init(&d);
	assert_int_equal(af_refpack_decompress(s, sizeof(s), 22, &out, &d), 0);
	assert_int_equal(out.len, 25);
	assert_memory_equal(out.data + 3, want, 22);
	af_diag_free(&d);
	af_buf_free(&out);
}

/* A stream of `pre` random literal bytes (runs of 112 and a stop remainder are avoided:
 * runs only, pre is a multiple of 4) followed by one copy opcode and a stop. */
static size_t far_stream(uint8_t *s, uint8_t *want, size_t pre, const uint8_t *op, size_t opn,
			 size_t len, size_t dist)
{
	size_t n = 0, w = 0, total = pre + len;
	s[n++] = 0x10;
	s[n++] = 0xFB;
	s[n++] = (uint8_t)(total >> 16);
	s[n++] = (uint8_t)(total >> 8);
	s[n++] = (uint8_t)total;
	while (w < pre) {
		size_t k = pre - w > 112 ? 112 : pre - w;
		s[n++] = (uint8_t)(0xE0 | (k / 4 - 1));
		for (size_t i = 0; i < k; i++)
			s[n++] = want[w++] = rnd8();
	}
	memcpy(s + n, op, opn);
	n += opn;
	for (size_t i = 0; i < len; i++, w++)
		want[w] = want[w - dist];
	s[n++] = 0xFC;
	return n;
}

static void test_far_and_long(void **state)
{
	(void)state;
	static const struct {
		uint8_t op[4];
		size_t opn, len, dist;
	} cases[] = {
		{ { 0x7C, 0xFF }, 2, 10, 1024 },                 /* 2-byte: longest, farthest */
		{ { 0xBF, 0x3F, 0xFF }, 3, 67, 16384 },          /* 3-byte: longest, farthest */
		{ { 0xDC, 0xFF, 0xFF, 0xFF }, 4, 1028, 131072 }, /* 4-byte: longest, farthest */
		{ { 0xCC, 0x00, 0x00, 0xFF }, 4, 1028, 1 },      /* a long run, overlapping copy */
		{ { 0xD0, 0x00, 0x00, 0x00 }, 4, 5, 65537 },     /* distance bit 16 alone */
	};
	size_t cap = 140000;
	uint8_t *s = malloc(cap * 2), *want = malloc(cap * 2);
	struct af_buf out = AF_BUF_INIT;
	char msg[512];
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		size_t pre = (cases[c].dist + 3) & ~(size_t)3;
		size_t n = far_stream(s, want, pre, cases[c].op, cases[c].opn, cases[c].len,
				      cases[c].dist);
		assert_int_equal(unpack(s, n, pre + cases[c].len, &out, msg), 0);
		assert_int_equal(out.len, pre + cases[c].len);
		assert_memory_equal(out.data, want, out.len);
		/* with 4 bytes less history the copy reaches too far back: an error, not a
		 * read before the buffer */
		if (cases[c].dist >= 8) {
			n = far_stream(s, want, pre - 4, cases[c].op, cases[c].opn, 0, 0);
			assert_int_equal(unpack(s, n, UINT64_MAX, &out, msg), AF_EINVAL);
			assert_non_null(strstr(msg, "reaches"));
		}
	}
	/* the maximum literal run 0xFB (112 bytes) */
	uint8_t lit[2 + 3 + 1 + 112 + 1] = { 0x10, 0xFB, 0, 0, 112, 0xFB };
	for (int i = 0; i < 112; i++)
		lit[6 + i] = (uint8_t)i;
	lit[118] = 0xFC;
	assert_int_equal(unpack(lit, sizeof(lit), 112, &out, msg), 0);
	assert_int_equal(out.data[111], 111);
	free(s);
	free(want);
	af_buf_free(&out);
}

/* Spec 6.4: header 10 FB (or 90 FB) without flag 0x01, literal runs of 4-112 in
 * multiples of 4, the shortest copy opcode that fits, exactly one stop at the end. */
static void assert_canonical(const uint8_t *s, size_t n, size_t usize)
{
	size_t pos;
	assert_true(n >= 5);
	assert_int_equal(s[1], 0xFB);
	assert_int_equal(s[0], usize > 0xFFFFFF ? 0x90 : 0x10);
	pos = usize > 0xFFFFFF ? 6 : 5;
	for (;;) {
		assert_true(pos < n);
		uint8_t b0 = s[pos];
		size_t len, dist, lit;
		if (b0 >= 0xFC) {
			assert_int_equal(pos + 1 + (b0 & 3), n);
			return;
		}
		if (b0 >= 0xE0) {
			pos += 1 + ((size_t)(b0 & 0x1F) + 1) * 4;
			continue;
		}
		if (b0 < 0x80) {
			lit = b0 & 3, len = ((b0 >> 2) & 7) + 3;
			dist = ((size_t)(b0 & 0x60) << 3 | s[pos + 1]) + 1;
			pos += 2;
		} else if (b0 < 0xC0) {
			lit = s[pos + 1] >> 6, len = (b0 & 0x3F) + 4;
			dist = ((size_t)(s[pos + 1] & 0x3F) << 8 | s[pos + 2]) + 1;
			assert_false(len <= 10 && dist <= 1024);
			pos += 3;
		} else {
			lit = b0 & 3, len = ((size_t)(b0 & 0x0C) << 6 | s[pos + 3]) + 5;
			dist = ((size_t)(b0 & 0x10) << 12 | (size_t)s[pos + 1] << 8 | s[pos + 2]) + 1;
			assert_false(len <= 67 && dist <= 16384);
			pos += 4;
		}
		if (len == 3)
			assert_true(dist <= 1024);
		if (len == 4)
			assert_true(dist <= 16384);
		pos += lit;
	}
}

static void roundtrip(const uint8_t *in, size_t n)
{
	struct af_buf packed = AF_BUF_INIT, out = AF_BUF_INIT;
	struct af_diag d;
	char msg[512];
	af_diag_init(&d);
	assert_int_equal(af_refpack_compress(in, n, &packed, &d), 0);
	assert_canonical(packed.data, packed.len, n);
	if (unpack(packed.data, packed.len, n, &out, msg))
		fail_msg("%zu bytes: %s", n, msg);
	assert_int_equal(out.len, n);
	if (n)
		assert_memory_equal(out.data, in, n);
	af_buf_free(&packed);
	af_buf_free(&out);
	af_diag_free(&d);
}

static void test_compress_generated(void **state)
{
	(void)state;
	size_t max = 300000;
	uint8_t *b = calloc(max, 1);
	/* sizes around every boundary of the literal/stop handling, many content kinds */
	for (size_t n = 0; n < 300; n++) {
		for (int kind = 0; kind < 4; kind++) {
			for (size_t i = 0; i < n; i++)
				b[i] = kind == 0 ? rnd8() : kind == 1 ? (uint8_t)(i % 7)
				     : kind == 2 ? (uint8_t)(rnd8() & 3) : 0;
			roundtrip(b, n);
		}
	}
	/* text-like data with repeats at every distance class */
	for (int round = 0; round < 20; round++) {
		size_t n = 1000 + (size_t)rnd8() * 300;
		for (size_t i = 0; i < n; i++)
			b[i] = (i > 40 && rnd8() < 200) ? b[i - 1 - rnd8() % 40] : (uint8_t)('a' + rnd8() % 26);
		roundtrip(b, n);
	}
	/* far repeats: a random block repeated after 20000, 131072 and 131073 bytes */
	size_t dists[] = { 1024, 1025, 16384, 16385, 20000, 131072, 131073 };
	for (size_t k = 0; k < sizeof(dists) / sizeof(dists[0]); k++) {
		size_t n = dists[k] + 3000;
		for (size_t i = 0; i < n; i++)
			b[i] = i >= dists[k] ? b[i - dists[k]] : rnd8();
		roundtrip(b, n);
		struct af_buf packed = AF_BUF_INIT;
		struct af_diag d;
		af_diag_init(&d);
		af_refpack_compress(b, n, &packed, &d);
		/* the random part costs 113 bytes per 112; the repeated 3000 must cost ~nothing */
		if (dists[k] <= 131072 && packed.len > dists[k] + dists[k] / 112 + 120)
			fail_msg("distance %zu: %zu bytes packed into %zu", dists[k], n, packed.len);
		af_buf_free(&packed);
		af_diag_free(&d);
	}
	/* long runs: one byte repeated far beyond one opcode's 1028 */
	memset(b, 'z', max);
	roundtrip(b, max);
	free(b);
}

static void test_compress_large_header(void **state)
{
	(void)state;
	size_t n = 0x1000001; /* above 16 MiB - 1: 4-byte sizes */
	uint8_t *b = calloc(n, 1);
	struct af_buf packed = AF_BUF_INIT, out = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	b[n - 1] = 7;
	assert_int_equal(af_refpack_compress(b, n, &packed, &d), 0);
	assert_int_equal(packed.data[0], 0x90);
	assert_memory_equal(packed.data + 2, "\x01\x00\x00\x01", 4);
	assert_int_equal(unpack(packed.data, packed.len, n, &out, NULL), 0);
	assert_int_equal(out.len, n);
	assert_int_equal(out.data[n - 1], 7);
	af_buf_free(&packed);
	af_buf_free(&out);
	af_diag_free(&d);
	free(b);
}

static void expect_error(const uint8_t *s, size_t n, uint64_t expect, const char *text)
{
	struct af_buf out = AF_BUF_INIT;
	char msg[512];
	af_buf_append(&out, "keep", 4);
	struct af_diag d;
	af_diag_init(&d);
	int rc = af_refpack_decompress(s, n, expect, &out, &d);
	af_diag_format(&d, "s", msg, sizeof(msg));
	assert_int_equal(rc, AF_EINVAL);
	if (!strstr(msg, text))
		fail_msg("'%s' lacks '%s'", msg, text);
	assert_int_equal(out.len, 4); /* nothing half-decoded is left behind */
	af_diag_free(&d);
	af_buf_free(&out);
}

static void test_corrupt(void **state)
{
	(void)state;
	expect_error((const uint8_t *)"\x10", 1, UINT64_MAX, "not a RefPack stream");
	expect_error((const uint8_t *)"\x10\xFA\x00\x00\x00\xFC", 6, UINT64_MAX, "not a RefPack stream");
	expect_error((const uint8_t *)"\x12\xFB\x00\x00\x00\xFC", 6, UINT64_MAX, "not a RefPack stream");
	expect_error((const uint8_t *)"\x10\xFB\x00\x00", 4, UINT64_MAX, "header needs 5 bytes");
	expect_error((const uint8_t *)"\x10\xFB\x00\x00\x04\xFC", 6, 5, "the index says 5");
	expect_error((const uint8_t *)"\x10\xFB\x00\x00\x04\xE0" "ab", 8, UINT64_MAX,
		     "byte 0x5: RefPack opcode wants 4 literal bytes");
	expect_error((const uint8_t *)"\x10\xFB\x00\x00\x04\xE0" "abcd", 10, UINT64_MAX,
		     "byte 0xa: RefPack stream ends without a stop opcode");
	expect_error((const uint8_t *)"\x10\xFB\x00\x00\x06\x01\x01" "a", 8, UINT64_MAX,
		     "copy reaches 2 bytes back, only 1 are decoded");
	expect_error((const uint8_t *)"\x10\xFB\x00\x00\x03\x01\x00" "a", 8, UINT64_MAX,
		     "would exceed the declared 3 bytes");
	expect_error((const uint8_t *)"\x10\xFB\x00\x00\x01\xFE" "ab", 8, UINT64_MAX,
		     "would exceed the declared 1 bytes");
	expect_error((const uint8_t *)"\x10\xFB\x00\x00\x05\xFD" "a", 7, UINT64_MAX,
		     "stops after 1 of the declared 5 bytes");
	expect_error((const uint8_t *)"\x10\xFB\x00\x00\x00\xFCzz", 8, UINT64_MAX,
		     "2 bytes after the RefPack stop opcode");
	expect_error((const uint8_t *)"\x10\xFB\x00\x00\x08\xC0\x00", 7, UINT64_MAX,
		     "opcode C0 is cut off");
	/* a header claiming 4 GiB from a handful of bytes is refused before any allocation */
	expect_error((const uint8_t *)"\x90\xFB\xFF\xFF\xFF\xFF\xFC", 7, UINT64_MAX,
		     "more than 7 compressed bytes can hold");

	/* every truncation and every single-byte change of a real stream: errors or
	 * success, never a crash or a read outside the buffers (ASan watches) */
	uint8_t src[3000];
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)((i % 97 < 50) ? 'a' + i % 13 : rnd8());
	struct af_buf packed = AF_BUF_INIT, out = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	assert_int_equal(af_refpack_compress(src, sizeof(src), &packed, &d), 0);
	for (size_t cut = 0; cut < packed.len; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);
		memcpy(copy, packed.data, cut);
		assert_int_not_equal(unpack(copy, cut, sizeof(src), &out, NULL), 0);
		free(copy);
	}
	uint8_t *flip = malloc(packed.len);
	for (size_t i = 0; i < packed.len; i++)
		for (int v = 0; v < 3; v++) {
			memcpy(flip, packed.data, packed.len);
			flip[i] ^= (uint8_t)(v == 0 ? 0xFF : v == 1 ? 0x80 : 0x01);
			if (!unpack(flip, packed.len, UINT64_MAX, &out, NULL))
				assert_true(out.len <= 0xFFFFFF);
		}
	free(flip);
	af_buf_free(&packed);
	af_buf_free(&out);
	af_diag_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_opcodes),
		cmocka_unit_test(test_far_and_long),
		cmocka_unit_test(test_compress_generated),
		cmocka_unit_test(test_compress_large_header),
		cmocka_unit_test(test_corrupt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
