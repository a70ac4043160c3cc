/* Sims 3 CLIP: a glTF brought back (the descriptor's scene_import hook, codec.h). The
 * document is parsed into the model as a save would; each edited channel (a bone's
 * translation, orientation or scale, found by its target hash: the joint's name hashed as
 * the rig names it, or the "0x..." the view shows) gets the glTF's keys on the clip's tick
 * grid (keys off the grid, as a sampled export at another rate gives, are resampled at
 * every tick they span), reduced to the fewest whose straight lines stay within half a
 * stored step of the glTF's values (a key at a tick where the file has a frame is always
 * kept), and quantised with the channel's own offset and scale (spec 12.2); where a kept
 * key agrees with the file's frame at that tick within one step, that frame's codes and
 * flags stay as they are (spec 12.1). A value outside offset +- |scale| refits the
 * channel's range as spec 12.3 says (every frame of that channel re-quantised), and the
 * report says so. Everything else (other channels, IK, events, unknown words) as the
 * document says; the model is then written by the encoder a save uses. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "animfs/arena.h"
#include "animfs/bytes.h"
#include "animfs/lfit.h"
#include "animfs/num.h"
#include "animfs/scene.h"
#include "animfs/yamlio.h"
#include "clip.h"

/* A glTF time this close to a tick (in ticks) is on it (an exporter's seconds are floats). */
#define ON_TICK 1e-3

/* The keys an edit becomes: ticks and w values each, before quantisation. */
struct keys {
	size_t n;
	uint32_t *tick;
	double *v;
	unsigned char *keep;
};

/* The decoded values of frame f (a rotation made a unit quaternion, as the preview shows it). */
static void frame_values(const struct clip *c, const struct clip_chan *ch, const struct clip_frame *f, size_t w,
			 double *v)
{
	double len = 0;
	for (size_t j = 0; j < w; j++) {
		v[j] = (float)clip_value(c, ch, f, (unsigned)j);
		len += v[j] * v[j];
	}
	if (w == 4 && len > 0)
		for (size_t j = 0; j < 4; j++)
			v[j] /= sqrt(len);
}

/* The largest distance of p from q (w values; a quaternion or its negation) in steps. */
static double steps_apart(const double *p, const double *q, size_t w, double step)
{
	double best = INFINITY;
	for (int s = 1; s >= (w == 4 ? -1 : 1); s -= 2) {
		double m = 0;
		for (size_t j = 0; j < w; j++)
			m = fmax(m, fabs(s * p[j] - q[j]) / step);
		best = fmin(best, m);
	}
	return best;
}

/* The file's frame at tick, or NULL. */
static const struct clip_frame *frame_at(const struct clip_frame *f, uint32_t n, uint32_t tick)
{
	for (uint32_t i = 0; i < n; i++)
		if (f[i].tick == tick)
			return &f[i];
	return NULL;
}

/* The glTF's keys on the tick grid: its own where each sits on a tick, else its curve at
 * every tick from its first key to its last. A key before tick 0 or past the clip's last
 * tick is refused. */
static int grid(const struct clip *c, const struct af_scene_edit *e, size_t w, double tl, struct af_arena *a,
		struct keys *k, struct af_diag *d)
{
	double first = e->t[0] / tl, last = e->t[e->n - 1] / tl;
	int on = 1;
	if (first < -ON_TICK || last > c->num_ticks - 1 + ON_TICK)
		return af_diag_error(d, AF_EINVAL, "node '%s' %s: a key at %.4f s is outside the clip's ticks 0..%u "
				     "(0..%.4f s)", e->node, e->path == AF_SC_ROTATION ? "rotation" : "translation",
				     (double)(first < -ON_TICK ? e->t[0] : e->t[e->n - 1]), (unsigned)c->num_ticks - 1,
				     (c->num_ticks - 1) * tl);
	for (size_t i = 0; i < e->n && on; i++) /* on the grid, and one key a tick */
		on = fabs(e->t[i] / tl - nearbyint(e->t[i] / tl)) <= ON_TICK &&
		     (!i || nearbyint(e->t[i] / tl) > nearbyint(e->t[i - 1] / tl));
	uint32_t t0 = (uint32_t)fmax(0, ceil(first - ON_TICK)), t1 = (uint32_t)fmin(c->num_ticks - 1, floor(last + ON_TICK));
	if (t1 < t0) /* keys between two ticks only: the nearest */
		t0 = t1 = (uint32_t)fmin(c->num_ticks - 1, fmax(0, nearbyint(first)));
	k->n = on ? e->n : t1 - t0 + 1;
	k->tick = af_arena_array(a, k->n, sizeof(*k->tick));
	k->v = af_arena_array(a, k->n * w, sizeof(*k->v));
	k->keep = af_arena_array(a, k->n, 1);
	if (!k->tick || !k->v || !k->keep)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	for (size_t i = 0; i < k->n; i++) {
		if (on) {
			k->tick[i] = (uint32_t)nearbyint(e->t[i] / tl);
			for (size_t j = 0; j < w; j++)
				k->v[i * w + j] = e->v[i * w + j];
		} else {
			k->tick[i] = t0 + (uint32_t)i;
			af_scene_curve_at(e->t, e->v, e->n, w, k->tick[i] * tl, &k->v[i * w]);
		}
	}
	for (size_t i = 1; i < k->n && w == 4; i++) { /* one hemisphere after another */
		double dot = 0;
		for (size_t j = 0; j < 4; j++)
			dot += k->v[(i - 1) * 4 + j] * k->v[i * 4 + j];
		for (size_t j = 0; dot < 0 && j < 4; j++)
			k->v[i * 4 + j] = -k->v[i * 4 + j];
	}
	return 0;
}

/* The keys as af_lfit_reduce reads them: within half a step of every key. */
struct fit {
	const struct keys *k;
	size_t w;
	double step;
};

static double fit_dt(const void *ctx, size_t a, size_t i)
{
	const struct fit *f = ctx;
	return (double)(f->k->tick[i] - f->k->tick[a]);
}

static double fit_val(const void *ctx, size_t a, size_t i, size_t j)
{
	const struct fit *f = ctx;
	(void)a;
	return f->k->v[i * f->w + j];
}

static double fit_tol(const void *ctx, size_t i, size_t j)
{
	const struct fit *f = ctx;
	(void)i;
	(void)j;
	return f->step / 2;
}

/* The fewest keys whose lines stay within half a step, the file's ticks always kept. */
static void reduce(const struct keys *k, const struct clip_chan *old, size_t w, double step)
{
	memset(k->keep, 0, k->n);
	for (size_t i = 0; i < k->n; i++)
		if (frame_at(old->f, old->nframes, k->tick[i]))
			k->keep[i] = 1;
	af_lfit_reduce(&(struct af_lfit){k->n, w, fit_dt, fit_val, fit_tol, &(struct fit){k, w, step}}, k->keep);
}

/* Values v quantised with ch's offset and scale (rule 12.2) into f (the sign of a
 * quaternion the one that fits, this one first); flags bits 4-15 from was. -1: out of
 * range. */
static int quantise(const struct clip_chan *ch, const struct clip_type *t, const double *v, size_t w,
		    const struct clip_frame *was, struct clip_frame *f)
{
	for (int s = 1; s >= (w == 4 ? -1 : 1); s -= 2) {
		size_t j;
		f->flags = was ? (uint16_t)(was->flags & 0xFFF0) : 0;
		for (j = 0; j < w; j++) {
			int neg;
			if (clip_quantize(ch, t, (float)(s * v[j]), &f->code[j], &neg))
				break;
			f->flags |= (uint16_t)(neg << j);
		}
		if (j == w)
			return 0;
	}
	return -1;
}

/* Rule 12.3: offset and scale from the kept keys' values, the scale grown by a float's
 * step until every one of them quantises. 0, or -1. */
static int refit(struct clip_chan *ch, const struct clip_type *t, const struct keys *k, size_t w)
{
	double lo = INFINITY, hi = -INFINITY;
	struct clip_frame f;
	for (size_t i = 0; i < k->n; i++)
		for (size_t j = 0; j < w && k->keep[i]; j++) {
			lo = fmin(lo, k->v[i * w + j]);
			hi = fmax(hi, k->v[i * w + j]);
		}
	float off = (float)((lo + hi) / 2), sc = (float)((hi - lo) / 2);
	ch->offset = af_f32_bits(off);
	for (int n = 0, ok = 0; n < 64 && !ok; n++, sc = nextafterf(sc, INFINITY)) {
		size_t i = 0;
		ch->scale = af_f32_bits(sc > 0 ? sc : 1.0f);
		while (i < k->n && (!k->keep[i] || !quantise(ch, t, &k->v[i * w], w, NULL, &f)))
			i++;
		if (i == k->n)
			return 0;
	}
	return -1;
}

/* The edit's keys into channel ch: on the grid, reduced, quantised, reported. */
static int rekey(const struct clip *c, struct clip_chan *ch, struct af_scene_edit *e, struct af_arena *a,
		 struct af_diag *d)
{
	const struct clip_type *t = clip_type(ch->type);
	const char *path = e->path == AF_SC_ROTATION ? "rotation" : e->path == AF_SC_SCALE ? "scale" : "translation";
	size_t w = e->path == AF_SC_ROTATION ? 4 : 3, nk = 0;
	double tl = af_f32_from_bits(c->tick_length), worst = 0;
	struct clip_chan old = *ch;
	struct clip_frame *f;
	struct keys k = { 0, NULL, NULL, NULL };
	int rc, refitted = 0;
	if (!t || (t->layout != CLIP_U16 && t->layout != CLIP_U32X3 && t->layout != CLIP_U16X4) || t->ncomp != w)
		return af_diag_error(d, AF_EINVAL, "node '%s' %s: the clip stores it as %s, which an import does not "
				     "write (edit it in the YAML)", e->node, path, t ? t->name : "an unknown type");
	if (!(tl > 0))
		return af_diag_error(d, AF_EINVAL, "node '%s' %s: the clip's tick_length is not positive", e->node, path);
	if ((rc = grid(c, e, w, tl, a, &k, d)))
		return rc;
	double step = fabs((double)af_f32_from_bits(ch->scale)) / t->max;
	reduce(&k, &old, w, step > 0 ? step : 1e-6);
	for (size_t i = 0; i < k.n; i++)
		nk += k.keep[i];
	if (!(f = af_arena_array(a, nk, sizeof(*f))))
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	for (int pass = 0; pass < 2; pass++) {
		size_t m = 0, i;
		for (i = 0; i < k.n; i++) {
			const struct clip_frame *was = frame_at(old.f, old.nframes, k.tick[i]);
			double v[4];
			if (!k.keep[i])
				continue;
			memset(&f[m], 0, sizeof(f[m]));
			f[m].tick = (uint16_t)k.tick[i];
			if (was && !refitted && (frame_values(c, &old, was, w, v), steps_apart(v, &k.v[i * w], w, step) <= 1 + 1e-6))
				f[m] = *was; /* the file's frame where the glTF agrees with it */
			else if (quantise(ch, t, &k.v[i * w], w, was, &f[m]))
				break;
			m++;
		}
		if (i == k.n)
			break;
		if (!pass && !e->refit) {
			char o[AF_NUM_MAX], s[AF_NUM_MAX];
			af_fmt_f32(o, af_f32_from_bits(old.offset));
			af_fmt_f32(s, af_f32_from_bits(old.scale));
			return af_diag_error(d, AF_EINVAL, "node '%s' %s: a value lies outside the channel's range "
					     "(offset %s +- |scale %s|); `animfs import --refit` refits the range "
					     "(every frame of the channel re-quantised)", e->node, path, o, s);
		}
		if (pass || refit(ch, t, &k, w))
			return af_diag_error(d, AF_EINVAL, "node '%s' %s: no range of the channel holds its values",
					     e->node, path);
		refitted = 1;
		step = fabs((double)af_f32_from_bits(ch->scale)) / t->max;
		char o[AF_NUM_MAX], s[AF_NUM_MAX], o2[AF_NUM_MAX], s2[AF_NUM_MAX];
		af_fmt_f32(o, af_f32_from_bits(old.offset));
		af_fmt_f32(s, af_f32_from_bits(old.scale));
		af_fmt_f32(o2, af_f32_from_bits(ch->offset));
		af_fmt_f32(s2, af_f32_from_bits(ch->scale));
		snprintf(e->note, sizeof(e->note), "a value outside offset %.16s +- |scale %.16s|: range refitted to offset %.16s, "
			 "scale %.16s, every frame re-quantised (spec 12.3)", o, s, o2, s2);
	}
	e->keys_before = old.nframes;
	ch->f = f;
	ch->nframes = (uint32_t)nk;
	e->keys_after = nk;
	for (size_t i = 0; i < e->n; i++) { /* the new curve against the glTF's keys */
		double x = e->t[i] / tl, v[4], p[4], g[4];
		size_t lo = 0;
		while (lo + 1 < nk && f[lo + 1].tick <= x)
			lo++;
		frame_values(c, ch, &f[lo], w, v);
		frame_values(c, ch, &f[lo + (lo + 1 < nk)], w, p);
		double fr = lo + 1 < nk && x > f[lo].tick ? (x - f[lo].tick) / (f[lo + 1].tick - f[lo].tick) : 0, dot = 0;
		for (size_t j = 0; j < w; j++)
			dot += v[j] * p[j];
		double len = 0;
		for (size_t j = 0; j < w; j++) {
			v[j] += ((w == 4 && dot < 0 ? -p[j] : p[j]) - v[j]) * fr;
			g[j] = e->v[i * w + j];
			len += g[j] * g[j];
		}
		for (size_t j = 0; w == 4 && len > 0 && j < 4; j++) /* rotations as the preview shows them */
			g[j] /= sqrt(len);
		worst = fmax(worst, steps_apart(v, g, w, step > 0 ? step : 1e-6));
	}
	e->max_steps = worst;
	return 0;
}

int clip_scene_import(const struct af_ynode *root, struct af_scene_edit *ed, size_t ned, const struct af_io *io,
		      struct af_buf *out, struct af_diag *d)
{
	struct af_arena a;
	struct clip c;
	const char **names = NULL;
	size_t nnames = 0;
	int rc;
	(void)io;
	af_arena_init(&a);
	if ((rc = clip_parse(root, &c, &a, &names, &nnames, d)))
		goto out;
	for (size_t i = 0; i < ned && !rc; i++) {
		struct af_scene_edit *e = &ed[i];
		unsigned sub = e->path == AF_SC_TRANSLATION ? 1 : e->path == AF_SC_ROTATION ? 2 : 3;
		struct clip_chan *ch = NULL;
		uint32_t h;
		if (strlen(e->anim) != c.name_len || memcmp(e->anim, c.name, c.name_len)) {
			rc = af_diag_error(d, AF_EINVAL, "animation '%s': a CLIP holds one, '%.*s'", e->anim,
					   (int)c.name_len, c.name);
			break;
		}
		if (clip_target_hash(e->node, &h)) {
			rc = af_diag_error(d, AF_EINVAL, "node '%s': not a bone name or a 0x hash", e->node);
			break;
		}
		for (uint32_t k = 0; k < c.nchan && !ch; k++)
			if (c.ch[k].target == h && c.ch[k].sub == sub && c.ch[k].nframes)
				ch = &c.ch[k];
		if (!ch)
			rc = af_diag_error(d, AF_EINVAL, "node '%s' (target 0x%08X): the clip has no channel of it with "
					   "frames for that path", e->node, (unsigned)h);
		else
			rc = rekey(&c, ch, e, &a, d);
	}
	if (!rc)
		rc = clip_write(&c, out, d);
out:
	af_arena_free(&a);
	return rc;
}
