/* What the tests of planned saves share: pieces (pieces.h) written out as a file and
 * read back. Include after cmocka.h. */
#ifndef ANIMFS_TEST_PIECES_UTIL_H
#define ANIMFS_TEST_PIECES_UTIL_H

#include <stdio.h>
#include <unistd.h>
#include "animfs/pieces.h"

/* The bytes p stands for (copies from f), as af_pieces_write puts them in a file. */
static inline void written(const struct af_pieces *p, const struct af_src *f, struct af_buf *out)
{
	FILE *t = tmpfile();
	struct af_diag d;
	struct af_src back;
	af_diag_init(&d);
	assert_non_null(t);
	assert_int_equal(af_pieces_write(p, f, fileno(t), NULL, &d), 0);
	back = (struct af_src){NULL, fileno(t), (uint64_t)lseek(fileno(t), 0, SEEK_END), 0};
	af_buf_reset(out);
	assert_int_equal(af_src_append(&back, 0, (size_t)back.size, out, &d), 0);
	fclose(t);
	af_diag_free(&d);
}

/* p written both ways (the kernel's copies, then plain reads and writes) gives want;
 * the bytes (of the plain way) in got. */
static inline void written_as(const struct af_pieces *p, const struct af_src *f, const struct af_buf *want,
		       struct af_buf *got)
{
	for (int plain = 0; plain < 2; plain++) {
		af_pieces_plain_for_tests(plain);
		written(p, f, got);
		assert_int_equal(got->len, want->len);
		assert_memory_equal(got->data, want->data, want->len);
	}
	af_pieces_plain_for_tests(0);
}

/* Whether a copied range of p lands at another offset than its own. */
static inline int pieces_moved(const struct af_pieces *p)
{
	uint64_t at = 0;
	int moved = 0;
	for (size_t k = 0; k < p->n; k++) {
		moved |= p->v[k].kind == AF_PIECE_COPY && p->v[k].off != at;
		at += p->v[k].len;
	}
	return moved;
}

#endif
