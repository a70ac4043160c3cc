/* Core pieces: buffer, bounded reader, diag formatting, arena, zlib framing, Adler-32, FNV,
 * the format: lookup, and the atomic file replace. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>
#include <zlib.h>
#include <cmocka.h>

#include "animfs/arena.h"
#include "animfs/bytes.h"
#include "animfs/codec.h"
#include "animfs/fileio.h"
#include "animfs/fnv.h"
#include "animfs/num.h"
#include "animfs/zframe.h"

static void test_buf(void **state)
{
	(void)state;
	struct af_buf b = AF_BUF_INIT;
	assert_int_equal(af_buf_fill(&b, 0, 0), 0); /* fuzz_shenmue: no offset on a NULL buffer */
	assert_int_equal(b.len, 0);
	af_buf_put_u16le(&b, 0x1234);
	af_buf_put_u32le(&b, 0x0883CC85u);
	af_buf_put_u64le(&b, 0x0102030405060708ull);
	af_buf_put_f32le(&b, 1.0f);
	af_buf_align(&b, 8);
	assert_int_equal(b.len, 24);
	static const uint8_t want[] = { 0x34, 0x12, 0x85, 0xCC, 0x83, 0x08, 8, 7, 6, 5, 4, 3, 2, 1,
					0, 0, 0x80, 0x3F, 0, 0, 0, 0, 0, 0 };
	assert_memory_equal(b.data, want, 24);
	af_buf_patch_u32le(&b, 2, 0xAABBCCDDu);
	assert_int_equal(af_le32(b.data + 2), 0xAABBCCDDu);
	af_buf_patch_u32le(&b, 22, 1); /* out of range: ignored */
	af_buf_printf(&b, "%s-%d", "x", 42);
	assert_memory_equal(b.data + 24, "x-42", 4);
	for (int i = 0; i < 1000; i++)
		af_buf_printf(&b, "%0300d", i);
	assert_int_equal(b.len, 28 + 300000);
	af_buf_free(&b);
}

/* A lender that grants at most 8 MiB over the bound in all, and counts the asks. */
static size_t granted_at_most(void *ctx, size_t want)
{
	unsigned *asks = ctx;
	(*asks)++;
	return want < ((size_t)8 << 20) ? want : (size_t)8 << 20;
}

/* A bound on a buffer: growth within max, then what more grants (asked in powers of two
 * from 64 KiB, then 8 MiB steps), then refused with over set; a hint never passes the
 * bound nor fails the buffer. */
static void test_buf_bound(void **state)
{
	(void)state;
	unsigned asks = 0;
	struct af_buf_bound bd = {4096, NULL, NULL, 0, 0};
	struct af_buf b = AF_BUF_INIT;
	b.bound = &bd;
	af_buf_hint(&b, 1 << 20);
	assert_int_equal(b.cap, 4096); /* clamped to the bound */
	assert_int_equal(af_buf_fill(&b, 'a', 4096), 0);
	assert_int_equal(b.failed, 0);
	assert_int_equal(af_buf_putc(&b, 'b'), AF_ENOMEM); /* no lender: refused */
	assert_int_equal(b.failed, 1);
	assert_int_equal(b.over, 1);
	af_buf_free(&b);
	assert_null(b.bound);

	bd = (struct af_buf_bound){4096, granted_at_most, &asks, 0, 0};
	b.bound = &bd;
	assert_int_equal(af_buf_fill(&b, 'a', 4096 + 1), 0); /* a byte past max: 64 KiB asked */
	assert_int_equal(asks, 1);
	assert_int_equal(bd.granted, (size_t)64 << 10);
	assert_int_equal(af_buf_fill(&b, 'a', ((size_t)8 << 20) - 1), 0); /* 8 MiB past: asked */
	assert_int_equal(asks, 2);
	assert_int_equal(bd.granted, (size_t)8 << 20);
	assert_int_equal(b.len, 4096 + ((size_t)8 << 20));
	assert_true(b.cap <= 4096 + ((size_t)8 << 20)); /* never allocated past it */
	assert_int_equal(af_buf_putc(&b, 'b'), AF_ENOMEM); /* the lender is out */
	assert_int_equal(asks, 3);
	assert_int_equal(b.over, 1);
	af_buf_free(&b);

	/* growth asks in powers of two (a small text asks little), a guess asks too when
	 * the bound says so (hint_asks), and is then made room for at once */
	asks = 0;
	bd = (struct af_buf_bound){0, granted_at_most, &asks, 0, 1};
	b.bound = &bd;
	assert_int_equal(af_buf_fill(&b, 'a', 100), 0);
	assert_int_equal(bd.granted, (size_t)64 << 10);
	assert_int_equal(af_buf_fill(&b, 'a', 70000), 0);
	assert_int_equal(bd.granted, (size_t)128 << 10);
	af_buf_hint(&b, (size_t)3 << 20);
	assert_int_equal(asks, 3);
	assert_int_equal(bd.granted, (size_t)4 << 20);
	assert_int_equal(b.cap, 70100 + ((size_t)3 << 20));
	af_buf_free(&b);
}

/* Warm blocks: off until the daemon's heap policy; then a freed block of 256 KiB-2 MiB
 * is kept (4 MiB in all) and handed to the next ask it fits (at most twice the ask),
 * an af_buf's first unbounded block among them; larger, smaller and bounded ones are
 * not kept; and an af_buf's block of fresh pages is made ready ahead of its writer a
 * step at a time (af_buf_ready). (Last of the tests: the policy stays for the process.) */
static void test_warm_blocks(void **state)
{
	(void)state;
	size_t got;
	uint8_t *a = af_alloc_warm(300 << 10, &got);
	assert_non_null(a);
	assert_int_equal(got, 300 << 10);
	af_free_warm(a, got); /* off: freed */
	/* before the daemon's policy the whole room is ready to be written */
	struct af_buf r = AF_BUF_INIT;
	af_buf_hint(&r, (size_t)1 << 20);
	assert_int_equal(af_buf_ready(&r), 0); /* a writer asks reserve first */
	assert_int_equal(af_buf_reserve(&r, 100), 0);
	assert_int_equal(af_buf_ready(&r), r.cap);
	af_buf_free(&r);
	af_heap_policy(AF_HEAP_DAEMON);
	a = af_alloc_warm(300 << 10, &got);
	assert_non_null(a);
	af_free_warm(a, got);
	uint8_t *b = af_alloc_warm(100 << 10, &got); /* a is more than twice that: not a */
	assert_int_equal(got, 100 << 10);
	af_free_warm(b, got);
	b = af_alloc_warm(280 << 10, &got); /* a, whole */
	assert_int_equal(got, 300 << 10);
	af_free_warm(b, got);
	/* an af_buf's first block past 256 KiB may be that block, and goes back to it */
	struct af_buf buf = AF_BUF_INIT;
	assert_int_equal(af_buf_reserve(&buf, 250 << 10), 0); /* room: 256 KiB, asked warm */
	assert_int_equal(buf.cap, 300 << 10);
	af_buf_free(&buf);
	b = af_alloc_warm(290 << 10, &got);
	assert_int_equal(got, 300 << 10);
	af_free_warm(b, got);
	/* not kept: past 2 MiB, or past the 4 MiB in all (300 KiB + one of 2 MiB) */
	uint8_t *big = af_alloc_warm(3 << 20, &got);
	af_free_warm(big, got);
	uint8_t *c[3];
	size_t cg[3];
	for (int i = 0; i < 3; i++)
		c[i] = af_alloc_warm(2 << 20, &cg[i]);
	for (int i = 0; i < 3; i++)
		af_free_warm(c[i], cg[i]);
	int kept = 0;
	for (int i = 0; i < 3; i++) { /* 1.5 MiB asks: a kept 2 MiB block fits them */
		c[i] = af_alloc_warm(3 << 19, &cg[i]);
		kept += cg[i] == (size_t)2 << 20;
	}
	assert_int_equal(kept, 1);
	for (int i = 0; i < 3; i++)
		af_free_warm(c[i], cg[i]);
	/* then a block of fresh pages is made ready 32 KiB past what is asked at a time, and
	 * a writer writing in place within it and asking again gets the rest, to the end */
	af_buf_hint(&r, (size_t)1 << 20);
	assert_int_equal(af_buf_reserve(&r, 100), 0);
	size_t ready = af_buf_ready(&r);
	assert_true(ready >= 100 && ready <= 100 + (32 << 10));
	while (r.len < r.cap) {
		size_t n = af_buf_ready(&r) < 1000 ? af_buf_ready(&r) : 1000;
		if (!n) {
			assert_int_equal(af_buf_reserve(&r, r.cap - r.len < 64 ? r.cap - r.len : 64), 0);
			continue;
		}
		assert_true(r.len + n <= r.cap);
		memset(r.data + r.len, 'y', n);
		r.len += n;
	}
	assert_int_equal(r.len, (size_t)1 << 20);
	assert_int_equal(af_buf_ready(&r), 0);
	assert_int_equal(af_buf_append(&r, "z", 1), 0); /* grown: ready again past it */
	assert_true(af_buf_ready(&r) > 0 && af_buf_ready(&r) <= r.cap - r.len);
	r.ready = r.cap + 1; /* a stale mark (a block taken over) is no room */
	assert_int_equal(af_buf_ready(&r), 0);
	af_buf_free(&r);
	/* a small block is the heap's: all of it ready */
	assert_int_equal(af_buf_reserve(&r, 1000), 0);
	assert_int_equal(af_buf_ready(&r), r.cap - r.len);
	af_buf_free(&r);
}

static void test_grow_and_hex(void **state)
{
	(void)state;
	size_t cap = 0;
	int *a = NULL;
	for (size_t i = 0; i < 1000; i++) {
		int *g = af_grow(a, &cap, i, sizeof(*a), 4);
		assert_non_null(g);
		a = g;
		a[i] = (int)i;
		assert_true(cap > i);
	}
	for (size_t i = 0; i < 1000; i++)
		assert_int_equal(a[i], (int)i);
	assert_int_equal(cap, 1024);
	/* a capacity whose doubling overflows the byte size: NULL, array kept */
	size_t huge = SIZE_MAX / 8;
	assert_null(af_grow(a, &huge, huge, 8, 4));
	assert_true(huge == SIZE_MAX / 8);
	free(a);
	assert_int_equal(af_hex_digit('0'), 0);
	assert_int_equal(af_hex_digit('9'), 9);
	assert_int_equal(af_hex_digit('a'), 10);
	assert_int_equal(af_hex_digit('F'), 15);
	assert_int_equal(af_hex_digit('g'), -1);
	assert_int_equal(af_hex_digit(' '), -1);
}

static void test_reader(void **state)
{
	(void)state;
	static const uint8_t data[] = { 1, 0, 2, 0, 0, 0, 'h', 'i', 0, 'x' };
	struct af_diag d;
	struct af_rd r;
	uint16_t a;
	uint32_t b, c;
	const char *s;
	size_t len;
	char msg[256];
	af_diag_init(&d);
	af_rd_init(&r, data, sizeof(data), &d);
	assert_int_equal(af_rd_u16(&r, &a), 0);
	assert_int_equal(a, 1);
	assert_int_equal(af_rd_u32(&r, &b), 0);
	assert_int_equal(b, 2);
	assert_int_equal(af_rd_cstr(&r, 6, &s, &len, "name"), 0);
	assert_int_equal(len, 2);
	assert_int_equal(af_rd_u32(&r, &c), 0);
	assert_int_equal(af_rd_u32(&r, &c), AF_EINVAL);
	af_diag_format(&d, "f", msg, sizeof(msg));
	assert_string_equal(msg, "f: byte 0xa: unexpected end of data (4 bytes wanted, 0 remain)");
	af_diag_clear(&d);
	assert_int_equal(af_rd_cstr(&r, 9, &s, &len, "name"), AF_EINVAL);
	assert_non_null(strstr(d.msg, "not terminated"));
	af_diag_clear(&d);
	assert_int_equal(af_rd_need(&r, 4, 4000000, 8, "track 3 keys"), AF_EINVAL);
	af_diag_format(&d, "walk.animation", msg, sizeof(msg));
	assert_string_equal(msg, "walk.animation: byte 0x4: track 3 keys claims 4000000 entries of 8 bytes, 6 bytes remain");
	af_diag_clear(&d);
	/* overflow of count*size must not wrap */
	assert_int_equal(af_rd_need(&r, 0, UINT64_MAX / 2, 4, "x"), AF_EINVAL);
	af_diag_clear(&d);
	assert_int_equal(af_rd_need(&r, 11, 0, 4, "x"), AF_EINVAL);
	assert_true(af_fits(4, 6, 10));
	assert_false(af_fits(4, 7, 10));
	assert_false(af_fits(UINT64_MAX, 2, UINT64_MAX));
	af_diag_free(&d);
}

/* Strings take no alignment and no zeroing; every af_arena_alloc after them is
 * still max_align_t-aligned and zeroed, within and across blocks of all sizes. */
static void test_arena_mixed(void **state)
{
	(void)state;
	struct af_arena a;
	char *strs[3000];
	af_arena_init(&a);
	for (int i = 0; i < 3000; i++) {
		char t[40];
		int n = snprintf(t, sizeof(t), "s%d", i * 7919);
		strs[i] = af_arena_strndup(&a, t, (size_t)n);
		size_t sz = (size_t)(i % 7) * 13 + (i % 500 == 0 ? 300000 : 1);
		unsigned char *p = af_arena_alloc(&a, sz);
		assert_non_null(p);
		assert_int_equal((uintptr_t)p % alignof(max_align_t), 0);
		for (size_t k = 0; k < sz; k++)
			assert_int_equal(p[k], 0);
		memset(p, 0xAB, sz);
	}
	for (int i = 0; i < 3000; i++) {
		char t[40];
		snprintf(t, sizeof(t), "s%d", i * 7919);
		assert_string_equal(strs[i], t);
	}
	af_arena_free(&a);
}

static void test_arena(void **state)
{
	(void)state;
	struct af_arena a;
	af_arena_init(&a);
	for (int i = 0; i < 10000; i++) {
		uint64_t *p = af_arena_alloc(&a, 24);
		assert_non_null(p);
		assert_true(((uintptr_t)p & 7) == 0);
		assert_true(p[0] == 0 && p[2] == 0);
		p[2] = (uint64_t)i;
	}
	assert_non_null(af_arena_alloc(&a, 10 * 1024 * 1024));
	assert_null(af_arena_array(&a, SIZE_MAX / 2, 4));
	char *s = af_arena_strndup(&a, "hello", 3);
	assert_string_equal(s, "hel");
	af_arena_free(&a);
	a.limit = 1000;
	assert_null(af_arena_alloc(&a, 2000));
	af_arena_free(&a);
}

static void test_zframe(void **state)
{
	(void)state;
	struct af_buf src = AF_BUF_INIT, z = AF_BUF_INIT, back = AF_BUF_INIT;
	struct af_diag d;
	size_t used = 0;
	af_diag_init(&d);
	for (int i = 0; i < 20000; i++)
		af_buf_put_u32le(&src, (uint32_t)(i % 97));
	assert_int_equal(af_zframe_deflate(src.data, src.len, 6, &z, &d), 0);
	/* same bytes as compress2 at level 6 */
	uLongf n = compressBound((uLong)src.len);
	uint8_t *ref = malloc(n);
	compress2(ref, &n, src.data, (uLong)src.len, 6);
	assert_int_equal(n, z.len);
	assert_memory_equal(ref, z.data, n);
	free(ref);
	af_buf_put_u32le(&z, 0xDEADBEEF); /* a trailer after the stream */
	assert_int_equal(af_zframe_inflate(z.data, z.len, src.len, &back, &used, &d), 0);
	assert_int_equal(used, z.len - 4);
	assert_int_equal(back.len, src.len);
	assert_memory_equal(back.data, src.data, src.len);
	/* bounded: the stream inflates to more than allowed */
	af_buf_reset(&back);
	assert_int_equal(af_zframe_inflate(z.data, z.len, 1000, &back, &used, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "more than the 1000 bytes"));
	af_diag_clear(&d);
	/* truncated */
	af_buf_reset(&back);
	assert_int_equal(af_zframe_inflate(z.data, z.len / 2, src.len, &back, &used, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "truncated"));
	af_diag_clear(&d);
	/* the Adler-32 trailer (animfs compares it, not zlib): one bit off is refused
	 * with zlib's words, at the end of the stream; output appended to a buffer that
	 * holds bytes already is checked on its own bytes */
	size_t tr = z.len - 4 - 4;
	z.data[tr + 3] ^= 0x01;
	af_buf_reset(&back);
	assert_int_equal(af_zframe_inflate(z.data, z.len, src.len, &back, &used, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "incorrect data check"));
	assert_int_equal(d.offset, (long long)(z.len - 4));
	af_diag_clear(&d);
	z.data[tr + 3] ^= 0x01;
	af_buf_reset(&back);
	af_buf_append(&back, "prefix", 6);
	assert_int_equal(af_zframe_inflate(z.data, z.len, src.len + 6, &back, &used, &d), 0);
	assert_int_equal(back.len, src.len + 6);
	assert_memory_equal(back.data + 6, src.data, src.len);
	/* corrupt */
	z.data[10] ^= 0xFF;
	z.data[11] ^= 0x55;
	af_buf_reset(&back);
	int rc = af_zframe_inflate(z.data, z.len, src.len, &back, &used, &d);
	if (rc == 0) /* flipping bits may leave a valid stream; then the Adler check still fails */
		fail_msg("corrupt stream accepted");
	af_buf_free(&src);
	af_buf_free(&z);
	af_buf_free(&back);
	af_diag_free(&d);
}

/* af_adler32 gives zlib's adler32 values: every length up to past two of its 16-byte
 * runs' reductions, every alignment, continued from other values, all-0xFF bytes (the
 * largest sums) */
static void test_adler32(void **state)
{
	(void)state;
	enum { N = 3 * 5552 + 40 };
	uint8_t *p = malloc(N + 16);
	assert_non_null(p);
	uint32_t x = 12345;
	for (size_t i = 0; i < N + 16; i++)
		p[i] = (uint8_t)((x = x * 1103515245u + 12345u) >> 24);
	for (int ff = 0; ff < 2; ff++) {
		if (ff)
			memset(p, 0xFF, N + 16);
		for (size_t n = 0; n <= N; n += n < 64 ? 1 : 37) {
			for (size_t off = 0; off < 16; off += n < 64 ? 1 : 5) {
				uint32_t want = (uint32_t)adler32(1, p + off, (uInt)n);
				assert_int_equal(af_adler32(1, p + off, n), want);
			}
			uint32_t start = (uint32_t)adler32(1, p + 3, 17);
			assert_int_equal(af_adler32(start, p, n), (uint32_t)adler32(start, p, (uInt)n));
		}
		uint32_t big = 0xFFF0FFF0u; /* a = b = 65520, the largest state */
		assert_int_equal(af_adler32(big, p, N), (uint32_t)adler32(big, p, N));
	}
	free(p);
}

static void test_fnv(void **state)
{
	(void)state;
	assert_int_equal(af_fnv1_32("", 0), 0x811C9DC5u);
	assert_true(af_fnv1_64("", 0) == 0xCBF29CE484222325ull);
	/* FNV-1 (not 1a) of "a": (basis * prime) ^ 'a' */
	assert_int_equal(af_fnv1_32("a", 1), 0x050C5D7Eu);
	assert_true(af_fnv1_64("a", 1) == 0xAF63BD4C8601B7BEull);
	assert_int_equal(af_fnv1_32_lower("Enter", 5), af_fnv1_32("enter", 5));
	assert_true(af_fnv1_64_lower("upperBodyToddler", 16) == 0xDE261A2810D32791ull);
}

static void test_format_lookup(void **state)
{
	(void)state;
	struct af_diag d;
	af_diag_init(&d);
	const char *t = "# comment\nformat: no-such-format\n";
	assert_null(af_codec_for_yaml((const uint8_t *)t, strlen(t), &d));
	assert_int_equal(d.line, 2);
	assert_non_null(strstr(d.msg, "unknown format 'no-such-format'"));
	af_diag_clear(&d);
	t = "a: 1\n  format: x\n";
	assert_null(af_codec_for_yaml((const uint8_t *)t, strlen(t), &d));
	assert_non_null(strstr(d.msg, "no top-level 'format:'"));
	for (size_t i = 0; af_codecs[i]; i++) {
		char doc[128];
		snprintf(doc, sizeof(doc), "# x\nformat: \"%s\"\n", af_codecs[i]->name);
		assert_ptr_equal(af_codec_for_yaml((const uint8_t *)doc, strlen(doc), &d), af_codecs[i]);
		assert_ptr_equal(af_codec_by_name(af_codecs[i]->name), af_codecs[i]);
		assert_non_null(af_codecs[i]->bid);
		assert_non_null(af_codecs[i]->to_yaml);
		assert_non_null(af_codecs[i]->from_yaml);
		/* bidding on nothing never crashes and claims nothing */
		assert_int_equal(af_codecs[i]->bid("", (const uint8_t *)"", 0), 0);
	}
	af_diag_free(&d);
}

static void test_replace(void **state)
{
	(void)state;
	char dir[] = "/tmp/animfs-test-XXXXXX";
	assert_non_null(mkdtemp(dir));
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	struct af_diag d;
	struct af_buf b = AF_BUF_INIT;
	af_diag_init(&d);
	assert_int_equal(af_replace_file_at(dfd, "f.bin", "abc", 3, 0600, &d), 0);
	assert_int_equal(fchmodat(dfd, "f.bin", 0640, 0), 0);
	assert_int_equal(af_replace_file_at(dfd, "f.bin", "hello", 5, 0600, &d), 0);
	assert_int_equal(af_read_file_at(dfd, "f.bin", 100, &b, &d), 0);
	assert_int_equal(b.len, 5);
	assert_memory_equal(b.data, "hello", 5);
	struct stat st;
	assert_int_equal(fstatat(dfd, "f.bin", &st, 0), 0);
	assert_int_equal(st.st_mode & 0777, 0640); /* mode kept */
	af_buf_reset(&b);
	assert_int_equal(af_read_file_at(dfd, "f.bin", 3, &b, &d), AF_EINVAL);
	af_diag_clear(&d);
	/* into a folder that does not exist: error, nothing left behind */
	assert_int_equal(af_replace_file_at(dfd, "nodir/f.bin", "x", 1, 0600, &d), AF_EIO);
	DIR *dp = fdopendir(dup(dfd));
	struct dirent *e;
	int n = 0;
	while ((e = readdir(dp)))
		if (e->d_name[0] != '.')
			n++;
	closedir(dp);
	assert_int_equal(n, 1);
	unlinkat(dfd, "f.bin", 0);
	close(dfd);
	rmdir(dir);
	af_buf_free(&b);
	af_diag_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buf),    cmocka_unit_test(test_buf_bound),
		cmocka_unit_test(test_grow_and_hex),
		cmocka_unit_test(test_reader),
		cmocka_unit_test(test_arena),  cmocka_unit_test(test_arena_mixed),  cmocka_unit_test(test_zframe),
		cmocka_unit_test(test_adler32),
		cmocka_unit_test(test_fnv),    cmocka_unit_test(test_format_lookup),
		cmocka_unit_test(test_replace),
		cmocka_unit_test(test_warm_blocks), /* last: it sets the daemon's heap policy */
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
