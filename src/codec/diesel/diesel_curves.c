/* Diesel animation: the curves of a view for the plotter (curves.h), read from the YAML
 * alone: per object, position in cm and rotation as Euler angles in degrees (rot.h's one
 * convention), and the events (fractions of the length) as markers. */
#include <stdint.h>
#include <stdio.h>

#include "animfs/curves.h"
#include "animfs/rot.h"
#include "diesel.h"

static int object_curves(struct af_curves *cv, const struct af_ynode *ob, const char *name,
			 const struct af_ynode *evs, double length)
{
	static const char *const axes[] = { "x", "y", "z" };
	char title[160];
	snprintf(title, sizeof(title), "%s", name);
	if (af_curves_object(cv, title, length))
		return AF_ENOMEM;
	for (int rot = 0; rot < 2; rot++) {
		const struct af_ynode *keys = af_ymap_get(af_ymap_get(ob, rot ? "rotation" : "position"), "keys");
		size_t s[3];
		for (int a = 0; a < 3; a++) {
			char t[64];
			snprintf(t, sizeof(t), "%s %s", rot ? "rotation" : "position", axes[a]);
			if ((s[a] = af_curves_channel(cv, t, rot ? "deg" : "cm", 0)) == SIZE_MAX)
				return AF_ENOMEM;
		}
		for (size_t k = 0; k < af_cv_count(keys); k++) {
			const struct af_ynode *kn = af_cv_item(keys, k);
			double v[5] = { 0 }, e[3];
			int bad = af_cv_num(af_cv_item(kn, 0), &v[0]);
			for (int j = 1; j <= 3 + rot; j++)
				bad |= af_cv_num(af_cv_item(kn, (size_t)j), &v[j]);
			if (bad)
				continue;
			if (rot)
				af_quat_to_euler_deg(v + 1, e);
			for (int a = 0; a < 3; a++)
				af_curves_key(cv, s[a], v[0], rot ? e[a] : v[a + 1], 0, 0);
		}
		for (int a = 0; rot && a < 3; a++)
			af_curves_unwrap_deg(cv, s[a]);
	}
	for (size_t k = 0; k < af_cv_count(evs); k++) {
		const struct af_ynode *ev = af_cv_item(evs, k), *t = af_cv_item(ev, 0), *nm = af_cv_item(ev, 1);
		double frac;
		if (ev && ev->type == AF_YMAP)
			t = af_ymap_get(ev, "time"), nm = af_ymap_get(ev, "name");
		if (!af_cv_num(t, &frac))
			af_curves_marker(cv, frac * length, af_cv_str(nm) ? af_cv_str(nm) : "");
	}
	return 0;
}

int diesel_curves(const struct af_ynode *root, struct af_curves *cv)
{
	const struct af_ynode *objs = af_ymap_get(root, "objects"), *evs = af_ymap_get(root, "events");
	double length = 0;
	af_cv_num(af_ymap_get(root, "length"), &length);
	for (size_t i = 0; i < af_cv_count(objs) && !cv->oom; i++) {
		const struct af_ynode *ob = af_cv_item(objs, i);
		const char *name = af_cv_str(af_ymap_get(ob, "name"));
		if (!name || !af_curves_wanted(cv, name, NULL))
			continue;
		if (object_curves(cv, ob, name, evs, length))
			break;
	}
	return cv->oom ? AF_ENOMEM : 0;
}
