/* libFuzzer target for the Shenmue containers (built as fuzz_shenmue with
 * -DANIMFS_FUZZ=ON; `scripts/fuzz SECONDS shenmue-pks` runs it). ANIMFS_FUZZ_CODEC names
 * the container: gzip, shenmue-pks, shenmue-ipac, shenmue-pkf, afs or shenmue-tad (the
 * input is the TAD, as long as its header's entry count says, then its TAC). Properties: whatever opens lists its members, reads
 * each, writes its index, rebuilds to exactly the input, and nested archives do the
 * same; a member replaced by bytes of another size (the relayout writer, spec 9.1) gives
 * an archive that opens again with every other member byte-identical, and a
 * canonical-32 IPAC stays canonical-32. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/container.h"
#include "../../src/container/ipac.h"

extern const struct af_container af_container_gzip, af_container_pks, af_container_ipac,
	af_container_pkf, af_container_afs, af_container_tad;

static const struct af_container *target;
static const struct af_container *const all[] = {&af_container_gzip, &af_container_pks,
						 &af_container_ipac, &af_container_pkf,
						 &af_container_afs,  &af_container_tad};

static int ours(const struct af_container *c)
{
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i] == c)
			return 1;
	return 0;
}
static const uint8_t *tac;
static size_t tac_len;

static int read_tac(void *ctx, const char *name, struct af_buf *out)
{
	(void)ctx;
	(void)name;
	return af_buf_append(out, tac, tac_len) ? AF_ENOMEM : 0;
}

static const struct af_io tac_io = {.name = "f.tad", .read_sibling = read_tac};

static void same_members(const struct af_archive *a, const struct af_archive *b, size_t skip)
{
	struct af_buf x = AF_BUF_INIT, y = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	if (a->n != b->n)
		abort();
	for (size_t k = 0; k < a->n; k++) {
		if (k == skip)
			continue;
		af_buf_reset(&x);
		af_buf_reset(&y);
		if (af_archive_body(a, k, &x, &d) || af_archive_body(b, k, &y, &d) || x.len != y.len ||
		    (x.len && memcmp(x.data, y.data, x.len)))
			abort();
	}
	af_buf_free(&x);
	af_buf_free(&y);
	af_diag_free(&d);
}

/* Member k of a (a's own container: the top archive) replaced by n bytes. */
static void relayout(struct af_archive *a, size_t k, const uint8_t *data, size_t n)
{
	struct af_buf img = AF_BUF_INIT, body = AF_BUF_INIT;
	struct af_archive b;
	struct af_diag d;
	af_diag_init(&d);
	size_t len = n ? data[0] * 37u % (n + 64) : 0;
	if (af_buf_fill(&body, 0x5A, len) || af_archive_replace(a, k, body.data, len, &img, &d))
		goto out;
	af_diag_clear(&d);
	if (af_archive_open_io(&b, a->c, img.data, img.len, &tac_io, &d))
		abort(); /* what we write must open again */
	same_members(a, &b, k);
	if (a->c == &af_container_ipac) {
		const struct ipac_view *va = a->st, *vb = b.st;
		if (!strcmp(ipac_layout(&va->blk), "canonical-32") &&
		    strcmp(ipac_layout(&vb->blk), "canonical-32"))
			abort();
	}
	af_archive_close(&b);
out:
	af_buf_free(&img);
	af_buf_free(&body);
	af_diag_free(&d);
}

static void walk(struct af_archive *a, const uint8_t *bytes, size_t n)
{
	struct af_buf out = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	af_archive_index(a, "f", &out);
	for (size_t k = 0; k < a->n; k++) {
		af_buf_reset(&out);
		af_archive_body(a, k, &out, &d);
		struct af_archive *s = af_archive_sub(a, k);
		if (s)
			walk(s, out.data, out.len);
	}
	af_buf_reset(&out);
	af_diag_clear(&d);
	/* a rebuild without edits is the input (a nested Sims 3 package: not ours to judge) */
	if (ours(a->c) && !a->c->rebuild(a->st, &out, &d) &&
	    (out.len != n || (n && memcmp(out.data, bytes, n))))
		abort();
	af_buf_free(&out);
	af_diag_free(&d);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *want = getenv("ANIMFS_FUZZ_CODEC");
	(void)argc;
	(void)argv;
	setenv("ANIMFS_NAMES", "", 1);
	for (size_t i = 0; want && i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(all[i]->name, want))
			target = all[i];
	if (!target) {
		fprintf(stderr, "set ANIMFS_FUZZ_CODEC to a Shenmue container's name\n");
		exit(2);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct af_archive a;
	struct af_diag d;
	size_t len = n;
	if (target == &af_container_tad && n >= 0x3C) { /* the TAD, then its TAC */
		uint64_t want = 0x3C + 32ull * (data[0x38] | data[0x39] << 8 | data[0x3A] << 16 |
					       (uint32_t)data[0x3B] << 24);
		len = want < n ? (size_t)want : n;
		tac = data + len;
		tac_len = n - len;
	}
	af_diag_init(&d);
	if (!af_archive_open_io(&a, target, data, len, &tac_io, &d)) {
		walk(&a, data, len);
		if (a.n && target->replace)
			relayout(&a, (size_t)(len ? data[len - 1] : 0) % a.n, data, len);
		af_archive_close(&a);
	}
	af_diag_free(&d);
	return 0;
}
