/* Folders' listings kept between opens while no name changed (see listcache.h): a small
 * table by a hash of the path, one listing a slot; a put past the bound lets go of the
 * others first. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/fnv.h"
#include "dirlist.h"
#include "listcache.h"

#define SLOTS 64u
#define ONE_MAX (1u << 20)
#define ALL_MAX (4u << 20)

static struct slot {
	uint64_t path, id;
	unsigned long gen;
	struct af_dirlist *l;
	size_t bytes;
} table[SLOTS];
static size_t total;
static unsigned long gen = 1;
static pthread_mutex_t lc_lock = PTHREAD_MUTEX_INITIALIZER; /* L9: the table; takes none */

static uint64_t hash(const char *path)
{
	uint64_t h = af_fnv1_64(path, strlen(path));
	return h ? h : 1;
}

static void drop(struct slot *s)
{
	af_dirlist_free(s->l);
	total -= s->bytes;
	memset(s, 0, sizeof(*s));
}

void af_lc_changed(void)
{
	__atomic_add_fetch(&gen, 1, __ATOMIC_ACQ_REL);
}

unsigned long af_lc_generation(void)
{
	return __atomic_load_n(&gen, __ATOMIC_ACQUIRE);
}

int af_lc_get(const char *path, uint64_t id, struct af_dirlist *l)
{
	uint64_t h = hash(path);
	int got = 0;
	pthread_mutex_lock(&lc_lock);
	struct slot *s = &table[h % SLOTS];
	if (s->l && s->path == h && s->id == id && s->gen == af_lc_generation())
		got = !af_dirlist_copy(l, s->l);
	pthread_mutex_unlock(&lc_lock);
	return got;
}

void af_lc_put(const char *path, unsigned long from, uint64_t id, const struct af_dirlist *l)
{
	size_t bytes = af_dirlist_bytes(l);
	if (bytes > ONE_MAX || af_dirlist_failed(l))
		return;
	struct af_dirlist *copy = af_dirlist_new();
	if (!copy || af_dirlist_copy(copy, l)) {
		af_dirlist_free(copy);
		return;
	}
	uint64_t h = hash(path);
	pthread_mutex_lock(&lc_lock);
	if (from != af_lc_generation()) { /* a name changed while it was listed */
		pthread_mutex_unlock(&lc_lock);
		af_dirlist_free(copy);
		return;
	}
	struct slot *s = &table[h % SLOTS];
	if (s->l)
		drop(s);
	for (unsigned i = 0; total + bytes > ALL_MAX && i < SLOTS; i++)
		if (table[i].l)
			drop(&table[i]);
	*s = (struct slot){h, id, from, copy, bytes};
	total += bytes;
	pthread_mutex_unlock(&lc_lock);
}

void af_lc_free(void)
{
	pthread_mutex_lock(&lc_lock);
	for (unsigned i = 0; i < SLOTS; i++)
		if (table[i].l)
			drop(&table[i]);
	pthread_mutex_unlock(&lc_lock);
}
