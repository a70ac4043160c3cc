/* sims3-clip units on hand-built bytes, one group per section of formats/sims3-clip.md:
 * the header's self-relative offsets (4), the body and each channel layout including
 * palette and constant types and a carried unknown type (5), sign bits and frame flags
 * (5.5), tick rules, 0x7E padding, IK tables absent / empty / with '#' and other fill
 * (6), every event kind (8), the end block (9), the rules of 11.3, value <-> code
 * (12) through the YAML, the bid beside Diesel, hostile counts and truncations. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/codec/clip/clip.h"
#include "animfs/bytes.h"
#include "animfs/codec.h"
#include "animfs/fnv.h"

/* ------------------------------------------------------------ a clip built by hand */

enum { IK_NONE, IK_EMPTY, IK_TWO, IK_ODDFILL };

struct opts {
	int ik;
	int events;         /* every kind once */
	const char *name;   /* clip name (its length moves the padding) */
	uint16_t f0_flags;  /* flags of channel 0 frame 1 */
};

static void put16(struct af_buf *b, uint16_t v) { af_buf_put_u16le(b, v); }
static void put32(struct af_buf *b, uint32_t v) { af_buf_put_u32le(b, v); }
static void putf(struct af_buf *b, float v) { af_buf_put_u32le(b, af_f32_bits(v)); }

struct chan_spec {
	uint8_t type, sub;
	float off, sc;
	uint16_t nframes;
	size_t bytes; /* frame bytes */
};

static const struct chan_spec chans[] = {
	{ 20, 2, 0.5f, -0.5f, 2, 2 * 12 },  /* quaternion, 12-bit codes */
	{ 18, 1, 0.0f, 2.0f, 2, 2 * 8 },    /* packed translation */
	{ 5, 7, 0.0f, 1.0f, 1, 6 },         /* F1_Normalized morph */
	{ 11, 1, 0.0f, 1.0f, 0, 0 },        /* F3_Zero: no frames */
	{ 3, 1, 0.0f, 1.0f, 1, 10 },        /* F3 palette */
	{ 17, 2, 0.0f, 1.0f, 1, 4 },        /* identity: 4-byte frames */
	{ 19, 2, 0.0f, 1.0f, 1, 12 },       /* unknown layout, carried */
};
#define NCH (sizeof(chans) / sizeof(chans[0]))

static void frames_of(struct af_buf *b, unsigned i, const struct opts *o)
{
	switch (i) {
	case 0:
		put16(b, 0), put16(b, 0), put16(b, 0), put16(b, 0), put16(b, 0), put16(b, 4095);
		put16(b, 2), put16(b, o->f0_flags), put16(b, 100), put16(b, 0), put16(b, 200), put16(b, 4000);
		break;
	case 1:
		put16(b, 0), put16(b, 0x1), put32(b, 1023u | 512u << 10 | 0u << 20);
		put16(b, 3), put16(b, 0), put32(b, 1u | 2u << 10 | 3u << 20);
		break;
	case 2:
		put16(b, 1), put16(b, 0), put16(b, 65535);
		break;
	case 4:
		put16(b, 0), put16(b, 0x4), put16(b, 0), put16(b, 1), put16(b, 2);
		break;
	case 5:
		put16(b, 0), put16(b, 0);
		break;
	case 6:
		for (uint8_t k = 0; k < 12; k++)
			af_buf_put_u8(b, (uint8_t)(0xA0 + k));
		break;
	}
}

static size_t build_body(struct af_buf *b, const struct opts *o)
{
	size_t base = b->len, nl = strlen(o->name), sl = strlen("test.blend");
	size_t names = 48 + 20 * NCH, pal = names + nl + 1 + sl + 1, data = pal + 12;
	af_buf_append(b, "_pilC3S_", 8);
	put32(b, 2), put32(b, 0), putf(b, 1.0f / 30), put16(b, 4), put16(b, 0x6C73);
	put32(b, NCH), put32(b, 3), put32(b, 48), put32(b, (uint32_t)pal), put32(b, (uint32_t)names);
	put32(b, (uint32_t)(names + nl + 1));
	for (unsigned i = 0; i < NCH; i++) {
		put32(b, (uint32_t)data);
		put32(b, af_fnv1_32_lower(i ? "bone1" : "b__ROOT__", i ? 5 : 9));
		putf(b, chans[i].off), putf(b, chans[i].sc);
		put16(b, chans[i].nframes);
		af_buf_put_u8(b, chans[i].type), af_buf_put_u8(b, chans[i].sub);
		data += chans[i].bytes;
	}
	af_buf_append(b, o->name, nl + 1);
	af_buf_append(b, "test.blend", sl + 1);
	putf(b, 0.25f), putf(b, 0.5f), putf(b, 1.0f);
	for (unsigned i = 0; i < NCH; i++)
		frames_of(b, i, o);
	return b->len - base;
}

static void ik_str(struct af_buf *b, const char *s, uint8_t fill)
{
	size_t n = strlen(s);
	af_buf_append(b, s, n + 1);
	af_buf_fill(b, fill, 512 - n - 1);
}

static void build_ik(struct af_buf *b, const struct opts *o)
{
	if (o->ik == IK_EMPTY) {
		put32(b, 0);
		return;
	}
	put32(b, 1), put32(b, 4);        /* one chain at offset 4 */
	put32(b, 0x7E7E7E7E), put32(b, 2); /* two targets */
	put32(b, 8), put32(b, 8 + 1028);
	for (uint32_t t = 0; t < 2; t++) {
		put32(b, t);
		ik_str(b, "x", '#');
		ik_str(b, t ? "rootWorld" : "b__L_foot_slot", o->ik == IK_ODDFILL && t ? 0 : '#');
	}
}

static void event(struct af_buf *b, uint16_t type, const char *name, const uint8_t *pay, size_t n)
{
	size_t l = strlen(name);
	put16(b, type), put16(b, 0xC1E4), put32(b, 7), putf(b, 0.1f), putf(b, -1.0f), putf(b, -1.0f);
	put32(b, 3), put32(b, (uint32_t)l);
	af_buf_append(b, name, l + 1);
	while ((l + 1) % 4)
		af_buf_put_u8(b, 0), l++;
	af_buf_append(b, pay, n);
}

static void build_events(struct af_buf *b, const struct opts *o)
{
	size_t at = b->len, first;
	uint8_t pay[128] = { 0 };
	af_buf_append(b, "=CE=", 4);
	put32(b, 0x103), put32(b, o->events ? 8 : 0), put32(b, 0), put32(b, o->events ? 4 : 0);
	first = b->len;
	if (o->events) {
		uint64_t key = af_fnv1_64_lower("ef_cough", 8);
		memcpy(pay, "snd_a", 5);
		event(b, 3, "snd_a", pay, 128);
		event(b, 4, "script", NULL, 0);
		memset(pay, 0, sizeof(pay));
		for (int i = 0; i < 8; i++)
			pay[i] = (uint8_t)(key >> (8 * i));
		pay[8] = 0x11, pay[12] = 0x67, pay[13] = 0x5D, pay[14] = 0x0C, pay[15] = 0x05; /* actor x */
		event(b, 5, "ef_cough", pay, 24);
		memset(pay, 0, sizeof(pay));
		for (int i = 0; i < 16; i++)
			memcpy(pay + 16 + 4 * i, (uint8_t[4]){ 0, 0, (i % 5) ? 0 : 0x80, (i % 5) ? 0 : 0x3F }, 4);
		event(b, 1, "parent", pay, 80);
		event(b, 2, "unparent", pay, 4);
		event(b, 6, "vis", (const uint8_t[4]){ 0, 0, 0, 0x3F }, 4);
		event(b, 9, "destroy", pay, 4);
		event(b, 10, "stop", pay, 8);
	}
	af_buf_patch_u32le(b, at + 12, (uint32_t)(b->len - first));
}

/* The whole file, header offsets computed here (not by the codec). */
static void build(struct af_buf *b, const struct opts *o)
{
	size_t body, ik = 0, actor, ev, end;
	af_buf_reset(b);
	put32(b, CLIP_TYPE_ID), put32(b, 0), put32(b, 0), put32(b, 0x2C);
	af_buf_fill(b, 0, 40);
	af_buf_patch_u32le(b, 32, 1);
	body = build_body(b, o);
	while (b->len % 4)
		af_buf_put_u8(b, 0x7E);
	if (o->ik != IK_NONE) {
		ik = b->len;
		build_ik(b, o);
	}
	actor = b->len;
	af_buf_append(b, "x", 2);
	af_buf_put_u8(b, 0x7E), af_buf_put_u8(b, 0x7E);
	ev = b->len;
	build_events(b, o);
	end = b->len;
	putf(b, 0), putf(b, 0), putf(b, 0), putf(b, 1);
	af_buf_patch_u32le(b, 8, (uint32_t)body);
	af_buf_patch_u32le(b, 16, ik ? (uint32_t)(ik - 16) : 0);
	af_buf_patch_u32le(b, 20, (uint32_t)(actor - 20));
	af_buf_patch_u32le(b, 24, (uint32_t)(ev - 24));
	af_buf_patch_u32le(b, 36, (uint32_t)(end - 36));
	assert_false(b->failed);
}

static const struct opts base = { IK_TWO, 1, "a_test_x", 0x0012 };

/* ------------------------------------------------------------ helpers */

static const struct af_codec *codec(void)
{
	const struct af_codec *c = af_codec_by_name("sims3-clip");
	assert_non_null(c);
	return c;
}

static void roundtrip_bytes(const struct af_buf *bin)
{
	struct af_arena a;
	struct af_diag d;
	struct clip c;
	struct af_buf out = AF_BUF_INIT;
	af_arena_init(&a);
	af_diag_init(&d);
	assert_int_equal(clip_read(bin->data, bin->len, &c, &a, &d), 0);
	assert_int_equal(clip_write(&c, &out, &d), 0);
	assert_int_equal(out.len, bin->len);
	assert_memory_equal(out.data, bin->data, bin->len);
	af_buf_free(&out);
	af_diag_free(&d);
	af_arena_free(&a);
}

/* decode to YAML into y, encode it back: identical bytes */
static void roundtrip_yaml(const struct af_buf *bin, struct af_buf *y)
{
	struct af_diag d;
	struct af_buf out = AF_BUF_INIT;
	af_diag_init(&d);
	af_buf_reset(y);
	assert_int_equal(codec()->to_yaml(bin->data, bin->len, NULL, y, &d), 0);
	int rc = codec()->from_yaml(y->data, y->len, NULL, &out, &d);
	if (rc)
		fprintf(stderr, "%u:%u: %s\n", d.line, d.col, d.msg);
	assert_int_equal(rc, 0);
	assert_int_equal(out.len, bin->len);
	assert_memory_equal(out.data, bin->data, bin->len);
	af_buf_free(&out);
	af_diag_free(&d);
}

static int has(const struct af_buf *y, const char *s)
{
	return memmem(y->data, y->len, s, strlen(s)) != NULL;
}

/* Expect clip_read to refuse with code and offset, and a message containing text. */
static void expect_read(const struct af_buf *bin, int code, int64_t off, const char *text)
{
	struct af_arena a;
	struct af_diag d;
	struct clip c;
	af_arena_init(&a);
	af_diag_init(&d);
	assert_int_equal(clip_read(bin->data, bin->len, &c, &a, &d), code);
	if (off >= 0)
		assert_int_equal(d.offset, off);
	if (!strstr(d.msg, text))
		fail_msg("'%s' lacks '%s'", d.msg, text);
	af_diag_free(&d);
	af_arena_free(&a);
}

/* The hand-built clip of o, decoded. */
struct dec {
	struct af_buf b;
	struct af_arena a;
	struct af_diag d;
	struct clip c;
};

static void dec_open(struct dec *x, const struct opts *o)
{
	af_buf_init(&x->b);
	build(&x->b, o);
	af_arena_init(&x->a);
	af_diag_init(&x->d);
	assert_int_equal(clip_read(x->b.data, x->b.len, &x->c, &x->a, &x->d), 0);
}

static void dec_close(struct dec *x)
{
	af_diag_free(&x->d);
	af_arena_free(&x->a);
	af_buf_free(&x->b);
}

/* ------------------------------------------------------------ tests */

static void test_header(void **state)
{
	(void)state;
	struct dec x;
	dec_open(&x, &base);
	const struct clip c = x.c;
	const struct af_buf b = x.b;
	assert_int_equal(c.unknown2, 1);
	assert_int_equal(c.version, 2);
	assert_int_equal(c.padding, 0x6C73);
	assert_int_equal(c.num_ticks, 4);
	assert_int_equal(c.nchan, NCH);
	assert_int_equal(c.npal, 3);
	assert_string_equal(c.name, "a_test_x");
	assert_string_equal(c.source, "test.blend");
	assert_string_equal(c.actor, "x");
	assert_true(c.has_ik);
	assert_int_equal(c.nev, 8);
	assert_int_equal(c.end[3], af_f32_bits(1.0f));
	/* self-relative offsets: the end block is the last 16 bytes */
	assert_int_equal(36 + af_le32(b.data + 36), b.len - 16);
	assert_memory_equal(b.data + 12 + af_le32(b.data + 12), "_pilC3S_", 8);
	roundtrip_bytes(&b);
	dec_close(&x);
}

static void test_channel_layouts(void **state)
{
	(void)state;
	struct dec x;
	dec_open(&x, &base);
	const struct clip c = x.c;
	/* 20: 12-bit codes, offset 0.5 scale -0.5: code 4095 -> 0.0, code 0 -> 0.5 */
	assert_int_equal(c.ch[0].f[0].code[3], 4095);
	assert_true(fabs(clip_value(&c, &c.ch[0], &c.ch[0].f[0], 3) - 0.0) < 1e-9);
	assert_true(fabs(clip_value(&c, &c.ch[0], &c.ch[0].f[0], 0) - 0.5) < 1e-9);
	/* 18: x = bits 0-9, y = 10-19, z = 20-29; sign bit 0 set on frame 0 */
	assert_int_equal(c.ch[1].f[0].code[0], 1023);
	assert_int_equal(c.ch[1].f[0].code[1], 512);
	assert_int_equal(c.ch[1].f[1].code[2], 3);
	assert_true(fabs(clip_value(&c, &c.ch[1], &c.ch[1].f[0], 0) + 2.0) < 1e-9);
	/* 5: one u16 over 65535 */
	assert_true(fabs(clip_value(&c, &c.ch[2], &c.ch[2].f[0], 0) - 1.0) < 1e-9);
	/* 11: no frames; 3: palette indices, sign bit 2 */
	assert_int_equal(c.ch[3].nframes, 0);
	assert_true(fabs(clip_value(&c, &c.ch[4], &c.ch[4].f[0], 1) - 0.5) < 1e-9);
	assert_true(fabs(clip_value(&c, &c.ch[4], &c.ch[4].f[0], 2) + 1.0) < 1e-9);
	/* 17: a 4-byte frame; 19: 12 raw bytes */
	assert_int_equal(c.ch[5].nframes, 1);
	assert_int_equal(c.ch[6].raw_len, 12);
	assert_int_equal(c.ch[6].raw[0], 0xA0);
	dec_close(&x);
}

static void test_yaml_view(void **state)
{
	(void)state;
	struct af_buf b = AF_BUF_INIT, y = AF_BUF_INIT;
	build(&b, &base);
	roundtrip_yaml(&b, &y);
	assert_true(has(&y, "  - target: b__ROOT__\n    type: F4_SuperHighPrecision_Quaternion\n"
			    "    sub_target: Orientation\n    offset: 0.5\n    scale: -0.5"));
	assert_true(has(&y, "      0: [0.5, 0.5, 0.5, 0.0]\n"));
	/* flags 0x12: sign of a zero code (bit 1) and bit 4 survive beside the values */
	assert_true(has(&y, "      2: {v: [0.48779, 0.5, 0.47557998, 0.011599512], flags: 0x0012}  # 0.067 s\n"));
	assert_true(has(&y, "      0: [-2.0, 1.0009775, 0.0]\n"));
	assert_true(has(&y, "    type: F1_Normalized\n    sub_target: Morph"));
	assert_true(has(&y, "    type: F3_Zero\n    sub_target: Translation\n    offset: 0.0\n    scale: 1.0\n    frames: {}\n"));
	assert_true(has(&y, "palette: [0.25, 0.5, 1.0]\n"));
	assert_true(has(&y, "      0: {v: [0.25, 0.5, -1.0], flags: 0x0004, codes: [0, 1, 2]}\n"));
	assert_true(has(&y, "    frame_count: 1\n    raw_frames: |\n      a0a1a2a3a4a5a6a7a8a9aaab\n"));
	assert_true(has(&y, "tick_length: 0.033333335  # 30 ticks per second\n"));
	af_buf_free(&y);
	af_buf_free(&b);
}

static void test_ik_tables(void **state)
{
	(void)state;
	struct af_buf b = AF_BUF_INIT, y = AF_BUF_INIT, b2 = AF_BUF_INIT;
	struct opts o = base;
	o.ik = IK_NONE;
	build(&b, &o);
	assert_int_equal(af_le32(b.data + 16), 0);
	roundtrip_yaml(&b, &y);
	assert_true(has(&y, "ik_chains: null"));
	o.ik = IK_EMPTY; /* 4 bytes more, and not the same file */
	build(&b2, &o);
	assert_int_equal(b2.len, b.len + 4);
	roundtrip_yaml(&b2, &y);
	assert_true(has(&y, "ik_chains: []"));
	o.ik = IK_TWO;
	build(&b, &o);
	roundtrip_yaml(&b, &y);
	assert_true(has(&y, "      - {index: 1, namespace: x, target: rootWorld}\n"));
	/* rootWorld is an IK string, so a channel aimed at it would show by name */
	o.ik = IK_ODDFILL; /* not '#' after the NUL: the 512 bytes are kept as hex */
	build(&b, &o);
	roundtrip_yaml(&b, &y);
	assert_true(has(&y, "target_hex: \"726f6f74576f726c640000"));
	/* a chain marker other than 7E7E7E7E cannot be rebuilt */
	o.ik = IK_TWO;
	build(&b, &o);
	size_t ik = 16 + af_le32(b.data + 16);
	b.data[ik + 8] = 0x7D;
	expect_read(&b, AF_EUNSUP, (int64_t)ik + 8, "marker");
	af_buf_free(&b2);
	af_buf_free(&y);
	af_buf_free(&b);
}

static void test_events(void **state)
{
	(void)state;
	struct af_buf b = AF_BUF_INIT, y = AF_BUF_INIT;
	build(&b, &base);
	roundtrip_yaml(&b, &y);
	assert_true(has(&y, "  - {type: Sound, id: 7, time: 0.1, name: snd_a, sound: snd_a, unknown1: -1.0, unknown2: -1.0, unknown3: 3}\n"));
	assert_true(has(&y, "  - {type: Script, id: 7, time: 0.1, name: script,"));
	/* effect_key = FNV-1 64 of the name: left out; actor hash 0x050C5D67 = x */
	assert_true(has(&y, "{type: Effect, id: 7, time: 0.1, name: ef_cough, effect_name: 0x00000011, actor: x, slot: 0x00000000, payload_unknown: 0,"));
	assert_true(has(&y, "transform: [1.0, 0.0, 0.0, 0.0, 0.0, 1.0,"));
	assert_true(has(&y, "{type: Visibility, id: 7, time: 0.1, name: vis, visibility: 0.5,"));
	assert_true(has(&y, "{type: DestroyProp,"));
	assert_true(has(&y, "{type: StopEffect,"));
	assert_true(has(&y, "{type: Unparent,"));
	/* an event kind of unknown size: the file cannot be carried on */
	size_t ev = 24 + af_le32(b.data + 24);
	b.data[ev + 20] = 0x0B;
	expect_read(&b, AF_EUNSUP, (int64_t)ev + 20, "kind");
	af_buf_free(&y);
	af_buf_free(&b);
}

static void test_padding_and_rules(void **state)
{
	(void)state;
	struct af_buf b = AF_BUF_INIT, y = AF_BUF_INIT;
	struct opts o = base;
	static const char *const names[] = { "a", "ab", "abc", "abcd" };
	unsigned padded = 0;
	for (unsigned i = 0; i < 4; i++) { /* every body padding, 0 to 3 bytes of 0x7E */
		o.name = names[i];
		build(&b, &o);
		roundtrip_bytes(&b);
		size_t end = 56 + af_le32(b.data + 8);
		if (end % 4) {
			padded++;
			assert_int_equal(b.data[end], 0x7E);
			b.data[end] = 0x00;
			expect_read(&b, AF_EUNSUP, (int64_t)end, "padding");
		}
	}
	assert_int_equal(padded, 3);
	build(&b, &base);
	/* a tick not after the previous one (channel 1 frame 1 at tick 0) */
	size_t data1 = 56 + af_le32(b.data + 56 + 48 + 20);
	af_buf_patch_u16le(&b, data1 + 8, 0);
	expect_read(&b, AF_EUNSUP, (int64_t)data1 + 8, "tick");
	build(&b, &base);
	/* bits 30-31 of a packed translation */
	b.data[data1 + 7] |= 0x40;
	expect_read(&b, AF_EUNSUP, (int64_t)data1 + 4, "bits 30-31");
	build(&b, &base);
	/* a sign bit of a component the type lacks (bit 3 on a 3-component channel) */
	af_buf_patch_u16le(&b, data1 + 2, 0x9);
	expect_read(&b, AF_EUNSUP, (int64_t)data1 + 2, "sign bits");
	build(&b, &base);
	/* linked clip, trailing bytes, end block */
	af_buf_patch_u32le(&b, 4, 8);
	expect_read(&b, AF_EUNSUP, 4, "linked clip");
	build(&b, &base);
	af_buf_put_u32le(&b, 0);
	expect_read(&b, AF_EUNSUP, -1, "end block");
	af_buf_free(&y);
	af_buf_free(&b);
}

/* Text edits of the view: the value that changes, the message of a bad one. */
static void edit(struct af_buf *y, const char *from, const char *to)
{
	uint8_t *p = memmem(y->data, y->len, from, strlen(from));
	size_t fl = strlen(from), tl = strlen(to), off;
	assert_non_null(p);
	off = (size_t)(p - y->data);
	struct af_buf n = AF_BUF_INIT;
	af_buf_append(&n, y->data, off);
	af_buf_append(&n, to, tl);
	af_buf_append(&n, y->data + off + fl, y->len - off - fl);
	af_buf_free(y);
	*y = n;
}

static int encode(const struct af_buf *y, struct af_buf *out, struct af_diag *d)
{
	af_buf_reset(out);
	af_diag_clear(d);
	return codec()->from_yaml(y->data, y->len, NULL, out, d);
}

static void test_quantize_edits(void **state)
{
	(void)state;
	struct af_buf b = AF_BUF_INIT, y = AF_BUF_INIT, out = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	build(&b, &base);
	roundtrip_yaml(&b, &y);
	/* one value of a plain frame: rule 12.2, round to nearest; one code changes */
	edit(&y, "      0: [-2.0, 1.0009775, 0.0]", "      0: [-2.0, 1.0, 0.0]");
	assert_int_equal(encode(&y, &out, &d), 0);
	assert_int_equal(out.len, b.len);
	size_t data1 = 56 + af_le32(b.data + 56 + 48 + 20), diff = 0;
	for (size_t i = 0; i < b.len; i++)
		diff += out.data[i] != b.data[i];
	assert_int_equal(af_le32(out.data + data1 + 4), 1023u | 512u << 10);
	assert_int_equal(diff, 0); /* 1.0 / 2.0 * 1023 = 511.5 rounds to 512, the stored code */
	af_buf_free(&y);
	roundtrip_yaml(&b, &y);
	edit(&y, "      0: [-2.0, 1.0009775, 0.0]", "      0: [-2.0, 1.5, 0.0]");
	assert_int_equal(encode(&y, &out, &d), 0);
	assert_int_equal(af_le32(out.data + data1 + 4), 1023u | 767u << 10); /* 0.75 * 1023 = 767.25 */
	for (size_t i = 0; i < b.len; i++) /* only that word changed */
		if (out.data[i] != b.data[i])
			assert_true(i >= data1 + 4 && i < data1 + 8);
	/* a flagged frame edited: the codes follow the value, bits 4-15 stay */
	roundtrip_yaml(&b, &y);
	edit(&y, "{v: [0.48779, 0.5,", "{v: [0.48779, 0.25,");
	assert_int_equal(encode(&y, &out, &d), 0);
	size_t data0 = 56 + af_le32(b.data + 56 + 48);
	assert_int_equal(af_le16(out.data + data0 + 12 + 2), 0x0010);
	assert_int_equal(af_le16(out.data + data0 + 12 + 6), 2048); /* (0.25-0.5)/-0.5*4095 */
	/* out of range: refused with line:col and the range */
	roundtrip_yaml(&b, &y);
	edit(&y, "      0: [-2.0, 1.0009775, 0.0]", "      0: [-2.0, 5.0, 0.0]");
	assert_int_equal(encode(&y, &out, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "channels[1].frames[0].v[1]: 5.0 is outside 0.0 +- 2.0"));
	assert_true(d.line > 0 && d.col > 0);
	/* the same with refit: offset/scale recomputed, a warning */
	edit(&y, "    scale: 2.0", "    refit: true\n    scale: 2.0");
	assert_int_equal(encode(&y, &out, &d), 0);
	assert_non_null(strstr((const char *)d.warnings.data, "refit"));
	/* broken YAML and unknown keys: line:col */
	roundtrip_yaml(&b, &y);
	edit(&y, "    offset: 0.5\n", "    ofset: 0.5\n");
	assert_int_equal(encode(&y, &out, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "unknown field(s) ofset"));
	assert_true(d.line > 0);
	roundtrip_yaml(&b, &y);
	edit(&y, "      0: [0.5, 0.5, 0.5, 0.0]", "      3: [0.5, 0.5, 0.5, 0.0]");
	assert_int_equal(encode(&y, &out, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "is not after tick"));
	roundtrip_yaml(&b, &y);
	edit(&y, "      0: [-2.0, 1.0009775, 0.0]", "      9: [-2.0, 1.0009775, 0.0]");
	assert_int_equal(encode(&y, &out, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "num_ticks is 4, but a frame is at tick 9"));
	roundtrip_yaml(&b, &y);
	edit(&y, "      0: [-2.0, 1.0009775, 0.0]", "      0: [-2.0, 1.0009775]");
	assert_int_equal(encode(&y, &out, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "expected 3 values"));
	roundtrip_yaml(&b, &y);
	edit(&y, "type: Sound", "type: Sonud");
	assert_int_equal(encode(&y, &out, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "unknown event type 'Sonud'"));
	roundtrip_yaml(&b, &y);
	edit(&y, "name: snd_a, sound: snd_a", "name: snd_a, sound: snd_a, slot: x");
	assert_int_equal(encode(&y, &out, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "a Sound event has no field slot"));
	/* warnings, written anyway: an event after the clip's end, a first frame after tick 0 */
	roundtrip_yaml(&b, &y);
	edit(&y, "{type: Sound, id: 7, time: 0.1,", "{type: Sound, id: 7, time: 99.0,");
	edit(&y, "      0: [-2.0, 1.0009775, 0.0]", "      1: [-2.0, 1.0009775, 0.0]");
	assert_int_equal(encode(&y, &out, &d), 0);
	assert_non_null(strstr((const char *)d.warnings.data, "events[0]: time 99 s is outside the clip (0 to 0.1 s)"));
	assert_non_null(strstr((const char *)d.warnings.data, "channels[1]: the first frame is at tick 1, not 0"));
	/* bone1 has three Translation and two Orientation channels in the hand-built clip */
	assert_non_null(strstr((const char *)d.warnings.data, "channels: 3 channel(s) with the same target and sub_target"));
	/* a new channel (spec 12.6): refit gives it offset and scale from its values */
	roundtrip_yaml(&b, &y);
	edit(&y, "channels:\n", "channels:\n  - target: b__L_hand__\n    type: F3_HighPrecisionNormalized\n"
	     "    sub_target: Translation\n    offset: 0.0\n    scale: 1.0\n    refit: true\n"
	     "    frames:\n      0: [1.0, 2.0, 3.0]\n      3: [-1.0, 2.5, 3.0]\n");
	assert_int_equal(encode(&y, &out, &d), 0);
	struct af_buf y2 = AF_BUF_INIT;
	assert_int_equal(codec()->to_yaml(out.data, out.len, NULL, &y2, &d), 0);
	assert_true(has(&y2, "  - target: 0x")); /* no name known for it: its hash */
	assert_true(has(&y2, "    offset: 1.0\n    scale: 2.0  # quantum 0.00196\n    frames:\n"
			     "      0: [1.0, 2.0009775, 3.0]\n      3: [-1.0, 2.4995112, 3.0]  # 0.100 s\n"));
	/* each value moved by at most half a quantum (2.0 / 1023 / 2) */
	af_buf_free(&y2);
	/* an effect renamed gets the key of its new name */
	roundtrip_yaml(&b, &y);
	edit(&y, "name: ef_cough", "name: ef_sneeze");
	assert_int_equal(encode(&y, &out, &d), 0);
	assert_non_null(memmem(out.data, out.len, "ef_sneeze", 9));
	uint64_t k = af_fnv1_64_lower("ef_sneeze", 9);
	uint8_t kb[8];
	for (int i = 0; i < 8; i++)
		kb[i] = (uint8_t)(k >> (8 * i));
	assert_non_null(memmem(out.data, out.len, kb, 8));
	af_diag_free(&d);
	af_buf_free(&out);
	af_buf_free(&y);
	af_buf_free(&b);
}

static void test_bid(void **state)
{
	(void)state;
	struct af_buf b = AF_BUF_INIT;
	static const uint8_t diesel_raw[8] = { 0x85, 0xCC, 0x83, 0x08, 0, 0, 0, 0 };
	static const uint8_t zlib[8] = { 0x78, 0x9C, 1, 2, 3, 4, 5, 6 };
	build(&b, &base);
	assert_string_equal(af_codec_bid("walk.animation", b.data, 64)->name, "sims3-clip");
	assert_string_equal(af_codec_bid("S3_6B20C4F3_00000000_0000000000000001%%+CLIP.animation",
					 b.data, 64)->name, "sims3-clip");
	assert_string_equal(af_codec_bid("walk.animation", b.data, 8)->name, "sims3-clip");
	assert_string_equal(af_codec_bid("walk.animation", diesel_raw, 8)->name, "diesel-animation");
	assert_string_equal(af_codec_bid("walk.animation", zlib, 8)->name, "diesel-animation");
	assert_int_equal(codec()->bid("walk.animation", diesel_raw, 8), 0);
	assert_int_equal(codec()->bid("walk.animation", zlib, 8), 0);
	af_buf_free(&b);
}

/* Every hostile count and every truncation: an error with a place, never a crash. */
static void test_hostile(void **state)
{
	(void)state;
	struct af_buf b = AF_BUF_INIT, y = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	build(&b, &base);
	static const struct { size_t at; uint32_t v; } counts[] = {
		{ 56 + 24, 0xFFFFFFFF }, /* channel count */
		{ 56 + 28, 0x7FFFFFFF }, /* palette size */
		{ 8, 0xFFFFFF00 },       /* clip_size */
		{ 20, 0xFFFFFFF0 },      /* actor offset */
	};
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		struct af_buf h = AF_BUF_INIT;
		af_buf_append(&h, b.data, b.len);
		af_buf_patch_u32le(&h, counts[i].at, counts[i].v);
		af_buf_reset(&y);
		af_diag_clear(&d);
		assert_true(codec()->to_yaml(h.data, h.len, NULL, &y, &d) < 0);
		assert_true(d.offset >= 0);
		af_buf_free(&h);
	}
	size_t ik = 16 + af_le32(b.data + 16), ev = 24 + af_le32(b.data + 24);
	af_buf_patch_u32le(&b, ik, 0x40000000); /* IK chains */
	expect_read(&b, AF_EINVAL, (int64_t)ik, "IK chains do not fit");
	build(&b, &base);
	af_buf_patch_u32le(&b, ev + 8, 0x7FFFFFFF); /* events */
	expect_read(&b, AF_EINVAL, (int64_t)ev + 8, "events do not fit");
	build(&b, &base);
	for (size_t n = 0; n < b.len; n++) {
		af_buf_reset(&y);
		af_diag_clear(&d);
		assert_true(codec()->to_yaml(b.data, n, NULL, &y, &d) < 0);
		assert_true(d.code < 0);
	}
	/* hostile YAML: more frames than frame_count holds, refused with its place */
	struct af_buf t = AF_BUF_INIT, out = AF_BUF_INIT;
	af_buf_puts(&t, "format: sims3-clip\nclip: c\nsource_file: s\nactor: x\ntick_length: 0.1\n"
		    "num_ticks: 65535\nik_chains: null\nevents: []\nchannels:\n  - target: b\n"
		    "    type: F1_Normalized\n    sub_target: 7\n    offset: 0.0\n    scale: 1.0\n"
		    "    frames:\n");
	for (unsigned i = 0; i < 70000; i++)
		af_buf_printf(&t, "      %u: [0.5]\n", i);
	af_diag_clear(&d);
	assert_int_equal(codec()->from_yaml(t.data, t.len, NULL, &out, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "70000 frames; at most 65535"));
	assert_int_equal(d.line, 16); /* the frames map */
	/* IK targets are 1 KiB each in the file: at most 65535 in all, whatever the chains */
	af_buf_reset(&t);
	af_buf_puts(&t, "format: sims3-clip\nclip: c\nsource_file: s\nactor: x\ntick_length: 0.1\n"
		    "num_ticks: 1\nevents: []\nchannels: []\nik_chains:\n");
	for (unsigned k = 0; k < 3; k++) {
		af_buf_puts(&t, "  - targets:\n");
		for (unsigned i = 0; i < 30000; i++)
			af_buf_puts(&t, "      - {namespace: x, target: y}\n");
	}
	af_diag_clear(&d);
	assert_int_equal(codec()->from_yaml(t.data, t.len, NULL, &out, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "ik_chains[2]: more than 65535 IK targets in all"));
	af_buf_free(&out);
	af_buf_free(&t);
	af_diag_free(&d);
	af_buf_free(&y);
	af_buf_free(&b);
}

/* Every single-bit flip of a small clip: a refusal with a message, or a file whose own
 * YAML encodes back to the identical bytes (the fuzz property, by hand). */
static void test_every_bit_flip(void **state)
{
	(void)state;
	struct af_buf b = AF_BUF_INIT, y = AF_BUF_INIT, out = AF_BUF_INIT;
	struct af_diag d;
	struct opts o = base;
	size_t ok = 0;
	o.ik = IK_EMPTY;
	build(&b, &o);
	af_diag_init(&d);
	for (size_t i = 0; i < b.len; i++)
		for (int bit = 0; bit < 8; bit++) {
			b.data[i] ^= (uint8_t)(1u << bit);
			af_buf_reset(&y);
			af_diag_clear(&d);
			if (codec()->to_yaml(b.data, b.len, NULL, &y, &d)) {
				assert_true(d.msg[0] != 0);
			} else {
				af_buf_reset(&out);
				if (codec()->from_yaml(y.data, y.len, NULL, &out, &d))
					fail_msg("flip of bit %d at 0x%zx: decoded, but its YAML does not "
						 "encode: %s (line %u)", bit, i, d.msg, d.line);
				if (out.len != b.len || memcmp(out.data, b.data, b.len))
					fail_msg("flip of bit %d at 0x%zx: not rebuilt identically", bit, i);
				ok++;
			}
			b.data[i] ^= (uint8_t)(1u << bit);
		}
	assert_true(ok > 0);
	af_diag_free(&d);
	af_buf_free(&out);
	af_buf_free(&y);
	af_buf_free(&b);
}

/* Name sources (spec 10): a rig beside the clip names its bones, and so do a sibling _KEY
 * map and the user dictionary: "bone1" targets show by name. */
static struct af_buf rig;
static const char rig_name[] = "S3_8EAF13DE_00000000_0000000000000001%%+_RIG.grannyrig";

static int rig_list(void *ctx, int (*cb)(void *, const char *), void *cbctx)
{
	(void)ctx;
	cb(cbctx, "unrelated.txt");
	cb(cbctx, rig_name);
	return 0;
}

static int rig_read(void *ctx, const char *name, struct af_buf *out)
{
	(void)ctx;
	if (strcmp(name, rig_name))
		return AF_EIO;
	return af_buf_append(out, rig.data, rig.len);
}

static int key_list(void *ctx, int (*cb)(void *, const char *), void *cbctx)
{
	(void)ctx;
	return cb(cbctx, "S3_0166038C_00000000_0000000000000001%%+_KEY.keyname");
}

static int key_read(void *ctx, const char *name, struct af_buf *out)
{
	(void)ctx;
	(void)name;
	put32(out, 1), put32(out, 1); /* version 1, one entry */
	af_buf_put_u64le(out, 0x1234); /* a key of another rule: the text counts all the same */
	put32(out, 5);
	return af_buf_append(out, "BONE1", 5);
}

static int dict_read(void *ctx, struct af_buf *out)
{
	(void)ctx;
	return af_buf_puts(out, "# comment\nbone1\n");
}

static void test_rig_names(void **state)
{
	(void)state;
	struct af_buf b = AF_BUF_INIT, y = AF_BUF_INIT;
	struct af_diag d;
	struct af_io io = { .name = "c.animation", .read_sibling = rig_read, .list_siblings = rig_list };
	af_diag_init(&d);
	af_buf_init(&rig);
	put32(&rig, 4), put32(&rig, 2), put32(&rig, 1);
	af_buf_fill(&rig, 0, 40);
	put32(&rig, 5);
	af_buf_append(&rig, "Bone1", 5); /* printed as the rig spells it */
	put32(&rig, 0), put32(&rig, (uint32_t)-1), put32(&rig, af_fnv1_32_lower("bone1", 5)), put32(&rig, 0x23);
	put32(&rig, 1);
	af_buf_append(&rig, "r", 1);
	put32(&rig, 0);
	build(&b, &base);
	assert_int_equal(codec()->to_yaml(b.data, b.len, NULL, &y, &d), 0);
	assert_false(has(&y, "target: Bone1"));
	af_buf_reset(&y);
	assert_int_equal(codec()->to_yaml(b.data, b.len, &io, &y, &d), 0);
	assert_true(has(&y, "  - target: Bone1\n"));
	/* a sibling _KEY map names it too (its text counts under FNV-1 32), and so does the
	 * user dictionary; the rig comes first */
	struct af_io io2 = { .name = "c.animation", .read_sibling = key_read, .list_siblings = key_list };
	af_buf_reset(&y);
	assert_int_equal(codec()->to_yaml(b.data, b.len, &io2, &y, &d), 0);
	assert_true(has(&y, "  - target: BONE1\n"));
	struct af_io io3 = { .name = "c.animation", .read_names = dict_read };
	af_buf_reset(&y);
	assert_int_equal(codec()->to_yaml(b.data, b.len, &io3, &y, &d), 0);
	assert_true(has(&y, "  - target: bone1\n"));
	af_buf_reset(&y);
	assert_int_equal(codec()->to_yaml(b.data, b.len, &io, &y, &d), 0);
	/* and the name encodes back to its hash */
	struct af_buf out = AF_BUF_INIT;
	assert_int_equal(codec()->from_yaml(y.data, y.len, NULL, &out, &d), 0);
	assert_int_equal(out.len, b.len);
	assert_memory_equal(out.data, b.data, b.len);
	af_buf_free(&out);
	af_buf_free(&rig);
	af_diag_free(&d);
	af_buf_free(&y);
	af_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_channel_layouts),
		cmocka_unit_test(test_yaml_view),
		cmocka_unit_test(test_ik_tables),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_padding_and_rules),
		cmocka_unit_test(test_quantize_edits),
		cmocka_unit_test(test_bid),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_rig_names),
		cmocka_unit_test(test_every_bit_flip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
