/* What the kernel keeps of the mount's files between opens (see kcache.h). A bounded
 * table of path hash -> identity: full, it forgets everything (the next opens drop
 * pages: never a stale one kept). A folder's rename or removal forgets everything too
 * (the table knows hashes, not names below a folder): rare, and only a cost. */
#define FUSE_USE_VERSION 31
#include <fuse.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "kcache.h"
#include "who.h"

#define KC_SLOTS 65536u /* a power of two; forgotten at 3/4 full */

struct slot {
	uint64_t path, id; /* path 0: free */
	int written;       /* af_kc_written */
};
static struct slot table[KC_SLOTS];
static unsigned used;
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

static struct slot *find(uint64_t path, int add)
{
	for (unsigned i = (unsigned)path & (KC_SLOTS - 1);; i = (i + 1) & (KC_SLOTS - 1)) {
		if (table[i].path == path)
			return &table[i];
		if (!table[i].path) {
			if (!add)
				return NULL;
			if (used >= KC_SLOTS / 4 * 3) { /* full: forget all, then place it */
				memset(table, 0, sizeof(table));
				used = 0;
				i = (unsigned)path & (KC_SLOTS - 1);
			}
			used++;
			table[i].path = path;
			table[i].id = 0;
			table[i].written = 0;
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
		s->id = 0; /* kept in place: the probe chains through it stay whole */
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
	used = 0;
	pthread_mutex_unlock(&kc_lock);
}

void af_kc_invalidate(const char *path)
{
	af_kc_forget(path);
	af_kc_notify(path);
}

void af_kc_notify(const char *path)
{
	if (af_who_faceless_fs())
		return; /* animfs serve: no kernel holds its pages */
	struct fuse_context *cx = fuse_get_context();
	if (cx && cx->fuse)
		fuse_invalidate_path(cx->fuse, path); /* -ENOENT: the kernel holds nothing of it */
}
