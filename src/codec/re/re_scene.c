/* RE models: the scene of a view for glTF previews (scene.h), read from the YAML alone:
 * each skeleton of the file (a bank's EMR) as bone nodes with their rest offsets (spec
 * 5.2: translate(relpos) * Rx * Ry * Rz), the MD1/MD2 mesh objects drawn by bone i (5.2),
 * the TIM texture (6.3), and every sequence of every bank as an animation of 30 frames a
 * second. Game units (+Y down) become glTF's Y up at 1/1000 through the scene's root. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/curves.h"
#include "animfs/scene.h"
#include "re.h"

#define MAX_BONES 256

struct skel {
	size_t first, n; /* its nodes */
};

/* The bank's skeleton as nodes "<prefix>bone N". */
static int skeleton(struct af_scene *sc, const struct af_ynode *list, const char *prefix, struct skel *s,
		    struct af_diag *d)
{
	size_t n = af_cv_count(list);
	s->first = sc->nnode;
	s->n = n;
	if (n > MAX_BONES)
		return af_diag_at_mark(d, AF_EINVAL, list->line, list->col, "line %u: %zu bones (at most %d)", list->line,
				       n, MAX_BONES);
	for (size_t i = 0; i < n; i++) {
		const struct af_ynode *b = &list->items[i];
		char name[64];
		double p, rel[3];
		int rc;
		snprintf(name, sizeof(name), "%sbone %zu", prefix, i);
		size_t k = af_scene_node(sc, name, -1, b->line);
		if (k == SIZE_MAX)
			return AF_ENOMEM;
		if ((rc = af_scene_nums(af_ymap_get(b, "relpos"), 0, 3, rel, "relpos [x, y, z]", d)))
			return rc;
		memcpy(sc->node[k].t, rel, sizeof(rel));
		if (af_cv_num(af_ymap_get(b, "parent"), &p) || p != floor(p) || p < -1 || p >= (double)n)
			return af_diag_at_mark(d, AF_EINVAL, b->line, b->col, "line %u: bone %zu: parent is no bone (-1..%zu)",
					       b->line, i, n - 1);
		sc->node[k].parent = p < 0 ? -1 : (long)(s->first + (size_t)p);
	}
	return 0;
}

/* Numbered bones with no rest pose, for a bank that animates another file's skeleton. */
static int bare(struct af_scene *sc, size_t n, const char *prefix, struct skel *s, unsigned line)
{
	s->first = sc->nnode;
	s->n = n;
	for (size_t i = 0; i < n; i++) {
		char name[64];
		snprintf(name, sizeof(name), "%sbone %zu", prefix, i);
		if (af_scene_node(sc, name, i ? (long)s->first : -1, line) == SIZE_MAX)
			return AF_ENOMEM;
	}
	return 0;
}

/* Sequence q of a bank: a rotation channel per bone and the root's translation (offset
 * or y_offset, plus the cumulative motion) at each frame. */
static int sequence(struct af_scene *sc, const struct af_ynode *sq, const struct af_ynode *pool, int re2,
		    const struct skel *s, struct af_diag *d)
{
	const struct af_ynode *frames = af_ymap_get(sq, "frames");
	size_t ch0 = sc->nch, nf = af_cv_count(frames);
	double start = 0;
	af_cv_num(af_ymap_get(sq, "pose_start"), &start);
	size_t c;
	if ((c = af_scene_channel(sc, s->first, AF_SC_TRANSLATION, sq->line)) == SIZE_MAX)
		return AF_ENOMEM;
	sc->ch[c].quantum = 1; /* int16 units */
	for (size_t b = 0; b < s->n; b++) {
		if ((c = af_scene_channel(sc, s->first + b, AF_SC_ROTATION, sq->line)) == SIZE_MAX)
			return AF_ENOMEM;
		sc->ch[c].quantum = sin(M_PI / 4096); /* the most one 12-bit angle step moves a component */
	}
	for (size_t f = 0; f < nf; f++) {
		const struct af_ynode *fr = &frames->items[f], *kf, *angles;
		double pose, t[3], m[3];
		int rc;
		if ((rc = af_scene_nums(fr, 0, 1, &pose, "frame [pose, flags]", d)))
			return rc;
		kf = af_cv_item(pool, (size_t)(re2 ? pose : start + pose));
		if (pose < 0 || !kf)
			return af_diag_at_mark(d, AF_EINVAL, fr->line, fr->col, "line %u: pose %g is not in the bank's keyframes",
					       fr->line, re2 ? pose : start + pose);
		angles = af_ymap_get(kf, "angles");
		if (af_cv_count(angles) != s->n)
			return af_diag_at_mark(d, AF_EINVAL, kf->line, kf->col, "line %u: %zu angles for %zu bones", kf->line,
					       af_cv_count(angles), s->n);
		if ((rc = af_scene_nums(af_ymap_get(kf, "motion"), 0, 3, m, "motion [x, y, z]", d)))
			return rc;
		if (re2) {
			rc = af_scene_nums(af_ymap_get(kf, "offset"), 0, 3, t, "offset [x, y, z]", d);
		} else {
			t[0] = t[2] = 0;
			if (af_cv_num(af_ymap_get(kf, "y_offset"), &t[1]))
				rc = af_diag_at_mark(d, AF_EINVAL, kf->line, kf->col, "line %u: no y_offset", kf->line);
		}
		if (rc)
			return rc;
		for (int a = 0; a < 3; a++)
			t[a] += m[a];
		af_scene_key(sc, ch0, (double)f / 30.0, t);
		for (size_t b = 0; b < s->n; b++) {
			double e[3], q[4];
			if ((rc = af_scene_nums(&angles->items[b], 0, 3, e, "angles [x, y, z]", d)))
				return rc;
			for (int a = 0; a < 3; a++)
				e[a] *= M_PI / 180;
			af_quat_xyz(e, q);
			af_scene_key(sc, ch0 + 1 + b, (double)f / 30.0, q);
		}
	}
	return 0;
}

int re_scene(const struct af_ynode *root, struct af_scene *sc, struct af_diag *d)
{
	const struct af_ynode *banks = af_ymap_get(root, "banks");
	const char *game = af_cv_str(af_ymap_get(root, "game"));
	int re2 = game && !strcmp(game, "re2"), rc = 0;
	struct skel skels[64];
	size_t nskel = 0;
	long main_skel = -1;
	int noted = 0, skipped = 0;
	sc->scale = 0.001;
	sc->axes[0] = 1, sc->axes[3] = 0; /* +Y down -> Y up: half a turn about X */
	snprintf(sc->root_name, sizeof(sc->root_name), "+Y down, game units");
	af_scene_extra(sc, 0, "format", "re-model", 0);
	for (size_t b = 0; b < af_cv_count(banks) && !rc; b++) {
		const struct af_ynode *bk = &banks->items[b], *sk = af_ymap_get(bk, "skeleton");
		const struct af_ynode *seqs = af_ymap_get(bk, "sequences"), *pool = af_ymap_get(bk, "keyframes");
		double nb = 0;
		size_t nf;
		struct skel s = { 0, 0 };
		char prefix[32];
		if (!af_cv_count(seqs) && !af_cv_count(sk))
			continue; /* an empty bank */
		af_cv_num(af_ymap_get(bk, "bone_count"), &nb);
		prefix[0] = 0;
		if (main_skel >= 0) /* the file's first skeleton is plain "bone N" */
			snprintf(prefix, sizeof(prefix), "bank %zu ", b);
		if (af_cv_count(sk)) {
			rc = skeleton(sc, sk, prefix, &s, d);
		} else { /* header only: the skeleton of a bank before with as many bones, or bare */
			long use = -1;
			for (size_t i = 0; i < nskel && use < 0; i++)
				if ((double)skels[i].n == nb)
					use = (long)i;
			if (use >= 0)
				s = skels[use];
			else if (nb < 1 || nb > MAX_BONES)
				rc = af_diag_at_mark(d, AF_EINVAL, bk->line, bk->col, "line %u: bone_count %g (1..%d)", bk->line,
						     nb, MAX_BONES);
			else if (!(rc = bare(sc, (size_t)nb, prefix, &s, bk->line)) && !noted++)
				af_scene_extra(sc, 0, "note", "a bank animates another file's skeleton (the PLD's): "
							      "its bones are numbered, with no rest pose", 0);
		}
		if (rc)
			break;
		if (main_skel < 0)
			main_skel = (long)nskel;
		if (nskel < sizeof(skels) / sizeof(skels[0]))
			skels[nskel++] = s;
		if (af_cv_count(pool) && !af_ymap_get(&pool->items[0], "angles")) {
			if (!skipped++)
				af_scene_extra(sc, 0, "skipped", "the lower-body overlay bank (spec 5.8): its records "
							 "hold foot targets, not bone angles", 0);
			continue;
		}
		for (size_t q = 0; q < af_cv_count(seqs) && !rc; q++) {
			char name[64];
			snprintf(name, sizeof(name), "bank %zu sequence %zu", b, q);
			if (!af_scene_wanted(sc, name) || !af_cv_count(af_ymap_get(&seqs->items[q], "frames")))
				continue;
			if (af_scene_anim(sc, name))
				return AF_ENOMEM;
			nf = af_cv_count(af_ymap_get(&seqs->items[q], "frames"));
			af_scene_timing(sc, 30, (double)nf, (double)(nf - 1) / 30, name);
			rc = sequence(sc, &seqs->items[q], pool, re2, &s, d);
		}
	}
	if (!rc && main_skel >= 0)
		rc = re_scene_meshes(root, sc, skels[main_skel].first, skels[main_skel].n, d);
	return rc ? rc : sc->oom ? AF_ENOMEM : 0;
}
