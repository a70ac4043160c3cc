/* Builds small Jazz resources byte by byte for the sims3-jazz tests: a chunk list with
 * tags, versions and bodies, packed into an RCOL with keys and index (spec 3). */
#ifndef TEST_JAZZ_BUILD_H
#define TEST_JAZZ_BUILD_H

#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "animfs/buf.h"
#include "animfs/fnv.h"

#define R(c) (0x10000000u | (uint32_t)(c)) /* private reference to chunk c (P = 1) */
#define MAXCH 64

enum {
	T_SM = 0x02D5DF13, T_AD = 0x02EEDB2F, T_PD = 0x02EEDB46, T_ST = 0x02EEDAFE,
	T_DG = 0x02EEDB18, T_PLAY = 0x02EEDB5F, T_STOP = 0x0344D438, T_RAND = 0x02EEDB70,
	T_SOPN = 0x02EEDB92, T_DG00 = 0x02EEDBA5, T_SNSN = 0x02EEEBDC, T_PROP = 0x02EEEBDD,
	T_ACOP = 0x02EEEBDE,
};

struct bld {
	int n;
	uint32_t type[MAXCH];
	uint64_t inst[MAXCH];
	struct af_buf body[MAXCH];
};

static inline uint32_t h32(const char *s) { return af_fnv1_32_lower(s, strlen(s)); }
static inline uint64_t h64(const char *s) { return af_fnv1_64_lower(s, strlen(s)); }

/* Append n u32 values. */
static inline void w(struct af_buf *b, int n, ...)
{
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		af_buf_put_u32le(b, va_arg(ap, uint32_t));
	va_end(ap);
}

static inline void wkey(struct af_buf *b, uint64_t inst, uint32_t type, uint32_t group)
{
	af_buf_put_u64le(b, inst);
	w(b, 2, type, group);
}

static inline struct af_buf *chunk(struct bld *b, const char *tag, uint32_t type, uint32_t ver)
{
	struct af_buf *c = &b->body[b->n];
	b->type[b->n] = type;
	b->inst[b->n] = 0;
	b->n++;
	af_buf_init(c);
	af_buf_append(c, tag, 4);
	w(c, 1, ver);
	return c;
}

/* S_SM with one actor, one parameter and the given states (chunk numbers). */
static inline void sm(struct bld *b, const char *name, uint32_t actor, uint32_t param,
		      int nstates, const uint32_t *states)
{
	struct af_buf *c = chunk(b, "S_SM", T_SM, 0x0202);
	b->inst[b->n - 1] = h64(name);
	w(c, 1, h32(name));
	w(c, 2, 1, R(actor));
	w(c, 2, 1, R(param));
	w(c, 1, nstates);
	for (int i = 0; i < nstates; i++)
		w(c, 1, R(states[i]));
	w(c, 4, 1, h32("a_test.ma"), h32("x"), h32("x"));
	w(c, 8, 0xDEADBEEF, 1, 10000, 2, 0, 0, 0, 0);
}

static inline void play_tail(struct af_buf *c, uint32_t actor, int nnext, const uint32_t *next)
{
	w(c, 7, 0x1, 10000, 0, 0x3E4CCCCD, 0, 0, 0x3F800000);
	w(c, 1, R(actor));
	w(c, 8, 10000, 16, 0, 0, 0, 0, 0, 0xDEADBEEF);
	w(c, 1, nnext);
	for (int i = 0; i < nnext; i++)
		w(c, 1, R(next[i]));
	af_buf_append(c, "/DGN", 4);
}

/* A Play node with no strings, slots or suffixes. */
static inline void play(struct bld *b, const char *clip, uint32_t actor, int nnext,
			const uint32_t *next)
{
	struct af_buf *c = chunk(b, "Play", T_PLAY, 0x0105);
	wkey(c, clip ? h64(clip) & 0x7FFFFFFFFFFFFFFFull : 0, 0x6B20C4F3, 0);
	wkey(c, 0, 0, 0);
	w(c, 4, 0, 0, 0, 0);       /* slot count, unknown1..3 */
	w(c, 2, 0, 0xDEADBEEF);    /* suffixes, sentinel */
	wkey(c, 0, 0, 0);
	w(c, 3, 0, 0, 0xDEADBEEF); /* two empty strings, sentinel */
	play_tail(c, actor, nnext, next);
}

static inline void st_chunk(struct bld *b, const char *name, uint32_t flags, uint32_t graph,
			 int ntr, const uint32_t *tr)
{
	struct af_buf *c = chunk(b, "S_St", T_ST, 0x0101);
	w(c, 3, h32(name), flags, graph ? R(graph) : 0);
	w(c, 1, ntr);
	for (int i = 0; i < ntr; i++)
		w(c, 1, R(tr[i]));
	w(c, 1, 6);
}

static inline void graph(struct bld *b, int nn, const uint32_t *nodes, int ne, const uint32_t *entry)
{
	struct af_buf *c = chunk(b, "S_DG", T_DG, 0x0101);
	w(c, 2, 0, nn);
	for (int i = 0; i < nn; i++)
		w(c, 1, R(nodes[i]));
	w(c, 1, ne);
	for (int i = 0; i < ne; i++)
		w(c, 1, R(entry[i]));
	w(c, 1, 0xDEADBEEF);
}

static inline void actor(struct bld *b, const char *name)
{
	w(chunk(b, "S_AD", T_AD, 0x0100), 2, h32(name), 0);
}

static inline void param(struct bld *b, const char *name, const char *def)
{
	w(chunk(b, "S_PD", T_PD, 0x0100), 2, h32(name), h32(def));
}

/* Pack the chunks into an RCOL resource (canonical layout). */
static inline void pack(struct bld *b, struct af_buf *out)
{
	size_t idx, pos;
	af_buf_init(out);
	w(out, 5, 3, 1, 0, 0, b->n);
	for (int i = 0; i < b->n; i++)
		wkey(out, b->inst[i], b->type[i], 0);
	idx = out->len;
	af_buf_fill(out, 0, 8 * (size_t)b->n);
	for (int i = 0; i < b->n; i++) {
		af_buf_align(out, 4);
		pos = out->len;
		af_buf_append(out, b->body[i].data, b->body[i].len);
		af_buf_patch_u32le(out, idx + 8 * i, (uint32_t)pos);
		af_buf_patch_u32le(out, idx + 8 * i + 4, (uint32_t)b->body[i].len);
		af_buf_free(&b->body[i]);
	}
	b->n = 0;
}

/* The common skeleton: 0 S_SM, 1 S_AD x, 2 S_PD x:Age, 3 S_St Enter -> graph 4, 4 S_DG with
 * the given nodes (chunks 5..), node chunks follow from the caller. */
static inline void skeleton(struct bld *b, int nn, const uint32_t *nodes, int ne,
			    const uint32_t *entry)
{
	static const uint32_t states[1] = { 3 };
	sm(b, "testmachine", 1, 2, 1, states);
	actor(b, "x");
	param(b, "x:Age", "adult");
	st_chunk(b, "Enter", 0x103, 4, 0, NULL);
	graph(b, nn, nodes, ne, entry);
}

#endif
