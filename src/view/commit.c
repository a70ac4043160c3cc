/* Saving a view: parse, validate and encode the YAML through the view's codec (the
 * one that claimed its binary; its `format:` must say so), check the codec reads its own output back (on a second thread, while the
 * temp file is written), then replace the backing binary atomically (or leave it
 * alone when the bytes are the same, keeping its mtime). The saver's right comes
 * first, proven as the saver: a write into an existing binary opens it for writing as
 * them (the replace is then the daemon's, keeping owner, group and mode, less the
 * set-id bits a write clears); a new binary, or one a rename puts in place, is made
 * and renamed by the saver, so it is theirs as on any folder. */
#include <errno.h>
#include <pthread.h>
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
#include "animfs/split.h"
#include "binary.h"
#include "commit.h"
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
struct verify {
	const struct af_codec *c;
	struct af_sibio sib;
	const struct af_buf *bin;
	const char *bin_rel; /* where it goes: the view's modeline depends on it */
	struct af_buf yaml;
	struct af_diag d;
	int rc, started;
	pthread_t thread;
};

static void *verify_run(void *arg)
{
	struct verify *v = arg;
	v->rc = af_view_modeline(v->c, v->bin_rel, &v->yaml);
	if (!v->rc)
		v->rc = v->c->to_yaml(v->bin->data, v->bin->len, &v->sib.d.io, &v->yaml, &v->d);
	if (!v->rc && v->yaml.failed)
		v->rc = af_diag_error(&v->d, AF_ENOMEM, "out of memory");
	return NULL;
}

/* sib: the save's own sibling io (the same folder; the check gets a copy). */
static void verify_start(struct verify *v, const struct af_codec *c, const struct af_sibio *sib,
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
	struct verify *v = arg;
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

static void verify_free(struct verify *v)
{
	af_buf_free(&v->yaml);
	af_diag_free(&v->d);
}

/* The view of the new binary is the check's YAML, when the binary's own bid
 * (what a render uses) picks the same codec, and the text is the binary's alone: not
 * when the check read siblings (asked: as the saver, a text another caller may not be
 * shown) or names (the user dictionary): a render notes those (deps.h), and its text
 * is checked against them again at each open. */
static void seed_cache(struct af_fs *fs, struct verify *v, const char *base,
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
 * decode included), or for a new view one its extension names: af_codec_for_save. */
static const struct af_codec *save_codec(struct af_fs *fs, const struct af_target *t,
					 const struct stat *st, const uint8_t *yaml, size_t n,
					 struct af_diag *d)
{
	const char *bin_rel = t->bin_rel;
	struct af_rinfo info = {0};
	if (st) {
		af_view_classify_at(fs, t->dirfd, t->base, st, &info);
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

/* The document parsed and encoded (or joined) for a save, within the memory bound. */
struct parse_job {
	struct af_rcache *cache;
	const struct af_dest *to;
	const struct af_codec *codec;
	const uint8_t *yaml;
	size_t n;
	struct af_sibio *sib;
	struct af_buf *bin;
	struct af_diag *d;
	char *where;
	size_t wsize;
};

static int parse_attempt(void *ctx, int alone)
{
	struct parse_job *j = ctx;
	struct af_parse_share ps;
	struct af_io *io = &j->sib->d.io;
	io->yaml_max = af_parse_begin(&ps, j->cache, j->n, alone);
	io->yaml_more = af_loan_more;
	io->yaml_more_ctx = &ps.loan;
	int rc = j->to->join ? j->to->join(j->to->join_ctx, j->codec, j->yaml, j->n, io, j->bin, j->d,
					   j->where, j->wsize)
			     : j->codec->from_yaml(j->yaml, j->n, io, j->bin, j->d);
	io->yaml_more = NULL; /* the loan ends with the parse */
	io->yaml_more_ctx = NULL;
	if ((rc = af_parse_end(&ps, rc)) == AF_AGAIN_ALONE) {
		af_buf_reset(j->bin);
		af_diag_clear(j->d);
		j->where[0] = 0;
	}
	return rc;
}

int af_commit_to(struct af_fs *fs, const struct af_dest *to, const char *view_rel,
		 const uint8_t *yaml, size_t n)
{
	struct af_buf bin = AF_BUF_INIT, cur = AF_BUF_INIT;
	struct af_diag d, rd;
	struct af_sibio sib;
	struct af_target t = {.dirfd = -1};
	struct verify v;
	struct stat st, old, proven;
	char where[AF_SPLIT_NAME_MAX] = "";
	int rc = 0, verifying = 0, exists, found, curfd = -1;
	/* the daemon's from here (encode, check, cache); the saver's rights are proven */
	int was = af_act_pause();

	af_diag_init(&d);
	af_diag_init(&rd);
	pthread_mutex_lock(&fs->commit_lock);
	if (fs->read_only) {
		rc = -EROFS;
		goto out;
	}
	/* where it lands, once: the folder the view was opened in (held since), else the
	 * one the path names now; never through a link */
	if (af_target_resolve(fs, to, &t, &d)) {
		rc = -EIO;
		goto fail;
	}
	if (t.container) { /* a member of a container */
		if (af_folder_commit(fs, to, &t, yaml, n, &d)) {
			rc = d.code;
			goto fail;
		}
		goto out;
	}
	found = fstatat(t.dirfd, t.base, &old, AT_SYMLINK_NOFOLLOW) == 0;
	exists = found && S_ISREG(old.st_mode);
	/* a copy-up (overlay.c): the file the save stands for, and compares with, is GAME's */
	struct af_dest up = *to;
	struct af_target game = t;
	if ((curfd = af_ov_copy_source(fs, t.dirfd, t.bin_rel, &up.mode)) >= 0) {
		to = &up;
		game.dirfd = curfd;
		found = fstatat(curfd, t.base, &old, AT_SYMLINK_NOFOLLOW) == 0;
	}
	t.codec = save_codec(fs, curfd >= 0 ? &game : &t, found ? &old : NULL, yaml, n, &d);
	if (!t.codec) {
		if (to->join && d.line) /* a split view's `format:` is its index's */
			snprintf(where, sizeof(where), "%s", AF_SPLIT_INDEX);
		rc = -EINVAL;
		goto fail;
	}
	af_sibio_init_at(&sib, fs, t.dirfd, t.bin_rel);
	sib.as = &to->who; /* the files a save consults: those the saver may read */
	/* the memory bound: the tree's own share from the renders' pool, and the texts'
	 * lent when it needs more (af_budget_run: again, alone, when refused short) */
	struct parse_job job = {fs->cache, to, t.codec, yaml, n, &sib, &bin, &d, where, sizeof(where)};
	rc = af_budget_run(parse_attempt, &job);
	if (rc || bin.failed) {
		if (!d.code)
			af_diag_error(&d, AF_ENOMEM, "out of memory");
		rc = d.code;
		goto fail;
	}
	where[0] = 0; /* what fails from here is the save's, not a file's */
	if (af_ov_layout(fs, t.codec, t.bin_rel, &bin, &d)) { /* --overlay --to LAYOUT */
		rc = -ENOMEM;
		goto fail;
	}
	if ((rc = prove(to, t.dirfd, t.base, exists, &proven, &d)))
		goto fail;
	verify_start(&v, t.codec, &sib, t.bin_rel, &bin);
	verifying = 1;
	if (!to->as_new &&
	    af_bn_read_file(curfd >= 0 ? curfd : t.dirfd, t.base, AF_MAX_FILE, &cur, &rd) == 0 &&
	    cur.len == bin.len && !memcmp(cur.data, bin.data, bin.len)) {
		if (verify_wait(&v, &d)) { /* unchanged, but the codec must still agree */
			rc = -EIO;
			goto fail;
		}
		goto out; /* unchanged: no write, the mtime stays */
	}
	struct af_replace_opts ro = {verify_wait, &v, &st, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL};
	ro.old = exists && !to->as_new ? &proven : NULL; /* the file the saver may write */
	if (replace(to, t.dirfd, t.base, exists, bin.data, bin.len, &ro, &d)) {
		rc = d.code == AF_EACCES || d.code == AF_EPERM ? d.code : AF_EIO;
		goto fail;
	}
	seed_cache(fs, &v, t.base, &st, v.sib.asked);
	af_fs_log(LOG_INFO, "saved %s (%zu bytes)", to->bin_rel, bin.len);
	goto out;
fail:
	report(fs, to->who.uid, view_rel, where, &d);
out:
	if (rc == 0 && !to->keep_said) { /* saved: what was said of it before is no longer so */
		af_errlog_forget(fs->errors, view_rel);
		af_errlog_forget(fs->errors, to->bin_rel);
	}
	if (rc == 0)
		report_notes(fs, to->who.uid, view_rel, &d);
	if (verifying) {
		verify_wait(&v, &rd); /* joined on every path */
		verify_free(&v);
	}
	pthread_mutex_unlock(&fs->commit_lock);
	af_target_close(&t);
	if (curfd >= 0)
		close(curfd);
	af_buf_free(&bin);
	af_buf_free(&cur);
	af_diag_free(&d);
	af_diag_free(&rd);
	af_act_resume(was);
	return rc;
}

int af_commit(struct af_fs *fs, const char *view_rel, const char *bin_rel, const uint8_t *yaml,
	      size_t n)
{
	struct af_dest to = {-1, bin_rel, af_who_self(), 0666 & ~022, 0, NULL, NULL, NULL, 0};
	return af_commit_to(fs, &to, view_rel, yaml, n);
}

int af_commit_plain(struct af_fs *fs, const struct af_who *who, const char *rel,
		    const uint8_t *data, size_t n, const struct stat *like)
{
	struct af_diag d;
	char base[NAME_MAX + 1];
	struct af_dest to = {-1, rel, *who, like->st_mode & 07777, 1, like, NULL, NULL, 0};
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
