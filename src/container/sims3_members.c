/* Sims 3 packages gain and lose resources (issue 17): a new member named
 * "<name>.jazz" (.clip, .rig) becomes a record of that type, group 0, with the instance
 * its type's rule gives the name (sims3-jazz.md 5.2, 5.3; a rig has none: FNV-1 64) and a
 * _KEY entry naming it (5.5), or exactly the key an s3pe name "S3_T_G_I.jazz" spells;
 * removing a member drops its record and the _KEY entries that named only it. Both
 * are one af_dbpf_rewrite: every other record keeps its bytes and order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/bytes.h"
#include "animfs/num.h"
#include "dbpf.h"
#include "sims3_package.h"

/* ---- _KEY bodies (spec 5.5) ---- */

int af_pkg_keymap_whole(const uint8_t *p, size_t n, uint64_t key, int *has)
{
	size_t pos = 8;
	*has = 0;
	if (n < 8 || af_le32(p) != 1)
		return 0;
	for (uint32_t i = 0, count = af_le32(p + 4); i < count; i++) {
		if (n - pos < 12 || af_le32(p + pos + 8) > n - pos - 12)
			return 0;
		*has |= af_le64(p + pos) == key;
		pos += 12 + af_le32(p + pos + 8);
	}
	return pos == n;
}

static void keymap_entry(struct af_buf *out, uint64_t key, const char *text, size_t n)
{
	af_buf_put_u64le(out, key);
	af_buf_put_u32le(out, (uint32_t)n);
	af_buf_append(out, text, n);
}

/* body without the entries of key (the body parses whole); the count removed. */
static uint32_t keymap_without(const uint8_t *p, uint64_t key, struct af_buf *out)
{
	uint32_t count = af_le32(p + 4), gone = 0;
	size_t pos = 8;
	af_buf_append(out, p, 8);
	for (uint32_t i = 0; i < count; i++) {
		size_t len = 12 + af_le32(p + pos + 8);
		if (af_le64(p + pos) == key)
			gone++;
		else
			af_buf_append(out, p + pos, len);
		pos += len;
	}
	if (out->len >= 8)
		af_buf_patch_u32le(out, 4, count - gone);
	return gone;
}

/* ---- add ---- */

/* "S3_TTTTTTTT_GGGGGGGG_IIIIIIIIIIIIIIII": 1 with its group and instance when the type is
 * t, -1 when it is another type, 0 when s is no such name. */
static int s3pe_key(const char *s, size_t n, uint32_t t, uint32_t *group, uint64_t *inst)
{
	static const size_t at[3] = { 3, 12, 21 }, len[3] = { 8, 8, 16 };
	uint64_t v[3];
	if (n != 37 || memcmp(s, "S3_", 3) || s[11] != '_' || s[20] != '_')
		return 0;
	for (int k = 0; k < 3; k++) {
		v[k] = 0;
		for (size_t i = 0; i < len[k]; i++) {
			int h = af_hex_digit(s[at[k] + i]);
			if (h < 0)
				return 0;
			v[k] = v[k] << 4 | (uint64_t)h;
		}
	}
	*group = (uint32_t)v[1];
	*inst = v[2];
	return v[0] == t ? 1 : -1;
}

static long live_record(const struct af_pkgview *v, uint32_t type, uint32_t group, uint64_t inst,
			long skip)
{
	for (uint32_t i = 0; i < v->pkg.count; i++) {
		const struct af_dbpf_entry *e = &v->pkg.e[i];
		if ((long)i != skip && !af_dbpf_deleted(e) && e->type == type && e->group == group &&
		    af_dbpf_instance(e) == inst)
			return (long)i;
	}
	return -1;
}

static long first_key(const struct af_pkgview *v)
{
	for (uint32_t i = 0; i < v->pkg.count; i++)
		if (v->pkg.e[i].type == AF_DBPF_TYPE_KEY && !af_dbpf_deleted(&v->pkg.e[i]))
			return (long)i;
	return -1;
}

struct plan {
	struct af_dbpf_edit edit[1];
	struct af_dbpf_new add[2];
	struct af_dbpf_change ch;
	struct af_buf key; /* the new _KEY body */
};

/* The _KEY change that names inst `text`: an entry appended to the package's first
 * _KEY map, or a new map (group 0, instance 0) when there is none. A map that does
 * not parse whole, or that already maps inst, is left alone (a warning says so). */
static int name_it(const struct af_pkgview *v, uint64_t inst, const char *text, size_t n,
		   struct plan *pl, struct af_diag *d)
{
	long k = first_key(v);
	int has = 0;
	if (k < 0) {
		af_buf_put_u32le(&pl->key, 1);
		af_buf_put_u32le(&pl->key, 1);
		keymap_entry(&pl->key, inst, text, n);
		pl->add[pl->ch.nadds++] = (struct af_dbpf_new){ AF_DBPF_TYPE_KEY, 0, 0, pl->key.data, pl->key.len };
		return pl->key.failed ? AF_ENOMEM : 0;
	}
	const struct af_buf *m = &v->keys[k];
	if (!m->data || !af_pkg_keymap_whole(m->data, m->len, inst, &has) || has) {
		af_diag_warn(d, 0, 0, "the name %.*s is not added to the package's _KEY map (%s)", (int)n,
			     text, has ? "it already names that instance" : "the map does not read whole");
		return 0;
	}
	af_buf_append(&pl->key, m->data, m->len);
	af_buf_patch_u32le(&pl->key, 4, af_le32(m->data + 4) + 1);
	keymap_entry(&pl->key, inst, text, n);
	pl->edit[0] = (struct af_dbpf_edit){ (size_t)k, pl->key.data, pl->key.len };
	pl->ch.edits = pl->edit;
	pl->ch.nedits = 1;
	return pl->key.failed ? AF_ENOMEM : 0;
}

/* The Jazz state machine carries its own instance (RCOL chunk key at byte 20). */
static void warn_own_instance(const struct af_pkg_type *t, const uint8_t *body, size_t n,
			      uint64_t inst, struct af_diag *d)
{
	if (t->type == AF_DBPF_TYPE_JAZZ && n >= 28 && af_le64(body + 20) != inst)
		af_diag_warn(d, 0, 0,
			     "the state machine's own instance 0x%016llX differs from its new package key 0x%016llX (its name's FNV-1 64); the package key is what the game looks up",
			     (unsigned long long)af_le64(body + 20), (unsigned long long)inst);
}

int af_pkgview_add(const struct af_pkgview *v, const char *name, const char *codec,
		   const uint8_t *body, size_t n, struct af_buf *image, struct af_diag *d)
{
	struct plan pl;
	size_t stem;
	uint32_t group = 0;
	uint64_t inst;
	long dup;
	int rc, named;
	const struct af_pkg_type *t = af_pkg_type_of_name(name, &stem);
	memset(&pl, 0, sizeof(pl));
	af_buf_init(&pl.key);
	pl.ch.adds = pl.add;
	if (!t)
		return af_diag_error(d, AF_EINVAL, "%s: a new resource's name ends in .jazz, .clip or .rig (its type)", name);
	if (strcmp(t->codec, codec))
		return af_diag_error(d, AF_EINVAL, "%s: a %s name, but the document is %s", name, t->codec, codec);
	int key = s3pe_key(name, stem, t->type, &group, &inst);
	if (key < 0)
		return af_diag_error(d, AF_EINVAL, "%s: an s3pe name of another type than %s's 0x%08X", name,
				     t->ext, t->type);
	named = !key;
	if (named && !af_pkg_name_safe(name, stem))
		return af_diag_error(d, AF_EINVAL, "%s: '%.*s' cannot name a resource (printable ASCII, no slash, not hidden, not 0x...)",
				     name, (int)stem, name);
	if (named)
		inst = af_pkg_instance_of(t, name, stem);
	if ((dup = live_record(v, t->type, group, inst, -1)) >= 0)
		return af_diag_error(d, AF_EINVAL, "%s: the package already holds a resource of type 0x%08X, group 0x%08X, instance 0x%016llX (index record %ld)",
				     name, t->type, group, (unsigned long long)inst, dup);
	warn_own_instance(t, body, n, inst, d);
	pl.add[pl.ch.nadds++] = (struct af_dbpf_new){ t->type, group, inst, body, n };
	if (!(rc = named ? name_it(v, inst, name, stem, &pl, d) : 0))
		rc = af_dbpf_rewrite(&v->pkg, &pl.ch, image, d);
	else
		af_diag_error(d, rc, "out of memory");
	af_buf_free(&pl.key);
	return rc;
}

/* ---- remove ---- */

int af_pkgview_remove(const struct af_pkgview *v, const struct af_pkg_item *it,
		      struct af_buf *image, struct af_diag *d)
{
	const struct af_dbpf_entry *e = &v->pkg.e[it->entry];
	uint64_t inst = af_dbpf_instance(e);
	struct af_dbpf_edit *eds = af_alloc_zeroed(v->pkg.count ? v->pkg.count : 1, sizeof(*eds));
	struct af_buf *bodies = af_alloc_zeroed(v->pkg.count ? v->pkg.count : 1, sizeof(*bodies));
	size_t drop = it->entry, ne = 0;
	int rc, shared = 0, has;
	if (!eds || !bodies) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < v->pkg.count; i++) /* another record of that instance keeps the name */
		shared |= i != it->entry && !af_dbpf_deleted(&v->pkg.e[i]) &&
			  v->pkg.e[i].type != AF_DBPF_TYPE_KEY && af_dbpf_instance(&v->pkg.e[i]) == inst;
	for (uint32_t k = 0; !shared && k < v->pkg.count; k++) {
		const struct af_buf *m = &v->keys[k];
		if (!m->data || !af_pkg_keymap_whole(m->data, m->len, inst, &has) || !has)
			continue;
		keymap_without(m->data, inst, &bodies[ne]);
		if (bodies[ne].failed) {
			rc = af_diag_error(d, AF_ENOMEM, "out of memory");
			goto out;
		}
		eds[ne] = (struct af_dbpf_edit){ k, bodies[ne].data, bodies[ne].len };
		ne++;
	}
	struct af_dbpf_change ch = { eds, ne, &drop, 1, NULL, 0, NULL, NULL };
	rc = af_dbpf_rewrite(&v->pkg, &ch, image, d);
out:
	for (size_t k = 0; bodies && k < ne; k++)
		af_buf_free(&bodies[k]);
	free(bodies);
	free(eds);
	return rc;
}
