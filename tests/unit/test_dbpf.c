/* DBPF 2.0 packages and the package-as-folder view: hand-built packages for every
 * index_type (shared-field) variant, rebuilds with and without edits, damaged packages
 * with their error offsets, and the sample package (skipped when absent). */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "pieces_testutil.h"

#include "animfs/bytes.h"
#include "../../src/container/dbpf.h"
#include "animfs/fileio.h"
#include "../../src/container/sims3_package.h"
#include "animfs/container.h"

extern const struct af_container af_container_sims3_package;
#include "../../src/container/refpack.h"

struct res {
	uint32_t type, group, insthi, instlo;
	const uint8_t *stored;
	uint32_t slen, mem;
	uint16_t comp;
	int deleted, same_blob_as_prev;
};

/* Header with non-zero "unknown" bytes (they must survive), data in the order given,
 * then the index with the shared fields of r[0]. */
static void build(struct af_buf *b, uint32_t itype, const struct res *r, size_t n)
{
	uint32_t off[16] = { 0 };
	af_buf_reset(b);
	af_buf_append(b, "DBPF", 4);
	af_buf_put_u32le(b, 2);
	af_buf_put_u32le(b, 0);
	for (int i = 12; i < 96; i++)
		af_buf_put_u8(b, (uint8_t)(i * 7));
	for (size_t i = 0; i < n; i++) {
		if (r[i].deleted)
			continue;
		if (r[i].same_blob_as_prev) {
			off[i] = off[i - 1];
			continue;
		}
		off[i] = (uint32_t)b->len;
		af_buf_append(b, r[i].stored, r[i].slen);
	}
	size_t ix = b->len;
	af_buf_put_u32le(b, itype);
	uint32_t shared[3] = { r[0].type, r[0].group, r[0].insthi };
	for (int k = 0; k < 3; k++)
		if (itype & (1u << k))
			af_buf_put_u32le(b, shared[k]);
	for (size_t i = 0; i < n; i++) {
		uint32_t key[3] = { r[i].type, r[i].group, r[i].insthi };
		for (int k = 0; k < 3; k++)
			if (!(itype & (1u << k)))
				af_buf_put_u32le(b, key[k]);
		af_buf_put_u32le(b, r[i].instlo);
		af_buf_put_u32le(b, r[i].deleted ? 0 : off[i]);
		af_buf_put_u32le(b, r[i].deleted ? 0x80000001u : r[i].slen | 0x80000000u);
		af_buf_put_u32le(b, r[i].deleted ? 0xFFFFFFFFu : r[i].mem);
		af_buf_put_u16le(b, r[i].comp);
		af_buf_put_u16le(b, 1);
	}
	af_buf_patch_u32le(b, 36, (uint32_t)n);
	af_buf_patch_u32le(b, 40, 0);
	af_buf_patch_u32le(b, 44, (uint32_t)(b->len - ix));
	af_buf_patch_u32le(b, 64, (uint32_t)ix);
}

static const char text_a[] = "raw resource A, stored as is";
static char text_b[600]; /* compressible */
static struct af_buf packed_b;

static void setup_b(void)
{
	struct af_diag d;
	if (packed_b.len)
		return;
	for (size_t i = 0; i < sizeof(text_b); i++)
		text_b[i] = "state machine "[i % 14];
	af_diag_init(&d);
	assert_int_equal(af_refpack_compress((const uint8_t *)text_b, sizeof(text_b), &packed_b, &d), 0);
	af_diag_free(&d);
}

/* Three resources: raw A, RefPack B, raw C; all share type/group/instance-high so every
 * index_type can be used. */
static size_t sample_res(struct res *r)
{
	setup_b();
	memset(r, 0, 3 * sizeof(*r));
	r[0] = (struct res){ 0x02D5DF13, 0x48000000, 0x91B95750, 1, (const uint8_t *)text_a,
			     sizeof(text_a), sizeof(text_a), 0, 0, 0 };
	r[1] = (struct res){ 0x02D5DF13, 0x48000000, 0x91B95750, 2, packed_b.data,
			     (uint32_t)packed_b.len, sizeof(text_b), 0xFFFF, 0, 0 };
	r[2] = (struct res){ 0x02D5DF13, 0x48000000, 0x91B95750, 3, (const uint8_t *)"CCCC", 4, 4,
			     0, 0, 0 };
	return 3;
}

static int open_pkg(struct af_dbpf *p, const struct af_buf *b, char *msg)
{
	struct af_diag d;
	af_diag_init(&d);
	int rc = af_dbpf_open(p, b->data, b->len, &d);
	if (msg)
		af_diag_format(&d, "pkg", msg, 1024);
	af_diag_free(&d);
	return rc;
}

static void assert_rebuild_identical(const struct af_dbpf *p, const struct af_buf *orig)
{
	struct af_buf again = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	assert_int_equal(af_dbpf_rebuild(p, NULL, 0, &again, &d), 0);
	assert_int_equal(again.len, orig->len);
	assert_memory_equal(again.data, orig->data, orig->len);
	af_buf_free(&again);
	af_diag_free(&d);
}

static void test_index_variants(void **state)
{
	(void)state;
	struct res r[3];
	struct af_buf b = AF_BUF_INIT, body = AF_BUF_INIT;
	struct af_diag d;
	char msg[1024];
	size_t n = sample_res(r);
	af_diag_init(&d);
	for (uint32_t itype = 0; itype < 8; itype++) {
		struct af_dbpf p;
		build(&b, itype, r, n);
		int ns = (itype & 1) + (itype >> 1 & 1) + (itype >> 2 & 1);
		assert_int_equal(af_le32(b.data + 44), 4 + 4 * ns + 3 * (32 - 4 * ns));
		assert_int_equal(open_pkg(&p, &b, msg), 0);
		assert_int_equal(p.index_type, itype);
		assert_int_equal(p.count, 3);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(p.e[i].type, r[i].type);
			assert_int_equal(p.e[i].group, r[i].group);
			assert_int_equal(af_dbpf_instance(&p.e[i]), (uint64_t)r[i].insthi << 32 | r[i].instlo);
			assert_int_equal(af_dbpf_stored_size(&p.e[i]), r[i].slen);
			assert_memory_equal(af_dbpf_stored(&p, i), r[i].stored, r[i].slen);
		}
		af_buf_reset(&body);
		assert_int_equal(af_dbpf_body(&p, 1, &body, &d), 0);
		assert_int_equal(body.len, sizeof(text_b));
		assert_memory_equal(body.data, text_b, sizeof(text_b));
		assert_true(af_dbpf_compressed(&p.e[1]));
		assert_false(af_dbpf_compressed(&p.e[0]));
		assert_rebuild_identical(&p, &b);
		af_dbpf_close(&p);
	}
	/* keys that differ per entry with index type 0 */
	r[1].type = 0x0166038C, r[2].group = 7, r[2].insthi = 9;
	struct af_dbpf p;
	build(&b, 0, r, n);
	assert_int_equal(open_pkg(&p, &b, msg), 0);
	assert_int_equal(p.e[1].type, 0x0166038C);
	assert_int_equal(p.e[2].group, 7);
	assert_int_equal(p.e[2].inst_hi, 9);
	assert_string_equal(af_dbpf_type_tag(p.e[1].type), "_KEY");
	assert_null(af_dbpf_type_tag(0x12345678));
	af_dbpf_close(&p);
	af_buf_free(&b);
	af_buf_free(&body);
	af_diag_free(&d);
}

static void test_file_order_deleted_shared(void **state)
{
	(void)state;
	struct res r[5];
	struct af_buf b = AF_BUF_INIT;
	struct af_dbpf p;
	char msg[1024];
	sample_res(r);
	/* a deleted record, and a record sharing B's stored bytes */
	r[3] = (struct res){ 0x02D5DF13, 0x48000000, 0x91B95750, 4, NULL, 0, 0, 0, 1, 0 };
	r[4] = r[1];
	r[4].instlo = 5;
	r[4].same_blob_as_prev = 0;
	build(&b, 2, r, 5);
	/* point record 4 at record 1's bytes, and move record 2's data first by swapping
	 * the offsets of records 0 and 2 is not possible in place; instead patch 4 only */
	size_t ix = af_le32(b.data + 64);
	size_t rec = ix + 8; /* type 0x2: index type + shared group, then 28-byte records */
	uint32_t off1 = af_le32(b.data + rec + 28 * 1 + 12);
	af_buf_patch_u32le(&b, rec + 28 * 4 + 12, off1);
	/* the data of record 4 is now unused: drop it by rebuilding once, which also
	 * checks that records sharing one blob keep sharing it */
	assert_int_equal(open_pkg(&p, &b, msg), 0);
	assert_true(af_dbpf_deleted(&p.e[3]));
	struct af_buf once = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	assert_int_equal(af_dbpf_rebuild(&p, NULL, 0, &once, &d), 0);
	assert_int_equal(once.len, b.len - packed_b.len); /* the orphaned copy is gone */
	af_dbpf_close(&p);
	assert_int_equal(open_pkg(&p, &once, msg), 0);
	assert_int_equal(p.e[4].offset, p.e[1].offset);
	assert_int_equal(p.e[3].file_size, 0x80000001u);
	assert_int_equal(p.e[3].mem_size, 0xFFFFFFFFu);
	assert_rebuild_identical(&p, &once);
	af_dbpf_close(&p);

	/* data stored in another order than the index: the rebuild keeps the file order */
	sample_res(r);
	build(&b, 2, r, 3);
	ix = af_le32(b.data + 64);
	rec = ix + 8;
	struct af_buf swapped = AF_BUF_INIT;
	uint32_t oa = af_le32(b.data + rec + 12), oc = af_le32(b.data + rec + 56 + 12);
	af_buf_append(&swapped, b.data, 96);
	af_buf_append(&swapped, "CCCC", 4);                    /* C first */
	af_buf_append(&swapped, b.data + oa, sizeof(text_a));  /* then A */
	af_buf_append(&swapped, packed_b.data, packed_b.len);  /* then B */
	af_buf_append(&swapped, b.data + ix, b.len - ix);
	(void)oc;
	af_buf_patch_u32le(&swapped, rec + 56 + 12, 96);
	af_buf_patch_u32le(&swapped, rec + 12, 100);
	af_buf_patch_u32le(&swapped, rec + 28 + 12, 100 + sizeof(text_a));
	assert_int_equal(open_pkg(&p, &swapped, msg), 0);
	assert_rebuild_identical(&p, &swapped);
	/* and an edit keeps that order: C, A, then the new B */
	struct af_dbpf_edit ed = { 1, (const uint8_t *)"new B body, short", 17 };
	assert_int_equal(af_dbpf_rebuild(&p, &ed, 1, &once, &d), 0);
	assert_memory_equal(once.data + 96, "CCCC", 4);
	assert_memory_equal(once.data + 100, text_a, sizeof(text_a));
	assert_memory_equal(once.data + 100 + sizeof(text_a), "new B body, short", 17);
	af_dbpf_close(&p);
	af_buf_free(&swapped);
	af_buf_free(&once);
	af_buf_free(&b);
	af_diag_free(&d);
}

static void test_rebuild_edits(void **state)
{
	(void)state;
	struct res r[3];
	struct af_buf b = AF_BUF_INIT, img = AF_BUF_INIT, body = AF_BUF_INIT;
	struct af_dbpf p, q;
	struct af_diag d;
	char msg[1024];
	size_t n = sample_res(r);
	af_diag_init(&d);
	build(&b, 2, r, n);
	assert_int_equal(open_pkg(&p, &b, msg), 0);

	/* the same body: the stored bytes are kept, the image equals the original */
	struct af_dbpf_edit same = { 1, (const uint8_t *)text_b, sizeof(text_b) };
	assert_int_equal(af_dbpf_rebuild(&p, &same, 1, &img, &d), 0);
	assert_int_equal(img.len, b.len);
	assert_memory_equal(img.data, b.data, b.len);

	/* a longer, compressible body for the compressed B */
	char nb[2000];
	for (size_t i = 0; i < sizeof(nb); i++)
		nb[i] = "edited state "[i % 13];
	struct af_dbpf_edit ed = { 1, (const uint8_t *)nb, sizeof(nb) };
	assert_int_equal(af_dbpf_rebuild(&p, &ed, 1, &img, &d), 0);
	assert_int_equal(open_pkg(&q, &img, msg), 0);
	assert_memory_equal(img.data + 12, b.data + 12, 24);  /* unknown header bytes */
	assert_memory_equal(img.data + 48, b.data + 48, 16);
	assert_memory_equal(img.data + 68, b.data + 68, 28);
	assert_int_equal(af_le32(img.data + 40), 0);
	assert_int_equal(q.index_type, 2);
	assert_int_equal(q.e[1].compressed, 0xFFFF);
	assert_true(q.e[1].file_size & 0x80000000u);
	assert_int_equal(q.e[1].mem_size, sizeof(nb));
	assert_true(af_dbpf_stored_size(&q.e[1]) < sizeof(nb));
	for (size_t i = 0; i < n; i += 2) { /* A and C: the very same stored bytes and sizes */
		assert_int_equal(q.e[i].file_size, p.e[i].file_size);
		assert_memory_equal(af_dbpf_stored(&q, i), af_dbpf_stored(&p, i), af_dbpf_stored_size(&p.e[i]));
	}
	assert_int_equal(q.e[2].offset, p.e[2].offset + af_dbpf_stored_size(&q.e[1]) - packed_b.len);
	af_buf_reset(&body);
	assert_int_equal(af_dbpf_body(&q, 1, &body, &d), 0);
	assert_memory_equal(body.data, nb, sizeof(nb));
	af_dbpf_close(&q);

	/* an incompressible body for B is stored raw */
	uint8_t noise[64];
	for (size_t i = 0; i < sizeof(noise); i++)
		noise[i] = (uint8_t)(i * 73 + 11);
	struct af_dbpf_edit raw = { 1, noise, sizeof(noise) };
	assert_int_equal(af_dbpf_rebuild(&p, &raw, 1, &img, &d), 0);
	assert_int_equal(open_pkg(&q, &img, msg), 0);
	assert_int_equal(q.e[1].compressed, 0);
	assert_int_equal(af_dbpf_stored_size(&q.e[1]), sizeof(noise));
	assert_memory_equal(af_dbpf_stored(&q, 1), noise, sizeof(noise));
	af_dbpf_close(&q);

	/* a raw resource stays raw even when compressible (spec 6.4), two edits at once */
	struct af_dbpf_edit two[2] = { { 2, (const uint8_t *)nb, sizeof(nb) }, ed };
	assert_int_equal(af_dbpf_rebuild(&p, two, 2, &img, &d), 0);
	assert_int_equal(open_pkg(&q, &img, msg), 0);
	assert_int_equal(q.e[2].compressed, 0);
	assert_int_equal(af_dbpf_stored_size(&q.e[2]), sizeof(nb));
	assert_memory_equal(af_dbpf_stored(&q, 0), text_a, sizeof(text_a));
	af_dbpf_close(&q);

	/* refused edits leave out empty */
	struct af_dbpf_edit bad = { 9, noise, 1 };
	assert_int_equal(af_dbpf_rebuild(&p, &bad, 1, &img, &d), AF_EINVAL);
	assert_int_equal(img.len, 0);
	af_diag_clear(&d);
	struct af_dbpf_edit twice[2] = { raw, raw };
	assert_int_equal(af_dbpf_rebuild(&p, twice, 2, &img, &d), AF_EINVAL);
	af_dbpf_close(&p);
	af_buf_free(&b);
	af_buf_free(&img);
	af_buf_free(&body);
	af_diag_free(&d);
}

/* Opened from a descriptor (the header and the index read, nothing else), a resource's
 * save planned as pieces (af_dbpf_plan) is written to the bytes af_dbpf_rebuild gives
 * in memory; only the header, the edited resource and the index are new bytes, every
 * other resource a copy of its old range; the same body again plans the original file;
 * a member's first bytes come without unpacking it whole. */
static void test_plan(void **state)
{
	(void)state;
	struct res r[3];
	struct af_buf b = AF_BUF_INIT, want = AF_BUF_INIT, got = AF_BUF_INIT, body = AF_BUF_INIT;
	struct af_pieces pc = AF_PIECES_INIT;
	struct af_dbpf p, m;
	struct af_diag d;
	char msg[1024], nb[2000];
	uint8_t noise[64], head[64];
	size_t n = sample_res(r), hgot;
	af_diag_init(&d);
	for (size_t i = 0; i < sizeof(nb); i++)
		nb[i] = "edited state "[i % 13];
	for (size_t i = 0; i < sizeof(noise); i++)
		noise[i] = (uint8_t)(i * 73 + 11);
	for (uint32_t itype = 0; itype < 8; itype += 2) {
		FILE *f = tmpfile();
		build(&b, itype, r, n);
		assert_non_null(f);
		assert_int_equal(fwrite(b.data, 1, b.len, f), b.len);
		fflush(f);
		struct af_src src = {NULL, fileno(f), b.len, 0};
		assert_int_equal(af_dbpf_open_src(&p, &src, &d), 0);
		assert_null(p.data);
		assert_int_equal(open_pkg(&m, &b, msg), 0);
		assert_int_equal(p.count, 3);
		/* the first bytes of the RefPack B, and its whole body, read from the file */
		assert_int_equal(af_dbpf_head(&p, 1, head, sizeof(head), &hgot, &d), 0);
		assert_int_equal(hgot, sizeof(head));
		assert_memory_equal(head, text_b, sizeof(head));
		af_buf_reset(&body);
		assert_int_equal(af_dbpf_body(&p, 1, &body, &d), 0);
		assert_int_equal(body.len, sizeof(text_b));
		assert_memory_equal(body.data, text_b, sizeof(text_b));
		assert_int_equal(af_dbpf_head(&p, 2, head, sizeof(head), &hgot, &d), 0);
		assert_int_equal(hgot, 4);
		struct af_dbpf_edit eds[4] = {
			{ 1, (const uint8_t *)text_b, sizeof(text_b) }, /* the same body: a revert */
			{ 1, (const uint8_t *)nb, sizeof(nb) },         /* longer, compressed again */
			{ 1, noise, sizeof(noise) },                    /* incompressible: raw */
			{ 0, (const uint8_t *)nb, 20 },                 /* the first one, shorter */
		};
		for (int k = 0; k < 4; k++) {
			af_pieces_reset(&pc);
			af_buf_reset(&want);
			assert_int_equal(af_dbpf_plan(&p, &eds[k], 1, &pc, &d), 0);
			assert_int_equal(af_dbpf_rebuild(&m, &eds[k], 1, &want, &d), 0);
			written_as(&pc, &src, &want, &got);
			assert_int_equal(pieces_moved(&pc), k != 0); /* a new size moves what follows */
			if (!k) { /* a revert: the original file, its resources copied */
				assert_int_equal(got.len, b.len);
				assert_memory_equal(got.data, b.data, b.len);
			}
			/* new bytes: the header, the edited resource's stored bytes, the index */
			struct af_dbpf q;
			assert_int_equal(open_pkg(&q, &got, msg), 0);
			size_t edited = k ? af_dbpf_stored_size(&q.e[eds[k].index]) : 0;
			assert_int_equal(pc.bytes.len, 96 + edited + q.index_size);
			af_dbpf_close(&q);
		}
		/* refused edits plan nothing */
		struct af_dbpf_edit bad = { 9, noise, 1 };
		assert_int_equal(af_dbpf_plan(&p, &bad, 1, &pc, &d), AF_EINVAL);
		assert_int_equal(pc.len, 0);
		af_diag_clear(&d);
		af_dbpf_close(&p);
		af_dbpf_close(&m);
		fclose(f);
	}
	af_pieces_free(&pc);
	af_buf_free(&b);
	af_buf_free(&want);
	af_buf_free(&got);
	af_buf_free(&body);
	af_diag_free(&d);
}

static void expect_open_error(const struct af_buf *b, int code, const char *text)
{
	struct af_dbpf p;
	char msg[1024];
	int rc = open_pkg(&p, b, msg);
	assert_int_equal(rc, code);
	if (!strstr(msg, text))
		fail_msg("'%s' lacks '%s'", msg, text);
	assert_null(p.e);
}

static void test_bad_packages(void **state)
{
	(void)state;
	struct res r[3];
	struct af_buf b = AF_BUF_INIT, c = AF_BUF_INIT;
	size_t n = sample_res(r);
	build(&b, 2, r, n);
	size_t ix = af_le32(b.data + 64);

#define MUT(stmt) do { af_buf_reset(&c); af_buf_append(&c, b.data, b.len); stmt; } while (0)
	MUT(c.data[0] = 'X');
	expect_open_error(&c, AF_EUNSUP, "byte 0x0: not a DBPF package");
	MUT(af_buf_patch_u32le(&c, 8, 1));
	expect_open_error(&c, AF_EUNSUP, "byte 0x4: DBPF version 2.1; only 2.0");
	MUT(c.len = 50);
	expect_open_error(&c, AF_EINVAL, "the DBPF header needs 96 bytes");
	MUT(af_buf_patch_u32le(&c, 64, (uint32_t)b.len - 10));
	expect_open_error(&c, AF_EINVAL, "byte 0x40: the index at");
	MUT(c.len -= 5); /* truncated index */
	expect_open_error(&c, AF_EINVAL, "runs past the end");
	MUT(af_buf_patch_u32le(&c, 36, 4)); /* more entries than the index holds */
	expect_open_error(&c, AF_EINVAL, "index of 92 bytes is truncated: 4 entries");
	MUT(af_buf_patch_u32le(&c, 36, 0x40000000));
	expect_open_error(&c, AF_EINVAL, "is truncated");
	MUT(af_buf_patch_u32le(&c, ix, 0x0A));
	expect_open_error(&c, AF_EINVAL, "index type 0xA has unknown bits");
	MUT(af_buf_patch_u32le(&c, 44, 2));
	expect_open_error(&c, AF_EINVAL, "byte 0x2c: the index of 2 bytes is truncated");
	/* record 1: offset outside the file; then its size past the end */
	MUT(af_buf_patch_u32le(&c, ix + 8 + 28 + 12, 0xFFFFFF00u));
	char want[128];
	snprintf(want, sizeof(want), "byte 0x%zx: index entry 1 (type 0x02D5DF13, instance 0x91B9575000000002): data at 0xFFFFFF00",
		 ix + 8 + 28);
	expect_open_error(&c, AF_EINVAL, want);
	MUT(af_buf_patch_u32le(&c, ix + 8 + 28 + 16, 0x80000000u | (uint32_t)b.len));
	expect_open_error(&c, AF_EINVAL, "lies outside the");
	MUT(af_buf_patch_u16le(&c, ix + 8 + 28 + 24, 0x5A42)); /* Sims 4 zlib: bogus here */
	expect_open_error(&c, AF_EINVAL, "index entry 1: unknown compression 0x5A42");

	/* damaged RefPack data: the error names the absolute byte */
	struct af_dbpf p;
	struct af_buf body = AF_BUF_INIT;
	struct af_diag d;
	char msg[1024];
	af_diag_init(&d);
	uint32_t boff = (uint32_t)(96 + sizeof(text_a));
	MUT(c.data[boff + 1] = 0xFA);
	assert_int_equal(open_pkg(&p, &c, msg), 0);
	assert_int_equal(af_dbpf_body(&p, 1, &body, &d), AF_EINVAL);
	af_diag_format(&d, "pkg", msg, sizeof(msg));
	snprintf(want, sizeof(want), "pkg: byte 0x%x: resource 1 (type 0x02D5DF13, instance 0x91B9575000000002): not a RefPack stream",
		 boff);
	if (!strstr(msg, want))
		fail_msg("'%s' lacks '%s'", msg, want);
	/* a new body for it: the old one, which does not unpack, differs (an overlay's
	 * merge puts a mod's resource over a damaged one of the game's) */
	af_diag_clear(&d);
	struct af_dbpf_edit ed = { 1, (const uint8_t *)"x", 1 };
	struct af_buf img = AF_BUF_INIT;
	struct af_dbpf q;
	assert_int_equal(af_dbpf_rebuild(&p, &ed, 1, &img, &d), 0);
	assert_int_equal(d.code, 0);
	assert_int_equal(af_dbpf_open(&q, img.data, img.len, &d), 0);
	af_buf_reset(&body);
	assert_int_equal(af_dbpf_body(&q, 1, &body, &d), 0);
	assert_int_equal(body.len, 1);
	assert_int_equal(body.data[0], 'x');
	af_dbpf_close(&q);
	af_buf_free(&img);
	af_dbpf_close(&p);
	af_diag_clear(&d);

	/* compressed flag that disagrees with the sizes: a warning; the sizes win */
	MUT(af_buf_patch_u16le(&c, ix + 8 + 24, 0xFFFF));
	af_diag_clear(&d);
	assert_int_equal(af_dbpf_open(&p, c.data, c.len, &d), 0);
	assert_int_equal(d.nwarnings, 1);
	assert_non_null(strstr((const char *)d.warnings.data, "index entry 0: compressed flag 0xFFFF disagrees"));
	af_buf_reset(&body);
	assert_int_equal(af_dbpf_body(&p, 0, &body, &d), 0);
	assert_memory_equal(body.data, text_a, sizeof(text_a));
	af_dbpf_close(&p);

	/* every truncation, and every byte of header and index flipped: no crash, and a
	 * package that still opens can be read and rebuilt */
	for (size_t cut = 0; cut < b.len; cut++) {
		MUT(c.len = cut);
		assert_int_not_equal(open_pkg(&p, &c, NULL), 0);
	}
	for (size_t i = 0; i < b.len; i++) {
		if (i >= 96 && i < ix)
			continue;
		for (int v = 0; v < 2; v++) {
			MUT(c.data[i] ^= (uint8_t)(v ? 0x80 : 0xFF));
			af_diag_clear(&d);
			if (af_dbpf_open(&p, c.data, c.len, &d))
				continue;
			for (size_t k = 0; k < p.count; k++) {
				af_buf_reset(&body);
				if (!af_dbpf_deleted(&p.e[k]))
					af_dbpf_body(&p, k, &body, &d);
			}
			af_dbpf_rebuild(&p, NULL, 0, &img, &d);
			af_dbpf_close(&p);
		}
	}
#undef MUT
	af_buf_free(&img);
	af_buf_free(&body);
	af_buf_free(&b);
	af_buf_free(&c);
	af_diag_free(&d);
}

/* The listing check: header and index read separately give the same records. */
static void test_open_index(void **state)
{
	(void)state;
	struct res r[3];
	struct af_buf b = AF_BUF_INIT;
	struct af_dbpf p, q;
	struct af_diag d;
	size_t n = sample_res(r);
	af_diag_init(&d);
	build(&b, 5, r, n);
	size_t ix = af_le32(b.data + 64), isz = af_le32(b.data + 44);
	uint8_t *index = malloc(isz);
	memcpy(index, b.data + ix, isz);
	assert_int_equal(af_dbpf_open(&p, b.data, b.len, &d), 0);
	assert_int_equal(af_dbpf_open_index(&q, b.data, 96, index, isz, b.len, &d), 0);
	assert_null(q.data);
	assert_int_equal(q.count, 3);
	assert_memory_equal(q.e, p.e, 3 * sizeof(*p.e));
	af_dbpf_close(&q);
	af_dbpf_close(&p);
	/* a short read of the index, a record pointing past the file, a short header */
	assert_int_equal(af_dbpf_open_index(&q, b.data, 96, index, isz - 1, b.len, &d), AF_EIO);
	af_diag_clear(&d);
	assert_int_equal(af_dbpf_open_index(&q, b.data, 96, index, isz, b.len - isz - 1, &d), AF_EINVAL);
	af_diag_clear(&d);
	assert_int_equal(af_dbpf_open_index(&q, b.data, 60, index, isz, b.len, &d), AF_EINVAL);
	assert_null(q.e);
	free(index);
	af_buf_free(&b);
	af_diag_free(&d);
}

/* The package container opened with the codec table's content checks (as the mount
 * and the command line open it); *v is its model. */
static int arc_open(struct af_archive *a, struct af_pkgview **v, const uint8_t *p, size_t n,
		    struct af_diag *d)
{
	int rc = af_archive_open(a, &af_container_sims3_package, p, n, d);
	*v = rc ? NULL : a->st;
	return rc;
}

static void test_pkgview_synthetic(void **state)
{
	(void)state;
	struct res r[3];
	struct af_buf b = AF_BUF_INIT, y = AF_BUF_INIT;
	struct af_archive a;
	struct af_pkgview *v;
	struct af_diag d;
	size_t n = sample_res(r);
	af_diag_init(&d);
	r[2].type = 0x220557DA;
	build(&b, 0, r, n);
	/* two JAZZ-typed records whose bodies are not Jazz: listed, not editable */
	assert_int_equal(arc_open(&a, &v, b.data, b.len, &d), 0);
	assert_int_equal(v->nitems, 0);
	assert_null(af_pkgview_find(v, "S3_02D5DF13_48000000_91B9575000000001.jazz"));
	assert_int_equal(af_pkgview_index_yaml(v, "t.package", &y), 0);
	af_buf_putc(&y, 0);
	const char *t = (const char *)y.data;
	assert_non_null(strstr(t, "package: t.package\n"));
	assert_non_null(strstr(t, "resources: # 3, in index order\n"));
	assert_non_null(strstr(t, "  - {type: 0x02D5DF13, tag: JAZZ, group: 0x48000000, instance: 0x91B9575000000002, offset: "));
	assert_non_null(strstr(t, "stored: 29, size: 29, compressed: false, note: not a Jazz state machine"));
	assert_non_null(strstr(t, "tag: STBL"));
	af_archive_close(&a);
	b.data[0] = 'Q';
	assert_int_equal(arc_open(&a, &v, b.data, b.len, &d), AF_EUNSUP);
	af_buf_free(&b);
	af_buf_free(&y);
	af_diag_free(&d);
}

/* A caller's memory bound for af_member_yaml_room: grants up to *limit bytes. */
static int room_upto(void *ctx, size_t want)
{
	return want <= *(size_t *)ctx;
}

static void test_pkgview_sample(void **state)
{
	(void)state;
	struct af_buf file = AF_BUF_INIT, yaml = AF_BUF_INIT, img = AF_BUF_INIT, y2 = AF_BUF_INIT;
	struct af_archive a, b2;
	struct af_pkgview *v, *w;
	struct af_diag d;
	int changed = -1;
	af_diag_init(&d);
	if (af_read_file_at(AT_FDCWD, ANIMFS_SAMPLES "/sims3/echoweaver_WarriorCats/WarriorCats.package",
			    AF_MAX_FILE, &file, &d)) {
		af_diag_free(&d);
		skip();
	}
	assert_int_equal(arc_open(&a, &v, file.data, file.len, &d), 0);
	assert_int_equal(v->pkg.count, 38);
	assert_int_equal(v->nitems, 1);
	assert_string_equal(v->items[0].name, "petgardening.jazz");
	const struct af_pkg_item *it = af_pkgview_find(v, "S3_02D5DF13_00000000_91B95750336A8701.jazz");
	assert_ptr_equal(it, &v->items[0]);
	assert_ptr_equal(af_pkgview_find(v, "petgardening.jazz"), it);
	assert_int_equal(af_member_roundtrip(&a, (size_t)(it - v->items), &d), 0);
	assert_int_equal(af_member_yaml(&a, (size_t)(it - v->items), &yaml, &d), 0);
	{ /* within a caller's bound: the same text when it grants 8x the member, else
	   * refused before the codec runs, saying how much */
		struct af_buf yr = AF_BUF_INIT;
		size_t limit = SIZE_MAX;
		assert_int_equal(af_member_yaml_room(&a, (size_t)(it - v->items), NULL, room_upto, &limit, &yr, &d), 0);
		assert_int_equal(yr.len, yaml.len);
		assert_memory_equal(yr.data, yaml.data, yaml.len);
		af_buf_reset(&yr);
		limit = 1024;
		assert_int_equal(af_member_yaml_room(&a, (size_t)(it - v->items), NULL, room_upto, &limit, &yr, &d),
				 AF_ENOMEM);
		assert_non_null(strstr(d.msg, "bytes take about"));
		assert_int_equal(yr.len, 0);
		af_buf_free(&yr);
		af_diag_clear(&d);
	}
	af_buf_putc(&yaml, 0);
	/* the package's _KEY map reached the codec: names, not hashes */
	assert_non_null(strstr((const char *)yaml.data, "\nname: petgardening\n"));
	assert_non_null(strstr((const char *)yaml.data, "- name: Loop Water\n"));
	assert_int_equal(af_member_commit(&a, (size_t)(it - v->items), yaml.data, yaml.len - 1, &img, &changed, &d), 0);
	assert_int_equal(changed, 0);
	assert_int_equal(img.len, 0);

	/* rename a state everywhere it is used */
	struct af_buf ed = AF_BUF_INIT;
	const char *s = (const char *)yaml.data, *hit;
	while ((hit = strstr(s, "Loop Water"))) {
		af_buf_append(&ed, s, (size_t)(hit - s));
		af_buf_puts(&ed, "Loop Sprinkle");
		s = hit + 10;
	}
	af_buf_puts(&ed, s);
	assert_int_equal(af_member_commit(&a, (size_t)(it - v->items), ed.data, ed.len, &img, &changed, &d), 0);
	assert_int_equal(changed, 1);
	assert_int_equal(arc_open(&b2, &w, img.data, img.len, &d), 0);
	for (uint32_t i = 0; i < 38; i++) {
		if (i == it->entry)
			continue;
		assert_int_equal(w->pkg.e[i].file_size, v->pkg.e[i].file_size);
		assert_memory_equal(af_dbpf_stored(&w->pkg, i), af_dbpf_stored(&v->pkg, i),
				    af_dbpf_stored_size(&v->pkg.e[i]));
	}
	assert_int_equal(af_member_yaml(&b2, 0, &y2, &d), 0);
	af_buf_putc(&y2, 0);
	assert_null(strstr((const char *)y2.data, "Loop Water"));
	/* a bad document: an error with line:column, nothing produced */
	af_diag_clear(&d);
	assert_int_equal(af_member_commit(&a, (size_t)(it - v->items), (const uint8_t *)"# x\nformat: sims3-jazz\nname: [\n", 31,
					   &img, &changed, &d), AF_EINVAL);
	assert_int_equal(img.len, 0);
	assert_int_equal(changed, 0);
	assert_true(d.line > 0);
	af_archive_close(&b2);
	af_archive_close(&a);
	af_buf_free(&ed);
	af_buf_free(&file);
	af_buf_free(&yaml);
	af_buf_free(&y2);
	af_buf_free(&img);
	af_diag_free(&d);
}

/* Damage anywhere in a real package: byte flips at a stride through the whole file and
 * truncations; whatever still opens is listed, rendered and round-tripped, never a crash
 * (ASan and UBSan watch). */
static void test_pkgview_sample_damaged(void **state)
{
	(void)state;
	struct af_buf file = AF_BUF_INIT, y = AF_BUF_INIT;
	struct af_archive a;
	struct af_pkgview *v;
	struct af_diag d;
	unsigned opened = 0, failed = 0;
	af_diag_init(&d);
	if (af_read_file_at(AT_FDCWD, ANIMFS_SAMPLES "/sims3/echoweaver_WarriorCats/WarriorCats.package",
			    AF_MAX_FILE, &file, &d)) {
		af_diag_free(&d);
		skip();
	}
	size_t ix = af_le32(file.data + 64);
	/* every 211th byte of the data, every 5th of the header and index, 8 truncations */
	for (size_t i = 0; i < file.len + 8; i += i < 96 || i >= ix ? 5 : 211) {
		int cut = i >= file.len;
		size_t at = cut ? (i - file.len) * 10500 : i;
		uint8_t keep = cut ? 0 : file.data[at];
		if (!cut)
			file.data[at] ^= (uint8_t)(0x5A + i);
		af_diag_clear(&d);
		if (arc_open(&a, &v, file.data, cut ? at : file.len, &d) == 0) {
			opened++;
			af_buf_reset(&y);
			assert_int_equal(af_pkgview_index_yaml(v, "x.package", &y), 0);
			for (size_t k = 0; k < v->nitems; k++) {
				af_buf_reset(&y);
				af_diag_clear(&d);
				af_member_yaml(&a, k, &y, &d);
				af_diag_clear(&d);
				af_member_roundtrip(&a, k, &d);
			}
			af_archive_close(&a);
		} else {
			failed++;
			assert_true(d.code != 0);
		}
		if (!cut)
			file.data[at] = keep;
	}
	assert_true(opened > 0 && failed > 0);
	af_buf_free(&file);
	af_buf_free(&y);
	af_diag_free(&d);
}

/* --overlay (sims3_overlay.c): a _KEY body of (instance, name) pairs. */
static void keymap(struct af_buf *b, const uint64_t *inst, const char *const *name, size_t n)
{
	af_buf_reset(b);
	af_buf_put_u32le(b, 1);
	af_buf_put_u32le(b, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		af_buf_put_u64le(b, inst[i]);
		af_buf_put_u32le(b, (uint32_t)strlen(name[i]));
		af_buf_append(b, name[i], strlen(name[i]));
	}
}

/* The body of the live record of type and instance in the package image, as a string
 * (NULL: none). */
static char *body_of(const struct af_buf *img, uint32_t type, uint64_t inst, size_t *count)
{
	struct af_dbpf p;
	struct af_diag d;
	struct af_buf b = AF_BUF_INIT;
	char *out = NULL;
	af_diag_init(&d);
	assert_int_equal(af_dbpf_open(&p, img->data, img->len, &d), 0);
	*count = p.count;
	for (uint32_t i = 0; i < p.count; i++)
		if (p.e[i].type == type && af_dbpf_instance(&p.e[i]) == inst) {
			assert_int_equal(af_dbpf_body(&p, i, &b, &d), 0);
			out = calloc(1, b.len + 1);
			memcpy(out, b.data, b.len);
		}
	af_dbpf_close(&p);
	af_buf_free(&b);
	af_diag_free(&d);
	return out;
}

static void expect_body(const struct af_buf *img, uint32_t type, uint64_t inst, const char *want,
			size_t len)
{
	size_t count;
	char *got = body_of(img, type, inst, &count);
	if (!want) {
		assert_null(got);
		return;
	}
	assert_non_null(got);
	assert_memory_equal(got, want, len);
	free(got);
}

/* The record of type and instance in the image stores exactly these bytes, declaring
 * mem bytes unpacked, compressed. */
static void expect_stored(const struct af_buf *img, uint32_t type, uint64_t inst, const uint8_t *want,
			  size_t n, uint32_t mem)
{
	struct af_dbpf p;
	struct af_diag d;
	int found = 0;
	af_diag_init(&d);
	assert_int_equal(af_dbpf_open(&p, img->data, img->len, &d), 0);
	for (uint32_t i = 0; i < p.count; i++)
		if (p.e[i].type == type && af_dbpf_instance(&p.e[i]) == inst) {
			found = 1;
			assert_int_equal(af_dbpf_stored_size(&p.e[i]), n);
			assert_memory_equal(af_dbpf_stored(&p, i), want, n);
			assert_int_equal(p.e[i].mem_size, mem);
			assert_true(af_dbpf_compressed(&p.e[i]));
		}
	assert_true(found);
	af_dbpf_close(&p);
	af_diag_free(&d);
}

/* Damaged resources on either side (issue 47): a game's body that does not unpack is
 * replaced by the override's; an override's is carried as its stored bytes, and its
 * _KEY map that does not unpack leaves the game's names; the reduce keeps it. */
static void test_overlay_damaged(void **state)
{
	(void)state;
	struct af_buf game = AF_BUF_INIT, over = AF_BUF_INIT, merged = AF_BUF_INIT, only = AF_BUF_INIT;
	struct af_buf k1 = AF_BUF_INIT;
	struct af_diag d;
	size_t count;
	/* RefPack: flags, magic, 16 bytes declared, then the stop command at once */
	static const uint8_t broken[] = { 0x10, 0xFB, 0x00, 0x00, 0x10, 0xFC };
	af_diag_init(&d);
	const uint64_t gi[] = { 1, 2 };
	const char *const gn[] = { "one", "two" };
	keymap(&k1, gi, gn, 2);
	const struct res g[] = {
		{ AF_DBPF_TYPE_KEY, 0, 0, 0, k1.data, (uint32_t)k1.len, (uint32_t)k1.len, 0, 0, 0 },
		{ 0x11, 0, 0, 1, (const uint8_t *)"alpha", 5, 5, 0, 0, 0 },
		{ 0x11, 0, 0, 2, broken, sizeof(broken), 16, 0xFFFF, 0, 0 },
	};
	const struct res o[] = {
		{ 0x11, 0, 0, 2, (const uint8_t *)"BETA!", 5, 5, 0, 0, 0 },
		{ 0x11, 0, 0, 4, broken, sizeof(broken), 16, 0xFFFF, 0, 0 },
		{ AF_DBPF_TYPE_KEY, 0, 0, 0, broken, sizeof(broken), 16, 0xFFFF, 0, 0 },
	};
	build(&game, 0, g, 3);
	build(&over, 0, o, 3);
	assert_int_equal(af_pkg_overlay_merge(game.data, game.len, over.data, over.len, &merged, &d), 0);
	assert_int_equal(d.code, 0);
	free(body_of(&merged, 0x11, 1, &count));
	assert_int_equal(count, 4);
	expect_body(&merged, 0x11, 1, "alpha", 5);
	expect_body(&merged, 0x11, 2, "BETA!", 5);
	expect_stored(&merged, 0x11, 4, broken, sizeof(broken), 16);
	expect_body(&merged, AF_DBPF_TYPE_KEY, 0, (const char *)k1.data, k1.len);
	/* reduced: B and the damaged D stay, byte for byte; A goes */
	assert_int_equal(af_pkg_overlay_reduce(game.data, game.len, merged.data, merged.len, &only, &d), 0);
	assert_int_equal(d.code, 0);
	expect_body(&only, 0x11, 1, NULL, 0);
	expect_body(&only, 0x11, 2, "BETA!", 5);
	expect_stored(&only, 0x11, 4, broken, sizeof(broken), 16);
	af_buf_free(&game);
	af_buf_free(&over);
	af_buf_free(&merged);
	af_buf_free(&only);
	af_buf_free(&k1);
	af_diag_free(&d);
}

static void test_overlay_merge_reduce(void **state)
{
	(void)state;
	struct af_buf game = AF_BUF_INIT, over = AF_BUF_INIT, merged = AF_BUF_INIT, only = AF_BUF_INIT;
	struct af_buf k1 = AF_BUF_INIT, k2 = AF_BUF_INIT, want = AF_BUF_INIT;
	struct af_diag d;
	size_t count;
	af_diag_init(&d);
	const uint64_t gi[] = { 1, 2 }, oi[] = { 2, 3 }, mi[] = { 1, 2, 3 };
	const char *const gn[] = { "one", "two" }, *const on[] = { "two", "three" },
			  *const mn[] = { "one", "two", "three" };
	keymap(&k1, gi, gn, 2);
	keymap(&k2, oi, on, 2);
	const struct res g[] = {
		{ AF_DBPF_TYPE_KEY, 0, 0, 0, k1.data, (uint32_t)k1.len, (uint32_t)k1.len, 0, 0, 0 },
		{ 0x11, 0, 0, 1, (const uint8_t *)"alpha", 5, 5, 0, 0, 0 },
		{ 0x11, 0, 0, 2, (const uint8_t *)"beta", 4, 4, 0, 0, 0 },
	};
	const struct res o[] = {
		{ 0x11, 0, 0, 2, (const uint8_t *)"BETA!", 5, 5, 0, 0, 0 },
		{ 0x11, 0, 0, 3, (const uint8_t *)"gamma", 5, 5, 0, 0, 0 },
		{ AF_DBPF_TYPE_KEY, 0, 0, 0, k2.data, (uint32_t)k2.len, (uint32_t)k2.len, 0, 0, 0 },
	};
	build(&game, 0, g, 3);
	build(&over, 0, o, 3);
	/* the game's package with the override on top: B replaced, C added, names of both */
	assert_int_equal(af_pkg_overlay_merge(game.data, game.len, over.data, over.len, &merged, &d), 0);
	free(body_of(&merged, 0x11, 1, &count));
	assert_int_equal(count, 4);
	expect_body(&merged, 0x11, 1, "alpha", 5);
	expect_body(&merged, 0x11, 2, "BETA!", 5);
	expect_body(&merged, 0x11, 3, "gamma", 5);
	keymap(&want, mi, mn, 3);
	expect_body(&merged, AF_DBPF_TYPE_KEY, 0, (const char *)want.data, want.len);
	/* reduced again: only what differs from the game's, with the names of those only */
	assert_int_equal(af_pkg_overlay_reduce(game.data, game.len, merged.data, merged.len, &only, &d), 0);
	free(body_of(&only, 0x11, 2, &count));
	assert_int_equal(count, 3);
	expect_body(&only, 0x11, 1, NULL, 0);
	expect_body(&only, 0x11, 2, "BETA!", 5);
	expect_body(&only, 0x11, 3, "gamma", 5);
	expect_body(&only, AF_DBPF_TYPE_KEY, 0, (const char *)k2.data, k2.len);
	/* nothing differs: no override (an empty image) */
	assert_int_equal(af_pkg_overlay_reduce(game.data, game.len, game.data, game.len, &only, &d), 0);
	assert_int_equal(only.len, 0);
	/* a damaged override is refused, nothing produced */
	af_buf_reset(&merged);
	assert_int_not_equal(af_pkg_overlay_merge(game.data, game.len, over.data, 40, &merged, &d), 0);
	assert_int_equal(merged.len, 0);
	af_buf_free(&game);
	af_buf_free(&over);
	af_buf_free(&merged);
	af_buf_free(&only);
	af_buf_free(&k1);
	af_buf_free(&k2);
	af_buf_free(&want);
	af_diag_free(&d);
}

static int teardown(void **state)
{
	(void)state;
	af_buf_free(&packed_b);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index_variants),
		cmocka_unit_test(test_file_order_deleted_shared),
		cmocka_unit_test(test_rebuild_edits),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_bad_packages),
		cmocka_unit_test(test_open_index),
		cmocka_unit_test(test_pkgview_synthetic),
		cmocka_unit_test(test_pkgview_sample),
		cmocka_unit_test(test_pkgview_sample_damaged),
		cmocka_unit_test(test_overlay_merge_reduce),
		cmocka_unit_test(test_overlay_damaged),
	};
	return cmocka_run_group_tests(tests, NULL, teardown);
}
