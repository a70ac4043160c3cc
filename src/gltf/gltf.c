/* af_gltf_from_yaml: a view's YAML -> scene (the codec named by the document's `format:`
 * reads it from the document's own keys, through its scene hook) -> glTF 2.0, as a GLB
 * (JSON chunk and one binary chunk) or as JSON with the buffer inline; the texture as a
 * PNG made with zlib. Only the YAML is read; no format is named here. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "animfs/codec.h"
#include "animfs/curves.h"
#include "animfs/gltf.h"
#include "animfs/yamlio.h"

/* ------------------------------------------------------------ PNG */

static void put_be32(struct af_buf *b, uint32_t v)
{
	uint8_t x[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
	af_buf_append(b, x, 4);
}

static void png_chunk(struct af_buf *b, const char *type, const uint8_t *p, size_t n)
{
	uLong crc = crc32(0L, (const Bytef *)type, 4);
	if (n)
		crc = crc32(crc, p, (uInt)n);
	put_be32(b, (uint32_t)n);
	af_buf_append(b, type, 4);
	af_buf_append(b, p, n);
	put_be32(b, (uint32_t)crc);
}

int af_png_rgba(const uint8_t *rgba, unsigned w, unsigned h, struct af_buf *out)
{
	static const uint8_t sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	size_t row = (size_t)w * 4 + 1, raw_n = row * h;
	uLongf zn = compressBound((uLong)raw_n);
	uint8_t *raw = af_alloc(raw_n ? raw_n : 1), *z = af_alloc(zn ? zn : 1), ihdr[13];
	int rc = AF_ENOMEM;
	if (!raw || !z)
		goto out;
	for (unsigned y = 0; y < h; y++) {
		raw[y * row] = 0; /* filter: none */
		memcpy(raw + y * row + 1, rgba + (size_t)y * w * 4, (size_t)w * 4);
	}
	if (compress2(z, &zn, raw, (uLong)raw_n, 6) != Z_OK)
		goto out;
	ihdr[0] = (uint8_t)(w >> 24), ihdr[1] = (uint8_t)(w >> 16), ihdr[2] = (uint8_t)(w >> 8), ihdr[3] = (uint8_t)w;
	ihdr[4] = (uint8_t)(h >> 24), ihdr[5] = (uint8_t)(h >> 16), ihdr[6] = (uint8_t)(h >> 8), ihdr[7] = (uint8_t)h;
	ihdr[8] = 8, ihdr[9] = 6, ihdr[10] = ihdr[11] = ihdr[12] = 0; /* 8 bits, RGBA */
	af_buf_append(out, sig, sizeof(sig));
	png_chunk(out, "IHDR", ihdr, sizeof(ihdr));
	png_chunk(out, "IDAT", z, zn);
	png_chunk(out, "IEND", NULL, 0);
	rc = out->failed ? AF_ENOMEM : 0;
out:
	free(raw);
	free(z);
	return rc;
}

/* ------------------------------------------------------------ glTF */

/* The writer: the binary chunk goes straight into its place in the output (bin, from
 * bin0: a GLB's; the buffer own for JSON, which inlines it as base64), the JSON's parts
 * beside it; a GLB's head and JSON are put in front of it at the end. */
struct gw {
	struct af_buf *bin, own, views, acc;
	size_t bin0, nviews, nacc;
};

static size_t bin_len(const struct gw *g)
{
	return g->bin->len - g->bin0;
}

static void bin_align(struct gw *g)
{
	while (bin_len(g) & 3 && !g->bin->failed)
		af_buf_putc(g->bin, 0);
}

/* A bufferView of the bytes (target 0: none) as its index. */
static size_t view(struct gw *g, const void *p, size_t n, unsigned target)
{
	bin_align(g);
	af_buf_printf(&g->views, "%s{\"buffer\": 0, \"byteOffset\": %zu, \"byteLength\": %zu", g->nviews ? ", " : "",
		      bin_len(g), n);
	if (target)
		af_buf_printf(&g->views, ", \"target\": %u", target);
	af_buf_puts(&g->views, "}");
	af_buf_append(g->bin, p, n);
	return g->nviews++;
}

/* An accessor of count floats of width w (1, 2, 3, 4) in a new view, with min and max
 * when minmax; as its index. */
static size_t floats(struct gw *g, const float *p, size_t count, int w, unsigned target, int minmax)
{
	static const char *const type[] = { "", "SCALAR", "VEC2", "VEC3", "VEC4" };
	size_t v = view(g, p, count * (size_t)w * sizeof(float), target);
	af_buf_printf(&g->acc, "%s{\"bufferView\": %zu, \"componentType\": 5126, \"count\": %zu, \"type\": \"%s\"",
		      g->nacc ? ", " : "", v, count, type[w]);
	if (minmax) {
		float lo[4], hi[4];
		for (int e = 0; e < w; e++)
			lo[e] = hi[e] = p[e];
		for (size_t i = 1; i < count; i++)
			for (int e = 0; e < w; e++)
				lo[e] = fminf(lo[e], p[i * (size_t)w + (size_t)e]),
				hi[e] = fmaxf(hi[e], p[i * (size_t)w + (size_t)e]);
		for (int m = 0; m < 2; m++) {
			af_buf_puts(&g->acc, m ? ", \"max\": [" : ", \"min\": [");
			for (int e = 0; e < w; e++)
				af_buf_printf(&g->acc, "%s%.9g", e ? ", " : "", (double)(m ? hi[e] : lo[e]));
			af_buf_puts(&g->acc, "]");
		}
	}
	af_buf_puts(&g->acc, "}");
	return g->nacc++;
}

/* An accessor of count column-major 4x4 matrices (a skin's inverse bind matrices). */
static size_t mat4s(struct gw *g, const float *p, size_t count)
{
	size_t v = view(g, p, count * 16 * sizeof(float), 0);
	af_buf_printf(&g->acc, "%s{\"bufferView\": %zu, \"componentType\": 5126, \"count\": %zu, \"type\": \"MAT4\"}",
		      g->nacc ? ", " : "", v, count);
	return g->nacc++;
}

static size_t indices(struct gw *g, const uint32_t *p, size_t count)
{
	size_t v = view(g, p, count * sizeof(uint32_t), 34963);
	af_buf_printf(&g->acc, "%s{\"bufferView\": %zu, \"componentType\": 5125, \"count\": %zu, \"type\": \"SCALAR\"}",
		      g->nacc ? ", " : "", v, count);
	return g->nacc++;
}

static void base64(struct af_buf *b, const uint8_t *p, size_t n)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
		char q[4] = { t[v >> 18 & 63], t[v >> 12 & 63], i + 1 < n ? t[v >> 6 & 63] : '=', i + 2 < n ? t[v & 63] : '=' };
		af_buf_append(b, q, 4);
	}
}

static void trs(struct af_buf *j, const double t[3], const double r[4], const double s[3])
{
	if (t[0] || t[1] || t[2])
		af_buf_printf(j, ", \"translation\": [%.9g, %.9g, %.9g]", t[0], t[1], t[2]);
	if (r[0] || r[1] || r[2] || r[3] != 1) {
		double l = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
		af_buf_printf(j, ", \"rotation\": [%.9g, %.9g, %.9g, %.9g]", r[0] / l, r[1] / l, r[2] / l, r[3] / l);
	}
	if (s[0] != 1 || s[1] != 1 || s[2] != 1)
		af_buf_printf(j, ", \"scale\": [%.9g, %.9g, %.9g]", s[0], s[1], s[2]);
}

/* The meshes (a mesh with no triangle is left out: *map says -1), the image and material. */
static void meshes(const struct af_scene *sc, struct gw *g, struct af_buf *j, long *map)
{
	size_t nm = 0;
	int textured = sc->img != NULL;
	if (textured) {
		struct af_buf png = AF_BUF_INIT;
		size_t v;
		af_png_rgba(sc->img, sc->img_w, sc->img_h, &png);
		if (png.failed) {
			g->bin->failed = 1;
			af_buf_free(&png);
			return;
		}
		v = view(g, png.data, png.len, 0);
		af_buf_free(&png);
		af_buf_printf(j, ", \"images\": [{\"bufferView\": %zu, \"mimeType\": \"image/png\"}]", v);
		af_buf_puts(j, ", \"samplers\": [{\"magFilter\": 9728, \"minFilter\": 9728}]");
		af_buf_puts(j, ", \"textures\": [{\"sampler\": 0, \"source\": 0}]");
		af_buf_puts(j, ", \"materials\": [{\"name\": \"texture\", \"pbrMetallicRoughness\": "
			       "{\"baseColorTexture\": {\"index\": 0}, \"metallicFactor\": 0}, \"alphaMode\": \"MASK\", "
			       "\"doubleSided\": true}]");
	}
	for (size_t i = 0; i < sc->nmesh; i++) {
		const struct af_scene_mesh *m = &sc->mesh[i];
		size_t pa, na = 0, ua = 0, ia;
		map[i] = -1;
		if (!m->nv || !m->ni)
			continue;
		pa = floats(g, m->pos, m->nv, 3, 34962, 1);
		if (m->nrm)
			na = floats(g, m->nrm, m->nv, 3, 34962, 0);
		if (m->uv)
			ua = floats(g, m->uv, m->nv, 2, 34962, 0);
		ia = indices(g, m->idx, m->ni);
		af_buf_puts(j, nm ? ", " : ", \"meshes\": [");
		af_buf_puts(j, "{\"name\": ");
		af_scene_jstr(j, m->name);
		af_buf_printf(j, ", \"primitives\": [{\"attributes\": {\"POSITION\": %zu", pa);
		if (m->nrm)
			af_buf_printf(j, ", \"NORMAL\": %zu", na);
		if (m->uv)
			af_buf_printf(j, ", \"TEXCOORD_0\": %zu", ua);
		af_buf_printf(j, "}, \"indices\": %zu", ia);
		if (m->uv && textured)
			af_buf_puts(j, ", \"material\": 0");
		af_buf_puts(j, "}]}");
		map[i] = (long)nm++;
	}
	if (nm)
		af_buf_puts(j, "]");
}

/* ------------------------------------------------------------ the skin */

/* m = the affine matrix (column-major) of translation t, rotation r (unit or not) and scale s. */
static void trs_matrix(const double t[3], const double r[4], const double s[3], double m[16])
{
	double l = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
	double x = l > 0 ? r[0] / l : 0, y = l > 0 ? r[1] / l : 0, z = l > 0 ? r[2] / l : 0, w = l > 0 ? r[3] / l : 1;
	double R[9] = { 1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w),
			2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
			2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y) };
	for (int c = 0; c < 3; c++) {
		for (int e = 0; e < 3; e++)
			m[c * 4 + e] = R[c * 3 + e] * s[c];
		m[c * 4 + 3] = 0;
	}
	m[12] = t[0], m[13] = t[1], m[14] = t[2], m[15] = 1;
}

static void mat_mul(const double a[16], const double b[16], double o[16])
{
	double r[16];
	for (int c = 0; c < 4; c++)
		for (int e = 0; e < 4; e++)
			r[c * 4 + e] = a[e] * b[c * 4] + a[4 + e] * b[c * 4 + 1] + a[8 + e] * b[c * 4 + 2] +
				       a[12 + e] * b[c * 4 + 3];
	memcpy(o, r, sizeof(r));
}

/* The inverse of an affine matrix (column-major) into f; the identity when it has none. */
static void affine_inverse(const double m[16], float *f)
{
	double a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], g = m[9], h = m[2], i = m[6], k = m[10];
	double A = e * k - g * i, B = -(d * k - g * h), C = d * i - e * h, det = a * A + b * B + c * C;
	double inv[9], o[16];
	if (!isfinite(det) || fabs(det) < 1e-30) {
		for (int n = 0; n < 16; n++)
			f[n] = n % 5 == 0;
		return;
	}
	/* the 3x3 part's inverse (row-major): its adjugate over det */
	inv[0] = A / det, inv[1] = -(b * k - c * i) / det, inv[2] = (b * g - c * e) / det;
	inv[3] = B / det, inv[4] = (a * k - c * h) / det, inv[5] = -(a * g - c * d) / det;
	inv[6] = C / det, inv[7] = -(a * i - b * h) / det, inv[8] = (a * e - b * d) / det;
	for (int r = 0; r < 3; r++) {
		for (int col = 0; col < 3; col++)
			o[col * 4 + r] = inv[r * 3 + col];
		o[12 + r] = -(inv[r * 3] * m[12] + inv[r * 3 + 1] * m[13] + inv[r * 3 + 2] * m[14]);
		o[r * 4 + 3] = 0;
	}
	o[15] = 1;
	for (int n = 0; n < 16; n++)
		f[n] = (float)o[n];
}

/* The skin: every node of the model a joint, so that an importer (Blender's) makes one
 * armature of them and one action of each animation, each joint's bind matrix the inverse
 * of its rest transform in the model (under the root node, when there is one). A parent may
 * follow its child: each node's chain is walked up to a node already placed, then placed
 * downwards (af_scene_check proved there is no loop). */
static void skin(const struct af_scene *sc, struct gw *g, struct af_buf *j)
{
	double *world = af_alloc(sc->nnode * 16 * sizeof(double));
	float *ibm = af_alloc(sc->nnode * 16 * sizeof(float));
	size_t *chain = af_alloc(sc->nnode * sizeof(size_t)), acc;
	unsigned char *done = af_alloc_zeroed(sc->nnode, 1);
	if (!world || !ibm || !chain || !done) {
		g->bin->failed = 1;
		goto out;
	}
	for (size_t i = 0; i < sc->nnode; i++) {
		size_t n = 0;
		for (long k = (long)i; k >= 0 && !done[k]; k = sc->node[k].parent)
			chain[n++] = (size_t)k;
		while (n--) {
			const struct af_scene_node *nd = &sc->node[chain[n]];
			double local[16];
			trs_matrix(nd->t, nd->r, nd->s, local);
			if (nd->parent >= 0)
				mat_mul(world + (size_t)nd->parent * 16, local, world + chain[n] * 16);
			else
				memcpy(world + chain[n] * 16, local, sizeof(local));
			done[chain[n]] = 1;
		}
	}
	for (size_t i = 0; i < sc->nnode; i++)
		affine_inverse(world + i * 16, ibm + i * 16);
	acc = mat4s(g, ibm, sc->nnode);
	af_buf_printf(j, ", \"skins\": [{\"name\": \"skeleton\", \"inverseBindMatrices\": %zu, \"joints\": [", acc);
	for (size_t i = 0; i < sc->nnode; i++)
		af_buf_printf(j, "%s%zu", i ? ", " : "", i);
	af_buf_puts(j, "]}]");
out:
	free(world);
	free(ibm);
	free(chain);
	free(done);
}

/* Each node's children in order (kid[first[i]] .. kid[first[i + 1] - 1]): a counting
 * sort, where a scan of every node for each node's children was quadratic. */
static void children(const struct af_scene *sc, size_t *first, size_t *kid)
{
	size_t n = sc->nnode;
	memset(first, 0, (n + 1) * sizeof(*first));
	for (size_t k = 0; k < n; k++)
		if (sc->node[k].parent >= 0 && (size_t)sc->node[k].parent < n)
			first[sc->node[k].parent + 1]++;
	for (size_t i = 0; i < n; i++)
		first[i + 1] += first[i];
	for (size_t k = 0; k < n; k++) /* first[p] the next free slot of p, for now */
		if (sc->node[k].parent >= 0 && (size_t)sc->node[k].parent < n)
			kid[first[sc->node[k].parent]++] = k;
	for (size_t i = n; i > 0; i--) /* back to where each starts */
		first[i] = first[i - 1];
	first[0] = 0;
}

static void nodes(const struct af_scene *sc, struct af_buf *j, const long *map, int wrap)
{
	size_t roots = 0;
	size_t *first = af_alloc((sc->nnode + 1) * sizeof(*first)), *kid = af_alloc((sc->nnode + 1) * sizeof(*kid));
	if (!first || !kid) {
		j->failed = 1;
		free(first);
		free(kid);
		return;
	}
	children(sc, first, kid);
	af_buf_puts(j, ", \"nodes\": [");
	for (size_t i = 0; i < sc->nnode; i++) {
		const struct af_scene_node *n = &sc->node[i];
		size_t kids = 0, after = first[i];
		af_buf_puts(j, i ? ", {\"name\": " : "{\"name\": ");
		af_scene_jstr(j, n->name);
		trs(j, n->t, n->r, n->s);
		if (n->mesh >= 0 && map[n->mesh] >= 0)
			af_buf_printf(j, ", \"mesh\": %ld", map[n->mesh]);
		while (after < first[i + 1] && kid[after] < i)
			after++;
		for (size_t c = after; c < first[i + 1]; c++) /* children after their parent mostly */
			af_buf_printf(j, "%s%zu", kids++ ? ", " : ", \"children\": [", kid[c]);
		for (size_t c = first[i]; c < after; c++)
			af_buf_printf(j, "%s%zu", kids++ ? ", " : ", \"children\": [", kid[c]);
		af_buf_puts(j, kids ? "]}" : "}");
	}
	free(first);
	free(kid);
	if (wrap) {
		double t[3] = { 0 }, s[3] = { sc->scale, sc->scale, sc->scale };
		af_buf_puts(j, sc->nnode ? ", {\"name\": " : "{\"name\": ");
		af_scene_jstr(j, sc->root_name[0] ? sc->root_name : "skeleton root");
		trs(j, t, sc->axes, s);
		for (size_t i = 0; i < sc->nnode; i++)
			if (sc->node[i].parent < 0)
				af_buf_printf(j, "%s%zu", roots++ ? ", " : ", \"children\": [", i);
		af_buf_puts(j, roots ? "]}" : "}");
	}
	af_buf_puts(j, "], \"scene\": 0, \"scenes\": [{\"nodes\": [");
	roots = 0;
	if (wrap)
		af_buf_printf(j, "%zu", sc->nnode);
	else
		for (size_t i = 0; i < sc->nnode; i++)
			if (sc->node[i].parent < 0)
				af_buf_printf(j, "%s%zu", roots++ ? ", " : "", i);
	af_buf_puts(j, "]}]");
}

/* Whether an animation's timing was given (af_scene_timing), as numbers JSON can hold. */
static int timed(const struct af_scene_anim *an)
{
	return an->rate > 0 && an->rate < 1e6 && isfinite(an->frames) && isfinite(an->duration);
}

/* An animation's extras: its timing and source (the file's title, then the codec's words),
 * then what the codec added. */
static void anim_extras(const struct af_scene_anim *an, const char *title, struct af_buf *j)
{
	af_buf_puts(j, ", \"extras\": {\"animfs\": {");
	if (timed(an)) {
		char src[512];
		snprintf(src, sizeof(src), "%s%s%s", title ? title : "", title && an->source[0] ? ": " : "", an->source);
		af_buf_printf(j, "\"frame_rate\": %.6g, \"frames\": %.9g, \"duration\": %.9g, \"source\": ", an->rate,
			      an->frames, an->duration);
		af_scene_jstr(j, src);
		if (an->extras.len)
			af_buf_puts(j, ", ");
	}
	af_buf_append(j, an->extras.data, an->extras.len);
	af_buf_puts(j, "}}");
}

static void animations(const struct af_scene *sc, struct gw *g, struct af_buf *j, const char *title)
{
	static const char *const path[] = { "translation", "rotation", "scale" };
	for (size_t a = 0; a < sc->nanim; a++) {
		const struct af_scene_anim *an = &sc->anim[a];
		af_buf_puts(j, a ? ", {\"name\": " : ", \"animations\": [{\"name\": ");
		if (timed(an)) { /* "<name> @30fps": the rate an importer's scene wants */
			char name[200];
			snprintf(name, sizeof(name), "%s @%.6gfps", an->name, an->rate);
			af_scene_jstr(j, name);
		} else {
			af_scene_jstr(j, an->name);
		}
		af_buf_puts(j, ", \"samplers\": [");
		for (size_t i = 0; i < an->count; i++) {
			const struct af_scene_channel *c = &sc->ch[an->first + i];
			size_t in = floats(g, c->t, c->n, 1, 0, 1);
			size_t out = floats(g, c->v, c->n, c->path == AF_SC_ROTATION ? 4 : 3, 0, 0);
			af_buf_printf(j, "%s{\"input\": %zu, \"output\": %zu, \"interpolation\": \"%s\"}", i ? ", " : "", in,
				      out, c->step ? "STEP" : "LINEAR");
		}
		af_buf_puts(j, "], \"channels\": [");
		for (size_t i = 0; i < an->count; i++) {
			const struct af_scene_channel *c = &sc->ch[an->first + i];
			af_buf_printf(j, "%s{\"sampler\": %zu, \"target\": {\"node\": %zu, \"path\": \"%s\"}}", i ? ", " : "", i,
				      c->node, path[c->path]);
		}
		af_buf_puts(j, "]");
		if (an->extras.len || timed(an))
			anim_extras(an, title, j);
		af_buf_puts(j, "}");
	}
	if (sc->nanim)
		af_buf_puts(j, "]");
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

/* The GLB's head, JSON chunk and the binary chunk's head put in front of the binary chunk
 * (at start of out, bin bytes long), which moves up in place: 0, or -1. */
static int glb_front(struct af_buf *out, size_t start, size_t bin, const struct af_buf *j)
{
	size_t jl = (j->len + 3) & ~(size_t)3, head = 12 + 8 + jl + (bin ? 8 : 0), total = head + bin;
	if (total > UINT32_MAX || af_buf_reserve(out, head))
		return -1;
	uint8_t *p = out->data + start;
	memmove(p + head, p, bin);
	out->len += head;
	put_le32(p, 0x46546C67); /* "glTF" */
	put_le32(p + 4, 2);
	put_le32(p + 8, (uint32_t)total);
	put_le32(p + 12, (uint32_t)jl);
	put_le32(p + 16, 0x4E4F534A); /* "JSON" */
	memcpy(p + 20, j->data, j->len);
	memset(p + 20 + j->len, ' ', jl - j->len);
	if (bin) {
		put_le32(p + 20 + jl, (uint32_t)bin);
		put_le32(p + 24 + jl, 0x004E4942); /* "BIN\0" */
	}
	return 0;
}

int af_gltf_write(const struct af_scene *sc, int json, const char *title, struct af_buf *out)
{
	return af_gltf_write_room(sc, json, title, NULL, out);
}

/* The JSON's parts (its text, the bufferViews' and accessors' lines, each counted twice:
 * they are copied into the text at the end) and a glTF JSON's own binary buffer, counted
 * with the scene in mem as they grow (each buffer's bound asks; has: what each was let
 * take). */
enum { P_JSON, P_VIEWS, P_ACC, P_OWN, NPARTS };
struct parts {
	const struct af_ybudget *mem;
	size_t scene;
	struct part {
		struct parts *all;
		size_t has;
		struct af_buf_bound b;
	} p[NPARTS];
};

static size_t parts_sum(const struct parts *ps)
{
	size_t sum = ps->scene;
	for (int k = 0; k < NPARTS; k++) {
		size_t n = ps->p[k].has, add = k == P_OWN ? n : n > SIZE_MAX / 2 ? SIZE_MAX : 2 * n;
		sum = sum > SIZE_MAX - add ? SIZE_MAX : sum + add;
	}
	return sum;
}

/* af_buf_bound.more: a part's bytes in all (its max is 0), if the model's room lets them. */
static size_t part_more(void *ctx, size_t want)
{
	struct part *p = ctx;
	size_t was = p->has;
	p->has = want;
	if (p->all->mem->room(p->all->mem->ctx, parts_sum(p->all)))
		return want;
	p->has = was;
	return was;
}

static void parts_bind(struct parts *ps, const struct af_ybudget *mem, size_t scene, struct af_buf *const b[NPARTS])
{
	ps->mem = mem;
	ps->scene = scene;
	for (int k = 0; k < NPARTS; k++) {
		ps->p[k] = (struct part){ps, 0, {0, part_more, &ps->p[k], 0, 0}};
		if (mem && mem->room)
			b[k]->bound = &ps->p[k].b;
	}
}

int af_gltf_write_room(const struct af_scene *sc, int json, const char *title, const struct af_ybudget *mem,
		       struct af_buf *out)
{
	struct gw g = { NULL, AF_BUF_INIT, AF_BUF_INIT, AF_BUF_INIT, 0, 0, 0 };
	struct af_buf j = AF_BUF_INIT;
	struct parts ps;
	parts_bind(&ps, mem, sc->bytes, (struct af_buf *const[NPARTS]){&j, &g.views, &g.acc, &g.own});
	long *map = af_alloc_zeroed(sc->nmesh ? sc->nmesh : 1, sizeof(long));
	int wrap = sc->scale != 1 || sc->axes[0] || sc->axes[1] || sc->axes[2];
	size_t start = out->len, roots = 0;
	int rc = AF_ENOMEM;
	g.bin = json ? &g.own : out;
	g.bin0 = json ? 0 : start;
	if (!map)
		goto out;
	for (size_t i = 0; i < sc->nnode; i++)
		roots += sc->node[i].parent < 0;
	wrap |= roots > 1; /* one root node holds the skeleton's roots: one armature */
	af_buf_puts(&j, "{\"asset\": {\"version\": \"2.0\", \"generator\": \"animfs\", \"extras\": {\"animfs\": {");
	af_buf_printf(&j, "\"added_nodes\": %d", wrap);
	if (title) {
		af_buf_puts(&j, ", \"title\": ");
		af_scene_jstr(&j, title);
	}
	if (sc->extras.len) {
		af_buf_puts(&j, ", ");
		af_buf_append(&j, sc->extras.data, sc->extras.len);
	}
	af_buf_puts(&j, "}}}");
	meshes(sc, &g, &j, map);
	if (sc->nnode || wrap)
		nodes(sc, &j, map, wrap);
	if (sc->nnode)
		skin(sc, &g, &j);
	animations(sc, &g, &j, title);
	bin_align(&g);
	/* the JSON's parts beside the model and the file: counted as they grew (parts_bind) */
	if (j.over || g.views.over || g.acc.over || g.own.over) {
		out->over = 1;
		goto out;
	}
	if (g.nacc)
		af_buf_printf(&j, ", \"accessors\": [%.*s]", (int)g.acc.len, (const char *)g.acc.data);
	if (g.nviews)
		af_buf_printf(&j, ", \"bufferViews\": [%.*s]", (int)g.views.len, (const char *)g.views.data);
	af_buf_free(&g.acc);
	af_buf_free(&g.views);
	if (bin_len(&g)) {
		af_buf_printf(&j, ", \"buffers\": [{\"byteLength\": %zu", bin_len(&g));
		if (json) {
			af_buf_puts(&j, ", \"uri\": \"data:application/octet-stream;base64,");
			base64(&j, g.own.data, g.own.len);
			af_buf_puts(&j, "\"");
		}
		af_buf_puts(&j, "}]");
	}
	af_buf_puts(&j, "}\n");
	if (j.failed || g.bin->failed || g.views.failed || g.acc.failed || g.own.failed) {
		out->over |= j.over || g.views.over || g.acc.over || g.own.over;
		goto out;
	}
	if (json)
		af_buf_append(out, j.data, j.len);
	else if (glb_front(out, start, bin_len(&g), &j))
		goto out;
	if (!out->failed)
		rc = 0;
out:
	if (rc)
		out->len = start;
	free(map);
	af_buf_free(&j);
	af_buf_free(&g.own);
	af_buf_free(&g.views);
	af_buf_free(&g.acc);
	return rc;
}

/* The codec of a parsed document (its `format:`) with a scene hook, or NULL with d set. */
static const struct af_codec *codec_of(const struct af_ynode *root, struct af_diag *d)
{
	const char *format = af_cv_str(af_ymap_get(root, "format"));
	const struct af_codec *c;
	if (!format)
		af_diag_error(d, AF_EUNSUP, "no top-level 'format:' key: not an animfs view");
	else if (!(c = af_codec_by_name(format)) || !c->scene)
		af_diag_error(d, AF_EUNSUP, "%s documents have no skeleton or animation to preview", format);
	else
		return c;
	return NULL;
}

/* The scene of the parsed document root added to sc through its codec c's hook. */
static int scene_doc(const struct af_codec *c, const struct af_ynode *root, struct af_scene *sc,
		     struct af_diag *d)
{
	int rc = c->scene(root, sc, d);
	if (!rc && sc->oom)
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
	if (!rc && !sc->extras.len)
		af_scene_extra(sc, 0, "format", c->name, 0);
	return rc;
}

/* The nodes of the document (yaml, n), none of its animations, added to sc first: the
 * skeleton an animation moves. */
static int base_nodes(const uint8_t *yaml, size_t n, const struct af_ybudget *mem, struct af_scene *sc,
		      struct af_diag *d)
{
	static const char *const none[] = { "" };
	struct af_scene base;
	struct af_ydoc doc;
	const struct af_codec *c;
	int rc;
	if (af_scene_init(&base, none, 1))
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	base.room = sc->room;
	base.room_ctx = sc->room_ctx;
	base.bytes = sc->bytes; /* counted with the scene it goes into */
	if (!(rc = af_ydoc_parse(&doc, yaml, n, mem ? mem->lim : NULL, d))) {
		rc = (c = codec_of(doc.root, d)) ? scene_doc(c, doc.root, &base, d) : d->code;
		base.nselect = 0; /* none wanted, none there */
		if (!rc)
			rc = af_scene_check(&base, d); /* the skeleton sound on its own */
		af_ydoc_free(&doc);
	}
	for (size_t i = 0; !rc && i < base.nnode; i++) {
		size_t k = af_scene_node(sc, base.node[i].name, base.node[i].parent, base.node[i].line);
		if (k == SIZE_MAX)
			rc = af_diag_error(d, AF_ENOMEM, "out of memory");
		else
			sc->node[k] = base.node[i], sc->node[k].mesh = -1;
	}
	af_scene_free(&base);
	return rc;
}

/* The view of sibling name of io (decoded by the codec that bids for it, with the same
 * siblings) into yaml: 0, or -1. */
static int sibling_yaml(const struct af_io *io, const char *name, struct af_buf *yaml)
{
	struct af_buf bin = AF_BUF_INIT;
	struct af_io sio = *io;
	struct af_diag q;
	const struct af_codec *c;
	int rc = -1;
	af_diag_init(&q);
	sio.name = name;
	sio.opts = NULL;
	sio.learn_names = NULL;
	if (io->read_sibling(io->ctx, name, &bin) || bin.failed)
		goto out;
	if ((c = af_codec_bid(name, bin.data, bin.len < AF_BID_HEAD ? bin.len : AF_BID_HEAD))) {
		int r = c->to_yaml(bin.data, bin.len, &sio, yaml, &q);
		rc = (r == 0 || r == AF_VIEW_READONLY) && !yaml->failed ? 0 : -1;
	}
out:
	af_diag_free(&q);
	af_buf_free(&bin);
	return rc;
}

/* The skeleton the codec's scene_base hook finds beside the document, added to sc first:
 * 1 with the sibling's name and the hook's rule (a NUL-ended string) in why, or 2 when
 * that sibling made no skeleton (the preview goes on without); 0 when none was found;
 * AF_ENOMEM. */
static int sibling_base(const struct af_codec *c, const struct af_ynode *root, const struct af_io *io,
			const struct af_ybudget *mem, struct af_scene *sc, char *name, size_t size,
			struct af_buf *why)
{
	struct af_buf yaml = AF_BUF_INIT;
	struct af_diag q;
	int rc = 1;
	if (!c->scene_base || !io->list_siblings || !io->read_sibling ||
	    !c->scene_base(root, io, name, size, why))
		return 0;
	af_diag_init(&q);
	af_buf_putc(why, 0);
	if (sibling_yaml(io, name, &yaml) || base_nodes(yaml.data, yaml.len, mem, sc, &q)) {
		sc->nnode = 0; /* a half-made skeleton goes */
		rc = q.code == AF_ENOMEM || sc->over ? AF_ENOMEM : 2;
	}
	if (why->failed)
		rc = AF_ENOMEM;
	af_diag_free(&q);
	af_buf_free(&yaml);
	return rc;
}

/* The parents a skeleton text gives (gltf.h: "CHILD -> PARENT [@ X Y Z]" a line) set in sc,
 * over the codec's, with the rest offset when given; a CHILD the scene lacks is passed
 * over (the text may name a whole skeleton), a PARENT it lacks is an error. A loop is
 * af_scene_check's to find. The count of lines used and of lines with a pair goes to
 * asset.extras. */
static int skeleton_text(struct af_scene *sc, const uint8_t *p, size_t n, struct af_diag *d)
{
	size_t used = 0, pairs = 0, line = 0;
	char note[96];
	for (size_t at = 0; at < n;) {
		const uint8_t *eol = memchr(p + at, '\n', n - at);
		size_t len = eol ? (size_t)(eol - (p + at)) : n - at;
		char buf[600], *s = buf, *arrow, *child, *parent, *at_sign;
		long c, pa = -1;
		double t[3];
		line++;
		if (len >= sizeof(buf))
			return af_diag_error(d, AF_EINVAL, "skeleton line %zu: longer than %zu bytes", line, sizeof(buf) - 1);
		memcpy(buf, p + at, len);
		buf[len] = 0;
		at += len + 1;
		if ((arrow = strchr(s, '#')))
			*arrow = 0;
		while (*s == ' ' || *s == '\t')
			s++;
		for (char *e = s + strlen(s); e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r');)
			*--e = 0;
		if (!*s)
			continue;
		if (!(arrow = strstr(s, " -> ")))
			return af_diag_error(d, AF_EINVAL, "skeleton line %zu: want 'CHILD -> PARENT' (PARENT '-': a root)",
					     line);
		*arrow = 0;
		child = s, parent = arrow + 4;
		while (*parent == ' ')
			parent++;
		if ((at_sign = strstr(parent, " @ "))) { /* the rest offset: three numbers */
			char *p = at_sign + 3, *end;
			*at_sign = 0;
			for (int k = 0; k < 3; k++, p = end) {
				t[k] = strtod(p, &end);
				if (end == p || !isfinite(t[k]))
					return af_diag_error(d, AF_EINVAL, "skeleton line %zu: want '@ X Y Z', three numbers",
							     line);
			}
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p)
				return af_diag_error(d, AF_EINVAL, "skeleton line %zu: '%s' after '@ X Y Z'", line, p);
		}
		pairs++;
		if ((c = af_scene_find(sc, child)) < 0)
			continue;
		if (strcmp(parent, "-") && (pa = af_scene_find(sc, parent)) < 0)
			return af_diag_error(d, AF_EINVAL, "skeleton line %zu: parent '%s' of '%s' is no node of the preview",
					     line, parent, child);
		sc->node[c].parent = pa;
		if (at_sign)
			memcpy(sc->node[c].t, t, sizeof(t));
		used++;
	}
	snprintf(note, sizeof(note), "%zu of its %zu lines name a node of this preview", used, pairs);
	af_scene_extra(sc, 0, "skeleton_text", note, 0);
	return 0;
}

int af_gltf_from_yaml(const uint8_t *yaml, size_t n, const struct af_gltf_opts *o, struct af_buf *out,
		      struct af_diag *d)
{
	struct af_scene sc;
	struct af_ydoc doc;
	struct af_buf why = AF_BUF_INIT;
	const struct af_codec *c;
	const struct af_ybudget *mem = o ? o->mem : NULL;
	char name[1024];
	int rc, parsed = 0, found = 0, from_dir = 0;
	if (af_scene_init(&sc, o ? o->anims : NULL, o ? o->nanims : 0))
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	if (mem) {
		sc.room = mem->room;
		sc.room_ctx = mem->ctx;
	}
	if (o && o->base && (rc = base_nodes(o->base, o->nbase, mem, &sc, d))) /* the skeleton first */
		goto out;
	if ((rc = af_ydoc_parse(&doc, yaml, n, mem ? mem->lim : NULL, d)))
		goto out;
	parsed = 1;
	if (!(c = codec_of(doc.root, d))) {
		rc = d->code;
		goto out;
	}
	if (o && !o->base && o->io)
		found = sibling_base(c, doc.root, o->io, mem, &sc, name, sizeof(name), &why);
	if (o && !o->base && o->rig_dir && !found && (found = sibling_base(c, doc.root, o->rig_dir, mem, &sc, name,
									     sizeof(name), &why)) > 0)
		from_dir = 1;
	if (found == AF_ENOMEM) {
		rc = af_diag_error(d, AF_ENOMEM, sc.over ? "the scene needs more memory than the preview may take"
							 : "out of memory");
		goto out;
	}
	sc.io = o ? o->io : NULL;
	if ((rc = scene_doc(c, doc.root, &sc, d)))
		goto out;
	af_ydoc_free(&doc); /* the scene holds what the preview needs: the tree's room is the file's */
	parsed = 0;
	if (mem && mem->freed)
		mem->freed(mem->ctx);
	if (found == 1) {
		af_scene_extra(&sc, 0, "skeleton_from", name, 0);
		if (from_dir)
			af_scene_extra(&sc, 0, "skeleton_in", "the --rig-dir folder", 0);
		af_scene_extra(&sc, 0, "skeleton_rule", (const char *)why.data, 0);
	} else if (found == 2) {
		af_scene_extra(&sc, 0, "skeleton_unread", name, 0);
	}
	if (o && o->skeleton && (rc = skeleton_text(&sc, o->skeleton, o->nskeleton, d)))
		goto out;
	if ((rc = af_scene_check(&sc, d)))
		goto out;
	if (af_gltf_write_room(&sc, o && o->json, o ? o->title : NULL, mem, out))
		rc = af_diag_error(d, AF_ENOMEM, out->over ? "the preview is larger than it may be"
						    : "out of memory (or a preview past 4 GiB)");
out:
	if (parsed)
		af_ydoc_free(&doc);
	af_buf_free(&why);
	af_scene_free(&sc);
	return rc;
}
