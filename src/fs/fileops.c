/* Operations on open files. Views and control files are text handles; a view commits
 * on flush and fsync. Pass-through and scratch files are plain descriptors.
 *
 * The kernel's page cache (issue 43): a view opened for reading and a pass-through
 * file are read through it, and its pages are kept across opens (keep_cache) while the
 * text is the one they came from (kcache.h: the proven binary's identity, the codec
 * and its version, the text's length, and what else its render read: the siblings
 * and the user dictionary a Jazz or CLIP view takes names from, by their identities,
 * deps.h). Served with direct_io, every read a round trip as before: a view opened
 * for writing (its buffer is the handle's), control files and a container's
 * index.yaml (made of more than one file's identity), a text of other sources whose
 * render did not note them (a container's member that takes names from the user
 * dictionary, a split view's part), and under -o allow_other a text that read
 * siblings as its caller (another caller's text and size differ, and the kernel's
 * pages and size are one per inode).
 * The size the kernel reads up to is the lookup's (attributes are never cached,
 * ops.c): a read past it asks again.
 *
 * The kernel's pages and size are one per inode, while each open of a view reads the
 * text it opened (a reader during a save reads the old text or the new, never a mix):
 * so a view is read through the page cache only while every handle of it open is
 * such a reader of the same text (af_handle_cache_claim), and never again once it was
 * opened for writing through the mount (af_kc_written: a writer's truncation and
 * writes change the size every reader's reads stop at). A reader open through the
 * page cache when a view is first opened for writing keeps its text whole: the kernel
 * marks the size stale at the writer's O_TRUNC and at each of its writes, and a read
 * that reaches the size asks it again through the reader's handle, answered with that
 * handle's text (nodeops.c; tests/mount/page_cache.sh reads past the writer's size,
 * with and without -o attr_cache). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "animfs/path.h"
#include "animfs/beneath.h"
#include "animfs/fileio.h"
#include "ops.h"
#include "binary.h"
#include "errlog.h"
#include "folder.h"
#include "ghost.h"
#include "hidden.h"
#include "kcache.h"
#include "overlay.h"
#include "previews.h"
#include "render.h"
#include "res.h"
#include "scratch.h"
#include "splitview.h"
#include "view.h"
#include "who.h"

#define WRITE_FLAGS (O_WRONLY | O_RDWR | O_TRUNC | O_APPEND)

/* The process of the request (its thread group: FUSE names the thread), or 0. */
static long caller_process(void)
{
	if (af_who_faceless_fs()) /* animfs serve: its own requests */
		return (long)getpid();
	long tid = (long)fuse_get_context()->pid, tgid = 0;
	char path[64], line[128];
	if (tid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/status", tid);
	FILE *f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Tgid:", 5)) {
			tgid = strtol(line + 5, NULL, 10);
			break;
		}
	if (f)
		fclose(f);
	return tgid > 0 ? tgid : tid;
}

/* The error of a handle not made (af_handle_new_text: EFBIG past the bound). */
static int no_handle(void)
{
	return errno == EFBIG ? -EFBIG : -ENOMEM;
}

static int put_handle(struct fuse_file_info *fi, struct af_handle *h, int direct)
{
	if (!h)
		return no_handle();
	h->who = *af_caller();
	/* only a handle that can write saves on its opener's close (a read-only one's
	 * flush has nothing to save: no /proc read for it, at open or at flush) */
	if (h->kind == AF_H_TEXT && h->is_view && (fi->flags & O_ACCMODE) != O_RDONLY)
		h->opener = caller_process();
	fi->fh = (uint64_t)(uintptr_t)h;
	fi->direct_io = direct;
	fi->keep_cache = 0;
	return 0;
}

/* A handle read through the page cache whose pages came from id: kept when the
 * kernel's pages of rel came from id as well. A read-only one needs no flush at its
 * close (it saves nothing). */
static void cache_pages(struct fuse_file_info *fi, const char *rel, uint64_t id)
{
	fi->direct_io = 0;
	fi->keep_cache = af_kc_open(rel, id);
	fi->noflush = (fi->flags & (O_ACCMODE | O_TRUNC)) == O_RDONLY;
	if (!fi->keep_cache && af_ctx_fs()->attr_cache > 0)
		af_kc_notify(rel); /* its size too: a read stops at the kernel's (ops.c) */
}

/* --overlay under -o allow_other: every caller is shown one owner and mode of a view
 * (overlay.c af_ov_show), but not one size (a caller who may not read the binary is
 * shown its own size), and the kernel keeps one set of attributes per inode, asked
 * again at each page-cached read that reaches the size: another user's O_TRUNC open
 * sets the size a reader's pages stop at (a short or empty read). Such views are read
 * with direct_io, whose reads ask nothing, as before issue 43. */
static int shown_per_caller(const struct af_fs *fs)
{
	return fs->others && af_ov_on(fs);
}

/* A GAME file opened for reading keeps the kernel's pages while it is the file they
 * came from; one opened for writing writes through them (the next open finds another
 * identity). */
static void cache_pass(struct fuse_file_info *fi, const char *rel)
{
	struct af_handle *h = af_fi_handle(fi);
	struct stat st;
	if ((fi->flags & WRITE_FLAGS) || fstat(h->fd, &st)) {
		af_kc_forget(rel);
		return;
	}
	cache_pages(fi, rel, af_kc_id(&st, NULL, 0, (uint64_t)st.st_size, AF_K_PASS, 0));
}

/* A view's handle just opened (t its text, from the binary whose identity is from):
 * through the page cache when its text is known by what it was made of (see the top). */
static void cache_view(struct af_fs *fs, struct fuse_file_info *fi, const struct af_res *r,
		       const struct af_text *t, const struct stat *from, int by_caller)
{
	const struct af_codec *c = r->info.codec;
	if (!t || (fi->flags & (WRITE_FLAGS | O_ACCMODE))) {
		af_kc_written(r->rel); /* a writer: direct_io for every reader from now on */
		return;
	}
	/* a text of other sources too (siblings, names) is known by them when its render
	 * noted them (t->src; not a member's, not a split view's part); one read as its
	 * caller is each caller's own under -o allow_other, with its own size */
	int others = by_caller || (c && c->render_uses_names);
	if (!c || (others && !t->src) || (by_caller && fs->others) || af_kc_is_written(r->rel) ||
	    shown_per_caller(fs))
		return;
	uint64_t id = af_kc_id(from, c, c->version, t->len, r->kind, t->src);
	if (!af_handle_cache_claim(fs, af_fi_handle(fi), id))
		return; /* open with another text, or for writing: direct_io, as they are */
	cache_pages(fi, r->rel, id);
	af_fi_handle(fi)->cached = 1;
}

/* A descriptor of rel beneath dfd (never through a link), opened as the caller: with
 * O_CREAT a file the caller makes is theirs, with their umask. */
static int open_fd(struct af_fs *fs, struct fuse_file_info *fi, int dfd, const char *rel,
		   int flags, mode_t mode)
{
	int fd = af_bn_open(dfd, rel, flags & ~O_NOFOLLOW, mode);
	if (fd < 0)
		return -errno;
	struct af_handle *h = af_handle_new_fd(fs, fd, rel);
	if (!h) {
		close(fd);
	} else {
		h->in_game = af_ov_is_tree(fs, dfd);
		h->scratch = !h->in_game;
		h->scratch_owner = h->scratch ? af_scratch_owner(fs) : 0;
	}
	return put_handle(fi, h, 0);
}

/* A read-only text handle (control files, a container's index.yaml); takes over t. */
static int open_ro_text(struct af_fs *fs, struct fuse_file_info *fi, const char *rel,
			struct af_text *t)
{
	if (!t)
		return -ENOMEM;
	struct af_handle *h = af_handle_new_text(fs, rel, NULL, t, 0);
	af_text_unref(t);
	return put_handle(fi, h, 1);
}

static int open_preview_save(struct af_fs *fs, const char *view, const char *rel, struct fuse_file_info *fi);
static int refuse_ro_container(struct af_fs *fs, struct af_res *r);

static int open_ctl(struct af_fs *fs, struct af_res *r, struct fuse_file_info *fi)
{
	char view[4200];
	if ((fi->flags & WRITE_FLAGS) && af_previews_view(r->rel, view, sizeof(view)))
		return open_preview_save(fs, view, r->rel, fi);
	if (fi->flags & WRITE_FLAGS)
		return -EACCES;
	int err;
	struct af_text *t = af_ctl_text(fs, r->rel, af_caller()->uid, &err);
	return !t && err ? err : open_ro_text(fs, fi, r->rel, t);
}

/* The folder a view's binary is in (a container's member: the container's), held by the
 * handle from now on: a save lands there even if the path is swapped meanwhile. */
static int pin_folder(struct af_fs *fs, struct af_handle *h)
{
	char path[4096], base[NAME_MAX + 1];
	if (!af_folder_file(fs, h->bin, path, sizeof(path)))
		snprintf(path, sizeof(path), "%s", h->bin);
	if (af_ov_on(fs))
		return 0; /* a save lands in MODDIR, whose folder may not be made yet */
	h->dirfd = af_bn_parent(fs->rootfd, path, base, sizeof(base));
	return h->dirfd >= 0 ? 0 : -errno;
}

/* A text handle of a view (t: its text, NULL for an empty new one); part: a file of a
 * split view's folder. */
static int view_handle(struct af_fs *fs, struct fuse_file_info *fi, const char *rel,
		       const char *bin, struct af_text *t, int part)
{
	struct af_handle *h = af_handle_new_text(fs, rel, bin, t, 1);
	if (h)
		h->part = part;
	int rc = h ? pin_folder(fs, h) : no_handle();
	if (rc) {
		if (h)
			af_handle_free(fs, h);
		return rc;
	}
	return put_handle(fi, h, 1);
}

/* A glTF preview opened for writing (previews.c): a buffer whose save brings the glTF
 * back into the view's binary (a container's member: into its container), for those who
 * may write that binary (the container); a format that cannot take a glTF back or a
 * read-only view: EACCES; a member of a container never rewritten: EROFS. */
static int open_preview_save(struct af_fs *fs, const char *view, const char *rel, struct fuse_file_info *fi)
{
	struct af_res v;
	int rc;
	if (fs->read_only)
		return -EROFS;
	if ((rc = af_view_resolve(fs, view, &v)))
		return rc;
	if (v.kind != AF_K_VIEW || !v.info.codec || !v.info.codec->scene_import)
		return -EACCES;
	if (af_view_read_only(fs, &v) && v.info.container_ro) {
		snprintf(v.rel, sizeof(v.rel), "%s", rel); /* the line names the preview */
		return refuse_ro_container(fs, &v);
	}
	if (v.info.read_only)
		return -EACCES;
	if ((rc = af_view_open_text(fs, &v, O_WRONLY, NULL))) /* the binary's writers only */
		return rc == -EIO ? -ENOENT : rc;
	struct af_handle *h = af_handle_new_text(fs, rel, v.bin, NULL, 1);
	if (!h)
		return no_handle();
	h->save = af_previews_save;
	if ((rc = pin_folder(fs, h))) {
		af_handle_free(fs, h);
		return rc;
	}
	return put_handle(fi, h, 1);
}

/* A member of a container that is never rewritten (its container says so): EROFS, and
 * a line in .animfs/errors for the one who tried. */
static int refuse_ro_container(struct af_fs *fs, struct af_res *r)
{
	struct af_diag d;
	af_diag_init(&d);
	af_diag_error(&d, AF_EROFS, "the container holding it is read-only: saves are refused");
	af_fs_log(LOG_WARNING, "%s: in a read-only container; not opened for writing", r->rel);
	af_errlog_add(fs->errors, af_caller()->uid, r->rel, &d);
	af_diag_free(&d);
	return -EROFS;
}

static int open_view(struct af_fs *fs, struct af_res *r, struct fuse_file_info *fi)
{
	struct af_text *t = NULL;
	struct stat from;
	int by_caller = 0;
	if (fs->read_only && (fi->flags & WRITE_FLAGS))
		return -EROFS;
	/* the caller may open the binary so, or is told no before any text is handed out;
	 * the text is that file's */
	int rc = af_view_open_from(fs, r, (fi->flags & O_ACCMODE) == O_RDONLY && (fi->flags & O_TRUNC)
						  ? O_WRONLY : fi->flags, fi->flags & O_TRUNC ? NULL : &t,
				   &from, &by_caller);
	if (rc)
		return rc == -EIO ? -ENOENT : rc;
	if ((fi->flags & WRITE_FLAGS) && af_view_read_only(fs, r)) {
		af_text_unref(t);
		if (r->info.container_ro)
			return refuse_ro_container(fs, r);
		af_fs_log(LOG_WARNING, "%s: read-only (its header says why); not opened for writing",
			  r->rel);
		return -EACCES;
	}
	rc = view_handle(fs, fi, r->rel, r->bin, t, r->kind == AF_K_SPLITPART);
	if (!rc)
		cache_view(fs, fi, r, t, &from, by_caller);
	af_text_unref(t);
	return rc;
}

int af_op_open(const char *path, struct fuse_file_info *fi)
{
	struct af_fs *fs = af_ctx_fs();
	struct af_res r;
	int rc = af_view_resolve(fs, path, &r);
	if (rc)
		return rc;
	switch (r.kind) {
	case AF_K_VIEW:
	case AF_K_SPLITPART:
		return open_view(fs, &r, fi);
	case AF_K_CTLFILE:
		return open_ctl(fs, &r, fi);
	case AF_K_PASS:
		if (fs->read_only && (fi->flags & WRITE_FLAGS))
			return -EROFS;
		if ((rc = af_ov_open_tree(fs, r.rel, fi->flags)) < 0)
			return rc; /* MODDIR's copy of a GAME file opened for writing */
		if ((rc = open_fd(fs, fi, rc, r.rel, fi->flags, 0)) == 0)
			cache_pass(fi, r.rel);
		return rc;
	case AF_K_SCRATCH: {
		int tree = af_scratch_dirfd(fs);
		return tree < 0 ? tree : open_fd(fs, fi, tree, r.rel, fi->flags, 0);
	}
	case AF_K_ARCFILE: {
		struct af_text *t;
		rc = af_view_open_text(fs, &r, O_RDONLY, &t); /* the container's readers only */
		if (rc)
			return rc == -EIO ? -ENOENT : rc;
		if (fi->flags & WRITE_FLAGS) {
			af_text_unref(t);
			return -EACCES;
		}
		return open_ro_text(fs, fi, r.rel, t);
	}
	case AF_K_DIR:
	case AF_K_CTLDIR:
	case AF_K_ARCDIR:
	case AF_K_SPLITDIR:
		return -EISDIR;
	default:
		return -ENOENT;
	}
}

/* The binary a new view name saves to: the name without ".yaml". */
static void bin_of(const char *rel, char *bin, size_t size)
{
	const char *base = af_base(rel);
	size_t n = (size_t)(base - rel) + af_view_strip(base);
	snprintf(bin, size, "%.*s", (int)n, rel);
}

/* A new file kept in the scratch area (an editor's dropping, a tool's temp file). */
static int create_aside(struct af_fs *fs, const struct af_res *r, struct fuse_file_info *fi,
			mode_t mode)
{
	int fd = af_scratch_create(fs, r->rel, fi->flags & ~O_CREAT, mode);
	if (fd < 0)
		return fd;
	struct af_handle *h = af_handle_new_fd(fs, fd, r->rel);
	if (!h) {
		close(fd);
	} else {
		h->scratch = 1;
		h->scratch_owner = af_scratch_owner(fs);
	}
	return put_handle(fi, h, 0);
}

int af_op_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	struct af_fs *fs = af_ctx_fs();
	struct af_res r;
	int rc = af_view_resolve(fs, path, &r);
	if (rc)
		return rc;
	if (fs->read_only)
		return -EROFS;
	if (r.kind != AF_K_NONE) {
		if (fi->flags & O_EXCL)
			return -EEXIST;
		return af_op_open(path, fi);
	}
	af_kc_forget(r.rel); /* a new file: nothing of the kernel's is of it */
	if (r.ghost && r.ghost_of == AF_K_SCRATCH) {
		/* a dropping removed while still open (its removal waits for its last close):
		 * the new one replaces it, and that pending removal is off */
		af_alias_detach(fs, r.rel);
		af_ghost_del(fs, r.rel);
		af_scratch_unlink(fs, r.rel);
	}
	if (r.in_split && r.ghost && r.ghost_of == AF_K_SPLITPART) {
		/* an editor writing back a part it renamed away (vim, emacs): that part */
		if ((rc = af_view_may(fs, r.bin, O_WRONLY)))
			return rc;
		af_kc_written(r.rel);
		return view_handle(fs, fi, r.rel, r.bin, NULL, 1);
	}
	if (r.in_split && !af_split_aside(af_base(r.rel)) && !af_view_is_dropping(fs, r.rel))
		return af_split_refuse(fs, r.rel, "no file is added", af_caller()->uid);
	if (r.in_split) /* a tool's temp file (rsync's, Python's), to be renamed onto a part */
		return create_aside(fs, &r, fi, mode);
	if (r.ghost && r.ghost_of == AF_K_PASS) {
		/* an editor writing back a file it renamed away: the original, in place */
		int tree = af_ov_open_tree(fs, r.rel, O_WRONLY | O_CREAT | O_TRUNC);
		rc = tree < 0 ? tree : open_fd(fs, fi, tree, r.rel,
					       (fi->flags & ~O_EXCL) | O_CREAT | O_TRUNC, mode);
		if (rc == 0)
			af_ghost_del(fs, r.rel);
		return rc;
	}
	/* (Finder's ._X of a view X is a view's name too: its dropping, kept aside) */
	if ((r.ghost && r.ghost_of == AF_K_VIEW) ||
	    (af_view_is_candidate(r.rel) && !af_view_is_dropping(fs, r.rel))) {
		char bin[4096];
		bin_of(r.rel, bin, sizeof(bin));
		/* a new binary will be the caller's: that they may make one there is known now,
		 * not only at the close */
		if ((rc = af_view_may_create(fs, bin)))
			return rc;
		af_kc_written(r.rel);
		rc = view_handle(fs, fi, r.rel, bin, NULL, 0);
		if (rc == 0)
			af_fi_handle(fi)->mode = mode & 07777;
		return rc;
	}
	if (af_view_is_dropping(fs, r.rel)) /* an editor's own file: kept outside GAME */
		return create_aside(fs, &r, fi, mode);
	if (af_folder_member(fs, r.rel)) /* a file that is no member of its format */
		return af_folder_refuse(fs, r.rel, "plain file", af_caller()->uid);
	/* Anything else is the user's: it lands in GAME, as on the folder itself (a
	 * binary a codec claims is shown as its view once it is closed). */
	int tree = af_ov_open_tree(fs, r.rel, fi->flags | O_CREAT);
	return tree < 0 ? tree : open_fd(fs, fi, tree, r.rel, fi->flags | O_CREAT, mode);
}

int af_op_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	struct af_handle *h = af_fi_handle(fi);
	(void)path;
	if (h->kind == AF_H_TEXT)
		return af_handle_read(h, buf, size, off);
	ssize_t n = pread(h->fd, buf, size, off);
	return n < 0 ? -errno : (int)n;
}

int af_op_write(const char *path, const char *buf, size_t size, off_t off,
		struct fuse_file_info *fi)
{
	struct af_handle *h = af_fi_handle(fi);
	(void)path;
	if (h->kind == AF_H_TEXT)
		return h->is_view ? af_handle_write(h, buf, size, off) : -EBADF;
	struct stat st;
	long long grow = 0;
	if (h->scratch && fstat(h->fd, &st) == 0 && (long long)(off + (off_t)size) > st.st_size) {
		grow = (long long)(off + (off_t)size) - st.st_size;
		int rc = af_scratch_charge(af_ctx_fs(), h->scratch_owner, grow);
		if (rc)
			return rc;
	}
	ssize_t n = pwrite(h->fd, buf, size, off);
	if (n < 0 && grow)
		af_scratch_charge(af_ctx_fs(), h->scratch_owner, -grow);
	return n < 0 ? -errno : (int)n;
}

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
		return r->info.container_ro ? refuse_ro_container(fs, r) : -EACCES;
	}
	struct af_handle *h = af_handle_new_text(fs, r->rel, r->bin, t, 1);
	af_text_unref(t);
	if (!h)
		return no_handle();
	h->who = *af_caller();
	h->part = r->kind == AF_K_SPLITPART;
	rc = af_handle_truncate(h, size);
	if (rc == 0)
		rc = af_handle_commit(fs, h);
	af_kc_written(r->rel); /* the kernel truncates its own pages: the rest may be stale */
	af_handle_free(fs, h);
	return rc;
}

int af_op_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	struct af_fs *fs = af_ctx_fs();
	struct af_handle *h = af_fi_handle(fi);
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

/* A save of h (af_handle_commit); one that changed the view drops the kernel's pages
 * and attributes of it at once (kcache.h): a process that has it open or mapped reads
 * the new text from its next page on. */
static int commit(struct af_fs *fs, struct af_handle *h)
{
	int saving = h->kind == AF_H_TEXT && h->is_view && __atomic_load_n(&h->pending, __ATOMIC_ACQUIRE) >= 0;
	int rc = af_handle_commit(fs, h);
	if (saving) {
		af_kc_invalidate(h->rel);
		if (af_folder_member(fs, h->bin)) { /* its container's index.yaml changed too */
			char idx[4200];
			const char *base = af_base(h->rel);
			snprintf(idx, sizeof(idx), "%.*sindex.yaml", (int)(base - h->rel), h->rel);
			af_kc_notify(idx);
		}
	}
	return rc;
}

/* A view saves when the process that opened it closes it (every close flushes; so
 * does the exit of a child that inherited the descriptor, as in
 * `{ head a; sleep 2; tail a; } > x.yaml`, and those must not save half a
 * document). fsync saves at once, and a change still unsaved when the last
 * descriptor goes (the opener closed first) is saved at release. */
int af_op_flush(const char *path, struct fuse_file_info *fi)
{
	struct af_handle *h = af_fi_handle(fi);
	(void)path;
	if (h->kind == AF_H_TEXT && h->is_view && h->opener && caller_process() != h->opener)
		return 0;
	return commit(af_ctx_fs(), h);
}

int af_op_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	struct af_handle *h = af_fi_handle(fi);
	(void)path;
	if (h->kind == AF_H_TEXT) {
		/* a refused document is EIO here: emacs takes EINVAL from fsync for "this file
		 * cannot be synced" and would say it wrote the file (close says EINVAL) */
		int rc = af_code_errno(commit(af_ctx_fs(), h));
		return rc == -EINVAL ? -EIO : rc;
	}
	int rc = datasync ? fdatasync(h->fd) : fsync(h->fd);
	return rc ? -errno : 0;
}

int af_op_release(const char *path, struct fuse_file_info *fi)
{
	struct af_fs *fs = af_ctx_fs();
	struct af_handle *h = af_fi_handle(fi);
	(void)path;
	commit(fs, h); /* no-op unless a change is unsaved (see flush) */
	af_handle_free(fs, h);
	return 0;
}
