/* Fuzz properties (see fuzz_props.h). */
#include <stdio.h>
#include <string.h>

#include "animfs/yamlio.h"
#include "fuzz_props.h"

static const struct af_io fuzz_io = { .name = "fuzz.bin" };

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
	const struct af_io io = { .name = "fuzz.bin", .read_sibling = orig_read, .ctx = &o };
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

static int parse_with(enum af_yreader r, const uint8_t *t, size_t n, struct af_ydoc *doc,
		      struct af_diag *d)
{
	struct af_ylimits lim = { .reader = r };
	memset(doc, 0, sizeof(*doc));
	af_diag_init(d);
	return af_ydoc_parse(doc, t, n, &lim, d);
}

/* 0 when the trees are equal; else -1 and the first difference on stderr. */
static int tree_diff(const struct af_ynode *a, const struct af_ynode *b, const char *path)
{
	char sub[512];
	if (a->type != b->type || a->line != b->line || a->col != b->col || a->plain != b->plain ||
	    a->n != b->n || a->len != b->len || (!a->tag) != (!b->tag) ||
	    (a->tag && strcmp(a->tag, b->tag)) ||
	    (a->type == AF_YSCALAR && (memcmp(a->str, b->str, a->len) || a->str[a->len]))) {
		fprintf(stderr, "node %s: fast {type %d, %u:%u, plain %d, n %zu, '%.40s'} libyaml "
			"{type %d, %u:%u, plain %d, n %zu, '%.40s'}\n", path[0] ? path : "/", a->type,
			a->line, a->col, a->plain, a->n, a->type == AF_YSCALAR ? a->str : "", b->type,
			b->line, b->col, b->plain, b->n, b->type == AF_YSCALAR ? b->str : "");
		return -1;
	}
	size_t items = a->type == AF_YSCALAR ? 0 : a->type == AF_YMAP ? 2 * a->n : a->n;
	for (size_t i = 0; i < items; i++) {
		snprintf(sub, sizeof(sub), "%.400s/%zu", path, i);
		if (tree_diff(a->items[i], b->items[i], sub))
			return -1;
	}
	return 0;
}

int af_fuzz_yaml_readers(const uint8_t *data, size_t n, int *fast)
{
	struct af_ydoc f, l, a;
	struct af_diag fd, ld, ad;
	int frc = parse_with(AF_YREAD_FAST, data, n, &f, &fd);
	int lrc = parse_with(AF_YREAD_LIBYAML, data, n, &l, &ld);
	int arc = parse_with(AF_YREAD_AUTO, data, n, &a, &ad);
	int rc = 0;
	if (fast)
		*fast = frc == 0;
	if (frc == 0 && lrc != 0) {
		fprintf(stderr, "yaml: the fast scanner took a text libyaml refuses (%u:%u %s)\n",
			ld.line, ld.col, ld.msg);
		rc = -1;
	} else if (frc == 0 && tree_diff(f.root, l.root, "")) {
		fprintf(stderr, "yaml: the fast scanner reads the text otherwise than libyaml\n");
		rc = -1;
	} else if (arc != lrc || (lrc && (strcmp(ad.msg, ld.msg) || ad.line != ld.line ||
					  ad.col != ld.col))) {
		fprintf(stderr, "yaml: af_ydoc_parse answers %d '%s' at %u:%u, libyaml %d '%s' at %u:%u\n",
			arc, ad.msg, ad.line, ad.col, lrc, ld.msg, ld.line, ld.col);
		rc = -1;
	} else if (!lrc && tree_diff(a.root, l.root, "")) {
		fprintf(stderr, "yaml: af_ydoc_parse builds another tree than libyaml\n");
		rc = -1;
	}
	af_ydoc_free(&f), af_ydoc_free(&l), af_ydoc_free(&a);
	af_diag_free(&fd), af_diag_free(&ld), af_diag_free(&ad);
	return rc;
}

int af_fuzz_yaml(const struct af_codec *c, const uint8_t *data, size_t n)
{
	struct af_buf bin = AF_BUF_INIT, yaml = AF_BUF_INIT, bin2 = AF_BUF_INIT;
	struct af_diag d;
	int rc = 0;
	if (af_fuzz_yaml_readers(data, n, NULL))
		return -1;
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
