/* Fuzz properties (see fuzz_props.h). */
#include <stdio.h>
#include <stdlib.h>
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

int af_fuzz_binary_refusal(const struct af_codec *c, const uint8_t *data, size_t n,
			   struct af_diag *refusal)
{
	struct af_buf yaml = AF_BUF_INIT, back = AF_BUF_INIT;
	struct af_diag d;
	struct orig o = { data, n };
	const struct af_io io = { .name = "fuzz.bin", .read_sibling = orig_read, .ctx = &o };
	int rc = 0;
	af_diag_init(refusal);
	af_diag_init(&d);
	(void)c->bid("fuzz.bin", data, n < AF_BID_HEAD ? n : AF_BID_HEAD);
	if ((rc = c->to_yaml(data, n, &io, &yaml, refusal))) {
		if (!refusal->code)
			refusal->code = rc;
		rc = 0;
		goto out; /* refused: fine, as long as it did not crash */
	}
	if (c->from_yaml(yaml.data, yaml.len, &io, &back, &d)) {
		fprintf(stderr, "%s: decoded, but its own YAML does not encode: %s (line %u)\n",
			c->name, d.msg, d.line);
		rc = -1;
		goto out;
	}
	if (back.len != n || memcmp(back.data, data, n)) {
		struct af_buf orig = { (uint8_t *)data, n, n, 0, NULL, 0, n };
		rc = differ("decode -> encode", c, &orig, &back);
	}
out:
	af_buf_free(&yaml);
	af_buf_free(&back);
	af_diag_free(&d);
	return rc;
}

int af_fuzz_binary(const struct af_codec *c, const uint8_t *data, size_t n)
{
	struct af_diag refusal;
	int rc = af_fuzz_binary_refusal(c, data, n, &refusal);
	af_diag_free(&refusal);
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

/* 0 when the trees are equal; else -1 and the first difference on stderr. The node's
 * path is written only when the trees differ (one snprintf a node cost more than the
 * comparison: a motion bank's view is millions of nodes): the first difference prints
 * its node, and each caller on the way back prepends its item's index. */
static int tree_diff_at(const struct af_ynode *a, const struct af_ynode *b, char *path,
			size_t cap)
{
	if (a->type != b->type || a->line != b->line || a->col != b->col || a->plain != b->plain ||
	    a->n != b->n || a->len != b->len || (!a->tag) != (!b->tag) ||
	    (a->tag && strcmp(a->tag, b->tag)) ||
	    (a->type == AF_YSCALAR && (memcmp(a->str, b->str, a->len) || a->str[a->len]))) {
		fprintf(stderr, "node: fast {type %d, %u:%u, plain %d, n %zu, '%.40s'} libyaml "
			"{type %d, %u:%u, plain %d, n %zu, '%.40s'}\n", a->type,
			a->line, a->col, a->plain, (size_t)a->n, a->type == AF_YSCALAR ? a->str : "", b->type,
			b->line, b->col, b->plain, (size_t)b->n, b->type == AF_YSCALAR ? b->str : "");
		path[0] = 0;
		return -1;
	}
	size_t items = a->type == AF_YSCALAR ? 0 : a->type == AF_YMAP ? 2 * a->n : a->n;
	for (size_t i = 0; i < items; i++) {
		if (tree_diff_at(&a->items[i], &b->items[i], path, cap)) {
			char sub[512];
			snprintf(sub, sizeof(sub), "/%zu%.400s", i, path);
			snprintf(path, cap, "%s", sub);
			return -1;
		}
	}
	return 0;
}

static int tree_diff(const struct af_ynode *a, const struct af_ynode *b)
{
	char path[512];
	if (!tree_diff_at(a, b, path, sizeof(path)))
		return 0;
	fprintf(stderr, "  at node %s\n", path[0] ? path : "/");
	return -1;
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
	} else if (frc == 0 && tree_diff(f.root, l.root)) {
		fprintf(stderr, "yaml: the fast scanner reads the text otherwise than libyaml\n");
		rc = -1;
	} else if (arc != lrc || (lrc && (strcmp(ad.msg, ld.msg) || ad.line != ld.line ||
					  ad.col != ld.col))) {
		fprintf(stderr, "yaml: af_ydoc_parse answers %d '%s' at %u:%u, libyaml %d '%s' at %u:%u\n",
			arc, ad.msg, ad.line, ad.col, lrc, ld.msg, ld.line, ld.col);
		rc = -1;
	} else if (!lrc && tree_diff(a.root, l.root)) {
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

/* ---- containers */

static int member_bodies(const struct af_archive *a, struct af_buf *bodies, struct af_diag *d)
{
	for (size_t k = 0; k < a->n; k++)
		if (a->c->body(a->st, k, &bodies[k], d))
			return -1;
	return 0;
}

/* The container image reopened: same members, member k's bytes as given. */
static int same_members(const struct af_archive *a, const struct af_buf *img,
			const struct af_buf *bodies, struct af_diag *d)
{
	struct af_archive b;
	struct af_buf got = AF_BUF_INIT;
	int bad = 0;
	if (af_archive_open(&b, a->c, img->data, img->len, d)) {
		fprintf(stderr, "%s: a member replaced by its own bytes: the result does not open "
			"(%s)\n", a->c->name, d->msg);
		return -1;
	}
	if (b.n != a->n) {
		fprintf(stderr, "%s: %zu members became %zu\n", a->c->name, a->n, b.n);
		bad = -1;
	}
	for (size_t k = 0; !bad && k < b.n; k++) {
		af_buf_reset(&got);
		if (strcmp(a->m[k].name, b.m[k].name) || b.c->body(b.st, k, &got, d) ||
		    got.len != bodies[k].len || (got.len && memcmp(got.data, bodies[k].data, got.len))) {
			fprintf(stderr, "%s: member %zu (%s) changed\n", a->c->name, k, a->m[k].name);
			bad = -1;
		}
	}
	af_buf_free(&got);
	af_archive_close(&b);
	return bad;
}

/* Without member 0 the container opens with one member less; member 0's YAML added as
 * a new member gives a container that holds it (where it takes adds and removes). */
static int lose_and_gain(const struct af_archive *a, struct af_diag *d)
{
	struct af_buf y = AF_BUF_INIT, img = AF_BUF_INIT;
	struct af_archive w;
	const char *ext = strrchr(a->m[0].name, '.');
	char name[64];
	int bad = 0;
	af_diag_clear(d);
	if (a->c->remove && !af_member_remove(a, 0, &img, d)) {
		if (af_archive_open(&w, a->c, img.data, img.len, d)) {
			fprintf(stderr, "%s: without member 0 it does not open (%s)\n", a->c->name, d->msg);
			bad = -1;
		} else {
			if (w.n + 1 != a->n) {
				fprintf(stderr, "%s: %zu members less one gave %zu\n", a->c->name, a->n, w.n);
				bad = -1;
			}
			af_archive_close(&w);
		}
	}
	af_diag_clear(d);
	af_buf_reset(&img);
	snprintf(name, sizeof(name), "fuzz_added%s", ext ? ext : "");
	if (!bad && a->c->add && !af_member_yaml(a, 0, &y, d)) {
		af_diag_clear(d);
		if (!af_member_add(a, name, y.data, y.len, &img, d)) {
			if (af_archive_open(&w, a->c, img.data, img.len, d)) {
				fprintf(stderr, "%s: with a member added it does not open\n", a->c->name);
				bad = -1;
			} else {
				/* under its name, unless the add warned that the name could not be
				 * recorded (a package whose _KEY map does not unpack) */
				if (w.n != a->n + 1 ||
				    (af_archive_find(&w, name) < 0 && !d->warnings.len)) {
					fprintf(stderr, "%s: the added member is not in it\n", a->c->name);
					bad = -1;
				}
				af_archive_close(&w);
			}
		}
	}
	af_buf_free(&y);
	af_buf_free(&img);
	return bad;
}

int af_fuzz_container(const struct af_container *c, const uint8_t *data, size_t n)
{
	struct af_archive a;
	struct af_buf y = AF_BUF_INIT, img = AF_BUF_INIT, *bodies = NULL;
	struct af_diag d;
	int bad = 0;
	af_diag_init(&d);
	if (af_archive_open(&a, c, data, n, &d))
		goto out_diag;
	c->index_yaml(a.st, "fuzz.bin", &y);
	for (size_t k = 0; k < a.n && !bad; k++) {
		int changed = -1;
		af_buf_reset(&y);
		af_diag_clear(&d);
		if (af_member_yaml(&a, k, &y, &d))
			continue;
		af_diag_clear(&d);
		if (!af_member_commit(&a, k, y.data, y.len, &img, &changed, &d) && changed) {
			fprintf(stderr, "%s: member %zu: its own YAML changed the container\n", c->name, k);
			bad = -1;
		}
	}
	bodies = calloc(a.n ? a.n : 1, sizeof(*bodies));
	af_diag_clear(&d);
	if (!bad && bodies && !member_bodies(&a, bodies, &d) && c->replace)
		for (size_t k = 0; k < a.n && !bad; k++) {
			af_buf_reset(&img);
			af_diag_clear(&d);
			if (!c->replace(a.st, k, bodies[k].data, bodies[k].len, &img, &d))
				bad = same_members(&a, &img, bodies, &d);
		}
	if (!bad && a.n)
		bad = lose_and_gain(&a, &d);
	af_diag_clear(&d);
	af_buf_reset(&img);
	if (!bad && c->rebuild) /* may refuse (a variant it cannot rebuild), never crash */
		c->rebuild(a.st, &img, &d);
	for (size_t k = 0; bodies && k < a.n; k++)
		af_buf_free(&bodies[k]);
	free(bodies);
	af_archive_close(&a);
out_diag:
	af_buf_free(&y);
	af_buf_free(&img);
	af_diag_free(&d);
	return bad;
}
