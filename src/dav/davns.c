/* The namespace of the views as the WebDAV face (src/dav) asks for it: each of its
 * operations is the core's own (src/view/ns.h, the same the FUSE face serves), so a PUT
 * is the save an editor's write and close is, a listing is the mount's listing, and a
 * refused save leaves the binary as it was. The serving user is every request's caller,
 * with the umask it started with. The one file of src/dav that names a view: the rest of
 * the face names none (its namespace is a table, include/animfs/dav.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "animfs/diag.h"
#include "animfs/path.h"
#include "animfs/dav.h"
#include "binary.h"
#include "davns.h"
#include "dirlist.h"
#include "errlog.h"
#include "handle.h"
#include "ns.h"
#include "session.h"
#include "view.h"
#include "who.h"

#define PATHLEN 4200

/* The served state and the serving user's umask (every request is that user's). */
static struct {
	struct af_fs *fs;
	mode_t umask;
} served;

/* The thread acts as the serving user for a request (af_act_done after it). */
static int act(void)
{
	struct af_who w = af_who_self();
	w.umask = served.umask;
	return af_act_as(&w);
}

/* A core result as the WebDAV face's answer (dav.h: 0, a count or a -errno): the one
 * conversion of this face (af_code_errno: an AF_E* code its -errno). */
static int answer(int rc)
{
	return rc < 0 ? af_code_errno(rc) : rc;
}

/* "/" + rel: the namespace's path of rel */
static void fpath(char *out, const char *rel)
{
	snprintf(out, PATHLEN, "/%s", rel);
}

static int ns_stat(void *ctx, const char *rel, struct stat *st)
{
	char p[PATHLEN];
	fpath(p, rel);
	int rc = act();
	if (!rc)
		rc = af_ns_stat(ctx, p, NULL, st);
	af_act_done();
	return answer(rc);
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
		int rc = act();
		if (!rc)
			rc = af_ns_list(dd->fs, dd->path, af_dirlist_add, dd->names);
		af_act_done();
		if (!rc && af_dirlist_failed(dd->names))
			rc = -ENOMEM;
		if (rc)
			return answer(rc);
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
	struct af_fs *fs;
	struct af_handle *h;
};

static int ns_open_read(void *ctx, const char *rel, struct af_dav_reader **out, struct stat *st)
{
	char p[PATHLEN];
	struct af_ns_opened o;
	struct af_dav_reader *r = af_alloc_zeroed(1, sizeof *r);
	if (!r)
		return -ENOMEM;
	r->fs = ctx;
	fpath(p, rel);
	int rc = act();
	if (!rc && !(rc = af_ns_open(r->fs, p, O_RDONLY, &o)) &&
	    (rc = af_ns_stat(r->fs, p, o.h, st)))
		af_ns_release(r->fs, o.h);
	af_act_done();
	if (rc) {
		free(r);
		return answer(rc);
	}
	r->h = o.h;
	*out = r;
	return 0;
}

static long ns_read(struct af_dav_reader *r, char *buf, size_t n, uint64_t off)
{
	int rc = act();
	if (!rc)
		rc = af_ns_read(r->h, buf, n, (off_t)off);
	af_act_done();
	return answer(rc);
}

static void ns_close_read(struct af_dav_reader *r)
{
	act();
	af_ns_release(r->fs, r->h);
	af_act_done();
	free(r);
}

/* A PUT: a view (or a part, a member, a new binary's text) is written into its open
 * handle and saved by the close, as an editor's save is; any other file is written
 * under a temporary name beside it and renamed onto its name at the end, so the old
 * file stays whole until the new one is. */
struct af_dav_writer {
	struct af_fs *fs;
	struct af_handle *h;
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
	struct af_ns_opened o;
	struct stat st;
	struct af_dav_writer *w = af_alloc_zeroed(1, sizeof *w);
	if (!w)
		return -ENOMEM;
	w->fs = fs;
	fpath(w->target, rel);
	int rc = act();
	if (rc)
		goto out;
	*created = af_ns_stat(fs, w->target, NULL, &st) != 0;
	if ((rc = af_view_resolve(fs, w->target, &r)))
		goto out;
	w->temp = r.kind == AF_K_PASS ||
		  (r.kind == AF_K_NONE && !r.ghost && !af_view_is_candidate(r.rel) &&
		   !af_ns_is_dropping(fs, r.rel) && !r.in_split);
	if (w->temp) {
		const char *base = af_base(w->target);
		snprintf(w->path, sizeof w->path, "%.*s.%s.animfs-put-%ld-%lu",
			 (int)(base - w->target), w->target, base, (long)getpid(),
			 __atomic_add_fetch(&put_seq, 1, __ATOMIC_RELAXED));
	} else {
		snprintf(w->path, sizeof w->path, "%s", w->target);
	}
	rc = af_ns_create(fs, w->path, 0666 & ~af_caller()->umask, O_WRONLY | O_CREAT | O_TRUNC, &o);
	w->h = o.h;
out:
	af_act_done();
	if (rc) {
		free(w);
		return answer(rc);
	}
	*out = w;
	return 0;
}

static int ns_write(struct af_dav_writer *w, const char *buf, size_t n, uint64_t off)
{
	int rc = act();
	while (!rc && n) {
		rc = af_ns_write(w->fs, w->h, buf, n, (off_t)off);
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
	return answer(rc);
}

static int ns_close_write(struct af_dav_writer *w, int commit, char *why, size_t n)
{
	struct af_fs *fs = w->fs;
	int rc = act();
	/* abandoned: nothing of it is saved; and an empty body (Windows sends one before
	 * every save) never empties a view */
	if (!rc && (!commit || (!w->temp && w->len == 0)))
		af_ns_abandon(w->h);
	int saved = rc ? rc : commit ? af_ns_save(fs, w->h) : 0;
	af_ns_release(fs, w->h);
	if (w->temp && (!commit || saved || (saved = af_ns_rename(fs, w->path, w->target, 0))))
		af_ns_unlink(fs, w->path);
	af_act_done();
	if (saved && why && n) {
		why[0] = 0;
		af_errlog_newest(fs->errors, af_caller()->uid, w->target + 1, why, n);
	}
	free(w);
	return answer(saved);
}

#define AS_CALLER(call)                                                              \
	do {                                                                         \
		int rc_ = act();                                                     \
		if (!rc_)                                                            \
			rc_ = (call);                                                \
		af_act_done();                                                       \
		return answer(rc_);                                                  \
	} while (0)

static int ns_mkcol(void *ctx, const char *rel)
{
	char p[PATHLEN];
	fpath(p, rel);
	AS_CALLER(af_ns_mkdir(ctx, p, 0777 & ~af_caller()->umask));
}

static int ns_remove(void *ctx, const char *rel, int is_dir)
{
	char p[PATHLEN];
	fpath(p, rel);
	AS_CALLER(is_dir ? af_ns_rmdir(ctx, p) : af_ns_unlink(ctx, p));
}

static int ns_rename(void *ctx, const char *from, const char *to, int noreplace)
{
	char a[PATHLEN], b[PATHLEN];
	fpath(a, from);
	fpath(b, to);
	AS_CALLER(af_ns_rename(ctx, a, b, noreplace));
}

void af_fs_dav_ns(struct af_fs *fs, mode_t umask, struct af_dav_ns *ns)
{
	served.fs = fs;
	served.umask = umask;
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
