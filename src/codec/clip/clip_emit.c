/* CLIP model -> YAML (spec 13): names first, then the IK targets and events, the
 * channels in file order (each with its bone name, type, offset/scale and frames as
 * tick: [values]), and the fields nobody edits under `unknown:` at the end. A frame
 * whose codes and flags the values re-quantise to (rule 12.2) is just its values;
 * any other keeps its flags (and codes, when needed) beside them, so that the
 * document alone rebuilds the file byte for byte. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "animfs/bytes.h"
#include "animfs/fnv.h"
#include "animfs/num.h"
#include "animfs/yamlio.h"
#include "../sims3/sims3_names.h"
#include "clip.h"

struct em {
	struct af_buf *b;
	const struct clip *c;
	struct sims3_names *nm;
};

static void put_f32(struct af_buf *b, uint32_t bits)
{
	af_y_f32(b, af_f32_from_bits(bits));
}

/* A 32-bit hash as the name that hashes back to it, else 0x + 8 hex digits. */
static void put_h32(struct em *e, uint32_t v)
{
	const char *s = sims3_names_find(e->nm, v, S3_H32);
	if (s)
		af_y_cstr(e->b, s);
	else
		af_y_hex(e->b, v, 8);
}

static double secs(const struct clip *c, unsigned tick)
{
	return (double)tick * (double)af_f32_from_bits(c->tick_length);
}

static void emit_head(struct em *e)
{
	const struct clip *c = e->c;
	struct af_buf *b = e->b;
	double tl = af_f32_from_bits(c->tick_length);
	uint64_t h;
	af_buf_puts(b, "format: sims3-clip\nclip: ");
	af_y_str(b, c->name, c->name_len);
	if (!sims3_hash_name(c->name, c->name_len, S3_HCLIP, &h))
		af_buf_printf(b, "  # instance 0x%016llX by the CLIP rule", (unsigned long long)h);
	af_buf_puts(b, "\nsource_file: ");
	af_y_str(b, c->source, c->source_len);
	af_buf_puts(b, "\nactor: ");
	af_y_str(b, c->actor, c->actor_len);
	af_buf_puts(b, "\ntick_length: ");
	put_f32(b, c->tick_length);
	if (tl > 0 && isfinite(tl))
		af_buf_printf(b, "  # %.6g ticks per second", 1.0 / tl);
	af_buf_printf(b, "\nnum_ticks: %u", c->num_ticks);
	if (c->num_ticks && tl > 0 && isfinite(tl))
		af_buf_printf(b, "  # %.3f s from the first tick to the last",
			      secs(c, c->num_ticks - 1u));
	af_buf_putc(b, '\n');
	if (c->npal) {
		af_buf_puts(b, "palette: [");
		for (uint32_t i = 0; i < c->npal; i++) {
			if (i)
				af_buf_puts(b, ", ");
			put_f32(b, c->pal[i]);
		}
		af_buf_puts(b, "]\n");
	}
}

/* Bytes as one quoted run of hex digits (quoted: all digits would read as a number). */
static void put_hex(struct af_buf *b, const uint8_t *p, size_t n)
{
	af_buf_putc(b, '"');
	for (size_t i = 0; i < n; i++)
		af_buf_printf(b, "%02x", p[i]);
	af_buf_putc(b, '"');
}

/* A 512-byte IK string: its text when it is a zstr with '#' fill, else its bytes. */
static void put_ik_str(struct af_buf *b, const char *key, const uint8_t *s)
{
	const uint8_t *z = memchr(s, 0, CLIP_IK_STR);
	int clean = z != NULL;
	for (const uint8_t *p = s; clean && p < z; p++)
		clean = *p < 0x80;
	for (const uint8_t *p = z ? z + 1 : s; clean && p < s + CLIP_IK_STR; p++)
		clean = *p == '#';
	af_buf_printf(b, ", %s%s: ", key, clean ? "" : "_hex");
	if (clean) {
		af_y_str(b, (const char *)s, (size_t)(z - s));
		return;
	}
	put_hex(b, s, CLIP_IK_STR);
}

static void emit_ik(struct em *e)
{
	const struct clip *c = e->c;
	struct af_buf *b = e->b;
	if (!c->has_ik) {
		af_buf_puts(b, "ik_chains: null  # no IK target table\n");
		return;
	}
	if (!c->nchains) {
		af_buf_puts(b, "ik_chains: []  # an IK target table with no chains\n");
		return;
	}
	af_buf_puts(b, "ik_chains:\n");
	for (uint32_t k = 0; k < c->nchains; k++) {
		const struct clip_ik_chain *ch = &c->chains[k];
		af_buf_printf(b, "  - targets:%s\n", ch->n ? "" : " []");
		for (uint32_t t = 0; t < ch->n; t++) {
			af_buf_printf(b, "      - {index: %u", ch->t[t].index);
			put_ik_str(b, "namespace", ch->t[t].ns);
			put_ik_str(b, "target", ch->t[t].tg);
			af_buf_puts(b, "}\n");
		}
	}
}

static void put_sound(struct af_buf *b, const uint8_t *s)
{
	const uint8_t *z = memchr(s, 0, CLIP_SOUND);
	int clean = z != NULL;
	for (const uint8_t *p = s; clean && p < z; p++)
		clean = *p < 0x80;
	for (const uint8_t *p = z ? z + 1 : s; clean && p < s + CLIP_SOUND; p++)
		clean = *p == 0;
	af_buf_puts(b, clean ? ", sound: " : ", sound_hex: ");
	if (clean) {
		af_y_str(b, (const char *)s, (size_t)(z - s));
		return;
	}
	put_hex(b, s, CLIP_SOUND);
}

static void put_field(struct em *e, const struct clip_event *ev, const struct clip_field *f,
		      const uint8_t *p)
{
	struct af_buf *b = e->b;
	if (f->kind == CLIP_FK_SOUND) {
		put_sound(b, p);
		return;
	}
	if (f->kind == CLIP_FK_U64 && af_le64(p) == af_fnv1_64_lower(ev->name, ev->name_len))
		return; /* effect_key: FNV-1 64 of the name, recomputed when left out (12.8) */
	af_buf_printf(b, ", %s: ", f->key);
	switch (f->kind) {
	case CLIP_FK_H32: put_h32(e, af_le32(p)); break;
	case CLIP_FK_U32: af_y_u64(b, af_le32(p)); break;
	case CLIP_FK_F32: put_f32(b, af_le32(p)); break;
	case CLIP_FK_U64: af_y_hex(b, af_le64(p), 16); break;
	case CLIP_FK_MAT:
		af_buf_putc(b, '[');
		for (unsigned i = 0; i < 16; i++) {
			if (i)
				af_buf_puts(b, ", ");
			put_f32(b, af_le32(p + 4 * i));
		}
		af_buf_putc(b, ']');
		break;
	}
}

static void emit_event(struct em *e, const struct clip_event *ev)
{
	const struct clip_ev_kind *k = clip_ev_kind(ev->type);
	const uint8_t *p = ev->pay;
	struct af_buf *b = e->b;
	af_buf_printf(b, "  - {type: %s, id: %u, time: ", k->name, ev->id);
	put_f32(b, ev->time);
	af_buf_puts(b, ", name: ");
	af_y_str(b, ev->name, ev->name_len);
	for (const struct clip_field *f = k->f; f->key; f++) {
		put_field(e, ev, f, p);
		p += clip_field_size(f->kind);
	}
	af_buf_puts(b, ", unknown1: ");
	put_f32(b, ev->unknown1);
	af_buf_puts(b, ", unknown2: ");
	put_f32(b, ev->unknown2);
	af_buf_printf(b, ", unknown3: %u", ev->unknown3);
	if (ev->tag != CLIP_EV_TAG)
		af_buf_printf(b, ", tag: 0x%04X", ev->tag);
	af_buf_puts(b, "}\n");
}

static void emit_events(struct em *e)
{
	af_buf_puts(e->b, e->c->nev ? "events:\n" : "events: []\n");
	for (uint32_t i = 0; i < e->c->nev; i++)
		emit_event(e, &e->c->ev[i]);
}

/* Whether the printed values give back the frame's codes and flags by rule 12.2. */
static int requantizes(const struct clip_chan *ch, const struct clip_type *t,
		       const struct clip_frame *f, const float *v)
{
	uint16_t flags = 0;
	if (t->layout == CLIP_PALETTE)
		return -1; /* equal palette entries: the index is not the value's to choose */
	for (unsigned j = 0; j < t->ncomp && t->layout != CLIP_CONST; j++) {
		uint16_t code;
		int neg;
		if (clip_quantize(ch, t, v[j], &code, &neg) || code != f->code[j])
			return -1;
		flags |= (uint16_t)(neg << j);
	}
	return flags == f->flags ? 1 : 0;
}

static void put_values(struct af_buf *b, const struct clip_type *t, const float *v)
{
	af_buf_putc(b, '[');
	for (unsigned j = 0; j < t->ncomp && t->layout != CLIP_CONST; j++) {
		if (j)
			af_buf_puts(b, ", ");
		af_y_f32(b, v[j]);
	}
	af_buf_putc(b, ']');
}

static void emit_frame(struct em *e, const struct clip_chan *ch, const struct clip_type *t,
		       const struct clip_frame *f)
{
	struct af_buf *b = e->b;
	float v[4] = { 0, 0, 0, 0 };
	for (unsigned j = 0; j < t->ncomp && t->layout != CLIP_CONST; j++)
		v[j] = (float)clip_value(e->c, ch, f, j);
	int same = requantizes(ch, t, f, v);
	af_buf_printf(b, "      %u: ", f->tick);
	if (same == 1) {
		put_values(b, t, v);
	} else {
		af_buf_puts(b, "{v: ");
		put_values(b, t, v);
		af_buf_printf(b, ", flags: 0x%04X", f->flags);
		if (same < 0) { /* the values alone would not give these codes */
			af_buf_puts(b, ", codes: [");
			for (unsigned j = 0; j < t->ncomp; j++)
				af_buf_printf(b, "%s%u", j ? ", " : "", f->code[j]);
			af_buf_putc(b, ']');
		}
		af_buf_putc(b, '}');
	}
	if (f->tick)
		af_buf_printf(b, "  # %.3f s", secs(e->c, f->tick));
	af_buf_putc(b, '\n');
}

static void emit_raw_chan(struct af_buf *b, const struct clip_chan *ch)
{
	af_buf_printf(b, "    frame_count: %u\n    raw_frames: ", ch->nframes);
	af_y_hexblock(b, ch->raw, ch->raw_len, 6);
}

static void emit_channel(struct em *e, const struct clip_chan *ch)
{
	const struct clip_type *t = clip_type(ch->type);
	const char *sub = clip_sub_name(ch->sub);
	struct af_buf *b = e->b;
	af_buf_puts(b, "  - target: ");
	put_h32(e, ch->target);
	if (t->name)
		af_buf_printf(b, "\n    type: %s", t->name);
	else
		af_buf_printf(b, "\n    type: %u", ch->type);
	if (sub)
		af_buf_printf(b, "\n    sub_target: %s", sub);
	else
		af_buf_printf(b, "\n    sub_target: %u", ch->sub);
	af_buf_puts(b, "\n    offset: ");
	put_f32(b, ch->offset);
	af_buf_puts(b, "\n    scale: ");
	put_f32(b, ch->scale);
	if (t->max)
		af_buf_printf(b, "  # quantum %.3g", fabs((double)af_f32_from_bits(ch->scale)) / t->max);
	af_buf_putc(b, '\n');
	if (t->layout == CLIP_RAW) {
		emit_raw_chan(b, ch);
		return;
	}
	af_buf_puts(b, ch->nframes ? "    frames:\n" : "    frames: {}\n");
	for (uint32_t i = 0; i < ch->nframes && !b->failed; i++)
		emit_frame(e, ch, t, &ch->f[i]);
}

static void emit_unknown(struct em *e)
{
	const struct clip *c = e->c;
	struct af_buf *b = e->b;
	af_buf_puts(b, "unknown:  # fields of unknown meaning, kept as they are\n");
	af_buf_printf(b, "  header_unknown1: %u\n  header_unknown2: %u\n  reserved: ", c->unknown1,
		      c->unknown2);
	put_hex(b, c->reserved, 16);
	af_buf_printf(b, "\n  version: %u\n  flags: 0x%X\n  padding: 0x%04X\n  event_version: 0x%X\n"
		      "  end_block: [", c->version, c->flags, c->padding, c->ev_version);
	for (unsigned i = 0; i < 4; i++) {
		if (i)
			af_buf_puts(b, ", ");
		put_f32(b, c->end[i]);
	}
	af_buf_puts(b, "]\n");
}

int clip_emit(const struct clip *c, struct sims3_names *nm, struct af_buf *out)
{
	struct em e = { out, c, nm };
	emit_head(&e);
	emit_ik(&e);
	emit_events(&e);
	af_buf_puts(out, c->nchan ? "channels:\n" : "channels: []\n");
	for (uint32_t i = 0; i < c->nchan && !out->failed; i++)
		emit_channel(&e, &c->ch[i]);
	emit_unknown(&e);
	return out->failed ? AF_ENOMEM : 0;
}
