/* sims3-jazz binary side: every chunk kind built by hand (including the layouts no sample
 * has: AcOp, DG00, Play strings, actor slots and suffixes), shared nodes and cycles,
 * opaque chunks, non-canonical order, decode errors with offsets, and fuzz-style inputs. */
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
#include "test_jazz_build.h"
#include "../../src/codec/sims3/sims3_names.h"

extern const struct af_codec af_codec_jazz;

/* decode -> YAML -> encode must give the same bytes; returns the YAML (caller frees). */
static char *roundtrip(const struct af_buf *bin)
{
	struct af_buf y = AF_BUF_INIT, back = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	int rc = af_codec_jazz.to_yaml(bin->data, bin->len, NULL, &y, &d);
	if (rc)
		fail_msg("decode: %s (offset %lld)", d.msg, (long long)d.offset);
	rc = af_codec_jazz.from_yaml(y.data, y.len, NULL, &back, &d);
	if (rc)
		fail_msg("encode: %u:%u: %s\n%.*s", d.line, d.col, d.msg, (int)y.len, (char *)y.data);
	assert_int_equal(back.len, bin->len);
	assert_memory_equal(back.data, bin->data, bin->len);
	af_buf_putc(&y, 0);
	af_buf_free(&back);
	af_diag_free(&d);
	return (char *)y.data;
}

static void has(const char *yaml, const char *text)
{
	if (!strstr(yaml, text)) {
		fprintf(stderr, "%s\n", yaml);
		fail_msg("'%s' not in the YAML above", text);
	}
}

static int decode_rc(const struct af_buf *bin, struct af_diag *d)
{
	struct af_buf y = AF_BUF_INIT;
	af_diag_init(d);
	int rc = af_codec_jazz.to_yaml(bin->data, bin->len, NULL, &y, d);
	af_buf_free(&y);
	return rc;
}

static void test_minimal(void **state)
{
	(void)state;
	struct bld b = { 0 };
	struct af_buf bin;
	static const uint32_t n5[] = { 5 };
	skeleton(&b, 1, n5, 1, n5);
	play(&b, "a_idle_x", 1, 0, NULL);
	pack(&b, &bin);
	char *y = roundtrip(&bin);
	has(y, "format: sims3-jazz\n");
	has(y, "\n  - name: Enter\n    flags: [Public, Entry, Explicit]\n");
	has(y, "name: \"x:Age\"\n    default_value: adult\n"); /* built-in names */
	has(y, "      entry_points: [play1]\n");
	has(y, "        - label: play1\n          kind: play\n");
	has(y, "          blend_in_time: 0.2\n");
	has(y, "  - [0x");                     /* a_test.ma is not a known name */
	has(y, "name: 0x42DF29E8\ninstance: 0x"); /* unknown name: the instance is explicit */
	free(y);
	af_buf_free(&bin);
}

static void test_play_layouts(void **state)
{
	(void)state;
	struct bld b = { 0 };
	struct af_buf bin;
	static const uint32_t n5[] = { 5 };
	static const uint16_t a[] = { 'a' }, ab[] = { 'a', 'b' }, emoji[] = { 0xD83D, 0xDE00, 'z' };
	skeleton(&b, 1, n5, 1, n5);
	struct af_buf *c = chunk(&b, "Play", T_PLAY, 0x0105);
	wkey(c, 0x02D5DF126B20C4F3ull, 0, 0);             /* CMX's dummy pattern key */
	wkey(c, h64("upperBodyToddler"), 0x033260E3, 0);
	w(c, 4, 2, 7, 8, 9);                               /* 2 slots, unknown1..3 */
	w(c, 8, 1, 2, h32("x"), h32("slotA"), 3, 4, h32("y"), h32("slotB"));
	w(c, 3, 1, h32("x"), h32("x:Age"));                 /* one suffix */
	w(c, 1, 0xDEADBEEF);
	wkey(c, h64("a_add_x") & 0x7FFFFFFFFFFFFFFFull, 0x6B20C4F3, 0x48000000);
	/* "a" (odd: no padding) then "ab" (even: 2 padding bytes), then a non-BMP string */
	w(c, 1, 1);
	af_buf_put_u16le(c, a[0]);
	af_buf_put_u16le(c, 0);
	w(c, 1, 2);
	af_buf_put_u16le(c, ab[0]);
	af_buf_put_u16le(c, ab[1]);
	af_buf_put_u16le(c, 0);
	af_buf_put_u16le(c, 0);
	w(c, 1, 0xDEADBEEF);
	play_tail(c, 1, 0, NULL);
	/* second Play: the non-BMP string (3 units, odd) and a timing field */
	c = chunk(&b, "Play", T_PLAY, 0x0105);
	wkey(c, 0, 0x6B20C4F3, 0);
	wkey(c, 0, 0, 0);
	w(c, 6, 0, 0, 0, 0, 0, 0xDEADBEEF);
	wkey(c, 0, 0, 0);
	w(c, 1, 3);
	for (int i = 0; i < 3; i++)
		af_buf_put_u16le(c, emoji[i]);
	af_buf_put_u16le(c, 0);
	w(c, 2, 0, 0xDEADBEEF);
	w(c, 7, 0x40 | 0x200 | 0x80000, 50000, 0x80000000u, 0, 0, 0x7FC00001u, 0x3F800000);
	w(c, 1, 0);
	w(c, 8, 0xFFFFFFFEu, 16, 0, 0, 0, 0, 5, 0xDEADBEEF);
	w(c, 1, 0);
	af_buf_append(c, "/DGN", 4);
	/* graph 4 lists only node 5; node 6 is reachable from nowhere: extra_chunks */
	pack(&b, &bin);
	char *y = roundtrip(&bin);
	has(y, "clip: {instance: 0x02D5DF126B20C4F3, type: 0x00000000}\n");
	has(y, "track_mask: 0xDE261A2810D32791\n"); /* no name map here */
	has(y, "additive_clip: {instance: 0x");
	has(y, "animation: a\n");
	has(y, "additive_animation: ab\n");
	has(y, "actor_slots:\n            - [1, 2, x, 0x");
	has(y, "actor_suffixes:\n            - [x, \"x:Age\"]\n");
	has(y, "unknown1: 7\n");
	has(y, "extra_chunks:\n  - label: play2\n    kind: play\n");
	has(y, "animation: \"\xF0\x9F\x98\x80z\"\n");
	has(y, "flags: [TimingSlave, UseTimingPriority, 0x00080000]\n");
	has(y, "priority: Ultra\n");
	has(y, "timing_priority: Default\n");
	has(y, "unknown9: -0.0\n");
	has(y, "unknown11: nan:0x7FC00001\n");
	has(y, "unknown18: 5\n");
	free(y);
	af_buf_free(&bin);
}

/* Every node kind in one graph: Stop, Rand, SoPn, DG00, SNSN, Prop, AcOp. */
static void test_node_kinds(void **state)
{
	(void)state;
	struct bld b = { 0 };
	struct af_buf bin, *c;
	static const uint32_t nodes[] = { 5, 6, 7, 8, 9, 10, 11 }, e5[] = { 5 };
	skeleton(&b, 7, nodes, 1, e5);
	c = chunk(&b, "Rand", T_RAND, 0x0101);      /* 5 */
	w(c, 1, 2);
	w(c, 3, 0x3F800000, 1, R(6));
	w(c, 3, 0x40000000, 1, R(7));
	w(c, 3, 0xDEADBEEF, 1, 0x4E47442F);
	c = chunk(&b, "SoPn", T_SOPN, 0x0101);      /* 6 */
	w(c, 2, R(2), 2);
	w(c, 3, h32("adult"), 1, R(8));
	w(c, 2, h32("child"), 0);
	w(c, 2, 0xDEADBEEF, 0x4E47442F);
	c = chunk(&b, "DG00", T_DG00, 0x0101);      /* 7 */
	w(c, 1, 2);
	w(c, 3, R(3), 1, R(9));
	w(c, 2, 0, 0);                              /* a case with a null state */
	w(c, 2, 0xDEADBEEF, 0x4E47442F);
	c = chunk(&b, "SNSN", T_SNSN, 0x0101);      /* 8 */
	w(c, 2, R(3), 0x4E47442F);
	c = chunk(&b, "Prop", T_PROP, 0x0100);      /* 9 */
	w(c, 2, R(1), 0);
	wkey(c, 0x186EF404E5E994F3ull, 0x139F7591, 0);
	w(c, 7, 0, 0, 0, 4, 2, R(10), R(11));
	af_buf_append(c, "/DGN", 4);
	c = chunk(&b, "AcOp", T_ACOP, 0x0100);      /* 10 */
	w(c, 7, R(1), 1, 1, 0, 0, 3, 1);
	w(c, 2, R(11), 0x4E47442F);
	c = chunk(&b, "Stop", T_STOP, 0x0104);      /* 11 */
	play_tail(c, 1, 0, NULL);
	pack(&b, &bin);
	char *y = roundtrip(&bin);
	has(y, "kind: random\n          flags: [AvoidRepeats]\n          outcomes:\n"
	       "            - {weight: 1.0, next: [select1]}\n            - {weight: 2.0, next: [destination1]}\n");
	has(y, "kind: select_on_parameter\n          parameter: \"x:Age\"\n          cases:\n"
	       "            - {value: adult, next: [next_state1]}\n            - {value: child}\n");
	has(y, "            - {state: Enter, next: [prop1]}\n            - {state: null}\n");
	has(y, "kind: next_state\n          state: Enter\n");
	has(y, "kind: create_prop\n          actor: x\n          parameter: null\n"
	       "          prop: 0x186EF404E5E994F3\n          unknown5: 4\n          next: [actor_op1, stop1]\n");
	has(y, "kind: actor_operation\n          actor: x\n          operation: SetMirror\n"
	       "          operand: 1\n          unknown3: 3\n          next: [stop1]\n");
	has(y, "kind: stop\n          actor: x\n");
	free(y);
	af_buf_free(&bin);
}

/* Two graphs share node 7; node 7's next returns to node 6 (a cycle). */
static void test_shared_and_cycle(void **state)
{
	(void)state;
	struct bld b = { 0 };
	struct af_buf bin;
	static const uint32_t states[] = { 3, 4 }, g5[] = { 7 }, g6n[] = { 8, 7 }, g6e[] = { 8 };
	static const uint32_t n7[] = { 8 }, n8[] = { 7 }, tr[] = { 4 };
	sm(&b, "shared", 1, 2, 2, states);
	actor(&b, "x");
	param(&b, "x:Age", "adult");
	st_chunk(&b, "Enter", 0x103, 5, 1, tr);
	st_chunk(&b, "Loop", 0x109, 6, 1, tr);       /* transition to itself */
	graph(&b, 1, g5, 1, g5);                  /* 5 */
	graph(&b, 2, g6n, 1, g6e);                /* 6 */
	play(&b, "a_one_x", 1, 1, n7);            /* 7 -> 8 */
	play(&b, "a_two_x", 1, 1, n8);            /* 8 -> 7 */
	pack(&b, &bin);
	char *y = roundtrip(&bin);
	has(y, "      nodes:\n        - label: play1\n");
	has(y, "      nodes:\n        - label: play2\n");
	has(y, "          next: [play2]\n");
	has(y, "        - play1\n");               /* the shared node by label */
	has(y, "    transitions: [Loop]\n");
	free(y);
	af_buf_free(&bin);
}

/* Chunks out of the canonical order, a graph shared by two states, an actor no list has,
 * an unknown chunk type, non-default versions and keys: all kept. */
static void test_noncanonical(void **state)
{
	(void)state;
	struct bld b = { 0 };
	struct af_buf bin, *c;
	static const uint32_t states[] = { 4, 3 }, g[] = { 6 };
	sm(&b, "odd", 1, 2, 2, states);
	actor(&b, "x");
	param(&b, "x:Age", "adult");
	st_chunk(&b, "Exit", 0x105, 5, 0, NULL);      /* 3: listed second */
	st_chunk(&b, "Enter", 0x103, 5, 0, NULL);     /* 4: same graph */
	graph(&b, 1, g, 1, g);                     /* 5 */
	play(&b, "a_x", 7, 0, NULL);               /* 6: actor 7 is not in S_SM.actors */
	w(chunk(&b, "S_AD", T_AD, 0x0199), 2, h32("y"), 0x55); /* 7 */
	b.inst[7] = 0x1234;
	c = chunk(&b, "Wait", 0x0BADF00D, 1);       /* 8: unknown kind */
	w(c, 2, 1, 2);
	pack(&b, &bin);
	char *y = roundtrip(&bin);
	has(y, "chunk_order: [0, 1, 2, 4, 3, 5, 6, 7, 8]\n");
	has(y, "    decision_graph: graph1\n");
	has(y, "label: graph1\n");
	has(y, "extra_chunks:\n  - kind: actor\n    version: 0x0199\n"
	       "    key: {instance: 0x0000000000001234, group: 0x00000000}\n    name: \"y\"\n"
	       "    unknown1: 85\n");
	has(y, "  - kind: opaque\n    key: {instance: 0x0000000000000000, type: 0x0BADF00D, "
	       "group: 0x00000000}\n    data: |\n      57616974010000000100000002000000\n");
	free(y);
	af_buf_free(&bin);
}

static void test_bid(void **state)
{
	(void)state;
	struct bld b = { 0 };
	struct af_buf bin;
	static const uint32_t n5[] = { 5 };
	skeleton(&b, 1, n5, 1, n5);
	play(&b, "a_x", 1, 0, NULL);
	pack(&b, &bin);
	size_t h = bin.len < AF_BID_HEAD ? bin.len : AF_BID_HEAD;
	assert_true(af_codec_jazz.bid("S3_02D5DF13_00000000_0000000000000001%%+JAZZ.jazz", bin.data, h) >
		    af_codec_jazz.bid("blob.bin", bin.data, h));
	assert_true(af_codec_jazz.bid("blob.bin", bin.data, h) > 0);
	assert_int_equal(af_codec_jazz.bid("x.jazz", (const uint8_t *)"state Enter {\n play a\n}\n"
					   "......................", 40), 0);
	assert_int_equal(af_codec_jazz.bid("x.jazz", bin.data, 20), 0);
	bin.data[28] ^= 1; /* the first key is not a Jazz type */
	assert_int_equal(af_codec_jazz.bid("x.jazz", bin.data, h), 0);
	assert_int_equal(af_codec_jazz.bid("x.package", (const uint8_t *)"DBPF\2\0\0\0", 8), 0);
	af_buf_free(&bin);
}

/* Each broken binary names its byte offset and what is wrong. */
static void expect_decode_error(struct af_buf *bin, size_t off, const char *msg)
{
	struct af_diag d;
	int rc = decode_rc(bin, &d);
	if (!rc)
		fail_msg("decoded although '%s' was expected", msg);
	if (!strstr(d.msg, msg) || d.offset != (int64_t)off)
		fail_msg("got '%s' at %lld, expected '%s' at %zu", d.msg, (long long)d.offset, msg, off);
	af_diag_free(&d);
}

static void build_small(struct af_buf *bin)
{
	struct bld b = { 0 };
	static const uint32_t n5[] = { 5 };
	skeleton(&b, 1, n5, 1, n5);
	play(&b, "a_x", 1, 0, NULL);
	pack(&b, bin);
}

static size_t chunk_pos(const struct af_buf *bin, int i)
{
	uint32_t n = af_le32(bin->data + 16);
	return af_le32(bin->data + 20 + 16 * n + 8 * i);
}

/* A chunk whose length is not a multiple of 4 is followed by padding to 4; the writer
 * pads with zeros, so other padding bytes are refused (found by the binary fuzzer: the
 * check used to look at no byte at all). */
static void test_gap_after_odd_chunk(void **state)
{
	(void)state;
	struct bld b = { 0 };
	struct af_buf bin, *c;
	static const uint32_t n5[] = { 5 };
	skeleton(&b, 1, n5, 1, n5);
	play(&b, "a_x", 1, 0, NULL);                 /* 5 */
	c = chunk(&b, "Wait", 0x0BADF00D, 1);       /* 6: 10 bytes, an opaque chunk */
	af_buf_put_u16le(c, 0x1234);
	c = chunk(&b, "Wait", 0x0BADF00D, 1);       /* 7 */
	pack(&b, &bin);
	size_t gap = chunk_pos(&bin, 6) + 10;
	assert_int_equal(chunk_pos(&bin, 7), gap + 2);
	char *y = roundtrip(&bin);                   /* zeros: rebuilt byte for byte */
	free(y);
	bin.data[gap + 1] = 0xAD;
	expect_decode_error(&bin, gap + 1, "non-zero padding between chunks");
	af_buf_free(&bin);
}

static void test_decode_errors(void **state)
{
	(void)state;
	struct af_buf bin;
	size_t p;
	build_small(&bin);
	size_t idx = 20 + 16 * 6;

	bin.data[idx + 8 * 5 + 4] += 4; /* Play length runs past the end */
	expect_decode_error(&bin, idx + 40, "points outside");
	bin.data[idx + 8 * 5 + 4] -= 4;

	af_buf_patch_u32le(&bin, idx + 8 * 5, 0x7FFFFFF0); /* index outside the file */
	expect_decode_error(&bin, idx + 40, "points outside");
	af_buf_free(&bin);
	build_small(&bin);

	p = chunk_pos(&bin, 4);                 /* S_DG sentinel */
	bin.data[p + 28] ^= 0xFF;
	expect_decode_error(&bin, p + 28, "missing DEADBEEF sentinel");
	af_buf_free(&bin);
	build_small(&bin);

	p = chunk_pos(&bin, 5);                 /* Play /DGN */
	bin.data[bin.len - 1] = 'X';
	expect_decode_error(&bin, bin.len - 4, "missing /DGN sentinel");
	af_buf_free(&bin);
	build_small(&bin);

	p = chunk_pos(&bin, 3);                 /* state transitions count negative */
	af_buf_patch_u32le(&bin, p + 20, 0xFFFFFFFF);
	expect_decode_error(&bin, p + 20, "negative count");
	af_buf_patch_u32le(&bin, p + 20, 1000); /* count past the chunk */
	expect_decode_error(&bin, p + 24, "claims 1000 entries");
	af_buf_patch_u32le(&bin, p + 20, 0);

	af_buf_patch_u32le(&bin, p + 16, R(3)); /* decision_graph -> a state */
	expect_decode_error(&bin, p + 16, "which is S_St, expected S_DG");
	af_buf_patch_u32le(&bin, p + 16, R(40));
	expect_decode_error(&bin, p + 16, "not a chunk of this file");
	af_buf_free(&bin);

	build_small(&bin);
	bin.data[16] = 0; /* chunk count 0 */
	expect_decode_error(&bin, 16, "at least 1");
	af_buf_free(&bin);
	build_small(&bin);
	af_buf_put_u32le(&bin, 0);
	expect_decode_error(&bin, bin.len - 4, "bytes after the last chunk");
	af_buf_free(&bin);
	build_small(&bin);
	bin.len = 12;
	expect_decode_error(&bin, 12, "20-byte header");
	af_buf_free(&bin);
}

/* Play string padding and terminators must be zero (spec 4.6). */
static void test_string_checks(void **state)
{
	(void)state;
	struct bld b = { 0 };
	struct af_buf bin, *c;
	static const uint32_t n5[] = { 5 };
	skeleton(&b, 1, n5, 1, n5);
	c = chunk(&b, "Play", T_PLAY, 0x0105);
	wkey(c, 0, 0x6B20C4F3, 0);
	wkey(c, 0, 0, 0);
	w(c, 6, 0, 0, 0, 0, 0, 0xDEADBEEF);
	wkey(c, 0, 0, 0);
	w(c, 1, 2);
	af_buf_put_u16le(c, 'a');
	af_buf_put_u16le(c, 'b');
	af_buf_put_u16le(c, 0);
	af_buf_put_u16le(c, 0x0101); /* padding not zero */
	w(c, 2, 0, 0xDEADBEEF);
	play_tail(c, 1, 0, NULL);
	pack(&b, &bin);
	size_t p = chunk_pos(&bin, 5);
	expect_decode_error(&bin, p + 90, "string padding is not zero");
	bin.data[p + 90] = bin.data[p + 91] = 0;
	bin.data[p + 88] = 1;
	expect_decode_error(&bin, p + 88, "terminator is not zero");
	af_buf_free(&bin);
}

/* Truncation at every length and random byte flips: never a crash or a leak (the suite runs
 * under ASan+UBSan); whatever decodes must still round-trip exactly. */
static void test_fuzz(void **state)
{
	(void)state;
	struct bld b = { 0 };
	struct af_buf bin;
	static const uint32_t nodes[] = { 5, 6 }, n6[] = { 6 }, e5[] = { 5 };
	skeleton(&b, 2, nodes, 1, e5);
	play(&b, "a_x", 1, 1, n6);
	w(chunk(&b, "SNSN", T_SNSN, 0x0101), 2, R(3), 0x4E47442F);
	pack(&b, &bin);
	for (size_t n = 0; n < bin.len; n++) {
		struct af_buf cut = { bin.data, n, n, 0, NULL, 0, n };
		struct af_diag d;
		assert_int_not_equal(decode_rc(&cut, &d), 0);
		af_diag_free(&d);
	}
	uint32_t seed = 12345;
	unsigned decoded = 0;
	for (int iter = 0; iter < 3000; iter++) {
		struct af_buf m = AF_BUF_INIT, y = AF_BUF_INIT, back = AF_BUF_INIT;
		struct af_diag d;
		af_buf_append(&m, bin.data, bin.len);
		for (int k = 0; k < 1 + iter % 3; k++) {
			seed = seed * 1103515245u + 12345u;
			m.data[(seed >> 8) % m.len] ^= (uint8_t)(1u << (seed >> 28 & 7));
		}
		af_diag_init(&d);
		if (!af_codec_jazz.to_yaml(m.data, m.len, NULL, &y, &d)) {
			decoded++;
			if (af_codec_jazz.from_yaml(y.data, y.len, NULL, &back, &d))
				fail_msg("flipped input decoded but did not encode: %s", d.msg);
			if (back.len != m.len || memcmp(back.data, m.data, m.len)) {
				FILE *f = fopen("jazz_fuzz_failure.bin", "wb");
				if (f) {
					fwrite(m.data, 1, m.len, f);
					fclose(f);
				}
			}
			assert_int_equal(back.len, m.len);
			assert_memory_equal(back.data, m.data, m.len);
		}
		af_diag_free(&d);
		af_buf_free(&m);
		af_buf_free(&y);
		af_buf_free(&back);
	}
	assert_true(decoded > 0);
	af_buf_free(&bin);
}

/* Spec 5.4 worked examples. */
static void test_hashes(void **state)
{
	(void)state;
	uint64_t h;
	assert_int_equal(h32("x"), 0x050C5D67u);
	assert_int_equal(h32("Enter"), 0x8D31B469u);
	assert_int_equal(h32("a_allergies_caugh_blowNose.ma"), 0x6A765C18u);
	assert_true(h64("wacky_pet") == 0x7971A22F5E5C1A32ull);
	assert_true(sims3_clip_hash("a_allergies_blowNose_x", 22) == 0x5CECB9BAF017D63Aull);
	assert_true(sims3_clip_hash("a_allergies_blowNose_accessoryTissue", 36) == 0x7A840C98454CC1F5ull);
	assert_true(sims3_clip_hash("ac_idle_sit_hack_x", 18) == 0xBC78ECD3046CB427ull);
	assert_true(sims3_clip_hash("ac2a_soc_neutral_attackSim_insulting_neutral_x", 46) ==
		    0xC76363A8DEA2048Eull);
	assert_int_equal(sims3_hash_name("\xC3\xB1", 2, S3_H32, &h), -1);
	assert_int_equal(sims3_hash_name("upperBodyToddler", 16, S3_H64, &h), 0);
	assert_true(h == 0xDE261A2810D32791ull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_play_layouts),
		cmocka_unit_test(test_node_kinds),
		cmocka_unit_test(test_shared_and_cycle),
		cmocka_unit_test(test_noncanonical),
		cmocka_unit_test(test_gap_after_odd_chunk),
		cmocka_unit_test(test_bid),
		cmocka_unit_test(test_decode_errors),
		cmocka_unit_test(test_string_checks),
		cmocka_unit_test(test_fuzz),
		cmocka_unit_test(test_hashes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
