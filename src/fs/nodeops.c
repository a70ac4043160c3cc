/* The FUSE face's operations on names: attributes, listings, folders, removals and
 * renames are the namespace's (src/view/nsnode.c, nsmove.c) with FUSE's file info, the
 * kernel's remembered stat and its aliases of open files (hidden.c) around them; links
 * and metadata (chmod, chown, utimens, statfs, the errors' xattr) are the face's own. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "animfs/fs.h"
#include "animfs/path.h"
#include "animfs/beneath.h"
#include "animfs/fileio.h"
#include "ops.h"
#include "errlog.h"
#include "folder.h"
#include "dirlist.h"
#include "ghost.h"
#include "hidden.h"
#include "kcache.h"
#include "ns.h"
#include "overlay.h"
#include "res.h"
#include "scratch.h"
#include "splitview.h"
#include "view.h"
#include "who.h"

int af_op_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct af_handle *h = af_fi_handle(fi);
	/* The kernel asks a page-cached view's handle again at each read that reaches its
	 * size (attributes not kept: ops.c): what its first fstat found is the answer
	 * while nothing changed through the mount since (a changed stat: the generation). */
	unsigned long gen = h && h->cached ? af_kc_generation() : 0;
	if (gen) {
		pthread_mutex_lock(&h->lock);
		int seen = h->seen_gen == gen;
		if (seen)
			*st = h->seen;
		pthread_mutex_unlock(&h->lock);
		if (seen)
			return 0;
	}
	int rc = af_ns_stat(af_ctx_fs(), path, h, st);
	if (rc == 0 && gen && h->is_view) {
		pthread_mutex_lock(&h->lock);
		h->seen = *st;
		h->seen_gen = gen;
		pthread_mutex_unlock(&h->lock);
	}
	return rc;
}

int af_op_opendir(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	fi->fh = (uintptr_t)af_dirlist_new();
	return fi->fh ? 0 : -ENOMEM;
}

int af_op_releasedir(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	af_dirlist_free((struct af_dirlist *)(uintptr_t)fi->fh);
	fi->fh = 0;
	return 0;
}

/* Listed once, when read from the start (a rewinddir too), then served by offset. */
int af_op_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t off,
		  struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	struct af_dirlist *l = fi ? (struct af_dirlist *)(uintptr_t)fi->fh : NULL;
	(void)flags;
	if (!l)
		return -EBADF;
	if (off == 0) {
		af_dirlist_reset(l);
		if (!path)
			return -ENOENT;
		int rc = af_ns_list(af_ctx_fs(), path, af_dirlist_add, l);
		if (rc)
			return rc;
		if (af_dirlist_failed(l))
			return -ENOMEM;
	}
	for (size_t i = off > 0 ? (size_t)off : 0, n = af_dirlist_count(l); i < n; i++)
		if (filler(buf, af_dirlist_name(l, i), NULL, (off_t)(i + 1), 0))
			break;
	return 0;
}

int af_op_readlink(const char *path, char *buf, size_t size)
{
	struct af_fs *fs = af_ctx_fs();
	struct af_res r;
	int rc = af_view_resolve(fs, path, &r);
	if (rc)
		return rc;
	if (r.kind != AF_K_PASS && r.kind != AF_K_SCRATCH)
		return -EINVAL;
	int dfd = r.kind == AF_K_SCRATCH ? af_scratch_dirfd(fs) : af_ov_at(fs, r.rel);
	if (dfd < 0)
		return dfd;
	ssize_t n = af_bn_readlink(dfd, r.rel, buf, size - 1);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

int af_op_mkdir(const char *path, mode_t mode)
{
	return af_ns_mkdir(af_ctx_fs(), path, mode);
}

int af_op_rmdir(const char *path)
{
	return af_ns_rmdir(af_ctx_fs(), path);
}

/* The last close of an open file that was removed or replaced (hidden.c): the
 * removal happens now, unless the name was written again meanwhile. */
static int unlink_alias(struct af_fs *fs, const char *path)
{
	char orig[4096], opath[4100];
	int detached;
	enum af_kind kind;
	if (!af_alias_take(fs, path + 1, orig, sizeof(orig), &detached))
		return -ENOENT;
	if (detached || !af_ghost_has(fs, orig, &kind))
		return 0; /* replaced, or the replace failed: nothing to remove */
	af_ghost_del(fs, orig);
	snprintf(opath, sizeof(opath), "/%s", orig);
	int rc = af_ns_unlink(fs, opath);
	if (rc && rc != -ENOENT)
		af_fs_log(LOG_WARNING, "%s: removed while open, but not removable (%s): kept", orig,
			  strerror(-rc));
	return 0;
}

int af_op_rename(const char *from, const char *to, unsigned int flags)
{
	if (flags & ~RENAME_NOREPLACE)
		return -EINVAL;
	return af_ns_rename(af_ctx_fs(), from, to, !!(flags & RENAME_NOREPLACE));
}

int af_op_unlink(const char *path)
{
	struct af_fs *fs = af_ctx_fs();
	if (af_alias_is_hidden(path))
		return unlink_alias(fs, path);
	return af_ns_unlink(fs, path);
}

/* The descriptor and name a metadata change applies to; -errno when none. */
static int meta_target(struct af_fs *fs, const char *path, struct af_res *r, int *dfd,
		       const char **name)
{
	int rc = af_view_resolve(fs, path, r);
	if (rc)
		return rc;
	*dfd = fs->rootfd;
	switch (r->kind) {
	case AF_K_SPLITDIR: /* the folder and its parts are the binary's */
	case AF_K_SPLITPART:
	case AF_K_VIEW:
		*name = r->bin;
		if (af_folder_member(fs, r->bin)) { /* a member's mode is its container's */
			*strrchr(r->bin, '/') = 0;
		}
		return 0;
	case AF_K_PASS:
	case AF_K_DIR:
	case AF_K_ARCDIR:
		*name = r->rel;
		return 0;
	case AF_K_SCRATCH:
		*dfd = af_scratch_dirfd(fs);
		*name = r->rel;
		return *dfd < 0 ? *dfd : 0;
	case AF_K_NONE:
		/* an unsaved new view: nothing to change yet */
		return af_handle_pending_size(fs, r->rel) >= 0 ? 1 : -ENOENT;
	case AF_K_CTLDIR:
	case AF_K_CTLFILE:
	case AF_K_ARCFILE:
		return -EACCES;
	default:
		return -ENOENT;
	}
}

/* chmod, chown and utimens differ only in the call at the end. */
enum meta_op { META_MODE, META_OWNER, META_TIMES };
struct meta {
	enum meta_op op;
	mode_t mode;
	uid_t uid;
	gid_t gid;
	const struct timespec *tv;
};

static int meta_fd(int fd, const struct meta *m)
{
	int rc = m->op == META_MODE    ? fchmod(fd, m->mode)
		 : m->op == META_OWNER ? fchown(fd, m->uid, m->gid)
				       : futimens(fd, m->tv);
	return rc ? -errno : 0;
}

/* On name beneath dfd, through no link, and on a link itself, never on its target. */
static int meta_at(int dfd, const char *name, const struct meta *m)
{
	char base[NAME_MAX + 1];
	int fd = m->op == META_MODE ? af_bn_open(dfd, name, O_PATH, 0)
				    : af_bn_parent(dfd, name, base, sizeof(base));
	int rc;
	if (fd < 0)
		return -errno;
	if (m->op == META_MODE)
		rc = af_bn_fchmod(fd, m->mode);
	else if (m->op == META_OWNER)
		rc = fchownat(fd, base, m->uid, m->gid, AT_SYMLINK_NOFOLLOW);
	else
		rc = utimensat(fd, base, m->tv, AT_SYMLINK_NOFOLLOW);
	rc = rc ? -errno : 0;
	close(fd);
	return rc;
}

static int meta_apply(const char *path, struct fuse_file_info *fi, const struct meta *m)
{
	struct af_fs *fs = af_ctx_fs();
	struct af_handle *h = af_fi_handle(fi);
	struct af_res r;
	const char *name;
	int dfd, rc;
	if (fs->read_only)
		return -EROFS;
	if (h && h->kind == AF_H_FD)
		return meta_fd(h->fd, m);
	rc = meta_target(fs, path ? path : h ? h->rel : "", &r, &dfd, &name);
	if (rc)
		return rc > 0 ? 0 : rc;
	if (m->op == META_TIMES && (r.kind == AF_K_VIEW || r.kind == AF_K_SPLITDIR ||
				    r.kind == AF_K_SPLITPART))
		return 0; /* a view's times are its binary's; only a save moves them */
	struct meta file = *m;
	if (m->op == META_MODE && r.kind == AF_K_SPLITDIR) {
		/* the folder shows the binary's mode with x where it has r: its r and w bits
		 * are the binary's, whose own x bits stay (rsync -a, cp -a of a folder) */
		file.mode = (m->mode & 0666) | (r.st.st_mode & 0111);
		m = &file;
	}
	if (dfd == fs->rootfd && (dfd = af_ov_meta_tree(fs, name)) < 0)
		return dfd; /* with --overlay GAME's own file is never changed */
	return meta_at(dfd, name, m);
}

int af_op_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	struct meta m = {.op = META_MODE, .mode = mode};
	return meta_apply(path, fi, &m);
}

int af_op_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
	struct meta m = {.op = META_OWNER, .uid = uid, .gid = gid};
	return meta_apply(path, fi, &m);
}

int af_op_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
	struct meta m = {.op = META_TIMES, .tv = tv};
	return meta_apply(path, fi, &m);
}

int af_op_statfs(const char *path, struct statvfs *st)
{
	(void)path;
	return fstatvfs(af_ov_top(af_ctx_fs()), st) ? -errno : 0;
}

int af_op_removexattr(const char *path, const char *name)
{
	struct af_fs *fs = af_ctx_fs();
	struct af_res r;
	if (strcmp(name, AF_XATTR_ERRORS))
		return -ENODATA; /* the only one there is */
	int rc = af_view_resolve(fs, path, &r);
	if (rc)
		return rc;
	uid_t uid = af_caller()->uid;
	int all = uid == 0 || uid == af_daemon_uid(); /* the lines about files: the owner's */
	const char *rel = !strcmp(r.rel, ".") ? "" : r.rel;
	af_errlog_clear(fs->errors, uid, all, rel);
	if (r.bin[0] && strcmp(r.bin, rel))
		af_errlog_clear(fs->errors, uid, all, r.bin);
	return 0;
}

/* A link is the user's like any file (GAME), unless it is an editor's lock link
 * (emacs' `.#x`): that lives in the scratch area. */
int af_op_symlink(const char *target, const char *path)
{
	struct af_fs *fs = af_ctx_fs();
	struct af_res r;
	int rc = af_view_resolve(fs, path, &r);
	if (rc)
		return rc;
	if (r.kind != AF_K_NONE || r.ghost)
		return -EEXIST;
	if (fs->read_only)
		return -EROFS;
	if (af_view_is_dropping(fs, r.rel))
		return af_scratch_symlink(fs, target, r.rel);
	if (af_folder_member(fs, r.rel))
		return af_folder_refuse(fs, r.rel, "link", af_caller()->uid);
	if (r.in_split)
		return af_split_refuse(fs, r.rel, "no link is made", af_caller()->uid);
	return af_ov_symlink(fs, target, r.rel);
}
