/* A Sims 3 package as a folder: the Jazz records with names that hash back to their
 * instance, an af_io that shows the package's _KEY records to the Jazz codec as
 * `*.keyname` siblings, commits through af_dbpf_rebuild, and the index.yaml text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/bytes.h"
#include "animfs/codec.h"
#include "animfs/fnv.h"
#include "animfs/pkgview.h"
#include "animfs/userdict.h"
#include "animfs/yamlio.h"

static const struct af_codec *jazz_codec(void)
{
	return af_codec_by_name("sims3-jazz");
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
	for (uint32_t j = 0; j < i; j++) { /* the same key twice: tell them apart */
		const struct af_dbpf_entry *o = &v->pkg.e[j];
		if (o->type == e->type && o->group == e->group &&
		    af_dbpf_instance(o) == af_dbpf_instance(e) && !af_dbpf_deleted(o)) {
			snprintf(out, size, "S3_%08X_%08X_%016llX~%u.keyname", e->type, e->group,
				 (unsigned long long)af_dbpf_instance(e), i);
			break;
		}
	}
	return 1;
}

static int io_list(void *ctx, int (*cb)(void *, const char *), void *cbctx)
{
	const struct af_pkgview *v = ctx;
	char name[AF_PKG_NAME_MAX];
	for (uint32_t i = 0; i < v->pkg.count; i++)
		if (key_name(v, i, name, sizeof(name)) && cb(cbctx, name))
			break;
	return 0;
}

static int io_read(void *ctx, const char *want, struct af_buf *out)
{
	const struct af_pkgview *v = ctx;
	char name[AF_PKG_NAME_MAX];
	for (uint32_t i = 0; i < v->pkg.count; i++) {
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

/* A name is shown only when it hashes back to the instance (spec 5.6) and is a safe
 * file name: printable ASCII, no slash, not hidden, not a hex literal. */
static int name_ok(const char *s, size_t n, uint64_t inst)
{
	if (!n || n > AF_PKG_NAME_MAX - 8 || s[0] == '.' || (n >= 2 && s[0] == '0' && (s[1] | 32) == 'x'))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7E || s[i] == '/' || s[i] == '\\')
			return 0;
	return af_fnv1_64_lower(s, n) == inst;
}

/* Smooth Jazz maps the instance to "mods\<name>.tigerjazz": try the text, then its stem. */
static int name_from_text(const char *t, size_t n, uint64_t inst, char *out)
{
	size_t a = n, b = n;
	if (name_ok(t, n, inst)) {
		snprintf(out, AF_PKG_NAME_MAX, "%.*s.jazz", (int)n, t);
		return 1;
	}
	while (a > 0 && t[a - 1] != '\\' && t[a - 1] != '/')
		a--;
	for (size_t k = n; k > a; k--)
		if (t[k - 1] == '.') {
			b = k - 1;
			break;
		}
	if (name_ok(t + a, b - a, inst)) {
		snprintf(out, AF_PKG_NAME_MAX, "%.*s.jazz", (int)(b - a), t + a);
		return 1;
	}
	return 0;
}

/* Look the instance up in one _KEY body (version 1); bounded by the body's size. */
static int name_in_keymap(const uint8_t *p, size_t n, uint64_t inst, char *out)
{
	size_t pos = 8;
	if (n < 8 || af_le32(p) != 1)
		return 0;
	for (uint32_t i = 0, count = af_le32(p + 4); i < count && n - pos >= 12; i++) {
		uint64_t key = af_le64(p + pos);
		uint32_t len = af_le32(p + pos + 8);
		pos += 12;
		if (len > n - pos)
			return 0;
		if (key == inst && name_from_text((const char *)p + pos, len, inst, out))
			return 1;
		pos += len;
	}
	return 0;
}

static void display_name(const struct af_pkgview *v, uint32_t i, char *out)
{
	uint64_t inst = af_dbpf_instance(&v->pkg.e[i]);
	out[0] = 0;
	for (uint32_t k = 0; k < v->pkg.count; k++)
		if (v->keys[k].data && name_in_keymap(v->keys[k].data, v->keys[k].len, inst, out))
			break;
}

static int name_taken(const struct af_pkgview *v, const char *name)
{
	for (size_t k = 0; k < v->nitems; k++)
		if (!strcmp(v->items[k].name, name) || !strcmp(v->items[k].s3pe, name))
			return 1;
	return 0;
}

/* ---- open ---- */

static int set_note(struct af_pkgview *v, uint32_t i, const char *msg)
{
	return (v->notes[i] = strdup(msg)) ? 0 : AF_ENOMEM;
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

/* A Jazz record is editable when its body unpacks and passes the codec's content check. */
static int add_item(struct af_pkgview *v, uint32_t i, struct af_diag *d)
{
	struct af_pkg_item *it = &v->items[v->nitems];
	struct af_buf body = AF_BUF_INIT;
	struct af_diag bd;
	int rc = 0;
	af_diag_init(&bd);
	s3pe_name(&v->pkg.e[i], ".jazz", it->s3pe, sizeof(it->s3pe));
	if (af_dbpf_body(&v->pkg, i, &body, &bd)) {
		char msg[1024];
		af_diag_format(&bd, "cannot be unpacked", msg, sizeof(msg));
		rc = set_note(v, i, msg);
		goto out;
	}
	if (!jazz_codec() ||
	    !jazz_codec()->bid(it->s3pe, body.data, body.len < AF_BID_HEAD ? body.len : AF_BID_HEAD)) {
		rc = set_note(v, i, "not a Jazz state machine (fails the content check)");
		goto out;
	}
	display_name(v, i, it->name);
	if (!it->name[0] || name_taken(v, it->name))
		snprintf(it->name, sizeof(it->name), "%s", it->s3pe);
	if (name_taken(v, it->name)) { /* the same key twice */
		snprintf(it->s3pe, sizeof(it->s3pe), "S3_%08X_%08X_%016llX~%u.jazz", v->pkg.e[i].type,
			 v->pkg.e[i].group, (unsigned long long)af_dbpf_instance(&v->pkg.e[i]), i);
		snprintf(it->name, sizeof(it->name), "%s", it->s3pe);
	}
	it->entry = i;
	v->nitems++;
out:
	if (rc)
		af_diag_error(d, AF_ENOMEM, "out of memory");
	af_buf_free(&body);
	af_diag_free(&bd);
	return rc;
}

int af_pkgview_open(struct af_pkgview *v, const uint8_t *data, size_t n, struct af_diag *d)
{
	int rc;
	memset(v, 0, sizeof(*v));
	if (af_buf_append(&v->file, data, n))
		return af_diag_error(d, AF_ENOMEM, "out of memory for a %zu-byte package", n);
	if ((rc = af_dbpf_open(&v->pkg, v->file.data, n, d)))
		goto out;
	v->items = calloc(v->pkg.count ? v->pkg.count : 1, sizeof(*v->items));
	v->notes = calloc(v->pkg.count ? v->pkg.count : 1, sizeof(*v->notes));
	v->keys = calloc(v->pkg.count ? v->pkg.count : 1, sizeof(*v->keys));
	if (!v->items || !v->notes || !v->keys) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < v->pkg.count; i++)
		if (is_key(&v->pkg.e[i]) && (rc = unpack_key(v, i, d)))
			goto out;
	for (uint32_t i = 0; i < v->pkg.count; i++) {
		const struct af_dbpf_entry *e = &v->pkg.e[i];
		if (e->type == AF_DBPF_TYPE_JAZZ && !af_dbpf_deleted(e) && (rc = add_item(v, i, d)))
			goto out;
	}
out:
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
	af_dbpf_close(&v->pkg);
	af_buf_free(&v->file);
	memset(v, 0, sizeof(*v));
}

const struct af_pkg_item *af_pkgview_find(const struct af_pkgview *v, const char *name)
{
	for (size_t k = 0; k < v->nitems; k++)
		if (!strcmp(v->items[k].name, name))
			return &v->items[k];
	for (size_t k = 0; k < v->nitems; k++)
		if (!strcmp(v->items[k].s3pe, name))
			return &v->items[k];
	return NULL;
}

/* ---- read, commit, round trip ---- */

int af_pkgview_body(const struct af_pkgview *v, const struct af_pkg_item *it, struct af_buf *out,
		    struct af_diag *d)
{
	return af_dbpf_body(&v->pkg, it->entry, out, d);
}

int af_pkgview_read(const struct af_pkgview *v, const struct af_pkg_item *it, struct af_buf *yaml,
		    struct af_diag *d)
{
	struct af_buf body = AF_BUF_INIT;
	struct af_io io;
	int rc;
	make_io(v, it, &io);
	if (!(rc = af_pkgview_body(v, it, &body, d)))
		rc = jazz_codec()->to_yaml(body.data, body.len, &io, yaml, d);
	af_buf_free(&body);
	return rc;
}

/* The state machine carries its own instance in its first chunk key (RCOL: 20-byte
 * header, then instance u64); the package key is what the game looks up. */
static void warn_instance(const struct af_pkgview *v, const struct af_pkg_item *it,
			  const struct af_buf *bin, struct af_diag *d)
{
	uint64_t want = af_dbpf_instance(&v->pkg.e[it->entry]);
	if (bin->len >= 28 && af_le64(bin->data + 20) != want)
		af_diag_warn(d, 0, 0,
			     "the state machine's own instance 0x%016llX differs from its package key 0x%016llX; the package key is kept",
			     (unsigned long long)af_le64(bin->data + 20), (unsigned long long)want);
}

int af_pkgview_commit(const struct af_pkgview *v, const struct af_pkg_item *it,
		      const uint8_t *yaml, size_t n, struct af_buf *image, int *changed,
		      struct af_diag *d)
{
	struct af_buf bin = AF_BUF_INIT, old = AF_BUF_INIT;
	struct af_io io;
	int rc;
	*changed = 0;
	af_buf_reset(image);
	make_io(v, it, &io);
	io.learn_names = af_userdict_io_learn; /* names typed in the document */
	if (!af_codec_for_save(jazz_codec(), it->name, yaml, n, d)) {
		rc = d->code;
		goto out;
	}
	if ((rc = jazz_codec()->from_yaml(yaml, n, &io, &bin, d)))
		goto out;
	if ((rc = af_pkgview_body(v, it, &old, d)))
		goto out;
	if (old.len == bin.len && (!bin.len || !memcmp(old.data, bin.data, bin.len)))
		goto out; /* unchanged: nothing to write */
	warn_instance(v, it, &bin, d);
	struct af_dbpf_edit ed = { it->entry, bin.data, bin.len };
	if (!(rc = af_dbpf_rebuild(&v->pkg, &ed, 1, image, d)))
		*changed = 1;
out:
	af_buf_free(&bin);
	af_buf_free(&old);
	return rc;
}

int af_pkgview_roundtrip(const struct af_pkgview *v, const struct af_pkg_item *it,
			 struct af_diag *d)
{
	struct af_buf body = AF_BUF_INIT, yaml = AF_BUF_INIT, back = AF_BUF_INIT;
	struct af_io io;
	int rc;
	make_io(v, it, &io);
	if ((rc = af_pkgview_body(v, it, &body, d)) ||
	    (rc = jazz_codec()->to_yaml(body.data, body.len, &io, &yaml, d)) ||
	    (rc = jazz_codec()->from_yaml(yaml.data, yaml.len, &io, &back, d)))
		goto out;
	if (back.len != body.len || memcmp(back.data, body.data, body.len)) {
		size_t i = 0, m = back.len < body.len ? back.len : body.len;
		while (i < m && back.data[i] == body.data[i])
			i++;
		rc = af_diag_at_offset(d, AF_EINVAL, i,
				       "re-encoded bytes differ (%zu bytes in, %zu out)", body.len, back.len);
	}
out:
	af_buf_free(&body);
	af_buf_free(&yaml);
	af_buf_free(&back);
	return rc;
}

/* ---- index.yaml ---- */

static const struct af_pkg_item *item_of(const struct af_pkgview *v, uint32_t i)
{
	for (size_t k = 0; k < v->nitems; k++)
		if (v->items[k].entry == i)
			return &v->items[k];
	return NULL;
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
			 "# Each Jazz state machine is editable as <name>.yaml beside this file; sizes in bytes.\n");
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
