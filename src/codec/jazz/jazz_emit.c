/* Jazz model -> YAML: the machine, its actors, parameters and states, each state with its
 * decision graph and nodes. A chunk is written in full where the document first meets it
 * and by label everywhere else, so shared nodes and cycles print once and never loop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/bytes.h"
#include "animfs/fnv.h"
#include "animfs/num.h"
#include "animfs/yamlio.h"
#include "jazz.h"

struct em {
	struct af_buf *b;
	const struct jazz_model *m;
	struct sims3_names *nm;
	const char **label;
	uint8_t *explicit_label, *defined;
	uint32_t *rank, nrank;
	uint32_t *dg_users; /* states pointing at each S_DG */
	int first;          /* the next key follows a "- " already written */
	struct af_diag *d;
};

static void key(struct em *e, int ind, const char *k)
{
	if (e->first)
		e->first = 0;
	else
		af_y_indent(e->b, ind);
	af_buf_puts(e->b, k);
	af_buf_puts(e->b, ": ");
}

/* "key:" then a nested block on the next lines */
static void key_block(struct em *e, int ind, const char *k)
{
	key(e, ind, k);
	if (!e->b->failed) /* a failed buffer holds no space to drop */
		e->b->len--; /* drop the space key() wrote */
	af_buf_putc(e->b, '\n');
}

static const char *htext(struct em *e, uint64_t v, int rule, char *tmp)
{
	const char *s = rule >= 0 ? sims3_names_find(e->nm, v, rule) : NULL;
	if (s)
		return s;
	af_fmt_hex(tmp, v, rule == S3_H32 ? 8 : 16);
	return tmp;
}

/* Text that may be a 0x hash (plain: a hex literal reads back as a string in YAML anyway). */
static void put_text(struct em *e, const char *s)
{
	size_t n = strlen(s), i = 2;
	while (n > 2 && s[0] == '0' && s[1] == 'x' && i < n &&
	       ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'A' && s[i] <= 'F')))
		i++;
	if (n > 2 && i == n)
		af_buf_append(e->b, s, n);
	else
		af_y_str(e->b, s, n);
}

static void put_hash(struct em *e, uint64_t v, int rule)
{
	char t[AF_NUM_MAX];
	put_text(e, htext(e, v, rule, t));
}

static void put_flags(struct em *e, const struct jazz_enum *en, uint32_t v)
{
	uint32_t rest = v;
	int n = 0;
	if (!v) { /* not "[]": empty flow collections trip the core YAML reader under UBSan */
		af_buf_puts(e->b, "none");
		return;
	}
	af_buf_putc(e->b, '[');
	for (const struct jazz_enum_item *i = en->items; i->name; i++) {
		int multi = en->mask && (i->value & en->mask) == i->value;
		if (multi ? (v & en->mask) != i->value : !(i->value && (v & i->value) == i->value))
			continue;
		af_buf_puts(e->b, n++ ? ", " : "");
		af_buf_puts(e->b, i->name);
		rest &= ~i->value;
	}
	if (rest) {
		af_buf_puts(e->b, n++ ? ", " : "");
		af_y_hex(e->b, rest, 8);
	}
	af_buf_putc(e->b, ']');
}

static void put_value(struct em *e, const struct jazz_field *f, uint32_t v)
{
	const char *name;
	switch (f->ft) {
	case JZ_FT_F32: af_y_f32(e->b, af_f32_from_bits(v)); break;
	case JZ_FT_H32: put_hash(e, v, S3_H32); break;
	case JZ_FT_FLAGS: put_flags(e, f->e, v); break;
	case JZ_FT_ENUM:
		name = jazz_enum_name(f->e, v);
		if (name)
			af_buf_puts(e->b, name);
		else
			af_y_u64(e->b, v);
		break;
	default: af_y_u64(e->b, v); break;
	}
}

/* Table fields of a chunk; the S_SM name is followed by its instance when that is not
 * the FNV-1 64 of the name (so renaming the machine renames the resource). */
static void put_fields(struct em *e, const struct jazz_chunk *ch, int ind)
{
	for (const struct jazz_field *f = jazz_fields[ch->kind]; f->name; f++) {
		if (f->omit && ch->u[f->slot] == f->def)
			continue;
		key(e, ind, f->name);
		put_value(e, f, ch->u[f->slot]);
		af_buf_putc(e->b, '\n');
		if (ch->kind == JZ_SM && f->slot == 0) {
			char t[AF_NUM_MAX];
			const char *s = htext(e, ch->u[0], S3_H32, t);
			if (s == t || af_fnv1_64_lower(s, strlen(s)) != ch->ckey.instance) {
				key(e, ind, "instance");
				af_y_hex(e->b, ch->ckey.instance, 16);
				af_buf_putc(e->b, '\n');
			}
		}
	}
}

static void put_ref(struct em *e, int32_t c)
{
	if (c < 0)
		af_buf_puts(e->b, "null");
	else
		put_text(e, e->label[c]);
}

static void put_refs(struct em *e, const struct jazz_refs *l)
{
	af_buf_putc(e->b, '[');
	for (uint32_t i = 0; i < l->n; i++) {
		if (i)
			af_buf_puts(e->b, ", ");
		put_ref(e, l->v[i]);
	}
	af_buf_putc(e->b, ']');
}

static void put_key(struct em *e, const struct jazz_key *k, uint32_t deftype, int rule)
{
	if (k->type == deftype && !k->group) {
		put_hash(e, k->instance, rule);
		return;
	}
	af_buf_puts(e->b, "{instance: ");
	put_hash(e, k->instance, k->type == deftype ? rule : -1);
	if (k->type != deftype) {
		af_buf_puts(e->b, ", type: ");
		af_y_hex(e->b, k->type, 8);
	}
	if (k->group) {
		af_buf_puts(e->b, ", group: ");
		af_y_hex(e->b, k->group, 8);
	}
	af_buf_putc(e->b, '}');
}

/* UTF-16 -> UTF-8; a lone surrogate cannot be written back from YAML text. */
static int put_utf16(struct em *e, const struct jazz_str *s, const char *what)
{
	struct af_buf t = AF_BUF_INIT;
	int rc = 0;
	for (uint32_t i = 0; i < s->n; i++) {
		uint32_t cp = s->u[i];
		if (cp >= 0xD800 && cp <= 0xDBFF && i + 1 < s->n && s->u[i + 1] >= 0xDC00 &&
		    s->u[i + 1] <= 0xDFFF)
			cp = 0x10000 + ((cp - 0xD800) << 10) + (s->u[++i] - 0xDC00);
		else if (cp >= 0xD800 && cp <= 0xDFFF) {
			rc = af_diag_error(e->d, AF_EUNSUP, "Play %s: string has a lone UTF-16 "
					   "surrogate, which YAML text cannot carry", what);
			goto out;
		}
		if (cp < 0x80) {
			af_buf_put_u8(&t, (uint8_t)cp);
		} else if (cp < 0x800) {
			af_buf_put_u8(&t, (uint8_t)(0xC0 | cp >> 6));
			af_buf_put_u8(&t, (uint8_t)(0x80 | (cp & 63)));
		} else if (cp < 0x10000) {
			af_buf_put_u8(&t, (uint8_t)(0xE0 | cp >> 12));
			af_buf_put_u8(&t, (uint8_t)(0x80 | (cp >> 6 & 63)));
			af_buf_put_u8(&t, (uint8_t)(0x80 | (cp & 63)));
		} else {
			af_buf_put_u8(&t, (uint8_t)(0xF0 | cp >> 18));
			af_buf_put_u8(&t, (uint8_t)(0x80 | (cp >> 12 & 63)));
			af_buf_put_u8(&t, (uint8_t)(0x80 | (cp >> 6 & 63)));
			af_buf_put_u8(&t, (uint8_t)(0x80 | (cp & 63)));
		}
	}
	af_y_str(e->b, t.len ? (const char *)t.data : "", t.len);
out:
	af_buf_free(&t);
	return rc;
}

static void put_u32_rows(struct em *e, int ind, const char *k, const uint32_t *v, uint32_t n,
			 int width, const int *rules)
{
	if (!n)
		return;
	key_block(e, ind, k);
	for (uint32_t i = 0; i < n; i++) {
		af_y_indent(e->b, ind + 2);
		af_buf_puts(e->b, "- [");
		for (int j = 0; j < width; j++) {
			if (j)
				af_buf_puts(e->b, ", ");
			if (rules[j] < 0)
				af_y_u64(e->b, v[i * width + j]);
			else
				put_hash(e, v[i * width + j], rules[j]);
		}
		af_buf_puts(e->b, "]\n");
	}
}

static void put_next(struct em *e, int ind, const struct jazz_refs *l)
{
	if (!l->n)
		return;
	key(e, ind, "next");
	put_refs(e, l);
	af_buf_putc(e->b, '\n');
}

static void put_ref_line(struct em *e, int ind, const char *k, int32_t c)
{
	key(e, ind, k);
	put_ref(e, c);
	af_buf_putc(e->b, '\n');
}

static void put_cases(struct em *e, const struct jazz_chunk *ch, int ind)
{
	static const char *const names[] = { "outcomes", "cases", "cases" };
	int which = ch->kind == JZ_RAND ? 0 : ch->kind == JZ_SOPN ? 1 : 2;
	if (!ch->ncases)
		return; /* absent = empty */
	key_block(e, ind, names[which]);
	for (uint32_t i = 0; i < ch->ncases; i++) {
		const struct jazz_case *k = &ch->cases[i];
		af_y_indent(e->b, ind + 2);
		if (which == 0) {
			af_buf_puts(e->b, "- {weight: ");
			af_y_f32(e->b, af_f32_from_bits(k->value));
		} else if (which == 1) {
			af_buf_puts(e->b, "- {value: ");
			put_hash(e, k->value, S3_H32);
		} else {
			af_buf_puts(e->b, "- {state: ");
			put_ref(e, k->state);
		}
		if (k->next.n) { /* absent = empty */
			af_buf_puts(e->b, ", next: ");
			put_refs(e, &k->next);
		}
		af_buf_puts(e->b, "}\n");
	}
}

static int put_chunk(struct em *e, int32_t c, int ind, int in_extra);

/* A list of chunks: definitions for the ones not yet written, labels for the others. */
static int put_def_list(struct em *e, int ind, const char *k, const struct jazz_refs *l)
{
	if (!l->n)
		return 0; /* absent = empty */
	key_block(e, ind, k);
	for (uint32_t i = 0; i < l->n; i++) {
		af_y_indent(e->b, ind + 2);
		af_buf_puts(e->b, "- ");
		if (e->defined[l->v[i]]) {
			put_ref(e, l->v[i]);
			af_buf_putc(e->b, '\n');
			continue;
		}
		e->first = 1;
		int rc = put_chunk(e, l->v[i], ind + 4, 0);
		if (rc)
			return rc;
	}
	return 0;
}

static int graph_is_plain_empty(const struct em *e, int32_t g)
{
	const struct jazz_chunk *ch = &e->m->chunks[g];
	return !ch->list[0].n && !ch->list[1].n && !ch->u[0] && !e->explicit_label[g] &&
	       ch->version == jazz_kinds[JZ_DG].version && !ch->ckey.instance && !ch->ckey.group;
}

static int put_state_graph(struct em *e, const struct jazz_chunk *st, int ind)
{
	int32_t g = st->ref[0];
	key(e, ind, "decision_graph");
	if (g < 0 || e->defined[g]) {
		put_ref(e, g);
		af_buf_putc(e->b, '\n');
		return 0;
	}
	if (graph_is_plain_empty(e, g)) {
		e->defined[g] = 1;
		e->rank[g] = e->nrank++;
		af_buf_puts(e->b, "empty\n");
		return 0;
	}
	if (!e->b->failed)
		e->b->len--;
	af_buf_putc(e->b, '\n');
	return put_chunk(e, g, ind + 2, 0);
}

static int put_body(struct em *e, const struct jazz_chunk *ch, int ind)
{
	static const int slot_rules[4] = { -1, -1, S3_H32, S3_H32 };
	static const int suffix_rules[2] = { S3_H32, S3_H32 };
	int rc = 0;
	switch (ch->kind) {
	case JZ_ST:
		put_fields(e, ch, ind);
		if (ch->list[0].n) {
			key(e, ind, "transitions");
			put_refs(e, &ch->list[0]);
			af_buf_putc(e->b, '\n');
		}
		return put_state_graph(e, ch, ind);
	case JZ_DG:
		if (ch->list[1].n) {
			key(e, ind, "entry_points");
			put_refs(e, &ch->list[1]);
			af_buf_putc(e->b, '\n');
		}
		put_fields(e, ch, ind);
		return put_def_list(e, ind, "nodes", &ch->list[0]);
	case JZ_PLAY:
		key(e, ind, "clip");
		put_key(e, &ch->key[0], JZ_TYPE_CLIP, S3_HCLIP);
		af_buf_putc(e->b, '\n');
		if (ch->key[1].instance || ch->key[1].type || ch->key[1].group) {
			key(e, ind, "track_mask");
			put_key(e, &ch->key[1], JZ_TYPE_TKMK, S3_H64);
			af_buf_putc(e->b, '\n');
		}
		if (ch->key[2].instance || ch->key[2].type || ch->key[2].group) {
			key(e, ind, "additive_clip");
			put_key(e, &ch->key[2], JZ_TYPE_CLIP, S3_HCLIP);
			af_buf_putc(e->b, '\n');
		}
		for (int s = 0; s < 2; s++) {
			if (!ch->str[s].n)
				continue;
			key(e, ind, s ? "additive_animation" : "animation");
			if ((rc = put_utf16(e, &ch->str[s], s ? "additive_animation" : "animation")))
				return rc;
			af_buf_putc(e->b, '\n');
		}
		put_ref_line(e, ind, "actor", ch->ref[0]);
		put_fields(e, ch, ind);
		put_u32_rows(e, ind, "actor_slots", ch->slots, ch->nslots, 4, slot_rules);
		put_u32_rows(e, ind, "actor_suffixes", ch->suffixes, ch->nsuffixes, 2, suffix_rules);
		put_next(e, ind, &ch->list[0]);
		return 0;
	case JZ_STOP:
		put_ref_line(e, ind, "actor", ch->ref[0]);
		put_fields(e, ch, ind);
		put_next(e, ind, &ch->list[0]);
		return 0;
	case JZ_RAND:
		put_fields(e, ch, ind);
		put_cases(e, ch, ind);
		return 0;
	case JZ_SOPN:
		put_ref_line(e, ind, "parameter", ch->ref[0]);
		put_cases(e, ch, ind);
		return 0;
	case JZ_DG00:
		put_cases(e, ch, ind);
		return 0;
	case JZ_SNSN:
		put_ref_line(e, ind, "state", ch->ref[0]);
		return 0;
	case JZ_PROP:
		put_ref_line(e, ind, "actor", ch->ref[0]);
		put_ref_line(e, ind, "parameter", ch->ref[1]);
		key(e, ind, "prop");
		put_key(e, &ch->key[0], JZ_TYPE_PROP, -1);
		af_buf_putc(e->b, '\n');
		put_fields(e, ch, ind);
		put_next(e, ind, &ch->list[0]);
		return 0;
	case JZ_ACOP:
		put_ref_line(e, ind, "actor", ch->ref[0]);
		put_fields(e, ch, ind);
		put_next(e, ind, &ch->list[0]);
		return 0;
	case JZ_OPAQUE:
		key(e, ind, "data");
		af_y_hexblock(e->b, ch->data, ch->len, ind + 2);
		return 0;
	default:
		put_fields(e, ch, ind);
		return 0;
	}
}

static int put_chunk(struct em *e, int32_t c, int ind, int in_extra)
{
	const struct jazz_chunk *ch = &e->m->chunks[c];
	const struct jazz_kind_info *k = &jazz_kinds[ch->kind];
	e->defined[c] = 1;
	e->rank[c] = e->nrank++;
	if (e->explicit_label[c] || jazz_is_node(ch->kind)) {
		key(e, ind, "label");
		put_text(e, e->label[c]);
		af_buf_putc(e->b, '\n');
	}
	if (in_extra || jazz_is_node(ch->kind)) {
		key(e, ind, "kind");
		af_buf_puts(e->b, k->yname);
		af_buf_putc(e->b, '\n');
	}
	if (ch->kind != JZ_OPAQUE && ch->version != k->version) {
		key(e, ind, "version");
		af_y_hex(e->b, ch->version, ch->version > 0xFFFF ? 8 : 4);
		af_buf_putc(e->b, '\n');
	}
	if (ch->kind == JZ_OPAQUE || ch->ckey.instance || ch->ckey.group) {
		key(e, ind, "key");
		af_buf_puts(e->b, "{instance: ");
		af_y_hex(e->b, ch->ckey.instance, 16);
		if (ch->kind == JZ_OPAQUE) {
			af_buf_puts(e->b, ", type: ");
			af_y_hex(e->b, ch->ckey.type, 8);
		}
		af_buf_puts(e->b, ", group: ");
		af_y_hex(e->b, ch->ckey.group, 8);
		af_buf_puts(e->b, "}\n");
	}
	return put_body(e, ch, ind);
}

struct dup {
	int kind;
	uint32_t hash, idx;
};

static int dup_cmp(const void *a, const void *b)
{
	const struct dup *x = a, *y = b;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* How many earlier actors/parameters/states share each one's name (sorting keeps this
 * O(n log n) for hostile files with many chunks). */
static int count_repeats(const struct em *e, uint32_t *repeat)
{
	const struct jazz_model *m = e->m;
	struct dup *v = af_alloc((m->nchunks + 1) * sizeof(*v));
	uint32_t n = 0;
	if (!v)
		return AF_ENOMEM;
	for (uint32_t c = 0; c < m->nchunks; c++) {
		int k = m->chunks[c].kind;
		if (k == JZ_AD || k == JZ_PD || k == JZ_ST)
			v[n++] = (struct dup){ k, m->chunks[c].u[0], c };
	}
	qsort(v, n, sizeof(*v), dup_cmp);
	for (uint32_t i = 1; i < n; i++)
		if (v[i].kind == v[i - 1].kind && v[i].hash == v[i - 1].hash)
			repeat[v[i].idx] = repeat[v[i - 1].idx] + 1;
	free(v);
	return 0;
}

/* Labels: names for actors, parameters and states ("#2" on repeats), kind + counter for
 * nodes and graphs. */
static int make_labels(struct em *e, struct af_arena *a)
{
	const struct jazz_model *m = e->m;
	uint32_t counter[JZ_NKINDS] = { 0 };
	uint32_t *repeat = af_arena_array(a, m->nchunks + 1, sizeof(*repeat));
	if (!repeat || count_repeats(e, repeat))
		return AF_ENOMEM;
	for (uint32_t c = 0; c < m->nchunks; c++) {
		const struct jazz_chunk *ch = &m->chunks[c];
		char t[AF_NUM_MAX + 64];
		counter[ch->kind]++;
		if (ch->kind == JZ_AD || ch->kind == JZ_PD || ch->kind == JZ_ST) {
			char h[AF_NUM_MAX];
			const char *s = htext(e, ch->u[0], S3_H32, h);
			if (repeat[c]) {
				snprintf(t, sizeof(t), "%.*s#%u", 60, s, repeat[c] + 1);
				e->explicit_label[c] = 1;
				s = t;
			}
			e->label[c] = af_arena_strndup(a, s, strlen(s));
		} else {
			snprintf(t, sizeof(t), "%s%u", jazz_kinds[ch->kind].prefix, counter[ch->kind]);
			e->label[c] = af_arena_strndup(a, t, strlen(t));
		}
		if (!e->label[c])
			return AF_ENOMEM;
	}
	for (uint32_t c = 0; c < m->nchunks; c++)
		if (m->chunks[c].kind == JZ_ST && m->chunks[c].ref[0] >= 0)
			e->dg_users[m->chunks[c].ref[0]]++;
	for (uint32_t c = 0; c < m->nchunks; c++)
		if (m->chunks[c].kind == JZ_DG && e->dg_users[c] != 1)
			e->explicit_label[c] = 1;
	return 0;
}

static void put_top_key(struct em *e, const char *k, const struct jazz_key *key_)
{
	af_buf_puts(e->b, k);
	af_buf_puts(e->b, "{instance: ");
	af_y_hex(e->b, key_->instance, 16);
	af_buf_puts(e->b, ", type: ");
	af_y_hex(e->b, key_->type, 8);
	af_buf_puts(e->b, ", group: ");
	af_y_hex(e->b, key_->group, 8);
	af_buf_puts(e->b, "}\n");
}

static int put_document(struct em *e)
{
	const struct jazz_model *m = e->m;
	const struct jazz_chunk *sm = &m->chunks[0];
	static const int anim_rules[3] = { S3_H32, S3_H32, S3_H32 };
	int rc;
	af_buf_puts(e->b, "# The Sims 3 animation state machine (Jazz, RCOL resource 0x02D5DF13), "
		    "decoded by animfs.\n# Names replace hashes where a _KEY name map or the "
		    "built-in list gives one that hashes back.\nformat: sims3-jazz\n");
	e->defined[0] = 1;
	e->rank[0] = e->nrank++;
	put_fields(e, sm, 0);
	if (sm->version != jazz_kinds[JZ_SM].version) {
		af_buf_puts(e->b, "version: ");
		af_y_hex(e->b, sm->version, sm->version > 0xFFFF ? 8 : 4);
		af_buf_putc(e->b, '\n');
	}
	if (sm->ckey.group) {
		af_buf_puts(e->b, "group: ");
		af_y_hex(e->b, sm->ckey.group, 8);
		af_buf_putc(e->b, '\n');
	}
	if (m->rcol_version != 3 || m->public_chunks != 1 || m->unused)
		af_buf_printf(e->b, "rcol: {version: %u, public_chunks: %u, unused: %u}\n",
			      m->rcol_version, m->public_chunks, m->unused);
	if (m->nexternals) {
		af_buf_puts(e->b, "externals:\n");
		for (uint32_t i = 0; i < m->nexternals; i++)
			put_top_key(e, "  - ", &m->externals[i]);
	}
	if ((rc = put_def_list(e, 0, "actors", &sm->list[0])) ||
	    (rc = put_def_list(e, 0, "parameters", &sm->list[1])))
		return rc;
	put_u32_rows(e, 0, "animations", sm->anims, sm->nanims, 3, anim_rules);
	if ((rc = put_def_list(e, 0, "states", &sm->list[2])))
		return rc;
	for (uint32_t c = 0, any = 0; c < m->nchunks; c++) {
		if (e->defined[c])
			continue;
		if (!any++)
			af_buf_puts(e->b, "# chunks that no list above reaches\nextra_chunks:\n");
		af_buf_puts(e->b, "  - ");
		e->first = 1;
		if ((rc = put_chunk(e, (int32_t)c, 4, 1)))
			return rc;
	}
	return 0;
}

static int put_chunk_order(struct em *e)
{
	uint32_t n = e->m->nchunks, *order = af_arena_array(e->m->arena, n, sizeof(*order));
	int rc, same = 1;
	if (!order)
		return af_diag_error(e->d, AF_ENOMEM, "out of memory");
	if ((rc = jazz_canonical_order(e->m, e->rank, order, e->d)))
		return rc;
	for (uint32_t i = 0; i < n; i++)
		same &= order[i] == i;
	if (same)
		return 0;
	af_buf_puts(e->b, "# file position of each chunk, in the canonical order "
		    "(delete this to re-order canonically)\nchunk_order: [");
	for (uint32_t i = 0; i < n; i++)
		af_buf_printf(e->b, "%s%u", i ? ", " : "", order[i]);
	af_buf_puts(e->b, "]\n");
	return 0;
}

int jazz_emit(const struct jazz_model *m, struct sims3_names *names, struct af_buf *out,
	    struct af_diag *d)
{
	struct em e = { .b = out, .m = m, .nm = names, .d = d };
	uint32_t n = m->nchunks;
	int rc;
	e.label = af_arena_array(m->arena, n, sizeof(*e.label));
	e.explicit_label = af_arena_alloc(m->arena, n);
	e.defined = af_arena_alloc(m->arena, n);
	e.rank = af_arena_array(m->arena, n, sizeof(*e.rank));
	e.dg_users = af_arena_array(m->arena, n, sizeof(*e.dg_users));
	if (!e.label || !e.explicit_label || !e.defined || !e.rank || !e.dg_users ||
	    make_labels(&e, m->arena))
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	if ((rc = put_document(&e)) || (rc = put_chunk_order(&e)))
		return rc;
	if (out->failed)
		return af_diag_error(d, AF_ENOMEM, "out of memory writing YAML");
	return 0;
}
