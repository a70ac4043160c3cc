/* Sims 3 CLIP: the curves of a view for the plotter (curves.h), read from the YAML alone
 * (issue 29): one object per run of channels with the same target (a bone), each
 * channel's components over time (tick * tick_length), orientations as Euler angles in
 * degrees (rot.h), and the events as markers. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "animfs/curves.h"
#include "animfs/rot.h"
#include "clip.h"

/* The values of a frame: `tick: [values]` or `tick: {v: [values], ...}`. */
static const struct af_ynode *frame_values(const struct af_ynode *fr)
{
	return fr && fr->type == AF_YMAP ? af_ymap_get(fr, "v") : fr;
}

/* How many values the channel's frames have (those of its first frame); 0: none. */
static size_t arity(const struct af_ynode *frames)
{
	return frames && frames->type == AF_YMAP && frames->n ? af_cv_count(frame_values(&frames->items[1])) : 0;
}

static int channel_curves(struct af_curves *cv, const struct af_ynode *ch, double tick)
{
	static const char *const axes[] = { "x", "y", "z" };
	const struct af_ynode *frames = af_ymap_get(ch, "frames");
	const char *sub = af_cv_str(af_ymap_get(ch, "sub_target"));
	size_t n = arity(frames), s[4];
	int rot = n == 4 && sub && !strcmp(sub, "Orientation"), nc = rot ? 3 : n > 4 ? 4 : (int)n;
	if (!n)
		return 0; /* a constant channel, or frames carried as bytes */
	for (int a = 0; a < nc; a++) {
		char t[96];
		if (nc == 1)
			snprintf(t, sizeof(t), "%s", sub ? sub : "?");
		else if (nc == 3)
			snprintf(t, sizeof(t), "%s %s", sub ? sub : "?", axes[a]);
		else
			snprintf(t, sizeof(t), "%s [%d]", sub ? sub : "?", a);
		if ((s[a] = af_curves_channel(cv, t, rot ? "deg" : "units", 0)) == SIZE_MAX)
			return AF_ENOMEM;
	}
	for (size_t k = 0; k + 1 < 2 * frames->n; k += 2) {
		const struct af_ynode *vals = frame_values(&frames->items[k + 1]);
		double t, v[4], e[3];
		int bad = af_cv_num(&frames->items[k], &t) || af_cv_count(vals) != n;
		for (size_t a = 0; !bad && a < n && a < 4; a++)
			bad |= af_cv_num(af_cv_item(vals, a), &v[a]);
		if (bad)
			continue;
		if (rot)
			af_quat_to_euler_deg(v, e);
		for (int a = 0; a < nc; a++)
			af_curves_key(cv, s[a], t * tick, rot ? e[a] : v[a], 0, 0);
	}
	for (int a = 0; rot && a < nc; a++)
		af_curves_unwrap_deg(cv, s[a]);
	return 0;
}

static void events(struct af_curves *cv, const struct af_ynode *evs)
{
	for (size_t k = 0; k < af_cv_count(evs); k++) {
		const struct af_ynode *ev = af_cv_item(evs, k);
		const char *name = af_cv_str(af_ymap_get(ev, "name")), *type = af_cv_str(af_ymap_get(ev, "type"));
		double t;
		if (!af_cv_num(af_ymap_get(ev, "time"), &t))
			af_curves_marker(cv, t, name && *name ? name : type ? type : "");
	}
}

int clip_curves(const struct af_ynode *root, struct af_curves *cv)
{
	const struct af_ynode *chans = af_ymap_get(root, "channels"), *evs = af_ymap_get(root, "events");
	const char *prev = NULL;
	double tick = 1 / 30.0, ticks = 0;
	int drawing = 0;
	af_cv_num(af_ymap_get(root, "tick_length"), &tick);
	af_cv_num(af_ymap_get(root, "num_ticks"), &ticks);
	for (size_t i = 0; i < af_cv_count(chans) && !cv->oom; i++) {
		const struct af_ynode *ch = af_cv_item(chans, i);
		const char *target = af_cv_str(af_ymap_get(ch, "target"));
		if (!target)
			continue;
		if (!prev || strcmp(prev, target)) { /* the next bone */
			prev = target;
			if (!(drawing = af_curves_wanted(cv, target, NULL)))
				continue;
			if (af_curves_object(cv, target, ticks > 1 ? (ticks - 1) * tick : 0))
				break;
			events(cv, evs);
		}
		if (drawing && channel_curves(cv, ch, tick))
			break;
	}
	return cv->oom ? AF_ENOMEM : 0;
}
