/* CLIP bytes <-> model: detection (spec 2), the header (4), the _S3Clip_ body (5),
 * the IK target table (6), the actor name (7), the events (8), the end block (9), and
 * the canonical layout of 11.2. A file that breaks a rule of 11.3 is refused with
 * AF_EUNSUP and the byte it breaks it at: it cannot be rebuilt, so it is not shown
 * as editable. */
#include <math.h>
#include <string.h>

#include "animfs/bytes.h"
#include "clip.h"

static const uint8_t body_magic[8] = { '_', 'p', 'i', 'l', 'C', '3', 'S', '_' };
static const uint8_t ev_magic[4] = { '=', 'C', 'E', '=' };

/* ------------------------------------------------------------ tables (5.3, 5.4) */

#define T(n, l, c, b, m) { n, CLIP_##l, c, b, m }
static const struct clip_type types[22] = {
	[1] = T("F1", PALETTE, 1, 2, 0), [2] = T("F2", PALETTE, 2, 4, 0),
	[3] = T("F3", PALETTE, 3, 6, 0), [4] = T("F4", PALETTE, 4, 8, 0),
	[5] = T("F1_Normalized", U16, 1, 2, 65535),
	[6] = T("F2_Normalized", RAW, 2, 0, 0), [7] = T("F3_Normalized", RAW, 3, 0, 0),
	[8] = T("F4_Normalized", RAW, 4, 0, 0),
	[9] = T("F1_Zero", CONST, 1, 0, 0), [10] = T("F2_Zero", CONST, 2, 0, 0),
	[11] = T("F3_Zero", CONST, 3, 0, 0), [12] = T("F4_Zero", CONST, 4, 0, 0),
	[13] = T("F1_One", CONST, 1, 0, 0), [14] = T("F2_One", CONST, 2, 0, 0),
	[15] = T("F3_One", CONST, 3, 0, 0), [16] = T("F4_One", CONST, 4, 0, 0),
	[17] = T("F4_QuaternionIdentity", CONST, 4, 0, 0),
	[18] = T("F3_HighPrecisionNormalized", U32X3, 3, 4, 1023),
	[19] = T("F4_HighPrecisionNormalized_Quaternion", RAW, 4, 0, 0),
	[20] = T("F4_SuperHighPrecision_Quaternion", U16X4, 4, 8, 4095),
	[21] = T("F3_HighPrecisionNormalized_Quaternion", RAW, 3, 0, 0),
};
#undef T

/* Every id has a row for the reader: unknown ones are carried raw. */
static const struct clip_type unknown_type = { NULL, CLIP_RAW, 0, 0, 0 };

const struct clip_type *clip_type(unsigned id)
{
	return id < 22 && types[id].name ? &types[id] : &unknown_type;
}

static int name_eq(const char *a, const char *s, size_t n)
{
	return a && strlen(a) == n && !memcmp(a, s, n);
}

int clip_type_by_name(const char *s, size_t n)
{
	for (unsigned i = 0; i < 22; i++)
		if (name_eq(types[i].name, s, n))
			return (int)i;
	return -1;
}

/* Only the names the spec's sources agree on; other sub-targets show as numbers. */
static const char *const subs[25] = {
	[1] = "Translation", [2] = "Orientation", [3] = "Scale", [7] = "Morph",
	[14] = "IK_TargetWeight_World", [15] = "IK_TargetWeight_1", [16] = "IK_TargetWeight_2",
	[17] = "IK_TargetWeight_3", [18] = "IK_TargetWeight_4", [19] = "IK_TargetWeight_5",
	[20] = "IK_TargetWeight_6", [21] = "IK_TargetWeight_7", [22] = "IK_TargetWeight_8",
	[23] = "IK_TargetWeight_9", [24] = "IK_TargetWeight_10",
};

const char *clip_sub_name(unsigned id)
{
	return id < 25 ? subs[id] : NULL;
}

int clip_sub_by_name(const char *s, size_t n)
{
	for (unsigned i = 0; i < 25; i++)
		if (name_eq(subs[i], s, n))
			return (int)i;
	return -1;
}

#define F(k, t) { k, CLIP_FK_##t }
const struct clip_ev_kind clip_ev_kinds[] = {
	{ 1, "Parent", { F("actor", H32), F("object", H32), F("slot", H32),
			 F("payload_unknown", U32), F("transform", MAT), { NULL, 0 } } },
	{ 2, "Unparent", { F("object", H32), { NULL, 0 } } },
	{ 3, "Sound", { F("sound", SOUND), { NULL, 0 } } },
	{ 4, "Script", { { NULL, 0 } } },
	{ 5, "Effect", { F("effect_key", U64), F("effect_name", H32), F("actor", H32),
			 F("slot", H32), F("payload_unknown", U32), { NULL, 0 } } },
	{ 6, "Visibility", { F("visibility", F32), { NULL, 0 } } },
	{ 9, "DestroyProp", { F("prop", H32), { NULL, 0 } } },
	{ 10, "StopEffect", { F("effect_name", H32), F("payload_unknown", U32), { NULL, 0 } } },
	{ 0, NULL, { { NULL, 0 } } },
};
#undef F

const struct clip_ev_kind *clip_ev_kind(unsigned type)
{
	for (const struct clip_ev_kind *k = clip_ev_kinds; k->name; k++)
		if (k->type == type)
			return k;
	return NULL;
}

const struct clip_ev_kind *clip_ev_kind_by_name(const char *s, size_t n)
{
	for (const struct clip_ev_kind *k = clip_ev_kinds; k->name; k++)
		if (name_eq(k->name, s, n))
			return k;
	return NULL;
}

size_t clip_field_size(unsigned kind)
{
	switch (kind) {
	case CLIP_FK_U64: return 8;
	case CLIP_FK_MAT: return 64;
	case CLIP_FK_SOUND: return CLIP_SOUND;
	default: return 4;
	}
}

size_t clip_ev_pay_size(const struct clip_ev_kind *k)
{
	size_t n = 0;
	for (const struct clip_field *f = k->f; f->key; f++)
		n += clip_field_size(f->kind);
	return n;
}

/* ------------------------------------------------------------ values (5.6, 12.2) */

double clip_value(const struct clip *c, const struct clip_chan *ch, const struct clip_frame *f,
		  unsigned j)
{
	const struct clip_type *t = clip_type(ch->type);
	double q = t->layout == CLIP_PALETTE
			   ? (f->code[j] < c->npal ? (double)af_f32_from_bits(c->pal[f->code[j]]) : 0.0)
			   : (double)f->code[j] / (double)t->max;
	if (f->flags >> j & 1)
		q = -q;
	return (double)af_f32_from_bits(ch->offset) + (double)af_f32_from_bits(ch->scale) * q;
}

int clip_quantize(const struct clip_chan *ch, const struct clip_type *t, float v,
		  uint16_t *code, int *neg)
{
	double off = af_f32_from_bits(ch->offset), sc = af_f32_from_bits(ch->scale);
	double n = ((double)v - off) / sc, k;
	if (sc == 0.0) /* a flat channel holds its offset and nothing else */
		n = (double)v == off ? 0.0 : NAN;
	k = floor(fabs(n) * t->max + 0.5);
	if (!(k <= t->max))
		return -1;
	*code = (uint16_t)k;
	*neg = n < 0;
	return 0;
}

/* ------------------------------------------------------------ reading */

struct rd {
	const uint8_t *p;
	size_t n;
	struct af_arena *a;
	struct af_diag *d;
};

static int trunc_at(struct rd *r, uint64_t off, const char *what)
{
	return af_diag_at_offset(r->d, AF_EINVAL, off, "%s runs past the end of the %zu bytes",
				 what, r->n);
}

static int odd(struct rd *r, uint64_t off, const char *what)
{
	return af_diag_at_offset(r->d, AF_EUNSUP, off, "%s (a layout animfs cannot rebuild "
				 "exactly, spec 11.3)", what);
}

static int oom(struct rd *r)
{
	return af_diag_error(r->d, AF_ENOMEM, "out of memory reading a CLIP");
}

/* pad bytes of value `fill` from *pos up to a multiple of 4 */
static int skip_pad(struct rd *r, uint64_t *pos, uint8_t fill, const char *where)
{
	while (*pos % 4) {
		if (*pos >= r->n)
			return trunc_at(r, *pos, where);
		if (r->p[*pos] != fill)
			return odd(r, *pos, "padding byte is not the usual one");
		(*pos)++;
	}
	return 0;
}

/* A zstr at off inside [off, lim): its length without the NUL. */
static int zstr(struct rd *r, uint64_t off, uint64_t lim, const char **s, size_t *len,
		const char *what)
{
	const uint8_t *z;
	if (off >= lim || !(z = memchr(r->p + off, 0, (size_t)(lim - off))))
		return af_diag_at_offset(r->d, AF_EINVAL, off, "%s has no terminating NUL", what);
	*len = (size_t)(z - (r->p + off));
	for (size_t i = 0; i < *len; i++)
		if (r->p[off + i] >= 0x80) /* Sims 3 names are ASCII (jazz spec 5.1) */
			return odd(r, off + i, "a name with a byte outside ASCII");
	*s = af_arena_strndup(r->a, (const char *)r->p + off, *len);
	return *s ? 0 : oom(r);
}

static int read_codes(struct rd *r, const struct clip *c, const struct clip_type *t,
		      const uint8_t *q, uint64_t at, struct clip_frame *f)
{
	uint32_t w;
	switch (t->layout) {
	case CLIP_PALETTE:
		for (unsigned j = 0; j < t->ncomp; j++)
			if ((f->code[j] = af_le16(q + 2 * j)) >= c->npal)
				return odd(r, at + 2 * j, "palette index past the palette");
		break;
	case CLIP_U16:
		f->code[0] = af_le16(q);
		break;
	case CLIP_U32X3:
		if ((w = af_le32(q)) >> 30)
			return odd(r, at, "bits 30-31 of a packed translation are set");
		for (unsigned j = 0; j < 3; j++)
			f->code[j] = (uint16_t)(w >> (10 * j) & 0x3FF);
		break;
	case CLIP_U16X4:
		for (unsigned j = 0; j < 4; j++)
			if ((f->code[j] = af_le16(q + 2 * j)) > 0xFFF)
				return odd(r, at + 2 * j, "bits 12-15 of a quaternion code are set");
		break;
	}
	return 0;
}

/* Channel ch's frames at body offset *pos (file offset base + *pos). */
static int read_frames(struct rd *r, const struct clip *c, struct clip_chan *ch, uint64_t base,
		       uint64_t *pos, uint64_t end, uint64_t next)
{
	const struct clip_type *t = clip_type(ch->type);
	uint64_t size = (uint64_t)ch->nframes * (4u + t->bytes);
	if (t->layout == CLIP_RAW) { /* everything up to the next channel's frames */
		if (next < *pos || next > end)
			return odd(r, base + *pos, "a channel of unknown layout does not end where the next starts");
		ch->raw = r->p + base + *pos;
		ch->raw_len = (size_t)(next - *pos);
		*pos = next;
		return 0;
	}
	if (size > end - *pos)
		return trunc_at(r, base + *pos, "a channel's frames");
	if (ch->nframes && !(ch->f = af_arena_array(r->a, ch->nframes, sizeof(*ch->f))))
		return oom(r);
	for (uint32_t i = 0; i < ch->nframes; i++) {
		uint64_t at = base + *pos;
		const uint8_t *q = r->p + at;
		struct clip_frame *f = &ch->f[i];
		f->tick = af_le16(q);
		f->flags = af_le16(q + 2);
		if (i && f->tick <= ch->f[i - 1].tick)
			return odd(r, at, "a frame's tick is not after the previous one");
		if (f->tick >= c->num_ticks) /* spec 14 refuses it in a document: never show one */
			return af_diag_at_offset(r->d, AF_EUNSUP, at, "a frame at tick %u, but "
						 "num_ticks is %u", f->tick, c->num_ticks);
		if ((f->flags & 0xF) >> t->ncomp)
			return odd(r, at + 2, "sign bits set for components the channel lacks");
		int rc = read_codes(r, c, t, q + 4, at + 4, f);
		if (rc)
			return rc;
		*pos += 4u + t->bytes;
	}
	return 0;
}

static int read_channels(struct rd *r, struct clip *c, uint64_t base, uint64_t len,
			 uint64_t data)
{
	const uint8_t *b = r->p + base;
	uint64_t pos = data;
	for (uint32_t i = 0; i < c->nchan; i++) {
		const uint8_t *h = b + CLIP_BODY_HEAD + (uint64_t)CLIP_CHAN_HEAD * i;
		struct clip_chan *ch = &c->ch[i];
		uint64_t next = i + 1 < c->nchan ? af_le32(h + CLIP_CHAN_HEAD) : len;
		if (af_le32(h) != pos)
			return odd(r, (uint64_t)(h - r->p), "channel frames are not packed in table order");
		ch->target = af_le32(h + 4);
		ch->offset = af_le32(h + 8);
		ch->scale = af_le32(h + 12);
		ch->nframes = af_le16(h + 16);
		ch->type = h[18];
		ch->sub = h[19];
		int rc = read_frames(r, c, ch, base, &pos, len, next);
		if (rc)
			return rc;
	}
	if (pos != len)
		return odd(r, base + pos, "bytes between the last channel's frames and the body's end");
	return 0;
}

static int read_body(struct rd *r, struct clip *c, uint64_t base, uint64_t len)
{
	const uint8_t *b = r->p + base;
	uint64_t at, pal;
	int rc;
	if (len < CLIP_BODY_HEAD)
		return trunc_at(r, base, "the _S3Clip_ body header");
	c->version = af_le32(b + 8);
	c->flags = af_le32(b + 12);
	c->tick_length = af_le32(b + 16);
	c->num_ticks = af_le16(b + 20);
	c->padding = af_le16(b + 22);
	c->nchan = af_le32(b + 24);
	c->npal = af_le32(b + 28);
	if (af_le32(b + 32) != CLIP_BODY_HEAD)
		return odd(r, base + 32, "the channel table is not at body offset 48");
	if (c->nchan > (len - CLIP_BODY_HEAD) / CLIP_CHAN_HEAD)
		return af_diag_at_offset(r->d, AF_EINVAL, base + 24, "%u channels do not fit the "
					 "%llu-byte body", c->nchan, (unsigned long long)len);
	at = CLIP_BODY_HEAD + (uint64_t)CLIP_CHAN_HEAD * c->nchan;
	if (af_le32(b + 40) != at)
		return odd(r, base + 40, "the clip name does not follow the channel table");
	if ((rc = zstr(r, base + at, base + len, &c->name, &c->name_len, "the clip name")))
		return rc;
	at += c->name_len + 1;
	if (af_le32(b + 44) != at)
		return odd(r, base + 44, "the source name does not follow the clip name");
	if ((rc = zstr(r, base + at, base + len, &c->source, &c->source_len, "the source name")))
		return rc;
	pal = at + c->source_len + 1;
	if (af_le32(b + 36) != pal)
		return odd(r, base + 36, "the palette does not follow the source name");
	if (c->npal > (len - pal) / 4)
		return af_diag_at_offset(r->d, AF_EINVAL, base + 28, "a palette of %u values does "
					 "not fit the body", c->npal);
	if ((c->npal && !(c->pal = af_arena_array(r->a, c->npal, 4))) ||
	    (c->nchan && !(c->ch = af_arena_array(r->a, c->nchan, sizeof(*c->ch)))))
		return oom(r);
	for (uint32_t i = 0; i < c->npal; i++)
		c->pal[i] = af_le32(b + pal + 4 * i);
	return read_channels(r, c, base, len, pal + 4ull * c->npal);
}

static int read_ik_chain(struct rd *r, struct clip_ik_chain *k, uint64_t q)
{
	uint32_t m;
	if (q + 8 > r->n)
		return trunc_at(r, q, "an IK chain");
	if (af_le32(r->p + q) != 0x7E7E7E7Eu)
		return odd(r, q, "an IK chain marker is not 7E7E7E7E");
	m = af_le32(r->p + q + 4);
	if (m > (r->n - q - 8) / (4 + CLIP_IK_TARGET))
		return af_diag_at_offset(r->d, AF_EINVAL, q + 4, "%u IK targets do not fit the file", m);
	k->n = m;
	if (m && !(k->t = af_arena_array(r->a, m, sizeof(*k->t))))
		return oom(r);
	for (uint32_t t = 0; t < m; t++) {
		uint64_t o = q + 8 + 4ull * t, at = q + 8 + 4ull * m + (uint64_t)CLIP_IK_TARGET * t;
		if (af_le32(r->p + o) != at - (q + 8))
			return odd(r, o, "an IK target offset is not the canonical one");
		k->t[t].index = af_le32(r->p + at);
		memcpy(k->t[t].ns, r->p + at + 4, CLIP_IK_STR);
		memcpy(k->t[t].tg, r->p + at + 4 + CLIP_IK_STR, CLIP_IK_STR);
	}
	return 0;
}

static int read_ik(struct rd *r, struct clip *c, uint64_t *pos)
{
	uint64_t q, rel = 0;
	int rc;
	if (*pos + 4 > r->n)
		return trunc_at(r, *pos, "the IK target table");
	c->nchains = af_le32(r->p + *pos);
	if (c->nchains > (r->n - *pos - 4) / 12)
		return af_diag_at_offset(r->d, AF_EINVAL, *pos, "%u IK chains do not fit the file",
					 c->nchains);
	if (c->nchains && !(c->chains = af_arena_array(r->a, c->nchains, sizeof(*c->chains))))
		return oom(r);
	rel = 4ull * c->nchains;
	for (uint32_t k = 0; k < c->nchains; k++) {
		uint64_t o = *pos + 4 + 4ull * k;
		if (af_le32(r->p + o) != rel)
			return odd(r, o, "an IK chain offset is not the canonical one");
		q = *pos + 4 + rel;
		if ((rc = read_ik_chain(r, &c->chains[k], q)))
			return rc;
		rel += 8 + (uint64_t)(4 + CLIP_IK_TARGET) * c->chains[k].n;
	}
	*pos += 4 + rel;
	return 0;
}

static int read_event(struct rd *r, struct clip_event *e, uint64_t *pos)
{
	const uint8_t *h = r->p + *pos;
	const struct clip_ev_kind *k;
	uint64_t at = *pos;
	uint32_t nl;
	int rc;
	if (at + CLIP_EV_HEAD > r->n)
		return trunc_at(r, at, "an event");
	e->type = af_le16(h);
	e->tag = af_le16(h + 2);
	e->id = af_le32(h + 4);
	e->time = af_le32(h + 8);
	e->unknown1 = af_le32(h + 12);
	e->unknown2 = af_le32(h + 16);
	e->unknown3 = af_le32(h + 20);
	nl = af_le32(h + 24);
	if (!(k = clip_ev_kind(e->type)))
		return odd(r, at, "an event of a kind whose size is unknown");
	if ((rc = zstr(r, at + CLIP_EV_HEAD, r->n, &e->name, &e->name_len, "an event name")))
		return rc;
	if (e->name_len != nl)
		return odd(r, at + 24, "an event's name length is not its name's");
	*pos = at + CLIP_EV_HEAD + nl + 1;
	if ((rc = skip_pad(r, pos, 0, "an event name")))
		return rc;
	e->pay_len = clip_ev_pay_size(k);
	if (e->pay_len > r->n - *pos)
		return trunc_at(r, *pos, "an event's payload");
	e->pay = r->p + *pos;
	*pos += e->pay_len;
	return 0;
}

static int read_events(struct rd *r, struct clip *c, uint64_t *pos)
{
	const uint8_t *h = r->p + *pos;
	uint64_t at = *pos, first;
	uint32_t count, size, start;
	int rc;
	if (at + 20 > r->n)
		return trunc_at(r, at, "the event table");
	if (memcmp(h, ev_magic, 4))
		return af_diag_at_offset(r->d, AF_EINVAL, at, "the event table does not start with =CE=");
	c->ev_version = af_le32(h + 4);
	count = af_le32(h + 8);
	size = af_le32(h + 12);
	start = af_le32(h + 16);
	if (count > (r->n - at - 20) / (CLIP_EV_HEAD + 4))
		return af_diag_at_offset(r->d, AF_EINVAL, at + 8, "%u events do not fit the file", count);
	if (start != (count ? 4u : 0u))
		return odd(r, at + 16, "the event table's start field is not the canonical one");
	c->nev = count;
	if (count && !(c->ev = af_arena_array(r->a, count, sizeof(*c->ev))))
		return oom(r);
	first = *pos = at + 20;
	for (uint32_t i = 0; i < count; i++)
		if ((rc = read_event(r, &c->ev[i], pos)))
			return rc;
	if (*pos - first != size)
		return odd(r, at + 12, "the event table's size field is not the bytes its events use");
	return 0;
}

/* A section's self-relative offset field must point where the canonical layout puts it. */
static int at_field(struct rd *r, unsigned field, uint64_t pos, const char *what)
{
	if (field + (uint64_t)af_le32(r->p + field) != pos)
		return odd(r, field, what);
	return 0;
}

static int read_tail(struct rd *r, struct clip *c, uint64_t pos)
{
	int rc;
	if ((rc = skip_pad(r, &pos, 0x7E, "the padding after the body")))
		return rc;
	if ((c->has_ik = af_le32(r->p + 16) != 0)) {
		if ((rc = at_field(r, 16, pos, "the IK table does not follow the body")) ||
		    (rc = read_ik(r, c, &pos)))
			return rc;
	}
	if ((rc = at_field(r, 20, pos, "the actor name does not follow the IK table")) ||
	    (rc = zstr(r, pos, r->n, &c->actor, &c->actor_len, "the actor name")))
		return rc;
	pos += c->actor_len + 1;
	if ((rc = skip_pad(r, &pos, 0x7E, "the actor name")) ||
	    (rc = at_field(r, 24, pos, "the event table does not follow the actor name")) ||
	    (rc = read_events(r, c, &pos)) ||
	    (rc = skip_pad(r, &pos, 0x7E, "the event table")) ||
	    (rc = at_field(r, 36, pos, "the end block does not follow the event table")))
		return rc;
	if (pos + 16 != r->n)
		return pos + 16 > r->n ? trunc_at(r, pos, "the end block")
				       : odd(r, pos + 16, "bytes after the end block");
	for (unsigned i = 0; i < 4; i++)
		c->end[i] = af_le32(r->p + pos + 4 * i);
	return 0;
}

int clip_read(const uint8_t *p, size_t n, struct clip *c, struct af_arena *a,
	      struct af_diag *d)
{
	struct rd r = { p, n, a, d };
	uint64_t size;
	int rc;
	memset(c, 0, sizeof(*c));
	if (n < CLIP_MIN_SIZE)
		return af_diag_at_offset(d, AF_EINVAL, 0, "%zu bytes is too short for a CLIP", n);
	if (af_le32(p) != CLIP_TYPE_ID)
		return af_diag_at_offset(d, AF_EINVAL, 0, "not a Sims 3 CLIP: the first word is "
					 "0x%08X, not 0x6B20C4F3", af_le32(p));
	if (af_le32(p + 4))
		return odd(&r, 4, "a linked clip (linked_clip_offset is not 0)");
	if (af_le32(p + 12) != CLIP_HEAD - 12)
		return odd(&r, 12, "the _S3Clip_ body is not at byte 56");
	if (memcmp(p + CLIP_HEAD, body_magic, 8))
		return af_diag_at_offset(d, AF_EINVAL, CLIP_HEAD, "the body does not start with _pilC3S_");
	size = af_le32(p + 8);
	if (size > n - CLIP_HEAD)
		return af_diag_at_offset(d, AF_EINVAL, 8, "clip_size %llu runs past the end of the "
					 "%zu bytes", (unsigned long long)size, n);
	c->unknown1 = af_le32(p + 28);
	c->unknown2 = af_le32(p + 32);
	memcpy(c->reserved, p + 40, 16);
	if ((rc = read_body(&r, c, CLIP_HEAD, size)))
		return rc;
	return read_tail(&r, c, CLIP_HEAD + size);
}

/* ------------------------------------------------------------ writing (11.2) */

static void put_codes(struct af_buf *b, const struct clip_type *t, const struct clip_frame *f)
{
	switch (t->layout) {
	case CLIP_PALETTE:
		for (unsigned j = 0; j < t->ncomp; j++)
			af_buf_put_u16le(b, f->code[j]);
		break;
	case CLIP_U16:
		af_buf_put_u16le(b, f->code[0]);
		break;
	case CLIP_U32X3:
		af_buf_put_u32le(b, (uint32_t)f->code[0] | (uint32_t)f->code[1] << 10 |
					    (uint32_t)f->code[2] << 20);
		break;
	case CLIP_U16X4:
		for (unsigned j = 0; j < 4; j++)
			af_buf_put_u16le(b, f->code[j]);
		break;
	}
}

static size_t chan_bytes(const struct clip_chan *ch)
{
	const struct clip_type *t = clip_type(ch->type);
	return t->layout == CLIP_RAW ? ch->raw_len : (size_t)ch->nframes * (4u + t->bytes);
}

static void write_body(const struct clip *c, struct af_buf *b)
{
	size_t at = CLIP_BODY_HEAD + (size_t)CLIP_CHAN_HEAD * c->nchan;
	size_t src = at + c->name_len + 1, pal = src + c->source_len + 1;
	size_t data = pal + 4 * (size_t)c->npal;
	af_buf_append(b, body_magic, 8);
	af_buf_put_u32le(b, c->version);
	af_buf_put_u32le(b, c->flags);
	af_buf_put_u32le(b, c->tick_length);
	af_buf_put_u16le(b, c->num_ticks);
	af_buf_put_u16le(b, c->padding);
	af_buf_put_u32le(b, c->nchan);
	af_buf_put_u32le(b, c->npal);
	af_buf_put_u32le(b, CLIP_BODY_HEAD);
	af_buf_put_u32le(b, (uint32_t)pal);
	af_buf_put_u32le(b, (uint32_t)at);
	af_buf_put_u32le(b, (uint32_t)src);
	for (uint32_t i = 0; i < c->nchan; i++) {
		const struct clip_chan *ch = &c->ch[i];
		af_buf_put_u32le(b, (uint32_t)data);
		af_buf_put_u32le(b, ch->target);
		af_buf_put_u32le(b, ch->offset);
		af_buf_put_u32le(b, ch->scale);
		af_buf_put_u16le(b, (uint16_t)ch->nframes);
		af_buf_put_u8(b, ch->type);
		af_buf_put_u8(b, ch->sub);
		data += chan_bytes(ch);
	}
	af_buf_append(b, c->name, c->name_len);
	af_buf_put_u8(b, 0);
	af_buf_append(b, c->source, c->source_len);
	af_buf_put_u8(b, 0);
	for (uint32_t i = 0; i < c->npal; i++)
		af_buf_put_u32le(b, c->pal[i]);
	for (uint32_t i = 0; i < c->nchan; i++) {
		const struct clip_chan *ch = &c->ch[i];
		const struct clip_type *t = clip_type(ch->type);
		if (t->layout == CLIP_RAW) {
			af_buf_append(b, ch->raw, ch->raw_len);
			continue;
		}
		for (uint32_t k = 0; k < ch->nframes; k++) {
			af_buf_put_u16le(b, ch->f[k].tick);
			af_buf_put_u16le(b, ch->f[k].flags);
			put_codes(b, t, &ch->f[k]);
		}
	}
}

static void pad4(struct af_buf *b, uint8_t fill)
{
	while (b->len % 4 && !b->failed)
		af_buf_put_u8(b, fill);
}

static void write_ik(const struct clip *c, struct af_buf *b)
{
	uint32_t rel = 4 * c->nchains;
	af_buf_put_u32le(b, c->nchains);
	for (uint32_t k = 0; k < c->nchains; k++) {
		af_buf_put_u32le(b, rel);
		rel += 8 + (4 + CLIP_IK_TARGET) * c->chains[k].n;
	}
	for (uint32_t k = 0; k < c->nchains; k++) {
		const struct clip_ik_chain *ch = &c->chains[k];
		af_buf_put_u32le(b, 0x7E7E7E7Eu);
		af_buf_put_u32le(b, ch->n);
		for (uint32_t t = 0; t < ch->n; t++)
			af_buf_put_u32le(b, 4 * ch->n + CLIP_IK_TARGET * t);
		for (uint32_t t = 0; t < ch->n; t++) {
			af_buf_put_u32le(b, ch->t[t].index);
			af_buf_append(b, ch->t[t].ns, CLIP_IK_STR);
			af_buf_append(b, ch->t[t].tg, CLIP_IK_STR);
		}
	}
}

static void write_events(const struct clip *c, struct af_buf *b)
{
	size_t at = b->len, first;
	af_buf_append(b, ev_magic, 4);
	af_buf_put_u32le(b, c->ev_version);
	af_buf_put_u32le(b, c->nev);
	af_buf_put_u32le(b, 0); /* size, patched below */
	af_buf_put_u32le(b, c->nev ? 4 : 0);
	first = b->len;
	for (uint32_t i = 0; i < c->nev; i++) {
		const struct clip_event *e = &c->ev[i];
		af_buf_put_u16le(b, e->type);
		af_buf_put_u16le(b, e->tag);
		af_buf_put_u32le(b, e->id);
		af_buf_put_u32le(b, e->time);
		af_buf_put_u32le(b, e->unknown1);
		af_buf_put_u32le(b, e->unknown2);
		af_buf_put_u32le(b, e->unknown3);
		af_buf_put_u32le(b, (uint32_t)e->name_len);
		af_buf_append(b, e->name, e->name_len);
		af_buf_put_u8(b, 0);
		pad4(b, 0);
		af_buf_append(b, e->pay, e->pay_len);
	}
	if (!b->failed)
		af_buf_patch_u32le(b, at + 12, (uint32_t)(b->len - first));
}

/* Sizes past 32 bits cannot be stored; the parser bounds every count, this is the net. */
static int check_sizes(const struct clip *c, struct af_diag *d)
{
	uint64_t total = CLIP_HEAD + CLIP_BODY_HEAD + (uint64_t)CLIP_CHAN_HEAD * c->nchan +
			 c->name_len + c->source_len + 4ull * c->npal;
	for (uint32_t i = 0; i < c->nchan; i++) {
		if (c->ch[i].nframes > 0xFFFF)
			return af_diag_error(d, AF_EINVAL, "channels[%u]: %u frames; at most 65535",
					     i, c->ch[i].nframes);
		total += chan_bytes(&c->ch[i]);
	}
	for (uint32_t i = 0; i < c->nchains; i++)
		total += 8 + (4ull + CLIP_IK_TARGET) * c->chains[i].n;
	for (uint32_t i = 0; i < c->nev; i++)
		total += CLIP_EV_HEAD + c->ev[i].name_len + 4 + c->ev[i].pay_len;
	if (total + c->actor_len > 0xFFFFFF00u)
		return af_diag_error(d, AF_EINVAL, "the clip would be larger than 4 GiB");
	return 0;
}

int clip_write(const struct clip *c, struct af_buf *out, struct af_diag *d)
{
	size_t h = out->len, body, ik = 0, actor, ev, end;
	int rc;
	if ((rc = check_sizes(c, d)))
		return rc;
	af_buf_put_u32le(out, CLIP_TYPE_ID);
	af_buf_fill(out, 0, CLIP_HEAD - 4); /* offsets patched below; reserved after */
	if (!out->failed)
		memcpy(out->data + h + 40, c->reserved, 16);
	body = out->len;
	write_body(c, out);
	size_t body_len = out->len - body;
	pad4(out, 0x7E);
	if (c->has_ik) {
		ik = out->len - h;
		write_ik(c, out);
	}
	actor = out->len - h;
	af_buf_append(out, c->actor, c->actor_len);
	af_buf_put_u8(out, 0);
	pad4(out, 0x7E);
	ev = out->len - h;
	write_events(c, out);
	pad4(out, 0x7E);
	end = out->len - h;
	for (unsigned i = 0; i < 4; i++)
		af_buf_put_u32le(out, c->end[i]);
	if (out->failed) {
		out->len = h;
		return af_diag_error(d, AF_ENOMEM, "out of memory writing a CLIP");
	}
	af_buf_patch_u32le(out, h + 8, (uint32_t)body_len);
	af_buf_patch_u32le(out, h + 12, CLIP_HEAD - 12);
	af_buf_patch_u32le(out, h + 16, c->has_ik ? (uint32_t)(ik - 16) : 0);
	af_buf_patch_u32le(out, h + 20, (uint32_t)(actor - 20));
	af_buf_patch_u32le(out, h + 24, (uint32_t)(ev - 24));
	af_buf_patch_u32le(out, h + 28, c->unknown1);
	af_buf_patch_u32le(out, h + 32, c->unknown2);
	af_buf_patch_u32le(out, h + 36, (uint32_t)(end - 36));
	return 0;
}

/* ------------------------------------------------------------ rig bone names */

void clip_rig_names(const uint8_t *p, size_t n,
		    int (*cb)(void *ctx, const char *name, size_t len), void *ctx)
{
	uint64_t pos = 12;
	uint32_t count;
	if (n < 24 || (af_le32(p) != 3 && af_le32(p) != 4) || af_le32(p + 4) < 1 || af_le32(p + 4) > 2)
		return;
	count = af_le32(p + 8);
	for (uint32_t i = 0; i < count && pos + 44 <= n; i++) {
		uint32_t len = af_le32(p + pos + 40);
		if (len > n - pos - 44 || cb(ctx, (const char *)p + pos + 44, len))
			return;
		pos += 44ull + len + 16;
	}
}
