/* Sims 3 CLIP: the scene of a view for glTF previews (scene.h), read from the YAML alone:
 * one animation (the clip) whose channels move the bones they target, translation and
 * orientation at tick * tick_length seconds; the bones are those of a rig already in the
 * scene (`animfs gltf --rig`), or else one root node per target. IK chains and events go
 * to the animation's extras. Metres, Y up: glTF's own. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "animfs/curves.h"
#include "animfs/scene.h"
#include "clip.h"

static const struct af_ynode *values(const struct af_ynode *fr)
{
	return fr && fr->type == AF_YMAP ? af_ymap_get(fr, "v") : fr;
}

static int channel(struct af_scene *sc, const struct af_ynode *ch, double tick, struct af_diag *d)
{
	const struct af_ynode *frames = af_ymap_get(ch, "frames");
	const char *target = af_cv_str(af_ymap_get(ch, "target")), *sub = af_cv_str(af_ymap_get(ch, "sub_target"));
	int rot = sub && !strcmp(sub, "Orientation"), w = rot ? 4 : 3;
	enum af_scene_path path = rot ? AF_SC_ROTATION : sub && !strcmp(sub, "Scale") ? AF_SC_SCALE : AF_SC_TRANSLATION;
	long node;
	size_t c;
	if (!target || !sub || !frames || frames->type != AF_YMAP || !frames->n ||
	    (!rot && strcmp(sub, "Translation") && strcmp(sub, "Scale")))
		return 0; /* constant, carried as bytes, or nothing a node has */
	if ((node = af_scene_find(sc, target)) < 0) {
		size_t k = af_scene_node(sc, target, -1, ch->line);
		if (k == SIZE_MAX)
			return AF_ENOMEM;
		node = (long)k;
	}
	if ((c = af_scene_channel(sc, (size_t)node, path, ch->line)) == SIZE_MAX)
		return AF_ENOMEM;
	for (size_t k = 0; k + 1 < 2 * frames->n; k += 2) {
		double t, v[4];
		int rc;
		if (af_cv_num(frames->items[k], &t))
			return af_diag_at_mark(d, AF_EINVAL, frames->items[k]->line, frames->items[k]->col,
					       "line %u: a frame's tick is not a number", frames->items[k]->line);
		if ((rc = af_scene_nums(values(frames->items[k + 1]), 0, (size_t)w, v,
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
	double tick = 1 / 30.0;
	int rigged = sc->nnode != 0;
	af_cv_num(af_ymap_get(root, "tick_length"), &tick);
	af_scene_extra(sc, 0, "format", "sims3-clip", 0);
	af_scene_extra(sc, 0, "note", rigged ? "the bones of the rig given; a target it lacks is a root node"
					     : "no rig: one root node per channel target, at the origin", 0);
	if (!af_scene_wanted(sc, name ? name : "clip"))
		return 0;
	if (af_scene_anim(sc, name ? name : "clip"))
		return AF_ENOMEM;
	extras(sc, root);
	for (size_t i = 0; i < af_cv_count(chans); i++) {
		int rc = channel(sc, af_cv_item(chans, i), tick, d);
		if (rc)
			return rc;
	}
	return sc->oom ? AF_ENOMEM : 0;
}
