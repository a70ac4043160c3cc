/* Sims 3 CLIP: the scene of a view for glTF previews (scene.h), read from the YAML alone:
 * one animation (the clip) whose channels move the bones they target, translation and
 * orientation at tick * tick_length seconds; the bones are those of a rig already in the
 * scene (`animfs gltf --rig`), or else one root node per target. IK chains and events go
 * to the animation's extras. Metres, Y up: glTF's own. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/curves.h"
#include "animfs/fnv.h"
#include "animfs/io.h"
#include "animfs/scene.h"
#include "clip.h"

static const struct af_ynode *values(const struct af_ynode *fr)
{
	return fr && fr->type == AF_YMAP ? af_ymap_get(fr, "v") : fr;
}

/* The sub_target of a channel that moves a node (Translation, Orientation, Scale) with
 * frames, as its path, or -1 (constant, carried as bytes, or nothing a node has). */
static int moves(const struct af_ynode *ch)
{
	const struct af_ynode *frames = af_ymap_get(ch, "frames");
	const char *sub = af_cv_str(af_ymap_get(ch, "sub_target"));
	if (!af_cv_str(af_ymap_get(ch, "target")) || !sub || !frames || frames->type != AF_YMAP || !frames->n)
		return -1;
	return !strcmp(sub, "Orientation") ? AF_SC_ROTATION : !strcmp(sub, "Scale") ? AF_SC_SCALE
	       : !strcmp(sub, "Translation") ? AF_SC_TRANSLATION : -1;
}

/* The first node of each target hash (clip_target_hash of its name), kept as the nodes
 * come: a scan of every node for each target was quadratic in the channels. */
struct by_hash {
	uint32_t *h;
	long *node; /* -1: a free slot */
	size_t cap, n;
};

static size_t slot_of(const struct by_hash *m, uint32_t h)
{
	size_t i = (h * 0x9E3779B1u) & (m->cap - 1);
	while (m->node[i] >= 0 && m->h[i] != h)
		i = (i + 1) & (m->cap - 1);
	return i;
}

/* Node k's hash into m (the first node of a hash stays): 0, or AF_ENOMEM. */
static int note_hash(struct by_hash *m, const struct af_scene *sc, size_t k)
{
	uint32_t h;
	if (clip_target_hash(sc->node[k].name, &h))
		return 0;
	if (2 * (m->n + 1) > m->cap) { /* half full at most: twice as large */
		struct by_hash g = { NULL, NULL, m->cap ? 2 * m->cap : 64, 0 };
		if (!(g.h = malloc(g.cap * sizeof(*g.h))) || !(g.node = malloc(g.cap * sizeof(*g.node)))) {
			free(g.h);
			return AF_ENOMEM;
		}
		for (size_t i = 0; i < g.cap; i++)
			g.node[i] = -1;
		for (size_t i = 0; i < m->cap; i++)
			if (m->node[i] >= 0) {
				size_t j = slot_of(&g, m->h[i]);
				g.h[j] = m->h[i], g.node[j] = m->node[i], g.n++;
			}
		free(m->h);
		free(m->node);
		*m = g;
	}
	size_t i = slot_of(m, h);
	if (m->node[i] < 0)
		m->h[i] = h, m->node[i] = (long)k, m->n++;
	return 0;
}

/* The node a channel's target moves: the one so named, or else the one of the same hash:
 * a target the view shows as its hash (no rig beside the clip named it: a rig from
 * --rig-dir) moves the bone whose name hashes to it, and a node named by a hash (a glTF
 * brought back, made where no rig named it) is the target's of that hash; -1. */
static long find_target(const struct af_scene *sc, const struct by_hash *m, const char *t)
{
	long k = af_scene_find(sc, t);
	uint32_t h;
	if (k >= 0 || !t || clip_target_hash(t, &h) || !m->cap)
		return k;
	return m->node[slot_of(m, h)];
}

/* One stored step of a channel's values (spec 5.6: |scale| / the code of 1.0), or 0 when
 * its type has no such code (a palette). */
static double quantum(const struct af_ynode *ch)
{
	const char *type = af_cv_str(af_ymap_get(ch, "type"));
	int id = type ? clip_type_by_name(type, strlen(type)) : -1;
	const struct clip_type *t = id >= 0 ? clip_type((unsigned)id) : NULL;
	double scale = 0;
	if (!t || !t->max || af_cv_num(af_ymap_get(ch, "scale"), &scale))
		return 0;
	return fabs((double)(float)scale) / t->max;
}

static int channel(struct af_scene *sc, struct by_hash *m, const struct af_ynode *ch, double tick, struct af_diag *d)
{
	const struct af_ynode *frames = af_ymap_get(ch, "frames");
	const char *target = af_cv_str(af_ymap_get(ch, "target"));
	int path = moves(ch), rot = path == AF_SC_ROTATION, w = rot ? 4 : 3;
	long node;
	size_t c;
	if (path < 0)
		return 0;
	if ((node = find_target(sc, m, target)) < 0) {
		size_t k = af_scene_node(sc, target, -1, ch->line);
		if (k == SIZE_MAX || note_hash(m, sc, k))
			return AF_ENOMEM;
		node = (long)k;
	}
	if ((c = af_scene_channel(sc, (size_t)node, (enum af_scene_path)path, ch->line)) == SIZE_MAX)
		return AF_ENOMEM;
	sc->ch[c].quantum = quantum(ch);
	for (size_t k = 0; k + 1 < 2 * frames->n; k += 2) {
		double t, v[4];
		int rc;
		if (af_cv_num(&frames->items[k], &t))
			return af_diag_at_mark(d, AF_EINVAL, frames->items[k].line, frames->items[k].col,
					       "line %u: a frame's tick is not a number", frames->items[k].line);
		if ((rc = af_scene_nums(values(&frames->items[k + 1]), 0, (size_t)w, v,
					rot ? "orientation [x, y, z, w]" : "[x, y, z]", d)))
			return rc;
		af_scene_key(sc, c, t * tick, v);
	}
	return 0;
}

/* The IK chains' targets and the events as JSON, in the animation's extras. */
static void extras(struct af_scene *sc, const struct af_ynode *root)
{
	const struct af_ynode *ik = af_ymap_get(root, "ik_chains"), *evs = af_ymap_get(root, "events");
	struct af_buf j = AF_BUF_INIT;
	af_buf_putc(&j, '[');
	for (size_t i = 0; i < af_cv_count(ik); i++) {
		const struct af_ynode *tg = af_ymap_get(af_cv_item(ik, i), "targets");
		af_buf_puts(&j, i ? ", [" : "[");
		for (size_t k = 0; k < af_cv_count(tg); k++) {
			const char *t = af_cv_str(af_ymap_get(af_cv_item(tg, k), "target"));
			if (k)
				af_buf_puts(&j, ", ");
			af_scene_jstr(&j, t ? t : "?");
		}
		af_buf_putc(&j, ']');
	}
	af_buf_putc(&j, ']');
	af_buf_putc(&j, 0);
	if (!j.failed)
		af_scene_extra(sc, 1, "ik_chains", (const char *)j.data, 1);
	af_buf_reset(&j);
	af_buf_putc(&j, '[');
	for (size_t i = 0; i < af_cv_count(evs); i++) {
		const struct af_ynode *ev = af_cv_item(evs, i);
		const char *type = af_cv_str(af_ymap_get(ev, "type")), *name = af_cv_str(af_ymap_get(ev, "name"));
		double t = 0;
		af_cv_num(af_ymap_get(ev, "time"), &t);
		af_buf_printf(&j, "%s{\"time\": %.9g, \"type\": ", i ? ", " : "", t);
		af_scene_jstr(&j, type ? type : "?");
		af_buf_puts(&j, ", \"name\": ");
		af_scene_jstr(&j, name ? name : "");
		af_buf_putc(&j, '}');
	}
	af_buf_putc(&j, ']');
	af_buf_putc(&j, 0);
	if (!j.failed)
		af_scene_extra(sc, 1, "events", (const char *)j.data, 1);
	else
		sc->oom = 1;
	af_buf_free(&j);
}

int clip_scene(const struct af_ynode *root, struct af_scene *sc, struct af_diag *d)
{
	const struct af_ynode *chans = af_ymap_get(root, "channels");
	const char *name = af_cv_str(af_ymap_get(root, "clip"));
	double tick = 1 / 30.0, ticks;
	int rigged = sc->nnode != 0;
	af_cv_num(af_ymap_get(root, "tick_length"), &tick);
	af_scene_extra(sc, 0, "format", "sims3-clip", 0);
	af_scene_extra(sc, 0, "note", rigged ? "the bones of the rig given or found beside the clip; a target it lacks is a root node"
					     : "no rig: one node per channel target, at the origin (all under one root node)", 0);
	if (!af_scene_wanted(sc, name ? name : "clip"))
		return 0;
	if (af_scene_anim(sc, name ? name : "clip"))
		return AF_ENOMEM;
	if (af_cv_num(af_ymap_get(root, "num_ticks"), &ticks) || ticks < 1)
		ticks = 1;
	if (tick > 0)
		af_scene_timing(sc, 1 / tick, ticks, (ticks - 1) * tick, "the clip");
	extras(sc, root);
	struct by_hash m = { NULL, NULL, 0, 0 };
	int rc = 0;
	for (size_t k = 0; k < sc->nnode && !rc; k++) /* the rig's bones */
		rc = note_hash(&m, sc, k);
	for (size_t i = 0; i < af_cv_count(chans) && !rc; i++)
		rc = channel(sc, &m, af_cv_item(chans, i), tick, d);
	free(m.h);
	free(m.node);
	return rc ? rc : sc->oom ? AF_ENOMEM : 0;
}

/* ---- the rig a clip moves, found beside it (the descriptor's scene_base hook) ---- */

/* Nothing in a CLIP names its rig (sims3-clip.md: a channel targets FNV-1 32 of a bone's
 * lower-cased name; the actor is a namespace, x or y; the package links neither), so the
 * rig is found by what it holds: of the clear rigs beside the clip (in its package, or
 * its folder), the one whose bone hashes are the targets of the most channels that move
 * a node; taken only when that is at least half of those targets (a prop's rig holds
 * b__ROOT__ too, which a Sim's clip may target); of two as good, the first listed. The
 * view's names (clip.c) take a rig of --rig-dir by the same rule. */
int clip_fit_init(struct clip_fit *f, size_t n, char *name, size_t size)
{
	memset(f, 0, sizeof(*f));
	f->want = af_alloc_zeroed(n ? n : 1, sizeof(uint32_t));
	f->seen = af_alloc_zeroed(n ? n : 1, 1);
	f->name = name;
	f->size = size;
	if (size)
		name[0] = 0;
	if (f->want && f->seen)
		return 0;
	clip_fit_free(f);
	return AF_ENOMEM;
}

void clip_fit_free(struct clip_fit *f)
{
	free(f->want);
	free(f->seen);
	f->want = NULL;
	f->seen = NULL;
}

void clip_fit_want(struct clip_fit *f, uint32_t h)
{
	size_t k = 0;
	while (k < f->nwant && f->want[k] != h)
		k++;
	if (k == f->nwant)
		f->want[f->nwant++] = h;
}

static int mark_bone(void *ctx, const char *s, size_t n)
{
	struct clip_fit *f = ctx;
	uint32_t h = af_fnv1_32_lower(s, n);
	for (size_t i = 0; i < f->nwant; i++)
		if (f->want[i] == h)
			f->seen[i] = 1;
	return 0;
}

void clip_fit_rig(struct clip_fit *f, const char *name, const uint8_t *rig, size_t n)
{
	size_t k = 0;
	if (strlen(name) >= f->size)
		return;
	memset(f->seen, 0, f->nwant);
	clip_rig_names(rig, n, mark_bone, f);
	for (size_t i = 0; i < f->nwant; i++)
		k += f->seen[i];
	if (k > f->best) {
		f->best = k;
		snprintf(f->name, f->size, "%s", name);
	}
}

int clip_fit_found(const struct clip_fit *f)
{
	return f->best && f->best * 2 >= f->nwant;
}

struct pick {
	struct clip_fit *f;
	const struct af_io *io;
};

static int score_rig(void *ctx, const char *name)
{
	struct pick *p = ctx;
	struct af_buf b = AF_BUF_INIT;
	if (!clip_is_rig_name(name) || strlen(name) >= p->f->size)
		return 0;
	if (!p->io->read_sibling(p->io->ctx, name, &b) && !b.failed)
		clip_fit_rig(p->f, name, b.data, b.len);
	af_buf_free(&b);
	return 0;
}

int clip_fit_pick(struct clip_fit *f, const struct af_io *io)
{
	struct pick p = { f, io };
	f->best = 0;
	if (f->nwant && io->list_siblings && io->read_sibling)
		io->list_siblings(io->ctx, score_rig, &p);
	return clip_fit_found(f);
}

int clip_target_hash(const char *t, uint32_t *h)
{
	char *end;
	if (t[0] == '0' && (t[1] | 32) == 'x') {
		unsigned long v = strtoul(t + 2, &end, 16);
		if (*end || end == t + 2 || v > 0xFFFFFFFFul)
			return -1;
		*h = (uint32_t)v;
	} else {
		*h = af_fnv1_32_lower(t, strlen(t));
	}
	return 0;
}

int clip_scene_base(const struct af_ynode *root, const struct af_io *io, char *name, size_t size,
		    struct af_buf *why)
{
	const struct af_ynode *chans = af_ymap_get(root, "channels");
	size_t n = af_cv_count(chans);
	struct clip_fit f;
	int found = 0;
	if (clip_fit_init(&f, n, name, size))
		return 0;
	for (size_t i = 0; i < n; i++) {
		const struct af_ynode *ch = af_cv_item(chans, i);
		uint32_t h;
		if (moves(ch) >= 0 && !clip_target_hash(af_cv_str(af_ymap_get(ch, "target")), &h))
			clip_fit_want(&f, h);
	}
	if (clip_fit_pick(&f, io)) {
		found = 1;
		af_buf_printf(why, "of the rigs beside the clip, the one whose bones are the most of the "
			      "clip's moved targets: %zu of %zu (at least half needed)", f.best, f.nwant);
	}
	clip_fit_free(&f);
	return found;
}
