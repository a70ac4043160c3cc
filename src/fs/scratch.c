/* The scratch area: a private folder outside GAME (made at mount, removed at unmount)
 * that holds every file an editor creates in the view that is not a view YAML
 * (swap files, `4913`, `x~`, sed/gedit temp files). Paths mirror the view's. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "animfs/fs.h"

int af_scratch_open_dir(struct af_fs *fs)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp)
		tmp = "/tmp";
	snprintf(fs->scratch_path, sizeof(fs->scratch_path), "%s/animfs-scratch-XXXXXX", tmp);
	if (!mkdtemp(fs->scratch_path))
		return -errno;
	/* absolute: the daemon leaves its working folder, and removes this by path */
	char abs[PATH_MAX];
	if (realpath(fs->scratch_path, abs) && strlen(abs) < sizeof(fs->scratch_path))
		memcpy(fs->scratch_path, abs, strlen(abs) + 1);
	fs->scratchfd = open(fs->scratch_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fs->scratchfd < 0) {
		int e = errno;
		rmdir(fs->scratch_path);
		return -e;
	}
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

void af_scratch_remove(struct af_fs *fs)
{
	if (fs->scratchfd >= 0)
		close(fs->scratchfd);
	fs->scratchfd = -1;
	if (fs->scratch_path[0])
		nftw(fs->scratch_path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	fs->scratch_path[0] = 0;
}

/* mkdir -p of rel's folder inside the scratch area. */
static int make_parents(struct af_fs *fs, const char *rel)
{
	char dir[4096];
	size_t n = strlen(rel);
	if (n >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, rel, n + 1);
	for (char *p = strchr(dir, '/'); p; p = strchr(p + 1, '/')) {
		*p = 0;
		if (mkdirat(fs->scratchfd, dir, 0700) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

int af_scratch_exists(struct af_fs *fs, const char *rel, struct stat *st)
{
	struct stat tmp;
	if (!st)
		st = &tmp;
	return fstatat(fs->scratchfd, rel, st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st->st_mode);
}

int af_scratch_create(struct af_fs *fs, const char *rel, int flags, mode_t mode)
{
	int rc, fd, existed;
	pthread_mutex_lock(&fs->lock);
	rc = make_parents(fs, rel);
	if (rc)
		goto out;
	existed = af_scratch_exists(fs, rel, NULL);
	fd = openat(fs->scratchfd, rel, flags | O_CREAT | O_CLOEXEC, mode);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	if (!existed)
		__atomic_add_fetch(&fs->nscratch, 1, __ATOMIC_RELAXED);
	rc = fd;
out:
	pthread_mutex_unlock(&fs->lock);
	return rc;
}

int af_scratch_symlink(struct af_fs *fs, const char *target, const char *rel)
{
	int rc;
	pthread_mutex_lock(&fs->lock);
	rc = make_parents(fs, rel);
	if (!rc && symlinkat(target, fs->scratchfd, rel) < 0)
		rc = -errno;
	if (!rc)
		__atomic_add_fetch(&fs->nscratch, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&fs->lock);
	return rc;
}

int af_scratch_unlink(struct af_fs *fs, const char *rel)
{
	int rc = 0;
	pthread_mutex_lock(&fs->lock);
	if (unlinkat(fs->scratchfd, rel, 0) < 0)
		rc = -errno;
	else if (fs->nscratch)
		__atomic_sub_fetch(&fs->nscratch, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&fs->lock);
	return rc;
}

int af_scratch_rename(struct af_fs *fs, const char *from, const char *to)
{
	int rc;
	pthread_mutex_lock(&fs->lock);
	rc = make_parents(fs, to);
	if (rc)
		goto out;
	int existed = af_scratch_exists(fs, to, NULL);
	if (renameat(fs->scratchfd, from, fs->scratchfd, to) < 0)
		rc = -errno;
	else if (existed && fs->nscratch)
		__atomic_sub_fetch(&fs->nscratch, 1, __ATOMIC_RELAXED);
out:
	pthread_mutex_unlock(&fs->lock);
	return rc;
}

int af_scratch_put(struct af_fs *fs, const char *rel, const void *data, size_t n, mode_t mode)
{
	const uint8_t *p = data;
	int rc = 0, fd = af_scratch_create(fs, rel, O_WRONLY | O_TRUNC, mode);
	if (fd < 0)
		return fd;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			rc = -errno;
			break;
		}
		p += w;
		n -= (size_t)w;
	}
	close(fd);
	return rc;
}
