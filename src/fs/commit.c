/* Saving a view: parse, validate and encode the YAML through the codec its `format:`
 * names, check the codec reads its own output back, then replace the backing binary
 * atomically (or leave it alone when the bytes are the same, keeping its mtime). */
#include <errno.h>
#include <string.h>
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

/* The encoder's output must decode: a codec bug must not reach the game folder. */
static int verify(const struct af_codec *c, struct af_sibio *sib, const struct af_buf *bin,
		  struct af_diag *d)
{
	struct af_buf yaml = AF_BUF_INIT;
	struct af_diag vd;
	int rc = 0;
	af_diag_init(&vd);
	if (c->to_yaml(bin->data, bin->len, &sib->io, &yaml, &vd)) {
		char msg[900];
		af_diag_format(&vd, "encoded binary", msg, sizeof(msg));
		rc = af_diag_error(d, AF_EIO, "the encoder produced bytes its decoder rejects (%s)",
				   msg);
	}
	af_buf_free(&yaml);
	af_diag_free(&vd);
	return rc;
}

int af_commit(struct af_fs *fs, const char *view_rel, const char *bin_rel, const uint8_t *yaml,
	      size_t n)
{
	struct af_buf bin = AF_BUF_INIT, cur = AF_BUF_INIT;
	struct af_diag d, rd;
	struct af_sibio sib;
	const struct af_codec *c;
	int rc = 0;

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
	c = af_codec_for_yaml(yaml, n, &d);
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
	if (verify(c, &sib, &bin, &d)) {
		rc = -EIO;
		goto fail;
	}
	if (af_read_file_at(fs->rootfd, bin_rel, AF_MAX_FILE, &cur, &rd) == 0 &&
	    cur.len == bin.len && !memcmp(cur.data, bin.data, bin.len))
		goto out; /* unchanged: no write, the mtime stays */
	if (af_replace_file_at(fs->rootfd, bin_rel, bin.data, bin.len, 0644, &d)) {
		rc = -EIO;
		goto fail;
	}
	af_fs_log(LOG_INFO, "saved %s (%zu bytes)", bin_rel, bin.len);
	goto out;
fail:
	report(fs, view_rel, &d);
out:
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
