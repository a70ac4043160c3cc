/* glTF back into a game file (gltf.h: af_gltf_import), as a merge into the original: the
 * original's scene (its codec's scene hook, as the preview made it) is matched with the
 * glTF's animations by name and its channels by joint name and path; a channel whose
 * curve agrees with the original's within one stored step at every key of either is left
 * as it is, each other one is handed to the codec's scene_import hook, which re-keys it
 * in the format's own form and writes the file by its encoder. Nothing changed: the
 * original bytes. Names no format. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/codec.h"
#include "animfs/curves.h"
#include "animfs/gltf.h"
#include "animfs/yamlio.h"
#include "gltf_in.h"

/* The largest distance between the values p and q (w of them; a quaternion or its
 * negation, the same rotation) over the tolerance of step. */
static double apart(const double *p, const double *q, size_t w, double step)
{
	double best = INFINITY;
	for (int s = 1; s >= (w == 4 ? -1 : 1); s -= 2) {
		double m = 0;
		for (size_t j = 0; j < w; j++) {
			double tol = step > 0 ? step : 1e-5 * (1 + fabs(q[j]));
			double e = fabs(s * p[j] - q[j]) / tol;
			m = e > m ? e : m;
		}
		best = m < best ? m : best;
	}
	return best;
}

/* Whether the curves of a (the file's) and b (the glTF's) agree within one step (and a
 * float's rounding) at each key of either. */
static int same(const struct af_scene_channel *a, const struct af_gin_chan *b, size_t w)
{
	double p[4], q[4];
	for (size_t k = 0; k < b->n; k++) {
		af_scene_curve_at(a->t, a->v, a->n, w, b->t[k], p);
		for (size_t j = 0; j < w; j++)
			q[j] = b->v[k * w + j];
		if (apart(q, p, w, a->quantum) > 1 + 1e-6)
			return 0;
	}
	for (size_t k = 0; k < a->n; k++) {
		af_scene_curve_at(b->t, b->v, b->n, w, a->t[k], q);
		for (size_t j = 0; j < w; j++)
			p[j] = a->v[k * w + j];
		if (apart(q, p, w, a->quantum) > 1 + 1e-6)
			return 0;
	}
	return 1;
}

/* Whether every key of c holds the value rest (a channel that moves nothing). */
static int holds(const struct af_gin_chan *c, const double *rest, size_t w)
{
	double q[4];
	for (size_t k = 0; k < c->n; k++) {
		for (size_t j = 0; j < w; j++)
			q[j] = c->v[k * w + j];
		if (apart(q, rest, w, 1e-4) > 1)
			return 0;
	}
	return 1;
}

/* The file's animation the glTF's name gives: its own name, or the preview's
 * "<name> @<rate>fps"; -1 when none. */
static long anim_of(const struct af_scene *sc, const char *name)
{
	for (size_t k = 0; k < sc->nanim; k++) {
		size_t n = strlen(sc->anim[k].name);
		if (!strncmp(name, sc->anim[k].name, n) && (!name[n] || !strncmp(name + n, " @", 2)))
			return (long)k;
	}
	return -1;
}

static int asked(const struct af_gltf_import_opts *o, const char *name)
{
	if (!o || !o->nanims)
		return 1;
	for (size_t i = 0; i < o->nanims; i++)
		if (!strcmp(o->anims[i], name))
			return 1;
	return 0;
}

static const char *const path_name[] = { "translation", "rotation", "scale" };

/* Each glTF channel matched with the file's; the ones that differ into ed (*ned), their
 * file channels in which[]. */
static int match(const struct af_gin *g, const struct af_scene *sc, size_t nbase,
		 const struct af_gltf_import_opts *o, struct af_scene_edit *ed, size_t *which, size_t *ned,
		 size_t *kept, struct af_diag *d)
{
	unsigned char *seen = af_alloc_zeroed(sc->nch ? sc->nch : 1, 1);
	int rc = 0;
	if (!seen)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	for (size_t i = 0; i < g->nanim && !rc; i++) {
		const struct af_gin_anim *ga = &g->anim[i];
		long k = anim_of(sc, ga->name);
		if (k < 0) {
			rc = af_diag_error(d, AF_EINVAL, "animation '%s': the file has none of that name (the glTF's "
					   "animations must keep the names the preview gave them)", ga->name);
			break;
		}
		const struct af_scene_anim *sa = &sc->anim[k];
		if (!asked(o, sa->name))
			continue;
		for (size_t c = ga->first; c < ga->first + ga->count && !rc; c++) {
			const struct af_gin_chan *gc = &g->ch[c];
			const char *node = g->name[gc->node];
			long nd = af_scene_find(sc, node);
			size_t w = gc->path == AF_SC_ROTATION ? 4 : 3, j;
			double rest[4] = { 0, 0, 0, 1 };
			for (j = sa->first; j < sa->first + sa->count; j++)
				if ((long)sc->ch[j].node == nd && sc->ch[j].path == gc->path)
					break;
			if (nd >= (long)nbase && j == sa->first + sa->count) { /* a channel the file lacks: at rest? */
				const struct af_scene_node *sn = &sc->node[nd];
				memcpy(rest, gc->path == AF_SC_TRANSLATION ? sn->t : gc->path == AF_SC_SCALE ? sn->s : sn->r,
				       w * sizeof(double));
			} else if (nd < (long)nbase) { /* a node the preview added (the units' root), Blender's,
							 * or a joint whose rest the import does not know */
				const float *v0 = gc->v;
				for (size_t q = 0; q < w; q++)
					rest[q] = v0[q];
			}
			if ((nd < 0 || j == sa->first + sa->count) && holds(gc, rest, w))
				continue; /* moves nothing */
			if (nd < 0) {
				rc = af_diag_error(d, AF_EINVAL, "animation '%s': node '%s' moves, but the file has no joint of "
						   "that name", ga->name, node);
			} else if (j == sa->first + sa->count) {
				rc = af_diag_error(d, AF_EINVAL, "animation '%s': node '%s' has a %s that moves, which the file "
						   "does not store for it", ga->name, node, path_name[gc->path]);
			} else if (seen[j]) {
				rc = af_diag_error(d, AF_EINVAL, "animation '%s': two channels move the %s of node '%s'",
						   ga->name, path_name[gc->path], node);
			} else if ((seen[j] = 1) && same(&sc->ch[j], gc, w)) {
				(*kept)++;
			} else {
				ed[*ned] = (struct af_scene_edit){ .anim = sa->name, .node = sc->node[nd].name,
								   .path = gc->path, .n = gc->n, .t = gc->t, .v = gc->v,
								   .refit = o && o->refit };
				which[(*ned)++] = j;
			}
		}
	}
	free(seen);
	return rc;
}

/* The glTF's part of the model beside the scene (mem's room asks for both in all): what
 * reading it holds (the file's JSON parsed, its buffers: twice the file), then what it
 * read out of it. */
struct gl_room {
	const struct af_ybudget *mem;
	size_t gl;
	int refused; /* once: the scene's hook may go on asking (not growing) after it */
};

static int gl_room(void *ctx, size_t bytes)
{
	struct gl_room *r = ctx;
	if (!r->refused && !r->mem->room(r->mem->ctx, r->gl > SIZE_MAX - bytes ? SIZE_MAX : r->gl + bytes))
		r->refused = 1;
	return !r->refused;
}

static size_t gin_bytes(const struct af_gin *g)
{
	size_t sum = g->nnode * (sizeof(char *) + sizeof(long)) + g->nanim * sizeof(struct af_gin_anim) +
		     g->nch * sizeof(struct af_gin_chan);
	for (size_t i = 0; i < g->nch; i++)
		sum += g->ch[i].n * (1 + (g->ch[i].path == AF_SC_ROTATION ? 4 : 3)) * sizeof(float);
	return sum;
}

/* The glTF's nodes, by name and parent, put in sc first: for a format whose animation moves
 * a skeleton kept elsewhere (a codec with scene_base: the preview took it from beside the
 * file, --rig or --rig-dir), the preview's joints stand in for it, so the scene hook names
 * its channels' nodes as the preview did whatever the import has at hand. */
static int joints_first(const struct af_gin *g, struct af_scene *sc, struct af_diag *d)
{
	for (size_t i = 0; i < g->nnode; i++)
		if (af_scene_node(sc, g->name[i], g->parent[i], 0) == SIZE_MAX)
			return af_diag_error(d, AF_ENOMEM, "out of memory");
	return 0;
}

int af_gltf_import(const uint8_t *gl, size_t ngl, const uint8_t *yaml, size_t nyaml, const uint8_t *bin,
		   size_t nbin, const struct af_gltf_import_opts *o, struct af_buf *out, struct af_buf *report,
		   struct af_diag *d)
{
	struct af_gin g;
	struct af_scene sc;
	struct af_ydoc doc;
	struct af_scene_edit *ed = NULL;
	size_t *which = NULL, ned = 0, kept = 0, start = out->len, nbase = 0;
	const struct af_codec *c;
	const char *format;
	const struct af_ybudget *mem = o && o->mem && o->mem->room ? o->mem : NULL;
	struct gl_room room = {mem, ngl > SIZE_MAX / 2 ? SIZE_MAX : 2 * ngl, 0};
	int rc, parsed = 0;
	if (mem && !gl_room(&room, 0))
		return af_diag_error(d, AF_ENOMEM, "reading the glTF (%zu bytes) would take more than the memory bound "
				     "lets it", ngl);
	if ((rc = af_gltf_read(gl, ngl, &g, d)))
		return rc;
	room.gl = gin_bytes(&g);
	if (af_scene_init(&sc, NULL, 0)) {
		af_gin_free(&g);
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	}
	if (mem) { /* the scene's bytes asked for as it grows, with the glTF's */
		sc.room = gl_room;
		sc.room_ctx = &room;
	}
	if ((rc = af_ydoc_parse(&doc, yaml, nyaml, mem ? mem->lim : NULL, d)))
		goto out;
	parsed = 1;
	format = af_cv_str(af_ymap_get(doc.root, "format"));
	if (!format || !(c = af_codec_by_name(format)) || !c->scene || !c->scene_import) {
		rc = af_diag_error(d, AF_EUNSUP, "%s files cannot take a glTF back (yet): docs/gltf.md says which can",
				   format ? format : "these");
		goto out;
	}
	sc.io = o ? o->io : NULL;
	if (c->scene_base && (rc = joints_first(&g, &sc, d))) /* the skeleton the preview moved */
		goto out;
	nbase = sc.nnode;
	if ((rc = c->scene(doc.root, &sc, d)) || (sc.oom && (rc = af_diag_error(d, AF_ENOMEM, "out of memory"))) ||
	    (rc = af_scene_check(&sc, d)))
		goto out;
	for (size_t i = 0; o && i < o->nanims; i++)
		if (anim_of(&sc, o->anims[i]) < 0) {
			rc = af_diag_error(d, AF_EINVAL, "--anim %s: the file has no animation of that name", o->anims[i]);
			goto out;
		}
	ed = af_alloc_zeroed(g.nch ? g.nch : 1, sizeof(*ed));
	which = af_alloc_zeroed(g.nch ? g.nch : 1, sizeof(*which));
	if (!ed || !which) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = match(&g, &sc, nbase, o, ed, which, &ned, &kept, d)))
		goto out;
	if (!ned) {
		if (af_buf_append(out, bin, nbin))
			rc = af_diag_error(d, AF_ENOMEM, "out of memory");
	} else if (!(rc = c->scene_import(doc.root, ed, ned, o ? o->io : NULL, out, d))) {
		size_t same = 0; /* the hook's finer steps found them as they were */
		for (size_t i = 0; i < ned; i++)
			same += ed[i].same != 0;
		kept += same;
		if (same == ned) { /* nothing changed after all: the original bytes */
			out->len = start;
			if (af_buf_append(out, bin, nbin))
				rc = af_diag_error(d, AF_ENOMEM, "out of memory");
		}
	}
	if (rc)
		goto out;
	size_t changed = 0;
	for (size_t i = 0; i < ned; i++)
		changed += !ed[i].same;
	for (size_t i = 0; i < ned && report; i++) {
		const struct af_scene_edit *e = &ed[i];
		if (e->same)
			continue;
		const struct af_scene_channel *sch = &sc.ch[which[i]];
		char line[800];
		int k = snprintf(line, sizeof(line), "changed: %s: %s %s: %zu keys in the glTF, %zu before, %zu now; "
				 "largest error %.3g %s%s%s\n", e->anim, e->node, path_name[e->path], e->n, e->keys_before,
				 e->keys_after, e->max_steps, sch->quantum > 0 ? "steps" : "(float rounding units)",
				 e->note[0] ? "; " : "", e->note);
		af_buf_append(report, line, (size_t)k < sizeof(line) ? (size_t)k : sizeof(line) - 1);
	}
	if (report) {
		char line[200];
		int k = snprintf(line, sizeof(line), "%zu channel%s changed, %zu as they were%s\n", changed,
				 changed == 1 ? "" : "s", kept, changed ? "" : ": the file is unchanged");
		af_buf_append(report, line, (size_t)k);
	}
out:
	if (rc)
		out->len = start;
	free(ed);
	free(which);
	if (parsed)
		af_ydoc_free(&doc);
	af_scene_free(&sc);
	af_gin_free(&g);
	return rc;
}
