/* IPAC blocks and PKS files (spec 4, 5, 9, 11), built by hand: header fields, member
 * names, the 32-byte layout, size-changing replaces (later members keep their offset
 * mod 32, gaps kept), shared blocks, and every refusal, truncation and wrapping offset. */
#include <fcntl.h>
#include <stdlib.h>

#include "shm_testutil.h"
#include "pieces_testutil.h"
#include "animfs/fileio.h"
#include "../../src/container/ipac.h"

extern const struct af_container af_container_ipac, af_container_pks;

static const uint8_t five[5] = {1, 2, 3, 4, 5};
static uint8_t big[64], seven[7] = {7, 7, 7, 7, 7, 7, 7};

static const struct tmember three[] = {
	{"A", "CHRM", five, 5},
	{"ATRS5ITG", "CHRM", big, 32},
	{"ROO_", "BIN ", seven, 7},
};

static void member_is(struct af_archive *a, size_t i, const char *name, const uint8_t *p, size_t n)
{
	struct af_buf b = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	assert_string_equal(a->m[i].name, name);
	assert_int_equal(af_archive_body(a, i, &b, &d), 0);
	assert_int_equal(b.len, n);
	assert_memory_equal(b.data, p, n);
	af_buf_free(&b);
	af_diag_free(&d);
}

static void test_fields_and_names(void **state)
{
	struct af_buf b = AF_BUF_INIT, pks = AF_BUF_INIT, idx = AF_BUF_INIT;
	struct af_archive a;
	struct af_diag d;
	(void)state;
	af_diag_init(&d);
	for (int i = 0; i < 64; i++)
		big[i] = (uint8_t)(i + 1);
	t_ipac(&b, three, 3);
	assert_int_equal(af_le32(b.data + 4), 0x10 + 32 + 32 + 32);
	assert_int_equal(af_container_ipac.bid("x", b.data, 16), 2);
	assert_int_equal(af_archive_open(&a, &af_container_ipac, b.data, b.len, &d), 0);
	assert_int_equal(a.n, 3);
	member_is(&a, 0, "A.CHRM", five, 5);
	member_is(&a, 1, "ATRS5ITG.CHRM", big, 32);
	member_is(&a, 2, "ROO_.BIN", seven, 7); /* the space of "BIN " is not in the name */
	assert_null(a.m[0].codec);              /* raw */
	af_archive_close(&a);
	t_rebuilds(&af_container_ipac, b.data, b.len);

	t_pks(&pks, &b, 0x75BC0268, 36);
	assert_int_equal(af_container_pks.bid("MPK00.PKS", pks.data, 16), 2);
	assert_int_equal(af_container_pks.bid("MPK00.PKS", (const uint8_t *)"xxxx", 4), 1);
	assert_int_equal(af_archive_open(&a, &af_container_pks, pks.data, pks.len, &d), 0);
	assert_int_equal(af_archive_index(&a, "MPK00.PKS", &idx), 0);
	af_buf_putc(&idx, 0);
	assert_non_null(strstr((char *)idx.data, "word8: 0x75BC0268"));
	assert_non_null(strstr((char *)idx.data, "word12: 36"));
	assert_non_null(strstr((char *)idx.data, "layout: canonical-32"));
	assert_non_null(strstr((char *)idx.data, "name: ROO_, type: \"BIN \""));
	assert_non_null(strstr((char *)idx.data, "offset: 0x30, size: 32, pad: 0"));
	af_archive_close(&a);
	t_rebuilds(&af_container_pks, pks.data, pks.len);
	af_buf_free(&b);
	af_buf_free(&pks);
	af_buf_free(&idx);
	af_diag_free(&d);
}

/* Replace member i of block b by n bytes; the new block re-parses. */
static void replaced(const struct af_buf *b, size_t i, const uint8_t *p, size_t n, struct af_buf *out,
		     struct ipac_block *nb)
{
	struct af_archive a;
	struct af_diag d;
	af_diag_init(&d);
	assert_int_equal(af_archive_open(&a, &af_container_ipac, b->data, b->len, &d), 0);
	assert_int_equal(af_archive_replace(&a, i, p, n, out, &d), 0);
	af_archive_close(&a);
	assert_int_equal(ipac_parse(nb, out->data, out->len, &d), 0);
	af_diag_free(&d);
}

static void test_size_change(void **state)
{
	struct af_buf b = AF_BUF_INIT, out = AF_BUF_INIT;
	struct ipac_block nb;
	(void)state;
	t_ipac(&b, three, 3);
	replaced(&b, 0, big, 40, &out, &nb); /* 5 -> 40 bytes: 32 -> 64 with its pad */
	assert_int_equal(nb.e[0].off, 0x10);
	assert_int_equal(nb.e[0].size, 40);
	assert_int_equal(nb.e[1].off, 0x30 + 32);
	assert_int_equal(nb.e[2].off, 0x50 + 32);
	assert_int_equal(nb.dir, af_le32(b.data + 4) + 32);
	assert_int_equal(af_le32(out.data + 12), nb.dir); /* +12 follows +4 */
	assert_memory_equal(out.data + nb.e[1].off, big, 32);
	assert_memory_equal(out.data + nb.e[2].off, seven, 7);
	assert_string_equal(ipac_layout(&nb), "canonical-32");
	for (uint32_t k = 0x10 + 40; k < nb.e[1].off; k++)
		assert_int_equal(out.data[k], 0); /* the new gap is zero */
	ipac_free(&nb);
	af_buf_reset(&out);
	replaced(&b, 1, five, 5, &out, &nb); /* shrink: later ones move back by 0 mod 32 */
	assert_int_equal(nb.e[2].off, 0x50);
	assert_int_equal(nb.e[2].off % 32, 0x70 % 32);
	ipac_free(&nb);
	af_buf_free(&b);
	af_buf_free(&out);
}

/* An irregular block: a gap with a non-zero byte and an odd length is kept verbatim,
 * and the members after an edit keep their offset mod 32. */
static void test_irregular(void **state)
{
	struct af_buf b = AF_BUF_INIT, out = AF_BUF_INIT;
	struct ipac_block nb, ob;
	struct af_diag d;
	(void)state;
	af_diag_init(&d);
	t_ipac(&b, three, 3);
	b.data[0x30 + 32 + 3] = 0xEE; /* in the gap after member 1, before member 2 */
	af_buf_patch_u32le(&b, af_le32(b.data + 4) + 20 * 2 + 12, 0x50 + 4); /* member 2 at +4 */
	assert_int_equal(ipac_parse(&ob, b.data, b.len, &d), 0);
	assert_string_equal(ipac_layout(&ob), "irregular");
	replaced(&b, 0, big, 50, &out, &nb);
	assert_int_equal(nb.e[2].off % 32, 0x54 % 32);
	assert_int_equal(nb.e[2].off, 0x54 + 32);
	assert_memory_equal(out.data + nb.e[1].off, b.data + ob.e[1].off, 32 + 4); /* gap verbatim */
	ipac_free(&nb);
	ipac_free(&ob);
	af_buf_free(&b);
	af_buf_free(&out);
	af_diag_free(&d);
}

static void test_shared_block(void **state)
{
	struct af_buf b = AF_BUF_INIT, out = AF_BUF_INIT;
	struct af_archive a;
	struct af_diag d;
	(void)state;
	af_diag_init(&d);
	t_ipac(&b, three, 3);
	size_t dir = af_le32(b.data + 4);
	af_buf_patch_u32le(&b, dir + 20 * 2 + 12, 0x30); /* member 2 = member 1's block */
	af_buf_patch_u32le(&b, dir + 20 * 2 + 16, 32);
	assert_int_equal(af_archive_open(&a, &af_container_ipac, b.data, b.len, &d), 0);
	assert_int_not_equal(af_archive_replace(&a, 1, five, 5, &out, &d), 0);
	assert_non_null(strstr(d.msg, "share one block"));
	assert_int_equal(out.len, 0);
	af_archive_close(&a);
	af_buf_free(&b);
	af_buf_free(&out);
	af_diag_free(&d);
}

static void test_refusals(void **state)
{
	struct af_buf b = AF_BUF_INIT, c = AF_BUF_INIT, pks = AF_BUF_INIT;
	(void)state;
	t_ipac(&b, three, 3);
	size_t dir = af_le32(b.data + 4);
#define MUTATE(off, val, want, at)                                                   \
	do {                                                                         \
		af_buf_reset(&c);                                                    \
		af_buf_append(&c, b.data, b.len);                                    \
		af_buf_patch_u32le(&c, (off), (val));                                \
		t_refused(&af_container_ipac, c.data, c.len, (want), (at));           \
	} while (0)
	MUTATE(12, (uint32_t)dir - 4, "disagrees with content size (+12)", 4);
	MUTATE(8, 0x0FFFFFFF, "entry count 268435455 cannot fit", 8);
	MUTATE(4, 8, "disagrees", 4);
	af_buf_reset(&c);
	af_buf_append(&c, b.data, b.len);
	af_buf_patch_u32le(&c, 4, (uint32_t)b.len);
	af_buf_patch_u32le(&c, 12, (uint32_t)b.len);
	t_refused(&af_container_ipac, c.data, c.len, "outside the block", 4);
	MUTATE(dir + 12, 8, "IPAC entry 0 0x8+0x5 outside", (int64_t)dir + 12);          /* in the header */
	MUTATE(dir + 16, 0xFFFFFFFF, "IPAC entry 0 0x10+0xFFFFFFFF outside", (int64_t)dir + 12); /* 4 GiB */
	MUTATE(dir + 20 + 12, 0xFFFFFFF0, "IPAC entry 1 0xFFFFFFF0+0x20 outside", -1); /* wraps in 32 bits */
	MUTATE(dir + 20 + 12, 0x12, "overlaps the one at 0x10", 0x12);
	MUTATE(dir + 40 + 12, (uint32_t)dir - 4, "overlaps the directory", -1);
	t_refused(&af_container_ipac, b.data, 12, "not an IPAC block", 0);
	/* every truncation is refused (the directory is last), none read past the end */
	for (size_t n = 0; n < b.len; n++)
		t_refused(&af_container_ipac, b.data, n, "", -1);
	t_pks(&pks, &b, 0, 1);
	af_buf_patch_u32le(&pks, 4, 8);
	t_refused(&af_container_pks, pks.data, pks.len, "PAKS: IPAC offset 0x8 out of range", 4);
	af_buf_patch_u32le(&pks, 4, (uint32_t)pks.len - 8);
	t_refused(&af_container_pks, pks.data, pks.len, "out of range", 4);
	af_buf_patch_u32le(&pks, 4, 16);
	for (size_t n = 0; n < pks.len; n++)
		t_refused(&af_container_pks, pks.data, n, "", -1);
	af_buf_free(&b);
	af_buf_free(&c);
	af_buf_free(&pks);
}

/* A floating empty entry (offset outside the block) is kept as it is on a rebuild. */
static void test_floating_entry(void **state)
{
	struct af_buf b = AF_BUF_INIT, out = AF_BUF_INIT;
	struct ipac_block nb;
	(void)state;
	t_ipac(&b, three, 3);
	size_t dir = af_le32(b.data + 4);
	af_buf_patch_u32le(&b, dir + 40 + 12, 0xDEADBEEF);
	af_buf_patch_u32le(&b, dir + 40 + 16, 0);
	t_rebuilds(&af_container_ipac, b.data, b.len);
	replaced(&b, 0, big, 40, &out, &nb);
	assert_int_equal(nb.e[2].off, 0xDEADBEEF);
	ipac_free(&nb);
	af_buf_free(&b);
	af_buf_free(&out);
}

/* The relayout writer on the real scene packs (gzip > PAKS > IPAC): members replaced by
 * bytes of many sizes; each result opens again through every layer, keeps the other
 * members byte-identical and stays canonical-32. Skipped without the samples. */
static void test_samples_relayout(void **state)
{
	static const char *const files[] = {"am2_s1pal_DCBN_MPK00.PKS", "am2_s1pal_D000_MPK00.PKS"};
	extern const struct af_container af_container_gzip;
	struct af_buf file = AF_BUF_INIT, img = AF_BUF_INIT, x = AF_BUF_INIT, y = AF_BUF_INIT;
	struct af_diag d;
	char path[512];
	(void)state;
	af_diag_init(&d);
	for (size_t f = 0; f < 2; f++) {
		snprintf(path, sizeof(path), "%s/shenmue-containers/%s", ANIMFS_SAMPLES, files[f]);
		af_buf_reset(&file);
		if (af_read_file_at(AT_FDCWD, path, AF_MAX_FILE, &file, &d)) {
			af_diag_free(&d);
			printf("skipped: ../shared/samples not found\n");
			skip();
		}
		struct af_archive a, b;
		assert_int_equal(af_archive_open(&a, &af_container_gzip, file.data, file.len, &d), 0);
		struct af_archive *pa = af_archive_shown(&a);
		assert_string_equal(ipac_layout(&((struct ipac_view *)pa->st)->blk), "canonical-32");
		for (size_t k = 0; k < pa->n; k += 7) {
			size_t n = (k * 997) % 5000 + 1;
			af_buf_reset(&img);
			af_buf_reset(&x);
			af_buf_fill(&x, (uint8_t)k, n);
			assert_int_equal(af_archive_replace(pa, k, x.data, n, &img, &d), 0);
			assert_int_equal(af_archive_open(&b, &af_container_gzip, img.data, img.len, &d), 0);
			struct af_archive *pb = af_archive_shown(&b);
			assert_int_equal(pb->n, pa->n);
			assert_string_equal(ipac_layout(&((struct ipac_view *)pb->st)->blk), "canonical-32");
			for (size_t j = 0; j < pa->n; j++) {
				af_buf_reset(&x);
				af_buf_reset(&y);
				assert_int_equal(af_archive_body(pb, j, &y, &d), 0);
				if (j == k) {
					assert_int_equal(y.len, n);
					continue;
				}
				assert_int_equal(af_archive_body(pa, j, &x, &d), 0);
				assert_int_equal(x.len, y.len);
				assert_memory_equal(x.data, y.data, x.len);
			}
			af_archive_close(&b);
		}
		af_archive_close(&a);
	}
	af_buf_free(&file);
	af_buf_free(&img);
	af_buf_free(&x);
	af_buf_free(&y);
	af_diag_free(&d);
}

/* A PKS and a bare IPAC opened from a descriptor (the header, the directory and each
 * entry's first bytes read): a member's save planned as pieces of the file writes the
 * bytes the in-memory rebuild gives; the new bytes are the block's header, the member
 * and the directory only (the PAKS header and every other entry are copies); a member
 * that keeps its size keeps every other range at its offset; the same body again plans
 * the original file. */
static void test_plan(void **state)
{
	struct af_buf b = AF_BUF_INIT, pks = AF_BUF_INIT, want = AF_BUF_INIT, got = AF_BUF_INIT;
	struct af_pieces p = AF_PIECES_INIT;
	struct af_archive a, m;
	struct af_diag d;
	uint8_t same[32], grown[40];
	(void)state;
	af_diag_init(&d);
	for (int i = 0; i < 64; i++)
		big[i] = (uint8_t)(i + 1);
	memset(same, 0x5C, sizeof(same));
	memset(grown, 0x6D, sizeof(grown));
	t_ipac(&b, three, 3);
	t_pks(&pks, &b, 0x75BC0268, 36);
	for (int which = 0; which < 2; which++) {
		const struct af_container *c = which ? &af_container_pks : &af_container_ipac;
		const struct af_buf *file = which ? &pks : &b;
		size_t base = which ? af_le32(pks.data + 4) : 0;
		FILE *f = tmpfile();
		assert_non_null(f);
		assert_int_equal(fwrite(file->data, 1, file->len, f), file->len);
		fflush(f);
		struct af_src src = {NULL, fileno(f), file->len, 0};
		assert_int_equal(af_archive_open_src(&a, c, &src, NULL, &d), 0);
		assert_int_equal(af_archive_open(&m, c, file->data, file->len, &d), 0);
		assert_int_equal(a.n, 3);
		member_is(&a, 1, "ATRS5ITG.CHRM", big, 32);
		uint64_t off, len;
		assert_int_equal(af_archive_span(&a, 1, &off, &len), 1);
		assert_int_equal(off, base + 0x30);
		assert_int_equal(len, 32);
		const uint8_t *bodies[3] = {big, same, grown};
		size_t sizes[3] = {32, sizeof(same), sizeof(grown)};
		for (int k = 0; k < 3; k++) {
			af_pieces_reset(&p);
			af_buf_reset(&want);
			assert_int_equal(af_archive_plan(&a, 1, bodies[k], sizes[k], &p, &d), 0);
			assert_int_equal(af_archive_replace(&m, 1, bodies[k], sizes[k], &want, &d), 0);
			written_as(&p, &src, &want, &got);
			if (!k) { /* the same bytes: the file as it was */
				assert_int_equal(got.len, file->len);
				assert_memory_equal(got.data, file->data, file->len);
			}
			int moved = pieces_moved(&p);
			assert_int_equal(moved, k == 2); /* 40 bytes: what follows moved 32 */
			assert_int_equal(p.bytes.len, IPAC_HEADER + sizes[k] + 3 * IPAC_ENTRY);
		}
		af_archive_close(&a);
		af_archive_close(&m);
		fclose(f);
	}
	af_pieces_free(&p);
	af_buf_free(&b);
	af_buf_free(&pks);
	af_buf_free(&want);
	af_buf_free(&got);
	af_diag_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields_and_names),
		cmocka_unit_test(test_size_change),
		cmocka_unit_test(test_irregular),
		cmocka_unit_test(test_shared_block),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_floating_entry),
		cmocka_unit_test(test_samples_relayout),
		cmocka_unit_test(test_plan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
