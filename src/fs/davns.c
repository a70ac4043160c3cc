/* The namespace of the views as the WebDAV face (src/dav) asks for it: each of its
 * operations is the mount's own operation of the same name (nodeops.c, fileops.c,
 * rename.c), so a PUT is the save an editor's write and close is, a listing is the
 * mount's listing, and a refused save leaves the binary as it was. The serving user is
 * every request's caller (who.c: af_who_faceless). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "animfs/path.h"
#include "animfs/dav.h"
#include "binary.h"
#include "dirlist.h"
#include "ns.h"
#include "davns.h"
#include "errlog.h"
#include "ops.h"
#include "view.h"
#include "who.h"

#define PATHLEN 4200

/* "/" + rel: the mount's path of rel */
static void fpath(char *out, const char *rel)
{
	snprintf(out, PATHLEN, "/%s", rel);
}

static int ns_stat(void *ctx, const char *rel, struct stat *st)
{
	char p[PATHLEN];
	fpath(p, rel);
	int rc = af_act_caller();
	if (!rc)
		rc = af_ns_stat(ctx, p, NULL, st);
	af_act_done();
	return rc;
}

/* A folder's listing, made once as its caller at the first read and served from there
 * (a reply that stops goes on where it stopped). */
struct af_dav_dir {
	struct af_fs *fs;
	struct af_dirlist *names;
	char path[PATHLEN];
	size_t next;    /* the next entry to give */
	int listed;
};

static int ns_open_dir(void *ctx, const char *rel, struct af_dav_dir **out)
{
	struct stat st;
	int rc = ns_stat(ctx, rel, &st);
	if (rc)
		return rc;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	struct af_dav_dir *dd = af_alloc_zeroed(1, sizeof *dd);
	if (!dd || !(dd->names = af_dirlist_new())) {
		free(dd);
		return -ENOMEM;
	}
	dd->fs = ctx;
	fpath(dd->path, rel);
	*out = dd;
	return 0;
}

static int ns_read_dir(struct af_dav_dir *dd, int (*fn)(void *, const char *), void *arg)
{
	if (!dd->listed) {
		int rc = af_act_caller();
		if (!rc)
			rc = af_ns_list(dd->fs, dd->path, af_dirlist_add, dd->names);
		af_act_done();
		if (!rc && af_dirlist_failed(dd->names))
			rc = -ENOMEM;
		if (rc)
			return rc;
		dd->listed = 1;
	}
	for (size_t n = af_dirlist_count(dd->names); dd->next < n; dd->next++) {
		const char *name = af_dirlist_name(dd->names, dd->next);
		if (strcmp(name, ".") && strcmp(name, "..") && fn(arg, name))
			return 1; /* not taken: it comes again at the next read */
	}
	return 0;
}

static void ns_close_dir(struct af_dav_dir *dd)
{
	af_dirlist_free(dd->names);
	free(dd);
}

struct af_dav_reader {
	struct fuse_file_info fi;
	char path[PATHLEN];
};

static int ns_open_read(void *ctx, const char *rel, struct af_dav_reader **out, struct stat *st)
{
	(void)ctx;
	struct af_dav_reader *r = af_alloc_zeroed(1, sizeof *r);
	if (!r)
		return -ENOMEM;
	fpath(r->path, rel);
	r->fi.flags = O_RDONLY;
	int rc = af_act_caller();
	if (!rc && !(rc = af_op_open(r->path, &r->fi)) &&
	    (rc = af_op_getattr(r->path, st, &r->fi)))
		af_op_release(r->path, &r->fi);
	af_act_done();
	if (rc) {
		free(r);
		return rc;
	}
	*out = r;
	return 0;
}

static long ns_read(struct af_dav_reader *r, char *buf, size_t n, uint64_t off)
{
	int rc = af_act_caller();
	if (!rc)
		rc = af_op_read(r->path, buf, n, (off_t)off, &r->fi);
	af_act_done();
	return rc;
}

static void ns_close_read(struct af_dav_reader *r)
{
	af_act_caller();
	af_op_flush(r->path, &r->fi);
	af_op_release(r->path, &r->fi);
	af_act_done();
	free(r);
}

/* A PUT: a view (or a part, a member, a new binary's text) is written into its open
 * handle and saved by the close, as an editor's save is; any other file is written
 * under a temporary name beside it and renamed onto its name at the end, so the old
 * file stays whole until the new one is. */
struct af_dav_writer {
	struct fuse_file_info fi;
	char path[PATHLEN];    /* what is written now */
	char target[PATHLEN];  /* the name it ends as (a temporary one: renamed onto it) */
	int temp;
	uint64_t len;
};

static unsigned long put_seq;

static int ns_open_write(void *ctx, const char *rel, struct af_dav_writer **out, int *created)
{
	struct af_fs *fs = ctx;
	struct af_res r;
	struct stat st;
	struct af_dav_writer *w = af_alloc_zeroed(1, sizeof *w);
	if (!w)
		return -ENOMEM;
	fpath(w->target, rel);
	int rc = af_act_caller();
	if (rc)
		goto out;
	*created = af_op_getattr(w->target, &st, NULL) != 0;
	if ((rc = af_view_resolve(fs, w->target, &r)))
		goto out;
	w->temp = r.kind == AF_K_PASS ||
		  (r.kind == AF_K_NONE && !r.ghost && !af_view_is_candidate(r.rel) &&
		   !af_view_is_dropping(fs, r.rel) && !r.in_split);
	if (w->temp) {
		const char *base = af_base(w->target);
		snprintf(w->path, sizeof w->path, "%.*s.%s.animfs-put-%ld-%lu",
			 (int)(base - w->target), w->target, base, (long)getpid(),
			 __atomic_add_fetch(&put_seq, 1, __ATOMIC_RELAXED));
	} else {
		snprintf(w->path, sizeof w->path, "%s", w->target);
	}
	w->fi.flags = O_WRONLY | O_CREAT | O_TRUNC;
	rc = af_op_create(w->path, 0666 & ~af_caller()->umask, &w->fi);
out:
	af_act_done();
	if (rc) {
		free(w);
		return rc;
	}
	*out = w;
	return 0;
}

static int ns_write(struct af_dav_writer *w, const char *buf, size_t n, uint64_t off)
{
	int rc = af_act_caller();
	while (!rc && n) {
		rc = af_op_write(w->path, buf, n, (off_t)off, &w->fi);
		if (rc > 0) {
			buf += rc;
			n -= (size_t)rc;
			off += (uint64_t)rc;
			w->len += (uint64_t)rc;
			rc = 0;
		} else if (rc == 0) {
			rc = -EIO;
		}
	}
	af_act_done();
	return rc;
}

static int ns_close_write(struct af_dav_writer *w, int commit, char *why, size_t n)
{
	struct af_fs *fs = af_ctx_fs();
	struct af_handle *h = af_fi_handle(&w->fi);
	int rc = af_act_caller();
	if (!rc && !commit && h && h->kind == AF_H_TEXT) {
		pthread_mutex_lock(&h->lock);
		h->dirty = 0; /* abandoned: nothing of it is saved */
		pthread_mutex_unlock(&h->lock);
	}
	if (!rc && commit && !w->temp && w->len == 0 && h && h->kind == AF_H_TEXT) {
		/* an empty body (Windows sends one before every save) never empties a view */
		pthread_mutex_lock(&h->lock);
		h->dirty = 0;
		pthread_mutex_unlock(&h->lock);
	}
	int saved = rc ? rc : commit ? af_op_flush(w->path, &w->fi) : 0;
	af_op_release(w->path, &w->fi);
	if (w->temp && (!commit || saved || (saved = af_op_rename(w->path, w->target, 0))))
		af_op_unlink(w->path);
	af_act_done();
	if (saved && why && n) {
		why[0] = 0;
		af_errlog_newest(fs->errors, af_caller()->uid, w->target + 1, why, n);
	}
	free(w);
	return saved;
}

#define AS_CALLER(call)                                                              \
	do {                                                                         \
		int rc_ = af_act_caller();                                           \
		if (!rc_)                                                            \
			rc_ = (call);                                                \
		af_act_done();                                                       \
		return rc_;                                                          \
	} while (0)

static int ns_mkcol(void *ctx, const char *rel)
{
	char p[PATHLEN];
	(void)ctx;
	fpath(p, rel);
	AS_CALLER(af_op_mkdir(p, 0777 & ~af_caller()->umask));
}

static int ns_remove(void *ctx, const char *rel, int is_dir)
{
	char p[PATHLEN];
	(void)ctx;
	fpath(p, rel);
	AS_CALLER(is_dir ? af_op_rmdir(p) : af_op_unlink(p));
}

static int ns_rename(void *ctx, const char *from, const char *to, int noreplace)
{
	char a[PATHLEN], b[PATHLEN];
	(void)ctx;
	fpath(a, from);
	fpath(b, to);
	AS_CALLER(af_op_rename(a, b, noreplace ? RENAME_NOREPLACE : 0));
}

void af_fs_dav_ns(struct af_fs *fs, struct af_dav_ns *ns)
{
	memset(ns, 0, sizeof *ns);
	ns->ctx = fs;
	ns->stat = ns_stat;
	ns->open_dir = ns_open_dir;
	ns->read_dir = ns_read_dir;
	ns->close_dir = ns_close_dir;
	ns->open_read = ns_open_read;
	ns->read = ns_read;
	ns->close_read = ns_close_read;
	ns->open_write = ns_open_write;
	ns->write = ns_write;
	ns->close_write = ns_close_write;
	ns->mkcol = ns_mkcol;
	ns->remove = ns_remove;
	ns->rename = ns_rename;
}
