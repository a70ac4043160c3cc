/* What the tests of planned saves share: pieces (pieces.h) written out as a file and
 * read back. Include after cmocka.h. */
#ifndef ANIMFS_TEST_PIECES_UTIL_H
#define ANIMFS_TEST_PIECES_UTIL_H

#include <stdio.h>
#include "animfs/pieces.h"

/* The bytes p stands for (copies from f), as af_pieces_write puts them in a file. */
static void written(const struct af_pieces *p, const struct af_src *f, struct af_buf *out)
{
	FILE *t = tmpfile();
	struct af_diag d;
	struct af_src back;
	af_diag_init(&d);
	assert_non_null(t);
	assert_int_equal(af_pieces_write(p, f, fileno(t), NULL, &d), 0);
	back = (struct af_src){NULL, fileno(t), p->len};
	af_buf_reset(out);
	assert_int_equal(af_src_append(&back, 0, (size_t)p->len, out, &d), 0);
	fclose(t);
	af_diag_free(&d);
}

#endif
