/* Diesel 64-bit ("x64") files as the community converter writes them. The
 * converter's bytes come from a small generator below, an independent
 * transcription of formats/diesel-x64.md section 6 that reads a 32-bit blob
 * directly (no codec code): no third-party bytes are kept in the project. It
 * covers the final padding, copied event names, no events, one- and odd-key
 * rot_f32 last tracks, zlib level 1 and a stream no zlib level reproduces, the
 * convert hook, a layout: changed in the YAML, hostile 64-bit headers, and every
 * sample in ../shared/samples/diesel converted (skipped when absent). */
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <zlib.h>

#include "animfs/bytes.h"
#include "animfs/codec.h"
#include "animfs/fileio.h"

extern const struct af_codec af_codec_diesel;
#define C (&af_codec_diesel)
#define SAMPLE_DIR ANIMFS_SAMPLES "/diesel"

/* ---------------------------------------------------------------- the generator */

static unsigned stride_of(uint32_t hash)
{
	switch (hash) {
	case 0x1DC686E0u: return 12; /* pos_u16 */
	case 0x9D3DE40Du: return 16; /* pos_f32 */
	case 0x1196CFB2u: return 20; /* pos_f32_flag */
	case 0x9DFB92B6u: return 20; /* rot_f32 */
	case 0x96ECB85Cu: return 8;  /* rot_packed */
	case 0xE91A69BAu: return 24; /* rot_f32_flag */
	default: fail_msg("unknown hash 0x%08X", hash); return 0;
	}
}

static void pad8(struct af_buf *o)
{
	while (o->len % 8)
		af_buf_putc(o, 0);
}

static void put_cstr(struct af_buf *o, const uint8_t *b, uint32_t off)
{
	af_buf_append(o, b + off, strlen((const char *)b + off) + 1);
}

static void x1_tracks(const uint8_t *b, uint32_t count, uint32_t tab, struct af_buf *o)
{
	size_t t = o->len;
	af_buf_fill(o, 0, (size_t)16 * count);
	for (uint32_t i = 0; i < count; i++) {
		uint32_t hash = af_le32(b + tab + 8 * i), hdr = af_le32(b + tab + 8 * i + 4);
		uint32_t nk = af_le32(b + hdr + 4), koff = af_le32(b + hdr + 8);
		size_t h = o->len;
		af_buf_patch_u64le(o, t + 16 * i, hash);
		af_buf_patch_u64le(o, t + 16 * i + 8, h);
		af_buf_put_u64le(o, af_le32(b + hdr));
		af_buf_put_u64le(o, nk);
		af_buf_put_u64le(o, h + 24);
		af_buf_append(o, b + koff, (size_t)nk * stride_of(hash));
		pad8(o); /* after every track, the last one included */
	}
}

/* What converter v1.0.2 writes for the 32-bit blob b (diesel-x64.md 6). */
static void x1_convert(const uint8_t *b, struct af_buf *o)
{
	uint32_t nn = af_le32(b + 0x14), no = af_le32(b + 0x18);
	uint32_t ne = af_le32(b + 0x24), eo = af_le32(b + 0x28);
	af_buf_reset(o);
	af_buf_fill(o, 0, 120);
	memcpy(o->data, b, 4);
	af_buf_patch_u32le(o, 4, af_le32(b + 4));
	af_buf_patch_u64le(o, 8, af_le32(b + 8));
	af_buf_patch_u32le(o, 0x20, af_le32(b + 0x10));
	af_buf_patch_u64le(o, 0x28, nn);
	af_buf_patch_u64le(o, 0x30, 120);
	af_buf_fill(o, 0, (size_t)8 * nn);
	for (uint32_t i = 0; i < nn; i++) {
		af_buf_patch_u64le(o, 120 + 8 * i, o->len);
		put_cstr(o, b, af_le32(b + no + 4 * i));
	}
	pad8(o);
	size_t ev = o->len;
	af_buf_patch_u64le(o, 0x40, ev); /* unknown: {0, events offset} */
	af_buf_patch_u64le(o, 0x48, ne);
	af_buf_patch_u64le(o, 0x50, ev);
	af_buf_fill(o, 0, (size_t)16 * ne);
	for (uint32_t i = 0; i < ne; i++) {
		af_buf_patch_u32le(o, ev + 16 * i, af_le32(b + eo + 8 * i));
		af_buf_patch_u64le(o, ev + 16 * i + 8, o->len);
		put_cstr(o, b, af_le32(b + eo + 8 * i + 4)); /* its own copy */
	}
	pad8(o);
	af_buf_patch_u64le(o, 0x58, af_le32(b + 0x2C));
	af_buf_patch_u64le(o, 0x60, o->len);
	x1_tracks(b, af_le32(b + 0x2C), af_le32(b + 0x30), o);
	af_buf_patch_u64le(o, 0x68, af_le32(b + 0x34));
	af_buf_patch_u64le(o, 0x70, o->len);
	x1_tracks(b, af_le32(b + 0x34), af_le32(b + 0x38), o);
	af_buf_patch_u64le(o, 0x10, o->len);
	assert_false(o->failed);
}

/* ---------------------------------------------------------------- 32-bit inputs */

struct track_spec {
	uint32_t hash;
	uint32_t nkeys;
};

/* A stock 32-bit blob: nobj objects, the events given (names may repeat: the
 * stock writer shares them), each track with its keys (times 0, 1/30, ...). */
static void mk32(struct af_buf *o, uint32_t nobj, const struct track_spec *pos,
		 const struct track_spec *rot, uint32_t nev, const char *const *evnames)
{
	af_buf_reset(o);
	af_buf_fill(o, 0, 60);
	af_buf_patch_u32le(o, 0, 0x0883CC85u);
	af_buf_patch_u32le(o, 0x10, af_f32_bits(2.0f));
	af_buf_patch_u32le(o, 0x14, nobj);
	af_buf_patch_u32le(o, 0x18, 60);
	af_buf_fill(o, 0, 4 * (size_t)nobj);
	for (uint32_t i = 0; i < nobj; i++) {
		char nm[32];
		snprintf(nm, sizeof(nm), i ? "Bone%u" : "root_point", i);
		af_buf_patch_u32le(o, 60 + 4 * i, (uint32_t)o->len);
		af_buf_append(o, nm, strlen(nm) + 1);
	}
	af_buf_align(o, 4);
	size_t ev = o->len;
	af_buf_patch_u32le(o, 0x20, (uint32_t)ev);
	af_buf_patch_u32le(o, 0x24, nev);
	af_buf_patch_u32le(o, 0x28, (uint32_t)ev);
	af_buf_fill(o, 0, 8 * (size_t)nev);
	for (uint32_t i = 0; i < nev; i++) {
		size_t at = o->len;
		for (uint32_t j = 0; j < i; j++)
			if (!strcmp(evnames[j], evnames[i]))
				at = af_le32(o->data + ev + 8 * j + 4);
		if (at == o->len)
			af_buf_append(o, evnames[i], strlen(evnames[i]) + 1);
		af_buf_patch_u32le(o, ev + 8 * i, af_f32_bits((float)i / (float)(nev + 1)));
		af_buf_patch_u32le(o, ev + 8 * i + 4, (uint32_t)at);
	}
	af_buf_align(o, 4);
	for (int rotp = 0; rotp < 2; rotp++) {
		const struct track_spec *ts = rotp ? rot : pos;
		size_t tab = o->len;
		af_buf_patch_u32le(o, rotp ? 0x34 : 0x2C, nobj);
		af_buf_patch_u32le(o, rotp ? 0x38 : 0x30, (uint32_t)tab);
		af_buf_fill(o, 0, 8 * (size_t)nobj);
		for (uint32_t i = 0; i < nobj; i++) {
			size_t hdr = o->len;
			unsigned st = stride_of(ts[i].hash);
			af_buf_patch_u32le(o, tab + 8 * i, ts[i].hash);
			af_buf_patch_u32le(o, tab + 8 * i + 4, (uint32_t)hdr);
			af_buf_put_u32le(o, 0);
			af_buf_put_u32le(o, ts[i].nkeys);
			af_buf_put_u32le(o, (uint32_t)hdr + 12);
			for (uint32_t k = 0; k < ts[i].nkeys; k++) {
				size_t key = o->len;
				af_buf_fill(o, 0, st);
				af_buf_patch_u32le(o, key, af_f32_bits((float)k / 30.0f));
				if (st == 12) /* pos_u16: codes around 0 cm */
					af_buf_patch_u32le(o, key + 4, (32767u + k) | 32767u << 16);
				else if (st == 8) /* rot_packed identity */
					af_buf_patch_u32le(o, key + 4, 0x80200803u);
				else if (rotp) /* float quaternion (0, 0, 0, 1) */
					af_buf_patch_u32le(o, key + 16, af_f32_bits(1.0f));
				else
					af_buf_patch_u32le(o, key + 4, af_f32_bits(1.5f * (float)k));
			}
		}
	}
	af_buf_patch_u32le(o, 0x0C, (uint32_t)o->len);
	assert_false(o->failed);
}

/* ---------------------------------------------------------------- helpers */

static char *decode(const uint8_t *bin, size_t n, int want_rc)
{
	struct af_buf y = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	int rc = C->to_yaml(bin, n, NULL, &y, &d);
	if (rc != want_rc)
		fail_msg("decode: rc %d (wanted %d): %s (offset %lld)", rc, want_rc, d.msg,
			 (long long)d.offset);
	af_buf_putc(&y, 0);
	af_diag_free(&d);
	return (char *)af_buf_steal(&y, NULL);
}

static void encode(const char *yaml, struct af_buf *out)
{
	struct af_diag d;
	af_diag_init(&d);
	af_buf_reset(out);
	if (C->from_yaml((const uint8_t *)yaml, strlen(yaml), NULL, out, &d))
		fail_msg("encode: %u:%u %s", d.line, d.col, d.msg);
	af_diag_free(&d);
}

/* decode -> encode gives the same bytes; returns the YAML (caller frees) */
static char *roundtrip(const uint8_t *bin, size_t n)
{
	struct af_buf back = AF_BUF_INIT;
	char *y = decode(bin, n, 0);
	encode(y, &back);
	if (back.len != n || memcmp(back.data, bin, n)) {
		size_t i = 0;
		while (i < n && i < back.len && back.data[i] == bin[i])
			i++;
		fail_msg("round trip differs at 0x%zx (%zu bytes for %zu)", i, back.len, n);
	}
	af_buf_free(&back);
	return y;
}

static void contains(const char *y, const char *text)
{
	if (!strstr(y, text))
		fail_msg("YAML lacks '%s':\n%.3000s", text, y);
}

static int convert(const uint8_t *bin, size_t n, const char *to, const char *style,
		   struct af_buf *out)
{
	struct af_convert cv = { to, style, NULL };
	struct af_diag d;
	af_diag_init(&d);
	af_buf_reset(out);
	int rc = C->convert(bin, n, &cv, out, &d);
	if (rc < 0)
		fail_msg("convert --to %s: %s (%s)", to, d.msg, cv.why ? cv.why : "?");
	af_diag_free(&d);
	return rc;
}

static void same_bytes(const struct af_buf *a, const struct af_buf *b, const char *what)
{
	if (a->len != b->len || memcmp(a->data, b->data, a->len)) {
		size_t i = 0;
		while (i < a->len && i < b->len && a->data[i] == b->data[i])
			i++;
		fail_msg("%s: differ at 0x%zx (%zu vs %zu bytes)", what, i, a->len, b->len);
	}
}

/* The content of a document: its length and everything from events: on. */
static void same_content(const char *a, const char *b, const char *what)
{
	const char *la = strstr(a, "\nlength: "), *lb = strstr(b, "\nlength: ");
	const char *ea = strstr(a, "\nevents:"), *eb = strstr(b, "\nevents:");
	assert_non_null(la), assert_non_null(lb), assert_non_null(ea), assert_non_null(eb);
	if (strncmp(la, lb, (size_t)(strchr(la + 1, '\n') - la)) || strcmp(ea, eb))
		fail_msg("%s: the content differs", what);
}

/* A zlib container: deflate(level, strategy) + the u32 trailer. With split,
 * the input goes in two calls with a sync flush between them (an empty stored
 * block mid-stream), as no compress2 call writes it. */
static void zwrap_ex(const struct af_buf *blob, int level, int strategy, int split,
		     struct af_buf *out)
{
	z_stream zs;
	size_t half = split ? blob->len / 2 : blob->len;
	memset(&zs, 0, sizeof(zs));
	assert_int_equal(deflateInit2(&zs, level, Z_DEFLATED, 15, 8, strategy), Z_OK);
	af_buf_reset(out);
	af_buf_reserve(out, deflateBound(&zs, blob->len) + 64);
	zs.next_out = out->data;
	zs.avail_out = (uInt)out->cap;
	zs.next_in = blob->data;
	zs.avail_in = (uInt)half;
	if (split) {
		assert_int_equal(deflate(&zs, Z_SYNC_FLUSH), Z_OK);
		zs.avail_in = (uInt)(blob->len - half);
	}
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	out->len = zs.total_out;
	deflateEnd(&zs);
	af_buf_put_u32le(out, (uint32_t)blob->len);
}

static void zwrap(const struct af_buf *blob, int level, int strategy, struct af_buf *out)
{
	zwrap_ex(blob, level, strategy, 0, out);
}

/* A stream from another deflate (diesel-x64.md 1: miniz_oxide): fixed Huffman
 * codes in two blocks under a level-1 header. No compress2 level writes these. */
static void miniz_like(const struct af_buf *blob, struct af_buf *out)
{
	zwrap_ex(blob, 1, Z_FIXED, 1, out);
	assert_int_equal(out->data[0], 0x78);
	assert_int_equal(out->data[1], 0x01);
}

/* Every form of one converted file decodes and rebuilds byte for byte: raw,
 * zlib level 1 (as Python's zlib.compress(blob, 1)), and a miniz-like stream. */
static void all_forms_roundtrip(const struct af_buf *x64)
{
	struct af_buf z = AF_BUF_INIT;
	free(roundtrip(x64->data, x64->len));
	zwrap(x64, 1, Z_DEFAULT_STRATEGY, &z);
	char *y = roundtrip(z.data, z.len);
	contains(y, "container: zlib\n  zlib_level: 1\n");
	/* convert leaves a wrapped 64-bit file alone, with a note */
	struct af_convert cv = { "x64", NULL, NULL };
	struct af_buf none = AF_BUF_INIT;
	struct af_diag dc;
	af_diag_init(&dc);
	assert_int_equal(C->convert(z.data, z.len, &cv, &none, &dc), AF_CONVERT_ALREADY);
	assert_non_null(cv.why);
	assert_int_equal(none.len, 0);
	af_diag_free(&dc);
	free(y);
	miniz_like(x64, &z);
	y = roundtrip(z.data, z.len);
	contains(y, "zlib_level: none");
	/* encoding it warns that the game and converter v1.0.2 want it raw */
	struct af_buf back = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	assert_int_equal(C->from_yaml((const uint8_t *)y, strlen(y), NULL, &back, &d), 0);
	af_buf_putc(&d.warnings, 0);
	if (!strstr((const char *)d.warnings.data, "want container: raw"))
		fail_msg("no zlib warning: %s", (const char *)d.warnings.data);
	af_diag_free(&d);
	af_buf_free(&back);
	free(y);
	af_buf_free(&z);
}

/* ---------------------------------------------------------------- synthetic files */

static const struct track_spec P2[2] = { { 0x1DC686E0u, 1 }, { 0x1DC686E0u, 2 } };

static void check_case(const struct track_spec *pos, const struct track_spec *rot, uint32_t nev,
		       const char *const *ev, int end_padded, const char *dedupe)
{
	struct af_buf b32 = AF_BUF_INIT, x = AF_BUF_INIT, conv = AF_BUF_INIT;
	mk32(&b32, 2, pos, rot, nev, ev);
	free(roundtrip(b32.data, b32.len));
	x1_convert(b32.data, &x);
	/* the final padding is there exactly when the last track ends off 8 */
	uint64_t last_hdr = af_le64(x.data + af_le64(x.data + 0x70) + 16 + 8);
	uint64_t keys_end = last_hdr + 24 + af_le64(x.data + last_hdr + 8) * stride_of(rot[1].hash);
	assert_int_equal(x.len - keys_end, end_padded ? 4 : 0);
	char *y = roundtrip(x.data, x.len);
	contains(y, "layout: 64-bit");
	contains(y, "container: raw\n");
	contains(y, dedupe);
	if (end_padded)
		contains(y, "end_pad: 8\n");
	contains(y, "animfs convert --to x32");
	all_forms_roundtrip(&x);
	/* the convert hook writes the converter's very bytes */
	assert_int_equal(convert(b32.data, b32.len, "x64", NULL, &conv), 0);
	same_bytes(&conv, &x, "convert --to x64 vs the converter");
	assert_int_equal(convert(conv.data, conv.len, "x64", NULL, &conv), AF_CONVERT_ALREADY);
	free(y);
	af_buf_free(&b32);
	af_buf_free(&x);
	af_buf_free(&conv);
}

static void test_converter_files(void **state)
{
	(void)state;
	static const char *const ev_rep[4] = { "leftfoot", "rightfoot", "leftfoot", "wp_reload" };
	static const char *const ev_one[1] = { "anim_act_02" };
	const struct track_spec r_one[2] = { { 0x9DFB92B6u, 2 }, { 0x9DFB92B6u, 1 } };
	const struct track_spec r_odd[2] = { { 0x9DFB92B6u, 1 }, { 0x9DFB92B6u, 3 } };
	const struct track_spec r_even[2] = { { 0x9DFB92B6u, 1 }, { 0x9DFB92B6u, 2 } };
	const struct track_spec r_pk[2] = { { 0x96ECB85Cu, 3 }, { 0x96ECB85Cu, 1 } };
	const struct track_spec r_fl[2] = { { 0xE91A69BAu, 1 }, { 0xE91A69BAu, 1 } };
	const struct track_spec p_fl[2] = { { 0x1196CFB2u, 1 }, { 0x9D3DE40Du, 3 } };
	/* final padding: one-key and odd-key rot_f32 last tracks; no events; copies */
	check_case(P2, r_one, 0, NULL, 1, "dedupe_event_names: false\n");
	check_case(P2, r_odd, 4, ev_rep, 1, "dedupe_event_names: false\n");
	check_case(P2, r_odd, 1, ev_one, 1, "dedupe_event_names: false\n");
	/* no final padding: an even rot_f32 track, packed and flagged rotations */
	check_case(P2, r_even, 0, NULL, 0, "dedupe_event_names: true\n");
	check_case(P2, r_pk, 4, ev_rep, 0, "dedupe_event_names: false\n");
	check_case(p_fl, r_fl, 1, ev_one, 0, "dedupe_event_names: true\n");
}

/* Inputs the converter takes as they are (diesel-x64.md 2.3): a size field of 0,
 * unknown and events offsets of 0 (DieselEngineFormats), a raw 32-bit blob, bytes
 * between the zlib stream and the trailer, version and location words. */
static void test_converter_inputs(void **state)
{
	(void)state;
	const struct track_spec r_odd[2] = { { 0x9DFB92B6u, 1 }, { 0x9DFB92B6u, 3 } };
	struct af_buf b32 = AF_BUF_INIT, x = AF_BUF_INIT, conv = AF_BUF_INIT, z = AF_BUF_INIT;
	mk32(&b32, 2, P2, r_odd, 0, NULL);
	af_buf_patch_u32le(&b32, 0x04, 7);            /* version */
	af_buf_patch_u32le(&b32, 0x08, 0xDEADBEEFu);  /* location */
	af_buf_patch_u32le(&b32, 0x0C, 0);            /* size field 0 */
	af_buf_patch_u32le(&b32, 0x20, 0);            /* unknown offset 0 */
	af_buf_patch_u32le(&b32, 0x28, 0);            /* empty events offset 0 */
	x1_convert(b32.data, &x);
	assert_int_equal(af_le64(x.data + 8), 0xDEADBEEFu);
	assert_int_equal(convert(b32.data, b32.len, "x64", NULL, &conv), 0); /* raw 32-bit */
	same_bytes(&conv, &x, "raw 32-bit input with size 0 and offsets 0");
	zwrap(&b32, 9, Z_DEFAULT_STRATEGY, &z);
	uint8_t tail[4];
	memcpy(tail, z.data + z.len - 4, 4);
	z.len -= 4;
	af_buf_append(&z, "\x01\x02\x03", 3);                /* extra bytes before the trailer */
	af_buf_append(&z, tail, 4);
	free(roundtrip(z.data, z.len));
	assert_int_equal(convert(z.data, z.len, "x64", NULL, &conv), 0);
	same_bytes(&conv, &x, "zlib input with extra bytes");
	free(roundtrip(conv.data, conv.len));
	/* a size field neither 0 nor the length is refused, as the converter refuses it */
	struct af_buf bad = AF_BUF_INIT;
	struct af_convert cv = { "x64", NULL, NULL };
	struct af_diag d;
	af_diag_init(&d);
	af_buf_append(&bad, b32.data, b32.len);
	af_buf_patch_u32le(&bad, 0x0C, 12345);
	free(roundtrip(bad.data, bad.len));
	assert_int_equal(C->convert(bad.data, bad.len, &cv, &conv, &d), AF_EUNSUP);
	assert_string_equal(cv.why, "size field neither 0 nor the length");
	af_diag_free(&d);
	af_buf_free(&bad);
	/* native zeroes version and location; x32 keeps them */
	assert_int_equal(convert(z.data, z.len, "x64", "native", &conv), 0);
	assert_int_equal(af_le32(conv.data + 4), 0);
	assert_int_equal(af_le64(conv.data + 8), 0);
	assert_int_equal(convert(x.data, x.len, "x32", NULL, &z), 0);
	char *y = decode(z.data, z.len, 0);
	contains(y, "  version: 7\n  location: 3735928559\n");
	free(y);
	af_buf_free(&b32), af_buf_free(&x), af_buf_free(&conv), af_buf_free(&z);
}

/* Flipping only `layout:` in the YAML gives what `convert` gives, in both
 * styles and back; the native style shares event names and stops after the
 * last key. */
static void test_layout_flip(void **state)
{
	(void)state;
	static const char *const ev_rep[3] = { "wp_reload", "wp_reload", "wp_reload" };
	const struct track_spec r_odd[2] = { { 0x9DFB92B6u, 1 }, { 0x9DFB92B6u, 3 } };
	struct af_buf b32 = AF_BUF_INIT, conv = AF_BUF_INIT, enc = AF_BUF_INIT;
	mk32(&b32, 2, P2, r_odd, 3, ev_rep);
	char *y = decode(b32.data, b32.len, 0);
	contains(y, "  layout: 32-bit ");
	contains(y, "animfs convert --to x64");
	char *lay = strstr(y, "  layout: 32-bit");
	memcpy(lay + 10, "64", 2);
	encode(y, &enc);
	assert_int_equal(convert(b32.data, b32.len, "x64", NULL, &conv), 0);
	same_bytes(&enc, &conv, "layout: 64-bit vs convert");
	/* native: one string for the three events, no final padding */
	size_t n = strlen(y);
	char *yn = malloc(n + 64);
	size_t at = (size_t)(strchr(lay, '\n') + 1 - y);
	memcpy(yn, y, at);
	strcpy(yn + at, "  convert_style: native\n");
	strcat(yn, y + at);
	encode(yn, &enc);
	assert_int_equal(convert(b32.data, b32.len, "x64", "native", &conv), 0);
	same_bytes(&enc, &conv, "layout: 64-bit + native vs convert --style native");
	uint64_t ev = af_le64(conv.data + 0x50);
	assert_int_equal(af_le64(conv.data + ev + 8), af_le64(conv.data + ev + 24));
	char *y2 = roundtrip(conv.data, conv.len);
	contains(y2, "end_pad: 1\n");
	contains(y2, "dedupe_event_names: true\n");
	same_content(y, y2, "native");
	/* and back: x32 is the stock layout, identical to the stock-built original */
	struct af_buf back = AF_BUF_INIT, zb = AF_BUF_INIT;
	assert_int_equal(convert(conv.data, conv.len, "x32", NULL, &back), 0);
	zwrap(&b32, 6, Z_DEFAULT_STRATEGY, &zb);
	same_bytes(&back, &zb, "x64 -> x32 vs the stock 32-bit file");
	/* and the same through the YAML: only layout: 64-bit -> 32-bit */
	char *l64 = strstr(y2, "  layout: 64-bit");
	assert_non_null(l64);
	memcpy(l64 + 10, "32", 2);
	encode(y2, &enc);
	same_bytes(&enc, &zb, "layout: 32-bit in a 64-bit document vs the stock 32-bit file");
	/* a byte-swapped magic (PD2ModelParser) is refused, as the converter does */
	struct af_convert cv = { "x64", NULL, NULL };
	struct af_diag d;
	af_diag_init(&d);
	b32.data[0] = 0x08, b32.data[1] = 0x83, b32.data[2] = 0xCC, b32.data[3] = 0x85;
	assert_int_equal(C->convert(b32.data, b32.len, &cv, &conv, &d), AF_EUNSUP);
	assert_non_null(strstr(cv.why, "byte-swapped"));
	af_diag_free(&d);
	free(y), free(yn), free(y2);
	af_buf_free(&b32), af_buf_free(&conv), af_buf_free(&enc), af_buf_free(&back), af_buf_free(&zb);
}

/* ---------------------------------------------------------------- hostile headers */

static void expect_refused(const struct af_buf *b, int64_t off, const char *part)
{
	struct af_buf y = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	int rc = C->to_yaml(b->data, b->len, NULL, &y, &d);
	if (rc >= 0 || d.offset != off || !strstr(d.msg, part))
		fail_msg("rc %d at %lld: '%s'; wanted a refusal at %lld with '%s'", rc,
			 (long long)d.offset, d.msg, (long long)off, part);
	assert_int_equal(y.len, 0);
	af_buf_free(&y);
	af_diag_free(&d);
}

static void test_hostile_header(void **state)
{
	(void)state;
	static const char *const ev_one[1] = { "a" };
	const struct track_spec r_odd[2] = { { 0x9DFB92B6u, 1 }, { 0x9DFB92B6u, 3 } };
	struct af_buf b32 = AF_BUF_INIT, x = AF_BUF_INIT, h = AF_BUF_INIT;
	mk32(&b32, 2, P2, r_odd, 1, ev_one);
	x1_convert(b32.data, &x);
	const uint64_t big = (uint64_t)1 << 63;
	/* each table: a count of 2^63, then an offset of 2^63, then pointing at itself */
	for (unsigned t = 0; t < 5; t++) {
		size_t field = 0x28 + 16 * t;
		if (t == 1)
			continue; /* the beat-time count is refused before anything else */
		af_buf_reset(&h), af_buf_append(&h, x.data, x.len);
		af_buf_patch_u64le(&h, field, big);
		expect_refused(&h, (int64_t)field, "claim");
		af_buf_reset(&h), af_buf_append(&h, x.data, x.len);
		af_buf_patch_u64le(&h, field + 8, big);
		expect_refused(&h, (int64_t)field, "is outside");
		af_buf_reset(&h), af_buf_append(&h, x.data, x.len);
		af_buf_patch_u64le(&h, field + 8, field);
		expect_refused(&h, (int64_t)field, "points into the 120-byte header");
	}
	af_buf_reset(&h), af_buf_append(&h, x.data, x.len);
	af_buf_patch_u64le(&h, 0x38, big);
	expect_refused(&h, 0x38, "beat-time section");
	/* a name pointer and a track header pointer into the header */
	af_buf_reset(&h), af_buf_append(&h, x.data, x.len);
	af_buf_patch_u64le(&h, 120, 0x10);
	expect_refused(&h, 120, "points into the 120-byte header");
	af_buf_reset(&h), af_buf_append(&h, x.data, x.len);
	uint64_t pt = af_le64(x.data + 0x60);
	af_buf_patch_u64le(&h, pt + 8, 0x58);
	expect_refused(&h, (int64_t)pt + 8, "points into the 120-byte header");
	/* a key count of 2^63 */
	af_buf_reset(&h), af_buf_append(&h, x.data, x.len);
	uint64_t hdr = af_le64(x.data + pt + 8);
	af_buf_patch_u64le(&h, hdr + 8, big);
	expect_refused(&h, (int64_t)hdr + 16, "claim");
	/* a 64-bit file's own failing check, never the 32-bit reading's: 0 keys */
	af_buf_reset(&h), af_buf_append(&h, x.data, x.len);
	af_buf_patch_u64le(&h, hdr + 8, 0);
	expect_refused(&h, (int64_t)hdr + 8, "has no keys");
	/* unequal counts */
	af_buf_reset(&h), af_buf_append(&h, x.data, x.len);
	af_buf_patch_u64le(&h, 0x68, 1);
	expect_refused(&h, 0x28, "1 rotation tracks");
	af_buf_free(&b32), af_buf_free(&x), af_buf_free(&h);
}

/* Bytes after the last key that are not padding: shown read-only, not refused. */
static void test_readonly(void **state)
{
	(void)state;
	const struct track_spec r_pk[2] = { { 0x96ECB85Cu, 1 }, { 0x96ECB85Cu, 1 } };
	struct af_buf b32 = AF_BUF_INIT, x = AF_BUF_INIT, conv = AF_BUF_INIT;
	mk32(&b32, 2, P2, r_pk, 0, NULL);
	x1_convert(b32.data, &x);
	af_buf_put_u64le(&x, 0x1122334455667788ull);
	af_buf_patch_u64le(&x, 0x10, x.len);
	char *y = decode(x.data, x.len, AF_VIEW_READONLY);
	contains(y, "# READ-ONLY: animfs reads this file but cannot write it back byte for byte:\n");
	contains(y, "read_only: ");
	contains(y, "layout: 64-bit");
	struct af_convert cv = { "x32", NULL, NULL };
	struct af_diag d;
	af_diag_init(&d);
	assert_int_equal(C->convert(x.data, x.len, &cv, &conv, &d), AF_EUNSUP);
	assert_non_null(strstr(cv.why, "read-only"));
	af_diag_free(&d);
	free(y);
	af_buf_free(&b32), af_buf_free(&x), af_buf_free(&conv);
}

/* ---------------------------------------------------------------- the samples */

static int inflate_sample(const struct af_buf *file, struct af_buf *blob)
{
	uLongf n = af_le32(file->data + file->len - 4);
	af_buf_reset(blob);
	if (af_buf_reserve(blob, n))
		return -1;
	if (uncompress(blob->data, &n, file->data, (uLong)file->len - 4) != Z_OK)
		return -1;
	blob->len = n;
	return 0;
}

static void test_samples(void **state)
{
	(void)state;
	DIR *dir = opendir(SAMPLE_DIR);
	struct dirent *e;
	unsigned files = 0, padded = 0, copies = 0;
	if (!dir)
		skip();
	while ((e = readdir(dir))) {
		size_t l = strlen(e->d_name);
		if (l < 10 || strcmp(e->d_name + l - 10, ".animation"))
			continue;
		char path[4096];
		struct af_buf f = AF_BUF_INIT, blob = AF_BUF_INIT, x = AF_BUF_INIT, conv = AF_BUF_INIT;
		struct af_buf back = AF_BUF_INIT;
		struct af_diag d;
		af_diag_init(&d);
		snprintf(path, sizeof(path), "%s/%s", SAMPLE_DIR, e->d_name);
		assert_int_equal(af_read_file_at(AT_FDCWD, path, AF_MAX_FILE, &f, &d), 0);
		assert_int_equal(inflate_sample(&f, &blob), 0);
		x1_convert(blob.data, &x);
		all_forms_roundtrip(&x);
		char *y32 = decode(f.data, f.len, 0), *y64 = decode(x.data, x.len, 0);
		copies += !!strstr(y64, "dedupe_event_names: false");
		/* convert --to x64 writes the converter's bytes; their content is the original's */
		assert_int_equal(convert(f.data, f.len, "x64", NULL, &conv), 0);
		same_bytes(&conv, &x, e->d_name);
		same_content(y32, y64, e->d_name);
		/* twice is a no-op */
		assert_int_equal(convert(conv.data, conv.len, "x64", NULL, &back), AF_CONVERT_ALREADY);
		/* native converts too, decodes, round-trips and keeps the content */
		assert_int_equal(convert(f.data, f.len, "x64", "native", &conv), 0);
		char *yn = roundtrip(conv.data, conv.len);
		same_content(y32, yn, e->d_name);
		/* back to x32: the content again */
		assert_int_equal(convert(x.data, x.len, "x32", NULL, &back), 0);
		char *yb = roundtrip(back.data, back.len);
		same_content(y32, yb, e->d_name);
		/* the final padding: 4 zero bytes exactly after an odd rot_f32 last track */
		uint64_t rt = af_le64(x.data + 0x70), nr = af_le64(x.data + 0x68);
		uint64_t last = af_le64(x.data + rt + 16 * (nr - 1) + 8);
		uint64_t end = last + 24 + af_le64(x.data + last + 8) *
						stride_of((uint32_t)af_le64(x.data + rt + 16 * (nr - 1)));
		if (end != x.len) {
			assert_int_equal(x.len - end, 4);
			contains(y64, "end_pad: 8\n");
			padded++;
		}
		files++;
		free(y32), free(y64), free(yn), free(yb);
		af_buf_free(&f), af_buf_free(&blob), af_buf_free(&x), af_buf_free(&conv);
		af_buf_free(&back);
		af_diag_free(&d);
	}
	closedir(dir);
	print_message("%u samples converted: all forms round-trip; %u with final padding, %u marked by copied event names or padding\n",
		      files, padded, copies);
	assert_true(files > 0);
	if (files == 29) { /* diesel-x64.md 3: 17 identical to the 4.7 layout, 5 padded, 7 copies */
		assert_int_equal(padded, 5);
		assert_int_equal(copies, 12);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_converter_files),
		cmocka_unit_test(test_converter_inputs),
		cmocka_unit_test(test_layout_flip),
		cmocka_unit_test(test_hostile_header),
		cmocka_unit_test(test_readonly),
		cmocka_unit_test(test_samples),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
