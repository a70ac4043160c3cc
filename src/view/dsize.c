/* The sizes of .animfs's derived files by what they are made of (dsize.h): a direct-mapped
 * table of DSIZE_SLOTS entries under one lock. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/buf.h"
#include "animfs/fnv.h"
#include "dsize.h"

#define DSIZE_SLOTS 1024

struct slot {
	struct af_dkey k;
	long long len;
	int used;
};

struct af_dsizes {
	pthread_mutex_t lock; /* L9 (docs/HACKING.md): the slots; takes no other */
	struct slot s[DSIZE_SLOTS];
};

struct af_dsizes *af_dsizes_new(void)
{
	struct af_dsizes *t = af_alloc_zeroed(1, sizeof(*t));
	if (t)
		pthread_mutex_init(&t->lock, NULL);
	return t;
}

void af_dsizes_free(struct af_dsizes *t)
{
	if (!t)
		return;
	pthread_mutex_destroy(&t->lock);
	free(t);
}

void af_dkey_make(struct af_dkey *k, const char *path, const struct stat *bin, const void *text,
		  size_t n)
{
	memset(k, 0, sizeof(*k));
	k->path = af_fnv1_64(path, strlen(path));
	k->text = n ? af_fnv1_64(text, n) : 0;
	k->dev = (uint64_t)bin->st_dev;
	k->ino = (uint64_t)bin->st_ino;
	k->size = (uint64_t)bin->st_size;
	k->mtime_ns = (uint64_t)bin->st_mtim.tv_sec * 1000000000u + (uint64_t)bin->st_mtim.tv_nsec;
}

static struct slot *slot_of(struct af_dsizes *t, const struct af_dkey *k)
{
	return &t->s[(k->path ^ (k->path >> 29)) % DSIZE_SLOTS];
}

int af_dsizes_get(struct af_dsizes *t, const struct af_dkey *k, long long *len)
{
	int hit;
	pthread_mutex_lock(&t->lock);
	struct slot *s = slot_of(t, k);
	hit = s->used && !memcmp(&s->k, k, sizeof(*k));
	if (hit)
		*len = s->len;
	pthread_mutex_unlock(&t->lock);
	return hit;
}

void af_dsizes_put(struct af_dsizes *t, const struct af_dkey *k, long long len)
{
	pthread_mutex_lock(&t->lock);
	struct slot *s = slot_of(t, k);
	s->k = *k;
	s->len = len;
	s->used = 1;
	pthread_mutex_unlock(&t->lock);
}
