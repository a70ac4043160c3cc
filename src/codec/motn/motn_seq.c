/* Shenmue MOTN: one sequence block (spec sections 4 and 5.1). Decoding follows the
 * header offsets as the game does; a block is accepted as editable only when the
 * canonical encoding below reproduces its bytes exactly, otherwise it stays raw. */
#include <stdio.h>
#include <string.h>

#include "animfs/bytes.h"
#include "motn.h"

const char motn_chan_names[MOTN_NCH][3] = { "tx", "ty", "tz", "rx", "ry", "rz" };

/* Block-1 channel bits in file order Tx Ty Tz Rx Ry Rz. */
#define CHAN_BIT(c) (0x100u >> (c))

const char *motn_bone_name(unsigned id)
{
	switch (id) {
	case 0: return "Root";
	case 1: return "Hip";
	case 5: return "RightUpperLeg";
	case 8: return "RightFootIKTarget";
	case 9: return "RightFoot";
	case 12: return "LeftUpperLeg";
	case 15: return "LeftFootIKTarget";
	case 16: return "LeftFoot";
	case 18: return "Torso";
	case 20: return "UpperTorsoIKTarget";
	case 21: return "Neck?";
	case 23: return "HeadLookAtTarget";
	case 25: return "RightShoulder";
	case 26: return "RightArm";
	case 29: return "RightHandIKTarget";
	case 30: return "RightHand";
	case 31: return "LeftShoulder";
	case 32: return "LeftArm";
	case 35: return "LeftHandIKTarget";
	case 36: return "LeftHand";
	default: return NULL;
	}
}

static const char *why_fmt(struct af_arena *a, const char *fmt, unsigned v)
{
	char t[160];
	int n = snprintf(t, sizeof(t), fmt, v);
	const char *s = af_arena_strndup(a, t, (size_t)(n > 0 ? n : 0));
	return s ? s : "kept verbatim";
}

/* Everything about one block's structure that the decoder has checked. */
struct layout {
	uint16_t fw, rig, off[4]; /* off2..off5 */
	uint32_t nent, nch;
	unsigned w2, w3;
};

/* Block 1: bone entries up to the 0 terminator. Returns 0, or 1 with *why (raw). */
static int read_block1(const uint8_t *p, size_t n, struct layout *L, struct af_arena *a,
		       struct motn_seq *s, const char **why)
{
	size_t pos = 12;
	int prev = -1;
	L->nent = L->nch = 0;
	for (;;) {
		if (pos + 2 > n || pos + 2 > L->off[0]) {
			*why = "block 1 has no terminator before block 2";
			return 1;
		}
		uint16_t e = af_le16(p + pos);
		pos += 2;
		if (!e)
			break;
		if (e & 7) {
			*why = why_fmt(a, "block-1 entry 0x%04X sets reserved bits 0-2 (meaning unknown)", e);
			return 1;
		}
		if ((int)(e >> 9) <= prev) {
			*why = why_fmt(a, "bone ids not strictly ascending (bone %u)", e >> 9);
			return 1;
		}
		if (!(e & 0x1F8)) {
			*why = why_fmt(a, "bone %u has no channels", e >> 9);
			return 1;
		}
		prev = e >> 9;
		L->nent++;
	}
	if (!L->nent) { /* valid bytes, but not an editable sequence (spec 7.1) */
		*why = "no bone entries";
		return 1;
	}
	s->nbones = L->nent;
	s->bones = af_arena_array(a, L->nent ? L->nent : 1, sizeof(*s->bones));
	if (!s->bones)
		return AF_ENOMEM;
	for (uint32_t i = 0; i < L->nent; i++) {
		uint16_t e = af_le16(p + 12 + 2 * i);
		s->bones[i].id = (uint8_t)(e >> 9);
		for (int c = 0; c < MOTN_NCH; c++)
			if (e & CHAN_BIT(c)) {
				s->bones[i].mask |= (uint8_t)(1u << c);
				L->nch++;
			}
	}
	return 0;
}

/* The i-th channel in block order, as (bone, channel) pointers. */
static struct motn_chan **channel_list(struct motn_seq *s, struct af_arena *a, uint32_t nch)
{
	struct motn_chan **cl = af_arena_array(a, nch ? nch : 1, sizeof(*cl));
	uint32_t k = 0;
	if (!cl)
		return NULL;
	for (uint32_t b = 0; b < s->nbones; b++)
		for (int c = 0; c < MOTN_NCH; c++)
			if (s->bones[b].mask & (1u << c))
				cl[k++] = &s->bones[b].ch[c];
	return cl;
}

/* Blocks 2-5. Every read is checked against n; 1 with *why means raw. */
static int read_keys(const uint8_t *p, size_t n, const struct layout *L, struct motn_chan **cl,
		     uint16_t frames, struct af_arena *a, size_t *end, const char **why)
{
	size_t o2 = L->off[0], o3 = L->off[1], o4 = L->off[2], o5 = L->off[3];
	uint64_t total = 0;
	if (!af_fits(o2, (uint64_t)L->nch * L->w2, n)) {
		*why = "block 2 runs past the block's end";
		return 1;
	}
	for (uint32_t c = 0; c < L->nch; c++) {
		const uint8_t *q = p + o2 + (size_t)c * L->w2;
		uint32_t cnt = L->w2 == 2 ? af_le16(q) : *q;
		cl[c]->nkeys = cnt + 2;
		total += cnt;
	}
	if (!af_fits(o3, total * L->w3, n)) {
		*why = "block 3 runs past the block's end";
		return 1;
	}
	size_t q3 = o3, q4 = o4, q5 = o5;
	for (uint32_t c = 0; c < L->nch; c++) {
		struct motn_chan *ch = cl[c];
		uint32_t nk = ch->nkeys, nb = (nk + 3) / 4;
		if (!af_fits(q4, nb, n)) {
			*why = "block 4 runs past the block's end";
			return 1;
		}
		ch->keys = af_arena_array(a, nk, sizeof(*ch->keys));
		if (!ch->keys)
			return AF_ENOMEM;
		for (uint32_t k = 0; k < nk; k++) {
			struct motn_key *key = &ch->keys[k];
			if (k == 0) {
				key->frame = 0;
			} else if (k == nk - 1) {
				key->frame = (uint16_t)(frames - 1);
			} else {
				key->frame = L->w3 == 2 ? af_le16(p + q3) : p[q3];
				q3 += L->w3;
			}
			if (k && key->frame < ch->keys[k - 1].frame) {
				*why = why_fmt(a, "key frames decrease (frame %u)", key->frame);
				return 1;
			}
			if (key->frame >= frames) {
				*why = why_fmt(a, "key frame %u outside the frame range", key->frame);
				return 1;
			}
			key->type = (uint8_t)(p[q4 + k / 4] >> (6 - 2 * (k % 4)) & 3);
			if (!af_fits(q5, 2u * key->type, n)) {
				*why = "block 5 runs past the block's end";
				return 1;
			}
			for (unsigned w = 0; w < key->type; w++, q5 += 2)
				key->w[w] = af_le16(p + q5);
		}
		q4 += nb;
	}
	*end = q5;
	return 0;
}

int motn_seq_accept(const uint8_t *p, size_t n, struct af_arena *a, struct af_buf *scratch,
		    struct motn_seq *s, size_t *used, const char **why)
{
	struct layout L;
	struct motn_chan **cl;
	size_t end = 0;
	int rc;

	memset(s, 0, sizeof(*s));
	if (n < 12) {
		*why = "too short for a sequence header";
		return 1;
	}
	L.fw = af_le16(p);
	L.rig = af_le16(p + 2);
	for (int i = 0; i < 4; i++)
		L.off[i] = af_le16(p + 4 + 2 * i);
	if (L.rig & 0x8000) {
		*why = why_fmt(a, "rig word 0x%04X has bit 15 set: undocumented encoding", L.rig);
		return 1;
	}
	if (!(L.fw & 0x7FFF)) {
		*why = "frame count 0";
		return 1;
	}
	s->frames = L.fw & 0x7FFF;
	s->wide = L.fw >> 15;
	s->rig = L.rig;
	L.w2 = s->wide ? 2 : 1;
	L.w3 = s->frames > 255 ? 2 : 1;
	rc = read_block1(p, n, &L, a, s, why);
	if (rc)
		return rc;
	cl = channel_list(s, a, L.nch);
	if (!cl)
		return AF_ENOMEM;
	rc = read_keys(p, n, &L, cl, s->frames, a, &end, why);
	if (rc)
		return rc;
	af_buf_reset(scratch);
	if (motn_seq_encode(s, scratch)) {
		if (scratch->failed)
			return AF_ENOMEM;
		*why = "does not fit the canonical layout";
		return 1;
	}
	if (scratch->len > n) {
		*why = "canonical re-encoding is longer than the block";
		return 2;
	}
	if (memcmp(scratch->data, p, scratch->len)) {
		size_t i = 0;
		while (scratch->data[i] == p[i])
			i++;
		*why = why_fmt(a, "non-canonical layout (e.g. gaps between its blocks): a canonical "
			       "re-encoding differs from byte +0x%X", (unsigned)i);
		return 2;
	}
	(void)end;
	*used = scratch->len;
	return 0;
}

int motn_seq_layout(const struct motn_seq *s, size_t off[4])
{
	size_t nch = 0, sum_n = 0, sum_b = 0, maxn = s->wide ? 0xFFFF : 0xFF;
	unsigned w2 = s->wide ? 2 : 1, w3 = s->frames > 255 ? 2 : 1;
	for (uint32_t b = 0; b < s->nbones; b++)
		for (int c = 0; c < MOTN_NCH; c++) {
			if (!(s->bones[b].mask & (1u << c)))
				continue;
			size_t nk = s->bones[b].ch[c].nkeys;
			if (nk < 2 || nk - 2 > maxn)
				return -1;
			nch++;
			sum_n += nk - 2;
			sum_b += (nk + 3) / 4;
		}
	off[0] = 12 + 2 * ((size_t)s->nbones + 1);
	off[1] = off[0] + nch * w2;
	if (w3 == 2 && (off[1] & 1))
		off[1]++;
	off[2] = off[1] + w3 * sum_n;
	off[3] = off[2] + sum_b;
	if (off[3] & 1)
		off[3]++;
	return 0;
}

int motn_seq_encode(const struct motn_seq *s, struct af_buf *out)
{
	size_t base = out->len, off[4];
	unsigned w2 = s->wide ? 2 : 1, w3 = s->frames > 255 ? 2 : 1;
	if (motn_seq_layout(s, off) || off[3] > 0xFFFF)
		return AF_EINVAL;
	size_t off2 = off[0], off3 = off[1], off4 = off[2], off5 = off[3];
	af_buf_put_u16le(out, (uint16_t)(s->frames | (s->wide ? 0x8000 : 0)));
	af_buf_put_u16le(out, s->rig);
	af_buf_put_u16le(out, (uint16_t)off2);
	af_buf_put_u16le(out, (uint16_t)off3);
	af_buf_put_u16le(out, (uint16_t)off4);
	af_buf_put_u16le(out, (uint16_t)off5);
	for (uint32_t b = 0; b < s->nbones; b++) {
		unsigned e = (unsigned)s->bones[b].id << 9;
		for (int c = 0; c < MOTN_NCH; c++)
			if (s->bones[b].mask & (1u << c))
				e |= CHAN_BIT(c);
		af_buf_put_u16le(out, (uint16_t)e);
	}
	af_buf_put_u16le(out, 0);
	/* block 2, then 3, 4, 5: each a pass over the channels in block order */
	for (int pass = 2; pass <= 5; pass++) {
		if (pass == 3 || pass == 5)
			af_buf_fill(out, 0, (pass == 3 ? off3 : off5) - (out->len - base));
		for (uint32_t b = 0; b < s->nbones; b++)
			for (int c = 0; c < MOTN_NCH; c++) {
				if (!(s->bones[b].mask & (1u << c)))
					continue;
				const struct motn_chan *ch = &s->bones[b].ch[c];
				uint32_t nk = ch->nkeys;
				if (pass == 2) {
					if (w2 == 2)
						af_buf_put_u16le(out, (uint16_t)(nk - 2));
					else
						af_buf_put_u8(out, (uint8_t)(nk - 2));
				} else if (pass == 3) {
					for (uint32_t k = 1; k + 1 < nk; k++)
						if (w3 == 2)
							af_buf_put_u16le(out, ch->keys[k].frame);
						else
							af_buf_put_u8(out, (uint8_t)ch->keys[k].frame);
				} else if (pass == 4) {
					for (uint32_t k = 0; k < nk; k += 4) {
						unsigned v = 0;
						for (uint32_t j = 0; j < 4 && k + j < nk; j++)
							v |= (unsigned)(ch->keys[k + j].type & 3) << (6 - 2 * j);
						af_buf_put_u8(out, (uint8_t)v);
					}
				} else {
					for (uint32_t k = 0; k < nk; k++)
						for (unsigned w = 0; w < ch->keys[k].type; w++)
							af_buf_put_u16le(out, ch->keys[k].w[w]);
				}
			}
	}
	return out->failed ? AF_ENOMEM : 0;
}
