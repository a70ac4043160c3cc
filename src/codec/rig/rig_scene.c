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

/* The scene's bones sorted by name, then position: a parent's name a binary search (a
 * scan of every bone for each was quadratic in the bones). */
struct by_name {
	size_t *v, n;
};

static int name_order(const struct af_scene *sc, size_t a, size_t b)
{
	int c = strcmp(sc->node[a].name, sc->node[b].name);
	return c ? c : (a > b) - (a < b);
}

/* A merge sort with the scene at hand (qsort takes no context, and codecs run in threads). */
static void sort_names(const struct af_scene *sc, size_t *v, size_t *tmp, size_t n)
{
	if (n < 2)
		return;
	size_t h = n / 2, i = 0, j = h, k = 0;
	sort_names(sc, v, tmp, h);
	sort_names(sc, v + h, tmp, n - h);
	while (i < h && j < n)
		tmp[k++] = name_order(sc, v[i], v[j]) <= 0 ? v[i++] : v[j++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof(*v));
}

/* The node of a parent reference: the first bone of the rig so named, a stored index, or -1. */
static long parent_of(const struct af_scene *sc, size_t first, const struct by_name *bn, const struct af_ynode *p)
{
	const char *s = af_cv_str(p);
	double v;
	if (!p || af_y_is_null(p))
		return -1;
	if (p->plain && !af_cv_num(p, &v))
		return v >= 0 && v < (double)(sc->nnode - first) ? (long)(first + (size_t)v) : LONG_MAX;
	size_t lo = 0, hi = bn->n;
	while (s && lo < hi) { /* the first bone at or after s */
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(sc->node[bn->v[mid]].name, s) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return s && lo < bn->n && !strcmp(sc->node[bn->v[lo]].name, s) ? (long)bn->v[lo] : LONG_MAX;
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
	struct by_name bn = { NULL, sc->nnode - first };
	size_t *tmp = NULL;
	int rc = 0;
	if (!(bn.v = malloc((bn.n ? bn.n : 1) * sizeof(*bn.v))) || !(tmp = malloc((bn.n ? bn.n : 1) * sizeof(*tmp)))) {
		free(bn.v);
		return AF_ENOMEM;
	}
	for (size_t i = 0; i < bn.n; i++)
		bn.v[i] = first + i;
	sort_names(sc, bn.v, tmp, bn.n);
	free(tmp);
	for (size_t i = 0; i < af_cv_count(bones) && !rc; i++) {
		const struct af_ynode *p = af_ymap_get(af_cv_item(bones, i), "parent");
		long at = parent_of(sc, first, &bn, p);
		if (at == LONG_MAX || at >= (long)sc->nnode)
			rc = af_diag_at_mark(d, AF_EINVAL, p ? p->line : 0, p ? p->col : 0,
					     "line %u: bone '%s': parent '%s' is no bone of this rig",
					     p ? p->line : 0, sc->node[first + i].name, af_cv_str(p) ? af_cv_str(p) : "?");
		else
			sc->node[first + i].parent = at;
	}
	free(bn.v);
	return rc ? rc : sc->oom ? AF_ENOMEM : 0;
}
