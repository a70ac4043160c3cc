/* libFuzzer target for the fast DEFLATE decoder (core/inflate.c; built as fuzz_inflate
 * with -DANIMFS_FUZZ=ON; `scripts/fuzz SECONDS inflate` runs it), against zlib: the
 * input's first two bytes give the output limit, the rest is a raw deflate stream.
 * Whatever the fast decoder takes, zlib takes with the same bytes and the same count of
 * input; what it declines, af_zframe hands to zlib (the input as a zlib stream checks
 * that path too: zlib's answer either way). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "animfs/buf.h"
#include "animfs/diag.h"
#include "animfs/inflate.h"
#include "animfs/zframe.h"
#include "../unit/zlib_ref.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	if (n < 2)
		return 0;
	size_t limit = ((size_t)data[0] << 8 | data[1]) * 16; /* up to ~1 MiB */
	const uint8_t *in = data + 2;
	n -= 2;
	uint8_t *a = malloc(limit + 64), *b = malloc(limit + 1);
	size_t au = 0, al = 0, bu = 0, bl = 0;
	if (!a || !b)
		abort();
	if (af_inflate_fast(in, n, a, limit, limit, &au, &al) == 0) {
		if (zlib_raw(in, n, b, limit, &bu, &bl) || al != bl || au != bu ||
		    (al && memcmp(a, b, al)))
			abort();
	}
	/* the same bytes as a zlib stream through af_zframe: no crash, bounded */
	struct af_buf out = AF_BUF_INIT;
	struct af_diag d;
	size_t used;
	af_diag_init(&d);
	if (!af_zframe_inflate(in, n, limit, &out, &used, &d) && (out.len > limit || used > n))
		abort();
	af_buf_free(&out);
	af_diag_free(&d);
	free(a);
	free(b);
	return 0;
}
