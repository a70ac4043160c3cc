/* Diesel animation: the scene of a view for glTF previews (scene.h), read from the YAML
 * alone: one root node per object track (the file holds no hierarchy), one animation of
 * its position (cm) and rotation (quaternion) keys; Z up and centimetres become glTF's
 * Y up and metres through the scene's root (docs/gltf.md). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "animfs/curves.h"
#include "animfs/scene.h"
#include "diesel.h"

static int track(struct af_scene *sc, size_t node, const struct af_ynode *keys, int rot, struct af_diag *d)
{
	size_t ch;
	if (!af_cv_count(keys))
		return 0;
	if ((ch = af_scene_channel(sc, node, rot ? AF_SC_ROTATION : AF_SC_TRANSLATION, keys->line)) == SIZE_MAX)
		return AF_ENOMEM;
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

int diesel_scene(const struct af_ynode *root, struct af_scene *sc, struct af_diag *d)
{
	const struct af_ynode *objs = af_ymap_get(root, "objects");
	int anim = af_scene_wanted(sc, "animation");
	double length;
	sc->scale = 0.01; /* cm */
	sc->axes[0] = -sqrt(0.5), sc->axes[3] = sqrt(0.5); /* Z up -> Y up */
	snprintf(sc->root_name, sizeof(sc->root_name), "Z up, cm");
	af_scene_extra(sc, 0, "format", "diesel-animation", 0);
	af_scene_extra(sc, 0, "note", "one root node per object track: the file names no parents and no rest pose", 0);
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
		if (!anim)
			continue;
		for (int rot = 0; rot < 2; rot++)
			if ((rc = track(sc, node, af_ymap_get(af_ymap_get(ob, rot ? "rotation" : "position"), "keys"), rot, d)))
				return rc;
	}
	return sc->oom ? AF_ENOMEM : 0;
}
