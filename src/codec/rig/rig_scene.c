/* Sims 3 RIG: the scene of a view for glTF previews (scene.h), read from the YAML alone:
 * one node per bone with its parent and rest transform (metres, Y up: glTF's own). A
 * parent is a bone's name, a stored index, or null. */
#include <stdint.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/curves.h"
#include "animfs/scene.h"
#include "rig.h"

/* The node of a parent reference: the first bone of the rig so named, a stored index, or -1. */
static long parent_of(const struct af_scene *sc, size_t first, const struct af_ynode *p)
{
	const char *s = af_cv_str(p);
	double v;
	if (!p || af_y_is_null(p))
		return -1;
	if (p->plain && !af_cv_num(p, &v))
		return v >= 0 && v < (double)(sc->nnode - first) ? (long)(first + (size_t)v) : LONG_MAX;
	for (size_t i = first; s && i < sc->nnode; i++)
		if (!strcmp(sc->node[i].name, s))
			return (long)i;
	return LONG_MAX;
}

int rig_scene(const struct af_ynode *root, struct af_scene *sc, struct af_diag *d)
{
	const struct af_ynode *bones = af_ymap_get(root, "bones");
	const char *skel = af_cv_str(af_ymap_get(root, "skeleton_name"));
	size_t first = sc->nnode;
	af_scene_extra(sc, 0, "format", "sims3-rig", 0);
	if (skel)
		af_scene_extra(sc, 0, "skeleton", skel, 0);
	for (size_t i = 0; i < af_cv_count(bones); i++) {
		const struct af_ynode *b = af_cv_item(bones, i), *sc3 = af_ymap_get(b, "scale");
		const char *name = af_cv_str(af_ymap_get(b, "name"));
		size_t k = af_scene_node(sc, name ? name : "?", -1, b->line);
		int rc;
		if (k == SIZE_MAX)
			return AF_ENOMEM;
		if ((rc = af_scene_nums(af_ymap_get(b, "position"), 0, 3, sc->node[k].t, "position [x, y, z]", d)) ||
		    (rc = af_scene_nums(af_ymap_get(b, "orientation"), 0, 4, sc->node[k].r, "orientation [x, y, z, w]", d)) ||
		    (sc3 && (rc = af_scene_nums(sc3, 0, 3, sc->node[k].s, "scale [x, y, z]", d))))
			return rc;
	}
	for (size_t i = 0; i < af_cv_count(bones); i++) {
		const struct af_ynode *p = af_ymap_get(af_cv_item(bones, i), "parent");
		long at = parent_of(sc, first, p);
		if (at == LONG_MAX || at >= (long)sc->nnode)
			return af_diag_at_mark(d, AF_EINVAL, p ? p->line : 0, p ? p->col : 0,
					       "line %u: bone '%s': parent '%s' is no bone of this rig",
					       p ? p->line : 0, sc->node[first + i].name, af_cv_str(p) ? af_cv_str(p) : "?");
		sc->node[first + i].parent = at;
	}
	return sc->oom ? AF_ENOMEM : 0;
}
