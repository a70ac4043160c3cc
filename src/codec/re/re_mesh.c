/* RE models: the meshes and texture of a view for glTF previews (scene.h), from the carried
 * sections of the YAML (base64): MD1 (RE2) and MD2 (RE3) objects (spec 6.1, 6.2), object i
 * drawn by bone i, every corner its own vertex (position, normal and texture coordinate are
 * indexed apart); and the TIM texture (6.3), each CLUT row's colours as one band of the
 * image, a primitive's CLUT picking its band. Every offset and index is checked against
 * the section's bytes: one past them is an error naming the object, never a read. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/bytes.h"
#include "animfs/curves.h"
#include "animfs/scene.h"
#include "re.h"

struct tex {
	int have;
	unsigned w, h, bands;  /* the image (pixels), and how many palettes are stacked */
	unsigned x, y, ppw;    /* its VRAM place (16-bit units) and pixels per unit */
	unsigned clut_y;       /* the first CLUT row */
};

/* A 16-bit PlayStation colour as RGBA; 0 (black, no STP bit) is transparent. */
static void color(uint16_t c, uint8_t *o)
{
	o[0] = (uint8_t)((c & 31) * 255 / 31);
	o[1] = (uint8_t)((c >> 5 & 31) * 255 / 31);
	o[2] = (uint8_t)((c >> 10 & 31) * 255 / 31);
	o[3] = c ? 255 : 0;
}

/* The TIM as the scene's image; a TIM of a kind not drawn (24 bits, no CLUT) is none. */
static void tim(struct af_scene *sc, const uint8_t *p, size_t n, struct tex *t)
{
	uint32_t flags, mode, csize = 0, cw = 0, ch = 0, cy = 0;
	const uint8_t *clut = NULL, *img;
	if (n < 8 || af_le32(p) != 0x10)
		return;
	flags = af_le32(p + 4);
	mode = flags & 3;
	if (flags & 8) {
		if (n < 20 || (csize = af_le32(p + 8)) < 12 || !af_fits(8, csize, n))
			return;
		cy = af_le16(p + 14), cw = af_le16(p + 16), ch = af_le16(p + 18);
		clut = p + 20;
		if (!cw || !ch || (uint64_t)cw * ch * 2 > csize - 12)
			return;
	}
	if (!af_fits(8 + csize, 12, n) || mode == 3 || (mode < 2 && !clut))
		return;
	img = p + 8 + csize;
	t->x = af_le16(img + 4), t->y = af_le16(img + 6);
	t->ppw = mode == 0 ? 4 : mode == 1 ? 2 : 1;
	t->w = af_le16(img + 8) * t->ppw, t->h = af_le16(img + 10);
	t->bands = mode < 2 ? ch : 1;
	t->clut_y = cy;
	if (!t->w || !t->h || !af_fits(8 + csize + 12, (uint64_t)t->w * t->h * (mode == 2 ? 2 : 1) / (mode ? 1 : 2), n) ||
	    (uint64_t)t->h * t->bands > AF_SCENE_MAX_IMAGE || t->w > AF_SCENE_MAX_IMAGE)
		return;
	uint8_t *rgba = af_scene_image(sc, t->w, t->h * t->bands);
	if (!rgba)
		return;
	img += 12;
	for (unsigned b = 0; b < t->bands; b++)
		for (unsigned y = 0; y < t->h; y++)
			for (unsigned x = 0; x < t->w; x++) {
				size_t at = (size_t)y * t->w + x;
				unsigned idx = mode == 0 ? (img[at / 2] >> (x & 1 ? 4 : 0)) & 15 : mode == 1 ? img[at] : 0;
				uint16_t c = mode == 2 ? af_le16(img + 2 * at) : af_le16(clut + 2 * ((size_t)b * cw + (idx < cw ? idx : 0)));
				color(c, rgba + 4 * (((size_t)b * t->h + y) * t->w + x));
			}
	t->have = 1;
}

/* A corner's texture coordinate from its u, v, the primitive's texture page and CLUT. */
static void corner_uv(const struct tex *t, unsigned u, unsigned v, unsigned page, unsigned clut, float *o)
{
	long px = ((long)(page & 15) * 64 - (long)t->x) * (long)t->ppw + (long)u;
	long py = (long)((page >> 4) & 1) * 256 - (long)t->y + (long)v;
	long band = clut ? (long)(clut >> 6) - (long)t->clut_y : 0;
	if (band < 0 || band >= (long)t->bands)
		band = 0;
	o[0] = (float)(((double)px + 0.5) / t->w);
	o[1] = (float)(((double)band * t->h + (double)py + 0.5) / ((double)t->h * t->bands));
}

/* One corner: position and normal from the section's s16 triples. */
static void corner(struct af_scene_mesh *m, size_t k, const uint8_t *v, const uint8_t *nrm)
{
	for (int a = 0; a < 3; a++) {
		m->pos[3 * k + (size_t)a] = (float)(int16_t)af_le16(v + 2 * a);
		m->nrm[3 * k + (size_t)a] = (float)(int16_t)af_le16(nrm + 2 * a);
	}
}

struct prim {
	const uint8_t *vtx, *nrm; /* the object's arrays */
	uint32_t nv, nn;
};

static int past(struct af_diag *d, const struct af_ynode *at, unsigned obj, const char *what, unsigned i,
		unsigned idx, unsigned n)
{
	return af_diag_at_mark(d, AF_EINVAL, at->line, at->col,
			       "line %u: mesh object %u: %s %u points at vertex %u past its %u vertices", at->line, obj,
			       what, i, idx, n);
}

/* Object obj's triangles (corners 3) or quads (4): per primitive k, its vertex and normal
 * indices (vi, ni) and the texture words (u, v, page, clut), from the format's reader. */
typedef void prim_fn(const uint8_t *rec, const uint8_t *tex, unsigned *vi, unsigned *ni, unsigned *u, unsigned *v,
		     unsigned *page, unsigned *clut);

static void md2_tri(const uint8_t *r, const uint8_t *tx, unsigned *vi, unsigned *ni, unsigned *u, unsigned *v,
		    unsigned *page, unsigned *clut)
{
	(void)tx;
	vi[0] = r[7], vi[1] = r[10], vi[2] = r[11];
	u[0] = r[0], v[0] = r[1], u[1] = r[4], v[1] = r[5], u[2] = r[8], v[2] = r[9];
	*clut = af_le16(r + 2), *page = r[6];
	memcpy(ni, vi, 3 * sizeof(*vi));
}

static void md2_quad(const uint8_t *r, const uint8_t *tx, unsigned *vi, unsigned *ni, unsigned *u, unsigned *v,
		     unsigned *page, unsigned *clut)
{
	(void)tx;
	vi[0] = r[10], vi[1] = r[11], vi[2] = r[14], vi[3] = r[15];
	u[0] = r[0], v[0] = r[1], u[1] = r[4], v[1] = r[5], u[2] = r[8], v[2] = r[9], u[3] = r[12], v[3] = r[13];
	*clut = af_le16(r + 2), *page = r[6];
	memcpy(ni, vi, 4 * sizeof(*vi));
}

static void md1_prim(const uint8_t *r, const uint8_t *tx, unsigned *vi, unsigned *ni, unsigned *u, unsigned *v,
		     unsigned *page, unsigned *clut, int corners)
{
	for (int c = 0; c < corners; c++)
		ni[c] = af_le16(r + 4 * c), vi[c] = af_le16(r + 4 * c + 2);
	u[0] = tx[0], v[0] = tx[1], u[1] = tx[4], v[1] = tx[5], u[2] = tx[8], v[2] = tx[9];
	if (corners == 4)
		u[3] = tx[12], v[3] = tx[13];
	*clut = af_le16(tx + 2), *page = af_le16(tx + 6);
}

static void md1_tri(const uint8_t *r, const uint8_t *tx, unsigned *vi, unsigned *ni, unsigned *u, unsigned *v,
		    unsigned *page, unsigned *clut)
{
	md1_prim(r, tx, vi, ni, u, v, page, clut, 3);
}

static void md1_quad(const uint8_t *r, const uint8_t *tx, unsigned *vi, unsigned *ni, unsigned *u, unsigned *v,
		     unsigned *page, unsigned *clut)
{
	md1_prim(r, tx, vi, ni, u, v, page, clut, 4);
}

struct part {            /* one run of primitives of an object */
	struct prim p;
	const uint8_t *rec, *tex; /* records (and MD1's texture records) */
	uint32_t count, size, tsize;
	int corners;
	prim_fn *read;
};

/* The mesh of object obj from its parts (triangles, quads), drawn by node. */
static int object_mesh(struct af_scene *sc, const struct tex *t, const struct part *parts, int nparts, unsigned obj,
		       size_t node, const struct af_ynode *at, struct af_diag *d)
{
	size_t nv = 0, ni = 0, k = 0, x = 0, m;
	char name[32];
	for (int i = 0; i < nparts; i++)
		nv += (size_t)parts[i].count * (size_t)parts[i].corners,
			ni += (size_t)parts[i].count * (parts[i].corners == 4 ? 6 : 3);
	if (!ni)
		return 0;
	snprintf(name, sizeof(name), "object %u", obj);
	if ((m = af_scene_mesh(sc, name, nv, 1, t->have, ni, at->line)) == SIZE_MAX)
		return AF_ENOMEM;
	struct af_scene_mesh *me = &sc->mesh[m];
	for (int i = 0; i < nparts; i++) {
		const struct part *pt = &parts[i];
		for (uint32_t q = 0; q < pt->count; q++) {
			unsigned vi[4], nidx[4], u[4], v[4], page, clut;
			pt->read(pt->rec + (size_t)q * pt->size, pt->tex ? pt->tex + (size_t)q * pt->tsize : NULL, vi, nidx, u,
				 v, &page, &clut);
			for (int c = 0; c < pt->corners; c++) {
				if (vi[c] >= pt->p.nv)
					return past(d, at, obj, pt->corners == 4 ? "quad" : "triangle", q, vi[c], pt->p.nv);
				if (nidx[c] >= pt->p.nn)
					return past(d, at, obj, pt->corners == 4 ? "quad's normal" : "triangle's normal", q,
						    nidx[c], pt->p.nn);
				corner(me, k + (size_t)c, pt->p.vtx + 8 * (size_t)vi[c], pt->p.nrm + 8 * (size_t)nidx[c]);
				if (t->have)
					corner_uv(t, u[c], v[c], page, clut, me->uv + 2 * (k + (size_t)c));
			}
			/* PlayStation quads are strips: (0, 1, 2) and (1, 3, 2) */
			static const unsigned tri[] = { 0, 1, 2 }, quad[] = { 0, 1, 2, 1, 3, 2 };
			const unsigned *o = pt->corners == 4 ? quad : tri;
			for (int c = 0; c < (pt->corners == 4 ? 6 : 3); c++)
				me->idx[x++] = (uint32_t)(k + o[c]);
			k += (size_t)pt->corners;
		}
	}
	sc->node[node].mesh = (long)m;
	return 0;
}

static int bad_mesh(struct af_diag *d, const struct af_ynode *at, unsigned obj, const char *what)
{
	return af_diag_at_mark(d, AF_EINVAL, at->line, at->col, "line %u: mesh object %u: %s past the section's end",
			       at->line, obj, what);
}

/* MD2 (spec 6.1): descriptors of 24 bytes after 8; offsets from +8. */
static int md2(struct af_scene *sc, const struct tex *t, const uint8_t *p, size_t n, size_t first, size_t nbones,
	       const struct af_ynode *at, struct af_diag *d)
{
	uint32_t count;
	if (n < 8 || !af_fits(8, (uint64_t)(count = af_le32(p + 4)) * 24, n))
		return af_diag_at_mark(d, AF_EINVAL, at->line, at->col, "line %u: MD2 mesh: its object table is past its end",
				       at->line);
	const uint8_t *b = p + 8;
	size_t bn = n - 8;
	for (uint32_t o = 0; o < count && o < nbones; o++) {
		const uint8_t *e = b + 24 * (size_t)o;
		uint32_t vo = af_le32(e), no = af_le32(e + 4), vc = af_le32(e + 8), to = af_le32(e + 12), qo = af_le32(e + 16);
		uint32_t tc = af_le16(e + 20), qc = af_le16(e + 22);
		int rc;
		if (!af_fits(vo, (uint64_t)vc * 8, bn) || !af_fits(no, (uint64_t)vc * 8, bn))
			return bad_mesh(d, at, o, "its vertices");
		if (!af_fits(to, (uint64_t)tc * 12, bn) || !af_fits(qo, (uint64_t)qc * 16, bn))
			return bad_mesh(d, at, o, "its primitives");
		struct prim pr = { b + vo, b + no, vc, vc };
		struct part parts[2] = { { pr, b + to, NULL, tc, 12, 0, 3, md2_tri }, { pr, b + qo, NULL, qc, 16, 0, 4, md2_quad } };
		if ((rc = object_mesh(sc, t, parts, 2, o, first + o, at, d)))
			return rc;
	}
	return 0;
}

/* MD1 (spec 6.2): a triangle block and a quad block of 7 u32 per object after 12; offsets
 * from +12. */
static int md1(struct af_scene *sc, const struct tex *t, const uint8_t *p, size_t n, size_t first, size_t nbones,
	       const struct af_ynode *at, struct af_diag *d)
{
	uint32_t blocks;
	if (n < 12 || !af_fits(12, (uint64_t)(blocks = af_le32(p + 8)) * 28, n))
		return af_diag_at_mark(d, AF_EINVAL, at->line, at->col, "line %u: MD1 mesh: its object table is past its end",
				       at->line);
	const uint8_t *b = p + 12;
	size_t bn = n - 12;
	for (uint32_t o = 0; 2 * o < blocks && o < nbones; o++) {
		struct part parts[2];
		int np = 0, rc;
		for (int q = 0; q < 2 && 2 * o + (uint32_t)q < blocks; q++) {
			const uint8_t *e = b + 28 * (size_t)(2 * o + (uint32_t)q);
			uint32_t vo = af_le32(e), vc = af_le32(e + 4), no = af_le32(e + 8), nc = af_le32(e + 12);
			uint32_t po = af_le32(e + 16), pc = af_le32(e + 20), to = af_le32(e + 24), sz = q ? 16 : 12;
			if (!af_fits(vo, (uint64_t)vc * 8, bn) || !af_fits(no, (uint64_t)nc * 8, bn))
				return bad_mesh(d, at, o, "its vertices");
			if (!af_fits(po, (uint64_t)pc * sz, bn) || !af_fits(to, (uint64_t)pc * sz, bn))
				return bad_mesh(d, at, o, "its primitives");
			parts[np++] = (struct part){ { b + vo, b + no, vc, nc }, b + po, b + to, pc, sz, sz, q ? 4 : 3,
						     q ? md1_quad : md1_tri };
		}
		if ((rc = object_mesh(sc, t, parts, np, o, first + o, at, d)))
			return rc;
	}
	return 0;
}

/* A carried section's bytes (its base64 or hex block) appended to out. */
static int bytes_of(const struct af_ynode *s, struct af_buf *out, struct af_diag *d)
{
	const struct af_ynode *b = af_ymap_get(s, "base64");
	return b ? af_y_get_base64(d, b, out, "base64") : af_y_get_hex(d, af_ymap_get(s, "hex"), out, "hex");
}

/* An EMD's texture: the .TIM of the same name beside it (spec 1: EMxx.EMD + EMxx.TIM), its
 * extension in the EMD's case, then in the other, into out; from: the name read, or the
 * one looked for with *from_missing set. 1 when it is an EMD with its siblings at hand,
 * else 0; AF_ENOMEM. */
static int tim_beside(const struct af_ynode *root, struct af_scene *sc, struct af_buf *out, char *from,
		      size_t size, int *from_missing)
{
	const char *kind = af_cv_str(af_ymap_get(root, "kind")), *name = sc->io ? sc->io->name : NULL;
	char stem[1024];
	size_t n;
	if (!kind || strcmp(kind, "emd") || !name || !sc->io->read_sibling)
		return 0;
	n = strlen(name);
	if (n > 5 && !strcmp(name + n - 5, ".yaml")) /* a view: the binary's name */
		n -= 5;
	snprintf(stem, sizeof(stem), "%.*s", (int)n, name);
	char *dot = strrchr(stem, '.');
	if (!dot || dot == stem)
		return 0;
	int lower = dot[1] >= 'a' && dot[1] <= 'z';
	*dot = 0;
	for (int k = 0; k < 2; k++) {
		snprintf(from, size, "%s.%s", stem, (k == 0) == lower ? "tim" : "TIM");
		int rc = sc->io->read_sibling(sc->io->ctx, from, out);
		if (out->failed)
			return AF_ENOMEM;
		if (!rc && out->len)
			return 1;
		af_buf_reset(out);
	}
	snprintf(from, size, "%s.TIM", stem);
	*from_missing = 1;
	return 1;
}

int re_scene_meshes(const struct af_ynode *root, struct af_scene *sc, size_t first, size_t nbones,
		    struct af_diag *d)
{
	const struct af_ynode *data = af_ymap_get(root, "data"), *mesh = NULL;
	struct af_buf tb = AF_BUF_INIT, mb = AF_BUF_INIT;
	struct tex t = { 0 };
	char from[1040], msg[1200];
	int rc = 0, re2 = 0;
	for (size_t i = 0; i < af_cv_count(data); i++) {
		const struct af_ynode *s = &data->items[i];
		const char *role = af_cv_str(af_ymap_get(s, "role"));
		if (!role || (!af_ymap_get(s, "base64") && !af_ymap_get(s, "hex")))
			continue;
		if (!strcmp(role, "tim") && !tb.len && (rc = bytes_of(s, &tb, d)))
			goto out;
		if (!strcmp(role, "mesh-md1") || !strcmp(role, "mesh-md2"))
			mesh = s, re2 = !strcmp(role, "mesh-md1"); /* the last: the RE3 EMD's section 14 */
	}
	if (!mesh)
		goto out;
	int beside = 0, missing = 0, intern = tb.len != 0;
	if (!intern && (beside = tim_beside(root, sc, &tb, from, sizeof(from), &missing)) == AF_ENOMEM) {
		rc = AF_ENOMEM;
		goto out;
	}
	if (tb.len)
		tim(sc, tb.data, tb.len, &t);
	if (beside) {
		snprintf(msg, sizeof(msg), missing ? "none: no %s beside the file (an EMD keeps its texture there)"
				   : t.have ? "%s beside the file (an EMD keeps its texture there)"
					    : "%s beside the file, of a kind not drawn (24 bits, or no palette)", from);
		af_scene_extra(sc, 0, "texture", msg, 0);
	} else if (!t.have) {
		af_scene_extra(sc, 0, "texture", intern ? "a TIM of a kind not drawn (24 bits, or no palette)"
						 : "none in the file (an EMD's is the .TIM beside it)", 0);
	}
	if ((rc = bytes_of(mesh, &mb, d)))
		goto out;
	rc = re2 ? md1(sc, &t, mb.data, mb.len, first, nbones, mesh, d) : md2(sc, &t, mb.data, mb.len, first, nbones, mesh, d);
out:
	af_buf_free(&tb);
	af_buf_free(&mb);
	return rc ? rc : sc->oom ? AF_ENOMEM : 0;
}
