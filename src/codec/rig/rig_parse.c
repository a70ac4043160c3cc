/* The Sims 3 _RIG: YAML -> model (spec sims3-rig.md 5, 6). Every error carries the
 * YAML line:col; unknown keys are refused from the schema's tables. References are
 * names (resolved once every bone is read), plain integers (a stored index, kept even
 * when it is no bone) or null (-1). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/bytes.h"
#include "animfs/fnv.h"
#include "animfs/num.h"
#include "animfs/schema.h"
#include "animfs/yamlio.h"
#include "rig.h"

struct pc {
	struct af_diag *d;
	struct af_arena *a;
	struct rig_file *f;
	const struct af_ynode **bone_nodes; /* per bone: its map, for messages */
	const struct rig_bone **byname; /* the bones sorted by name, for references */
};

static int known_keys(struct pc *p, const struct af_ynode *m, const struct af_sch_prop *props,
		      const char *what)
{
	const struct af_ynode *k;
	char keys[400];
	if (af_y_want(p->d, m, AF_YMAP, what))
		return AF_EINVAL;
	if (!(k = af_sch_unknown_key(props, m)))
		return 0;
	af_sch_key_list(props, keys, sizeof(keys));
	return af_y_error(p->d, k, "%s: unknown key '%s' (expected %s)", what,
			  k->type == AF_YSCALAR ? k->str : "?", keys);
}

static int get_f32s(struct pc *p, const struct af_ynode *n, uint32_t *bits, size_t k,
		    const char *what)
{
	if (af_y_want(p->d, n, AF_YSEQ, what))
		return AF_EINVAL;
	if (n->n != k)
		return af_y_error(p->d, n, "%s: expected %zu numbers, got %zu", what, k, (size_t)n->n);
	for (size_t i = 0; i < k; i++) {
		float v;
		const struct af_ynode *x = &n->items[i];
		if (af_y_get_f32(p->d, x, &v, what))
			return AF_EINVAL;
		if (isinf(v) && !memchr(x->str, 'i', x->len) && !memchr(x->str, 'I', x->len))
			return af_y_error(p->d, x, "%s: %s does not fit an f32", what, x->str);
		bits[i] = af_f32_bits(v);
	}
	return 0;
}

static int get_i32(struct pc *p, const struct af_ynode *n, int32_t *out, const char *what)
{
	int64_t v;
	if (af_y_get_i64(p->d, n, INT32_MIN, INT32_MAX, &v, what))
		return AF_EINVAL;
	*out = (int32_t)v;
	return 0;
}

static int get_name(struct pc *p, const struct af_ynode *n, const char **s, uint32_t *len,
		    const char *what)
{
	size_t l;
	if (af_y_get_str(p->d, n, s, &l, what))
		return AF_EINVAL;
	if (l > RIG_NAME_MAX)
		return af_y_error(p->d, n, "%s: too long", what);
	for (size_t i = 0; i < l; i++)
		if ((unsigned char)(*s)[i] < 0x20 || (unsigned char)(*s)[i] > 0x7E)
			return af_y_error(p->d, n, "%s: only printable ASCII can be hashed and stored", what);
	*len = (uint32_t)l;
	return 0;
}

/* ---- references ---- */

static int ref(struct pc *p, const struct af_ynode *n, int32_t *out, const char *what)
{
	const struct rig_file *f = p->f;
	int64_t v;
	long found = -1;
	if (!n || n->type != AF_YSCALAR)
		return af_y_error(p->d, n, "%s: expected a bone name, an index or null", what);
	if (af_y_is_null(n)) {
		*out = -1;
		return 0;
	}
	if (n->plain && !af_parse_i64(n->str, n->len, &v)) {
		if (v < INT32_MIN || v > INT32_MAX)
			return af_y_error(p->d, n, "%s: index %s is outside i32", what, n->str);
		*out = (int32_t)v;
		return 0;
	}
	struct rig_bone key = { .name = n->str, .name_len = (uint32_t)n->len };
	const struct rig_bone *kp = &key, **at = NULL;
	if (n->len <= UINT32_MAX && f->nbones)
		at = bsearch(&kp, p->byname, f->nbones, sizeof(*p->byname), rig_by_name);
	if (at) {
		if ((at > p->byname && !rig_by_name(at - 1, &kp)) ||
		    (at + 1 < p->byname + f->nbones && !rig_by_name(at + 1, &kp)))
			return af_y_error(p->d, n, "%s: two bones are named '%s'; give the index instead", what, n->str);
		found = (long)(*at - f->bones);
	}
	if (found < 0)
		return af_y_error(p->d, n, "%s: '%s' names no bone", what, n->str);
	*out = (int32_t)found;
	return 0;
}

static int refs(struct pc *p, const struct af_ynode *n, int32_t *out, size_t k, const char *what)
{
	for (size_t i = 0; i < k; i++)
		if (ref(p, &n->items[i], &out[i], what))
			return AF_EINVAL;
	return 0;
}

/* ---- bones ---- */

/* Everything but the references, which need every name. */
static int bone_values(struct pc *p, const struct af_ynode *m, struct rig_bone *b)
{
	const struct af_ynode *x;
	if (known_keys(p, m, rig_sch_bone, "bone") ||
	    !(x = af_y_need(p->d, m, "name", "bone")) || get_name(p, x, &b->name, &b->name_len, "name"))
		return AF_EINVAL;
	if (!b->name_len)
		return af_y_error(p->d, x, "name: empty");
	if (!af_y_need(p->d, m, "parent", "bone") ||
	    !(x = af_y_need(p->d, m, "position", "bone")) || get_f32s(p, x, b->pos, 3, "position") ||
	    !(x = af_y_need(p->d, m, "orientation", "bone")) || get_f32s(p, x, b->rot, 4, "orientation"))
		return AF_EINVAL;
	b->scale[0] = b->scale[1] = b->scale[2] = RIG_ONE_BITS;
	if ((x = af_ymap_get(m, "scale")) && get_f32s(p, x, b->scale, 3, "scale"))
		return AF_EINVAL;
	b->flags = RIG_FLAGS_USUAL;
	if ((x = af_ymap_get(m, "flags")) && af_y_get_u32(p->d, x, &b->flags, "flags"))
		return AF_EINVAL;
	/* an unchanged name keeps the stored hash: the YAML shows it only when it differs */
	b->hash = af_fnv1_32_lower(b->name, b->name_len);
	if ((x = af_ymap_get(m, "hash")) && af_y_get_u32(p->d, x, &b->hash, "hash"))
		return AF_EINVAL;
	return 0;
}

static int bone_refs(struct pc *p, const struct af_ynode *m, uint32_t i)
{
	struct rig_bone *b = &p->f->bones[i];
	const struct af_ynode *x = af_ymap_get(m, "opposite");
	b->opposite = (int32_t)i;
	if (ref(p, af_ymap_get(m, "parent"), &b->parent, "parent") ||
	    (x && ref(p, x, &b->opposite, "opposite")))
		return AF_EINVAL;
	return 0;
}

static int parse_bones(struct pc *p, const struct af_ynode *n)
{
	struct rig_file *f = p->f;
	if (!n)
		return 0;
	if (af_y_want(p->d, n, AF_YSEQ, "bones"))
		return AF_EINVAL;
	if (n->n > INT32_MAX)
		return af_y_error(p->d, n, "bones: too many");
	f->nbones = (uint32_t)n->n;
	if (f->nbones && (!(f->bones = af_arena_array(p->a, f->nbones, sizeof(*f->bones))) ||
			  !(p->bone_nodes = af_arena_array(p->a, f->nbones, sizeof(*p->bone_nodes)))))
		return af_diag_error(p->d, AF_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < f->nbones; i++) {
		p->bone_nodes[i] = &n->items[i];
		if (bone_values(p, &n->items[i], &f->bones[i]))
			return AF_EINVAL;
	}
	/* references by name: a sorted lookup (a scan of every bone a reference was
	 * quadratic in the bones) */
	if (f->nbones && !(p->byname = af_arena_array(p->a, f->nbones, sizeof(*p->byname))))
		return af_diag_error(p->d, AF_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < f->nbones; i++)
		p->byname[i] = &f->bones[i];
	qsort(p->byname, f->nbones, sizeof(*p->byname), rig_by_name);
	for (uint32_t i = 0; i < f->nbones; i++)
		if (bone_refs(p, &n->items[i], i))
			return AF_EINVAL;
	return 0;
}

/* ---- IK chains ---- */

static int parse_chain(struct pc *p, const struct af_ynode *m, struct rig_chain *c)
{
	const struct af_ynode *x;
	if (known_keys(p, m, rig_sch_chain, "ik chain") ||
	    !(x = af_y_need(p->d, m, "bones", "ik chain")) || af_y_want(p->d, x, AF_YSEQ, "bones"))
		return AF_EINVAL;
	c->n = (uint32_t)x->n;
	if (x->n > INT32_MAX || (c->n && !(c->bones = af_arena_array(p->a, c->n, sizeof(*c->bones)))))
		return af_diag_error(p->d, AF_ENOMEM, "out of memory");
	if (refs(p, x, c->bones, c->n, "bones") || !(x = af_y_need(p->d, m, "info_nodes", "ik chain")) ||
	    af_y_want(p->d, x, AF_YSEQ, "info_nodes"))
		return AF_EINVAL;
	if (x->n != RIG_INFO_NODES)
		return af_y_error(p->d, x, "info_nodes: expected %d, got %zu", RIG_INFO_NODES, (size_t)x->n);
	if (refs(p, x, c->info, RIG_INFO_NODES, "info_nodes") ||
	    !(x = af_y_need(p->d, m, "pole", "ik chain")) || ref(p, x, &c->pole, "pole") ||
	    !(x = af_y_need(p->d, m, "slot_info", "ik chain")) || ref(p, x, &c->slot_info, "slot_info") ||
	    !(x = af_y_need(p->d, m, "slot_offset", "ik chain")) ||
	    get_i32(p, x, &c->slot_offset, "slot_offset") ||
	    !(x = af_y_need(p->d, m, "root", "ik chain")) || ref(p, x, &c->root, "root"))
		return AF_EINVAL;
	return 0;
}

static int parse_chains(struct pc *p, const struct af_ynode *n)
{
	struct rig_file *f = p->f;
	if (!n)
		return 0;
	if (af_y_want(p->d, n, AF_YSEQ, "ik_chains"))
		return AF_EINVAL;
	if (n->n && f->major < 4)
		return af_y_error(p->d, n, "ik_chains: a version %u rig has no IK list", f->major);
	f->nchains = (uint32_t)n->n;
	if (n->n > INT32_MAX ||
	    (f->nchains && !(f->chains = af_arena_array(p->a, f->nchains, sizeof(*f->chains)))))
		return af_diag_error(p->d, AF_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < f->nchains; i++)
		if (parse_chain(p, &n->items[i], &f->chains[i]))
			return AF_EINVAL;
	return 0;
}

/* ---- the document ---- */

static int parse_head(struct pc *p, const struct af_ynode *root)
{
	const struct af_ynode *x;
	uint64_t v[2];
	struct rig_file *f = p->f;
	if (known_keys(p, root, rig_sch_document, "document"))
		return AF_EINVAL;
	if (!(x = af_y_need(p->d, root, "format", "document")) || x->type != AF_YSCALAR ||
	    strcmp(x->str, "sims3-rig"))
		return x ? af_y_error(p->d, x, "format: expected sims3-rig") : AF_EINVAL;
	if ((x = af_ymap_get(root, "kind")))
		return af_y_error(p->d, x, "kind %s: a rig carried as bytes is read-only; it cannot be written from YAML",
				  x->type == AF_YSCALAR ? x->str : "?");
	if (!(x = af_y_need(p->d, root, "version", "document")) || af_y_want(p->d, x, AF_YSEQ, "version"))
		return AF_EINVAL;
	if (x->n != 2 || af_y_get_u64(p->d, &x->items[0], 4, v, "version") ||
	    af_y_get_u64(p->d, &x->items[1], 2, v + 1, "version"))
		return x->n != 2 ? af_y_error(p->d, x, "version: expected [major, minor]") : AF_EINVAL;
	if (v[0] < 3 || v[1] < 1)
		return af_y_error(p->d, x, "version: %u.%u; a clear rig is 3.x or 4.x with x 1 or 2",
				  (unsigned)v[0], (unsigned)v[1]);
	f->major = (uint32_t)v[0];
	f->minor = (uint32_t)v[1];
	if (!(x = af_y_need(p->d, root, "skeleton_name", "document")) ||
	    get_name(p, x, &f->skel, &f->skel_len, "skeleton_name"))
		return AF_EINVAL;
	return 0;
}

/* The checks of the whole model (warnings to d), an error placed at the bone it
 * concerns. */
static int check(struct pc *p, const struct af_ynode *root)
{
	long bad;
	int rc = rig_check(p->f, &bad, p->d);
	const struct af_ynode *at = bad >= 0 ? p->bone_nodes[bad] : root;
	if (rc && !p->d->line && at) {
		p->d->line = at->line;
		p->d->col = at->col;
	}
	return rc;
}

int rig_parse(const struct af_ynode *root, struct af_arena *a, struct rig_file *f,
	      struct af_diag *d)
{
	struct pc p = { d, a, f, NULL, NULL };
	int rc;
	memset(f, 0, sizeof(*f));
	f->kind = RIG_CLEAR;
	if ((rc = parse_head(&p, root)) || (rc = parse_bones(&p, af_ymap_get(root, "bones"))) ||
	    (rc = parse_chains(&p, af_ymap_get(root, "ik_chains"))) || (rc = check(&p, root)))
		goto out;
	/* names point into the tree: copy them into the model's arena */
	for (uint32_t i = 0; i < f->nbones; i++)
		if (!(f->bones[i].name = af_arena_strndup(a, f->bones[i].name, f->bones[i].name_len)))
			rc = af_diag_error(d, AF_ENOMEM, "out of memory");
	if (!rc && !(f->skel = af_arena_strndup(a, f->skel, f->skel_len)))
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
out:
	return rc;
}
