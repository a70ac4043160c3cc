/* Resolution beneath a folder descriptor with no symlink anywhere on the path. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "animfs/beneath.h"
#include "animfs/fileio.h"

static int force_walk;

void af_bn_force_walk(int on)
{
	force_walk = on;
}

/* openat2 where the kernel has it (-2 where it does not: take the walk). */
static int try_openat2(int root, const char *rel, int flags, mode_t mode)
{
	static int missing;
	struct open_how how;
	if (force_walk || __atomic_load_n(&missing, __ATOMIC_RELAXED))
		return -2;
	memset(&how, 0, sizeof(how));
	how.flags = (uint64_t)(flags | O_CLOEXEC);
	how.mode = flags & (O_CREAT | O_TMPFILE) ? mode & 07777 : 0; /* openat2 takes no type bits */
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
	for (;;) {
		long fd = syscall(SYS_openat2, root, rel, &how, sizeof(how));
		if (fd >= 0)
			return (int)fd;
		if (errno == EAGAIN || errno == EINTR)
			continue; /* a rename raced the lookup: try again */
		if (errno == ENOSYS) {
			__atomic_store_n(&missing, 1, __ATOMIC_RELAXED);
			return -2;
		}
		if (errno == EXDEV)
			errno = ELOOP; /* ".." or a link out of root: one answer for both */
		return -1;
	}
}

/* The walk: each folder opened with O_NOFOLLOW from the last one; "..", "" and
 * absolute paths refused. */
static int walk_open(int root, const char *rel, int flags, mode_t mode)
{
	char comp[NAME_MAX + 1];
	int dir = -1, fd;
	const char *p = rel;
	if (rel[0] == '/') {
		errno = ELOOP;
		return -1;
	}
	dir = openat(root, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -1;
	for (;;) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		if (n > NAME_MAX) {
			close(dir);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(comp, p, n);
		comp[n] = 0;
		if (!strcmp(comp, "..")) {
			close(dir);
			errno = ELOOP;
			return -1;
		}
		if (!slash) {
			fd = openat(dir, n ? comp : ".", flags | O_NOFOLLOW | O_CLOEXEC, mode);
			int e = errno;
			close(dir);
			errno = e;
			return fd;
		}
		if (n && strcmp(comp, ".")) {
			int next = openat(dir, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			int e = errno;
			close(dir);
			if (next < 0) {
				errno = e == ENOTDIR ? ELOOP : e; /* a link where a folder was */
				return -1;
			}
			dir = next;
		}
		p = slash + 1;
	}
}

int af_bn_open(int root, const char *rel, int flags, mode_t mode)
{
	int fd = try_openat2(root, rel, flags | O_NOFOLLOW, mode);
	return fd == -2 ? walk_open(root, rel, flags, mode) : fd;
}

int af_bn_stat(int root, const char *rel, struct stat *st)
{
	int fd = af_bn_open(root, rel, O_PATH, 0);
	if (fd < 0)
		return -1;
	int rc = fstat(fd, st);
	int e = errno;
	close(fd);
	errno = e;
	return rc;
}

int af_bn_parent(int root, const char *rel, char *base, size_t size)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(rel, '/');
	const char *b = slash ? slash + 1 : rel;
	size_t dl = slash ? (size_t)(slash - rel) : 0;
	if (strlen(b) >= size || dl >= sizeof(dir) || !b[0] || !strcmp(b, "..")) {
		errno = !b[0] || !strcmp(b, "..") ? ELOOP : ENAMETOOLONG;
		return -1;
	}
	memcpy(base, b, strlen(b) + 1);
	memcpy(dir, rel, dl);
	dir[dl] = 0;
	return af_bn_open(root, dl ? dir : ".", O_PATH | O_DIRECTORY, 0);
}

int af_bn_read_file(int root, const char *rel, size_t max, struct af_buf *out,
		    struct af_diag *d)
{
	int fd = af_bn_open(root, rel, O_RDONLY, 0);
	if (fd < 0)
		return af_diag_error(d, AF_EIO, "cannot open: %s", strerror(errno));
	return af_read_fd(fd, max, out, d);
}

/* After a read of the file looked up as *st, its identity again (stat_rc: that
 * stat's result): 0, or AF_BN_CHANGED with *st the new one. */
static int still(int stat_rc, const struct stat *again, struct stat *st, struct af_diag *d)
{
	struct af_fid a, b;
	if (stat_rc)
		return af_diag_error(d, AF_EIO, "cannot stat: %s", strerror(errno));
	af_fid_of(st, &a);
	af_fid_of(again, &b);
	if (af_fid_same(&a, &b))
		return 0;
	*st = *again;
	return AF_BN_CHANGED;
}

int af_bn_read_stable(int root, const char *rel, size_t max, struct stat *st,
		      struct af_buf *out, struct af_diag *d)
{
	struct stat again;
	int rc = af_bn_read_file(root, rel, max, out, d);
	return rc ? rc : still(af_bn_stat(root, rel, &again), &again, st, d);
}

int af_fd_read_stable(int fd, size_t max, struct stat *st, struct af_buf *out, struct af_diag *d)
{
	struct stat again;
	int own = dup(fd); /* read through its own descriptor, from the start */
	if (own < 0 || lseek(own, 0, SEEK_SET) < 0) {
		if (own >= 0)
			close(own);
		return af_diag_error(d, AF_EIO, "cannot read: %s", strerror(errno));
	}
	int rc = af_read_fd(own, max, out, d); /* closes own */
	return rc ? rc : still(fstat(fd, &again), &again, st, d);
}

int af_bn_read_head(int root, const char *rel, uint8_t *head, size_t n, size_t *got)
{
	int fd = af_bn_open(root, rel, O_RDONLY, 0);
	if (fd < 0)
		return AF_EIO;
	return af_read_head_fd(fd, head, n, got);
}

int af_bn_fchmod(int fd, mode_t mode)
{
	char proc[64];
	struct stat st;
	if (fstat(fd, &st))
		return -1;
	if (S_ISLNK(st.st_mode)) {
		errno = EOPNOTSUPP; /* Linux has no mode for links */
		return -1;
	}
	/* the descriptor's own inode, whatever its name is now */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return chmod(proc, mode);
}

/* An operation on rel's last component in its folder, resolved beneath root. */
enum entry_op { E_UNLINK, E_RMDIR, E_MKDIR, E_SYMLINK, E_READLINK };

static ssize_t entry_op(int root, const char *rel, enum entry_op op, const char *arg,
			char *buf, size_t n, mode_t mode)
{
	char base[NAME_MAX + 1];
	ssize_t rc;
	int dir = af_bn_parent(root, rel, base, sizeof(base));
	if (dir < 0)
		return -1;
	switch (op) {
	case E_UNLINK:
		rc = unlinkat(dir, base, 0);
		break;
	case E_RMDIR:
		rc = unlinkat(dir, base, AT_REMOVEDIR);
		break;
	case E_MKDIR:
		rc = mkdirat(dir, base, mode);
		break;
	case E_SYMLINK:
		rc = symlinkat(arg, dir, base);
		break;
	default:
		rc = readlinkat(dir, base, buf, n);
		break;
	}
	int e = errno;
	close(dir);
	errno = e;
	return rc;
}

int af_bn_unlink(int root, const char *rel, int flags)
{
	return (int)entry_op(root, rel, flags & AT_REMOVEDIR ? E_RMDIR : E_UNLINK, NULL, NULL, 0, 0);
}

int af_bn_mkdir(int root, const char *rel, mode_t mode)
{
	return (int)entry_op(root, rel, E_MKDIR, NULL, NULL, 0, mode);
}

int af_bn_symlink(const char *target, int root, const char *rel)
{
	return (int)entry_op(root, rel, E_SYMLINK, target, NULL, 0, 0);
}

ssize_t af_bn_readlink(int root, const char *rel, char *buf, size_t n)
{
	return entry_op(root, rel, E_READLINK, NULL, buf, n, 0);
}

int af_bn_rename(int root, const char *from, const char *to)
{
	char fb[NAME_MAX + 1], tb[NAME_MAX + 1];
	int fd = af_bn_parent(root, from, fb, sizeof(fb)), td = -1, rc = -1, e;
	if (fd >= 0 && (td = af_bn_parent(root, to, tb, sizeof(tb))) >= 0)
		rc = renameat(fd, fb, td, tb);
	e = errno;
	if (fd >= 0)
		close(fd);
	if (td >= 0)
		close(td);
	errno = e;
	return rc;
}
