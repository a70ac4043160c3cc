/* Shenmue MOTN: the blocks whose rig word has bit 15 set (docs/shenmue-motn.md, "Blocks
 * with rig bit 15"; spec 4.9). Two layouts, both sampled once a frame, no keys:
 *   baked (rig 0x8000 | id): 14-byte header {frames, rig, record size, u64 bone mask},
 *     then one record a frame: root T (3 halves), root R (3 angles), then per bone of the
 *     mask in id order 3 angles, or 1 for the hinges 7, 14, 28, 34;
 *   nodes (rig 0xFFFF): 12-byte header {frames, rig, 2 unknown words, u32 count}, then
 *     32 bytes a node {scale track offset, 3 scale halves, 3 x (rotation track offset,
 *     angle), 3 x (0, translation half)}, then the tracks (frames + 1 samples each).
 * Angles are int16, 65536 a turn. A block is accepted only when the canonical encoding
 * below gives back its bytes. */
#include <string.h>

#include "animfs/bytes.h"
#include "motn.h"

static uint32_t baked_words(uint64_t mask)
{
	uint32_t n = 6;
	for (unsigned i = 1; i < 64; i++)
		if (mask >> i & 1)
			n += MOTN_HINGE(i) ? 1 : 3;
	return n;
}

/* The canonical bytes of a decoded block equal the original ones, else raw. */
static int same_bytes(const struct af_buf *scratch, const uint8_t *p, size_t n, size_t *used,
		      const char **why)
{
	if (scratch->len > n || memcmp(scratch->data, p, scratch->len)) {
		*why = "rig word has bit 15 set, and the block is not canonical in its layout";
		return 1;
	}
	*used = scratch->len;
	return 0;
}

int motn_baked_accept(const uint8_t *p, size_t n, struct af_arena *a, struct af_buf *scratch,
		      struct motn_baked *b, size_t *used, const char **why)
{
	memset(b, 0, sizeof(*b));
	*why = "rig word has bit 15 set, but the block is not a baked record block";
	if (n < 14)
		return 1;
	uint16_t fw = af_le16(p), rig = af_le16(p + 2), rs = af_le16(p + 4);
	uint64_t mask = af_le64(p + 6);
	if (!(rig & 0x8000) || rig == 0xFFFF || !fw || (fw & 0x8000) || (mask & 1))
		return 1;
	b->frames = fw;
	b->rig = rig & 0x7FFF;
	b->mask = mask;
	b->nwords = baked_words(mask);
	if (rs != 2 * b->nwords || !af_fits(14, (uint64_t)fw * rs, n))
		return 1;
	b->w = af_arena_array(a, (size_t)fw * b->nwords, sizeof(*b->w));
	if (!b->w)
		return AF_ENOMEM;
	for (size_t i = 0; i < (size_t)fw * b->nwords; i++)
		b->w[i] = af_le16(p + 14 + 2 * i);
	af_buf_reset(scratch);
	if (motn_baked_encode(b, scratch))
		return scratch->failed ? AF_ENOMEM : 1;
	return same_bytes(scratch, p, n, used, why);
}

int motn_baked_encode(const struct motn_baked *b, struct af_buf *out)
{
	if (!b->frames || b->frames > 0x7FFF || b->rig >= 0x7FFF || (b->mask & 1) ||
	    b->nwords != baked_words(b->mask) || 2 * b->nwords > 0xFFFF)
		return AF_EINVAL;
	af_buf_put_u16le(out, b->frames);
	af_buf_put_u16le(out, (uint16_t)(b->rig | 0x8000));
	af_buf_put_u16le(out, (uint16_t)(2 * b->nwords));
	af_buf_put_u32le(out, (uint32_t)b->mask);
	af_buf_put_u32le(out, (uint32_t)(b->mask >> 32));
	for (size_t i = 0; i < (size_t)b->frames * b->nwords; i++)
		af_buf_put_u16le(out, b->w[i]);
	return out->failed ? AF_ENOMEM : 0;
}

/* A track of count u16 at offset off of the block, copied to the arena; NULL and *bad
 * set when it does not fit. */
static uint16_t *track(const uint8_t *p, size_t n, uint32_t off, size_t count, struct af_arena *a,
		       int *bad, int *oom)
{
	uint16_t *t;
	if ((off & 1) || !af_fits(off, 2 * (uint64_t)count, n)) {
		*bad = 1;
		return NULL;
	}
	if (!(t = af_arena_array(a, count, sizeof(*t)))) {
		*oom = 1;
		return NULL;
	}
	for (size_t i = 0; i < count; i++)
		t[i] = af_le16(p + off + 2 * i);
	return t;
}

int motn_nodes_accept(const uint8_t *p, size_t n, struct af_arena *a, struct af_buf *scratch,
		      struct motn_nodes *s, size_t *used, const char **why)
{
	int bad = 0, oom = 0;
	memset(s, 0, sizeof(*s));
	*why = "rig word 0xFFFF, but the block is not a node block";
	if (n < 12 || af_le16(p + 2) != 0xFFFF)
		return 1;
	uint16_t fw = af_le16(p);
	uint32_t count = af_le32(p + 8);
	if (!fw || (fw & 0x8000) || !count || !af_fits(12, 32 * (uint64_t)count, n))
		return 1;
	s->frames = fw;
	s->unknown[0] = af_le16(p + 4);
	s->unknown[1] = af_le16(p + 6);
	s->n = count;
	s->node = af_arena_array(a, count, sizeof(*s->node));
	if (!s->node)
		return AF_ENOMEM;
	for (uint32_t i = 0; i < count && !bad && !oom; i++) {
		const uint8_t *q = p + 12 + 32 * (size_t)i;
		struct motn_node *nd = &s->node[i];
		uint16_t so = af_le16(q);
		for (int c = 0; c < 3; c++) {
			nd->scale[c] = af_le16(q + 2 + 2 * c);
			nd->rot[c] = af_le16(q + 10 + 4 * c);
			nd->trans[c] = af_le16(q + 22 + 4 * c);
			if (af_le16(q + 20 + 4 * c)) { /* never seen: the sample shows no encoding */
				*why = "rig word 0xFFFF: a node has a translation track (no sample "
				       "shows how one is encoded)";
				return 1;
			}
		}
		if (so)
			nd->scale_track = track(p, n, so, 3 * ((size_t)fw + 1), a, &bad, &oom);
		for (int c = 0; c < 3; c++)
			if (af_le16(q + 8 + 4 * c))
				nd->rot_track[c] = track(p, n, af_le16(q + 8 + 4 * c), (size_t)fw + 1,
							 a, &bad, &oom);
	}
	if (oom)
		return AF_ENOMEM;
	if (bad) {
		*why = "rig word 0xFFFF: a track runs past the block";
		return 1;
	}
	af_buf_reset(scratch);
	if (motn_nodes_encode(s, scratch))
		return scratch->failed ? AF_ENOMEM : 1;
	return same_bytes(scratch, p, n, used, why);
}

int motn_nodes_encode(const struct motn_nodes *s, struct af_buf *out)
{
	size_t samples = (size_t)s->frames + 1;
	uint64_t at = 12 + 32 * (uint64_t)s->n;
	if (!s->frames || s->frames > 0x7FFF || !s->n)
		return AF_EINVAL;
	af_buf_put_u16le(out, s->frames);
	af_buf_put_u16le(out, 0xFFFF);
	af_buf_put_u16le(out, s->unknown[0]);
	af_buf_put_u16le(out, s->unknown[1]);
	af_buf_put_u32le(out, s->n);
	/* the node table, each track's offset in the order the tracks follow */
	for (uint32_t i = 0; i < s->n; i++) {
		const struct motn_node *nd = &s->node[i];
		uint16_t off[4] = { 0 };
		for (int c = 0; c < 4; c++) {
			const uint16_t *t = c ? nd->rot_track[c - 1] : nd->scale_track;
			if (!t)
				continue;
			if (at > 0xFFFF)
				return AF_EINVAL; /* offsets are 16-bit */
			off[c] = (uint16_t)at;
			at += 2 * samples * (c ? 1 : 3);
		}
		af_buf_put_u16le(out, off[0]);
		for (int c = 0; c < 3; c++)
			af_buf_put_u16le(out, nd->scale_track ? nd->scale_track[c] : nd->scale[c]);
		for (int c = 0; c < 3; c++) {
			af_buf_put_u16le(out, off[c + 1]);
			af_buf_put_u16le(out, nd->rot_track[c] ? nd->rot_track[c][0] : nd->rot[c]);
		}
		for (int c = 0; c < 3; c++) {
			af_buf_put_u16le(out, 0);
			af_buf_put_u16le(out, nd->trans[c]);
		}
	}
	for (uint32_t i = 0; i < s->n; i++) {
		const struct motn_node *nd = &s->node[i];
		for (int c = 0; c < 4; c++) {
			const uint16_t *t = c ? nd->rot_track[c - 1] : nd->scale_track;
			for (size_t k = 0; t && k < samples * (c ? 1 : 3); k++)
				af_buf_put_u16le(out, t[k]);
		}
	}
	return out->failed ? AF_ENOMEM : 0;
}
