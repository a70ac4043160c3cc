/* Shenmue MOTN: YAML (af_ydoc tree) -> model, with the edit validation of spec
 * section 7. Every error names the YAML line:column and a path such as
 * "blocks[627] (A_WALK_L_02) bone 0 ty key 3". */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/num.h"
#include "animfs/yamlio.h"
#include "motn.h"

struct pctx {
	struct af_diag *d;
	struct af_arena *a;
	struct motn_file *f;
	struct af_buf tmp;
	/* where we are, for messages */
	uint32_t bi;
	const char *bname;
	int bone, chan, key, node;
	/* block ids, each sorted for lookup: numeric ones, word labels */
	struct idref *ids;
	uint32_t nids;
	struct lblref *lbls;
	uint32_t nlbls;
};

struct idref {
	uint64_t num;
	uint32_t idx;
};

struct lblref {
	const char *s;
	uint32_t idx;
};

static int perr(struct pctx *p, const struct af_ynode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int perr(struct pctx *p, const struct af_ynode *n, const char *fmt, ...)
{
	char msg[512], path[200];
	int k = snprintf(path, sizeof(path), "blocks[%u] (%s)", p->bi, p->bname ? p->bname : "orphan");
	va_list ap;
	if (p->bone >= 0 && k < (int)sizeof(path))
		k += snprintf(path + k, sizeof(path) - (size_t)k, " bone %d", p->bone);
	if (p->node >= 0 && k < (int)sizeof(path))
		k += snprintf(path + k, sizeof(path) - (size_t)k, " node %d", p->node);
	if (p->chan >= 0 && k < (int)sizeof(path))
		k += snprintf(path + k, sizeof(path) - (size_t)k, " %s", motn_chan_names[p->chan]);
	if (p->key >= 0 && k < (int)sizeof(path))
		snprintf(path + k, sizeof(path) - (size_t)k, " key %d", p->key);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return af_y_error(p->d, n, "%s: %s", path, msg);
}

/* A small unsigned decimal or 0x integer, -1 when the scalar is not one. */
static inline int64_t small_uint(const struct af_ynode *n)
{
	uint64_t v = 0;
	if (!n || n->type != AF_YSCALAR)
		return -1;
	if (n->len && n->len <= 5) { /* frames and key types: plain digits, the common case */
		size_t i = 0;
		while (i < n->len && n->str[i] >= '0' && n->str[i] <= '9')
			v = v * 10 + (uint64_t)(n->str[i++] - '0');
		if (i == n->len)
			return (int64_t)v;
	}
	if (af_parse_u64(n->str, n->len, &v) || v > 0xFFFFFFFFu)
		return -1;
	return (int64_t)v;
}

/* Clinger's fast path: up to 15 digits and a power of ten up to 22 make both operands
 * exact, so one IEEE multiply or divide gives the correctly rounded double, the same
 * one strtod gives. Same syntax as af_parse_f64; anything else goes to it. */
static int fast_decimal(const char *s, size_t n, double *out)
{
	static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
				      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21,
				      1e22 };
	size_t i = 0;
	int neg = 0, digits = 0, scale = 0, e = 0, esign = 1, ed = 0;
	uint64_t m = 0;
	if (n && (s[0] == '-' || s[0] == '+'))
		neg = s[i++] == '-';
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++)
		m = m * 10 + (uint64_t)(s[i] - '0');
	if (i < n && s[i] == '.')
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++, scale--)
			m = m * 10 + (uint64_t)(s[i] - '0');
	if (!digits || digits > 15)
		return -1;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			esign = s[i++] == '-' ? -1 : 1;
		for (; i < n && s[i] >= '0' && s[i] <= '9' && ed < 4; i++, ed++)
			e = e * 10 + (s[i] - '0');
		if (!ed)
			return -1;
	}
	if (i != n)
		return -1;
	e = esign * e + scale;
	if (e < -22 || e > 22)
		return -1;
	double v = e < 0 ? (double)m / p10[-e] : (double)m * p10[e];
	*out = neg ? -v : v;
	return 0;
}

/* A value or slope: a finite decimal rounded to the nearest half, or 0xHHHH raw bits. */
static int get_half(struct pctx *p, const struct af_ynode *n, uint16_t *out, const char *what)
{
	double v;
	uint64_t bits;
	if (n->type != AF_YSCALAR)
		return perr(p, n, "%s: expected a number or 0xHHHH raw half bits", what);
	if (n->len > 2 && n->str[0] == '0' && (n->str[1] == 'x' || n->str[1] == 'X')) {
		if (af_parse_u64(n->str, n->len, &bits) || bits > 0xFFFF)
			return perr(p, n, "%s: '%s' is not 0xHHHH raw half bits", what, n->str);
		*out = (uint16_t)bits;
		return 0;
	}
	if ((fast_decimal(n->str, n->len, &v) && af_parse_f64(n->str, n->len, &v)) || !isfinite(v))
		return perr(p, n, "%s: expected a number or 0xHHHH raw half bits, got '%.40s'", what,
			    n->str);
	if (af_f64_to_f16(v, out))
		return perr(p, n, "%s: value %s is outside the half-float range (|x| must round to at "
			    "most 65504)", what, n->str);
	return 0;
}

static int get_hexbytes(struct pctx *p, const struct af_ynode *n, const char *what,
			const uint8_t **out, size_t *len)
{
	uint8_t *c;
	af_buf_reset(&p->tmp);
	if (af_y_get_hex(p->d, n, &p->tmp, what))
		return p->d->code;
	c = af_arena_alloc(p->a, p->tmp.len ? p->tmp.len : 1);
	if (!c)
		return af_diag_error(p->d, AF_ENOMEM, "out of memory");
	if (p->tmp.len)
		memcpy(c, p->tmp.data, p->tmp.len);
	*out = c;
	*len = p->tmp.len;
	return 0;
}

/* A key of map that the document's shape (motn_schema.c) does not have: an error. */
static int check_keys(struct pctx *p, const struct af_ynode *map, const struct af_sch_prop *props,
		      const char *what)
{
	const struct af_ynode *k = af_sch_unknown_key(props, map);
	char list[300];
	if (!k)
		return 0;
	af_sch_key_list(props, list, sizeof(list));
	return af_y_error(p->d, k, "%s: unknown key '%.40s' (expected %s)", what,
			  k->type == AF_YSCALAR ? k->str : "?", list);
}

static int parse_key(struct pctx *p, const struct af_ynode *n, struct motn_key *k)
{
	int64_t fr, ty;
	if (n->type != AF_YSEQ || n->n < 2)
		return perr(p, n, "a key is [frame, type, numbers...]");
	fr = small_uint(&n->items[0]);
	ty = small_uint(&n->items[1]);
	if (fr < 0 || fr > 0x7FFF)
		return perr(p, &n->items[0], "frame must be an integer 0..32766");
	if (ty < 0 || ty > 3)
		return perr(p, &n->items[1], "key type must be 0, 1, 2 or 3");
	if (n->n - 2 != (size_t)ty)
		return perr(p, n, "key type %d takes %d value(s) (%s), got %zu", (int)ty, (int)ty,
			    motn_key_types[ty].words, (size_t)n->n - 2);
	k->frame = (uint16_t)fr;
	k->type = (uint8_t)ty;
	if (ty && get_half(p, &n->items[2], &k->w[ty - 1], "value"))
		return p->d->code;
	for (int w = 0; w + 1 < ty; w++)
		if (get_half(p, &n->items[3 + w], &k->w[w], ty == 2 ? "slope" : w ? "out_slope" : "in_slope"))
			return p->d->code;
	return 0;
}

static int parse_chan(struct pctx *p, const struct af_ynode *n, struct motn_chan *ch)
{
	if (n->type != AF_YSEQ || n->n < 2)
		return perr(p, n, "channel needs at least 2 keys (frame 0 and frame F-1)");
	if (n->n > 0xFFFF + 2)
		return perr(p, n, "%zu keys: at most 65537 per channel", (size_t)n->n);
	ch->nkeys = (uint32_t)n->n;
	ch->node = n;
	ch->keys = af_arena_array(p->a, n->n, sizeof(*ch->keys));
	if (!ch->keys)
		return af_diag_error(p->d, AF_ENOMEM, "out of memory");
	for (size_t i = 0; i < n->n; i++) {
		p->key = (int)i;
		if (parse_key(p, &n->items[i], &ch->keys[i]))
			return p->d->code;
	}
	p->key = -1;
	return 0;
}

static int parse_bone(struct pctx *p, const struct af_ynode *n, struct motn_bone *b, int prev)
{
	const struct af_ynode *idn = af_ymap_get(n, "bone");
	int64_t id = small_uint(idn);
	if (n->type != AF_YMAP || !idn)
		return perr(p, n, "a bone is a map with 'bone: ID' and channels tx ty tz rx ry rz");
	if (id < 0 || id > MOTN_MAX_BONE)
		return perr(p, idn, "bone id %s out of range 0..127 (7-bit field)", idn->str);
	if (id <= prev)
		return perr(p, idn, "bone ids must be strictly ascending (%d follows %d)", (int)id, prev);
	b->id = (uint8_t)id;
	p->bone = (int)id;
	for (size_t i = 0; i < n->n; i++) {
		const struct af_ynode *kn = &n->items[2 * i];
		int c;
		if (kn == idn || (kn->type == AF_YSCALAR && !strcmp(kn->str, "bone")))
			continue;
		for (c = 0; c < MOTN_NCH; c++)
			if (kn->type == AF_YSCALAR && !strcmp(kn->str, motn_chan_names[c]))
				break;
		if (c == MOTN_NCH)
			return perr(p, kn, "unknown channel '%.20s' (channels are tx ty tz rx ry rz)",
				    kn->type == AF_YSCALAR ? kn->str : "?");
		b->mask |= (uint8_t)(1u << c);
		p->chan = c;
		if (parse_chan(p, &n->items[2 * i + 1], &b->ch[c]))
			return p->d->code;
	}
	p->chan = -1;
	if (!b->mask)
		return perr(p, n, "bone %d has no channels", (int)id);
	return 0;
}

/* Frames of a sequence's keys (spec 7.2). When every channel's last key sits on one
 * frame G != F-1, `frames` was changed and G is the old F-1: those last keys move to the
 * new F-1 (a warning says so); intermediate keys never move. */
static int check_frames(struct pctx *p, const struct af_ynode *fn, struct motn_seq *s)
{
	int g = -1, same = 1;
	for (uint32_t b = 0; b < s->nbones; b++)
		for (int c = 0; c < MOTN_NCH; c++)
			if (s->bones[b].mask & (1u << c)) {
				struct motn_chan *ch = &s->bones[b].ch[c];
				int last = ch->keys[ch->nkeys - 1].frame;
				same &= g < 0 || g == last;
				g = last;
			}
	if (same && g != s->frames - 1) {
		for (uint32_t b = 0; b < s->nbones; b++)
			for (int c = 0; c < MOTN_NCH; c++)
				if (s->bones[b].mask & (1u << c))
					s->bones[b].ch[c].keys[s->bones[b].ch[c].nkeys - 1].frame =
						(uint16_t)(s->frames - 1);
		af_y_warn(p->d, fn, "blocks[%u] (%s): frames changed: moved the last key of every "
			  "channel from frame %d to %d", p->bi, p->bname ? p->bname : "orphan", g,
			  s->frames - 1);
	}
	for (uint32_t b = 0; b < s->nbones; b++) {
		p->bone = s->bones[b].id;
		for (int c = 0; c < MOTN_NCH; c++) {
			struct motn_chan *ch = &s->bones[b].ch[c];
			if (!(s->bones[b].mask & (1u << c)))
				continue;
			p->chan = c;
			if (ch->nkeys - 2 > (s->wide ? 0xFFFFu : 0xFFu))
				return perr(p, &ch->node->items[0], "%u intermediate keys; at most 255 unless "
					    "wide_counts is true (better: split the clip)", ch->nkeys - 2);
			for (uint32_t k = 0; k < ch->nkeys; k++) {
				const struct motn_key *key = &ch->keys[k];
				const struct af_ynode *at = &ch->node->items[k].items[0];
				p->key = (int)k;
				if (k == 0 && key->frame != 0)
					return perr(p, at, "the first key must be at frame 0, not %u",
						    key->frame);
				if (key->frame >= s->frames)
					return perr(p, at, "frame %u is outside 0..F-1 (= 0..%u)", key->frame,
						    s->frames - 1u);
				if (k && key->frame < ch->keys[k - 1].frame)
					return perr(p, at, "frame %u is before the previous key's frame %u "
						    "(frames must not decrease)", key->frame,
						    ch->keys[k - 1].frame);
				if (k + 1 == ch->nkeys && key->frame != s->frames - 1)
					return perr(p, at, "the last key must be at frame F-1 (= %u), not %u",
						    s->frames - 1u, key->frame);
			}
		}
	}
	p->bone = p->chan = p->key = -1;
	return 0;
}

static int parse_seq(struct pctx *p, const struct af_ynode *n, struct motn_seq *s)
{
	const struct af_ynode *fn = af_ymap_get(n, "frames"), *rn, *wn, *bn;
	int64_t v;
	if (!fn)
		return perr(p, n, "missing key 'frames'");
	v = small_uint(fn);
	if (v < 1 || v > 0x7FFF)
		return perr(p, fn, "frames must be 1..32767 (15-bit field), got %s",
			    fn->type == AF_YSCALAR ? fn->str : "a collection");
	s->frames = (uint16_t)v;
	if (!(rn = af_ymap_get(n, "rig")))
		return perr(p, n, "missing key 'rig'");
	v = small_uint(rn);
	if (v < 0 || v > 0xFFFF)
		return perr(p, rn, "rig must be an integer 0..0x7FFF");
	if (v & 0x8000)
		return perr(p, rn, "rig 0x%04X has bit 15 set: such blocks are non-standard and can "
			    "only be kept raw", (unsigned)v);
	s->rig = (uint16_t)v;
	wn = af_ymap_get(n, "wide_counts");
	if (wn && (wn->type != AF_YSCALAR || (strcmp(wn->str, "true") && strcmp(wn->str, "false"))))
		return perr(p, wn, "wide_counts must be true or false");
	s->wide = wn && !strcmp(wn->str, "true");
	if (!(bn = af_ymap_get(n, "bones")))
		return perr(p, n, "missing key 'bones'");
	if (bn->type != AF_YSEQ || bn->n < 1 || bn->n > 128)
		return perr(p, bn, "a sequence needs 1..128 bone entries");
	s->nbones = (uint32_t)bn->n;
	s->bones = af_arena_array(p->a, bn->n, sizeof(*s->bones));
	if (!s->bones)
		return af_diag_error(p->d, AF_ENOMEM, "out of memory");
	for (size_t i = 0; i < bn->n; i++)
		if (parse_bone(p, &bn->items[i], &s->bones[i], i ? s->bones[i - 1].id : -1))
			return p->d->code;
	p->bone = -1;
	if (check_frames(p, fn, s))
		return p->d->code;
	size_t off[4];
	if (!motn_seq_layout(s, off) && off[3] > 0xFFFF)
		return perr(p, n, "sequence too large: block 5 would start at +0x%zX; the header "
			    "offsets are 16-bit (split the clip or drop keys)", off[3]);
	return 0;
}

static int cmp_idref(const void *a, const void *b)
{
	const struct idref *x = a, *y = b;
	return x->num < y->num ? -1 : x->num > y->num;
}

/* Labels in byte order, one label's blocks in their order. */
static int cmp_lblref(const void *a, const void *b)
{
	const struct lblref *x = a, *y = b;
	int c = strcmp(x->s, y->s);
	return c ? c : x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Block id scalar -> block index, or -1. */
static int64_t find_block(struct pctx *p, const struct af_ynode *n)
{
	uint64_t v;
	if (!n || n->type != AF_YSCALAR)
		return -1;
	if (!af_parse_u64(n->str, n->len, &v)) {
		struct idref key = { v, 0 }, *r = bsearch(&key, p->ids, p->nids, sizeof(key), cmp_idref);
		return r ? (int64_t)r->idx : -1;
	}
	struct lblref key = { n->str, 0 };
	size_t lo = 0, hi = p->nlbls;
	while (lo < hi) { /* the first of the label's blocks */
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(p->lbls[mid].s, key.s) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nlbls && !strcmp(p->lbls[lo].s, key.s) ? (int64_t)p->lbls[lo].idx : -1;
}

/* First pass over blocks: ids only, so entries can refer to them. */
static int block_ids(struct pctx *p, const struct af_ynode *bl)
{
	struct motn_file *f = p->f;
	if (af_y_want(p->d, bl, AF_YSEQ, "blocks"))
		return p->d->code;
	f->nblocks = (uint32_t)bl->n;
	f->blocks = af_arena_array(p->a, bl->n ? bl->n : 1, sizeof(*f->blocks));
	p->ids = af_alloc((bl->n ? bl->n : 1) * sizeof(*p->ids));
	p->lbls = af_alloc((bl->n ? bl->n : 1) * sizeof(*p->lbls));
	if (!f->blocks || !p->ids || !p->lbls)
		return af_diag_error(p->d, AF_ENOMEM, "out of memory");
	for (size_t i = 0; i < bl->n; i++) {
		const struct af_ynode *bn = &bl->items[i], *id;
		uint64_t v;
		if (af_y_want(p->d, bn, AF_YMAP, "blocks[]") ||
		    !(id = af_y_need(p->d, bn, "block", "blocks[]")) ||
		    af_y_want(p->d, id, AF_YSCALAR, "blocks[].block"))
			return p->d->code;
		f->blocks[i].line = bn->line;
		if (!af_parse_u64(id->str, id->len, &v)) {
			f->blocks[i].orig = (uint32_t)v;
			p->ids[p->nids].num = v;
			p->ids[p->nids++].idx = (uint32_t)i;
		} else {
			f->blocks[i].label = id->str;
			p->lbls[p->nlbls].s = id->str;
			p->lbls[p->nlbls++].idx = (uint32_t)i;
		}
	}
	/* word labels sorted (a scan of the earlier ones was quadratic in the blocks): the
	 * duplicate named is the first block whose label an earlier block has */
	qsort(p->lbls, p->nlbls, sizeof(*p->lbls), cmp_lblref);
	uint32_t dup = UINT32_MAX;
	for (uint32_t i = 1; i < p->nlbls; i++)
		if (!strcmp(p->lbls[i].s, p->lbls[i - 1].s) && p->lbls[i].idx < dup &&
		    (i < 2 || strcmp(p->lbls[i - 1].s, p->lbls[i - 2].s)))
			dup = p->lbls[i].idx;
	if (dup != UINT32_MAX)
		return af_y_error(p->d, af_ymap_get(&bl->items[dup], "block"), "blocks[%u]: duplicate block id", dup);
	qsort(p->ids, p->nids, sizeof(*p->ids), cmp_idref);
	for (uint32_t i = 1; i < p->nids; i++)
		if (p->ids[i].num == p->ids[i - 1].num)
			return af_y_error(p->d, af_ymap_get(&bl->items[p->ids[i].idx], "block"),
					  "blocks[%u]: duplicate block id", p->ids[i].idx);
	return 0;
}

static int parse_extras(struct pctx *p, const struct af_ynode *xm, const struct idref **xids)
{
	struct motn_file *f = p->f;
	struct idref *ids;
	if (af_y_want(p->d, xm, AF_YMAP, "extras"))
		return p->d->code;
	f->nextras = (uint32_t)xm->n;
	f->extras = af_arena_array(p->a, xm->n ? xm->n : 1, sizeof(*f->extras));
	ids = af_arena_array(p->a, xm->n ? xm->n : 1, sizeof(*ids));
	if (!f->extras || !ids)
		return af_diag_error(p->d, AF_ENOMEM, "out of memory");
	for (size_t i = 0; i < xm->n; i++) {
		const struct af_ynode *k = &xm->items[2 * i];
		int64_t id = small_uint(k);
		if (id < 0)
			return af_y_error(p->d, k, "extras: a key must be the blob's offset (0xHHHH)");
		f->extras[i].orig = (uint32_t)id;
		ids[i].num = (uint64_t)id;
		ids[i].idx = (uint32_t)i;
		if (get_hexbytes(p, &xm->items[2 * i + 1], "extras[]", &f->extras[i].bytes,
				 &f->extras[i].len))
			return p->d->code;
		if (!f->extras[i].len || f->extras[i].len % 4)
			return af_y_error(p->d, &xm->items[2 * i + 1], "extras[%s]: an extra blob must be "
					  "a non-empty multiple of 4 bytes, it has %zu", k->str,
					  f->extras[i].len);
	}
	qsort(ids, xm->n, sizeof(*ids), cmp_idref);
	*xids = ids;
	return 0;
}

static int parse_entries(struct pctx *p, const struct af_ynode *en, const struct idref *xids)
{
	struct motn_file *f = p->f;
	if (af_y_want(p->d, en, AF_YSEQ, "entries"))
		return p->d->code;
	if (en->n < 1 || en->n > MOTN_MAX_ENTRIES)
		return af_y_error(p->d, en, "entries: %zu entries; a MOTN holds 1..%u", (size_t)en->n,
				  MOTN_MAX_ENTRIES);
	f->nentries = (uint32_t)en->n;
	f->entries = af_arena_array(p->a, en->n, sizeof(*f->entries));
	if (!f->entries)
		return af_diag_error(p->d, AF_ENOMEM, "out of memory");
	for (size_t i = 0; i < en->n; i++) {
		const struct af_ynode *e = &en->items[i], *nm, *bn, *xn;
		struct motn_entry *me = &f->entries[i];
		char what[40];
		snprintf(what, sizeof(what), "entries[%zu]", i);
		if (af_y_want(p->d, e, AF_YMAP, what) || check_keys(p, e, motn_sch_entry, what))
			return p->d->code;
		if ((nm = af_ymap_get(e, "name"))) {
			if (af_y_get_str(p->d, nm, &me->name, &me->name_len, what))
				return p->d->code;
			if (strlen(me->name) != me->name_len)
				return af_y_error(p->d, nm, "%s: a name cannot contain NUL", what);
		} else if ((nm = af_ymap_get(e, "name_hex"))) {
			const uint8_t *b = NULL;
			if (get_hexbytes(p, nm, what, &b, &me->name_len))
				return p->d->code;
			if (memchr(b, 0, me->name_len))
				return af_y_error(p->d, nm, "%s: a name cannot contain NUL", what);
			me->name = (const char *)b;
		} else {
			return af_y_error(p->d, e, "%s: missing key 'name'", what);
		}
		if (!(bn = af_y_need(p->d, e, "block", what)) || !(xn = af_y_need(p->d, e, "extra", what)))
			return p->d->code;
		int64_t bi = find_block(p, bn), xo = small_uint(xn);
		if (bi < 0)
			return af_y_error(p->d, bn, "%s: block '%s' is not in blocks", what,
					  bn->type == AF_YSCALAR ? bn->str : "?");
		struct idref key = { (uint64_t)xo, 0 }, *r = NULL;
		if (xo >= 0)
			r = bsearch(&key, xids, f->nextras, sizeof(key), cmp_idref);
		if (!r)
			return af_y_error(p->d, xn, "%s: extra '%s' is not in extras", what,
					  xn->type == AF_YSCALAR ? xn->str : "?");
		me->block = (uint32_t)bi;
		me->extra = r->idx;
		f->extras[r->idx].referenced = 1;
	}
	return 0;
}

struct name_ref {
	const char *s;
	size_t len;
	uint32_t idx;
};

static int cmp_name(const void *a, const void *b)
{
	const struct name_ref *x = a, *y = b;
	int c = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* Empty or repeated names are legal in the format but become clashing file names in
 * tools, so they are worth a warning (the sample has neither). */
static int warn_names(struct pctx *p, const struct af_ynode *en)
{
	struct motn_file *f = p->f;
	struct name_ref *v = af_alloc(f->nentries * sizeof(*v));
	if (!v)
		return af_diag_error(p->d, AF_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < f->nentries; i++) {
		v[i] = (struct name_ref){ f->entries[i].name, f->entries[i].name_len, i };
		if (!v[i].len)
			af_y_warn(p->d, &en->items[i], "entries[%u]: empty name", i);
	}
	qsort(v, f->nentries, sizeof(*v), cmp_name);
	for (uint32_t i = 1; i < f->nentries; i++)
		if (v[i].len && !cmp_name(&v[i - 1], &v[i]))
			af_y_warn(p->d, &en->items[v[i].idx], "entries[%u]: the name is also used by "
				  "entries[%u]", v[i].idx, v[i - 1].idx);
	free(v);
	return 0;
}

/* names: is derived from entries; an edited list is refused. */
static int check_names(struct pctx *p, const struct af_ynode *nn, const uint32_t *first,
		       const uint32_t *next, uint32_t bi)
{
	size_t k = 0;
	if (nn->type != AF_YSEQ)
		return perr(p, nn, "names must be a list");
	for (uint32_t i = first[bi]; i != UINT32_MAX; i = next[i], k++) {
		const struct motn_entry *en = &p->f->entries[i];
		const struct af_ynode *s = k < nn->n ? &nn->items[k] : NULL;
		if (!s || (motn_name_ascii(en) && (s->type != AF_YSCALAR || s->len != en->name_len ||
						   memcmp(s->str, en->name, s->len))))
			return perr(p, s ? s : nn, "names are derived from entries; edit "
				    "entries[].block instead");
	}
	if (k != nn->n)
		return perr(p, &nn->items[k], "names are derived from entries; edit entries[].block "
			    "instead");
	return 0;
}

/* ---- blocks with rig bit 15 (motn_pose.c): sampled values, no keys ---- */

/* An angle: an integer -32768..32767 (65536 a turn), or 0xHHHH raw bits. */
static int get_angle(struct pctx *p, const struct af_ynode *n, uint16_t *out, const char *what)
{
	int64_t v;
	uint64_t u;
	if (n->type == AF_YSCALAR && n->len > 2 && n->str[0] == '0' && (n->str[1] == 'x' || n->str[1] == 'X')) {
		if (af_parse_u64(n->str, n->len, &u) || u > 0xFFFF)
			return perr(p, n, "%s: '%.20s' is not 0xHHHH", what, n->str);
		*out = (uint16_t)u;
		return 0;
	}
	if (n->type != AF_YSCALAR || af_parse_i64(n->str, n->len, &v) || v < -32768 || v > 32767)
		return perr(p, n, "%s: expected an angle, an integer -32768..32767 (65536 = one turn)",
			    what);
	*out = (uint16_t)(int16_t)v;
	return 0;
}

/* count values of list n into out[0], out[stride], ...: halves or angles. */
static int get_row(struct pctx *p, const struct af_ynode *n, size_t count, uint16_t *out,
		   size_t stride, int angles, const char *what)
{
	if (n->type != AF_YSEQ || n->n != count)
		return perr(p, n, "%s: expected a list of %zu values (one a frame), got %zu", what,
			    count, n->type == AF_YSEQ ? (size_t)n->n : 0);
	for (size_t i = 0; i < count; i++)
		if (angles ? get_angle(p, &n->items[i], &out[i * stride], what)
			   : get_half(p, &n->items[i], &out[i * stride], what))
			return p->d->code;
	return 0;
}

static int parse_frames(struct pctx *p, const struct af_ynode *m, uint16_t *out)
{
	const struct af_ynode *fn = af_ymap_get(m, "frames");
	int64_t v = small_uint(fn);
	if (!fn)
		return perr(p, m, "missing key 'frames'");
	if (v < 1 || v > 0x7FFF)
		return perr(p, fn, "frames must be 1..32767 (15-bit field)");
	*out = (uint16_t)v;
	return 0;
}

static int parse_baked(struct pctx *p, const struct af_ynode *m, struct motn_baked *k)
{
	const struct af_ynode *rn, *bl;
	int64_t v;
	if (af_y_want(p->d, m, AF_YMAP, "baked") || check_keys(p, m, motn_sch_baked, "baked") ||
	    parse_frames(p, m, &k->frames))
		return p->d->code;
	if (!(rn = af_ymap_get(m, "rig")) || (v = small_uint(rn)) < 0 || v > 0x7FFE)
		return perr(p, rn ? rn : m, "baked.rig must be 0..0x7FFE (the rig word without bit 15)");
	k->rig = (uint16_t)v;
	if (!(bl = af_ymap_get(m, "bones")) || bl->type != AF_YSEQ || !bl->n)
		return perr(p, bl ? bl : m, "baked.bones: a list, the root (bone 0) first");
	/* the mask first: it fixes the columns */
	for (size_t i = 0, prev = 0; i < bl->n; i++) {
		const struct af_ynode *bn = &bl->items[i], *id;
		if (af_y_want(p->d, bn, AF_YMAP, "baked.bones[]") ||
		    check_keys(p, bn, motn_sch_baked_bone, "baked.bones[]"))
			return p->d->code;
		if (!(id = af_ymap_get(bn, "bone")) || (v = small_uint(id)) < 0 || v > 63)
			return perr(p, id ? id : bn, "baked.bones[%zu]: bone must be 0..63", i);
		if ((i == 0) != (v == 0) || (i && v <= (int64_t)prev))
			return perr(p, id, "baked.bones: the root (bone 0) first, then bones 1..63 in "
				    "strictly ascending order");
		k->mask |= i ? 1ull << v : 0;
		prev = (size_t)v;
	}
	k->nwords = 6;
	for (unsigned id = 1; id < 64; id++)
		k->nwords += k->mask >> id & 1 ? (MOTN_HINGE(id) ? 1 : 3) : 0;
	k->w = af_arena_array(p->a, (size_t)k->frames * k->nwords, sizeof(*k->w));
	if (!k->w)
		return af_diag_error(p->d, AF_ENOMEM, "out of memory");
	size_t col = 0;
	for (size_t i = 0; i < bl->n; i++) {
		const struct af_ynode *bn = &bl->items[i];
		unsigned id = (unsigned)small_uint(af_ymap_get(bn, "bone"));
		static const char *const hinge[] = { "hinge", NULL };
		const char *const *want = !id ? NULL : MOTN_HINGE(id) ? hinge : NULL;
		int first = id ? MOTN_RX : MOTN_TX, nch = id ? 3 : 6;
		p->bone = (int)id;
		if ((size_t)(bn->n - 1) != (want ? 1u : (unsigned)nch))
			return perr(p, bn, "needs exactly the channels %s",
				    !id ? "tx ty tz rx ry rz" : want ? "hinge (one angle: bones 7, 14, 28, 34)"
				    : "rx ry rz");
		for (int c = 0; c < (want ? 1 : nch); c++, col++) {
			const char *key = want ? want[0] : motn_chan_names[first + c];
			const struct af_ynode *row = af_ymap_get(bn, key);
			if (!row)
				return perr(p, bn, "missing channel '%s'", key);
			if (get_row(p, row, k->frames, k->w + col, k->nwords, want || first + c >= MOTN_RX,
				    key))
				return p->d->code;
		}
	}
	p->bone = -1;
	return 0;
}

static int parse_node(struct pctx *p, const struct af_ynode *m, struct motn_node *nd,
		      size_t samples)
{
	const struct af_ynode *sc = af_ymap_get(m, "scale"), *t = af_ymap_get(m, "t");
	if (af_y_want(p->d, m, AF_YMAP, "nodes.list[]") ||
	    check_keys(p, m, motn_sch_node, "nodes.list[]"))
		return p->d->code;
	if (!sc || sc->type != AF_YSEQ || !sc->n)
		return perr(p, sc ? sc : m, "scale: [x, y, z], or one [x, y, z] a sample");
	if (sc->items[0].type == AF_YSEQ) {
		if (sc->n != samples)
			return perr(p, sc, "scale track: %zu samples, expected frames + 1 = %zu", (size_t)sc->n,
				    samples);
		if (!(nd->scale_track = af_arena_array(p->a, 3 * samples, sizeof(uint16_t))))
			return af_diag_error(p->d, AF_ENOMEM, "out of memory");
		for (size_t k = 0; k < samples; k++)
			if (get_row(p, &sc->items[k], 3, nd->scale_track + 3 * k, 1, 0, "scale"))
				return p->d->code;
	} else if (get_row(p, sc, 3, nd->scale, 1, 0, "scale")) {
		return p->d->code;
	}
	for (int c = 0; c < 3; c++) {
		const char *key = motn_chan_names[MOTN_RX + c];
		const struct af_ynode *r = af_ymap_get(m, key);
		if (!r)
			return perr(p, m, "missing key '%s'", key);
		if (r->type != AF_YSEQ) {
			if (get_angle(p, r, &nd->rot[c], key))
				return p->d->code;
			continue;
		}
		if (!(nd->rot_track[c] = af_arena_array(p->a, samples, sizeof(uint16_t))))
			return af_diag_error(p->d, AF_ENOMEM, "out of memory");
		if (get_row(p, r, samples, nd->rot_track[c], 1, 1, key))
			return p->d->code;
	}
	if (!t)
		return perr(p, m, "missing key 't'");
	return get_row(p, t, 3, nd->trans, 1, 0, "t");
}

static int parse_nodes(struct pctx *p, const struct af_ynode *m, struct motn_nodes *s)
{
	const struct af_ynode *un, *ln;
	uint64_t v;
	if (af_y_want(p->d, m, AF_YMAP, "nodes") || check_keys(p, m, motn_sch_nodes, "nodes") ||
	    parse_frames(p, m, &s->frames))
		return p->d->code;
	if (!(un = af_ymap_get(m, "unknown")) || un->type != AF_YSEQ || un->n != 2)
		return perr(p, un ? un : m, "nodes.unknown: the two header words [+4, +6]");
	for (int i = 0; i < 2; i++) {
		if (af_y_get_u64(p->d, &un->items[i], 0xFFFF, &v, "nodes.unknown"))
			return p->d->code;
		s->unknown[i] = (uint16_t)v;
	}
	if (!(ln = af_ymap_get(m, "list")) || ln->type != AF_YSEQ || !ln->n)
		return perr(p, ln ? ln : m, "nodes.list: one map a node, at least one");
	s->n = (uint32_t)ln->n;
	if (!(s->node = af_arena_array(p->a, ln->n, sizeof(*s->node))))
		return af_diag_error(p->d, AF_ENOMEM, "out of memory");
	for (size_t i = 0; i < ln->n; i++) {
		p->node = (int)i;
		if (parse_node(p, &ln->items[i], &s->node[i], (size_t)s->frames + 1))
			return p->d->code;
	}
	p->node = -1;
	return 0;
}

static int parse_block(struct pctx *p, const struct af_ynode *bn, struct motn_block *b,
		       int has_names)
{
	const struct af_ynode *raw = af_ymap_get(bn, "raw"), *k;
	b->orphan = !has_names; /* derived, like names: */
	if (!raw && (k = af_ymap_get(bn, "baked"))) {
		b->kind = MOTN_BAKED;
		return parse_baked(p, k, &b->baked);
	}
	if (!raw && (k = af_ymap_get(bn, "nodes"))) {
		b->kind = MOTN_NODES;
		return parse_nodes(p, k, &b->nodes);
	}
	if (!raw)
		return parse_seq(p, bn, &b->seq);
	const struct af_ynode *hx = af_ymap_get(bn, "hex"), *sz = af_ymap_get(bn, "size");
	if (!hx)
		return perr(p, bn, "a raw block needs its 'hex' bytes");
	b->raw = 1;
	if (get_hexbytes(p, hx, "hex", &b->bytes, &b->len))
		return p->d->code;
	if (!b->len)
		return perr(p, hx, "a raw block needs at least one byte");
	if (sz && small_uint(sz) != (int64_t)b->len)
		return perr(p, sz, "size says %s bytes but hex holds %zu; raw blocks are read-only",
			    sz->type == AF_YSCALAR ? sz->str : "?", b->len);
	return 0;
}

static int parse_blocks(struct pctx *p, const struct af_ynode *bl)
{
	struct motn_file *f = p->f;
	uint32_t *first = af_alloc(((size_t)f->nblocks + 1) * sizeof(*first));
	uint32_t *next = af_alloc((size_t)f->nentries * sizeof(*next));
	int rc = 0;
	if (!first || !next) {
		rc = af_diag_error(p->d, AF_ENOMEM, "out of memory");
		goto out;
	}
	memset(first, 0xFF, ((size_t)f->nblocks + 1) * sizeof(*first));
	for (uint32_t i = f->nentries; i-- > 0;) {
		next[i] = first[f->entries[i].block];
		first[f->entries[i].block] = i;
	}
	for (uint32_t i = 0; i < f->nblocks; i++) {
		const struct af_ynode *bn = &bl->items[i], *nn = af_ymap_get(bn, "names");
		p->bi = i;
		p->bname = first[i] != UINT32_MAX ? f->entries[first[i]].name : NULL;
		if ((rc = check_keys(p, bn, motn_sch_block, "blocks[]")))
			goto out;
		if (nn && (rc = check_names(p, nn, first, next, i)))
			goto out;
		if ((rc = parse_block(p, bn, &f->blocks[i], first[i] != UINT32_MAX)))
			goto out;
	}
out:
	free(first);
	free(next);
	return rc;
}

static int parse_header(struct pctx *p, const struct af_ynode *h, uint64_t *count,
			const struct af_ynode **count_node)
{
	const struct af_ynode *n;
	uint64_t v;
	struct motn_file *f = p->f;
	if (af_y_want(p->d, h, AF_YMAP, "header") || check_keys(p, h, motn_sch_header, "header"))
		return p->d->code;
	if (!(n = af_y_need(p->d, h, "attr_high", "header")) ||
	    af_y_get_u64(p->d, n, 0xFFFFF, &v, "header.attr_high"))
		return p->d->code;
	f->attr_high = (uint32_t)v;
	if (!(n = af_y_need(p->d, h, "pad", "header")) ||
	    get_hexbytes(p, n, "header.pad", &f->hdr_pad, &f->hdr_pad_len))
		return p->d->code;
	if (f->hdr_pad_len % 4)
		return af_y_error(p->d, n, "header.pad: %zu bytes; the table offset must stay a "
				  "multiple of 4", f->hdr_pad_len);
	f->table_off = (uint32_t)(0x14 + f->hdr_pad_len);
	if (!(n = af_y_need(p->d, h, "count", "header")) ||
	    af_y_get_u64(p->d, n, MOTN_MAX_ENTRIES, count, "header.count"))
		return p->d->code;
	*count_node = n;
	if ((n = af_ymap_get(h, "names_pad")) &&
	    get_hexbytes(p, n, "header.names_pad", &f->names_pad, &f->names_pad_len))
		return p->d->code;
	if ((n = af_ymap_get(h, "tail")) && get_hexbytes(p, n, "header.tail", &f->tail, &f->tail_len))
		return p->d->code;
	return 0;
}

int motn_parse(const struct af_ynode *r, struct af_arena *a, struct motn_file *f,
	       struct af_diag *d)
{
	struct pctx p;
	const struct af_ynode *hn, *en, *xn, *bn, *tn, *cn = NULL;
	const struct idref *xids = NULL;
	uint64_t count = 0;
	int rc;

	memset(f, 0, sizeof(*f));
	memset(&p, 0, sizeof(p));
	p.d = d;
	p.a = a;
	p.f = f;
	p.bone = p.chan = p.key = p.node = -1;
	af_buf_init(&p.tmp);
	if (af_y_want(d, r, AF_YMAP, "document") || check_keys(&p, r, motn_sch_document, "document") ||
	    !(hn = af_y_need(d, r, "header", "document")) ||
	    !(en = af_y_need(d, r, "entries", "document")) ||
	    !(xn = af_y_need(d, r, "extras", "document")) ||
	    !(bn = af_y_need(d, r, "blocks", "document")) ||
	    !(tn = af_y_need(d, r, "trailer", "document"))) {
		rc = d->code;
		goto out;
	}
	if ((rc = parse_header(&p, hn, &count, &cn)) || (rc = parse_extras(&p, xn, &xids)) ||
	    (rc = block_ids(&p, bn)) || (rc = parse_entries(&p, en, xids)))
		goto out;
	if ((rc = warn_names(&p, en)))
		goto out;
	if (count != f->nentries) {
		rc = af_y_error(d, cn, "entries: %u entries but header.count is %llu: entries cannot be "
				"added, removed or reordered (the game indexes them)", f->nentries,
				(unsigned long long)count);
		goto out;
	}
	if ((rc = parse_blocks(&p, bn)) ||
	    (rc = get_hexbytes(&p, tn, "trailer", &f->trailer, &f->trailer_len)))
		goto out;
	/* Labels and names still point into the tree, which the caller frees
	 * (chan->node does too; it is only used while parsing). */
	for (uint32_t i = 0; i < f->nblocks && !rc; i++)
		if (f->blocks[i].label && !(f->blocks[i].label = af_arena_strndup(
			    a, f->blocks[i].label, strlen(f->blocks[i].label))))
			rc = af_diag_error(d, AF_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < f->nentries && !rc; i++)
		if (!(f->entries[i].name = af_arena_strndup(a, f->entries[i].name,
							     f->entries[i].name_len)))
			rc = af_diag_error(d, AF_ENOMEM, "out of memory");
out:
	free(p.ids);
	free(p.lbls);
	af_buf_free(&p.tmp);
	return rc;
}
