/* The FUSE face's operations on names: listings, folders, removals, renames, links and
 * metadata are the namespace's (src/view/nsnode.c, nsmove.c, nsattr.c) with FUSE's file
 * info and its aliases of open files (hidden.c) around them. (getattr is ops.c's:
 * an open file's stat, what the kernel's page cache asks.) */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <sys/statvfs.h>

#include "ops.h"
#include "errlog.h"
#include "dirlist.h"
#include "ghost.h"
#include "hidden.h"
#include "listcache.h"
#include "ns.h"

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
		struct af_fs *fs = af_ctx_fs();
		unsigned long gen = af_lc_generation();
		/* kept between opens where every change reaches the face (listcache.h) */
		uint64_t id = fs->attr_cache > 0 ? af_ns_list_id(fs, path) : 0;
		af_dirlist_reset(l);
		if (!path)
			return -ENOENT;
		if (!id || !af_lc_get(path, id, l)) {
			int rc = af_ns_list(fs, path, af_dirlist_add, l);
			if (rc)
				return rc;
			if (af_dirlist_failed(l))
				return -ENOMEM;
			if (id)
				af_lc_put(path, gen, id, l);
		}
	}
	for (size_t i = off > 0 ? (size_t)off : 0, n = af_dirlist_count(l); i < n; i++)
		if (filler(buf, af_dirlist_name(l, i), NULL, (off_t)(i + 1), 0))
			break;
	return 0;
}

int af_op_readlink(const char *path, char *buf, size_t size)
{
	return af_ns_readlink(af_ctx_fs(), path, buf, size);
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

/* chmod, chown and utimens: the namespace's (nsattr.c), on the open file FUSE names */
int af_op_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	struct af_ns_meta m = {.op = AF_META_MODE, .mode = mode};
	return af_ns_meta(af_ctx_fs(), path, af_fi_handle(fi), &m);
}

int af_op_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
	struct af_ns_meta m = {.op = AF_META_OWNER, .uid = uid, .gid = gid};
	return af_ns_meta(af_ctx_fs(), path, af_fi_handle(fi), &m);
}

int af_op_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
	struct af_ns_meta m = {.op = AF_META_TIMES, .tv = tv};
	return af_ns_meta(af_ctx_fs(), path, af_fi_handle(fi), &m);
}

int af_op_statfs(const char *path, struct statvfs *st)
{
	(void)path;
	return af_ns_statfs(af_ctx_fs(), st);
}

/* The errors' xattr, the only one there is: removing it clears the caller's lines */
int af_op_removexattr(const char *path, const char *name)
{
	if (strcmp(name, AF_XATTR_ERRORS))
		return -ENODATA;
	return af_ns_errors_clear(af_ctx_fs(), path);
}

int af_op_symlink(const char *target, const char *path)
{
	return af_ns_symlink(af_ctx_fs(), target, path);
}
