/* shenmue-motn edits on the real motion.bin, each checked by an independent reader of the
 * re-encoded bytes: one value, an added key, a frame count, and the alt file's
 * non-canonical walk turned into a canonical block. Skipped when the samples are absent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "motn_samples.h"
#include "../../src/codec/motn/motn.h"

/* Replace `from` with `to` inside the walk block's text; encode. */
static void edit_walk(const char *from, const char *to, struct af_buf *out)
{
	const char *y = orig_s.yaml, *blk = strstr(y, "  - block: 0xCEBB2\n");
	assert_non_null(blk);
	const char *at = strstr(blk, from);
	assert_non_null(at);
	size_t a = (size_t)(at - y), fl = strlen(from), tl = strlen(to), n = strlen(y);
	char *e = malloc(n - fl + tl + 1);
	memcpy(e, y, a);
	memcpy(e + a, to, tl);
	memcpy(e + a + tl, at + fl, n - a - fl + 1);
	struct af_diag d;
	if (encode(e, out, &d))
		fail_msg("%s", d.msg);
	af_diag_free(&d);
	free(e);
}

static void test_edit_value(void **state)
{
	(void)state;
	struct af_buf out = AF_BUF_INIT;
	const struct af_buf *in = &orig_s.bin;
	edit_walk("          - [30, 3, 1.112, -0.1449, -0.1449]\n",
		  "          - [30, 3, 1.25, -0.1449, -0.1449]\n", &out);
	assert_int_equal(out.len, in->len);
	for (size_t i = 0; i < in->len; i++)
		if (out.data[i] != in->data[i] && i != 0xE987A && i != 0xE987B)
			fail_msg("byte 0x%zx changed", i);
	assert_int_equal(af_le16(out.data + 0xE987A), 0x3D00); /* 1.25 */
	af_buf_free(&out);
}

static void test_edit_add_key(void **state)
{
	(void)state;
	struct af_buf out = AF_BUF_INIT;
	const struct af_buf *in = &orig_s.bin;
	uint16_t fr[64], val[64];
	uint8_t ty[64];
	edit_walk("          - [19, 3, 1.124, 0.28, 0.28]\n",
		  "          - [19, 3, 1.124, 0.28, 0.28]\n          - [20, 1, 1.125]\n", &out);
	/* +1 frame byte in block 3 takes the place of the pad before block 5; +1 value word */
	assert_int_equal(out.len, in->len + 2);
	uint32_t data_off = af_le32(in->data + 8);
	assert_int_equal(af_le32(out.data + 8), data_off);
	assert_int_equal(af_le32(out.data + 16), out.len);
	assert_memory_equal(out.data + data_off, in->data + data_off, WALK_REL);
	size_t after = data_off + WALK_REL + WALK_LEN;
	assert_memory_equal(out.data + after + 2, in->data + after, in->len - after);
	/* the table: offsets after the walk moved by 2, the others did not */
	for (unsigned i = 0; i < 1559; i++) {
		uint32_t o = af_le32(in->data + 0x20 + 8 * i), nw = af_le32(out.data + 0x20 + 8 * i);
		assert_int_equal(nw, o > WALK_REL ? o + 2 : o);
	}
	const uint8_t *s = out.data + data_off + WALK_REL;
	assert_int_equal(af_le16(s + 8), 0x136);
	assert_int_equal(af_le16(s + 10), 0x1A0);
	unsigned n = read_chan(s, 0, 1, fr, ty, val);
	assert_int_equal(n, 15);
	assert_int_equal(fr[7], 20);
	assert_int_equal(ty[7], 1);
	assert_int_equal(val[7], 0x3C80); /* 1.125 */
	assert_int_equal(fr[8], 24);
	assert_int_equal(fr[14], 36);
	/* the neighbours of the new key kept their values */
	uint16_t fr0[64], val0[64];
	uint8_t ty0[64];
	read_chan(in->data + data_off + WALK_REL, 0, 1, fr0, ty0, val0);
	for (unsigned k = 0; k < 14; k++) {
		unsigned j = k < 7 ? k : k + 1;
		assert_int_equal(fr[j], fr0[k]);
		assert_int_equal(val[j], val0[k]);
	}
	af_buf_free(&out);
}

static void test_edit_frames(void **state)
{
	(void)state;
	struct af_buf out = AF_BUF_INIT, y = AF_BUF_INIT;
	struct af_diag d;
	const struct af_buf *in = &orig_s.bin;
	uint16_t fr[64], val[64];
	uint8_t ty[64];
	edit_walk("    frames: 37 ", "    frames: 40 ", &out);
	assert_int_equal(out.len, in->len);
	uint32_t at = af_le32(in->data + 8) + WALK_REL;
	for (size_t i = 0; i < in->len; i++)
		if (out.data[i] != in->data[i] && i != at)
			fail_msg("byte 0x%zx changed", i);
	assert_int_equal(af_le16(out.data + at), 40);
	assert_int_equal(read_chan(out.data + at, 0, 2, fr, ty, val), 2);
	assert_int_equal(fr[1], 39);
	/* and the new document shows the moved last keys */
	af_diag_init(&d);
	assert_int_equal(af_codec_by_name("shenmue-motn")->to_yaml(out.data, out.len, NULL, &y, &d), 0);
	af_buf_putc(&y, 0);
	const char *blk = strstr((const char *)y.data, "  - block: 0xCEBB2\n");
	assert_non_null(blk);
	assert_non_null(strstr(blk, "        tz:\n          - [0, 3, -0.03995, 0.0, -1.198]\n"
			       "          - [39, 3, -1.479, -1.198, 0.0]\n"));
	af_buf_free(&y);
	af_buf_free(&out);
	af_diag_free(&d);
}

/* The non-canonical walk of the alt file: shown as comments; uncommented in place of
 * raw/size/hex it becomes a canonical, editable block that the game reads the same way. */
static void test_alt_view_to_standard(void **state)
{
	(void)state;
	const char *y = alt_s.yaml, *blk = strstr(y, "  - block: 0xCEBB2\n");
	assert_non_null(blk);
	const char *raw = strstr(blk, "    raw: "), *view = strstr(blk, "    # what the game reads");
	assert_non_null(raw);
	assert_non_null(view);
	const char *next = strstr(view, "\n  - block: ");
	assert_non_null(next);
	struct af_buf e = AF_BUF_INIT, out = AF_BUF_INIT, y2 = AF_BUF_INIT;
	af_buf_append(&e, y, (size_t)(raw - y));
	const char *p = strchr(view, '\n') + 1;
	while (p < next + 1) { /* drop "# " after the 4-space indent */
		const char *nl = strchr(p, '\n');
		assert_true(!strncmp(p, "    # ", 6));
		af_buf_append(&e, "    ", 4);
		af_buf_append(&e, p + 6, (size_t)(nl + 1 - (p + 6)));
		p = nl + 1;
	}
	af_buf_puts(&e, next + 1);
	af_buf_putc(&e, 0);
	struct af_diag d;
	if (encode((const char *)e.data, &out, &d))
		fail_msg("%s (line %u)", d.msg, d.line);
	/* the walk is canonical now: decode reports no raw walk, and everything else is kept */
	assert_int_equal(af_codec_by_name("shenmue-motn")->to_yaml(out.data, out.len, NULL, &y2, &d), 0);
	af_buf_putc(&y2, 0);
	assert_non_null(strstr((const char *)y2.data, "# 1326 blocks: 1326 decoded (1300 sequences, 9 baked, 17 node), 0 raw, 7 orphans;"));
	uint32_t data_off = af_le32(out.data + 8);
	const uint8_t *s = out.data + data_off + WALK_REL;
	assert_int_equal(af_le16(s + 12), 0x01C0);
	assert_int_equal(af_le16(s + 14), 0x3BC0);
	assert_int_equal(af_le16(s + 16), 0x47C0);
	assert_int_equal(af_le16(s + 18), 0);
	uint16_t fr[64], val[64], fr0[64], val0[64];
	uint8_t ty[64], ty0[64];
	const uint8_t *s0 = alt_s.bin.data + data_off + WALK_REL;
	for (unsigned c = 0; c < 3; c++) { /* what the game reads did not change */
		unsigned n = read_chan(s, 29, c, fr, ty, val);
		assert_int_equal(n, read_chan(s0, 29, c, fr0, ty0, val0));
		assert_memory_equal(fr, fr0, n * sizeof(*fr));
		assert_memory_equal(val, val0, n * sizeof(*val));
	}
	af_buf_free(&e);
	af_buf_free(&out);
	af_buf_free(&y2);
	af_diag_free(&d);
}

int main(void)
{
	if (samples_absent())
		return 77;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edit_value),
		cmocka_unit_test(test_edit_add_key),
		cmocka_unit_test(test_edit_frames),
		cmocka_unit_test(test_alt_view_to_standard),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
