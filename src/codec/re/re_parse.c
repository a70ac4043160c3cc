/* YAML tree -> model for RE2/RE3 models, with every check of spec section 8 that can
 * be made from the document: errors name line:col and the YAML path. The carried
 * sections ('data') are read first so that pose references into an opaque 7-bone
 * pool can be checked against its record count. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "re.h"
#include "animfs/bytes.h"

struct pctx {
	struct af_diag *d;
	struct af_arena *a;
	const struct re_layout *lay;
	unsigned game;
	const struct af_ynode *role[16]; /* data[].role per section */
};

#define AF_RE_PATH 256

/* YAML path text ("banks[0].keyframes[7].angles"); long paths are cut, never overrun. */
static void jp(char *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void jp(char *out, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(out, AF_RE_PATH, fmt, ap);
	va_end(ap);
}

#define NOMEM(c) af_diag_error((c)->d, AF_ENOMEM, "out of memory")

static int is_word(const struct af_ynode *n, const char *w)
{
	return n && n->type == AF_YSCALAR && !strcmp(n->str, w);
}

/* A list, or the word 'none' for an empty one (what the emitter writes). */
static int want_list(struct pctx *c, const struct af_ynode *n, const char *what, size_t *count)
{
	*count = 0;
	if (is_word(n, "none"))
		return AF_OK;
	int rc = af_y_want(c->d, n, AF_YSEQ, what);
	if (!rc)
		*count = n->n;
	return rc;
}

static int get_i16(struct pctx *c, const struct af_ynode *n, int16_t *out, const char *what)
{
	int64_t v;
	int rc = af_y_get_i64(c->d, n, INT16_MIN, INT16_MAX, &v, what);
	if (!rc)
		*out = (int16_t)v;
	return rc;
}

static int get_triple(struct pctx *c, const struct af_ynode *n, int16_t out[3], const char *what)
{
	char p[AF_RE_PATH];
	int rc = af_y_want(c->d, n, AF_YSEQ, what);
	if (!rc && n->n != 3)
		rc = af_y_error(c->d, n, "%s: expected [x, y, z], found %zu values", what, (size_t)n->n);
	for (int i = 0; !rc && i < 3; i++) {
		jp(p, "%s[%d]", what, i);
		rc = get_i16(c, &n->items[i], &out[i], p);
	}
	return rc;
}

/* A map's keys must be those of its table in re_schema.c (the schema's own); a known key
 * that does not apply where it is gets refused too, with why: a key that would be ignored
 * is an error, never silently dropped. */
static int check_keys(struct pctx *c, const struct af_ynode *map,
		      const struct af_sch_prop *props, const char *what)
{
	return af_sch_check_keys(c->d, props, map, what);
}

static int refuse_key(struct pctx *c, const struct af_ynode *map, const char *key,
		      const char *what, const char *why)
{
	for (size_t i = 0; i < map->n; i++) {
		const struct af_ynode *k = &map->items[2 * i];
		if (k->type == AF_YSCALAR && !strcmp(k->str, key))
			return af_y_error(c->d, k, "%s: '%s' %s", what, key, why);
	}
	return AF_OK;
}

/* A bank's keys other than those of keep are refused. */
static int refuse_bank_keys(struct pctx *c, const struct af_ynode *map,
			    const char *const *keep, const char *what, const char *why)
{
	for (const struct af_sch_prop *p = re_bank_props; p->key; p++) {
		int kept = 0;
		for (const char *const *k = keep; *k; k++)
			kept |= !strcmp(*k, p->key);
		int rc = kept ? AF_OK : refuse_key(c, map, p->key, what, why);
		if (rc)
			return rc;
	}
	return AF_OK;
}

static const char *const verbatim_only[] = { "bank", "name", "sections", "verbatim", NULL };
static const char *const empty_only[] = { "bank", "name", "sections", "records", "keyframes",
					  "sequences", NULL };

static int get_u(struct pctx *c, const struct af_ynode *m, const char *key, uint64_t max,
		 uint64_t *out, const char *path)
{
	char p[AF_RE_PATH];
	jp(p, "%s.%s", path, key);
	const struct af_ynode *n = af_y_need(c->d, m, key, path);
	return n ? af_y_get_u64(c->d, n, max, out, p) : AF_EINVAL;
}

/* ---------------------------------------------------------------- data */

static int parse_blob(struct pctx *c, const struct af_ynode *e, size_t i, struct re_file *f,
		      unsigned char *seen)
{
	char path[AF_RE_PATH];
	uint64_t sec, len;
	struct af_buf bytes = AF_BUF_INIT;
	int rc;
	jp(path, "data[%zu]", i);
	if ((rc = af_y_want(c->d, e, AF_YMAP, path)) ||
	    (rc = check_keys(c, e, re_data_props, path)) ||
	    (rc = get_u(c, e, "section", c->lay->nsec - 1u, &sec, path)) ||
	    (rc = get_u(c, e, "length", UINT32_MAX, &len, path)))
		return rc;
	const struct af_ynode *rn = af_y_need(c->d, e, "role", path);
	if (!rn || af_y_want(c->d, rn, AF_YSCALAR, path))
		return AF_EINVAL;
	if (seen[sec])
		return af_y_error(c->d, e, "%s: section %llu appears twice", path,
				  (unsigned long long)sec);
	seen[sec] = 1;
	c->role[sec] = rn;
	const struct af_ynode *hx = af_ymap_get(e, "hex"), *b64 = af_ymap_get(e, "base64");
	if (!hx == !b64)
		return af_y_error(c->d, e, "%s: give the bytes as exactly one of 'hex' or "
				  "'base64'", path);
	if (hx)
		rc = af_y_get_hex(c->d, hx, &bytes, path);
	else
		rc = af_y_get_base64(c->d, b64, &bytes, path);
	if (!rc && bytes.len != len)
		rc = af_y_error(c->d, hx ? hx : b64, "%s: %s gives %zu bytes, expected %llu",
				path, hx ? "hex" : "base64", bytes.len, (unsigned long long)len);
	if (!rc) {
		uint8_t *copy = af_arena_alloc(c->a, bytes.len ? bytes.len : 1);
		if (!copy)
			rc = NOMEM(c);
		else {
			if (bytes.len)
				memcpy(copy, bytes.data, bytes.len);
			f->sec[sec].p = copy;
			f->sec[sec].len = bytes.len;
		}
	}
	af_buf_free(&bytes);
	return rc;
}

static int parse_data(struct pctx *c, const struct af_ynode *root, struct re_file *f,
		      unsigned char *seen)
{
	const struct af_ynode *data = af_y_need(c->d, root, "data", "top level");
	int rc = data ? af_y_want(c->d, data, AF_YSEQ, "data") : AF_EINVAL;
	for (size_t i = 0; !rc && i < data->n; i++)
		rc = parse_blob(c, &data->items[i], i, f, seen);
	return rc;
}

/* ---------------------------------------------------------------- skeleton */

static int parse_bone(struct pctx *c, const struct af_ynode *b, unsigned i, struct re_emr *m,
		      const char *path)
{
	char p[AF_RE_PATH];
	int64_t v;
	int rc;
	jp(p, "%s.skeleton[%u]", path, i);
	if ((rc = af_y_want(c->d, b, AF_YMAP, p)) || (rc = check_keys(c, b, re_bone_props, p)))
		return rc;
	const struct af_ynode *bn = af_ymap_get(b, "bone");
	if (bn) {
		char q[AF_RE_PATH];
		jp(q, "%s.bone", p);
		if ((rc = af_y_get_i64(c->d, bn, 0, 255, &v, q)))
			return rc;
		if (v != (int64_t)i)
			return af_y_error(c->d, bn, "%s: says bone %lld but is entry %u; bones are "
					  "numbered by their position", q, (long long)v, i);
	}
	const struct af_ynode *pn = af_y_need(c->d, b, "parent", p);
	char q[AF_RE_PATH];
	jp(q, "%s.parent", p);
	if (!pn || af_y_get_i64(c->d, pn, -1, m->nbones - 1, &v, q))
		return AF_EINVAL;
	m->parent[i] = (int)v;
	jp(q, "%s.relpos", p);
	const struct af_ynode *rn = af_y_need(c->d, b, "relpos", p);
	return rn ? get_triple(c, rn, m->relpos[i], q) : AF_EINVAL;
}

static int parse_skeleton(struct pctx *c, const struct af_ynode *bank, unsigned slot_flags,
			  struct re_emr *m, const char *path)
{
	const struct af_ynode *sk = af_y_need(c->d, bank, "skeleton", path);
	char p[AF_RE_PATH];
	int rc;
	if (!sk)
		return AF_EINVAL;
	jp(p, "%s.skeleton", path);
	if (is_word(sk, "none")) {
		uint64_t v;
		if ((rc = get_u(c, bank, "armature_offset", 0xFFFF, &v, path)))
			return rc;
		m->armature_offset = (uint16_t)v;
		return AF_OK;
	}
	if (slot_flags & RE_SLOT_HEADER_ONLY)
		return af_y_error(c->d, sk, "%s: this bank has no skeleton of its own (it "
				  "animates the PLD's); write 'skeleton: none'", p);
	if ((rc = refuse_key(c, bank, "armature_offset", path, "belongs to a header-only bank "
			     "(skeleton: none); a skeleton's offsets are rebuilt")))
		return rc;
	if ((rc = af_y_want(c->d, sk, AF_YSEQ, p)))
		return rc;
	if (sk->n != m->nbones)
		return af_y_error(c->d, sk, "%s: %zu bones but bone_count is %u", p, (size_t)sk->n,
				  m->nbones);
	m->has_skeleton = 1;
	m->relpos = af_arena_array(c->a, m->nbones, sizeof(*m->relpos));
	m->parent = af_arena_array(c->a, m->nbones, sizeof(*m->parent));
	if (!m->relpos || !m->parent)
		return NOMEM(c);
	for (unsigned i = 0; i < m->nbones; i++)
		if ((rc = parse_bone(c, &sk->items[i], i, m, path)))
			return rc;
	unsigned bad;
	const char *why;
	if (re_tree_check(m->parent, m->nbones, &bad, &why))
		return af_y_error(c->d, &sk->items[bad], "%s[%u]: bone %u is not part of a tree "
				  "rooted at bone 0: %s", p, bad, bad, why);
	return AF_OK;
}

/* ---------------------------------------------------------------- keyframes */

/* Three angles in degrees, quantized to 12-bit codes. */
static int get_degrees(struct pctx *c, const struct af_ynode *t, uint16_t *codes, const char *q)
{
	char r[AF_RE_PATH];
	int rc = af_y_want(c->d, t, AF_YSEQ, q);
	if (!rc && t->n != 3)
		return af_y_error(c->d, t, "%s: expected [x, y, z] in degrees, found %zu values",
				  q, (size_t)t->n);
	for (int x = 0; !rc && x < 3; x++) {
		double deg;
		jp(r, "%s[%d]", q, x);
		if ((rc = af_y_get_f64(c->d, &t->items[x], &deg, r)))
			break;
		if (re_deg_quantize(deg, &codes[x]))
			return af_y_error(c->d, &t->items[x], "%s: %s degrees is outside -360..360", r,
					  t->items[x].str);
	}
	return rc;
}

static int parse_angles(struct pctx *c, const struct af_ynode *an, struct re_pose *ps,
			unsigned n, const char *p)
{
	char q[AF_RE_PATH];
	int rc = af_y_want(c->d, an, AF_YSEQ, p);
	if (!rc && an->n != n)
		rc = af_y_error(c->d, an, "%s: %zu triples but bone_count is %u", p, (size_t)an->n, n);
	for (unsigned b = 0; !rc && b < n; b++) {
		jp(q, "%s[%u]", p, b);
		rc = get_degrees(c, &an->items[b], &ps->codes[3 * b], q);
	}
	return rc;
}

/* 'pose', when given, must be the entry's position: the sequences refer to positions. */
static int check_pose_number(struct pctx *c, const struct af_ynode *k, size_t i, const char *p)
{
	char q[AF_RE_PATH];
	uint64_t v;
	const struct af_ynode *pn = af_ymap_get(k, "pose");
	if (!pn)
		return AF_OK;
	jp(q, "%s.pose", p);
	int rc = af_y_get_u64(c->d, pn, UINT32_MAX, &v, q);
	if (!rc && v != i)
		rc = af_y_error(c->d, pn, "%s: says pose %llu but is entry %zu; poses are "
				"referenced by their position in the pool", q, (unsigned long long)v, i);
	return rc;
}

/* stray_bits: only in a pose whose keyframe had bits after its last angle; it must
 * fit the bits that keyframe_size leaves after the angles. */
static int parse_stray(struct pctx *c, const struct af_ynode *k, struct re_pose *ps,
		       unsigned n, unsigned ks, const char *p)
{
	char q[AF_RE_PATH];
	uint64_t v;
	const struct af_ynode *x = af_ymap_get(k, "stray_bits");
	if (!x)
		return AF_OK;
	unsigned width = re_stray_width(c->game, n, ks);
	jp(q, "%s.stray_bits", p);
	int rc = af_y_get_u64(c->d, x, UINT32_MAX, &v, q);
	if (!rc && width < 32 && v >> width)
		rc = af_y_error(c->d, x, "%s: %s does not fit in the %u bits that %u-byte keyframes "
				"leave after %u bones' angles", q, x->str, width, ks, n);
	if (!rc)
		ps->stray = (uint32_t)v;
	return rc;
}

static int parse_pose(struct pctx *c, const struct af_ynode *k, size_t i, struct re_pose *ps,
		      unsigned n, unsigned ks, const char *path)
{
	char p[AF_RE_PATH], q[AF_RE_PATH];
	int rc;
	jp(p, "%s.keyframes[%zu]", path, i);
	if ((rc = af_y_want(c->d, k, AF_YMAP, p)) || (rc = check_keys(c, k, re_key_props, p)) ||
	    (rc = refuse_key(c, k, c->game == RE_GAME2 ? "y_offset" : "offset", p,
			     c->game == RE_GAME2 ? "is RE3's (an RE2 pose has offset: [x, y, z])"
			     : "is RE2's (an RE3 pose has y_offset)")) ||
	    (rc = check_pose_number(c, k, i, p)))
		return rc;
	const struct af_ynode *x;
	if (c->game == RE_GAME2) {
		jp(q, "%s.offset", p);
		if (!(x = af_y_need(c->d, k, "offset", p)) || get_triple(c, x, ps->offset, q))
			return AF_EINVAL;
	}
	jp(q, "%s.motion", p);
	if (!(x = af_y_need(c->d, k, "motion", p)) || get_triple(c, x, ps->motion, q))
		return AF_EINVAL;
	if (c->game == RE_GAME3) {
		jp(q, "%s.y_offset", p);
		if (!(x = af_y_need(c->d, k, "y_offset", p)) || get_i16(c, x, &ps->y_offset, q))
			return AF_EINVAL;
	}
	if ((rc = parse_stray(c, k, ps, n, ks, p)))
		return rc;
	jp(q, "%s.angles", p);
	if (!(x = af_y_need(c->d, k, "angles", p)))
		return AF_EINVAL;
	ps->codes = af_arena_array(c->a, 3 * (size_t)n, sizeof(uint16_t));
	return ps->codes ? parse_angles(c, x, ps, n, q) : NOMEM(c);
}

/* One record of the 7-bone bank (re_rec7_props); every key is required. */
static int parse_record(struct pctx *c, const struct af_ynode *k, size_t i, struct re_rec7 *r,
			const char *path)
{
	char p[AF_RE_PATH], q[AF_RE_PATH];
	const struct af_ynode *x;
	int64_t v;
	int rc;
	jp(p, "%s.keyframes[%zu]", path, i);
	if ((rc = af_y_want(c->d, k, AF_YMAP, p)) || (rc = check_keys(c, k, re_rec7_props, p)) ||
	    (rc = check_pose_number(c, k, i, p)))
		return rc;
	jp(q, "%s.motion", p);
	if (!(x = af_y_need(c->d, k, "motion", p)) || get_triple(c, x, r->motion, q))
		return AF_EINVAL;
	jp(q, "%s.y_offset8", p);
	if (!(x = af_y_need(c->d, k, "y_offset8", p)) || get_i16(c, x, &r->y8, q))
		return AF_EINVAL;
	for (int leg = 0; leg < 2; leg++) {
		const char *side = leg ? "left" : "right";
		char key[24];
		snprintf(key, sizeof(key), "%s_unknown", side);
		jp(q, "%s.%s", p, key);
		if (!(x = af_y_need(c->d, k, key, p)) || af_y_get_i64(c->d, x, -2048, 4095, &v, q))
			return AF_EINVAL;
		r->v[4 * leg] = (uint16_t)(v & 0x0FFF);
		snprintf(key, sizeof(key), "%s_foot_angles", side);
		jp(q, "%s.%s", p, key);
		if (!(x = af_y_need(c->d, k, key, p)) || get_degrees(c, x, &r->v[4 * leg + 1], q))
			return AF_EINVAL;
		snprintf(key, sizeof(key), "%s_foot", side);
		jp(q, "%s.%s", p, key);
		if (!(x = af_y_need(c->d, k, key, p)) || get_triple(c, x, r->feet[leg], q))
			return AF_EINVAL;
	}
	return AF_OK;
}

static int parse_keyframes(struct pctx *c, const struct af_ynode *kn, const struct re_slot *sl,
			   struct re_emr *m, const struct re_sec *sec, int seven, const char *path)
{
	char p[AF_RE_PATH];
	int rc;
	jp(p, "%s.keyframes", path);
	if (is_word(kn, "opaque")) {
		if (!(sl->flags & RE_SLOT_SEVEN))
			return af_y_error(c->d, kn, "%s: only the 7-bone lower-body bank has an "
					  "opaque pool", p);
		if (!sec->p)
			return af_y_error(c->d, kn, "%s: the pool bytes are missing from 'data' "
					  "(role emr-pool)", p);
		if (sec->len % RE_SEVEN_RECORD)
			return af_y_error(c->d, kn, "%s: the opaque pool is %zu bytes, not a whole "
					  "number of 32-byte records", p, sec->len);
		m->opaque_pool = 1;
		m->pool = sec->p;
		m->pool_len = sec->len;
		m->nposes = sec->len / RE_SEVEN_RECORD;
		return AF_OK;
	}
	if ((rc = want_list(c, kn, p, &m->nposes)))
		return rc;
	if (seven) {
		m->recs = af_arena_array(c->a, m->nposes ? m->nposes : 1, sizeof(*m->recs));
		if (!m->recs)
			return NOMEM(c);
		for (size_t i = 0; i < m->nposes; i++)
			if ((rc = parse_record(c, &kn->items[i], i, &m->recs[i], path)))
				return rc;
		return AF_OK;
	}
	m->poses = af_arena_array(c->a, m->nposes ? m->nposes : 1, sizeof(*m->poses));
	if (!m->poses)
		return NOMEM(c);
	for (size_t i = 0; i < m->nposes; i++)
		if ((rc = parse_pose(c, &kn->items[i], i, &m->poses[i], m->nbones,
				     m->keyframe_size, path)))
			return rc;
	return AF_OK;
}

/* pool_tail: the bytes after the last whole keyframe (or 7-bone record), fewer than one. */
static int parse_tail(struct pctx *c, const struct af_ynode *bank, struct re_emr *m, int seven,
		      const char *path)
{
	char p[AF_RE_PATH];
	struct af_buf bytes = AF_BUF_INIT;
	const struct af_ynode *t = af_ymap_get(bank, "pool_tail");
	size_t unit = seven ? RE_SEVEN_RECORD : m->keyframe_size;
	if (!t)
		return AF_OK;
	jp(p, "%s.pool_tail", path);
	if (m->opaque_pool)
		return af_y_error(c->d, t, "%s: an opaque pool carries all of its bytes in 'data'",
				  p);
	int rc = af_y_get_hex(c->d, t, &bytes, p);
	if (!rc && (bytes.len == 0 || bytes.len >= unit))
		rc = af_y_error(c->d, t, "%s: %zu bytes; a tail holds 1 to %zu, fewer than one "
				"%zu-byte %s (more would be a %s of its own)", p, bytes.len, unit - 1,
				unit, seven ? "record" : "keyframe", seven ? "record" : "keyframe");
	if (!rc) {
		uint8_t *copy = af_arena_alloc(c->a, bytes.len);
		if (!copy)
			rc = NOMEM(c);
		else {
			memcpy(copy, bytes.data, bytes.len);
			m->tail = copy;
			m->tail_len = bytes.len;
		}
	}
	af_buf_free(&bytes);
	return rc;
}

static int parse_emr(struct pctx *c, const struct af_ynode *bank, const struct re_slot *sl,
		     struct re_emr *m, const struct re_sec *sec, const char *path)
{
	uint64_t v;
	int rc;
	const struct af_ynode *kn = af_y_need(c->d, bank, "keyframes", path);
	if (!kn)
		return AF_EINVAL;
	if (is_word(kn, "empty")) {
		m->empty = 1;
		return refuse_bank_keys(c, bank, empty_only, path, "does not apply to a bank "
					"with keyframes: empty (its EMR section is 4 zero bytes)");
	}
	if ((rc = get_u(c, bank, "bone_count", 0xFFFF, &v, path)))
		return rc;
	if (v < 1 || v > 256)
		return af_y_error(c->d, af_ymap_get(bank, "bone_count"), "%s.bone_count: %llu; "
				  "child lists hold u8 indices, 1 to at most 256 bones", path,
				  (unsigned long long)v);
	m->nbones = (uint16_t)v;
	if ((rc = get_u(c, bank, "keyframe_size", 0xFFFF, &v, path)))
		return rc;
	m->keyframe_size = (uint16_t)v;
	unsigned want = re_kf_size(c->game, m->nbones);
	/* the 7-bone bank declares 40-byte keyframes and holds 32-byte records (spec 5.8) */
	int seven = (sl->flags & RE_SLOT_SEVEN) && m->nbones == 7 && v == 40;
	if (!is_word(kn, "opaque") && !seven && v != want)
		return af_y_error(c->d, af_ymap_get(bank, "keyframe_size"), "%s.keyframe_size: %llu "
				  "does not match %u bones (expected %u)", path,
				  (unsigned long long)v, m->nbones, want);
	if ((rc = parse_skeleton(c, bank, sl->flags, m, path)) ||
	    (rc = parse_keyframes(c, kn, sl, m, sec, seven, path)))
		return rc;
	return parse_tail(c, bank, m, seven, path);
}

/* ---------------------------------------------------------------- sequences */

/* A flag name of the game (re_names.c) or a number. */
static int get_flags(struct pctx *c, const struct af_ynode *n, uint64_t *flags, const char *q)
{
	if (n->type != AF_YSCALAR || !((n->str[0] | 0x20) >= 'a' && (n->str[0] | 0x20) <= 'z'))
		return af_y_get_u64(c->d, n, c->game == RE_GAME3 ? 0xFF : 0xFFFFF, flags, q);
	const struct re_flag_name *f = re_flag_by_name(n->str);
	if (f && (f->games & 1u << c->game)) {
		*flags = f->value;
		return AF_OK;
	}
	char names[200];
	size_t at = 0;
	names[0] = 0;
	for (f = re_flag_names; f->name && at < sizeof(names); f++)
		if (f->games & 1u << c->game) {
			int w = snprintf(names + at, sizeof(names) - at, "%s%s", at ? ", " : "",
					 f->name);
			at += w > 0 ? (size_t)w : 0;
		}
	return af_y_error(c->d, n, "%s: '%.40s' is not a flag name of re%u (%s) nor a number",
			  q, n->str, c->game, names);
}

static int parse_frame(struct pctx *c, const struct af_ynode *fr, struct re_seq *s,
		       struct re_frame *out, size_t npos, const char *p)
{
	uint64_t pose, flags;
	char q[AF_RE_PATH];
	int rc = af_y_want(c->d, fr, AF_YSEQ, p);
	if (!rc && (fr->n < 2 || fr->n > 3))
		rc = af_y_error(c->d, fr, "%s: expected [pose, flags], found %zu values", p, (size_t)fr->n);
	if (!rc && fr->n == 3 && !is_word(&fr->items[2], "outside"))
		rc = af_y_error(c->d, &fr->items[2], "%s: a third value can only be 'outside' (a "
				"pose past the pool, kept as the file had it)", p);
	if (rc)
		return rc;
	/* 'outside': the pool check is waived, the pose's own range is not */
	if (fr->n == 3)
		npos = SIZE_MAX;
	jp(q, "%s pose", p);
	if ((rc = af_y_get_u64(c->d, &fr->items[0], UINT32_MAX, &pose, q)))
		return rc;
	jp(q, "%s flags", p);
	if ((rc = get_flags(c, &fr->items[1], &flags, q)))
		return rc;
	if (c->game == RE_GAME3) {
		if (pose > 255)
			return af_y_error(c->d, &fr->items[0], "%s: relative pose %llu is outside "
					  "the 256-pose window of pose_start %u (0..255)", p,
					  (unsigned long long)pose, s->pose_start);
		if (s->pose_start + pose >= npos)
			return af_y_error(c->d, &fr->items[0], "%s: pose %llu (pose_start %u + "
					  "%llu) is outside the keyframe pool (%zu poses)", p,
					  (unsigned long long)(s->pose_start + pose),
					  s->pose_start, (unsigned long long)pose, npos);
	} else {
		if (pose > 4095)
			return af_y_error(c->d, &fr->items[0], "%s: pose %llu does not fit in 12 bits "
					  "(0..4095)", p, (unsigned long long)pose);
		if (pose >= npos)
			return af_y_error(c->d, &fr->items[0], "%s: pose %llu is outside the keyframe "
					  "pool (%zu poses)", p, (unsigned long long)pose, npos);
	}
	out->pose = (uint32_t)pose;
	out->flags = (uint32_t)flags;
	out->outside = fr->n == 3;
	out->node = fr;
	return AF_OK;
}

static int parse_seq(struct pctx *c, const struct af_ynode *sn, struct re_seq *s, size_t npos,
		     const char *p)
{
	char q[AF_RE_PATH];
	int rc = af_y_want(c->d, sn, AF_YMAP, p);
	if (!rc)
		rc = check_keys(c, sn, re_seq_props, p);
	if (!rc && c->game == RE_GAME2)
		rc = refuse_key(c, sn, "pose_start", p, "is RE3's (RE2 frames hold absolute poses)");
	if (rc)
		return rc;
	s->node = sn;
	if (c->game == RE_GAME3) {
		uint64_t v;
		if ((rc = get_u(c, sn, "pose_start", UINT32_MAX, &v, p)))
			return rc;
		s->pose_start = (uint32_t)v;
	}
	const struct af_ynode *fr = af_y_need(c->d, sn, "frames", p);
	jp(q, "%s.frames", p);
	if (!fr || want_list(c, fr, q, &s->nframes))
		return AF_EINVAL;
	s->frames = af_arena_array(c->a, s->nframes ? s->nframes : 1, sizeof(*s->frames));
	if (!s->frames)
		return NOMEM(c);
	for (size_t k = 0; k < s->nframes; k++) {
		jp(q, "%s.frames[%zu]", p, k);
		if ((rc = parse_frame(c, &fr->items[k], s, &s->frames[k], npos, q)))
			return rc;
	}
	return AF_OK;
}

static int parse_sequences(struct pctx *c, const struct af_ynode *bank, struct re_bank *k,
			   const char *path)
{
	char p[AF_RE_PATH];
	const struct af_ynode *sq = af_y_need(c->d, bank, "sequences", path);
	int rc;
	jp(p, "%s.sequences", path);
	if (!sq || want_list(c, sq, p, &k->edd.nseq))
		return AF_EINVAL;
	if (k->emr.empty && k->edd.nseq)
		return af_y_error(c->d, sq, "%s: %zu sequences but the bank has no keyframe pool "
				  "(keyframes: empty)", p, k->edd.nseq);
	k->edd.seq = af_arena_array(c->a, k->edd.nseq ? k->edd.nseq : 1, sizeof(*k->edd.seq));
	if (!k->edd.seq)
		return NOMEM(c);
	for (size_t i = 0; i < k->edd.nseq; i++) {
		char q[AF_RE_PATH];
		jp(q, "%s[%zu]", p, i);
		if ((rc = parse_seq(c, &sq->items[i], &k->edd.seq[i], k->emr.nposes, q)))
			return rc;
	}
	return AF_OK;
}

/* ---------------------------------------------------------------- banks */


static int parse_bank(struct pctx *c, const struct af_ynode *bn, unsigned i, struct re_file *f)
{
	char path[AF_RE_PATH];
	int rc;
	struct re_bank *k = &f->bank[i];
	jp(path, "banks[%u]", i);
	if ((rc = af_y_want(c->d, bn, AF_YMAP, path)) ||
	    (rc = check_keys(c, bn, re_bank_props, path)))
		return rc;
	k->node = bn;
	re_bank_slots(c->lay, i, k);
	const struct af_ynode *v = af_ymap_get(bn, "verbatim");
	if (v) {
		size_t len;
		if ((rc = refuse_bank_keys(c, bn, verbatim_only, path, "does not apply to a "
					   "verbatim bank (its sections are carried in data)")))
			return rc;
		return af_y_get_str(c->d, v, &k->verbatim, &len, path);
	}
	const char *want = c->game == RE_GAME3 ? "re3-relative" : "re2-absolute";
	const struct af_ynode *rec = af_y_need(c->d, bn, "records", path);
	if (!rec)
		return AF_EINVAL;
	if (!is_word(rec, want))
		return af_y_error(c->d, rec, "%s.records: must be '%s' for game re%u", path, want,
				  c->game);
	if ((rc = parse_emr(c, bn, &c->lay->slots[k->emr_sec], &k->emr, &f->sec[k->emr_sec],
			    path)))
		return rc;
	return parse_sequences(c, bn, k, path);
}

/* Which slots take their bytes from 'data': raw roles, verbatim banks, opaque pools. */
static int check_data_slots(struct pctx *c, const struct af_ynode *root, struct re_file *f,
			    const unsigned char *seen)
{
	const struct af_ynode *data = af_ymap_get(root, "data");
	for (unsigned s = 0; s < c->lay->nsec; s++) {
		const struct re_slot *sl = &c->lay->slots[s];
		const struct re_bank *k = sl->bank >= 0 ? &f->bank[sl->bank] : NULL;
		int needs = !k || k->verbatim || (sl->role == RE_EMR && k->emr.opaque_pool);
		if (needs && !seen[s])
			return af_y_error(c->d, data, "data: section %u (%s) is missing", s,
					  re_role_name(sl->role));
		if (!needs && seen[s])
			return af_y_error(c->d, c->role[s], "data: section %u is built from "
					  "banks[%d]; remove its bytes from 'data'", s, sl->bank);
		const char *want = k && !k->verbatim ? "emr-pool" : re_role_name(sl->role);
		if (needs && strcmp(c->role[s]->str, want))
			return af_y_error(c->d, c->role[s], "data: section %u holds '%s', not '%s'",
					  s, want, c->role[s]->str);
		if (needs && f->sec[s].len == 0 && strcmp(want, "emr-pool"))
			return af_y_error(c->d, c->role[s], "data: section %u has no bytes; a section "
					  "holds at least 4 (an empty slot is 00000000)", s);
	}
	return AF_OK;
}

int re_parse(const struct af_ynode *root, struct re_file *f, struct af_arena *a,
		struct af_diag *d)
{
	struct pctx c = { .d = d, .a = a };
	unsigned char seen[16] = { 0 };
	int rc = af_y_want(d, root, AF_YMAP, "top level");
	if (!rc)
		rc = check_keys(&c, root, re_top_props, "top level");
	if (rc)
		return rc;
	const struct af_ynode *g = af_y_need(d, root, "game", "top level");
	const struct af_ynode *k = af_y_need(d, root, "kind", "top level");
	if (!g || !k)
		return AF_EINVAL;
	unsigned game = is_word(g, "re3") ? RE_GAME3 : is_word(g, "re2") ? RE_GAME2 : 0;
	unsigned kind = is_word(k, "pld") ? RE_PLD : is_word(k, "plw") ? RE_PLW
		: is_word(k, "emd") ? RE_EMD : 99;
	if (!game)
		return af_y_error(d, g, "game: expected re2 or re3");
	if (kind == 99)
		return af_y_error(d, k, "kind: expected pld, plw or emd");
	c.lay = f->lay = re_layout_by(game, kind);
	c.game = game;
	f->sec = af_arena_array(a, f->lay->nsec, sizeof(*f->sec));
	f->bank = af_arena_array(a, f->lay->nbanks, sizeof(*f->bank));
	if (!f->sec || !f->bank)
		return NOMEM(&c);
	for (unsigned s = 0; s < f->lay->nsec; s++)
		f->sec[s].file_off = -1;
	if ((rc = parse_data(&c, root, f, seen)))
		return rc;
	const struct af_ynode *banks = af_y_need(d, root, "banks", "top level");
	if (!banks || af_y_want(d, banks, AF_YSEQ, "banks"))
		return AF_EINVAL;
	if (banks->n != f->lay->nbanks)
		return af_y_error(d, banks, "banks: %zu banks, a re%u %s has %u", (size_t)banks->n, game,
				  re_kind_name(kind), f->lay->nbanks);
	for (unsigned i = 0; i < f->lay->nbanks; i++)
		if ((rc = parse_bank(&c, &banks->items[i], i, f)))
			return rc;
	return check_data_slots(&c, root, f, seen);
}
