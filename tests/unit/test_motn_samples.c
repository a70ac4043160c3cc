/* shenmue-motn on the real samples (../shared/samples/shenmue): the numbers of spec 9.2,
 * YAML round trips, edits checked by an independent reader, damaged copies. Skipped
 * when the samples are absent. */
#include <fcntl.h>
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
#include "animfs/fileio.h"
#include "../../src/codec/motn.h"

#define SAMPLE_DIR ANIMFS_SAMPLES "/shenmue/"
#define WALK_REL 0xCEBB2u
#define WALK_LEN 1778u

struct sample {
	struct af_buf bin;
	char *yaml;
};

static struct sample orig_s, alt_s;

static int load(struct sample *s, const char *name)
{
	struct af_diag d;
	struct af_buf y = AF_BUF_INIT;
	int rc;
	af_diag_init(&d);
	af_buf_init(&s->bin);
	rc = af_read_file_at(AT_FDCWD, name, AF_MAX_FILE, &s->bin, &d);
	if (!rc)
		rc = af_codec_by_name("shenmue-motn")->to_yaml(s->bin.data, s->bin.len, NULL, &y, &d);
	af_buf_putc(&y, 0);
	s->yaml = (char *)af_buf_steal(&y, NULL);
	af_diag_free(&d);
	return rc;
}

static int setup(void **state)
{
	(void)state;
	if (load(&orig_s, SAMPLE_DIR "dashgl_motion.bin") ||
	    load(&alt_s, SAMPLE_DIR "dashgl_motion_alt.bin"))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	af_buf_free(&orig_s.bin);
	af_buf_free(&alt_s.bin);
	free(orig_s.yaml);
	free(alt_s.yaml);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static unsigned distinct(uint64_t *v, unsigned n)
{
	unsigned k = 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	for (unsigned i = 0; i < n; i++)
		k += !i || v[i] != v[i - 1];
	return k;
}

static void check_counts(const struct af_buf *bin, unsigned standard, unsigned raw)
{
	struct af_arena a;
	struct motn_file f;
	struct af_diag d;
	uint64_t v[3][1559], types[4] = { 0 };
	unsigned std = 0, nraw = 0, orphans = 0, chans = 0, flat = 0;
	af_arena_init(&a);
	af_diag_init(&d);
	assert_int_equal(motn_decode(bin->data, bin->len, &a, &f, &d), 0);
	assert_int_equal(f.nentries, 1559);
	for (unsigned i = 0; i < 1559; i++) { /* from the raw table, not the model */
		const uint8_t *e = bin->data + 0x20 + 8 * i;
		v[0][i] = af_le32(e);
		v[1][i] = af_le32(e + 4);
		v[2][i] = (uint64_t)af_le32(e) << 32 | af_le32(e + 4);
	}
	assert_int_equal(distinct(v[0], 1559), 1319);
	assert_int_equal(distinct(v[1], 1559), 944);
	assert_int_equal(distinct(v[2], 1559), 1398);
	assert_int_equal(f.nblocks, 1326);
	for (uint32_t i = 0; i < f.nblocks; i++) {
		const struct motn_block *b = &f.blocks[i];
		orphans += b->orphan;
		if (b->raw) {
			nraw++;
			continue;
		}
		std++;
		for (uint32_t k = 0; k < b->seq.nbones; k++)
			for (int c = 0; c < MOTN_NCH; c++) {
				const struct motn_chan *ch = &b->seq.bones[k].ch[c];
				if (!(b->seq.bones[k].mask & (1u << c)))
					continue;
				chans++;
				flat += ch->nkeys == 2 && !ch->keys[0].type && !ch->keys[1].type;
				for (uint32_t j = 0; j < ch->nkeys; j++)
					types[ch->keys[j].type]++;
			}
	}
	assert_int_equal(std, standard);
	assert_int_equal(nraw, raw);
	assert_int_equal(orphans, 7);
	if (standard == 1300) {
		assert_int_equal(types[0], 34188);
		assert_int_equal(types[1], 126665);
		assert_int_equal(types[2], 204926);
		assert_int_equal(types[3], 9229);
		assert_int_equal(chans, 79104);
		assert_int_equal(flat, 12233);
	}
	af_arena_free(&a);
	af_diag_free(&d);
}

static void test_counts(void **state)
{
	(void)state;
	check_counts(&orig_s.bin, 1300, 26);
	check_counts(&alt_s.bin, 1299, 27);
	assert_non_null(strstr(alt_s.yaml, "  - block: 0xCEBB2\n    names: [A_WALK_L_02, "
				"AKI_AKI_WALK_SP1_LP, AKI_AKI_WALK_SP2_LP]   # shared by 3 names"));
	assert_non_null(strstr(alt_s.yaml, "raw: \"non-canonical layout"));
}

static int encode(const char *yaml, struct af_buf *out, struct af_diag *d)
{
	af_diag_init(d);
	return af_codec_by_name("shenmue-motn")->from_yaml((const uint8_t *)yaml, strlen(yaml), NULL,
							   out, d);
}

static void test_yaml_roundtrip(void **state)
{
	(void)state;
	struct sample *ss[2] = { &orig_s, &alt_s };
	for (int i = 0; i < 2; i++) {
		struct af_buf out = AF_BUF_INIT;
		struct af_diag d;
		if (encode(ss[i]->yaml, &out, &d))
			fail_msg("%s", d.msg);
		assert_int_equal(out.len, ss[i]->bin.len);
		assert_memory_equal(out.data, ss[i]->bin.data, out.len);
		af_buf_free(&out);
		af_diag_free(&d);
	}
}

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

/* Independent reader (spec 4.1-4.6, header offsets): channel c of bone id `bone`. */
static unsigned read_chan(const uint8_t *s, unsigned bone, unsigned c, uint16_t *frames,
			  uint8_t *types, uint16_t *values)
{
	unsigned F = af_le16(s) & 0x7FFF, o2 = af_le16(s + 4), o3 = af_le16(s + 6);
	unsigned o4 = af_le16(s + 8), o5 = af_le16(s + 10), w3 = F > 255 ? 2 : 1;
	unsigned ch = 0, q3 = o3, q4 = o4, q5 = o5;
	for (unsigned p = 12; af_le16(s + p); p += 2) {
		unsigned e = af_le16(s + p);
		for (unsigned b = 0; b < 6; b++) {
			if (!(e & (0x100u >> b)))
				continue;
			unsigned n = s[o2 + ch] + 2;
			for (unsigned k = 0; k < n; k++) {
				unsigned t = s[q4 + k / 4] >> (6 - 2 * (k % 4)) & 3;
				if (e >> 9 == bone && b == c) {
					frames[k] = (uint16_t)(k == 0 ? 0 : k == n - 1 ? F - 1
							       : w3 == 2 ? af_le16(s + q3 + 2 * (k - 1))
							       : s[q3 + k - 1]);
					types[k] = (uint8_t)t;
					values[k] = t ? af_le16(s + q5 + 2 * (t - 1)) : 0;
				}
				q5 += 2 * t;
			}
			if (e >> 9 == bone && b == c)
				return n;
			q3 += w3 * (n - 2);
			q4 += (n + 3) / 4;
			ch++;
		}
	}
	return 0;
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
	assert_non_null(strstr((const char *)y2.data, "# 1326 blocks: 1300 decoded, 26 raw, 7 orphans;"));
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

/* Damaged copies: a clean error, or a decode that re-encodes exactly. */
static void test_damaged(void **state)
{
	(void)state;
	const struct af_buf *in = &orig_s.bin;
	uint8_t *tmp = malloc(in->len);
	srand(777);
	for (int it = 0; it < 120; it++) {
		size_t n = in->len;
		memcpy(tmp, in->data, n);
		if (it < 40)
			n = (size_t)rand() % n; /* truncation */
		else
			for (int k = 0; k < 1 + it % 8; k++) /* flips in the tables or the data */
				tmp[(it & 1 ? (size_t)rand() % 0x1AAE8 : (size_t)rand()) % n] ^=
					(uint8_t)(1 + rand() % 255);
		struct af_arena a;
		struct motn_file f;
		struct af_diag d;
		struct af_buf out = AF_BUF_INIT;
		af_arena_init(&a);
		af_diag_init(&d);
		int rc = motn_decode(tmp, n, &a, &f, &d);
		if (!rc) {
			assert_int_equal(motn_encode(&f, &out, &d), 0);
			assert_int_equal(out.len, n);
			assert_memory_equal(out.data, tmp, n);
		} else {
			assert_true(rc == AF_EINVAL || rc == AF_EUNSUP);
		}
		af_buf_free(&out);
		af_arena_free(&a);
		af_diag_free(&d);
	}
	free(tmp);
}

int main(void)
{
	FILE *f = fopen(SAMPLE_DIR "dashgl_motion.bin", "rb");
	if (!f) {
		printf("SKIP: ../shared/samples not found\n");
		return 77;
	}
	fclose(f);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_yaml_roundtrip),
		cmocka_unit_test(test_edit_value),
		cmocka_unit_test(test_edit_add_key),
		cmocka_unit_test(test_edit_frames),
		cmocka_unit_test(test_alt_view_to_standard),
		cmocka_unit_test(test_damaged),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
