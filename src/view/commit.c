/* The save pipeline, one for both kinds of binary (af_commit_to: the target resolved
 * once, then its kind's steps, bin.h: open, the parse and encode under the budget,
 * layout, proof, unchanged, replace), and a game file's steps: parse, validate and
 * encode the YAML through the view's codec (the one that claimed its binary; its
 * `format:` must say so), check the codec reads its own output back (on a second thread,
 * while the temp file is written), then replace the backing binary atomically (or leave
 * it alone when the bytes are the same, keeping its mtime). The saver's right comes
 * first, proven as the saver: a write into an existing binary opens it for writing as
 * them (the replace is then the daemon's, keeping owner, group and mode, less the
 * set-id bits a write clears); a new binary, or one a rename puts in place, is made
 * and renamed by the saver, so it is theirs as on any folder. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "animfs/yamlio.h"
#include "animfs/path.h"
#include "animfs/beneath.h"
#include "animfs/fileio.h"
#include "animfs/fs.h"
#include "animfs/split.h"
#include "bin.h"
#include "binary.h"
#include "commit.h"
#include "save.h"
#include "dest.h"
#include "errlog.h"
#include "folder.h"
#include "overlay.h"
#include "render.h"
#include "session.h"
#include "who.h"

/* where: a split view's file the mistake is in, beside view_rel (a file of its folder),
 * or "" for view_rel itself. */
static void report(struct af_fs *fs, uid_t uid, const char *view_rel, const char *where,
		   const struct af_diag *d)
{
	char msg[1200], path[4096 + AF_SPLIT_NAME_MAX];
	const char *base = af_base(view_rel);
	if (where[0]) {
		snprintf(path, sizeof(path), "%.*s%s", (int)(base - view_rel), view_rel, where);
		view_rel = path;
	}
	af_diag_format(d, view_rel, msg, sizeof(msg));
	af_fs_log(LOG_ERR, "save refused, %s (the backing file is unchanged)", msg);
	af_errlog_add(fs->errors, uid, view_rel, d);
}

/* What a save that went through did differently from the text (a codec's warnings
 * that are notes: "note: -1.27 stored as -1.28 (...)"), as lines of .animfs/errors
 * at their place: the editor's buffer still shows what was typed. */
static void report_notes(struct af_fs *fs, uid_t uid, const char *view_rel,
			 const struct af_diag *d)
{
	const char *p = (const char *)d->warnings.data, *end = p + d->warnings.len;
	while (p && p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t n = eol ? (size_t)(eol - p) : (size_t)(end - p);
		char line[1024];
		unsigned l = 0, c = 0;
		int at = 0;
		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		if (sscanf(line, "%u:%u: %n", &l, &c, &at) < 2 || !at)
			at = 0;
		if (!strncmp(line + at, "note: ", 6)) { /* af_diag_note's */
			struct af_diag nd;
			af_diag_init(&nd);
			af_diag_at_mark(&nd, AF_EINVAL, l, c, "%s", line + at);
			af_errlog_add(fs->errors, uid, view_rel, &nd);
			af_diag_free(&nd);
		}
		p += n + 1;
	}
}

/* The encoder's output must decode: a codec bug must not reach the game folder.
 * The check runs on a second thread while the temp file is written and fsynced,
 * and the rename waits for it. Its YAML is what a render of the new binary would
 * give, so it becomes the view's cache entry. */
static void *verify_run(void *arg)
{
	struct af_save_verify *v = arg;
	v->rc = af_view_modeline(v->c, v->bin_rel, &v->yaml);
	if (!v->rc)
		v->rc = v->c->to_yaml(v->bin->data, v->bin->len, &v->sib.d.io, &v->yaml, &v->d);
	if (!v->rc && v->yaml.failed)
		v->rc = af_diag_error(&v->d, AF_ENOMEM, "out of memory");
	return NULL;
}

/* sib: the save's own sibling io (the same folder; the check gets a copy). */
static void verify_start(struct af_save_verify *v, const struct af_codec *c, const struct af_sibio *sib,
			 const char *bin_rel, const struct af_buf *bin)
{
	v->c = c;
	v->bin = bin;
	v->bin_rel = bin_rel;
	af_buf_init(&v->yaml);
	af_diag_init(&v->d);
	v->sib = *sib;
	v->sib.d.io.ctx = &v->sib; /* its own: what the check asks is its own asked */
	v->sib.asked = 0;
	v->started = pthread_create(&v->thread, NULL, verify_run, v) == 0;
	if (!v->started)
		verify_run(v); /* no thread to be had: check here and now */
}

/* Wait for the check; 0, or AF_EIO with d filled. */
static int verify_wait(void *arg, struct af_diag *d)
{
	struct af_save_verify *v = arg;
	if (v->started) {
		pthread_join(v->thread, NULL);
		v->started = 0;
	}
	if (v->rc) {
		char msg[900];
		af_diag_format(&v->d, "encoded binary", msg, sizeof(msg));
		return af_diag_error(d, AF_EIO, "the encoder produced bytes its decoder rejects (%s)",
				     msg);
	}
	return 0;
}

static void verify_free(struct af_save_verify *v)
{
	af_buf_free(&v->yaml);
	af_diag_free(&v->d);
}

/* The view of the new binary is the check's YAML, when the binary's own bid
 * (what a render uses) picks the same codec, and the text is the binary's alone: not
 * when the check read siblings (asked: as the saver, a text another caller may not be
 * shown) or names (the user dictionary): a render notes those (deps.h), and its text
 * is checked against them again at each open. */
static void seed_cache(struct af_fs *fs, struct af_save_verify *v, const char *base,
		       const struct stat *st, int asked)
{
	if (!st->st_ino || asked || v->c->render_uses_names || af_codec_bid(base, v->bin->data,
					v->bin->len < AF_BID_HEAD ? v->bin->len : AF_BID_HEAD) != v->c)
		return;
	struct af_text *t = af_text_take(&v->yaml);
	if (t) {
		af_rcache_put_text(fs->cache, st, v->c, t);
		af_text_unref(t);
	}
}

/* The codec of a view is the one that claimed its binary (a binary that fails to
 * decode included), or for a new view one its extension names: af_codec_for_save. A
 * file no codec reads is overwritten only when the save says so (overwrite: the
 * command line's -o), as a new file. */
static const struct af_codec *save_codec(struct af_fs *fs, const struct af_target *t,
					 const struct stat *st, int overwrite, const uint8_t *yaml,
					 size_t n, struct af_diag *d)
{
	const char *bin_rel = t->bin_rel;
	struct af_rinfo info = {0};
	if (st) {
		af_view_classify_at(fs, t->dirfd, t->base, st, &info);
		if (!info.codec && overwrite)
			return af_codec_for_save(NULL, bin_rel, yaml, n, d);
		if (!info.codec && af_codec_for_yaml(yaml, n, d)) { /* the document's own errors first */
			af_diag_error(d, AF_EINVAL, "%s exists and is no file a codec reads; it is not "
				      "overwritten from a view", bin_rel);
			return NULL;
		}
		if (!info.codec)
			return NULL;
	}
	return af_codec_for_save(info.codec, bin_rel, yaml, n, d);
}

/* The saver's right to what the save does, as the saver: open the binary for writing
 * (a write into it), or make a file in its folder (a new one, or a rename onto it). */
static int prove(const struct af_dest *to, int dirfd, const char *base, int exists,
		 struct stat *proven, struct af_diag *d)
{
	int write_into = exists && !to->as_new, rc;
	if (write_into) {
		rc = af_may_write_as(&to->who, dirfd, base, proven);
	} else if (!(rc = af_act_with(&to->who))) {
		rc = faccessat(dirfd, ".", W_OK | X_OK, AT_EACCESS) ? -errno : 0;
		af_act_back();
	}
	if (rc)
		af_diag_error(d, AF_EACCES, "%s: %s", write_into ? "the binary is not yours to write"
			      : "its folder is not yours to write", strerror(-rc));
	return rc;
}

/* The replace's temp file, made by the saver, given the owner and mode of the file it
 * stands for (a dropping moved in keeps them) by the daemon, on its descriptor. */
struct give {
	const struct stat *like;
	const struct af_who *who;
};

static int give_like(void *ctx, int fd, struct af_diag *d)
{
	const struct give *g = ctx;
	af_act_back();
	int rc = (fchown(fd, g->like->st_uid, g->like->st_gid) || fchmod(fd, g->like->st_mode & 07777))
			 ? af_diag_error(d, AF_EIO, "cannot keep its owner: %s", strerror(errno))
			 : 0;
	/* the rename is the saver's again: the kernel checks it as theirs */
	if (af_act_with(g->who) && !rc)
		rc = af_diag_error(d, AF_EIO, "cannot act as uid %u", (unsigned)g->who->uid);
	return rc;
}

/* Replace dirfd/base with data for to: as the daemon into an existing binary, else as
 * the saver (af_replace_opts ro has the rest). */
static int replace(const struct af_dest *to, int dirfd, const char *base, int exists,
		   const void *data, size_t n, struct af_replace_opts *ro, struct af_diag *d)
{
	struct give g = {to->like, &to->who};
	int rc;
	ro->clear_setid = !af_who_is_privileged(&to->who);
	if (exists && !to->as_new)
		return af_replace_file_ex(dirfd, base, data, n, to->mode, ro, d);
	ro->as_new = 1;
	if (to->like && (to->like->st_uid != to->who.uid || to->like->st_gid != to->who.gid)) {
		ro->give = give_like;
		ro->give_ctx = &g;
	}
	if ((rc = af_act_with(&to->who)))
		return af_diag_error(d, AF_EIO, "cannot act as uid %u", (unsigned)to->who.uid);
	rc = af_replace_file_ex(dirfd, base, data, n, to->mode, ro, d);
	af_act_back();
	return rc;
}

/* ---- a game file's save steps (bin.h's operations; save.h: struct af_save) ---- */

int af_file_save_open(struct af_save *s)
{
	struct af_target *t = &s->t;
	s->found = fstatat(t->dirfd, t->base, &s->old, AT_SYMLINK_NOFOLLOW) == 0;
	s->exists = s->found && S_ISREG(s->old.st_mode);
	/* a copy-up (overlay.c): the file the save stands for, and compares with, is GAME's */
	s->up = *s->to;
	s->game = *t;
	if ((s->curfd = af_ov_copy_source(s->fs, t->dirfd, t->bin_rel, &s->up.mode)) >= 0) {
		s->to = &s->up;
		s->game.dirfd = s->curfd;
		s->found = fstatat(s->curfd, t->base, &s->old, AT_SYMLINK_NOFOLLOW) == 0;
	}
	t->codec = save_codec(s->fs, s->curfd >= 0 ? &s->game : t, s->found ? &s->old : NULL,
			      s->to->overwrite, s->yaml, s->n, &s->d);
	if (!t->codec) {
		if (s->to->join && s->d.line) /* a split view's `format:` is its index's */
			snprintf(s->where, sizeof(s->where), "%s", AF_SPLIT_INDEX);
		return -EINVAL;
	}
	af_sibio_init_at(&s->sib, s->fs, t->dirfd, t->bin_rel);
	s->sib_open = 1;
	s->sib.as = &s->to->who; /* the files a save consults: those the saver may read */
	return 0;
}

/* The document parsed and encoded (or joined: a split view's) within the tree's bound. */
int af_file_save_encode(struct af_save *s, size_t tree_max, af_ymore_fn *more, void *more_ctx)
{
	const struct af_dest *to = s->to;
	struct af_io *io = &s->sib.d.io;
	io->yaml_max = tree_max;
	io->yaml_more = more;
	io->yaml_more_ctx = more_ctx;
	int rc = to->join ? to->join(to->join_ctx, s->t.codec, s->yaml, s->n, io, &s->bin, &s->d,
				     s->where, sizeof(s->where))
			  : s->t.codec->from_yaml(s->yaml, s->n, io, &s->bin, &s->d);
	io->yaml_more = NULL; /* the loan ends with the parse */
	io->yaml_more_ctx = NULL;
	return rc;
}

void af_file_save_reset(struct af_save *s)
{
	af_buf_reset(&s->bin);
	af_diag_clear(&s->d);
	s->where[0] = 0;
}

/* --overlay --to LAYOUT */
int af_file_save_layout(struct af_save *s)
{
	return af_ov_layout(s->fs, s->t.codec, s->t.bin_rel, &s->bin, &s->d) ? -ENOMEM : 0;
}

int af_file_save_prove(struct af_save *s)
{
	return prove(s->to, s->t.dirfd, s->t.base, s->exists, &s->proven, &s->d);
}

/* The check of the new bytes starts; the same bytes as the file's: 1 (no write, the
 * mtime stays; the codec must still agree), else 0. */
int af_file_save_same(struct af_save *s)
{
	const struct af_target *t = &s->t;
	verify_start(&s->v, t->codec, &s->sib, t->bin_rel, &s->bin);
	s->verifying = 1;
	if (!s->to->as_new &&
	    af_bn_read_file(s->curfd >= 0 ? s->curfd : t->dirfd, t->base, AF_MAX_FILE, &s->cur, &s->rd) == 0 &&
	    s->cur.len == s->bin.len && !memcmp(s->cur.data, s->bin.data, s->bin.len))
		return verify_wait(&s->v, &s->d) ? -EIO : 1;
	return 0;
}

int af_file_save_replace(struct af_save *s)
{
	const struct af_target *t = &s->t;
	struct af_replace_opts ro = {verify_wait, &s->v, &s->st, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, 0};
	ro.old = s->exists && !s->to->as_new ? &s->proven : NULL; /* the file the saver may write */
	if (replace(s->to, t->dirfd, t->base, s->exists, s->bin.data, s->bin.len, &ro, &s->d))
		return s->d.code == AF_EACCES || s->d.code == AF_EPERM ? s->d.code : AF_EIO;
	seed_cache(s->fs, &s->v, t->base, &s->st, s->v.sib.asked);
	af_fs_log(LOG_INFO, "saved %s (%zu bytes)", t->bin_rel, s->bin.len);
	return 0;
}

void af_file_save_close(struct af_save *s)
{
	if (s->verifying) {
		verify_wait(&s->v, &s->rd); /* joined on every path */
		verify_free(&s->v);
		s->verifying = 0;
	}
	if (s->curfd >= 0)
		close(s->curfd);
	s->curfd = -1;
	af_buf_free(&s->cur);
}

/* ---- the save pipeline ---- */

/* One attempt of the parse and encode, with the tree's own share of the renders' pool
 * and the texts' loan when it needs more: AF_AGAIN_ALONE when refused short while
 * others held the pool (af_budget_run does it again, alone). */
static int save_attempt(void *ctx, int alone)
{
	struct af_save *s = ctx;
	struct af_parse_share ps;
	size_t max = af_parse_begin(&ps, s->fs->cache, s->n, alone);
	int rc = s->t.ops->encode(s, max, af_loan_more, &ps.loan);
	if ((rc = af_parse_end(&ps, rc)) == AF_AGAIN_ALONE)
		s->t.ops->reset(s);
	return rc;
}

int af_commit_said(struct af_fs *fs, const struct af_dest *to, const char *view_rel,
		   const uint8_t *yaml, size_t n, struct af_save_said *said)
{
	struct af_save *s = calloc(1, sizeof(*s));
	const struct af_bin_ops *ops = NULL;
	int rc = 0, late = 1, wrote = 0;
	if (!s)
		return -ENOMEM;
	/* the daemon's from here (encode, check, cache); the saver's rights are proven */
	int was = af_act_pause();
	s->fs = fs;
	s->to = to;
	s->yaml = yaml;
	s->n = n;
	s->t.dirfd = s->curfd = s->file.fd = -1;
	af_diag_init(&s->d);
	af_diag_init(&s->rd);
	pthread_mutex_lock(&fs->commit_lock);
	if (fs->read_only) {
		rc = -EROFS;
		goto out;
	}
	/* where it lands, once (its kind: t.ops): the folder the view was opened in (held
	 * since), else the one the path names now; never through a link */
	if (af_target_resolve(fs, to, &s->t, &s->d)) {
		rc = -EIO;
		goto fail;
	}
	ops = s->t.ops;
	/* what is saved into (a member: its container, proven first), the codec's rule (a
	 * refusal of the document's format is the document's: at its line:col) */
	if ((rc = ops->open(s))) {
		late = !s->d.line;
		goto fail;
	}
	/* the memory bound: again, alone, when refused short (af_budget_run) */
	late = 0; /* what fails here is the document's */
	rc = af_budget_run(save_attempt, s);
	if (rc || s->bin.failed) {
		if (!s->d.code)
			af_diag_error(&s->d, AF_ENOMEM, "out of memory");
		rc = s->d.code;
		goto fail;
	}
	s->where[0] = 0; /* what fails from here is the save's, not a file's */
	late = 1;
	if ((rc = ops->layout(s)) || (rc = ops->prove(s)))
		goto fail;
	if ((rc = ops->same(s)) > 0) { /* unchanged: no write */
		rc = 0;
		goto out;
	}
	if (rc || (rc = ops->replace(s)))
		goto fail;
	wrote = 1;
	goto out;
fail:
	report(fs, s->to->who.uid, view_rel, s->where, &s->d);
out:
	if (rc == 0 && !to->keep_said) { /* saved: what was said of it before is no longer so */
		af_errlog_forget(fs->errors, view_rel);
		af_errlog_forget(fs->errors, to->bin_rel);
	}
	if (rc == 0)
		report_notes(fs, to->who.uid, view_rel, &s->d);
	if (said) { /* what it did and said, for a face that answers at once */
		said->wrote = wrote;
		said->gone = s->gone;
		said->late = late;
		said->codec = s->t.ops == &af_bin_file_ops ? s->t.codec : NULL;
		af_diag_free(&said->d);
		said->d = s->d;
		af_diag_init(&s->d);
		if (rc && !said->d.code)
			af_diag_error(&said->d, rc == -EROFS ? AF_EROFS : AF_EIO, "%s",
				      rc > -1000 ? strerror(-rc) : "the save failed");
	}
	if (ops)
		ops->close(s);
	if (s->sib_open)
		af_sibio_close(&s->sib);
	pthread_mutex_unlock(&fs->commit_lock);
	af_target_close(&s->t);
	af_buf_free(&s->bin);
	af_diag_free(&s->d);
	af_diag_free(&s->rd);
	free(s);
	af_act_resume(was);
	return rc;
}

int af_commit_to(struct af_fs *fs, const struct af_dest *to, const char *view_rel,
		 const uint8_t *yaml, size_t n)
{
	return af_commit_said(fs, to, view_rel, yaml, n, NULL);
}

int af_commit(struct af_fs *fs, const char *view_rel, const char *bin_rel, const uint8_t *yaml,
	      size_t n)
{
	struct af_dest to = {-1, bin_rel, af_who_self(), 0666 & ~022, 0, NULL, NULL, NULL, 0, 0};
	return af_commit_to(fs, &to, view_rel, yaml, n);
}

int af_commit_plain(struct af_fs *fs, const struct af_who *who, const char *rel,
		    const uint8_t *data, size_t n, const struct stat *like)
{
	struct af_diag d;
	char base[NAME_MAX + 1];
	struct af_dest to = {-1, rel, *who, like->st_mode & 07777, 1, like, NULL, NULL, 0, 0};
	int rc = 0, dirfd, was = af_act_pause();
	if (fs->read_only) {
		af_act_resume(was);
		return -EROFS;
	}
	af_diag_init(&d);
	pthread_mutex_lock(&fs->commit_lock);
	dirfd = af_ov_parent_w(fs, rel, base, sizeof(base), who);
	struct af_replace_opts ro = {0};
	if (dirfd < 0) {
		af_diag_error(&d, AF_EIO, "cannot open its folder: %s", strerror(errno));
		rc = -EIO;
	} else if (replace(&to, dirfd, base, 0, data, n, &ro, &d)) {
		rc = d.code == AF_EACCES || d.code == AF_EPERM ? d.code : AF_EIO;
	}
	if (rc)
		report(fs, who->uid, rel, "", &d);
	else
		af_errlog_forget(fs->errors, rel);
	if (dirfd >= 0)
		close(dirfd);
	pthread_mutex_unlock(&fs->commit_lock);
	af_diag_free(&d);
	af_act_resume(was);
	return rc;
}
