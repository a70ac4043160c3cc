/* shenmue-motn on the real samples (../shared/samples/shenmue): the numbers of spec 9.2,
 * YAML round trips and damaged copies. Skipped when the samples are absent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "motn_samples.h"
#include "../../src/codec/motn/motn.h"

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
	unsigned std = 0, nraw = 0, orphans = 0, chans = 0, flat = 0, pose[2] = { 0, 0 };
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
		if (b->kind != MOTN_STD) { /* rig bit 15: 6 x 0x8000, 3 x 0x800D, 17 x 0xFFFF */
			pose[b->kind == MOTN_NODES]++;
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
	assert_int_equal(pose[0], 9);
	assert_int_equal(pose[1], 17);
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
	check_counts(&orig_s.bin, 1300, 0);
	check_counts(&alt_s.bin, 1299, 1);
	assert_non_null(strstr(alt_s.yaml, "  - block: 0xCEBB2\n    names: [A_WALK_L_02, "
				"AKI_AKI_WALK_SP1_LP, AKI_AKI_WALK_SP2_LP]   # shared by 3 names"));
	assert_non_null(strstr(alt_s.yaml, "raw: \"non-canonical layout"));
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

/* Damaged copies: a clean error, or a decode that re-encodes exactly. */
static void test_damaged(void **state)
{
	(void)state;
	const struct af_buf *in = &orig_s.bin;
	uint8_t *tmp = malloc(in->len);
	srand(777);
	for (int it = 0; it < 80; it++) {
		size_t n = in->len;
		memcpy(tmp, in->data, n);
		if (it < 25)
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
	if (samples_absent())
		return 77;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_yaml_roundtrip),
		cmocka_unit_test(test_damaged),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
