/* The cross-check of a clip against the rig beside it (issue 17): channels whose target
 * hash is no bone of the rig. A warning, never a refusal: a clip may drive bones of
 * another rig, and the rig beside it may be only one of several. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "animfs/fnv.h"
#include "animfs/io.h"
#include "clip.h"

struct bones {
	const struct af_io *io;
	uint32_t *h;
	size_t n, cap;
	int rigs;  /* rigs that were read */
	int nomem;
};

static int add_hash(void *ctx, const char *s, size_t n)
{
	struct bones *b = ctx;
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		uint32_t *h = af_resize(b->h, cap * sizeof(*h));
		if (!h) {
			b->nomem = 1;
			return 1;
		}
		b->h = h;
		b->cap = cap;
	}
	b->h[b->n++] = af_fnv1_32_lower(s, n);
	return 0;
}

static int read_rig(void *ctx, const char *name)
{
	struct bones *b = ctx;
	struct af_buf buf = AF_BUF_INIT;
	if (!clip_is_rig_name(name))
		return 0;
	if (!b->io->read_sibling(b->io->ctx, name, &buf) && !buf.failed) {
		size_t before = b->n;
		clip_rig_names(buf.data, buf.len, add_hash, b);
		b->rigs += b->n > before; /* a Granny2 rig names no bone we can read */
	}
	af_buf_free(&buf);
	return b->nomem;
}

static int has(const struct bones *b, uint32_t h)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->h[i] == h)
			return 1;
	return 0;
}

/* Targets the clip names itself (its IK targets, its actor) or every rig has (spec 10)
 * are no news. */
static int own_name(const struct clip *c, uint32_t h)
{
	if (h == af_fnv1_32_lower(c->actor, c->actor_len))
		return 1;
	for (uint32_t k = 0; k < c->nchains; k++)
		for (uint32_t t = 0; t < c->chains[k].n; t++) {
			const uint8_t *s = c->chains[k].t[t].tg, *z = memchr(s, 0, CLIP_IK_STR);
			if (z && h == af_fnv1_32_lower((const char *)s, (size_t)(z - s)))
				return 1;
		}
	return 0;
}

int clip_check_rig(const struct af_io *io, const struct clip *c, struct af_diag *d)
{
	struct bones b = { .io = io };
	uint32_t n = 0, first[2] = { 0, 0 };
	int rc = 0;
	if (!io || !io->list_siblings || !io->read_sibling)
		return 0;
	io->list_siblings(io->ctx, read_rig, &b);
	if (b.nomem)
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
	if (!b.rigs || b.nomem)
		goto out;
	for (uint32_t i = 0; i < c->nchan; i++) {
		uint32_t h = c->ch[i].target;
		if (has(&b, h) || own_name(c, h))
			continue;
		if (!n++)
			first[0] = h;
		else if (!first[1] && h != first[0]) /* name two different bones */
			first[1] = h;
	}
	if (n == 1)
		af_diag_warn(d, 0, 0, "channels: 1 channel targets 0x%08X, no bone of the rig "
			     "beside the clip", first[0]);
	else if (n && !first[1])
		af_diag_warn(d, 0, 0, "channels: %u channels target 0x%08X, no bone of the rig "
			     "beside the clip", n, first[0]);
	else if (n)
		af_diag_warn(d, 0, 0, "channels: %u channels target no bone of the rig beside "
			     "the clip (0x%08X, 0x%08X, ...)", n, first[0], first[1]);
out:
	free(b.h);
	return rc;
}
