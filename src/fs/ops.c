/* The fuse_operations table of the view: it only dispatches, each request as its
 * caller (who.c; its uid, gid and groups from the FUSE context: act_caller). The kernel
 * keeps names and attributes while nothing changed (the timeouts of op_init, dropped
 * at every change: kcache.h), except under allow_other,
 * where every lookup and stat reaches the daemon for each caller's own answer (a caller
 * who may not read a binary is shown its size, not its view's: the kernel keeps one
 * size per inode, not one per caller). The kernel's pages are kept between opens while
 * their text is unchanged (fileops.c, kcache.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "animfs/fs.h"

#include "ops.h"
#include "errlog.h"
#include "kcache.h"
#include "listcache.h"
#include "watch.h"
#include "who.h"

static void *op_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	if (conn->capable & FUSE_CAP_ATOMIC_O_TRUNC)
		conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
	/* No READDIRPLUS: the listings carry no attributes (every stat reaches the daemon),
	 * and libfuse's high-level readdirplus keeps entries filled at offset 0 in a list
	 * that each later request walks from its start: quadratic in a folder's entries
	 * (a 1 M-entry archive listed in 6.5x the time of `ls` of 1 M plain files). The
	 * plain readdir serves each request from one buffer by offset. */
	conn->want &= ~(unsigned)(FUSE_CAP_READDIRPLUS | FUSE_CAP_READDIRPLUS_AUTO);
	/* Lookups and listings of one folder at once: without it the kernel holds the
	 * folder's lock across each lookup, so the first lookup of a big archive (its
	 * check reads its tables: ~1 s for 1 M entries) keeps the other names of its
	 * folder waiting (issue 28). libfuse passes it to the kernel from 3.16 on only
	 * (3.14 drops it: docs/benchmark.md). */
	/* Pages are dropped at an open whose text is another (fileops.c), and when a
	 * lookup or stat finds another size; not at every read whose stat shows another
	 * mtime: with attributes never cached that stat would be a round trip per read. */
	conn->want &= ~(unsigned)FUSE_CAP_AUTO_INVAL_DATA;
	if (conn->capable & FUSE_CAP_PARALLEL_DIROPS)
		conn->want |= FUSE_CAP_PARALLEL_DIROPS;
	conn->max_read = AF_FUSE_MAX_READ; /* the mount's option (session.c) */
	cfg->use_ino = 0;
	cfg->nullpath_ok = 0; /* paths when known; NULL only for unlinked open files */
	/* An open file that is removed or replaced stays reachable under a .fuse_hidden
	 * name, so its descriptors keep working (fstat of `tail -f` across a save);
	 * such names are aliases that never reach GAME (hidden.c). */
	cfg->hard_remove = 0;
	/* Names and attributes kept S seconds (-o attr_cache=S; by default
	 * AF_ATTR_CACHE_DEFAULT when the kernel can be told of every change at once, else
	 * 0: every lookup and stat asks). Every change the mount makes or is told of ends in
	 * af_kc_epoch (kcache.h): the kernel looks each name up again at its next use, so
	 * a stat shows at once what a save, a rename or a change in GAME made of it (the
	 * watches of src/view/watch.c tell of those behind the mount's back, as they
	 * happen), a view turned into a folder or back included. An open that finds
	 * another text drops the attributes with the pages (fileops.c), so a read never
	 * stops at a stale size. What cannot be watched (past the watches' bound, a
	 * file system whose changes come from elsewhere) shows in a stat up to S seconds
	 * late (watch.c: then the names are dropped every second). Without the
	 * notification (a kernel before 6.16, protocol 7.44) the default is 0. Not under
	 * allow_other (state.c): the kernel keeps one size per inode, a caller who may not
	 * read a binary is shown its own. A name that is not there is always asked again
	 * (new files show at once). */
	struct af_fs *fs = af_ctx_fs();
	int epochs = conn->proto_major > 7 || (conn->proto_major == 7 && conn->proto_minor >= 44);
	if (fs->attr_cache < 0)
		fs->attr_cache = epochs && af_watch_whole(fs) ? AF_ATTR_CACHE_DEFAULT : 0;
	af_kc_epochs(epochs && fs->attr_cache > 0);
	if (fs->attr_cache > 0)
		af_fs_log(LOG_INFO, "names and attributes kept %g s; changes told to the kernel "
			  "at once: %s", fs->attr_cache,
			  !epochs ? "no (a kernel before protocol 7.44)"
			  : af_watch_whole(fs) ? "yes" : "through the mount only (GAME not watched)");
	cfg->attr_timeout = fs->attr_cache;
	cfg->entry_timeout = fs->attr_cache;
	cfg->negative_timeout = 0;
	return fs;
}

/* ---- the caller of a request: its uid, gid, umask and groups from the FUSE context,
 * and the thread acting as it for the request (the face's half of who.c) ---- */

/* The groups of the caller's process, read from /proc by the FUSE library: kept a
 * second per thread for the same process and user. */
static __thread struct {
	pid_t pid;
	uid_t uid;
	gid_t gid;
	time_t at;
	int n;
	gid_t g[AF_WHO_GROUPS];
} groups_seen;

static int who_of_request(struct af_who *w)
{
	struct fuse_context *c = fuse_get_context();
	struct af_who self = af_who_self();
	memset(w, 0, sizeof(*w));
	w->uid = c->uid;
	w->gid = c->gid;
	w->umask = c->umask;
	w->ngroups = -1;
	if (!af_act_enabled() || c->uid == 0 || (c->uid == self.uid && c->gid == self.gid))
		return 0;
	time_t now = time(NULL);
	if (groups_seen.pid == c->pid && groups_seen.uid == c->uid && groups_seen.gid == c->gid &&
	    groups_seen.at == now) {
		w->ngroups = groups_seen.n;
		memcpy(w->groups, groups_seen.g, sizeof(gid_t) * (size_t)groups_seen.n);
		return 0;
	}
	int n = fuse_getgroups(AF_WHO_GROUPS, w->groups);
	if (n < 0) /* no /proc entry (the process is gone): its own group only */
		n = 0;
	if (n > AF_WHO_GROUPS) {
		/* dropping one could grant what a group denies (mode 0604): refuse */
		af_fs_log(LOG_WARNING, "uid %u is in %d groups, more than the %d animfs acts with: "
			  "request refused", (unsigned)c->uid, n, AF_WHO_GROUPS);
		return -EACCES;
	}
	w->ngroups = n;
	groups_seen.pid = c->pid;
	groups_seen.uid = c->uid;
	groups_seen.gid = c->gid;
	groups_seen.at = now;
	groups_seen.n = n;
	memcpy(groups_seen.g, w->groups, sizeof(gid_t) * (size_t)n);
	return 0;
}

/* The thread takes the identity of the request's caller: 0, or -errno (-EACCES: in more
 * groups than animfs acts with) and it keeps the daemon's. */
static int act_caller(void)
{
	struct af_who w;
	int rc = who_of_request(&w);
	return rc ? rc : af_act_as(&w);
}

/* A core result as the errno of a request. -EAGAIN (a binary replaced between its proof
 * and its read more often than it was proven again: a rename race) is no answer for a
 * blocking read or open: it is EIO, as for a file that changed under the read. */
static int face_errno(int rc)
{
	rc = af_code_errno(rc);
	return rc == -EAGAIN ? -EIO : rc;
}

/* Every request runs as its caller (act_caller); the daemon's identity comes back at the
 * end, then `after` is done, and what the core said becomes errno here (af_code_errno:
 * an AF_E* result code its -errno, a -errno as it is). */
#define AS_CALLER_THEN(call, after)                                                  \
	do {                                                                         \
		int rc_ = act_caller();                                              \
		if (!rc_)                                                            \
			rc_ = (call);                                                \
		af_act_done();                                                       \
		after;                                                               \
		return rc_ < 0 ? face_errno(rc_) : rc_;                              \
	} while (0)
#define AS_CALLER(call) AS_CALLER_THEN(call, (void)0)
/* A request that may change what a stat shows (kcache.h: the open views' remembered
 * stats are of an older generation from then on). */
#define CHANGING(call) AS_CALLER_THEN(call, (af_kc_changed(), af_lc_changed()))
/* A close: a writer's may have saved (a name made, a binary shown as its view, a view
 * split); a reader's changes no name (listcache.h). */
#define CLOSING(call, fi)                                                              \
	AS_CALLER_THEN(call, (af_kc_changed(),                                        \
			      ((fi)->flags & O_ACCMODE) != O_RDONLY ? af_lc_changed() : (void)0))

typedef struct fuse_file_info ffi;
static int getattr_(const char *p, struct stat *st, ffi *fi) { AS_CALLER(af_op_getattr(p, st, fi)); }
static int opendir_(const char *p, ffi *fi) { AS_CALLER(af_op_opendir(p, fi)); }
static int releasedir_(const char *p, ffi *fi) { AS_CALLER(af_op_releasedir(p, fi)); }
static int readdir_(const char *p, void *b, fuse_fill_dir_t f, off_t o, ffi *fi,
		    enum fuse_readdir_flags fl) { AS_CALLER(af_op_readdir(p, b, f, o, fi, fl)); }
static int readlink_(const char *p, char *b, size_t n) { AS_CALLER(af_op_readlink(p, b, n)); }
static int symlink_(const char *t, const char *p) { CHANGING(af_op_symlink(t, p)); }
static int mkdir_(const char *p, mode_t m) { CHANGING(af_op_mkdir(p, m)); }
static int rmdir_(const char *p) { CHANGING(af_op_rmdir(p)); }
static int unlink_(const char *p) { CHANGING(af_op_unlink(p)); }
static int rename_(const char *a, const char *b, unsigned fl) { CHANGING(af_op_rename(a, b, fl)); }
static int chmod_(const char *p, mode_t m, ffi *fi) { CHANGING(af_op_chmod(p, m, fi)); }
static int chown_(const char *p, uid_t u, gid_t g, ffi *fi) { CHANGING(af_op_chown(p, u, g, fi)); }
static int utimens_(const char *p, const struct timespec tv[2], ffi *fi) { CHANGING(af_op_utimens(p, tv, fi)); }
static int statfs_(const char *p, struct statvfs *st) { AS_CALLER(af_op_statfs(p, st)); }
static int removexattr_(const char *p, const char *n) { AS_CALLER(af_op_removexattr(p, n)); }
static int open_(const char *p, ffi *fi) { AS_CALLER(af_op_open(p, fi)); }
static int create_(const char *p, mode_t m, ffi *fi) { CHANGING(af_op_create(p, m, fi)); }
static int read_(const char *p, char *b, size_t n, off_t o, ffi *fi) { AS_CALLER(af_op_read(p, b, n, o, fi)); }
static int write_(const char *p, const char *b, size_t n, off_t o, ffi *fi) { AS_CALLER(af_op_write(p, b, n, o, fi)); }
static int truncate_(const char *p, off_t n, ffi *fi) { CHANGING(af_op_truncate(p, n, fi)); }
static int flush_(const char *p, ffi *fi) { CLOSING(af_op_flush(p, fi), fi); }
static int fsync_(const char *p, int ds, ffi *fi) { CHANGING(af_op_fsync(p, ds, fi)); }
static int release_(const char *p, ffi *fi) { CLOSING(af_op_release(p, fi), fi); }

static const struct fuse_operations ops = {
	.init = op_init,
	.getattr = getattr_,
	.opendir = opendir_,
	.readdir = readdir_,
	.releasedir = releasedir_,
	.readlink = readlink_,
	.symlink = symlink_,
	.mkdir = mkdir_,
	.rmdir = rmdir_,
	.unlink = unlink_,
	.rename = rename_,
	.chmod = chmod_,
	.chown = chown_,
	.utimens = utimens_,
	.statfs = statfs_,
	.removexattr = removexattr_,
	.open = open_,
	.create = create_,
	.read = read_,
	.write = write_,
	.truncate = truncate_,
	.flush = flush_,
	.fsync = fsync_,
	.release = release_,
};

const struct fuse_operations *af_fs_operations(void)
{
	return &ops;
}
