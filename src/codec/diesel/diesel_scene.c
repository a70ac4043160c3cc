/* Diesel animation: the scene of a view for glTF previews (scene.h), read from the YAML
 * alone: one node per object track, parented by the standard biped's tree where the names
 * are its bones (the file holds no hierarchy: docs/gltf.md says where the tree comes from),
 * at its first keys as the rest pose; one animation of its position (cm) and rotation
 * (quaternion) keys; Z up and centimetres become glTF's Y up and metres through the
 * scene's root. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "animfs/curves.h"
#include "animfs/scene.h"
#include "diesel.h"

static int track(struct af_scene *sc, size_t node, const struct af_ynode *tr, int rot, struct af_diag *d)
{
	const struct af_ynode *keys = af_ymap_get(tr, "keys"), *ty = af_ymap_get(tr, "type");
	size_t ch;
	int type = ty && ty->type == AF_YSCALAR ? diesel_type_by_name(ty->str, ty->len) : -1;
	if (!af_cv_count(keys))
		return 0;
	if ((ch = af_scene_channel(sc, node, rot ? AF_SC_ROTATION : AF_SC_TRANSLATION, keys->line)) == SIZE_MAX)
		return AF_ENOMEM;
	sc->ch[ch].quantum = type >= 0 ? diesel_step(type) : 0;
	for (size_t k = 0; k < keys->n; k++) {
		double v[5];
		int rc = af_scene_nums(&keys->items[k], 0, rot ? 5 : 4, v, rot ? "rotation key [t, x, y, z, w]"
									      : "position key [t, x, y, z]", d);
		if (rc)
			return rc;
		af_scene_key(sc, ch, v[0], v + 1);
	}
	return 0;
}

/* The standard PAYDAY 2 biped (every human sample names these objects, in this depth-first
 * order): child, parent. Fingers and sides are made from the names below. Hips is a root,
 * beside root_point (the unit's motion, in a frame of its own: under it the figures of the
 * stock clips would lie on their backs; scripts/skeleton-evidence). */
static const char *const biped[][2] = {
	{ "Spine", "Hips" }, { "Spine1", "Spine" }, { "Spine2", "Spine1" },
	{ "Neck", "Spine2" }, { "Head", "Neck" }, { "eyeAim", "Head" },
	{ "aim", "Spine2" }, { "e_taser", "Spine2" }, { "BackPack1", "Spine2" },
};
static const char *const side_chain[][2] = { /* with Left or Right before each name */
	{ "Shoulder", "" }, { "Arm", "Shoulder" }, { "ForeArm", "Arm" }, { "ForeArmRoll", "ForeArm" },
	{ "Hand", "ForeArm" }, { "UpLeg", "" }, { "Leg", "UpLeg" }, { "Foot", "Leg" }, { "ToeBase", "Foot" },
};

/* The parent name of object name in the biped, written into p; 0 when it has none there. */
static int biped_parent(const char *name, char *p, size_t size)
{
	static const char *const fingers[] = { "Thumb", "Index", "Middle", "Ring", "Pinky" };
	const char *side = !strncmp(name, "Left", 4) ? "Left" : !strncmp(name, "Right", 5) ? "Right" : NULL;
	for (size_t i = 0; i < sizeof(biped) / sizeof(biped[0]); i++)
		if (!strcmp(name, biped[i][0]))
			return snprintf(p, size, "%s", biped[i][1]), 1;
	if (!strcmp(name, "a_weapon_left_front") || !strcmp(name, "a_weapon_right_front"))
		return snprintf(p, size, "%sHand", name[9] == 'l' ? "Left" : "Right"), 1;
	if (!side)
		return 0;
	name += strlen(side);
	for (size_t i = 0; i < sizeof(side_chain) / sizeof(side_chain[0]); i++)
		if (!strcmp(name, side_chain[i][0])) {
			const char *up = side_chain[i][1];
			if (!up[0]) /* a shoulder on the chest, a thigh on the hips */
				return snprintf(p, size, "%s", i == 0 ? "Spine2" : "Hips"), 1;
			return snprintf(p, size, "%s%s", side, up), 1;
		}
	for (size_t f = 0; f < 5; f++) {
		size_t n = strlen(fingers[f]);
		if (!strncmp(name, "Hand", 4) && !strncmp(name + 4, fingers[f], n) && name[4 + n] >= '1' &&
		    name[4 + n] <= '3' && !name[5 + n]) {
			if (name[4 + n] == '1')
				return snprintf(p, size, "%sHand", side), 1;
			return snprintf(p, size, "%sHand%s%c", side, fingers[f], name[4 + n] - 1), 1;
		}
	}
	return 0;
}

/* Each node under its biped parent when the file has that object too; the note says how many. */
static void parents(struct af_scene *sc, size_t first)
{
	size_t known = 0;
	char p[64], note[200];
	for (size_t i = first; i < sc->nnode; i++) {
		long k;
		if (biped_parent(sc->node[i].name, p, sizeof(p)) && (k = af_scene_find(sc, p)) >= (long)first)
			sc->node[i].parent = k, known++;
	}
	if (known)
		snprintf(note, sizeof(note), "the standard biped's tree by the objects' names (docs/gltf.md: inferred): "
			 "%zu of %zu objects under a parent, the rest roots", known, sc->nnode - first);
	else
		snprintf(note, sizeof(note), "none known: no object is a bone of the standard biped, so each is a root "
			 "(the unit's .model holds the tree)");
	af_scene_extra(sc, 0, "hierarchy", note, 0);
}

/* The node's rest pose: its first position and rotation keys (the file has no other). */
static void rest(struct af_scene_node *n, const struct af_ynode *ob)
{
	const struct af_ynode *p = af_cv_item(af_ymap_get(af_ymap_get(ob, "position"), "keys"), 0);
	const struct af_ynode *r = af_cv_item(af_ymap_get(af_ymap_get(ob, "rotation"), "keys"), 0);
	double v[5];
	struct af_diag q;
	af_diag_init(&q);
	if (p && !af_scene_nums(p, 0, 4, v, "", &q))
		memcpy(n->t, v + 1, 3 * sizeof(double));
	if (r && !af_scene_nums(r, 0, 5, v, "", &q) && v[1] * v[1] + v[2] * v[2] + v[3] * v[3] + v[4] * v[4] > 1e-12)
		memcpy(n->r, v + 1, 4 * sizeof(double));
	af_diag_free(&q);
}

int diesel_scene(const struct af_ynode *root, struct af_scene *sc, struct af_diag *d)
{
	const struct af_ynode *objs = af_ymap_get(root, "objects");
	int anim = af_scene_wanted(sc, "animation");
	size_t first = sc->nnode;
	double length;
	sc->scale = 0.01; /* cm */
	sc->axes[0] = -sqrt(0.5), sc->axes[3] = sqrt(0.5); /* Z up -> Y up */
	snprintf(sc->root_name, sizeof(sc->root_name), "Z up, cm");
	af_scene_extra(sc, 0, "format", "diesel-animation", 0);
	af_scene_extra(sc, 0, "note", "one node per object track; the file names no parents and no rest pose: the "
				      "rest pose is each object's first keys", 0);
	if (anim && af_scene_anim(sc, "animation"))
		return AF_ENOMEM;
	if (anim && !af_cv_num(af_ymap_get(root, "length"), &length) && length >= 0) /* 30 a second: spec 5.6 */
		af_scene_timing(sc, 30, floor(length * 30 + 0.5), length, "the clip");
	for (size_t i = 0; i < af_cv_count(objs); i++) {
		const struct af_ynode *ob = af_cv_item(objs, i);
		const char *name = af_cv_str(af_ymap_get(ob, "name"));
		size_t node = af_scene_node(sc, name ? name : "?", -1, ob->line);
		int rc;
		if (node == SIZE_MAX)
			return AF_ENOMEM;
		rest(&sc->node[node], ob);
		if (!anim)
			continue;
		for (int rot = 0; rot < 2; rot++)
			if ((rc = track(sc, node, af_ymap_get(ob, rot ? "rotation" : "position"), rot, d)))
				return rc;
	}
	parents(sc, first);
	return sc->oom ? AF_ENOMEM : 0;
}
