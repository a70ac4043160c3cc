/* RE models: the curves of a view for the plotter (curves.h), read from the YAML alone:
 * per sequence of a bank, the root motion of each frame's pose (x, y, z and the root
 * height) at 30 frames a second, and flagged frames as markers. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "animfs/curves.h"
#include "re.h"

struct seq_ctx {
	const struct af_ynode *pool; /* the bank's keyframes */
	int re2;                     /* RE2: a frame names its pose directly, `offset: [x, y, z]` */
};

static int sequence_curves(struct af_curves *cv, const struct seq_ctx *x, const struct af_ynode *sq,
			   const char *name, size_t b, size_t q)
{
	static const char *const axes[] = { "x", "y", "z" };
	const struct af_ynode *frames = af_ymap_get(sq, "frames");
	char title[160];
	double start = 0;
	size_t s[4];
	af_cv_num(af_ymap_get(sq, "pose_start"), &start);
	snprintf(title, sizeof(title), "bank %zu, sequence %zu (%s): root motion", b, q, name);
	if (af_curves_object(cv, title, (double)(af_cv_count(frames) - 1) / 30.0))
		return AF_ENOMEM;
	for (int a = 0; a < 4; a++) {
		char t[48];
		snprintf(t, sizeof(t), a < 3 ? "motion %s" : "%s", a < 3 ? axes[a] : x->re2 ? "offset y" : "y_offset");
		if ((s[a] = af_curves_channel(cv, t, "units", 0)) == SIZE_MAX)
			return AF_ENOMEM;
	}
	for (size_t f = 0; f < af_cv_count(frames); f++) {
		const struct af_ynode *fr = af_cv_item(frames, f);
		double pose, flags = 0, v;
		const struct af_ynode *kf;
		/* flags: a number, or a name (none: no flag) that labels the marker */
		const char *fname = af_cv_str(af_cv_item(fr, 1));
		int named = af_cv_num(af_cv_item(fr, 1), &flags) != 0;
		if (af_cv_num(af_cv_item(fr, 0), &pose) || (named && !fname))
			continue;
		kf = af_cv_item(x->pool, (size_t)(x->re2 ? pose : start + pose));
		for (int a = 0; a < 3; a++)
			if (!af_cv_num(af_cv_item(af_ymap_get(kf, "motion"), (size_t)a), &v))
				af_curves_key(cv, s[a], (double)f / 30.0, v, 0, 0);
		if (!af_cv_num(x->re2 ? af_cv_item(af_ymap_get(kf, "offset"), 1) : af_ymap_get(kf, "y_offset"), &v))
			af_curves_key(cv, s[3], (double)f / 30.0, v, 0, 0);
		if (named ? strcmp(fname, "none") != 0 : flags != 0) {
			char l[24];
			if (named)
				snprintf(l, sizeof(l), "%.20s", fname);
			else
				snprintf(l, sizeof(l), "0x%02X", (unsigned)flags);
			af_curves_marker(cv, (double)f / 30.0, l);
		}
	}
	return 0;
}

int re_curves(const struct af_ynode *root, struct af_curves *cv)
{
	const struct af_ynode *banks = af_ymap_get(root, "banks");
	const char *game = af_cv_str(af_ymap_get(root, "game"));
	struct seq_ctx x = { NULL, game && !strcmp(game, "re2") };
	for (size_t b = 0; b < af_cv_count(banks) && !cv->oom; b++) {
		const struct af_ynode *bk = af_cv_item(banks, b), *seqs = af_ymap_get(bk, "sequences");
		x.pool = af_ymap_get(bk, "keyframes");
		for (size_t q = 0; q < af_cv_count(seqs) && !cv->oom; q++) {
			const struct af_ynode *sq = af_cv_item(seqs, q);
			char name[48];
			if (!af_cv_count(af_ymap_get(sq, "frames")) || !af_cv_count(x.pool))
				continue;
			snprintf(name, sizeof(name), "%zu/%zu", b, q);
			if (!af_curves_wanted(cv, name, NULL))
				continue;
			if (sequence_curves(cv, &x, sq, name, b, q))
				return AF_ENOMEM;
		}
	}
	return cv->oom ? AF_ENOMEM : 0;
}
