/* Shenmue MOTN: the curves of a view for the plotter (curves.h), read from the YAML alone:
 * per decoded block, each bone's channels with their Hermite tangents, at 30 frames a
 * second; a baked or node block (rig bit 15) one sample a frame, joined by straight lines
 * (a raw block has nothing to draw). Rotations in degrees: sequences store turns, baked and
 * node blocks int16 angles, 65536 a turn. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "animfs/curves.h"
#include "motn.h"

static double half_bits(unsigned h)
{
	int e = (h >> 10) & 31;
	double m = h & 1023, v = e ? ldexp(m + 1024, e - 25) : ldexp(m, -24);
	return (h & 0x8000 ? -v : v) * (e == 31 ? INFINITY : 1);
}

/* A value as the view writes it: a number, or a half float's bits (0x...). */
int motn_yhalf(const struct af_ynode *n, double *v)
{
	if (n && n->type == AF_YSCALAR && n->len > 2 && n->str[0] == '0' && n->str[1] == 'x') {
		*v = half_bits((unsigned)strtoul(n->str + 2, NULL, 16));
		return isfinite(*v) ? 0 : -1;
	}
	return af_cv_num(n, v);
}

static void channel_keys(struct af_curves *cv, size_t s, const struct af_ynode *keys, double scale)
{
	for (size_t k = 0; k < af_cv_count(keys); k++) {
		const struct af_ynode *kn = af_cv_item(keys, k);
		double f, ty, v, a = 0, z = 0;
		if (af_cv_num(af_cv_item(kn, 0), &f) || af_cv_num(af_cv_item(kn, 1), &ty) || ty < 1 ||
		    motn_yhalf(af_cv_item(kn, 2), &v))
			continue; /* type 0: no stored value */
		if (ty == 2 && !motn_yhalf(af_cv_item(kn, 3), &a))
			z = a;
		if (ty == 3 && (motn_yhalf(af_cv_item(kn, 3), &a) || motn_yhalf(af_cv_item(kn, 4), &z)))
			continue;
		af_curves_key(cv, s, f / 30.0, scale * v, scale * a, scale * z);
	}
}

/* One value a frame from frame 0: angles (int16, 65536 a turn) in degrees, or halves. */
static int samples(struct af_curves *cv, const char *title, const struct af_ynode *row, int angle)
{
	size_t s = af_curves_channel(cv, title, angle ? "deg" : "units", 0);
	if (s == SIZE_MAX)
		return AF_ENOMEM;
	for (size_t i = 0; i < af_cv_count(row); i++) {
		double v;
		if (!motn_yhalf(af_cv_item(row, i), &v))
			af_curves_key(cv, s, (double)i / 30.0, angle ? v * 360.0 / 65536.0 : v, 0, 0);
	}
	if (angle)
		af_curves_unwrap_deg(cv, s);
	return 0;
}

static int baked_curves(struct af_curves *cv, const struct af_ynode *bones)
{
	static const char *const chans[] = { "tx", "ty", "tz", "rx", "ry", "rz", "hinge" };
	for (size_t i = 0; i < af_cv_count(bones); i++) {
		const struct af_ynode *bn = af_cv_item(bones, i);
		const char *bone = af_cv_str(af_ymap_get(bn, "bone"));
		for (int c = 0; c < 7; c++) {
			const struct af_ynode *row = af_ymap_get(bn, chans[c]);
			char t[64];
			snprintf(t, sizeof(t), "bone %s %s", bone ? bone : "?", chans[c]);
			if (row && samples(cv, t, row, c >= 3))
				return AF_ENOMEM;
		}
	}
	return 0;
}

static int node_curves(struct af_curves *cv, const struct af_ynode *list)
{
	static const char *const chans[] = { "rx", "ry", "rz" };
	for (size_t i = 0; i < af_cv_count(list); i++) {
		const struct af_ynode *nd = af_cv_item(list, i), *sc = af_ymap_get(nd, "scale");
		char t[64];
		for (int c = 0; c < 3; c++) {
			const struct af_ynode *row = af_ymap_get(nd, chans[c]);
			snprintf(t, sizeof(t), "node %zu %s", i, chans[c]);
			if (row && row->type == AF_YSEQ && samples(cv, t, row, 1))
				return AF_ENOMEM;
		}
		if (sc && af_cv_count(sc) && af_cv_item(sc, 0)->type == AF_YSEQ) {
			for (int c = 0; c < 3; c++) { /* a scale track: one [x, y, z] a sample */
				size_t s;
				snprintf(t, sizeof(t), "node %zu scale %c", i, "xyz"[c]);
				if ((s = af_curves_channel(cv, t, "units", 0)) == SIZE_MAX)
					return AF_ENOMEM;
				for (size_t k = 0; k < af_cv_count(sc); k++) {
					double v;
					if (!motn_yhalf(af_cv_item(af_cv_item(sc, k), (size_t)c), &v))
						af_curves_key(cv, s, (double)k / 30.0, v, 0, 0);
				}
			}
		}
	}
	return 0;
}

static int block_curves(struct af_curves *cv, const struct af_ynode *bones)
{
	static const char *const chans[] = { "tx", "ty", "tz", "rx", "ry", "rz" };
	for (size_t i = 0; i < af_cv_count(bones); i++) {
		const struct af_ynode *bn = af_cv_item(bones, i);
		const char *bone = af_cv_str(af_ymap_get(bn, "bone"));
		for (int c = 0; c < 6; c++) {
			const struct af_ynode *keys = af_ymap_get(bn, chans[c]);
			char t[64];
			size_t s;
			if (!keys)
				continue;
			snprintf(t, sizeof(t), "bone %s %s", bone ? bone : "?", chans[c]);
			if ((s = af_curves_channel(cv, t, c < 3 ? "units" : "deg", 1)) == SIZE_MAX)
				return AF_ENOMEM;
			channel_keys(cv, s, keys, c < 3 ? 1.0 : 360.0); /* turns -> degrees */
		}
	}
	return 0;
}

int motn_curves(const struct af_ynode *root, struct af_curves *cv)
{
	const struct af_ynode *blocks = af_ymap_get(root, "blocks");
	for (size_t b = 0; b < af_cv_count(blocks) && !cv->oom; b++) {
		const struct af_ynode *bl = af_cv_item(blocks, b), *names = af_ymap_get(bl, "names");
		const struct af_ynode *bones = af_ymap_get(bl, "bones");
		const struct af_ynode *baked = af_ymap_get(bl, "baked"), *nodes = af_ymap_get(bl, "nodes");
		const char *name = af_cv_str(af_cv_item(names, 0)), *id = af_cv_str(af_ymap_get(bl, "block"));
		char oname[128], title[320];
		double frames = 0;
		int hit = 0;
		const struct af_ynode *fr = af_ymap_get(bl, "frames");
		double span = 1; /* baked: frames samples; nodes: frames + 1 */
		if (baked || nodes) {
			fr = af_ymap_get(baked ? baked : nodes, "frames");
			bones = baked ? af_ymap_get(baked, "bones") : af_ymap_get(nodes, "list");
			span = baked ? 1 : 0;
		}
		if (!bones || af_cv_num(fr, &frames))
			continue; /* a raw block: nothing to draw */
		snprintf(oname, sizeof(oname), "%s", name ? name : id ? id : "?");
		/* any of a block's names (its aliases) or its id picks it */
		for (size_t i = 0; af_curves_selecting(cv) && i < af_cv_count(names); i++)
			hit |= af_curves_match(cv, af_cv_str(af_cv_item(names, i)));
		if (!(af_curves_selecting(cv) ? hit | af_curves_match(cv, id) : af_curves_wanted(cv, oname, id)))
			continue;
		snprintf(title, sizeof(title), "%s (block %s, %g frames at 30 fps%s)", oname, id ? id : "?",
			 frames, baked ? ", baked" : nodes ? ", node tracks" : "");
		if (af_curves_object(cv, title, (frames - span) / 30.0) ||
		    (baked ? baked_curves(cv, bones) : nodes ? node_curves(cv, bones) : block_curves(cv, bones)))
			break;
	}
	return cv->oom ? AF_ENOMEM : 0;
}
