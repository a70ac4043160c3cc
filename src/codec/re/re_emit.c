/* model -> YAML for RE2/RE3 models: banks (skeleton, sequences, keyframe pool) first,
 * the verbatim sections as base64/hex blocks at the end. Layout documented in
 * docs/re-model.md; re_parse.c reads exactly this shape back. */
#include <stdio.h>
#include <string.h>

#include "re.h"
#include "animfs/num.h"

static void triple(struct af_buf *b, const int16_t *v)
{
	af_buf_printf(b, "[%d, %d, %d]", v[0], v[1], v[2]);
}

static void emit_skeleton(struct af_buf *b, const struct re_emr *m, const char *const *names)
{
	if (!m->has_skeleton) {
		af_buf_puts(b, "    skeleton: none   # header-only bank: animates the skeleton "
			    "of the character's PLD\n");
		af_buf_printf(b, "    armature_offset: %u   # stale header field, carried as is\n",
			      m->armature_offset);
		return;
	}
	af_buf_puts(b, "    skeleton:   # bone order; relpos = rest offset from the parent "
		    "(game units, +y down)\n");
	for (unsigned i = 0; i < m->nbones; i++) {
		af_buf_printf(b, "      - {bone: %u, parent: %d, relpos: ", i, m->parent[i]);
		triple(b, m->relpos[i]);
		af_buf_puts(b, names ? "}   # " : "}\n");
		if (names)
			af_buf_printf(b, "%s\n", names[i]);
	}
}

static char *put_str(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

#define PUT(p, lit) put_str(p, lit, sizeof(lit) - 1)

static char *put_triple(char *p, const int16_t *v)
{
	*p++ = '[';
	for (int i = 0; i < 3; i++) {
		if (i)
			p = PUT(p, ", ");
		p += af_fmt_i64(p, v[i]);
	}
	*p++ = ']';
	return p;
}

static char *put_hex(char *p, uint32_t v, int min_digits)
{
	static const char digit[] = "0123456789ABCDEF";
	int n = 1;
	while (n < 8 && v >> (4 * n))
		n++;
	n = n < min_digits ? min_digits : n;
	*p++ = '0';
	*p++ = 'x';
	for (int i = n - 1; i >= 0; i--)
		*p++ = digit[v >> (4 * i) & 15];
	return p;
}

/* One frame line, flags by name where re_names.c has one for the game, in hex
 * otherwise (RE3 two digits); written in place like the poses (thousands per file). */
static void emit_frame(struct af_buf *b, const struct re_frame *fr, unsigned game)
{
	const char *name = re_flag_name(game, fr->flags);
	if (af_buf_reserve(b, 128))
		return;
	char *p = (char *)b->data + b->len, *start = p;
	p = PUT(p, "          - [");
	p += af_fmt_u64(p, fr->pose);
	p = PUT(p, ", ");
	p = name ? put_str(p, name, strlen(name)) : put_hex(p, fr->flags, game == RE_GAME3 ? 2 : 1);
	p = fr->outside ? PUT(p, ", outside]   # the pose is past the pool's end in the file\n")
		: PUT(p, "]\n");
	b->len += (size_t)(p - start);
}

static void pose_range(const struct re_seq *s, unsigned game, uint64_t *lo, uint64_t *hi)
{
	*lo = UINT64_MAX;
	*hi = 0;
	for (size_t k = 0; k < s->nframes; k++) {
		uint64_t p = (uint64_t)s->frames[k].pose +
			(game == RE_GAME3 ? s->pose_start : 0);
		*lo = p < *lo ? p : *lo;
		*hi = p > *hi ? p : *hi;
	}
}

/* Empty lists print as 'none' rather than '[]' (both are read back). */
static void emit_sequences(struct af_buf *b, const struct re_edd *e, unsigned game)
{
	if (!e->nseq) {
		af_buf_puts(b, "    sequences: none\n");
		return;
	}
	af_buf_puts(b, "    sequences:\n");
	for (size_t i = 0; i < e->nseq; i++) {
		const struct re_seq *s = &e->seq[i];
		uint64_t lo, hi;
		pose_range(s, game, &lo, &hi);
		if (game == RE_GAME3)
			af_buf_printf(b, "      - pose_start: %u   ", s->pose_start);
		else
			af_buf_puts(b, s->nframes ? "      - frames:   " : "      - frames: none   ");
		af_buf_printf(b, "# sequence %zu: %zu frames", i, s->nframes);
		if (s->nframes)
			af_buf_printf(b, ", poses %llu..%llu", (unsigned long long)lo,
				      (unsigned long long)hi);
		af_buf_putc(b, '\n');
		if (game == RE_GAME3)
			af_buf_puts(b, s->nframes ? "        frames:\n" : "        frames: none\n");
		for (size_t k = 0; k < s->nframes; k++)
			emit_frame(b, &s->frames[k], game);
	}
}

/* The comment after each bone's angles ("# 3 right_elbow", or "# bone_3" where the
 * skeleton is not one the spec names), made once per bank in fixed slots, so that a
 * pose copies each with one fixed-size move. */
#define RE_NOTE 24 /* "# 255 " + a name of at most 15 characters + newline: 22 */
struct bone_notes {
	char text[256][RE_NOTE];
	uint8_t len[256];
};

static void make_notes(struct bone_notes *bn, const char *const *names, unsigned n)
{
	for (unsigned i = 0; i < n && i < 256; i++) {
		int w = names ? snprintf(bn->text[i], RE_NOTE, "# %u %.15s\n", i, names[i])
			      : snprintf(bn->text[i], RE_NOTE, "# bone_%u\n", i);
		bn->len[i] = (uint8_t)(w > 0 && w < RE_NOTE ? w : 0);
	}
}

/* Angle triples shorter than this are padded, so that most bone comments line up. */
#define RE_TRIPLE_COL 22

/* One pose, written in place: the pool is most of an RE file's text. */
static void emit_pose(struct af_buf *b, const struct re_pose *ps, size_t i, unsigned game,
		      unsigned n, const struct bone_notes *bn)
{
	/* fixed part < 260 bytes (with stray_bits); per bone: indent 12, a triple at most 27 (three angles of
	 * 7 characters), padding and spaces at most RE_TRIPLE_COL + 2, a note RE_NOTE */
	if (af_buf_reserve(b, 260 + (size_t)n * (12 + 27 + RE_TRIPLE_COL + 2 + RE_NOTE)))
		return;
	char *p = (char *)b->data + b->len, *start = p;
	p = PUT(p, "      - pose: ");
	p += af_fmt_u64(p, i);
	if (game == RE_GAME2) {
		p = PUT(p, "\n        offset: ");
		p = put_triple(p, ps->offset);
	}
	p = PUT(p, "\n        motion: ");
	p = put_triple(p, ps->motion);
	if (game == RE_GAME3) {
		p = PUT(p, "\n        y_offset: ");
		p += af_fmt_i64(p, ps->y_offset);
	}
	if (ps->stray) {
		p = PUT(p, "\n        stray_bits: ");
		p = put_hex(p, ps->stray, 1);
		p = PUT(p, "   # the bits after the last angle (LSB first), not zero in this "
			"pose; carried as found");
	}
	p = PUT(p, "\n        angles:\n");
	for (unsigned bone = 0; bone < n; bone++) {
		p = PUT(p, "          - ");
		char *t = p;
		*p++ = '[';
		for (int x = 0; x < 3; x++) {
			if (x)
				p = PUT(p, ", ");
			p += re_deg_fmt(p, ps->codes[3 * bone + x]);
		}
		*p++ = ']';
		size_t w = (size_t)(p - t);
		/* fixed-size moves (the reserve covers them); only the lengths vary */
		memset(p, ' ', RE_TRIPLE_COL + 2);
		p += w < RE_TRIPLE_COL ? RE_TRIPLE_COL - w + 2 : 2;
		memcpy(p, bn->text[bone], RE_NOTE);
		p += bn->len[bone];
	}
	b->len += (size_t)(p - start);
}

static void emit_degrees(struct af_buf *b, const char *key, const uint16_t *codes)
{
	char t[3][AF_NUM_MAX];
	for (int x = 0; x < 3; x++)
		re_deg_fmt(t[x], codes[x]);
	af_buf_printf(b, "        %s: [%s, %s, %s]\n", key, t[0], t[1], t[2]);
}

/* The 7-bone bank's records, fields in byte order (docs/re-model.md). */
static void emit_records(struct af_buf *b, const struct re_emr *m)
{
	if (!m->nposes) {
		af_buf_puts(b, "    keyframes: none\n");
		return;
	}
	af_buf_printf(b, "    keyframes:   # %zu lower-body records of 32 bytes (not the declared "
		      "%u-byte keyframes): motion as the upper-body pose's, 8 x the root height, per "
		      "leg a 12-bit value of unknown use and the foot's rotation [x, y, z] in "
		      "degrees, then the feet's positions (8 units a game unit, from the root's "
		      "motion point)\n",
		      m->nposes, m->keyframe_size);
	for (size_t i = 0; i < m->nposes; i++) {
		const struct re_rec7 *r = &m->recs[i];
		af_buf_printf(b, "      - pose: %zu\n        motion: ", i);
		triple(b, r->motion);
		af_buf_printf(b, "\n        y_offset8: %d", r->y8);
		if (r->y8 % 8 == 0)
			af_buf_printf(b, "   # 8 x %d", r->y8 / 8);
		af_buf_putc(b, '\n');
		for (int leg = 0; leg < 2; leg++) {
			const char *side = leg ? "left" : "right";
			unsigned u = r->v[4 * leg];
			char key[24];
			af_buf_printf(b, "        %s_unknown: %d\n", side,
				      u >= 2048 ? (int)u - 4096 : (int)u);
			snprintf(key, sizeof(key), "%s_foot_angles", side);
			emit_degrees(b, key, &r->v[4 * leg + 1]);
		}
		af_buf_puts(b, "        right_foot: ");
		triple(b, r->feet[0]);
		af_buf_puts(b, "\n        left_foot: ");
		triple(b, r->feet[1]);
		af_buf_putc(b, '\n');
	}
}

static void emit_keyframes(struct af_buf *b, const struct re_emr *m, unsigned game,
			   const char *const *names)
{
	if (m->opaque_pool) {
		af_buf_printf(b, "    keyframes: opaque   # %zu records of 32 bytes, not the declared "
			      "%u-byte keyframes; carried as bytes (data, role emr-pool)\n",
			      m->nposes, m->keyframe_size);
		return;
	}
	if (m->recs) {
		emit_records(b, m);
		return;
	}
	if (!m->nposes) {
		af_buf_puts(b, "    keyframes: none\n");
		return;
	}
	af_buf_printf(b, "    keyframes:   # %zu poses in file order; motion is cumulative "
		      "within a sequence; angles [x, y, z] in degrees (4096 = 360), one bone a "
		      "line in bone order, the comment names the bone\n", m->nposes);
	struct bone_notes bn = { 0 }; /* 6.4 KB: bone_count is at most 256 (re_emr.c) */
	make_notes(&bn, names, m->nbones);
	/* one growth for the whole pool, not a copy at every doubling */
	af_buf_hint(b, m->nposes * (100 + (size_t)m->nbones * (12 + 20 + 2 + 16)));
	for (size_t i = 0; i < m->nposes; i++)
		emit_pose(b, &m->poses[i], i, game, m->nbones, &bn);
}

static void emit_bank(struct af_buf *b, const struct re_file *f, unsigned i)
{
	const struct re_bank *k = &f->bank[i];
	const unsigned game = f->lay->game;
	af_buf_printf(b, "  - bank: %u\n    name: ", i);
	af_y_cstr(b, f->lay->bank_names[i]);
	af_buf_printf(b, "\n    sections: [%u, %u]   # EDD, EMR\n", k->edd_sec, k->emr_sec);
	if (k->verbatim) {
		af_buf_puts(b, "    verbatim: ");
		af_y_cstr(b, k->verbatim);
		af_buf_puts(b, "   # both sections carried as bytes (data)\n");
		return;
	}
	if (game == RE_GAME3)
		af_buf_puts(b, "    records: re3-relative   # frames [pose, flags]: pose = "
			    "pose_start + u8 (0..255), flags u8\n");
	else
		af_buf_puts(b, "    records: re2-absolute   # frames [pose, flags]: absolute "
			    "12-bit pose (0..4095), 20-bit flags\n");
	if (k->emr.empty) {
		af_buf_puts(b, "    keyframes: empty   # the EMR slot is 4 zero bytes\n");
		emit_sequences(b, &k->edd, game);
		return;
	}
	af_buf_printf(b, "    bone_count: %u\n    keyframe_size: %u\n", k->emr.nbones,
		      k->emr.keyframe_size);
	const char *const *names = re_bone_names(game, &k->emr);
	emit_skeleton(b, &k->emr, names);
	emit_sequences(b, &k->edd, game);
	emit_keyframes(b, &k->emr, game, names);
	if (k->emr.tail_len) {
		af_buf_printf(b, "    # pool_tail: %zu bytes after the last whole %s, too few for "
			      "another; carried as found\n    pool_tail: ", k->emr.tail_len,
			      k->emr.recs ? "record" : "keyframe");
		af_y_hexblock(b, k->emr.tail, k->emr.tail_len, 6);
	}
}

static void emit_blob(struct af_buf *b, unsigned sec, const char *role, const uint8_t *p,
		      size_t len, unsigned info_role)
{
	af_buf_printf(b, "  - section: %u\n    role: %s\n    length: %zu\n", sec, role, len);
	re_info(b, info_role, p, len, 4);
	if (len <= 64) {
		af_buf_puts(b, "    hex: ");
		af_y_hexblock(b, p, len, 6);
	} else {
		af_buf_puts(b, "    base64: ");
		af_y_base64block(b, p, len, 6);
	}
}

static void emit_data(struct af_buf *b, const struct re_file *f)
{
	af_buf_puts(b, "data:   # carried sections, byte for byte\n");
	for (unsigned s = 0; s < f->lay->nsec; s++) {
		const struct re_slot *sl = &f->lay->slots[s];
		const struct re_sec *x = &f->sec[s];
		if (sl->bank < 0) {
			emit_blob(b, s, re_role_name(sl->role), x->p, x->len, sl->role);
			continue;
		}
		const struct re_bank *k = &f->bank[sl->bank];
		if (k->verbatim) {
			emit_blob(b, s, re_role_name(sl->role), x->p, x->len, sl->role);
		} else if (sl->role == RE_EMR && k->emr.opaque_pool) {
			emit_blob(b, s, "emr-pool", k->emr.pool, k->emr.pool_len, RE_EMR);
		}
	}
}

int re_emit(const struct re_file *f, struct af_buf *b, struct af_diag *d)
{
	const struct re_layout *L = f->lay;
	af_buf_printf(b, "# Resident Evil %u model file (.%s) decoded by animfs: animation banks "
		      "(EDD sequences, EMR skeleton and keyframe pool); meshes, textures and "
		      "unknown blocks carried in 'data' at the end\n", L->game, L->ext);
	af_buf_printf(b, "format: re-model\ngame: re%u\nkind: %s\n", L->game,
		      re_kind_name(L->kind));
	af_buf_printf(b, "# %u sections in directory order:", L->nsec);
	for (unsigned s = 0; s < L->nsec; s++)
		af_buf_printf(b, " %u %s%s", s, re_role_name(L->slots[s].role),
			      s + 1 < L->nsec ? "," : "\n");
	af_buf_puts(b, "banks:\n");
	for (unsigned i = 0; i < L->nbanks; i++)
		emit_bank(b, f, i);
	emit_data(b, f);
	return b->failed ? af_diag_error(d, AF_ENOMEM, "out of memory") : AF_OK;
}
