/* Shenmue MOTN: the scene of a view for glTF previews (scene.h), read from the YAML alone:
 * each decoded block an animation (named by its first name) on numbered bone nodes, the
 * rig slots it drives, unparented and with no rest pose (the file has none). Per bone, a
 * translation key at every frame where tx, ty or tz has a value and a rotation key where
 * rx, ry or rz has one (Euler X, Y, Z in turns, rot.h's order), each channel's Hermite
 * curve evaluated there (at a jump, two keys at one frame, the second); 30 frames a second. */
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

struct key {
	double f, v, in, out;
};

/* The valued keys of one channel (type 0 has none), in frames order; *n of them. */
static int keys_of(const struct af_ynode *seq, struct key **out, size_t *n, struct af_diag *d)
{
	size_t cnt = af_cv_count(seq);
	struct key *k = af_alloc_zeroed(cnt ? cnt : 1, sizeof(*k));
	*n = 0;
	*out = k;
	if (!k)
		return AF_ENOMEM;
	for (size_t i = 0; i < cnt; i++) {
		const struct af_ynode *kn = seq->items[i];
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
		k[*n] = (struct key){ v[0], v[2], ty == 2 ? v[3] : ty == 3 ? v[3] : 0, ty == 2 ? v[3] : ty == 3 ? v[4] : 0 };
		(*n)++;
	}
	return 0;
}

/* The channel's value at frame f: its Hermite curve (slopes per second), held flat
 * before the first key and after the last; 0 with no key. */
static double eval(const struct key *k, size_t n, double f)
{
	size_t i = 0;
	if (!n)
		return 0;
	if (f <= k[0].f)
		return k[0].v;
	if (f >= k[n - 1].f)
		return k[n - 1].v;
	while (i + 1 < n && k[i + 1].f <= f)
		i++; /* at a jump (two keys at one frame) the later one holds from there on */
	if (k[i].f == f)
		return k[i].v;
	double dt = (k[i + 1].f - k[i].f) / 30.0, s = (f - k[i].f) / (k[i + 1].f - k[i].f);
	double s2 = s * s, s3 = s2 * s;
	return (2 * s3 - 3 * s2 + 1) * k[i].v + (s3 - 2 * s2 + s) * dt * k[i].out + (-2 * s3 + 3 * s2) * k[i + 1].v +
	       (s3 - s2) * dt * k[i + 1].in;
}

/* One bone's translation or rotation channel from its three curves. */
static int trio(struct af_scene *sc, size_t node, const struct af_ynode *bn, int rot, unsigned char *mark,
		double frames, struct af_diag *d)
{
	static const char *const names[2][3] = { { "tx", "ty", "tz" }, { "rx", "ry", "rz" } };
	struct key *k[3] = { NULL, NULL, NULL };
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
	if ((ch = af_scene_channel(sc, node, rot ? AF_SC_ROTATION : AF_SC_TRANSLATION, bn->line)) == SIZE_MAX) {
		rc = AF_ENOMEM;
		goto out;
	}
	for (size_t f = 0; f < (size_t)frames; f++) {
		double v[3], q[4];
		if (!mark[f])
			continue;
		for (int a = 0; a < 3; a++)
			v[a] = eval(k[a], n[a], (double)f);
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

int motn_scene(const struct af_ynode *root, struct af_scene *sc, struct af_diag *d)
{
	const struct af_ynode *blocks = af_ymap_get(root, "blocks");
	long nodes[128];
	unsigned char *mark = af_alloc(MAX_FRAMES);
	int rc = 0, skipped = 0;
	if (!mark)
		return AF_ENOMEM;
	for (int i = 0; i < 128; i++)
		nodes[i] = -1;
	af_scene_extra(sc, 0, "format", "shenmue-motn", 0);
	af_scene_extra(sc, 0, "note", "no rest pose in the file: bones are the numbered rig slots a motion drives, "
				      "unparented, at the origin; some slots are IK targets", 0);
	for (size_t b = 0; b < af_cv_count(blocks) && !rc; b++) {
		const struct af_ynode *bl = af_cv_item(blocks, b), *bones = af_ymap_get(bl, "bones");
		const char *name = af_cv_str(af_cv_item(af_ymap_get(bl, "names"), 0)), *id = af_cv_str(af_ymap_get(bl, "block"));
		double frames;
		char an[160];
		if (af_ymap_get(bl, "baked") || af_ymap_get(bl, "nodes")) {
			if (!skipped++)
				af_scene_extra(sc, 0, "skipped", "baked and node-track blocks (rig bit 15)", 0);
			continue;
		}
		if (!bones || af_cv_num(af_ymap_get(bl, "frames"), &frames))
			continue; /* a raw block: nothing to show */
		snprintf(an, sizeof(an), "%s", name ? name : id ? id : "?");
		if (!af_scene_wanted(sc, an) && !af_scene_wanted(sc, id))
			continue;
		if (frames < 1 || frames > MAX_FRAMES) {
			rc = af_diag_at_mark(d, AF_EINVAL, bl->line, bl->col, "line %u: %g frames (1..%d)", bl->line, frames,
					     MAX_FRAMES);
			break;
		}
		if (af_scene_anim(sc, an)) {
			rc = AF_ENOMEM;
			break;
		}
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
	free(mark);
	return rc ? rc : sc->oom ? AF_ENOMEM : 0;
}
