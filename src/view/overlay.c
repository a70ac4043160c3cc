/* --overlay MODDIR (issue 32): GAME is opened read-only and never written; the view shows
 * MODDIR's files over GAME's and every change lands in MODDIR: a save of a GAME file
 * writes its copy there (copy-up, same relative path), new files, folders and renames
 * happen there, and a GAME file is never removed (a game cannot delete a file through a
 * mod: EROFS, said in .animfs/errors). A container whose game loads the mod's copy beside
 * its own (container.h overlay_merge/overlay_reduce) keeps only the changed members in
 * MODDIR; any other is copied up whole, rebuilt. Names no format. This file is the
 * changes; the lookups (which tree holds a name, what a stat shows) are tree.c's. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "animfs/beneath.h"
#include "animfs/container.h"
#include "animfs/fileio.h"
#include "animfs/pieces.h"
#include "animfs/codec.h"
#include "animfs/path.h"
#include "errlog.h"
#include "overlay.h"
#include "session.h"
#include "who.h"

/* A line in the caller's .animfs/errors and the log: rel was not changed, and why. */
static int refuse(struct af_fs *fs, const char *rel, const char *what)
{
	struct af_diag d;
	af_diag_init(&d);
	af_diag_error(&d, AF_EROFS, "%s", what);
	af_fs_log(LOG_WARNING, "%s: %s", rel, what);
	af_errlog_add(fs->errors, af_caller()->uid, rel, &d);
	af_diag_free(&d);
	return -EROFS;
}

#define KEPT_WHY "a file of GAME is never removed or renamed with --overlay (a game loads " \
		 "no removal from a mod folder); remove or rename MODDIR's copies only"

int af_ov_keeps(struct af_fs *fs, const char *rel, struct af_diag *d)
{
	if (fs->modfd < 0 || !af_ov_in_game(fs, rel))
		return 0;
	af_diag_error(d, AF_EROFS, "%s", KEPT_WHY);
	return -EROFS;
}

/* Make rel's missing folders in MODDIR (rel itself too when self), each with the
 * mode of GAME's folder of that name and the maker's rwx. 0 or -errno. */
static int make_dirs(struct af_fs *fs, const char *rel, int self)
{
	char path[4096];
	size_t n = strlen(rel);
	if (n >= sizeof(path))
		return -ENAMETOOLONG;
	memcpy(path, rel, n + 1);
	for (char *p = path;; p++) {
		if (!*p && !self)
			return 0;
		if (*p && *p != '/')
			continue;
		char c = *p;
		struct stat st;
		*p = 0;
		if (path[0] && af_bn_stat(fs->modfd, path, &st)) {
			mode_t mode = af_bn_stat(fs->rootfd, path, &st) == 0 ? (st.st_mode & 0777) : 0755;
			if (af_bn_mkdir(fs->modfd, path, mode | 0700) && errno != EEXIST)
				return -errno;
		}
		if (!(*p = c))
			return 0;
	}
}

int af_ov_parent_w(struct af_fs *fs, const char *rel, char *base, size_t size,
		   const struct af_who *who)
{
	if (fs->modfd < 0)
		return af_bn_parent(fs->rootfd, rel, base, size);
	int rc = 0, as = who != NULL;
	if (as && af_act_with(who))
		rc = -EACCES;
	if (!rc)
		rc = make_dirs(fs, rel, 0);
	if (as)
		af_act_back();
	if (rc) {
		errno = -rc;
		return -1;
	}
	return af_bn_parent(fs->modfd, rel, base, size);
}

int af_ov_copy_source(struct af_fs *fs, int dirfd, const char *rel, mode_t *mode)
{
	char base[NAME_MAX + 1];
	struct stat st;
	if (fs->modfd < 0 || fstatat(dirfd, af_base(rel), &st, AT_SYMLINK_NOFOLLOW) == 0)
		return -1;
	int gfd = af_bn_parent(fs->rootfd, rel, base, sizeof(base));
	if (gfd < 0)
		return -1;
	if (fstatat(gfd, base, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode)) {
		close(gfd);
		return -1;
	}
	*mode = (st.st_mode & 0777) | 0200; /* the mod's copy is its maker's to save again */
	return gfd;
}

int af_ov_may_create(struct af_fs *fs, const char *rel)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s", rel);
	for (;;) { /* the nearest folder MODDIR has; what is missing is made there */
		char *slash = strrchr(path, '/');
		struct stat st;
		if (!slash) {
			snprintf(path, sizeof(path), ".");
		} else {
			*slash = 0;
			if (af_bn_stat(fs->modfd, path, &st))
				continue;
		}
		int fd = af_bn_open(fs->modfd, path, O_PATH | O_DIRECTORY, 0);
		if (fd < 0)
			return -errno;
		int rc = faccessat(fd, ".", W_OK | X_OK, AT_EACCESS) ? -errno : 0;
		close(fd);
		return rc;
	}
}

/* GAME's plain file rel copied to MODDIR (atomically, as the caller; its bytes unless
 * empty). The kernel copies the bytes (copy_file_range, a reflink where it can): none
 * pass through the daemon, whatever the file's size. 0 or -errno. */
static int copy_up(struct af_fs *fs, const char *rel, int empty)
{
	struct af_pieces p = AF_PIECES_INIT;
	struct af_diag d;
	struct stat st;
	char base[NAME_MAX + 1];
	int rc = 0, dirfd = -1, gfd;
	af_diag_init(&d);
	if ((gfd = af_bn_open(fs->rootfd, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0)) < 0) {
		rc = -errno;
		goto out;
	}
	if (fstat(gfd, &st)) {
		rc = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = -EROFS;
		goto out;
	}
	struct af_src src = {NULL, gfd, empty ? 0 : (uint64_t)st.st_size, 0};
	if (src.size && af_pieces_copy(&p, 0, src.size)) {
		rc = -ENOMEM;
		goto out;
	}
	if ((dirfd = af_ov_parent_w(fs, rel, base, sizeof(base), NULL)) < 0) {
		rc = -errno;
		goto out;
	}
	struct af_replace_opts ro = {0};
	ro.as_new = 1;
	if (af_replace_file_pieces(dirfd, base, &p, &src, (st.st_mode & 0777) | 0200, &ro, &d))
		rc = d.code == AF_EACCES ? -EACCES : d.code == AF_EPERM ? -EPERM : -EIO;
	else
		af_fs_log(LOG_INFO, "copied %s up to the mod folder (%llu bytes)", rel,
			  (unsigned long long)src.size);
out:
	if (dirfd >= 0)
		close(dirfd);
	if (gfd >= 0)
		close(gfd);
	af_pieces_free(&p);
	af_diag_free(&d);
	return rc;
}

int af_ov_open_tree(struct af_fs *fs, const char *rel, int flags)
{
	int rc;
	if (fs->modfd < 0)
		return fs->rootfd;
	if ((flags & O_ACCMODE) == O_RDONLY && !(flags & O_TRUNC))
		return af_ov_at(fs, rel);
	if (af_ov_in_mod(fs, rel))
		return fs->modfd;
	if (af_ov_in_game(fs, rel) && (rc = copy_up(fs, rel, (flags & O_TRUNC) != 0)))
		return rc;
	if (!(flags & O_CREAT) || af_ov_in_mod(fs, rel))
		return fs->modfd;
	char base[NAME_MAX + 1]; /* a new file: its folders first */
	int dfd = af_ov_parent_w(fs, rel, base, sizeof(base), NULL);
	if (dfd < 0)
		return -errno;
	close(dfd);
	return fs->modfd;
}

int af_ov_unlink(struct af_fs *fs, const char *rel, int flags)
{
	if (fs->modfd < 0)
		return af_bn_unlink(fs->rootfd, rel, flags) ? -errno : 0;
	if (af_ov_in_mod(fs, rel))
		return af_bn_unlink(fs->modfd, rel, flags) ? -errno : 0;
	return af_ov_in_game(fs, rel) ? refuse(fs, rel, KEPT_WHY) : -ENOENT;
}

int af_ov_rename(struct af_fs *fs, const char *from, const char *to)
{
	char base[NAME_MAX + 1];
	if (fs->modfd < 0)
		return af_bn_rename(fs->rootfd, from, to) ? -errno : 0;
	if (!af_ov_in_mod(fs, from) || af_ov_in_game(fs, from))
		return af_ov_in_game(fs, from) ? refuse(fs, from, KEPT_WHY) : -ENOENT;
	int dfd = af_ov_parent_w(fs, to, base, sizeof(base), NULL);
	if (dfd < 0)
		return -errno;
	close(dfd);
	return af_bn_rename(fs->modfd, from, to) ? -errno : 0;
}

int af_ov_mkdir(struct af_fs *fs, const char *rel, mode_t mode)
{
	char base[NAME_MAX + 1];
	if (fs->modfd < 0)
		return af_bn_mkdir(fs->rootfd, rel, mode) ? -errno : 0;
	if (af_ov_in_game(fs, rel) || af_ov_in_mod(fs, rel))
		return -EEXIST;
	int dfd = af_ov_parent_w(fs, rel, base, sizeof(base), NULL);
	if (dfd < 0)
		return -errno;
	close(dfd);
	return af_bn_mkdir(fs->modfd, rel, mode) ? -errno : 0;
}

int af_ov_symlink(struct af_fs *fs, const char *target, const char *rel)
{
	char base[NAME_MAX + 1];
	if (fs->modfd < 0)
		return af_bn_symlink(target, fs->rootfd, rel) ? -errno : 0;
	if (af_ov_in_game(fs, rel))
		return -EEXIST;
	int dfd = af_ov_parent_w(fs, rel, base, sizeof(base), NULL);
	if (dfd < 0)
		return -errno;
	close(dfd);
	return af_bn_symlink(target, fs->modfd, rel) ? -errno : 0;
}

int af_ov_meta_tree(struct af_fs *fs, const char *rel)
{
	if (fs->modfd < 0)
		return fs->rootfd;
	return af_ov_in_mod(fs, rel) ? fs->modfd : -EROFS;
}

int af_ov_layout(struct af_fs *fs, const struct af_codec *c, const char *rel, struct af_buf *bin,
		 struct af_diag *d)
{
	struct af_diag cd;
	const char *why;
	if (fs->modfd < 0 || !fs->mod_layout)
		return 0;
	af_diag_init(&cd);
	int rc = af_codec_relayout(c, fs->mod_layout, bin, &why, &cd);
	if (rc == AF_ENOMEM)
		af_diag_error(d, AF_ENOMEM, "out of memory");
	else if (rc) {
		af_fs_log(LOG_WARNING, "%s: saved in its own layout, not %s: %s", rel, fs->mod_layout,
			  why ? why : cd.msg);
		af_diag_warn(d, 0, 0, "written in its own layout, not %s: %s", fs->mod_layout,
			     why ? why : cd.msg);
	}
	af_diag_free(&cd);
	return rc == AF_ENOMEM ? AF_ENOMEM : 0;
}

/* ---- containers ---- */

/* file (MODDIR's container rel) becomes GAME's with it on top, when c merges. */
static int merge_with_game(struct af_fs *fs, const char *rel, const struct af_container *c,
			   struct af_buf *file, struct af_diag *d)
{
	struct af_buf game = AF_BUF_INIT, merged = AF_BUF_INIT;
	struct af_diag md;
	int rc = af_bn_read_file(fs->rootfd, rel, AF_MAX_FILE, &game, d), mrc;
	if (rc)
		goto out;
	af_diag_init(&md);
	mrc = c->overlay_merge(game.data, game.len, file->data, file->len, &merged, &md);
	if (!mrc) {
		struct af_buf t = *file;
		*file = merged;
		merged = t;
	} else if (mrc == AF_ENOMEM || mrc == AF_EIO) {
		rc = af_diag_error(d, mrc, "%s", md.msg);
	} else {
		/* the two do not merge (GAME's is no package this build reads, say): MODDIR's
		 * is shown alone, saves keep it whole (af_ov_reduce), and the errors say why */
		char why[900];
		snprintf(why, sizeof(why), "%s", md.msg);
		af_diag_clear(&md);
		af_diag_error(&md, AF_EINVAL, "GAME's copy does not merge under MODDIR's (%s): "
			      "MODDIR's is shown alone", why);
		af_fs_log(LOG_WARNING, "%s: %s", rel, md.msg);
		af_errlog_forget(fs->errors, rel);
		af_errlog_add(fs->errors, AF_ERRLOG_ALL, rel, &md);
	}
	af_diag_free(&md);
out:
	af_buf_free(&game);
	af_buf_free(&merged);
	return rc;
}

int af_ov_merge(struct af_fs *fs, const char *rel, const struct af_container *c,
		struct af_buf *file, struct af_diag *d)
{
	if (fs->modfd < 0 || !c->overlay_merge || !af_ov_in_mod(fs, rel) || !af_ov_in_game(fs, rel))
		return 0;
	return merge_with_game(fs, rel, c, file, d);
}

int af_ov_read_container(struct af_fs *fs, int dirfd, const char *base, const char *pkg,
			 const struct af_container *c, struct af_buf *file, struct af_diag *d)
{
	struct stat st;
	if (fs->modfd < 0)
		return af_bn_read_file(dirfd, base, AF_MAX_FILE, file, d);
	if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW))
		return af_bn_read_file(fs->rootfd, pkg, AF_MAX_FILE, file, d);
	int rc = af_bn_read_file(dirfd, base, AF_MAX_FILE, file, d);
	if (rc || !c->overlay_merge || !af_ov_in_game(fs, pkg))
		return rc;
	return merge_with_game(fs, pkg, c, file, d);
}

int af_ov_reduce(struct af_fs *fs, const char *pkg, const struct af_container *c, int dirfd,
		 const char *base, const struct af_who *who, struct af_buf *image, int *gone,
		 struct af_diag *d)
{
	struct af_buf game = AF_BUF_INIT, only = AF_BUF_INIT;
	int rc;
	*gone = 0;
	if (fs->modfd < 0 || !c->overlay_reduce || !af_ov_in_game(fs, pkg))
		return 0;
	if ((rc = af_bn_read_file(fs->rootfd, pkg, AF_MAX_FILE, &game, d)))
		goto out;
	struct af_diag rd;
	af_diag_init(&rd);
	rc = c->overlay_reduce(game.data, game.len, image->data, image->len, &only, &rd);
	if (rc == AF_ENOMEM || rc == AF_EIO)
		af_diag_error(d, rc, "%s", rd.msg);
	else if (rc) /* nothing to reduce against (GAME's does not read): the override whole */
		af_fs_log(LOG_INFO, "%s: kept whole in the mod folder: %s", pkg, rd.msg);
	af_diag_free(&rd);
	if (rc == AF_ENOMEM || rc == AF_EIO)
		goto out;
	if (rc) {
		rc = 0;
		goto out;
	}
	if (only.len) {
		struct af_buf t = *image;
		*image = only;
		only = t;
		goto out;
	}
	/* nothing differs from GAME's: no override (MODDIR's goes, removed as the saver) */
	*gone = 1;
	if (af_act_with(who)) {
		rc = af_diag_error(d, AF_EIO, "cannot act as uid %u", (unsigned)who->uid);
	} else {
		if (unlinkat(dirfd, base, 0) && errno != ENOENT)
			rc = af_diag_error(d, errno == EACCES ? AF_EACCES : AF_EIO,
					   "cannot remove the mod folder's %s: %s", base, strerror(errno));
		af_act_back();
	}
	if (!rc)
		af_fs_log(LOG_INFO, "%s: as GAME's again, no override kept", pkg);
out:
	af_buf_free(&game);
	af_buf_free(&only);
	return rc;
}
