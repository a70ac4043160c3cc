/* re-model units on hand-built bytes: 12-bit LSB-first angle packing, degree text,
 * RE3/RE2 EDD and EMR sections (decode, exact rebuild, each failed check), the
 * directory, and the verbatim fallback of a bank that breaks the rules. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../src/codec/re/re.h"
#include "animfs/num.h"
#include "re_testutil.h"

static void test_angle_packing(void **state)
{
	(void)state;
	/* codes 0x123 0xABC 0x456 0x789, LSB first: 23 C1 AB 56 94 78 */
	const uint8_t want[] = { 0x23, 0xC1, 0xAB, 0x56, 0x94, 0x78, 0x00 };
	const uint16_t codes[] = { 0x123, 0xABC, 0x456, 0x789 };
	uint8_t area[7] = { 0 };
	for (unsigned k = 0; k < 4; k++)
		re_angle_put(area, k, codes[k]);
	assert_memory_equal(area, want, sizeof(want));
	for (unsigned k = 0; k < 4; k++)
		assert_int_equal(re_angle_get(want, k), codes[k]);
	/* writing one angle leaves its neighbours' nibbles alone */
	re_angle_put(area, 1, 0xFFF);
	assert_int_equal(re_angle_get(area, 0), 0x123);
	assert_int_equal(re_angle_get(area, 1), 0xFFF);
	assert_int_equal(re_angle_get(area, 2), 0x456);
	re_angle_put(area, 2, 0);
	assert_int_equal(re_angle_get(area, 1), 0xFFF);
	assert_int_equal(re_angle_get(area, 3), 0x789);
}

static void test_degrees(void **state)
{
	(void)state;
	char t[AF_NUM_MAX];
	struct { uint16_t code; const char *text; } cases[] = {
		{ 0, "0" }, { 4, "0.35" }, { 4092, "-0.35" }, { 3960, "-11.95" }, { 119, "10.5" },
		{ 2048, "180" }, { 1024, "90" }, { 4095, "-0.1" }, { 2049, "-179.9" }, { 5, "0.4" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		re_deg_fmt(t, cases[i].code);
		assert_string_equal(t, cases[i].text);
	}
	/* every code: the printf search's text, fewest decimals, at most 2, and back to
	 * the same code */
	unsigned by_dec[3] = { 0, 0, 0 };
	for (unsigned c = 0; c < 4096; c++) {
		uint16_t back;
		size_t n = re_deg_fmt(t, (uint16_t)c);
		char slow[AF_NUM_MAX];
		assert_int_equal(re_deg_fmt_slow(slow, (uint16_t)c), n);
		assert_string_equal(t, slow);
		const char *dot = strchr(t, '.');
		size_t dec = dot ? n - (size_t)(dot - t) - 1 : 0;
		assert_true(dec <= 2);
		by_dec[dec]++;
		assert_int_equal(re_deg_quantize(strtod(t, NULL), &back), 0);
		assert_int_equal(back, c);
	}
	assert_int_equal(by_dec[0], 360);
	assert_int_equal(by_dec[1], 3240);
	assert_int_equal(by_dec[2], 496);
	uint16_t code;
	assert_int_equal(re_deg_quantize(360.0, &code), 0);
	assert_int_equal(code, 0);
	assert_int_equal(re_deg_quantize(-360.0, &code), 0);
	assert_int_equal(code, 0);
	assert_int_equal(re_deg_quantize(-0.35, &code), 0);
	assert_int_equal(code, 4092);
	assert_int_equal(re_deg_quantize(359.99, &code), 0); /* 4095.89 -> 4096 -> 0 */
	assert_int_equal(code, 0);
	assert_int_equal(re_deg_quantize(45.0 / 1024.0, &code), 0); /* exactly half-way */
	assert_int_equal(code, 1);
	assert_int_equal(re_deg_quantize(400.0, &code), -1);
	assert_int_equal(re_deg_quantize(NAN, &code), -1);
	assert_int_equal(re_deg_quantize(INFINITY, &code), -1);
}

/* RE3 EDD: 2 sequences of 3 and 2 frames: lists end at 16 + 10 = 26, so FF FF, trailer 28 */
static const uint8_t re3_edd[] = {
	3, 0, 16, 0, 5, 0, 0, 0, /* 3 frames at 16, pose_start 5 */
	2, 0, 22, 0, 0, 1, 0, 0, /* 2 frames at 22, pose_start 256 */
	0, 0, 1, 2, 2, 6,        /* (0,0) (1,2) (2,6) */
	9, 0x40, 0, 0x80,        /* (9,0x40) (0,0x80) */
	0xFF, 0xFF, 28, 0, 0, 0,
};

static void test_edd_re3(void **state)
{
	(void)state;
	struct af_arena a;
	struct af_diag d;
	struct re_edd e;
	struct af_buf out = AF_BUF_INIT;
	af_arena_init(&a);
	af_diag_init(&d);
	assert_int_equal(re_edd_decode(re3_edd, sizeof(re3_edd), RE_GAME3, 0, &e, &a, &d), 0);
	assert_int_equal(e.nseq, 2);
	assert_int_equal(e.seq[0].pose_start, 5);
	assert_int_equal(e.seq[1].pose_start, 256);
	assert_int_equal(e.seq[0].nframes, 3);
	assert_int_equal(e.seq[0].frames[2].pose, 2);
	assert_int_equal(e.seq[0].frames[2].flags, 6);
	assert_int_equal(e.seq[1].frames[0].flags, 0x40);
	assert_int_equal(re_edd_encode(&e, RE_GAME3, "banks[0]", &out, &d), 0);
	assert_int_equal(out.len, sizeof(re3_edd));
	assert_memory_equal(out.data, re3_edd, sizeof(re3_edd));
	/* one frame fewer: no pad any more, trailer 24 */
	e.seq[1].nframes = 1;
	af_buf_reset(&out);
	assert_int_equal(re_edd_encode(&e, RE_GAME3, "banks[0]", &out, &d), 0);
	assert_int_equal(out.len, 28);
	assert_int_equal(af_le32(out.data + 24), 24);
	assert_int_equal(af_le16(out.data + 10), 22);
	/* no sequences: exactly 00 00 00 00 */
	e.nseq = 0;
	af_buf_reset(&out);
	assert_int_equal(re_edd_encode(&e, RE_GAME3, "banks[0]", &out, &d), 0);
	assert_int_equal(out.len, 4);
	assert_int_equal(af_le32(out.data), 0);
	af_buf_free(&out);
	af_diag_free(&d);
	af_arena_free(&a);
}

static void expect_edd_error(const uint8_t *p, size_t n, unsigned game, uint64_t off,
			     const char *text)
{
	struct af_arena a;
	struct af_diag d;
	struct re_edd e;
	af_arena_init(&a);
	af_diag_init(&d);
	assert_int_equal(re_edd_decode(p, n, game, 1000, &e, &a, &d), AF_EINVAL);
	assert_int_equal(d.offset, 1000 + off);
	if (!strstr(d.msg, text))
		fail_msg("'%s' does not say '%s'", d.msg, text);
	af_diag_free(&d);
	af_arena_free(&a);
}

static void test_edd_re3_errors(void **state)
{
	(void)state;
	uint8_t b[sizeof(re3_edd)];
	memcpy(b, re3_edd, sizeof(b));
	b[30] = 29; /* trailer */
	expect_edd_error(b, sizeof(b), RE_GAME3, 28, "trailer");
	memcpy(b, re3_edd, sizeof(b));
	b[27] = 0xFE; /* pad */
	expect_edd_error(b, sizeof(b), RE_GAME3, 26, "FF FF");
	memcpy(b, re3_edd, sizeof(b));
	b[10] = 24; /* second list not contiguous */
	expect_edd_error(b, sizeof(b), RE_GAME3, 10, "contiguous");
	memcpy(b, re3_edd, sizeof(b));
	b[2] = 12; /* first offset not a multiple of 8 */
	expect_edd_error(b, sizeof(b), RE_GAME3, 2, "multiple of 8");
	memcpy(b, re3_edd, sizeof(b));
	b[8] = 200; /* frames run past the trailer */
	expect_edd_error(b, sizeof(b), RE_GAME3, 8, "past the trailer");
	expect_edd_error(re3_edd, 30, RE_GAME3, 0, "multiple of 4");
	const uint8_t four[] = { 0, 0, 1, 0 };
	expect_edd_error(four, 4, RE_GAME3, 0, "00 00 00 00");
}

/* RE2 EDD: 2 sequences (2 and 1 frames), 12-bit poses, 20-bit flags, trailer 20 */
static const uint8_t re2_edd[] = {
	2, 0, 8, 0, 1, 0, 16, 0,
	0x23, 0x40, 0x00, 0x00, /* pose 0x023, flags 0x4 */
	0xFF, 0x0F, 0x34, 0x00, /* pose 0xFFF, flags 0x340 */
	0x07, 0x00, 0x53, 0xF0, /* pose 7, flags 0xF0530 */
	20, 0, 0, 0,
};

static void test_edd_re2(void **state)
{
	(void)state;
	struct af_arena a;
	struct af_diag d;
	struct re_edd e;
	struct af_buf out = AF_BUF_INIT;
	af_arena_init(&a);
	af_diag_init(&d);
	assert_int_equal(re_edd_decode(re2_edd, sizeof(re2_edd), RE_GAME2, 0, &e, &a, &d), 0);
	assert_int_equal(e.nseq, 2);
	assert_int_equal(e.seq[0].frames[0].pose, 0x23);
	assert_int_equal(e.seq[0].frames[0].flags, 0x4);
	assert_int_equal(e.seq[0].frames[1].pose, 0xFFF);
	assert_int_equal(e.seq[0].frames[1].flags, 0x340);
	assert_int_equal(e.seq[1].frames[0].flags, 0xF0530);
	assert_int_equal(re_edd_encode(&e, RE_GAME2, "banks[0]", &out, &d), 0);
	assert_int_equal(out.len, sizeof(re2_edd));
	assert_memory_equal(out.data, re2_edd, sizeof(re2_edd));
	af_buf_free(&out);
	af_diag_free(&d);
	af_arena_free(&a);
	uint8_t b[sizeof(re2_edd)];
	memcpy(b, re2_edd, sizeof(b));
	b[2] = 6;
	expect_edd_error(b, sizeof(b), RE_GAME2, 2, "multiple of 4");
}

/* RE3 EMR, 3 bones (0 -> 1, 0 -> 2): A = align4(8 + 18) = 28, armature 28..40,
 * child list "01 02" at 40, K = 44; keyframes align4(8 + 14) = 24 bytes, 2 poses. */
static uint8_t re3_emr[44 + 48];

static void build_re3_emr(void)
{
	uint8_t *p = re3_emr;
	memset(re3_emr, 0, sizeof(re3_emr));
	const uint8_t head[] = { 28, 0, 44, 0, 3, 0, 24, 0 };
	const int16_t rel[9] = { 0, -900, 0, 0, -300, 0, 1, 400, -2 };
	memcpy(p, head, 8);
	for (int i = 0; i < 9; i++)
		p[8 + 2 * i] = (uint8_t)rel[i], p[9 + 2 * i] = (uint8_t)((uint16_t)rel[i] >> 8);
	const uint8_t arm[] = { 2, 0, 12, 0, 0, 0, 14, 0, 0, 0, 14, 0, 1, 2 };
	memcpy(p + 28, arm, sizeof(arm));
	for (int k = 0; k < 2; k++) {
		uint8_t *kf = p + 44 + 24 * k;
		kf[0] = (uint8_t)(k ? 0xCE : 0);  /* motion x = -50 for pose 1 */
		kf[1] = (uint8_t)(k ? 0xFF : 0);
		kf[6] = 0x7C, kf[7] = 0xFC;       /* y_offset -900 */
		for (unsigned a = 0; a < 9; a++)
			re_angle_put(kf + 8, a, (uint16_t)(a * 455 + k));
	}
}

static void test_emr_re3(void **state)
{
	(void)state;
	struct af_arena a;
	struct af_diag d;
	struct re_emr m;
	struct af_buf out = AF_BUF_INIT;
	build_re3_emr();
	af_arena_init(&a);
	af_diag_init(&d);
	assert_int_equal(re_emr_decode(re3_emr, sizeof(re3_emr), RE_GAME3, 0, 0, &m, &a, &d), 0);
	assert_true(m.has_skeleton);
	assert_int_equal(m.nbones, 3);
	assert_int_equal(m.parent[0], -1);
	assert_int_equal(m.parent[1], 0);
	assert_int_equal(m.parent[2], 0);
	assert_int_equal(m.relpos[2][2], -2);
	assert_int_equal(m.nposes, 2);
	assert_int_equal(m.poses[1].motion[0], -50);
	assert_int_equal(m.poses[1].y_offset, -900);
	assert_int_equal(m.poses[1].codes[8], 8 * 455 + 1);
	assert_int_equal(re_emr_encode(&m, RE_GAME3, &out, &d), 0);
	assert_int_equal(out.len, sizeof(re3_emr));
	assert_memory_equal(out.data, re3_emr, sizeof(re3_emr));
	/* rest offset edit: only those 2 bytes change */
	m.relpos[1][1] = -301;
	af_buf_reset(&out);
	assert_int_equal(re_emr_encode(&m, RE_GAME3, &out, &d), 0);
	assert_int_equal(af_le16(out.data + 16), (uint16_t)-301);
	out.data[16] = re3_emr[16];
	out.data[17] = re3_emr[17];
	assert_memory_equal(out.data, re3_emr, sizeof(re3_emr));
	af_buf_free(&out);
	af_diag_free(&d);
	af_arena_free(&a);
}

/* Bits after the last angle (3 bones: 108 bits of angles in a 128-bit area, 20 left)
 * are the pose's stray bits, LSB first from the nibble after the 9th angle: the bank
 * still decodes and rebuilds byte for byte, the other poses keep stray 0. */
static void test_emr_stray_bits(void **state)
{
	(void)state;
	struct af_arena a;
	struct af_diag d;
	struct re_emr m;
	struct af_buf out = AF_BUF_INIT;
	uint8_t b[sizeof(re3_emr)];
	build_re3_emr();
	assert_int_equal(re_stray_width(RE_GAME3, 3, 24), 20);
	assert_int_equal(re_stray_width(RE_GAME3, 15, 76), 4);
	assert_int_equal(re_stray_width(RE_GAME3, 9, 52), 28);
	assert_int_equal(re_stray_width(RE_GAME2, 15, 80), 4);
	assert_int_equal(re_stray_width(RE_GAME3, 8, 44), 0);
	memcpy(b, re3_emr, sizeof(b));
	b[44 + 24 + 21] |= 0x50; /* pose 1: the unused high nibble of the 9th angle's byte */
	b[44 + 24 + 23] = 0x0C;  /* and the last fill byte: stray bits 12-19 */
	af_arena_init(&a);
	af_diag_init(&d);
	assert_int_equal(re_emr_decode(b, sizeof(b), RE_GAME3, 0, 0, &m, &a, &d), 0);
	assert_int_equal(m.nposes, 2);
	assert_int_equal(m.poses[0].stray, 0);
	assert_int_equal(m.poses[1].stray, 0xC005);
	assert_int_equal(m.poses[1].codes[8], 8 * 455 + 1);
	assert_int_equal(re_emr_encode(&m, RE_GAME3, &out, &d), 0);
	assert_int_equal(out.len, sizeof(b));
	assert_memory_equal(out.data, b, sizeof(b));
	/* an angle edit of the same pose keeps the stray bits beside it */
	m.poses[1].codes[8] = 0xABC;
	af_buf_reset(&out);
	assert_int_equal(re_emr_encode(&m, RE_GAME3, &out, &d), 0);
	assert_int_equal(out.data[44 + 24 + 20], 0xBC);
	assert_int_equal(out.data[44 + 24 + 21], 0x5A);
	out.data[44 + 24 + 20] = b[44 + 24 + 20];
	out.data[44 + 24 + 21] = b[44 + 24 + 21];
	assert_memory_equal(out.data, b, sizeof(b));
	af_buf_free(&out);
	af_diag_free(&d);
	af_arena_free(&a);
}

static void expect_emr_error(const uint8_t *p, size_t n, uint64_t off, const char *text)
{
	struct af_arena a;
	struct af_diag d;
	struct re_emr m;
	af_arena_init(&a);
	af_diag_init(&d);
	assert_int_equal(re_emr_decode(p, n, RE_GAME3, 0, 500, &m, &a, &d), AF_EINVAL);
	assert_int_equal(d.offset, 500 + off);
	if (!strstr(d.msg, text))
		fail_msg("'%s' does not say '%s'", d.msg, text);
	af_diag_free(&d);
	af_arena_free(&a);
}

static void test_emr_errors(void **state)
{
	(void)state;
	uint8_t b[sizeof(re3_emr)];
	build_re3_emr();
	/* a pool cut inside its last keyframe: the whole ones and a tail */
	struct af_arena a;
	struct af_diag d;
	struct re_emr m;
	af_arena_init(&a);
	af_diag_init(&d);
	assert_int_equal(re_emr_decode(re3_emr, sizeof(re3_emr) - 2, RE_GAME3, 0, 0, &m, &a, &d), 0);
	assert_int_equal(m.nposes, 1);
	assert_int_equal(m.tail_len, 22);
	assert_ptr_equal(m.tail, re3_emr + 44 + 24);
	af_diag_free(&d);
	af_arena_free(&a);
	memcpy(b, re3_emr, sizeof(b));
	b[40] = 2, b[41] = 1; /* child list not ascending */
	expect_emr_error(b, sizeof(b), 41, "not ascending");
	memcpy(b, re3_emr, sizeof(b));
	b[41] = 1; /* bone 1 twice, bone 2 never */
	expect_emr_error(b, sizeof(b), 41, "repeated");
	memcpy(b, re3_emr, sizeof(b));
	b[6] = 28; /* keyframe size */
	expect_emr_error(b, sizeof(b), 6, "expected 24");
	memcpy(b, re3_emr, sizeof(b));
	b[0] = 32; /* armature offset */
	expect_emr_error(b, sizeof(b), 0, "armature offset");
	memcpy(b, re3_emr, sizeof(b));
	b[2] = 200; /* keyframe offset past the end */
	expect_emr_error(b, sizeof(b), 0, "EMR header");
	memcpy(b, re3_emr, sizeof(b));
	b[4] = 0; /* no bones */
	expect_emr_error(b, sizeof(b), 0, "EMR header");
	expect_emr_error(re3_emr, 6, 0, "shorter");
}

static void test_emr_header_only_and_seven(void **state)
{
	(void)state;
	struct af_arena a;
	struct af_diag d;
	struct re_emr m;
	struct af_buf out = AF_BUF_INIT;
	/* header-only RE2 bank: stale armature offset 0x1234, 1 bone, 1 keyframe of 20 bytes */
	uint8_t h[8 + 20] = { 0x34, 0x12, 8, 0, 1, 0, 20, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0,
			       0xAB, 0xCD, 0x0E, 0, 0, 0, 0, 0 };
	af_arena_init(&a);
	af_diag_init(&d);
	assert_int_equal(re_emr_decode(h, sizeof(h), RE_GAME2, 0, 0, &m, &a, &d), 0);
	assert_false(m.has_skeleton);
	assert_int_equal(m.armature_offset, 0x1234);
	assert_int_equal(m.poses[0].offset[2], 3);
	assert_int_equal(m.poses[0].motion[0], 4);
	assert_int_equal(m.poses[0].codes[0], 0xDAB);
	assert_int_equal(m.poses[0].codes[1], 0x0EC);
	assert_int_equal(re_emr_encode(&m, RE_GAME2, &out, &d), 0);
	assert_memory_equal(out.data, h, sizeof(h));
	/* 7-bone bank: header says 40-byte keyframes, pool of 3 x 32 bytes carried */
	uint8_t s[88 + 96];
	/* A = align4(8 + 42) = 52, 28 armature bytes, 6 children -> 86 -> K = 88 */
	memset(s, 0, sizeof(s));
	s[0] = 52, s[2] = 88, s[4] = 7, s[6] = 40;
	const int par[7] = { -1, 0, 1, 2, 0, 4, 5 };
	unsigned run = 28;
	for (unsigned b = 0; b < 7; b++) {
		unsigned cnt = 0;
		for (unsigned c = 1; c < 7; c++)
			if (par[c] == (int)b)
				s[52 + run + cnt++] = (uint8_t)c;
		s[52 + 4 * b] = (uint8_t)cnt;
		s[52 + 4 * b + 2] = (uint8_t)run;
		run += cnt;
	}
	for (size_t i = 88; i < sizeof(s); i++)
		s[i] = (uint8_t)(i * 7);
	af_buf_reset(&out);
	assert_int_equal(re_emr_decode(s, 184, RE_GAME3, 1, 0, &m, &a, &d), 0);
	assert_false(m.opaque_pool);
	assert_non_null(m.recs);
	assert_int_equal(m.nposes, 3);
	assert_int_equal((uint16_t)m.recs[1].motion[0], 120 * 7 % 256 | (121 * 7 % 256) << 8);
	assert_int_equal(m.parent[3], 2);
	assert_int_equal(m.parent[4], 0);
	assert_int_equal(re_emr_encode(&m, RE_GAME3, &out, &d), 0);
	assert_int_equal(out.len, 184);
	assert_memory_equal(out.data, s, 184);
	/* a 7-bone pool that ends inside a record: the whole records and a tail */
	assert_int_equal(re_emr_decode(s, 179, RE_GAME3, 1, 0, &m, &a, &d), 0);
	assert_int_equal(m.nposes, 2);
	assert_int_equal(m.tail_len, 27);
	af_buf_reset(&out);
	assert_int_equal(re_emr_encode(&m, RE_GAME3, &out, &d), 0);
	assert_int_equal(out.len, 179);
	assert_memory_equal(out.data, s, 179);
	/* outside the 7-bone slot the same bytes are 40-byte keyframes: the slot, not the
	 * size, picks the reading (2 keyframes, the last 16 bytes a tail) */
	assert_int_equal(re_emr_decode(s, 184, RE_GAME3, 0, 0, &m, &a, &d), 0);
	assert_null(m.recs);
	assert_int_equal(m.nposes, 2);
	assert_int_equal(m.tail_len, 16);
	af_buf_reset(&out);
	assert_int_equal(re_emr_encode(&m, RE_GAME3, &out, &d), 0);
	assert_memory_equal(out.data, s, 184);
	af_buf_free(&out);
	af_diag_free(&d);
	af_arena_free(&a);
}

static void put_le16(uint8_t *p, int v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)((unsigned)v >> 8);
}

/* A 7-bone record by hand (docs/re-model.md): s16 motion x y z, s16 8 x height, eight
 * 12-bit values LSB first (the angle packing of spec 5.4), two s16 foot triples. */
static void test_rec7_layout(void **state)
{
	(void)state;
	uint8_t p[32], back[32];
	const int16_t motion[3] = { -66, 0, 5 }, feet[6] = { -582, -1233, -2132, -553, -1228, 2103 };
	const uint8_t area[12] = { 0x23, 0x61, 0x45, 0x89, 0xC7, 0xAB, 0xEF, 0x2D, 0x01, 0x45,
				   0x83, 0x67 };
	const uint16_t v[8] = { 0x123, 0x456, 0x789, 0xABC, 0xDEF, 0x012, 0x345, 0x678 };
	struct re_rec7 r;
	for (int x = 0; x < 3; x++)
		put_le16(p + 2 * x, motion[x]);
	put_le16(p + 6, -14856);
	memcpy(p + 8, area, 12);
	for (int x = 0; x < 6; x++)
		put_le16(p + 20 + 2 * x, feet[x]);
	re_rec7_get(p, &r);
	assert_int_equal(r.motion[0], -66);
	assert_int_equal(r.motion[2], 5);
	assert_int_equal(r.y8, -14856);
	for (int k = 0; k < 8; k++)
		assert_int_equal(r.v[k], v[k]);
	assert_int_equal(r.feet[0][0], -582);
	assert_int_equal(r.feet[0][2], -2132);
	assert_int_equal(r.feet[1][1], -1228);
	assert_int_equal(r.feet[1][2], 2103);
	re_rec7_put(&r, back);
	assert_memory_equal(back, p, 32);
	/* every one of the 256 bits is a field: each flip reads back and rebuilds */
	for (unsigned bit = 0; bit < 256; bit++) {
		p[bit / 8] ^= (uint8_t)(1u << bit % 8);
		re_rec7_get(p, &r);
		re_rec7_put(&r, back);
		assert_memory_equal(back, p, 32);
		p[bit / 8] ^= (uint8_t)(1u << bit % 8);
	}
}

static void test_tree_check(void **state)
{
	(void)state;
	unsigned bad;
	const char *why;
	const int ok[4] = { -1, 0, 1, 1 };
	const int cycle[4] = { -1, 2, 3, 1 };
	const int self[3] = { -1, 1, 0 };
	const int two_roots[3] = { -1, -1, 0 };
	const int no_root[2] = { 1, 0 };
	assert_int_equal(re_tree_check(ok, 4, &bad, &why), 0);
	assert_int_equal(re_tree_check(cycle, 4, &bad, &why), -1);
	assert_int_equal(bad, 1);
	assert_non_null(strstr(why, "cycle"));
	assert_int_equal(re_tree_check(self, 3, &bad, &why), -1);
	assert_int_equal(bad, 1);
	assert_int_equal(re_tree_check(two_roots, 3, &bad, &why), -1);
	assert_int_equal(bad, 1);
	assert_int_equal(re_tree_check(no_root, 2, &bad, &why), -1);
	assert_int_equal(bad, 0);
}

/* A whole RE3 PLD from hand-built sections: EDD, EMR, and three tiny carried ones. */
static void build_pld(struct af_buf *out, size_t emr_len)
{
	static const uint8_t md2[8] = { 8, 0, 0, 0, 0, 0, 0, 0 }, zero[4] = { 0 },
			     tim[8] = { 0x10, 0, 0, 0, 2, 0, 0, 0 };
	struct re_sec sec[5] = {
		{ re3_edd, sizeof(re3_edd), 0 }, { re3_emr, emr_len, 0 }, { md2, 8, 0 },
		{ zero, 4, 0 }, { tim, 8, 0 },
	};
	struct af_diag d;
	af_diag_init(&d);
	build_re3_emr();
	assert_int_equal(re_dir_write(sec, 5, out, &d), 0);
	af_diag_free(&d);
}

static void test_container(void **state)
{
	(void)state;
	struct af_buf bin = AF_BUF_INIT, yaml = AF_BUF_INIT, back = AF_BUF_INIT;
	struct af_diag d;
	struct re_dir dir;
	af_diag_init(&d);
	build_pld(&bin, sizeof(re3_emr));
	re_read_dir(bin.data, bin.len, &dir);
	assert_int_equal(dir.count, 5);
	assert_int_equal(dir.len[0], sizeof(re3_edd));
	assert_int_equal(dir.off[1], 8 + sizeof(re3_edd));
	assert_true(re_codec()->bid("PL99.PLD", bin.data, 64) > 0);
	assert_true(re_codec()->bid("pl99.pld", bin.data, 64) > 0);
	assert_int_equal(re_codec()->bid("PL99.PLW", bin.data, 64), 0); /* 5 sections != PLW */
	assert_int_equal(re_codec()->bid("PL99.EMD", bin.data, 64), 0);
	assert_int_equal(re_codec()->bid("PL99.TIM", bin.data, 64), 0);
	assert_int_equal(re_codec()->bid("PL99.PLD", bin.data, 7), 0);
	uint8_t head[64];
	memcpy(head, bin.data, sizeof(head));
	head[10] = 12; /* first EDD frame list not at a whole number of 8-byte records */
	assert_int_equal(re_codec()->bid("PL99.PLD", head, 64), 0);
	memset(head + 8, 0, 4); /* an empty EDD */
	assert_true(re_codec()->bid("PL99.PLD", head, 64) > 0);
	/* frames refer to poses 5.. and 256.. of a 2-pose pool: each is kept, marked
	 * 'outside', and the bank stays decoded */
	assert_int_equal(re_dec(bin.data, bin.len, "PL99.PLD", &yaml, &d), 0);
	assert_int_equal(d.nwarnings, 0);
	af_buf_putc(&yaml, 0);
	yaml.len--;
	assert_null(strstr((char *)yaml.data, "verbatim: "));
	assert_non_null(strstr((char *)yaml.data, "          - [1, footfall, outside]   #"));
	assert_non_null(strstr((char *)yaml.data, "          - [0, 0x80, outside]   #"));
	assert_non_null(strstr((char *)yaml.data, "      - pose: 1\n"));
	assert_int_equal(re_enc((char *)yaml.data, yaml.len, &back, &d), 0);
	assert_int_equal(back.len, bin.len);
	assert_memory_equal(back.data, bin.data, bin.len);
	af_buf_free(&bin);
	af_buf_free(&yaml);
	af_buf_free(&back);
	af_diag_free(&d);
}

static void expect_dir_error(const uint8_t *p, size_t n, int64_t off, const char *text)
{
	struct af_buf yaml = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	assert_int_not_equal(re_dec(p, n, "X.PLD", &yaml, &d), 0);
	assert_int_equal(d.offset, off);
	if (!strstr(d.msg, text))
		fail_msg("'%s' does not say '%s'", d.msg, text);
	af_buf_free(&yaml);
	af_diag_free(&d);
}

static void test_directory_errors(void **state)
{
	(void)state;
	struct af_buf bin = AF_BUF_INIT;
	build_pld(&bin, sizeof(re3_emr));
	uint8_t *p = bin.data;
	uint32_t dir = af_le32(p);
	expect_dir_error(p, bin.len - 1, 0, "does not end");    /* truncated */
	expect_dir_error(p, 5, 0, "too short");
	p[0]++;                                                   /* directory past the end */
	expect_dir_error(p, bin.len, 0, "does not end");
	p[0]--;
	p[dir] = 12;                                              /* gap after the header */
	expect_dir_error(p, bin.len, dir, "right after the header");
	p[dir] = 8;
	uint32_t s2 = af_le32(p + dir + 8);
	af_buf_patch_u32le(&bin, dir + 8, af_le32(p + dir + 4) - 4); /* descending */
	expect_dir_error(p, bin.len, dir + 4, "ascend");
	af_buf_patch_u32le(&bin, dir + 8, s2);
	af_buf_patch_u32le(&bin, dir + 16, dir + 4);              /* last section past dir */
	expect_dir_error(p, bin.len, dir + 12, "ascend");
	af_buf_free(&bin);
}

/* A pool cut short inside a valid container: the bank is carried, the reason and
 * warning name the byte offset, and the file still rebuilds exactly. */
/* A bank that breaks a rule the encoder rebuilds (here: the EDD's pad is not FF FF) is
 * carried as bytes with the reason and its offset. */
static void test_verbatim_bank(void **state)
{
	(void)state;
	struct af_buf bin = AF_BUF_INIT, yaml = AF_BUF_INIT, back = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	build_pld(&bin, sizeof(re3_emr));
	assert_int_equal(bin.data[8 + 27], 0xFF);
	bin.data[8 + 27] = 0;
	assert_int_equal(re_dec(bin.data, bin.len, "X.PLD", &yaml, &d), 0);
	const char *want = "byte 0x22: expected the FF FF pad after the frame lists";
	assert_non_null(strstr((char *)yaml.data, want));
	assert_non_null(strstr((char *)d.warnings.data, want));
	assert_int_equal(re_enc((char *)yaml.data, yaml.len, &back, &d), 0);
	assert_int_equal(back.len, bin.len);
	assert_memory_equal(back.data, bin.data, bin.len);
	af_buf_free(&bin);
	af_buf_free(&yaml);
	af_buf_free(&back);
	af_diag_free(&d);
}

/* A pool that ends in a partial keyframe keeps those bytes as pool_tail; the whole
 * keyframes before it stay editable and the bytes rebuild. */
static void test_pool_tail(void **state)
{
	(void)state;
	static const uint8_t edd[16] = { 2, 0, 8, 0, 0, 0, 0, 0, 0, 0, 1, 0, 12, 0, 0, 0 },
			     md2[8] = { 8, 0, 0, 0, 0, 0, 0, 0 }, zero[4] = { 0 },
			     tim[8] = { 0x10, 0, 0, 0, 2, 0, 0, 0 }, tail[6] = { 1, 2, 3, 4, 5, 0xAB };
	uint8_t emr[sizeof(re3_emr) + sizeof(tail)];
	struct af_buf bin = AF_BUF_INIT, yaml = AF_BUF_INIT, back = AF_BUF_INIT;
	struct af_diag d;
	build_re3_emr();
	memcpy(emr, re3_emr, sizeof(re3_emr));
	memcpy(emr + sizeof(re3_emr), tail, sizeof(tail));
	struct re_sec sec[5] = { { edd, sizeof(edd), 0 }, { emr, sizeof(emr), 0 }, { md2, 8, 0 },
				 { zero, 4, 0 }, { tim, 8, 0 } };
	af_diag_init(&d);
	assert_int_equal(re_dir_write(sec, 5, &bin, &d), 0);
	assert_int_equal(re_dec(bin.data, bin.len, "X.PLD", &yaml, &d), 0);
	assert_int_equal(d.nwarnings, 0);
	af_buf_putc(&yaml, 0);
	const char *text = (char *)yaml.data;
	assert_null(strstr(text, "verbatim"));
	assert_non_null(strstr(text, "    # pool_tail: 6 bytes after the last whole keyframe"));
	assert_non_null(strstr(text, "\n    pool_tail: |\n      0102030405ab\n"));
	assert_non_null(strstr(text, "      - pose: 1\n"));
	assert_int_equal(re_enc(text, yaml.len - 1, &back, &d), 0);
	assert_int_equal(back.len, bin.len);
	assert_memory_equal(back.data, bin.data, bin.len);
	/* a tail as long as a keyframe would be a keyframe */
	char *bad = re_replace(text, NULL, "0102030405ab", "000000000000000000000000000000000000000000000000");
	af_buf_reset(&back);
	assert_int_not_equal(re_enc(bad, strlen(bad), &back, &d), 0);
	assert_non_null(strstr(d.msg, "banks[0].pool_tail: 24 bytes; a tail holds 1 to 23"));
	free(bad);
	af_buf_free(&bin);
	af_buf_free(&yaml);
	af_buf_free(&back);
	af_diag_free(&d);
}

/* Every single-bit flip of a small whole file: no crash, and what decodes rebuilds. */
static void test_every_bit_flip(void **state)
{
	(void)state;
	struct af_buf bin = AF_BUF_INIT;
	build_pld(&bin, sizeof(re3_emr));
	for (size_t i = 0; i < bin.len; i++) {
		for (int b = 0; b < 8; b++) {
			bin.data[i] ^= (uint8_t)(1u << b);
			re_survive(bin.data, bin.len, "X.PLD");
			bin.data[i] ^= (uint8_t)(1u << b);
		}
		re_survive(bin.data, i, "X.PLD"); /* every truncation too */
	}
	af_buf_free(&bin);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_angle_packing),
		cmocka_unit_test(test_degrees),
		cmocka_unit_test(test_edd_re3),
		cmocka_unit_test(test_edd_re3_errors),
		cmocka_unit_test(test_edd_re2),
		cmocka_unit_test(test_emr_re3),
		cmocka_unit_test(test_emr_errors),
		cmocka_unit_test(test_emr_stray_bits),
		cmocka_unit_test(test_emr_header_only_and_seven),
		cmocka_unit_test(test_rec7_layout),
		cmocka_unit_test(test_tree_check),
		cmocka_unit_test(test_container),
		cmocka_unit_test(test_directory_errors),
		cmocka_unit_test(test_verbatim_bank),
		cmocka_unit_test(test_pool_tail),
		cmocka_unit_test(test_every_bit_flip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
