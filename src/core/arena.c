/* Arena allocator: blocks chained, freed together. */
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/arena.h"
#include "animfs/buf.h"

struct af_arena_block {
	struct af_arena_block *next;
	size_t size, used;
	alignas(max_align_t) unsigned char data[];
};

void af_arena_init(struct af_arena *a)
{
	memset(a, 0, sizeof(*a));
}

void af_arena_free(struct af_arena *a)
{
	struct af_arena_block *b = a->head;
	while (b) {
		struct af_arena_block *next = b->next;
		af_free_warm(b, sizeof(*b) + b->size);
		b = next;
	}
	a->head = NULL;
	a->used_total = 0;
}

/* size bytes at an al-aligned offset (al a power of two), zeroed when asked:
 * strings need neither alignment nor zeroing, and a YAML tree holds millions. */
static void *take(struct af_arena *a, size_t size, size_t al, int zero)
{
	if (size > SIZE_MAX / 2)
		return NULL;
	if (size == 0)
		size = 1;
	if (a->limit && (size > a->limit || a->used_total > a->limit - size))
		return NULL;
	struct af_arena_block *b = a->head;
	size_t off = b ? (b->used + al - 1) & ~(al - 1) : 0;
	if (!b || off > b->size || b->size - off < size) {
		/* blocks double from 64 KiB up to 32 MiB (a big document's tree gets few
		 * big blocks; a small one stays small) */
		size_t bs = 64 * 1024;
		if (b)
			bs = b->size < 16u << 20 ? b->size * 2 : 32u << 20;
		if (bs < 64 * 1024)
			bs = 64 * 1024;
		if (bs < size)
			bs = size;
		size_t got;
		struct af_arena_block *nb = af_alloc_warm(sizeof(*nb) + bs, &got);
		if (!nb)
			return NULL;
		nb->size = got - sizeof(*nb); /* a kept block may be larger */
		nb->used = 0;
		/* keep a partly used head in front when the new block is a one-off */
		if (b && size > b->size && b->size - b->used > 4096) {
			nb->next = b->next;
			b->next = nb;
			nb->used = size;
			a->used_total += size;
			if (zero)
				memset(nb->data, 0, size);
			return nb->data;
		}
		nb->next = b;
		a->head = nb;
		b = nb;
		off = 0;
	}
	void *p = b->data + off;
	b->used = off + size;
	a->used_total += size;
	if (zero)
		memset(p, 0, size);
	return p;
}

void *af_arena_alloc(struct af_arena *a, size_t size)
{
	return take(a, size, alignof(max_align_t), 1);
}

void *af_arena_alloc_aligned(struct af_arena *a, size_t size, size_t align)
{
	if (!align || (align & (align - 1)) || align > alignof(max_align_t))
		align = alignof(max_align_t);
	return take(a, size, align, 1);
}

void *af_arena_array(struct af_arena *a, size_t count, size_t size)
{
	if (size && count > SIZE_MAX / size)
		return NULL;
	return af_arena_alloc(a, count * size);
}

char *af_arena_strndup(struct af_arena *a, const char *s, size_t n)
{
	char *p = n < SIZE_MAX ? take(a, n + 1, 1, 0) : NULL;
	if (p) {
		memcpy(p, s, n);
		p[n] = 0;
	}
	return p;
}
