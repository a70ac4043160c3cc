/* Sims 3 packages in a mod folder (issue 32, `--overlay`): the game loads every package
 * of Mods/Packages together with its own, and a resource of the same type, group and
 * instance overrides the game's. So a mod's package of a game package holds only the
 * resources that changed, and the view shows the game's package with them on top.
 * merge: the game's package with the override's resources replacing (or joining) its
 * own, the override's _KEY names added to the game's maps; reduce: of a changed
 * package, only the resources whose bodies differ from the game's, with the _KEY
 * entries that name them. Both are one af_dbpf_rewrite (dbpf.c). */
#include <stdlib.h>
#include <string.h>

#include "animfs/bytes.h"
#include "animfs/num.h"
#include "dbpf.h"
#include "sims3_package.h"

/* A package's live records by key, sorted, for lookups in the other one. */
struct tgi {
	uint32_t type, group;
	uint64_t inst;
	uint32_t i;
};

static int tgi_cmp(const void *x, const void *y)
{
	const struct tgi *a = x, *b = y;
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	if (a->inst != b->inst)
		return a->inst < b->inst ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

static struct tgi *tgi_index(const struct af_dbpf *p, size_t *n)
{
	struct tgi *t = af_alloc_zeroed(p->count ? p->count : 1, sizeof(*t));
	*n = 0;
	if (!t)
		return NULL;
	for (uint32_t i = 0; i < p->count; i++)
		if (!af_dbpf_deleted(&p->e[i]))
			t[(*n)++] = (struct tgi){ p->e[i].type, p->e[i].group, af_dbpf_instance(&p->e[i]), i };
	qsort(t, *n, sizeof(*t), tgi_cmp);
	return t;
}

/* The first live record of e's key in the index, or -1. */
static long tgi_find(const struct tgi *t, size_t n, const struct af_dbpf_entry *e)
{
	struct tgi k = { e->type, e->group, af_dbpf_instance(e), 0 };
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (tgi_cmp(&t[mid], &k) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n && t[lo].type == k.type && t[lo].group == k.group && t[lo].inst == k.inst)
		return (long)t[lo].i;
	return -1;
}

/* The game's package (its records by key) and the other one, both parsed. */
struct pair {
	struct af_dbpf game, other;
	int opened; /* how many of the two */
	struct tgi *ix;
	size_t nix;
};

static int pair_open(struct pair *pr, const uint8_t *game, size_t ng, const uint8_t *other,
		     size_t no, struct af_diag *d)
{
	int rc;
	memset(pr, 0, sizeof(*pr));
	if ((rc = af_dbpf_open(&pr->game, game, ng, d)))
		return rc;
	pr->opened = 1;
	if ((rc = af_dbpf_open(&pr->other, other, no, d)))
		return rc;
	pr->opened = 2;
	if (!(pr->ix = tgi_index(&pr->game, &pr->nix)))
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	return 0;
}

static void pair_close(struct pair *pr)
{
	if (pr->opened > 0)
		af_dbpf_close(&pr->game);
	if (pr->opened > 1)
		af_dbpf_close(&pr->other);
	free(pr->ix);
}

/* Whether a _KEY body parses whole (sims3_members.c). */
static int keymap_ok(const uint8_t *p, size_t n)
{
	int has;
	return af_pkg_keymap_whole(p, n, 0, &has);
}

static int keymap_has(const uint8_t *p, size_t n, uint64_t inst)
{
	int has = 0;
	return af_pkg_keymap_whole(p, n, inst, &has) && has;
}

/* Append to out the entries of map p that keep(ctx, instance) says yes to; the count. */
static uint32_t keymap_filter(const uint8_t *p, int (*keep)(const void *, uint64_t),
			      const void *ctx, struct af_buf *out)
{
	size_t pos = 8;
	uint32_t kept = 0;
	for (uint32_t i = 0, count = af_le32(p + 4); i < count; i++) {
		size_t len = 12 + af_le32(p + pos + 8);
		if (keep(ctx, af_le64(p + pos))) {
			af_buf_append(out, p + pos, len);
			kept++;
		}
		pos += len;
	}
	return kept;
}

struct bodies {
	struct af_buf *b;
	size_t n;
};

static struct af_buf *body_slot(struct bodies *bs)
{
	return &bs->b[bs->n++];
}

static void bodies_free(struct bodies *bs)
{
	for (size_t k = 0; bs->b && k < bs->n; k++)
		af_buf_free(&bs->b[k]);
	free(bs->b);
}

/* Record i's body into out; a body that does not unpack (a damaged resource, which the
 * view shows as its bytes) is no error: *bad says so and out is left empty. 0 or
 * AF_ENOMEM. */
static int unpacked(const struct af_dbpf *p, size_t i, struct af_buf *out, int *bad,
		    struct af_diag *d)
{
	struct af_diag sub;
	af_diag_init(&sub);
	int rc = af_dbpf_body(p, i, out, &sub);
	af_diag_free(&sub);
	if (rc == AF_ENOMEM)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	if (rc) {
		af_buf_reset(out);
		*bad = 1;
	}
	return 0;
}

/* ---- merge: the game's package with the override on top ---- */

static int not_in(const void *ctx, uint64_t inst)
{
	const struct af_buf *map = ctx;
	return !keymap_has(map->data, map->len, inst);
}

int af_pkg_overlay_merge(const uint8_t *base, size_t nb, const uint8_t *over, size_t no,
			 struct af_buf *image, struct af_diag *d)
{
	struct pair pr;
	size_t ne = 0, na = 0;
	struct af_dbpf_edit *eds = NULL;
	struct af_dbpf_new *adds = NULL;
	struct af_dbpf_as_stored *eds_as = NULL, *adds_as = NULL;
	struct bodies bs = { NULL, 0 };
	struct af_buf cur = AF_BUF_INIT;
	int rc = pair_open(&pr, base, nb, over, no, d);
	const struct af_dbpf *b = &pr.game, *o = &pr.other;
	if (rc)
		goto out;
	size_t cap = o->count ? o->count : 1;
	eds = af_alloc_zeroed(cap, sizeof(*eds));
	adds = af_alloc_zeroed(cap, sizeof(*adds));
	eds_as = af_alloc_zeroed(cap, sizeof(*eds_as));
	adds_as = af_alloc_zeroed(cap, sizeof(*adds_as));
	bs.b = af_alloc_zeroed(cap * 2, sizeof(*bs.b));
	unsigned char *edited = af_alloc_zeroed(b->count ? b->count : 1, 1);
	if (!eds || !adds || !eds_as || !adds_as || !bs.b || !edited) {
		free(edited);
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < o->count && !rc; i++) {
		const struct af_dbpf_entry *e = &o->e[i];
		if (af_dbpf_deleted(e))
			continue;
		struct af_buf *body = body_slot(&bs);
		int stored = 0; /* its body does not unpack: its stored bytes, as they are */
		if ((rc = unpacked(o, i, body, &stored, d)))
			break;
		long j = tgi_find(pr.ix, pr.nix, e);
		if (j >= 0 && edited[j])
			continue; /* the override's first record of a key wins */
		if (j >= 0 && e->type == AF_DBPF_TYPE_KEY) {
			/* the game's names stay; the override's for other instances join them */
			struct af_buf *m = body_slot(&bs);
			int bad = stored;
			af_buf_reset(&cur);
			if ((rc = unpacked(b, (size_t)j, &cur, &bad, d)))
				break;
			if (bad || !keymap_ok(cur.data, cur.len) || !keymap_ok(body->data, body->len))
				continue; /* a map that does not read whole: the game's is kept */
			af_buf_append(m, cur.data, cur.len);
			uint32_t more = keymap_filter(body->data, not_in, &cur, m);
			if (m->failed) {
				rc = af_diag_error(d, AF_ENOMEM, "out of memory");
				break;
			}
			af_buf_patch_u32le(m, 4, af_le32(cur.data + 4) + more);
			body = m;
		}
		const uint8_t *bytes = stored ? af_dbpf_stored(o, i) : body->data;
		size_t n = stored ? af_dbpf_stored_size(e) : body->len;
		struct af_dbpf_as_stored as = { stored, e->mem_size, e->compressed };
		if (j >= 0) {
			edited[j] = 1;
			eds_as[ne] = as;
			eds[ne++] = (struct af_dbpf_edit){ (size_t)j, bytes, n };
		} else {
			adds_as[na] = as;
			adds[na++] = (struct af_dbpf_new){ e->type, e->group, af_dbpf_instance(e), bytes, n };
		}
	}
	free(edited);
	if (!rc) {
		struct af_dbpf_change ch = { eds, ne, NULL, 0, adds, na, eds_as, adds_as };
		rc = af_dbpf_rewrite(b, &ch, image, d);
	}
out:
	pair_close(&pr);
	bodies_free(&bs);
	af_buf_free(&cur);
	free(eds);
	free(adds);
	free(eds_as);
	free(adds_as);
	return rc;
}

/* ---- reduce: only what differs from the game's package ---- */

/* Whether record j of p and record i of q hold the same body. */
static int same_resource(const struct af_dbpf *p, size_t j, const struct af_dbpf *q, size_t i,
			 struct af_buf *x, struct af_buf *y, struct af_diag *d, int *rc)
{
	const struct af_dbpf_entry *a = &p->e[j], *b = &q->e[i];
	if (a->file_size == b->file_size && a->mem_size == b->mem_size &&
	    !memcmp(af_dbpf_stored(p, j), af_dbpf_stored(q, i), af_dbpf_stored_size(a)))
		return 1;
	int bad = 0; /* a body that does not unpack differs (its stored bytes did) */
	af_buf_reset(x);
	af_buf_reset(y);
	if ((*rc = unpacked(p, j, x, &bad, d)) || (*rc = unpacked(q, i, y, &bad, d)) || bad)
		return 0;
	return x->len == y->len && (!x->len || !memcmp(x->data, y->data, x->len));
}

struct kept {
	const uint64_t *inst;
	size_t n;
};

static int u64_cmp(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

static int is_kept(const void *ctx, uint64_t inst)
{
	const struct kept *k = ctx;
	return bsearch(&inst, k->inst, k->n, sizeof(*k->inst), u64_cmp) != NULL;
}

int af_pkg_overlay_reduce(const uint8_t *base, size_t nb, const uint8_t *merged, size_t nm,
			  struct af_buf *image, struct af_diag *d)
{
	struct pair pr;
	size_t nd = 0, ne = 0, nkeep = 0;
	size_t *drops = NULL;
	uint64_t *insts = NULL;
	struct af_dbpf_edit *eds = NULL;
	struct bodies bs = { NULL, 0 };
	struct af_buf x = AF_BUF_INIT, y = AF_BUF_INIT;
	af_buf_reset(image);
	int rc = pair_open(&pr, base, nb, merged, nm, d);
	const struct af_dbpf *b = &pr.game, *m = &pr.other;
	if (rc)
		goto out;
	size_t cap = m->count ? m->count : 1;
	drops = af_alloc_zeroed(cap, sizeof(*drops));
	insts = af_alloc_zeroed(cap, sizeof(*insts));
	eds = af_alloc_zeroed(cap, sizeof(*eds));
	bs.b = af_alloc_zeroed(cap, sizeof(*bs.b));
	if (!drops || !insts || !eds || !bs.b) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
		goto out;
	}
	/* the resources: kept when the game has no such key or another body under it */
	for (uint32_t i = 0; i < m->count && !rc; i++) {
		const struct af_dbpf_entry *e = &m->e[i];
		if (af_dbpf_deleted(e) || e->type == AF_DBPF_TYPE_KEY)
			continue;
		long j = tgi_find(pr.ix, pr.nix, e);
		if (j >= 0 && same_resource(b, (size_t)j, m, i, &x, &y, d, &rc))
			drops[nd++] = i;
		else if (!rc)
			insts[nkeep++] = af_dbpf_instance(e);
	}
	if (rc)
		goto out;
	if (!nkeep)
		goto out; /* nothing differs: no override at all (image empty) */
	qsort(insts, nkeep, sizeof(*insts), u64_cmp);
	struct kept k = { insts, nkeep };
	/* the names: each _KEY map keeps the entries of the kept resources only */
	for (uint32_t i = 0; i < m->count; i++) {
		const struct af_dbpf_entry *e = &m->e[i];
		if (af_dbpf_deleted(e) || e->type != AF_DBPF_TYPE_KEY)
			continue;
		struct af_buf *map = body_slot(&bs);
		int bad = 0;
		af_buf_reset(&x);
		if ((rc = unpacked(m, i, &x, &bad, d)))
			goto out;
		if (bad || !keymap_ok(x.data, x.len)) {
			drops[nd++] = i; /* a map that does not read whole names nothing kept */
			continue;
		}
		af_buf_append(map, x.data, 8);
		uint32_t n = keymap_filter(x.data, is_kept, &k, map);
		if (map->failed) {
			rc = af_diag_error(d, AF_ENOMEM, "out of memory");
			goto out;
		}
		af_buf_patch_u32le(map, 4, n);
		if (!n)
			drops[nd++] = i;
		else
			eds[ne++] = (struct af_dbpf_edit){ i, map->data, map->len };
	}
	struct af_dbpf_change ch = { eds, ne, drops, nd, NULL, 0, NULL, NULL };
	rc = af_dbpf_rewrite(m, &ch, image, d);
out:
	pair_close(&pr);
	bodies_free(&bs);
	af_buf_free(&x);
	af_buf_free(&y);
	free(drops);
	free(insts);
	free(eds);
	return rc;
}
