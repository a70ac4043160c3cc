/* shenmue-motn codec on hand-built MOTN files: each key type, u8/u16 block entries,
 * pad bytes, aliasing, orphans, raw blocks, edits, validation errors and broken input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "animfs/bytes.h"
#include "animfs/codec.h"
#include "animfs/num.h"
#include "../../src/codec/motn/motn.h"

/* F=10, rig 0x0D, bone 0 Tx Ty Tz; tx holds key types 0,1,2,3,0,3 with a repeated frame
 * (4); block 4 is 3+... bytes so a pad byte precedes block 5. */
static const uint8_t seq_types[] = {
	0x0A, 0x00, 0x0D, 0x00, 0x10, 0x00, 0x13, 0x00, 0x17, 0x00, 0x1C, 0x00, /* header */
	0xC0, 0x01, 0x00, 0x00,                   /* block 1: bone 0 TxTyTz, end */
	0x04, 0x00, 0x00,                         /* block 2: 4, 0, 0 intermediates */
	0x02, 0x04, 0x04, 0x06,                   /* block 3: tx frames */
	0x1B, 0x30, 0x50, 0x80, 0x00,             /* block 4: 0123|03, 11, 20; pad */
	0x00, 0x3C,                               /* tx k1: value 1.0 */
	0x00, 0xBC, 0x00, 0x38,                   /* tx k2: slope -1, value 0.5 */
	0x00, 0x34, 0x00, 0xB4, 0x00, 0x40,       /* tx k3: in .25, out -.25, value 2 */
	0x00, 0x00, 0x00, 0x3E, 0x00, 0xC0,       /* tx k5: in 0, out 1.5, value -2 */
	0x00, 0x3C, 0x00, 0x3C,                   /* ty: 1.0, 1.0 */
	0x00, 0x00, 0x00, 0x38,                   /* tz k0: slope 0, value 0.5 */
};

/* F=300 with wide counts (frame-word bit 15): u16 block 2 and u16 block 3; bone 2 Rz. */
static const uint8_t seq_wide[] = {
	0x2C, 0x81, 0x00, 0x00, 0x10, 0x00, 0x12, 0x00, 0x14, 0x00, 0x16, 0x00,
	0x08, 0x04, 0x00, 0x00,                   /* bone 2 Rz */
	0x01, 0x00,                               /* u16 count 1 */
	0x00, 0x01,                               /* u16 frame 256 */
	0x54, 0x00,                               /* types 1 1 1; pad */
	0x00, 0x00, 0x00, 0x3C, 0x00, 0x00,
};

/* F=256, u8 counts but u16 frames: block 2 ends odd, so a pad byte precedes block 3. */
static const uint8_t seq_pad3[] = {
	0x00, 0x01, 0x00, 0x00, 0x10, 0x00, 0x12, 0x00, 0x14, 0x00, 0x16, 0x00,
	0x00, 0x01, 0x00, 0x00,                   /* bone 0 Tx */
	0x01, 0x00,                               /* count 1; pad */
	0x80, 0x00,                               /* frame 128 */
	0x10, 0x00,                               /* types 0 1 0; pad */
	0x00, 0x38,                               /* 0.5 */
};

/* Rig 0xFFFF but no node block (its count runs past the block): kept raw. */
static const uint8_t seq_raw[] = { 0x05, 0x00, 0xFF, 0xFF, 0x00, 0x3C, 0x00, 0x00, 0x01, 0x00,
				   0x02, 0x00 };

static const char stamp[32] = "Sat Jan  1 12:34:56 2000\n";

/* A whole MOTN: entries S0..S4 -> seq_types, seq_wide, seq_pad3, seq_types (alias),
 * seq_raw; a copy of seq_pad3 sits unreferenced after seq_types (an orphan). */
static size_t build_file(uint8_t *out, size_t cap)
{
	struct af_buf b = AF_BUF_INIT;
	const uint32_t n = 5, rel[5] = { 0, 78, 106, 0, 130 };
	af_buf_fill(&b, 0, 0x20);
	for (uint32_t i = 0; i < n; i++) {
		af_buf_put_u32le(&b, rel[i]);
		af_buf_put_u32le(&b, 0x20 + 8 * n + (i == 1 ? 8 : 0));
	}
	af_buf_put_u32le(&b, 0x0121); /* blob 1: 8 bytes */
	af_buf_put_u32le(&b, 0);
	af_buf_put_u32le(&b, 7);      /* blob 2: 4 bytes */
	uint32_t names_off = (uint32_t)b.len, p = names_off + 4 * n;
	for (uint32_t i = 0; i < n; i++, p += 3)
		af_buf_put_u32le(&b, p);
	for (uint32_t i = 0; i < n; i++) {
		char nm[3] = { 'S', (char)('0' + i), 0 };
		af_buf_append(&b, nm, 3);
	}
	af_buf_align(&b, 8);
	uint32_t data_off = (uint32_t)b.len;
	af_buf_append(&b, seq_types, sizeof(seq_types));
	af_buf_append(&b, seq_pad3, sizeof(seq_pad3));
	af_buf_append(&b, seq_wide, sizeof(seq_wide));
	af_buf_append(&b, seq_pad3, sizeof(seq_pad3));
	af_buf_append(&b, seq_raw, sizeof(seq_raw));
	af_buf_append(&b, stamp, sizeof(stamp));
	af_buf_patch_u32le(&b, 0, 0x20);
	af_buf_patch_u32le(&b, 4, names_off);
	af_buf_patch_u32le(&b, 8, data_off);
	af_buf_patch_u32le(&b, 12, n + 1);
	af_buf_patch_u32le(&b, 16, (uint32_t)b.len);
	assert_false(b.failed);
	assert_true(b.len <= cap);
	memcpy(out, b.data, b.len);
	size_t len = b.len;
	af_buf_free(&b);
	return len;
}

static const struct af_codec *codec(void)
{
	const struct af_codec *c = af_codec_by_name("shenmue-motn");
	assert_non_null(c);
	return c;
}

/* YAML of bin; returns a malloc'ed NUL-terminated string. */
static char *render(const uint8_t *bin, size_t n)
{
	struct af_buf y = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	if (codec()->to_yaml(bin, n, NULL, &y, &d))
		fail_msg("decode: %s", d.msg);
	af_buf_putc(&y, 0);
	af_diag_free(&d);
	return (char *)af_buf_steal(&y, NULL);
}

/* Encode text; rc, output in out, diag in d (caller frees). */
static int encode(const char *yaml, struct af_buf *out, struct af_diag *d)
{
	af_diag_init(d);
	return codec()->from_yaml((const uint8_t *)yaml, strlen(yaml), NULL, out, d);
}

/* Replace the first occurrence of `from` (which must exist) by `to`. */
static char *replace(const char *s, const char *from, const char *to)
{
	const char *at = strstr(s, from);
	if (!at)
		fail_msg("'%s' not in the document", from);
	size_t a = (size_t)(at - s), fl = strlen(from), tl = strlen(to), n = strlen(s);
	char *r = malloc(n - fl + tl + 1);
	memcpy(r, s, a);
	memcpy(r + a, to, tl);
	memcpy(r + a + tl, at + fl, n - a - fl + 1);
	return r;
}

static unsigned line_of(const char *s, const char *needle)
{
	const char *at = strstr(s, needle);
	unsigned line = 1;
	assert_non_null(at);
	for (const char *p = s; p < at; p++)
		line += *p == '\n';
	return line;
}

static void test_decode_shows_everything(void **state)
{
	(void)state;
	uint8_t bin[1024];
	size_t n = build_file(bin, sizeof(bin));
	char *y = render(bin, n);
	assert_non_null(strstr(y, "format: shenmue-motn\n"));
	assert_non_null(strstr(y, "# 5 blocks: 4 decoded (4 sequences, 0 baked, 0 node), 1 raw, 1 orphans;"));
	assert_non_null(strstr(y, "names: [S0, S3]   # shared by 2 names"));
	assert_non_null(strstr(y, "  - block: 0x36\n    orphan: true"));
	assert_non_null(strstr(y, "rig: 0xD"));
	/* every key type, value first */
	assert_non_null(strstr(y, "        tx:\n          - [0, 0]\n          - [2, 1, 1.0]\n"
			       "          - [4, 2, 0.5, -1.0]\n          - [4, 3, 2.0, 0.25, -0.25]\n"
			       "          - [6, 0]\n          - [9, 3, -2.0, 0.0, 1.5]\n"));
	assert_non_null(strstr(y, "        tz:\n          - [0, 2, 0.5, 0.0]\n          - [9, 0]\n"));
	assert_non_null(strstr(y, "wide_counts: true"));
	assert_non_null(strstr(y, "- [256, 1, 1.0]\n          - [299, 1, 0.0]"));
	assert_non_null(strstr(y, "- [128, 1, 0.5]\n          - [255, 0]"));
	assert_non_null(strstr(y, "raw: \"rig word 0xFFFF, but the block is not a node block\""));
	assert_non_null(strstr(y, "0x48: \"21010000 00000000\""));
	assert_non_null(strstr(y, "build stamp \"Sat Jan  1 12:34:56 2000\""));
	free(y);
}

static void test_roundtrip_bytes(void **state)
{
	(void)state;
	uint8_t bin[1024];
	size_t n = build_file(bin, sizeof(bin));
	char *y = render(bin, n);
	struct af_buf out = AF_BUF_INIT;
	struct af_diag d;
	if (encode(y, &out, &d))
		fail_msg("encode: %s", d.msg);
	assert_int_equal(out.len, n);
	assert_memory_equal(out.data, bin, n);
	/* the model path alone, too */
	struct af_arena a;
	struct motn_file f;
	af_arena_init(&a);
	af_buf_reset(&out);
	assert_int_equal(motn_decode(bin, n, &a, &f, &d), 0);
	assert_int_equal(f.nblocks, 5);
	assert_int_equal(motn_encode(&f, &out, &d), 0);
	assert_memory_equal(out.data, bin, n);
	af_arena_free(&a);
	af_buf_free(&out);
	af_diag_free(&d);
	free(y);
}

/* Edit the document, encode, and return the re-encoded seq_types block (data start). */
static size_t edit(const char *from, const char *to, uint8_t *blk, size_t cap, size_t *total)
{
	uint8_t bin[1024];
	size_t n = build_file(bin, sizeof(bin));
	char *y = render(bin, n), *e = replace(y, from, to);
	struct af_buf out = AF_BUF_INIT;
	struct af_diag d;
	if (encode(e, &out, &d))
		fail_msg("encode: %s", d.msg);
	/* the re-encoded block, found and measured independently of the YAML */
	uint32_t data_off = af_le32(out.data + 8);
	struct af_arena a;
	struct motn_seq sq;
	struct af_buf scratch = AF_BUF_INIT;
	const char *why = NULL;
	size_t len = 0;
	af_arena_init(&a);
	assert_int_equal(motn_seq_accept(out.data + data_off, out.len - data_off, &a, &scratch, &sq,
					 &len, &why), 0);
	af_arena_free(&a);
	af_buf_free(&scratch);
	assert_true(len <= cap);
	memcpy(blk, out.data + data_off, len);
	*total = out.len;
	af_buf_free(&out);
	af_diag_free(&d);
	free(y);
	free(e);
	return len;
}

static void test_edit_value(void **state)
{
	(void)state;
	uint8_t bin[1024], blk[256];
	size_t n = build_file(bin, sizeof(bin)), total;
	size_t len = edit("[4, 3, 2.0, 0.25, -0.25]", "[4, 3, 2.5, 0.25, -0.25]", blk, sizeof(blk),
			  &total);
	assert_int_equal(total, n);
	assert_int_equal(len, sizeof(seq_types));
	for (size_t i = 0; i < len; i++)
		if (i != 38 && i != 39)
			assert_int_equal(blk[i], seq_types[i]);
	assert_int_equal(af_le16(blk + 38), 0x4100); /* 2.5 */
	/* a slope, and a value given as raw half bits */
	len = edit("[4, 2, 0.5, -1.0]", "[4, 2, 0x3801, -0.5]", blk, sizeof(blk), &total);
	assert_int_equal(af_le16(blk + 30), 0xB800);
	assert_int_equal(af_le16(blk + 32), 0x3801);
}

static void test_edit_add_remove_key(void **state)
{
	(void)state;
	uint8_t bin[1024], blk[256];
	size_t n = build_file(bin, sizeof(bin)), total, len;
	/* add: tx gets 7 keys -> block 4 grows to 2+1+1 bytes, no pad any more */
	len = edit("          - [6, 0]\n", "          - [6, 0]\n          - [7, 1, 0.5]\n", blk,
		   sizeof(blk), &total);
	static const uint8_t added[] = {
		0x0A, 0x00, 0x0D, 0x00, 0x10, 0x00, 0x13, 0x00, 0x18, 0x00, 0x1C, 0x00,
		0xC0, 0x01, 0x00, 0x00, 0x05, 0x00, 0x00, 0x02, 0x04, 0x04, 0x06, 0x07,
		0x1B, 0x1C, 0x50, 0x80,                   /* 0123|013 */
		0x00, 0x3C, 0x00, 0xBC, 0x00, 0x38, 0x00, 0x34, 0x00, 0xB4, 0x00, 0x40,
		0x00, 0x38,                               /* the new key */
		0x00, 0x00, 0x00, 0x3E, 0x00, 0xC0, 0x00, 0x3C, 0x00, 0x3C, 0x00, 0x00, 0x00, 0x38,
	};
	assert_int_equal(len, sizeof(added));
	assert_memory_equal(blk, added, len);
	assert_int_equal(total, n + 2);
	/* remove: tx loses [6, 0] -> 5 keys, block 4 = 2+1+1 bytes */
	len = edit("          - [6, 0]\n", "", blk, sizeof(blk), &total);
	static const uint8_t removed[] = {
		0x0A, 0x00, 0x0D, 0x00, 0x10, 0x00, 0x13, 0x00, 0x16, 0x00, 0x1A, 0x00,
		0xC0, 0x01, 0x00, 0x00, 0x03, 0x00, 0x00, 0x02, 0x04, 0x04,
		0x1B, 0xC0, 0x50, 0x80,                   /* 0123|3 */
		0x00, 0x3C, 0x00, 0xBC, 0x00, 0x38, 0x00, 0x34, 0x00, 0xB4, 0x00, 0x40,
		0x00, 0x00, 0x00, 0x3E, 0x00, 0xC0, 0x00, 0x3C, 0x00, 0x3C, 0x00, 0x00, 0x00, 0x38,
	};
	assert_int_equal(len, sizeof(removed));
	assert_memory_equal(blk, removed, len);
	assert_int_equal(total, n - 2);
}

static void test_edit_channel_and_frames(void **state)
{
	(void)state;
	uint8_t blk[256];
	size_t total, len;
	/* add rz to bone 0: block 1 entry 0x01C8, one more count, block-4 byte, two words */
	len = edit("        tz:\n", "        rz:\n          - [0, 1, 0.25]\n          - [9, 1, 0.5]\n"
		   "        tz:\n", blk, sizeof(blk), &total);
	assert_int_equal(af_le16(blk + 12), 0x01C8);
	assert_int_equal(af_le16(blk + 4), 0x10);
	assert_int_equal(af_le16(blk + 6), 0x14);   /* 4 counts */
	assert_int_equal(af_le16(blk + 8), 0x18);
	assert_int_equal(af_le16(blk + 10), 0x1E);  /* 0x18 + 2+1+1+1 bytes, then a pad */
	assert_int_equal(len, sizeof(seq_types) + 6);
	assert_int_equal(af_le16(blk + len - 4), 0x3400); /* rz after tz in file order */
	assert_int_equal(af_le16(blk + len - 2), 0x3800);
	/* frames 10 -> 12: every last key moves from 9 to 11 */
	len = edit("frames: 10 ", "frames: 12 ", blk, sizeof(blk), &total);
	assert_int_equal(af_le16(blk), 12);
	assert_memory_equal(blk + 2, seq_types + 2, sizeof(seq_types) - 2);
}

static void test_name_warnings(void **state)
{
	(void)state;
	uint8_t bin[1024];
	size_t n = build_file(bin, sizeof(bin));
	char *y = render(bin, n), *e = replace(y, "{name: S3,", "{name: S0,");
	char *e2 = replace(e, "names: [S0, S3]", "names: [S0, S0]");
	struct af_buf out = AF_BUF_INIT;
	struct af_diag d;
	if (encode(e2, &out, &d))
		fail_msg("%s", d.msg);
	assert_int_equal(d.nwarnings, 1);
	assert_non_null(strstr((const char *)d.warnings.data, "entries[3]: the name is also used by entries[0]"));
	assert_int_equal(out.len, n); /* same length: only a name byte changed */
	af_buf_free(&out);
	af_diag_free(&d);
	free(y);
	free(e);
	free(e2);
}

/* The document with one edit must fail at the edit's line with msg in the message. */
static void expect_error(const char *from, const char *to, const char *msg)
{
	uint8_t bin[1024];
	size_t n = build_file(bin, sizeof(bin));
	char *y = render(bin, n), *e = replace(y, from, to);
	struct af_buf out = AF_BUF_INIT;
	struct af_diag d;
	int rc = encode(e, &out, &d);
	if (rc != AF_EINVAL || !strstr(d.msg, msg))
		fail_msg("edit '%s' -> '%s': rc %d, message '%s', wanted '%s'", from, to, rc, d.msg, msg);
	if (*to && d.line != line_of(e, to))
		fail_msg("error at line %u, edit at line %u (%s)", d.line, line_of(e, to), d.msg);
	assert_int_equal(out.len, 0);
	af_buf_free(&out);
	af_diag_free(&d);
	free(y);
	free(e);
}

/* One edit each: the text replaced, its replacement, the expected message. */
static const char *const bad_edits[][3] = {
	{ "[6, 0]", "[3, 0]",
	  "blocks[0] (S0) bone 0 tx key 4: frame 3 is before the previous key's frame 4" },
	{ "[6, 0]", "[10, 0]", "frame 10 is outside 0..F-1" },
	{ "[2, 1, 1.0]", "[2, 2, 1.0]", "tx key 1: key type 2 takes 2 value(s)" },
	{ "[2, 1, 1.0]", "[2, 4, 1.0]", "key type must be 0, 1, 2 or 3" },
	{ "[2, 1, 1.0]", "[2, 1, 70000]", "outside the half-float range" },
	{ "[2, 1, 1.0]", "[2, 1, .inf]", "expected a number or 0xHHHH" },
	{ "[2, 1, 1.0]", "[2, 1, abc]", "expected a number or 0xHHHH" },
	{ "- bone: 2 ", "- bone: 128 ", "bone id 128 out of range 0..127" },
	{ "        tx:\n          - [0, 0]\n          - [2,",
	  "        sx:\n          - [0, 0]\n          - [2,", "unknown channel 'sx'" },
	{ "[0, 1, 0.0]\n          - [256", "[1, 1, 0.0]\n          - [256",
	  "the first key must be at frame 0" },
	{ "frames: 300", "frames: 40000", "frames must be 1..32767" },
	{ "rig: 0xD", "rig: 0x800D", "rig 0x800D has bit 15 set" },
	{ "names: [S0, S3]", "names: [S0]", "names are derived from entries" },
	{ "{name: S4, block: 0x82,", "{name: S4, block: 0x99,", "block '0x99' is not in blocks" },
	{ "  count: 5", "  count: 6", "entries cannot be added, removed or reordered" },
	{ "    size: 12\n", "    size: 14\n", "raw blocks are read-only" },
	/* inconsistent last keys (only one moved) are an error, not a silent move */
	{ "[9, 3, -2.0, 0.0, 1.5]", "[8, 3, -2.0, 0.0, 1.5]",
	  "the last key must be at frame F-1 (= 9), not 8" },
};

static void test_validation(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_edits) / sizeof(bad_edits[0]); i++)
		expect_error(bad_edits[i][0], bad_edits[i][1], bad_edits[i][2]);
}

/* 256 intermediate keys need wide counts */
static void test_too_many_keys(void **state)
{
	(void)state;
	struct af_buf y = AF_BUF_INIT, out = AF_BUF_INIT;
	struct af_diag d;
	af_buf_puts(&y, "format: shenmue-motn\nheader: {attr_high: 0, pad: '000000000000000000000000',"
		    " count: 1}\nentries:\n  - {name: K, block: 0, extra: 0x28}\nextras:\n"
		    "  0x28: '00000000'\nblocks:\n  - block: 0\n    frames: 300\n    rig: 0\n"
		    "    wide_counts: false\n    bones:\n      - bone: 3\n        rz:\n");
	for (int k = 0; k < 258; k++)
		af_buf_printf(&y, "          - [%d, 0]\n", k == 257 ? 299 : k);
	af_buf_puts(&y, "trailer: ''\n");
	af_buf_putc(&y, 0);
	assert_int_equal(encode((const char *)y.data, &out, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "blocks[0] (K) bone 3 rz: 256 intermediate keys; at most 255"));
	assert_int_equal(d.line, 15);
	af_buf_free(&out);
	af_diag_free(&d);
	/* the same with wide counts encodes, with u16 block-2 entries */
	char *w = replace((const char *)y.data, "wide_counts: false", "wide_counts: true");
	if (encode(w, &out, &d))
		fail_msg("%s", d.msg);
	uint32_t data_off = af_le32(out.data + 8);
	assert_int_equal(af_le16(out.data + data_off), 0x8000 | 300);
	assert_int_equal(af_le16(out.data + data_off + 16), 256);
	free(w);
	af_buf_free(&y);
	af_buf_free(&out);
	af_diag_free(&d);
}

/* 128 bones x 6 channels x 100 intermediate u16 frames: block 4 would start past 0xFFFF. */
static void test_too_large(void **state)
{
	(void)state;
	struct af_buf y = AF_BUF_INIT, out = AF_BUF_INIT;
	struct af_diag d;
	af_buf_puts(&y, "format: shenmue-motn\nheader: {attr_high: 0, pad: '000000000000000000000000',"
		    " count: 1}\nentries:\n  - {name: BIG, block: 0, extra: 0x28}\nextras:\n"
		    "  0x28: '00000000'\nblocks:\n  - block: 0\n    frames: 300\n    rig: 0\n"
		    "    bones:\n");
	for (int b = 0; b < 128; b++) {
		af_buf_printf(&y, "      - bone: %d\n", b);
		for (int c = 0; c < 6; c++) {
			af_buf_printf(&y, "        %s:\n", motn_chan_names[c]);
			for (int k = 0; k < 102; k++)
				af_buf_printf(&y, "          - [%d, 0]\n", k == 101 ? 299 : k);
		}
	}
	af_buf_puts(&y, "trailer: ''\n");
	af_buf_putc(&y, 0);
	assert_int_equal(encode((const char *)y.data, &out, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "blocks[0] (BIG): sequence too large"));
	assert_int_equal(d.line, 8);
	af_buf_free(&y);
	af_buf_free(&out);
	af_diag_free(&d);
}

/* Every finite half survives print -> parse -> encode (subnormals and -0 included). */
static void test_all_halves(void **state)
{
	(void)state;
	struct af_buf y = AF_BUF_INIT, out = AF_BUF_INIT;
	struct af_diag d;
	uint32_t h = 0;
	int nblocks = 0;
	af_buf_puts(&y, "format: shenmue-motn\nheader: {attr_high: 0, pad: '000000000000000000000000',"
		    " count: 1}\nentries:\n  - {name: H, block: 0, extra: 0x28}\nextras:\n"
		    "  0x28: '00000000'\nblocks:\n");
	while (h < 0x10000) {
		af_buf_printf(&y, "  - block: %d\n    frames: 200\n    rig: 0\n    bones:\n", nblocks++);
		for (int b = 0; b < 20 && h < 0x10000; b++) {
			af_buf_printf(&y, "      - bone: %d\n        rx:\n", b);
			for (int k = 0; k < 200; k++) {
				while ((h & 0x7C00) == 0x7C00)
					h++;
				char t[AF_NUM_MAX];
				af_fmt_f16(t, (uint16_t)(h < 0x10000 ? h : 0));
				af_buf_printf(&y, "          - [%d, 1, %s]\n", k, t);
				h++;
			}
		}
	}
	af_buf_puts(&y, "trailer: ''\n");
	af_buf_putc(&y, 0);
	if (encode((const char *)y.data, &out, &d))
		fail_msg("%s at %u", d.msg, d.line);
	/* walk the values back: block 5 of every block holds them in order */
	uint32_t data_off = af_le32(out.data + 8), pos = data_off, want = 0;
	for (int b = 0; b < nblocks; b++) {
		uint16_t off5 = af_le16(out.data + pos + 10), off4 = af_le16(out.data + pos + 8);
		uint32_t nch = (af_le16(out.data + pos + 6) - af_le16(out.data + pos + 4));
		uint32_t words = (uint32_t)(off4 - af_le16(out.data + pos + 6)) + 2 * nch;
		for (uint32_t w = 0; w < words; w++, want++) {
			while ((want & 0x7C00) == 0x7C00)
				want++;
			uint16_t got = af_le16(out.data + pos + off5 + 2 * w);
			if (want < 0x10000 && got != want)
				fail_msg("half 0x%04x came back as 0x%04x", want, got);
		}
		pos += off5 + 2 * words;
	}
	assert_true(want >= 0x10000);
	af_buf_free(&y);
	af_buf_free(&out);
	af_diag_free(&d);
}

static void test_bid(void **state)
{
	(void)state;
	uint8_t bin[1024];
	size_t n = build_file(bin, sizeof(bin));
	const struct af_codec *c = codec();
	assert_true(c->bid("MOTION.BIN", bin, 64) > c->bid("x.dat", bin, 64));
	assert_true(c->bid("x.dat", bin, 64) > 0);
	assert_true(c->bid("M_DUCK.BIN", bin, 64) > c->bid("x.dat", bin, 64));
	assert_int_equal(c->bid("motion.bin", bin, 0x1F), 0);
	bin[12] = 1; /* count 0 */
	assert_int_equal(c->bid("motion.bin", bin, 64), 0);
	n = build_file(bin, sizeof(bin));
	bin[0x24] = 0x10; /* first extra offset inside the table */
	assert_int_equal(c->bid("motion.bin", bin, 64), 0);
	static const uint8_t text[64] = "# animfs view of a Shenmue MOTN\nformat: shenmue-motn\n";
	assert_int_equal(c->bid("motion.bin.yaml", text, sizeof(text)), 0);
	(void)n;
}

/* Decoding any damaged file either fails cleanly or round-trips exactly. */
static void check_damaged(const uint8_t *bin, size_t n)
{
	struct af_buf y = AF_BUF_INIT, out = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	int rc = codec()->to_yaml(bin, n, NULL, &y, &d);
	if (rc == 0) {
		af_diag_clear(&d);
		if (codec()->from_yaml(y.data, y.len, NULL, &out, &d))
			fail_msg("own YAML does not encode: %s", d.msg);
		if (out.len != n || memcmp(out.data, bin, n))
			fail_msg("damaged file decoded but did not round-trip");
	} else {
		assert_true(rc == AF_EINVAL || rc == AF_EUNSUP);
		assert_true(d.msg[0] != 0);
	}
	af_buf_free(&y);
	af_buf_free(&out);
	af_diag_free(&d);
}

static void test_broken_input(void **state)
{
	(void)state;
	uint8_t bin[1024], tmp[1024];
	size_t n = build_file(bin, sizeof(bin));
	for (size_t k = 0; k < n; k++) /* every truncation */
		check_damaged(bin, k);
	srand(12345);
	for (int it = 0; it < 3000; it++) { /* random flips, 1-3 bytes */
		memcpy(tmp, bin, n);
		for (int f = rand() % 3; f >= 0; f--)
			tmp[rand() % n] ^= (uint8_t)(1 + rand() % 255);
		check_damaged(tmp, n);
	}
	for (size_t i = 0; i < n; i++) /* every single byte set to 0xFF */
		for (int v = 0; v < 2; v++) {
			memcpy(tmp, bin, n);
			tmp[i] = v ? 0xFF : 0x80;
			check_damaged(tmp, n);
		}
	/* an offset outside: clear message with the byte offset */
	memcpy(tmp, bin, n);
	tmp[0x20 + 8 + 2] = 0x7F;
	struct af_buf y = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	assert_int_equal(codec()->to_yaml(tmp, n, NULL, &y, &d), AF_EUNSUP); /* spec 2, rule 7 */
	assert_int_equal(d.offset, 0x28);
	assert_non_null(strstr(d.msg, "outside the data section"));
	af_buf_free(&y);
	af_diag_free(&d);
}

/* A block that re-encodes canonically but fails the edit rules (no bones) stays raw, so
 * its YAML encodes again (found by the fuzzer). */
static void test_no_bones_is_raw(void **state)
{
	(void)state;
	uint8_t bin[1024];
	size_t n = build_file(bin, sizeof(bin));
	uint32_t data_off = af_le32(bin + 8);
	static const uint8_t empty[] = { 0x0A, 0x00, 0x0D, 0x00, 0x0E, 0x00, 0x0E, 0x00,
					 0x0E, 0x00, 0x0E, 0x00, 0x00, 0x00 };
	memcpy(bin + data_off, empty, sizeof(empty)); /* over S0's start */
	char *y = render(bin, n);
	assert_non_null(strstr(y, "  - block: 0x0\n    names: [S0, S3]   # shared by 2 names: an edit "
			       "here changes all of them\n    raw: no bone entries   #"));
	free(y);
	check_damaged(bin, n);
}

/* Infinity and NaN halves in a file show as raw bits and come back exactly. */
static void test_nonfinite_halves(void **state)
{
	(void)state;
	uint8_t bin[1024];
	size_t n = build_file(bin, sizeof(bin));
	uint32_t data_off = af_le32(bin + 8);
	bin[data_off + 28] = 0x01; /* tx key 1: 0x3C00 -> 0x7C01 (a NaN) */
	bin[data_off + 29] = 0x7C;
	bin[data_off + 30] = 0x00; /* tx key 2 slope: 0xBC00 -> 0xFC00 (-inf) */
	bin[data_off + 31] = 0xFC;
	char *y = render(bin, n);
	assert_non_null(strstr(y, "          - [2, 1, 0x7C01]\n          - [4, 2, 0.5, 0xFC00]\n"));
	free(y);
	check_damaged(bin, n);
}

/* Damaged documents: an error with a position, or a valid encode; never a crash. */
static void test_broken_yaml(void **state)
{
	(void)state;
	uint8_t bin[1024];
	size_t n = build_file(bin, sizeof(bin));
	char *y = render(bin, n);
	size_t len = strlen(y);
	char *t = malloc(len + 1);
	/* No brackets: an empty flow collection ("[]") trips UBSan in the core's af_ydoc
	 * (memcpy from a NULL item list of length 0, yamlio.c close_frame), reported. */
	static const char junk[] = "-:,#&*!|>'\"%@ 0123456789.xe\n\t";
	srand(4242);
	for (int it = 0; it < 3000; it++) {
		struct af_buf out = AF_BUF_INIT;
		struct af_diag d;
		size_t m = len;
		memcpy(t, y, len + 1);
		if (it % 10 == 0)
			m = (size_t)rand() % len; /* truncated */
		else
			for (int k = 0; k <= it % 4; k++)
				t[rand() % len] = junk[rand() % (sizeof(junk) - 1)];
		af_diag_init(&d);
		int rc = codec()->from_yaml((const uint8_t *)t, m, NULL, &out, &d);
		if (rc) {
			assert_int_equal(rc, AF_EINVAL);
			assert_true(d.msg[0] != 0);
			assert_int_equal(out.len, 0);
		} else {
			assert_true(out.len > 0x20);
		}
		af_buf_free(&out);
		af_diag_free(&d);
	}
	free(t);
	free(y);
}

/* Word labels as block ids (blocks: "block: look", entries: "block: look") resolve by
 * name; a label two blocks share is refused at the later one. Labels are looked up
 * sorted: a bank of tens of thousands of labelled blocks took seconds a scan each. */
static void test_word_labels(void **state)
{
	(void)state;
	struct af_buf y = AF_BUF_INIT, ref = AF_BUF_INIT, out = AF_BUF_INIT;
	struct af_diag d;
	FILE *fp = fopen(ANIMFS_SOURCE_DIR "/examples/MOTION.BIN.yaml", "rb");
	char buf[4096];
	size_t got;
	assert_non_null(fp);
	while ((got = fread(buf, 1, sizeof(buf), fp)) > 0)
		af_buf_append(&y, buf, got);
	fclose(fp);
	af_buf_putc(&y, 0);
	if (encode((const char *)y.data, &ref, &d))
		fail_msg("the example: %s", d.msg);
	af_diag_free(&d);
	/* every 0x100 (two entries, one block) and 0x200 a word: the same bytes */
	char *t = strdup((const char *)y.data), *u;
	for (int k = 0; k < 3; k++, free(t), t = u)
		u = replace(t, "block: 0x100", "block: look");
	for (int k = 0; k < 2; k++, free(t), t = u)
		u = replace(t, "block: 0x200", "block: wave");
	if (encode(t, &out, &d))
		fail_msg("labels: %s (line %u)", d.msg, d.line);
	assert_int_equal(out.len, ref.len);
	assert_memory_equal(out.data, ref.data, ref.len);
	af_diag_free(&d);
	af_buf_free(&out);
	/* the node block labelled "look" too: refused there, not at the first "look" */
	u = replace(t, "  - block: 0x300", "  - block: look");
	assert_int_not_equal(encode(u, &out, &d), 0);
	assert_string_equal(d.msg, "blocks[3]: duplicate block id");
	assert_int_equal(d.line, line_of(u, "  - block: look\n    names: [DEMO_FLAG_NODES]"));
	assert_int_equal(out.len, 0);
	af_diag_free(&d);
	free(u);
	free(t);
	af_buf_free(&y);
	af_buf_free(&ref);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_shows_everything),
		cmocka_unit_test(test_roundtrip_bytes),
		cmocka_unit_test(test_edit_value),
		cmocka_unit_test(test_edit_add_remove_key),
		cmocka_unit_test(test_edit_channel_and_frames),
		cmocka_unit_test(test_validation),
		cmocka_unit_test(test_name_warnings),
		cmocka_unit_test(test_too_large),
		cmocka_unit_test(test_too_many_keys),
		cmocka_unit_test(test_all_halves),
		cmocka_unit_test(test_bid),
		cmocka_unit_test(test_broken_input),
		cmocka_unit_test(test_broken_yaml),
		cmocka_unit_test(test_no_bones_is_raw),
		cmocka_unit_test(test_nonfinite_halves),
		cmocka_unit_test(test_word_labels),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
