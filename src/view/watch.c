/* Changes made behind the mount's back (see watch.h). Each watched folder is kept by its
 * watch descriptor with its path below its root (to watch the folders made in it later:
 * a folder moved within GAME is walked again at its new place, which updates the paths
 * below it). The walks open every folder beneath its root without following a link and
 * watch that very folder (/proc/self/fd), never a name that could be swapped meanwhile. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "animfs/beneath.h"
#include "animfs/userdict.h"
#include "errlog.h"
#include "session.h"
#include "watch.h"

#define MASK                                                                          \
	(IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | \
	 IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK)
#define BUCKETS 4096u
#define MAX_DEPTH 64
#define ROOTS 4

struct wnode {
	int wd;
	unsigned root;
	struct wnode *next;
	char rel[]; /* below its root, "." for the root itself */
};

struct af_watch {
	int ifd, stopfd;
	pthread_t thread;
	struct af_fs *fs;
	struct root {
		int fd;      /* not owned but for the dictionary's folder (own) */
		int deep;    /* its folders below too */
		int own;
	} roots[ROOTS];
	unsigned nroots;
	struct wnode *bucket[BUCKETS];
	int stopping;       /* af_watch_stop: a walk ends early */
	unsigned count;     /* watches in the table */
	unsigned unwatched; /* folders that could not be watched (read by af_watch_whole) */
};

static struct wnode **slot(struct af_watch *w, int wd)
{
	struct wnode **p = &w->bucket[(unsigned)wd % BUCKETS];
	while (*p && (*p)->wd != wd)
		p = &(*p)->next;
	return p;
}

static void lost(struct af_watch *w)
{
	__atomic_add_fetch(&w->unwatched, 1, __ATOMIC_RELAXED);
}

/* Watch the folder dfd is open on, known as rel below root r (its path updated when the
 * folder was watched already: a move). 0, or -1 when it could not be. */
static int add(struct af_watch *w, unsigned r, int dfd, const char *rel)
{
	char proc[64];
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", dfd);
	struct wnode **p, *n;
	if (w->count >= AF_WATCH_MAX)
		goto fail;
	int wd = inotify_add_watch(w->ifd, proc, MASK);
	if (wd < 0)
		goto fail;
	p = slot(w, wd);
	size_t len = strlen(rel) + 1;
	if (*p && (*p)->root == r && !strcmp((*p)->rel, rel))
		return 0;
	n = malloc(sizeof(*n) + len);
	if (!n) {
		if (!*p)
			inotify_rm_watch(w->ifd, wd);
		goto fail;
	}
	n->wd = wd;
	n->root = r;
	memcpy(n->rel, rel, len);
	if (*p) { /* the same folder at a new path */
		n->next = (*p)->next;
		free(*p);
	} else {
		n->next = NULL;
		w->count++;
	}
	*p = n;
	return 0;
fail:
	lost(w);
	return -1;
}

/* rel/name ("." is the root: name alone), malloc'd, or NULL. */
static char *below(const char *rel, const char *name)
{
	size_t n = strlen(rel) + strlen(name) + 2;
	char *path = malloc(n);
	if (path && !strcmp(rel, "."))
		snprintf(path, n, "%s", name);
	else if (path)
		snprintf(path, n, "%s/%s", rel, name);
	return path;
}

/* dfd (taken) and the folders below it, to depth. */
static void walk(struct af_watch *w, unsigned r, int dfd, const char *rel, int depth)
{
	if (add(w, r, dfd, rel) || !w->roots[r].deep) {
		close(dfd);
		return;
	}
	DIR *dir = fdopendir(dfd);
	if (!dir) {
		close(dfd);
		lost(w);
		return;
	}
	for (struct dirent *e; !__atomic_load_n(&w->stopping, __ATOMIC_RELAXED) && (e = readdir(dir));) {
		const char *name = e->d_name;
		if (!strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
			continue;
		int sub = openat(dirfd(dir), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			if (errno != ENOTDIR && errno != ELOOP && errno != ENOENT)
				lost(w);
			continue;
		}
		if (depth >= MAX_DEPTH) {
			close(sub);
			lost(w);
			continue;
		}
		char *path = below(rel, name);
		if (!path) {
			close(sub);
			lost(w);
			continue;
		}
		walk(w, r, sub, path, depth + 1);
		free(path);
	}
	closedir(dir);
}

static void walk_root(struct af_watch *w, unsigned r)
{
	int fd = af_bn_open(w->roots[r].fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (fd < 0)
		lost(w);
	else
		walk(w, r, fd, ".", 0);
}

/* A folder made in (or moved into) the watched folder wd, named name: it and what is
 * below it watched. */
static void add_sub(struct af_watch *w, int wd, const char *name)
{
	struct wnode *n = *slot(w, wd);
	if (!n || !w->roots[n->root].deep)
		return;
	char *path = below(n->rel, name);
	if (!path) {
		lost(w);
		return;
	}
	int fd = af_bn_open(w->roots[n->root].fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (fd >= 0)
		walk(w, n->root, fd, path, 1);
	else if (errno != ENOENT && errno != ENOTDIR) /* gone again, or a link: nothing */
		lost(w);
	free(path);
}

static void forget_wd(struct af_watch *w, int wd)
{
	struct wnode **p = slot(w, wd), *n = *p;
	if (!n)
		return;
	*p = n->next;
	free(n);
	w->count--;
}

/* Everything walked again (events were lost): the count of unwatched folders starts
 * over with what this walk could not watch. */
static void rewalk(struct af_watch *w)
{
	__atomic_store_n(&w->unwatched, 0, __ATOMIC_RELAXED);
	for (unsigned r = 0; r < w->nroots; r++)
		walk_root(w, r);
}

static void *run(void *arg)
{
	struct af_watch *w = arg;
	/* the first walk (a folder each: a big GAME takes a while, the mount serves
	 * meanwhile), then every name the face kept meanwhile is dropped once: a change
	 * in a folder before its watch was set is seen too */
	for (unsigned r = 0; r < w->nroots; r++)
		walk_root(w, r);
	if (w->unwatched)
		af_fs_log(LOG_NOTICE, "%u folders cannot be watched (%u are): names and sizes "
			  "are asked again every second", w->unwatched, w->count);
	af_face_note(w->fs, AF_NOTE_OUTSIDE, "");
	/* inotify's own alignment for its records */
	char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
	for (;;) {
		struct pollfd p[2] = {{.fd = w->ifd, .events = POLLIN}, {.fd = w->stopfd, .events = POLLIN}};
		int tick = __atomic_load_n(&w->unwatched, __ATOMIC_RELAXED) ? 1000 : -1;
		int n = poll(p, 2, tick);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || p[1].revents)
			break;
		if (n == 0) { /* folders unwatched: told every second */
			af_face_note(w->fs, AF_NOTE_OUTSIDE, "");
			continue;
		}
		ssize_t got = read(w->ifd, buf, sizeof(buf));
		if (got <= 0)
			continue;
		int changed = 0, overflow = 0;
		for (char *at = buf; at < buf + got;) {
			struct inotify_event *e = (struct inotify_event *)at;
			at += sizeof(*e) + e->len;
			if (e->mask & IN_Q_OVERFLOW) {
				overflow = 1;
				continue;
			}
			if (e->mask & IN_IGNORED) { /* its folder is gone: so is its watch */
				forget_wd(w, e->wd);
				continue;
			}
			changed = 1;
			if ((e->mask & IN_ISDIR) && (e->mask & (IN_CREATE | IN_MOVED_TO)) && e->len)
				add_sub(w, e->wd, e->name);
		}
		if (overflow) {
			af_fs_log(LOG_NOTICE, "changes in GAME came faster than they were read: "
				  "watching every folder again");
			rewalk(w);
		}
		/* told after the new folders are watched: what is made in them from now on
		 * is told again, what was made before is seen by the face's next lookups */
		if (changed || overflow)
			af_face_note(w->fs, AF_NOTE_OUTSIDE, "");
	}
	return NULL;
}

static void add_root(struct af_watch *w, int fd, int deep, int own)
{
	if (fd < 0)
		return;
	w->roots[w->nroots].fd = fd;
	w->roots[w->nroots].deep = deep;
	w->roots[w->nroots].own = own;
	w->nroots++;
}

/* The user dictionary's folder (names a view may take: core/userdict.c), when there is
 * one at mount. */
static int dict_dir(void)
{
	char path[4096];
	if (af_userdict_path(path, sizeof(path)))
		return -1;
	char *slash = strrchr(path, '/');
	if (!slash)
		return open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	*(slash == path ? slash + 1 : slash) = 0;
	return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static void free_watch(struct af_watch *w)
{
	for (unsigned b = 0; b < BUCKETS; b++)
		while (w->bucket[b]) {
			struct wnode *n = w->bucket[b];
			w->bucket[b] = n->next;
			free(n);
		}
	for (unsigned r = 0; r < w->nroots; r++)
		if (w->roots[r].own)
			close(w->roots[r].fd);
	if (w->ifd >= 0)
		close(w->ifd);
	if (w->stopfd >= 0)
		close(w->stopfd);
	free(w);
}

int af_watch_start(struct af_fs *fs)
{
	int rc;
	struct af_watch *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fs = fs;
	w->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	w->stopfd = eventfd(0, EFD_CLOEXEC);
	if (w->ifd < 0 || w->stopfd < 0) {
		rc = -errno;
		goto fail;
	}
	add_root(w, fs->rootfd, 1, 0);
	add_root(w, fs->modfd, 1, 0);
	add_root(w, fs->rigdirfd, 0, 0);
	add_root(w, dict_dir(), 0, 1);
	rc = -pthread_create(&w->thread, NULL, run, w);
	if (rc)
		goto fail;
	fs->watch = w;
	return 0;
fail:
	free_watch(w);
	return rc;
}

int af_watch_whole(const struct af_fs *fs)
{
	return fs->watch && !__atomic_load_n(&fs->watch->unwatched, __ATOMIC_RELAXED);
}

void af_watch_stop(struct af_fs *fs)
{
	struct af_watch *w = fs->watch;
	if (!w)
		return;
	uint64_t one = 1;
	fs->watch = NULL;
	__atomic_store_n(&w->stopping, 1, __ATOMIC_RELAXED);
	if (write(w->stopfd, &one, sizeof(one)) != (ssize_t)sizeof(one))
		return; /* cannot happen (an eventfd below its maximum): left running, kept */
	pthread_join(w->thread, NULL);
	free_watch(w);
}
