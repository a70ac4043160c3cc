/* DBPF 2.0 package reading and rebuilding (spec sims3-jazz.md 6.1, 6.2, 6.5, 7.2).
 * Every offset and count from the file is checked before use; a rebuild is re-read
 * and compared with what it was meant to hold before it is handed back. */
#include <stdlib.h>
#include <string.h>

#include "animfs/bytes.h"
#include "animfs/fileio.h"
#include "dbpf.h"
#include "refpack.h"

int af_dbpf_is_v2(const uint8_t *head, size_t n)
{
	return n >= 12 && !memcmp(head, "DBPF", 4) && af_le32(head + 4) == 2 &&
	       af_le32(head + 8) == 0;
}

const char *af_dbpf_type_tag(uint32_t type)
{
	/* the types the spec names, plus common ones of Sims 3 mods (s3pi Extensions.txt) */
	static const struct { uint32_t type; const char *tag; } tags[] = {
		{ 0x02D5DF13, "JAZZ" }, { 0x0166038C, "_KEY" }, { 0x6B20C4F3, "CLIP" },
		{ 0x033260E3, "TkMk" }, { 0x220557DA, "STBL" }, { 0x073FAA07, "S3SA" },
		{ 0x0333406C, "_XML" }, { 0x00B2D882, "_IMG" },
	};
	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		if (tags[i].type == type)
			return tags[i].tag;
	return NULL;
}

static int popcount3(uint32_t v)
{
	return (v & 1) + (v >> 1 & 1) + (v >> 2 & 1);
}

static int check_entry(const struct af_dbpf *p, uint32_t i, struct af_diag *d)
{
	const struct af_dbpf_entry *e = &p->e[i];
	if (af_dbpf_deleted(e))
		return 0;
	if (e->compressed != 0 && e->compressed != 0xFFFF)
		return af_diag_at_offset(d, AF_EINVAL, e->index_pos,
					 "index entry %u: unknown compression 0x%04X (0xFFFF RefPack or 0 raw)",
					 i, e->compressed);
	if (!af_fits(e->offset, af_dbpf_stored_size(e), p->n))
		return af_diag_at_offset(d, AF_EINVAL, e->index_pos,
					 "index entry %u (type 0x%08X, instance 0x%016llX): data at 0x%X, %u bytes, lies outside the %zu-byte file",
					 i, e->type, (unsigned long long)af_dbpf_instance(e), e->offset,
					 af_dbpf_stored_size(e), p->n);
	if ((e->compressed == 0xFFFF) != af_dbpf_compressed(e))
		af_diag_warn(d, 0, 0,
			     "byte 0x%x: index entry %u: compressed flag 0x%04X disagrees with its sizes (%u stored, %u unpacked); the sizes win",
			     e->index_pos, i, e->compressed, af_dbpf_stored_size(e), e->mem_size);
	return 0;
}

static int read_index(struct af_dbpf *p, struct af_diag *d)
{
	const uint8_t *ix = p->ix;
	uint32_t ns, per, pos;
	uint64_t need;
	p->index_type = af_le32(ix);
	if (p->index_type & ~7u)
		return af_diag_at_offset(d, AF_EINVAL, p->index_off,
					 "index type 0x%X has unknown bits (only 0x1, 0x2, 0x4 exist)",
					 p->index_type);
	ns = (uint32_t)popcount3(p->index_type);
	per = 32 - 4 * ns;
	need = 4 + 4ull * ns + (uint64_t)p->count * per;
	if (need > p->index_size)
		return af_diag_at_offset(d, AF_EINVAL, p->index_off,
					 "index of %u bytes is truncated: %u entries with index type 0x%X need %llu bytes",
					 p->index_size, p->count, p->index_type, (unsigned long long)need);
	if (need < p->index_size)
		af_diag_warn(d, 0, 0, "byte 0x%llx: %llu unused bytes after the index entries (dropped on rewrite)",
			     (unsigned long long)(p->index_off + need),
			     (unsigned long long)(p->index_size - need));
	pos = 4;
	for (int k = 0; k < 3; k++)
		if (p->index_type & (1u << k)) {
			p->shared[k] = af_le32(ix + pos);
			pos += 4;
		}
	/* count * per <= index_size <= file size: the allocation is bounded by the file */
	p->e = af_alloc_zeroed(p->count ? p->count : 1, sizeof(*p->e));
	if (!p->e)
		return af_diag_error(d, AF_ENOMEM, "out of memory for %u index entries", p->count);
	for (uint32_t i = 0; i < p->count; i++) {
		struct af_dbpf_entry *e = &p->e[i];
		uint32_t v[3];
		e->index_pos = p->index_off + pos;
		for (int k = 0; k < 3; k++) {
			if (p->index_type & (1u << k))
				v[k] = p->shared[k];
			else {
				v[k] = af_le32(ix + pos);
				pos += 4;
			}
		}
		e->type = v[0];
		e->group = v[1];
		e->inst_hi = v[2];
		e->inst_lo = af_le32(ix + pos);
		e->offset = af_le32(ix + pos + 4);
		e->file_size = af_le32(ix + pos + 8);
		e->mem_size = af_le32(ix + pos + 12);
		e->compressed = af_le16(ix + pos + 16);
		e->committed = af_le16(ix + pos + 18);
		pos += 20;
		if (check_entry(p, i, d))
			return AF_EINVAL;
	}
	return 0;
}

/* Magic, version and where the index is; head holds hn >= 4 bytes of an n-byte file. */
static int read_header(struct af_dbpf *p, const uint8_t *head, size_t hn, size_t n,
		       struct af_diag *d)
{
	if (hn < 4 || memcmp(head, "DBPF", 4))
		return af_diag_at_offset(d, AF_EUNSUP, 0, "not a DBPF package (no 'DBPF' magic)");
	if (n < AF_DBPF_HEADER || hn < AF_DBPF_HEADER)
		return af_diag_at_offset(d, AF_EINVAL, n, "the DBPF header needs 96 bytes, the file has %zu",
					 n);
	if (af_le32(head + 4) != 2 || af_le32(head + 8) != 0)
		return af_diag_at_offset(d, AF_EUNSUP, 4,
					 "DBPF version %u.%u; only 2.0 (The Sims 3) is supported",
					 af_le32(head + 4), af_le32(head + 8));
	memcpy(p->head, head, AF_DBPF_HEADER);
	p->count = af_le32(head + 36);
	p->index_size = af_le32(head + 44);
	p->index_off = af_le32(head + 64) ? af_le32(head + 64) : af_le32(head + 40);
	if (!af_fits(p->index_off, p->index_size, n))
		return af_diag_at_offset(d, AF_EINVAL, 64,
					 "the index at 0x%X, %u bytes, runs past the end of the %zu-byte file",
					 p->index_off, p->index_size, n);
	return 0;
}

/* The index, once p->ix points at its index_size bytes. */
static int read_all(struct af_dbpf *p, struct af_diag *d)
{
	int rc;
	if (!p->count && !p->index_size)
		return 0; /* an empty package may have no index at all */
	if (p->index_size < 4)
		return af_diag_at_offset(d, AF_EINVAL, 44,
					 "the index of %u bytes is truncated (its type alone needs 4)",
					 p->index_size);
	if ((rc = read_index(p, d)))
		af_dbpf_close(p);
	return rc;
}

int af_dbpf_open(struct af_dbpf *p, const uint8_t *data, size_t n, struct af_diag *d)
{
	int rc;
	memset(p, 0, sizeof(*p));
	p->data = data;
	p->n = n;
	p->src = (struct af_src){data, -1, n, 0};
	if ((rc = read_header(p, data, n, n, d)))
		return rc;
	p->ix = data + p->index_off;
	return read_all(p, d);
}

int af_dbpf_open_index(struct af_dbpf *p, const uint8_t *head, size_t hn, const uint8_t *index,
		       size_t in, size_t n, struct af_diag *d)
{
	int rc;
	memset(p, 0, sizeof(*p));
	p->n = n;
	if ((rc = read_header(p, head, hn, n, d)))
		return rc;
	if (in < p->index_size)
		return af_diag_at_offset(d, AF_EIO, p->index_off, "only %zu of the index's %u bytes were read",
					 in, p->index_size);
	p->ix = index;
	return read_all(p, d);
}

int af_dbpf_open_src(struct af_dbpf *p, const struct af_src *src, struct af_diag *d)
{
	uint8_t head[AF_DBPF_HEADER];
	size_t hn = src->size < AF_DBPF_HEADER ? (size_t)src->size : AF_DBPF_HEADER;
	int rc;
	if (src->mem)
		return af_dbpf_open(p, src->mem, (size_t)src->size, d);
	memset(p, 0, sizeof(*p));
	if (src->size > AF_MAX_FILE)
		return af_diag_error(d, AF_EUNSUP, "%llu bytes: larger than animfs reads",
				     (unsigned long long)src->size);
	p->n = (size_t)src->size;
	p->src = *src;
	if ((rc = af_src_read(src, 0, head, hn, d)) || (rc = read_header(p, head, hn, p->n, d)))
		return rc;
	/* the index lies inside the file (read_header): bounded by its size */
	if ((rc = af_src_append(src, p->index_off, p->index_size, &p->own_ix, d)))
		goto out;
	p->ix = p->own_ix.data;
	rc = read_all(p, d);
out:
	if (rc)
		af_dbpf_close(p);
	return rc;
}

void af_dbpf_close(struct af_dbpf *p)
{
	free(p->e);
	p->e = NULL;
	p->count = 0;
	af_buf_free(&p->own_ix);
	p->ix = NULL;
}

const uint8_t *af_dbpf_stored(const struct af_dbpf *p, size_t i)
{
	return p->data + p->e[i].offset;
}

int af_dbpf_read_stored(const struct af_dbpf *p, size_t i, struct af_buf *out, struct af_diag *d)
{
	const struct af_dbpf_entry *e = &p->e[i];
	return af_src_append(&p->src, e->offset, af_dbpf_stored_size(e), out, d);
}

/* The diagnosis of a RefPack error in entry i (sub: the stream's own). */
static int unpack_error(const struct af_dbpf *p, size_t i, int rc, const struct af_diag *sub,
			struct af_diag *d)
{
	const struct af_dbpf_entry *e = &p->e[i];
	return af_diag_at_offset(d, rc, e->offset + (uint64_t)(sub->offset > 0 ? sub->offset : 0),
				 "resource %zu (type 0x%08X, instance 0x%016llX): %s", i, e->type,
				 (unsigned long long)af_dbpf_instance(e), sub->msg);
}

#define HEAD_READ 1024 /* stored bytes read for a head: RefPack gives 64 from far fewer */

int af_dbpf_head(const struct af_dbpf *p, size_t i, uint8_t *buf, size_t n, size_t *got,
		 struct af_diag *d)
{
	const struct af_dbpf_entry *e = &p->e[i];
	struct af_buf in = AF_BUF_INIT, out = AF_BUF_INIT;
	struct af_diag sub;
	uint32_t stored = af_dbpf_stored_size(e);
	int rc;
	*got = 0;
	if (af_dbpf_deleted(e))
		return af_diag_at_offset(d, AF_EINVAL, e->index_pos, "index entry %zu is deleted (no data)",
					 i);
	if (!af_dbpf_compressed(e)) {
		*got = e->mem_size < n ? e->mem_size : n;
		return af_src_read(&p->src, e->offset, buf, *got, d);
	}
	af_diag_init(&sub);
	for (size_t want = stored < HEAD_READ ? stored : HEAD_READ;; want = stored) {
		af_buf_reset(&in);
		af_diag_clear(&sub);
		if ((rc = af_src_append(&p->src, e->offset, want, &in, d)))
			goto out;
		if (!(rc = af_refpack_head(in.data, in.len, e->mem_size, n, &out, &sub)) || want == stored)
			break; /* else the first bytes did not hold it: all of them */
	}
	if (rc) {
		unpack_error(p, i, rc, &sub, d);
	} else {
		*got = out.len;
		if (out.len)
			memcpy(buf, out.data, out.len);
	}
out:
	af_buf_free(&in);
	af_buf_free(&out);
	af_diag_free(&sub);
	return rc;
}

int af_dbpf_body(const struct af_dbpf *p, size_t i, struct af_buf *out, struct af_diag *d)
{
	const struct af_dbpf_entry *e = &p->e[i];
	struct af_diag sub;
	int rc;
	if (af_dbpf_deleted(e))
		return af_diag_at_offset(d, AF_EINVAL, e->index_pos, "index entry %zu is deleted (no data)",
					 i);
	if (!af_dbpf_compressed(e))
		return af_src_append(&p->src, e->offset, e->mem_size, out, d);
	af_diag_init(&sub);
	if (p->data) {
		rc = af_refpack_decompress(af_dbpf_stored(p, i), af_dbpf_stored_size(e), e->mem_size,
					   out, &sub);
	} else {
		struct af_buf in = AF_BUF_INIT;
		if ((rc = af_dbpf_read_stored(p, i, &in, d)))
			goto out;
		rc = af_refpack_decompress(in.data, in.len, e->mem_size, out, &sub);
		af_buf_free(&in);
	}
	if (rc)
		unpack_error(p, i, rc, &sub, d);
out:
	af_diag_free(&sub);
	return rc;
}

/* ---- rebuild ---- */

/* The layout of spec 6.5, as pieces of the old file (af_dbpf_rewrite puts them
 * together in memory, af_dbpf_plan hands them to the writer): the header, the stored
 * bytes of every kept resource in the original file order back to back (a copy of its
 * range, new bytes for an edited one), the added ones, the index. */

struct slot {
	const uint8_t *bytes; /* new stored bytes, or NULL: a copy of the old range */
	uint32_t len, mem;
	uint16_t compressed;
	int edited, touched, dropped;
	uint32_t new_off;
	struct af_buf packed;
};

/* Spec 6.4: RefPack when that is smaller (s3pi's compressor declines bodies under 16
 * bytes), else raw. */
static int pack(const uint8_t *body, size_t n, int compress, struct slot *s, struct af_diag *d)
{
	int rc;
	s->bytes = body;
	s->len = s->mem = (uint32_t)n;
	s->compressed = 0;
	if (!compress || n < 16)
		return 0;
	if ((rc = af_refpack_compress(body, n, &s->packed, d)))
		return rc;
	if (s->packed.len < n) {
		s->bytes = s->packed.data;
		s->len = (uint32_t)s->packed.len;
		s->compressed = 0xFFFF;
	}
	return 0;
}

/* Stored bytes kept as they are (an edit or an addition marked stored). */
static void keep_stored(const uint8_t *bytes, size_t n, uint32_t mem, uint16_t compressed,
			struct slot *s)
{
	s->bytes = bytes;
	s->len = (uint32_t)n;
	s->mem = mem;
	s->compressed = compressed;
}

static int prepare_edit(const struct af_dbpf *p, const struct af_dbpf_edit *ed,
			const struct af_dbpf_as_stored *as, struct slot *s, struct af_diag *d)
{
	const struct af_dbpf_entry *e = &p->e[ed->index];
	struct af_buf old = AF_BUF_INIT;
	struct af_diag od;
	int rc;
	if (ed->n > 0x7FFFFFFF)
		return af_diag_error(d, AF_EINVAL, "resource %zu: %zu bytes is too large for a package",
				     ed->index, ed->n);
	if (as && as->stored) {
		s->edited = 1;
		keep_stored(ed->body, ed->n, as->mem, as->compressed, s);
		return 0;
	}
	/* an old body that does not unpack differs from any new one */
	af_diag_init(&od);
	rc = af_dbpf_body(p, ed->index, &old, &od);
	if (rc == AF_ENOMEM)
		af_diag_error(d, AF_ENOMEM, "out of memory");
	af_diag_free(&od);
	if (rc == AF_ENOMEM)
		goto out;
	if (!rc && old.len == ed->n && (!ed->n || !memcmp(old.data, ed->body, ed->n)))
		goto out; /* same body: keep the stored bytes exactly */
	s->edited = 1;
	/* spec 6.4 (s3pi): only an entry that was compressed is compressed again, and
	 * only when that saves space */
	rc = pack(ed->body, ed->n, af_dbpf_compressed(e), s, d);
out:
	af_buf_free(&old);
	return rc;
}

static const struct af_dbpf *sort_pkg;
static int by_offset(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint32_t ox = sort_pkg->e[x].offset, oy = sort_pkg->e[y].offset;
	if (ox != oy)
		return ox < oy ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Record i's stored bytes at the running end: its new bytes, or a copy of its range. */
static int put_data(const struct af_dbpf *p, size_t i, struct slot *s, struct af_pieces *out,
		    struct af_diag *d)
{
	if (out->len > 0xFFFFFFFFu - s->len)
		return af_diag_error(d, AF_EINVAL, "the rebuilt package would exceed 4 GiB");
	s->new_off = (uint32_t)out->len;
	if (s->bytes)
		af_pieces_bytes(out, s->bytes, s->len);
	else
		af_pieces_copy(out, p->e[i].offset, s->len);
	return 0;
}

/* Resource data in the original file order, back to back (gaps dropped), then the
 * added ones in their order. Records that shared one stored blob keep sharing it. */
static int write_data(const struct af_dbpf *p, struct slot *s, size_t nadds, uint32_t *order,
		      struct af_pieces *out, struct af_diag *d)
{
	uint32_t m = 0, prev = UINT32_MAX;
	for (uint32_t i = 0; i < p->count; i++)
		if (!af_dbpf_deleted(&p->e[i]) && !s[i].dropped)
			order[m++] = i;
	sort_pkg = p;
	qsort(order, m, sizeof(*order), by_offset);
	for (uint32_t k = 0; k < m; k++) {
		uint32_t i = order[k];
		const struct af_dbpf_entry *e = &p->e[i];
		if (prev != UINT32_MAX && !s[i].edited && !s[prev].edited &&
		    p->e[prev].offset == e->offset &&
		    af_dbpf_stored_size(&p->e[prev]) == af_dbpf_stored_size(e)) {
			s[i].new_off = s[prev].new_off;
			continue;
		}
		if (put_data(p, i, &s[i], out, d))
			return AF_EINVAL;
		prev = i;
	}
	for (size_t k = 0; k < nadds; k++)
		if (put_data(p, p->count + k, &s[p->count + k], out, d))
			return AF_EINVAL;
	return 0;
}

/* The index type a rewrite keeps: a shared field stays shared while every added record
 * has the shared value (spec 6.5: otherwise the flag is cleared). */
static uint32_t index_type_for(const struct af_dbpf *p, const struct af_dbpf_change *ch)
{
	uint32_t t = p->index_type;
	if (!p->count && !p->index_size)
		return 0; /* there was no index at all */
	for (size_t k = 0; k < ch->nadds; k++) {
		const struct af_dbpf_new *a = &ch->adds[k];
		uint32_t key[3] = { a->type, a->group, (uint32_t)(a->instance >> 32) };
		for (int b = 0; b < 3; b++)
			if (key[b] != p->shared[b])
				t &= ~(1u << b);
	}
	return t;
}

static void put_key(struct af_buf *out, uint32_t itype, const uint32_t key[3], uint32_t inst_lo)
{
	for (int k = 0; k < 3; k++)
		if (!(itype & (1u << k)))
			af_buf_put_u32le(out, key[k]);
	af_buf_put_u32le(out, inst_lo);
}

static void write_index(const struct af_dbpf *p, const struct af_dbpf_change *ch, uint32_t itype,
			const struct slot *s, struct af_buf *out)
{
	af_buf_put_u32le(out, itype);
	for (int k = 0; k < 3; k++)
		if (itype & (1u << k))
			af_buf_put_u32le(out, p->shared[k]);
	for (uint32_t i = 0; i < p->count; i++) {
		const struct af_dbpf_entry *e = &p->e[i];
		uint32_t key[3] = { e->type, e->group, e->inst_hi };
		if (s[i].dropped)
			continue;
		put_key(out, itype, key, e->inst_lo);
		if (af_dbpf_deleted(e)) {
			af_buf_put_u32le(out, e->offset);
			af_buf_put_u32le(out, e->file_size);
			af_buf_put_u32le(out, e->mem_size);
			af_buf_put_u16le(out, e->compressed);
		} else {
			af_buf_put_u32le(out, s[i].new_off);
			af_buf_put_u32le(out, s[i].edited ? s[i].len | 0x80000000u : e->file_size);
			af_buf_put_u32le(out, s[i].edited ? s[i].mem : e->mem_size);
			af_buf_put_u16le(out, s[i].edited ? s[i].compressed : e->compressed);
		}
		af_buf_put_u16le(out, e->committed);
	}
	for (size_t k = 0; k < ch->nadds; k++) { /* as s3pi writes them: bit 31, committed 1 */
		const struct af_dbpf_new *a = &ch->adds[k];
		const struct slot *x = &s[p->count + k];
		uint32_t key[3] = { a->type, a->group, (uint32_t)(a->instance >> 32) };
		put_key(out, itype, key, (uint32_t)a->instance);
		af_buf_put_u32le(out, x->new_off);
		af_buf_put_u32le(out, x->len | 0x80000000u);
		af_buf_put_u32le(out, x->mem);
		af_buf_put_u16le(out, x->compressed);
		af_buf_put_u16le(out, 1);
	}
}

static int same_body(const struct af_dbpf *q, size_t j, const uint8_t *body, size_t n,
		     struct af_buf *tmp, struct af_diag *d)
{
	af_buf_reset(tmp);
	return !af_dbpf_body(q, j, tmp, d) && tmp->len == n && (!n || !memcmp(tmp->data, body, n));
}

/* Record j of q (in memory) stores these bytes, declaring mem bytes unpacked. */
static int same_kept(const struct af_dbpf *q, size_t j, const uint8_t *bytes, size_t n, uint32_t mem)
{
	return af_dbpf_stored_size(&q->e[j]) == n && q->e[j].mem_size == mem &&
	       (!n || !memcmp(af_dbpf_stored(q, j), bytes, n));
}

/* Where each kept record of p is in the rewritten index (dropped ones: UINT32_MAX). */
static void new_positions(const struct af_dbpf *p, const struct slot *s, uint32_t *pos)
{
	uint32_t j = 0;
	for (uint32_t i = 0; i < p->count; i++)
		pos[i] = s[i].dropped ? UINT32_MAX : j++;
}

/* Record i of p (read from its src) and record j of q (in memory) store the same bytes. */
static int same_stored(const struct af_dbpf *p, size_t i, const struct af_dbpf *q, size_t j,
		       struct af_buf *tmp, struct af_diag *d)
{
	size_t n = af_dbpf_stored_size(&p->e[i]);
	if (p->data)
		return !memcmp(af_dbpf_stored(p, i), af_dbpf_stored(q, j), n);
	af_buf_reset(tmp);
	return !af_dbpf_read_stored(p, i, tmp, d) && !memcmp(tmp->data, af_dbpf_stored(q, j), n);
}

/* Spec 6.5 step 3: re-read the image; kept records keep their key and, untouched,
 * their stored bytes; edited and added ones decompress to their new bodies. */
static int verify_records(const struct af_dbpf *p, const struct af_dbpf_change *ch,
			  const struct slot *s, const uint32_t *pos, const struct af_dbpf *q,
			  struct af_buf *body, struct af_diag *vd)
{
	uint32_t kept = p->count - (uint32_t)ch->ndrops;
	if (q->count != kept + ch->nadds)
		return 0;
	for (uint32_t i = 0; i < p->count; i++) {
		const struct af_dbpf_entry *a = &p->e[i], *b = &q->e[pos[i]];
		if (pos[i] == UINT32_MAX)
			continue;
		if (a->type != b->type || a->group != b->group || af_dbpf_instance(a) != af_dbpf_instance(b))
			return 0;
		if (!af_dbpf_deleted(a) && !s[i].edited &&
		    (a->file_size != b->file_size || !same_stored(p, i, q, pos[i], body, vd)))
			return 0;
	}
	for (size_t k = 0; k < ch->nedits; k++) {
		const struct af_dbpf_edit *ed = &ch->edits[k];
		const struct af_dbpf_as_stored *as = ch->edits_stored ? &ch->edits_stored[k] : NULL;
		if (as && as->stored ? !same_kept(q, pos[ed->index], ed->body, ed->n, as->mem)
				     : !same_body(q, pos[ed->index], ed->body, ed->n, body, vd))
			return 0;
	}
	for (size_t k = 0; k < ch->nadds; k++) {
		const struct af_dbpf_new *a = &ch->adds[k];
		const struct af_dbpf_entry *b = &q->e[kept + k];
		const struct af_dbpf_as_stored *as = ch->adds_stored ? &ch->adds_stored[k] : NULL;
		if (a->type != b->type || a->group != b->group || a->instance != af_dbpf_instance(b) ||
		    (as && as->stored ? !same_kept(q, kept + k, a->body, a->n, as->mem)
				      : !same_body(q, kept + k, a->body, a->n, body, vd)))
			return 0;
	}
	return 1;
}

static int verify(const struct af_dbpf *p, const struct af_dbpf_change *ch, const struct slot *s,
		  const uint32_t *pos, const struct af_buf *img, struct af_diag *d)
{
	struct af_dbpf q;
	struct af_diag vd;
	struct af_buf body = AF_BUF_INIT;
	int rc;
	af_diag_init(&vd);
	if ((rc = af_dbpf_open(&q, img->data, img->len, &vd))) {
		af_diag_error(d, AF_EIO, "internal error: the rebuilt package does not read back: %s",
			      vd.msg);
		goto out;
	}
	if (!verify_records(p, ch, s, pos, &q, &body, &vd))
		rc = af_diag_error(d, AF_EIO, "internal error: the rebuilt package does not hold what it should");
	af_dbpf_close(&q);
out:
	af_buf_free(&body);
	af_diag_free(&vd);
	return rc;
}

/* Mark the edits and drops on the slots, pack the edited and added bodies. */
static int prepare(const struct af_dbpf *p, const struct af_dbpf_change *ch, struct slot *s,
		   struct af_diag *d)
{
	int rc;
	for (uint32_t i = 0; i < p->count; i++)
		s[i].len = af_dbpf_stored_size(&p->e[i]);
	for (size_t k = 0; k < ch->nedits + ch->ndrops; k++) {
		int drop = k >= ch->nedits;
		size_t i = drop ? ch->drops[k - ch->nedits] : ch->edits[k].index;
		if (i >= p->count || af_dbpf_deleted(&p->e[i]) || s[i].touched)
			return af_diag_error(d, AF_EINVAL, "resource %zu cannot be %s (absent, deleted or changed twice)",
					     i, drop ? "removed" : "replaced");
		s[i].touched = 1;
		s[i].dropped = drop;
		if (!drop && (rc = prepare_edit(p, &ch->edits[k], ch->edits_stored ? &ch->edits_stored[k] : NULL,
						&s[i], d)))
			return rc;
	}
	for (size_t k = 0; k < ch->nadds; k++) {
		if (ch->adds[k].n > 0x7FFFFFFF)
			return af_diag_error(d, AF_EINVAL, "a new resource of %zu bytes is too large for a package",
					     ch->adds[k].n);
		const struct af_dbpf_as_stored *as = ch->adds_stored ? &ch->adds_stored[k] : NULL;
		if (as && as->stored)
			keep_stored(ch->adds[k].body, ch->adds[k].n, as->mem, as->compressed, &s[p->count + k]);
		else if ((rc = pack(ch->adds[k].body, ch->adds[k].n, 1, &s[p->count + k], d)))
			return rc;
	}
	return 0;
}

/* A rewrite's working state: the slots, the order (then the position map), the index. */
struct plan {
	struct slot *s;
	uint32_t *order;
	size_t total;
	struct af_buf ix;
};

static void plan_free(struct plan *pl)
{
	for (size_t i = 0; pl->s && i < pl->total; i++)
		af_buf_free(&pl->s[i].packed);
	free(pl->s);
	free(pl->order);
	af_buf_free(&pl->ix);
}

/* The new package as pieces into out (empty): the header at out's bytes 0..96 (patched),
 * the data, the index (its bytes also in pl->ix); pl->order becomes the position map. */
static int lay_out(const struct af_dbpf *p, const struct af_dbpf_change *ch, struct plan *pl,
		   struct af_pieces *out, struct af_diag *d)
{
	uint32_t itype = index_type_for(p, ch);
	int rc;
	memset(pl, 0, sizeof(*pl));
	pl->total = (size_t)p->count + ch->nadds;
	pl->s = af_alloc_zeroed(pl->total ? pl->total : 1, sizeof(*pl->s));
	pl->order = af_alloc_zeroed(p->count ? p->count : 1, sizeof(*pl->order));
	if (!pl->s || !pl->order)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	if (out->len || out->bytes.len)
		return af_diag_error(d, AF_EINVAL, "internal error: a package planned after other pieces");
	if ((rc = prepare(p, ch, pl->s, d)))
		return rc;
	af_pieces_bytes(out, p->head, AF_DBPF_HEADER);
	if ((rc = write_data(p, pl->s, ch->nadds, pl->order, out, d)))
		return rc;
	uint64_t index_off = out->len;
	uint32_t count = p->count - (uint32_t)ch->ndrops + (uint32_t)ch->nadds;
	if (count || p->index_size)
		write_index(p, ch, itype, pl->s, &pl->ix);
	if (pl->ix.failed || out->failed)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	if (index_off + pl->ix.len > 0xFFFFFFFFu)
		return af_diag_error(d, AF_EINVAL, "the rebuilt package would exceed 4 GiB");
	if (af_pieces_bytes(out, pl->ix.data, pl->ix.len))
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	af_buf_patch_u32le(&out->bytes, 36, count);
	af_buf_patch_u32le(&out->bytes, 40, 0);
	af_buf_patch_u32le(&out->bytes, 44, (uint32_t)pl->ix.len);
	af_buf_patch_u32le(&out->bytes, 64, (uint32_t)index_off);
	new_positions(p, pl->s, pl->order); /* order is free again: it becomes the position map */
	return 0;
}

int af_dbpf_rewrite(const struct af_dbpf *p, const struct af_dbpf_change *ch, struct af_buf *out,
		    struct af_diag *d)
{
	struct af_pieces pc = AF_PIECES_INIT;
	struct plan pl;
	int rc;
	af_buf_reset(out);
	if (!(rc = lay_out(p, ch, &pl, &pc, d)) && !(rc = af_pieces_to_buf(&pc, &p->src, out, d)))
		rc = verify(p, ch, pl.s, pl.order, out, d);
	plan_free(&pl);
	af_pieces_free(&pc);
	if (rc)
		af_buf_reset(out);
	return rc;
}

int af_dbpf_rebuild(const struct af_dbpf *p, const struct af_dbpf_edit *edits, size_t nedits,
		    struct af_buf *out, struct af_diag *d)
{
	struct af_dbpf_change ch = { edits, nedits, NULL, 0, NULL, 0, NULL, NULL };
	return af_dbpf_rewrite(p, &ch, out, d);
}

/* Where new offset at lies among the pieces (starts: each piece's new offset): the
 * piece that holds [at, at + len) whole, or -1. */
static long piece_at(const struct af_pieces *pc, const uint64_t *starts, uint64_t at, uint64_t len)
{
	size_t lo = 0, hi = pc->n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (starts[mid] <= at)
			lo = mid;
		else
			hi = mid;
	}
	if (!pc->n || starts[lo] > at || at + len > starts[lo] + pc->v[lo].len)
		return -1;
	return (long)lo;
}

/* Record i of p as record j of q, its bytes where the pieces put them: untouched, a
 * copy of its old range with its old sizes; edited, its new bytes, unpacking to body. */
static int planned_ok(const struct af_dbpf *p, size_t i, const struct slot *s,
		      const struct af_dbpf *q, size_t j, const struct af_pieces *pc,
		      const uint64_t *starts, const struct af_dbpf_change *ch, struct af_buf *tmp,
		      struct af_diag *vd)
{
	const struct af_dbpf_entry *a = &p->e[i], *b = &q->e[j];
	uint32_t len = af_dbpf_stored_size(b);
	long k = len ? piece_at(pc, starts, b->offset, len) : 0;
	if (a->type != b->type || a->group != b->group || af_dbpf_instance(a) != af_dbpf_instance(b))
		return 0;
	if (af_dbpf_deleted(a))
		return a->offset == b->offset && a->file_size == b->file_size && a->mem_size == b->mem_size;
	if (k < 0)
		return 0;
	if (!s->edited)
		return a->file_size == b->file_size && a->mem_size == b->mem_size &&
		       (!len || (pc->v[k].kind == AF_PIECE_COPY &&
				 pc->v[k].off + (b->offset - starts[k]) == a->offset));
	if (len != s->len || b->mem_size != s->mem || b->offset != s->new_off ||
	    (len && (pc->v[k].kind != AF_PIECE_BYTES ||
		     memcmp(pc->bytes.data + pc->v[k].off + (b->offset - starts[k]), s->bytes, len))))
		return 0;
	for (size_t e = 0; e < ch->nedits; e++) {
		if (ch->edits[e].index != i)
			continue;
		if (ch->edits_stored && ch->edits_stored[e].stored) /* its stored bytes, compared above */
			return 1;
		af_buf_reset(tmp);
		if (!af_dbpf_compressed(b) ? af_buf_append(tmp, s->bytes, len) != 0
		    : af_refpack_decompress(s->bytes, len, b->mem_size, tmp, vd) != 0)
			return 0;
		return tmp->len == ch->edits[e].n && (!tmp->len || !memcmp(tmp->data, ch->edits[e].body, tmp->len));
	}
	return 0;
}

/* The plan read back: the new header and index parse, over a file of the new length;
 * every record checked by planned_ok. */
static int verify_plan(const struct af_dbpf *p, const struct af_dbpf_change *ch,
		       const struct plan *pl, const struct af_pieces *pc, struct af_diag *d)
{
	struct af_dbpf q;
	struct af_diag vd;
	struct af_buf tmp = AF_BUF_INIT;
	uint64_t *starts = af_alloc((pc->n ? pc->n : 1) * sizeof(*starts)), at = 0;
	int rc = 0, ok = 1;
	af_diag_init(&vd);
	memset(&q, 0, sizeof(q));
	if (!starts) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < pc->n; k++) {
		starts[k] = at;
		at += pc->v[k].len;
	}
	if (af_dbpf_open_index(&q, pc->bytes.data, AF_DBPF_HEADER, pl->ix.data ? pl->ix.data : (const uint8_t *)"",
			       pl->ix.len, (size_t)pc->len, &vd)) {
		rc = vd.code == AF_ENOMEM /* the check ran out of memory: no verdict on the plan */
			     ? af_diag_error(d, AF_ENOMEM, "out of memory")
			     : af_diag_error(d, AF_EIO, "internal error: the rebuilt package does not read back: %s",
					     vd.msg);
		goto out;
	}
	ok = q.count == p->count - (uint32_t)ch->ndrops;
	for (uint32_t i = 0; ok && i < p->count; i++)
		ok = pl->order[i] == UINT32_MAX ||
		     planned_ok(p, i, &pl->s[i], &q, pl->order[i], pc, starts, ch, &tmp, &vd);
	if (!ok && (vd.code == AF_ENOMEM || tmp.failed))
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
	else if (!ok)
		rc = af_diag_error(d, AF_EIO, "internal error: the rebuilt package does not hold what it should");
out:
	af_dbpf_close(&q);
	free(starts);
	af_buf_free(&tmp);
	af_diag_free(&vd);
	return rc;
}

int af_dbpf_plan(const struct af_dbpf *p, const struct af_dbpf_edit *edits, size_t nedits,
		 struct af_pieces *out, struct af_diag *d)
{
	struct af_dbpf_change ch = { edits, nedits, NULL, 0, NULL, 0, NULL, NULL };
	struct plan pl;
	int rc = lay_out(p, &ch, &pl, out, d);
	if (!rc)
		rc = verify_plan(p, &ch, &pl, out, d);
	plan_free(&pl);
	if (rc)
		af_pieces_reset(out);
	return rc;
}
