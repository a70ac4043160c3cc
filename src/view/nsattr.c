/* The namespace's links and metadata (ns.h): a link read or made, a file's mode, owner,
 * times and size changed (a view's truncate: a save of the shortened text), the filesystem's figures, and the caller's lines of the errors'
 * log cleared. A view's metadata is its binary's (a member's: its container's); with
 * --overlay GAME's own files are never changed. Names no face. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "animfs/beneath.h"
#include "errlog.h"
#include "folder.h"
#include "handle.h"
#include "ns.h"
#include "overlay.h"
#include "res.h"
#include "scratch.h"
#include "session.h"
#include "splitview.h"
#include "view.h"
#include "who.h"

int af_ns_readlink(struct af_fs *fs, const char *path, char *buf, size_t size)
{
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

/* A link is the user's like any file (GAME), unless it is an editor's lock link
 * (emacs' `.#x`): that lives in the scratch area. */
int af_ns_symlink(struct af_fs *fs, const char *target, const char *path)
{
	struct af_res r;
	int rc = af_view_resolve(fs, path, &r);
	if (rc)
		return rc;
	if (r.kind != AF_K_NONE || r.ghost)
		return -EEXIST;
	if (fs->read_only)
		return -EROFS;
	if (af_ns_is_dropping(fs, r.rel))
		return af_scratch_symlink(fs, target, r.rel);
	if (af_folder_member(fs, r.rel))
		return af_folder_refuse(fs, r.rel, "link", af_caller()->uid);
	if (r.in_split)
		return af_split_refuse(fs, r.rel, "no link is made", af_caller()->uid);
	return af_ov_symlink(fs, target, r.rel);
}

/* The descriptor and name a metadata change applies to; -errno when none, 1 when
 * there is nothing to change yet. */
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

static int meta_fd(int fd, const struct af_ns_meta *m)
{
	int rc = m->op == AF_META_MODE    ? fchmod(fd, m->mode)
		 : m->op == AF_META_OWNER ? fchown(fd, m->uid, m->gid)
					  : futimens(fd, m->tv);
	return rc ? -errno : 0;
}

/* On name beneath dfd, through no link, and on a link itself, never on its target. */
static int meta_at(int dfd, const char *name, const struct af_ns_meta *m)
{
	char base[NAME_MAX + 1];
	int fd = m->op == AF_META_MODE ? af_bn_open(dfd, name, O_PATH, 0)
				       : af_bn_parent(dfd, name, base, sizeof(base));
	int rc;
	if (fd < 0)
		return -errno;
	if (m->op == AF_META_MODE)
		rc = af_bn_fchmod(fd, m->mode);
	else if (m->op == AF_META_OWNER)
		rc = fchownat(fd, base, m->uid, m->gid, AT_SYMLINK_NOFOLLOW);
	else
		rc = utimensat(fd, base, m->tv, AT_SYMLINK_NOFOLLOW);
	rc = rc ? -errno : 0;
	close(fd);
	return rc;
}

int af_ns_meta(struct af_fs *fs, const char *path, struct af_handle *h, const struct af_ns_meta *m)
{
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
	if (m->op == AF_META_TIMES && (r.kind == AF_K_VIEW || r.kind == AF_K_SPLITDIR ||
				       r.kind == AF_K_SPLITPART))
		return 0; /* a view's times are its binary's; only a save moves them */
	struct af_ns_meta file = *m;
	if (m->op == AF_META_MODE && r.kind == AF_K_SPLITDIR) {
		/* the folder shows the binary's mode with x where it has r: its r and w bits
		 * are the binary's, whose own x bits stay (rsync -a, cp -a of a folder) */
		file.mode = (m->mode & 0666) | (r.st.st_mode & 0111);
		m = &file;
	}
	if (dfd == fs->rootfd && (dfd = af_ov_meta_tree(fs, name)) < 0)
		return dfd; /* with --overlay GAME's own file is never changed */
	return meta_at(dfd, name, m);
}

int af_ns_statfs(struct af_fs *fs, struct statvfs *st)
{
	return fstatvfs(af_ov_top(fs), st) ? -errno : 0;
}

int af_ns_errors_clear(struct af_fs *fs, const char *path)
{
	struct af_res r;
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

/* ------------------------------------------------------------ a file's size */

/* ftruncate of a descriptor; a dropping that grows counts against its user's quota. */
static int truncate_fd(struct af_fs *fs, struct af_handle *h, off_t size)
{
	struct stat st;
	long long delta = 0;
	if (h->scratch && fstat(h->fd, &st) == 0) {
		delta = (long long)size - st.st_size;
		int rc = af_scratch_charge(fs, h->scratch_owner, delta);
		if (rc)
			return rc;
	}
	if (ftruncate(h->fd, size)) {
		int e = errno;
		af_scratch_charge(fs, h->scratch_owner, -delta);
		return -e;
	}
	return 0;
}

/* truncate(2) by name on a view: a save of the shortened text. */
static int truncate_view(struct af_fs *fs, struct af_res *r, off_t size)
{
	struct af_text *t;
	int rc;
	if (size == 0)
		return -EINVAL; /* an empty document is never a save */
	if ((rc = af_view_open_text(fs, r, O_WRONLY, &t)))
		return rc;
	if (af_view_read_only(fs, r)) {
		af_text_unref(t);
		return r->info.container_ro ? af_ns_refuse_ro_container(fs, r) : -EACCES;
	}
	struct af_handle *h = af_handle_new_text(fs, r->rel, r->bin, t, 1);
	af_text_unref(t);
	if (!h)
		return af_ns_no_handle();
	h->who = *af_caller();
	h->part = r->kind == AF_K_SPLITPART;
	rc = af_handle_truncate(h, size);
	if (rc == 0)
		rc = af_handle_commit(fs, h);
	/* the kernel truncates its own pages: the rest may be stale */
	af_face_note(fs, AF_NOTE_WRITER, r->rel);
	af_handle_free(fs, h);
	return rc;
}

int af_ns_truncate(struct af_fs *fs, const char *path, struct af_handle *h, off_t size)
{
	struct af_res r;
	int rc;
	if (h) {
		if (h->kind == AF_H_FD)
			return truncate_fd(fs, h, size);
		return h->is_view ? af_handle_truncate(h, size) : -EACCES;
	}
	rc = af_view_resolve(fs, path, &r);
	if (rc)
		return rc;
	if (fs->read_only && r.kind != AF_K_SCRATCH)
		return -EROFS;
	switch (r.kind) {
	case AF_K_VIEW:
	case AF_K_SPLITPART:
		return truncate_view(fs, &r, size);
	case AF_K_PASS:
	case AF_K_SCRATCH: {
		int dfd = r.kind == AF_K_PASS ? af_ov_open_tree(fs, r.rel, O_WRONLY) : af_scratch_dirfd(fs);
		if (dfd < 0)
			return dfd;
		int fd = af_bn_open(dfd, r.rel, O_WRONLY, 0);
		if (fd < 0)
			return -errno;
		rc = ftruncate(fd, size) ? -errno : 0;
		close(fd);
		return rc;
	}
	case AF_K_CTLFILE:
	case AF_K_ARCFILE:
		return -EACCES;
	case AF_K_DIR:
	case AF_K_CTLDIR:
	case AF_K_ARCDIR:
	case AF_K_SPLITDIR:
		return -EISDIR;
	default:
		return -ENOENT;
	}
}
