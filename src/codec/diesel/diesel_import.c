/* Diesel animation: a glTF brought back (the descriptor's scene_import hook, codec.h).
 * The document is parsed into the model as a save would; each edited channel (an
 * object's position or rotation, as diesel_scene.c names them) gets the glTF's keys at
 * their own times (Diesel keys sit on no frame grid), reduced to the fewest whose linear
 * curve stays within half a stored step of every glTF key, quantised in the track's own
 * type (pos_u16 codes, packed or float quaternions); everything else (the layout, the
 * events, the other tracks, the pos_u16 extra word, a flag) as the document says. The
 * model is then written by the encoder a save uses. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "animfs/arena.h"
#include "animfs/lfit.h"
#include "animfs/scene.h"
#include "animfs/yamlio.h"
#include "diesel.h"

/* Times closer than this are one key's (an exporter's frames-to-seconds rounding: Blender's
 * 96.78125 / 30 moves 3.2260418 s to 3.2260416 s); far under a frame. */
#define SAME_TIME 1e-5

/* The step of a track's type in its values (0: floats), as diesel_scene.c gives it. */
double diesel_step(int type)
{
	return type == DSL_POS_U16 ? 1000.0 / 32767.0 : type == DSL_ROT_PACKED ? 0.75 / 512.0 : 0;
}

/* The tolerance a step gives (floats: what a float32 round trip moves a value). */
static double tol_of(double step, double v)
{
	return step > 0 ? step : 1e-5 * (1 + fabs(v));
}

/* The values of key k of a track of type (cm, or a quaternion) into v. */
static void key_values(int type, const struct diesel_key *k, double *v)
{
	if (type == DSL_POS_U16)
		for (size_t j = 0; j < 3; j++)
			v[j] = diesel_u16_to_cm(k->c[j]);
	else if (type == DSL_ROT_PACKED)
		diesel_unpack_quat(k->u, v);
	else
		for (size_t j = 0; j < 4; j++)
			v[j] = k->f[j];
}

/* Component j of key i's values (w values a key), sign-aligned with ref for rotations. */
static double comp(const float *v, size_t w, size_t i, size_t j, const float *ref)
{
	double s = 1;
	if (w == 4 && ref) {
		double dot = 0;
		for (size_t k = 0; k < 4; k++)
			dot += (double)v[i * 4 + k] * ref[k];
		s = dot < 0 ? -1 : 1;
	}
	return s * v[i * w + j];
}

/* An edit's keys as af_lfit_reduce reads them: components sign-aligned with the run's first
 * key for rotations; within half a step (tol) of every glTF key. */
struct fit {
	const struct af_scene_edit *e;
	size_t w;
	double step;
};

static double fit_dt(const void *ctx, size_t a, size_t i)
{
	const struct fit *f = ctx;
	return f->e->t[i] - f->e->t[a];
}

static double fit_val(const void *ctx, size_t a, size_t i, size_t j)
{
	const struct fit *f = ctx;
	return comp(f->e->v, f->w, i, j, i == a ? NULL : f->e->v + a * f->w);
}

static double fit_tol(const void *ctx, size_t i, size_t j)
{
	const struct fit *f = ctx;
	return tol_of(f->step, f->e->v[i * f->w + j]) / 2;
}

/* The value of the new track at time t (linear between its keys, held past its ends). */
static void track_at(const struct diesel_track *tr, double t, double *out)
{
	size_t i = 0, w = diesel_types[tr->type].is_rot ? 4 : 3;
	double a[4], b[4];
	while (i + 1 < tr->nkeys && tr->keys[i + 1].t <= t)
		i++;
	for (int s = 0; s < 2; s++)
		key_values(tr->type, &tr->keys[i + (s && i + 1 < tr->nkeys)], s ? b : a);
	double f = i + 1 < tr->nkeys && t > tr->keys[i].t && tr->keys[i + 1].t > tr->keys[i].t
			   ? (t - tr->keys[i].t) / (tr->keys[i + 1].t - tr->keys[i].t) : 0;
	double dot = 0;
	for (size_t j = 0; j < w; j++)
		dot += a[j] * b[j];
	for (size_t j = 0; j < w; j++)
		out[j] = a[j] + ((w == 4 && dot < 0 ? -b[j] : b[j]) - a[j]) * (t < tr->keys[0].t ? 0 : f);
}

/* The file's key nearest in time to t, when within SAME_TIME of it (the file's own key,
 * as Blender rounded its time), after the time after (no key at or before it may be
 * taken again: the keys' times increase) and nearer t than next, the glTF's next key
 * (a key 2^-20 s before a file's key and one on it: the file's key is the second's, and
 * the first keeps its own time, so the times still increase); NULL when none. A binary
 * search: the file's keys' times increase (the parser checked). */
static const struct diesel_key *at_time(const struct diesel_track *old, double t, double after, double next)
{
	uint32_t lo = 0, hi = old->nkeys;
	while (lo < hi) { /* the first key at or after t */
		uint32_t mid = lo + (hi - lo) / 2;
		if (old->keys[mid].t < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct diesel_key *best = NULL;
	for (uint32_t k = lo > 0 ? lo - 1 : 0; k < old->nkeys && k <= lo; k++)
		if (old->keys[k].t > after && fabs(old->keys[k].t - t) <= SAME_TIME &&
		    fabs(old->keys[k].t - t) < fabs(next - old->keys[k].t) &&
		    (!best || fabs(old->keys[k].t - t) < fabs(best->t - t)))
			best = &old->keys[k];
	return best;
}

/* The file's key at the time of glTF key i (at_time) whose values are within one step of
 * it, or NULL: kept as it is (an edit changes the keys it moved, not its neighbours'
 * codes). */
static const struct diesel_key *kept(const struct diesel_track *old, const struct af_scene_edit *e, size_t i,
				     double after, double next)
{
	size_t w = e->path == AF_SC_ROTATION ? 4 : 3;
	double step = diesel_step(old->type), v[4];
	const struct diesel_key *k = at_time(old, e->t[i], after, next);
	if (!k)
		return NULL;
	key_values(old->type, k, v);
	for (int s = 1; s >= (w == 4 ? -1 : 1); s -= 2) {
		size_t j = 0;
		while (j < w && fabs(s * v[j] - e->v[i * w + j]) <= tol_of(step, v[j]) * (1 + 1e-6))
			j++;
		if (j == w)
			return k;
	}
	return NULL;
}

/* Key i of the glTF edit quantised into k as the track's type stores it (the file's own
 * key where it agrees), at a time after the key before it (after); next: the time of the
 * next key kept (INFINITY: none). */
static int put_key(const struct diesel_track *old, const struct af_scene_edit *e, size_t i, int one,
		   double after, double next, struct diesel_key *k, struct af_diag *d)
{
	size_t w = e->path == AF_SC_ROTATION ? 4 : 3;
	const float *v = e->v + i * w;
	const struct diesel_key *same = kept(old, e, i, after, next), *near;
	if (same && (!diesel_types[old->type].has_flag || one == (old->nkeys == 1))) {
		*k = *same;
		return 0;
	}
	memset(k, 0, sizeof(*k));
	k->t = e->t[i];
	if ((near = at_time(old, e->t[i], after, next))) /* a file's key time, as Blender rounded it */
		k->t = near->t;
	if (!(k->t > after)) /* a guard: the glTF's times increase, and a file's time is taken by its nearest */
		return af_diag_error(d, AF_EINVAL, "object '%s' %s key %zu of the glTF (at %.9g s): its time is not "
				     "after the key before it (%.9g s) in the file's float seconds", e->node,
				     w == 4 ? "rotation" : "position", i, (double)e->t[i], after);
	if (old->type == DSL_POS_U16) {
		for (size_t j = 0; j < 3; j++)
			if (diesel_cm_to_u16(v[j], &k->c[j]))
				return af_diag_error(d, AF_EINVAL, "object '%s' position at %.4f s: %g cm is outside pos_u16's "
							"-1000..+1000 cm (give the object a pos_f32 track in the YAML first)",
						     e->node, (double)k->t, (double)v[j]);
		k->c[3] = old->keys[0].c[3];
		return 0;
	}
	if (old->type == DSL_ROT_PACKED) {
		double q[4] = { v[0], v[1], v[2], v[3] };
		k->u = diesel_pack_quat(q);
		return 0;
	}
	for (size_t j = 0; j < w; j++)
		k->f[j] = v[j];
	if (diesel_types[old->type].has_flag) /* flag 1 is a one-key track's (diesel.md) */
		k->u = one ? old->keys[0].u : 0;
	return 0;
}

/* The edit's keys into the track: reduced, quantised, reported. */
static int rekey(struct diesel_anim *m, struct af_arena *a, struct diesel_track *tr, struct af_scene_edit *e,
		 struct af_diag *d)
{
	size_t w = e->path == AF_SC_ROTATION ? 4 : 3, nk = 0;
	double step = diesel_step(tr->type), worst = 0;
	unsigned char *keep = af_arena_alloc(a, e->n);
	struct diesel_key *keys;
	int rc;
	if (!keep)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	if (e->t[e->n - 1] > m->length + 1e-4)
		return af_diag_error(d, AF_EINVAL, "object '%s' %s: a key at %.4f s is past the clip's length of %.4f s",
				     e->node, w == 4 ? "rotation" : "position", (double)e->t[e->n - 1], (double)m->length);
	memset(keep, 0, e->n);
	af_lfit_reduce(&(struct af_lfit){e->n, w, fit_dt, fit_val, fit_tol, &(struct fit){e, w, step}}, keep);
	for (size_t i = 0; i < e->n; i++)
		nk += keep[i];
	if (!(keys = af_arena_array(a, nk, sizeof(*keys))))
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	nk = 0;
	for (size_t i = 0; i < e->n; i++) {
		if (!keep[i])
			continue;
		size_t nx = i + 1;
		while (nx < e->n && !keep[nx])
			nx++;
		if ((rc = put_key(tr, e, i, e->n == 1, nk ? keys[nk - 1].t : -INFINITY, nx < e->n ? e->t[nx] : INFINITY,
				  &keys[nk], d)))
			return rc;
		nk++;
	}
	e->keys_before = tr->nkeys;
	tr->keys = keys;
	tr->nkeys = (uint32_t)nk;
	e->keys_after = nk;
	for (size_t i = 0; i < e->n; i++) { /* how far the stored curve is from the glTF's */
		double v[4];
		track_at(tr, e->t[i], v);
		for (size_t j = 0; j < w; j++) {
			double g = comp(e->v, w, i, j, NULL), s = w == 4 && v[0] * e->v[i * 4] + v[1] * e->v[i * 4 + 1] +
						v[2] * e->v[i * 4 + 2] + v[3] * e->v[i * 4 + 3] < 0 ? -1 : 1;
			double err = fabs(s * v[j] - g) / (step > 0 ? step : tol_of(0, g));
			worst = err > worst ? err : worst;
		}
	}
	e->max_steps = worst;
	return 0;
}

int diesel_scene_import(const struct af_ynode *root, struct af_scene_edit *ed, size_t ned,
			const struct af_io *io, struct af_buf *out, struct af_diag *d)
{
	struct af_arena a;
	struct diesel_anim m;
	int rc;
	af_arena_init(&a);
	if ((rc = diesel_parse_yaml(root, &a, &m, d)))
		goto out;
	for (size_t i = 0; i < ned && !rc; i++) {
		struct af_scene_edit *e = &ed[i];
		struct diesel_object *o = NULL;
		for (uint32_t k = 0; k < m.nobj && !o; k++)
			if (m.obj[k].name_len == strlen(e->node) && !memcmp(m.obj[k].name, e->node, m.obj[k].name_len))
				o = &m.obj[k];
		if (strcmp(e->anim, "animation"))
			rc = af_diag_error(d, AF_EINVAL, "animation '%s': a Diesel file holds one, 'animation'", e->anim);
		else if (!o)
			rc = af_diag_error(d, AF_EINVAL, "node '%s': the file has no object of that name", e->node);
		else if (e->path == AF_SC_SCALE)
			rc = af_diag_error(d, AF_EINVAL, "node '%s': a scale channel, which a Diesel file does not store",
					   e->node);
		else
			rc = rekey(&m, &a, e->path == AF_SC_ROTATION ? &o->rot : &o->pos, e, d);
	}
	if (!rc)
		rc = diesel_write(&m, io, out, d);
out:
	af_arena_free(&a);
	return rc;
}
