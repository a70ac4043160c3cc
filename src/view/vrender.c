/* A view's render pipeline: one render of a binary at a time (its flight), what the
 * render cache knows asked first, the render under the renders' memory bound (done again
 * alone when refused short: af_budget_run), its verdict and its text put in the cache;
 * a view's text for a caller who proved their read by descriptor (af_view_open_text). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "animfs/path.h"
#include "animfs/beneath.h"
#include "animfs/fnv.h"
#include "animfs/split.h"
#include "bin.h"
#include "binary.h"
#include "errlog.h"
#include "flight.h"
#include "folder.h"
#include "overlay.h"
#include "prefetch.h"
#include "render.h"
#include "res.h"
#include "session.h"
#include "splitview.h"
#include "view.h"
#include "who.h"

/* A render past its bound: said, and the file shown as its plain binary for the rest
 * of the mount (the verdict is not kept on disk: another --cache-mb may show it). */
static int refuse_too_big(struct af_fs *fs, struct af_diag *d, const struct af_render_bound *rb,
			  const char *bin_rel, const struct stat *st, const struct af_codec *codec)
{
	af_render_too_big(fs, d, rb, bin_rel);
	af_rcache_put_failed(fs->cache, st, codec);
	return -EIO;
}

/* The bid for bin_rel (st: its identity, as it is now; rd: a readable descriptor of it,
 * or -1 to read its name) and what the cache knows: 1 with its text in *out, -EIO when
 * it fails (no codec, or a failed verdict), 0: to render. A text made of other sources
 * too (its siblings, the user dictionary) is its only while each is what it was. */
static int known(struct af_fs *fs, const char *bin_rel, int rd, const struct af_who *as,
		 struct stat *st, struct af_rinfo *info, struct af_text **out)
{
	struct af_rinfo mine;
	struct af_deps *deps = NULL;
	if (rd >= 0)
		af_view_classify_fd(fs, rd, bin_rel, st, info);
	else
		af_view_classify(fs, bin_rel, st, info);
	*out = NULL;
	/* a text that read its siblings is the user's it was read as (by_caller) */
	int mem = as && info->by_caller;
	af_rcache_get_made(fs->cache, st, mem ? af_who_key(as) : 0, mem ? &mine : info, out, &deps);
	if (*out && deps && !af_sibio_holds(fs, bin_rel, deps)) {
		af_text_unref(*out); /* a source changed: rendered again */
		*out = NULL;
	}
	af_deps_unref(deps);
	if (*out)
		return 1;
	return !info->codec || info->failed ? -EIO : 0;
}

/* AF_AGAIN_ALONE: refused for room when other renders held the pool it asked for: to be
 * done again alone (refused with the whole pool, the verdict is final at once). b: the binary as
 * its caller opened it (its bytes are read from there), or NULL: the daemon's own
 * render of bin_rel (a listing's, read by name). as: the caller it renders for, whose
 * siblings are read as that user's (NULL: the daemon's). */
static int render_once(struct af_fs *fs, const char *bin_rel, const struct stat *st0,
		       const struct af_bin *b, const struct af_who *as, struct af_text **out,
		       int alone)
{
	struct af_buf in = AF_BUF_INIT, yaml = AF_BUF_INIT;
	struct af_diag d;
	struct af_rinfo info;
	struct af_sibio sib;
	struct af_render_bound rb;
	struct af_deps_rec rec;
	struct af_deps *deps = NULL;
	struct stat st = b ? b->st : *st0;
	int rc = 0, rd = -1;

	*out = NULL;
	if (af_folder_member(fs, bin_rel))
		return af_folder_render(fs, bin_rel, 0, b ? &b->st : NULL, out);
	if (b && (rd = af_bin_reopen(b)) < 0)
		return rd;
	af_diag_init(&d);
	/* in the cache, or known to fail (a read's, a stat's common case): no gate to pass */
	if ((rc = known(fs, bin_rel, rd, as, &st, &info, out))) {
		rc = rc > 0 ? 0 : rc;
		goto done;
	}
	af_render_bound_init(&rb, fs->cache, alone, af_render_guess((uint64_t)st.st_size));
	for (int attempt = 0;; attempt++) {
		/* a re-read (AF_BN_CHANGED) may find the new identity rendered */
		if (attempt && (rc = known(fs, bin_rel, rd, as, &st, &info, out))) {
			rc = rc > 0 ? 0 : rc;
			goto out;
		}
		rc = 0;
		af_buf_reset(&in);
		af_diag_clear(&d);
		/* the binary and a model of it: within the bound before the file is read */
		if (!af_render_mem_room(&rb, af_model_of((uint64_t)st.st_size))) {
			rc = !alone && rb.pool_short ? AF_AGAIN_ALONE : refuse_too_big(fs, &d, &rb, bin_rel, &st, info.codec);
			goto out;
		}
		/* A file replaced while we read it is read again under its new identity (the
		 * caller's: the same file, written to meanwhile). */
		rc = rd >= 0 ? af_fd_read_stable(rd, AF_MAX_FILE, &st, &in, &d)
			     : af_bn_read_stable(af_ov_at(fs, bin_rel), bin_rel, AF_MAX_FILE, &st, &in, &d);
		if (rc < 0) {
			rc = -EIO;
			goto out;
		}
		if (rc == 0)
			break;
		if (attempt >= 3) {
			rc = -EAGAIN;
			goto out;
		}
	}
	af_sibio_init(&sib, fs, bin_rel);
	sib.as = as;
	af_deps_begin(&rec);
	sib.deps = &rec; /* what it reads besides the binary */
	sib.d.io.mem_room = af_render_mem_room;
	sib.d.io.mem_ctx = &rb;
	af_rcache_note_render(fs->cache);
	yaml.bound = &rb.b;
	rc = af_text_begin(&yaml);
	if (!rc)
		rc = af_view_modeline(info.codec, bin_rel, &yaml); /* the schema, for editors */
	if (!rc)
		rc = info.codec->to_yaml(in.data, in.len, &sib.d.io, &yaml, &d);
	int by_caller = sib.asked;
	deps = af_deps_end(&rec);
	af_sibio_close(&sib);
	int read_only = rc == AF_VIEW_READONLY && !yaml.failed;
	if (read_only) { /* shown, but not for saving: the reason is in its header too */
		char msg[1200];
		af_diag_format(&d, bin_rel, msg, sizeof(msg));
		af_fs_log(LOG_NOTICE, "%s (shown read-only)", msg);
		af_errlog_add(fs->errors, AF_ERRLOG_ALL, bin_rel, &d);
		rc = 0;
	}
	if (yaml.over || rb.refused) {
		rc = !alone && rb.pool_short ? AF_AGAIN_ALONE : refuse_too_big(fs, &d, &rb, bin_rel, &st, info.codec);
		goto out;
	}
	if (rc || yaml.failed) {
		char msg[1200];
		if (!d.code)
			af_diag_error(&d, AF_ENOMEM, "out of memory");
		af_diag_format(&d, bin_rel, msg, sizeof(msg));
		af_fs_log(LOG_WARNING, "%s (shown as the plain binary)", msg);
		if (d.code != AF_ENOMEM) { /* once per identity: the verdict is cached */
			af_rcache_put_failed(fs->cache, &st, info.codec);
			af_errlog_add(fs->errors, AF_ERRLOG_ALL, bin_rel, &d);
		}
		rc = -EIO;
		goto out;
	}
	*out = af_text_end(&yaml);
	if (!*out) {
		rc = -ENOMEM;
		goto out;
	}
	(*out)->src = deps && !deps->lost ? deps->hash : 0; /* lost: never page-cached */
	/* by_caller: the caller's own (their siblings) */
	af_rcache_put_made(fs->cache, &st, by_caller && as ? af_who_key(as) : 0, info.codec, *out, deps);
	if (by_caller)
		af_rcache_mark_by_caller(fs->cache, &st);
	if (read_only)
		af_rcache_mark_read_only(fs->cache, &st);
out:
	af_render_bound_end(&rb); /* the text is the cache's now, counted as its own */
	af_deps_unref(deps);
done:
	if (rd >= 0)
		close(rd);
	af_buf_free(&in);
	af_buf_free(&yaml);
	af_diag_free(&d);
	return rc;
}


/* One render of a binary at a time: the kernel may ask for a cold view on several request
 * threads at once (a stat and a read, two readers), and each would render the same
 * text before the first lands in the cache. Whoever asks second waits for the first
 * and then finds its text in the cache. Different binaries render at once, on every
 * core, within the renders' pool (render.h). The mount's list (fs->renders, flight.h)
 * holds one entry per render in flight: never more than the threads of the daemon. */

struct render_job {
	struct af_fs *fs;
	const char *bin_rel;
	const struct stat *st0;
	const struct af_bin *b;
	const struct af_who *as;
	struct af_text **out;
};

static int render_attempt(void *ctx, int alone)
{
	struct render_job *j = ctx;
	return render_once(j->fs, j->bin_rel, j->st0, j->b, j->as, j->out, alone);
}

/* A render of bin_rel (b: as its caller opened it, or NULL) in its flight, done again
 * alone when refused while others shared the renders' memory (render.h). */
int af_view_render_bin(struct af_fs *fs, const char *bin_rel, const struct stat *st0,
		  const struct af_bin *b, struct af_text **out)
{
	/* the shared render cache is the daemon's: whoever asks, the same text (a caller's
	 * right to read it is proven before: b, opened as the caller, is what is read) */
	int was = af_act_pause(), rc;
	const struct stat *id = b ? &b->st : st0;
	const struct af_who *as = was ? af_caller() : NULL; /* siblings: theirs */
	struct af_flight me = {id->st_dev, id->st_ino, af_fnv1_64(bin_rel, strlen(bin_rel)), NULL};
	af_prefetch_claim(fs, id); /* a worker may have it, or be at it */
	af_flight_take(&fs->renders, &me);
	struct render_job job = {fs, bin_rel, st0, b, as, out};
	rc = af_budget_run(render_attempt, &job);
	af_flight_land(&fs->renders, &me);
	af_act_resume(was);
	return rc;
}

int af_view_render(struct af_fs *fs, const char *bin_rel, const struct stat *st0,
		   struct af_text **out)
{
	return af_view_render_bin(fs, bin_rel, st0, NULL, out);
}

/* The text of r (a view or a split view's part) rendered from b. */
int af_view_text_of(struct af_fs *fs, struct af_res *r, const struct af_bin *b,
		       struct af_text **out)
{
	struct af_text *whole;
	int rc;
	*out = NULL;
	if (r->kind == AF_K_ARCFILE) /* a container's index.yaml, a raw member */
		return af_folder_render(fs, r->bin, 1, b ? &b->st : NULL, out);
	rc = af_view_render_bin(fs, r->bin, &r->st, b, &whole);
	if (rc || r->kind != AF_K_SPLITPART) {
		*out = rc ? NULL : whole;
		return rc;
	}
	rc = af_split_file(fs, whole, r->bin, af_base(r->rel), out);
	af_text_unref(whole);
	return rc == -ENOENT ? -EIO : rc;
}

int af_view_open_from(struct af_fs *fs, struct af_res *r, int flags, struct af_text **out,
		      struct stat *from, int *by_caller)
{
	struct af_bin b;
	struct af_rinfo info;
	int rc;
	if (out)
		*out = NULL;
	/* a container loaded by its name after the proof that is another file than the
	 * one proven (-EAGAIN) is proven again, from the name as it is now */
	for (int attempt = 0;; attempt++) {
		if ((rc = af_bin_open(fs, r->bin, flags, &b)))
			return rc;
		rc = out ? af_view_text_of(fs, r, &b, out) : 0;
		if (!rc && from)
			*from = b.st;
		if (!rc && by_caller) /* a member's siblings are in its container: not the caller's */
			*by_caller = !af_folder_member(fs, r->bin) &&
				     af_rcache_get(fs->cache, &b.st, &info, NULL) && info.by_caller;
		af_bin_close(&b);
		if (rc != -EAGAIN || attempt >= 3)
			return rc;
	}
}

int af_view_open_text(struct af_fs *fs, struct af_res *r, int flags, struct af_text **out)
{
	return af_view_open_from(fs, r, flags, out, NULL, NULL);
}

int af_view_text(struct af_fs *fs, struct af_res *r, struct af_text **out)
{
	return af_view_text_of(fs, r, NULL, out);
}

int af_view_split_names(struct af_fs *fs, struct af_res *r, void (*cb)(void *ctx, const char *name),
			void *ctx)
{
	struct af_text *whole;
	int rc = af_view_render(fs, r->bin, &r->st, &whole);
	if (rc)
		return rc;
	rc = af_split_names(fs, whole, r->bin, cb, ctx);
	af_text_unref(whole);
	return rc;
}
