/* The Sims 3 _RIG: bytes <-> model (spec sims3-rig.md 2, 3, 4) and the checks of spec 6.
 * A clear rig has no offsets and no padding, so decode -> encode is the identity for
 * every file that parses to its exact end; anything else is carried as bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/bytes.h"
#include "animfs/fnv.h"
#include "animfs/scene.h"
#include "rig.h"

enum rig_kind rig_kind_of(const uint8_t *p, size_t n)
{
	static const uint8_t wrapped[8] = { 0xDE, 0x13, 0xAF, 0x8E, 0, 0, 0, 0 };
	if (n < 8)
		return RIG_GRANNY_RAW;
	uint32_t major = af_le32(p), minor = af_le32(p + 4);
	if ((major == 3 || major == 4) && (minor == 1 || minor == 2))
		return RIG_CLEAR;
	return memcmp(p, wrapped, 8) ? RIG_GRANNY_RAW : RIG_GRANNY_WRAPPED;
}

/* ---- decode ---- */

static int rd_i32(struct af_rd *r, int32_t *v)
{
	uint32_t u;
	int rc = af_rd_u32(r, &u);
	*v = (int32_t)u;
	return rc;
}

/* A length-prefixed string without terminator (spec 3: name, skeleton_name). */
static int rd_str(struct af_rd *r, const char **s, uint32_t *len, const char *what)
{
	int32_t n;
	const uint8_t *p;
	if (rd_i32(r, &n))
		return AF_EINVAL;
	if (n < 0)
		return af_diag_at_offset(r->d, AF_EINVAL, r->pos - 4, "%s: negative length %d", what, n);
	if (af_rd_bytes(r, (size_t)n, &p))
		return AF_EINVAL;
	*s = (const char *)p;
	*len = (uint32_t)n;
	return 0;
}

static int rd_bits(struct af_rd *r, uint32_t *v, int k)
{
	for (int i = 0; i < k; i++)
		if (af_rd_u32(r, &v[i]))
			return AF_EINVAL;
	return 0;
}

static int rd_bone(struct af_rd *r, struct rig_bone *b)
{
	b->at = r->pos;
	if (rd_bits(r, b->pos, 3) || rd_bits(r, b->rot, 4) || rd_bits(r, b->scale, 3) ||
	    rd_str(r, &b->name, &b->name_len, "bone name") || rd_i32(r, &b->opposite) ||
	    rd_i32(r, &b->parent) || af_rd_u32(r, &b->hash) || af_rd_u32(r, &b->flags))
		return AF_EINVAL;
	return 0;
}

/* A count whose records of at least min bytes each must fit in what is left. */
static int rd_count(struct af_rd *r, size_t min, uint32_t *out, const char *what)
{
	int32_t c;
	if (rd_i32(r, &c))
		return AF_EINVAL;
	if (c < 0 || (uint64_t)c * min > r->n - r->pos)
		return af_diag_at_offset(r->d, AF_EINVAL, r->pos - 4,
					 "%s %d does not fit the %zu bytes left", what, c,
					 r->n - r->pos);
	*out = (uint32_t)c;
	return 0;
}

static int rd_chain(struct af_rd *r, struct af_arena *a, struct rig_chain *c)
{
	if (rd_count(r, 4, &c->n, "IK chain length"))
		return AF_EINVAL;
	if (c->n && !(c->bones = af_arena_array(a, c->n, sizeof(*c->bones))))
		return AF_ENOMEM;
	for (uint32_t i = 0; i < c->n; i++)
		if (rd_i32(r, &c->bones[i]))
			return AF_EINVAL;
	for (int i = 0; i < RIG_INFO_NODES; i++)
		if (rd_i32(r, &c->info[i]))
			return AF_EINVAL;
	if (rd_i32(r, &c->pole) || rd_i32(r, &c->slot_info) || rd_i32(r, &c->slot_offset) ||
	    rd_i32(r, &c->root))
		return AF_EINVAL;
	return 0;
}

static int rd_clear(struct af_rd *r, struct af_arena *a, struct rig_file *f)
{
	int rc;
	if (af_rd_u32(r, &f->major) || af_rd_u32(r, &f->minor) ||
	    rd_count(r, RIG_BONE_MIN, &f->nbones, "bone count"))
		return AF_EINVAL;
	if (f->nbones && !(f->bones = af_arena_array(a, f->nbones, sizeof(*f->bones))))
		return AF_ENOMEM;
	for (uint32_t i = 0; i < f->nbones; i++)
		if ((rc = rd_bone(r, &f->bones[i])))
			return rc;
	f->at = r->pos;
	if (rd_str(r, &f->skel, &f->skel_len, "skeleton name"))
		return AF_EINVAL;
	if (f->major >= 4) {
		if (rd_count(r, RIG_CHAIN_MIN, &f->nchains, "IK chain count"))
			return AF_EINVAL;
		if (f->nchains && !(f->chains = af_arena_array(a, f->nchains, sizeof(*f->chains))))
			return AF_ENOMEM;
		for (uint32_t i = 0; i < f->nchains; i++)
			if ((rc = rd_chain(r, a, &f->chains[i])))
				return rc;
	}
	if (r->pos != r->n)
		return af_diag_at_offset(r->d, AF_EINVAL, r->pos, "%zu bytes after the %s",
					 r->n - r->pos, f->major >= 4 ? "IK list" : "skeleton name");
	return 0;
}

static int carry(struct af_arena *a, struct rig_file *f, enum rig_kind kind, size_t n,
		 uint64_t at, const char *why)
{
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->size = n;
	f->at = at;
	f->why = af_arena_strndup(a, why, strlen(why));
	return f->why ? 0 : AF_ENOMEM;
}

int rig_decode(const uint8_t *p, size_t n, struct af_arena *a, struct rig_file *f,
	       struct af_diag *d)
{
	struct af_diag local;
	struct af_rd r;
	char why[900];
	int rc;
	memset(f, 0, sizeof(*f));
	f->kind = rig_kind_of(p, n);
	if (f->kind != RIG_CLEAR) {
		/* rig_kind_of gives RIG_CLEAR or one of the two Granny kinds */
		rc = carry(a, f, f->kind, n, 0, f->kind == RIG_GRANNY_WRAPPED
			   ? "a Granny2 rig (wrapped): carried as bytes"
			   : "not a clear rig (no version 3.x/4.x): a raw Granny2 rig, carried as bytes");
		return rc ? af_diag_error(d, AF_ENOMEM, "out of memory") : 0;
	}
	af_diag_init(&local);
	af_rd_init(&r, p, n, &local);
	rc = rd_clear(&r, a, f);
	if (rc == AF_EINVAL) {
		snprintf(why, sizeof(why), "%s; the layout of a clear rig does not fit, so it is carried as bytes",
			 local.msg);
		rc = carry(a, f, RIG_OPAQUE, n, local.offset > 0 ? (uint64_t)local.offset : 0, why);
	}
	af_diag_free(&local);
	return rc ? af_diag_error(d, AF_ENOMEM, "out of memory") : 0;
}

/* ---- encode ---- */

static void put_str(struct af_buf *b, const char *s, uint32_t n)
{
	af_buf_put_u32le(b, n);
	af_buf_append(b, s, n);
}

static void put_bone(struct af_buf *b, const struct rig_bone *x)
{
	for (int i = 0; i < 3; i++)
		af_buf_put_u32le(b, x->pos[i]);
	for (int i = 0; i < 4; i++)
		af_buf_put_u32le(b, x->rot[i]);
	for (int i = 0; i < 3; i++)
		af_buf_put_u32le(b, x->scale[i]);
	put_str(b, x->name, x->name_len);
	af_buf_put_u32le(b, (uint32_t)x->opposite);
	af_buf_put_u32le(b, (uint32_t)x->parent);
	af_buf_put_u32le(b, x->hash);
	af_buf_put_u32le(b, x->flags);
}

static void put_chain(struct af_buf *b, const struct rig_chain *c)
{
	af_buf_put_u32le(b, c->n);
	for (uint32_t i = 0; i < c->n; i++)
		af_buf_put_u32le(b, (uint32_t)c->bones[i]);
	for (int i = 0; i < RIG_INFO_NODES; i++)
		af_buf_put_u32le(b, (uint32_t)c->info[i]);
	af_buf_put_u32le(b, (uint32_t)c->pole);
	af_buf_put_u32le(b, (uint32_t)c->slot_info);
	af_buf_put_u32le(b, (uint32_t)c->slot_offset);
	af_buf_put_u32le(b, (uint32_t)c->root);
}

int rig_encode(const struct rig_file *f, struct af_buf *out, struct af_diag *d)
{
	if (f->kind != RIG_CLEAR)
		return af_diag_error(d, AF_EUNSUP, "a %s rig is read-only (carried as bytes)",
				     rig_kind_names[f->kind]);
	af_buf_put_u32le(out, f->major);
	af_buf_put_u32le(out, f->minor);
	af_buf_put_u32le(out, f->nbones);
	for (uint32_t i = 0; i < f->nbones; i++)
		put_bone(out, &f->bones[i]);
	put_str(out, f->skel, f->skel_len);
	if (f->major >= 4) {
		af_buf_put_u32le(out, f->nchains);
		for (uint32_t i = 0; i < f->nchains; i++)
			put_chain(out, &f->chains[i]);
	}
	return out->failed ? af_diag_error(d, AF_ENOMEM, "out of memory") : 0;
}

/* ---- checks (spec 6) ---- */

int rig_by_name(const void *a, const void *b)
{
	const struct rig_bone *x = *(const struct rig_bone *const *)a, *y = *(const struct rig_bone *const *)b;
	if (x->name_len != y->name_len)
		return x->name_len < y->name_len ? -1 : 1;
	return memcmp(x->name, y->name, x->name_len);
}

/* Sorted, not each bone against every other: a rig of 40000 bones took seconds. */
int rig_names_unique(const struct rig_file *f)
{
	const struct rig_bone **v = malloc((f->nbones ? f->nbones : 1) * sizeof(*v));
	int unique = 1;
	if (!v)
		return 0; /* no memory to tell: the names are shown as the file has them */
	for (uint32_t i = 0; i < f->nbones; i++)
		v[i] = &f->bones[i];
	qsort(v, f->nbones, sizeof(*v), rig_by_name);
	for (uint32_t i = 1; i < f->nbones && unique; i++)
		unique = rig_by_name(&v[i - 1], &v[i]) != 0;
	free(v);
	return unique;
}

static int name_ok(const char *s, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7E)
			return 0;
	return n > 0;
}

static long bone_parent(const void *ctx, size_t i)
{
	return ((const struct rig_file *)ctx)->bones[i].parent;
}

/* Bones by hash, then position. */
struct hashpos {
	uint32_t hash, i;
};

static int by_hash(const void *a, const void *b)
{
	const struct hashpos *x = a, *y = b;
	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* first[i]: the first bone with bone i's hash (i itself when none before it has it). */
static void first_of_hash(const struct rig_file *f, struct hashpos *v, uint32_t *first)
{
	for (uint32_t i = 0; i < f->nbones; i++)
		v[i] = (struct hashpos){ f->bones[i].hash, i };
	qsort(v, f->nbones, sizeof(*v), by_hash);
	for (uint32_t i = 0; i < f->nbones; i++)
		first[v[i].i] = i && v[i - 1].hash == v[i].hash ? first[v[i - 1].i] : v[i].i;
}

static void warn_bone(const struct rig_file *f, uint32_t i, struct af_diag *d)
{
	const struct rig_bone *b = &f->bones[i];
	const int n = (int)b->name_len;
	if (b->parent >= 0 && (uint32_t)b->parent >= i && (uint32_t)b->parent < f->nbones)
		af_diag_warn(d, 0, 0, "bones[%u] (%.*s): its parent comes after it", i, n, b->name);
	if (b->parent < 0 && i > 0)
		af_diag_warn(d, 0, 0, "bones[%u] (%.*s): a second root", i, n, b->name);
	if (b->opposite < 0 || (uint32_t)b->opposite >= f->nbones)
		af_diag_warn(d, 0, 0, "bones[%u] (%.*s): opposite %d is not a bone (kept)", i, n,
			     b->name, b->opposite);
	if (b->hash != af_fnv1_32_lower(b->name, b->name_len))
		af_diag_warn(d, 0, 0, "bones[%u] (%.*s): stored hash 0x%08X is not FNV-1 32 of the name",
			     i, n, b->name, b->hash);
	if (b->flags != RIG_FLAGS_USUAL && b->flags != 0x3F)
		af_diag_warn(d, 0, 0, "bones[%u] (%.*s): flags 0x%X (known: 0x23, 0x3F)", i, n,
			     b->name, b->flags);
}

int rig_check(const struct rig_file *f, long *bad, struct af_diag *d)
{
	*bad = -1;
	if (f->kind != RIG_CLEAR)
		return 0;
	if (!name_ok(f->skel, f->skel_len) && f->skel_len)
		return af_diag_error(d, AF_EINVAL, "skeleton_name: not printable ASCII");
	if (f->major < 4 && f->nchains)
		return af_diag_error(d, AF_EINVAL, "a version %u rig has no IK list, but %u chains are given",
				     f->major, f->nchains);
	size_t nb = f->nbones ? f->nbones : 1;
	struct hashpos *v = malloc(nb * sizeof(*v));
	uint32_t *first = malloc(nb * sizeof(*first));
	uint8_t *cyc = malloc(nb);
	int rc = 0;
	if (!v || !first || !cyc) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory checking %u bones", f->nbones);
		goto out;
	}
	first_of_hash(f, v, first);
	af_parent_loops(f->nbones, bone_parent, f, cyc);
	for (uint32_t i = 0; i < f->nbones; i++) {
		const struct rig_bone *b = &f->bones[i];
		uint32_t j = first[i];
		*bad = i;
		if (!name_ok(b->name, b->name_len)) {
			rc = af_diag_error(d, AF_EINVAL, "bones[%u]: the name is empty or not printable ASCII", i);
			goto out;
		}
		if (j != i) {
			rc = af_diag_error(d, AF_EINVAL, "bones[%u] (%.*s) and bones[%u] (%.*s) have the same hash 0x%08X",
					   j, (int)f->bones[j].name_len, f->bones[j].name, i,
					   (int)b->name_len, b->name, b->hash);
			goto out;
		}
		if (cyc[i]) {
			rc = af_diag_error(d, AF_EINVAL, "bones[%u] (%.*s): its parents form a cycle", i,
					   (int)b->name_len, b->name);
			goto out;
		}
		warn_bone(f, i, d);
	}
	*bad = -1;
out:
	free(v);
	free(first);
	free(cyc);
	return rc;
}
