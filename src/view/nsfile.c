/* Open files, whichever face opened them, and the namespace's calls on them (ns.h).
 *
 * The open file (struct af_handle, handle.h): a pass-through or scratch file is a
 * descriptor. A view is a private text buffer: it starts as the rendered text (shared,
 * copied on the first change), write and truncate change only the buffer, and a commit
 * encodes it. The text an open file holds counts in the one memory bound (issue 47):
 * lent from the texts' share while open files hold it, else kept in a file of the
 * daemon's and read from there, else the open is refused (EFBIG, with a line).
 *
 * The namespace's open, read, write, save and release, and a path's attributes, which
 * the open files answer first (af_ns_stat: an open file's own, a view's buffer's size, a
 * new file that is only a buffer yet). A view and a control file are text handles; a
 * view saves when its face says so (af_ns_save: an editor's close, fsync, a PUT's end).
 * What a face keeps of the files it hands out (the FUSE face: the kernel's page cache)
 * it is told through struct af_face's note (session.h), and it decides from what an
 * open found (struct af_ns_opened). A create (nsnode.c) and a truncate (nsattr.c) make
 * their handles through af_ns_view_handle and af_ns_open_fd (handle.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "animfs/beneath.h"
#include "animfs/path.h"
#include "animfs/yamlio.h"
#include "binary.h"
#include "commit.h"
#include "dest.h"
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

/* ------------------------------------------------------------ the open file */

static struct af_handle *alloc_handle(struct af_fs *fs, const char *rel)
{
	struct af_handle *h = af_alloc_zeroed(1, sizeof(*h));
	if (!h)
		return NULL;
	h->fd = -1;
	h->dirfd = -1;
	h->tfd = -1;
	h->fs = fs;
	h->who = af_who_self();
	snprintf(h->rel, sizeof(h->rel), "%s", rel);
	pthread_mutex_init(&h->lock, NULL);
	pthread_mutex_lock(&fs->lock);
	h->next = fs->handles;
	if (fs->handles)
		fs->handles->prev = h;
	fs->handles = h;
	pthread_mutex_unlock(&fs->lock);
	return h;
}

/* Count a private buffer's new length against --unsaved-mb (all open views
 * together), so that many writers cannot take the daemon's memory between them. */
static int charge(struct af_handle *h, size_t len)
{
	struct af_fs *fs = h->fs;
	if (len <= h->charged) {
		__atomic_sub_fetch(&fs->unsaved, h->charged - len, __ATOMIC_RELAXED);
		h->charged = len;
		return 0;
	}
	size_t more = len - h->charged;
	if (__atomic_add_fetch(&fs->unsaved, more, __ATOMIC_RELAXED) > fs->max_unsaved) {
		__atomic_sub_fetch(&fs->unsaved, more, __ATOMIC_RELAXED);
		af_fs_log(LOG_WARNING, "%s: refused a write: open views hold more than --unsaved-mb=%zu "
			  "MiB of unsaved text", h->rel, fs->max_unsaved >> 20);
		return -ENOMEM;
	}
	h->charged = len;
	return 0;
}

struct af_handle *af_handle_new_fd(struct af_fs *fs, int fd, const char *rel)
{
	struct af_handle *h = alloc_handle(fs, rel);
	if (h) {
		h->kind = AF_H_FD;
		h->fd = fd;
	}
	return h;
}

/* The text as opened let go (its loan or its file). */
static void let_go(struct af_handle *h)
{
	if (h->held)
		af_rcache_unhold(h->fs->cache, h->snap);
	h->held = 0;
	af_text_unref(h->snap);
	h->snap = NULL;
	if (h->tfd >= 0) {
		close(h->tfd);
		af_rcache_unhold_file(h->fs->cache, h->tlen);
	}
	h->tfd = -1;
	h->tlen = 0;
}

/* h's text as opened, within the bound: lent from the texts' share, else in a file of the
 * daemon's (h->snap let go), else refused with its line: 0 or -EFBIG. */
static int hold(struct af_handle *h)
{
	struct af_fs *fs = h->fs;
	struct af_text *t = h->snap;
	int fd;
	if (!t || !t->len || !fs->cache || (h->held = af_rcache_hold(fs->cache, t)))
		return 0;
	if ((fd = af_rcache_hold_file(fs->cache, t)) >= 0) {
		h->tfd = fd;
		h->tlen = t->len;
		af_text_unref(t);
		h->snap = NULL;
		return 0;
	}
	struct af_diag d;
	af_diag_init(&d);
	af_diag_error(&d, AF_ENOMEM, "opening it would take more than %zu MiB of text beside what open files "
		      "hold, more than --cache-mb=%zu lets them hold in memory, and no room is left for it "
		      "on disk beside the spill file (%s): close some or raise --cache-mb",
		      (t->len + ((size_t)1 << 20) - 1) >> 20, fs->cache_bytes >> 20,
		      fd == -EFBIG ? "past its cap, or no folder for it" : strerror(-fd));
	af_errlog_add(fs->errors, h->who.uid, h->rel, &d);
	af_fs_log(LOG_WARNING, "%s: %s (not opened)", h->rel, d.msg);
	af_diag_free(&d);
	return -EFBIG;
}

struct af_handle *af_handle_new_text(struct af_fs *fs, const char *rel, const char *bin,
				     struct af_text *snap, int is_view)
{
	struct af_handle *h = alloc_handle(fs, rel);
	if (!h) {
		errno = ENOMEM;
		return NULL;
	}
	h->kind = AF_H_TEXT;
	h->is_view = is_view;
	h->is_ctl = !is_view;
	snprintf(h->bin, sizeof(h->bin), "%s", bin ? bin : "");
	h->snap = af_text_ref(snap);
	h->pending = -1;
	if (!snap) {
		h->owned = 1; /* a new or truncated view: empty and changed */
		h->dirty = 1;
		h->pending = 0;
	}
	if (hold(h)) {
		af_handle_free(fs, h);
		errno = EFBIG;
		return NULL;
	}
	return h;
}

void af_handle_free(struct af_fs *fs, struct af_handle *h)
{
	if (h->kind == AF_H_TEXT && h->is_view && h->dirty && h->own.len == 0) {
		struct af_diag d;
		af_diag_init(&d);
		af_diag_error(&d, AF_EINVAL, "the file was emptied and closed; an empty document is "
			      "not saved (the binary is unchanged)");
		af_errlog_add(fs->errors, h->who.uid, h->rel, &d);
		af_fs_log(LOG_WARNING, "%s: emptied and closed; not saved", h->rel);
		af_diag_free(&d);
	}
	pthread_mutex_lock(&fs->lock);
	if (h->prev)
		h->prev->next = h->next;
	else
		fs->handles = h->next;
	if (h->next)
		h->next->prev = h->prev;
	pthread_mutex_unlock(&fs->lock);
	if (h->fd >= 0)
		close(h->fd);
	if (h->dirfd >= 0)
		close(h->dirfd);
	let_go(h);
	charge(h, 0);
	af_buf_free(&h->own);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

/* The text in memory (NULL: none, or in h->tfd), its length in *len. */
static const uint8_t *text_of(struct af_handle *h, size_t *len)
{
	if (h->owned) {
		*len = h->own.len;
		return h->own.data;
	}
	if (h->tfd >= 0) {
		*len = h->tlen;
		return NULL;
	}
	*len = h->snap ? h->snap->len : 0;
	return h->snap ? h->snap->data : NULL;
}

/* n bytes at off of the text in h->tfd read into out (as far as it goes): the count, or
 * -errno. */
static int read_file(struct af_handle *h, void *out, size_t n, off_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(h->tfd, (char *)out + got, n - got, off + (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			break;
		got += (size_t)r;
	}
	return (int)got;
}

size_t af_handle_size(struct af_handle *h)
{
	size_t len;
	pthread_mutex_lock(&h->lock);
	text_of(h, &len);
	pthread_mutex_unlock(&h->lock);
	return len;
}

int af_handle_read(struct af_handle *h, char *out, size_t n, off_t off)
{
	size_t len;
	pthread_mutex_lock(&h->lock);
	const uint8_t *p = text_of(h, &len);
	int got = 0;
	if (off >= 0 && (uint64_t)off < len) {
		size_t k = len - (size_t)off < n ? len - (size_t)off : n;
		got = p ? (memcpy(out, p + off, k), (int)k) : read_file(h, out, k, off);
	}
	pthread_mutex_unlock(&h->lock);
	return got;
}

/* Take a private copy of the shared text before the first change. */
static int own(struct af_handle *h)
{
	size_t len;
	if (h->owned)
		return 0;
	const uint8_t *p = text_of(h, &len);
	if (len && charge(h, len))
		return -ENOMEM;
	if (len && af_buf_reserve(&h->own, len))
		return -ENOMEM;
	if (p)
		memcpy(h->own.data, p, len);
	else if (len && read_file(h, h->own.data, len, 0) != (int)len)
		return -EIO;
	h->own.len = len;
	let_go(h);
	h->owned = 1;
	return 0;
}

/* Views are text documents: AF_MAX_YAML is far above any real one, so a runaway
 * writer gets EFBIG instead of eating the daemon's memory. */
#define AF_MAX_VIEW AF_MAX_YAML

int af_handle_write(struct af_handle *h, const char *in, size_t n, off_t off)
{
	int rc;
	if (off < 0 || (uint64_t)off > AF_MAX_VIEW || n > AF_MAX_VIEW - (size_t)off)
		return -EFBIG;
	pthread_mutex_lock(&h->lock);
	rc = own(h);
	if (rc)
		goto out;
	size_t end = (size_t)off + n;
	if (end > h->own.len) {
		if ((rc = charge(h, end)))
			goto out;
		if (af_buf_reserve(&h->own, end - h->own.len)) {
			rc = -ENOMEM;
			goto out;
		}
		if ((size_t)off > h->own.len)
			memset(h->own.data + h->own.len, 0, (size_t)off - h->own.len);
		h->own.len = end;
	}
	memcpy(h->own.data + off, in, n);
	h->dirty = 1;
	__atomic_store_n(&h->pending, (long long)h->own.len, __ATOMIC_RELEASE);
	rc = (int)n;
out:
	pthread_mutex_unlock(&h->lock);
	return rc;
}

int af_handle_truncate(struct af_handle *h, off_t size)
{
	int rc;
	if (size < 0 || (uint64_t)size > AF_MAX_VIEW)
		return -EFBIG;
	pthread_mutex_lock(&h->lock);
	rc = own(h);
	if (rc)
		goto out;
	if ((rc = charge(h, (size_t)size)))
		goto out;
	if ((size_t)size > h->own.len) {
		if (af_buf_fill(&h->own, 0, (size_t)size - h->own.len)) {
			rc = -ENOMEM;
			goto out;
		}
	}
	h->own.len = (size_t)size;
	h->dirty = 1;
	h->zeroed |= size == 0;
	__atomic_store_n(&h->pending, (long long)h->own.len, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&h->lock);
	return rc;
}

int af_handle_commit(struct af_fs *fs, struct af_handle *h)
{
	int rc = 0, tried = 0;
	if (h->kind != AF_H_TEXT || !h->is_view)
		return 0;
	pthread_mutex_lock(&h->lock);
	/* An empty buffer is never a document: it is what a shell's `>` or an editor's
	 * O_TRUNC leaves before the first write, and a dup'd descriptor closed then
	 * flushes it. Wait for content; release reports a view left empty. An
	 * explicit ftruncate to 0 on an open view is a save of nothing: refused. */
	if (h->dirty && (h->own.len > 0 || h->zeroed)) {
		/* One attempt per change: a failed save is reported once, and the
		 * view shows the backing file again when this handle closes. */
		tried = 1;
		struct af_dest to = {h->dirfd, h->bin, h->who,
				     h->mode ? h->mode : 0666 & ~h->who.umask, 0, NULL, NULL, NULL, 0, 0};
		rc = (h->save ? h->save : h->part ? af_split_commit : af_commit_to)(
			fs, &to, h->rel, h->own.data ? h->own.data : (const uint8_t *)"", h->own.len);
		h->dirty = 0;
		__atomic_store_n(&h->pending, -1LL, __ATOMIC_RELEASE);
	}
	if (tried)
		h->refused = rc; /* until the next change: every later close says it too */
	else if (!h->dirty && h->refused)
		rc = h->refused;
	pthread_mutex_unlock(&h->lock);
	if (tried && rc == 0 && af_ghost_has(fs, h->rel, NULL)) {
		af_ghost_del(fs, h->rel);
		if (h->part) /* a removed part written back (install, tar x, git checkout) */
			af_errlog_forget(fs->errors, h->rel);
	}
	return rc;
}

int af_handle_cache_claim(struct af_fs *fs, struct af_handle *h, uint64_t id)
{
	int ok = 1;
	pthread_mutex_lock(&fs->lock);
	for (struct af_handle *o = fs->handles; o && ok; o = o->next)
		ok = o == h || o->kind != AF_H_TEXT || !o->is_view || strcmp(o->rel, h->rel) ||
		     o->kc_id == id;
	if (ok)
		h->kc_id = id;
	pthread_mutex_unlock(&fs->lock);
	return ok;
}

int af_handle_game_open(struct af_fs *fs, const char *rel)
{
	int found = 0;
	pthread_mutex_lock(&fs->lock);
	for (struct af_handle *h = fs->handles; h && !found; h = h->next)
		found = h->kind == AF_H_FD && h->in_game && !strcmp(h->rel, rel);
	pthread_mutex_unlock(&fs->lock);
	return found;
}

long long af_handle_pending_size(struct af_fs *fs, const char *rel)
{
	long long size = -1;
	pthread_mutex_lock(&fs->lock);
	for (struct af_handle *h = fs->handles; h; h = h->next) {
		if (h->kind != AF_H_TEXT || !h->is_view || strcmp(h->rel, rel))
			continue;
		size = __atomic_load_n(&h->pending, __ATOMIC_ACQUIRE);
		if (size >= 0)
			break;
	}
	pthread_mutex_unlock(&fs->lock);
	return size;
}

size_t af_handle_view_size(struct af_fs *fs, const char *rel, size_t saved)
{
	size_t most = saved;
	long long writing = -1;
	if (!__atomic_load_n(&fs->handles, __ATOMIC_ACQUIRE)) /* no open file: no lock */
		return saved;
	pthread_mutex_lock(&fs->lock);
	for (struct af_handle *h = fs->handles; h && writing < 0; h = h->next) {
		if (h->kind != AF_H_TEXT || !h->is_view || strcmp(h->rel, rel))
			continue;
		writing = __atomic_load_n(&h->pending, __ATOMIC_ACQUIRE);
		size_t len = af_handle_size(h);
		if (len > most)
			most = len;
	}
	pthread_mutex_unlock(&fs->lock);
	return writing >= 0 ? (size_t)writing : most;
}

/* ------------------------------------------------------------ the namespace's open files */

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
	if (rc == 0 && (r.kind == AF_K_VIEW || r.kind == AF_K_SPLITPART)) {
		/* open ones may hold other texts than the saved one */
		st->st_size = (off_t)af_handle_view_size(fs, r.rel, (size_t)st->st_size);
		st->st_blocks = (st->st_size + 511) / 512;
	}
	if (rc == 0 && h && h->is_view) {
		/* fstat of an open view: its own buffer's size, not the saved text's */
		st->st_size = (off_t)af_handle_size(h);
		st->st_blocks = (st->st_size + 511) / 512;
	}
	return rc;
}

/* ---- open files ---- */

/* The error of a handle not made (af_handle_new_text: EFBIG past the bound). */
int af_ns_no_handle(void)
{
	return errno == EFBIG ? -EFBIG : -ENOMEM;
}

/* h handed out as the caller's open file (NULL: not made). */
int af_ns_put_handle(struct af_ns_opened *out, struct af_handle *h)
{
	if (!h)
		return af_ns_no_handle();
	h->who = *af_caller();
	out->h = h;
	return 0;
}

/* A descriptor of rel beneath dfd (never through a link), opened as the caller: with
 * O_CREAT a file the caller makes is theirs, with their umask. */
int af_ns_open_fd(struct af_fs *fs, struct af_ns_opened *out, int dfd, const char *rel,
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
	return af_ns_put_handle(out, h);
}

/* A read-only text handle (control files, a container's index.yaml); takes over t. */
static int open_ro_text(struct af_fs *fs, struct af_ns_opened *out, const char *rel,
			struct af_text *t)
{
	if (!t)
		return -ENOMEM;
	struct af_handle *h = af_handle_new_text(fs, rel, NULL, t, 0);
	af_text_unref(t);
	return af_ns_put_handle(out, h);
}

static int open_preview_save(struct af_fs *fs, const char *view, const char *rel,
			     struct af_ns_opened *out);

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
int af_ns_view_handle(struct af_fs *fs, struct af_ns_opened *out, const char *rel,
		       const char *bin, int plain, struct af_text *t, int part)
{
	struct af_handle *h = af_handle_new_text(fs, rel, bin, t, 1);
	if (h)
		h->part = part;
	int rc = h ? pin_folder(fs, h, plain) : af_ns_no_handle();
	if (rc) {
		if (h)
			af_handle_free(fs, h);
		return rc;
	}
	return af_ns_put_handle(out, h);
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
		return af_ns_refuse_ro_container(fs, &v);
	}
	if (v.info.read_only)
		return -EACCES;
	if ((rc = af_view_open_text(fs, &v, O_WRONLY, NULL))) /* the binary's writers only */
		return rc == -EIO ? -ENOENT : rc;
	struct af_handle *h = af_handle_new_text(fs, rel, v.bin, NULL, 1);
	if (!h)
		return af_ns_no_handle();
	h->save = af_previews_save;
	if ((rc = pin_folder(fs, h, v.bin_plain))) {
		af_handle_free(fs, h);
		return rc;
	}
	return af_ns_put_handle(out, h);
}

/* A member of a container that is never rewritten (its container says so): EROFS, and
 * a line in .animfs/errors for the one who tried. */
int af_ns_refuse_ro_container(struct af_fs *fs, struct af_res *r)
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
			return af_ns_refuse_ro_container(fs, r);
		af_fs_log(LOG_WARNING, "%s: read-only (its header says why); not opened for writing",
			  r->rel);
		return -EACCES;
	}
	rc = af_ns_view_handle(fs, out, r->rel, r->bin, r->bin_plain, t, r->kind == AF_K_SPLITPART);
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
		return af_ns_open_fd(fs, out, rc, r.rel, flags, 0);
	case AF_K_SCRATCH: {
		int tree = af_scratch_dirfd(fs);
		return tree < 0 ? tree : af_ns_open_fd(fs, out, tree, r.rel, flags, 0);
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
