/* The Sims 3 package (DBPF 2.0) container: the records of the resource types it shows
 * (a table: one row a type) with names that hash back to their instance, an af_io
 * that shows the package's _KEY records to a member's codec as `*.keyname` siblings
 * (its _RIGs as `*.grannyrig`, its CLIPs listed by name),
 * rebuilds through af_dbpf_rebuild, and the index.yaml text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "animfs/bytes.h"
#include "animfs/container.h"
#include "animfs/fnv.h"
#include "animfs/nameidx.h"
#include "animfs/userdict.h"
#include "animfs/yamlio.h"
#include "dbpf.h"
#include "sims3_package.h"

static uint64_t hash_fnv64(const char *s, size_t n)
{
	return af_fnv1_64_lower(s, n);
}

static uint64_t hash_clip(const char *s, size_t n)
{
	return af_fnv1_64_clip(s, n);
}

/* The resource types shown as members: a new Sims 3 codec is one row. A row whose
 * codec this build lacks shows its members raw (the content check says so). */
static const struct af_pkg_type shown[] = {
	{AF_DBPF_TYPE_JAZZ, ".jazz", "sims3-jazz", "a Jazz state machine", hash_fnv64},
	/* CLIP names hash by the CLIP rule (sims3-jazz.md 5.3, sims3-clip.md 1) */
	{AF_DBPF_TYPE_CLIP, ".clip", "sims3-clip", "an animation clip (CLIP)", hash_clip},
	/* a rig's instance is no hash of its name (sims3-rig.md 1): any _KEY text names it */
	{AF_DBPF_TYPE_RIG, ".rig", "sims3-rig", "a skeleton (_RIG)", NULL},
};

static const struct af_pkg_type *shown_type(uint32_t type)
{
	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++)
		if (shown[i].type == type)
			return &shown[i];
	return NULL;
}

const struct af_pkg_type *af_pkg_type_of_name(const char *name, size_t *stem)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
		size_t e = strlen(shown[i].ext);
		if (n > e && !strcmp(name + n - e, shown[i].ext)) {
			*stem = n - e;
			return &shown[i];
		}
	}
	return NULL;
}

/* s3pe export name without the %%+TAG part: S3_TTTTTTTT_GGGGGGGG_IIIIIIIIIIIIIIII.ext */
static void s3pe_name(const struct af_dbpf_entry *e, const char *ext, char *out, size_t size)
{
	snprintf(out, size, "S3_%08X_%08X_%016llX%s", e->type, e->group,
		 (unsigned long long)af_dbpf_instance(e), ext);
}

/* ---- the codec's window on the package: _KEY records as *.keyname siblings ---- */

static int is_key(const struct af_dbpf_entry *e)
{
	return e->type == AF_DBPF_TYPE_KEY && !af_dbpf_deleted(e);
}

/* Entry i's sibling name when it is a live _KEY record (1), else 0. */
static int key_name(const struct af_pkgview *v, uint32_t i, char *out, size_t size)
{
	const struct af_dbpf_entry *e = &v->pkg.e[i];
	if (!is_key(e))
		return 0;
	s3pe_name(e, ".keyname", out, size);
	if (v->dup_key.data[i]) /* the same key twice: tell them apart */
		snprintf(out, size, "S3_%08X_%08X_%016llX~%u.keyname", e->type, e->group,
			 (unsigned long long)af_dbpf_instance(e), i);
	return 1;
}

/* Entry i's sibling name when it is a live record of type (1), else 0: CLIPs are
 * listed, never read, so that a Jazz codec can tell which clips the package holds; _RIGs
 * are read by a clip's codec for its bone names and its cross-check (the rig in the same
 * package, sims3-clip.md 13). */
static int typed_name(const struct af_pkgview *v, uint32_t i, uint32_t type, const char *ext,
		      char *out, size_t size)
{
	const struct af_dbpf_entry *e = &v->pkg.e[i];
	if (e->type != type || af_dbpf_deleted(e))
		return 0;
	s3pe_name(e, ext, out, size);
	return 1;
}
#define CLIP_NAME(v, i, out) typed_name(v, i, AF_DBPF_TYPE_CLIP, "%%+CLIP.animation", out, sizeof(out))
#define RIG_NAME(v, i, out) typed_name(v, i, AF_DBPF_TYPE_RIG, "%%+_RIG.grannyrig", out, sizeof(out))

static int io_list(void *ctx, int (*cb)(void *, const char *), void *cbctx)
{
	const struct af_pkgview *v = ctx;
	char name[AF_PKG_NAME_MAX];
	for (uint32_t i = 0; i < v->pkg.count; i++)
		if ((key_name(v, i, name, sizeof(name)) || CLIP_NAME(v, i, name) || RIG_NAME(v, i, name)) &&
		    cb(cbctx, name))
			break;
	return 0;
}

static int io_read(void *ctx, const char *want, struct af_buf *out)
{
	const struct af_pkgview *v = ctx;
	char name[AF_PKG_NAME_MAX];
	for (uint32_t i = 0; i < v->pkg.count; i++) {
		if (RIG_NAME(v, i, name) && !strcmp(name, want))
			return af_dbpf_body(&v->pkg, i, out, NULL);
		if (!key_name(v, i, name, sizeof(name)) || strcmp(name, want))
			continue;
		if (!v->keys[i].data) /* it did not unpack (index.yaml says why) */
			return AF_EINVAL;
		return af_buf_append(out, v->keys[i].data, v->keys[i].len) ? AF_ENOMEM : 0;
	}
	return AF_EIO;
}

static void make_io(const struct af_pkgview *v, const struct af_pkg_item *it, struct af_io *io)
{
	memset(io, 0, sizeof(*io));
	io->name = it->name;
	io->read_sibling = io_read;
	io->list_siblings = io_list;
	io->read_names = af_userdict_io_read;
	io->ctx = (void *)v;
}

/* ---- names ---- */

int af_pkg_name_safe(const char *s, size_t n)
{
	if (!n || n > AF_PKG_NAME_MAX - 8 || s[0] == '.' || (n >= 2 && s[0] == '0' && (s[1] | 32) == 'x'))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7E || s[i] == '/' || s[i] == '\\')
			return 0;
	return 1;
}

uint64_t af_pkg_instance_of(const struct af_pkg_type *t, const char *s, size_t n)
{
	return t->hash ? t->hash(s, n) : af_fnv1_64_lower(s, n);
}

/* A name is shown only when it is a safe file name (printable ASCII, no slash, not
 * hidden, not a hex literal) and hashes back to the instance by its type's rule (spec
 * 5.6); a type with no rule takes the name the map gives. */
static int name_ok(const char *s, size_t n, uint64_t inst, const struct af_pkg_type *t)
{
	return af_pkg_name_safe(s, n) && (!t->hash || t->hash(s, n) == inst);
}

/* Smooth Jazz maps the instance to "mods\<name>.tigerjazz": try the text, then its stem. */
static int name_from_text(const char *t, size_t n, uint64_t inst, const struct af_pkg_type *ty,
			  char *out)
{
	size_t a = n, b = n;
	if (name_ok(t, n, inst, ty)) {
		snprintf(out, AF_PKG_NAME_MAX, "%.*s%s", (int)n, t, ty->ext);
		return 1;
	}
	while (a > 0 && t[a - 1] != '\\' && t[a - 1] != '/')
		a--;
	for (size_t k = n; k > a; k--)
		if (t[k - 1] == '.') {
			b = k - 1;
			break;
		}
	if (name_ok(t + a, b - a, inst, ty)) {
		snprintf(out, AF_PKG_NAME_MAX, "%.*s%s", (int)(b - a), t + a, ty->ext);
		return 1;
	}
	return 0;
}

/* One entry of a _KEY map (version 1): its instance, its text, and its place (map,
 * then entry) in the order the maps are searched. */
struct af_pkg_keyref {
	uint64_t inst;
	uint32_t map, at;
	const char *text;
	uint32_t len;
};

static int keyref_cmp(const void *x, const void *y)
{
	const struct af_pkg_keyref *a = x, *b = y;
	if (a->inst != b->inst)
		return a->inst < b->inst ? -1 : 1;
	if (a->map != b->map)
		return a->map < b->map ? -1 : 1;
	return (a->at > b->at) - (a->at < b->at);
}

/* Every entry of every unpacked _KEY map (bounded by the body's size; a map stops at
 * its first entry that runs past it), sorted by instance then place: a name is then a
 * binary search, not a walk of every map for every member. */
static int index_keymaps(struct af_pkgview *v)
{
	for (uint32_t k = 0; k < v->pkg.count; k++) {
		const uint8_t *p = v->keys[k].data;
		size_t len = v->keys[k].len, pos = 8;
		if (!p || len < 8 || af_le32(p) != 1)
			continue;
		for (uint32_t i = 0, count = af_le32(p + 4); i < count && len - pos >= 12; i++) {
			uint32_t l = af_le32(p + pos + 8);
			struct af_pkg_keyref r = {af_le64(p + pos), k, i, (const char *)p + pos + 12, l};
			if (l > len - pos - 12)
				break;
			if (af_buf_append(&v->keyrefs, &r, sizeof(r)))
				return AF_ENOMEM;
			pos += 12 + l;
		}
	}
	if (v->keyrefs.len)
		qsort(v->keyrefs.data, v->keyrefs.len / sizeof(struct af_pkg_keyref),
		      sizeof(struct af_pkg_keyref), keyref_cmp);
	return 0;
}

/* The first text of a _KEY map, in search order, for this instance that gives a name. */
static void display_name(const struct af_pkgview *v, uint32_t i, const struct af_pkg_type *ty,
			 char *out)
{
	const struct af_pkg_keyref *r = (const struct af_pkg_keyref *)v->keyrefs.data;
	size_t n = v->keyrefs.len / sizeof(*r), lo = 0, hi = n;
	uint64_t inst = af_dbpf_instance(&v->pkg.e[i]);
	out[0] = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r[mid].inst < inst)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && r[lo].inst == inst; lo++)
		if (name_from_text(r[lo].text, r[lo].len, inst, ty, out))
			return;
}

static const char *item_name_at(const void *ctx, size_t i)
{
	return ((const struct af_pkg_item *)ctx)[i].name;
}

static const char *item_s3pe_at(const void *ctx, size_t i)
{
	return ((const struct af_pkg_item *)ctx)[i].s3pe;
}

static int name_taken(const struct af_pkgview *v, const char *name)
{
	return af_nameidx_find(&v->by_name, name) >= 0 || af_nameidx_find(&v->by_s3pe, name) >= 0;
}

/* Per live _KEY record: whether an earlier live one has its group and instance (sort
 * the live _KEYs by key, then place: all but the first of a run). */
struct keypos {
	uint64_t inst;
	uint32_t group, i;
};

static int keypos_cmp(const void *x, const void *y)
{
	const struct keypos *a = x, *b = y;
	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	if (a->inst != b->inst)
		return a->inst < b->inst ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

static int mark_dup_keys(struct af_pkgview *v)
{
	struct af_buf order = AF_BUF_INIT;
	struct keypos *o;
	size_t n;
	if (af_buf_fill(&v->dup_key, 0, v->pkg.count ? v->pkg.count : 1))
		return AF_ENOMEM;
	for (uint32_t i = 0; i < v->pkg.count; i++) {
		struct keypos k = {af_dbpf_instance(&v->pkg.e[i]), v->pkg.e[i].group, i};
		if (is_key(&v->pkg.e[i]) && af_buf_append(&order, &k, sizeof(k)))
			return AF_ENOMEM;
	}
	o = (struct keypos *)order.data;
	n = order.len / sizeof(*o);
	if (n)
		qsort(o, n, sizeof(*o), keypos_cmp);
	for (size_t k = 1; k < n; k++)
		if (o[k].group == o[k - 1].group && o[k].inst == o[k - 1].inst)
			v->dup_key.data[o[k].i] = 1;
	af_buf_free(&order);
	return 0;
}

/* ---- open ---- */

static int set_note(struct af_pkgview *v, uint32_t i, const char *msg)
{
	return (v->notes[i] = af_strcopy(msg)) ? 0 : AF_ENOMEM;
}

/* Every _KEY map is unpacked once: names for the folder and for every document. */
static int unpack_key(struct af_pkgview *v, uint32_t i, struct af_diag *d)
{
	struct af_diag kd;
	int rc = 0;
	af_diag_init(&kd);
	if (af_dbpf_body(&v->pkg, i, &v->keys[i], &kd)) {
		char msg[1024];
		af_buf_free(&v->keys[i]);
		af_diag_format(&kd, "cannot be unpacked, so its names are not used", msg, sizeof(msg));
		if (kd.code == AF_ENOMEM || set_note(v, i, msg))
			rc = af_diag_error(d, AF_ENOMEM, "out of memory");
	}
	af_diag_free(&kd);
	return rc;
}

/* A record of a shown type is a member when its body unpacks and passes its codec's
 * content check. */
static int add_item(struct af_pkgview *v, uint32_t i, const struct af_pkg_type *sh,
		    const struct af_container_env *env, struct af_diag *d)
{
	struct af_pkg_item *it = &v->items[v->nitems];
	uint8_t head[64];
	size_t got = 0;
	struct af_diag bd;
	int rc = 0;
	af_diag_init(&bd);
	s3pe_name(&v->pkg.e[i], sh->ext, it->s3pe, sizeof(it->s3pe));
	it->codec = sh->codec;
	/* its first bytes only (what the content check reads): a listing reads no body whole */
	if (af_dbpf_head(&v->pkg, i, head, sizeof(head), &got, &bd)) {
		char msg[1024];
		af_diag_format(&bd, "cannot be unpacked", msg, sizeof(msg));
		rc = set_note(v, i, msg);
		goto out;
	}
	/* a codec this build lacks (< 0): a member all the same, shown raw by the caller */
	if (env && env->claims &&
	    !env->claims(env->ctx, sh->codec, it->s3pe, head, got, UINT64_MAX)) {
		char msg[160];
		snprintf(msg, sizeof(msg), "not %s (fails the content check)", sh->what);
		rc = set_note(v, i, msg);
		goto out;
	}
	display_name(v, i, sh, it->name);
	if (!it->name[0] || name_taken(v, it->name))
		snprintf(it->name, sizeof(it->name), "%s", it->s3pe);
	if (name_taken(v, it->name)) { /* the same key twice */
		snprintf(it->s3pe, sizeof(it->s3pe), "S3_%08X_%08X_%016llX~%u%s", v->pkg.e[i].type,
			 v->pkg.e[i].group, (unsigned long long)af_dbpf_instance(&v->pkg.e[i]), i,
			 sh->ext);
		snprintf(it->name, sizeof(it->name), "%s", it->s3pe);
	}
	it->entry = i;
	af_nameidx_add(&v->by_name, v->nitems);
	af_nameidx_add(&v->by_s3pe, v->nitems);
	((uint32_t *)v->item_at.data)[i] = (uint32_t)++v->nitems;
out:
	if (rc)
		af_diag_error(d, AF_ENOMEM, "out of memory");
	af_diag_free(&bd);
	return rc;
}

/* v->pkg open: the _KEY maps, the names, the members. */
static int open_rest(struct af_pkgview *v, const struct af_container_env *env, struct af_diag *d)
{
	int rc = 0;
	v->items = af_alloc_zeroed(v->pkg.count ? v->pkg.count : 1, sizeof(*v->items));
	v->notes = af_alloc_zeroed(v->pkg.count ? v->pkg.count : 1, sizeof(*v->notes));
	v->keys = af_alloc_zeroed(v->pkg.count ? v->pkg.count : 1, sizeof(*v->keys));
	if (!v->items || !v->notes || !v->keys) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < v->pkg.count; i++)
		if (is_key(&v->pkg.e[i]) && (rc = unpack_key(v, i, d)))
			goto out;
	if (index_keymaps(v) || mark_dup_keys(v) ||
	    af_buf_fill(&v->item_at, 0, (v->pkg.count ? v->pkg.count : 1) * sizeof(uint32_t)) ||
	    af_nameidx_init(&v->by_name, v->pkg.count, 0, item_name_at, v->items) ||
	    af_nameidx_init(&v->by_s3pe, v->pkg.count, 0, item_s3pe_at, v->items)) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < v->pkg.count; i++) {
		const struct af_dbpf_entry *e = &v->pkg.e[i];
		const struct af_pkg_type *sh = shown_type(e->type);
		if (sh && !af_dbpf_deleted(e) && (rc = add_item(v, i, sh, env, d)))
			goto out;
	}
out:
	return rc;
}

int af_pkgview_open(struct af_pkgview *v, const uint8_t *data, size_t n,
		    const struct af_container_env *env, struct af_diag *d)
{
	int rc;
	memset(v, 0, sizeof(*v));
	if (af_buf_append(&v->file, data, n))
		return af_diag_error(d, AF_ENOMEM, "out of memory for a %zu-byte package", n);
	if (!(rc = af_dbpf_open(&v->pkg, v->file.data ? v->file.data : (const uint8_t *)"", n, d)))
		rc = open_rest(v, env, d);
	if (rc)
		af_pkgview_close(v);
	return rc;
}

int af_pkgview_open_src(struct af_pkgview *v, const struct af_src *src,
			const struct af_container_env *env, struct af_diag *d)
{
	struct af_src own;
	int rc;
	memset(v, 0, sizeof(*v));
	if (src->mem) { /* borrowed: a nested package's bytes outlive it */
		if (!(rc = af_dbpf_open(&v->pkg, src->mem, (size_t)src->size, d)))
			rc = open_rest(v, env, d);
		if (rc)
			af_pkgview_close(v);
		return rc;
	}
	if ((v->fd = fcntl(src->fd, F_DUPFD_CLOEXEC, 0)) < 0)
		return af_diag_error(d, AF_EIO, "cannot keep the package open: %s", strerror(errno));
	v->has_fd = 1;
	own = (struct af_src){NULL, v->fd, src->size, src->base};
	if (!(rc = af_dbpf_open_src(&v->pkg, &own, d)))
		rc = open_rest(v, env, d);
	if (rc)
		af_pkgview_close(v);
	return rc;
}

void af_pkgview_close(struct af_pkgview *v)
{
	for (uint32_t i = 0; v->notes && i < v->pkg.count; i++)
		free(v->notes[i]);
	for (uint32_t i = 0; v->keys && i < v->pkg.count; i++)
		af_buf_free(&v->keys[i]);
	free(v->notes);
	free(v->keys);
	free(v->items);
	af_nameidx_free(&v->by_name);
	af_nameidx_free(&v->by_s3pe);
	af_buf_free(&v->item_at);
	af_buf_free(&v->dup_key);
	af_buf_free(&v->keyrefs);
	af_dbpf_close(&v->pkg);
	af_buf_free(&v->file);
	if (v->has_fd)
		close(v->fd);
	memset(v, 0, sizeof(*v));
}

const struct af_pkg_item *af_pkgview_find(const struct af_pkgview *v, const char *name)
{
	long k = af_nameidx_find(&v->by_name, name);
	if (k < 0)
		k = af_nameidx_find(&v->by_s3pe, name);
	return k >= 0 ? &v->items[k] : NULL;
}

/* ---- read, commit, round trip ---- */

int af_pkgview_body(const struct af_pkgview *v, const struct af_pkg_item *it, struct af_buf *out,
		    struct af_diag *d)
{
	return af_dbpf_body(&v->pkg, it->entry, out, d);
}

/* The state machine carries its own instance in its first chunk key (RCOL: 20-byte
 * header, then instance u64); the package key is what the game looks up. */
static void warn_instance(const struct af_pkgview *v, uint32_t entry, const uint8_t *body,
			  size_t n, struct af_diag *d)
{
	uint64_t want = af_dbpf_instance(&v->pkg.e[entry]);
	if (v->pkg.e[entry].type == AF_DBPF_TYPE_JAZZ && n >= 28 && af_le64(body + 20) != want)
		af_diag_warn(d, 0, 0,
			     "the state machine's own instance 0x%016llX differs from its package key 0x%016llX; the package key is kept",
			     (unsigned long long)af_le64(body + 20), (unsigned long long)want);
}

/* ---- index.yaml ---- */

static const struct af_pkg_item *item_of(const struct af_pkgview *v, uint32_t i)
{
	uint32_t k = ((const uint32_t *)v->item_at.data)[i];
	return k ? &v->items[k - 1] : NULL;
}

static void index_line(const struct af_pkgview *v, uint32_t i, struct af_buf *out)
{
	const struct af_dbpf_entry *e = &v->pkg.e[i];
	const char *tag = af_dbpf_type_tag(e->type);
	const struct af_pkg_item *it = item_of(v, i);
	af_buf_puts(out, "  - {type: ");
	af_y_hex(out, e->type, 8);
	if (tag) {
		af_buf_puts(out, ", tag: ");
		af_y_cstr(out, tag);
	}
	af_buf_puts(out, ", group: ");
	af_y_hex(out, e->group, 8);
	af_buf_puts(out, ", instance: ");
	af_y_hex(out, af_dbpf_instance(e), 16);
	if (af_dbpf_deleted(e)) {
		af_buf_puts(out, ", deleted: true}\n");
		return;
	}
	af_buf_printf(out, ", offset: %u, stored: %u, size: %u, compressed: %s", e->offset,
		      af_dbpf_stored_size(e), e->mem_size, af_dbpf_compressed(e) ? "true" : "false");
	if (it) {
		af_buf_puts(out, ", name: ");
		af_y_cstr(out, it->name);
	}
	if (v->notes[i]) {
		af_buf_puts(out, ", note: ");
		af_y_cstr(out, v->notes[i]);
	}
	af_buf_puts(out, "}\n");
}

int af_pkgview_index_yaml(const struct af_pkgview *v, const char *pkgname, struct af_buf *out)
{
	af_buf_puts(out, "# The resources of a Sims 3 package, listed by animfs (read-only).\n"
			 "# Each Jazz state machine, clip (CLIP) and skeleton (_RIG) is editable as <name>.yaml\n"
			 "# beside this file; a new <name>.jazz.yaml (.clip, .rig) adds one; sizes in bytes.\n");
	af_buf_puts(out, "package: ");
	af_y_cstr(out, pkgname ? pkgname : "");
	af_buf_puts(out, "\ndbpf_version: \"2.0\"\nindex_type: ");
	af_y_hex(out, v->pkg.index_type, 1);
	if (!v->pkg.count)
		af_buf_puts(out, "\nresources: []\n");
	else
		af_buf_printf(out, "\nresources: # %u, in index order\n", v->pkg.count);
	for (uint32_t i = 0; i < v->pkg.count; i++)
		index_line(v, i, out);
	return out->failed ? AF_ENOMEM : 0;
}

/* ---- the container descriptor ---- */

static int pkg_bid(const char *name, const uint8_t *head, size_t n)
{
	size_t l = strlen(name);
	if (af_dbpf_is_v2(head, n))
		return 2;
	return l > 8 && !strcasecmp(name + l - 8, ".package") ? 1 : 0; /* judged by check */
}

static ssize_t pread_all(int fd, uint8_t *p, size_t n, off_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(fd, p + got, n - got, off + (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* From the header and the index only: two reads, however big the package. */
static int pkg_check(int fd, uint64_t size, struct af_diag *d)
{
	uint8_t head[AF_DBPF_HEADER], *index = NULL;
	struct af_dbpf p;
	int rc;
	ssize_t hn = pread_all(fd, head, sizeof(head), 0);
	if (hn < 0)
		return af_diag_error(d, AF_EIO, "cannot read");
	uint32_t ioff = hn >= 68 ? (af_le32(head + 64) ? af_le32(head + 64) : af_le32(head + 40)) : 0;
	uint32_t isize = hn >= 48 ? af_le32(head + 44) : 0;
	size_t in = 0;
	if (hn == AF_DBPF_HEADER && af_fits(ioff, isize, size)) {
		index = af_alloc(isize ? isize : 1); /* bounded by the file's size, checked above */
		if (!index)
			return af_diag_error(d, AF_ENOMEM, "out of memory for a %u-byte index", isize);
		in = (size_t)pread_all(fd, index, isize, ioff);
	}
	rc = af_dbpf_open_index(&p, head, (size_t)hn, index, in, (size_t)size, d);
	if (!rc)
		af_dbpf_close(&p);
	free(index);
	return rc;
}

static int pkg_open(const uint8_t *data, size_t n, const struct af_container_env *env, void **st,
		    struct af_diag *d)
{
	struct af_pkgview *v = af_alloc_zeroed(1, sizeof(*v));
	int rc;
	if (!v)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	if ((rc = af_pkgview_open(v, data, n, env, d))) {
		free(v);
		return rc;
	}
	*st = v;
	return 0;
}

static int pkg_open_src(const struct af_src *src, const struct af_container_env *env, void **st,
			struct af_diag *d)
{
	struct af_pkgview *v = af_alloc_zeroed(1, sizeof(*v));
	int rc;
	if (!v)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	if ((rc = af_pkgview_open_src(v, src, env, d))) {
		free(v);
		return rc;
	}
	*st = v;
	return 0;
}

static void pkg_close(void *st)
{
	if (st)
		af_pkgview_close(st);
	free(st);
}

static size_t pkg_count(void *st)
{
	return ((struct af_pkgview *)st)->nitems;
}

static void pkg_member(void *st, size_t i, struct af_member *m)
{
	const struct af_pkg_item *it = &((struct af_pkgview *)st)->items[i];
	snprintf(m->name, sizeof(m->name), "%s", it->name);
	snprintf(m->alias, sizeof(m->alias), "%s", strcmp(it->s3pe, it->name) ? it->s3pe : "");
	m->codec = it->codec;
}

static int pkg_body(void *st, size_t i, struct af_buf *out, struct af_diag *d)
{
	const struct af_pkgview *v = st;
	return af_dbpf_body(&v->pkg, v->items[i].entry, out, d);
}

/* A member's stored bytes (RefPack-compressed or not): shown for one that does not
 * unpack. */
static int pkg_stored(void *st, size_t i, struct af_buf *out, struct af_diag *d)
{
	const struct af_pkgview *v = st;
	return af_dbpf_read_stored(&v->pkg, v->items[i].entry, out, d);
}

/* Where an unpacked member's bytes lie (a RefPack one is not stored as it is). */
static int pkg_span(void *st, size_t i, uint64_t *off, uint64_t *len)
{
	const struct af_pkgview *v = st;
	const struct af_dbpf_entry *e = &v->pkg.e[v->items[i].entry];
	if (af_dbpf_compressed(e))
		return 0;
	*off = e->offset;
	*len = e->mem_size;
	return 1;
}

static int pkg_head(void *st, size_t i, uint8_t *buf, size_t n, size_t *got, struct af_diag *d)
{
	const struct af_pkgview *v = st;
	return af_dbpf_head(&v->pkg, v->items[i].entry, buf, n, got, d);
}

static void pkg_member_io(void *st, size_t i, struct af_io *io)
{
	const struct af_pkgview *v = st;
	make_io(v, &v->items[i], io);
}

static int pkg_index(void *st, const char *name, struct af_buf *out)
{
	return af_pkgview_index_yaml(st, name, out);
}

static int pkg_replace(void *st, size_t i, const uint8_t *body, size_t n, struct af_buf *image,
		       struct af_diag *d)
{
	const struct af_pkgview *v = st;
	struct af_dbpf_edit ed = {v->items[i].entry, body, n};
	warn_instance(v, v->items[i].entry, body, n, d);
	return af_dbpf_rebuild(&v->pkg, &ed, 1, image, d);
}

/* Only the resource and the tables are new bytes: every other resource a copy. */
static int pkg_plan(void *st, size_t i, const uint8_t *body, size_t n, struct af_pieces *out,
		    struct af_diag *d)
{
	const struct af_pkgview *v = st;
	struct af_dbpf_edit ed = {v->items[i].entry, body, n};
	warn_instance(v, v->items[i].entry, body, n, d);
	return af_dbpf_plan(&v->pkg, &ed, 1, out, d);
}

static int pkg_rebuild(void *st, struct af_buf *image, struct af_diag *d)
{
	return af_dbpf_rebuild(&((struct af_pkgview *)st)->pkg, NULL, 0, image, d);
}

static int pkg_rebuild_plan(void *st, struct af_pieces *out, const struct af_src **src,
			    struct af_diag *d)
{
	const struct af_dbpf *pkg = &((struct af_pkgview *)st)->pkg;
	*src = &pkg->src;
	return af_dbpf_plan(pkg, NULL, 0, out, d);
}

static int pkg_add(void *st, const char *name, const char *codec, const uint8_t *body, size_t n,
		   struct af_buf *image, struct af_diag *d)
{
	return af_pkgview_add(st, name, codec, body, n, image, d);
}

static int pkg_remove(void *st, size_t i, struct af_buf *image, struct af_diag *d)
{
	const struct af_pkgview *v = st;
	return af_pkgview_remove(v, &v->items[i], image, d);
}

/* An override goes to Mods/Overrides under a name of its own: Resource.cfg's Priority
 * orders folders (a higher one overrides a lower one, simswiki.info "Sims 3:Resource.cfg"),
 * and the Mods framework reads Packages/ at Priority 500; how the game orders two
 * packages of one priority no source says, so the override never relies on it. */
static const struct af_overlay_install pkg_install = {
	.folder = "Overrides",
	.tag = "override",
	.how = "Mods/Resource.cfg: \"Priority 501\" then \"PackedFile Overrides/*.package\" "
	       "and \"PackedFile Overrides/*/*.package\", above Packages' Priority 500",
	.config = "Resource.cfg",
	.config_lines = "Priority 501\nPackedFile Overrides/*.package\nPackedFile Overrides/*/*.package\n",
};

/* index.yaml's keys a rebuild recomputes (where a resource lies, its stored size) */
static const char *const pkg_layout_keys[] = {"offset", "stored", NULL};

const struct af_container af_container_sims3_package = {
	.name = "sims3-package",
	.description = "The Sims 3 package (DBPF 2.0): its Jazz state machines, clips and skeletons as a folder",
	.version = 1,
	.noun = "package",
	.plural = "packages",
	.member_noun = "resource",
	.members = "resources shown",
	.bid = pkg_bid,
	.check = pkg_check,
	.open = pkg_open,
	.open_src = pkg_open_src,
	.close = pkg_close,
	.count = pkg_count,
	.member = pkg_member,
	.body = pkg_body,
	.member_io = pkg_member_io,
	.index_yaml = pkg_index,
	.replace = pkg_replace,
	.plan = pkg_plan,
	.span = pkg_span,
	.stored = pkg_stored,
	.head = pkg_head,
	.rebuild = pkg_rebuild,
	.rebuild_plan = pkg_rebuild_plan,
	.add = pkg_add,
	.remove = pkg_remove,
	.overlay_merge = af_pkg_overlay_merge,
	.overlay_reduce = af_pkg_overlay_reduce,
	.overlay_install = &pkg_install,
	.layout_keys = pkg_layout_keys,
};
