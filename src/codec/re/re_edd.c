/* EDD sections (spec 4): the sequence table and frame lists of one bank.
 * RE3: 8-byte records with a u32 pose_start and u8 relative poses, FF FF pad;
 * RE2: 4-byte records and u32 entries (12-bit absolute pose, 20-bit flags). */
#include <string.h>

#include "re.h"
#include "animfs/bytes.h"

static unsigned rec_size(unsigned game) { return game == RE_GAME3 ? 8 : 4; }
static unsigned entry_size(unsigned game) { return game == RE_GAME3 ? 2 : 4; }

static int all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

static void read_frames(const uint8_t *p, unsigned game, struct re_seq *s)
{
	for (size_t i = 0; i < s->nframes; i++) {
		if (game == RE_GAME3) {
			s->frames[i].pose = p[2 * i];
			s->frames[i].flags = p[2 * i + 1];
		} else {
			uint32_t v = af_le32(p + 4 * i);
			s->frames[i].pose = v & 0xFFF;
			s->frames[i].flags = v >> 12;
		}
	}
}

int re_edd_decode(const uint8_t *p, size_t len, unsigned game, uint64_t base,
		     struct re_edd *e, struct af_arena *a, struct af_diag *d)
{
	const unsigned R = rec_size(game), E = entry_size(game);
	memset(e, 0, sizeof(*e));
	if (len < 4 || len % 4)
		return af_diag_at_offset(d, AF_EINVAL, base, "EDD of %zu bytes: not a multiple "
					 "of 4", len);
	if (len == 4)
		return all_zero(p, 4) ? AF_OK
			: af_diag_at_offset(d, AF_EINVAL, base, "4-byte EDD is not 00 00 00 00");
	size_t first = af_le16(p + 2), end = len - 4;
	if (first == 0 || first % R || first > end)
		return af_diag_at_offset(d, AF_EINVAL, base + 2, "first frame list offset %zu is "
					 "not a positive multiple of %u inside the section", first, R);
	e->nseq = first / R;
	e->seq = af_arena_array(a, e->nseq, sizeof(*e->seq));
	if (!e->seq)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	size_t pos = first;
	for (size_t i = 0; i < e->nseq; i++) {
		const uint8_t *r = p + R * i;
		struct re_seq *s = &e->seq[i];
		s->nframes = af_le16(r);
		if (af_le16(r + 2) != pos)
			return af_diag_at_offset(d, AF_EINVAL, base + R * i + 2,
						 "sequence %zu: frame list at %u, expected %zu "
						 "(lists are contiguous in record order)", i,
						 af_le16(r + 2), pos);
		if (!af_fits(pos, (uint64_t)s->nframes * E, end))
			return af_diag_at_offset(d, AF_EINVAL, base + R * i,
						 "sequence %zu: %zu frames at %zu run past the "
						 "trailer at %zu", i, s->nframes, pos, end);
		if (game == RE_GAME3)
			s->pose_start = af_le32(r + 4);
		s->frames = af_arena_array(a, s->nframes ? s->nframes : 1, sizeof(*s->frames));
		if (!s->frames)
			return af_diag_error(d, AF_ENOMEM, "out of memory");
		read_frames(p + pos, game, s);
		pos += s->nframes * E;
	}
	if (pos % 4 == 2) {
		if (pos + 2 > end || p[pos] != 0xFF || p[pos + 1] != 0xFF)
			return af_diag_at_offset(d, AF_EINVAL, base + pos,
						 "expected the FF FF pad after the frame lists");
		pos += 2;
	}
	if (pos != end || af_le32(p + end) != end)
		return af_diag_at_offset(d, AF_EINVAL, base + end,
					 "trailer %u after frame lists ending at %zu: expected "
					 "both to be %zu", af_le32(p + end), pos, end);
	return AF_OK;
}

int re_edd_encode(const struct re_edd *e, unsigned game, const char *path,
		     struct af_buf *out, struct af_diag *d)
{
	const unsigned R = rec_size(game), E = entry_size(game);
	uint64_t pos = (uint64_t)R * e->nseq;
	for (size_t i = 0; i < e->nseq; i++) {
		const struct re_seq *s = &e->seq[i];
		if (pos > 0xFFFF)
			return af_y_error(d, s->node, "%s.sequences[%zu]: its frame list would "
					  "start at byte %llu, past the 16-bit offset limit "
					  "(65535); the EDD is too large", path, i,
					  (unsigned long long)pos);
		if (s->nframes > 0xFFFF)
			return af_y_error(d, s->node, "%s.sequences[%zu]: %zu frames, at most "
					  "65535 fit the record", path, i, s->nframes);
		af_buf_put_u16le(out, (uint16_t)s->nframes);
		af_buf_put_u16le(out, (uint16_t)pos);
		if (game == RE_GAME3)
			af_buf_put_u32le(out, s->pose_start);
		pos += (uint64_t)s->nframes * E;
	}
	for (size_t i = 0; i < e->nseq; i++) {
		const struct re_seq *s = &e->seq[i];
		for (size_t k = 0; k < s->nframes; k++) {
			if (game == RE_GAME3) {
				af_buf_put_u8(out, (uint8_t)s->frames[k].pose);
				af_buf_put_u8(out, (uint8_t)s->frames[k].flags);
			} else {
				af_buf_put_u32le(out, (s->frames[k].pose & 0xFFF) |
						 s->frames[k].flags << 12);
			}
		}
	}
	if (pos % 4 == 2) {
		af_buf_put_u16le(out, 0xFFFF);
		pos += 2;
	}
	af_buf_put_u32le(out, (uint32_t)pos);
	return out->failed ? af_diag_error(d, AF_ENOMEM, "out of memory") : AF_OK;
}
