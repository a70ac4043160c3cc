/* What a view stands for, and its render.
 *
 * The object (bin.h), resolved once and opened as its caller: the one proof of a
 * caller's right to a view's binary, whose descriptor the daemon's work then reads; a
 * game file's operations for the render pipeline (a member's are member.c's and
 * memsave.c's, a game file's save steps commit.c's).
 *
 * The render pipeline, one for both kinds: one render of a binary at a time (its
 * flight), what the render cache knows asked first, the render under the renders'
 * memory bound (done again alone when refused short: af_budget_run), its verdict and
 * its text put in the cache; a view's text for a caller who proved their read by
 * descriptor (af_view_open_text). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "animfs/beneath.h"
#include "animfs/fnv.h"
#include "animfs/path.h"
#include "animfs/split.h"
#include "bin.h"
#include "binary.h"
#include "commit.h"
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

/* rel's kind and file, once: a member's container (and its path in it), or rel itself
 * (plain: known to be a game file, as its path's resolve found: not looked up again). */
static int resolve(struct af_fs *fs, const char *rel, int plain, struct af_bin *b)
{
	memset(b, 0, sizeof(*b));
	b->rel = rel;
	b->fd = -1;
	b->member = !plain && af_folder_split(fs, rel, b->file, sizeof(b->file), &b->inner, &b->named);
	b->ops = b->member ? &af_bin_member_ops : &af_bin_file_ops;
	if (!b->member && (size_t)snprintf(b->file, sizeof(b->file), "%s", rel) >= sizeof(b->file))
		return -ENAMETOOLONG;
	return 0;
}

static int bin_open(struct af_fs *fs, const char *rel, int plain, int flags, struct af_bin *b)
{
	int rc = resolve(fs, rel, plain, b);
	if (rc)
		return rc;
	int fd = af_ov_open_proof(fs, b->file, flags);
	if (fd < 0)
		return fd;
	if (fstat(fd, &b->st) || !S_ISREG(b->st.st_mode)) {
		rc = S_ISREG(b->st.st_mode) ? -errno : -ENOENT; /* no longer a binary */
		close(fd);
		return rc;
	}
	b->fd = fd;
	b->proven = 1;
	return 0;
}

int af_bin_open(struct af_fs *fs, const char *rel, int flags, struct af_bin *b)
{
	return bin_open(fs, rel, 0, flags, b);
}

int af_bin_open_res(struct af_fs *fs, const struct af_res *r, int flags, struct af_bin *b)
{
	return bin_open(fs, r->bin, r->bin_plain, flags, b);
}

int af_bin_by_name(struct af_fs *fs, const char *rel, const struct stat *st, struct af_bin *b)
{
	int rc = resolve(fs, rel, 0, b);
	b->st = *st;
	return rc;
}

int af_bin_by_res(struct af_fs *fs, const struct af_res *r, struct af_bin *b)
{
	int rc = resolve(fs, r->bin, r->bin_plain, b);
	b->st = r->st;
	return rc;
}

void af_bin_close(struct af_bin *b)
{
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
}

int af_bin_reopen(const struct af_bin *b)
{
	char proc[64];
	if (b->fd < 0)
		return -EBADF;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", b->fd);
	int fd = open(proc, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* ---- a game file's render ---- */

/* The bid for the file (j->st: its identity, as it is now; j->rd: a readable descriptor
 * of it, or -1 to read its name) and what the cache knows: 1 with its text in *out,
 * -EIO when it fails (no codec, or a failed verdict), 0: to render. */
static int file_cached(struct af_rjob *j, struct af_text **out)
{
	struct af_rinfo mine;
	const char *rel = j->b->rel;
	if (j->rd >= 0)
		af_view_classify_fd(j->fs, j->rd, rel, &j->st, &j->info);
	else
		af_view_classify(j->fs, rel, &j->st, &j->info);
	*out = NULL;
	j->codec = j->info.codec;
	/* a text that read its siblings is the user's it was read as (by_caller); a text
	 * made of other sources too (its siblings, the user dictionary) is its only while
	 * each is what it was */
	int mem = j->as && j->info.by_caller;
	struct af_deps *deps = NULL;
	af_rcache_get_made(j->fs->cache, &j->st, mem ? af_who_key(j->as) : 0, mem ? &mine : &j->info,
			   out, &deps);
	if (*out && deps && !af_sibio_holds(j->fs, rel, deps)) {
		af_text_unref(*out); /* a source changed: rendered again */
		*out = NULL;
	}
	af_deps_unref(deps);
	if (*out)
		return 1;
	return !j->info.codec || j->info.failed ? -EIO : 0;
}

static int file_known(struct af_rjob *j, struct af_text **out)
{
	j->st = j->b->st;
	if (j->b->proven && (j->rd = af_bin_reopen(j->b)) < 0)
		return j->rd;
	int rc = file_cached(j, out);
	j->guess = af_render_guess((uint64_t)j->st.st_size);
	return rc;
}

/* The bytes, within the bound before the file is read; a file replaced while it is
 * read is read again under its new identity (the caller's: the same file, written to
 * meanwhile), which may find it rendered. */
static int file_read(struct af_rjob *j, struct af_text **out)
{
	const char *rel = j->b->rel;
	for (int attempt = 0;; attempt++) {
		int rc;
		if (attempt && (rc = file_cached(j, out)))
			return rc;
		af_buf_reset(&j->in);
		af_diag_clear(&j->d);
		if (!af_render_mem_room(&j->rb, af_model_of((uint64_t)j->st.st_size)))
			return -EIO; /* rb.refused: the pipeline's verdict */
		rc = j->rd >= 0 ? af_fd_read_stable(j->rd, AF_MAX_FILE, &j->st, &j->in, &j->d)
				: af_bn_read_stable(af_ov_at(j->fs, rel), rel, AF_MAX_FILE, &j->st, &j->in, &j->d);
		if (rc < 0)
			return -EIO;
		if (rc == 0)
			return 0;
		if (attempt >= 3)
			return -EAGAIN;
	}
}

static int file_to_yaml(struct af_rjob *j)
{
	struct af_sibio sib;
	struct af_deps_rec rec;
	af_sibio_init(&sib, j->fs, j->b->rel);
	sib.as = j->as;
	af_deps_begin(&rec);
	sib.deps = &rec; /* what it reads besides the binary */
	sib.d.io.mem_room = af_render_mem_room;
	sib.d.io.mem_ctx = &j->rb;
	int rc = j->codec->to_yaml(j->in.data, j->in.len, &sib.d.io, &j->yaml, &j->d);
	j->by_caller = sib.asked;
	af_deps_unref(j->deps);
	j->deps = af_deps_end(&rec);
	af_sibio_close(&sib);
	return rc;
}

static void file_put(struct af_rjob *j, struct af_text *t)
{
	struct af_rcache *c = j->fs->cache;
	t->src = j->deps && !j->deps->lost ? j->deps->hash : 0; /* lost: never page-cached */
	/* by_caller: the caller's own (their siblings) */
	af_rcache_put_made(c, &j->st, j->by_caller && j->as ? af_who_key(j->as) : 0, j->codec, t,
			   j->deps);
	if (j->by_caller)
		af_rcache_mark_by_caller(c, &j->st);
	if (j->read_only)
		af_rcache_mark_read_only(c, &j->st);
}

/* The verdict is not kept on disk: another --cache-mb may show it. */
static void file_failed(struct af_rjob *j)
{
	af_rcache_put_failed(j->fs->cache, &j->st, j->codec);
}

static void file_end(struct af_rjob *j)
{
	if (j->rd >= 0)
		close(j->rd);
	j->rd = -1;
	af_buf_free(&j->in);
	af_deps_unref(j->deps);
	j->deps = NULL;
}

const struct af_bin_ops af_bin_file_ops = {
	.kind = "file",
	.shown_as = "the plain binary",
	.read_only_views = 1,
	.oom_rc = -EIO,
	.known = file_known,
	.read = file_read,
	.to_yaml = file_to_yaml,
	.put = file_put,
	.failed = file_failed,
	.end = file_end,
	.open = af_file_save_open,
	.encode = af_file_save_encode,
	.reset = af_file_save_reset,
	.layout = af_file_save_layout,
	.prove = af_file_save_prove,
	.same = af_file_save_same,
	.replace = af_file_save_replace,
	.close = af_file_save_close,
};

/* ------------------------------------------------------------ the render pipeline */

/* A verdict a stat shows: a binary whose view fails is listed by its own name, a view
 * that cannot be saved is shown without write bits. What a face keeps of the names
 * (the FUSE face's kernel) is told. */
static void verdict(struct af_rjob *j, int failed)
{
	if (failed)
		j->b->ops->failed(j);
	af_face_note(j->fs, AF_NOTE_NAMES, j->b->rel);
}

/* A render past its bound (its text's buffer over, or its model refused), said (how
 * much, under which --cache-mb; .animfs/errors gets it: the file's, no one's text), and
 * the verdict kept for the rest of the mount: the file shown as its plain binary (a
 * member: raw). */
static int refuse_too_big(struct af_rjob *j)
{
	const struct af_render_bound *rb = &j->rb;
	size_t mb = j->fs->cache_bytes >> 20;
	af_diag_clear(&j->d);
	if (rb->refused)
		af_diag_error(&j->d, AF_ENOMEM,
			      "showing it would take about %zu MiB (the file and the codec's model "
			      "of it), more than one view may take under --cache-mb=%zu (the texts "
			      "held for other views lent it what they could): raise --cache-mb",
			      rb->model_want >> 20, mb);
	else
		af_diag_error(&j->d, AF_ENOMEM,
			      "its view would be more than %zu MiB of text, what one view may take "
			      "under --cache-mb=%zu (the texts held for other views lent it what "
			      "they could): raise --cache-mb",
			      (rb->b.max + rb->b.granted) >> 20, mb);
	af_errlog_add(j->fs->errors, AF_ERRLOG_ALL, j->b->rel, &j->d);
	af_fs_log(LOG_WARNING, "%s: %s (shown as the plain binary)", j->b->rel, j->d.msg);
	verdict(j, 1);
	return -EIO;
}

/* One attempt of the render of b (b->ops: a game file's or a member's): what the cache
 * knows, the render within the bound (AF_AGAIN_ALONE: refused for room when other
 * renders held the pool it asked for: to be done again alone; refused with the whole
 * pool, the verdict is final at once), the modeline, the codec, the verdict, the cache
 * put. as: the caller it renders for, whose siblings are read as that user's (NULL: the
 * daemon's). */
static int render_once(struct af_fs *fs, const struct af_bin *b, const struct af_who *as,
		       struct af_text **out, int alone)
{
	const struct af_bin_ops *ops = b->ops;
	struct af_rjob j = {.fs = fs, .b = b, .as = as, .yaml = AF_BUF_INIT, .rd = -1, .in = AF_BUF_INIT};
	struct af_text *t = NULL;
	int rc, bound = 0;

	*out = NULL;
	af_diag_init(&j.d);
	/* in the cache, or known to fail (a read's, a stat's common case): no gate to pass */
	if ((rc = ops->known(&j, &t))) {
		*out = t;
		rc = rc > 0 ? 0 : rc;
		goto done;
	}
	af_render_bound_init(&j.rb, fs->cache, alone, j.guess);
	bound = 1;
	if ((rc = ops->read(&j, &t)) > 0) { /* a re-read found the new identity rendered */
		*out = t;
		rc = 0;
		goto done;
	}
	if (rc && !j.rb.refused)
		goto done;
	if (!rc) {
		af_rcache_note_render(fs->cache);
		j.yaml.bound = &j.rb.b;
		rc = af_text_begin(&j.yaml);
		if (!rc)
			rc = af_view_modeline(j.codec, b->rel, &j.yaml); /* the schema, for editors */
		if (!rc)
			rc = ops->to_yaml(&j);
	}
	j.read_only = ops->read_only_views && rc == AF_VIEW_READONLY && !j.yaml.failed;
	if (j.read_only) { /* shown, but not for saving: the reason is in its header too */
		char msg[1200];
		af_diag_format(&j.d, b->rel, msg, sizeof(msg));
		af_fs_log(LOG_NOTICE, "%s (shown read-only)", msg);
		af_errlog_add(fs->errors, AF_ERRLOG_ALL, b->rel, &j.d);
		verdict(&j, 0);
		rc = 0;
	}
	if (j.yaml.over || j.rb.refused) {
		rc = !alone && j.rb.pool_short ? AF_AGAIN_ALONE : refuse_too_big(&j);
		goto done;
	}
	if (rc || j.yaml.failed) {
		char msg[1200];
		if (!j.d.code)
			af_diag_error(&j.d, AF_ENOMEM, "out of memory");
		af_diag_format(&j.d, b->rel, msg, sizeof(msg));
		af_fs_log(LOG_WARNING, "%s (shown as %s)", msg, ops->shown_as);
		if (j.d.code == AF_ENOMEM) {
			rc = ops->oom_rc;
			goto done;
		}
		/* once per identity: the verdict is cached (a member's: its container's) */
		verdict(&j, 1);
		af_errlog_add(fs->errors, AF_ERRLOG_ALL, b->rel, &j.d);
		rc = -EIO;
		goto done;
	}
	if (!(*out = af_text_end(&j.yaml))) {
		rc = -ENOMEM;
		goto done;
	}
	ops->put(&j, *out);
	if (fs->splits) /* its length known: it may be shown as a folder of parts now */
		af_face_note(fs, AF_NOTE_NAMES, b->rel);
done:
	if (bound)
		af_render_bound_end(&j.rb); /* the text is the cache's now, counted as its own */
	ops->end(&j);
	af_buf_free(&j.yaml);
	af_diag_free(&j.d);
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
	const struct af_bin *b;
	const struct af_who *as;
	struct af_text **out;
};

static int render_attempt(void *ctx, int alone)
{
	struct render_job *j = ctx;
	return render_once(j->fs, j->b, j->as, j->out, alone);
}

int af_bin_render(struct af_fs *fs, const struct af_bin *b, struct af_text **out)
{
	/* the shared render cache is the daemon's: whoever asks, the same text (a caller's
	 * right to read it is proven before: b, opened as the caller, is what is read) */
	int was = af_act_pause(), rc;
	const struct af_who *as = was ? af_caller() : NULL; /* siblings: theirs */
	struct af_flight me = {b->st.st_dev, b->st.st_ino, af_fnv1_64(b->rel, strlen(b->rel)), NULL};
	struct render_job job = {fs, b, as, out};
	int fly = !b->l; /* its container held (a listing's): that lock is its flight */
	if (fly) {
		if (af_prefetch_any(fs)) /* a worker may have it, or be at it */
			af_prefetch_claim(fs, &b->st);
		af_flight_take(&fs->renders, &me);
	}
	rc = af_budget_run(render_attempt, &job);
	if (fly)
		af_flight_land(&fs->renders, &me);
	af_act_resume(was);
	return rc;
}

int af_view_render(struct af_fs *fs, const char *bin_rel, const struct stat *st0,
		   struct af_text **out)
{
	struct af_bin b;
	int rc = af_bin_by_name(fs, bin_rel, st0, &b);
	*out = NULL;
	return rc ? rc : af_bin_render(fs, &b, out);
}

/* The daemon's render of r's binary (its kind as r's resolve found it). */
static int render_res(struct af_fs *fs, const struct af_res *r, struct af_text **out)
{
	struct af_bin b;
	int rc = af_bin_by_res(fs, r, &b);
	*out = NULL;
	return rc ? rc : af_bin_render(fs, &b, out);
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
	rc = b ? af_bin_render(fs, b, &whole) : render_res(fs, r, &whole);
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
		if ((rc = af_bin_open_res(fs, r, flags, &b)))
			return rc;
		rc = out ? af_view_text_of(fs, r, &b, out) : 0;
		if (!rc && from)
			*from = b.st;
		if (!rc && by_caller) /* a member's: whether it read --rig-dir as its caller */
			*by_caller = b.member ? af_folder_by_caller(fs, b.rel, &b.st)
					      : af_rcache_get(fs->cache, &b.st, &info, NULL) && info.by_caller;
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
	int rc = render_res(fs, r, &whole);
	if (rc)
		return rc;
	rc = af_split_names(fs, whole, r->bin, cb, ctx);
	af_text_unref(whole);
	return rc;
}
