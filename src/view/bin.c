/* What a view stands for, resolved once and opened as its caller: the one proof of a
 * caller's right to a view's binary, whose descriptor the daemon's work then reads,
 * and a game file's operations for the render pipeline (see bin.h; a member's are
 * member.c's and memsave.c's, a game file's save steps commit.c's). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "animfs/beneath.h"
#include "bin.h"
#include "binary.h"
#include "commit.h"
#include "folder.h"
#include "overlay.h"
#include "res.h"
#include "session.h"
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
