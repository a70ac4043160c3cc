/* TAD/TAC (spec 8), read-only: the index fields and its MurmurHash2 header checksum
 * (computed here independently), members read from the TAC beside it through the io,
 * saves refused with AF_EROFS, and the refusals. */
#include <stdlib.h>

#include "shm_testutil.h"

extern const struct af_container af_container_tad;

static struct af_buf tac;

static uint32_t mm2(const uint8_t *p, size_t len, uint32_t h)
{
	h ^= (uint32_t)len;
	for (; len >= 4; p += 4, len -= 4) {
		uint32_t k = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
		k *= 0x5BD1E995u;
		k ^= k >> 24;
		k *= 0x5BD1E995u;
		h = (h * 0x5BD1E995u) ^ k;
	}
	h ^= h >> 13;
	h *= 0x5BD1E995u;
	return h ^ (h >> 15);
}

static void t_tad(struct af_buf *b)
{
	af_buf_reset(b);
	const uint32_t head[] = {1, 5, 2, 0, 0x5B8DB6AC, 0, 0x31317864 /* dx11 */, 0, 0, 0};
	for (size_t i = 0; i < 10; i++)
		af_buf_put_u32le(b, head[i]);
	af_buf_put_u64le(b, tac.len);
	af_buf_put_u64le(b, 2);
	af_buf_put_u32le(b, 2);
	const uint64_t off[2] = {0, 10}, size[2] = {10, tac.len - 10};
	for (int i = 0; i < 2; i++) {
		af_buf_put_u32le(b, 0x11111111u * (uint32_t)(i + 1));
		af_buf_put_u32le(b, 0x22222222);
		af_buf_put_u32le(b, 0);
		af_buf_put_u32le(b, 0);
		af_buf_put_u64le(b, off[i]);
		af_buf_put_u64le(b, size[i]);
	}
	uint8_t h[0x38];
	memcpy(h, b->data, sizeof(h));
	af_buf_patch_u32le(b, 0x20, mm2(h, sizeof(h), 0x066EE5D0));
}

static int read_tac(void *ctx, const char *name, struct af_buf *out)
{
	(void)ctx;
	if (strcmp(name, "mod.tac"))
		return AF_EIO;
	return af_buf_append(out, tac.data, tac.len) ? AF_ENOMEM : 0;
}

static struct af_io io = {.name = "mod.tad", .read_sibling = read_tac};

static int open_tad(struct af_archive *a, const struct af_buf *b, struct af_diag *d)
{
	return af_archive_open_io(a, &af_container_tad, b->data, b->len, &io, d);
}

static void test_members_checksum_readonly(void **state)
{
	struct af_buf b = AF_BUF_INIT, idx = AF_BUF_INIT, out = AF_BUF_INIT, body = AF_BUF_INIT;
	struct af_archive a;
	struct af_diag d;
	(void)state;
	af_diag_init(&d);
	af_buf_reset(&tac);
	af_buf_append(&tac, "DDS |12345{\"a\": 1}", 18);
	t_tad(&b);
	assert_int_equal(af_container_tad.bid("mod.tad", b.data, 8), 2);
	assert_int_equal(af_container_tad.bid("mod.bin", b.data, 8), 0);
	assert_int_equal(open_tad(&a, &b, &d), 0);
	assert_int_equal(a.n, 2);
	assert_string_equal(a.m[0].name, "00000_11111111.dds");
	assert_string_equal(a.m[1].name, "00001_22222222.json");
	assert_int_equal(af_archive_body(&a, 1, &body, &d), 0);
	assert_memory_equal(body.data, "{\"a\": 1}", 8);
	af_archive_index(&a, "mod.tad", &idx);
	af_buf_putc(&idx, 0);
	assert_non_null(strstr((char *)idx.data, "checksum_ok: true"));
	assert_int_equal(af_archive_replace(&a, 1, body.data, body.len, &out, &d), AF_EROFS);
	assert_non_null(strstr(d.msg, "read-only"));
	assert_int_equal(out.len, 0);
	af_archive_close(&a);
	/* a wrong checksum is listed, not refused */
	af_buf_patch_u32le(&b, 0x20, 1);
	af_diag_clear(&d);
	assert_int_equal(open_tad(&a, &b, &d), 0);
	af_buf_reset(&idx);
	af_archive_index(&a, "mod.tad", &idx);
	af_buf_putc(&idx, 0);
	assert_non_null(strstr((char *)idx.data, "checksum_ok: false"));
	af_archive_close(&a);
	af_buf_free(&b);
	af_buf_free(&idx);
	af_buf_free(&out);
	af_buf_free(&body);
	af_diag_free(&d);
}

static void test_refusals(void **state)
{
	struct af_buf b = AF_BUF_INIT;
	struct af_archive a;
	struct af_diag d;
	(void)state;
	af_diag_init(&d);
	t_tad(&b);
	af_buf_patch_u64le(&b, 0x30, 0x0FFFFFFFFFFFull);
	t_refused(&af_container_tad, b.data, b.len, "TAD: entry count 17592186044415 cannot fit", 0x30);
	t_tad(&b);
	af_buf_patch_u64le(&b, 0x3C + 32 + 0x18, UINT64_MAX); /* a member of 2^64 - 1 bytes */
	t_refused(&af_container_tad, b.data, b.len, "TAD: entry 1 outside the TAC", 0x3C + 32 + 0x10);
	af_buf_patch_u64le(&b, 0x3C + 32 + 0x18, 1);
	af_buf_patch_u64le(&b, 0x3C + 32 + 0x10, UINT64_MAX); /* wraps */
	t_refused(&af_container_tad, b.data, b.len, "TAD: entry 1 outside the TAC", -1);
	t_tad(&b);
	af_buf_patch_u64le(&b, 0x28, tac.len + 1); /* the TAC is shorter than the index says */
	af_buf_patch_u64le(&b, 0x3C + 32 + 0x18, tac.len - 10);
	assert_int_not_equal(open_tad(&a, &b, &d), 0);
	assert_non_null(strstr(d.msg, "the index says"));
	for (size_t n = 0; n < 0x3C + 64; n += 7)
		t_refused(&af_container_tad, b.data, n, "", -1);
	/* fuzz_shenmue: an empty TAC with an empty entry opens (no pointer into nothing) */
	af_buf_reset(&tac);
	t_tad(&b);
	af_buf_patch_u64le(&b, 0x3C + 0x18, 0);
	af_buf_patch_u64le(&b, 0x3C + 32 + 0x10, 0);
	af_buf_patch_u64le(&b, 0x3C + 32 + 0x18, 0);
	af_diag_clear(&d);
	assert_int_equal(open_tad(&a, &b, &d), 0);
	assert_string_equal(a.m[0].name, "00000_11111111.bin");
	af_archive_close(&a);
	af_buf_free(&b);
	af_buf_free(&tac);
	af_diag_free(&d);
}

struct asks {
	int calls, grant;
};

static int room(void *ctx, const char *member, size_t want)
{
	struct asks *k = ctx;
	(void)member;
	(void)want;
	k->calls++;
	return k->grant;
}

/* Issue 47: a TAD's member is read whole from the TAC in memory (no span known before):
 * a member that is itself an archive asks the outermost's room as its bytes grow, so
 * one refused is never read (no allocation at all), and is not asked again. */
static void test_nested_asked_before_read(void **state)
{
	struct af_buf b = AF_BUF_INIT, ipac = AF_BUF_INIT, pks = AF_BUF_INIT;
	struct af_archive a;
	struct af_diag d;
	static uint8_t body[4096];
	const struct tmember m[2] = {{"A", "MOTN", body, sizeof(body)}, {"B", "MOTN", body, 64}};
	(void)state;
	af_diag_init(&d);
	t_ipac(&ipac, m, 2);
	t_pks(&pks, &ipac, 0, 2);
	for (int grant = 0; grant < 2; grant++) {
		struct asks k = {0, grant};
		af_buf_reset(&tac);
		af_buf_fill(&tac, 0, 10);
		af_buf_append(&tac, pks.data, pks.len);
		t_tad(&b);
		af_diag_clear(&d);
		assert_int_equal(open_tad(&a, &b, &d), 0);
		a.nest_room = room;
		a.nest_ctx = &k;
		af_alloc_fail_at(0);
		struct af_archive *s = af_archive_sub(&a, 1);
		unsigned long made = af_alloc_fail_at(0);
		assert_true(k.calls >= 1);
		if (grant) {
			assert_non_null(s);
			assert_int_equal(s->n, 2);
		} else {
			assert_null(s);
			assert_int_equal(made, 0); /* its bytes never copied */
			assert_int_equal(a.probed[1], 1);
			assert_null(af_archive_sub(&a, 1));
			assert_int_equal(k.calls, 1);
		}
		af_archive_close(&a);
	}
	af_buf_free(&b);
	af_buf_free(&ipac);
	af_buf_free(&pks);
	af_buf_free(&tac);
	af_diag_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_members_checksum_readonly),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_nested_asked_before_read),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
