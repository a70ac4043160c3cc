/* The scratch area: a folder outside GAME that holds the editors' droppings made in
 * the view (dropping.c says which names: swap files, `4913`, `x~`, sed/gedit temp
 * files). It is kept per GAME across mounts, so that vim's recovery and emacs'
 * auto-save survive a crash or a remount. Paths mirror the view's. Each user has a
 * tree of their own (the daemon's user: <scratch>/tree; any other: <scratch>/users/
 * <uid>, a 0700 folder owned by that user), worked in as that user, never through a
 * link, with a quota per user (--scratch-mb): one user's droppings never fill
 * another's room, nor can one user read what another's editor keeps there. */
#include <dirent.h>
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
#include "animfs/fs.h"
#include "animfs/privdir.h"
#include "errlog.h"
#include "scratch.h"
#include "session.h"
#include "who.h"

#define WEEK (7 * 24 * 3600)

#define DIRFLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* $XDG_STATE_HOME/animfs (or ~/.local/state/animfs), this user's, 0700, reached
 * through no link (privdir.h): fd, its path in out; -ENOENT (no home), -EPERM (a link
 * or another's folder on the way: why is said) or -errno. */
static int state_dir(char *out, size_t size)
{
	struct af_diag d;
	af_diag_init(&d);
	int e, fd = af_private_dir("XDG_STATE_HOME", ".local/state", "animfs", 0700, 1, out, size, &d);
	e = errno;
	if (fd == AF_EPERM)
		fprintf(stderr, "animfs mount: %s\n", d.msg);
	af_diag_free(&d);
	return fd >= 0 ? fd : fd == AF_EINVAL ? -ENOENT : fd == AF_EPERM ? -EPERM : -e;
}

/* A folder name in dfd, made with mode when missing, never through a link: fd or -errno. */
static int sub_dir(int dfd, const char *name, mode_t mode)
{
	if (mkdirat(dfd, name, mode) && errno != EEXIST)
		return -errno;
	int fd = openat(dfd, name, DIRFLAGS);
	return fd >= 0 ? fd : -errno;
}

/* A walk of a tree from descriptor to descriptor, never through a link (a tree its
 * user may change meanwhile): what is in it (files and links: their count and bytes),
 * and with sweep, droppings older than a week, leftovers of an editor long gone,
 * removed at mount with the folders they leave empty. */
struct walk {
	int sweep;
	time_t now;
	unsigned left;
	long long bytes;
};

static void walk(int dfd, const char *path, int depth, struct walk *w)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	char sub[PATH_MAX];
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	for (struct dirent *e; (e = readdir(d));) {
		struct stat st;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		if (S_ISDIR(st.st_mode)) {
			int c = depth < 64 ? openat(dirfd(d), e->d_name, DIRFLAGS) : -1;
			if (c >= 0) {
				walk(c, sub, depth + 1, w);
				close(c);
			}
			if (w->sweep) /* fails (and stays) when not empty */
				unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
		} else if (w->sweep && w->now - st.st_mtime > WEEK &&
			   unlinkat(dirfd(d), e->d_name, 0) == 0) {
			af_fs_log(LOG_NOTICE, "removed %s, an editor file older than a week", sub);
		} else {
			w->left++;
			w->bytes += st.st_size;
		}
	}
	closedir(d);
}

static unsigned sweep_fd(int dfd, const char *path)
{
	struct walk w = { 1, time(NULL), 0, 0 };
	walk(dfd, path, 0, &w);
	return w.left;
}

static long long tree_bytes(int dfd)
{
	struct walk w = { 0, 0, 0, 0 };
	walk(dfd, ".", 0, &w);
	return w.bytes;
}

unsigned af_scratch_sweep(const char *tree)
{
	int fd = open(tree, DIRFLAGS);
	unsigned n = fd >= 0 ? sweep_fd(fd, tree) : 0;
	if (fd >= 0)
		close(fd);
	return n;
}

/* The folder of GAME's droppings: <state>/scratch-<hash of GAME's path>/tree, with
 * a file `game` beside tree naming GAME for whoever looks; each made and opened from
 * the one before. 0 with fs->scratchfd open, or -errno. */
static int persistent_dir(struct af_fs *fs, const char *game)
{
	char base[PATH_MAX], name[32];
	int rc, statefd = -1, basefd = -1;
	if ((rc = statefd = state_dir(base, sizeof(base))) < 0)
		goto out;
	snprintf(name, sizeof(name), "scratch-%016llx",
		 (unsigned long long)af_fnv1_64(game, strlen(game)));
	if ((rc = basefd = sub_dir(statefd, name, 0700)) < 0)
		goto out;
	int nfd = openat(basefd, "game", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (nfd >= 0) {
		dprintf(nfd, "%s\n", game);
		close(nfd);
	}
	if ((rc = fs->usersfd = sub_dir(basefd, "users", 0711)) < 0)
		goto out;
	fs->pristinefd = sub_dir(basefd, "pristine", 0700);
	if (fs->pristinefd < 0)
		fs->pristinefd = -1;
	if ((size_t)snprintf(fs->scratch_path, sizeof(fs->scratch_path), "%s/%s/tree", base, name) >=
	    sizeof(fs->scratch_path)) {
		rc = -ENAMETOOLONG;
		goto out;
	}
	if ((rc = fs->scratchfd = sub_dir(basefd, "tree", 0700)) < 0)
		goto out;
	rc = 0;
out:
	if (rc < 0 && fs->usersfd >= 0)
		close(fs->usersfd);
	if (rc < 0 && fs->pristinefd >= 0)
		close(fs->pristinefd);
	if (rc < 0)
		fs->usersfd = fs->pristinefd = fs->scratchfd = -1;
	if (basefd >= 0)
		close(basefd);
	if (statefd >= 0)
		close(statefd);
	return rc;
}

static int has_entries(int dfd)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), any = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d && fd >= 0)
		close(fd);
	for (struct dirent *e; d && (e = readdir(d));)
		any |= strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return any;
}

int af_scratch_open_dir(struct af_fs *fs, const char *game)
{
	int rc = 0;
	fs->scratch_private = !game;
	if (game && (rc = persistent_dir(fs, game)) == -EPERM) {
		/* a link or another's folder where the state goes: a folder of this mount's */
		fprintf(stderr, "animfs mount: editor files of this mount go to a temporary "
			"folder, removed at unmount\n");
		fs->scratch_private = 1;
		rc = 0;
	}
	if (rc)
		return rc;
	if (fs->scratch_private) {
		const char *tmp = getenv("TMPDIR");
		if (!tmp || !*tmp)
			tmp = "/tmp";
		snprintf(fs->scratch_path, sizeof(fs->scratch_path), "%s/animfs-scratch-XXXXXX", tmp);
		if (!mkdtemp(fs->scratch_path))
			return -errno;
		/* absolute: the daemon leaves its working folder */
		char abs[PATH_MAX];
		if (realpath(fs->scratch_path, abs) && strlen(abs) < sizeof(fs->scratch_path))
			memcpy(fs->scratch_path, abs, strlen(abs) + 1);
		fs->scratchfd = open(fs->scratch_path, DIRFLAGS);
		if (fs->scratchfd < 0) {
			int e = errno;
			rmdir(fs->scratch_path);
			return -e;
		}
	}
	fs->nscratch = fs->scratch_private ? 0 : sweep_fd(fs->scratchfd, fs->scratch_path);
	fs->own.uid = af_daemon_uid();
	fs->own.fd = fs->scratchfd;
	fs->own.bytes = tree_bytes(fs->scratchfd);
	if (fs->usersfd >= 0 && has_entries(fs->usersfd))
		fs->nscratch++; /* other users' droppings of earlier mounts: look them up */
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
	for (size_t i = 0; i < fs->nusers; i++)
		close(fs->users[i].fd);
	free(fs->users);
	fs->users = NULL;
	fs->nusers = 0;
	if (fs->usersfd >= 0)
		close(fs->usersfd);
	fs->usersfd = -1;
	if (fs->pristinefd >= 0)
		close(fs->pristinefd);
	fs->pristinefd = -1;
	if (fs->scratch_path[0] && fs->scratch_private)
		nftw(fs->scratch_path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	else if (fs->scratchfd >= 0)
		sweep_fd(fs->scratchfd, fs->scratch_path); /* only the empty folders go */
	if (fs->scratchfd >= 0)
		close(fs->scratchfd);
	fs->scratchfd = -1;
	fs->scratch_path[0] = 0;
}

/* ---- one tree per user ---- */

static struct af_scratch_user *find_user(struct af_fs *fs, uid_t uid)
{
	for (size_t i = 0; i < fs->nusers; i++)
		if (fs->users[i].uid == uid)
			return &fs->users[i];
	return NULL;
}

/* Open (make: or make) uid's own folder in users/, as the daemon: a name in a folder
 * only root may write, given to its user by descriptor. fd, or -errno. */
static int open_user_dir(struct af_fs *fs, uid_t uid, gid_t gid, int make)
{
	char name[24];
	struct stat st;
	snprintf(name, sizeof(name), "%u", (unsigned)uid);
	int fd = openat(fs->usersfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && make) {
		if (mkdirat(fs->usersfd, name, 0700) && errno != EEXIST)
			return -errno;
		fd = openat(fs->usersfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || ((st.st_uid != uid || (st.st_mode & 07777) != 0700) &&
			       (fchown(fd, uid, gid) || fchmod(fd, 0700)))) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

/* The tree of the request's caller: the daemon's own for itself and root; fd, or
 * -ENOENT when that user has none yet (and make is 0), or -errno. */
static int tree_of(struct af_fs *fs, int make, uid_t *owner)
{
	const struct af_who *w = af_caller();
	struct af_scratch_user *u;
	if (w->uid == af_daemon_uid() || w->uid == 0 || fs->usersfd < 0) {
		*owner = af_daemon_uid();
		return fs->scratchfd;
	}
	*owner = w->uid;
	pthread_mutex_lock(&fs->lock);
	u = find_user(fs, w->uid);
	int fd = u ? u->fd : -1;
	pthread_mutex_unlock(&fs->lock);
	if (fd >= 0)
		return fd;
	int was = af_act_pause();
	fd = open_user_dir(fs, w->uid, w->gid, make);
	long long bytes = fd >= 0 ? tree_bytes(fd) : 0;
	af_act_resume(was);
	if (fd < 0)
		return fd;
	pthread_mutex_lock(&fs->lock);
	if ((u = find_user(fs, w->uid))) { /* another request of theirs was first */
		close(fd);
		fd = u->fd;
	} else {
		struct af_scratch_user *grown =
			af_resize(fs->users, (fs->nusers + 1) * sizeof(*fs->users));
		if (grown) {
			fs->users = grown;
			fs->users[fs->nusers++] = (struct af_scratch_user){w->uid, fd, bytes};
		} else {
			close(fd);
			fd = -ENOMEM;
		}
	}
	pthread_mutex_unlock(&fs->lock);
	return fd;
}

int af_scratch_charge(struct af_fs *fs, uid_t owner, long long delta)
{
	int rc = 0;
	pthread_mutex_lock(&fs->lock);
	struct af_scratch_user *u = owner == af_daemon_uid() ? &fs->own : find_user(fs, owner);
	if (u) {
		if (delta > 0 && u->bytes + delta > fs->scratch_quota)
			rc = -EDQUOT;
		else
			u->bytes = u->bytes + delta < 0 ? 0 : u->bytes + delta;
	}
	pthread_mutex_unlock(&fs->lock);
	if (rc)
		af_fs_log(LOG_WARNING, "uid %u: editor files over --scratch-mb=%lld MiB: write refused",
			  (unsigned)owner, fs->scratch_quota >> 20);
	return rc;
}

uid_t af_scratch_owner(struct af_fs *fs)
{
	uid_t owner;
	int fd = tree_of(fs, 0, &owner);
	(void)fd;
	return owner;
}

int af_scratch_dirfd(struct af_fs *fs)
{
	uid_t owner;
	return tree_of(fs, 0, &owner);
}

/* mkdir -p of rel's folder inside the tree, as its user, never through a link. */
static int make_parents(int tree, const char *rel)
{
	char dir[4096];
	size_t n = strlen(rel);
	if (n >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, rel, n + 1);
	for (char *p = strchr(dir, '/'); p; p = strchr(p + 1, '/')) {
		*p = 0;
		if (af_bn_mkdir(tree, dir, 0700) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

int af_scratch_exists(struct af_fs *fs, const char *rel, struct stat *st)
{
	struct stat tmp;
	uid_t owner;
	int tree = tree_of(fs, 0, &owner);
	if (!st)
		st = &tmp;
	return tree >= 0 && af_bn_stat(tree, rel, st) == 0 && !S_ISDIR(st->st_mode);
}

int af_scratch_create(struct af_fs *fs, const char *rel, int flags, mode_t mode)
{
	uid_t owner;
	int rc, fd, existed, tree = tree_of(fs, 1, &owner);
	if (tree < 0)
		return tree;
	pthread_mutex_lock(&fs->lock);
	rc = make_parents(tree, rel);
	if (rc)
		goto out;
	struct stat st;
	existed = af_bn_stat(tree, rel, &st) == 0;
	fd = af_bn_open(tree, rel, flags | O_CREAT | O_CLOEXEC, mode);
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
	uid_t owner;
	int rc, tree = tree_of(fs, 1, &owner);
	if (tree < 0)
		return tree;
	if ((rc = af_scratch_charge(fs, owner, (long long)strlen(target))))
		return rc;
	pthread_mutex_lock(&fs->lock);
	rc = make_parents(tree, rel);
	if (!rc && af_bn_symlink(target, tree, rel) < 0)
		rc = -errno;
	if (!rc)
		__atomic_add_fetch(&fs->nscratch, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&fs->lock);
	if (rc)
		af_scratch_charge(fs, owner, -(long long)strlen(target));
	return rc;
}

int af_scratch_unlink(struct af_fs *fs, const char *rel)
{
	uid_t owner;
	struct stat st;
	int rc = 0, tree = tree_of(fs, 0, &owner);
	if (tree < 0)
		return tree == -ENOENT ? -ENOENT : tree;
	int had = af_bn_stat(tree, rel, &st) == 0;
	pthread_mutex_lock(&fs->lock);
	if (af_bn_unlink(tree, rel, 0) < 0)
		rc = -errno;
	else if (fs->nscratch)
		__atomic_sub_fetch(&fs->nscratch, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&fs->lock);
	if (!rc && had && st.st_nlink <= 1)
		af_scratch_charge(fs, owner, -(long long)st.st_size);
	return rc;
}

int af_scratch_rmdir(struct af_fs *fs, const char *rel)
{
	uid_t owner;
	int tree = tree_of(fs, 0, &owner);
	if (tree < 0)
		return 0; /* no tree: nothing of theirs in that folder */
	return af_bn_unlink(tree, rel, AT_REMOVEDIR) && errno == ENOTEMPTY ? -ENOTEMPTY : 0;
}

int af_scratch_rename(struct af_fs *fs, const char *from, const char *to)
{
	uid_t owner;
	struct stat st;
	int rc, tree = tree_of(fs, 1, &owner);
	if (tree < 0)
		return tree;
	pthread_mutex_lock(&fs->lock);
	rc = make_parents(tree, to);
	if (rc)
		goto out;
	int existed = af_bn_stat(tree, to, &st) == 0 && !S_ISDIR(st.st_mode);
	if (af_bn_rename(tree, from, to) < 0)
		rc = -errno;
	else if (existed && fs->nscratch)
		__atomic_sub_fetch(&fs->nscratch, 1, __ATOMIC_RELAXED);
out:
	pthread_mutex_unlock(&fs->lock);
	if (!rc && existed && st.st_nlink <= 1)
		af_scratch_charge(fs, owner, -(long long)st.st_size);
	return rc;
}

int af_scratch_move_dir(struct af_fs *fs, const char *from, const char *to)
{
	uid_t owner;
	int tree = tree_of(fs, 0, &owner);
	if (tree < 0)
		return 0;
	pthread_mutex_lock(&fs->lock);
	int rc = make_parents(tree, to);
	if (!rc && af_bn_rename(tree, from, to) < 0)
		rc = -errno;
	pthread_mutex_unlock(&fs->lock);
	return rc;
}

int af_scratch_put(struct af_fs *fs, const char *rel, const void *data, size_t n,
		   const struct stat *like)
{
	const uint8_t *p = data;
	uid_t owner;
	int rc, fd, tree = tree_of(fs, 1, &owner);
	if (tree < 0)
		return tree;
	if ((rc = af_scratch_charge(fs, owner, (long long)n)))
		return rc;
	/* a file of its own, made now by the caller (a name there is replaced) */
	af_scratch_unlink(fs, rel);
	fd = af_scratch_create(fs, rel, O_WRONLY | O_EXCL, 0600);
	if (fd < 0) {
		af_scratch_charge(fs, owner, -(long long)n);
		return fd;
	}
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
	/* the file moved here keeps its owner, group and mode: given by the daemon on the
	 * descriptor the caller made (the owner first: chown clears set-id bits) */
	struct stat now;
	int was = af_act_pause();
	if (!rc && (fstat(fd, &now) ||
		    ((now.st_uid != like->st_uid || now.st_gid != like->st_gid) &&
		     fchown(fd, like->st_uid, like->st_gid)) ||
		    fchmod(fd, like->st_mode & 07777)))
		rc = -errno;
	af_act_resume(was);
	close(fd);
	if (rc)
		af_scratch_unlink(fs, rel);
	return rc;
}
