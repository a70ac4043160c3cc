/* Open files. A pass-through or scratch file is a descriptor. A view is a private
 * text buffer: it starts as the rendered text (shared, copied on the first change),
 * write and truncate change only the buffer, and a commit encodes it. The text an open
 * file holds counts in the one memory bound (issue 47): lent from the texts' share while
 * open files hold it, else kept in a file of the daemon's and read from there, else the
 * open is refused (EFBIG, with a line). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "commit.h"
#include "dest.h"
#include "errlog.h"
#include "ghost.h"
#include "handle.h"
#include "render.h"
#include "session.h"
#include "splitview.h"
#include "who.h"
#include "animfs/yamlio.h"

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
