/* RE models: the curves of a view for the plotter (curves.h), read from the YAML alone:
 * per sequence of a bank, the root motion of each frame's pose (x, y, z and the root
 * height), then each bone's angles [x, y, z] in degrees (an edited bone angle shows), at
 * 30 frames a second, with flagged frames as markers. Bones are named as the view names
 * them (re_names.c: the skeletons the spec names), else bone_<i>. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "animfs/curves.h"
#include "re.h"

/* More bones than any RE model has (15 for an RE3 human; the bone count is a u16 in
 * the file): a bank past this plots its root motion only. */
#define RE_PLOT_BONES 64

struct seq_ctx {
	const struct af_ynode *pool; /* the bank's keyframes */
	int re2;                     /* RE2: a frame names its pose directly, `offset: [x, y, z]` */
	unsigned nbones;             /* bones with angles to plot (0: none) */
	const char *const *names;    /* the bones' names, NULL: bone_<i> */
};

/* Frame f of a sequence: its pose's keyframe (NULL: the frame does not read) and, when
 * the frame is flagged, the marker's label in mark (else mark is ""). */
static const struct af_ynode *frame_pose(const struct seq_ctx *x, const struct af_ynode *frames,
					 double start, size_t f, char *mark, size_t marklen)
{
	const struct af_ynode *fr = af_cv_item(frames, f);
	double pose, flags = 0;
	/* flags: a number, or a name (none: no flag) that labels the marker */
	const char *fname = af_cv_str(af_cv_item(fr, 1));
	int named = af_cv_num(af_cv_item(fr, 1), &flags) != 0;
	mark[0] = 0;
	if (af_cv_num(af_cv_item(fr, 0), &pose) || (named && !fname))
		return NULL;
	if (named ? strcmp(fname, "none") != 0 : flags != 0) {
		if (named)
			snprintf(mark, marklen, "%.20s", fname);
		else
			snprintf(mark, marklen, "0x%02X", (unsigned)flags);
	}
	return af_cv_item(x->pool, (size_t)(x->re2 ? pose : start + pose));
}

/* One object of a sequence: bone < 0 its root motion (4 channels), else that bone's
 * angles (3 channels, unwrapped). */
static int object_curves(struct af_curves *cv, const struct seq_ctx *x, const struct af_ynode *sq,
			 const char *title, int bone)
{
	static const char *const axes[] = { "x", "y", "z" };
	const struct af_ynode *frames = af_ymap_get(sq, "frames");
	double start = 0, v;
	size_t s[4], nch = bone < 0 ? 4 : 3;
	af_cv_num(af_ymap_get(sq, "pose_start"), &start);
	if (af_curves_object(cv, title, (double)(af_cv_count(frames) - 1) / 30.0))
		return AF_ENOMEM;
	for (size_t a = 0; a < nch; a++) {
		char t[48];
		if (bone >= 0)
			snprintf(t, sizeof(t), "rotation %s", axes[a]);
		else
			snprintf(t, sizeof(t), a < 3 ? "motion %s" : "%s",
				 a < 3 ? axes[a] : x->re2 ? "offset y" : "y_offset");
		if ((s[a] = af_curves_channel(cv, t, bone >= 0 ? "deg" : "units", 0)) == SIZE_MAX)
			return AF_ENOMEM;
	}
	for (size_t f = 0; f < af_cv_count(frames); f++) {
		char mark[24];
		const struct af_ynode *kf = frame_pose(x, frames, start, f, mark, sizeof(mark));
		double t = (double)f / 30.0;
		if (mark[0])
			af_curves_marker(cv, t, mark);
		if (!kf)
			continue;
		if (bone >= 0) {
			const struct af_ynode *ang = af_cv_item(af_ymap_get(kf, "angles"), (size_t)bone);
			for (int a = 0; a < 3; a++)
				if (!af_cv_num(af_cv_item(ang, (size_t)a), &v))
					af_curves_key(cv, s[a], t, v, 0, 0);
			continue;
		}
		for (int a = 0; a < 3; a++)
			if (!af_cv_num(af_cv_item(af_ymap_get(kf, "motion"), (size_t)a), &v))
				af_curves_key(cv, s[a], t, v, 0, 0);
		if (!af_cv_num(x->re2 ? af_cv_item(af_ymap_get(kf, "offset"), 1) : af_ymap_get(kf, "y_offset"), &v))
			af_curves_key(cv, s[3], t, v, 0, 0);
	}
	for (size_t a = 0; bone >= 0 && a < nch; a++)
		af_curves_unwrap_deg(cv, s[a]);
	return cv->oom ? AF_ENOMEM : 0;
}

/* A sequence (whole: "B/Q" asked for, or the first max_objects) or the bones asked for
 * by "B/Q/NAME". */
static int sequence_curves(struct af_curves *cv, const struct seq_ctx *x, const struct af_ynode *sq,
			   size_t b, size_t q)
{
	char name[48], title[200];
	snprintf(name, sizeof(name), "%zu/%zu", b, q);
	int whole = af_curves_wanted(cv, name, NULL);
	if (!whole && !af_curves_selecting(cv))
		return 0;
	snprintf(title, sizeof(title), "bank %zu, sequence %zu (%s): root motion", b, q, name);
	if (whole && object_curves(cv, x, sq, title, -1))
		return AF_ENOMEM;
	for (unsigned i = 0; i < x->nbones; i++) {
		char bone[32], full[96];
		if (x->names)
			snprintf(bone, sizeof(bone), "%s", x->names[i]);
		else
			snprintf(bone, sizeof(bone), "bone_%u", i);
		snprintf(full, sizeof(full), "%s/%s", name, bone);
		if (!whole && !af_curves_match(cv, full))
			continue;
		snprintf(title, sizeof(title), "bank %zu, sequence %zu (%s): bone %u%s%s", b, q,
			 full, i, x->names ? " " : "", x->names ? bone : "");
		if (object_curves(cv, x, sq, title, (int)i))
			return AF_ENOMEM;
	}
	return 0;
}

/* The bank's bones with angles to plot and their names (as the view's comments name
 * them: the skeleton's parents, or a header-only bank's bone count, told by re_names). */
static void bank_bones(struct seq_ctx *x, unsigned game, const struct af_ynode *bk)
{
	const struct af_ynode *sk = af_ymap_get(bk, "skeleton");
	int parent[RE_PLOT_BONES];
	struct re_emr m;
	double n = 0;
	x->nbones = 0;
	x->names = NULL;
	if (af_cv_num(af_ymap_get(bk, "bone_count"), &n) || n < 1 || n > RE_PLOT_BONES ||
	    !af_cv_count(af_ymap_get(af_cv_item(x->pool, 0), "angles")))
		return;
	x->nbones = (unsigned)n;
	memset(&m, 0, sizeof(m));
	m.nbones = (uint16_t)x->nbones;
	m.has_skeleton = af_cv_count(sk) > 0;
	for (unsigned i = 0; i < x->nbones; i++) {
		double p = -2;
		af_cv_num(af_ymap_get(af_cv_item(sk, i), "parent"), &p);
		parent[i] = p >= -1 && p < RE_PLOT_BONES ? (int)p : -2;
	}
	m.parent = parent;
	x->names = re_bone_names(game, &m);
}

int re_curves(const struct af_ynode *root, struct af_curves *cv)
{
	const struct af_ynode *banks = af_ymap_get(root, "banks");
	const char *game = af_cv_str(af_ymap_get(root, "game"));
	struct seq_ctx x = { NULL, game && !strcmp(game, "re2"), 0, NULL };
	for (size_t b = 0; b < af_cv_count(banks) && !cv->oom; b++) {
		const struct af_ynode *bk = af_cv_item(banks, b), *seqs = af_ymap_get(bk, "sequences");
		x.pool = af_ymap_get(bk, "keyframes");
		bank_bones(&x, x.re2 ? RE_GAME2 : RE_GAME3, bk);
		for (size_t q = 0; q < af_cv_count(seqs) && !cv->oom; q++) {
			const struct af_ynode *sq = af_cv_item(seqs, q);
			if (!af_cv_count(af_ymap_get(sq, "frames")) || !af_cv_count(x.pool))
				continue;
			if (sequence_curves(cv, &x, sq, b, q))
				return AF_ENOMEM;
		}
	}
	return cv->oom ? AF_ENOMEM : 0;
}
