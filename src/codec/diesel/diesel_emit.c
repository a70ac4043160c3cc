/* Diesel animation model -> YAML text. Numbers are written straight into the
 * output buffer (no printf per value): one key per line as a flow sequence, in
 * the binary's own order, human units (seconds, centimetres, quaternions x y z w). */
#include <stdio.h>
#include <string.h>

#include "animfs/num.h"
#include "animfs/rot.h"
#include "animfs/yamlio.h"
#include "diesel.h"

#define KEY_MAX (16 + 8 * AF_NUM_MAX + 48) /* longest key line this file writes */

static void line(struct af_buf *b, int indent, const char *text)
{
	af_y_indent(b, indent);
	af_buf_puts(b, text);
}

static void kv_u64(struct af_buf *b, const char *key, uint64_t v)
{
	line(b, 2, key);
	af_y_u64(b, v);
	af_buf_putc(b, '\n');
}

static void emit_binary(const struct diesel_anim *m, struct af_buf *b)
{
	af_buf_puts(b, "binary:                # how the bytes are laid out; keep as is\n");
	line(b, 2, m->width == 32 ? "layout: 32-bit       # 64-bit converts (see the top)\n"
				  : "layout: 64-bit       # 32-bit converts (see the top)\n");
	line(b, 2, m->width == 32 ? "decoded_as: 32-bit   # the layout the keys below describe\n"
				  : "decoded_as: 64-bit   # the layout the keys below describe\n");
	line(b, 2, m->container == DSL_ZLIB ? "container: zlib\n" : "container: raw\n");
	if (m->container == DSL_ZLIB) {
		if (m->level >= 0) {
			kv_u64(b, "zlib_level: ", (uint64_t)m->level);
			if (m->zhdr_custom) {
				line(b, 2, "zlib_header: ");
				af_y_hex(b, (uint64_t)m->zhdr[0] << 8 | m->zhdr[1], 4);
				af_buf_putc(b, '\n');
			}
		} else {
			line(b, 2, "zlib_level: none      # no zlib level reproduces the stream\n");
			line(b, 2, "zlib_stream: ");
			af_y_base64block(b, m->zstream, m->nzstream, 4);
		}
		if (m->nzextra) {
			line(b, 2, "zlib_extra: ");
			af_y_hexblock(b, m->zextra, m->nzextra, 4);
		}
	}
	line(b, 2, "magic: ");
	af_y_hex(b, (uint64_t)m->magic[0] | (uint64_t)m->magic[1] << 8 |
			    (uint64_t)m->magic[2] << 16 | (uint64_t)m->magic[3] << 24, 8);
	af_buf_putc(b, '\n');
	kv_u64(b, "version: ", m->version);
	kv_u64(b, "location: ", m->location);
	if (m->width == 64 && (m->hpad0 || m->hpad1)) {
		kv_u64(b, "header_pad0: ", m->hpad0);
		kv_u64(b, "header_pad1: ", m->hpad1);
	}
	if (m->size_actual)
		line(b, 2, "size_field: actual\n");
	else
		kv_u64(b, "size_field: ", m->size_value);
	if (m->unk_same)
		line(b, 2, "unknown_offset: events\n");
	else
		kv_u64(b, "unknown_offset: ", m->unk_value);
	if (m->nev == 0) {
		if (m->evoff_here)
			line(b, 2, "empty_events_offset: here\n");
		else
			kv_u64(b, "empty_events_offset: ", m->evoff_value);
	}
	kv_u64(b, "name_pad: ", m->name_pad);
	kv_u64(b, "event_pad: ", m->event_pad);
	kv_u64(b, "track_align: ", m->track_align);
	if (m->width == 64 || m->end_pad != 1)
		kv_u64(b, "end_pad: ", m->end_pad);
	line(b, 2, m->dedupe_events ? "dedupe_event_names: true\n" : "dedupe_event_names: false\n");
}

static void emit_events(const struct diesel_anim *m, struct af_buf *b)
{
	if (!m->nev) {
		/* a null value, not "[]": core's YAML reader trips on empty flow sequences */
		af_buf_puts(b, "events:                # none\n");
		return;
	}
	af_buf_puts(b, "events:                # [time as a fraction of length, name]\n");
	for (uint32_t i = 0; i < m->nev; i++) {
		const struct diesel_event *e = &m->ev[i];
		line(b, 2, "- [");
		af_y_f32(b, e->frac);
		af_buf_puts(b, ", ");
		af_y_str(b, e->name, e->name_len);
		af_buf_printf(b, "]  # %.3f s\n", (double)e->frac * (double)m->length);
	}
}

/* Is the pos_u16 `extra` word the same on every key? */
static int extra_constant(const struct diesel_track *t)
{
	for (uint32_t i = 1; i < t->nkeys; i++)
		if (t->keys[i].c[3] != t->keys[0].c[3])
			return 0;
	return 1;
}

static char *put_sep(char *p)
{
	*p++ = ',';
	*p++ = ' ';
	return p;
}

static char *put_u64(char *p, uint64_t v)
{
	return p + af_fmt_u64(p, v);
}

/* The text of the previous key's packed quaternion: a third of the packed keys of real
 * files repeat the key before, and a copy spares the search for its decimals. */
struct prev_quat {
	uint32_t code;
	uint8_t len; /* 0: none */
	char txt[64];
};

/* One key as "        - [t, ...]\n" written in place. */
static char *put_key(char *p, const struct diesel_track *t, const struct diesel_key *k, int extra_each,
		     struct prev_quat *pq, int euler)
{
	const struct diesel_type_info *ti = &diesel_types[t->type];
	memcpy(p, "        - [", 11);
	p += 11;
	p += af_fmt_f32(p, k->t);
	if (t->type == DSL_POS_U16) {
		for (int j = 0; j < 3; j++)
			p = put_sep(p), p += diesel_fmt_cm(p, k->c[j]);
		if (extra_each)
			p = put_u64(put_sep(p), k->c[3]);
	} else if (t->type == DSL_ROT_PACKED) {
		size_t n;
		p = put_sep(p);
		if (pq->len && pq->code == k->u) {
			memcpy(p, pq->txt, sizeof(pq->txt)); /* KEY_MAX holds it */
			p += pq->len;
		} else if ((n = diesel_fmt_quat(p, k->u))) {
			pq->code = k->u;
			pq->len = n < sizeof(pq->txt) ? (uint8_t)n : 0;
			/* only the n bytes written: reading past them touches the buffer's
			 * fresh pages first, which maps the zero page and makes the write
			 * that follows a copy-on-write fault with a TLB flush on every core */
			memcpy(pq->txt, p, pq->len);
			p += n;
		} else { /* never seen: no d <= 9 re-packs; carry the raw code as well */
			double q[4];
			diesel_unpack_quat(k->u, q);
			for (int j = 0; j < 4; j++)
				p += af_fmt_f64(p, q[j]), p = put_sep(p);
			p += af_fmt_hex(p, k->u, 8);
		}
	} else {
		/* values seldom repeat (times do): the memo would only cost here, and so
		 * does reusing the key before's text (measured) */
		p += af_fmt_f32_row(p, k->f, ti->nval);
		if (ti->has_flag)
			p = put_u64(put_sep(p), k->u);
	}
	*p++ = ']';
	if (ti->is_rot && euler) {
		double q[4];
		if (t->type == DSL_ROT_PACKED)
			diesel_unpack_quat(k->u, q);
		else
			for (int j = 0; j < 4; j++)
				q[j] = k->f[j];
		memcpy(p, "  # ", 4);
		p += 4 + af_fmt_euler(p + 4, q);
	}
	*p++ = '\n';
	return p;
}

static int emit_track(const struct diesel_track *t, int rot, int euler, struct af_buf *b)
{
	int extra_each = 0;
	line(b, 4, rot ? "rotation:\n" : "position:\n");
	line(b, 6, "type: ");
	af_buf_puts(b, diesel_types[t->type].name);
	af_buf_putc(b, '\n');
	if (t->reserved) {
		line(b, 6, "reserved: ");
		af_y_u64(b, t->reserved);
		af_buf_putc(b, '\n');
	}
	if (t->type == DSL_POS_U16) {
		extra_each = !extra_constant(t);
		if (!extra_each && t->keys[0].c[3]) {
			line(b, 6, "extra: ");
			af_y_u64(b, t->keys[0].c[3]);
			af_buf_putc(b, '\n');
		}
	}
	line(b, 6, "keys:\n");
	struct prev_quat pq = { 0, 0, { 0 } };
	for (uint32_t i = 0; i < t->nkeys; i++) {
		if (af_buf_ready(b) < KEY_MAX && af_buf_reserve(b, KEY_MAX)) /* seldom called */
			return AF_ENOMEM;
		char *p = (char *)b->data + b->len;
		b->len += (size_t)(put_key(p, t, &t->keys[i], extra_each, &pq, euler) - p);
	}
	return 0;
}

/* An upper-bound guess of the text size, reserved once: growing a megabyte
 * buffer by doubling copies it several times. */
static size_t size_guess(const struct diesel_anim *m)
{
	size_t n = 2048 + (size_t)m->nev * 96;
	for (uint32_t i = 0; i < m->nobj; i++) {
		const struct diesel_track *t[2] = { &m->obj[i].pos, &m->obj[i].rot };
		n += 160 + m->obj[i].name_len;
		for (int j = 0; j < 2; j++)
			n += (size_t)t[j]->nkeys * (16 + 14 * (1 + diesel_types[t[j]->type].nval + 1));
	}
	return n;
}

/* What the layout means for a player, and how to get the other one. */
static void emit_layout_note(const struct diesel_anim *m, struct af_buf *b)
{
	if (m->width == 32) {
		af_buf_puts(b, "# Layout: 32-bit, as PAYDAY 2 read it before its 64-bit build of 2026-08-14, which\n"
			       "# wants 64-bit files. Convert: `animfs convert --to x64 FILE` (or set `layout: 64-bit`\n"
			       "# below and save; add `convert_style: native` for the game's own rules).\n");
		return;
	}
	af_buf_puts(b, "# Layout: 64-bit, as PAYDAY 2's 64-bit build (2026-08-14 on) reads it");
	if (m->container == DSL_ZLIB)
		af_buf_puts(b, ", wrapped in zlib\n"
			       "# (SuperBLT loads that; the game and converter v1.0.2 want `container: raw`)");
	af_buf_puts(b, ".\n# For the old 32-bit build: `animfs convert --to x32 FILE` (or set `layout: 32-bit`).\n");
}

/* A file animfs cannot write back exactly: why, where, and the key that stops a save. */
static void emit_readonly(const struct diesel_anim *m, const struct af_diag *ro, struct af_buf *b)
{
	char why[sizeof(ro->msg) + 64];
	if (ro->offset >= 0)
		snprintf(why, sizeof(why), "byte 0x%llx%s: %s", (unsigned long long)ro->offset,
			 m->container == DSL_ZLIB ? " of the inflated data" : "", ro->msg);
	else
		snprintf(why, sizeof(why), "%s", ro->msg);
	af_buf_puts(b, "# READ-ONLY: animfs reads this file but cannot write it back byte for byte:\n# ");
	af_buf_puts(b, why);
	af_buf_puts(b, "\n# A save is refused while `read_only:` is here; delete that line to write the\n"
		       "# file in animfs's own layout (other bytes, same content).\n");
	af_buf_puts(b, "read_only: ");
	af_y_str(b, why, strlen(why));
	af_buf_putc(b, '\n');
}

int diesel_emit_yaml(const struct diesel_anim *m, const struct af_diag *ro, int euler, struct af_buf *b)
{
	af_buf_hint(b, size_guess(m));
	af_buf_puts(b, "# Diesel engine animation (PAYDAY 2 / RAID), decoded by animfs; see "
		       "docs/diesel-animation.md\n"
		       "# Key times in seconds, positions in centimetres [t, x, y, z], rotations as "
		       "quaternions [t, x, y, z, w].\n");
	emit_layout_note(m, b);
	af_buf_puts(b, "format: diesel-animation\n");
	if (ro)
		emit_readonly(m, ro, b);
	af_buf_puts(b, "length: ");
	af_y_f32(b, m->length);
	af_buf_puts(b, "            # seconds\n");
	if (euler)
		af_buf_puts(b, "euler: xyz             # a rotation key may be written [t, rx, ry, rz] in degrees\n"
			       "                       # (about x, then y, then z; the comments show each key so)\n");
	emit_binary(m, b);
	emit_events(m, b);
	af_buf_puts(b, m->nobj ? "objects:\n" : "objects:               # none\n");
	for (uint32_t i = 0; i < m->nobj; i++) {
		const struct diesel_object *o = &m->obj[i];
		line(b, 2, "- name: ");
		af_y_str(b, o->name, o->name_len);
		af_buf_putc(b, '\n');
		if (emit_track(&o->pos, 0, 0, b) || emit_track(&o->rot, 1, euler, b))
			return AF_ENOMEM;
	}
	return b->failed ? AF_ENOMEM : 0;
}
