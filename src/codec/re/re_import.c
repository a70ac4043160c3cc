/* RE models: a glTF brought back (the descriptor's scene_import hook, codec.h). The
 * document is parsed into the model as a save would. An edited channel is a bone's
 * rotation or the root's translation in one sequence ("bank B sequence Q", "bone N", as
 * re_scene.c names them); the glTF's curve is read at each of the sequence's frames (30 a
 * second). A frame's pose holds every bone at once and may be shared by other frames and
 * sequences (docs/re-model.md, "Keyframes"), so a frame whose values change gets:
 *   - the pose of the pool that already holds exactly the new values, if the frame can
 *     name it (RE3: pose_start + a u8; RE2: a 12-bit index);
 *   - else its own pose changed in place, when no other frame of the bank names it;
 *   - else a new pose at the pool's end, when the frame can name it; else the import is
 *     refused, naming the sequence and the frame.
 * A bone's angles stay as they were where the glTF's rotation is within half a 12-bit step
 * of theirs; else the rotation becomes Rx*Ry*Rz Euler angles (spec 5.5, Z applied first),
 * 4096 a turn. The root's translation: what differs by half a unit or more goes into the
 * pose's motion (its offset or y_offset stays). Everything else as the document says. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/arena.h"
#include "animfs/scene.h"
#include "animfs/yamlio.h"
#include "re.h"

#define FPS 30.0
#define STEP (2 * M_PI / 4096) /* one angle code, in radians */

/* The rotation of three angle codes, as the preview makes it. */
static void codes_quat(const uint16_t *c, double *q)
{
	double e[3];
	for (int k = 0; k < 3; k++)
		e[k] = (c[k] >= 2048 ? (double)c[k] - 4096 : c[k]) * STEP;
	af_quat_xyz(e, q);
}

/* The angle between two rotations, in radians. */
static double turn_between(const double *p, const double *q)
{
	double dot = 0, lp = 0, lq = 0;
	for (int k = 0; k < 4; k++)
		dot += p[k] * q[k], lp += p[k] * p[k], lq += q[k] * q[k];
	dot = fabs(dot) / sqrt(lp * lq);
	return 2 * acos(dot > 1 ? 1 : dot);
}

/* q (unit) as the angle codes of Rx*Ry*Rz. */
static void quat_codes(const double *q0, uint16_t *c)
{
	double l = sqrt(q0[0] * q0[0] + q0[1] * q0[1] + q0[2] * q0[2] + q0[3] * q0[3]);
	double x = q0[0] / l, y = q0[1] / l, z = q0[2] / l, w = q0[3] / l, e[3];
	double r00 = 1 - 2 * (y * y + z * z), r01 = 2 * (x * y - z * w), r02 = 2 * (x * z + y * w);
	double r12 = 2 * (y * z - x * w), r22 = 1 - 2 * (x * x + y * y);
	e[1] = asin(r02 > 1 ? 1 : r02 < -1 ? -1 : r02);
	if (fabs(r02) < 1 - 1e-12) {
		e[0] = atan2(-r12, r22);
		e[2] = atan2(-r01, r00);
	} else { /* gimbal: X and Z turn about one axis; all of it on X (Rx*Ry: r10 = sin x sin y) */
		double r10 = 2 * (x * y + z * w), r11 = 1 - 2 * (x * x + z * z);
		e[0] = atan2(r02 > 0 ? r10 : -r10, r11);
		e[2] = 0;
	}
	for (int k = 0; k < 3; k++)
		re_deg_quantize(e[k] * 180 / M_PI, &c[k]);
}

/* The root's translation of a pose (re_scene.c: offset or [0, y_offset, 0], plus motion). */
static void pose_t(unsigned game, const struct re_pose *p, double *t)
{
	for (int k = 0; k < 3; k++)
		t[k] = p->motion[k] + (game == RE_GAME2 ? p->offset[k] : k == 1 ? p->y_offset : 0);
}

static int same_pose(const struct re_pose *a, const struct re_pose *b, unsigned nb)
{
	return !memcmp(a->offset, b->offset, sizeof(a->offset)) && !memcmp(a->motion, b->motion, sizeof(a->motion)) &&
	       a->y_offset == b->y_offset && a->stray == b->stray && !memcmp(a->codes, b->codes, 6 * (size_t)nb);
}

/* How many frames of the bank name pool entry pi. */
static size_t users(const struct re_bank *k, unsigned game, size_t pi)
{
	size_t n = 0;
	for (size_t s = 0; s < k->edd.nseq; s++)
		for (size_t f = 0; f < k->edd.seq[s].nframes; f++)
			n += (game == RE_GAME3 ? k->edd.seq[s].pose_start : 0) + k->edd.seq[s].frames[f].pose == pi;
	return n;
}

struct bone_edit {
	struct af_scene_edit *e;
	unsigned bone; /* rotation: the bone; translation: the root */
	double worst;
};

/* The pose frame fi of sequence q gets for the new values np: one of the pool it can name
 * that holds them, or a new one. */
static int place(struct re_bank *k, unsigned game, unsigned b, unsigned q, size_t fi, const struct re_pose *np,
		 const unsigned char *pending, struct af_arena *a, struct af_diag *d)
{
	struct re_seq *s = &k->edd.seq[q];
	struct re_emr *m = &k->emr;
	size_t base = game == RE_GAME3 ? s->pose_start : 0, lim = game == RE_GAME3 ? base + 255 : 4095;
	size_t pi = base + s->frames[fi].pose;
	for (size_t i = base; i < m->nposes && i <= lim; i++) {
		size_t g = 0; /* not a pose a frame still to place names: it may yet change in place */
		while (g < s->nframes && !(pending[g] && base + s->frames[g].pose == i))
			g++;
		if (g == s->nframes && same_pose(&m->poses[i], np, m->nbones)) {
			s->frames[fi].pose = (uint32_t)(i - base);
			return 0;
		}
	}
	if (m->nposes > lim)
		return af_diag_error(d, AF_EINVAL, "bank %u sequence %u frame %zu: its pose %zu is shared with other "
				     "frames, and a new pose would be pool entry %zu, which the frame cannot name (%s): "
				     "edit every frame that shows pose %zu alike, or edit the YAML", b, q, fi, pi, m->nposes,
				     game == RE_GAME3 ? "RE3: pose_start + a u8, at most 255 past it" : "RE2: 12 bits",
				     pi);
	struct re_pose *poses = af_arena_array(a, m->nposes + 1, sizeof(*poses));
	uint16_t *codes = af_arena_array(a, 3 * (size_t)m->nbones, sizeof(uint16_t));
	if (!poses || !codes)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	memcpy(poses, m->poses, m->nposes * sizeof(*poses));
	poses[m->nposes] = *np;
	memcpy(codes, np->codes, 6 * (size_t)m->nbones);
	poses[m->nposes].codes = codes;
	s->frames[fi].pose = (uint32_t)(m->nposes - base);
	m->poses = poses;
	m->nposes++;
	return 0;
}

/* The new poses nps of the sequence's changed frames put in the pool: a pose whose every
 * user is a changed frame of this sequence with the same new values is changed in place;
 * each other frame gets one by place(). */
static int place_all(struct re_bank *k, unsigned game, unsigned b, unsigned q, const struct re_pose *nps,
		     unsigned char *changed, struct af_arena *a, struct af_diag *d)
{
	struct re_seq *s = &k->edd.seq[q];
	struct re_emr *m = &k->emr;
	size_t base = game == RE_GAME3 ? s->pose_start : 0;
	for (size_t fi = 0; fi < s->nframes; fi++) {
		size_t pi = base + s->frames[fi].pose, alike = 0;
		int rc;
		if (!changed[fi])
			continue;
		for (size_t g = 0; g < s->nframes; g++)
			alike += base + s->frames[g].pose == pi && changed[g] && same_pose(&nps[g], &nps[fi], m->nbones);
		if (alike == users(k, game, pi)) { /* no frame but these shows pose pi */
			uint16_t *keep = m->poses[pi].codes;
			memcpy(keep, nps[fi].codes, 6 * (size_t)m->nbones);
			m->poses[pi] = nps[fi];
			m->poses[pi].codes = keep;
			for (size_t g = 0; g < s->nframes; g++)
				if (base + s->frames[g].pose == pi)
					changed[g] = 0;
			continue;
		}
		changed[fi] = 0;
		if ((rc = place(k, game, b, q, fi, &nps[fi], changed, a, d)))
			return rc;
	}
	return 0;
}

/* The edits of one sequence (every edit of ed naming it) into the bank. */
static int sequence(struct re_file *f, unsigned b, unsigned q, struct bone_edit *be, size_t n, struct af_arena *a,
		    struct af_diag *d)
{
	unsigned game = f->lay->game;
	struct re_bank *k = &f->bank[b];
	struct re_seq *s = &k->edd.seq[q];
	struct re_emr *m = &k->emr;
	uint16_t *codes;
	for (size_t i = 0; i < n; i++)
		if (be[i].e->t[be[i].e->n - 1] > (s->nframes - 1) / FPS + 1e-4)
			return af_diag_error(d, AF_EINVAL, "bank %u sequence %u: a key of %s at %.4f s is past its last frame "
					     "(%zu frames at 30 a second: %.4f s); a sequence's length is the EDD's", b, q,
					     be[i].e->node, (double)be[i].e->t[be[i].e->n - 1], s->nframes,
					     (s->nframes - 1) / FPS);
	struct re_pose *nps = af_arena_array(a, s->nframes ? s->nframes : 1, sizeof(*nps));
	unsigned char *changed = af_arena_array(a, s->nframes ? s->nframes : 1, 1);
	if (!nps || !changed)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	for (size_t fi = 0; fi < s->nframes; fi++) {
		size_t pi = (game == RE_GAME3 ? s->pose_start : 0) + s->frames[fi].pose;
		const struct re_pose *old = &m->poses[pi];
		struct re_pose np = *old;
		if (s->frames[fi].outside || pi >= m->nposes)
			return af_diag_error(d, AF_EINVAL, "bank %u sequence %u frame %zu: its pose lies outside the pool "
					     "(carried as the file has it): an import does not touch it", b, q, fi);
		if (!(codes = af_arena_array(a, 3 * (size_t)m->nbones + 1, sizeof(uint16_t))))
			return af_diag_error(d, AF_ENOMEM, "out of memory");
		memcpy(codes, old->codes, 6 * (size_t)m->nbones);
		np.codes = codes;
		for (size_t i = 0; i < n; i++) {
			const struct af_scene_edit *e = be[i].e;
			double v[4], was[4];
			af_scene_curve_at(e->t, e->v, e->n, e->path == AF_SC_ROTATION ? 4 : 3, fi / FPS, v);
			if (be[i].e->path == AF_SC_ROTATION) {
				uint16_t *c = &codes[3 * be[i].bone];
				codes_quat(c, was);
				if (turn_between(was, v) > STEP / 2)
					quat_codes(v, c);
				codes_quat(c, was);
				be[i].worst = fmax(be[i].worst, turn_between(was, v) / STEP);
				continue;
			}
			pose_t(game, old, was);
			for (int j = 0; j < 3; j++) { /* height: offset / y_offset; the rest: motion */
				int16_t *at = j != 1 ? &np.motion[j] : game == RE_GAME2 ? &np.offset[1] : &np.y_offset;
				double mo = *at + nearbyint(v[j] - was[j]);
				if (mo < -32768 || mo > 32767)
					return af_diag_error(d, AF_EINVAL, "bank %u sequence %u frame %zu: the root's %s would "
							     "be %.0f, outside int16", b, q, fi, j != 1 ? "motion" : "height", mo);
				*at = (int16_t)mo;
			}
			pose_t(game, &np, was);
			for (int j = 0; j < 3; j++)
				be[i].worst = fmax(be[i].worst, fabs(was[j] - v[j]));
		}
		nps[fi] = np;
		changed[fi] = !same_pose(old, &np, m->nbones);
	}
	return place_all(k, game, b, q, nps, changed, a, d);
}

/* "<prefix>bone N" -> N; "bank B sequence Q" -> B, Q. */
static int bone_of(const char *node, unsigned *n)
{
	const char *p = strstr(node, "bone ");
	char *end;
	if (!p || (p != node && p[-1] != ' '))
		return -1;
	unsigned long v = strtoul(p + 5, &end, 10);
	if (*end || end == p + 5 || v > 255)
		return -1;
	*n = (unsigned)v;
	return 0;
}

int re_scene_import(const struct af_ynode *root, struct af_scene_edit *ed, size_t ned, const struct af_io *io,
		    struct af_buf *out, struct af_diag *d)
{
	struct af_arena a;
	struct re_file f;
	struct bone_edit *be;
	unsigned char *done;
	int rc;
	(void)io;
	memset(&f, 0, sizeof(f));
	af_arena_init(&a);
	if ((rc = re_parse(root, &f, &a, d)))
		goto out;
	be = af_arena_array(&a, ned ? ned : 1, sizeof(*be));
	done = af_arena_array(&a, ned ? ned : 1, 1);
	if (!be || !done) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
		goto out;
	}
	memset(done, 0, ned);
	for (size_t i = 0; i < ned && !rc; i++) {
		unsigned b, q;
		size_t n = 0;
		int used;
		if (done[i])
			continue;
		if (sscanf(ed[i].anim, "bank %u sequence %u%n", &b, &q, &used) != 2 || ed[i].anim[used] ||
		    b >= f.lay->nbanks || q >= f.bank[b].edd.nseq) {
			rc = af_diag_error(d, AF_EINVAL, "animation '%s': the file has no such sequence", ed[i].anim);
			break;
		}
		if (f.bank[b].verbatim || f.bank[b].emr.recs || !f.bank[b].emr.poses) {
			rc = af_diag_error(d, AF_EINVAL, "animation '%s': its bank is carried as bytes or holds no "
					   "poses of bone angles: an import does not write it", ed[i].anim);
			break;
		}
		for (size_t j = i; j < ned && !rc; j++) {
			unsigned bone;
			if (done[j] || strcmp(ed[j].anim, ed[i].anim))
				continue;
			done[j] = 1;
			if (bone_of(ed[j].node, &bone) || bone >= f.bank[b].emr.nbones)
				rc = af_diag_error(d, AF_EINVAL, "%s: node '%s' is no bone of bank %u (%u bones)", ed[j].anim,
						   ed[j].node, b, (unsigned)f.bank[b].emr.nbones);
			else if (ed[j].path == AF_SC_SCALE || (ed[j].path == AF_SC_TRANSLATION && bone))
				rc = af_diag_error(d, AF_EINVAL, "%s: node '%s': a pose stores bone angles and the root's "
						   "translation only", ed[j].anim, ed[j].node);
			else
				be[n++] = (struct bone_edit){ &ed[j], bone, 0 };
		}
		if (!rc)
			rc = sequence(&f, b, q, be, n, &a, d);
		for (size_t j = 0; j < n; j++) {
			be[j].e->keys_before = be[j].e->keys_after = f.bank[b].edd.seq[q].nframes;
			be[j].e->max_steps = be[j].worst;
		}
	}
	if (!rc)
		rc = re_write(&f, out, d);
out:
	af_arena_free(&a);
	return rc;
}
