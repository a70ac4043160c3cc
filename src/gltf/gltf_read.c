/* A glTF 2.0 file read back (gltf_in.h), its JSON through json-c: the GLB container
 * (header, JSON chunk, BIN chunk) or a .gltf whose buffers are data: URIs; then the
 * nodes (names, children: a forest) and the animations (channels, samplers, accessors),
 * every index, count and byte range proven inside what the file holds before a byte is
 * read, and every number finite. What is copied out is bounded by the file: an accessor
 * lies inside its buffer, and the floats copied together are at most four times the
 * file's size (accessors may share bytes). */
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/buf.h"
#include "animfs/bytes.h"
#include "animfs/yamlio.h"
#include "gltf_in.h"

#define GLB_JSON 0x4E4F534Au
#define GLB_BIN 0x004E4942u
#define MAX_DEPTH 64

struct rd {
	struct json_object *root;
	struct af_buf *bufs;      /* each buffer's bytes (data: URIs decoded) */
	const uint8_t **bdata;    /* each buffer's bytes, wherever they are */
	size_t *blen, nbuf;
	size_t budget;            /* floats that may still be copied */
	struct af_diag *d;
};

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;
	return o && json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static size_t count(struct json_object *a)
{
	return a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

/* v as a whole number in 0..max (what and key name it). 0 or -1 with d saying what. */
static int whole(struct rd *r, struct json_object *v, const char *what, const char *key, unsigned long long max,
		 unsigned long long *out)
{
	double x = json_object_get_double(v);
	if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
		return af_diag_error(r->d, AF_EINVAL, "%s: %s is not a number", what, key), -1;
	if (!(x >= 0 && x <= (double)max) || x != floor(x))
		return af_diag_error(r->d, AF_EINVAL, "%s: %s %.17g is not a whole number in 0..%llu", what, key, x, max),
		       -1;
	*out = json_object_is_type(v, json_type_int) ? (unsigned long long)json_object_get_int64(v)
						       : (unsigned long long)x;
	return 0;
}

/* A whole number in 0..max from key of o (def when absent, def < 0: required). 0 or -1
 * with d saying what. */
static int num(struct rd *r, struct json_object *o, const char *key, const char *what, long long def,
	       unsigned long long max, unsigned long long *out)
{
	struct json_object *v = get(o, key);
	if (!v) {
		if (def < 0)
			return af_diag_error(r->d, AF_EINVAL, "%s: no %s", what, key), -1;
		*out = (unsigned long long)def;
		return 0;
	}
	return whole(r, v, what, key, max, out);
}

/* The buffers: the GLB's BIN chunk for one without a uri, a data: URI decoded; a file
 * beside refused. Each one's byteLength at most what it holds. */
static int buffers(struct rd *r, const uint8_t *bin, size_t nbin)
{
	struct json_object *bs = get(r->root, "buffers");
	size_t n = count(bs);
	char what[64];
	if (!n)
		return 0;
	r->bufs = af_alloc_zeroed(n, sizeof(*r->bufs));
	r->bdata = af_alloc_zeroed(n, sizeof(*r->bdata));
	r->blen = af_alloc_zeroed(n, sizeof(*r->blen));
	if (!r->bufs || !r->bdata || !r->blen)
		return af_diag_error(r->d, AF_ENOMEM, "out of memory");
	r->nbuf = n;
	for (size_t i = 0; i < n; i++) {
		struct json_object *b = json_object_array_get_idx(bs, i), *u = get(b, "uri");
		unsigned long long len;
		const char *uri = u ? json_object_get_string(u) : NULL, *comma;
		size_t have;
		snprintf(what, sizeof(what), "buffers[%zu]", i);
		if (num(r, b, "byteLength", what, -1, ULLONG_MAX >> 1, &len))
			return AF_EINVAL;
		if (!uri) {
			if (i || !bin)
				return af_diag_error(r->d, AF_EINVAL, "%s: no uri and no GLB binary chunk holds it", what);
			r->bdata[i] = bin, have = nbin;
		} else if (!strncmp(uri, "data:", 5) && (comma = strchr(uri, ',')) && comma - uri >= 7 &&
			   !strncmp(comma - 7, ";base64", 7)) {
			int rc = af_base64_decode(comma + 1, strlen(comma + 1), &r->bufs[i]);
			if (rc == -2 || r->bufs[i].failed)
				return af_diag_error(r->d, AF_ENOMEM, "out of memory");
			if (rc)
				return af_diag_error(r->d, AF_EINVAL, "%s: its data: URI is not base64", what);
			r->bdata[i] = r->bufs[i].data, have = r->bufs[i].len;
		} else {
			return af_diag_error(r->d, AF_EUNSUP, "%s: its bytes are in another file ('%.80s'): export a "
					     "glTF Binary (.glb) or glTF Embedded (.gltf)", what, uri);
		}
		if (len > have)
			return af_diag_error(r->d, AF_EINVAL, "%s: byteLength %llu, but only %zu bytes are there", what,
					     len, have);
		r->blen[i] = (size_t)len;
	}
	return 0;
}

/* Accessor a as floats (w a key: 1 scalar, 3 vec3, 4 vec4), its count in *n; every
 * value finite. NULL with d set. */
static float *accessor(struct rd *r, size_t a, size_t w, size_t *n)
{
	struct json_object *acs = get(r->root, "accessors"), *ac, *views = get(r->root, "bufferViews"), *bv;
	static const char *const types[] = { [1] = "SCALAR", [3] = "VEC3", [4] = "VEC4" };
	unsigned long long cnt, ct, off, vi, buf, voff, vlen, stride;
	char what[64], vwhat[64];
	const char *type;
	float *out;
	snprintf(what, sizeof(what), "accessors[%zu]", a);
	if (a >= count(acs))
		return af_diag_error(r->d, AF_EINVAL, "%s: there are only %zu accessors", what, count(acs)), NULL;
	ac = json_object_array_get_idx(acs, a);
	type = get(ac, "type") ? json_object_get_string(get(ac, "type")) : "";
	if (num(r, ac, "count", what, -1, AF_SCENE_MAX_KEYS, &cnt) || num(r, ac, "componentType", what, -1, 65535, &ct) ||
	    num(r, ac, "byteOffset", what, 0, ULLONG_MAX >> 1, &off))
		return NULL;
	if (strcmp(type, types[w]))
		return af_diag_error(r->d, AF_EINVAL, "%s: type %s where %s is wanted", what, type, types[w]), NULL;
	if (ct != 5126 || get(ac, "sparse") || !get(ac, "bufferView"))
		return af_diag_error(r->d, AF_EUNSUP, "%s: only float accessors with a bufferView are read (no "
				     "sparse, integer or normalized values: export without quantization)", what), NULL;
	if (!cnt)
		return af_diag_error(r->d, AF_EINVAL, "%s: count 0", what), NULL;
	if (num(r, ac, "bufferView", what, -1, count(views) ? count(views) - 1 : 0, &vi) || !count(views))
		return af_diag_error(r->d, AF_EINVAL, "%s: no such bufferView", what), NULL;
	bv = json_object_array_get_idx(views, vi);
	snprintf(vwhat, sizeof(vwhat), "bufferViews[%llu]", vi);
	if (num(r, bv, "buffer", vwhat, -1, r->nbuf ? r->nbuf - 1 : 0, &buf) || !r->nbuf)
		return af_diag_error(r->d, AF_EINVAL, "%s: no such buffer", vwhat), NULL;
	if (num(r, bv, "byteOffset", vwhat, 0, ULLONG_MAX >> 1, &voff) ||
	    num(r, bv, "byteLength", vwhat, -1, ULLONG_MAX >> 1, &vlen) ||
	    num(r, bv, "byteStride", vwhat, 4 * w, 252, &stride))
		return NULL;
	if (voff > r->blen[buf] || vlen > r->blen[buf] - voff)
		return af_diag_error(r->d, AF_EINVAL, "%s: bytes %llu..%llu past its buffer's %zu", vwhat, voff, voff + vlen,
				     r->blen[buf]), NULL;
	if (stride < 4 * w || (off + 4 * w > vlen) || (cnt - 1) > (vlen - off - 4 * w) / stride)
		return af_diag_error(r->d, AF_EINVAL, "%s: %llu values of %zu floats from byte %llu (stride %llu) do not "
				     "fit its bufferView's %llu bytes", what, cnt, w, off, stride, vlen), NULL;
	if (cnt * w > r->budget)
		return af_diag_error(r->d, AF_EINVAL, "%s: more values than the file can hold", what), NULL;
	r->budget -= cnt * w;
	if (!(out = af_alloc((size_t)(cnt * w) * sizeof(float))))
		return af_diag_error(r->d, AF_ENOMEM, "out of memory"), NULL;
	const uint8_t *p = r->bdata[buf] + voff + off;
	for (size_t i = 0; i < cnt; i++)
		for (size_t j = 0; j < w; j++) {
			uint32_t u = af_le32(p + i * stride + 4 * j);
			float f;
			memcpy(&f, &u, 4);
			if (!isfinite(f)) {
				free(out);
				return af_diag_error(r->d, AF_EINVAL, "%s: value %zu is not a finite number", what, i), NULL;
			}
			out[i * w + j] = f;
		}
	*n = (size_t)cnt;
	return out;
}

/* The nodes' names and parents; a node that two parents claim, or that is its own
 * ancestor, refused. */
static int nodes(struct rd *r, struct af_gin *g)
{
	struct json_object *ns = get(r->root, "nodes");
	size_t n = count(ns);
	if (n > AF_SCENE_MAX_NODES)
		return af_diag_error(r->d, AF_EINVAL, "%zu nodes (at most %d)", n, AF_SCENE_MAX_NODES);
	if (!n)
		return 0;
	g->name = af_alloc_zeroed(n, sizeof(*g->name));
	g->parent = af_alloc_zeroed(n, sizeof(*g->parent));
	if (!g->name || !g->parent)
		return af_diag_error(r->d, AF_ENOMEM, "out of memory");
	g->nnode = n;
	for (size_t i = 0; i < n; i++)
		g->parent[i] = -1;
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(ns, i), *nm = get(o, "name"), *ch = get(o, "children");
		if (!(g->name[i] = af_strcopy(nm ? json_object_get_string(nm) : "")))
			return af_diag_error(r->d, AF_ENOMEM, "out of memory");
		for (size_t k = 0; k < count(ch); k++) {
			char what[64];
			unsigned long long c;
			snprintf(what, sizeof(what), "nodes[%zu]", i);
			if (whole(r, json_object_array_get_idx(ch, k), what, "a child", n - 1, &c))
				return AF_EINVAL;
			if (g->parent[c] >= 0 || c == i)
				return af_diag_error(r->d, AF_EINVAL, "nodes[%llu] ('%s'): a child of node %zu and of node %ld: "
						     "the nodes are no tree", c, g->name[c] ? g->name[c] : "", i, g->parent[c]);
			g->parent[c] = (long)i;
		}
	}
	for (size_t i = 0; i < n; i++) { /* each root reached within n steps up */
		long at = (long)i;
		size_t steps = 0;
		while (at >= 0 && steps++ <= n)
			at = g->parent[at];
		if (at >= 0)
			return af_diag_error(r->d, AF_EINVAL, "nodes[%zu] ('%s'): its chain of parents loops (a joint its own ancestor)", i,
					     g->name[i]);
	}
	return 0;
}

static int channel(struct rd *r, struct json_object *an, size_t ai, size_t ci, struct af_gin *g,
		   struct af_gin_chan *c)
{
	struct json_object *ch = json_object_array_get_idx(get(an, "channels"), ci), *tg = get(ch, "target"),
			   *samplers = get(an, "samplers"), *sm;
	unsigned long long node, si, in, out;
	char what[80];
	const char *path, *interp;
	size_t nv, w;
	snprintf(what, sizeof(what), "animations[%zu].channels[%zu]", ai, ci);
	if (num(r, tg, "node", what, -1, g->nnode ? g->nnode - 1 : 0, &node) || !g->nnode ||
	    num(r, ch, "sampler", what, -1, count(samplers) ? count(samplers) - 1 : 0, &si) || !count(samplers))
		return r->d->code ? r->d->code : af_diag_error(r->d, AF_EINVAL, "%s: no such node or sampler", what);
	path = get(tg, "path") ? json_object_get_string(get(tg, "path")) : "";
	if (!strcmp(path, "translation"))
		c->path = AF_SC_TRANSLATION, w = 3;
	else if (!strcmp(path, "rotation"))
		c->path = AF_SC_ROTATION, w = 4;
	else if (!strcmp(path, "scale"))
		c->path = AF_SC_SCALE, w = 3;
	else
		return af_diag_error(r->d, AF_EUNSUP, "%s: path '%s' (only translation, rotation and scale are animation "
				     "data here)", what, path);
	c->node = (size_t)node;
	sm = json_object_array_get_idx(samplers, si);
	snprintf(what, sizeof(what), "animations[%zu].samplers[%llu]", ai, si);
	interp = get(sm, "interpolation") ? json_object_get_string(get(sm, "interpolation")) : "LINEAR";
	if (strcmp(interp, "LINEAR") && strcmp(interp, "STEP"))
		return af_diag_error(r->d, AF_EUNSUP, "%s: %s interpolation (export with LINEAR or STEP)", what, interp);
	if (num(r, sm, "input", what, -1, ULONG_MAX >> 1, &in) || num(r, sm, "output", what, -1, ULONG_MAX >> 1, &out))
		return AF_EINVAL;
	if (!(c->t = accessor(r, (size_t)in, 1, &c->n)) || !(c->v = accessor(r, (size_t)out, w, &nv)))
		return r->d->code;
	if (nv != c->n)
		return af_diag_error(r->d, AF_EINVAL, "%s: %zu times but %zu values", what, c->n, nv);
	for (size_t k = 1; k < c->n; k++)
		if (!(c->t[k] > c->t[k - 1]))
			return af_diag_error(r->d, AF_EINVAL, "%s: time %zu (%g s) is not after the one before", what, k,
					     (double)c->t[k]);
	if (c->t[0] < 0)
		return af_diag_error(r->d, AF_EINVAL, "%s: a time before 0 s", what);
	return 0;
}

static int animations(struct rd *r, struct af_gin *g)
{
	struct json_object *as = get(r->root, "animations");
	size_t na = count(as), nc = 0;
	for (size_t i = 0; i < na; i++)
		nc += count(get(json_object_array_get_idx(as, i), "channels"));
	if (!na)
		return 0;
	g->anim = af_alloc_zeroed(na, sizeof(*g->anim));
	g->ch = nc ? af_alloc_zeroed(nc, sizeof(*g->ch)) : NULL;
	if (!g->anim || (nc && !g->ch))
		return af_diag_error(r->d, AF_ENOMEM, "out of memory");
	g->nanim = na;
	for (size_t i = 0; i < na; i++) {
		struct json_object *an = json_object_array_get_idx(as, i), *nm = get(an, "name");
		struct af_gin_anim *a = &g->anim[i];
		if (!(a->name = af_strcopy(nm ? json_object_get_string(nm) : "")))
			return af_diag_error(r->d, AF_ENOMEM, "out of memory");
		a->first = g->nch;
		for (size_t k = 0; k < count(get(an, "channels")); k++) {
			int rc = channel(r, an, i, k, g, &g->ch[g->nch++]);
			if (rc)
				return rc;
			a->count++;
		}
	}
	return 0;
}

void af_gin_free(struct af_gin *g)
{
	for (size_t i = 0; g->name && i < g->nnode; i++)
		free(g->name[i]);
	for (size_t i = 0; g->anim && i < g->nanim; i++)
		free(g->anim[i].name);
	for (size_t i = 0; g->ch && i < g->nch; i++) {
		free(g->ch[i].t);
		free(g->ch[i].v);
	}
	free(g->name);
	free(g->parent);
	free(g->anim);
	free(g->ch);
	memset(g, 0, sizeof(*g));
}

int af_gltf_read(const uint8_t *b, size_t n, struct af_gin *g, struct af_diag *d)
{
	struct rd r = { .d = d, .budget = n };
	const uint8_t *json = b, *bin = NULL;
	size_t njson = n, nbin = 0;
	struct json_tokener *tok = NULL;
	int rc = AF_EINVAL;
	memset(g, 0, sizeof(*g));
	if (n >= 4 && !memcmp(b, "glTF", 4)) {
		uint32_t len, clen;
		if (n < 20 || af_le32(b + 4) != 2)
			return af_diag_error(d, AF_EINVAL, "a GLB header of version %u (2 is glTF 2.0)", n >= 8 ? af_le32(b + 4) : 0);
		len = af_le32(b + 8);
		clen = af_le32(b + 12);
		if (len > n || len < 20 || af_le32(b + 16) != GLB_JSON || clen > len - 20)
			return af_diag_error(d, AF_EINVAL, "a GLB whose header or JSON chunk (%u bytes) does not fit its %zu "
					     "bytes", clen, n);
		json = b + 20, njson = clen;
		if (20 + (size_t)clen + 8 <= len) {
			const uint8_t *c = b + 20 + clen;
			uint32_t blen = af_le32(c);
			if (af_le32(c + 4) != GLB_BIN || blen > len - 20 - clen - 8)
				return af_diag_error(d, AF_EINVAL, "a GLB whose binary chunk (%u bytes) does not fit its %u bytes",
						     blen, len);
			bin = c + 8, nbin = blen;
		}
	}
	if (njson > INT_MAX)
		return af_diag_error(d, AF_EINVAL, "a glTF JSON of %zu bytes", njson);
	if (!(tok = json_tokener_new_ex(MAX_DEPTH)))
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	r.root = json_tokener_parse_ex(tok, (const char *)json, (int)njson);
	if (!r.root || json_tokener_get_error(tok) != json_tokener_success ||
	    !json_object_is_type(r.root, json_type_object)) {
		rc = af_diag_error(d, AF_EINVAL, "not glTF: its JSON does not read (%s, near byte %zu)",
				   json_tokener_error_desc(json_tokener_get_error(tok)), json_tokener_get_parse_end(tok));
		goto out;
	}
	r.budget = 4 * n; /* floats copied, over all accessors */
	if (!(rc = buffers(&r, bin, nbin)) && !(rc = nodes(&r, g)))
		rc = animations(&r, g);
out:
	if (rc)
		af_gin_free(g);
	for (size_t i = 0; i < r.nbuf; i++)
		af_buf_free(&r.bufs[i]);
	free(r.bufs);
	free(r.bdata);
	free(r.blen);
	json_object_put(r.root);
	json_tokener_free(tok);
	return rc;
}
