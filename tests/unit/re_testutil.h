/* Helpers shared by the re-model tests (test_re_*.c): run the codec on bytes or text,
 * load sample files, edit YAML text, and read the directory of a built file by hand
 * (so that byte checks do not depend on the codec under test). */
#ifndef RE_TESTUTIL_H
#define RE_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/bytes.h"
#include "animfs/codec.h"

static inline const struct af_codec *re_codec(void)
{
	const struct af_codec *c = af_codec_by_name("re-model");
	assert_non_null(c);
	return c;
}

static inline int re_dec(const uint8_t *bin, size_t n, const char *name, struct af_buf *out,
			 struct af_diag *d)
{
	struct af_io io = { .name = name };
	return re_codec()->to_yaml(bin, n, &io, out, d);
}

static inline int re_enc(const char *yaml, size_t n, struct af_buf *out, struct af_diag *d)
{
	return re_codec()->from_yaml((const uint8_t *)yaml, n, NULL, out, d);
}

/* 1 and the whole file in out, or 0 when the sample folder is absent. */
static inline int re_load_sample(const char *base, struct af_buf *out)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/re3/%s", ANIMFS_SAMPLES, base);
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	uint8_t tmp[65536];
	size_t got;
	while ((got = fread(tmp, 1, sizeof(tmp), f)) > 0)
		af_buf_append(out, tmp, got);
	fclose(f);
	return 1;
}

/* A new NUL-terminated copy of text with the first `old` after `from` replaced. */
static inline char *re_replace(const char *text, const char *from, const char *old,
			       const char *new_)
{
	const char *start = from ? strstr(text, from) : text;
	assert_non_null(start);
	const char *at = strstr(start, old);
	assert_non_null(at);
	size_t n = strlen(text), lo = strlen(old), ln = strlen(new_);
	char *r = malloc(n - lo + ln + 1);
	assert_non_null(r);
	memcpy(r, text, (size_t)(at - text));
	memcpy(r + (at - text), new_, ln);
	memcpy(r + (at - text) + ln, at + lo, n - (size_t)(at - text) - lo + 1);
	return r;
}

/* 1-based line number of the first occurrence of s. */
static inline unsigned re_line_of(const char *text, const char *s)
{
	const char *at = strstr(text, s);
	assert_non_null(at);
	unsigned line = 1;
	for (const char *p = text; p < at; p++)
		line += *p == '\n';
	return line;
}

struct re_dir {
	uint32_t count;
	uint32_t off[16], len[16];
};

/* Directory by hand (spec 3.1), asserting its invariants. */
static inline void re_read_dir(const uint8_t *p, size_t n, struct re_dir *dir)
{
	assert_true(n >= 8);
	uint32_t at = af_le32(p);
	dir->count = af_le32(p + 4);
	assert_true(dir->count >= 1 && dir->count <= 16);
	assert_int_equal((uint64_t)at + 4 * dir->count, n);
	for (uint32_t i = 0; i < dir->count; i++) {
		dir->off[i] = af_le32(p + at + 4 * i);
		uint32_t end = i + 1 < dir->count ? af_le32(p + at + 4 * i + 4) : at;
		assert_true(end > dir->off[i]);
		dir->len[i] = end - dir->off[i];
	}
	assert_int_equal(dir->off[0], 8);
}

/* Whatever the bytes: no crash; an error has a message; a success rebuilds them. */
static inline void re_survive(const uint8_t *p, size_t n, const char *name)
{
	struct af_buf yaml = AF_BUF_INIT, back = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	if (re_dec(p, n, name, &yaml, &d)) {
		assert_true(d.msg[0] != 0);
	} else {
		if (re_enc((char *)yaml.data, yaml.len, &back, &d))
			fail_msg("%s: decoded damaged input does not encode: %s", name, d.msg);
		assert_int_equal(back.len, n);
		assert_memory_equal(back.data, p, n);
	}
	af_buf_free(&yaml);
	af_buf_free(&back);
	af_diag_free(&d);
}

#endif
