/* The fuse_operations table of the view: it only dispatches. Timeouts are zero so
 * every stat reaches the daemon (exact YAML sizes, outside changes seen at once). */
#include <string.h>

#include "ops.h"

static void *op_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	if (conn->capable & FUSE_CAP_ATOMIC_O_TRUNC)
		conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
	cfg->use_ino = 0;
	cfg->nullpath_ok = 0; /* paths when known; NULL only for unlinked open files */
	/* An open file that is removed or replaced stays reachable under a .fuse_hidden
	 * name, so its descriptors keep working (fstat of `tail -f` across a save);
	 * such names are aliases that never reach GAME (hidden.c). */
	cfg->hard_remove = 0;
	cfg->attr_timeout = 0;
	cfg->entry_timeout = 0;
	cfg->negative_timeout = 0;
	return af_ctx_fs();
}

static const struct fuse_operations ops = {
	.init = op_init,
	.getattr = af_op_getattr,
	.readdir = af_op_readdir,
	.readlink = af_op_readlink,
	.symlink = af_op_symlink,
	.mkdir = af_op_mkdir,
	.rmdir = af_op_rmdir,
	.unlink = af_op_unlink,
	.rename = af_op_rename,
	.chmod = af_op_chmod,
	.chown = af_op_chown,
	.utimens = af_op_utimens,
	.statfs = af_op_statfs,
	.open = af_op_open,
	.create = af_op_create,
	.read = af_op_read,
	.write = af_op_write,
	.truncate = af_op_truncate,
	.flush = af_op_flush,
	.fsync = af_op_fsync,
	.release = af_op_release,
};

const struct fuse_operations *af_fs_operations(void)
{
	return &ops;
}
