/* Saving a view: parse, validate and encode the YAML through the view's codec (the
 * one that claimed its binary; its `format:` must say so), check the codec reads its own output back (on a second thread, while the
 * temp file is written), then replace the backing binary atomically (or leave it
 * alone when the bytes are the same, keeping its mtime). */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>

#include "animfs/fileio.h"
#include "animfs/fs.h"

static int errno_of(int code)
{
	switch (code) {
	case AF_EINVAL:
	case AF_EUNSUP:
		return -EINVAL;
	case AF_ENOMEM:
		return -ENOMEM;
	default:
		return -EIO;
	}
}

static void report(struct af_fs *fs, const char *view_rel, const struct af_diag *d)
{
	char msg[1200];
	af_diag_format(d, view_rel, msg, sizeof(msg));
	af_fs_log(LOG_ERR, "save refused, %s (the backing file is unchanged)", msg);
	af_errlog_add(fs->errors, view_rel, d);
}

/* The encoder's output must decode: a codec bug must not reach the game folder.
 * The check runs on a second thread while the temp file is written and fsynced,
 * and the rename waits for it. Its YAML is what a render of the new binary would
 * give, so it becomes the view's cache entry. */
struct verify {
	const struct af_codec *c;
	struct af_sibio sib;
	const struct af_buf *bin;
	struct af_buf yaml;
	struct af_diag d;
	int rc, started;
	pthread_t thread;
};

static void *verify_run(void *arg)
{
	struct verify *v = arg;
	v->rc = v->c->to_yaml(v->bin->data, v->bin->len, &v->sib.io, &v->yaml, &v->d);
	if (!v->rc && v->yaml.failed)
		v->rc = af_diag_error(&v->d, AF_ENOMEM, "out of memory");
	return NULL;
}

static void verify_start(struct verify *v, struct af_fs *fs, const struct af_codec *c,
			 const char *bin_rel, const struct af_buf *bin)
{
	v->c = c;
	v->bin = bin;
	af_buf_init(&v->yaml);
	af_diag_init(&v->d);
	af_sibio_init(&v->sib, fs, bin_rel);
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
 * (what a render uses) picks the same codec. */
static void seed_cache(struct af_fs *fs, struct verify *v, const char *bin_rel,
		       const struct stat *st)
{
	const char *base = strrchr(bin_rel, '/');
	base = base ? base + 1 : bin_rel;
	if (!st->st_ino || af_codec_bid(base, v->bin->data,
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
static const struct af_codec *save_codec(struct af_fs *fs, const char *bin_rel,
					 const uint8_t *yaml, size_t n, struct af_diag *d)
{
	struct stat st;
	struct af_rinfo info = {0};
	if (fstatat(fs->rootfd, bin_rel, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		af_view_classify(fs, bin_rel, &st, &info);
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

int af_commit(struct af_fs *fs, const char *view_rel, const char *bin_rel, const uint8_t *yaml,
	      size_t n)
{
	struct af_buf bin = AF_BUF_INIT, cur = AF_BUF_INIT;
	struct af_diag d, rd;
	struct af_sibio sib;
	struct verify v;
	struct stat st;
	const struct af_codec *c;
	int rc = 0, verifying = 0;

	af_diag_init(&d);
	af_diag_init(&rd);
	pthread_mutex_lock(&fs->commit_lock);
	if (fs->read_only) {
		rc = -EROFS;
		goto out;
	}
	if (af_pkgfs_member(fs, bin_rel)) { /* a resource inside a Sims 3 package */
		if (af_pkgfs_commit(fs, bin_rel, yaml, n, &d)) {
			rc = errno_of(d.code);
			goto fail;
		}
		goto out;
	}
	c = save_codec(fs, bin_rel, yaml, n, &d);
	if (!c) {
		rc = -EINVAL;
		goto fail;
	}
	af_sibio_init(&sib, fs, bin_rel);
	if (c->from_yaml(yaml, n, &sib.io, &bin, &d) || bin.failed) {
		if (!d.code)
			af_diag_error(&d, AF_ENOMEM, "out of memory");
		rc = errno_of(d.code);
		goto fail;
	}
	verify_start(&v, fs, c, bin_rel, &bin);
	verifying = 1;
	if (af_read_file_at(fs->rootfd, bin_rel, AF_MAX_FILE, &cur, &rd) == 0 &&
	    cur.len == bin.len && !memcmp(cur.data, bin.data, bin.len)) {
		if (verify_wait(&v, &d)) { /* unchanged, but the codec must still agree */
			rc = -EIO;
			goto fail;
		}
		goto out; /* unchanged: no write, the mtime stays */
	}
	struct af_replace_opts ro = { verify_wait, &v, &st };
	if (af_replace_file_ex(fs->rootfd, bin_rel, bin.data, bin.len, 0644, &ro, &d)) {
		rc = -EIO;
		goto fail;
	}
	seed_cache(fs, &v, bin_rel, &st);
	af_fs_log(LOG_INFO, "saved %s (%zu bytes)", bin_rel, bin.len);
	goto out;
fail:
	report(fs, view_rel, &d);
out:
	if (verifying) {
		verify_wait(&v, &rd); /* joined on every path */
		verify_free(&v);
	}
	pthread_mutex_unlock(&fs->commit_lock);
	af_buf_free(&bin);
	af_buf_free(&cur);
	af_diag_free(&d);
	af_diag_free(&rd);
	return rc;
}

int af_commit_plain(struct af_fs *fs, const char *rel, const uint8_t *data, size_t n,
		    mode_t mode)
{
	struct af_diag d;
	int rc = 0;
	if (fs->read_only)
		return -EROFS;
	af_diag_init(&d);
	pthread_mutex_lock(&fs->commit_lock);
	if (af_replace_file_at(fs->rootfd, rel, data, n, mode, &d)) {
		report(fs, rel, &d);
		rc = -EIO;
	}
	pthread_mutex_unlock(&fs->commit_lock);
	af_diag_free(&d);
	return rc;
}
