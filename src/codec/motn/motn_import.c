/* Shenmue MOTN: a glTF brought back (the descriptor's scene_import hook, codec.h). The
 * document is parsed into the model as a save would; an edited channel is a block's (its
 * animation, motn_anim_name) bone translation or rotation ("bone N"), or a node block's
 * node rotation or scale ("<block> node K"), as motn_scene.c names them. The glTF is read
 * at the block's frames (30 a second): a standard block's samples are the frames of the
 * glTF's keys and those where the file keys the bone (every frame in its span when the
 * glTF's keys sit off the frame grid); a baked or node block's every frame. A rotation is
 * split back into the three angles of the file's order (R = Rz Ry Rx, turns), chosen next
 * to the file's (its two Euler solutions, whole turns); where a sample's rotation or an
 * axis's value is within one stored step of the file's curve it stays the file's. An axis
 * no sample of which changed keeps its bytes. A changed axis of a standard block keeps its
 * keys (frames, types, slopes) with the new values where it has one; where its Hermite
 * curve then misses a sample by more than a step a key is added (type 2, the slope of the
 * file's curve there, or of the samples' where they changed), worst first: the fewest
 * keys. A baked or node block's changed axis gets its values a frame (halves; int16
 * angles, 65536 a turn, the same turn as the file's). Everything else as the document
 * says; the model is written by the encoder a save uses. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/arena.h"
#include "animfs/curves.h"
#include "animfs/num.h"
#include "animfs/rot.h"
#include "animfs/scene.h"
#include "animfs/yamlio.h"
#include "motn.h"

#define FPS 30.0
#define ON_FRAME 1e-3 /* a glTF time this close to a frame (in frames) is on it */
/* What an editor's float32 quaternions move an unedited rotation (Blender: ~1e-7): a
 * sample's rotation this close to the file's (radians) is the file's whatever its step. */
#define ROT_FLOOR 2e-5
#define TURN16 65536.0

/* One stored step of a half near v: its spacing there (2^-24 below the normals). */
static double half_step(double v)
{
	int e;
	if (fabs(v) < 6.103515625e-05)
		return ldexp(1, -24);
	frexp(fabs(v), &e);
	return ldexp(1, e - 11);
}

static double half(uint16_t h)
{
	return af_f16_to_f32(h);
}

/* A value's tolerance: one step of the file's value, or a float's rounding through an
 * editor, the larger. */
static double tol_t(double o)
{
	return fmax(half_step(o), 1e-5 * (1 + fabs(o)));
}

static double tol_r(double o)
{
	return fmax(half_step(o), ROT_FLOOR / (2 * M_PI));
}

/* The glTF's value at frame f (w of them): its key's where one sits on that frame, else
 * its curve there; a rotation a unit quaternion. */
static void gl_at(const struct af_scene_edit *e, size_t w, double f, double *out)
{
	size_t lo = 0, hi = e->n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (e->t[mid] * FPS <= f + ON_FRAME)
			lo = mid;
		else
			hi = mid;
	}
	if (fabs(e->t[lo] * FPS - f) <= ON_FRAME)
		for (size_t j = 0; j < w; j++)
			out[j] = e->v[lo * w + j];
	else
		af_scene_curve_at(e->t, e->v, e->n, w, f / FPS, out);
	double l = 0;
	for (size_t j = 0; w == 4 && j < 4; j++)
		l += out[j] * out[j];
	for (size_t j = 0; w == 4 && l > 0 && j < 4; j++)
		out[j] /= sqrt(l);
}

/* The rotation of angles o (turns) as a quaternion. */
static void turns_quat(const double *o, double *q)
{
	double e[3] = { o[0] * 360, o[1] * 360, o[2] * 360 };
	af_euler_deg_to_quat(e, q);
}

static double angle_between(const double *p, const double *q)
{
	double dot = 0;
	for (int k = 0; k < 4; k++)
		dot += p[k] * q[k];
	dot = fabs(dot);
	return 2 * acos(dot > 1 ? 1 : dot);
}

/* The angles (turns) of the unit quaternion q next to o: of its two Euler solutions and
 * their whole turns, the one nearest o. */
static void quat_turns(const double *q, const double *o, double *y)
{
	double e[3], c[2][3], best = INFINITY;
	af_quat_to_euler_deg(q, e);
	for (int k = 0; k < 3; k++)
		c[0][k] = e[k] / 360;
	c[1][0] = c[0][0] + 0.5, c[1][1] = 0.5 - c[0][1], c[1][2] = c[0][2] + 0.5;
	for (int s = 0; s < 2; s++) {
		double v[3], dist = 0;
		for (int k = 0; k < 3; k++) {
			v[k] = c[s][k] + nearbyint(o[k] - c[s][k]);
			dist += fabs(v[k] - o[k]);
		}
		if (dist < best) {
			best = dist;
			memcpy(y, v, sizeof(v));
		}
	}
}

/* The three axes' new values at one sample: the file's o where within tolerance, else
 * the glTF's g (translation) or g's angles next to o (rotation, turns; step: the file's
 * angle step at o, 0 for halves). chg[a]: axis a changed there. */
static void sample(int rot, const double *g, const double *o, double step16, double *y, unsigned char *chg)
{
	memcpy(y, o, 3 * sizeof(double));
	chg[0] = chg[1] = chg[2] = 0;
	if (!rot) {
		for (int a = 0; a < 3; a++)
			if (fabs(g[a] - o[a]) > tol_t(o[a]))
				y[a] = g[a], chg[a] = 1;
		return;
	}
	double qo[4], big = fmax(fabs(o[0]), fmax(fabs(o[1]), fabs(o[2])));
	turns_quat(o, qo);
	if (angle_between(qo, g) <= fmax(2 * M_PI * (step16 > 0 ? step16 : half_step(big)), ROT_FLOOR))
		return;
	double v[3];
	quat_turns(g, o, v);
	for (int a = 0; a < 3; a++)
		if (fabs(v[a] - o[a]) > (step16 > 0 ? fmax(step16, ROT_FLOOR / (2 * M_PI)) : tol_r(o[a])))
			y[a] = v[a], chg[a] = 1;
}

/* ---- standard blocks: Hermite curves of halves ---- */

/* The valued keys of ch (the scene's curve) into k; their count. */
static size_t hkeys(const struct motn_chan *ch, struct motn_hkey *k)
{
	size_t n = 0;
	for (uint32_t i = 0; ch && i < ch->nkeys; i++) {
		const struct motn_key *x = &ch->keys[i];
		if (!x->type)
			continue;
		k[n].f = x->frame;
		k[n].v = half(x->w[x->type - 1]);
		k[n].in = x->type == 2 || x->type == 3 ? half(x->w[0]) : 0;
		k[n].out = x->type == 2 ? half(x->w[0]) : x->type == 3 ? half(x->w[1]) : 0;
		n++;
	}
	return n;
}

/* One axis of an edit: the samples' frames, the new values and which changed. */
struct axis {
	size_t m;
	const int *f;
	double *y;
	unsigned char *chg;
};

/* A half of v (slopes: clamped to the half's range); -1 when a value is past it. */
static int to_half(double v, int clamp, uint16_t *h)
{
	if (clamp)
		v = fmax(-65504, fmin(65504, v));
	return af_f64_to_f16(v, h);
}

/* For each of the n rising sample frames f[], the index of the key of ch a sample there
 * sets: the last valued one at that frame, else the last one there, else -1; one walk. */
static void keys_at(const struct motn_chan *ch, const int *f, size_t n, long *at)
{
	uint32_t p = 0;
	for (size_t i = 0; i < n; i++) {
		long any = -1, val = -1;
		while (p < ch->nkeys && ch->keys[p].frame < f[i])
			p++;
		for (uint32_t q = p; q < ch->nkeys && ch->keys[q].frame == f[i]; q++) {
			any = (long)q;
			if (ch->keys[q].type)
				val = (long)q;
		}
		at[i] = val >= 0 ? val : any;
	}
}

/* The slope (per second) a new key at sample i gets: the file's curve's where the sample
 * did not change, else the samples' own (their neighbours', Catmull-Rom). hint: as
 * motn_hermite's, for rising samples. */
static double slope_at(const struct axis *x, size_t i, const struct motn_hkey *old, size_t nold, size_t *hint)
{
	if (!x->chg[i]) {
		double h = 1e-3, lo = motn_hermite(old, nold, hint, x->f[i] - h);
		return (motn_hermite(old, nold, hint, x->f[i] + h) - lo) / (2 * h) * FPS;
	}
	size_t a = i ? i - 1 : i, b = i + 1 < x->m ? i + 1 : i;
	return b == a ? 0 : (x->y[b] - x->y[a]) / ((x->f[b] - x->f[a]) / FPS);
}

/* Passes of keys one at the worst sample of each stretch between two valued keys (they
 * are independent: a Hermite stretch is its two keys'), then at every sample still out. */
#define WORST_PASSES 64

/* Axis x's values into channel ch (keys kept, values set where a key sits on a changed
 * sample, keys added where the curve misses one by more than a step, worst first).
 * *worst: the largest distance of the new curve from the samples, in steps. Each pass
 * is linear in the keys and samples, and adds a key to the channel or ends. */
static int rekey_axis(struct motn_chan *ch, const struct axis *x, int rot, int wide, const char *what,
		      struct af_arena *a, double *worst, struct af_diag *d)
{
	size_t m = x->m, nold, cap = ch->nkeys + m + 1;
	uint32_t limit = wide ? 0xFFFFu : 0xFFu;
	struct motn_hkey *old = af_arena_array(a, ch->nkeys + 1, sizeof(*old)), *now = af_arena_array(a, cap, sizeof(*now));
	long *at = af_arena_array(a, m + 1, sizeof(*at));
	int *pf = af_arena_array(a, m + 1, sizeof(*pf));
	size_t *pick = af_arena_array(a, m + 1, sizeof(*pick));
	uint16_t *nv = af_arena_array(a, 2 * (m + 1), sizeof(*nv)); /* new keys' value and slope */
	unsigned char *keyed = af_arena_array(a, m + 1, 1);
	struct motn_key *k = af_arena_array(a, ch->nkeys, sizeof(*k));
	uint16_t h;
	if (!old || !now || !at || !pf || !pick || !nv || !keyed || !k)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	memcpy(k, ch->keys, ch->nkeys * sizeof(*k));
	ch->keys = k;
	memset(keyed, 0, m + 1);
	nold = hkeys(ch, old);
	keys_at(ch, x->f, m, at);
	for (size_t i = 0; i < m; i++) { /* the new values at the keys the axis has */
		if (!x->chg[i] || at[i] < 0 || !k[at[i]].type)
			continue;
		if (to_half(x->y[i], 0, &h))
			return af_diag_error(d, AF_EINVAL, "%s: value %g at frame %d is outside the half-float range", what,
					     x->y[i], x->f[i]);
		k[at[i]].w[k[at[i]].type - 1] = h;
		keyed[i] = 1;
	}
	for (int pass = 0;; pass++) {
		size_t n = hkeys(ch, now), np = 0, seg = SIZE_MAX, best = SIZE_MAX, hint = 0, c = 0;
		double be = 0;
		*worst = 0;
		for (size_t i = 0; i <= m; i++) { /* the worst sample out of each stretch */
			size_t s = SIZE_MAX;
			double e = 0;
			if (i < m) {
				while (c < n && now[c].f <= x->f[i])
					c++;
				s = c; /* the stretch: valued keys at or before the sample */
				e = fabs(motn_hermite(now, n, &hint, x->f[i]) - x->y[i]);
				*worst = fmax(*worst, e / half_step(x->y[i]));
				e = keyed[i] ? 0 : e / (rot ? tol_r(x->y[i]) : tol_t(x->y[i]));
			}
			if (s != seg || pass >= WORST_PASSES) {
				if (best != SIZE_MAX)
					pick[np++] = best;
				seg = s, best = SIZE_MAX, be = 1 + 1e-9;
			}
			if (i < m && e > be)
				be = e, best = i;
		}
		if (!np)
			break;
		for (size_t j = 0; j < np; j++)
			pf[j] = x->f[pick[j]];
		keys_at(ch, pf, np, at);
		size_t add = 0, hs = 0;
		for (size_t j = 0; j < np; j++) { /* values, slopes; a key where none sits */
			size_t i = pick[j];
			uint16_t v, sl;
			keyed[i] = 1;
			if (to_half(x->y[i], 0, &v))
				return af_diag_error(d, AF_EINVAL, "%s: value %g at frame %d is outside the half-float range",
						     what, x->y[i], x->f[i]);
			to_half(slope_at(x, i, old, nold, &hs), 1, &sl);
			if (at[j] >= 0 && k[at[j]].type)
				k[at[j]].w[k[at[j]].type - 1] = v;
			else if (at[j] >= 0)
				k[at[j]] = (struct motn_key){ .frame = (uint16_t)x->f[i], .type = 2, .w = { sl, v, 0 } };
			else /* pick[] read up to j: its first add entries now the keys to add */
				nv[2 * add] = v, nv[2 * add + 1] = sl, pick[add++] = i;
		}
		if (add) { /* merged in: each after the keys at or before its frame */
			if (ch->nkeys + add - 2 > limit)
				return af_diag_error(d, AF_EINVAL, "%s: the glTF's curve takes more than the %u intermediate "
						     "keys a channel holds%s", what, limit, wide ? "" : " (wide_counts: false)");
			struct motn_key *nk = af_arena_array(a, ch->nkeys + add, sizeof(*nk));
			if (!nk)
				return af_diag_error(d, AF_ENOMEM, "out of memory");
			size_t o = 0, j = 0;
			for (uint32_t q = 0; q <= ch->nkeys; q++) {
				for (; j < add && (q == ch->nkeys || k[q].frame > x->f[pick[j]]); j++)
					nk[o++] = (struct motn_key){ .frame = (uint16_t)x->f[pick[j]], .type = 2,
								     .w = { nv[2 * j + 1], nv[2 * j], 0 } };
				if (q < ch->nkeys)
					nk[o++] = k[q];
			}
			ch->keys = k = nk;
			ch->nkeys += (uint32_t)add;
		}
	}
	if (ch->nkeys - 2 > limit)
		return af_diag_error(d, AF_EINVAL, "%s: the glTF's curve takes %u intermediate keys, more than the "
				     "%u a channel holds%s", what, ch->nkeys - 2, limit, wide ? "" : " (wide_counts: false)");
	return 0;
}

/* Frames where any of a bone's three axes (first: MOTN_TX or MOTN_RX) has a valued key. */
static size_t marked(const struct motn_bone *b, int first, unsigned char *mark, int frames)
{
	size_t n = 0;
	memset(mark, 0, (size_t)frames);
	for (int c = first; c < first + 3; c++)
		for (uint32_t i = 0; (b->mask >> c & 1) && i < b->ch[c].nkeys; i++)
			if (b->ch[c].keys[i].type && b->ch[c].keys[i].frame < frames && !mark[b->ch[c].keys[i].frame]++)
				n++;
	return n;
}

static int std_edit(struct motn_seq *s, unsigned id, const char *an, struct af_scene_edit *e, struct af_arena *a,
		    struct af_diag *d)
{
	int rot = e->path == AF_SC_ROTATION, first = rot ? MOTN_RX : MOTN_TX, F = s->frames;
	size_t w = rot ? 4 : 3, m = 0;
	struct motn_bone *b = NULL;
	char what[3][200];
	for (uint32_t i = 0; i < s->nbones; i++)
		if (s->bones[i].id == id)
			b = &s->bones[i];
	if (!b || e->path == AF_SC_SCALE)
		return af_diag_error(d, AF_EINVAL, "animation '%s': node '%s' %s: the block has no slot for it", an,
				     e->node, e->path == AF_SC_SCALE ? "scale" : rot ? "rotation" : "translation");
	unsigned char *mark = af_arena_array(a, (size_t)F, 1), *on = af_arena_array(a, (size_t)F, 1);
	int *fr = af_arena_array(a, (size_t)F, sizeof(int));
	double *y = af_arena_array(a, 3 * (size_t)F, sizeof(double));
	unsigned char *chg = af_arena_array(a, 3 * (size_t)F, 1);
	struct motn_hkey *hk[3];
	size_t nh[3];
	if (!mark || !on || !fr || !y || !chg)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	e->keys_before = marked(b, first, mark, F);
	int grid = 1;
	for (size_t i = 0; i < e->n && grid; i++)
		grid = fabs(e->t[i] * FPS - nearbyint(e->t[i] * FPS)) <= ON_FRAME;
	memcpy(on, mark, (size_t)F);
	for (int f = 0; f < F; f++) /* the samples: the glTF's frames (all in its span when off the grid) */
		if (!grid && f >= e->t[0] * FPS - ON_FRAME && f <= e->t[e->n - 1] * FPS + ON_FRAME)
			on[f] = 1;
	for (size_t i = 0; i < e->n && grid; i++)
		on[(int)nearbyint(e->t[i] * FPS)] = 1;
	for (int c = 0; c < 3; c++) {
		const struct motn_chan *ch = b->mask >> (first + c) & 1 ? &b->ch[first + c] : NULL;
		if (!(hk[c] = af_arena_array(a, ch ? ch->nkeys + 1 : 1, sizeof(*hk[c]))))
			return af_diag_error(d, AF_ENOMEM, "out of memory");
		nh[c] = hkeys(ch, hk[c]);
		snprintf(what[c], sizeof(what[c]), "animation '%.80s': bone %u %s", an, id, motn_chan_names[first + c]);
	}
	size_t hint[3] = { 0, 0, 0 };
	for (int f = 0; f < F; f++) {
		double g[4], o[3], v[3];
		unsigned char cv[3];
		if (!on[f])
			continue;
		gl_at(e, w, f, g);
		for (int c = 0; c < 3; c++)
			o[c] = motn_hermite(hk[c], nh[c], &hint[c], f);
		sample(rot, g, o, 0, v, cv);
		fr[m] = f;
		for (int c = 0; c < 3; c++)
			y[c * (size_t)F + m] = v[c], chg[c * (size_t)F + m] = cv[c];
		m++;
	}
	double worst = 0;
	for (int c = 0; c < 3; c++) {
		struct axis x = { m, fr, y + c * (size_t)F, chg + c * (size_t)F };
		size_t any = 0;
		double wc = 0;
		for (size_t i = 0; i < m; i++)
			any += x.chg[i];
		if (!any)
			continue;
		if (!(b->mask >> (first + c) & 1)) { /* an axis the bone did not store: [0, 0] .. [F-1, 0] */
			struct motn_key *k2 = af_arena_array(a, 2, sizeof(*k2));
			if (!k2)
				return af_diag_error(d, AF_ENOMEM, "out of memory");
			k2[0] = (struct motn_key){ .frame = 0 };
			k2[1] = (struct motn_key){ .frame = (uint16_t)(F - 1) };
			b->ch[first + c] = (struct motn_chan){ .nkeys = 2, .keys = k2 };
			b->mask |= (uint8_t)(1u << (first + c));
		}
		int rc = rekey_axis(&b->ch[first + c], &x, rot, s->wide, what[c], a, &wc, d);
		if (rc)
			return rc;
		worst = fmax(worst, wc);
		e->same = 0;
	}
	e->keys_after = marked(b, first, mark, F);
	e->max_steps = worst;
	return 0;
}

/* ---- baked and node blocks: a value a frame ---- */

/* Columns col[3] of a per-frame table (stride words a frame, n frames): halves (rot 0) or
 * int16 angles; each changed sample's axis gets the glTF's value. AF_EINVAL (d says
 * which) for a value past the half-float range. */
static int per_frame(struct af_scene_edit *e, int rot, uint16_t *const col[3], size_t stride, size_t n,
		     int *changed, struct af_diag *d)
{
	size_t w = rot ? 4 : 3;
	double *worst = &e->max_steps;
	*worst = 0;
	for (size_t f = 0; f < n; f++) {
		double g[4], o[3], y[3];
		unsigned char cv[3];
		gl_at(e, w, (double)f, g);
		for (int a = 0; a < 3; a++)
			o[a] = rot ? (int16_t)col[a][f * stride] / TURN16 : half(col[a][f * stride]);
		sample(rot, g, o, rot ? 1 / TURN16 : 0, y, cv);
		for (int a = 0; a < 3; a++) {
			uint16_t h = col[a][f * stride];
			if (cv[a] && rot)
				h = (uint16_t)((int64_t)llround(y[a] * TURN16) & 0xFFFF);
			else if (cv[a] && to_half(y[a], 0, &h))
				return af_diag_error(d, AF_EINVAL, "animation '%s': node '%s': value %g at frame %zu is outside "
						     "the half-float range", e->anim, e->node, y[a], f);
			*changed |= h != col[a][f * stride];
			col[a][f * stride] = h;
			double now = rot ? (int16_t)h / TURN16 : half(h), dy = now - y[a];
			if (rot)
				dy -= nearbyint(dy); /* the same turn */
			*worst = fmax(*worst, fabs(dy) / (rot ? 1 / TURN16 : half_step(y[a])));
		}
	}
	return 0;
}

/* A key past the block's last sample (at 30 a second), or before 0: refused. */
static int span(const struct af_scene_edit *e, const char *an, size_t last, struct af_diag *d)
{
	if (e->t[0] * FPS < -ON_FRAME || e->t[e->n - 1] * FPS > last + ON_FRAME)
		return af_diag_error(d, AF_EINVAL, "animation '%s': node '%s': a key at %.4f s is outside the block's "
				     "frames 0..%zu (0..%.4f s at 30 a second); a block's length is its own (edit "
				     "frames in the YAML)", an, e->node,
				     (double)(e->t[0] < 0 ? e->t[0] : e->t[e->n - 1]), last, last / FPS);
	return 0;
}

static int baked_edit(struct motn_baked *k, unsigned id, const char *an, struct af_scene_edit *e, struct af_diag *d)
{
	size_t col = 6;
	int changed = 0;
	if (id >= 64 || (id && !(k->mask >> id & 1)) || (id && MOTN_HINGE(id)) || e->path == AF_SC_SCALE ||
	    (id && e->path == AF_SC_TRANSLATION))
		return af_diag_error(d, AF_EINVAL, "animation '%s': node '%s': the baked block has no slot for its %s",
				     an, e->node, e->path == AF_SC_SCALE ? "scale" : e->path == AF_SC_ROTATION ? "rotation"
										     : "translation");
	for (unsigned i = 1; i < id; i++)
		col += k->mask >> i & 1 ? (MOTN_HINGE(i) ? 1 : 3) : 0;
	if (!id)
		col = e->path == AF_SC_ROTATION ? 3 : 0;
	uint16_t *c3[3] = { k->w + col, k->w + col + 1, k->w + col + 2 };
	int rc = per_frame(e, e->path == AF_SC_ROTATION, c3, k->nwords, k->frames, &changed, d);
	e->keys_before = e->keys_after = k->frames;
	e->same = !changed;
	return rc;
}

static int nodes_edit(struct motn_nodes *s, size_t nd, const char *an, struct af_scene_edit *e, struct af_arena *a,
		      struct af_diag *d)
{
	struct motn_node *n = &s->node[nd];
	size_t samples = (size_t)s->frames + 1;
	int changed = 0, rot = e->path == AF_SC_ROTATION;
	uint16_t *c3[3];
	if (e->path == AF_SC_TRANSLATION || (e->path == AF_SC_SCALE && !n->scale_track))
		return af_diag_error(d, AF_EINVAL, "animation '%s': node '%s': the node block stores no track of its %s",
				     an, e->node, rot ? "rotation" : e->path == AF_SC_SCALE ? "scale" : "translation");
	for (int c = 0; c < 3; c++) {
		if (!rot) {
			c3[c] = n->scale_track + c;
			continue;
		}
		if (!n->rot_track[c]) { /* a constant angle: a track of it, kept only if it changes */
			uint16_t *t = af_arena_array(a, samples, sizeof(*t));
			if (!t)
				return af_diag_error(d, AF_ENOMEM, "out of memory");
			for (size_t i = 0; i < samples; i++)
				t[i] = n->rot[c];
			c3[c] = t;
		} else {
			c3[c] = n->rot_track[c];
		}
	}
	int rc = per_frame(e, rot, c3, rot ? 1 : 3, samples, &changed, d);
	if (rc)
		return rc;
	for (int c = 0; c < 3 && rot; c++) /* a constant that changed becomes a track */
		for (size_t i = 0; !n->rot_track[c] && i < samples; i++)
			if (c3[c][i] != n->rot[c])
				n->rot_track[c] = c3[c];
	e->keys_before = e->keys_after = samples;
	e->same = !changed;
	return 0;
}

/* The block of the document whose preview animation is an (a decoded one), or -1. */
static long block_of(const struct af_ynode *root, const struct motn_file *f, const char *an)
{
	const struct af_ynode *bl = af_ymap_get(root, "blocks");
	char name[160];
	for (size_t i = 0; i < af_cv_count(bl) && i < f->nblocks; i++) {
		motn_anim_name(af_cv_item(bl, i), name, sizeof(name));
		if (!f->blocks[i].raw && !strcmp(name, an))
			return (long)i;
	}
	return -1;
}

static int edit_one(const struct af_ynode *root, struct motn_file *f, struct af_scene_edit *e, struct af_arena *a,
		    struct af_diag *d)
{
	long bi = block_of(root, f, e->anim);
	unsigned id;
	int used = 0, rc;
	if (bi < 0)
		return af_diag_error(d, AF_EINVAL, "animation '%s': the file has no decoded block of that name", e->anim);
	struct motn_block *b = &f->blocks[bi];
	if (b->kind == MOTN_NODES) {
		char pre[160];
		size_t nd;
		snprintf(pre, sizeof(pre), "%.100s node %%zu%%n", e->anim);
		if (sscanf(e->node, pre, &nd, &used) != 1 || e->node[used] || nd >= b->nodes.n)
			return af_diag_error(d, AF_EINVAL, "animation '%s': node '%s' is none of the node block's %u",
					     e->anim, e->node, (unsigned)b->nodes.n);
		if ((rc = span(e, e->anim, b->nodes.frames, d)))
			return rc;
		return nodes_edit(&b->nodes, nd, e->anim, e, a, d);
	}
	if (sscanf(e->node, "bone %u%n", &id, &used) != 1 || e->node[used] || id > MOTN_MAX_BONE)
		return af_diag_error(d, AF_EINVAL, "animation '%s': node '%s' is no rig slot (bone 0..127)", e->anim,
				     e->node);
	if (b->kind == MOTN_BAKED)
		return (rc = span(e, e->anim, b->baked.frames - 1u, d)) ? rc : baked_edit(&b->baked, id, e->anim, e, d);
	if ((rc = span(e, e->anim, b->seq.frames - 1u, d)))
		return rc;
	e->same = 1;
	return std_edit(&b->seq, id, e->anim, e, a, d);
}

int motn_scene_import(const struct af_ynode *root, struct af_scene_edit *ed, size_t ned, const struct af_io *io,
		      struct af_buf *out, struct af_diag *d)
{
	struct af_arena a;
	struct motn_file f;
	int rc;
	(void)io;
	af_arena_init(&a);
	if ((rc = motn_parse(root, &a, &f, d)))
		goto out;
	for (size_t i = 0; i < ned && !rc; i++)
		rc = edit_one(root, &f, &ed[i], &a, d);
	if (!rc)
		rc = motn_encode(&f, out, d);
out:
	af_arena_free(&a);
	return rc;
}
