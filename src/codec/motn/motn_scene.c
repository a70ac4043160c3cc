/* Shenmue MOTN: the scene of a view for glTF previews (scene.h), read from the YAML alone:
 * each decoded block an animation (named by its first name) on numbered bone nodes, the
 * rig slots it drives, unparented and with no rest pose (the file has none). Per bone, a
 * translation key at every frame where tx, ty or tz has a value and a rotation key where
 * rx, ry or rz has one (Euler X, Y, Z in turns, rot.h's order), each channel's Hermite
 * curve evaluated there (at a jump, two keys at one frame, the second); 30 frames a second.
 * Blocks with rig bit 15 hold one value a frame: a baked block moves the same slots (its
 * hinges, one angle about an unknown axis, left out), a node block nodes of its own. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/curves.h"
#include "animfs/rot.h"
#include "animfs/scene.h"
#include "motn.h"

#define MAX_FRAMES 65536

/* The valued keys of one channel (type 0 has none), in frames order; *n of them. */
static int keys_of(const struct af_ynode *seq, struct motn_hkey **out, size_t *n, struct af_diag *d)
{
	size_t cnt = af_cv_count(seq);
	struct motn_hkey *k = af_alloc_zeroed(cnt ? cnt : 1, sizeof(*k));
	*n = 0;
	*out = k;
	if (!k)
		return AF_ENOMEM;
	for (size_t i = 0; i < cnt; i++) {
		const struct af_ynode *kn = &seq->items[i];
		double ty, v[5] = { 0 };
		int rc;
		if ((rc = af_scene_nums(kn, 0, 2, v, "key [frame, type, ...]", d)))
			return rc;
		ty = v[1];
		if (ty < 1)
			continue;
		for (int e = 2; e < 2 + (int)ty; e++)
			if (motn_yhalf(af_cv_item(kn, (size_t)e), &v[e]))
				return af_diag_at_mark(d, AF_EINVAL, kn->line, kn->col, "line %u: key of type %g wants %g values",
						       kn->line, ty, ty);
		if (v[0] < 0 || v[0] >= MAX_FRAMES || (*n && v[0] < k[*n - 1].f))
			return af_diag_at_mark(d, AF_EINVAL, kn->line, kn->col, "line %u: frame %g is before the key before",
					       kn->line, v[0]);
		k[*n] = (struct motn_hkey){ v[0], v[2], ty == 2 ? v[3] : ty == 3 ? v[3] : 0, ty == 2 ? v[3] : ty == 3 ? v[4] : 0 };
		(*n)++;
	}
	return 0;
}

/* The channel's value at frame f: its Hermite curve (slopes per second), held flat
 * before the first key and after the last; 0 with no key. at: NULL, or where to start
 * looking (a key at or before f), left at f's segment (a walk over rising frames is
 * linear). */
double motn_hermite(const struct motn_hkey *k, size_t n, size_t *at, double f)
{
	size_t i = at && *at < n && k[*at].f <= f ? *at : 0;
	if (!n)
		return 0;
	if (f <= k[0].f)
		return k[0].v;
	if (f >= k[n - 1].f)
		return k[n - 1].v;
	while (i + 1 < n && k[i + 1].f <= f)
		i++; /* at a jump (two keys at one frame) the later one holds from there on */
	if (at)
		*at = i;
	if (k[i].f == f)
		return k[i].v;
	double dt = (k[i + 1].f - k[i].f) / 30.0, s = (f - k[i].f) / (k[i + 1].f - k[i].f);
	double s2 = s * s, s3 = s2 * s;
	return (2 * s3 - 3 * s2 + 1) * k[i].v + (s3 - 2 * s2 + s) * dt * k[i].out + (-2 * s3 + 3 * s2) * k[i + 1].v +
	       (s3 - s2) * dt * k[i + 1].in;
}

/* A new channel of the last animation. Its quantum is no step of the file's (a half's
 * step is its value's, key by key, and an angle's spreads over a quaternion): one finer
 * than any a glTF import could tell from a float's rounding, so that an import hands on
 * every channel that may have changed, and motn_import.c compares each sample with its own
 * step. */
static size_t channel(struct af_scene *sc, size_t node, enum af_scene_path path, unsigned line)
{
	size_t ch = af_scene_channel(sc, node, path, line);
	if (ch != SIZE_MAX)
		sc->ch[ch].quantum = 1e-5;
	return ch;
}

/* One bone's translation or rotation channel from its three curves. */
static int trio(struct af_scene *sc, size_t node, const struct af_ynode *bn, int rot, unsigned char *mark,
		double frames, struct af_diag *d)
{
	static const char *const names[2][3] = { { "tx", "ty", "tz" }, { "rx", "ry", "rz" } };
	struct motn_hkey *k[3] = { NULL, NULL, NULL };
	size_t n[3] = { 0, 0, 0 }, ch = SIZE_MAX;
	int rc = 0, any = 0;
	for (int a = 0; a < 3 && !rc; a++)
		rc = keys_of(af_ymap_get(bn, names[rot][a]), &k[a], &n[a], d);
	if (rc)
		goto out;
	memset(mark, 0, (size_t)frames);
	for (int a = 0; a < 3; a++)
		for (size_t i = 0; i < n[a]; i++)
			if (k[a][i].f < frames)
				mark[(size_t)k[a][i].f] = 1, any = 1;
	if (!any)
		goto out;
	if ((ch = channel(sc, node, rot ? AF_SC_ROTATION : AF_SC_TRANSLATION, bn->line)) == SIZE_MAX) {
		rc = AF_ENOMEM;
		goto out;
	}
	size_t at[3] = { 0, 0, 0 };
	for (size_t f = 0; f < (size_t)frames; f++) {
		double v[3], q[4];
		if (!mark[f])
			continue;
		for (int a = 0; a < 3; a++)
			v[a] = motn_hermite(k[a], n[a], &at[a], (double)f);
		if (rot) {
			double e[3] = { v[0] * 360, v[1] * 360, v[2] * 360 }; /* turns */
			af_euler_deg_to_quat(e, q);
		}
		af_scene_key(sc, ch, (double)f / 30.0, rot ? q : v);
	}
out:
	for (int a = 0; a < 3; a++)
		free(k[a]);
	return rc;
}

/* The node of rig slot bone (made when first seen), or SIZE_MAX. */
static size_t slot(struct af_scene *sc, long *nodes, double bone, unsigned line)
{
	char name[32];
	size_t b = (size_t)bone;
	if (nodes[b] >= 0)
		return (size_t)nodes[b];
	snprintf(name, sizeof(name), "bone %zu", b);
	size_t k = af_scene_node(sc, name, -1, line);
	if (k != SIZE_MAX)
		nodes[b] = (long)k;
	return k;
}

/* ---- blocks with rig bit 15: one value a frame (docs/shenmue-motn.md) ---- */

#define TURN16 65536.0 /* int16 angles: 65536 a turn */

/* Value k of a per-frame list (or the constant itself when seq is a scalar), as a number;
 * halves (tx ty tz, t, scale) may be written as 0x bits. */
static int value_at(const struct af_ynode *seq, size_t k, int half, double *v, struct af_diag *d)
{
	const struct af_ynode *n = seq && seq->type == AF_YSEQ ? af_cv_item(seq, k) : seq;
	if (n && !(half ? motn_yhalf(n, v) : af_cv_num(n, v)) && isfinite(*v))
		return 0;
	return af_diag_at_mark(d, AF_EINVAL, seq ? seq->line : 0, seq ? seq->col : 0,
			       "line %u: value %zu is not a number", seq ? seq->line : 0, k);
}

/* A per-frame list of want values, or (may_const) a scalar: 1 when a list, 0 a constant. */
static int track(const struct af_ynode *seq, size_t want, int may_const, const char *what, int *is_list,
		 struct af_diag *d)
{
	*is_list = seq && seq->type == AF_YSEQ;
	if (*is_list && af_cv_count(seq) == want)
		return 0;
	if (!*is_list && may_const && seq)
		return 0;
	return af_diag_at_mark(d, AF_EINVAL, seq ? seq->line : 0, seq ? seq->col : 0,
			       "line %u: %s has %zu values, one a frame wants %zu", seq ? seq->line : 0, what,
			       af_cv_count(seq), want);
}

/* The rotation of Euler int16 angles (rx, ry, rz; the sequences' order) as a quaternion. */
static void angles16(const double a[3], double q[4])
{
	double e[3] = { a[0] * 360 / TURN16, a[1] * 360 / TURN16, a[2] * 360 / TURN16 };
	af_euler_deg_to_quat(e, q);
}

/* Channel ch of node: n keys, one a frame from 0, of the three lists (or constants) c[3]:
 * translation or scale halves (rot 0) or int16 angles (rot 1). */
static int frames3(struct af_scene *sc, size_t node, enum af_scene_path path, const struct af_ynode *const c[3],
		   size_t n, unsigned line, struct af_diag *d)
{
	size_t ch = channel(sc, node, path, line);
	if (ch == SIZE_MAX)
		return AF_ENOMEM;
	for (size_t f = 0; f < n; f++) {
		double v[3], q[4];
		int rc;
		for (int a = 0; a < 3; a++)
			if ((rc = value_at(c[a], f, path != AF_SC_ROTATION, &v[a], d)))
				return rc;
		if (path == AF_SC_ROTATION)
			angles16(v, q);
		af_scene_key(sc, ch, (double)f / 30.0, path == AF_SC_ROTATION ? q : v);
	}
	return 0;
}

/* A baked block: the root's translation and every 3-angle bone's rotation, a key a frame;
 * hinges (one angle, axis unknown) are left out. *hinges: set when one was. */
static int baked(struct af_scene *sc, long *nodes, const struct af_ynode *bk, int *hinges, struct af_diag *d)
{
	static const char *const tn[] = { "tx", "ty", "tz" }, *const rn[] = { "rx", "ry", "rz" };
	const struct af_ynode *bones = af_ymap_get(bk, "bones");
	double frames;
	int rc = 0;
	if (af_cv_num(af_ymap_get(bk, "frames"), &frames) || frames < 1 || frames > MAX_FRAMES || frames != floor(frames))
		return af_diag_at_mark(d, AF_EINVAL, bk->line, bk->col, "line %u: baked frames must be 1..%d", bk->line,
				       MAX_FRAMES);
	for (size_t i = 0; i < af_cv_count(bones) && !rc; i++) {
		const struct af_ynode *bn = af_cv_item(bones, i), *c[3];
		double bone;
		size_t node;
		int list;
		if (af_cv_num(af_ymap_get(bn, "bone"), &bone) || bone < 0 || bone >= 128 || bone != floor(bone))
			return af_diag_at_mark(d, AF_EINVAL, bn->line, bn->col, "line %u: bone is not a rig slot 0..127",
					       bn->line);
		if (af_ymap_get(bn, "hinge")) {
			*hinges = 1;
			continue;
		}
		if ((node = slot(sc, nodes, bone, bn->line)) == SIZE_MAX)
			return AF_ENOMEM;
		for (int rot = 0; rot < 2 && !rc; rot++) {
			int have = 0;
			for (int a = 0; a < 3 && !rc; a++)
				if ((c[a] = af_ymap_get(bn, rot ? rn[a] : tn[a])) && !(rc = track(c[a], (size_t)frames, 0, rot ? rn[a] : tn[a], &list, d)))
					have = 1;
			if (rc || !have)
				continue;
			for (int a = 0; a < 3 && !rc; a++)
				if (!c[a])
					rc = af_diag_at_mark(d, AF_EINVAL, bn->line, bn->col, "line %u: bone %g has not all of %s",
							     bn->line, bone, rot ? "rx ry rz" : "tx ty tz");
			if (!rc)
				rc = frames3(sc, node, rot ? AF_SC_ROTATION : AF_SC_TRANSLATION, c, (size_t)frames, bn->line, d);
		}
	}
	return rc;
}

/* A node block: its own nodes "<name> node N" (no ids, no parents in the file), at their
 * translation t and constant scale and angles; a rotation channel when an angle has a
 * track, a scale channel when the scale has one, frames + 1 keys. */
static int node_block(struct af_scene *sc, const char *an, const struct af_ynode *nb, struct af_diag *d)
{
	static const char *const rn[] = { "rx", "ry", "rz" };
	const struct af_ynode *list = af_ymap_get(nb, "list");
	double frames;
	if (af_cv_num(af_ymap_get(nb, "frames"), &frames) || frames < 1 || frames >= MAX_FRAMES || frames != floor(frames))
		return af_diag_at_mark(d, AF_EINVAL, nb->line, nb->col, "line %u: nodes frames must be 1..%d", nb->line,
				       MAX_FRAMES - 1);
	size_t n = (size_t)frames + 1;
	for (size_t i = 0; i < af_cv_count(list); i++) {
		const struct af_ynode *nd = af_cv_item(list, i), *sc3 = af_ymap_get(nd, "scale"), *t = af_ymap_get(nd, "t");
		const struct af_ynode *r[3] = { af_ymap_get(nd, "rx"), af_ymap_get(nd, "ry"), af_ymap_get(nd, "rz") };
		char name[128];
		int rc, tracks = 0, strack, is_list;
		double a[3];
		snprintf(name, sizeof(name), "%.100s node %zu", an, i);
		size_t k = af_scene_node(sc, name, -1, nd->line);
		if (k == SIZE_MAX)
			return AF_ENOMEM;
		if (t && (rc = af_scene_nums(t, 0, 3, sc->node[k].t, "t [x, y, z]", d)))
			return rc;
		for (int e = 0; e < 3; e++) {
			if (!r[e])
				return af_diag_at_mark(d, AF_EINVAL, nd->line, nd->col, "line %u: node %zu has no %s", nd->line, i,
						       rn[e]);
			if ((rc = track(r[e], n, 1, rn[e], &is_list, d)) || (rc = value_at(r[e], 0, 0, &a[e], d)))
				return rc;
			tracks |= is_list;
		}
		angles16(a, sc->node[k].r);
		strack = sc3 && sc3->type == AF_YSEQ && af_cv_count(sc3) && af_cv_item(sc3, 0)->type == AF_YSEQ;
		if (strack) {
			if (af_cv_count(sc3) != n)
				return af_diag_at_mark(d, AF_EINVAL, sc3->line, sc3->col, "line %u: scale has %zu samples, wants %zu",
						       sc3->line, af_cv_count(sc3), n);
			size_t ch = channel(sc, k, AF_SC_SCALE, sc3->line);
			if (ch == SIZE_MAX)
				return AF_ENOMEM;
			for (size_t f = 0; f < n; f++) {
				double v[3] = { 0, 0, 0 };
				const struct af_ynode *s3 = af_cv_item(sc3, f);
				for (int e = 0; e < 3; e++)
					if ((rc = value_at(s3, (size_t)e, 1, &v[e], d)))
						return rc;
				if (!f)
					memcpy(sc->node[k].s, v, sizeof(v));
				af_scene_key(sc, ch, (double)f / 30.0, v);
			}
		} else if (sc3) {
			for (int e = 0; e < 3; e++)
				if ((rc = value_at(sc3, (size_t)e, 1, &sc->node[k].s[e], d)))
					return rc;
		}
		if (tracks && (rc = frames3(sc, k, AF_SC_ROTATION, r, n, nd->line, d)))
			return rc;
	}
	return 0;
}

/* The parent of each rig slot of the human rigs (docs/gltf.md, "Shenmue": inferred from the
 * slots' public names, docs/shenmue-motn.md 8.1; no slot for a knee, an elbow or the head:
 * the game's IK solver places them), or -1: a root. The IK targets (8, 15, 20, 23, 29, 33,
 * 35) are roots: they travel with Root, not under it (scripts/motn-skeleton-evidence). */
static int slot_parent(size_t slot)
{
	switch (slot) {
	case 1: return 0;          /* Hip <- Root */
	case 5: case 12: return 1; /* upper legs <- Hip */
	case 9: return 5;          /* RightFoot <- RightUpperLeg */
	case 16: return 12;        /* LeftFoot <- LeftUpperLeg */
	case 18: return 1;         /* Torso <- Hip */
	case 21: case 25: case 31: return 18; /* Neck, shoulders <- Torso */
	case 26: return 25;        /* RightArm <- RightShoulder */
	case 30: return 26;        /* RightHand <- RightArm */
	case 32: return 31;        /* LeftArm <- LeftShoulder */
	case 36: return 32;        /* LeftHand <- LeftArm */
	default: return -1;
	}
}

/* Each slot's node under the nearest of its table's ancestors the motions drive too; the
 * rest stay roots (the glTF writer puts every root under one node). */
static void parents(struct af_scene *sc, const long *nodes)
{
	size_t known = 0, shown = 0;
	char note[160];
	for (size_t b = 0; b < 128; b++) {
		int p = slot_parent(b);
		if (nodes[b] < 0)
			continue;
		shown++;
		while (p >= 0 && nodes[p] < 0)
			p = slot_parent((size_t)p);
		if (p >= 0)
			sc->node[nodes[b]].parent = nodes[p], known++;
	}
	snprintf(note, sizeof(note), "the human rig's slot tree (docs/gltf.md, inferred): %zu of %zu slots under a "
		 "parent, the rest (Root, IK targets, other rigs' slots) roots", known, shown);
	af_scene_extra(sc, 0, "hierarchy", note, 0);
}

/* The animation a block is in a preview: its first name, else its id (an orphan). */
void motn_anim_name(const struct af_ynode *bl, char *an, size_t size)
{
	const char *name = af_cv_str(af_cv_item(af_ymap_get(bl, "names"), 0)), *id = af_cv_str(af_ymap_get(bl, "block"));
	snprintf(an, size, "%s", name ? name : id ? id : "?");
}

int motn_scene(const struct af_ynode *root, struct af_scene *sc, struct af_diag *d)
{
	const struct af_ynode *blocks = af_ymap_get(root, "blocks");
	long nodes[128];
	unsigned char *mark = af_alloc(MAX_FRAMES);
	int rc = 0, hinges = 0, nodeblocks = 0;
	if (!mark)
		return AF_ENOMEM;
	for (int i = 0; i < 128; i++)
		nodes[i] = -1;
	af_scene_extra(sc, 0, "format", "shenmue-motn", 0);
	af_scene_extra(sc, 0, "note", "no rest pose in the file: bones are the numbered rig slots a motion drives, "
				      "each at its parent's origin; some slots are IK targets", 0);
	for (size_t b = 0; b < af_cv_count(blocks) && !rc; b++) {
		const struct af_ynode *bl = af_cv_item(blocks, b), *bones = af_ymap_get(bl, "bones");
		const char *id = af_cv_str(af_ymap_get(bl, "block"));
		double frames;
		char an[160], src[64];
		const struct af_ynode *bk = af_ymap_get(bl, "baked"), *nb = af_ymap_get(bl, "nodes");
		if (!bk && !nb && (!bones || af_cv_num(af_ymap_get(bl, "frames"), &frames)))
			continue; /* a raw block: nothing to show */
		motn_anim_name(bl, an, sizeof(an));
		snprintf(src, sizeof(src), "block %.40s", id ? id : "?");
		if (!af_scene_wanted(sc, an) && !af_scene_wanted(sc, id))
			continue;
		if (bk || nb) {
			double f = 0;
			if (af_scene_anim(sc, an)) {
				rc = AF_ENOMEM;
				break;
			}
			af_cv_num(af_ymap_get(bk ? bk : nb, "frames"), &f);
			if (bk)
				af_scene_timing(sc, 30, f, (f - 1) / 30, src);
			else /* frames + 1 keys, 0 .. frames */
				af_scene_timing(sc, 30, f + 1, f / 30, src);
			rc = bk ? baked(sc, nodes, bk, &hinges, d) : node_block(sc, an, nb, d);
			nodeblocks |= !!nb;
			continue;
		}
		if (frames < 1 || frames > MAX_FRAMES) {
			rc = af_diag_at_mark(d, AF_EINVAL, bl->line, bl->col, "line %u: %g frames (1..%d)", bl->line, frames,
					     MAX_FRAMES);
			break;
		}
		if (af_scene_anim(sc, an)) {
			rc = AF_ENOMEM;
			break;
		}
		af_scene_timing(sc, 30, frames, (frames - 1) / 30, src);
		for (size_t i = 0; i < af_cv_count(bones) && !rc; i++) {
			const struct af_ynode *bn = af_cv_item(bones, i);
			double bone;
			size_t node;
			if (af_cv_num(af_ymap_get(bn, "bone"), &bone) || bone < 0 || bone >= 128 || bone != floor(bone)) {
				rc = af_diag_at_mark(d, AF_EINVAL, bn->line, bn->col, "line %u: bone is not a rig slot 0..127",
						     bn->line);
				break;
			}
			if ((node = slot(sc, nodes, bone, bn->line)) == SIZE_MAX) {
				rc = AF_ENOMEM;
				break;
			}
			if (!(rc = trio(sc, node, bn, 0, mark, frames, d)))
				rc = trio(sc, node, bn, 1, mark, frames, d);
		}
	}
	if (!rc)
		parents(sc, nodes);
	if (hinges)
		af_scene_extra(sc, 0, "skipped", "the hinge bones of baked blocks (one angle a frame, about an axis "
						  "the file does not give)", 0);
	if (nodeblocks)
		af_scene_extra(sc, 0, "nodes_note", "node blocks (rig 0xFFFF) move nodes '<block> node N' of their own: "
						    "the file gives them no ids and no parents; angles in the "
						    "sequences' Euler order", 0);
	free(mark);
	return rc ? rc : sc->oom ? AF_ENOMEM : 0;
}
