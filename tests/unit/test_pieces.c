/* pieces.h: a source read where asked (memory or a descriptor, the end refused), the
 * pieces merged as they are appended, and the same bytes from af_pieces_to_buf and from
 * af_pieces_write by each path (the kernel's copy, FICLONE of a file whose copies keep
 * their offsets where the filesystem can, the plain pread/pwrite). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "animfs/pieces.h"
#include "animfs/zframe.h"

static uint8_t old[300000];

static void check_write(const struct af_pieces *p, const struct af_src *src,
			const struct af_buf *want)
{
	struct af_buf got = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	for (int plain = 0; plain < 2; plain++) {
		FILE *t = tmpfile();
		uint64_t copied = 0;
		assert_non_null(t);
		assert_int_equal(ftruncate(fileno(t), 12345), 0); /* what was there goes */
		assert_int_equal(ftruncate(fileno(t), 0), 0);
		af_pieces_plain_for_tests(plain);
		assert_int_equal(af_pieces_write(p, src, fileno(t), &copied, &d), 0);
		if (plain || src->mem)
			assert_int_equal(copied, 0);
		off_t end = lseek(fileno(t), 0, SEEK_END); /* a GZIP piece: known once written */
		struct af_src back = {NULL, fileno(t), (uint64_t)end, 0};
		if (!p->unsized)
			assert_int_equal(end, (off_t)p->len);
		af_buf_reset(&got);
		assert_int_equal(af_src_append(&back, 0, (size_t)end, &got, &d), 0);
		assert_int_equal(lseek(fileno(t), 0, SEEK_END), (off_t)want->len);
		assert_int_equal(got.len, want->len);
		assert_memory_equal(got.data, want->data, want->len);
		fclose(t);
	}
	af_pieces_plain_for_tests(0);
	af_buf_free(&got);
	af_diag_free(&d);
}

static void test_pieces(void **state)
{
	struct af_pieces p = AF_PIECES_INIT;
	struct af_buf want = AF_BUF_INIT, got = AF_BUF_INIT, img = AF_BUF_INIT;
	struct af_diag d;
	FILE *f = tmpfile();
	(void)state;
	af_diag_init(&d);
	for (size_t i = 0; i < sizeof(old); i++)
		old[i] = (uint8_t)(i * 7 + i / 251);
	assert_non_null(f);
	assert_int_equal(fwrite(old, 1, sizeof(old), f), sizeof(old));
	fflush(f);
	struct af_src mem = {old, -1, sizeof(old), 0}, fd = {NULL, fileno(f), sizeof(old), 0};

	/* the end of the source is refused, with where */
	uint8_t x[8];
	assert_int_equal(af_src_read(&fd, sizeof(old) - 4, x, 8, &d), AF_EINVAL);
	af_diag_clear(&d);
	assert_int_equal(af_src_read(&fd, 8, x, 8, &d), 0);
	assert_memory_equal(x, old + 8, 8);

	/* merged: copies that join, zeros, bytes after bytes */
	af_pieces_copy(&p, 0, 100);
	af_pieces_copy(&p, 100, 50);
	af_pieces_bytes(&p, "new", 3);
	af_pieces_bytes(&p, "er", 2);
	af_pieces_zero(&p, 7);
	af_pieces_zero(&p, 0);
	af_pieces_zero(&p, 9);
	af_pieces_copy(&p, 200000, 100000);
	af_pieces_copy(&p, 1000, 70000);
	assert_int_equal(p.n, 5);
	assert_int_equal(p.len, 150 + 5 + 16 + 100000 + 70000);
	af_buf_append(&want, old, 150);
	af_buf_append(&want, "newer", 5);
	af_buf_fill(&want, 0, 16);
	af_buf_append(&want, old + 200000, 100000);
	af_buf_append(&want, old + 1000, 70000);
	assert_int_equal(af_pieces_to_buf(&p, &mem, &got, &d), 0);
	assert_int_equal(got.len, want.len);
	assert_memory_equal(got.data, want.data, want.len);
	check_write(&p, &fd, &want);
	check_write(&p, &mem, &want);

	/* copies at their own offsets, new bytes between (the in-place case: FICLONE
	 * where the filesystem shares blocks, else copies) */
	af_pieces_reset(&p);
	af_buf_reset(&want);
	af_pieces_copy(&p, 0, 4096);
	af_pieces_bytes(&p, "edit", 4);
	af_pieces_zero(&p, 4092);
	af_pieces_copy(&p, 8192, sizeof(old) - 8192 - 100);
	af_buf_append(&want, old, 4096);
	af_buf_append(&want, "edit", 4);
	af_buf_fill(&want, 0, 4092);
	af_buf_append(&want, old + 8192, sizeof(old) - 8192 - 100);
	check_write(&p, &fd, &want);

	/* a copy past the source's end is refused */
	af_pieces_copy(&p, sizeof(old) - 10, 20);
	FILE *t = tmpfile();
	assert_int_not_equal(af_pieces_write(&p, &fd, fileno(t), NULL, &d), 0);
	fclose(t);

	/* a whole image handed over */
	af_pieces_reset(&p);
	af_buf_append(&img, "whole", 5);
	assert_int_equal(af_pieces_take(&p, &img), 0);
	assert_int_equal(img.len, 0);
	af_buf_reset(&got);
	assert_int_equal(af_pieces_to_buf(&p, &fd, &got, &d), 0);
	assert_int_equal(got.len, 5);
	assert_memory_equal(got.data, "whole", 5);

	fclose(f);
	af_pieces_free(&p);
	af_buf_free(&want);
	af_buf_free(&got);
	af_buf_free(&img);
	af_diag_free(&d);
}

/* A GZIP piece: the bytes its inner pieces stand for (copies of the inflated old stream,
 * out of order: the stream starts again; zeros; new bytes) deflated as
 * af_zframe_deflate_raw deflates them in one go, then CRC-32 and ISIZE; between a copy
 * and new bytes of the file around it, with the file's copies shifted by an append. A
 * copy past the stream's end is refused. */
static void test_gzip_piece(void **state)
{
	struct af_pieces p = AF_PIECES_INIT, inner = AF_PIECES_INIT, q = AF_PIECES_INIT;
	struct af_buf file = AF_BUF_INIT, plain = AF_BUF_INIT, want = AF_BUF_INIT, got = AF_BUF_INIT;
	struct af_diag d;
	FILE *f = tmpfile();
	(void)state;
	af_diag_init(&d);
	for (size_t i = 0; i < sizeof(old); i++)
		old[i] = (uint8_t)(i % 253 < 40 ? i * 13 + i / 7 : i / 97);
	af_buf_append(&file, "HEAD", 4); /* the stored stream at 4 */
	assert_int_equal(af_zframe_deflate_raw(old, sizeof(old), 6, &file, &d), 0);
	uint64_t zlen = file.len - 4;
	af_buf_append(&file, "TAIL", 4);
	assert_non_null(f);
	assert_int_equal(fwrite(file.data, 1, file.len, f), file.len);
	fflush(f);
	struct af_src fd = {NULL, fileno(f), file.len, 0}, mem = {file.data, -1, file.len, 0};
	/* inner: old[200000..250000), old[10..5000) (behind: again from the start), 3000
	 * zeros, "new", old[299000..300000) */
	af_pieces_copy(&inner, 200000, 50000);
	af_pieces_copy(&inner, 10, 4990);
	af_pieces_zero(&inner, 3000);
	af_pieces_bytes(&inner, "new", 3);
	af_pieces_copy(&inner, 299000, 1000);
	af_buf_append(&plain, old + 200000, 50000);
	af_buf_append(&plain, old + 10, 4990);
	af_buf_fill(&plain, 0, 3000);
	af_buf_append(&plain, "new", 3);
	af_buf_append(&plain, old + 299000, 1000);
	af_pieces_copy(&p, 0, 4);
	assert_int_equal(af_pieces_gzip(&p, &inner, 4, zlen, 9), 0);
	assert_int_equal(inner.n, 0); /* taken */
	af_pieces_bytes(&p, "END", 3);
	assert_true(p.unsized);
	af_buf_append(&want, "HEAD", 4);
	assert_int_equal(af_zframe_deflate_raw(plain.data, plain.len, 9, &want, &d), 0);
	af_buf_put_u32le(&want, af_crc32(plain.data, plain.len));
	af_buf_put_u32le(&want, (uint32_t)plain.len);
	af_buf_append(&want, "END", 3);
	check_write(&p, &fd, &want);
	assert_int_equal(af_pieces_to_buf(&p, &mem, &got, &d), 0);
	assert_int_equal(got.len, want.len);
	assert_memory_equal(got.data, want.data, want.len);
	/* the same planned over a part of a larger file that starts at 100 */
	struct af_buf big = AF_BUF_INIT;
	af_buf_fill(&big, 0x55, 100);
	af_buf_append(&big, file.data, file.len);
	af_pieces_bytes(&q, "X", 1);
	assert_int_equal(af_pieces_append(&q, &p, 100), 0);
	assert_int_equal(q.nz, 1);
	assert_int_equal(q.z[0].zoff, 104);
	af_buf_reset(&got);
	assert_int_equal(af_pieces_to_buf(&q, &(struct af_src){big.data, -1, big.len, 0}, &got, &d), 0);
	assert_int_equal(got.len, want.len + 1);
	assert_memory_equal(got.data + 1, want.data, want.len);
	/* a copy past the inflated bytes */
	af_pieces_reset(&p);
	af_pieces_copy(&inner, sizeof(old) - 10, 20);
	assert_int_equal(af_pieces_gzip(&p, &inner, 4, zlen, 6), 0);
	af_buf_reset(&got);
	assert_int_equal(af_pieces_to_buf(&p, &mem, &got, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "the deflate stream ends"));
	af_pieces_free(&p);
	af_pieces_free(&q);
	af_pieces_free(&inner);
	af_buf_free(&file);
	af_buf_free(&plain);
	af_buf_free(&want);
	af_buf_free(&got);
	af_buf_free(&big);
	af_diag_free(&d);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pieces),
		cmocka_unit_test(test_gzip_piece),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
