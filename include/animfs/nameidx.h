/* An index of names by hash (FNV-1 64 through a mixer): the first position of a name
 * among those added, and how many were added under it, in O(1) each, so that no
 * lookup or deduplication of member names is quadratic in a count read from a file.
 * The names stay the caller's: the index holds positions, and asks for a name by its
 * position through name(ctx, i). */
#ifndef ANIMFS_NAMEIDX_H
#define ANIMFS_NAMEIDX_H

#include <stddef.h>
#include <stdint.h>
#include "animfs/buf.h"

struct af_nameidx {
	struct af_buf slots; /* {first position + 1 (0: empty), count, aux} per slot */
	size_t mask;
	int fold; /* names equal but for ASCII case are one name */
	const char *(*name)(const void *ctx, size_t i);
	const void *ctx;
};

/* Room for up to n names (n < 2^31). 0 or AF_ENOMEM (x is then empty and safe to free). */
int af_nameidx_init(struct af_nameidx *x, size_t n, int fold,
		    const char *(*name)(const void *ctx, size_t i), const void *ctx);
void af_nameidx_free(struct af_nameidx *x);
/* Add position i (at most n of them, each once): how many were added before under its
 * name. */
size_t af_nameidx_add(struct af_nameidx *x, size_t i);
/* The first position added under name s, or -1 (also for an empty index). */
long af_nameidx_find(const struct af_nameidx *x, const char *s);
/* How many positions were added under name s. */
size_t af_nameidx_count(const struct af_nameidx *x, const char *s);
/* A word the caller keeps with name s (0 when it was first added), or NULL when no
 * position was added under s. Valid until the index is freed. */
uint32_t *af_nameidx_aux(struct af_nameidx *x, const char *s);

#endif
