/* Arena allocator: a codec's model lives in one arena and is freed in one call. */
#ifndef ANIMFS_ARENA_H
#define ANIMFS_ARENA_H

#include <stddef.h>

struct af_arena_block;
struct af_arena {
	struct af_arena_block *head;
	size_t used_total;
	size_t limit; /* 0 = no limit; otherwise allocations past it fail */
};

void af_arena_init(struct af_arena *a);
void af_arena_free(struct af_arena *a);
/* Zeroed memory, aligned for any type; NULL on failure or overflow. */
void *af_arena_alloc(struct af_arena *a, size_t size);
/* Zeroed, aligned to align (a power of two) only: for many small records. */
void *af_arena_alloc_aligned(struct af_arena *a, size_t size, size_t align);
void *af_arena_array(struct af_arena *a, size_t count, size_t size);
char *af_arena_strndup(struct af_arena *a, const char *s, size_t n);

#endif
