/* The gzip layer (spec 3, 11): header fields and the optional FEXTRA, FNAME, FCOMMENT
 * and FHCRC, the stored stream reused when the content is unchanged, a new stream with
 * the header bytes kept after an edit, refusals (reserved flags, CRC, ISIZE, every
 * truncation, trailing bytes on edit), a bomb stopped at the cap without its memory,
 * and the layer rule: gzip > PKS shows the PKS, an edit rebuilds both. */
#include <stdlib.h>
#include <zlib.h>

#include "shm_testutil.h"
#include "pieces_testutil.h"
#include "animfs/fileio.h"

extern const struct af_container af_container_gzip, af_container_pks;

static const uint8_t text[] = "synthetic non-MOTN member\n";

static void inflated_is(const struct af_buf *gz, const uint8_t *p, size_t n)
{
	struct af_archive a;
	struct af_buf b = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	assert_int_equal(af_archive_open(&a, &af_container_gzip, gz->data, gz->len, &d), 0);
	assert_int_equal(a.n, 1);
	assert_int_equal(af_archive_body(&a, 0, &b, &d), 0);
	assert_int_equal(b.len, n);
	assert_memory_equal(b.data, p, n);
	af_archive_close(&a);
	af_buf_free(&b);
	af_diag_free(&d);
}

static void test_header_fields(void **state)
{
	struct af_buf gz = AF_BUF_INIT, idx = AF_BUF_INIT;
	struct af_archive a;
	struct af_diag d;
	(void)state;
	af_diag_init(&d);
	t_gzip(&gz, 8, NULL, "MPK00.PKSirs415011568.tmp", NULL, text, sizeof(text) - 1);
	assert_int_equal(af_container_gzip.bid("x", gz.data, 10), 2);
	assert_int_equal(af_archive_open(&a, &af_container_gzip, gz.data, gz.len, &d), 0);
	assert_string_equal(a.m[0].name, "MPK00.PKSirs415011568.tmp");
	assert_int_equal(af_archive_index(&a, "X.GZ", &idx), 0);
	af_buf_putc(&idx, 0);
	assert_non_null(strstr((char *)idx.data, "flags: 0x08\n    mtime: 966523011\n    mtime_utc: \"2000-08-17T14:36:51Z\"\n    xfl: 2\n    os: 3\n"));
	assert_non_null(strstr((char *)idx.data, "header_size: 36\n"));
	assert_non_null(strstr((char *)idx.data, "isize: 26\n    trailing_bytes: 0\n"));
	af_archive_close(&a);
	t_rebuilds(&af_container_gzip, gz.data, gz.len);
	/* every optional field at once */
	t_gzip(&gz, 2 | 4 | 8 | 16, "AB\x01\x02", "name", "a comment", text, sizeof(text) - 1);
	inflated_is(&gz, text, sizeof(text) - 1);
	t_rebuilds(&af_container_gzip, gz.data, gz.len);
	gz.data[10 + 2 + 4 + 5 + 10] ^= 1; /* the FHCRC */
	t_refused(&af_container_gzip, gz.data, gz.len, "gzip header CRC mismatch", 31);
	af_buf_free(&gz);
	af_buf_free(&idx);
	af_diag_free(&d);
}

static void test_refusals(void **state)
{
	struct af_buf gz = AF_BUF_INIT;
	(void)state;
	t_gzip(&gz, 8, NULL, "n", NULL, text, sizeof(text) - 1);
	gz.data[3] |= 0x20;
	t_refused(&af_container_gzip, gz.data, gz.len, "reserved flags 0x20", 3);
	gz.data[3] &= ~0x20;
	gz.data[2] = 7;
	t_refused(&af_container_gzip, gz.data, gz.len, "compression method 7", 2);
	gz.data[2] = 8;
	gz.data[gz.len - 8] ^= 1;
	t_refused(&af_container_gzip, gz.data, gz.len, "gzip CRC-32 mismatch", (int64_t)gz.len - 8);
	gz.data[gz.len - 8] ^= 1;
	gz.data[gz.len - 4] ^= 1;
	t_refused(&af_container_gzip, gz.data, gz.len, "gzip ISIZE mismatch", (int64_t)gz.len - 4);
	gz.data[gz.len - 4] ^= 1;
	for (size_t n = 0; n < gz.len; n++) /* every truncation */
		t_refused(&af_container_gzip, gz.data, n, "", -1);
	t_gzip(&gz, 8, NULL, "no NUL", NULL, text, sizeof(text) - 1);
	t_refused(&af_container_gzip, gz.data, 14, "FNAME without its NUL", -1);
	t_gzip(&gz, 4, "x", NULL, NULL, text, sizeof(text) - 1);
	af_buf_patch_u16le(&gz, 10, 0xFFFF);
	t_refused(&af_container_gzip, gz.data, gz.len, "truncated gzip header (FEXTRA)", 10);
	af_buf_free(&gz);
}

/* Trailing bytes: readable, kept by an unchanged rebuild, an edit refused. */
static void test_trailing(void **state)
{
	struct af_buf gz = AF_BUF_INIT, out = AF_BUF_INIT;
	struct af_archive a;
	struct af_diag d;
	(void)state;
	af_diag_init(&d);
	t_gzip(&gz, 0, NULL, NULL, NULL, text, sizeof(text) - 1);
	af_buf_append(&gz, "\0\0\0\0", 4);
	inflated_is(&gz, text, sizeof(text) - 1);
	t_rebuilds(&af_container_gzip, gz.data, gz.len);
	assert_int_equal(af_archive_open(&a, &af_container_gzip, gz.data, gz.len, &d), 0);
	assert_int_not_equal(af_archive_replace(&a, 0, text, 3, &out, &d), 0);
	assert_non_null(strstr(d.msg, "4 unknown bytes follow the gzip member"));
	af_archive_close(&a);
	af_buf_free(&gz);
	af_buf_free(&out);
	af_diag_free(&d);
}

/* An edit keeps the header bytes (FNAME, MTIME, XFL) and writes a new stream. */
static void test_edit(void **state)
{
	struct af_buf gz = AF_BUF_INIT, out = AF_BUF_INIT;
	struct af_archive a;
	struct af_diag d;
	(void)state;
	af_diag_init(&d);
	t_gzip(&gz, 8, NULL, "MPK00.PKS", NULL, text, sizeof(text) - 1);
	assert_int_equal(af_archive_open(&a, &af_container_gzip, gz.data, gz.len, &d), 0);
	assert_int_equal(af_archive_replace(&a, 0, (const uint8_t *)"new", 3, &out, &d), 0);
	assert_memory_equal(out.data, gz.data, 20);
	inflated_is(&out, (const uint8_t *)"new", 3);
	af_buf_reset(&out);
	assert_int_equal(af_archive_replace(&a, 0, text, sizeof(text) - 1, &out, &d), 0);
	assert_int_equal(out.len, gz.len); /* edited back: the stored bytes */
	assert_memory_equal(out.data, gz.data, gz.len);
	af_archive_close(&a);
	af_buf_free(&gz);
	af_buf_free(&out);
	af_diag_free(&d);
}

/* Raw deflate of n zero bytes from a fresh stream, ended by flush (level 9). */
static void deflate_zeros(struct af_buf *out, size_t n, int flush)
{
	static uint8_t zeros[1 << 20];
	z_stream zs = {0};
	assert_true(n <= sizeof(zeros));
	assert_int_equal(deflateInit2(&zs, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = zeros;
	zs.avail_in = (uInt)n;
	do {
		assert_int_equal(af_buf_reserve(out, 65536), 0);
		zs.next_out = out->data + out->len;
		zs.avail_out = 65536;
		deflate(&zs, flush);
		out->len += 65536 - zs.avail_out;
	} while (zs.avail_out == 0);
	deflateEnd(&zs);
}

/* A gzip member of n zero bytes (~1 KiB a MiB), made without deflating n bytes: a MiB
 * of zeros deflated and fully flushed (byte-aligned, no back-reference before it) is the
 * same bytes wherever it stands in a stream, so the member is that block repeated, the
 * rest and the final block, its CRC combined likewise (a 1 GiB bomb in milliseconds,
 * not the seconds of deflating and summing 1 GiB). */
static void zeros_gz(struct af_buf *gz, size_t n)
{
	static uint8_t zeros[1 << 20];
	struct af_buf mib = AF_BUF_INIT;
	size_t whole = n / sizeof(zeros), rest = n % sizeof(zeros);
	uLong one = crc32(crc32(0L, Z_NULL, 0), zeros, sizeof(zeros)), c = crc32(0L, Z_NULL, 0);
	af_buf_reset(gz);
	af_buf_append(gz, "\x1F\x8B\x08\0\0\0\0\0\2\3", 10);
	deflate_zeros(&mib, sizeof(zeros), Z_FULL_FLUSH);
	for (size_t i = 0; i < whole; i++) {
		assert_int_equal(af_buf_append(gz, mib.data, mib.len), 0);
		c = crc32_combine(c, one, sizeof(zeros));
	}
	deflate_zeros(gz, rest, Z_FINISH);
	c = crc32_combine(c, crc32(crc32(0L, Z_NULL, 0), zeros, (uInt)rest), (z_off_t)rest);
	af_buf_put_u32le(gz, (uint32_t)c);
	af_buf_put_u32le(gz, (uint32_t)n);
	af_buf_free(&mib);
}

/* The layer limit (AF_MAX_LAYER): exactly that many bytes open; one more, or a 1 GiB
 * bomb of 1 MiB, is refused while counting (nothing inflated is kept), with the
 * limit named; a gzip file larger than the most a layer may be stored in is refused
 * before inflating. */
static void test_bomb(void **state)
{
	struct af_buf gz = AF_BUF_INIT, body = AF_BUF_INIT;
	struct af_archive a;
	struct af_diag d;
	(void)state;
	af_diag_init(&d);
	zeros_gz(&gz, AF_MAX_LAYER);
	assert_int_equal(af_archive_open(&a, &af_container_gzip, gz.data, gz.len, &d), 0);
	assert_int_equal(af_archive_body(&a, 0, &body, &d), 0);
	assert_int_equal(body.len, AF_MAX_LAYER);
	af_archive_close(&a);
	zeros_gz(&gz, AF_MAX_LAYER + 1);
	t_refused(&af_container_gzip, gz.data, gz.len,
		  "gzip member inflates past 48 MiB, the most one gzip layer may hold (AF_MAX_LAYER)", -1);
	zeros_gz(&gz, (size_t)1 << 30);
	assert_true(gz.len < (2u << 20)); /* small on disk */
	t_refused(&af_container_gzip, gz.data, gz.len, "inflates past 48 MiB", -1);
	af_buf_fill(&gz, 0, AF_MAX_LAYER_STORED); /* trailing bytes past what a layer may be */
	t_refused(&af_container_gzip, gz.data, gz.len, "the most one gzip layer may be", -1);
	af_buf_free(&gz);
	af_buf_free(&body);
	af_diag_free(&d);
}

/* gzip > PKS: the folder shows the PKS; an edit of its member rebuilds the IPAC, then
 * the gzip (header kept). */
static void test_layer(void **state)
{
	static const uint8_t a4[4] = {1, 2, 3, 4};
	const struct tmember m[] = {{"A", "CHRM", a4, 4}, {"B", "CHRM", text, 26}};
	struct af_buf ipac = AF_BUF_INIT, pks = AF_BUF_INIT, gz = AF_BUF_INIT, out = AF_BUF_INIT,
		      idx = AF_BUF_INIT;
	struct af_archive a, b;
	struct af_diag d;
	(void)state;
	af_diag_init(&d);
	t_ipac(&ipac, m, 2);
	t_pks(&pks, &ipac, 0x12345678, 2);
	t_gzip(&gz, 8, NULL, "MPK00.PKS", NULL, pks.data, pks.len);
	assert_int_equal(af_archive_open(&a, &af_container_gzip, gz.data, gz.len, &d), 0);
	struct af_archive *s = af_archive_shown(&a);
	assert_ptr_equal(s->c, &af_container_pks);
	assert_int_equal(s->n, 2);
	assert_string_equal(s->m[1].name, "B.CHRM");
	assert_int_equal(af_archive_index(s, "MPK00.PKS", &idx), 0);
	af_buf_putc(&idx, 0);
	assert_non_null(strstr((char *)idx.data, "layers:\n  - format: gzip\n"));
	assert_non_null(strstr((char *)idx.data, "  - format: paks\n"));
	assert_non_null(strstr((char *)idx.data, "size: " /* the file's, not the PKS's */));
	assert_int_equal(af_archive_replace(s, 0, text, 26, &out, &d), 0);
	assert_memory_equal(out.data, gz.data, 20); /* the gzip header */
	assert_int_equal(af_archive_open(&b, &af_container_gzip, out.data, out.len, &d), 0);
	struct af_archive *t = af_archive_shown(&b);
	struct af_buf body = AF_BUF_INIT;
	assert_int_equal(af_archive_body(t, 0, &body, &d), 0);
	assert_memory_equal(body.data, text, 26);
	af_buf_reset(&body);
	assert_int_equal(af_archive_body(t, 1, &body, &d), 0);
	assert_memory_equal(body.data, text, 26);
	af_buf_free(&body);
	af_archive_close(&a);
	af_archive_close(&b);
	af_buf_free(&ipac);
	af_buf_free(&pks);
	af_buf_free(&gz);
	af_buf_free(&out);
	af_buf_free(&idx);
	af_diag_free(&d);
}

/* gzip > PKS saved as pieces, from a descriptor as the mount and the command line open
 * it: the PKS planned over the inflated bytes, the layer one GZIP piece (only the
 * header, the PKS's tables and the member are new bytes), written the same as the
 * in-memory rebuild; the member's old bytes again: the stored file, one copy. Small
 * (held in memory) and large (past 4 MiB: in a temporary file, nothing held) layers.
 * af_archive_same_member tells the layers apart by their trailers and finds two opens
 * of one file the same (one inflated as it is compared). */
static void test_layer_plan(void **state)
{
	static const uint8_t a4[4] = {1, 2, 3, 4};
	static uint8_t noise[5 << 20];
	struct af_buf ipac = AF_BUF_INIT, pks = AF_BUF_INIT, gz = AF_BUF_INIT, img = AF_BUF_INIT,
		      got = AF_BUF_INIT;
	struct af_diag d;
	uint32_t x = 1;
	(void)state;
	af_diag_init(&d);
	for (size_t i = 0; i < sizeof(noise); i++)
		noise[i] = (uint8_t)((x = x * 1103515245u + 12345u) >> 24);
	for (int large = 0; large < 2; large++) {
		const struct tmember m[] = {{"A", "CHRM", a4, 4}, {"B", "CHRM", text, 26},
					    {"C", "BIN", noise, large ? sizeof(noise) : 1000}};
		struct af_pieces plan = AF_PIECES_INIT, same = AF_PIECES_INIT;
		struct af_archive a, b;
		t_ipac(&ipac, m, 3);
		t_pks(&pks, &ipac, 0x12345678, 3);
		t_gzip(&gz, 8, NULL, "MPK00.PKS", NULL, pks.data, pks.len);
		FILE *f = tmpfile();
		assert_non_null(f);
		assert_int_equal(fwrite(gz.data, 1, gz.len, f), gz.len);
		fflush(f);
		struct af_src src = {NULL, fileno(f), gz.len, 0};
		assert_int_equal(af_archive_open_src(&a, &af_container_gzip, &src, NULL, &d), 0);
		struct af_archive *s = af_archive_shown(&a);
		assert_ptr_equal(s->c, &af_container_pks);
		/* the layer's bytes (large: in a file, not held) and a few tables */
		size_t held = af_archive_held(&a), layer = large ? 0 : pks.len;
		assert_true(held >= layer && held < layer + 4096);
		assert_int_equal(af_archive_plan(s, 0, text, 26, &plan, &d), 0);
		assert_true(plan.unsized);
		assert_int_equal(plan.nz, 1);
		assert_true(plan.bytes.len < 200); /* header, PKS head and directory, the member */
		assert_int_equal(af_archive_replace(s, 0, text, 26, &img, &d), 0);
		written_as(&plan, &src, &img, &got);
		/* B's own bytes: the file as it is */
		assert_int_equal(af_archive_plan(s, 1, text, 26, &same, &d), 0);
		assert_int_equal(same.n, 1);
		assert_int_equal(same.v[0].kind, AF_PIECE_COPY);
		assert_int_equal(same.v[0].len, gz.len);
		/* the new file against the old: told apart; the old file against itself: the same */
		assert_int_equal(af_archive_open(&b, &af_container_gzip, img.data, img.len, &d), 0);
		assert_int_equal(af_archive_same_member(&b, &a, 0, &d), 0);
		af_archive_close(&b);
		assert_int_equal(af_archive_open_src(&b, &af_container_gzip, &src, NULL, &d), 0);
		assert_int_equal(af_archive_same_member(&b, &a, 0, &d), 1);
		af_archive_close(&b);
		af_archive_close(&a);
		af_pieces_free(&plan);
		af_pieces_free(&same);
		fclose(f);
	}
	af_buf_free(&ipac);
	af_buf_free(&pks);
	af_buf_free(&gz);
	af_buf_free(&img);
	af_buf_free(&got);
	af_diag_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_fields), cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_trailing),      cmocka_unit_test(test_edit),
		cmocka_unit_test(test_bomb),          cmocka_unit_test(test_layer),
		cmocka_unit_test(test_layer_plan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
