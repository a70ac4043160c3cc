/* Jazz binary <-> model: the RCOL container (spec 3) and the 13 chunk layouts (spec 4).
 * The reader checks every count against the bytes left in its chunk before allocating,
 * every sentinel, padding and reference; errors name the absolute byte offset. */
#include <string.h>

#include "animfs/bytes.h"
#include "jazz.h"

#define NODE_MASK (1u << JZ_PLAY | 1u << JZ_STOP | 1u << JZ_RAND | 1u << JZ_SOPN | \
		   1u << JZ_DG00 | 1u << JZ_SNSN | 1u << JZ_PROP | 1u << JZ_ACOP)

struct rd {
	struct af_rd r;       /* limited to the end of the current chunk */
	struct jazz_model *m;
	const uint8_t *kinds; /* kind of every chunk, known before bodies are read */
	size_t base;          /* chunk start */
	uint32_t ci;
	struct af_diag *d;
};

static int fail(struct rd *c, size_t off, const char *what)
{
	return af_diag_at_offset(c->d, AF_EINVAL, off, "chunks[%u] (%s): %s", c->ci,
				 jazz_kinds[c->m->chunks[c->ci].kind].tag, what);
}

static int u32s(struct rd *c, uint32_t *v, int n)
{
	for (int i = 0; i < n; i++)
		if (af_rd_u32(&c->r, &v[i]))
			return AF_EINVAL;
	return 0;
}

static int sentinel(struct rd *c, uint32_t want)
{
	uint32_t v;
	size_t at = c->r.pos;
	if (af_rd_u32(&c->r, &v))
		return AF_EINVAL;
	if (v != want)
		return af_diag_at_offset(c->d, AF_EINVAL, at,
					 "chunks[%u] (%s): missing %s sentinel (found 0x%08X)", c->ci,
					 jazz_kinds[c->m->chunks[c->ci].kind].tag,
					 want == JZ_DEADBEEF ? "DEADBEEF" : "/DGN", v);
	return 0;
}

static const char *kinds_text(uint32_t mask)
{
	if (mask == NODE_MASK)
		return "a decision-graph node";
	for (int k = 0; k < JZ_NKINDS; k++)
		if (mask == 1u << k)
			return jazz_kinds[k].tag;
	return "?";
}

/* One reference (spec 3.5), resolved to a chunk index and checked against its kinds. */
static int ref(struct rd *c, int32_t *out, uint32_t mask, int nullable)
{
	uint32_t raw, k, idx;
	size_t at = c->r.pos;
	if (af_rd_u32(&c->r, &raw))
		return AF_EINVAL;
	if (raw == 0) {
		if (!nullable)
			return af_diag_at_offset(c->d, AF_EUNSUP, at,
						 "chunks[%u]: null entry in a reference list", c->ci);
		*out = JZ_NULL;
		return 0;
	}
	k = raw & 0x0FFFFFFFu;
	if (k == 0 || ((raw >> 28) != 0 && (raw >> 28) != 1) ||
	    ((raw >> 28) == 0 && k - 1 >= c->m->public_chunks) ||
	    ((raw >> 28) == 1 && (uint64_t)k - 1 + c->m->public_chunks >= c->m->nchunks))
		return af_diag_at_offset(c->d, AF_EUNSUP, at,
					 "chunks[%u]: reference 0x%08X is not a chunk of this file "
					 "(%u chunks, %u public)", c->ci, raw, c->m->nchunks,
					 c->m->public_chunks);
	idx = (raw >> 28) == 0 ? k - 1 : k - 1 + c->m->public_chunks;
	if (!(mask & 1u << c->kinds[idx]))
		return af_diag_at_offset(c->d, AF_EUNSUP, at,
					 "chunks[%u]: reference to chunk %u which is %s, expected %s",
					 c->ci, idx, jazz_kinds[c->kinds[idx]].tag, kinds_text(mask));
	*out = (int32_t)idx;
	return 0;
}

static int count(struct rd *c, uint32_t *n, uint64_t size)
{
	size_t at = c->r.pos;
	if (af_rd_u32(&c->r, n))
		return AF_EINVAL;
	if (*n > INT32_MAX)
		return fail(c, at, "negative count");
	if (af_rd_need(&c->r, c->r.pos, *n, size, "list"))
		return AF_EINVAL;
	return 0;
}

static int refs(struct rd *c, struct jazz_refs *l, uint32_t mask)
{
	if (count(c, &l->n, 4))
		return AF_EINVAL;
	l->v = af_arena_array(c->m->arena, l->n ? l->n : 1, sizeof(*l->v));
	if (!l->v)
		return af_diag_error(c->d, AF_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < l->n; i++)
		if (ref(c, &l->v[i], mask, 0))
			return AF_EINVAL;
	return 0;
}

static int key(struct rd *c, struct jazz_key *k)
{
	if (af_rd_u64(&c->r, &k->instance) || af_rd_u32(&c->r, &k->type) ||
	    af_rd_u32(&c->r, &k->group))
		return AF_EINVAL;
	return 0;
}

static int u32_array(struct rd *c, uint32_t n, int width, uint32_t **out)
{
	*out = af_arena_array(c->m->arena, (size_t)n * width + 1, 4);
	if (!*out)
		return af_diag_error(c->d, AF_ENOMEM, "out of memory");
	return u32s(c, *out, (int)(n * width)); /* n*width was checked against the chunk */
}

/* Play string (spec 4.6): i32 units, UTF-16LE, a zero terminator if non-empty, zero
 * padding to 4 from the chunk start. */
static int pstring(struct rd *c, struct jazz_str *s)
{
	size_t at;
	uint16_t z;
	if (count(c, &s->n, 2))
		return AF_EINVAL;
	s->u = af_arena_array(c->m->arena, s->n + 1, 2);
	if (!s->u)
		return af_diag_error(c->d, AF_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < s->n; i++) {
		at = c->r.pos;
		if (af_rd_u16(&c->r, &s->u[i]))
			return AF_EINVAL;
		if (!s->u[i])
			return af_diag_at_offset(c->d, AF_EUNSUP, at, "chunks[%u] (Play): string "
						 "contains a NUL character", c->ci);
	}
	if (s->n) {
		at = c->r.pos;
		if (af_rd_u16(&c->r, &z))
			return AF_EINVAL;
		if (z)
			return fail(c, at, "string terminator is not zero");
	}
	while ((c->r.pos - c->base) % 4) {
		uint8_t b;
		at = c->r.pos;
		if (af_rd_u8(&c->r, &b))
			return AF_EINVAL;
		if (b)
			return fail(c, at, "string padding is not zero");
	}
	return 0;
}

static int cases(struct rd *c, struct jazz_chunk *ch)
{
	if (count(c, &ch->ncases, 8))
		return AF_EINVAL;
	ch->cases = af_arena_array(c->m->arena, ch->ncases + 1, sizeof(*ch->cases));
	if (!ch->cases)
		return af_diag_error(c->d, AF_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < ch->ncases; i++) {
		struct jazz_case *k = &ch->cases[i];
		k->state = JZ_NULL;
		if (ch->kind == JZ_DG00 ? ref(c, &k->state, 1u << JZ_ST, 1)
					: af_rd_u32(&c->r, &k->value))
			return AF_EINVAL;
		if (refs(c, &k->next, NODE_MASK))
			return AF_EINVAL;
	}
	return 0;
}

/* Fields 14-26 of Play, all of Stop after its version. */
static int anim_tail(struct rd *c, struct jazz_chunk *ch)
{
	if (u32s(c, &ch->u[3], 7) || ref(c, &ch->ref[0], 1u << JZ_AD, 1) ||
	    u32s(c, &ch->u[10], 7) || sentinel(c, JZ_DEADBEEF) ||
	    refs(c, &ch->list[0], NODE_MASK) || sentinel(c, JZ_DGN))
		return AF_EINVAL;
	return 0;
}

static int body(struct rd *c, struct jazz_chunk *ch)
{
	switch (ch->kind) {
	case JZ_SM:
		if (af_rd_u32(&c->r, &ch->u[0]) || refs(c, &ch->list[0], 1u << JZ_AD) ||
		    refs(c, &ch->list[1], 1u << JZ_PD) || refs(c, &ch->list[2], 1u << JZ_ST) ||
		    count(c, &ch->nanims, 12) || u32_array(c, ch->nanims, 3, &ch->anims) ||
		    sentinel(c, JZ_DEADBEEF) || u32s(c, &ch->u[1], 7))
			return AF_EINVAL;
		return 0;
	case JZ_AD:
	case JZ_PD:
		return u32s(c, ch->u, 2);
	case JZ_ST:
		if (u32s(c, ch->u, 2) || ref(c, &ch->ref[0], 1u << JZ_DG, 1) ||
		    refs(c, &ch->list[0], 1u << JZ_ST) || af_rd_u32(&c->r, &ch->u[2]))
			return AF_EINVAL;
		return 0;
	case JZ_DG:
		if (af_rd_u32(&c->r, &ch->u[0]) || refs(c, &ch->list[0], NODE_MASK) ||
		    refs(c, &ch->list[1], NODE_MASK) || sentinel(c, JZ_DEADBEEF))
			return AF_EINVAL;
		return 0;
	case JZ_PLAY: {
		size_t at;
		if (key(c, &ch->key[0]) || key(c, &ch->key[1]))
			return AF_EINVAL;
		at = c->r.pos;
		if (af_rd_u32(&c->r, &ch->nslots) || u32s(c, ch->u, 3))
			return AF_EINVAL;
		if (ch->nslots > INT32_MAX || af_rd_need(&c->r, c->r.pos, ch->nslots, 16, "actor slots"))
			return fail(c, at, "actor slot count does not fit the chunk");
		if (u32_array(c, ch->nslots, 4, &ch->slots) || count(c, &ch->nsuffixes, 8) ||
		    u32_array(c, ch->nsuffixes, 2, &ch->suffixes) || sentinel(c, JZ_DEADBEEF) ||
		    key(c, &ch->key[2]) || pstring(c, &ch->str[0]) || pstring(c, &ch->str[1]) ||
		    sentinel(c, JZ_DEADBEEF))
			return AF_EINVAL;
		return anim_tail(c, ch);
	}
	case JZ_STOP:
		return anim_tail(c, ch);
	case JZ_RAND:
		if (cases(c, ch) || sentinel(c, JZ_DEADBEEF) || af_rd_u32(&c->r, &ch->u[0]) ||
		    sentinel(c, JZ_DGN))
			return AF_EINVAL;
		return 0;
	case JZ_SOPN:
		if (ref(c, &ch->ref[0], 1u << JZ_PD, 1) || cases(c, ch) ||
		    sentinel(c, JZ_DEADBEEF) || sentinel(c, JZ_DGN))
			return AF_EINVAL;
		return 0;
	case JZ_DG00:
		if (cases(c, ch) || sentinel(c, JZ_DEADBEEF) || sentinel(c, JZ_DGN))
			return AF_EINVAL;
		return 0;
	case JZ_SNSN:
		if (ref(c, &ch->ref[0], 1u << JZ_ST, 1) || sentinel(c, JZ_DGN))
			return AF_EINVAL;
		return 0;
	case JZ_PROP:
		if (ref(c, &ch->ref[0], 1u << JZ_AD, 1) || ref(c, &ch->ref[1], 1u << JZ_PD, 1) ||
		    key(c, &ch->key[0]) || u32s(c, ch->u, 4) || refs(c, &ch->list[0], NODE_MASK) ||
		    sentinel(c, JZ_DGN))
			return AF_EINVAL;
		return 0;
	case JZ_ACOP:
		if (ref(c, &ch->ref[0], 1u << JZ_AD, 1) || u32s(c, ch->u, 5) ||
		    refs(c, &ch->list[0], NODE_MASK) || sentinel(c, JZ_DGN))
			return AF_EINVAL;
		return 0;
	default:
		return 0;
	}
}

int jazz_head_ok(const uint8_t *p, size_t n)
{
	if (n < 32)
		return 0;
	uint32_t ext = af_le32(p + 12), cnt = af_le32(p + 16);
	return ext <= INT32_MAX && cnt >= 1 && cnt <= INT32_MAX && af_le32(p + 28) == JZ_TYPE_JAZZ;
}

static int read_header(const uint8_t *bin, size_t n, struct jazz_model *m, struct af_diag *d)
{
	uint32_t ext, cnt;
	if (n < 20)
		return af_diag_at_offset(d, AF_EINVAL, n, "a Jazz resource has a 20-byte header; "
					 "the data has %zu bytes", n);
	m->rcol_version = af_le32(bin);
	m->public_chunks = af_le32(bin + 4);
	m->unused = af_le32(bin + 8);
	ext = af_le32(bin + 12);
	cnt = af_le32(bin + 16);
	if (ext > INT32_MAX)
		return af_diag_at_offset(d, AF_EINVAL, 12, "negative external key count");
	if (cnt < 1 || cnt > INT32_MAX)
		return af_diag_at_offset(d, AF_EINVAL, 16, "chunk count %d: at least 1 is needed",
					 (int32_t)cnt);
	if (20 + 24 * (uint64_t)cnt + 16 * (uint64_t)ext > n)
		return af_diag_at_offset(d, AF_EINVAL, 16, "%u chunks and %u external keys need "
					 "%llu header bytes; the data has %zu", cnt, ext,
					 (unsigned long long)(20 + 24 * (uint64_t)cnt + 16 * (uint64_t)ext), n);
	if (m->rcol_version != 3)
		return af_diag_at_offset(d, AF_EUNSUP, 0, "RCOL version %u (only 3 is known)",
					 m->rcol_version);
	if (m->public_chunks > cnt)
		return af_diag_at_offset(d, AF_EUNSUP, 4, "public_chunks %u is more than the %u chunks",
					 m->public_chunks, cnt);
	m->nchunks = cnt;
	m->nexternals = ext;
	return 0;
}

static void rd_key(const uint8_t *p, struct jazz_key *k)
{
	k->instance = af_le64(p);
	k->type = af_le32(p + 8);
	k->group = af_le32(p + 12);
}

int jazz_decode(const uint8_t *bin, size_t n, struct jazz_model *m, struct af_diag *d)
{
	uint8_t *kinds;
	int rc = read_header(bin, n, m, d);
	if (rc)
		return rc;
	m->chunks = af_arena_array(m->arena, m->nchunks, sizeof(*m->chunks));
	m->externals = af_arena_array(m->arena, m->nexternals + 1, sizeof(*m->externals));
	kinds = af_arena_alloc(m->arena, m->nchunks);
	if (!m->chunks || !m->externals || !kinds)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	size_t idx = 20 + 16 * ((size_t)m->nchunks + m->nexternals);
	size_t expect = idx + 8 * (size_t)m->nchunks;
	for (uint32_t i = 0; i < m->nexternals; i++)
		rd_key(bin + 20 + 16 * ((size_t)m->nchunks + i), &m->externals[i]);
	/* Pass 1: keys, index, placement and tags decide every chunk's kind. */
	for (uint32_t i = 0; i < m->nchunks; i++) {
		struct jazz_chunk *ch = &m->chunks[i];
		uint32_t pos = af_le32(bin + idx + 8 * i), len = af_le32(bin + idx + 8 * i + 4);
		rd_key(bin + 20 + 16 * (size_t)i, &ch->ckey);
		if (len > INT32_MAX || !af_fits(pos, len, n))
			return af_diag_at_offset(d, AF_EINVAL, idx + 8 * i, "chunks[%u]: index entry "
						 "(0x%X, %u bytes) points outside the %zu-byte file",
						 i, pos, len, n);
		size_t end = expect; /* where the previous chunk (or the index) ends */
		expect = (expect + 3) & ~(size_t)3;
		if (pos != expect)
			return af_diag_at_offset(d, AF_EUNSUP, idx + 8 * i, "chunks[%u] starts at 0x%X; "
						 "the canonical packed layout puts it at 0x%zX "
						 "(non-canonical layouts are not supported)", i, pos, expect);
		for (size_t z = end; z < pos; z++)
			if (bin[z])
				return af_diag_at_offset(d, AF_EUNSUP, z, "non-zero padding between chunks "
							 "(the writer pads with zeros)");
		ch->kind = jazz_kind_of_type(ch->ckey.type);
		if (len < 8 || memcmp(bin + pos, jazz_kinds[ch->kind].tag, 4))
			ch->kind = JZ_OPAQUE;
		if ((i == 0) != (ch->kind == JZ_SM))
			return af_diag_at_offset(d, i ? AF_EUNSUP : AF_EINVAL, pos, i
						 ? "chunks[%u]: a second S_SM state machine"
						 : "chunks[%u]: the first chunk must be the S_SM state machine", i);
		ch->data = bin + pos;
		ch->len = len;
		ch->version = len >= 8 ? af_le32(bin + pos + 4) : 0;
		ch->ref[0] = ch->ref[1] = JZ_NULL;
		kinds[i] = (uint8_t)ch->kind;
		expect = (size_t)pos + len;
	}
	if (expect != n)
		return af_diag_at_offset(d, AF_EUNSUP, expect, "%zu bytes after the last chunk "
					 "(non-canonical layouts are not supported)", n - expect);
	/* Pass 2: bodies. */
	for (uint32_t i = 0; i < m->nchunks; i++) {
		struct jazz_chunk *ch = &m->chunks[i];
		size_t pos = (size_t)(ch->data - bin);
		struct rd c = { .m = m, .kinds = kinds, .base = pos, .ci = i, .d = d };
		if (ch->kind == JZ_OPAQUE)
			continue;
		af_rd_init(&c.r, bin, pos + ch->len, d);
		c.r.pos = pos + 8;
		if (body(&c, ch))
			return d->code ? d->code : AF_EINVAL;
		if (c.r.pos != pos + ch->len)
			return fail(&c, c.r.pos, "unparsed bytes after the last field");
	}
	return 0;
}

/* ------------------------------------------------------------------ encode */

struct wr {
	struct af_buf *b;
	const struct jazz_model *m;
};

static void w_ref(struct wr *w, int32_t c)
{
	uint32_t p = w->m->public_chunks, raw;
	if (c < 0)
		raw = 0;
	else if ((uint32_t)c < p)
		raw = (uint32_t)c + 1;
	else
		raw = 0x10000000u | ((uint32_t)c - p + 1);
	af_buf_put_u32le(w->b, raw);
}

static void w_refs(struct wr *w, const struct jazz_refs *l)
{
	af_buf_put_u32le(w->b, l->n);
	for (uint32_t i = 0; i < l->n; i++)
		w_ref(w, l->v[i]);
}

static void w_u32s(struct wr *w, const uint32_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		af_buf_put_u32le(w->b, v[i]);
}

static void w_key(struct wr *w, const struct jazz_key *k)
{
	af_buf_put_u64le(w->b, k->instance);
	af_buf_put_u32le(w->b, k->type);
	af_buf_put_u32le(w->b, k->group);
}

static void w_str(struct wr *w, const struct jazz_str *s, size_t base)
{
	af_buf_put_u32le(w->b, s->n);
	for (uint32_t i = 0; i < s->n; i++)
		af_buf_put_u16le(w->b, s->u[i]);
	if (s->n)
		af_buf_put_u16le(w->b, 0);
	while ((w->b->len - base) % 4 && !w->b->failed)
		af_buf_put_u8(w->b, 0);
}

static void w_cases(struct wr *w, const struct jazz_chunk *ch)
{
	af_buf_put_u32le(w->b, ch->ncases);
	for (uint32_t i = 0; i < ch->ncases; i++) {
		if (ch->kind == JZ_DG00)
			w_ref(w, ch->cases[i].state);
		else
			af_buf_put_u32le(w->b, ch->cases[i].value);
		w_refs(w, &ch->cases[i].next);
	}
}

static void w_anim_tail(struct wr *w, const struct jazz_chunk *ch)
{
	w_u32s(w, &ch->u[3], 7);
	w_ref(w, ch->ref[0]);
	w_u32s(w, &ch->u[10], 7);
	af_buf_put_u32le(w->b, JZ_DEADBEEF);
	w_refs(w, &ch->list[0]);
	af_buf_put_u32le(w->b, JZ_DGN);
}

static void w_body(struct wr *w, const struct jazz_chunk *ch, size_t base)
{
	switch (ch->kind) {
	case JZ_SM:
		af_buf_put_u32le(w->b, ch->u[0]);
		for (int i = 0; i < 3; i++)
			w_refs(w, &ch->list[i]);
		af_buf_put_u32le(w->b, ch->nanims);
		w_u32s(w, ch->anims, 3 * (size_t)ch->nanims);
		af_buf_put_u32le(w->b, JZ_DEADBEEF);
		w_u32s(w, &ch->u[1], 7);
		break;
	case JZ_AD:
	case JZ_PD:
		w_u32s(w, ch->u, 2);
		break;
	case JZ_ST:
		w_u32s(w, ch->u, 2);
		w_ref(w, ch->ref[0]);
		w_refs(w, &ch->list[0]);
		af_buf_put_u32le(w->b, ch->u[2]);
		break;
	case JZ_DG:
		af_buf_put_u32le(w->b, ch->u[0]);
		w_refs(w, &ch->list[0]);
		w_refs(w, &ch->list[1]);
		af_buf_put_u32le(w->b, JZ_DEADBEEF);
		break;
	case JZ_PLAY:
		w_key(w, &ch->key[0]);
		w_key(w, &ch->key[1]);
		af_buf_put_u32le(w->b, ch->nslots);
		w_u32s(w, ch->u, 3);
		w_u32s(w, ch->slots, 4 * (size_t)ch->nslots);
		af_buf_put_u32le(w->b, ch->nsuffixes);
		w_u32s(w, ch->suffixes, 2 * (size_t)ch->nsuffixes);
		af_buf_put_u32le(w->b, JZ_DEADBEEF);
		w_key(w, &ch->key[2]);
		w_str(w, &ch->str[0], base);
		w_str(w, &ch->str[1], base);
		af_buf_put_u32le(w->b, JZ_DEADBEEF);
		w_anim_tail(w, ch);
		break;
	case JZ_STOP:
		w_anim_tail(w, ch);
		break;
	case JZ_RAND:
		w_cases(w, ch);
		af_buf_put_u32le(w->b, JZ_DEADBEEF);
		af_buf_put_u32le(w->b, ch->u[0]);
		af_buf_put_u32le(w->b, JZ_DGN);
		break;
	case JZ_SOPN:
		w_ref(w, ch->ref[0]);
		w_cases(w, ch);
		af_buf_put_u32le(w->b, JZ_DEADBEEF);
		af_buf_put_u32le(w->b, JZ_DGN);
		break;
	case JZ_DG00:
		w_cases(w, ch);
		af_buf_put_u32le(w->b, JZ_DEADBEEF);
		af_buf_put_u32le(w->b, JZ_DGN);
		break;
	case JZ_SNSN:
		w_ref(w, ch->ref[0]);
		af_buf_put_u32le(w->b, JZ_DGN);
		break;
	case JZ_PROP:
		w_ref(w, ch->ref[0]);
		w_ref(w, ch->ref[1]);
		w_key(w, &ch->key[0]);
		w_u32s(w, ch->u, 4);
		w_refs(w, &ch->list[0]);
		af_buf_put_u32le(w->b, JZ_DGN);
		break;
	case JZ_ACOP:
		w_ref(w, ch->ref[0]);
		w_u32s(w, ch->u, 5);
		w_refs(w, &ch->list[0]);
		af_buf_put_u32le(w->b, JZ_DGN);
		break;
	default:
		break;
	}
}

int jazz_encode(const struct jazz_model *m, struct af_buf *out, struct af_diag *d)
{
	struct wr w = { out, m };
	size_t start = out->len, idx;
	af_buf_put_u32le(out, m->rcol_version);
	af_buf_put_u32le(out, m->public_chunks);
	af_buf_put_u32le(out, m->unused);
	af_buf_put_u32le(out, m->nexternals);
	af_buf_put_u32le(out, m->nchunks);
	for (uint32_t i = 0; i < m->nchunks; i++)
		w_key(&w, &m->chunks[i].ckey);
	for (uint32_t i = 0; i < m->nexternals; i++)
		w_key(&w, &m->externals[i]);
	idx = out->len;
	af_buf_fill(out, 0, 8 * (size_t)m->nchunks);
	for (uint32_t i = 0; i < m->nchunks && !out->failed; i++) {
		const struct jazz_chunk *ch = &m->chunks[i];
		size_t pos;
		while ((out->len - start) % 4 && !out->failed)
			af_buf_put_u8(out, 0);
		pos = out->len;
		if (ch->kind == JZ_OPAQUE) {
			af_buf_append(out, ch->data, ch->len);
		} else {
			af_buf_append(out, jazz_kinds[ch->kind].tag, 4);
			af_buf_put_u32le(out, ch->version);
			w_body(&w, ch, pos);
		}
		if (out->failed)
			break;
		if (out->len - start > UINT32_MAX)
			return af_diag_error(d, AF_EINVAL, "the encoded resource exceeds 4 GiB");
		af_buf_patch_u32le(out, idx + 8 * i, (uint32_t)(pos - start));
		af_buf_patch_u32le(out, idx + 8 * i + 4, (uint32_t)(out->len - pos));
	}
	if (out->failed)
		return af_diag_error(d, AF_ENOMEM, "out of memory encoding the Jazz resource");
	return 0;
}
