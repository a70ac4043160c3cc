/* Diesel animation YAML tree -> model, with the validation of spec section 7:
 * hard errors name line:col and the path (objects[3].position.keys[7]); conditions
 * that real files contain are warnings only. Quantised values re-quantise here. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/num.h"
#include "animfs/yamlio.h"
#include "animfs/rot.h"
#include "diesel.h"

/* A warning that may fire on many keys: reported once, with a count. */
struct agg {
	unsigned line, col, more;
	char msg[300];
};

struct pctx {
	struct af_diag *d;
	struct af_arena *a;
	struct diesel_anim *m;
	struct agg late, flag, flag1, extra, step; /* step: values stored as the nearest step */
	int euler; /* `euler: xyz`: a rotation key may be [t, rx, ry, rz(, flag)] in degrees */
};

static void agg_add(struct agg *g, const struct af_ynode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void agg_add(struct agg *g, const struct af_ynode *n, const char *fmt, ...)
{
	va_list ap;
	if (g->msg[0]) {
		g->more++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(g->msg, sizeof(g->msg), fmt, ap);
	va_end(ap);
	g->line = n->line, g->col = n->col;
}

static void agg_flush(struct af_diag *d, const struct agg *g, const char *what)
{
	if (!g->msg[0])
		return;
	if (!strncmp(g->msg, "note: ", 6) && g->more) /* said as a note, not a warning */
		af_diag_note(d, g->line, g->col, "%s (and %u more %s)", g->msg + 6, g->more, what);
	else if (!strncmp(g->msg, "note: ", 6))
		af_diag_note(d, g->line, g->col, "%s", g->msg + 6);
	else if (g->more)
		af_diag_warn(d, g->line, g->col, "%s (and %u more %s)", g->msg, g->more, what);
	else
		af_diag_warn(d, g->line, g->col, "%s", g->msg);
}

static const char *shown(const struct af_ynode *n)
{
	if (n->type != AF_YSCALAR)
		return n->type == AF_YSEQ ? "(a list)" : "(a map)";
	return n->len > 40 ? "(a long text)" : n->str;
}

/* Error at node n: "<path>: <message>". */
static int perr(struct pctx *c, const struct af_ynode *n, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int perr(struct pctx *c, const struct af_ynode *n, const char *path, const char *fmt, ...)
{
	char msg[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return af_y_error(c->d, n, "%s: %s", path, msg);
}

static int check_keys(struct pctx *c, const struct af_ynode *map, const char *path,
		      const struct af_sch_prop *allowed)
{
	for (size_t i = 0; i < map->n; i++) {
		const struct af_ynode *k = &map->items[2 * i];
		if (k->type != AF_YSCALAR || !af_sch_has_key(allowed, k->str)) {
			char list[400];
			af_sch_key_list(allowed, list, sizeof(list));
			return perr(c, k, path, "unknown key '%s' (expected %s)", shown(k), list);
		}
	}
	return 0;
}

static int want(struct pctx *c, const struct af_ynode *n, enum af_ytype t, const char *path)
{
	return af_y_want(c->d, n, t, path);
}

static int is_word(const struct af_ynode *n, const char *w)
{
	return n && n->type == AF_YSCALAR && !strcmp(n->str, w);
}

static int name_ok(struct pctx *c, const struct af_ynode *n, const char *path, const char **s,
		   size_t *len)
{
	int rc = af_y_get_str(c->d, n, s, len, path);
	if (rc)
		return rc;
	if (*len == 0)
		return perr(c, n, path, "name is empty");
	if (memchr(*s, 0, *len))
		return perr(c, n, path, "name contains a NUL character");
	for (size_t i = 0; i < *len; i++)
		if ((unsigned char)(*s)[i] >= 0x80) {
			af_y_warn(c->d, n, "%s: name '%s' is not ASCII", path, shown(n));
			break;
		}
	return 0;
}

/* ---------------------------------------------------------------- binary */

/* The largest header or track word: the keys describe the decoded layout, and a
 * changed `layout:` converts at the end (relayout), where a too-large word is refused. */
static uint64_t word_max(const struct diesel_anim *m)
{
	return m->width == 32 && m->decoded_width != 64 ? UINT32_MAX : UINT64_MAX;
}

/* "word" or a number up to max. */
static int word_or_u64(struct pctx *c, const struct af_ynode *n, const char *word, uint64_t max,
		       int *is_word_out, uint64_t *v, const char *path)
{
	*is_word_out = is_word(n, word);
	if (*is_word_out)
		return 0;
	if (n && n->type == AF_YSCALAR && af_parse_u64(n->str, n->len, v) == 0 && *v <= max)
		return 0;
	return perr(c, n, path, "expected '%s' or a whole number 0..%llu, got '%s'", word,
		    (unsigned long long)max, n ? shown(n) : "nothing");
}

static int get_pad(struct pctx *c, const struct af_ynode *n, const char *path, unsigned *out)
{
	uint64_t v;
	int rc = af_y_get_u64(c->d, n, 64, &v, path);
	if (rc)
		return rc;
	if (v != 1 && v != 2 && v != 4 && v != 8)
		return perr(c, n, path, "alignment must be 1, 2, 4 or 8, not %llu",
			    (unsigned long long)v);
	*out = (unsigned)v;
	return 0;
}

static int get_blob_field(struct pctx *c, const struct af_ynode *n, int b64, const char *path,
			  const uint8_t **p, size_t *len)
{
	struct af_buf t = AF_BUF_INIT;
	int rc = b64 ? af_y_get_base64(c->d, n, &t, path) : af_y_get_hex(c->d, n, &t, path);
	uint8_t *copy = NULL;
	if (!rc && t.len && !(copy = af_arena_alloc(c->a, t.len)))
		rc = af_diag_error(c->d, AF_ENOMEM, "out of memory");
	if (!rc && t.len)
		memcpy(copy, t.data, t.len);
	*p = copy;
	*len = t.len;
	af_buf_free(&t);
	return rc;
}

static int parse_zlib(struct pctx *c, const struct af_ynode *b)
{
	struct diesel_anim *m = c->m;
	const struct af_ynode *n;
	uint64_t v;
	int rc = 0;
	if ((n = af_ymap_get(b, "zlib_level"))) {
		if (is_word(n, "none"))
			m->level = -1;
		else if ((rc = af_y_get_u64(c->d, n, 9, &v, "binary.zlib_level")))
			return rc;
		else
			m->level = (int)v;
	}
	if ((n = af_ymap_get(b, "zlib_header"))) {
		if ((rc = af_y_get_u64(c->d, n, 0xFFFF, &v, "binary.zlib_header")))
			return rc;
		if ((v >> 8) != 0x78 || v % 31 || (v & 0x20))
			return perr(c, n, "binary.zlib_header",
				    "0x%04llX is not a zlib header without a preset dictionary (78 01, 78 5E, 78 9C, 78 DA, ...)",
				    (unsigned long long)v);
		m->zhdr[0] = (uint8_t)(v >> 8), m->zhdr[1] = (uint8_t)v;
		m->zhdr_custom = 1;
	}
	if ((n = af_ymap_get(b, "zlib_extra")) &&
	    (rc = get_blob_field(c, n, 0, "binary.zlib_extra", &m->zextra, &m->nzextra)))
		return rc;
	if ((n = af_ymap_get(b, "zlib_stream")) &&
	    (rc = get_blob_field(c, n, 1, "binary.zlib_stream", &m->zstream, &m->nzstream)))
		return rc;
	return 0;
}

static int parse_binary(struct pctx *c, const struct af_ynode *b)
{
	struct diesel_anim *m = c->m;
	const struct af_ynode *n;
	uint64_t wmax;
	int rc;
	if (!b) {
		diesel_anim_defaults(m, 32);
		return 0;
	}
	if ((rc = want(c, b, AF_YMAP, "binary")) || (rc = check_keys(c, b, "binary", diesel_sch_binary)))
		return rc;
	n = af_ymap_get(b, "layout");
	if (!n || is_word(n, "32-bit"))
		diesel_anim_defaults(m, 32);
	else if (is_word(n, "64-bit"))
		diesel_anim_defaults(m, 64);
	else
		return perr(c, n, "binary.layout", "expected 32-bit or 64-bit, got '%s'", shown(n));
	if ((n = af_ymap_get(b, "decoded_as"))) {
		if (!is_word(n, "32-bit") && !is_word(n, "64-bit"))
			return perr(c, n, "binary.decoded_as", "expected 32-bit or 64-bit, got '%s'",
				    shown(n));
		m->decoded_width = is_word(n, "32-bit") ? 32 : 64;
	}
	if ((n = af_ymap_get(b, "convert_style"))) {
		m->convert_style = n->type == AF_YSCALAR ? diesel_style_by_name(n->str, n->len) : -1;
		if (m->convert_style < 0)
			return perr(c, n, "binary.convert_style",
				    "expected converter or native (64-bit) or stock (32-bit), got '%s'",
				    shown(n));
	}
	wmax = word_max(m);
	if ((n = af_ymap_get(b, "container"))) {
		if (is_word(n, "zlib"))
			m->container = DSL_ZLIB;
		else if (is_word(n, "raw"))
			m->container = DSL_RAW;
		else
			return perr(c, n, "binary.container", "expected zlib or raw, got '%s'", shown(n));
	}
	if ((rc = parse_zlib(c, b)))
		return rc;
	if ((n = af_ymap_get(b, "magic"))) {
		uint32_t mg;
		if ((rc = af_y_get_u32(c->d, n, &mg, "binary.magic")))
			return rc;
		if (mg != DSL_MAGIC && mg != 0x85CC8308u)
			return perr(c, n, "binary.magic", "must be 0x0883CC85 (or the byte-swapped 0x85CC8308)");
		for (int i = 0; i < 4; i++)
			m->magic[i] = (uint8_t)(mg >> (8 * i));
	}
	if ((n = af_ymap_get(b, "version")) && (rc = af_y_get_u32(c->d, n, &m->version, "binary.version")))
		return rc;
	if ((n = af_ymap_get(b, "location")) &&
	    (rc = af_y_get_u64(c->d, n, wmax, &m->location, "binary.location")))
		return rc;
	if ((n = af_ymap_get(b, "header_pad0")) &&
	    (rc = af_y_get_u64(c->d, n, UINT64_MAX, &m->hpad0, "binary.header_pad0")))
		return rc;
	if ((n = af_ymap_get(b, "header_pad1")) &&
	    (rc = af_y_get_u32(c->d, n, &m->hpad1, "binary.header_pad1")))
		return rc;
	if ((n = af_ymap_get(b, "size_field")) &&
	    (rc = word_or_u64(c, n, "actual", wmax, &m->size_actual, &m->size_value, "binary.size_field")))
		return rc;
	if ((n = af_ymap_get(b, "unknown_offset")) &&
	    (rc = word_or_u64(c, n, "events", wmax, &m->unk_same, &m->unk_value, "binary.unknown_offset")))
		return rc;
	if ((n = af_ymap_get(b, "empty_events_offset")) &&
	    (rc = word_or_u64(c, n, "here", wmax, &m->evoff_here, &m->evoff_value,
			      "binary.empty_events_offset")))
		return rc;
	if (((n = af_ymap_get(b, "name_pad")) && (rc = get_pad(c, n, "binary.name_pad", &m->name_pad))) ||
	    ((n = af_ymap_get(b, "event_pad")) && (rc = get_pad(c, n, "binary.event_pad", &m->event_pad))) ||
	    ((n = af_ymap_get(b, "track_align")) &&
	     (rc = get_pad(c, n, "binary.track_align", &m->track_align))) ||
	    ((n = af_ymap_get(b, "end_pad")) && (rc = get_pad(c, n, "binary.end_pad", &m->end_pad))))
		return rc;
	if ((n = af_ymap_get(b, "dedupe_event_names"))) {
		if (is_word(n, "true"))
			m->dedupe_events = 1;
		else if (is_word(n, "false"))
			m->dedupe_events = 0;
		else
			return perr(c, n, "binary.dedupe_event_names", "expected true or false, got '%s'",
				    shown(n));
	}
	return 0;
}

/* ---------------------------------------------------------------- events */

static int parse_event(struct pctx *c, const struct af_ynode *n, uint32_t i, struct diesel_event *e)
{
	char path[48];
	const struct af_ynode *t, *nm;
	snprintf(path, sizeof(path), "events[%u]", i);
	if (n->type == AF_YSEQ) {
		if (n->n != 2)
			return perr(c, n, path, "an event is [time, name]; found %zu values", (size_t)n->n);
		t = &n->items[0], nm = &n->items[1];
	} else if (n->type == AF_YMAP) {
		int rc = check_keys(c, n, path, diesel_sch_event);
		if (rc)
			return rc;
		if (!(t = af_y_need(c->d, n, "time", path)) || !(nm = af_y_need(c->d, n, "name", path)))
			return AF_EINVAL;
	} else {
		return perr(c, n, path, "an event is [time, name] or {time: ..., name: ...}");
	}
	if (t->type != AF_YSCALAR || af_parse_f32(t->str, t->len, &e->frac) || !isfinite(e->frac))
		return perr(c, t, path, "time '%s' is not a number", shown(t));
	int rc = name_ok(c, nm, path, &e->name, &e->name_len);
	if (rc)
		return rc;
	if (e->frac < 0 || e->frac > 1) {
		char num[AF_NUM_MAX];
		af_fmt_f32(num, e->frac);
		af_y_warn(c->d, t,
			  "%s (%.*s): time %s is outside 0..1; event times are a fraction of the animation length, not seconds",
			  path, (int)(e->name_len > 60 ? 60 : e->name_len), e->name, num);
	}
	return 0;
}

static int parse_events(struct pctx *c, const struct af_ynode *n)
{
	struct diesel_anim *m = c->m;
	int rc, warned = 0;
	if (!n || af_y_is_null(n))
		return 0;
	if ((rc = want(c, n, AF_YSEQ, "events")))
		return rc;
	if (n->n > UINT32_MAX)
		return perr(c, n, "events", "too many events");
	m->nev = (uint32_t)n->n;
	m->ev = af_arena_array(c->a, m->nev ? m->nev : 1, sizeof(*m->ev));
	if (!m->ev)
		return af_diag_error(c->d, AF_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < m->nev; i++) {
		if ((rc = parse_event(c, &n->items[i], i, &m->ev[i])))
			return rc;
		if (i && !warned && m->ev[i].frac < m->ev[i - 1].frac) {
			af_y_warn(c->d, &n->items[i], "events[%u]: events are not in time order", i);
			warned = 1;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- keys */

struct kctx {
	struct pctx *c;
	const char *path; /* "objects[3].position" */
	int type;
	uint32_t ki;
	uint16_t extra;   /* pos_u16 track default */
	uint32_t nkeys;
};

static int kerr(struct kctx *k, const struct af_ynode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int kerr(struct kctx *k, const struct af_ynode *n, const char *fmt, ...)
{
	char msg[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return af_y_error(k->c->d, n, "%s.keys[%u]: %s", k->path, k->ki, msg);
}

static int kf32(struct kctx *k, const struct af_ynode *n, float *v)
{
	if (n->type != AF_YSCALAR || af_parse_f32(n->str, n->len, v) || !isfinite(*v))
		return kerr(k, n, "'%s' is not a number", shown(n));
	return 0;
}

static int kf64(struct kctx *k, const struct af_ynode *n, double *v)
{
	if (n->type != AF_YSCALAR || af_parse_f64(n->str, n->len, v) || !isfinite(*v))
		return kerr(k, n, "'%s' is not a number", shown(n));
	return 0;
}

static int ku64(struct kctx *k, const struct af_ynode *n, uint64_t max, const char *what,
		uint64_t *v)
{
	if (n->type != AF_YSCALAR || af_parse_u64(n->str, n->len, v) || *v > max)
		return kerr(k, n, "%s must be a whole number 0..%llu, not '%s'", what,
			    (unsigned long long)max, shown(n));
	return 0;
}

static const char *key_shape(int type)
{
	switch (type) {
	case DSL_POS_U16: return "[time, x, y, z] or [time, x, y, z, extra]";
	case DSL_POS_F32: return "[time, x, y, z]";
	case DSL_POS_F32_FLAG: return "[time, x, y, z, flag]";
	case DSL_ROT_F32: return "[time, x, y, z, w]";
	case DSL_ROT_PACKED: return "[time, x, y, z, w] (or with the raw u32 code as a 6th value)";
	default: return "[time, x, y, z, w, flag]";
	}
}

/* A packed code whose three stored components exceed unit length decodes to a
 * non-rotation. Tighter than the 0.01 typed-text limit: printed text may move the
 * length by ~1e-3, and the file must still encode from its own YAML. */
#define PACKED_LEN_TOL 0.008

static double quat_len(const double q[4])
{
	return sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
}

static int quat_check(struct kctx *k, const struct af_ynode *n, const double q[4], int is_float)
{
	double len = quat_len(q);
	double dev = fabs(len - 1.0);
	if (dev > 0.01)
		return kerr(k, n, "quaternion [%g, %g, %g, %g] has length %.4f; a rotation must be a unit quaternion",
			    q[0], q[1], q[2], q[3], len);
	if (is_float && dev > 1e-3)
		af_y_warn(k->c->d, n, "%s.keys[%u]: quaternion length %.6f is stored as typed", k->path,
			  k->ki, len);
	return 0;
}

static int parse_flag(struct kctx *k, const struct af_ynode *n, struct diesel_key *key)
{
	uint64_t v;
	int rc = ku64(k, n, UINT32_MAX, "flag", &v);
	if (rc)
		return rc;
	key->u = (uint32_t)v;
	if (v > 1)
		agg_add(&k->c->flag, n, "%s.keys[%u]: flag is %llu (known files use 0 or 1)", k->path,
			k->ki, (unsigned long long)v);
	else if (v == 1 && k->nkeys > 1)
		agg_add(&k->c->flag1, n,
			"%s.keys[%u]: flag 1 on a track with more than one key (known files set it on one-key tracks only)",
			k->path, k->ki);
	return 0;
}

/* [t, rx, ry, rz(, flag)]: Euler angles in degrees (animfs/rot.h), turned into the
 * track's quaternion type: packed as typed, or rounded to f32 components. Keys
 * written as quaternions are untouched by this, so an unedited file stays exact. */
static int parse_euler(struct kctx *k, const struct af_ynode *kn, struct diesel_key *key)
{
	const struct diesel_type_info *ti = &diesel_types[k->type];
	const struct af_ynode *it = kn->items + 1;
	double e[3], q[4];
	int rc = 0;
	for (int j = 0; j < 3 && !rc; j++)
		rc = kf64(k, &it[j], &e[j]);
	if (rc)
		return rc;
	af_euler_deg_to_quat(e, q);
	if (k->type == DSL_ROT_PACKED) {
		key->u = diesel_pack_quat(q);
		return 0;
	}
	for (int j = 0; j < 4; j++)
		key->f[j] = (float)q[j];
	return ti->has_flag ? parse_flag(k, &it[3], key) : 0;
}

static int parse_values(struct kctx *k, const struct af_ynode *kn, struct diesel_key *key)
{
	const struct diesel_type_info *ti = &diesel_types[k->type];
	const struct af_ynode *it = kn->items + 1;
	uint64_t v;
	int rc = 0;
	if (k->type == DSL_POS_U16) {
		key->c[3] = k->extra;
		for (int j = 0; j < 3 && !rc; j++) {
			double cm;
			if ((rc = kf64(k, &it[j], &cm)))
				break;
			if (diesel_cm_to_u16(cm, &key->c[j])) {
				rc = kerr(k, &it[j], "%s cm is outside -1000..+1000, which pos_u16 cannot store; use type pos_f32",
					  it[j].str);
				break;
			}
			/* the view will show the step's own text: say so when it is another number */
			char st[AF_NUM_MAX];
			st[diesel_fmt_cm(st, key->c[j])] = 0;
			if (strtod(st, NULL) != cm)
				agg_add(&k->c->step, &it[j], "note: %s stored as %s (pos_u16 step 0.0305 cm)",
					it[j].str, st);
		}
		if (!rc && kn->n == 5 && !(rc = ku64(k, &it[3], 65535, "extra", &v)))
			key->c[3] = (uint16_t)v;
		if (!rc && key->c[3] != 0 && key->c[3] != 39321)
			agg_add(&k->c->extra, kn, "%s.keys[%u]: extra is %u (known files use 0 or 39321)",
				k->path, k->ki, key->c[3]);
		return rc;
	}
	if (ti->is_rot && kn->n == 1 + 3 + (size_t)ti->has_flag && k->c->euler)
		return parse_euler(k, kn, key);
	if (k->type == DSL_ROT_PACKED) {
		double q[4];
		for (int j = 0; j < 4 && !rc; j++)
			rc = kf64(k, &it[j], &q[j]);
		if (!rc && kn->n == 6 && !(rc = ku64(k, &it[4], UINT32_MAX, "the raw packed code", &v))) {
			double raw[4];
			diesel_unpack_quat((uint32_t)v, raw);
			if (fabs(quat_len(raw) - 1.0) > PACKED_LEN_TOL)
				return kerr(k, &it[4], "the raw packed code %s does not decode to a rotation",
					    it[4].str);
		}
		if (!rc && (rc = quat_check(k, &it[0], q, 0)) == 0)
			key->u = kn->n == 6 ? (uint32_t)v : diesel_pack_quat(q);
		return rc;
	}
	for (unsigned j = 0; j < ti->nval && !rc; j++)
		rc = kf32(k, &it[j], &key->f[j]);
	if (!rc && ti->is_rot) {
		double q[4] = { key->f[0], key->f[1], key->f[2], key->f[3] };
		rc = quat_check(k, &it[0], q, 1);
	}
	if (!rc && ti->has_flag)
		rc = parse_flag(k, &it[ti->nval], key);
	return rc;
}

static int parse_key(struct kctx *k, const struct af_ynode *kn, struct diesel_key *key,
		     const struct diesel_key *prev)
{
	const struct diesel_type_info *ti = &diesel_types[k->type];
	size_t want_n = 1 + ti->nval + (size_t)ti->has_flag;
	int optional = k->type == DSL_POS_U16 || k->type == DSL_ROT_PACKED;
	int euler = ti->is_rot && k->c->euler && kn->n == want_n - 1;
	if (kn->type != AF_YSEQ ||
	    (kn->n != want_n && !(optional && kn->n == want_n + 1) && !euler))
	{
		char found[48];
		if (kn->type == AF_YSEQ)
			snprintf(found, sizeof(found), "%zu values", (size_t)kn->n);
		else
			snprintf(found, sizeof(found), "'%.40s'", shown(kn));
		return kerr(k, kn, "a %s key is %s; found %s", ti->name, key_shape(k->type), found);
	}
	int rc = kf32(k, &kn->items[0], &key->t);
	if (rc)
		return rc;
	char a[AF_NUM_MAX], b[AF_NUM_MAX];
	if (key->t < 0)
		return kerr(k, &kn->items[0], "time %s must be >= 0", kn->items[0].str);
	if (prev && !(key->t > prev->t)) {
		af_fmt_f32(a, key->t);
		af_fmt_f32(b, prev->t);
		return kerr(k, &kn->items[0], "time %s is not greater than the previous key time %s", a, b);
	}
	if (key->t > k->c->m->length) {
		af_fmt_f32(a, key->t);
		af_fmt_f32(b, k->c->m->length);
		agg_add(&k->c->late, &kn->items[0], "%s.keys[%u]: time %s is after the animation length %s",
			k->path, k->ki, a, b);
	}
	return parse_values(k, kn, key);
}

/* ---------------------------------------------------------------- objects */

static int parse_track(struct pctx *c, const struct af_ynode *n, const char *path, int rot,
		       struct diesel_track *t)
{
	const struct af_ynode *ty, *ks, *x;
	char sub[96];
	uint64_t v;
	int rc;
	if ((rc = want(c, n, AF_YMAP, path)) || (rc = check_keys(c, n, path, diesel_sch_track)))
		return rc;
	if (!(ty = af_y_need(c->d, n, "type", path)) || !(ks = af_y_need(c->d, n, "keys", path)))
		return AF_EINVAL;
	snprintf(sub, sizeof(sub), "%s.type", path);
	if ((rc = want(c, ty, AF_YSCALAR, sub)))
		return rc;
	t->type = diesel_type_by_name(ty->str, ty->len);
	if (t->type < 0)
		return perr(c, ty, sub,
			    "unknown track type '%s' (known: pos_u16, pos_f32, pos_f32_flag, rot_f32, rot_packed, rot_f32_flag)",
			    shown(ty));
	if (diesel_types[t->type].is_rot != rot)
		return perr(c, ty, sub, "%s is a %s type; a %s track takes %s", ty->str,
			    rot ? "position" : "rotation", rot ? "rotation" : "position",
			    rot ? "rot_f32, rot_packed or rot_f32_flag" : "pos_u16, pos_f32 or pos_f32_flag");
	struct kctx k = { c, path, t->type, 0, 0, 0 };
	if ((x = af_ymap_get(n, "reserved"))) {
		snprintf(sub, sizeof(sub), "%s.reserved", path);
		if ((rc = af_y_get_u64(c->d, x, word_max(c->m), &t->reserved, sub)))
			return rc;
	}
	if ((x = af_ymap_get(n, "extra"))) {
		snprintf(sub, sizeof(sub), "%s.extra", path);
		if (t->type != DSL_POS_U16)
			return perr(c, x, sub, "only pos_u16 tracks have an extra word");
		if ((rc = af_y_get_u64(c->d, x, 65535, &v, sub)))
			return rc;
		k.extra = (uint16_t)v;
	}
	snprintf(sub, sizeof(sub), "%s.keys", path);
	if (af_y_is_null(ks) || (ks->type == AF_YSEQ && ks->n == 0))
		return perr(c, ks, path, "track has no keys");
	if ((rc = want(c, ks, AF_YSEQ, sub)))
		return rc;
	if (ks->n == 0)
		return perr(c, ks, path, "track has no keys");
	if (ks->n > UINT32_MAX)
		return perr(c, ks, path, "too many keys");
	t->nkeys = k.nkeys = (uint32_t)ks->n;
	t->keys = af_arena_array(c->a, t->nkeys, sizeof(*t->keys));
	if (!t->keys)
		return af_diag_error(c->d, AF_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < t->nkeys; i++) {
		k.ki = i;
		if ((rc = parse_key(&k, &ks->items[i], &t->keys[i], i ? &t->keys[i - 1] : NULL)))
			return rc;
	}
	return 0;
}

static int parse_object(struct pctx *c, const struct af_ynode *n, uint32_t i,
			struct diesel_strset *names, struct diesel_object *o)
{
	const struct af_ynode *nm, *x;
	char path[64], sub[96];
	int rc, found;
	snprintf(path, sizeof(path), "objects[%u]", i);
	if ((rc = want(c, n, AF_YMAP, path)) || (rc = check_keys(c, n, path, diesel_sch_object)))
		return rc;
	if (!(nm = af_y_need(c->d, n, "name", path)))
		return AF_EINVAL;
	snprintf(sub, sizeof(sub), "%s.name", path);
	if ((rc = name_ok(c, nm, sub, &o->name, &o->name_len)))
		return rc;
	size_t slot = diesel_strset_put(names, o->name, o->name_len, &found);
	if (found)
		return perr(c, nm, path, "'%s': duplicate name (also objects[%llu])", shown(nm),
			    (unsigned long long)names->val[slot]);
	names->val[slot] = i;
	if (!(x = af_ymap_get(n, "position")))
		return perr(c, n, path, "'%s': no position track (every object needs one position and one rotation track)",
			    shown(nm));
	snprintf(sub, sizeof(sub), "%s.position", path);
	if ((rc = parse_track(c, x, sub, 0, &o->pos)))
		return rc;
	if (!(x = af_ymap_get(n, "rotation")))
		return perr(c, n, path, "'%s': no rotation track (every object needs one position and one rotation track)",
			    shown(nm));
	snprintf(sub, sizeof(sub), "%s.rotation", path);
	return parse_track(c, x, sub, 1, &o->rot);
}

static int parse_objects(struct pctx *c, const struct af_ynode *n)
{
	struct diesel_anim *m = c->m;
	struct diesel_strset names;
	int rc;
	if (af_y_is_null(n))
		return 0;
	if ((rc = want(c, n, AF_YSEQ, "objects")))
		return rc;
	if (n->n > UINT32_MAX)
		return perr(c, n, "objects", "too many objects");
	m->nobj = (uint32_t)n->n;
	m->obj = af_arena_array(c->a, m->nobj ? m->nobj : 1, sizeof(*m->obj));
	if (!m->obj || diesel_strset_init(&names, c->a, m->nobj))
		return af_diag_error(c->d, AF_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < m->nobj; i++) {
		if ((rc = parse_object(c, &n->items[i], i, &names, &m->obj[i])))
			return rc;
		if (i && m->obj[i].rot.type != m->obj[0].rot.type && m->obj[i - 1].rot.type == m->obj[0].rot.type)
			af_y_warn(c->d, &n->items[i],
				  "objects[%u].rotation: type %s differs from objects[0] (%s); known files use one rotation type per file",
				  i, diesel_types[m->obj[i].rot.type].name, diesel_types[m->obj[0].rot.type].name);
	}
	return 0;
}

/* A `layout:` changed in an editor converts as `animfs convert` does (the other
 * binary keys describe the decoded layout); an unchanged 64-bit layout whose keys
 * are not what the 64-bit readers expect gets a warning (diesel-x64.md 6). */
static int relayout(struct pctx *c, const struct af_ynode *b)
{
	struct diesel_anim *m = c->m;
	const struct af_ynode *lay = b ? af_ymap_get(b, "layout") : NULL;
	const char *why;
	if (m->decoded_width && m->decoded_width != m->width) {
		struct af_diag cd;
		af_diag_init(&cd);
		int rc = diesel_convert(m, m->width, m->convert_style, &why, &cd);
		if (rc)
			rc = perr(c, lay ? lay : b, "binary.layout", "cannot convert: %s", cd.msg);
		af_diag_free(&cd);
		return rc;
	}
	if (m->width != 64 || !lay)
		return 0;
	if (m->container == DSL_ZLIB)
		af_y_warn(c->d, lay, "binary: a 64-bit file in a zlib container loads under SuperBLT only; "
			  "the game and converter v1.0.2 want container: raw");
	if (m->name_pad < 8 || m->event_pad < 8 || m->track_align < 8)
		af_y_warn(c->d, lay, "binary: padding below 8 in a 64-bit file (whether the game accepts it is unknown)");
	if (!m->size_actual)
		af_y_warn(c->d, lay, "binary: size_field is not actual; SuperBLT then takes the 64-bit file for a 32-bit one");
	return 0;
}

int diesel_parse_yaml(const struct af_ynode *root, struct af_arena *a, struct diesel_anim *m,
		   struct af_diag *d)
{
	struct pctx c;
	const struct af_ynode *n;
	int rc;
	memset(&c, 0, sizeof(c));
	c.d = d, c.a = a, c.m = m;
	diesel_anim_defaults(m, 32);
	if (!root)
		return af_diag_at_mark(d, AF_EINVAL, 1, 1, "empty document");
	if ((rc = want(&c, root, AF_YMAP, "document")) ||
	    (rc = check_keys(&c, root, "document", diesel_sch_document)))
		return rc;
	if ((n = af_ymap_get(root, "read_only")))
		return perr(&c, n, "read_only",
			    "this file is shown read-only (animfs cannot write it back byte for byte); delete this line to save it in animfs's own layout");
	if ((rc = parse_binary(&c, af_ymap_get(root, "binary"))))
		return rc;
	if (!(n = af_y_need(d, root, "length", "document")))
		return AF_EINVAL;
	if (n->type != AF_YSCALAR || af_parse_f32(n->str, n->len, &m->length) || !isfinite(m->length) ||
	    m->length < 0)
		return perr(&c, n, "length", "'%s' must be a number of seconds >= 0", shown(n));
	if (m->length == 0)
		af_y_warn(d, n, "length: the animation length is 0");
	if ((n = af_ymap_get(root, "euler"))) {
		if (n->type != AF_YSCALAR || n->len != 3 || memcmp(n->str, "xyz", 3))
			return perr(&c, n, "euler",
				    "'%s': the only rotation order is xyz (degrees about x, then y, then z, fixed axes)",
				    shown(n));
		c.euler = 1;
	}
	if ((rc = parse_events(&c, af_ymap_get(root, "events"))))
		return rc;
	if (!(n = af_y_need(d, root, "objects", "document")) || (rc = parse_objects(&c, n)))
		return rc ? rc : AF_EINVAL;
	if ((rc = relayout(&c, af_ymap_get(root, "binary"))))
		return rc;
	agg_flush(d, &c.late, "keys");
	agg_flush(d, &c.flag, "keys");
	agg_flush(d, &c.flag1, "keys");
	agg_flush(d, &c.extra, "keys");
	agg_flush(d, &c.step, "values");
	return 0;
}

/* ---------------------------------------------------------------- decoded files */

/* A decoded file the model cannot take: the message names the byte (in the
 * inflated data for zlib files) where the offending value is. */
static int bad_at(struct af_diag *d, const struct diesel_anim *m, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int bad_at(struct af_diag *d, const struct diesel_anim *m, uint64_t off, const char *fmt, ...)
{
	char msg[640];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!m->blob)
		return af_diag_error(d, AF_EUNSUP, "%s", msg);
	return af_diag_at_offset(d, AF_EUNSUP, off, "%s%s; animfs shows only files it can save back",
				 m->container == DSL_ZLIB ? "in the inflated data: " : "", msg);
}

static int bad_key(struct af_diag *d, const struct diesel_anim *m, uint32_t oi, int rot, uint32_t ki,
		   const char *why)
{
	const struct diesel_object *o = &m->obj[oi];
	const struct diesel_track *t = rot ? &o->rot : &o->pos;
	return bad_at(d, m, t->keys_off + (uint64_t)ki * diesel_types[t->type].stride,
		      "objects[%u] (%.*s) %s key %u: %s", oi,
		      (int)(o->name_len > 60 ? 60 : o->name_len), o->name,
		      rot ? "rotation" : "position", ki, why);
}

static int check_track(const struct diesel_anim *m, uint32_t oi, int rot, struct af_diag *d)
{
	const struct diesel_track *t = rot ? &m->obj[oi].rot : &m->obj[oi].pos;
	const struct diesel_type_info *ti = &diesel_types[t->type];
	for (uint32_t i = 0; i < t->nkeys; i++) {
		const struct diesel_key *k = &t->keys[i];
		double q[4];
		if (!isfinite(k->t) || k->t < 0)
			return bad_key(d, m, oi, rot, i, "the time is negative or not a number");
		if (i && !(k->t > t->keys[i - 1].t))
			return bad_key(d, m, oi, rot, i, "the time is not greater than the previous key's");
		if (t->type == DSL_POS_U16)
			continue;
		if (t->type == DSL_ROT_PACKED) {
			if (i && k->u == t->keys[i - 1].u)
				continue; /* checked with the key before */
			diesel_unpack_quat(k->u, q);
			if (fabs(quat_len(q) - 1.0) > PACKED_LEN_TOL)
				return bad_key(d, m, oi, rot, i, "the packed quaternion is not a rotation");
			continue;
		}
		for (unsigned j = 0; j < ti->nval; j++) {
			if (!isfinite(k->f[j]))
				return bad_key(d, m, oi, rot, i, "a value is not a finite number");
			q[j] = k->f[j];
		}
		if (ti->is_rot && fabs(quat_len(q) - 1.0) > 0.01)
			return bad_key(d, m, oi, rot, i, "the quaternion is not unit length");
	}
	return 0;
}

/* Names must survive YAML text: bytes that are not UTF-8 would come back as
 * other bytes (the writer shows them as \xNN, which YAML reads as U+00NN). */
static int utf8_ok(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	while (p < end) {
		unsigned c = *p, len = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2
				     : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
		if (!len || (size_t)(end - p) < len)
			return 0;
		for (unsigned i = 1; i < len; i++)
			if ((p[i] & 0xC0) != 0x80)
				return 0;
		if ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] >= 0xA0) ||
		    (c == 0xF0 && p[1] < 0x90) || (c == 0xF4 && p[1] >= 0x90))
			return 0;
		p += len;
	}
	return 1;
}

/* Names of a decoded file point into its blob. */
static uint64_t name_off(const struct diesel_anim *m, const char *name)
{
	return m->blob ? (uint64_t)((const uint8_t *)name - m->blob) : 0;
}

int diesel_check_decoded(const struct diesel_anim *m, struct af_diag *d)
{
	struct af_arena a;
	struct diesel_strset names;
	int rc = 0, found;
	af_arena_init(&a);
	if (!isfinite(m->length) || m->length < 0) {
		rc = bad_at(d, m, m->width == 32 ? 16 : 32,
			    "the animation length is negative or not a number");
		goto out;
	}
	for (uint32_t i = 0; i < m->nev && !rc; i++)
		if (!isfinite(m->ev[i].frac))
			rc = bad_at(d, m, m->ev[i].off, "events[%u]: the time is not a number", i);
		else if (!m->ev[i].name_len || !utf8_ok(m->ev[i].name, m->ev[i].name_len))
			rc = bad_at(d, m, name_off(m, m->ev[i].name),
				    "events[%u]: the name is empty or not UTF-8 text", i);
	if (rc)
		goto out;
	if (diesel_strset_init(&names, &a, m->nobj)) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < m->nobj && !rc; i++) {
		const struct diesel_object *o = &m->obj[i];
		diesel_strset_put(&names, o->name, o->name_len, &found);
		if (!o->name_len || found || !utf8_ok(o->name, o->name_len))
			rc = bad_at(d, m, name_off(m, o->name),
				    "objects[%u]: the name is empty, repeated or not UTF-8 text", i);
		else if (!(rc = check_track(m, i, 0, d)))
			rc = check_track(m, i, 1, d);
	}
out:
	af_arena_free(&a);
	return rc;
}
