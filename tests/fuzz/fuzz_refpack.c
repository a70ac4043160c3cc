/* libFuzzer target for RefPack, the Sims 3 package's compression (built as fuzz_refpack
 * with -DANIMFS_FUZZ=ON; `scripts/fuzz SECONDS refpack` runs it): whatever decompresses
 * must survive our compressor and decompress back identically. (The package itself is
 * fuzzed like every container, by fuzz_container.) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/buf.h"
#include "animfs/diag.h"
#include "../../src/container/refpack.h"

static void refpack_property(const uint8_t *data, size_t n, struct af_diag *d)
{
	struct af_buf y = AF_BUF_INIT, c = AF_BUF_INIT, back = AF_BUF_INIT;
	if (!af_refpack_decompress(data, n, UINT64_MAX, &y, d)) {
		if (af_refpack_compress(y.data, y.len, &c, d) ||
		    af_refpack_decompress(c.data, c.len, y.len, &back, d) || back.len != y.len ||
		    (y.len && memcmp(back.data, y.data, y.len)))
			abort();
	}
	af_buf_free(&y);
	af_buf_free(&c);
	af_buf_free(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct af_diag d;
	af_diag_init(&d);
	refpack_property(data, n, &d);
	af_diag_free(&d);
	return 0;
}
