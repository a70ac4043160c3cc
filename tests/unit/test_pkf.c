/* PKF (spec 6): the PAKF header and chunk walk carried verbatim, the terminator, the
 * appended IPAC as a nested folder at a 4-aligned offset (its 32-byte rule relative to
 * its start), chunk edits refused, an IPAC member edit moving nothing else, refusals. */
#include <stdlib.h>

#include "shm_testutil.h"
#include "pieces_testutil.h"

extern const struct af_container af_container_pkf, af_container_ipac;

static const uint8_t chrt[40] = {'C', 'H', 'R', 'S'};

/* DUMY, one TEXN of 48 bytes (so the IPAC starts at 0x64: 4-aligned only), 16 zero
 * bytes, the IPAC. */
static void t_pkf(struct af_buf *b)
{
	const struct tmember m[] = {{"CHARA", "CHRT", chrt, sizeof(chrt)}};
	struct af_buf ipac = AF_BUF_INIT;
	t_ipac(&ipac, m, 1);
	af_buf_reset(b);
	af_buf_append(b, "PAKF", 4);
	af_buf_put_u32le(b, 0);
	af_buf_put_u32le(b, 0x75BC0268);
	af_buf_put_u32le(b, 1);
	af_buf_append(b, "DUMY", 4);
	af_buf_put_u32le(b, 20);
	af_buf_fill(b, 0, 12);
	af_buf_append(b, "TEXN", 4);
	af_buf_put_u32le(b, 48);
	af_buf_fill(b, 0x5A, 40);
	af_buf_fill(b, 0, 16);
	af_buf_patch_u32le(b, 4, (uint32_t)b->len);
	af_buf_append(b, ipac.data, ipac.len);
	af_buf_free(&ipac);
}

static void test_walk_and_nesting(void **state)
{
	struct af_buf b = AF_BUF_INIT, out = AF_BUF_INIT, idx = AF_BUF_INIT;
	struct af_archive a;
	struct af_diag d;
	(void)state;
	af_diag_init(&d);
	t_pkf(&b);
	assert_int_equal(af_le32(b.data + 4), 0x64);
	assert_int_equal(af_archive_open(&a, &af_container_pkf, b.data, b.len, &d), 0);
	assert_int_equal(a.n, 3);
	assert_string_equal(a.m[0].name, "000.DUMY");
	assert_string_equal(a.m[1].name, "001.TEXN");
	assert_string_equal(a.m[2].name, "IPAC");
	af_archive_index(&a, "X.PKF", &idx);
	af_buf_putc(&idx, 0);
	assert_non_null(strstr((char *)idx.data, "texture_count: 1\n    chunks: 2\n    terminator_size: 16\n"));
	struct af_archive *s = af_archive_sub(&a, 2);
	assert_non_null(s);
	assert_ptr_equal(s->c, &af_container_ipac);
	assert_string_equal(s->m[0].name, "CHARA.CHRT");
	assert_int_equal(af_archive_replace(&a, 1, chrt, 8, &out, &d), AF_EUNSUP); /* a chunk */
	assert_non_null(strstr(d.msg, "PKF chunks are not edited"));
	af_diag_clear(&d);
	af_buf_reset(&out);
	assert_int_equal(af_archive_replace(s, 0, chrt, 8, &out, &d), 0); /* the CHRT, shrunk */
	assert_memory_equal(out.data, b.data, af_le32(b.data + 4));        /* nothing else moved */
	const uint8_t *blk = out.data + af_le32(b.data + 4);
	assert_int_equal(af_le32(blk + 4), 0x30);             /* the directory moved back */
	assert_int_equal(af_le32(blk + af_le32(blk + 4) + 16), 8); /* the CHRT's new size */
	af_archive_close(&a);
	t_rebuilds(&af_container_pkf, b.data, b.len);
	af_buf_free(&b);
	af_buf_free(&out);
	af_buf_free(&idx);
	af_diag_free(&d);
}

/* Opened from a descriptor (the header and the chunk headers read), a save in the nested
 * IPAC is planned as a copy of the chunk area and the IPAC's own plan (its kept entries
 * copies of the file's ranges), the bytes the in-memory rebuild gives; a chunk's range
 * is its span. */
static void test_plan(void **state)
{
	struct af_buf b = AF_BUF_INIT, want = AF_BUF_INIT, got = AF_BUF_INIT;
	struct af_pieces p = AF_PIECES_INIT;
	struct af_archive a, m;
	struct af_diag d;
	uint64_t off, len;
	FILE *f = tmpfile();
	(void)state;
	af_diag_init(&d);
	t_pkf(&b);
	assert_non_null(f);
	assert_int_equal(fwrite(b.data, 1, b.len, f), b.len);
	fflush(f);
	struct af_src src = {NULL, fileno(f), b.len, 0};
	assert_int_equal(af_archive_open_src(&a, &af_container_pkf, &src, NULL, &d), 0);
	assert_int_equal(af_archive_open(&m, &af_container_pkf, b.data, b.len, &d), 0);
	assert_int_equal(a.n, 3);
	assert_string_equal(a.m[1].name, "001.TEXN");
	assert_int_equal(af_archive_span(&a, 1, &off, &len), 1);
	assert_int_equal(off, 0x24);
	assert_int_equal(len, 48);
	struct af_archive *t = af_archive_sub(&m, 2), *s = af_archive_sub(&a, 2);
	assert_non_null(t);
	assert_non_null(s);
	assert_int_equal(af_archive_plan(s, 0, chrt, 8, &p, &d), 0);
	assert_int_equal(af_archive_replace(t, 0, chrt, 8, &want, &d), 0);
	written_as(&p, &src, &want, &got);
	assert_int_equal(p.v[0].kind, AF_PIECE_COPY); /* the header and the chunk area */
	assert_int_equal(p.v[0].len, af_le32(b.data + 4));
	/* the IPAC planned in turn: its head, member and directory new bytes, the gap after
	 * the member zeros (the whole new IPAC as bytes before) */
	assert_true(p.bytes.len < want.len - af_le32(b.data + 4));
	int zeros = 0;
	for (size_t k = 1; k < p.n; k++)
		zeros |= p.v[k].kind == AF_PIECE_ZERO;
	assert_true(zeros);
	assert_int_equal(pieces_moved(&p), 0);
	af_archive_close(&a);
	af_archive_close(&m);
	fclose(f);
	af_pieces_free(&p);
	af_buf_free(&b);
	af_buf_free(&want);
	af_buf_free(&got);
	af_diag_free(&d);
}

static void test_refusals(void **state)
{
	struct af_buf b = AF_BUF_INIT;
	(void)state;
	t_pkf(&b);
	uint32_t cs = af_le32(b.data + 4);
	af_buf_patch_u32le(&b, 4, 8);
	t_refused(&af_container_pkf, b.data, b.len, "PAKF: content size 0x8 out of range", 4);
	af_buf_patch_u32le(&b, 4, (uint32_t)b.len + 1);
	t_refused(&af_container_pkf, b.data, b.len, "out of range", 4);
	af_buf_patch_u32le(&b, 4, cs);
	af_buf_patch_u32le(&b, 0x24 + 4, 0xFFFFFFF0); /* the TEXN claims 4 GiB */
	t_refused(&af_container_pkf, b.data, b.len, "PAKF: chunk 'TEXN' at 0x24 runs past content end", 0x24);
	af_buf_patch_u32le(&b, 0x24 + 4, 4);
	t_refused(&af_container_pkf, b.data, b.len, "chunk 'TEXN' at 0x24", 0x24);
	af_buf_patch_u32le(&b, 0x24 + 4, 48);
	for (size_t n = 0; n < cs; n++) /* a truncated chunk area */
		t_refused(&af_container_pkf, b.data, n, "", -1);
	af_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk_and_nesting),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_plan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
