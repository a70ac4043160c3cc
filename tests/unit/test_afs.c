/* AFS (spec 7, 9, 11), built by hand: both name-pointer positions, record words that
 * are the size or a copy of the header words, 2048-byte alignment after a size change
 * (the header area keeps its size, the name table moves), null entries, IDX names
 * through the io, and the refusals. */
#include <stdlib.h>

#include "shm_testutil.h"
#include "animfs/pieces.h"
#include "pieces_testutil.h"

extern const struct af_container af_container_afs, af_container_pks, af_container_gzip;

enum { PTR_A, PTR_B, NO_NAMES };

static uint8_t body1[3000], body2[100];

/* count 3 (entry 1 null), members at 0x800 and after, names (or not), words. */
static void t_afs(struct af_buf *b, int ptr, int copy_words)
{
	const uint8_t *body[3] = {body1, NULL, body2};
	uint32_t size[3] = {sizeof(body1), 0, sizeof(body2)}, off[3] = {0};
	af_buf_reset(b);
	af_buf_append(b, "AFS\0", 4);
	af_buf_put_u32le(b, 3);
	af_buf_fill(b, 0, 0x800 - 8);
	for (int i = 0; i < 3; i++) {
		if (!body[i])
			continue;
		off[i] = (uint32_t)b->len;
		af_buf_append(b, body[i], size[i]);
		af_buf_fill(b, 0, (0x800 - b->len % 0x800) % 0x800);
	}
	for (int i = 0; i < 3; i++) {
		af_buf_patch_u32le(b, 8 + 8 * i, off[i]);
		af_buf_patch_u32le(b, 12 + 8 * i, size[i]);
	}
	if (ptr == NO_NAMES)
		return;
	uint32_t names = (uint32_t)b->len;
	for (int i = 0; i < 3; i++) {
		char n[32] = {0};
		snprintf(n, sizeof(n), "FILE%d.BIN", i);
		af_buf_append(b, n, 32);
		for (int k = 0; k < 6; k++)
			af_buf_put_u16le(b, (uint16_t)(2000 + k));
		af_buf_put_u32le(b, copy_words ? af_le32(b->data + 4 + 4 * i) : size[i]);
	}
	af_buf_fill(b, 0, (0x800 - b->len % 0x800) % 0x800);
	size_t at = ptr == PTR_A ? 8 + 8 * 3 : 0x800 - 8;
	af_buf_patch_u32le(b, at, names);
	af_buf_patch_u32le(b, at + 4, 3 * 48);
}

static void open_ok(struct af_archive *a, const struct af_buf *b)
{
	struct af_diag d;
	af_diag_init(&d);
	assert_int_equal(af_archive_open(a, &af_container_afs, b->data, b->len, &d), 0);
	af_diag_free(&d);
}

static void test_variants(void **state)
{
	struct af_buf b = AF_BUF_INIT, idx = AF_BUF_INIT;
	struct af_archive a;
	(void)state;
	for (size_t i = 0; i < sizeof(body1); i++)
		body1[i] = (uint8_t)i;
	memset(body2, 0xAB, sizeof(body2));
	for (int ptr = PTR_A; ptr <= NO_NAMES; ptr++)
		for (int copy = 0; copy < 2; copy++) {
			t_afs(&b, ptr, copy);
			open_ok(&a, &b);
			assert_int_equal(a.n, 2); /* the null entry is no member */
			assert_string_equal(a.m[0].name, ptr == NO_NAMES ? "00000.BIN" : "FILE0.BIN");
			assert_string_equal(a.m[1].name, ptr == NO_NAMES ? "00002.BIN" : "FILE2.BIN");
			af_buf_reset(&idx);
			af_archive_index(&a, "X.AFS", &idx);
			af_buf_putc(&idx, 0);
			if (ptr != NO_NAMES)
				assert_non_null(strstr((char *)idx.data, copy ? "last_word: header-copy"
									       : "last_word: size"));
			assert_non_null(strstr((char *)idx.data, "null_entries: 1"));
			af_archive_close(&a);
			t_rebuilds(&af_container_afs, b.data, b.len);
		}
	af_buf_free(&b);
	af_buf_free(&idx);
}

/* member 0 grows by a sector: member 2 and the name table move by 0x800; the pointer
 * and the record words follow. */
static void test_grow(void **state)
{
	static uint8_t grown[5000];
	struct af_buf b = AF_BUF_INIT, out = AF_BUF_INIT;
	struct af_archive a, c;
	struct af_diag d;
	(void)state;
	af_diag_init(&d);
	for (int ptr = PTR_A; ptr <= PTR_B; ptr++)
		for (int copy = 0; copy < 2; copy++) {
			t_afs(&b, ptr, copy);
			open_ok(&a, &b);
			af_buf_reset(&out);
			assert_int_equal(af_archive_replace(&a, 0, grown, sizeof(grown), &out, &d), 0);
			af_archive_close(&a);
			assert_int_equal(out.len, b.len + 0x800);
			assert_int_equal(out.len % 0x800, 0);
			assert_int_equal(af_le32(out.data + 8), 0x800);
			assert_int_equal(af_le32(out.data + 12), sizeof(grown));
			assert_int_equal(af_le32(out.data + 24), af_le32(b.data + 24) + 0x800);
			assert_memory_equal(out.data + af_le32(out.data + 24), body2, sizeof(body2));
			size_t at = ptr == PTR_A ? 32 : 0x800 - 8;
			uint32_t names = af_le32(out.data + at);
			assert_int_equal(names, af_le32(b.data + at) + 0x800);
			assert_int_equal(af_le32(out.data + names + 0x2C),
					 copy ? 3 : sizeof(grown)); /* word of record 0 */
			assert_int_equal(af_le32(out.data + names + 48 + 0x2C),
					 copy ? 0x800 : 0); /* record 1: header word 2 (offset 0) */
			open_ok(&c, &out);
			assert_string_equal(c.m[1].name, "FILE2.BIN");
			af_archive_close(&c);
		}
	af_buf_free(&b);
	af_buf_free(&out);
	af_diag_free(&d);
}

static void test_refusals(void **state)
{
	struct af_buf b = AF_BUF_INIT, c = AF_BUF_INIT;
	(void)state;
	t_afs(&b, PTR_B, 0);
#define MUTATE(off, val, want, at)                                            \
	do {                                                                  \
		af_buf_reset(&c);                                             \
		af_buf_append(&c, b.data, b.len);                             \
		af_buf_patch_u32le(&c, (off), (val));                         \
		t_refused(&af_container_afs, c.data, c.len, (want), (at));     \
	} while (0)
	MUTATE(4, 0x0FFFFFFF, "AFS: entry count 268435455 cannot fit", 4);
	MUTATE(8, 16, "AFS: entry 0 0x10+0xBB8 outside the file", 8);     /* inside the TOC */
	MUTATE(12, 0xFFFFFFFF, "AFS: entry 0 0x800+0xFFFFFFFF outside", 8); /* 4 GiB */
	MUTATE(24, 0xFFFFF800, "AFS: entry 2 0xFFFFF800+0x64 outside", 24); /* wraps */
	MUTATE(24, 0x900, "overlaps the one at 0x800", 0x900);
	t_refused(&af_container_afs, b.data, 6, "not an AFS", 0);
	for (size_t n = 8; n < 0x800 + 100; n += 97) /* truncations: entries past the end */
		t_refused(&af_container_afs, b.data, n, "", -1);
	/* a pointer that is not valid at either place: no names, not an error */
	af_buf_reset(&c);
	af_buf_append(&c, b.data, b.len);
	af_buf_patch_u32le(&c, 0x800 - 4, 1);
	struct af_archive a;
	open_ok(&a, &c);
	assert_string_equal(a.m[0].name, "00000.BIN");
	af_archive_close(&a);
	t_rebuilds(&af_container_afs, c.data, c.len);
	af_buf_free(&b);
	af_buf_free(&c);
}

/* check() reads the header and the TOC only, and refuses what open refuses there. */
static void test_check(void **state)
{
	struct af_buf b = AF_BUF_INIT;
	struct af_diag d;
	FILE *f = tmpfile();
	(void)state;
	af_diag_init(&d);
	assert_non_null(f);
	t_afs(&b, PTR_A, 0);
	assert_int_equal(fwrite(b.data, 1, b.len, f), b.len);
	fflush(f);
	assert_int_equal(af_container_afs.check(fileno(f), b.len, &d), 0);
	assert_int_not_equal(af_container_afs.check(fileno(f), 0x900, &d), 0); /* cut: past the end */
	assert_non_null(strstr(d.msg, "outside the file"));
	fclose(f);
	af_buf_free(&b);
	af_diag_free(&d);
}

/* fuzz_shenmue: an empty member at the offset of another is no region: it is not
 * given bytes, and an edit of the other keeps the archive valid. */
static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A member whose first bytes pass a MOTN header check is the codec's only when its
 * header's size fits in it (spec 2, rule 5): AFS members have no names, so their bytes
 * alone make the claim, and random bytes (a texture, a sound) pass the header check by
 * chance about once in 768 (cli/archive_sizes met one). */
static void test_member_claim_fits(void **state)
{
	struct af_buf b = AF_BUF_INIT;
	struct af_archive a;
	(void)state;
	static const uint32_t hdr[] = {0x20, 0x30, 0x34, 2}; /* table, names, data, N = 1 */
	memset(body1, 0, sizeof(body1));
	for (int i = 0; i < 4; i++)
		put32(body1 + 4 * i, hdr[i]);
	put32(body1 + 0x24, 0x28); /* the entry's extra offset, inside the table's end */
	static const uint32_t sizes[] = {0x10000, sizeof(body1)};
	for (int k = 0; k < 2; k++) {
		put32(body1 + 0x10, sizes[k]);
		t_afs(&b, NO_NAMES, 0);
		open_ok(&a, &b);
		if (k == 0)
			assert_null(a.m[0].codec); /* size 0x10000 in 3000 bytes: raw */
		else
			assert_string_equal(a.m[0].codec, "shenmue-motn");
		af_archive_close(&a);
	}
	memset(body1, 0, sizeof(body1));
	af_buf_free(&b);
}

static void test_empty_member(void **state)
{
	struct af_buf b = AF_BUF_INIT, out = AF_BUF_INIT;
	struct af_archive a, c;
	struct af_diag d;
	(void)state;
	af_diag_init(&d);
	t_afs(&b, NO_NAMES, 0);
	af_buf_patch_u32le(&b, 16, 0x800); /* entry 1: (0x800, 0) */
	open_ok(&a, &b);
	assert_int_equal(a.n, 3);
	assert_int_equal(af_archive_replace(&a, 1, body2, 10, &out, &d), AF_EUNSUP);
	assert_non_null(strstr(d.msg, "AFS entry 1 is empty"));
	af_diag_clear(&d);
	af_buf_reset(&out);
	static uint8_t big[5000];
	assert_int_equal(af_archive_replace(&a, 0, big, sizeof(big), &out, &d), 0);
	open_ok(&c, &out);
	assert_int_equal(af_le32(out.data + 8), 0x800);
	assert_int_equal(af_le32(out.data + 16), 0x800); /* it stays before its follower */
	af_archive_close(&c);
	t_rebuilds(&af_container_afs, b.data, b.len);
	/* an empty one inside a member's extent overlaps nothing, and stays where it is on a
	 * rebuild (fuzz_shenmue) */
	af_buf_patch_u32le(&b, 16, 0x900);
	af_archive_close(&a);
	open_ok(&a, &b);
	t_rebuilds(&af_container_afs, b.data, b.len);
	/* fuzz_shenmue: an empty one far in the gap after the last member, whose gap
	 * shrinks by more than that distance: it stays at most at the new end */
	af_buf_fill(&b, 0, 0x800);                /* the file ends at 0x2800 */
	af_buf_patch_u32le(&b, 16, 0x2000);       /* entry 1: (0x2000, 0) */
	af_buf_patch_u32le(&b, 24, 0);            /* entry 2: null */
	af_buf_patch_u32le(&b, 28, 0);
	af_archive_close(&a);
	open_ok(&a, &b);
	af_buf_reset(&out);
	assert_int_equal(af_archive_replace(&a, 0, big, 2900, &out, &d), 0);
	assert_int_equal(af_le32(out.data + 16), out.len); /* not below zero, not past the end */
	open_ok(&c, &out);
	af_archive_close(&c);
	/* fuzz_shenmue: an empty one in a long gap before the next region, which shrinks by
	 * more than the distance: it stays after the end of the region before it */
	t_afs(&b, PTR_A, 0);
	af_buf_patch_u32le(&b, 16, 0x1000); /* entry 1 (null) -> (0x1000, 0) */
	af_buf_patch_u32le(&b, 24, 0);      /* entry 2 null: member 0, then a long gap */
	af_buf_patch_u32le(&b, 28, 0);
	af_archive_close(&a);
	open_ok(&a, &b);
	af_buf_reset(&out);
	assert_int_equal(af_archive_replace(&a, 0, big, 100, &out, &d), 0);
	assert_int_equal(af_le32(out.data + 16), 0x800 + 100);
	open_ok(&c, &out);
	af_archive_close(&c);
	af_archive_close(&a);
	af_buf_free(&b);
	af_buf_free(&out);
	af_diag_free(&d);
}

/* HUMANS.IDX beside the AFS names its PKF/PKS pairs; an IDX0 names AFS indices. */
static int idx_read(void *ctx, const char *name, struct af_buf *out)
{
	if (!strcmp(name, "HUMANS.IDX") && !ctx) {
		af_buf_put_u32le(out, 1);
		af_buf_append(out, "00A_", 4);
		return 0;
	}
	if (!strcmp(name, "VOICE.idx") && ctx) { /* the lower-case name is tried too */
		af_buf_append(out, "IDX0", 4);
		af_buf_put_u16le(out, 2);
		af_buf_put_u16le(out, 1);
		af_buf_fill(out, 0, 12);
		af_buf_append(out, "A0001\0\0\0\0\0\0\0", 12);
		af_buf_put_u16le(out, 2); /* names TOC entry 2 */
		af_buf_put_u16le(out, 2);
		af_buf_put_u32le(out, 0);
		return 0;
	}
	return AF_EIO;
}

static void test_idx_names(void **state)
{
	struct af_buf b = AF_BUF_INIT;
	struct af_archive a;
	struct af_io io = {.name = "HUMANS.AFS", .read_sibling = idx_read};
	struct af_diag d;
	(void)state;
	af_diag_init(&d);
	memcpy(body1, "PAKF", 4); /* the extension comes from the content */
	memcpy(body2, "PAKS", 4);
	t_afs(&b, NO_NAMES, 0);
	assert_int_equal(af_archive_open_io(&a, &af_container_afs, b.data, b.len, &io, &d), 0);
	assert_string_equal(a.m[0].name, "00A_.PKF");
	assert_string_equal(a.m[1].name, "00A_.PKS");
	af_archive_close(&a);
	struct af_io voice = {.name = "VOICE.AFS", .read_sibling = idx_read, .ctx = &voice};
	assert_int_equal(af_archive_open_io(&a, &af_container_afs, b.data, b.len, &voice, &d), 0);
	assert_string_equal(a.m[0].name, "00000.PKF"); /* not in the IDX0 */
	assert_string_equal(a.m[1].name, "A0001.PKS");
	af_archive_close(&a);
	af_buf_free(&b);
	af_diag_free(&d);
}

/* af_pieces_write of p from the file f (in a temp file): its bytes. */
/* Opened from a descriptor (only the tables read), a member's save planned as pieces
 * of the file gives the bytes of the save from memory; an edit that fits the member's
 * sector keeps every other byte range where it was (copies at their own offsets), and
 * the new bytes are the head, the member and the name table only. */
static void test_plan(void **state)
{
	static uint8_t fits[3500], grown[5000];
	struct af_buf b = AF_BUF_INIT, want = AF_BUF_INIT, got = AF_BUF_INIT;
	struct af_pieces p = AF_PIECES_INIT;
	struct af_archive a, m;
	struct af_diag d;
	(void)state;
	af_diag_init(&d);
	memset(fits, 0x5C, sizeof(fits));
	for (int ptr = PTR_A; ptr <= NO_NAMES; ptr++) {
		FILE *f = tmpfile();
		t_afs(&b, ptr, 0);
		assert_non_null(f);
		assert_int_equal(fwrite(b.data, 1, b.len, f), b.len);
		fflush(f);
		struct af_src src = {NULL, fileno(f), b.len, 0};
		assert_int_equal(af_archive_open_src(&a, &af_container_afs, &src, NULL, &d), 0);
		open_ok(&m, &b);
		assert_int_equal(a.n, 2);
		assert_string_equal(a.m[1].name, m.m[1].name);
		uint64_t off, len;
		assert_int_equal(af_archive_span(&a, 1, &off, &len), 1); /* where member 2 lies */
		assert_int_equal(off, af_le32(b.data + 24));
		assert_int_equal(len, sizeof(body2));
		assert_null(af_archive_sub(&a, 1)); /* its head claimed by no container */
		for (int big = 0; big < 2; big++) {
			const uint8_t *body = big ? grown : fits;
			size_t n = big ? sizeof(grown) : sizeof(fits);
			af_pieces_reset(&p);
			af_buf_reset(&want);
			assert_int_equal(af_archive_plan(&a, 0, body, n, &p, &d), 0);
			assert_int_equal(af_archive_replace(&m, 0, body, n, &want, &d), 0);
			written_as(&p, &src, &want, &got);
			int moved = pieces_moved(&p);
			assert_int_equal(moved, big); /* what follows moved a sector */
			if (!big) /* head (0x800), the member, the name table */
				assert_int_equal(p.bytes.len, 0x800 + n + (ptr == NO_NAMES ? 0 : 3 * 48));
		}
		af_archive_close(&a);
		af_archive_close(&m);
		fclose(f);
	}
	af_pieces_free(&p);
	af_buf_free(&b);
	af_buf_free(&want);
	af_buf_free(&got);
	af_diag_free(&d);
}

/* An AFS of two members, m0 then body2, the name table after them (pointer after the TOC). */
static void t_afs2(struct af_buf *b, const uint8_t *m0, size_t n0)
{
	uint32_t off[2];
	af_buf_reset(b);
	af_buf_append(b, "AFS\0", 4);
	af_buf_put_u32le(b, 2);
	af_buf_fill(b, 0, 0x800 - 8);
	off[0] = (uint32_t)b->len;
	af_buf_append(b, m0, n0);
	af_buf_fill(b, 0, (0x800 - b->len % 0x800) % 0x800);
	off[1] = (uint32_t)b->len;
	af_buf_append(b, body2, sizeof(body2));
	af_buf_fill(b, 0, (0x800 - b->len % 0x800) % 0x800);
	af_buf_patch_u32le(b, 8, off[0]);
	af_buf_patch_u32le(b, 12, (uint32_t)n0);
	af_buf_patch_u32le(b, 16, off[1]);
	af_buf_patch_u32le(b, 20, sizeof(body2));
	uint32_t names = (uint32_t)b->len;
	for (int i = 0; i < 2; i++) {
		char n[32] = {0};
		snprintf(n, sizeof(n), i ? "FILE%d.BIN" : "INNER.PKS", i);
		af_buf_append(b, n, 32);
		for (int k = 0; k < 6; k++)
			af_buf_put_u16le(b, (uint16_t)(2000 + k));
		af_buf_put_u32le(b, i ? sizeof(body2) : (uint32_t)n0);
	}
	af_buf_fill(b, 0, (0x800 - b->len % 0x800) % 0x800);
	af_buf_patch_u32le(b, 24, names);
	af_buf_patch_u32le(b, 28, 2 * 48);
}

/* AFS > PKS and AFS > gzip > PKS, opened from a descriptor: the PKS is opened from its
 * tables (a window on the AFS file) and a save of its member is planned through both
 * archives: the PKS's kept entries are copies of the AFS file's ranges, the new bytes
 * the heads, the PKS directory, the member and the name table (never the PKS whole);
 * the same bytes as the rebuild in memory, the member's length kept or grown. Through
 * a gzip layer the PKS's plan is deflated (into memory: the AFS needs its length). */
static void test_nested_plan(void **state)
{
	static uint8_t big[200000], small[40];
	static const uint8_t a4[4] = {1, 2, 3, 4};
	struct af_buf ipac = AF_BUF_INIT, pks = AF_BUF_INIT, gz = AF_BUF_INIT, b = AF_BUF_INIT,
		      want = AF_BUF_INIT, got = AF_BUF_INIT;
	struct af_pieces p = AF_PIECES_INIT;
	struct af_diag d;
	uint32_t x = 7;
	(void)state;
	af_diag_init(&d);
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)((x = x * 1103515245u + 12345u) >> 24);
	memset(small, 0x33, sizeof(small));
	const struct tmember m[] = {{"A", "CHRM", a4, 4}, {"BIG", "BIN", big, sizeof(big)}};
	t_ipac(&ipac, m, 2);
	t_pks(&pks, &ipac, 0x12345678, 2);
	t_gzip(&gz, 8, NULL, "INNER.PKS", NULL, pks.data, pks.len);
	for (int layer = 0; layer < 2; layer++) {
		t_afs2(&b, layer ? gz.data : pks.data, layer ? gz.len : pks.len);
		FILE *f = tmpfile();
		assert_non_null(f);
		assert_int_equal(fwrite(b.data, 1, b.len, f), b.len);
		fflush(f);
		struct af_src src = {NULL, fileno(f), b.len, 0};
		struct af_archive a, m2;
		assert_int_equal(af_archive_open_src(&a, &af_container_afs, &src, NULL, &d), 0);
		open_ok(&m2, &b);
		struct af_archive *s = af_archive_sub(&a, 0), *t = af_archive_sub(&m2, 0);
		assert_non_null(s);
		assert_non_null(t);
		s = af_archive_shown(s);
		t = af_archive_shown(t);
		assert_ptr_equal(s->c, &af_container_pks);
		assert_int_equal(s->own.len, 0); /* read from a window, or borrowed: no copy */
		for (int grow = 0; grow < 2; grow++) {
			static const uint8_t b4[4] = {9, 9, 9, 9};
			const uint8_t *body = grow ? small : b4;
			size_t n = grow ? sizeof(small) : 4;
			af_pieces_reset(&p);
			af_buf_reset(&want);
			assert_int_equal(af_archive_plan(s, 0, body, n, &p, &d), 0);
			assert_int_equal(af_archive_replace(t, 0, body, n, &want, &d), 0);
			written_as(&p, &src, &want, &got);
			if (!layer) /* the AFS head, the PKS's header and directory, the member, names */
				assert_true(p.bytes.len < 0x800 + 0x800 + 2 * 48);
		}
		af_archive_close(&a);
		af_archive_close(&m2);
		fclose(f);
	}
	af_pieces_free(&p);
	af_buf_free(&ipac);
	af_buf_free(&pks);
	af_buf_free(&gz);
	af_buf_free(&b);
	af_buf_free(&want);
	af_buf_free(&got);
	af_diag_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_variants),
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_member_claim_fits), cmocka_unit_test(test_empty_member),
		cmocka_unit_test(test_idx_names),
		cmocka_unit_test(test_plan), cmocka_unit_test(test_nested_plan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
