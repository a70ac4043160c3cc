/* Renames: how sed -i, gedit and vim (backupcopy=no) save, and how emacs and vim
 * make backups. A rename onto a view name commits the moved text; renaming a view
 * or a game file away never touches GAME: the new name is a scratch copy and the
 * old one is hidden until it is written again (or the mount ends). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "animfs/fileio.h"
#include "ops.h"

int af_read_whole_at(int dirfd, const char *rel, struct af_buf *out)
{
	struct af_diag d;
	af_diag_init(&d);
	int rc = af_read_file_at(dirfd, rel, AF_MAX_FILE, out, &d);
	af_diag_free(&d);
	return rc ? -EIO : 0;
}

enum target { T_VIEW, T_PASS, T_SCRATCH };

static int target_of(const struct af_res *t, char *bin, size_t size, enum target *out)
{
	switch (t->kind) {
	case AF_K_VIEW:
		snprintf(bin, size, "%s", t->bin);
		*out = T_VIEW;
		return 0;
	case AF_K_PASS:
		*out = T_PASS;
		return 0;
	case AF_K_SCRATCH:
		*out = T_SCRATCH;
		return 0;
	case AF_K_NONE:
		break;
	case AF_K_DIR:
		return -EISDIR;
	case AF_K_HIDDEN:
		return -EPERM;
	default:
		return -EACCES;
	}
	if (t->ghost && t->ghost_of == AF_K_PASS) {
		*out = T_PASS;
		return 0;
	}
	if ((t->ghost && t->ghost_of == AF_K_VIEW) || af_view_is_candidate(t->rel)) {
		const char *base = strrchr(t->rel, '/');
		base = base ? base + 1 : t->rel;
		snprintf(bin, size, "%.*s", (int)((size_t)(base - t->rel) + af_view_strip(base)),
			 t->rel);
		*out = T_VIEW;
		return 0;
	}
	*out = T_SCRATCH;
	return 0;
}

/* The bytes the source shows: a view's rendered text, else the file itself. */
static int source_bytes(struct af_fs *fs, struct af_res *s, struct af_buf *out)
{
	if (s->kind == AF_K_VIEW) {
		struct af_text *t;
		int rc = af_view_render(fs, s->bin, &s->st, &t);
		if (rc)
			return rc;
		rc = af_buf_append(out, t->data, t->len) ? -ENOMEM : 0;
		af_text_unref(t);
		return rc;
	}
	return af_read_whole_at(s->kind == AF_K_SCRATCH ? fs->scratchfd : fs->rootfd, s->rel, out);
}

/* Drop the source name after its content moved elsewhere. */
static int drop_source(struct af_fs *fs, struct af_res *s)
{
	if (s->kind == AF_K_SCRATCH)
		return af_scratch_unlink(fs, s->rel);
	af_ghost_add(fs, s->rel, s->kind); /* GAME keeps the file; the view hides it */
	return 0;
}

static int move_file(struct af_fs *fs, struct af_res *s, struct af_res *t)
{
	struct af_buf data = AF_BUF_INIT;
	char bin[4096];
	enum target tk;
	int rc = target_of(t, bin, sizeof(bin), &tk);
	if (rc)
		return rc;
	if (tk == T_VIEW && s->kind == AF_K_VIEW) {
		/* a view renamed to another view name: the binary moves, bytes unchanged */
		rc = renameat(fs->rootfd, s->bin, fs->rootfd, bin) ? -errno : 0;
		goto done;
	}
	if (tk == T_PASS && s->kind == AF_K_PASS) {
		rc = renameat(fs->rootfd, s->rel, fs->rootfd, t->rel) ? -errno : 0;
		goto done;
	}
	if (tk == T_SCRATCH && s->kind == AF_K_SCRATCH) {
		rc = af_scratch_rename(fs, s->rel, t->rel);
		goto out;
	}
	rc = source_bytes(fs, s, &data);
	if (rc)
		goto out;
	if (tk == T_VIEW)
		rc = af_commit(fs, t->rel, bin, data.data ? data.data : (const uint8_t *)"", data.len);
	else if (tk == T_PASS)
		rc = af_commit_plain(fs, t->rel, data.data, data.len, s->st.st_mode & 07777);
	else
		rc = af_scratch_put(fs, t->rel, data.data, data.len, s->st.st_mode & 07777);
	if (rc)
		goto out;
	rc = drop_source(fs, s);
done:
	if (rc == 0 && tk != T_SCRATCH)
		af_ghost_del(fs, t->rel);
out:
	af_buf_free(&data);
	return rc;
}

int af_op_rename(const char *from, const char *to, unsigned int flags)
{
	struct af_fs *fs = af_ctx_fs();
	struct af_res s, t;
	int rc;
	if (flags & ~RENAME_NOREPLACE)
		return -EINVAL;
	if (fs->read_only)
		return -EROFS;
	rc = af_view_resolve(fs, from, &s);
	if (!rc)
		rc = af_view_resolve(fs, to, &t);
	if (rc)
		return rc;
	if ((flags & RENAME_NOREPLACE) && t.kind != AF_K_NONE)
		return -EEXIST;
	if (!strcmp(s.rel, t.rel))
		return 0;
	switch (s.kind) {
	case AF_K_DIR:
		if (t.kind != AF_K_NONE && t.kind != AF_K_DIR)
			return -ENOTDIR;
		return renameat(fs->rootfd, s.rel, fs->rootfd, t.rel) ? -errno : 0;
	case AF_K_PKGDIR: /* the package file itself moves */
		if (t.kind != AF_K_NONE)
			return -EEXIST;
		return renameat(fs->rootfd, s.rel, fs->rootfd, t.rel) ? -errno : 0;
	case AF_K_VIEW:
	case AF_K_PASS:
	case AF_K_SCRATCH:
		return move_file(fs, &s, &t);
	case AF_K_CTLDIR:
	case AF_K_CTLFILE:
	case AF_K_PKGINDEX:
		return -EACCES;
	default:
		return -ENOENT;
	}
}
