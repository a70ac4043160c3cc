/* The fewest keys whose straight lines stay within a tolerance of every key: the greedy
 * reduction a glTF import re-keys an edited channel with (Diesel, CLIP). From each kept
 * key a, the run is the longest one whose line from a to its end passes within tol of
 * every key between: the key i with dt(a, i) along the line from a, the value of each
 * component j as val(a, i, j) gives it and fits when |va + (vc - va) * dt(a, i) /
 * dt(a, c) - vi| <= tol(i, j). Linear in the keys: each run keeps the range of slopes
 * every key so far allows, and only a key near the edge of that range is checked
 * against each key between (at most AF_LFIT_EXACT of them: a longer run ends there). */
#ifndef ANIMFS_LFIT_H
#define ANIMFS_LFIT_H

#include <stddef.h>

/* The longest run checked key by key when the slopes cannot tell. */
#define AF_LFIT_EXACT 256

struct af_lfit {
	size_t n, w; /* keys, components a key (at most 4) */
	double (*dt)(const void *ctx, size_t a, size_t i);          /* time from key a to key i (> 0) */
	double (*val)(const void *ctx, size_t a, size_t i, size_t j); /* component j of key i in a's run */
	double (*tol)(const void *ctx, size_t i, size_t j);         /* how far key i's j may be */
	const void *ctx;
};

/* keep (n bytes): in, the keys that must be kept (a run ends at each; the first and the
 * last are always kept); out, every key kept. */
void af_lfit_reduce(const struct af_lfit *f, unsigned char *keep);

#endif
