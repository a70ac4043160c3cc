/* The FUSE operations of the view (private to src/fs/): ops.c (the table, each request
 * as its caller; open files, and getattr, which they answer first), nodeops.c (names,
 * folders, renames, links, metadata); each one the core's namespace's (src/view/ns.h)
 * with FUSE's path, file info and errno. */
#ifndef ANIMFS_FS_OPS_H
#define ANIMFS_FS_OPS_H

#define FUSE_USE_VERSION 31
#include <fuse.h>

#include "animfs/buf.h"
#include "handle.h"
#include "session.h"

/* The state of the mount. */
static inline struct af_fs *af_ctx_fs(void)
{
	return fuse_get_context()->private_data;
}

static inline struct af_handle *af_fi_handle(struct fuse_file_info *fi)
{
	return fi ? (struct af_handle *)(uintptr_t)fi->fh : NULL;
}

/* The FUSE operations (ops.c). */
const struct fuse_operations *af_fs_operations(void);

int af_op_getattr(const char *path, struct stat *st, struct fuse_file_info *fi);
int af_op_opendir(const char *path, struct fuse_file_info *fi);
int af_op_releasedir(const char *path, struct fuse_file_info *fi);
int af_op_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t off,
		  struct fuse_file_info *fi, enum fuse_readdir_flags flags);
int af_op_readlink(const char *path, char *buf, size_t size);
int af_op_symlink(const char *target, const char *path);
int af_op_mkdir(const char *path, mode_t mode);
int af_op_rmdir(const char *path);
int af_op_unlink(const char *path);
int af_op_chmod(const char *path, mode_t mode, struct fuse_file_info *fi);
int af_op_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi);
int af_op_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi);
int af_op_statfs(const char *path, struct statvfs *st);
/* removexattr(PATH, "user.animfs.errors"): the caller's lines of .animfs/errors about
 * PATH (a folder: beneath it; the mount's root: all) go (`animfs errors --clear`). */
#define AF_XATTR_ERRORS "user.animfs.errors"

/* The largest READ the kernel asks (the max_read mount option, session.c; the INIT
 * reply says it again, ops.c). */
#define AF_FUSE_MAX_READ 131072
#define AF_FUSE_MAX_READ_OPT "max_read=131072"
int af_op_removexattr(const char *path, const char *name);

int af_op_open(const char *path, struct fuse_file_info *fi);
int af_op_create(const char *path, mode_t mode, struct fuse_file_info *fi);
int af_op_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi);
int af_op_write(const char *path, const char *buf, size_t size, off_t off,
		struct fuse_file_info *fi);
int af_op_truncate(const char *path, off_t size, struct fuse_file_info *fi);
int af_op_flush(const char *path, struct fuse_file_info *fi);
int af_op_fsync(const char *path, int datasync, struct fuse_file_info *fi);
int af_op_release(const char *path, struct fuse_file_info *fi);

int af_op_rename(const char *from, const char *to, unsigned int flags);

#endif
