/* The listing of a folder of .animfs/gltf/ (previews.h): the folder it mirrors, listed as
 * that folder is, with each view that has a preview named "<view>.glb" and each folder
 * (a backing folder, a container) by its own name; nothing else. A name is resolved as a
 * stat of it would be: no preview is made to be listed. And a glTF written to a
 * preview's path: brought back into the view's binary (af_gltf_import) and saved as the
 * view of the result would be (af_commit_to), the report's lines as notes in
 * .animfs/errors. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "animfs/codec.h"
#include "animfs/fs.h"
#include "animfs/gltf.h"
#include "animfs/path.h"
#include "bin.h"
#include "commit.h"
#include "dest.h"
#include "errlog.h"
#include "previews.h"
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

int af_previews_fill(void *buf, const char *name, const struct stat *st, off_t off,
		     enum fuse_fill_dir_flags flags)
{
	struct af_previews *p = buf;
	char path[4400], glb[300];
	struct af_res r;
	(void)st, (void)off, (void)flags;
	if (!strcmp(name, ".") || !strcmp(name, "..") || strlen(name) + 5 > sizeof(glb))
		return 0;
	snprintf(path, sizeof(path), "%s%s%s", p->dir, strcmp(p->dir, "/") ? "/" : "", name);
	if (af_view_resolve(p->fs, path, &r))
		return 0;
	if (r.kind == AF_K_DIR || r.kind == AF_K_ARCDIR)
		return p->filler(p->buf, name, NULL, 0, 0);
	if ((r.kind != AF_K_VIEW && r.kind != AF_K_SPLITDIR) || !r.info.codec || !r.info.codec->scene)
		return 0; /* a format with nothing to preview has no preview */
	snprintf(glb, sizeof(glb), "%s.glb", name);
	return p->filler(p->buf, glb, NULL, 0, 0);
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

int af_previews_save(struct af_fs *fs, const struct af_dest *to, const char *rel, const uint8_t *gl, size_t n)
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
	if ((rc = read_bin(&b, &bin)))
		goto out;
	struct af_io io = {.name = af_base(v.bin)};
	if ((rc = af_gltf_import(gl, n, t->data, t->len, bin.data, bin.len, NULL, &out, &rep, &d)) ||
	    (!(out.len == bin.len && !memcmp(out.data, bin.data, bin.len)) &&
	     (rc = v.info.codec->to_yaml(out.data, out.len, &io, &yaml, &d)) < 0)) {
		af_errlog_add(fs->errors, to->who.uid, rel, &d);
		rc = rc == AF_ENOMEM ? -ENOMEM : -EINVAL;
		goto out;
	}
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
