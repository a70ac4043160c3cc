/* The namespace's open files (ns.h), and a path's attributes, which the open files
 * answer first (af_ns_stat: an open file's own, a view's buffer's size, a new file
 * that is only a buffer yet). A view and a control file are text handles (handle.c);
 * a view saves when its face says so (af_ns_save: an editor's close, fsync, a PUT's end).
 * Pass-through and scratch files are plain descriptors. What a face keeps of the files it
 * hands out (the FUSE face: the kernel's page cache) it is told through struct af_face's
 * note (session.h), and it decides from what an open found (struct af_ns_opened). */
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
#include "binary.h"
#include "errlog.h"
#include "folder.h"
#include "ghost.h"
#include "handle.h"
#include "ns.h"
#include "overlay.h"
#include "previews.h"
#include "render.h"
#include "res.h"
#include "scratch.h"
#include "session.h"
#include "splitview.h"
#include "view.h"
#include "who.h"

#define WRITE_FLAGS (O_WRONLY | O_RDWR | O_TRUNC | O_APPEND)

/* ---- a path's attributes ---- */

/* A file that exists only as an open, unsaved buffer (a new view being written). */
static int pending_stat(struct af_fs *fs, const char *rel, struct stat *st)
{
	long long size = af_handle_pending_size(fs, rel);
	if (size < 0)
		return -ENOENT;
	if (fstatat(fs->rootfd, ".", st, 0))
		return -errno;
	st->st_mode = S_IFREG | 0644;
	st->st_nlink = 1;
	st->st_size = size;
	st->st_blocks = (size + 511) / 512;
	st->st_ino = 0;
	return 0;
}

int af_ns_stat(struct af_fs *fs, const char *path, struct af_handle *h, struct stat *st)
{
	struct af_res r;
	int rc;
	if (h && h->kind == AF_H_FD)
		return fstat(h->fd, st) ? -errno : 0;
	if (!path && !h)
		return -ENOENT;
	rc = af_view_resolve(fs, path ? path : h->rel, &r);
	if (rc)
		return rc;
	if (r.kind == AF_K_NONE)
		return pending_stat(fs, r.rel, st);
	rc = af_view_stat(fs, &r, af_caller()->uid, st);
	if (rc == 0 && h && h->is_view) {
		/* fstat of an open view: its own buffer's size, not the saved text's */
		st->st_size = (off_t)af_handle_size(h);
		st->st_blocks = (st->st_size + 511) / 512;
	}
	return rc;
}

/* ---- open files ---- */

/* The error of a handle not made (af_handle_new_text: EFBIG past the bound). */
static int no_handle(void)
{
	return errno == EFBIG ? -EFBIG : -ENOMEM;
}

/* h handed out as the caller's open file (NULL: not made). */
static int put_handle(struct af_ns_opened *out, struct af_handle *h)
{
	if (!h)
		return no_handle();
	h->who = *af_caller();
	out->h = h;
	return 0;
}

/* A descriptor of rel beneath dfd (never through a link), opened as the caller: with
 * O_CREAT a file the caller makes is theirs, with their umask. */
static int open_fd(struct af_fs *fs, struct af_ns_opened *out, int dfd, const char *rel,
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
	return put_handle(out, h);
}

/* A read-only text handle (control files, a container's index.yaml); takes over t. */
static int open_ro_text(struct af_fs *fs, struct af_ns_opened *out, const char *rel,
			struct af_text *t)
{
	if (!t)
		return -ENOMEM;
	struct af_handle *h = af_handle_new_text(fs, rel, NULL, t, 0);
	af_text_unref(t);
	return put_handle(out, h);
}

static int open_preview_save(struct af_fs *fs, const char *view, const char *rel,
			     struct af_ns_opened *out);
static int refuse_ro_container(struct af_fs *fs, struct af_res *r);

static int open_ctl(struct af_fs *fs, struct af_res *r, int flags, struct af_ns_opened *out)
{
	char view[4200];
	if ((flags & WRITE_FLAGS) && af_previews_view(r->rel, view, sizeof(view)))
		return open_preview_save(fs, view, r->rel, out);
	if (flags & WRITE_FLAGS)
		return -EACCES;
	int err;
	struct af_text *t = af_ctl_text(fs, r->rel, af_caller()->uid, &err);
	return !t && err ? err : open_ro_text(fs, out, r->rel, t);
}

/* The folder a view's binary is in (a container's member: the container's), held by the
 * handle from now on: a save lands there even if the path is swapped meanwhile. plain:
 * the binary is a game file with only folders above it (res.h), no container's. */
static int pin_folder(struct af_fs *fs, struct af_handle *h, int plain)
{
	char path[4096], base[NAME_MAX + 1];
	if (af_ov_on(fs))
		return 0; /* a save lands in MODDIR, whose folder may not be made yet */
	if (plain || !af_folder_file(fs, h->bin, path, sizeof(path)))
		snprintf(path, sizeof(path), "%s", h->bin);
	h->dirfd = af_bn_parent(fs->rootfd, path, base, sizeof(base));
	return h->dirfd >= 0 ? 0 : -errno;
}

/* A text handle of a view (t: its text, NULL for an empty new one); plain: its binary
 * bin is a game file with only folders above it (res.h); part: a file of a split
 * view's folder. */
static int view_handle(struct af_fs *fs, struct af_ns_opened *out, const char *rel,
		       const char *bin, int plain, struct af_text *t, int part)
{
	struct af_handle *h = af_handle_new_text(fs, rel, bin, t, 1);
	if (h)
		h->part = part;
	int rc = h ? pin_folder(fs, h, plain) : no_handle();
	if (rc) {
		if (h)
			af_handle_free(fs, h);
		return rc;
	}
	return put_handle(out, h);
}

/* A glTF preview opened for writing (previews.c): a buffer whose save brings the glTF
 * back into the view's binary (a container's member: into its container), for those who
 * may write that binary (the container); a format that cannot take a glTF back or a
 * read-only view: EACCES; a member of a container never rewritten: EROFS. */
static int open_preview_save(struct af_fs *fs, const char *view, const char *rel,
			     struct af_ns_opened *out)
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
	if ((rc = pin_folder(fs, h, v.bin_plain))) {
		af_handle_free(fs, h);
		return rc;
	}
	return put_handle(out, h);
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

static int open_view(struct af_fs *fs, struct af_res *r, int flags, struct af_ns_opened *out)
{
	struct af_text *t = NULL;
	if (fs->read_only && (flags & WRITE_FLAGS))
		return -EROFS;
	/* the caller may open the binary so, or is told no before any text is handed out;
	 * the text is that file's */
	int rc = af_view_open_from(fs, r, (flags & O_ACCMODE) == O_RDONLY && (flags & O_TRUNC)
						  ? O_WRONLY : flags, flags & O_TRUNC ? NULL : &t,
				   &out->from, &out->by_caller);
	if (rc)
		return rc == -EIO ? -ENOENT : rc;
	if ((flags & WRITE_FLAGS) && af_view_read_only(fs, r)) {
		af_text_unref(t);
		if (r->info.container_ro)
			return refuse_ro_container(fs, r);
		af_fs_log(LOG_WARNING, "%s: read-only (its header says why); not opened for writing",
			  r->rel);
		return -EACCES;
	}
	rc = view_handle(fs, out, r->rel, r->bin, r->bin_plain, t, r->kind == AF_K_SPLITPART);
	out->codec = r->info.codec;
	if (t) {
		out->text = 1;
		out->len = t->len;
		out->src = t->src;
	}
	af_text_unref(t);
	return rc;
}

int af_ns_open(struct af_fs *fs, const char *path, int flags, struct af_ns_opened *out)
{
	struct af_res r;
	memset(out, 0, sizeof(*out));
	int rc = af_view_resolve(fs, path, &r);
	if (rc)
		return rc;
	out->kind = r.kind;
	switch (r.kind) {
	case AF_K_VIEW:
	case AF_K_SPLITPART:
		return open_view(fs, &r, flags, out);
	case AF_K_CTLFILE:
		return open_ctl(fs, &r, flags, out);
	case AF_K_PASS:
		if (fs->read_only && (flags & WRITE_FLAGS))
			return -EROFS;
		if ((rc = af_ov_open_tree(fs, r.rel, flags)) < 0)
			return rc; /* MODDIR's copy of a GAME file opened for writing */
		return open_fd(fs, out, rc, r.rel, flags, 0);
	case AF_K_SCRATCH: {
		int tree = af_scratch_dirfd(fs);
		return tree < 0 ? tree : open_fd(fs, out, tree, r.rel, flags, 0);
	}
	case AF_K_ARCFILE: {
		struct af_text *t;
		rc = af_view_open_text(fs, &r, O_RDONLY, &t); /* the container's readers only */
		if (rc)
			return rc == -EIO ? -ENOENT : rc;
		if (flags & WRITE_FLAGS) {
			af_text_unref(t);
			return -EACCES;
		}
		return open_ro_text(fs, out, r.rel, t);
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
static int create_aside(struct af_fs *fs, const struct af_res *r, int flags, mode_t mode,
			struct af_ns_opened *out)
{
	int fd = af_scratch_create(fs, r->rel, flags & ~O_CREAT, mode);
	if (fd < 0)
		return fd;
	struct af_handle *h = af_handle_new_fd(fs, fd, r->rel);
	if (!h) {
		close(fd);
	} else {
		h->scratch = 1;
		h->scratch_owner = af_scratch_owner(fs);
	}
	return put_handle(out, h);
}

int af_ns_create(struct af_fs *fs, const char *path, mode_t mode, int flags,
		 struct af_ns_opened *out)
{
	struct af_res r;
	memset(out, 0, sizeof(*out));
	int rc = af_view_resolve(fs, path, &r);
	if (rc)
		return rc;
	if (fs->read_only)
		return -EROFS;
	if (r.kind != AF_K_NONE) {
		if (flags & O_EXCL)
			return -EEXIST;
		return af_ns_open(fs, path, flags, out);
	}
	af_face_note(fs, AF_NOTE_GONE, r.rel); /* a new file: nothing a face kept is of it */
	if (r.ghost && r.ghost_of == AF_K_SCRATCH) {
		/* a dropping removed while still open (its removal waits for its last close):
		 * the new one replaces it, and that pending removal is off */
		af_face_alias_detach(fs, r.rel);
		af_ghost_del(fs, r.rel);
		af_scratch_unlink(fs, r.rel);
	}
	if (r.in_split && r.ghost && r.ghost_of == AF_K_SPLITPART) {
		/* an editor writing back a part it renamed away (vim, emacs): that part */
		if ((rc = af_view_may(fs, r.bin, O_WRONLY)))
			return rc;
		af_face_note(fs, AF_NOTE_WRITER, r.rel);
		return view_handle(fs, out, r.rel, r.bin, r.bin_plain, NULL, 1);
	}
	if (r.in_split && !af_split_aside(af_base(r.rel)) && !af_view_is_dropping(fs, r.rel))
		return af_split_refuse(fs, r.rel, "no file is added", af_caller()->uid);
	if (r.in_split) /* a tool's temp file (rsync's, Python's), to be renamed onto a part */
		return create_aside(fs, &r, flags, mode, out);
	if (r.ghost && r.ghost_of == AF_K_PASS) {
		/* an editor writing back a file it renamed away: the original, in place */
		int tree = af_ov_open_tree(fs, r.rel, O_WRONLY | O_CREAT | O_TRUNC);
		rc = tree < 0 ? tree : open_fd(fs, out, tree, r.rel,
					       (flags & ~O_EXCL) | O_CREAT | O_TRUNC, mode);
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
		af_face_note(fs, AF_NOTE_WRITER, r.rel);
		rc = view_handle(fs, out, r.rel, bin, 0, NULL, 0);
		if (rc == 0)
			out->h->mode = mode & 07777;
		return rc;
	}
	if (af_view_is_dropping(fs, r.rel)) /* an editor's own file: kept outside GAME */
		return create_aside(fs, &r, flags, mode, out);
	if (af_folder_member(fs, r.rel)) /* a file that is no member of its format */
		return af_folder_refuse(fs, r.rel, "plain file", af_caller()->uid);
	/* Anything else is the user's: it lands in GAME, as on the folder itself (a
	 * binary a codec claims is shown as its view once it is closed). */
	int tree = af_ov_open_tree(fs, r.rel, flags | O_CREAT);
	return tree < 0 ? tree : open_fd(fs, out, tree, r.rel, flags | O_CREAT, mode);
}

int af_ns_read(struct af_handle *h, char *buf, size_t n, off_t off)
{
	if (h->kind == AF_H_TEXT)
		return af_handle_read(h, buf, n, off);
	ssize_t got = pread(h->fd, buf, n, off);
	return got < 0 ? -errno : (int)got;
}

int af_ns_write(struct af_fs *fs, struct af_handle *h, const char *buf, size_t n, off_t off)
{
	if (h->kind == AF_H_TEXT)
		return h->is_view ? af_handle_write(h, buf, n, off) : -EBADF;
	struct stat st;
	long long grow = 0;
	if (h->scratch && fstat(h->fd, &st) == 0 && (long long)(off + (off_t)n) > st.st_size) {
		grow = (long long)(off + (off_t)n) - st.st_size;
		int rc = af_scratch_charge(fs, h->scratch_owner, grow);
		if (rc)
			return rc;
	}
	ssize_t put = pwrite(h->fd, buf, n, off);
	if (put < 0 && grow)
		af_scratch_charge(fs, h->scratch_owner, -grow);
	return put < 0 ? -errno : (int)put;
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

/* A save of h (af_handle_commit); one that changed the view is told to the face at once
 * (the FUSE face drops the kernel's pages and attributes of it: a process that has it
 * open or mapped reads the new text from its next page on). */
int af_ns_save(struct af_fs *fs, struct af_handle *h)
{
	int saving = h->kind == AF_H_TEXT && h->is_view &&
		     __atomic_load_n(&h->pending, __ATOMIC_ACQUIRE) >= 0;
	int rc = af_handle_commit(fs, h);
	if (saving) {
		af_face_note(fs, AF_NOTE_SAVED, h->rel);
		if (fs->splits) /* it may have turned into a folder of parts, or back */
			af_face_note(fs, AF_NOTE_NAMES, h->rel);
		if (af_folder_member(fs, h->bin)) { /* its container's index.yaml changed too */
			char idx[4200];
			const char *base = af_base(h->rel);
			snprintf(idx, sizeof(idx), "%.*sindex.yaml", (int)(base - h->rel), h->rel);
			af_face_note(fs, AF_NOTE_RESIZED, idx);
		}
	}
	return rc;
}

void af_ns_release(struct af_fs *fs, struct af_handle *h)
{
	af_ns_save(fs, h); /* no-op unless a change is unsaved */
	af_handle_free(fs, h);
}

void af_ns_abandon(struct af_handle *h)
{
	if (h->kind != AF_H_TEXT)
		return;
	pthread_mutex_lock(&h->lock);
	h->dirty = 0; /* abandoned: nothing of it is saved */
	pthread_mutex_unlock(&h->lock);
}
