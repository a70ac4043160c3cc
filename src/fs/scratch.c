/* The scratch area: a folder outside GAME that holds the editors' droppings made in
 * the view (dropping.c says which names: swap files, `4913`, `x~`, sed/gedit temp
 * files). It is kept per GAME across mounts, so that vim's recovery and emacs'
 * auto-save survive a crash or a remount. Paths mirror the view's. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "animfs/beneath.h"
#include "animfs/fnv.h"
#include "fs_int.h"

#define WEEK (7 * 24 * 3600)

/* $XDG_STATE_HOME/animfs (or ~/.local/state/animfs), made 0700; 0 or -errno. */
static int state_dir(char *out, size_t size)
{
	const char *x = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char dir[PATH_MAX];
	if (x && x[0] == '/')
		snprintf(dir, sizeof(dir), "%s", x);
	else if (home && home[0] == '/')
		snprintf(dir, sizeof(dir), "%s/.local/state", home);
	else
		return -ENOENT;
	/* mkdir -p: ~/.local and ~/.local/state may not exist yet */
	for (char *p = strchr(dir + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = 0;
		mkdir(dir, 0700);
		*p = '/';
	}
	mkdir(dir, 0700);
	if ((size_t)snprintf(out, size, "%s/animfs", dir) >= size)
		return -ENAMETOOLONG;
	if (mkdir(out, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

/* Droppings older than a week are leftovers of an editor long gone: removed at mount,
 * with the folders they leave empty. The rest is counted. */
static unsigned sweep_count;
static time_t sweep_now;
static const char *sweep_root;

static int sweep_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (flag == FTW_DP) {
		if (strcmp(path, sweep_root))
			rmdir(path); /* fails (and stays) when not empty */
	} else if (flag == FTW_F || flag == FTW_SL) {
		if (sweep_now - st->st_mtime > WEEK && unlink(path) == 0)
			af_fs_log(LOG_NOTICE, "removed %s, an editor file older than a week", path);
		else
			sweep_count++;
	}
	return 0;
}

static pthread_mutex_t sweep_lock = PTHREAD_MUTEX_INITIALIZER;

unsigned af_scratch_sweep(const char *tree)
{
	unsigned n;
	pthread_mutex_lock(&sweep_lock);
	sweep_count = 0;
	sweep_now = time(NULL);
	sweep_root = tree;
	nftw(tree, sweep_one, 16, FTW_DEPTH | FTW_PHYS);
	n = sweep_count;
	pthread_mutex_unlock(&sweep_lock);
	return n;
}

/* The folder of GAME's droppings: <state>/scratch-<hash of GAME's path>/tree, with
 * a file `game` beside tree naming GAME for whoever looks. */
static int persistent_dir(struct af_fs *fs, const char *game)
{
	char base[PATH_MAX], note[PATH_MAX + 16];
	int rc = state_dir(base, sizeof(base));
	if (rc)
		return rc;
	size_t bl = strlen(base);
	snprintf(base + bl, sizeof(base) - bl, "/scratch-%016llx",
		 (unsigned long long)af_fnv1_64(game, strlen(game)));
	if (mkdir(base, 0700) && errno != EEXIST)
		return -errno;
	snprintf(note, sizeof(note), "%s/game", base);
	FILE *f = fopen(note, "we");
	if (f) {
		fprintf(f, "%s\n", game);
		fclose(f);
	}
	if ((size_t)snprintf(fs->scratch_path, sizeof(fs->scratch_path), "%s/tree", base) >=
	    sizeof(fs->scratch_path))
		return -ENAMETOOLONG;
	if (mkdir(fs->scratch_path, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

int af_scratch_open_dir(struct af_fs *fs, const char *game)
{
	int rc = 0;
	fs->scratch_private = !game;
	if (game) {
		rc = persistent_dir(fs, game);
	} else {
		const char *tmp = getenv("TMPDIR");
		if (!tmp || !*tmp)
			tmp = "/tmp";
		snprintf(fs->scratch_path, sizeof(fs->scratch_path), "%s/animfs-scratch-XXXXXX", tmp);
		if (!mkdtemp(fs->scratch_path))
			rc = -errno;
	}
	if (rc)
		return rc;
	/* absolute: the daemon leaves its working folder */
	char abs[PATH_MAX];
	if (realpath(fs->scratch_path, abs) && strlen(abs) < sizeof(fs->scratch_path))
		memcpy(fs->scratch_path, abs, strlen(abs) + 1);
	fs->scratchfd = open(fs->scratch_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fs->scratchfd < 0) {
		int e = errno;
		if (fs->scratch_private)
			rmdir(fs->scratch_path);
		return -e;
	}
	fs->nscratch = game ? af_scratch_sweep(fs->scratch_path) : 0;
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
	if (fs->scratch_path[0] && fs->scratch_private)
		nftw(fs->scratch_path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	else if (fs->scratch_path[0])
		af_scratch_sweep(fs->scratch_path); /* only the empty folders go */
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

void af_scratch_give(struct af_fs *fs, const char *rel, const struct af_who *w)
{
	char base[NAME_MAX + 1];
	int dir = af_bn_parent(fs->scratchfd, rel, base, sizeof(base));
	if (dir >= 0) {
		af_give_at(dir, base, w);
		close(dir);
	}
}
