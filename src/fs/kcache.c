/* What the kernel keeps of the mount's files between opens (see kcache.h). A bounded
 * table of path hash -> identity (open addressing, linear probes): full, it forgets
 * one path the clock finds not used since its last sweep (that path's next open drops
 * its pages: never a stale one kept). A folder's rename or removal forgets everything
 * (the table knows hashes, not names below a folder): rare, and only a cost. */
#define FUSE_USE_VERSION 31
#include <fuse.h>
#include <fuse_lowlevel.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kcache.h"
#include "who.h"

#define KC_SLOTS 65536u /* a power of two */
#define KC_MAX (KC_SLOTS / 4 * 3) /* paths kept at most: one is forgotten for another */

struct slot {
	uint64_t path, id;      /* path 0: free */
	unsigned char written;  /* af_kc_written */
	unsigned char used;     /* asked for since the clock's hand last passed */
};
static struct slot table[KC_SLOTS];
static unsigned used, hand;
static pthread_mutex_t kc_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}

/* FUSE's paths start with '/'; one path, one hash, however it is spelled there. */
static uint64_t path_hash(const char *path)
{
	while (*path == '/')
		path++;
	if (!*path)
		path = ".";
	uint64_t h = fnv(0xcbf29ce484222325ull, path, strlen(path));
	return h ? h : 1;
}

uint64_t af_kc_id(const struct stat *src, const void *maker, unsigned version, uint64_t len,
		  int kind, uint64_t others)
{
	uint64_t f[10] = {others,
			 (uint64_t)src->st_dev,
			 (uint64_t)src->st_ino,
			 (uint64_t)src->st_size,
			 (uint64_t)src->st_mtim.tv_sec * 1000000000ull + (uint64_t)src->st_mtim.tv_nsec,
			 (uint64_t)src->st_ctim.tv_sec * 1000000000ull + (uint64_t)src->st_ctim.tv_nsec,
			 (uint64_t)(uintptr_t)maker,
			 version,
			 len,
			 (uint64_t)kind};
	uint64_t h = fnv(0xcbf29ce484222325ull, f, sizeof(f));
	return h ? h : 1;
}

#define NEXT(i) (((i) + 1) & (KC_SLOTS - 1))

static unsigned home(uint64_t path)
{
	return (unsigned)path & (KC_SLOTS - 1);
}

/* Slot i emptied, the probe chains through it kept whole: each later slot of the run
 * whose home is not between i and it moves back into the hole. */
static void remove_at(unsigned i)
{
	for (unsigned j = NEXT(i); table[j].path; j = NEXT(j)) {
		unsigned h = home(table[j].path);
		if (i <= j ? (h <= i || h > j) : (h <= i && h > j)) {
			table[i] = table[j];
			i = j;
		}
	}
	memset(&table[i], 0, sizeof(table[i]));
	used--;
}

/* The first path the hand finds not asked for since it last passed is forgotten
 * (second chance); the ones it passes are asked again to be kept. */
static void evict_one(void)
{
	for (;;) {
		unsigned at = hand;
		hand = NEXT(hand);
		if (!table[at].path)
			continue;
		if (table[at].used) {
			table[at].used = 0;
			continue;
		}
		remove_at(at);
		return;
	}
}

static struct slot *find(uint64_t path, int add)
{
	for (unsigned i = home(path);; i = NEXT(i)) {
		if (table[i].path == path) {
			table[i].used = 1;
			return &table[i];
		}
		if (!table[i].path) {
			if (!add)
				return NULL;
			if (used >= KC_MAX) { /* full: one goes, then the probe again */
				evict_one();
				return find(path, add);
			}
			used++;
			memset(&table[i], 0, sizeof(table[i]));
			table[i].path = path;
			table[i].used = 1;
			return &table[i];
		}
	}
}

int af_kc_open(const char *path, uint64_t id)
{
	uint64_t p = path_hash(path);
	pthread_mutex_lock(&kc_lock);
	struct slot *s = find(p, 1);
	int keep = s->id == id;
	s->id = id;
	pthread_mutex_unlock(&kc_lock);
	return keep;
}

void af_kc_written(const char *path)
{
	uint64_t p = path_hash(path);
	pthread_mutex_lock(&kc_lock);
	struct slot *s = find(p, 1);
	s->written = 1;
	s->id = 0;
	pthread_mutex_unlock(&kc_lock);
}

int af_kc_is_written(const char *path)
{
	uint64_t p = path_hash(path);
	pthread_mutex_lock(&kc_lock);
	struct slot *s = find(p, 0);
	int w = s && s->written;
	pthread_mutex_unlock(&kc_lock);
	return w;
}

void af_kc_forget(const char *path)
{
	uint64_t p = path_hash(path);
	pthread_mutex_lock(&kc_lock);
	struct slot *s = find(p, 0);
	if (s)
		s->id = 0;
	pthread_mutex_unlock(&kc_lock);
}

static unsigned long generation = 1;

void af_kc_changed(void)
{
	__atomic_add_fetch(&generation, 1, __ATOMIC_ACQ_REL);
}

unsigned long af_kc_generation(void)
{
	return __atomic_load_n(&generation, __ATOMIC_ACQUIRE);
}

void af_kc_forget_all(void)
{
	pthread_mutex_lock(&kc_lock);
	memset(table, 0, sizeof(table));
	used = hand = 0;
	pthread_mutex_unlock(&kc_lock);
}

void af_kc_invalidate(const char *path)
{
	af_kc_forget(path);
	af_kc_notify(path);
}

static struct fuse *kc_fuse; /* af_kc_attach: for the threads that serve no request */
static int kc_fd = -1, kc_epochs;

void af_kc_attach(struct fuse *f)
{
	kc_fuse = f;
	kc_fd = fuse_session_fd(fuse_get_session(f));
}

void af_kc_notify(const char *path)
{
	struct fuse_context *cx = fuse_get_context();
	struct fuse *f = cx && cx->fuse ? cx->fuse : kc_fuse;
	if (f)
		fuse_invalidate_path(f, path); /* -ENOENT: the kernel holds nothing of it */
}

void af_kc_epochs(int on)
{
	__atomic_store_n(&kc_epochs, on, __ATOMIC_RELEASE);
}

/* FUSE_NOTIFY_INC_EPOCH (protocol 7.44, Linux 6.16): every name the kernel holds is
 * looked up again at its next use. A notification is a reply header with no request
 * (unique 0) and the notification's code in place of the error; libfuse 3.14 has no
 * call for this one, so it is written to the session's descriptor as libfuse writes
 * its own (one write, whole). */
#define NOTIFY_INC_EPOCH 8

void af_kc_epoch(void)
{
	struct {
		uint32_t len;
		int32_t error;
		uint64_t unique;
	} h = {sizeof(h), NOTIFY_INC_EPOCH, 0};
	if (!__atomic_load_n(&kc_epochs, __ATOMIC_ACQUIRE) || kc_fd < 0)
		return;
	if (write(kc_fd, &h, sizeof(h)) != (ssize_t)sizeof(h))
		return; /* the mount is going away: nothing is kept any more */
}
