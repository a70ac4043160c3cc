/* YAML -> Jazz model. One walk over the document defines the chunks (a map where a chunk
 * is expected) and records references (labels); then labels are resolved per category,
 * the chunks are put in the canonical order (or the document's chunk_order) and every
 * reference is renumbered. Errors name line:column and the YAML path. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "animfs/bytes.h"
#include "animfs/fnv.h"
#include "animfs/num.h"
#include "animfs/schema.h"
#include "animfs/yamlio.h"
#include "jazz.h"

#define PATH_MAX_ 256
#define CAT_NODE JZ_PLAY /* every node kind shares one label space */

struct pref {
	int32_t *slot;
	const struct af_ynode *y;
	int cat, nullable;
	const char *path;
};

struct lab {
	int cat;
	const char *label;
	uint32_t idx;
};

/* A state's, actor's or parameter's name hash (u[0]), for a reference by another spelling. */
struct hashref {
	int kind;
	uint32_t h, idx;
};

struct ps {
	struct af_diag *d;
	struct af_arena *a;
	struct jazz_chunk **ch; /* definition order; each chunk in the arena so pointers hold */
	uint32_t n;
	size_t cap;
	struct pref *refs;
	size_t nrefs, caprefs;
	struct lab *labs; /* labelled chunks sorted by (category, label) */
	uint32_t nlabs;
	struct hashref *hashes; /* states, actors and parameters sorted by (kind, hash) */
	uint32_t nhashes;
	const char **names; /* names spelled out in the document, for the user dictionary */
	size_t nnames, capnames;
};

static int cat_of(int kind)
{
	return jazz_is_node(kind) ? CAT_NODE : kind;
}

static const char *cat_name(int cat)
{
	switch (cat) {
	case JZ_AD: return "an actor";
	case JZ_PD: return "a parameter";
	case JZ_ST: return "a state";
	case JZ_DG: return "a decision graph";
	case CAT_NODE: return "a decision-graph node";
	default: return "an opaque chunk";
	}
}

static int oom(struct ps *p)
{
	return af_diag_error(p->d, AF_ENOMEM, "out of memory reading the Jazz YAML");
}

static const char *sub(char *buf, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static const char *sub(char *buf, const char *path, const char *fmt, ...)
{
	va_list ap;
	int l = snprintf(buf, PATH_MAX_, "%s", path);
	if (l < 0 || l >= PATH_MAX_)
		return buf;
	va_start(ap, fmt);
	vsnprintf(buf + l, PATH_MAX_ - (size_t)l, fmt, ap);
	va_end(ap);
	return buf;
}

/* ------------------------------------------------------------ scalar values */

static int is_hex_text(const char *s, size_t n)
{
	if (n < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return 0;
	for (size_t i = 2; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
		      (s[i] >= 'A' && s[i] <= 'F')))
			return 0;
	return 1;
}

/* A hash field: 0x... is the value, any other text is a name hashed with the field's rule
 * (rule < 0: only numbers, the hash function is unknown). */
/* Remember a name the document spells out (its text outlives the YAML tree). */
static int note_name(struct ps *p, const char *s, size_t n)
{
	const char **a = af_grow(p->names, &p->capnames, p->nnames, sizeof(*a), 32);
	char *t = af_arena_strndup(p->a, s, n);
	if (!a || !t)
		return af_diag_error(p->d, AF_ENOMEM, "out of memory");
	p->names = a;
	p->names[p->nnames++] = t;
	return 0;
}

static int get_hash(struct ps *p, const struct af_ynode *y, int rule, uint64_t *out,
		    const char *what)
{
	uint64_t max = rule == S3_H32 ? UINT32_MAX : UINT64_MAX;
	if (af_y_want(p->d, y, AF_YSCALAR, what))
		return AF_EINVAL;
	if (af_y_is_null(y))
		return af_y_error(p->d, y, "%s: expected a name or a 0x hash", what);
	if (is_hex_text(y->str, y->len)) {
		if (af_parse_u64(y->str, y->len, out) || *out > max)
			return af_y_error(p->d, y, "%s: %s does not fit in %d bits", what, y->str,
					  rule == S3_H32 ? 32 : 64);
		return 0;
	}
	if (rule < 0)
		return af_y_error(p->d, y, "%s: expected a 0x number (no name is known to hash "
				  "to this field)", what);
	if (sims3_hash_name(y->str, y->len, rule, out))
		return af_y_error(p->d, y, "%s: name '%s' contains non-ASCII characters (or NUL); "
				  "Sims 3 names are hashed as ASCII, write the hash as 0x%0*X instead",
				  what, y->len > 60 ? "(long)" : y->str, rule == S3_H32 ? 8 : 16, 0);
	return note_name(p, y->str, y->len);
}

static int get_f32bits(struct ps *p, const struct af_ynode *y, uint32_t *out, const char *what)
{
	float v;
	if (af_y_get_f32(p->d, y, &v, what))
		return AF_EINVAL;
	if (isinf(v) && !strstr(y->str, "inf") && !strstr(y->str, "Inf") && !strstr(y->str, "INF"))
		return af_y_error(p->d, y, "%s: %s does not fit in a 32-bit float", what, y->str);
	*out = af_f32_bits(v);
	return 0;
}

static int enum_error(struct ps *p, const struct af_ynode *y, const struct jazz_enum *e,
		      const char *what)
{
	char known[400];
	size_t l = 0;
	known[0] = 0;
	for (const struct jazz_enum_item *i = e->items; i->name && l < sizeof(known) - 40; i++)
		l += (size_t)snprintf(known + l, sizeof(known) - l, "%s%s", l ? ", " : "", i->name);
	return af_y_error(p->d, y, "%s: unknown %s name '%s' (known: %s)", what, e->what,
			  y->len > 60 ? "(long)" : y->str, known);
}

static int get_enum(struct ps *p, const struct af_ynode *y, const struct jazz_enum *e,
		    uint32_t *out, const char *what)
{
	uint64_t v;
	if (af_y_want(p->d, y, AF_YSCALAR, what))
		return AF_EINVAL;
	if (!jazz_enum_lookup(e, y->str, y->len, out))
		return 0;
	if (af_parse_u64(y->str, y->len, &v))
		return enum_error(p, y, e, what);
	if (v > UINT32_MAX)
		return af_y_error(p->d, y, "%s: value %s does not fit in 32 bits", what, y->str);
	*out = (uint32_t)v;
	return 0;
}

static int get_flags(struct ps *p, const struct af_ynode *y, const struct jazz_enum *e,
		     uint32_t *out, const char *what)
{
	char path[PATH_MAX_];
	int timing = -1;
	*out = 0;
	if (af_y_is_null(y) || (y->type == AF_YSCALAR && !strcasecmp(y->str, "none")))
		return 0;
	if (af_y_want(p->d, y, AF_YSEQ, what))
		return AF_EINVAL;
	for (size_t i = 0; i < y->n; i++) {
		const struct af_ynode *it = &y->items[i];
		uint32_t v;
		uint64_t num;
		sub(path, what, "[%zu]", i);
		if (af_y_want(p->d, it, AF_YSCALAR, path))
			return AF_EINVAL;
		if (!jazz_enum_lookup(e, it->str, it->len, &v)) {
			if (e->mask && (v & e->mask) == v) {
				if (timing >= 0 && (uint32_t)timing != v)
					return af_y_error(p->d, it, "%s: conflicting values for one "
							  "bit-field (%s)", what, it->str);
				timing = (int)v;
			}
			*out |= v;
		} else if (!af_parse_u64(it->str, it->len, &num)) {
			if (num > UINT32_MAX)
				return af_y_error(p->d, it, "%s: value %s does not fit in 32 bits",
						  path, it->str);
			*out |= (uint32_t)num;
		} else {
			return af_y_error(p->d, it, "%s: unknown %s name '%s'", path, e->what,
					  it->len > 60 ? "(long)" : it->str);
		}
	}
	return 0;
}

static int get_field(struct ps *p, const struct af_ynode *y, const struct jazz_field *f,
		     uint32_t *out, const char *what)
{
	uint64_t h;
	switch (f->ft) {
	case JZ_FT_F32: return get_f32bits(p, y, out, what);
	case JZ_FT_ENUM: return get_enum(p, y, f->e, out, what);
	case JZ_FT_FLAGS: return get_flags(p, y, f->e, out, what);
	case JZ_FT_H32:
		if (get_hash(p, y, S3_H32, &h, what))
			return AF_EINVAL;
		*out = (uint32_t)h;
		return 0;
	default: return af_y_get_u32(p->d, y, out, what);
	}
}

static int parse_fields(struct ps *p, const struct af_ynode *map, struct jazz_chunk *ch,
			const char *path)
{
	char fp[PATH_MAX_];
	for (const struct jazz_field *f = jazz_fields[ch->kind]; f->name; f++) {
		const struct af_ynode *y = af_ymap_get(map, f->name);
		ch->u[f->slot] = f->def;
		if (!y && f->ft == JZ_FT_H32 && !strcmp(f->name, "name"))
			return af_y_error(p->d, map, "%s: missing key 'name'", path);
		if (y && get_field(p, y, f, &ch->u[f->slot], sub(fp, path, ".%s", f->name)))
			return AF_EINVAL;
	}
	return 0;
}

/* Reject keys a kind does not have (a typo would otherwise be silently ignored). */
static int check_keys(struct ps *p, const struct af_ynode *map, int kind,
		      const struct af_sch_prop *extra, const char *path)
{
	const struct af_sch_prop *common = kind == JZ_SM ? jazz_chunk_props + 2 : jazz_chunk_props;
	for (size_t i = 0; i < map->n; i++) {
		const struct af_ynode *k = &map->items[2 * i];
		int ok;
		if (k->type != AF_YSCALAR)
			return af_y_error(p->d, k, "%s: keys must be plain names", path);
		ok = af_sch_has_key(common, k->str) || af_sch_has_key(extra, k->str);
		for (const struct jazz_field *f = jazz_fields[kind]; !ok && f->name; f++)
			ok = !strcmp(k->str, f->name);
		if (!ok)
			return af_y_error(p->d, k, "%s: unknown field '%s' for %s", path,
					  k->len > 60 ? "(long)" : k->str, jazz_kinds[kind].yname);
	}
	return 0;
}

/* ------------------------------------------------------------ references */

static int add_ref(struct ps *p, int32_t *slot, const struct af_ynode *y, int cat, int nullable,
		   const char *path)
{
	if (af_y_is_null(y)) {
		if (!nullable)
			return af_y_error(p->d, y, "%s: null entry in a reference list", path);
		*slot = JZ_NULL;
		return 0;
	}
	if (af_y_want(p->d, y, AF_YSCALAR, path))
		return AF_EINVAL;
	struct pref *r = af_grow(p->refs, &p->caprefs, p->nrefs, sizeof(*r), 64);
	if (!r)
		return oom(p);
	p->refs = r;
	const char *pc = af_arena_strndup(p->a, path, strlen(path));
	if (!pc)
		return oom(p);
	p->refs[p->nrefs++] = (struct pref){ slot, y, cat, nullable, pc };
	*slot = JZ_NULL;
	return 0;
}

/* 1: y is a list with a count that fits 32 bits; 0: absent or null (empty); <0: error. */
static int want_list(struct ps *p, const struct af_ynode *y, const char *path)
{
	if (!y || af_y_is_null(y))
		return 0;
	if (af_y_want(p->d, y, AF_YSEQ, path))
		return AF_EINVAL;
	if (y->n > INT32_MAX)
		return af_y_error(p->d, y, "%s: %zu entries do not fit a 32-bit count", path, (size_t)y->n);
	return 1;
}

static int define(struct ps *p, const struct af_ynode *map, int kind, const char *path,
		  int32_t *idx);

/* A list of references. With defs, items that are maps define chunks of that kind (the
 * place the document first shows them) and the other items name defined ones. */
static int ref_seq(struct ps *p, const struct af_ynode *y, int cat, int defs, int kind,
		   struct jazz_refs *out, const char *path)
{
	char ip[PATH_MAX_];
	int rc;
	out->n = 0;
	out->v = NULL;
	if ((rc = want_list(p, y, path)) <= 0)
		return rc;
	out->n = (uint32_t)y->n;
	out->v = af_arena_array(p->a, y->n + 1, sizeof(*out->v));
	if (!out->v)
		return oom(p);
	for (size_t i = 0; i < y->n; i++) {
		const struct af_ynode *it = &y->items[i];
		sub(ip, path, "[%zu]", i);
		if (defs && it->type == AF_YMAP ? define(p, it, kind, ip, &out->v[i])
		    : add_ref(p, &out->v[i], it, cat, 0, ip))
			return AF_EINVAL;
	}
	return 0;
}

static int ref_list(struct ps *p, const struct af_ynode *y, int cat, struct jazz_refs *out,
		    const char *path)
{
	return ref_seq(p, y, cat, 0, 0, out, path);
}

static int def_list(struct ps *p, const struct af_ynode *y, int kind, struct jazz_refs *out,
		    const char *path)
{
	return ref_seq(p, y, cat_of(kind), 1, kind, out, path);
}

static int opt_ref(struct ps *p, const struct af_ynode *map, const char *k, int cat,
		   int32_t *slot, const char *path)
{
	char fp[PATH_MAX_];
	const struct af_ynode *y = af_ymap_get(map, k);
	*slot = JZ_NULL;
	return y ? add_ref(p, slot, y, cat, 1, sub(fp, path, ".%s", k)) : 0;
}

/* ------------------------------------------------------------ definitions */

static int kind_from_text(const struct af_ynode *y)
{
	for (int k = 0; k < JZ_NKINDS; k++)
		if ((strlen(jazz_kinds[k].yname) == y->len && !strcasecmp(jazz_kinds[k].yname, y->str)) ||
		    (y->len == 4 && !memcmp(jazz_kinds[k].tag, y->str, 4)))
			return k;
	return -1;
}

static int new_chunk(struct ps *p, int kind, const struct af_ynode *y, int32_t *idx)
{
	struct jazz_chunk *ch;
	struct jazz_chunk **c = af_grow(p->ch, &p->cap, p->n, sizeof(*c), 64);
	if (!c)
		return oom(p);
	p->ch = c;
	if (p->n >= INT32_MAX / 2 || !(ch = af_arena_alloc(p->a, sizeof(*ch))))
		return oom(p);
	ch->kind = kind;
	ch->ckey.type = jazz_kinds[kind].type;
	ch->version = jazz_kinds[kind].version;
	ch->ref[0] = ch->ref[1] = JZ_NULL;
	ch->ynode = y;
	*idx = (int32_t)p->n;
	p->ch[p->n++] = ch;
	return 0;
}

static int parse_key(struct ps *p, const struct af_ynode *y, uint32_t deftype, int rule,
		     struct jazz_key *k, const char *path)
{
	char fp[PATH_MAX_];
	const struct af_ynode *v;
	uint64_t u;
	k->type = deftype;
	k->group = 0;
	if (y->type == AF_YSCALAR)
		return get_hash(p, y, rule, &k->instance, path);
	if (af_y_want(p->d, y, AF_YMAP, path))
		return AF_EINVAL;
	for (size_t i = 0; i < y->n; i++) {
		const char *kk = y->items[2 * i].str;
		if (!kk || (strcmp(kk, "instance") && strcmp(kk, "type") && strcmp(kk, "group")))
			return af_y_error(p->d, &y->items[2 * i], "%s: unknown field '%s' for a resource "
					  "key (instance, type, group)", path, kk ? kk : "?");
	}
	if (!(v = af_y_need(p->d, y, "instance", path)))
		return AF_EINVAL;
	if ((v = af_ymap_get(y, "type"))) {
		if (af_y_get_u64(p->d, v, UINT32_MAX, &u, sub(fp, path, ".type")))
			return AF_EINVAL;
		k->type = (uint32_t)u;
	}
	if ((v = af_ymap_get(y, "group")) && af_y_get_u32(p->d, v, &k->group, sub(fp, path, ".group")))
		return AF_EINVAL;
	return get_hash(p, af_ymap_get(y, "instance"), k->type == deftype ? rule : -1, &k->instance,
			sub(fp, path, ".instance"));
}

static int opt_key(struct ps *p, const struct af_ynode *map, const char *name, uint32_t deftype,
		   int rule, struct jazz_key *k, const char *path)
{
	char fp[PATH_MAX_];
	const struct af_ynode *y = af_ymap_get(map, name);
	memset(k, 0, sizeof(*k));
	if (!y || af_y_is_null(y))
		return 0;
	return parse_key(p, y, deftype, rule, k, sub(fp, path, ".%s", name));
}

/* UTF-8 (already validated by libyaml) -> UTF-16 with the animfs length limit. */
static int parse_str(struct ps *p, const struct af_ynode *map, const char *name, struct jazz_str *s,
		     const char *path)
{
	const struct af_ynode *y = af_ymap_get(map, name);
	const uint8_t *t;
	size_t units = 0;
	memset(s, 0, sizeof(*s));
	if (!y)
		return 0;
	if (af_y_want(p->d, y, AF_YSCALAR, path))
		return AF_EINVAL;
	t = (const uint8_t *)y->str;
	for (size_t i = 0; i < y->len; i++)
		if ((t[i] & 0xC0) != 0x80)
			units += t[i] >= 0xF0 ? 2 : 1;
	if (memchr(y->str, 0, y->len))
		return af_y_error(p->d, y, "%s.%s: the string contains a NUL character", path, name);
	if (units > JZ_STR_MAX)
		return af_y_error(p->d, y, "%s.%s: the string is %zu UTF-16 units long; the limit is %d",
				  path, name, units, JZ_STR_MAX);
	s->u = af_arena_array(p->a, units + 1, 2);
	if (!s->u)
		return oom(p);
	for (size_t i = 0; i < y->len;) {
		uint32_t cp = t[i];
		int extra = cp >= 0xF0 ? 3 : cp >= 0xE0 ? 2 : cp >= 0xC0 ? 1 : 0;
		cp &= extra == 3 ? 0x07 : extra == 2 ? 0x0F : extra == 1 ? 0x1F : 0x7F;
		for (int k = 1; k <= extra && i + k < y->len; k++)
			cp = cp << 6 | (t[i + k] & 0x3F);
		i += (size_t)extra + 1;
		if (cp >= 0x10000) {
			s->u[s->n++] = (uint16_t)(0xD800 + ((cp - 0x10000) >> 10));
			s->u[s->n++] = (uint16_t)(0xDC00 + ((cp - 0x10000) & 0x3FF));
		} else {
			s->u[s->n++] = (uint16_t)cp;
		}
	}
	return 0;
}

/* Rows of u32/hash values ([a, b, c] per line): animations, actor slots, suffixes. */
static int parse_rows(struct ps *p, const struct af_ynode *y, int width, const int *rules,
		      uint32_t *n, uint32_t **out, const char *path)
{
	char ip[PATH_MAX_];
	int rc;
	*n = 0;
	*out = NULL;
	if ((rc = want_list(p, y, path)) <= 0)
		return rc;
	*out = af_arena_array(p->a, y->n * (size_t)width + 1, 4);
	if (!*out)
		return oom(p);
	for (size_t i = 0; i < y->n; i++) {
		const struct af_ynode *row = &y->items[i];
		sub(ip, path, "[%zu]", i);
		if (af_y_want(p->d, row, AF_YSEQ, ip))
			return AF_EINVAL;
		if (row->n != (size_t)width)
			return af_y_error(p->d, row, "%s: expected %d values, found %zu", ip, width,
					  (size_t)row->n);
		for (int j = 0; j < width; j++) {
			uint64_t h;
			char jp[PATH_MAX_];
			sub(jp, ip, "[%d]", j);
			if (rules[j] < 0 ? af_y_get_u32(p->d, &row->items[j], &(*out)[i * width + j], jp)
					 : get_hash(p, &row->items[j], rules[j], &h, jp))
				return AF_EINVAL;
			if (rules[j] >= 0)
				(*out)[i * width + j] = (uint32_t)h;
		}
	}
	*n = (uint32_t)y->n;
	return 0;
}

static int parse_cases(struct ps *p, const struct af_ynode *map, struct jazz_chunk *ch,
		       const char *path)
{
	const char *name = ch->kind == JZ_RAND ? "outcomes" : "cases";
	const char *first = ch->kind == JZ_RAND ? "weight" : ch->kind == JZ_SOPN ? "value" : "state";
	const struct af_ynode *y = af_ymap_get(map, name);
	char cp[PATH_MAX_], fp[PATH_MAX_];
	if (!y || af_y_is_null(y))
		return 0;
	sub(cp, path, ".%s", name);
	if (af_y_want(p->d, y, AF_YSEQ, cp))
		return AF_EINVAL;
	if (y->n > INT32_MAX)
		return af_y_error(p->d, y, "%s: too many entries", cp);
	ch->ncases = (uint32_t)y->n;
	ch->cases = af_arena_array(p->a, y->n + 1, sizeof(*ch->cases));
	if (!ch->cases)
		return oom(p);
	for (size_t i = 0; i < y->n; i++) {
		const struct af_ynode *c = &y->items[i], *v;
		struct jazz_case *k = &ch->cases[i];
		uint64_t h;
		char ip[PATH_MAX_];
		sub(ip, cp, "[%zu]", i);
		k->state = JZ_NULL;
		if (af_y_want(p->d, c, AF_YMAP, ip))
			return AF_EINVAL;
		for (size_t j = 0; j < c->n; j++) {
			const char *kk = c->items[2 * j].str;
			if (!kk || (strcmp(kk, first) && strcmp(kk, "next")))
				return af_y_error(p->d, &c->items[2 * j], "%s: unknown field '%s' (expected "
						  "%s, next)", ip, kk ? kk : "?", first);
		}
		if (!(v = af_y_need(p->d, c, first, ip)))
			return AF_EINVAL;
		sub(fp, ip, ".%s", first);
		if (ch->kind == JZ_RAND ? get_f32bits(p, v, &k->value, fp)
		    : ch->kind == JZ_SOPN ? get_hash(p, v, S3_H32, &h, fp)
					  : add_ref(p, &k->state, v, JZ_ST, 1, fp))
			return AF_EINVAL;
		if (ch->kind == JZ_SOPN)
			k->value = (uint32_t)h;
		if (ref_list(p, af_ymap_get(c, "next"), CAT_NODE, &k->next, sub(fp, ip, ".next")))
			return AF_EINVAL;
	}
	return 0;
}


static int parse_graph_ref(struct ps *p, const struct af_ynode *map, struct jazz_chunk *st,
			   const char *path)
{
	char fp[PATH_MAX_];
	const struct af_ynode *y = af_ymap_get(map, "decision_graph");
	sub(fp, path, ".decision_graph");
	st->ref[0] = JZ_NULL;
	if (!y || af_y_is_null(y))
		return 0;
	if (y->type == AF_YMAP)
		return define(p, y, JZ_DG, fp, &st->ref[0]);
	if (y->type == AF_YSCALAR && !strcmp(y->str, "empty")) { /* a new graph with no nodes */
		if (new_chunk(p, JZ_DG, y, &st->ref[0]))
			return AF_EINVAL;
		return parse_fields(p, y, p->ch[st->ref[0]], fp);
	}
	return add_ref(p, &st->ref[0], y, JZ_DG, 1, fp);
}

static int parse_body(struct ps *p, const struct af_ynode *map, struct jazz_chunk *ch,
		      const char *path)
{
	static const int slot_rules[4] = { -1, -1, S3_H32, S3_H32 };
	static const int suffix_rules[2] = { S3_H32, S3_H32 };
	char fp[PATH_MAX_];
	struct af_buf data = AF_BUF_INIT;
	const struct af_ynode *y;
	int rc = parse_fields(p, map, ch, path);
	if (rc)
		return rc;
	switch (ch->kind) {
	case JZ_ST:
		if (ref_list(p, af_ymap_get(map, "transitions"), JZ_ST, &ch->list[0],
			     sub(fp, path, ".transitions")))
			return AF_EINVAL;
		return parse_graph_ref(p, map, ch, path);
	case JZ_DG:
		if (def_list(p, af_ymap_get(map, "nodes"), JZ_PLAY, &ch->list[0],
			     sub(fp, path, ".nodes")))
			return AF_EINVAL;
		return ref_list(p, af_ymap_get(map, "entry_points"), CAT_NODE, &ch->list[1],
				sub(fp, path, ".entry_points"));
	case JZ_PLAY:
		if (!(y = af_y_need(p->d, map, "clip", path)) ||
		    parse_key(p, y, JZ_TYPE_CLIP, S3_HCLIP, &ch->key[0], sub(fp, path, ".clip")) ||
		    opt_key(p, map, "track_mask", JZ_TYPE_TKMK, S3_H64, &ch->key[1], path) ||
		    opt_key(p, map, "additive_clip", JZ_TYPE_CLIP, S3_HCLIP, &ch->key[2], path) ||
		    parse_str(p, map, "animation", &ch->str[0], path) ||
		    parse_str(p, map, "additive_animation", &ch->str[1], path) ||
		    parse_rows(p, af_ymap_get(map, "actor_slots"), 4, slot_rules, &ch->nslots,
			       &ch->slots, sub(fp, path, ".actor_slots")) ||
		    parse_rows(p, af_ymap_get(map, "actor_suffixes"), 2, suffix_rules,
			       &ch->nsuffixes, &ch->suffixes, sub(fp, path, ".actor_suffixes")))
			return AF_EINVAL;
		/* fall through - actor and next as for Stop */
	case JZ_STOP:
	case JZ_ACOP:
		if (opt_ref(p, map, "actor", JZ_AD, &ch->ref[0], path))
			return AF_EINVAL;
		return ref_list(p, af_ymap_get(map, "next"), CAT_NODE, &ch->list[0],
				sub(fp, path, ".next"));
	case JZ_RAND:
	case JZ_DG00:
		return parse_cases(p, map, ch, path);
	case JZ_SOPN:
		if (opt_ref(p, map, "parameter", JZ_PD, &ch->ref[0], path))
			return AF_EINVAL;
		return parse_cases(p, map, ch, path);
	case JZ_SNSN:
		return opt_ref(p, map, "state", JZ_ST, &ch->ref[0], path);
	case JZ_PROP:
		if (opt_ref(p, map, "actor", JZ_AD, &ch->ref[0], path) ||
		    opt_ref(p, map, "parameter", JZ_PD, &ch->ref[1], path) ||
		    !(y = af_y_need(p->d, map, "prop", path)) ||
		    parse_key(p, y, JZ_TYPE_PROP, -1, &ch->key[0], sub(fp, path, ".prop")))
			return AF_EINVAL;
		return ref_list(p, af_ymap_get(map, "next"), CAT_NODE, &ch->list[0],
				sub(fp, path, ".next"));
	case JZ_OPAQUE:
		if (!(y = af_y_need(p->d, map, "data", path)))
			return AF_EINVAL;
		if (af_y_get_hex(p->d, y, &data, sub(fp, path, ".data")))
			rc = AF_EINVAL;
		else if (data.len > INT32_MAX || data.failed)
			rc = af_y_error(p->d, y, "%s: chunk data too large", fp);
		else if (data.len && !(ch->data = af_arena_alloc(p->a, data.len)))
			rc = oom(p);
		if (!rc && data.len)
			memcpy((uint8_t *)ch->data, data.data, data.len);
		/* that would read back as the known kind, so it must be written as one */
		if (!rc && jazz_kind_of_type(ch->ckey.type) != JZ_OPAQUE && data.len >= 8 &&
		    !memcmp(data.data, jazz_kinds[jazz_kind_of_type(ch->ckey.type)].tag, 4))
			rc = af_y_error(p->d, y, "%s: an opaque chunk with the type and tag of %s; write "
					"it as that kind", fp, jazz_kinds[jazz_kind_of_type(ch->ckey.type)].tag);
		ch->len = (uint32_t)data.len;
		af_buf_free(&data);
		return rc;
	default:
		return 0;
	}
}

static int parse_ckey(struct ps *p, const struct af_ynode *map, struct jazz_chunk *ch,
		      const char *path)
{
	char fp[PATH_MAX_];
	const struct af_ynode *y = af_ymap_get(map, "key");
	if (!y) {
		if (ch->kind == JZ_OPAQUE)
			return af_y_error(p->d, map, "%s: an opaque chunk needs its key "
					  "({instance, type, group})", path);
		return 0;
	}
	sub(fp, path, ".key");
	if (parse_key(p, y, ch->ckey.type, -1, &ch->ckey, fp))
		return AF_EINVAL;
	if (ch->kind != JZ_OPAQUE && ch->ckey.type != jazz_kinds[ch->kind].type)
		return af_y_error(p->d, y, "%s: key type 0x%08X does not match the %s chunk type "
				  "0x%08X", fp, ch->ckey.type, jazz_kinds[ch->kind].tag,
				  jazz_kinds[ch->kind].type);
	return 0;
}

static int define(struct ps *p, const struct af_ynode *map, int kind, const char *path,
		  int32_t *idx)
{
	const struct af_ynode *y;
	struct jazz_chunk *ch;
	char fp[PATH_MAX_];
	int want_cat = cat_of(kind);
	if ((y = af_ymap_get(map, "kind"))) {
		int k;
		if (af_y_want(p->d, y, AF_YSCALAR, sub(fp, path, ".kind")))
			return AF_EINVAL;
		if ((k = kind_from_text(y)) < 0 || k == JZ_SM)
			return af_y_error(p->d, y, "%s: unknown chunk kind '%s' (known: actor, parameter, "
					  "state, decision_graph, play, stop, random, "
					  "select_on_parameter, select_on_destination, next_state, "
					  "create_prop, actor_operation, opaque)", fp,
					  y->len > 40 ? "(long)" : y->str);
		if (want_cat >= 0 && cat_of(k) != want_cat)
			return af_y_error(p->d, y, "%s: a %s chunk cannot stand here; expected %s", fp,
					  jazz_kinds[k].yname, cat_name(want_cat));
		kind = k;
	} else if (kind < 0 || jazz_is_node(kind)) {
		return af_y_error(p->d, map, "%s: missing key 'kind'", path);
	}
	if (check_keys(p, map, kind, jazz_kind_props[kind], path) || new_chunk(p, kind, map, idx))
		return AF_EINVAL;
	ch = p->ch[*idx];
	if ((y = af_ymap_get(map, "label"))) {
		if (af_y_want(p->d, y, AF_YSCALAR, sub(fp, path, ".label")) || af_y_is_null(y))
			return af_y_error(p->d, y, "%s.label: expected a text", path);
		ch->label = y->str;
	} else if ((y = af_ymap_get(map, "name")) && y->type == AF_YSCALAR) {
		ch->label = y->str;
	}
	if ((y = af_ymap_get(map, "version")) &&
	    af_y_get_u32(p->d, y, &ch->version, sub(fp, path, ".version")))
		return AF_EINVAL;
	if (parse_ckey(p, map, ch, path))
		return AF_EINVAL;
	return parse_body(p, map, ch, path);
}

/* ------------------------------------------------------------ resolution */

static int lab_cmp(const struct lab *x, const struct lab *y)
{
	if (x->cat != y->cat)
		return x->cat < y->cat ? -1 : 1;
	return strcmp(x->label, y->label);
}

static int lab_sort(const void *a, const void *b)
{
	const struct lab *x = a, *y = b;
	int r = lab_cmp(x, y);
	return r ? r : (x->idx > y->idx) - (x->idx < y->idx);
}

static int hash_sort(const void *a, const void *b)
{
	const struct hashref *x = a, *y = b;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->h != y->h)
		return x->h < y->h ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static int named_kind(int kind)
{
	return kind == JZ_AD || kind == JZ_PD || kind == JZ_ST;
}

/* Sort the labels and the name hashes once (no shared state: codecs may run in several
 * threads at once; a scan of every chunk a reference was quadratic in the chunks). */
static int index_labels(struct ps *p)
{
	uint32_t n = 0;
	p->labs = af_arena_array(p->a, p->n + 1, sizeof(*p->labs));
	p->hashes = af_arena_array(p->a, p->n + 1, sizeof(*p->hashes));
	if (!p->labs || !p->hashes)
		return oom(p);
	for (uint32_t i = 0; i < p->n; i++) {
		if (p->ch[i]->label)
			p->labs[n++] = (struct lab){ cat_of(p->ch[i]->kind), p->ch[i]->label, i };
		if (named_kind(p->ch[i]->kind))
			p->hashes[p->nhashes++] = (struct hashref){ p->ch[i]->kind, p->ch[i]->u[0], i };
	}
	qsort(p->hashes, p->nhashes, sizeof(*p->hashes), hash_sort);
	qsort(p->labs, n, sizeof(*p->labs), lab_sort);
	for (uint32_t i = 1; i < n; i++)
		if (!lab_cmp(&p->labs[i - 1], &p->labs[i])) {
			const struct af_ynode *a = p->ch[p->labs[i - 1].idx]->ynode;
			const struct af_ynode *b = p->ch[p->labs[i].idx]->ynode;
			return af_y_error(p->d, b, "duplicate label '%s' for %s (also at line %u); give "
					  "one of them a distinct 'label:'", p->labs[i].label,
					  cat_name(p->labs[i].cat), a->line);
		}
	p->nlabs = n;
	return 0;
}

static int32_t find_label(const struct ps *p, int cat, const char *s)
{
	struct lab key = { cat, s, 0 };
	uint32_t lo = 0, hi = p->nlabs;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int r = lab_cmp(&p->labs[mid], &key);
		if (!r)
			return (int32_t)p->labs[mid].idx;
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return JZ_NULL;
}

static int resolve(struct ps *p, const struct pref *r)
{
	int32_t c = find_label(p, r->cat, r->y->str);
	uint64_t h;
	if (c >= 0) {
		*r->slot = c;
		return 0;
	}
	/* a state/actor/parameter may also be named by any spelling that hashes the same */
	if ((r->cat == JZ_AD || r->cat == JZ_PD || r->cat == JZ_ST) &&
	    (is_hex_text(r->y->str, r->y->len) ? !af_parse_u64(r->y->str, r->y->len, &h)
	     : !sims3_hash_name(r->y->str, r->y->len, S3_H32, &h))) {
		struct hashref key = { r->cat, (uint32_t)h, 0 };
		uint32_t lo = 0, hi = p->nhashes;
		while (lo < hi) { /* the first chunk of the kind with the hash */
			uint32_t mid = lo + (hi - lo) / 2;
			if (hash_sort(&p->hashes[mid], &key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (h <= UINT32_MAX && lo < p->nhashes && p->hashes[lo].kind == r->cat && p->hashes[lo].h == h) {
			if (lo + 1 < p->nhashes && p->hashes[lo + 1].kind == r->cat && p->hashes[lo + 1].h == h)
				return af_y_error(p->d, r->y, "%s: '%s' matches several %s names; "
						  "use a label", r->path, r->y->str, jazz_kinds[r->cat].yname);
			*r->slot = (int32_t)p->hashes[lo].idx;
			return 0;
		}
	}
	for (int cat = 0; cat <= CAT_NODE; cat++)
		if (cat != r->cat && (c = find_label(p, cat, r->y->str)) >= 0)
			return af_y_error(p->d, r->y, "%s: '%s' points to %s (%s, line %u), expected %s",
					  r->path, r->y->str, cat_name(cat), jazz_kinds[p->ch[c]->kind].tag,
					  ((const struct af_ynode *)p->ch[c]->ynode)->line,
					  cat_name(r->cat));
	return af_y_error(p->d, r->y, "%s: dangling reference: no %s is labelled '%s'", r->path,
			  jazz_kinds[r->cat == CAT_NODE ? JZ_PLAY : r->cat].yname,
			  r->y->len > 60 ? "(long)" : r->y->str);
}

/* ------------------------------------------------------------ top level */

static int parse_rcol(struct ps *p, const struct af_ynode *root, struct jazz_model *m)
{
	const struct af_ynode *y = af_ymap_get(root, "rcol"), *v;
	m->rcol_version = 3;
	m->public_chunks = 1;
	m->unused = 0;
	if (!y)
		return 0;
	if (af_y_want(p->d, y, AF_YMAP, "rcol"))
		return AF_EINVAL;
	if (((v = af_ymap_get(y, "version")) && af_y_get_u32(p->d, v, &m->rcol_version, "rcol.version")) ||
	    ((v = af_ymap_get(y, "public_chunks")) &&
	     af_y_get_u32(p->d, v, &m->public_chunks, "rcol.public_chunks")) ||
	    ((v = af_ymap_get(y, "unused")) && af_y_get_u32(p->d, v, &m->unused, "rcol.unused")))
		return AF_EINVAL;
	if (m->rcol_version != 3)
		return af_y_error(p->d, y, "rcol.version: %u; only RCOL version 3 is known", m->rcol_version);
	if (m->public_chunks != 1)
		af_y_warn(p->d, y, "rcol.public_chunks is %u; every known Jazz resource has 1",
			  m->public_chunks);
	return 0;
}

static int parse_externals(struct ps *p, const struct af_ynode *root, struct jazz_model *m)
{
	const struct af_ynode *y = af_ymap_get(root, "externals");
	char ip[PATH_MAX_];
	m->nexternals = 0;
	m->externals = NULL;
	if (!y || af_y_is_null(y))
		return 0;
	if (af_y_want(p->d, y, AF_YSEQ, "externals"))
		return AF_EINVAL;
	if (y->n > INT32_MAX)
		return af_y_error(p->d, y, "externals: too many entries");
	m->externals = af_arena_array(p->a, y->n + 1, sizeof(*m->externals));
	if (!m->externals)
		return oom(p);
	for (size_t i = 0; i < y->n; i++)
		if (af_y_want(p->d, &y->items[i], AF_YMAP, sub(ip, "externals", "[%zu]", i)) ||
		    parse_key(p, &y->items[i], 0, -1, &m->externals[i], ip))
			return AF_EINVAL;
	m->nexternals = (uint32_t)y->n;
	return 0;
}


static int parse_machine(struct ps *p, const struct af_ynode *root, struct jazz_model *m)
{
	static const int anim_rules[3] = { S3_H32, S3_H32, S3_H32 };
	const struct af_ynode *y;
	struct jazz_chunk *sm;
	int32_t idx;
	if (af_y_want(p->d, root, AF_YMAP, "the document"))
		return AF_EINVAL;
	if (check_keys(p, root, JZ_SM, jazz_top_props, "top level") || new_chunk(p, JZ_SM, root, &idx))
		return AF_EINVAL;
	sm = p->ch[0];
	if (parse_fields(p, root, sm, "top level"))
		return AF_EINVAL;
	if ((y = af_ymap_get(root, "instance"))) {
		const struct af_ynode *nm = af_ymap_get(root, "name");
		if (get_hash(p, y, -1, &sm->ckey.instance, "instance"))
			return AF_EINVAL;
		if (!is_hex_text(nm->str, nm->len) &&
		    af_fnv1_64_lower(nm->str, nm->len) != sm->ckey.instance)
			af_y_warn(p->d, y, "instance is not the FNV-1 64 of the name '%s'; delete "
				  "'instance:' to derive the resource instance from the name",
				  nm->len > 60 ? "(long)" : nm->str);
	} else {
		y = af_ymap_get(root, "name");
		if (is_hex_text(y->str, y->len))
			return af_y_error(p->d, y, "name: the name is a hash, so the resource instance "
					  "(FNV-1 64 of the name) cannot be derived; add 'instance: 0x...'");
		sm->ckey.instance = af_fnv1_64_lower(y->str, y->len);
	}
	if (((y = af_ymap_get(root, "group")) && af_y_get_u32(p->d, y, &sm->ckey.group, "group")) ||
	    ((y = af_ymap_get(root, "version")) && af_y_get_u32(p->d, y, &sm->version, "version")))
		return AF_EINVAL;
	if (parse_rcol(p, root, m) || parse_externals(p, root, m) ||
	    def_list(p, af_ymap_get(root, "actors"), JZ_AD, &sm->list[0], "actors") ||
	    def_list(p, af_ymap_get(root, "parameters"), JZ_PD, &sm->list[1], "parameters") ||
	    parse_rows(p, af_ymap_get(root, "animations"), 3, anim_rules, &sm->nanims, &sm->anims,
		       "animations") ||
	    def_list(p, af_ymap_get(root, "states"), JZ_ST, &sm->list[2], "states"))
		return AF_EINVAL;
	y = af_ymap_get(root, "extra_chunks");
	if (y && !af_y_is_null(y)) {
		struct jazz_refs extra;
		if (af_y_want(p->d, y, AF_YSEQ, "extra_chunks"))
			return AF_EINVAL;
		for (size_t i = 0; i < y->n; i++)
			if (af_y_want(p->d, &y->items[i], AF_YMAP, "extra_chunks[]"))
				return AF_EINVAL;
		if (def_list(p, y, -1, &extra, "extra_chunks"))
			return AF_EINVAL;
	}
	return 0;
}

/* Visit every reference slot of a chunk. */
static void remap(struct jazz_chunk *ch, const uint32_t *pos)
{
#define MAP(x) ((x) = (x) < 0 ? (x) : (int32_t)pos[(x)])
	for (int i = 0; i < 2; i++)
		MAP(ch->ref[i]);
	for (int l = 0; l < 3; l++)
		for (uint32_t i = 0; i < ch->list[l].n; i++)
			MAP(ch->list[l].v[i]);
	for (uint32_t i = 0; i < ch->ncases; i++) {
		MAP(ch->cases[i].state);
		for (uint32_t k = 0; k < ch->cases[i].next.n; k++)
			MAP(ch->cases[i].next.v[k]);
	}
#undef MAP
}

static int place_chunks(struct ps *p, const struct af_ynode *root, struct jazz_model *m)
{
	const struct af_ynode *y = af_ymap_get(root, "chunk_order");
	uint32_t n = p->n, *order, *pos;
	struct jazz_chunk *tmp;
	order = af_arena_array(p->a, n, sizeof(*order));
	pos = af_arena_array(p->a, n, sizeof(*pos));
	tmp = af_arena_array(p->a, n, sizeof(*tmp));
	m->chunks = af_arena_array(p->a, n, sizeof(*m->chunks));
	if (!order || !pos || !tmp || !m->chunks)
		return oom(p);
	for (uint32_t i = 0; i < n; i++)
		tmp[i] = *p->ch[i];
	m->chunks = tmp; /* definition order, for the canonical order */
	m->nchunks = n;
	if (jazz_canonical_order(m, NULL, order, p->d))
		return AF_EINVAL;
	for (uint32_t i = 0; i < n; i++)
		pos[order[i]] = i;
	if (y && !af_y_is_null(y)) {
		uint8_t *seen = af_arena_alloc(p->a, n);
		if (!seen)
			return oom(p);
		if (af_y_want(p->d, y, AF_YSEQ, "chunk_order"))
			return AF_EINVAL;
		if (y->n != n)
			return af_y_error(p->d, y, "chunk_order: %zu entries, but the document defines %u "
					  "chunks; delete chunk_order to use the canonical order", (size_t)y->n, n);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t v;
			char ip[PATH_MAX_];
			if (af_y_get_u32(p->d, &y->items[i], &v, sub(ip, "chunk_order", "[%u]", i)))
				return AF_EINVAL;
			if (v >= n || seen[v] || (v == 0) != (order[i] == 0))
				return af_y_error(p->d, &y->items[i], "%s: %u is not a free chunk position "
						  "(0..%u, each once, 0 for the state machine)", ip, v, n - 1);
			seen[v] = 1;
			pos[order[i]] = v;
		}
	}
	m->chunks = af_arena_array(p->a, n, sizeof(*m->chunks));
	if (!m->chunks)
		return oom(p);
	for (uint32_t i = 0; i < n; i++) {
		m->chunks[pos[i]] = tmp[i];
		remap(&m->chunks[pos[i]], pos);
	}
	if (m->public_chunks > n)
		return af_y_error(p->d, root, "rcol.public_chunks %u is more than the %u chunks",
				  m->public_chunks, n);
	return 0;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Warnings of spec 8: chunks the lists do not reach, animation actors that are no actor. */
static void warn_unlisted(struct ps *p)
{
	uint8_t *listed = af_arena_alloc(p->a, p->n);
	const struct jazz_chunk *sm = p->ch[0];
	if (!listed)
		return;
	for (int l = 0; l < 3; l++)
		for (uint32_t k = 0; k < sm->list[l].n; k++)
			listed[sm->list[l].v[k]] = 1;
	uint32_t *names = af_arena_array(p->a, p->n + 1, sizeof(*names)), nn = 0;
	if (!names)
		return;
	for (uint32_t c = 0; c < p->n; c++)
		if (p->ch[c]->kind == JZ_AD)
			names[nn++] = p->ch[c]->u[0];
	qsort(names, nn, sizeof(*names), u32_cmp);
	for (uint32_t i = 0; i < sm->nanims; i++) {
		uint32_t a = sm->anims[3 * i + 2];
		if (a && !bsearch(&a, names, nn, sizeof(*names), u32_cmp))
			af_y_warn(p->d, sm->ynode, "animations[%u]: actor 0x%08X is the name of no actor",
				  i, a);
	}
	for (uint32_t i = 0; i < p->n; i++)
		if ((p->ch[i]->kind == JZ_AD || p->ch[i]->kind == JZ_PD || p->ch[i]->kind == JZ_ST) &&
		    !listed[i])
			af_y_warn(p->d, p->ch[i]->ynode, "%s '%s' is not listed in the state machine",
				  jazz_kinds[p->ch[i]->kind].yname, p->ch[i]->label ? p->ch[i]->label : "?");
	for (uint32_t i = 0; i < p->n; i++)
		if (p->ch[i]->kind == JZ_DG)
			for (uint32_t k = 0; k < p->ch[i]->list[0].n; k++)
				if (p->ch[i]->list[0].v[k] >= 0)
					listed[p->ch[i]->list[0].v[k]] = 1;
	for (uint32_t i = 0; i < p->n; i++)
		if (jazz_is_node(p->ch[i]->kind) && !listed[i])
			af_y_warn(p->d, p->ch[i]->ynode, "node '%s' is in no decision graph's nodes list",
				  p->ch[i]->label ? p->ch[i]->label : "?");
}

int jazz_parse(const struct af_ynode *root, struct af_arena *arena, struct jazz_model *m,
	     struct af_diag *d)
{
	struct ps p = { .d = d, .a = arena };
	int rc;
	m->arena = arena;
	rc = parse_machine(&p, root, m);
	if (!rc)
		rc = index_labels(&p);
	for (size_t i = 0; !rc && i < p.nrefs; i++)
		rc = resolve(&p, &p.refs[i]);
	if (!rc) {
		warn_unlisted(&p);
		rc = place_chunks(&p, root, m);
	}
	if (rc && !d->code)
		rc = af_diag_error(d, rc, "invalid Jazz YAML");
	if (!rc && p.nnames) {
		m->names = af_arena_array(arena, p.nnames, sizeof(*m->names));
		if (m->names) {
			memcpy(m->names, p.names, p.nnames * sizeof(*m->names));
			m->nnames = p.nnames;
		}
	}
	free(p.names);
	free(p.ch);
	free(p.refs);
	return rc ? (d->code ? d->code : rc) : 0;
}
