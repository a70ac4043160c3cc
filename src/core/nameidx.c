/* The name index (nameidx.h): open addressing over a power-of-two table at most half
 * full, linear probing; one slot per distinct name, holding its first position, a
 * count and the caller's word, so a name added many times costs one probe sequence, never a walk over its
 * duplicates. */
#include <string.h>
#include <strings.h>

#include "animfs/diag.h"
#include "animfs/fnv.h"
#include "animfs/nameidx.h"

struct slot {
	uint32_t first; /* position + 1; 0: empty */
	uint32_t count;
	uint32_t aux; /* the caller's */
};

int af_nameidx_init(struct af_nameidx *x, size_t n, int fold,
		    const char *(*name)(const void *ctx, size_t i), const void *ctx)
{
	size_t size = 16;
	memset(x, 0, sizeof(*x));
	x->fold = fold;
	x->name = name;
	x->ctx = ctx;
	if (n >= (size_t)1 << 31)
		return AF_ENOMEM;
	while (size < 2 * n)
		size *= 2;
	if (af_buf_fill(&x->slots, 0, size * sizeof(struct slot))) {
		af_buf_free(&x->slots);
		return AF_ENOMEM;
	}
	x->mask = size - 1;
	return 0;
}

void af_nameidx_free(struct af_nameidx *x)
{
	af_buf_free(&x->slots);
	memset(x, 0, sizeof(*x));
}

static size_t hash_of(const struct af_nameidx *x, const char *s)
{
	size_t n = strlen(s);
	uint64_t h = x->fold ? af_fnv1_64_lower(s, n) : af_fnv1_64(s, n);
	/* FNV-1 ends on an xor of the last byte: mix so that every bit reaches the low ones */
	h ^= h >> 33;
	h *= 0xFF51AFD7ED558CCDull;
	h ^= h >> 33;
	return (size_t)h;
}

static int same(const struct af_nameidx *x, const char *a, const char *b)
{
	return x->fold ? !strcasecmp(a, b) : !strcmp(a, b);
}

/* The slot of name s: the one holding it, or the empty one where it would go. */
static struct slot *slot_of(const struct af_nameidx *x, const char *s)
{
	struct slot *t = (struct slot *)x->slots.data;
	for (size_t k = hash_of(x, s) & x->mask;; k = (k + 1) & x->mask)
		if (!t[k].first || same(x, x->name(x->ctx, t[k].first - 1), s))
			return &t[k];
}

size_t af_nameidx_add(struct af_nameidx *x, size_t i)
{
	struct slot *t = slot_of(x, x->name(x->ctx, i));
	if (!t->first)
		t->first = (uint32_t)i + 1;
	return t->count++;
}

long af_nameidx_find(const struct af_nameidx *x, const char *s)
{
	const struct slot *t = x->slots.data ? slot_of(x, s) : NULL;
	return t && t->first ? (long)t->first - 1 : -1;
}

size_t af_nameidx_count(const struct af_nameidx *x, const char *s)
{
	const struct slot *t = x->slots.data ? slot_of(x, s) : NULL;
	return t ? t->count : 0;
}

uint32_t *af_nameidx_aux(struct af_nameidx *x, const char *s)
{
	struct slot *t = x->slots.data ? slot_of(x, s) : NULL;
	return t && t->first ? &t->aux : NULL;
}
