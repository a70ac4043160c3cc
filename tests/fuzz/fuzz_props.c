/* Fuzz properties (see fuzz_props.h). */
#include <stdio.h>
#include <string.h>

#include "fuzz_props.h"

static const struct af_io fuzz_io = { "fuzz.bin", NULL, NULL, NULL };

/* The binary property is checked the way animfs saves: the original file is at hand
 * (the mount's commit and `animfs check` give the encoder read access to it, which
 * lets the Diesel codec keep a zlib stream that level 6 does not reproduce). */
struct orig {
	const uint8_t *data;
	size_t n;
};

static int orig_read(void *ctx, const char *name, struct af_buf *out)
{
	const struct orig *o = ctx;
	if (strcmp(name, "fuzz.bin"))
		return AF_EIO;
	return af_buf_append(out, o->data, o->n) ? AF_ENOMEM : 0;
}

static int differ(const char *what, const struct af_codec *c, const struct af_buf *a,
		  const struct af_buf *b)
{
	size_t i = 0, m = a->len < b->len ? a->len : b->len;
	while (i < m && a->data[i] == b->data[i])
		i++;
	fprintf(stderr, "%s: %s: bytes differ at 0x%zx (%zu vs %zu bytes)\n", c->name, what, i,
		a->len, b->len);
	return -1;
}

int af_fuzz_binary(const struct af_codec *c, const uint8_t *data, size_t n)
{
	struct af_buf yaml = AF_BUF_INIT, back = AF_BUF_INIT;
	struct af_diag d;
	struct orig o = { data, n };
	const struct af_io io = { "fuzz.bin", orig_read, NULL, &o };
	int rc = 0;
	af_diag_init(&d);
	(void)c->bid("fuzz.bin", data, n < AF_BID_HEAD ? n : AF_BID_HEAD);
	if (c->to_yaml(data, n, &io, &yaml, &d))
		goto out; /* refused: fine, as long as it did not crash */
	if (c->from_yaml(yaml.data, yaml.len, &io, &back, &d)) {
		fprintf(stderr, "%s: decoded, but its own YAML does not encode: %s (line %u)\n",
			c->name, d.msg, d.line);
		rc = -1;
		goto out;
	}
	if (back.len != n || memcmp(back.data, data, n)) {
		struct af_buf orig = { (uint8_t *)data, n, n, 0 };
		rc = differ("decode -> encode", c, &orig, &back);
	}
out:
	af_buf_free(&yaml);
	af_buf_free(&back);
	af_diag_free(&d);
	return rc;
}

int af_fuzz_yaml(const struct af_codec *c, const uint8_t *data, size_t n)
{
	struct af_buf bin = AF_BUF_INIT, yaml = AF_BUF_INIT, bin2 = AF_BUF_INIT;
	struct af_diag d;
	int rc = 0;
	af_diag_init(&d);
	if (c->from_yaml(data, n, &fuzz_io, &bin, &d))
		goto out;
	af_diag_clear(&d);
	if (c->to_yaml(bin.data, bin.len, &fuzz_io, &yaml, &d)) {
		fprintf(stderr, "%s: encoded a document whose binary does not decode: %s\n", c->name,
			d.msg);
		rc = -1;
		goto out;
	}
	if (c->from_yaml(yaml.data, yaml.len, &fuzz_io, &bin2, &d)) {
		fprintf(stderr, "%s: re-encode of the decoded document failed: %s (line %u)\n",
			c->name, d.msg, d.line);
		rc = -1;
		goto out;
	}
	if (bin.len != bin2.len || memcmp(bin.data, bin2.data, bin.len))
		rc = differ("encode -> decode -> encode", c, &bin, &bin2);
out:
	af_buf_free(&bin);
	af_buf_free(&yaml);
	af_buf_free(&bin2);
	af_diag_free(&d);
	return rc;
}
