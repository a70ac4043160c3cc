/* libFuzzer target for Sims 3 packages and RefPack (built as fuzz_package with
 * -DANIMFS_FUZZ=ON; `scripts/fuzz SECONDS package` runs it). Inputs with an odd
 * first byte are a RefPack stream: whatever decompresses must survive our compressor
 * and decompress back identically. Others are a package: open, index.yaml, every Jazz
 * read, and its own YAML committed must leave the package unchanged; the first member
 * removed must leave a package that opens with one member less, and its YAML added back
 * under a new name one that holds it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/container.h"
#include "../../src/container/refpack.h"

extern const struct af_container af_container_sims3_package;

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

/* Without member 0 the package opens with one member less; member 0's YAML added as a
 * new member gives a package that holds it. */
static void lose_and_gain(const struct af_archive *a, struct af_diag *d)
{
	struct af_buf y = AF_BUF_INIT, img = AF_BUF_INIT;
	struct af_archive w;
	const char *ext = strrchr(a->m[0].name, '.');
	char name[64];
	af_diag_clear(d);
	if (!af_member_remove(a, 0, &img, d)) {
		if (af_archive_open(&w, a->c, img.data, img.len, d))
			abort();
		if (w.n + 1 != a->n)
			abort();
		af_archive_close(&w);
	}
	af_diag_clear(d);
	snprintf(name, sizeof(name), "fuzz_added%s", ext ? ext : "");
	if (!af_member_yaml(a, 0, &y, d)) {
		af_diag_clear(d);
		if (!af_member_add(a, name, y.data, y.len, &img, d)) {
			if (af_archive_open(&w, a->c, img.data, img.len, d) || af_archive_find(&w, name) < 0)
				abort();
			af_archive_close(&w);
		}
	}
	af_buf_free(&y);
	af_buf_free(&img);
}

static void package_property(const uint8_t *data, size_t n, struct af_diag *d)
{
	struct af_archive a;
	struct af_buf y = AF_BUF_INIT, img = AF_BUF_INIT;
	if (af_archive_open(&a, &af_container_sims3_package, data, n, d))
		return;
	a.c->index_yaml(a.st, "f.package", &y);
	for (size_t k = 0; k < a.n; k++) {
		int changed = -1;
		af_buf_reset(&y);
		af_diag_clear(d);
		if (af_member_yaml(&a, k, &y, d))
			continue;
		af_diag_clear(d);
		if (!af_member_commit(&a, k, y.data, y.len, &img, &changed, d) && changed)
			abort(); /* its own document must not change the package */
	}
	af_diag_clear(d);
	a.c->rebuild(a.st, &img, d);
	if (a.n)
		lose_and_gain(&a, d);
	af_archive_close(&a);
	af_buf_free(&y);
	af_buf_free(&img);
}

/* A commit learns the names it hashed into the user's dictionary: not while fuzzing. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("ANIMFS_NAMES", "", 1);
	return 0;
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
