/* A fast raw DEFLATE decoder (RFC 1951), written from the RFC: whole input in memory,
 * output into one buffer of known size. Why: zlib's inflate is about half of a Diesel
 * render (docs/benchmark.md); this one reads 56 bits at a time from a 64-bit buffer,
 * decodes literals and lengths from one 10-bit table (distances from an 8-bit one,
 * longer codes through second-level tables) and copies matches 8 bytes at a time.
 *
 * It is never more permissive than zlib: every rule zlib checks it checks, and some
 * it refuses outright (incomplete code sets beyond the one zlib allows), since a
 * refusal only hands the stream to zlib (af_zframe), which then answers exactly as it
 * always did. test_inflate compares the two on valid and damaged streams. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/buf.h"
#include "animfs/diag.h"
#include "animfs/inflate.h"

#define LB 10 /* the literal/length table's first-level bits */
#define DB 8  /* the distance table's */
#define CB 7  /* the code-length code's (its codes are at most 7 bits) */
#define MAXBITS 15
/* first level, then at most one second-level table per symbol of more than LB (DB)
 * bits, each of at most 2^(15 - LB) (2^(15 - DB)) entries */
#define L_ENOUGH ((1u << LB) + 288u * (1u << (MAXBITS - LB)))
#define D_ENOUGH ((1u << DB) + 30u * (1u << (MAXBITS - DB)))
#define OVERRUN_MAX 16 /* zero bytes read past the input before giving up */

/* A table entry: bits 0-4 the bits it takes, 8-11 its kind, 12-15 its extra bits (a
 * second-level table's index bits), 16-31 its value (a literal, a length or distance
 * base, a code length, a second-level table's offset). */
enum { E_LIT = 1u << 8, E_EOB = 1u << 9, E_SUB = 1u << 10, E_BAD = 1u << 11 };
#define E_BITS(e) ((e) & 31u)
#define E_EXTRA(e) (((e) >> 12) & 15u)
#define E_VAL(e) ((e) >> 16)

enum kind { K_CODES, K_LENS, K_DISTS };

static const uint16_t len_base[29] = { 3,  4,  5,  6,  7,  8,  9,  10, 11,  13,
				       15, 17, 19, 23, 27, 31, 35, 43, 51,  59,
				       67, 83, 99, 115, 131, 163, 195, 227, 258 };
static const uint8_t len_extra[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
				       2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0 };
static const uint16_t dist_base[30] = { 1,    2,    3,    4,    5,    7,     9,     13,
					17,   25,   33,   49,   65,   97,    129,   193,
					257,  385,  513,  769,  1025, 1537,  2049,  3073,
					4097, 6145, 8193, 12289, 16385, 24577 };
static const uint8_t dist_extra[30] = { 0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
					6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13 };
static const uint8_t cl_order[19] = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15 };

struct tables {
	uint32_t lit[L_ENOUGH];
	uint32_t dist[D_ENOUGH];
	uint32_t cl[1u << CB];
	uint8_t lens[288 + 32]; /* a dynamic block's 286 + 30 at most; the fixed 288 */
};

static uint32_t entry_of(enum kind k, unsigned s)
{
	if (k == K_CODES)
		return (uint32_t)s << 16;
	if (k == K_DISTS)
		return s < 30 ? (uint32_t)dist_base[s] << 16 | (uint32_t)dist_extra[s] << 12 : E_BAD;
	if (s < 256)
		return E_LIT | (uint32_t)s << 16;
	if (s == 256)
		return E_EOB;
	s -= 257;
	return s < 29 ? (uint32_t)len_base[s] << 16 | (uint32_t)len_extra[s] << 12 : E_BAD;
}

/* the len low bits of code in reverse order (1 <= len <= 15) */
static unsigned reverse(unsigned code, unsigned len)
{
	code = (code & 0x5555) << 1 | (code >> 1 & 0x5555);
	code = (code & 0x3333) << 2 | (code >> 2 & 0x3333);
	code = (code & 0x0F0F) << 4 | (code >> 4 & 0x0F0F);
	code = (code & 0x00FF) << 8 | (code >> 8 & 0x00FF);
	return code >> (16 - len);
}

/* The decoding table of the n code lengths in lens (first level tb bits, room for
 * enough entries). -1 where zlib refuses the set (over-subscribed; incomplete, but
 * for a single code of one bit in a literal/length or distance set), or an empty
 * code-length set (zlib then fails a few steps later). An empty literal/length or
 * distance set makes a table whose every entry is bad, as zlib's does. */
static int build(uint32_t *tab, unsigned tb, unsigned enough, const uint8_t *lens, unsigned n,
		 enum kind k)
{
	unsigned count[MAXBITS + 1] = { 0 }, offs[MAXBITS + 2], left = 1, max = 0;
	uint16_t sorted[288];
	for (unsigned i = 0; i < n; i++)
		count[lens[i]]++;
	count[0] = 0;
	for (unsigned len = 1; len <= MAXBITS; len++) {
		if (count[len])
			max = len;
		left <<= 1;
		if (count[len] > left)
			return -1; /* over-subscribed */
		left -= count[len];
	}
	for (unsigned i = 0; i < (1u << tb); i++)
		tab[i] = E_BAD;
	if (max == 0)
		return k == K_CODES ? -1 : 0;
	if (left > 0 && (k == K_CODES || max != 1))
		return -1; /* incomplete */
	offs[1] = 0;
	for (unsigned len = 1; len <= MAXBITS; len++)
		offs[len + 1] = offs[len] + count[len];
	for (unsigned s = 0; s < n; s++)
		if (lens[s])
			sorted[offs[lens[s]]++] = (uint16_t)s;
	/* canonical codes, shortest first, in symbol order within a length */
	unsigned code = 0, idx = 0, next = 1u << tb, prefix = ~0u, sub = 0, subbits = 0;
	for (unsigned len = 1; len <= max; len++, code <<= 1) {
		for (unsigned c = count[len]; c; c--, code++) {
			uint32_t e = entry_of(k, sorted[idx++]);
			unsigned rev = reverse(code, len);
			if (len <= tb) {
				for (unsigned j = rev; j < (1u << tb); j += 1u << len)
					tab[j] = e | len;
				continue;
			}
			if ((rev & ((1u << tb) - 1)) != prefix) {
				/* a second-level table: as many bits as the codes under this
				 * prefix need (zlib's count: fill it at each length in turn) */
				prefix = rev & ((1u << tb) - 1);
				unsigned cur = len - tb, room = 1u << cur;
				while (cur + tb < max) {
					/* codes of length cur + tb not placed yet (c of this one) */
					unsigned have = cur + tb == len ? c : count[cur + tb];
					if (have >= room)
						break;
					room -= have;
					cur++;
					room <<= 1;
				}
				subbits = cur;
				if (next + (1u << subbits) > enough || next > 0xFFFF)
					return -1;
				sub = next;
				next += 1u << subbits;
				for (unsigned j = 0; j < (1u << subbits); j++)
					tab[sub + j] = E_BAD;
				tab[prefix] = E_SUB | subbits << 12 | (uint32_t)sub << 16 | tb;
			}
			for (unsigned j = rev >> tb; j < (1u << subbits); j += 1u << (len - tb))
				tab[sub + j] = e | (len - tb);
		}
	}
	return 0;
}

static uint64_t load64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

/* The bit reader: bb holds bc valid bits (and above them, after a wide refill, the
 * next bits of the input again, which every refill ORs in identically). */
struct bits {
	const uint8_t *in, *end, *start;
	uint64_t bb;
	unsigned bc;
	unsigned over; /* zero bytes supplied past the end */
};

/* at least 56 bits in bb */
static inline __attribute__((always_inline)) int refill(struct bits *b)
{
	if (b->end - b->in >= 8) {
		b->bb |= load64(b->in) << b->bc;
		b->in += (63 - b->bc) >> 3;
		b->bc |= 56;
		return 0;
	}
	while (b->bc <= 56) {
		if (b->in < b->end)
			b->bb |= (uint64_t)*b->in++ << b->bc;
		else if (++b->over > OVERRUN_MAX)
			return -1;
		b->bc += 8;
	}
	return 0;
}

static inline __attribute__((always_inline)) unsigned take(struct bits *b, unsigned n)
{
	unsigned v = (unsigned)(b->bb & ((1ull << n) - 1));
	b->bb >>= n;
	b->bc -= n;
	return v;
}

/* The byte after the last bit used; -1 past the input. */
static int64_t position(const struct bits *b)
{
	size_t pos = (size_t)(b->in - b->start) + b->over - (b->bc >> 3);
	return pos > (size_t)(b->end - b->start) ? -1 : (int64_t)pos;
}

static int stored(struct bits *b, uint8_t *out, size_t limit, size_t *o)
{
	int64_t pos = position(b); /* the partial byte's bits are dropped */
	if (pos < 0)
		return -1;
	b->in = b->start + pos;
	b->bb = 0;
	b->bc = 0;
	b->over = 0;
	if (b->end - b->in < 4)
		return -1;
	unsigned len = b->in[0] | b->in[1] << 8, nlen = b->in[2] | b->in[3] << 8;
	b->in += 4;
	if (len != (~nlen & 0xFFFF) || (size_t)(b->end - b->in) < len || limit - *o < len)
		return -1;
	memcpy(out + *o, b->in, len);
	*o += len;
	b->in += len;
	return 0;
}

static int dynamic(struct bits *b, struct tables *t)
{
	uint8_t cl[19] = { 0 };
	if (refill(b))
		return -1;
	unsigned nlen = take(b, 5) + 257, ndist = take(b, 5) + 1, ncode = take(b, 4) + 4;
	if (nlen > 286 || ndist > 30)
		return -1;
	for (unsigned i = 0; i < ncode; i++) {
		if (b->bc < 3 && refill(b))
			return -1;
		cl[cl_order[i]] = (uint8_t)take(b, 3);
	}
	if (build(t->cl, CB, 1u << CB, cl, 19, K_CODES))
		return -1;
	for (unsigned i = 0; i < nlen + ndist;) {
		if (b->bc < CB + 7 && refill(b))
			return -1;
		uint32_t e = t->cl[b->bb & ((1u << CB) - 1)];
		if (e & E_BAD)
			return -1;
		take(b, E_BITS(e));
		unsigned sym = E_VAL(e), rep, val = 0;
		if (sym < 16) {
			t->lens[i++] = (uint8_t)sym;
			continue;
		}
		if (sym == 16) {
			if (!i)
				return -1;
			val = t->lens[i - 1];
			rep = 3 + take(b, 2);
		} else if (sym == 17) {
			rep = 3 + take(b, 3);
		} else {
			rep = 11 + take(b, 7);
		}
		if (rep > nlen + ndist - i)
			return -1;
		memset(t->lens + i, (int)val, rep);
		i += rep;
	}
	if (!t->lens[256])
		return -1; /* no end-of-block code */
	if (build(t->lit, LB, L_ENOUGH, t->lens, nlen, K_LENS) ||
	    build(t->dist, DB, D_ENOUGH, t->lens + nlen, ndist, K_DISTS))
		return -1;
	return 0;
}

static int fixed(struct tables *t)
{
	/* 288 and 32 symbols in the RFC, of which 286, 287, 30 and 31 are bad */
	uint8_t d[32];
	unsigned i = 0;
	for (; i < 144; i++)
		t->lens[i] = 8;
	for (; i < 256; i++)
		t->lens[i] = 9;
	for (; i < 280; i++)
		t->lens[i] = 7;
	for (; i < 288; i++)
		t->lens[i] = 8;
	memset(d, 5, sizeof(d));
	return build(t->lit, LB, L_ENOUGH, t->lens, 288, K_LENS) ||
	       build(t->dist, DB, D_ENOUGH, d, 32, K_DISTS) ? -1 : 0;
}

/* One code's entry from its first-level entry e (tb bits), through its second-level
 * table if it has one, its bits taken. */
static inline __attribute__((always_inline)) uint32_t decode_from(struct bits *b, const uint32_t *tab,
								   unsigned tb, uint32_t e)
{
	if (e & E_SUB) {
		take(b, tb);
		e = tab[E_VAL(e) + (b->bb & ((1u << E_EXTRA(e)) - 1))];
	}
	take(b, E_BITS(e));
	return e;
}

static inline __attribute__((always_inline)) uint32_t decode(struct bits *b, const uint32_t *tab,
							      unsigned tb)
{
	return decode_from(b, tab, tb, tab[b->bb & ((1u << tb) - 1)]);
}

/* The length of the length code e and the distance after it (-1: a bad distance code). */
static inline __attribute__((always_inline)) int length_distance(struct bits *b, const uint32_t *dt,
								  uint32_t e, unsigned *len, size_t *dist)
{
	*len = E_VAL(e) + take(b, E_EXTRA(e));
	e = decode(b, dt, DB);
	if (e & E_BAD)
		return -1;
	*dist = E_VAL(e) + take(b, E_EXTRA(e));
	return 0;
}

/* A match of len bytes from dist back (both checked) at p; up to 8 bytes past it may be
 * written where the room allows (capend). */
static inline __attribute__((always_inline)) uint8_t *copy_match(uint8_t *p, size_t dist, unsigned len,
								  const uint8_t *capend)
{
	const uint8_t *s = p - dist;
	if (dist >= 8 && (size_t)(capend - p) >= (size_t)len + 8) {
		uint8_t *end = p + len;
		do {
			memcpy(p, s, 8); /* s + 8 <= p: bytes already made */
			p += 8;
			s += 8;
		} while (p < end);
		return end;
	}
	if (dist == 1) {
		memset(p, p[-1], len);
		return p + len;
	}
	for (unsigned i = 0; i < len; i++)
		p[i] = s[i];
	return p + len;
}

/* The entry e that is not a literal, at *p: its match copied (0), the block's end (1),
 * or a bad code, distance (before the output) or length (past the limit) (-1). */
static inline __attribute__((always_inline)) int not_literal(struct bits *b, const uint32_t *dt,
							      uint32_t e, const uint8_t *out,
							      uint8_t **p, const uint8_t *lim,
							      const uint8_t *capend)
{
	unsigned len;
	size_t dist;
	if (e & (E_EOB | E_BAD))
		return e & E_BAD ? -1 : 1;
	if (length_distance(b, dt, e, &len, &dist) || dist > (size_t)(*p - out) ||
	    len > (size_t)(lim - *p))
		return -1;
	*p = copy_match(*p, dist, len, capend);
	return 0;
}

/* One block's codes, to its end-of-block code. */
static int codes(struct bits *bits, const struct tables *t, uint8_t *out, size_t limit,
		 size_t cap, size_t *o)
{
	/* the reader in a local: the bytes stored through p could alias *bits, which
	 * would make every store reload it */
	struct bits l = *bits, *b = &l;
	uint8_t *p = out + *o, *lim = out + limit, *capend = out + cap;
	const uint32_t *lt = t->lit, *dt = t->dist;
	int rc = -1;
	/* the fast loop, while a refill can read 8 bytes and the room holds a whole match:
	 * up to three literals a refill (56 bits hold three codes of 15) */
	while (b->end - b->in >= 8 && (size_t)(lim - p) >= 258) {
		b->bb |= load64(b->in) << b->bc;
		b->in += (63 - b->bc) >> 3;
		b->bc |= 56;
		uint32_t e = lt[b->bb & ((1u << LB) - 1)];
		if (e & E_LIT) {
			take(b, E_BITS(e));
			*p++ = (uint8_t)E_VAL(e);
			e = lt[b->bb & ((1u << LB) - 1)];
			if ((e & E_LIT) && (size_t)(lim - p) >= 258) {
				take(b, E_BITS(e));
				*p++ = (uint8_t)E_VAL(e);
				e = lt[b->bb & ((1u << LB) - 1)];
				if ((e & E_LIT) && (size_t)(lim - p) >= 258) {
					take(b, E_BITS(e));
					*p++ = (uint8_t)E_VAL(e);
				}
			}
			continue;
		}
		e = decode_from(b, lt, LB, e);
		if (e & E_LIT) {
			*p++ = (uint8_t)E_VAL(e);
			continue;
		}
		int r = not_literal(b, dt, e, out, &p, lim, capend);
		if (r) {
			rc = r > 0 ? 0 : -1;
			goto out;
		}
	}
	/* the rest, every step checked */
	for (;;) {
		if (b->bc < 48 && refill(b))
			goto out;
		uint32_t e = decode(b, lt, LB);
		if (e & E_LIT) {
			if (p == lim)
				goto out;
			*p++ = (uint8_t)E_VAL(e);
			continue;
		}
		int r = not_literal(b, dt, e, out, &p, lim, capend);
		if (r) {
			rc = r > 0 ? 0 : -1;
			goto out;
		}
	}
out:
	*bits = l;
	*o = (size_t)(p - out);
	return rc;
}

int af_inflate_fast(const uint8_t *in, size_t n, uint8_t *out, size_t limit, size_t cap,
		    size_t *used, size_t *len)
{
	struct bits b = { in, in + n, in, 0, 0, 0 };
	struct tables *t = af_alloc(sizeof(*t));
	size_t o = 0;
	int rc = -1, last;
	if (!t)
		return AF_ENOMEM;
	if (cap < limit)
		goto out;
	do {
		if (b.bc < 3 && refill(&b))
			goto out;
		last = (int)take(&b, 1);
		unsigned type = take(&b, 2);
		if (type == 0) {
			if (stored(&b, out, limit, &o))
				goto out;
			continue;
		}
		if (type == 3 || (type == 1 ? fixed(t) : dynamic(&b, t)))
			goto out;
		if (codes(&b, t, out, limit, cap, &o))
			goto out;
	} while (!last);
	int64_t pos = position(&b);
	if (pos < 0)
		goto out;
	*used = (size_t)pos;
	*len = o;
	rc = 0;
out:
	free(t);
	return rc;
}
