/* The format-neutral scene model (scene.h): what a codec's scene hook builds and the glTF
 * writer writes, with the choice of animations (--anim) and the proof that the model is
 * sound (no parent loop, no index past a mesh, sizes bounded) made here once for every
 * codec. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/curves.h"
#include "animfs/scene.h"

int af_scene_init(struct af_scene *sc, const char *const *select, size_t nselect)
{
	memset(sc, 0, sizeof(*sc));
	sc->scale = 1;
	sc->axes[3] = 1;
	sc->select = select;
	sc->nselect = select ? nselect : 0;
	if (sc->nselect && !(sc->hit = af_alloc_zeroed(sc->nselect, 1)))
		return AF_ENOMEM;
	return 0;
}

void af_scene_free(struct af_scene *sc)
{
	for (size_t i = 0; i < sc->nmesh; i++) {
		free(sc->mesh[i].pos);
		free(sc->mesh[i].nrm);
		free(sc->mesh[i].uv);
		free(sc->mesh[i].idx);
	}
	for (size_t i = 0; i < sc->nch; i++) {
		free(sc->ch[i].t);
		free(sc->ch[i].v);
	}
	for (size_t i = 0; i < sc->nanim; i++)
		af_buf_free(&sc->anim[i].extras);
	free(sc->node);
	af_nameidx_free(&sc->byname);
	free(sc->mesh);
	free(sc->ch);
	free(sc->anim);
	free(sc->img);
	free(sc->hit);
	af_buf_free(&sc->extras);
	memset(sc, 0, sizeof(*sc));
}

/* n more bytes of the model, within its room (scene.h): 0, or -1 with oom and over. */
static int charge(struct af_scene *sc, size_t n)
{
	sc->bytes += n;
	if (sc->room && !sc->room(sc->room_ctx, sc->bytes)) {
		sc->oom = sc->over = 1;
		return -1;
	}
	return 0;
}

/* Room for one more element of a growing array, zeroed; NULL (and sc->oom) when none. */
static void *push(struct af_scene *sc, void **array, size_t *cap, size_t *n, size_t size)
{
	if (*n == *cap && charge(sc, (*cap ? *cap : 16) * size))
		return NULL;
	char *a = af_grow(*array, cap, *n, size, 16);
	if (!a) {
		sc->oom = 1;
		return NULL;
	}
	*array = a;
	memset(a + *n * size, 0, size);
	return a + (*n)++ * size;
}

static const char *node_name(const void *ctx, size_t i)
{
	return ((const struct af_scene *)ctx)->node[i].name;
}

/* The last node into the name index (af_scene_find's: a scan of every node for each name
 * a codec looks up was quadratic in the nodes), made anew twice as large when full, or
 * when nodes were dropped (a half-made skeleton). */
static void index_node(struct af_scene *sc)
{
	size_t last = sc->nnode - 1;
	if (sc->idx_n != last || sc->nnode > sc->idx_cap) {
		size_t cap = sc->nnode < 32 ? 64 : 2 * sc->nnode;
		af_nameidx_free(&sc->byname);
		sc->idx_n = sc->idx_cap = 0;
		if (af_nameidx_init(&sc->byname, cap, 0, node_name, sc)) {
			sc->oom = 1;
			return;
		}
		sc->idx_cap = cap;
		for (; sc->idx_n < last; sc->idx_n++)
			af_nameidx_add(&sc->byname, sc->idx_n);
	}
	af_nameidx_add(&sc->byname, last);
	sc->idx_n++;
}

size_t af_scene_node(struct af_scene *sc, const char *name, long parent, unsigned line)
{
	struct af_scene_node *n = push(sc, (void **)&sc->node, &sc->capnode, &sc->nnode, sizeof(*n));
	if (!n)
		return SIZE_MAX;
	snprintf(n->name, sizeof(n->name), "%s", name ? name : "");
	n->parent = parent;
	n->r[3] = 1;
	n->s[0] = n->s[1] = n->s[2] = 1;
	n->mesh = -1;
	n->line = line;
	index_node(sc);
	return sc->nnode - 1;
}

long af_scene_find(const struct af_scene *sc, const char *name)
{
	if (name && sc->nnode && sc->idx_n == sc->nnode)
		return af_nameidx_find(&sc->byname, name);
	for (size_t i = 0; name && i < sc->nnode; i++) /* nodes dropped since: by a scan */
		if (!strcmp(sc->node[i].name, name))
			return (long)i;
	return -1;
}

size_t af_scene_mesh(struct af_scene *sc, const char *name, size_t nv, int normals, int uvs,
		     size_t ni, unsigned line)
{
	struct af_scene_mesh *m;
	if (nv > AF_SCENE_MAX_VERTS || ni > 3 * (size_t)AF_SCENE_MAX_VERTS)
		return SIZE_MAX; /* the caller checked; never allocate for a claim */
	m = push(sc, (void **)&sc->mesh, &sc->capmesh, &sc->nmesh, sizeof(*m));
	if (!m)
		return SIZE_MAX;
	snprintf(m->name, sizeof(m->name), "%s", name ? name : "");
	m->nv = nv;
	m->ni = ni;
	m->line = line;
	if (charge(sc, ((size_t)(3 + (normals ? 3 : 0) + (uvs ? 2 : 0)) * nv + ni) * sizeof(float)))
		return SIZE_MAX;
	m->pos = af_alloc_zeroed(nv ? nv * 3 : 1, sizeof(float));
	m->nrm = normals ? af_alloc_zeroed(nv ? nv * 3 : 1, sizeof(float)) : NULL;
	m->uv = uvs ? af_alloc_zeroed(nv ? nv * 2 : 1, sizeof(float)) : NULL;
	m->idx = af_alloc_zeroed(ni ? ni : 1, sizeof(uint32_t));
	if (!m->pos || (normals && !m->nrm) || (uvs && !m->uv) || !m->idx) {
		sc->oom = 1;
		return SIZE_MAX;
	}
	return sc->nmesh - 1;
}

int af_scene_wanted(struct af_scene *sc, const char *name)
{
	int hit = 0;
	if (!sc->nselect)
		return 1;
	for (size_t i = 0; name && i < sc->nselect; i++)
		if (!strcmp(sc->select[i], name))
			sc->hit[i] = 1, hit = 1;
	return hit;
}

int af_scene_anim(struct af_scene *sc, const char *name)
{
	struct af_scene_anim *a = push(sc, (void **)&sc->anim, &sc->capanim, &sc->nanim, sizeof(*a));
	if (!a)
		return AF_ENOMEM;
	snprintf(a->name, sizeof(a->name), "%s", name ? name : "");
	a->first = sc->nch;
	return 0;
}

void af_scene_timing(struct af_scene *sc, double rate, double frames, double duration, const char *source)
{
	struct af_scene_anim *a;
	if (!sc->nanim)
		return;
	a = &sc->anim[sc->nanim - 1];
	a->rate = rate;
	a->frames = frames;
	a->duration = duration;
	snprintf(a->source, sizeof(a->source), "%s", source ? source : "");
}

size_t af_scene_channel(struct af_scene *sc, size_t node, enum af_scene_path path, unsigned line)
{
	struct af_scene_channel *c;
	if (!sc->nanim)
		return SIZE_MAX;
	c = push(sc, (void **)&sc->ch, &sc->capch, &sc->nch, sizeof(*c));
	if (!c)
		return SIZE_MAX;
	c->node = node;
	c->path = path;
	c->line = line;
	sc->anim[sc->nanim - 1].count++;
	return sc->nch - 1;
}

void af_scene_key(struct af_scene *sc, size_t ch, double t, const double *v)
{
	struct af_scene_channel *c = &sc->ch[ch];
	size_t w = c->path == AF_SC_ROTATION ? 4 : 3;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		if (charge(sc, (cap - c->cap) * (1 + w) * sizeof(float)))
			return;
		float *nt = af_resize(c->t, cap * sizeof(float)), *nv;
		if (!nt) {
			sc->oom = 1;
			return;
		}
		c->t = nt;
		if (!(nv = af_resize(c->v, cap * w * sizeof(float)))) {
			sc->oom = 1;
			return;
		}
		c->v = nv;
		c->cap = cap;
	}
	c->t[c->n] = (float)t;
	for (size_t i = 0; i < w; i++)
		c->v[c->n * w + i] = (float)v[i];
	c->n++;
}

uint8_t *af_scene_image(struct af_scene *sc, unsigned w, unsigned h)
{
	if (!w || !h || w > AF_SCENE_MAX_IMAGE || h > AF_SCENE_MAX_IMAGE)
		return NULL;
	free(sc->img);
	sc->img = NULL;
	if (charge(sc, (size_t)w * h * 4))
		return NULL;
	if (!(sc->img = af_alloc_zeroed((size_t)w * h, 4))) {
		sc->oom = 1;
		return NULL;
	}
	sc->img_w = w;
	sc->img_h = h;
	return sc->img;
}

void af_scene_jstr(struct af_buf *b, const char *s)
{
	af_buf_putc(b, '"');
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
		if (*p == '"' || *p == '\\')
			af_buf_printf(b, "\\%c", *p);
		else if (*p < 0x20)
			af_buf_printf(b, "\\u%04x", *p);
		else
			af_buf_putc(b, (char)*p);
	}
	af_buf_putc(b, '"');
}

void af_scene_extra(struct af_scene *sc, int anim, const char *key, const char *value, int raw)
{
	struct af_buf *b = anim && sc->nanim ? &sc->anim[sc->nanim - 1].extras : &sc->extras;
	if (b->len)
		af_buf_puts(b, ", ");
	af_scene_jstr(b, key);
	af_buf_puts(b, ": ");
	if (raw)
		af_buf_puts(b, value);
	else
		af_scene_jstr(b, value);
	if (b->failed)
		sc->oom = 1;
}

/* The place of a thing for an error: "line N: " or "". */
static const char *at(unsigned line, char *buf, size_t size)
{
	if (line)
		snprintf(buf, size, "line %u: ", line);
	else
		buf[0] = 0;
	return buf;
}

enum { WALK_NEW, WALK_OUT, WALK_LOOP, WALK_ON };

void af_parent_loops(size_t n, long (*parent)(const void *ctx, size_t i), const void *ctx, uint8_t *loop)
{
	memset(loop, WALK_NEW, n);
	for (size_t i = 0; i < n; i++) {
		long k = (long)i;
		while (k >= 0 && (size_t)k < n && loop[k] == WALK_NEW) { /* up to a node known, or out */
			loop[k] = WALK_ON;
			k = parent(ctx, (size_t)k);
		}
		uint8_t end = k < 0 || (size_t)k >= n ? WALK_OUT : loop[k] == WALK_ON ? WALK_LOOP : loop[k];
		for (k = (long)i; k >= 0 && (size_t)k < n && loop[k] == WALK_ON; k = parent(ctx, (size_t)k))
			loop[k] = end; /* the walk's nodes end as it did */
	}
	for (size_t i = 0; i < n; i++)
		loop[i] = loop[i] == WALK_LOOP;
}

static long node_parent(const void *ctx, size_t i)
{
	return ((const struct af_scene *)ctx)->node[i].parent;
}

static int check_nodes(const struct af_scene *sc, struct af_diag *d)
{
	char w[32];
	uint8_t *loop;
	int rc = 0;
	if (sc->nnode > AF_SCENE_MAX_NODES)
		return af_diag_error(d, AF_EINVAL, "%zu nodes: more than a preview takes (%u)", sc->nnode,
				     AF_SCENE_MAX_NODES);
	if (!(loop = malloc(sc->nnode ? sc->nnode : 1)))
		return af_diag_error(d, AF_ENOMEM, "out of memory checking the scene");
	af_parent_loops(sc->nnode, node_parent, sc, loop);
	for (size_t i = 0; i < sc->nnode && !rc; i++) {
		const struct af_scene_node *n = &sc->node[i];
		long p = n->parent;
		if (p < -1 || p >= (long)sc->nnode) {
			rc = af_diag_at_mark(d, AF_EINVAL, n->line, 1, "%snode '%s': parent %ld is no node (0..%zu)",
					     at(n->line, w, sizeof(w)), n->name, p, sc->nnode - 1);
			break;
		}
		if (n->mesh < -1 || n->mesh >= (long)sc->nmesh) {
			rc = af_diag_at_mark(d, AF_EINVAL, n->line, 1, "%snode '%s': mesh %ld is no mesh",
					     at(n->line, w, sizeof(w)), n->name, n->mesh);
			break;
		}
		for (int k = 0; k < 3 && !rc; k++)
			if (!isfinite(n->t[k]) || !isfinite(n->s[k]) || !isfinite(n->r[k]) || !isfinite(n->r[3]))
				rc = af_diag_at_mark(d, AF_EINVAL, n->line, 1, "%snode '%s': rest pose not finite",
						     at(n->line, w, sizeof(w)), n->name);
		if (!rc && loop[i]) /* its parents run into a loop */
			rc = af_diag_at_mark(d, AF_EINVAL, n->line, 1,
					     "%snode '%s': its parents loop back to it (a bone list "
					     "that is no tree)", at(n->line, w, sizeof(w)), n->name);
	}
	free(loop);
	return rc;
}

static int check_meshes(struct af_scene *sc, struct af_diag *d)
{
	char w[32];
	for (size_t i = 0; i < sc->nmesh; i++) {
		struct af_scene_mesh *m = &sc->mesh[i];
		if (m->nv > AF_SCENE_MAX_VERTS || m->ni % 3)
			return af_diag_at_mark(d, AF_EINVAL, m->line, 1, "%smesh '%s': %zu vertices, %zu indices",
					       at(m->line, w, sizeof(w)), m->name, m->nv, m->ni);
		for (size_t k = 0; k < m->ni; k++)
			if (m->idx[k] >= m->nv)
				return af_diag_at_mark(d, AF_EINVAL, m->line, 1,
						       "%smesh '%s': index %zu points at vertex %u past its %zu "
						       "vertices", at(m->line, w, sizeof(w)), m->name, k,
						       (unsigned)m->idx[k], m->nv);
		for (size_t k = 0; k < m->nv * 3; k++)
			if (!isfinite(m->pos[k]) || (m->nrm && !isfinite(m->nrm[k])))
				return af_diag_at_mark(d, AF_EINVAL, m->line, 1, "%smesh '%s': a vertex not finite",
						       at(m->line, w, sizeof(w)), m->name);
		for (size_t k = 0; m->nrm && k < m->nv; k++) {
			float *v = m->nrm + 3 * k;
			double l = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
			if (l < 1e-9)
				v[0] = 0, v[1] = 1, v[2] = 0;
			else
				v[0] = (float)(v[0] / l), v[1] = (float)(v[1] / l), v[2] = (float)(v[2] / l);
		}
	}
	return 0;
}

/* Channel i of animation an: on a node, not a node moved twice the same way (moved[node]:
 * a bit a path, set as the channels come: linear in the channels, where each against the
 * ones before was quadratic), its keys in order and finite; its rotations made unit. */
static int check_channel(struct af_scene *sc, const struct af_scene_anim *an, size_t i, uint8_t *moved,
			 struct af_diag *d)
{
	char w[32];
	struct af_scene_channel *c = &sc->ch[i];
	size_t wd = c->path == AF_SC_ROTATION ? 4 : 3;
	if (c->node >= sc->nnode)
		return af_diag_at_mark(d, AF_EINVAL, c->line, 1, "%sanimation '%s': a channel on no node",
				       at(c->line, w, sizeof(w)), an->name);
	if (moved[c->node] & 1u << c->path)
		return af_diag_at_mark(d, AF_EINVAL, c->line, 1, "%sanimation '%s': node '%s' moved twice the "
				       "same way", at(c->line, w, sizeof(w)), an->name, sc->node[c->node].name);
	moved[c->node] |= (uint8_t)(1u << c->path);
	for (size_t k = 0; k < c->n; k++) {
		if (!isfinite(c->t[k]) || c->t[k] < 0 || (k && !(c->t[k] > c->t[k - 1])))
			return af_diag_at_mark(d, AF_EINVAL, c->line, 1,
					       "%sanimation '%s', node '%s': key %zu at %g s is "
					       "not after the one before", at(c->line, w, sizeof(w)),
					       an->name, sc->node[c->node].name, k, (double)c->t[k]);
		for (size_t e = 0; e < wd; e++)
			if (!isfinite(c->v[k * wd + e]))
				return af_diag_at_mark(d, AF_EINVAL, c->line, 1,
						       "%sanimation '%s', node '%s': key %zu "
						       "not finite", at(c->line, w, sizeof(w)),
						       an->name, sc->node[c->node].name, k);
		if (wd == 4) {
			float *q = c->v + 4 * k;
			double l = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] +
					(double)q[2] * q[2] + (double)q[3] * q[3]);
			if (l < 1e-9)
				q[0] = q[1] = q[2] = 0, q[3] = 1;
			else
				for (int e = 0; e < 4; e++)
					q[e] = (float)(q[e] / l);
		}
	}
	return 0;
}

static int check_channels(struct af_scene *sc, struct af_diag *d)
{
	uint64_t keys = 0;
	uint8_t *moved = calloc(sc->nnode ? sc->nnode : 1, 1);
	int rc = 0;
	if (!moved)
		return af_diag_error(d, AF_ENOMEM, "out of memory checking the scene");
	for (size_t a = 0; a < sc->nanim && !rc; a++) {
		const struct af_scene_anim *an = &sc->anim[a];
		size_t i;
		for (i = an->first; i < an->first + an->count && !rc; i++) {
			keys += sc->ch[i].n;
			rc = check_channel(sc, an, i, moved, d);
		}
		for (size_t j = an->first; j < i; j++) /* the next animation's moves start clear */
			if (sc->ch[j].node < sc->nnode)
				moved[sc->ch[j].node] = 0;
	}
	free(moved);
	if (!rc && keys > AF_SCENE_MAX_KEYS)
		rc = af_diag_error(d, AF_EINVAL, "%llu keys: more than a preview takes (%u)",
				   (unsigned long long)keys, AF_SCENE_MAX_KEYS);
	return rc;
}

/* Animations and channels with no key are left out (glTF wants at least one of each). */
static void drop_empty(struct af_scene *sc)
{
	size_t na = 0, nc = 0;
	for (size_t a = 0; a < sc->nanim; a++) {
		struct af_scene_anim an = sc->anim[a];
		size_t first = nc;
		for (size_t i = an.first; i < an.first + an.count; i++) {
			if (sc->ch[i].n) {
				struct af_scene_channel c = sc->ch[i];
				sc->ch[i] = sc->ch[nc];
				sc->ch[nc++] = c;
			}
		}
		if (nc == first) {
			af_buf_free(&sc->anim[a].extras);
			continue;
		}
		an.first = first;
		an.count = nc - first;
		sc->anim[na++] = an;
	}
	for (size_t i = nc; i < sc->nch; i++) { /* the empty ones, at the end now */
		free(sc->ch[i].t);
		free(sc->ch[i].v);
	}
	sc->nanim = na;
	sc->nch = nc;
}

int af_scene_check(struct af_scene *sc, struct af_diag *d)
{
	int rc;
	if (sc->oom)
		return af_diag_error(d, AF_ENOMEM, "out of memory building the scene");
	for (size_t i = 0; i < sc->nselect; i++)
		if (!sc->hit[i])
			return af_diag_error(d, AF_EINVAL, "no animation called '%s'", sc->select[i]);
	if ((rc = check_nodes(sc, d)) || (rc = check_meshes(sc, d)) || (rc = check_channels(sc, d)))
		return rc;
	drop_empty(sc);
	return 0;
}

void af_quat_mul(const double a[4], const double b[4], double o[4])
{
	double r[4] = {
		a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
		a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
		a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
		a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
	};
	memcpy(o, r, sizeof(r));
}

void af_quat_xyz(const double e[3], double q[4])
{
	double qx[4] = { sin(e[0] / 2), 0, 0, cos(e[0] / 2) };
	double qy[4] = { 0, sin(e[1] / 2), 0, cos(e[1] / 2) };
	double qz[4] = { 0, 0, sin(e[2] / 2), cos(e[2] / 2) };
	double t[4];
	af_quat_mul(qx, qy, t);
	af_quat_mul(t, qz, q);
}

int af_scene_nums(const struct af_ynode *seq, size_t from, size_t k, double *v, const char *what,
		  struct af_diag *d)
{
	unsigned line = seq ? seq->line : 0, col = seq ? seq->col : 0;
	if (!seq || seq->type != AF_YSEQ || seq->n < from + k)
		return af_diag_at_mark(d, AF_EINVAL, line, col, "line %u: %s: want a list of at least %zu numbers",
				       line, what, from + k);
	for (size_t i = 0; i < k; i++)
		if (af_cv_num(&seq->items[from + i], &v[i]))
			return af_diag_at_mark(d, AF_EINVAL, seq->items[from + i].line, seq->items[from + i].col,
					       "line %u: %s: item %zu is not a finite number",
					       seq->items[from + i].line, what, from + i);
	return 0;
}

void af_scene_curve_at(const float *t, const float *v, size_t n, size_t w, double x, double *out)
{
	size_t lo = 0, hi = n;
	while (hi - lo > 1) { /* the last key at or before x */
		size_t mid = lo + (hi - lo) / 2;
		if (t[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	const float *a = v + lo * w, *b = lo + 1 < n ? v + (lo + 1) * w : a;
	double f = lo + 1 < n && x > t[lo] ? (x - t[lo]) / ((double)t[lo + 1] - t[lo]) : 0, dot = 0;
	for (size_t j = 0; j < w; j++)
		dot += (double)a[j] * b[j];
	for (size_t j = 0; j < w; j++)
		out[j] = a[j] + ((w == 4 && dot < 0 ? -b[j] : b[j]) - a[j]) * f;
}
