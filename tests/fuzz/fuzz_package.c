/* libFuzzer target for Sims 3 packages and RefPack (not built by CMake yet; the codec
 * targets are per codec). Inputs with an odd first byte are a RefPack stream: whatever
 * decompresses must survive our compressor and decompress back identically. Others are
 * a package: open, index.yaml, every Jazz read, and its own YAML committed must leave the
 * package unchanged. Build and run (seed: a copy of a sample package in a corpus folder):
 *   CC=clang cmake -S . -B build-fuzz -DANIMFS_FUZZ=ON -DANIMFS_SANITIZE=ON
 *   cmake --build build-fuzz --target animfs_core
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude tests/fuzz/fuzz_package.c \
 *     build-fuzz/libanimfs_core.a -lz -lyaml -lm -o build-fuzz/fuzz_package
 *   build-fuzz/fuzz_package CORPUS -max_total_time=240 -max_len=100000 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/pkgview.h"
#include "animfs/refpack.h"

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

static void package_property(const uint8_t *data, size_t n, struct af_diag *d)
{
	struct af_pkgview v;
	struct af_buf y = AF_BUF_INIT, img = AF_BUF_INIT;
	if (af_pkgview_open(&v, data, n, d))
		return;
	af_pkgview_index_yaml(&v, "f.package", &y);
	for (size_t k = 0; k < v.nitems; k++) {
		int changed = -1;
		af_buf_reset(&y);
		af_diag_clear(d);
		if (af_pkgview_read(&v, &v.items[k], &y, d))
			continue;
		af_diag_clear(d);
		if (!af_pkgview_commit(&v, &v.items[k], y.data, y.len, &img, &changed, d) && changed)
			abort(); /* its own document must not change the package */
	}
	af_diag_clear(d);
	af_dbpf_rebuild(&v.pkg, NULL, 0, &img, d);
	af_pkgview_close(&v);
	af_buf_free(&y);
	af_buf_free(&img);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct af_diag d;
	af_diag_init(&d);
	if (n && (data[0] & 1))
		refpack_property(data + 1, n - 1, &d);
	else
		package_property(data, n, &d);
	af_diag_free(&d);
	return 0;
}
