/* Diesel `.animation` codec: hand-built blobs for the six track types and both
 * containers, the 64-bit layout built from YAML, every decode error path, the
 * YAML validation errors (line:col and text), and the quantisation worked examples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>
#include <zlib.h>

#include "animfs/bytes.h"
#include "animfs/codec.h"
#include "animfs/num.h"
#include "../../src/codec/diesel/diesel.h"

extern const struct af_codec af_codec_diesel;
#define C (&af_codec_diesel)

/* ---------------------------------------------------------------- helpers */

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

static void putf(uint8_t *p, float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	put32(p, u);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
}

/* A stock 32-bit blob: one object "root", no events, one position and one
 * rotation track of nk keys each (key bytes given, times included). */
static size_t mk_blob(uint8_t *b, uint32_t ph, unsigned ps, const uint8_t *pk, uint32_t rh,
		      unsigned rs, const uint8_t *rk, uint32_t nk)
{
	memset(b, 0, 60);
	put32(b, 0x0883CC85);
	putf(b + 0x10, 1.0f);
	put32(b + 0x14, 1), put32(b + 0x18, 60);           /* names */
	put32(b + 60, 64);
	memcpy(b + 64, "root", 5);                         /* 69, pad to 72 */
	b[69] = b[70] = b[71] = 0;
	put32(b + 0x1C, 0), put32(b + 0x20, 72);           /* unknown */
	put32(b + 0x24, 0), put32(b + 0x28, 72);           /* events */
	size_t o = 72;
	put32(b + 0x2C, 1), put32(b + 0x30, (uint32_t)o);  /* positions */
	put32(b + o, ph), put32(b + o + 4, (uint32_t)o + 8);
	put32(b + o + 8, 0), put32(b + o + 12, nk), put32(b + o + 16, (uint32_t)o + 20);
	memcpy(b + o + 20, pk, ps * nk);
	o += 20 + ps * nk;
	put32(b + 0x34, 1), put32(b + 0x38, (uint32_t)o);  /* rotations */
	put32(b + o, rh), put32(b + o + 4, (uint32_t)o + 8);
	put32(b + o + 8, 0), put32(b + o + 12, nk), put32(b + o + 16, (uint32_t)o + 20);
	memcpy(b + o + 20, rk, rs * nk);
	o += 20 + rs * nk;
	put32(b + 0x0C, (uint32_t)o);
	return o;
}

static size_t zwrap(uint8_t *out, const uint8_t *blob, size_t n)
{
	uLongf dl = compressBound(n);
	assert_int_equal(compress2(out, &dl, blob, n, 6), Z_OK);
	put32(out + dl, (uint32_t)n);
	return dl + 4;
}

/* decode -> YAML (NUL-terminated in y) -> encode must give the same bytes */
static void roundtrip(const uint8_t *bin, size_t n, struct af_buf *y)
{
	struct af_buf back = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	af_buf_reset(y);
	int rc = C->to_yaml(bin, n, NULL, y, &d);
	if (rc)
		fail_msg("decode: %s", d.msg);
	af_buf_putc(y, 0);
	y->len--;
	rc = C->from_yaml(y->data, y->len, NULL, &back, &d);
	if (rc)
		fail_msg("encode: %d:%d %s", d.line, d.col, d.msg);
	assert_int_equal(back.len, n);
	assert_memory_equal(back.data, bin, n);
	af_buf_free(&back);
	af_diag_free(&d);
}

static void contains(const struct af_buf *y, const char *text)
{
	if (!strstr((const char *)y->data, text))
		fail_msg("YAML lacks '%s':\n%s", text, (const char *)y->data);
}

/* ---------------------------------------------------------------- track types */

/* The code table behind diesel_fmt_cm agrees with the decimal search on every code,
 * and each text re-encodes to its code. */
static void test_cm_table(void **state)
{
	(void)state;
	for (uint32_t c = 0; c < 65536; c++) {
		char a[AF_NUM_MAX], b[AF_NUM_MAX];
		size_t na = diesel_fmt_cm(a, (uint16_t)c), nb = diesel_fmt_cm_slow(b, (uint16_t)c);
		assert_int_equal(na, nb);
		assert_memory_equal(a, b, na + 1);
		uint16_t back;
		assert_int_equal(diesel_cm_to_u16(strtod(a, NULL), &back), 0);
		assert_int_equal(back, c);
	}
}

static void test_u16_packed(void **state)
{
	(void)state;
	uint8_t pk[24], rk[16], blob[512], z[1024];
	struct af_buf y = AF_BUF_INIT;
	/* Hips key 0 of the spec (5.2): raw 33252, 34007, 35350 */
	putf(pk, 0.0f), put16(pk + 4, 33252), put16(pk + 6, 34007), put16(pk + 8, 35350), put16(pk + 10, 0);
	putf(pk + 12, 0.5f), put16(pk + 16, 32767), put16(pk + 18, 0), put16(pk + 20, 65535), put16(pk + 22, 39321);
	putf(rk, 0.0f), put32(rk + 4, 0x979587FD);
	putf(rk + 8, 0.5f), put32(rk + 12, 0x80200803);
	size_t n = mk_blob(blob, 0x1DC686E0, 12, pk, 0x96ECB85C, 8, rk, 2);
	roundtrip(blob, n, &y);
	contains(&y, "container: raw\n");
	contains(&y, "type: pos_u16\n");
	/* extra varies (0, 39321): carried per key */
	contains(&y, "- [0.0, 14.8, 37.84, 78.83, 0]\n");
	contains(&y, "- [0.5, 0.0, -1000.0, 1000.03, 39321]\n");
	contains(&y, "- [0.0, 0.138, 0.959, -0.001, -0.246]\n");
	contains(&y, "- [0.5, 0.000, 0.000, 0.000, 1.000]\n");
	roundtrip(z, zwrap(z, blob, n), &y);
	contains(&y, "container: zlib\n  zlib_level: 6\n");
	af_buf_free(&y);
}

static void test_f32_types(void **state)
{
	(void)state;
	uint8_t pk[32], rk[40], blob[512], z[1024];
	struct af_buf y = AF_BUF_INIT;
	putf(pk, 0.0f), putf(pk + 4, -453.5727f), putf(pk + 8, -7.604654e-14f), putf(pk + 12, -1043.5725f);
	putf(pk + 16, 1.0f), putf(pk + 20, 1.5f), putf(pk + 24, 0.0f), putf(pk + 28, -0.0f);
	putf(rk, 0.0f), putf(rk + 4, -0.08926095f), putf(rk + 8, 0.08598223f), putf(rk + 12, 0.024530852f),
		putf(rk + 16, -0.99198675f);
	putf(rk + 20, 1.0f), putf(rk + 24, 0), putf(rk + 28, 0), putf(rk + 32, 0), putf(rk + 36, 1);
	size_t n = mk_blob(blob, 0x9D3DE40D, 16, pk, 0x9DFB92B6, 20, rk, 2);
	roundtrip(blob, n, &y);
	contains(&y, "type: pos_f32\n");
	contains(&y, "- [0.0, -453.5727, -7.604654e-14, -1043.5725]\n");
	contains(&y, "- [1.0, 1.5, 0.0, -0.0]\n");
	contains(&y, "type: rot_f32\n");
	contains(&y, "- [0.0, -0.08926095, 0.08598223, 0.024530852, -0.99198675]\n");
	roundtrip(z, zwrap(z, blob, n), &y);
	af_buf_free(&y);
}

static void test_flag_types(void **state)
{
	(void)state;
	uint8_t pk[20], rk[24], blob[512], z[1024];
	struct af_buf y = AF_BUF_INIT;
	putf(pk, 0.0f), putf(pk + 4, 1.25f), putf(pk + 8, 2.5f), putf(pk + 12, -3.0f), put32(pk + 16, 1);
	putf(rk, 0.0f), putf(rk + 4, 0), putf(rk + 8, 0.70710677f), putf(rk + 12, 0), putf(rk + 16, 0.70710677f),
		put32(rk + 20, 1);
	size_t n = mk_blob(blob, 0x1196CFB2, 20, pk, 0xE91A69BA, 24, rk, 1);
	roundtrip(blob, n, &y);
	contains(&y, "type: pos_f32_flag\n      keys:\n        - [0.0, 1.25, 2.5, -3.0, 1]\n");
	contains(&y, "type: rot_f32_flag\n      keys:\n        - [0.0, 0.0, 0.70710677, 0.0, 0.70710677, 1]\n");
	roundtrip(z, zwrap(z, blob, n), &y);
	af_buf_free(&y);
}

static size_t sample_blob(uint8_t *blob)
{
	uint8_t pk[12], rk[8];
	putf(pk, 0.0f), put16(pk + 4, 33252), put16(pk + 6, 34007), put16(pk + 8, 35350), put16(pk + 10, 0);
	putf(rk, 0.0f), put32(rk + 4, 0x80200803);
	return mk_blob(blob, 0x1DC686E0, 12, pk, 0x96ECB85C, 8, rk, 1);
}

/* Header oddities are kept as found: byte-swapped magic (PD2ModelParser), size 0,
 * unknown and events offsets 0 (DieselEngineFormats), version/location words. */
static void test_header_variants(void **state)
{
	(void)state;
	uint8_t blob[512], z[1024];
	struct af_buf y = AF_BUF_INIT;
	size_t n = sample_blob(blob);
	blob[0] = 0x08, blob[1] = 0x83, blob[2] = 0xCC, blob[3] = 0x85;
	put32(blob + 0x04, 7);
	put32(blob + 0x08, 0x1000);
	put32(blob + 0x0C, 0);
	put32(blob + 0x20, 0); /* unknown offset */
	put32(blob + 0x28, 0); /* events offset, no events */
	roundtrip(blob, n, &y);
	contains(&y, "  magic: 0x85CC8308\n  version: 7\n  location: 4096\n  size_field: 0\n"
		     "  unknown_offset: events\n  empty_events_offset: 0\n"); /* both 0 */
	roundtrip(z, zwrap(z, blob, n), &y);
	af_buf_free(&y);
}

/* An af_io whose only file is the original binary. */
struct orig {
	const uint8_t *p;
	size_t n;
};

static int orig_read(void *ctx, const char *name, struct af_buf *out)
{
	const struct orig *o = ctx;
	(void)name;
	return af_buf_append(out, o->p, o->n) ? AF_ENOMEM : 0;
}

/* zlib streams other than compress2 level 6: other levels, hand-made headers,
 * bytes before the trailer, and a stream no level reproduces (kept as base64). */
static void test_zlib_variants(void **state)
{
	(void)state;
	uint8_t blob[512], z[1024];
	struct af_buf y = AF_BUF_INIT;
	size_t n = sample_blob(blob);
	uLongf zl = sizeof(z);
	assert_int_equal(compress2(z, &zl, blob, n, 1), Z_OK);
	put32(z + zl, (uint32_t)n);
	roundtrip(z, zl + 4, &y);
	contains(&y, "  zlib_level: 1\n  magic:");
	size_t zn = zwrap(z, blob, n);
	z[1] = 0xDA; /* 78 DA in front of level-6 data */
	roundtrip(z, zn, &y);
	contains(&y, "  zlib_level: 6\n  zlib_header: 0x78DA\n");
	memmove(z + zn - 1, z + zn - 4, 4); /* 3 extra bytes before the trailer */
	z[zn - 4] = 0xAA, z[zn - 3] = 0xBB, z[zn - 2] = 0xCC;
	roundtrip(z, zn + 3, &y);
	contains(&y, "  zlib_extra: |\n    aabbcc\n");
	/* two stored blocks by hand: no compress2 level splits a small input so */
	size_t h = n / 2, o = 2;
	z[0] = 0x78, z[1] = 0x9C;
	z[o++] = 0x00, put16(z + o, (uint16_t)h), put16(z + o + 2, (uint16_t)~h), o += 4;
	memcpy(z + o, blob, h), o += h;
	z[o++] = 0x01, put16(z + o, (uint16_t)(n - h)), put16(z + o + 2, (uint16_t)~(n - h)), o += 4;
	memcpy(z + o, blob + h, n - h), o += n - h;
	uint32_t ad = (uint32_t)adler32(adler32(0, NULL, 0), blob, (uInt)n);
	z[o] = (uint8_t)(ad >> 24), z[o + 1] = (uint8_t)(ad >> 16), z[o + 2] = (uint8_t)(ad >> 8),
	z[o + 3] = (uint8_t)ad;
	put32(z + o + 4, (uint32_t)n);
	assert_int_equal(o + 8, 15 + n + 5);
	/* 78 9C is taken as level 6 on decode; encode proves it against the original */
	struct af_buf out = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	af_buf_reset(&y);
	assert_int_equal(C->to_yaml(z, o + 8, NULL, &y, &d), 0);
	af_buf_putc(&y, 0), y.len--;
	contains(&y, "  zlib_level: 6\n  magic:");
	/* the original at hand (as in a mount or `animfs check`): byte for byte */
	struct orig o1 = { z, o + 8 };
	struct af_io io = { .name = "x.animation", .read_sibling = orig_read, .ctx = &o1 };
	assert_int_equal(C->from_yaml(y.data, y.len, &io, &out, &d), 0);
	assert_int_equal(out.len, o + 8);
	assert_memory_equal(out.data, z, o + 8);
	/* not at hand: the same content in a level-6 stream */
	af_buf_reset(&out);
	assert_int_equal(C->from_yaml(y.data, y.len, NULL, &out, &d), 0);
	assert_int_equal(out.data[2] & 0x07, 0x03); /* one final block, fixed Huffman codes */
	assert_int_equal(af_le32(out.data + out.len - 4), n);
	/* edited: the original no longer holds this content, a level-6 stream */
	char *at = strstr((char *)y.data, "14.8, ");
	assert_non_null(at);
	at[3] = '9';
	af_buf_reset(&out);
	assert_int_equal(C->from_yaml(y.data, y.len, &io, &out, &d), 0);
	assert_int_equal(out.data[0], 0x78);
	assert_int_equal(out.data[1], 0x9C);
	assert_int_not_equal(out.data[2], 0x00);
	/* a hand-made 78 DA header is still proven on decode and kept */
	uLongf zl2 = sizeof(z);
	assert_int_equal(compress2(z, &zl2, blob, n, 6), Z_OK);
	z[1] = 0xDA;
	put32(z + zl2, (uint32_t)n);
	roundtrip(z, zl2 + 4, &y);
	contains(&y, "  zlib_level: 6\n  zlib_header: 0x78DA\n");
	af_buf_free(&out);
	af_diag_free(&d);
	af_buf_free(&y);
}

/* ---------------------------------------------------------------- YAML side */

static const char *const WALK =
	"format: diesel-animation\n"                /* 1 */
	"length: 1.0\n"                             /* 2 */
	"events:\n"                                 /* 3 */
	"  - [0.5, step]\n"                         /* 4 */
	"objects:\n"                                /* 5 */
	"  - name: root\n"                          /* 6 */
	"    position:\n"                           /* 7 */
	"      type: pos_u16\n"                     /* 8 */
	"      keys:\n"                             /* 9 */
	"        - [0.0, 1.0, 2.0, 3.0]\n"          /* 10 */
	"        - [0.5, 1.5, 2.5, 3.5]\n"          /* 11 */
	"    rotation:\n"                           /* 12 */
	"      type: rot_packed\n"                  /* 13 */
	"      keys:\n"                             /* 14 */
	"        - [0.0, 0.0, 0.0, 0.0, 1.0]\n"     /* 15 */
	"  - name: hips\n"                          /* 16 */
	"    position:\n"                           /* 17 */
	"      type: pos_f32\n"                     /* 18 */
	"      keys:\n"                             /* 19 */
	"        - [0.0, 1.0, 2.0, 3.0]\n"          /* 20 */
	"    rotation:\n"                           /* 21 */
	"      type: rot_f32\n"                     /* 22 */
	"      keys:\n"                             /* 23 */
	"        - [0.0, 0.0, 0.0, 0.0, 1.0]\n";    /* 24 */

/* WALK with the first `from` replaced by `to`, encoded. */
static int encode_edit(const char *from, const char *to, struct af_buf *out, struct af_diag *d)
{
	char text[4096];
	const char *at = strstr(WALK, from);
	assert_non_null(at);
	snprintf(text, sizeof(text), "%.*s%s%s", (int)(at - WALK), WALK, to, at + strlen(from));
	af_diag_init(d);
	af_buf_reset(out);
	return C->from_yaml((const uint8_t *)text, strlen(text), NULL, out, d);
}

static void expect_error(const char *from, const char *to, unsigned line, unsigned col,
			 const char *msg)
{
	struct af_buf out = AF_BUF_INIT;
	struct af_diag d;
	int rc = encode_edit(from, to, &out, &d);
	if (rc != AF_EINVAL || d.line != line || d.col != col || strcmp(d.msg, msg))
		fail_msg("edit '%s' -> '%s': rc %d at %u:%u '%s'; wanted %u:%u '%s'", from, to, rc,
			 d.line, d.col, d.msg, line, col, msg);
	assert_int_equal(out.len, 0); /* never a partial write */
	af_buf_free(&out);
	af_diag_free(&d);
}

static void test_walk_encodes(void **state)
{
	(void)state;
	struct af_buf out = AF_BUF_INIT, y = AF_BUF_INIT;
	struct af_diag d;
	assert_int_equal(encode_edit("", "", &out, &d), 0);
	assert_int_equal(d.nwarnings, 1);
	af_buf_putc(&d.warnings, 0);
	assert_string_equal((const char *)d.warnings.data,
			    "16:5: warning: objects[1].rotation: type rot_f32 differs from objects[0] (rot_packed); known files use one rotation type per file\n");
	assert_int_equal(out.data[0], 0x78);
	assert_int_equal(out.data[1], 0x9C);
	af_diag_free(&d);
	af_diag_init(&d);
	assert_int_equal(C->to_yaml(out.data, out.len, NULL, &y, &d), 0);
	af_buf_putc(&y, 0);
	contains(&y, "  - [0.5, step]  # 0.500 s\n");
	contains(&y, "        - [0.5, 1.5, 2.5, 3.5]\n");
	contains(&y, "        - [0.0, 0.000, 0.000, 0.000, 1.000]\n");
	af_buf_free(&out);
	af_buf_free(&y);
	af_diag_free(&d);
}

static void test_validation_errors(void **state)
{
	(void)state;
	expect_error("[0.5, 1.5, 2.5, 3.5]", "[0.0, 1.5, 2.5, 3.5]", 11, 12,
		     "objects[0].position.keys[1]: time 0.0 is not greater than the previous key time 0.0");
	/* times compare after rounding to f32 */
	expect_error("[0.0, 1.0, 2.0, 3.0]\n        - [0.5,", "[0.5, 1.0, 2.0, 3.0]\n        - [0.50000001,", 11, 12,
		     "objects[0].position.keys[1]: time 0.5 is not greater than the previous key time 0.5");
	expect_error("[0.0, 1.0, 2.0, 3.0]", "[-0.1, 1.0, 2.0, 3.0]", 10, 12,
		     "objects[0].position.keys[0]: time -0.1 must be >= 0");
	expect_error("[0.5, 1.5, 2.5, 3.5]", "[0.5, 1200.0, 2.5, 3.5]", 11, 17,
		     "objects[0].position.keys[1]: 1200.0 cm is outside -1000..+1000, which pos_u16 cannot store; use type pos_f32");
	expect_error("[0.5, 1.5, 2.5, 3.5]", "[0.5, abc, 2.5, 3.5]", 11, 17,
		     "objects[0].position.keys[1]: 'abc' is not a number");
	expect_error("[0.5, 1.5, 2.5, 3.5]", "[0.5, .nan, 2.5, 3.5]", 11, 17,
		     "objects[0].position.keys[1]: '.nan' is not a number");
	expect_error("[0.5, 1.5, 2.5, 3.5]", "[0.5, 1.5, 2.5]", 11, 11,
		     "objects[0].position.keys[1]: a pos_u16 key is [time, x, y, z] or [time, x, y, z, extra]; found 3 values");
	expect_error("- [0.0, 0.0, 0.0, 0.0, 1.0]\n  - name: hips", "- [0.0, 0.0, 0.0, 0.0, 2.0]\n  - name: hips",
		     15, 17,
		     "objects[0].rotation.keys[0]: quaternion [0, 0, 0, 2] has length 2.0000; a rotation must be a unit quaternion");
	expect_error("[0.0, 0.0, 0.0, 0.0, 1.0]", "[0.0, 0.0, 0.0, 0.0, 1.0, 0xFFFFFFFF]", 15, 37,
		     "objects[0].rotation.keys[0]: the raw packed code 0xFFFFFFFF does not decode to a rotation");
	expect_error("name: hips", "name: root", 16, 11, "objects[1]: 'root': duplicate name (also objects[0])");
	expect_error("name: hips", "name: \"\"", 16, 11, "objects[1].name: name is empty");
	expect_error("type: pos_f32", "type: pos_f64", 18, 13,
		     "objects[1].position.type: unknown track type 'pos_f64' (known: pos_u16, pos_f32, pos_f32_flag, rot_f32, rot_packed, rot_f32_flag)");
	expect_error("type: rot_f32", "type: pos_f32", 22, 13,
		     "objects[1].rotation.type: pos_f32 is a position type; a rotation track takes rot_f32, rot_packed or rot_f32_flag");
	expect_error("      keys:\n        - [0.0, 1.0, 2.0, 3.0]\n    rotation:\n      type: rot_f32",
		     "      keys:\n    rotation:\n      type: rot_f32", 19, 12,
		     "objects[1].position: track has no keys");
	expect_error("    rotation:\n      type: rot_f32\n      keys:\n        - [0.0, 0.0, 0.0, 0.0, 1.0]\n", "",
		     16, 5,
		     "objects[1]: 'hips': no rotation track (every object needs one position and one rotation track)");
	expect_error("    position:\n      type: pos_f32", "    positon:\n      type: pos_f32", 17, 5,
		     "objects[1]: unknown key 'positon' (expected name, position, rotation)");
	expect_error("[0.5, step]", "[0.5, \"\"]", 4, 11, "events[0]: name is empty");
	expect_error("length: 1.0", "length: -1.0", 2, 9, "length: '-1.0' must be a number of seconds >= 0");
}

static void test_validation_warnings(void **state)
{
	(void)state;
	struct af_buf out = AF_BUF_INIT;
	struct af_diag d;
	/* a real sample has an event at 1.3421: a warning, never an error */
	assert_int_equal(encode_edit("[0.5, step]", "[1.3421, step]", &out, &d), 0);
	assert_int_equal(d.nwarnings, 2); /* and the mixed rotation types */
	af_buf_putc(&d.warnings, 0);
	assert_non_null(strstr((const char *)d.warnings.data,
			    "4:6: warning: events[0] (step): time 1.3421 is outside 0..1; event times are a fraction of the animation length, not seconds\n"));
	af_diag_free(&d);
	/* keys after the length: third-party files have them */
	assert_int_equal(encode_edit("length: 1.0", "length: 0.25", &out, &d), 0);
	assert_int_equal(d.nwarnings, 2);
	af_buf_putc(&d.warnings, 0);
	assert_non_null(strstr((const char *)d.warnings.data,
			    "11:12: warning: objects[0].position.keys[1]: time 0.5 is after the animation length 0.25\n"));
	af_diag_free(&d);
	af_buf_free(&out);
}

/* ---------------------------------------------------------------- 64-bit */

static void test_64bit_from_yaml(void **state)
{
	(void)state;
	const char *y64 =
		"format: diesel-animation\nlength: 2.0\n"
		"binary: {layout: 64-bit, container: raw, name_pad: 8, event_pad: 8, track_align: 8}\n"
		"events:\n  - [0.25, a]\n  - [1.0, a]\n"
		"objects:\n  - name: root_point\n    position: {type: pos_u16, keys: [[0.0, 1.0, 2.0, 3.0]]}\n"
		"    rotation: {type: rot_packed, keys: [[0.0, 0.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.7071068, 0.0, 0.7071068]]}\n";
	struct af_buf bin = AF_BUF_INIT, y = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	assert_int_equal(C->from_yaml((const uint8_t *)y64, strlen(y64), NULL, &bin, &d), 0);
	const uint8_t *b = bin.data;
	assert_int_equal(af_le32(b), 0x0883CC85);
	assert_int_equal(af_le64(b + 0x10), bin.len);             /* file_size */
	assert_int_equal(af_le64(b + 0x28), 1);                   /* names count */
	assert_int_equal(af_le64(b + 0x30), 120);                 /* names offset */
	assert_int_equal(af_le64(b + 0x48), 2);                   /* events */
	uint64_t ev = af_le64(b + 0x50), pos = af_le64(b + 0x60), rot = af_le64(b + 0x70);
	assert_int_equal(af_le64(b + 0x40), ev);                  /* unknown = events offset */
	assert_int_equal(ev % 8, 0);
	assert_int_equal(pos % 8, 0);
	assert_int_equal(rot % 8, 0);
	assert_int_equal(af_le64(b + ev + 8), af_le64(b + ev + 24)); /* de-duplicated name */
	assert_int_equal(af_le64(b + pos), 0x1DC686E0);
	uint64_t hdr = af_le64(b + rot + 8);
	assert_int_equal(af_le64(b + hdr + 8), 2);                /* key count */
	assert_int_equal(af_le64(b + hdr + 16), hdr + 24);
	assert_int_equal(af_le32(b + hdr + 24 + 12) & 3, 1);      /* 90-degree tie: k = 1 */
	roundtrip(bin.data, bin.len, &y);
	contains(&y, "  layout: 64-bit       # 32-bit converts");
	contains(&y, "decoded_as: 64-bit   # the layout the keys below describe\n  container: raw\n");
	af_buf_free(&bin);
	af_buf_free(&y);
	af_diag_free(&d);
}

/* track_align 4 in a 64-bit file whose first track header is 8-aligned by chance:
 * the later, 4-aligned headers decide (found by fuzzing). */
static void test_track_align_by_chance(void **state)
{
	(void)state;
	const char *y =
		"format: diesel-animation\nlength: 1.0\n"
		"binary: {layout: 64-bit, container: raw, name_pad: 4, event_pad: 4, track_align: 4}\n"
		"objects:\n"
		"  - name: ab\n    position: {type: pos_f32_flag, keys: [[0.0, 1.0, 2.0, 3.0, 1]]}\n"
		"    rotation: {type: rot_f32_flag, keys: [[0.0, 0.0, 0.0, 0.0, 1.0, 1]]}\n"
		"  - name: c\n    position: {type: pos_f32_flag, keys: [[0.0, 1.0, 2.0, 3.0, 1]]}\n"
		"    rotation: {type: rot_f32_flag, keys: [[0.0, 0.0, 0.0, 0.0, 1.0, 1]]}\n";
	struct af_buf bin = AF_BUF_INIT, out = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	assert_int_equal(C->from_yaml((const uint8_t *)y, strlen(y), NULL, &bin, &d), 0);
	assert_int_equal(af_le64(bin.data + 0x60), 144);                 /* position table */
	assert_int_equal(af_le64(bin.data + 144 + 8), 176);              /* header 0: 8-aligned */
	assert_int_equal(af_le64(bin.data + 144 + 24), 176 + 24 + 20);   /* header 1: not */
	roundtrip(bin.data, bin.len, &out);
	contains(&out, "  track_align: 4\n");
	af_buf_free(&bin);
	af_buf_free(&out);
	af_diag_free(&d);
}

/* ---------------------------------------------------------------- decode errors */

static void expect_decode_error(const uint8_t *bin, size_t n, int code, int64_t off,
				const char *msg_part)
{
	struct af_buf y = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	int rc = C->to_yaml(bin, n, NULL, &y, &d);
	if (rc != code || (off != -2 && d.offset != off) || !strstr(d.msg, msg_part))
		fail_msg("rc %d offset %lld '%s'; wanted %d %lld '%s'", rc, (long long)d.offset, d.msg,
			 code, (long long)off, msg_part);
	assert_int_equal(y.len, 0);
	af_buf_free(&y);
	af_diag_free(&d);
}

/* It decodes but does not rebuild: a complete view with the reason at its top,
 * AF_VIEW_READONLY and d set; its YAML refuses to encode until read_only: goes. */
static void expect_readonly(const uint8_t *bin, size_t n, int64_t off, const char *msg_part)
{
	struct af_buf y = AF_BUF_INIT, back = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	int rc = C->to_yaml(bin, n, NULL, &y, &d);
	if (rc != AF_VIEW_READONLY || d.code != AF_EUNSUP || d.offset != off || !strstr(d.msg, msg_part))
		fail_msg("rc %d offset %lld '%s'; wanted a read-only view, %lld '%s'", rc,
			 (long long)d.offset, d.msg, (long long)off, msg_part);
	af_buf_putc(&y, 0);
	y.len--;
	contains(&y, "# READ-ONLY: animfs reads this file but cannot write it back byte for byte:\n");
	contains(&y, "\nread_only: ");
	af_diag_clear(&d);
	assert_int_equal(C->from_yaml(y.data, y.len, NULL, &back, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "read_only: this file is shown read-only"));
	/* without the line it saves in animfs's own layout, and that decodes cleanly */
	char *ro = strstr((char *)y.data, "\nread_only: ");
	char *eol = strchr(ro + 1, '\n');
	memmove(ro, eol, strlen(eol) + 1);
	y.len = strlen((char *)y.data);
	af_diag_clear(&d);
	assert_int_equal(C->from_yaml(y.data, y.len, NULL, &back, &d), 0);
	af_buf_reset(&y);
	assert_int_equal(C->to_yaml(back.data, back.len, NULL, &y, &d), 0);
	af_buf_free(&y);
	af_buf_free(&back);
	af_diag_free(&d);
}

/* A rot_f32 key of a file must be a unit quaternion to within 0.01: 1.005 and lengths
 * near the limit on either side (0.9902, 1.0098) decode; 0.9898 and 1.0102 are refused,
 * at the key's byte. */
static void test_f32_unit_length(void **state)
{
	(void)state;
	static const struct {
		float len;
		int ok;
	} cases[] = { { 1.005f, 1 }, { 0.9902f, 1 }, { 1.0098f, 1 }, { 0.9898f, 0 }, { 1.0102f, 0 } };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t pk[16], rk[20], blob[512];
		putf(pk, 0.0f), putf(pk + 4, 1.0f), putf(pk + 8, 2.0f), putf(pk + 12, 3.0f);
		putf(rk, 0.0f), putf(rk + 4, 0.0f), putf(rk + 8, 0.6f * cases[i].len),
			putf(rk + 12, 0.0f), putf(rk + 16, 0.8f * cases[i].len);
		size_t n = mk_blob(blob, 0x9D3DE40D, 16, pk, 0x9DFB92B6, 20, rk, 1);
		uint32_t rkoff = af_le32(blob + af_le32(blob + af_le32(blob + 0x38) + 4) + 8);
		assert_memory_equal(blob + rkoff, rk, sizeof(rk));
		if (cases[i].ok) {
			struct af_buf y = AF_BUF_INIT;
			roundtrip(blob, n, &y);
			af_buf_free(&y);
		} else {
			expect_decode_error(blob, n, AF_EUNSUP, rkoff, "rotation key 0: the quaternion is not unit length");
		}
	}
}

static void test_decode_errors(void **state)
{
	(void)state;
	uint8_t blob[512], z[1024], t[1024];
	size_t n = sample_blob(blob), zn = zwrap(z, blob, n);

	/* truncated: the stream is cut short, the trailer kept */
	memcpy(t, z, zn - 10);
	put32(t + zn - 10, (uint32_t)n);
	expect_decode_error(t, zn - 6, AF_EINVAL, -2, "truncated");
	/* the whole stream present but the trailer missing */
	expect_decode_error(z, zn - 4, AF_EINVAL, (int64_t)zn - 8, "size trailer claims");
	expect_decode_error(z, 5, AF_EINVAL, 0, "truncated");
	/* bad zlib data */
	memcpy(t, z, zn);
	for (size_t i = 2; i < zn - 8; i++)
		t[i] ^= 0x55;
	expect_decode_error(t, zn, AF_EINVAL, -2, "zlib");
	/* trailer that lies, both ways */
	memcpy(t, z, zn);
	put32(t + zn - 4, (uint32_t)n + 1);
	expect_decode_error(t, zn, AF_EINVAL, (int64_t)zn - 4, "the trailer lies");
	put32(t + zn - 4, (uint32_t)n - 1);
	expect_decode_error(t, zn, AF_EINVAL, -2, "the trailer lies");
	/* absurd trailers */
	put32(t + zn - 4, 300u << 20);
	expect_decode_error(t, zn, AF_EINVAL, (int64_t)zn - 4, "more than the 256 MiB");
	put32(t + zn - 4, 1u << 20);
	expect_decode_error(t, zn, AF_EINVAL, (int64_t)zn - 4, "deflate expands at most");

	/* counts that overflow: raw blob, then the same through zlib */
	memcpy(t, blob, n);
	put32(t + 0x2C, 4000000);
	expect_decode_error(t, n, AF_EINVAL, 0x2C, "position tracks claim 4000000 entries of 8 bytes,");
	uint8_t tz[1024];
	expect_decode_error(tz, zwrap(tz, t, n), AF_EINVAL, 0x2C,
			    "in the inflated data: position tracks claim 4000000 entries of 8 bytes");
	memcpy(t, blob, n);
	put32(t + 0x14, 0xFFFFFFFF);
	expect_decode_error(t, n, AF_EINVAL, 0x14, "object names claim 4294967295 entries of 4 bytes");
	/* a key count beyond the blob */
	memcpy(t, blob, n);
	put32(t + 72 + 8 + 4, 1000);
	expect_decode_error(t, n, AF_EINVAL, 72 + 8 + 8, "keys claim 1000 entries of 12 bytes");
	/* offsets outside */
	memcpy(t, blob, n);
	put32(t + 0x30, 0x7FFFFFFF);
	expect_decode_error(t, n, AF_EINVAL, 0x2C, "position tracks: offset 0x7fffffff is outside");
	memcpy(t, blob, n);
	put32(t + 60, 5000);
	expect_decode_error(t, n, AF_EINVAL, 60, "object name: string offset 0x1388 is outside");
	memcpy(t, blob, n);
	put32(t + 60, (uint32_t)n - 4); /* the last key's bytes 03 08 20 80: no NUL follows */
	expect_decode_error(t, n, AF_EINVAL, 60, "has no NUL");
	/* unknown hash, and a rotation hash in the position table */
	memcpy(t, blob, n);
	put32(t + 72, 0x12345678);
	expect_decode_error(t, n, AF_EUNSUP, 72, "unknown track type hash 0x12345678");
	memcpy(t, blob, n);
	put32(t + 72, 0x96ECB85C);
	expect_decode_error(t, n, AF_EINVAL, 72, "has the rotation type rot_packed");
	/* beat-time section populated; not a Diesel file */
	memcpy(t, blob, n);
	put32(t + 0x1C, 1);
	expect_decode_error(t, n, AF_EUNSUP, 0x1C, "beat-time section has 1 entries");
	expect_decode_error((const uint8_t *)"hello world", 11, AF_EINVAL, 0, "not a Diesel animation");
	/* a name YAML text cannot carry byte for byte (the name is at 64); a control byte it can */
	memcpy(t, blob, n);
	t[66] = 0xE9;
	expect_decode_error(t, n, AF_EUNSUP, 64, "objects[0]: the name is empty, repeated or not UTF-8 text");
	/* values the model refuses name the key's byte, in the inflated data for zlib files */
	uint32_t pkoff = af_le32(blob + af_le32(blob + af_le32(blob + 0x30) + 4) + 8);
	uint32_t rkoff = af_le32(blob + af_le32(blob + af_le32(blob + 0x38) + 4) + 8);
	memcpy(t, blob, n);
	putf(t + pkoff, -1.0f);
	expect_decode_error(t, n, AF_EUNSUP, pkoff,
			    "objects[0] (root) position key 0: the time is negative or not a number");
	expect_decode_error(tz, zwrap(tz, t, n), AF_EUNSUP, pkoff,
			    "in the inflated data: objects[0] (root) position key 0: the time is negative");
	memcpy(t, blob, n);
	put32(t + rkoff + 4, 0x00000000);
	expect_decode_error(t, n, AF_EUNSUP, rkoff, "rotation key 0: the packed quaternion is not a rotation");
	memcpy(t, blob, n);
	putf(t + 16, -2.0f);
	expect_decode_error(t, n, AF_EUNSUP, 16, "the animation length is negative or not a number");
	memcpy(t, blob, n);
	t[66] = 0x01;
	struct af_buf y = AF_BUF_INIT;
	roundtrip(t, n, &y);
	contains(&y, "- name: \"ro\\x01t\"\n");
	af_buf_free(&y);
	/* a layout that does not rebuild: 4 stray bytes before the rotation table */
	memcpy(t, blob, 104);
	memset(t + 104, 0, 4);
	memcpy(t + 108, blob + 104, n - 104);
	put32(t + 0x38, 108);
	put32(t + 108 + 4, 116);
	put32(t + 116 + 8, 128);
	put32(t + 0x0C, (uint32_t)n + 4);
	assert_int_equal(n, 132);
	expect_readonly(t, n + 4, 0x0C, "does not rebuild byte for byte");
}

/* ---------------------------------------------------------------- quantisation */

static void near(double a, double b, double eps)
{
	if (fabs(a - b) > eps)
		fail_msg("%.9f is not %.9f", a, b);
}

static void check_quat(uint32_t code, double x, double y, double z, double w)
{
	double q[4];
	char text[128];
	diesel_unpack_quat(code, q);
	near(q[0], x, 5e-6), near(q[1], y, 5e-6), near(q[2], z, 5e-6), near(q[3], w, 5e-6);
	assert_int_equal(diesel_pack_quat(q), code);
	/* the printed text packs back to the code */
	size_t n = diesel_fmt_quat(text, code);
	assert_true(n > 0);
	double v[4];
	char *p = text;
	for (int i = 0; i < 4; i++) {
		char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		assert_int_equal(af_parse_f64(p, len, &v[i]), 0);
		p = e ? e + 2 : p + len;
	}
	assert_int_equal(diesel_pack_quat(v), code);
}

static void test_packing_examples(void **state)
{
	(void)state;
	char t[64];
	check_quat(0x80200803, 0, 0, 0, 1);
	check_quat(0x979587FD, 0.13770, 0.95941, -0.00146, -0.24609);
	check_quat(0x80200F89, 0, 0.70816, 0.70605, 0);
	check_quat(0x198FF3FC, 0.59653, -0.37646, -0.37646, -0.60059);
	diesel_fmt_quat(t, 0x80200803);
	assert_string_equal(t, "0.000, 0.000, 0.000, 1.000");
	diesel_fmt_quat(t, 0x979587FD);
	assert_string_equal(t, "0.138, 0.959, -0.001, -0.246");
	/* typed quaternions: ties keep the lowest index (k = 1) */
	const double tie[4] = { 0, 0.7071068, 0, 0.7071068 };
	assert_int_equal(diesel_pack_quat(tie) & 3, 1);
	/* the dropped component is negated into the positive half */
	const double neg[4] = { 0, 0, 0, -1 };
	assert_int_equal(diesel_pack_quat(neg), 0x80200803);
}

/* a random unit quaternion (an LCG on *seed) */
static void random_quat(uint32_t *seed, double q[4])
{
	double len = 0;
	for (int j = 0; j < 4; j++) {
		*seed = *seed * 1103515245u + 12345u;
		q[j] = (double)(*seed >> 8) / (double)(1u << 24) * 2 - 1;
		len += q[j] * q[j];
	}
	for (int j = 0; j < 4; j++)
		q[j] /= sqrt(len);
}

/* The lone-candidate shortcut of diesel_pack_quat gives the full rule's code: random
 * quaternions, every decoded code's components, and values pushed to the 0.02
 * window's edge (where one candidate more or less changes the path). */
static void test_packing_shortcut(void **state)
{
	(void)state;
	uint32_t seed = 777;
	for (int i = 0; i < 300000; i++) {
		double q[4];
		random_quat(&seed, q);
		assert_int_equal(diesel_pack_quat(q), diesel_pack_quat_all(q));
		diesel_unpack_quat(seed * 2654435761u, q);
		assert_int_equal(diesel_pack_quat(q), diesel_pack_quat_all(q));
		double m = 0;
		int big = 0;
		for (int j = 0; j < 4; j++)
			if (fabs(q[j]) > m)
				m = fabs(q[j]), big = j;
		int other = (big + 1 + (int)(seed >> 30) % 3) & 3;
		double edge = m - 0.02;
		q[other] = (q[other] < 0 ? -1 : 1) * nextafter(edge, (seed & 1) ? 1.0 : 0.0);
		assert_int_equal(diesel_pack_quat(q), diesel_pack_quat_all(q));
		q[other] = (q[other] < 0 ? -1 : 1) * edge;
		assert_int_equal(diesel_pack_quat(q), diesel_pack_quat_all(q));
	}
}

static void test_packing_exact(void **state)
{
	(void)state;
	uint32_t seed = 12345;
	for (int i = 0; i < 200000; i++) {
		double q[4];
		random_quat(&seed, q);
		double m1 = 0, m2 = 0;
		for (int j = 0; j < 4; j++) {
			double a = fabs(q[j]);
			if (a > m1)
				m2 = m1, m1 = a;
			else if (a > m2)
				m2 = a;
		}
		/* near ties the window may drop a smaller component; those codes can
		 * need the raw fallback (test_packed_fallback) */
		if (m1 - m2 < 0.03)
			continue;
		uint32_t code = diesel_pack_quat(q);
		char text[128];
		if (!diesel_fmt_quat(text, code))
			fail_msg("no decimals re-pack 0x%08X", code);
	}
}

static void test_pos_u16(void **state)
{
	(void)state;
	char t[64];
	uint16_t c;
	near(diesel_u16_to_cm(33252), 14.8015, 1e-4);
	near(diesel_u16_to_cm(34007), 37.8430, 1e-4);
	near(diesel_u16_to_cm(35350), 78.8293, 1e-4);
	diesel_fmt_cm(t, 33252);
	assert_string_equal(t, "14.8");
	diesel_fmt_cm(t, 34007);
	assert_string_equal(t, "37.84");
	diesel_fmt_cm(t, 35350);
	assert_string_equal(t, "78.83");
	diesel_fmt_cm(t, 32767);
	assert_string_equal(t, "0.0");
	diesel_fmt_cm(t, 32766);
	assert_string_equal(t, "-0.03");
	assert_int_equal(diesel_cm_to_u16(14.8, &c), 0);
	assert_int_equal(c, 33252);
	/* every code prints with at most 2 decimals and re-encodes to itself */
	for (unsigned code = 0; code <= 65535; code++) {
		double v;
		size_t n = diesel_fmt_cm(t, (uint16_t)code);
		const char *dot = strchr(t, '.');
		assert_non_null(dot);
		assert_true(strlen(dot + 1) <= 2);
		assert_int_equal(af_parse_f64(t, n, &v), 0);
		assert_int_equal(diesel_cm_to_u16(v, &c), 0);
		assert_int_equal(c, code);
	}
	assert_int_equal(diesel_cm_to_u16(1200.0, &c), -1);
	assert_int_equal(diesel_cm_to_u16(-1001.0, &c), -1);
}

/* A code no decimal text re-packs to (the dropped z decodes 0.02 below |w|):
 * printed with its raw code as a 6th value, which the encoder then uses. */
static void test_packed_fallback(void **state)
{
	(void)state;
	uint8_t pk[12], rk[8], blob[512];
	struct af_buf y = AF_BUF_INIT;
	putf(pk, 0.0f), put16(pk + 4, 32767), put16(pk + 6, 32767), put16(pk + 8, 32767), put16(pk + 10, 0);
	putf(rk, 0.0f), put32(rk + 4, 0x575DC096);
	char t[64];
	assert_int_equal(diesel_fmt_quat(t, 0x575DC096), 0);
	size_t n = mk_blob(blob, 0x1DC686E0, 12, pk, 0x96ECB85C, 8, rk, 1);
	roundtrip(blob, n, &y);
	contains(&y, ", 0x575DC096]\n");
	af_buf_free(&y);
}

static void test_bid(void **state)
{
	(void)state;
	static const uint8_t z[2] = { 0x78, 0x9C }, raw[4] = { 0x85, 0xCC, 0x83, 0x08 };
	assert_true(C->bid("walk.animation", z, 2) > 50);
	assert_true(C->bid("x.bin", raw, 4) > 50);
	assert_int_equal(C->bid("x.bin", z, 2), 0);
	assert_int_equal(C->bid("README.md", (const uint8_t *)"# hi", 4), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cm_table),
		cmocka_unit_test(test_u16_packed),
		cmocka_unit_test(test_f32_types),
		cmocka_unit_test(test_f32_unit_length),
		cmocka_unit_test(test_flag_types),
		cmocka_unit_test(test_header_variants),
		cmocka_unit_test(test_zlib_variants),
		cmocka_unit_test(test_walk_encodes),
		cmocka_unit_test(test_validation_errors),
		cmocka_unit_test(test_validation_warnings),
		cmocka_unit_test(test_64bit_from_yaml),
		cmocka_unit_test(test_track_align_by_chance),
		cmocka_unit_test(test_decode_errors),
		cmocka_unit_test(test_packing_examples),
		cmocka_unit_test(test_packing_exact), cmocka_unit_test(test_packing_shortcut),
		cmocka_unit_test(test_pos_u16),
		cmocka_unit_test(test_packed_fallback),
		cmocka_unit_test(test_bid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
