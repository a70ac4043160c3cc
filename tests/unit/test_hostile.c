/* Hostile inputs built in memory (no samples): lying zlib trailers, deflate bombs,
 * counts and offsets that wrap, point outside or at themselves, and YAML meant to
 * exhaust memory or time. Each must end in a clear error within time and memory
 * bounds; what decodes must still re-encode to the same bytes (fuzz property). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <cmocka.h>
#include <zlib.h>

#include "animfs/codec.h"
#include "../../src/container/dbpf.h"
#include "../../src/container/refpack.h"
#include "animfs/fileio.h"
#include "animfs/yamlio.h"
#include "animfs/zframe.h"
#include "../fuzz/fuzz_props.h"

static const struct af_io io = { .name = "hostile.bin" };

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long maxrss_mb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024;
}

static const struct af_codec *codec(const char *name)
{
	const struct af_codec *c = af_codec_by_name(name);
	assert_non_null(c);
	return c;
}

/* Decode bin with the codec; return the diag code, message in d. */
static int decode(const char *name, const uint8_t *bin, size_t n, struct af_diag *d)
{
	struct af_buf y = AF_BUF_INIT;
	af_diag_init(d);
	int rc = codec(name)->to_yaml(bin, n, &io, &y, d);
	af_buf_free(&y);
	return rc;
}

static int encode(const char *name, const char *yaml, size_t n, struct af_buf *out,
		  struct af_diag *d)
{
	af_diag_init(d);
	return codec(name)->from_yaml((const uint8_t *)yaml, n, &io, out, d);
}

/* zlib stream of in[0..n) followed by a little-endian size trailer. */
static void diesel_wrap(const uint8_t *in, size_t n, uint32_t trailer, struct af_buf *out)
{
	uLongf cap = compressBound((uLong)n);
	assert_int_equal(af_buf_reserve(out, cap + 4), 0);
	assert_int_equal(compress2(out->data, &cap, in, (uLong)n, 6), Z_OK);
	out->len = cap;
	af_buf_put_u32le(out, trailer);
}

static void expect_error(const char *name, const struct af_buf *bin, const char *text,
			 double max_s, long max_rss_growth_mb)
{
	struct af_diag d;
	long rss0 = maxrss_mb();
	double t0 = now();
	int rc = decode(name, bin->data, bin->len, &d);
	double dt = now() - t0;
	long grew = maxrss_mb() - rss0;
	if (rc == 0 || !strstr(d.msg, text))
		fail_msg("%s: expected an error containing '%s', got %d '%s'", name, text, rc, d.msg);
	if (dt > max_s)
		fail_msg("%s: '%s' took %.2f s (bound %.1f s)", name, text, dt, max_s);
	if (grew > max_rss_growth_mb)
		fail_msg("%s: '%s' grew the RSS by %ld MiB (bound %ld)", name, text, grew,
			 max_rss_growth_mb);
	af_diag_free(&d);
}

static void diesel_trailer_4gib(void **state)
{
	(void)state;
	struct af_buf b = AF_BUF_INIT;
	diesel_wrap((const uint8_t *)"hello", 5, 0xFFFFFFFFu, &b);
	expect_error("diesel-animation", &b, "size trailer claims 4294967295 bytes", 0.5, 8);
	struct af_diag d;
	decode("diesel-animation", b.data, b.len, &d);
	assert_int_equal(d.offset, (int64_t)b.len - 4); /* the error names the trailer */
	af_diag_free(&d);
	/* within the 256 MiB cap, but more than 13 bytes of deflate can hold */
	b.len -= 4;
	af_buf_put_u32le(&b, 200u << 20);
	expect_error("diesel-animation", &b, "cannot inflate to more than", 0.5, 8);
	af_buf_free(&b);
}

/* 64 MiB of zeros deflate to ~64 KiB: inflating stops at what the trailer says. */
static void diesel_deflate_bomb(void **state)
{
	(void)state;
	size_t big = (size_t)64 << 20;
	uint8_t *zeros = calloc(1, big);
	struct af_buf b = AF_BUF_INIT;
	assert_non_null(zeros);
	diesel_wrap(zeros, big, 1u << 20, &b);
	free(zeros);
	expect_error("diesel-animation", &b, "inflates to more than the 1048576 bytes", 2.0, 16);
	/* an honest trailer for the bomb: inflated (64 MiB, bounded), then refused */
	b.len -= 4;
	af_buf_put_u32le(&b, (uint32_t)big);
	struct af_diag d;
	double t0 = now();
	assert_int_not_equal(decode("diesel-animation", b.data, b.len, &d), 0);
	assert_true(now() - t0 < 10.0);
	af_diag_free(&d);
	/* a stream that never ends: incompressible bytes, cut short */
	uint8_t noise[4000];
	uint32_t x = 1;
	for (size_t i = 0; i < sizeof(noise); i++)
		noise[i] = (uint8_t)((x = x * 1103515245u + 12345u) >> 24);
	b.len = 0;
	diesel_wrap(noise, sizeof(noise), sizeof(noise), &b);
	b.len = 100;
	af_buf_put_u32le(&b, sizeof(noise));
	expect_error("diesel-animation", &b, "truncated", 0.5, 8);
	af_buf_free(&b);
}

/* Sims 3 packages: a RefPack header claiming 4 GiB, and DBPF indexes whose count,
 * size and offset wrap or point outside the file. */
static void package_lies(void **state)
{
	(void)state;
	static const uint8_t rp[] = { 0x90, 0xFB, 0xFF, 0xFF, 0xFF, 0xFF, 0xFC };
	struct af_buf out = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	assert_int_equal(af_refpack_decompress(rp, sizeof(rp), UINT64_MAX, &out, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "declares 4294967295 bytes, more than 7 compressed bytes"));
	assert_int_equal(d.offset, 2);
	assert_int_equal(out.len, 0);
	af_diag_free(&d);
	static const struct {
		unsigned at;
		uint32_t v;
	} lies[] = { { 36, 0xFFFFFFFFu }, { 44, 0xFFFFFFFFu }, { 64, 0xFFFFFFF0u }, { 64, 120 },
		     { 44, 0 }, { 36, 0x10000000u } };
	for (size_t i = 0; i <= sizeof(lies) / sizeof(lies[0]); i++) {
		uint8_t pkg[96 + 4 + 32] = { 'D', 'B', 'P', 'F', 2, 0, 0, 0 };
		struct af_dbpf p;
		int honest = i == sizeof(lies) / sizeof(lies[0]); /* the last round lies not */
		/* one entry, index at 96: flags 0, then type group insthi instlo off size mem cmp */
		pkg[36] = 1;
		pkg[44] = 4 + 32;
		pkg[64] = 96;
		for (int k = 0; !honest && k < 4; k++)
			pkg[lies[i].at + (unsigned)k] = (uint8_t)(lies[i].v >> (8 * k));
		af_diag_init(&d);
		double t0 = now();
		int rc = af_dbpf_open(&p, pkg, sizeof(pkg), &d);
		if (honest) {
			if (rc)
				fail_msg("the honest package is refused: %s", d.msg);
			af_dbpf_close(&p);
			af_diag_free(&d);
			break;
		}
		if (rc == 0) {
			af_dbpf_close(&p);
			fail_msg("header field %u = 0x%x accepted", lies[i].at, lies[i].v);
		}
		assert_true(d.offset >= 0 && d.msg[0]);
		assert_true(now() - t0 < 0.5);
		af_diag_free(&d);
	}
	af_buf_free(&out);
}

static void read_example(const char *file, struct af_buf *out)
{
	char path[4096];
	struct af_diag d;
	af_diag_init(&d);
	snprintf(path, sizeof(path), "%s/examples/%s", ANIMFS_SOURCE_DIR, file);
	if (af_read_file_at(-100 /* AT_FDCWD */, path, AF_MAX_FILE, out, &d))
		fail_msg("%s: %s", path, d.msg);
	af_diag_free(&d);
}

/* Values that wrap, point outside, or point at where they are stored (a cycle). */
static size_t hostile_values(size_t pos, size_t len, uint64_t *v)
{
	size_t k = 0;
	v[k++] = 0xFFFFFFFFu;
	v[k++] = 0x7FFFFFFFu;
	v[k++] = 0x80000000u;
	v[k++] = 0xFFFFFFFFFFFFFFFFull;
	v[k++] = 0x8000000000000000ull;
	v[k++] = pos;      /* points at itself */
	v[k++] = len;      /* one past the end */
	v[k++] = len - 4;  /* the last word */
	v[k++] = 0;
	return k;
}

struct sweep {
	size_t tried, refused, no_offset;
};

/* Write each hostile value (as 32 and 64 bits) at each 4-byte position of blob,
 * wrap it (diesel: zlib + trailer), and check the fuzz property on the result. */
static void sweep(const char *name, const struct af_buf *blob, int wrap, struct sweep *s)
{
	const struct af_codec *c = codec(name);
	struct af_buf m = AF_BUF_INIT, bin = AF_BUF_INIT;
	uint64_t vals[16];
	for (size_t pos = 0; pos + 4 <= blob->len; pos += 4) {
		size_t nv = hostile_values(pos, blob->len, vals);
		for (size_t i = 0; i < nv; i++) {
			for (int w = 4; w <= 8; w += 4) {
				if (pos + (size_t)w > blob->len)
					continue;
				m.len = 0;
				af_buf_append(&m, blob->data, blob->len);
				for (int k = 0; k < w; k++)
					m.data[pos + (size_t)k] = (uint8_t)(vals[i] >> (8 * k));
				const struct af_buf *in = &m;
				if (wrap) {
					bin.len = 0;
					diesel_wrap(m.data, m.len, (uint32_t)m.len, &bin);
					in = &bin;
				}
				struct af_diag d;
				s->tried++;
				/* one decode: the refusal, or the YAML that must encode back */
				if (af_fuzz_binary_refusal(c, in->data, in->len, &d))
					fail_msg("%s: value 0x%llx (%d bytes) at 0x%zx breaks the property",
						 name, (unsigned long long)vals[i], w, pos);
				if (d.code) {
					s->refused++;
					assert_true(d.msg[0] != 0); /* an error always says what */
					if (d.offset < 0 && s->no_offset++ < 3)
						print_message("  no byte offset: %s\n", d.msg);
				}
				af_diag_free(&d);
			}
		}
	}
	af_buf_free(&m);
	af_buf_free(&bin);
}

static void binary_of_example(const char *name, const char *file, struct af_buf *bin)
{
	struct af_buf y = AF_BUF_INIT;
	struct af_diag d;
	read_example(file, &y);
	if (encode(name, (const char *)y.data, y.len, bin, &d))
		fail_msg("%s: %s", file, d.msg);
	af_diag_free(&d);
	af_buf_free(&y);
}

static void offsets_and_counts(void **state)
{
	(void)state;
	static const struct {
		const char *codec, *example;
		int wrap;
	} cases[] = {
		{ "diesel-animation", "walk.animation.yaml", 1 },
		{ "sims3-jazz", "wave_hello.jazz.yaml", 0 },
		{ "re-model", "re3_tiny.PLD.yaml", 0 },
		{ "shenmue-motn", "MOTION.BIN.yaml", 0 },
		{ "sims3-clip", "clip_tiny.animation.yaml", 0 },
		{ "sims3-rig", "hand_prop.rig.yaml", 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct af_buf bin = AF_BUF_INIT, blob = AF_BUF_INIT;
		struct sweep s = { 0, 0, 0 };
		size_t used = 0;
		struct af_diag d;
		binary_of_example(cases[i].codec, cases[i].example, &bin);
		if (cases[i].wrap) {
			af_diag_init(&d);
			assert_int_equal(af_zframe_inflate(bin.data, bin.len - 4, 1u << 20, &blob,
							   &used, &d), 0);
			af_diag_free(&d);
		} else {
			af_buf_append(&blob, bin.data, bin.len);
		}
		double t0 = now();
		sweep(cases[i].codec, &blob, cases[i].wrap, &s);
		double dt = now() - t0;
		print_message("%s: %zu hostile variants, %zu refused (%zu without a byte offset), %.2f s\n",
			      cases[i].codec, s.tried, s.refused, s.no_offset, dt);
		assert_true(s.refused > 0);
		assert_true(dt < 60.0);
		af_buf_free(&bin);
		af_buf_free(&blob);
	}
}

/* ---- YAML ---- */

/* Every number of each example document replaced by a hostile one (huge counts,
 * sizes and indices, negative, wrapping, non-finite): a clear error or a document
 * that keeps the YAML property, and never an allocation sized by the number. */
static void yaml_numbers(void **state)
{
	(void)state;
	static const char *const files[] = { "walk.animation.yaml", "wave_hello.jazz.yaml",
					     "re3_tiny.PLD.yaml", "MOTION.BIN.yaml",
					     "clip_tiny.animation.yaml" };
	static const char *const vals[] = { "4294967295", "4294967296", "2147483648", "-1",
					    "18446744073709551615", "99999999999999999999", "1e308",
					    ".nan", "0x7fffffff", "0" };
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		struct af_buf y = AF_BUF_INIT, m = AF_BUF_INIT;
		size_t tried = 0, refused = 0;
		long rss0 = maxrss_mb();
		double t0 = now();
		read_example(files[f], &y);
		struct af_diag d;
		af_diag_init(&d);
		const struct af_codec *c = af_codec_for_yaml(y.data, y.len, &d);
		af_diag_free(&d);
		assert_non_null(c);
		for (size_t i = 0; i < y.len; i++) {
			/* a number token: starts after a separator, runs over [0-9a-fA-Fx.+-] */
			if (!(y.data[i] >= '0' && y.data[i] <= '9') ||
			    (i && !strchr(" [,:-", y.data[i - 1])))
				continue;
			size_t e = i;
			while (e < y.len && strchr("0123456789abcdefABCDEFx.+-", y.data[e]))
				e++;
			for (size_t v = 0; v < sizeof(vals) / sizeof(vals[0]); v++) {
				struct af_buf out = AF_BUF_INIT;
				m.len = 0;
				af_buf_append(&m, y.data, i);
				af_buf_puts(&m, vals[v]);
				af_buf_append(&m, y.data + e, y.len - e);
				tried++;
				af_diag_init(&d);
				if (c->from_yaml(m.data, m.len, &io, &out, &d)) {
					refused++;
					if (d.msg[0] == 0)
						fail_msg("%s: %s at %zu refused without a message", files[f],
							 vals[v], i);
				} else if (af_fuzz_yaml(c, m.data, m.len)) {
					fail_msg("%s: %s at byte %zu breaks the YAML property", files[f],
						 vals[v], i);
				}
				af_diag_free(&d);
				af_buf_free(&out);
			}
			i = e;
		}
		print_message("%s: %zu hostile numbers, %zu refused, %.2f s, +%ld MiB\n", files[f],
			      tried, refused, now() - t0, maxrss_mb() - rss0);
		assert_true(refused > 0);
		assert_true(maxrss_mb() - rss0 < 64);
		af_buf_free(&y);
		af_buf_free(&m);
	}
}

static void expect_yaml_error(const char *name, const char *yaml, size_t n, const char *text,
			      unsigned line, double max_s, long max_rss_growth_mb)
{
	struct af_buf out = AF_BUF_INIT;
	struct af_diag d;
	long rss0 = maxrss_mb();
	double t0 = now();
	int rc = encode(name, yaml, n, &out, &d);
	double dt = now() - t0;
	long grew = maxrss_mb() - rss0;
	if (rc == 0 || !strstr(d.msg, text))
		fail_msg("%s: expected an error containing '%s', got %d '%s'", name, text, rc, d.msg);
	if (line && d.line != line)
		fail_msg("%s: '%s' at line %u, expected %u", name, text, d.line, line);
	if (line && d.col == 0)
		fail_msg("%s: '%s' has no column", name, text);
	if (dt > max_s)
		fail_msg("%s: '%s' took %.2f s", name, text, dt);
	if (grew > max_rss_growth_mb)
		fail_msg("%s: '%s' grew the RSS by %ld MiB", name, text, grew);
	af_buf_free(&out);
	af_diag_free(&d);
}

/* Each YAML refusal below is checked for every codec of the table. */

static void yaml_billion_laughs(void **state)
{
	(void)state;
	struct af_buf b = AF_BUF_INIT;
	af_buf_puts(&b, "format: x\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
	for (char c = 'b'; c <= 'j'; c++) {
		char line[128];
		snprintf(line, sizeof(line), "%c: &%c [*%c,*%c,*%c,*%c,*%c,*%c,*%c,*%c,*%c]\n", c, c,
			 c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1);
		af_buf_puts(&b, line);
	}
	for (size_t i = 0; af_codecs[i]; i++) {
		expect_yaml_error(af_codecs[i]->name, (const char *)b.data, b.len, "aliases (*a) are not supported",
				  3, 0.5, 8);
	}
	af_buf_free(&b);
}

static void yaml_deep_nesting(void **state)
{
	(void)state;
	size_t depth = 100000;
	struct af_buf b = AF_BUF_INIT;
	af_buf_puts(&b, "format: x\nnest: ");
	af_buf_fill(&b, '[', depth);
	af_buf_fill(&b, ']', depth);
	af_buf_putc(&b, '\n');
	for (size_t i = 0; af_codecs[i]; i++)
		expect_yaml_error(af_codecs[i]->name, (const char *)b.data, b.len, "nesting deeper than 64", 2,
				  0.5, 16);
	/* block-style nesting too */
	b.len = 0;
	af_buf_puts(&b, "format: x\n");
	for (int i = 0; i < 200; i++) {
		af_buf_fill(&b, ' ', (size_t)i);
		af_buf_puts(&b, "k:\n");
	}
	for (size_t i = 0; af_codecs[i]; i++)
		expect_yaml_error(af_codecs[i]->name, (const char *)b.data, b.len, "nesting deeper than 64",
				  0, 0.5, 16);
	af_buf_free(&b);
}

/* 8 MiB: far past every buffer on the way (libyaml's, the arena's first blocks; no limit
 * applies to one scalar), so a scan that is quadratic in it, or one that copies it per
 * token, takes minutes; 32 MiB took 4x the CPU for nothing more. */
static void yaml_huge_scalar(void **state)
{
	(void)state;
	size_t big = (size_t)8 << 20;
	struct af_buf b = AF_BUF_INIT;
	af_buf_puts(&b, "# a huge name\nformat: x\nname: ");
	af_buf_fill(&b, 'a', big);
	af_buf_puts(&b, "\nbogus: [\n");
	for (size_t i = 0; af_codecs[i]; i++) {
		struct af_buf out = AF_BUF_INIT;
		struct af_diag d;
		double t0 = now();
		assert_int_not_equal(encode(af_codecs[i]->name, (const char *)b.data, b.len, &out, &d), 0);
		assert_true(now() - t0 < 10.0);
		assert_true(d.msg[0] != 0);
		af_buf_free(&out);
		af_diag_free(&d);
	}
	af_buf_free(&b);
}

static void yaml_too_large(void **state)
{
	(void)state;
	/* The size is checked before a byte is read: a small buffer with a claimed
	 * size over the limit must not be touched. */
	static const char doc[] = "format: diesel-animation\n";
	for (size_t i = 0; af_codecs[i]; i++)
		expect_yaml_error(af_codecs[i]->name, doc, AF_MAX_YAML + 1, "animfs accepts YAML up to 256 MiB", 0,
				  0.1, 4);
}

static void yaml_invalid_utf8(void **state)
{
	(void)state;
	static const char doc[] = "# bad bytes\nformat: x\nname: abc\xff\xfe\n";
	for (size_t i = 0; af_codecs[i]; i++)
		expect_yaml_error(af_codecs[i]->name, doc, sizeof(doc) - 1, "UTF-8", 3, 0.1, 4);
	static const char trunc[] = "format: x\nname: \"\xc3\"\n";
	for (size_t i = 0; af_codecs[i]; i++)
		expect_yaml_error(af_codecs[i]->name, trunc, sizeof(trunc) - 1, "UTF-8", 2, 0.1, 4);
}

/* Many values, each cheap: the tree is bounded by a value count (AF_MAX_YAML_NODES,
 * 8 Mi by default; a smaller limit here keeps the test light). */
static void yaml_wide(void **state)
{
	(void)state;
	struct af_buf b = AF_BUF_INIT;
	struct af_ylimits lim = { .max_nodes = 1000 };
	struct af_ydoc doc;
	struct af_diag d;
	af_buf_puts(&b, "format: x\nwide: [");
	for (size_t i = 0; i < 5000; i++)
		af_buf_puts(&b, "1,");
	af_buf_puts(&b, "1]\n");
	af_diag_init(&d);
	assert_int_equal(af_ydoc_parse(&doc, b.data, b.len, &lim, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "document has more than 1000 values"));
	assert_int_equal(d.line, 2);
	assert_int_equal(d.col, 8 + 2 * (1000 - 5)); /* the 1001st value; 5 come before the list's */
	af_ydoc_free(&doc);
	af_diag_free(&d);
	af_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(diesel_trailer_4gib),
		cmocka_unit_test(diesel_deflate_bomb),
		cmocka_unit_test(package_lies),
		cmocka_unit_test(offsets_and_counts),
		cmocka_unit_test(yaml_numbers),
		cmocka_unit_test(yaml_billion_laughs),
		cmocka_unit_test(yaml_deep_nesting),
		cmocka_unit_test(yaml_huge_scalar),
		cmocka_unit_test(yaml_too_large),
		cmocka_unit_test(yaml_invalid_utf8),
		cmocka_unit_test(yaml_wide),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
