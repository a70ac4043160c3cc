/* Bounded file reading and atomic replacement (temp + fsync + rename + dir fsync). */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "animfs/fileio.h"
#include "animfs/pieces.h"

int af_read_file_at(int dirfd, const char *path, size_t max, struct af_buf *out,
		    struct af_diag *d)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return af_diag_error(d, AF_EIO, "cannot open: %s", strerror(errno));
	return af_read_fd(fd, max, out, d);
}

int af_read_fd(int fd, size_t max, struct af_buf *out, struct af_diag *d)
{
	int rc = 0;
	struct stat st;
	if (fstat(fd, &st) < 0) {
		rc = af_diag_error(d, AF_EIO, "cannot stat: %s", strerror(errno));
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		rc = af_diag_error(d, AF_EIO, "is a directory");
		goto out;
	}
	if (st.st_size > 0 && (uint64_t)st.st_size > max) {
		rc = af_diag_error(d, AF_EINVAL, "file is %lld bytes; the limit is %zu",
				   (long long)st.st_size, max);
		goto out;
	}
	if (af_buf_reserve(out, st.st_size > 0 ? (size_t)st.st_size + 1 : 4096)) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
		goto out;
	}
	for (;;) {
		if (out->len >= max + 1) {
			rc = af_diag_error(d, AF_EINVAL, "file is larger than the limit of %zu bytes", max);
			goto out;
		}
		if (af_buf_reserve(out, 65536)) {
			rc = af_diag_error(d, AF_ENOMEM, "out of memory");
			goto out;
		}
		ssize_t r = read(fd, out->data + out->len, out->cap - out->len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			rc = af_diag_error(d, AF_EIO, "read failed: %s", strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		out->len += (size_t)r;
	}
	if (out->len > max)
		rc = af_diag_error(d, AF_EINVAL, "file is larger than the limit of %zu bytes", max);
out:
	close(fd);
	return rc;
}

int af_read_head_at(int dirfd, const char *path, uint8_t *head, size_t n, size_t *got)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return AF_EIO;
	return af_read_head_fd(fd, head, n, got);
}

int af_read_head_fd(int fd, uint8_t *head, size_t n, size_t *got)
{
	size_t have = 0;
	while (have < n) {
		ssize_t r = read(fd, head + have, n - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		have += (size_t)r;
	}
	close(fd);
	*got = have;
	return 0;
}

static const char *const fault_names[] = { "after-temp-write", "after-temp-fsync",
					    "before-rename", "after-rename" };
enum { F_NONE = -1, F_AFTER_WRITE, F_AFTER_FSYNC, F_BEFORE_RENAME, F_AFTER_RENAME };
static int fault_at = F_NONE;

int af_fault_init(void)
{
	const char *v = getenv("ANIMFS_FAULT");
	fault_at = F_NONE;
	if (!v || !*v)
		return 0;
	for (int i = 0; i < (int)(sizeof(fault_names) / sizeof(fault_names[0])); i++)
		if (!strcmp(v, fault_names[i]))
			fault_at = i;
	return fault_at == F_NONE ? -1 : 0;
}

/* Exit at once, no cleanup, no atexit: what a crash leaves is what we test. */
static void fault(int step)
{
	if (fault_at == step)
		_exit(86);
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* What goes into the temp file: data, or pieces of src. */
struct content {
	const void *data;
	size_t n;
	const struct af_pieces *pieces;
	const struct af_src *src;
};

static int put_content(int fd, const struct content *c, struct af_diag *d)
{
	if (c->pieces)
		return af_pieces_write(c->pieces, c->src, fd, NULL, d);
	if (write_all(fd, c->data, c->n) < 0)
		return af_diag_error(d, AF_EIO, "cannot write: %s", strerror(errno));
	return 0;
}

static int replace_with(int dirfd, const char *name, const struct content *c, mode_t mode,
			const struct af_replace_opts *o, struct af_diag *d)
{
	char tmp[4096];
	const char *slash = strrchr(name, '/');
	size_t dirlen = slash ? (size_t)(slash - name) + 1 : 0;
	struct stat st;
	int fd = -1, dfd = -1, rc = 0, created = 0;
	static unsigned counter;

	int have_old = 0;
	if (o && o->old && !o->as_new) {
		st = *o->old;
		have_old = S_ISREG(st.st_mode);
	} else {
		have_old = (!o || !o->as_new) && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			   S_ISREG(st.st_mode);
	}
	if (have_old)
		mode = st.st_mode & 07777;
	if (have_old && o && o->clear_setid)
		mode &= ~(mode_t)(S_ISUID | ((mode & S_IXGRP) ? S_ISGID : 0));
	if (dirlen + NAME_MAX >= sizeof(tmp))
		return af_diag_error(d, AF_EIO, "file name too long");
	for (int attempt = 0; attempt < 100; attempt++) {
		/* the temp name must fit NAME_MAX whatever the name: the name is cut to fit
		 * (at a character boundary), after the pid and counter that make it unique */
		char head[64];
		int hl = snprintf(head, sizeof(head), "%s%ld-%u-", AF_TMP_PREFIX, (long)getpid(),
				  __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED));
		size_t room = NAME_MAX - (size_t)hl, nl = strlen(name + dirlen);
		if (nl > room) {
			nl = room;
			while (nl && ((unsigned char)name[dirlen + nl] & 0xC0) == 0x80)
				nl--;
		}
		snprintf(tmp, sizeof(tmp), "%.*s%s%.*s", (int)dirlen, name, head, (int)nl,
			 name + dirlen);
		fd = openat(dirfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0) {
		rc = af_diag_error(d, errno == EACCES ? AF_EACCES : errno == EPERM ? AF_EPERM : AF_EIO,
				   "cannot create a temporary file: %s", strerror(errno));
		goto out;
	}
	created = 1;
	/* the replacement keeps the file's owner, group and mode exactly (a new file: the
	 * owner asked for); the owner first, since chown may clear set-id bits */
	if (have_old || (o && o->set_owner)) {
		uid_t uid = have_old ? st.st_uid : o->uid;
		gid_t gid = have_old ? st.st_gid : o->gid;
		if ((uid != geteuid() || gid != getegid()) && fchown(fd, uid, gid) < 0 &&
		    errno != EPERM) {
			rc = af_diag_error(d, AF_EIO, "cannot set the owner: %s", strerror(errno));
			goto out;
		}
	}
	if (fchmod(fd, mode) < 0 && errno != EPERM) {
		rc = af_diag_error(d, AF_EIO, "cannot set mode: %s", strerror(errno));
		goto out;
	}
	if ((rc = put_content(fd, c, d)))
		goto out;
	fault(F_AFTER_WRITE);
	if (o && o->check && (rc = o->check(o->check_ctx, fd, d)))
		goto out;
	if (fsync(fd) < 0) {
		rc = af_diag_error(d, AF_EIO, "fsync failed: %s", strerror(errno));
		goto out;
	}
	fault(F_AFTER_FSYNC);
	if (o && o->give && (rc = o->give(o->give_ctx, fd, d)))
		goto out;
	if (o && o->before_rename && (rc = o->before_rename(o->ctx, d)))
		goto out;
	fault(F_BEFORE_RENAME);
	if (o && o->noreplace ? renameat2(dirfd, tmp, dirfd, name, RENAME_NOREPLACE) < 0
			      : renameat(dirfd, tmp, dirfd, name) < 0) {
		int e = errno;
		rc = af_diag_error(d, e == EEXIST ? -EEXIST : e == EACCES ? AF_EACCES : e == EPERM ? AF_EPERM : AF_EIO,
				   e == EEXIST ? "%s" : "rename failed: %s", e == EEXIST ? "exists" : strerror(e));
		goto out;
	}
	created = 0;
	fault(F_AFTER_RENAME);
	if (o && o->st_out && fstat(fd, o->st_out) < 0)
		memset(o->st_out, 0, sizeof(*o->st_out)); /* matches no file: nothing cached */
	close(fd); /* the data is fsynced: closing cannot lose it now */
	fd = -1;
	if (dirlen) {
		char dir[4096];
		snprintf(dir, sizeof(dir), "%.*s", (int)dirlen, name);
		dfd = openat(dirfd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	} else {
		dfd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (dfd >= 0 && fsync(dfd) < 0 && errno != EINVAL)
		rc = af_diag_error(d, AF_EIO, "fsync of the folder failed: %s", strerror(errno));
out:
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	if (created)
		unlinkat(dirfd, tmp, 0);
	return rc;
}

int af_replace_file_ex(int dirfd, const char *name, const void *data, size_t n, mode_t mode,
		       const struct af_replace_opts *o, struct af_diag *d)
{
	struct content c = {data, n, NULL, NULL};
	return replace_with(dirfd, name, &c, mode, o, d);
}

int af_replace_file_pieces(int dirfd, const char *name, const struct af_pieces *p,
			   const struct af_src *src, mode_t mode, const struct af_replace_opts *o,
			   struct af_diag *d)
{
	struct content c = {NULL, 0, p, src};
	return replace_with(dirfd, name, &c, mode, o, d);
}

int af_replace_file_at(int dirfd, const char *name, const void *data, size_t n, mode_t mode,
		       struct af_diag *d)
{
	return af_replace_file_ex(dirfd, name, data, n, mode, NULL, d);
}

void af_fid_of(const struct stat *st, struct af_fid *id)
{
	memset(id, 0, sizeof(*id));
	id->dev = st->st_dev;
	id->ino = st->st_ino;
	id->size = st->st_size;
	id->mtime = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
	id->ctime = (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;
}

int af_fid_same(const struct af_fid *a, const struct af_fid *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime == b->mtime && a->ctime == b->ctime;
}

int af_tmpfile(struct af_diag *d)
{
	const char *dir = getenv("TMPDIR");
	char name[4096];
	int fd;
	if (!dir || !*dir)
		dir = "/tmp";
	if ((fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)) >= 0)
		return fd;
	/* no O_TMPFILE there: a name, removed at once */
	snprintf(name, sizeof(name), "%s/animfs-layer-XXXXXX", dir);
	if ((fd = mkostemp(name, O_CLOEXEC)) >= 0) {
		unlink(name);
		return fd;
	}
	af_diag_error(d, AF_EIO, "cannot make a temporary file in %s: %s", dir, strerror(errno));
	return -1;
}
