/* CLIP YAML (af_ydoc tree) -> model, with the checks of spec 14: unknown keys,
 * names, counts and ranges are refused with the YAML line:col and a path such as
 * "channels[3].frames[7].v[1]". Values become codes by spec 12: a frame whose values
 * are those its stored codes give keeps them; a changed one is re-quantised with the
 * channel's offset and scale, and a value outside offset +- |scale| is refused unless
 * the channel says `refit: true`. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/bytes.h"
#include "animfs/fnv.h"
#include "animfs/num.h"
#include "animfs/schema.h"
#include "clip.h"

#define PATHN 96

struct ps {
	struct af_diag *d;
	struct af_arena *a;
	struct clip *c;
	const char **names; /* names spelled out, for the user dictionary */
	size_t nnames, cap;
};

/* One parsed frame, before its codes are chosen. */
struct pf {
	float v[4];
	uint16_t tick, flags, codes[4];
	uint8_t has_flags, has_codes;
	const struct af_ynode *node, *vn[4];
};

static int oom(struct ps *p)
{
	return af_diag_error(p->d, AF_ENOMEM, "out of memory reading the CLIP YAML");
}

static const char *at(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static const char *at(char *buf, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, PATHN, fmt, ap);
	va_end(ap);
	return buf;
}

static int keys(struct ps *p, const struct af_ynode *m, const struct af_sch_prop *props,
		const char *what)
{
	const struct af_ynode *k;
	char list[400];
	if (af_y_want(p->d, m, AF_YMAP, what))
		return AF_EINVAL;
	if (!(k = af_sch_unknown_key(props, m)))
		return 0;
	af_sch_key_list(props, list, sizeof(list));
	return af_y_error(p->d, k, "%s: unknown field(s) %s (expected: %s)", what,
			  k->type == AF_YSCALAR ? k->str : "(not a text)", list);
}

static int note_name(struct ps *p, const char *s, size_t n)
{
	const char **a;
	if (p->nnames && !strcmp(p->names[p->nnames - 1], s))
		return 0; /* a target's channels are adjacent: once is enough */
	if (!(a = af_grow(p->names, &p->cap, p->nnames, sizeof(*a), 32)))
		return oom(p);
	p->names = a;
	if (!(p->names[p->nnames] = af_arena_strndup(p->a, s, n)))
		return oom(p);
	p->nnames++;
	return 0;
}

/* An ASCII text without NUL (Sims 3 names, jazz spec 5.1), at most max bytes. */
static int get_text(struct ps *p, const struct af_ynode *y, size_t max, const char **s,
		    size_t *n, const char *what)
{
	if (af_y_get_str(p->d, y, s, n, what))
		return AF_EINVAL;
	for (size_t i = 0; i < *n; i++)
		if (!(*s)[i] || (unsigned char)(*s)[i] >= 0x80)
			return af_y_error(p->d, y, "%s: the text contains %s", what,
					  (*s)[i] ? "a byte outside ASCII" : "a NUL character");
	if (*n > max)
		return af_y_error(p->d, y, "%s: '%.40s...' is %zu bytes; the field holds at most %zu",
				  what, *s, *n, max);
	return 0;
}

static int get_h32(struct ps *p, const struct af_ynode *y, uint32_t *out, const char *what)
{
	const char *s;
	size_t n;
	uint64_t v;
	if (af_y_want(p->d, y, AF_YSCALAR, what))
		return AF_EINVAL;
	if (y->len > 2 && y->str[0] == '0' && (y->str[1] | 32) == 'x') {
		if (af_parse_u64(y->str, y->len, &v) || v > UINT32_MAX)
			return af_y_error(p->d, y, "%s: %s is not a 32-bit hash", what, y->str);
		*out = (uint32_t)v;
		return 0;
	}
	if (get_text(p, y, 255, &s, &n, what))
		return AF_EINVAL;
	if (!n)
		return af_y_error(p->d, y, "%s: expected a name or a 0x hash", what);
	*out = af_fnv1_32_lower(s, n);
	return note_name(p, s, n);
}

static int get_f32(struct ps *p, const struct af_ynode *y, uint32_t *out, const char *what)
{
	float v;
	if (af_y_get_f32(p->d, y, &v, what))
		return AF_EINVAL;
	if (isinf(v) && !strchr(y->str, 'i') && !strchr(y->str, 'I'))
		return af_y_error(p->d, y, "%s: %s does not fit in a 32-bit float", what, y->str);
	*out = af_f32_bits(v);
	return 0;
}

static int get_uint(struct ps *p, const struct af_ynode *y, uint64_t max, uint64_t *out,
		    const char *what)
{
	return af_y_get_u64(p->d, y, max, out, what);
}

/* An optional field: *out stays when the key is absent. */
static int opt_uint(struct ps *p, const struct af_ynode *m, const char *key, uint64_t max,
		    uint32_t *out, const char *what)
{
	const struct af_ynode *y = af_ymap_get(m, key);
	uint64_t v;
	char path[PATHN];
	if (!y)
		return 0;
	if (get_uint(p, y, max, &v, at(path, "%s.%s", what, key)))
		return AF_EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static int opt_f32(struct ps *p, const struct af_ynode *m, const char *key, uint32_t *out,
		   const char *what)
{
	const struct af_ynode *y = af_ymap_get(m, key);
	char path[PATHN];
	return y ? get_f32(p, y, out, at(path, "%s.%s", what, key)) : 0;
}

/* Exactly n bytes of hex. */
static int get_hexn(struct ps *p, const struct af_ynode *y, uint8_t *out, size_t n,
		    const char *what)
{
	struct af_buf b = AF_BUF_INIT;
	int rc = af_y_get_hex(p->d, y, &b, what);
	if (!rc && b.len != n)
		rc = af_y_error(p->d, y, "%s: %zu bytes; it must be exactly %zu", what, b.len, n);
	if (!rc)
		memcpy(out, b.data, n);
	af_buf_free(&b);
	return rc;
}

static int list_of(struct ps *p, const struct af_ynode *y, size_t max, const char *what)
{
	if (af_y_want(p->d, y, AF_YSEQ, what))
		return AF_EINVAL;
	if (y->n > max)
		return af_y_error(p->d, y, "%s: %zu entries; at most %zu", what, (size_t)y->n, max);
	return 0;
}

/* ------------------------------------------------------------ header and unknowns */

static int parse_unknown(struct ps *p, const struct af_ynode *u)
{
	struct clip *c = p->c;
	const struct af_ynode *y;
	uint32_t pad = c->padding;
	char path[PATHN];
	int rc;
	if (!u)
		return 0;
	if ((rc = keys(p, u, clip_sch_unknown, "unknown")) ||
	    (rc = opt_uint(p, u, "header_unknown1", UINT32_MAX, &c->unknown1, "unknown")) ||
	    (rc = opt_uint(p, u, "header_unknown2", UINT32_MAX, &c->unknown2, "unknown")) ||
	    (rc = opt_uint(p, u, "version", UINT32_MAX, &c->version, "unknown")) ||
	    (rc = opt_uint(p, u, "flags", UINT32_MAX, &c->flags, "unknown")) ||
	    (rc = opt_uint(p, u, "padding", 0xFFFF, &pad, "unknown")) ||
	    (rc = opt_uint(p, u, "event_version", UINT32_MAX, &c->ev_version, "unknown")))
		return rc;
	c->padding = (uint16_t)pad;
	if ((y = af_ymap_get(u, "reserved")) &&
	    (rc = get_hexn(p, y, c->reserved, 16, "unknown.reserved")))
		return rc;
	if ((y = af_ymap_get(u, "end_block"))) {
		if (list_of(p, y, 4, "unknown.end_block"))
			return AF_EINVAL;
		if (y->n != 4)
			return af_y_error(p->d, y, "unknown.end_block: expected 4 values");
		for (unsigned i = 0; i < 4; i++)
			if (get_f32(p, &y->items[i], &c->end[i], at(path, "unknown.end_block[%u]", i)))
				return AF_EINVAL;
	}
	return 0;
}

static int parse_head(struct ps *p, const struct af_ynode *root)
{
	struct clip *c = p->c;
	const struct af_ynode *y;
	uint64_t v;
	int rc;
	if ((rc = keys(p, root, clip_sch_document, "the document")))
		return rc;
	if (!(y = af_y_need(p->d, root, "format", "the document")))
		return AF_EINVAL;
	if (y->type != AF_YSCALAR || strcmp(y->str, "sims3-clip"))
		return af_y_error(p->d, y, "format: expected sims3-clip");
	if (!(y = af_y_need(p->d, root, "clip", "the document")) ||
	    get_text(p, y, 0xFFFF, &c->name, &c->name_len, "clip") ||
	    !(y = af_y_need(p->d, root, "source_file", "the document")) ||
	    get_text(p, y, 0xFFFF, &c->source, &c->source_len, "source_file") ||
	    !(y = af_y_need(p->d, root, "actor", "the document")) ||
	    get_text(p, y, 0xFFFF, &c->actor, &c->actor_len, "actor") ||
	    !(y = af_y_need(p->d, root, "tick_length", "the document")) ||
	    get_f32(p, y, &c->tick_length, "tick_length") ||
	    !(y = af_y_need(p->d, root, "num_ticks", "the document")) ||
	    get_uint(p, y, 0xFFFF, &v, "num_ticks"))
		return AF_EINVAL;
	c->num_ticks = (uint16_t)v;
	if ((y = af_ymap_get(root, "palette"))) {
		char path[PATHN];
		if (list_of(p, y, 0x3FFFFFFF, "palette"))
			return AF_EINVAL;
		c->npal = (uint32_t)y->n;
		if (c->npal && !(c->pal = af_arena_array(p->a, c->npal, 4)))
			return oom(p);
		for (uint32_t i = 0; i < c->npal; i++)
			if (get_f32(p, &y->items[i], &c->pal[i], at(path, "palette[%u]", i)))
				return AF_EINVAL;
	}
	return parse_unknown(p, af_ymap_get(root, "unknown"));
}

/* ------------------------------------------------------------ IK targets (6) */

static int ik_str(struct ps *p, const struct af_ynode *m, const char *key, uint8_t *out,
		  const char *what)
{
	char hk[32], path[PATHN];
	const struct af_ynode *y = af_ymap_get(m, key), *h;
	const char *s;
	size_t n;
	snprintf(hk, sizeof(hk), "%s_hex", key);
	h = af_ymap_get(m, hk);
	if (!y == !h)
		return af_y_error(p->d, m, "%s: expected exactly one of %s and %s", what, key, hk);
	if (h)
		return get_hexn(p, h, out, CLIP_IK_STR, at(path, "%s.%s", what, hk));
	if (get_text(p, y, CLIP_IK_STR - 1, &s, &n, at(path, "%s.%s", what, key)))
		return AF_EINVAL;
	memset(out, '#', CLIP_IK_STR);
	memcpy(out, s, n);
	out[n] = 0;
	return 0;
}

static int parse_chain(struct ps *p, const struct af_ynode *y, struct clip_ik_chain *k,
		       const char *what)
{
	const struct af_ynode *ts;
	char path[PATHN];
	if (keys(p, y, clip_sch_chain, what) || !(ts = af_y_need(p->d, y, "targets", what)) ||
	    list_of(p, ts, 0xFFFF, at(path, "%s.targets", what)))
		return AF_EINVAL;
	k->n = (uint32_t)ts->n;
	if (k->n && !(k->t = af_arena_array(p->a, k->n, sizeof(*k->t))))
		return oom(p);
	for (uint32_t t = 0; t < k->n; t++) {
		const struct af_ynode *m = &ts->items[t];
		at(path, "%s.targets[%u]", what, t);
		k->t[t].index = t;
		if (keys(p, m, clip_sch_target, path) ||
		    opt_uint(p, m, "index", UINT32_MAX, &k->t[t].index, path) ||
		    ik_str(p, m, "namespace", k->t[t].ns, path) ||
		    ik_str(p, m, "target", k->t[t].tg, path))
			return AF_EINVAL;
	}
	return 0;
}

static int parse_ik(struct ps *p, const struct af_ynode *y)
{
	struct clip *c = p->c;
	char path[PATHN];
	if (af_y_is_null(y))
		return 0;
	if (list_of(p, y, 0xFFFF, "ik_chains"))
		return AF_EINVAL;
	c->has_ik = 1;
	c->nchains = (uint32_t)y->n;
	if (c->nchains && !(c->chains = af_arena_array(p->a, c->nchains, sizeof(*c->chains))))
		return oom(p);
	for (uint32_t k = 0, total = 0; k < c->nchains; k++) {
		const struct af_ynode *ts = af_ymap_get(&y->items[k], "targets");
		/* a target is 1 KiB of file from a few bytes of text: bound them all */
		if (ts && ts->type == AF_YSEQ && (total += (uint32_t)(ts->n > 0xFFFF ? 0x10000 : ts->n)) > 0xFFFF)
			return af_y_error(p->d, ts, "ik_chains[%u]: more than 65535 IK targets in all", k);
		if (parse_chain(p, &y->items[k], &c->chains[k], at(path, "ik_chains[%u]", k)))
			return AF_EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------ events (8) */

static int has_field(const struct clip_ev_kind *k, const char *key)
{
	for (const struct clip_field *f = k->f; f->key; f++)
		if (!strcmp(f->key, key) || (f->kind == CLIP_FK_SOUND && !strcmp(key, "sound_hex")))
			return 1;
	return 0;
}

/* The keys of the common header; any other must be a field of the kind. */
static const char *const ev_common[] = { "type", "id", "time", "name", "unknown1", "unknown2",
					 "unknown3", "tag", NULL };

static int kind_keys(struct ps *p, const struct af_ynode *m, const struct clip_ev_kind *k,
		     const char *what)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct af_ynode *key = &m->items[2 * i];
		int common = 0;
		for (const char *const *c = ev_common; *c && !common; c++)
			common = !strcmp(*c, key->str);
		if (!common && !has_field(k, key->str))
			return af_y_error(p->d, key, "%s: a %s event has no field %s", what, k->name,
					  key->str);
	}
	return 0;
}

static int sound_field(struct ps *p, const struct af_ynode *m, const struct clip_event *e,
		       uint8_t *out, const char *what)
{
	const struct af_ynode *y = af_ymap_get(m, "sound"), *h = af_ymap_get(m, "sound_hex");
	const char *s = e->name;
	size_t n = e->name_len;
	char path[PATHN];
	if (y && h)
		return af_y_error(p->d, h, "%s: sound and sound_hex both given", what);
	if (h)
		return get_hexn(p, h, out, CLIP_SOUND, at(path, "%s.sound_hex", what));
	if (y && get_text(p, y, CLIP_SOUND - 1, &s, &n, at(path, "%s.sound", what)))
		return AF_EINVAL;
	if (n > CLIP_SOUND - 1)
		return af_y_error(p->d, m, "%s: the name is %zu bytes, too long for the sound field "
				  "(127); give sound", what, n);
	memset(out, 0, CLIP_SOUND);
	memcpy(out, s, n);
	return 0;
}

static int mat_field(struct ps *p, const struct af_ynode *y, uint8_t *out, const char *what)
{
	char path[PATHN];
	if (list_of(p, y, 16, what))
		return AF_EINVAL;
	if (y->n != 16)
		return af_y_error(p->d, y, "%s: expected 16 values (a 4x4 matrix)", what);
	for (unsigned i = 0; i < 16; i++) {
		uint32_t b = 0; /* set when get_f32 succeeds; gcc cannot see it once inlined */
		if (get_f32(p, &y->items[i], &b, at(path, "%s[%u]", what, i)))
			return AF_EINVAL;
		memcpy(out + 4 * i, (uint8_t[4]){ (uint8_t)b, (uint8_t)(b >> 8), (uint8_t)(b >> 16),
						 (uint8_t)(b >> 24) }, 4);
	}
	return 0;
}

static void put32(uint8_t *q, uint32_t v)
{
	q[0] = (uint8_t)v, q[1] = (uint8_t)(v >> 8), q[2] = (uint8_t)(v >> 16), q[3] = (uint8_t)(v >> 24);
}

static int pay_field(struct ps *p, const struct af_ynode *m, const struct clip_event *e,
		     const struct clip_field *f, uint8_t *q, const char *what)
{
	const struct af_ynode *y = af_ymap_get(m, f->key);
	char path[PATHN];
	uint32_t w = 0;
	uint64_t v = 0;
	at(path, "%s.%s", what, f->key);
	if (f->kind == CLIP_FK_SOUND)
		return sound_field(p, m, e, q, what);
	if (!y && f->kind != CLIP_FK_U32 && f->kind != CLIP_FK_U64)
		return af_y_error(p->d, m, "%s: missing key '%s'", what, f->key);
	switch (f->kind) {
	case CLIP_FK_H32:
		if (get_h32(p, y, &w, path))
			return AF_EINVAL;
		break;
	case CLIP_FK_U32:
		if (y && get_uint(p, y, UINT32_MAX, &v, path))
			return AF_EINVAL;
		w = (uint32_t)v;
		break;
	case CLIP_FK_F32:
		if (get_f32(p, y, &w, path))
			return AF_EINVAL;
		break;
	case CLIP_FK_U64: /* effect_key: FNV-1 64 of the name unless given (12.8) */
		v = af_fnv1_64_lower(e->name, e->name_len);
		if (y && get_uint(p, y, UINT64_MAX, &v, path))
			return AF_EINVAL;
		put32(q, (uint32_t)v);
		put32(q + 4, (uint32_t)(v >> 32));
		return 0;
	case CLIP_FK_MAT:
		return mat_field(p, y, q, path);
	}
	put32(q, w);
	return 0;
}

/* Every real event lies within the clip (spec 8); half a tick of slack for f32 times. */
static void warn_time(struct ps *p, const struct af_ynode *y, uint32_t bits, const char *what)
{
	double t = af_f32_from_bits(bits), tl = af_f32_from_bits(p->c->tick_length);
	double end = p->c->num_ticks ? (p->c->num_ticks - 1) * tl : 0;
	if (isfinite(tl) && tl > 0 && !(t >= -tl / 2 && t <= end + tl / 2))
		af_y_warn(p->d, y, "%s: time %g s is outside the clip (0 to %g s)", what, t, end);
}

static int parse_event(struct ps *p, const struct af_ynode *m, struct clip_event *e,
		       const char *what)
{
	const struct af_ynode *y;
	const struct clip_ev_kind *k;
	uint32_t tag = CLIP_EV_TAG;
	uint8_t *pay = NULL;
	if (keys(p, m, clip_sch_event, what) || !(y = af_y_need(p->d, m, "type", what)) ||
	    af_y_want(p->d, y, AF_YSCALAR, what))
		return AF_EINVAL;
	if (!(k = clip_ev_kind_by_name(y->str, y->len)))
		return af_y_error(p->d, y, "%s: unknown event type '%.40s' (Parent, Unparent, Sound, "
				  "Script, Effect, Visibility, DestroyProp, StopEffect)", what, y->str);
	e->type = k->type;
	e->unknown1 = e->unknown2 = af_f32_bits(-1.0f);
	e->unknown3 = 3;
	if (kind_keys(p, m, k, what) || !(y = af_y_need(p->d, m, "name", what)) ||
	    get_text(p, y, 0xFFFF, &e->name, &e->name_len, what) ||
	    !(y = af_y_need(p->d, m, "time", what)) || get_f32(p, y, &e->time, what) ||
	    opt_uint(p, m, "id", UINT32_MAX, &e->id, what) ||
	    opt_f32(p, m, "unknown1", &e->unknown1, what) ||
	    opt_f32(p, m, "unknown2", &e->unknown2, what) ||
	    opt_uint(p, m, "unknown3", UINT32_MAX, &e->unknown3, what) ||
	    opt_uint(p, m, "tag", 0xFFFF, &tag, what))
		return AF_EINVAL;
	e->tag = (uint16_t)tag;
	warn_time(p, af_ymap_get(m, "time"), e->time, what);
	e->pay_len = clip_ev_pay_size(k);
	if (e->pay_len && !(pay = af_arena_alloc(p->a, e->pay_len)))
		return oom(p);
	e->pay = e->pay_len ? pay : NULL;
	for (const struct clip_field *f = k->f; f->key; f++) {
		if (pay_field(p, m, e, f, pay, what))
			return AF_EINVAL;
		pay += clip_field_size(f->kind);
	}
	return 0;
}

static int parse_events(struct ps *p, const struct af_ynode *y)
{
	struct clip *c = p->c;
	char path[PATHN];
	if (list_of(p, y, 0xFFFFFF, "events"))
		return AF_EINVAL;
	c->nev = (uint32_t)y->n;
	if (c->nev && !(c->ev = af_arena_array(p->a, c->nev, sizeof(*c->ev))))
		return oom(p);
	for (uint32_t i = 0; i < c->nev; i++)
		if (parse_event(p, &y->items[i], &c->ev[i], at(path, "events[%u]", i)))
			return AF_EINVAL;
	return 0;
}

/* ------------------------------------------------------------ frames (5.5, 12) */

static int get_enum(struct ps *p, const struct af_ynode *y, int (*by_name)(const char *, size_t),
		    uint8_t *out, const char *what, const char *noun)
{
	uint64_t v;
	int id;
	if (af_y_want(p->d, y, AF_YSCALAR, what))
		return AF_EINVAL;
	if ((id = by_name(y->str, y->len)) >= 0) {
		*out = (uint8_t)id;
		return 0;
	}
	if (af_parse_u64(y->str, y->len, &v) || v > 255)
		return af_y_error(p->d, y, "%s: unknown %s '%.40s'", what, noun, y->str);
	*out = (uint8_t)v;
	return 0;
}

static int frame_values(struct ps *p, const struct clip_type *t, const struct af_ynode *vs,
			struct pf *f, const char *what)
{
	char path[PATHN];
	unsigned want = t->layout == CLIP_CONST ? 0 : t->ncomp;
	if (af_y_want(p->d, vs, AF_YSEQ, what))
		return AF_EINVAL;
	if (vs->n != want)
		return af_y_error(p->d, vs, "%s: expected %u value%s", what, want, want == 1 ? "" : "s");
	for (unsigned j = 0; j < want; j++) {
		uint32_t b = 0;
		f->vn[j] = &vs->items[j];
		if (get_f32(p, &vs->items[j], &b, at(path, "%s.v[%u]", what, j)))
			return AF_EINVAL;
		f->v[j] = af_f32_from_bits(b);
	}
	return 0;
}

static int frame_map(struct ps *p, const struct clip_type *t, const struct af_ynode *m,
		     struct pf *f, const char *what)
{
	const struct af_ynode *y;
	char path[PATHN];
	uint64_t v;
	if (keys(p, m, clip_sch_frame, what) || !(y = af_y_need(p->d, m, "v", what)) ||
	    frame_values(p, t, y, f, what))
		return AF_EINVAL;
	if ((y = af_ymap_get(m, "flags"))) {
		if (get_uint(p, y, 0xFFFF, &v, at(path, "%s.flags", what)))
			return AF_EINVAL;
		if ((v & 0xF) >> t->ncomp)
			return af_y_error(p->d, y, "%s: sign bits 0x%X set for components the channel "
					  "does not have", what, (unsigned)(v & 0xF & ~((1u << t->ncomp) - 1)));
		f->flags = (uint16_t)v;
		f->has_flags = 1;
	}
	if ((y = af_ymap_get(m, "codes"))) {
		if (list_of(p, y, 4, what))
			return AF_EINVAL;
		if (y->n != t->ncomp || t->layout == CLIP_CONST)
			return af_y_error(p->d, y, "%s: expected %u codes", what,
					  t->layout == CLIP_CONST ? 0 : t->ncomp);
		for (unsigned j = 0; j < y->n; j++) {
			uint64_t lim = t->layout == CLIP_PALETTE ? (p->c->npal ? p->c->npal - 1 : 0) : t->max;
			if (get_uint(p, &y->items[j], 0xFFFF, &v, at(path, "%s.codes[%u]", what, j)))
				return AF_EINVAL;
			if (v > lim || (t->layout == CLIP_PALETTE && !p->c->npal))
				return af_y_error(p->d, &y->items[j], "%s: code %llu does not fit (at most %llu)",
						  path, (unsigned long long)v, (unsigned long long)lim);
			f->codes[j] = (uint16_t)v;
		}
		f->has_codes = 1;
	}
	return 0;
}

static int parse_frame(struct ps *p, const struct clip_type *t, const struct af_ynode *k,
		       const struct af_ynode *val, struct pf *f, const char *what)
{
	uint64_t tick;
	memset(f, 0, sizeof(*f));
	f->node = k;
	if (get_uint(p, k, 0xFFFF, &tick, what))
		return AF_EINVAL;
	f->tick = (uint16_t)tick;
	if (tick >= p->c->num_ticks)
		return af_y_error(p->d, k, "%s: num_ticks is %u, but a frame is at tick %llu", what,
				  p->c->num_ticks, (unsigned long long)tick);
	return val->type == AF_YMAP ? frame_map(p, t, val, f, what) : frame_values(p, t, val, f, what);
}

/* Whether codes c with flags fl decode (5.6) to exactly the frame's values. */
static int decodes_to(const struct clip *c, const struct clip_chan *ch, const struct clip_type *t,
		      const uint16_t *codes, uint16_t fl, const struct pf *f)
{
	struct clip_frame fr = { f->tick, fl, { codes[0], codes[1], codes[2], codes[3] } };
	for (unsigned j = 0; j < t->ncomp && t->layout != CLIP_CONST; j++)
		if (af_f32_bits((float)clip_value(c, ch, &fr, j)) != af_f32_bits(f->v[j]))
			return 0;
	return 1;
}

/* Rule 12.2 (12.4 for palette channels: an equal entry, never a new one). */
static int quantize(const struct clip *c, const struct clip_chan *ch, const struct clip_type *t,
		    const struct pf *f, uint16_t *codes, uint16_t *signs)
{
	*signs = 0;
	for (unsigned j = 0; j < t->ncomp && t->layout != CLIP_CONST; j++) {
		int neg = 0;
		if (t->layout == CLIP_PALETTE) {
			uint32_t i;
			for (i = 0; i < c->npal; i++) {
				struct clip_frame fr = { 0, 0, { 0 } };
				fr.code[j] = (uint16_t)i;
				if (af_f32_bits((float)clip_value(c, ch, &fr, j)) == af_f32_bits(f->v[j]))
					break;
				fr.flags = (uint16_t)(1u << j);
				if (af_f32_bits((float)clip_value(c, ch, &fr, j)) == af_f32_bits(f->v[j])) {
					neg = 1;
					break;
				}
			}
			if (i >= c->npal || i > 0xFFFF)
				return (int)j + 1;
			codes[j] = (uint16_t)i;
		} else if (clip_quantize(ch, t, f->v[j], &codes[j], &neg)) {
			return (int)j + 1;
		}
		*signs |= (uint16_t)(neg << j);
	}
	return 0;
}

static int range_error(struct ps *p, const struct clip_chan *ch, const struct clip_type *t,
		       const struct pf *f, int j, const char *what)
{
	char v[AF_NUM_MAX], o[AF_NUM_MAX], s[AF_NUM_MAX];
	af_fmt_f32(v, f->v[j]);
	af_fmt_f32(o, af_f32_from_bits(ch->offset));
	af_fmt_f32(s, fabsf(af_f32_from_bits(ch->scale)));
	if (t->layout == CLIP_PALETTE)
		return af_y_error(p->d, f->vn[j], "%s.v[%d]: %s is no palette value of this channel "
				  "(new palette entries are not added)", what, j, v);
	return af_y_error(p->d, f->vn[j], "%s.v[%d]: %s is outside %s +- %s, the channel's range; "
			  "change offset/scale or set refit: true on the channel (docs/sims3-clip.md)",
			  what, j, v, o, s);
}

/* The codes of one parsed frame (rules 12.1 and 12.2). */
static int choose_codes(struct ps *p, const struct clip_chan *ch, const struct clip_type *t,
			const struct pf *f, struct clip_frame *out, const char *what)
{
	uint16_t codes[4] = { 0 }, signs;
	int bad = quantize(p->c, ch, t, f, codes, &signs);
	out->tick = f->tick;
	if (f->has_codes && decodes_to(p->c, ch, t, f->codes, f->flags, f)) {
		memcpy(out->code, f->codes, sizeof(out->code));
		out->flags = f->flags;
		return 0;
	}
	if (bad)
		return range_error(p, ch, t, f, bad - 1, what);
	memcpy(out->code, codes, sizeof(out->code));
	if (f->has_flags && decodes_to(p->c, ch, t, codes, f->flags, f)) {
		out->flags = f->flags; /* the stored signs (of zero codes too) and bits 4-15 */
		return 0;
	}
	out->flags = (uint16_t)((f->flags & 0xFFF0) | signs);
	return 0;
}

/* Whether, with the channel as it is now, every frame i fits (fit[i], when fit) and
 * frame i decodes to its value exactly (exact[i]); the number of frames that fit. */
static uint32_t fits(const struct clip *c, const struct clip_chan *ch, const struct clip_type *t,
		     const struct pf *f, uint32_t n, uint8_t *exact)
{
	uint32_t in = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint16_t codes[4], signs;
		int ok = !quantize(c, ch, t, &f[i], codes, &signs);
		in += ok;
		exact[i] = ok && decodes_to(c, ch, t, codes, signs, &f[i]);
	}
	return in;
}

/* Rule 12.3, first way: when some value is out of the channel's range but every value
 * fits once the offset moves by a whole number of steps (scale / max), the offset moves
 * and the scale stays, so every other frame keeps its code and its value to within the
 * new offset's rounding (far below a step), and the edited values take their nearest
 * code. Of the moves that hold every value (the fewest steps first, 64 at most, each
 * with the float nearest the new offset and its neighbours) the one that keeps the most
 * frames' printed values exactly wins (a float offset rarely keeps them all: the others
 * move by its rounding, half a float step of the offset), if it keeps at least half.
 * 0 when done, 1 when no such move exists (ch as it was), or AF_ENOMEM. */
static int shift_offset(struct ps *p, struct clip_chan *ch, const struct clip_type *t,
			const struct pf *f, uint32_t n, const char *what)
{
	double off = af_f32_from_bits(ch->offset), sc = fabs((double)af_f32_from_bits(ch->scale));
	double step = sc / t->max, lo = INFINITY, hi = -INFINITY, best_k = 0;
	uint32_t old = ch->offset, best = 0, kept = 0, best_same = 0;
	uint8_t *was = NULL, *now = NULL;
	int found = 0;
	if (t->layout == CLIP_PALETTE || t->layout == CLIP_CONST || !(step > 0) || !isfinite(off))
		return 1;
	for (uint32_t i = 0; i < n; i++)
		for (unsigned j = 0; j < t->ncomp; j++) {
			double c = ((double)f[i].v[j] - off) / step;
			lo = fmin(lo, c);
			hi = fmax(hi, c);
		}
	/* moves k: every value within max steps of the new offset (rounded to a code) */
	double kmin = ceil(hi - t->max - 0.5), kmax = floor(lo + t->max + 0.5);
	if (!isfinite(kmin) || !isfinite(kmax) || kmin > kmax || fabs(kmin) > 1e9 || fabs(kmax) > 1e9)
		return 1;
	if (!(was = af_alloc_zeroed(n, 2)))
		return oom(p);
	now = was + n;
	if (fits(p->c, ch, t, f, n, was) == n)
		goto out; /* nothing out of range: refit recomputes the range as asked */
	for (uint32_t i = 0; i < n; i++)
		kept += was[i];
	/* the fewest steps first: from the end of [kmin, kmax] nearest 0 */
	double k0 = kmin > 0 ? kmin : kmax < 0 ? kmax : 0, dir = kmin > 0 ? 1 : -1;
	for (int tries = 0; tries < 64 && best_same < kept; tries++) {
		/* from k0 away from 0; from 0 (a rounding edge): 0, 1, -1, 2, -2, ... */
		double k = k0 ? k0 + dir * tries : (tries + 1) / 2 * (tries % 2 ? 1.0 : -1.0);
		if (k < kmin || k > kmax)
			continue;
		float o = (float)(off + k * step);
		for (int u = 0; u < 5; u++) { /* o, then its float neighbours */
			float oo = o;
			for (int m = 0; m < (u + 1) / 2; m++)
				oo = nextafterf(oo, u % 2 ? INFINITY : -INFINITY);
			ch->offset = af_f32_bits(oo);
			if (fits(p->c, ch, t, f, n, now) != n)
				continue;
			uint32_t same = 0;
			for (uint32_t i = 0; i < n; i++)
				same += was[i] && now[i];
			if (!found || same > best_same) {
				found = 1;
				best = ch->offset;
				best_same = same;
				best_k = k;
			}
		}
	}
	/* worth it when it keeps at least half of them: else the range from the values
	 * (which keeps about as few, with a finer step) */
	found = found && best_same * 2 >= kept;
	if (found) {
		char os[AF_NUM_MAX];
		ch->offset = best;
		af_fmt_f32(os, af_f32_from_bits(best));
		af_y_warn(p->d, f[0].node, "%s: offset moved by %.0f step(s) to %s, scale kept (refit): "
			  "%u of the %u frames in range keep their values exactly, the others move by "
			  "the new offset's rounding", what, best_k, os, best_same, kept);
	}
out:
	if (!found)
		ch->offset = old;
	free(was);
	return !found;
}

/* Rule 12.3: the offset moved by whole steps when that holds every value (above), else
 * offset and scale from the channel's values, scale grown until all fit. */
static int refit(struct ps *p, struct clip_chan *ch, const struct clip_type *t,
		 const struct pf *f, uint32_t n, const char *what)
{
	int moved = shift_offset(p, ch, t, f, n, what);
	if (moved <= 0)
		return moved;
	double lo = INFINITY, hi = -INFINITY;
	for (uint32_t i = 0; i < n; i++)
		for (unsigned j = 0; j < t->ncomp; j++) {
			lo = fmin(lo, f[i].v[j]);
			hi = fmax(hi, f[i].v[j]);
		}
	if (!n || !isfinite(lo) || !isfinite(hi))
		return 0;
	float off = (float)((lo + hi) / 2), sc = (float)((hi - lo) / 2);
	if (sc == 0)
		sc = 1.0f;
	ch->offset = af_f32_bits(off);
	for (int step = 0; step < 64; step++) {
		uint16_t codes[4], signs;
		uint32_t i;
		ch->scale = af_f32_bits(sc);
		for (i = 0; i < n && !quantize(p->c, ch, t, &f[i], codes, &signs); i++)
			;
		if (i == n) {
			char o[AF_NUM_MAX], s[AF_NUM_MAX];
			af_fmt_f32(o, off);
			af_fmt_f32(s, sc);
			af_y_warn(p->d, f[0].node, "%s: re-quantised every frame with offset %s, scale %s "
				  "(refit)", what, o, s);
			return 0;
		}
		sc = nextafterf(sc, INFINITY);
	}
	return af_y_error(p->d, f[0].node, "%s: refit found no scale that holds every value", what);
}

/* Quaternions are stored as four components and never normalised (12.7): say so when an
 * edited one is far from unit length (every real frame is within 0.0004). */
static int warn_rotation(struct ps *p, const struct clip_type *t, const struct pf *f,
			 const char *what)
{
	double len = 0;
	if (t->layout != CLIP_U16X4)
		return 0;
	for (unsigned j = 0; j < 4; j++)
		len += (double)f->v[j] * f->v[j];
	if (fabs(sqrt(len) - 1.0) <= 0.01)
		return 0;
	af_y_warn(p->d, f->node, "%s: the rotation's length is %.4f, not 1", what, sqrt(len));
	return 1;
}

static int parse_frames(struct ps *p, struct clip_chan *ch, const struct clip_type *t,
			const struct af_ynode *fr, int do_refit, const char *what)
{
	char path[PATHN];
	struct pf *f;
	if (!fr || af_y_is_null(fr))
		return 0;
	if (af_y_want(p->d, fr, AF_YMAP, at(path, "%s.frames", what)))
		return AF_EINVAL;
	if (fr->n > 0xFFFF)
		return af_y_error(p->d, fr, "%s: %zu frames; at most 65535", what, (size_t)fr->n);
	ch->nframes = (uint32_t)fr->n;
	if (!ch->nframes)
		return 0;
	if (!(ch->f = af_arena_array(p->a, ch->nframes, sizeof(*ch->f))) ||
	    !(f = af_alloc_zeroed(ch->nframes, sizeof(*f))))
		return oom(p);
	int rc = 0;
	for (uint32_t i = 0; i < ch->nframes && !rc; i++) {
		at(path, "%s.frames[%u]", what, i);
		rc = parse_frame(p, t, &fr->items[2 * i], &fr->items[2 * i + 1], &f[i], path);
		if (!rc && i && f[i].tick <= f[i - 1].tick)
			rc = af_y_error(p->d, f[i].node, "%s: tick %u is not after tick %u", path,
					f[i].tick, f[i - 1].tick);
	}
	if (!rc && f[0].tick)
		af_y_warn(p->d, f[0].node, "%s: the first frame is at tick %u, not 0", what, f[0].tick);
	if (!rc && do_refit) {
		for (uint32_t i = 0; i < ch->nframes; i++)
			f[i].has_codes = f[i].has_flags = 0, f[i].flags &= 0xFFF0;
		rc = refit(p, ch, t, f, ch->nframes, what);
	}
	int warned = 0; /* one rotation warning a channel is enough */
	for (uint32_t i = 0; i < ch->nframes && !rc; i++) {
		at(path, "%s.frames[%u]", what, i);
		rc = choose_codes(p, ch, t, &f[i], &ch->f[i], path);
		if (!rc && !warned)
			warned = warn_rotation(p, t, &f[i], path);
	}
	free(f);
	return rc;
}

static int parse_raw(struct ps *p, struct clip_chan *ch, const struct af_ynode *m, const char *what)
{
	const struct af_ynode *y;
	struct af_buf b = AF_BUF_INIT;
	char path[PATHN];
	uint8_t *raw;
	if (af_ymap_get(m, "frames") || af_ymap_get(m, "refit"))
		return af_y_error(p->d, m, "%s: channel type %u has no known frame layout; it keeps "
				  "raw_frames and frame_count", what, ch->type);
	if (!(y = af_y_need(p->d, m, "raw_frames", what)) ||
	    af_y_get_hex(p->d, y, &b, at(path, "%s.raw_frames", what)) ||
	    opt_uint(p, m, "frame_count", 0xFFFF, &ch->nframes, what)) {
		af_buf_free(&b);
		return AF_EINVAL;
	}
	raw = b.len ? af_arena_alloc(p->a, b.len) : NULL;
	if (b.len && !raw) {
		af_buf_free(&b);
		return oom(p);
	}
	if (b.len)
		memcpy(raw, b.data, b.len);
	ch->raw = raw;
	ch->raw_len = b.len;
	af_buf_free(&b);
	return 0;
}

static int parse_channel(struct ps *p, const struct af_ynode *m, struct clip_chan *ch,
			 const char *what)
{
	const struct af_ynode *y;
	const struct clip_type *t;
	int do_refit = 0;
	if (keys(p, m, clip_sch_channel, what) || !(y = af_y_need(p->d, m, "target", what)) ||
	    get_h32(p, y, &ch->target, what) || !(y = af_y_need(p->d, m, "type", what)) ||
	    get_enum(p, y, clip_type_by_name, &ch->type, what, "channel type") ||
	    !(y = af_y_need(p->d, m, "sub_target", what)) ||
	    get_enum(p, y, clip_sub_by_name, &ch->sub, what, "sub-target") ||
	    !(y = af_y_need(p->d, m, "offset", what)) || get_f32(p, y, &ch->offset, what) ||
	    !(y = af_y_need(p->d, m, "scale", what)) || get_f32(p, y, &ch->scale, what))
		return AF_EINVAL;
	t = clip_type(ch->type);
	if (t->layout == CLIP_RAW)
		return parse_raw(p, ch, m, what);
	if (af_ymap_get(m, "raw_frames") || af_ymap_get(m, "frame_count"))
		return af_y_error(p->d, m, "%s: raw_frames and frame_count are for channels of "
				  "unknown layout only; this one has frames", what);
	if ((y = af_ymap_get(m, "refit"))) {
		if (y->type != AF_YSCALAR || (strcmp(y->str, "true") && strcmp(y->str, "false")))
			return af_y_error(p->d, y, "%s.refit: expected true or false", what);
		do_refit = !strcmp(y->str, "true");
		if (do_refit && (t->layout == CLIP_PALETTE || t->layout == CLIP_CONST))
			return af_y_error(p->d, y, "%s.refit: only quantised channels can be refit", what);
	}
	return parse_frames(p, ch, t, af_ymap_get(m, "frames"), do_refit, what);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Spec 14: two channels that drive the same thing of one target are allowed, but odd. */
static int warn_twins(struct ps *p, const struct af_ynode *y)
{
	const struct clip *c = p->c;
	uint64_t *k;
	size_t twins = 0;
	if (c->nchan < 2)
		return 0;
	if (!(k = af_alloc(c->nchan * sizeof(*k))))
		return oom(p);
	for (uint32_t i = 0; i < c->nchan; i++)
		k[i] = (uint64_t)c->ch[i].target << 8 | c->ch[i].sub;
	qsort(k, c->nchan, sizeof(*k), cmp_u64);
	for (uint32_t i = 1; i < c->nchan; i++)
		twins += k[i] == k[i - 1];
	if (twins)
		af_y_warn(p->d, y, "channels: %zu channel(s) with the same target and sub_target as "
			  "another", twins);
	free(k);
	return 0;
}

static int parse_channels(struct ps *p, const struct af_ynode *y)
{
	struct clip *c = p->c;
	char path[PATHN];
	unsigned last = 0;
	int any = 0;
	if (list_of(p, y, 0xFFFFFF, "channels"))
		return AF_EINVAL;
	c->nchan = (uint32_t)y->n;
	if (c->nchan && !(c->ch = af_arena_array(p->a, c->nchan, sizeof(*c->ch))))
		return oom(p);
	for (uint32_t i = 0; i < c->nchan; i++) {
		struct clip_chan *ch = &c->ch[i];
		if (parse_channel(p, &y->items[i], ch, at(path, "channels[%u]", i)))
			return AF_EINVAL;
		if (ch->nframes && ch->f) {
			any = 1;
			last = ch->f[ch->nframes - 1].tick > last ? ch->f[ch->nframes - 1].tick : last;
		}
	}
	if (warn_twins(p, y))
		return AF_ENOMEM;
	if (any && last + 1u != c->num_ticks)
		af_diag_warn(p->d, 0, 0, "num_ticks is %u, not the last frame's tick + 1 (%u)",
			     c->num_ticks, last + 1u);
	return 0;
}

int clip_parse(const struct af_ynode *root, struct clip *c, struct af_arena *a,
	       const char ***names, size_t *nnames, struct af_diag *d)
{
	struct ps p = { d, a, c, NULL, 0, 0 };
	const struct af_ynode *y;
	int rc;
	memset(c, 0, sizeof(*c));
	c->version = 2;
	c->ev_version = 0x103;
	c->end[3] = af_f32_bits(1.0f);
	*names = NULL;
	*nnames = 0;
	if ((rc = parse_head(&p, root)))
		goto out;
	if (!(y = af_y_need(d, root, "ik_chains", "the document")) || (rc = parse_ik(&p, y)) ||
	    !(y = af_y_need(d, root, "events", "the document")) || (rc = parse_events(&p, y)) ||
	    !(y = af_y_need(d, root, "channels", "the document")) || (rc = parse_channels(&p, y))) {
		rc = rc ? rc : AF_EINVAL;
		goto out;
	}
	if (p.nnames) {
		const char **keep = af_arena_array(a, p.nnames, sizeof(*keep));
		if (!keep) {
			rc = oom(&p);
			goto out;
		}
		memcpy(keep, p.names, p.nnames * sizeof(*keep));
		*names = keep;
		*nnames = p.nnames;
	}
out:
	free(p.names);
	return rc;
}
