/* The listing of a folder of .animfs/gltf/ (previews.h): the folder it mirrors, listed as
 * that folder is, with each view that has a preview named "<view>.glb" and each folder
 * (a backing folder, a container) by its own name; nothing else. A name is resolved as a
 * stat of it would be: no preview is made to be listed. And a glTF written to a
 * preview's path: brought back into the view's binary (af_gltf_import) and saved as the
 * view of the result would be (af_commit_to), the report's lines as notes in
 * .animfs/errors. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "animfs/codec.h"
#include "animfs/fs.h"
#include "animfs/gltf.h"
#include "animfs/path.h"
#include "bin.h"
#include "commit.h"
#include "derive.h"
#include "dest.h"
#include "errlog.h"
#include "folder.h"
#include "previews.h"
#include "render.h"
#include "res.h"
#include "session.h"
#include "view.h"

#define GLTF_DIR AF_CTL_DIR "/" AF_CTL_GLTF

int af_previews_mirror(const char *rel, char *path, size_t size)
{
	size_t k = strlen(GLTF_DIR);
	if (strncmp(rel, GLTF_DIR, k) || (rel[k] && rel[k] != '/'))
		return 0;
	return snprintf(path, size, "/%s", rel[k] ? rel + k + 1 : "") < (int)size;
}

int af_previews_fill(void *arg, const char *name)
{
	struct af_previews *p = arg;
	char path[4400], glb[300];
	struct af_res r;
	if (!strcmp(name, ".") || !strcmp(name, "..") || strlen(name) + 5 > sizeof(glb))
		return 0;
	snprintf(path, sizeof(path), "%s%s%s", p->dir, strcmp(p->dir, "/") ? "/" : "", name);
	if (af_view_resolve(p->fs, path, &r))
		return 0;
	if (r.kind == AF_K_DIR || r.kind == AF_K_ARCDIR)
		return p->fill(p->arg, name);
	if ((r.kind != AF_K_VIEW && r.kind != AF_K_SPLITDIR) || !r.info.codec || !r.info.codec->scene)
		return 0; /* a format with nothing to preview has no preview */
	snprintf(glb, sizeof(glb), "%s.glb", name);
	return p->fill(p->arg, glb);
}

int af_previews_view(const char *rel, char *view, size_t size)
{
	size_t k = strlen(GLTF_DIR), n = strlen(rel);
	if (strncmp(rel, GLTF_DIR "/", k + 1) || n < k + 1 + 5 || strcmp(rel + n - 4, ".glb"))
		return 0;
	return snprintf(view, size, "/%.*s", (int)(n - k - 1 - 4), rel + k + 1) < (int)size;
}

/* The binary's bytes, read through the caller's proof of it (b). 0 or -errno. */
static int read_bin(const struct af_bin *b, struct af_buf *out)
{
	size_t n = (size_t)b->st.st_size;
	if (af_buf_reserve(out, n ? n : 1))
		return -ENOMEM;
	for (size_t at = 0; at < n;) {
		ssize_t got = pread(b->fd, out->data + at, n - at, (off_t)at);
		if (got <= 0)
			return got < 0 ? -errno : -EIO;
		at += (size_t)got;
		out->len = at;
	}
	return 0;
}

/* The glTF brought back into the binary, within the bound (af_derive_within: the view's
 * tree, the glTF's values, the scene and the file made; the binary's bytes beside). */
struct import {
	const uint8_t *gl;
	size_t n;
	const struct af_text *t;
	const struct af_buf *bin;
	struct af_buf *rep;
};

static int import_make(void *ctx, const struct af_ybudget *mem, struct af_buf *out, struct af_diag *d)
{
	struct import *m = ctx;
	struct af_gltf_import_opts o = {.mem = mem};
	af_buf_free(m->rep);
	return af_gltf_import(m->gl, m->n, m->t->data, m->t->len, m->bin->data, m->bin->len, &o, out, m->rep, d);
}

/* The view of the binary brought back (in, n bytes) into yaml, within the bound as a
 * view's render is (its text and the codec's model from the renders' pool, then the
 * texts' share; done again alone when refused while others held the pool). */
struct back {
	struct af_fs *fs;
	const struct af_codec *codec;
	const char *name;
	const struct af_buf *in;
	struct af_buf *yaml;
	struct af_diag *d;
	int over;
	size_t asked;
};

static int back_once(void *ctx, int alone)
{
	struct back *k = ctx;
	struct af_render_bound rb;
	struct af_io io = {.name = k->name, .mem_room = af_render_mem_room};
	int rc;
	af_render_bound_init(&rb, k->fs->cache, alone, af_render_guess(k->in->len));
	io.mem_ctx = &rb;
	af_buf_free(k->yaml);
	af_diag_clear(k->d);
	k->yaml->bound = &rb.b;
	rc = af_render_mem_room(&rb, af_model_of(k->in->len)) ? k->codec->to_yaml(k->in->data, k->in->len, &io, k->yaml, k->d)
							       : AF_ENOMEM;
	k->yaml->bound = NULL;
	rc = rc == AF_VIEW_READONLY ? 0 : rc; /* (its save is refused as the view's would be) */
	if (!rc && k->yaml->failed)
		rc = AF_ENOMEM;
	if (rc)
		af_buf_free(k->yaml);
	if ((k->over = rc && (rb.refused || k->yaml->over)))
		k->asked = rb.text_pool + rb.model_pool + rb.text_over + rb.model_over + rb.model_want;
	int again = k->over && !alone && rb.pool_short;
	af_render_bound_end(&rb);
	return again ? AF_AGAIN_ALONE : rc;
}

/* The line of an import refused past the bound (asked: what it would take). */
static int refuse(struct af_fs *fs, const struct af_dest *to, const char *rel, size_t asked, struct af_diag *d)
{
	af_diag_clear(d);
	af_diag_error(d, AF_ENOMEM, "bringing it back would take more than %zu MiB (the view's YAML read as a tree, "
		      "the glTF's values, the model and the binary made, then its view), more than one save may "
		      "take under --cache-mb=%zu (the renders' pool and what the texts held for other views could "
		      "lend): raise --cache-mb", (asked + ((size_t)1 << 20) - 1) >> 20, fs->cache_bytes >> 20);
	af_errlog_add(fs->errors, to->who.uid, rel, d);
	return -EFBIG;
}

/* One glTF brought back at a time (docs/HACKING.md's lock table: taken under a handle's
 * lock, held across the import, the view of its result and the save, L3 and below): what
 * each holds beside the pool while it waits for the save's lock (the view's text, the new
 * one) is then one import's, not one per writer. */
static pthread_mutex_t importing = PTHREAD_MUTEX_INITIALIZER;

static int save_locked(struct af_fs *fs, const struct af_dest *to, const char *rel, const uint8_t *gl, size_t n);

int af_previews_save(struct af_fs *fs, const struct af_dest *to, const char *rel, const uint8_t *gl, size_t n)
{
	pthread_mutex_lock(&importing);
	int rc = save_locked(fs, to, rel, gl, n);
	pthread_mutex_unlock(&importing);
	return rc;
}

static int save_locked(struct af_fs *fs, const struct af_dest *to, const char *rel, const uint8_t *gl, size_t n)
{
	char view[4200];
	struct af_res v;
	struct af_text *t = NULL;
	struct af_bin b = {.fd = -1};
	struct af_buf bin = AF_BUF_INIT, out = AF_BUF_INIT, rep = AF_BUF_INIT, yaml = AF_BUF_INIT;
	struct af_diag d;
	int rc, opened = 0;
	af_diag_init(&d);
	if (!af_previews_view(rel, view, sizeof(view)) || af_view_resolve(fs, view, &v) || v.kind != AF_K_VIEW ||
	    !v.info.codec || !v.info.codec->scene_import) {
		rc = -ENOENT;
		goto out;
	}
	if ((rc = af_view_render(fs, v.bin, &v.st, &t)) || (rc = af_bin_open(fs, v.bin, O_RDONLY, &b)))
		goto out;
	opened = 1;
	/* the bytes the view was made of: a game file's, or a container member's body (its
	 * save then the member's, through the container's rebuild) */
	if ((rc = b.member ? af_folder_body(fs, v.bin, &b.st, &bin, &d) : read_bin(&b, &bin))) {
		if (d.code)
			af_errlog_add(fs->errors, to->who.uid, rel, &d);
		goto out;
	}
	struct import m = {gl, n, t, &bin, &rep};
	size_t asked;
	if ((rc = af_derive_within(fs, t->len, bin.len, import_make, &m, &out, &asked, &d)) == -EFBIG) {
		rc = refuse(fs, to, rel, asked, &d);
		goto out;
	}
	if (rc) {
		af_errlog_add(fs->errors, to->who.uid, rel, &d);
		rc = rc == -ENOMEM ? -ENOMEM : -EINVAL;
		goto out;
	}
	int same = out.len == bin.len && !memcmp(out.data, bin.data, bin.len);
	af_buf_free(&bin);
	struct back k = {fs, v.info.codec, af_base(v.bin), &out, &yaml, &d, 0, 0};
	if (!same && (rc = af_budget_run(back_once, &k)) < 0) {
		if (k.over) {
			rc = refuse(fs, to, rel, k.asked, &d);
			goto out;
		}
		af_errlog_add(fs->errors, to->who.uid, rel, &d);
		rc = rc == AF_ENOMEM ? -ENOMEM : -EINVAL;
		goto out;
	}
	af_buf_free(&out);
	rc = 0;
	if (yaml.len) /* a file changed: saved as its view would be, then the notes */
		rc = af_commit_to(fs, to, rel, yaml.data, yaml.len);
	for (char *line = (char *)rep.data, *end; !rc && line && line < (char *)rep.data + rep.len; line = end + 1) {
		if (!(end = memchr(line, '\n', (size_t)((char *)rep.data + rep.len - line))))
			break;
		*end = 0;
		af_errlog_note(fs->errors, to->who.uid, rel, line);
	}
out:
	if (opened)
		af_bin_close(&b);
	af_text_unref(t);
	af_buf_free(&bin);
	af_buf_free(&out);
	af_buf_free(&rep);
	af_buf_free(&yaml);
	af_diag_free(&d);
	return rc;
}
