/* Shenmue MOTN: the whole blob (spec sections 2, 3 and 5.2): header, sequence table,
 * extra blobs, names, the partition of the data section into blocks, the trailer, and
 * the canonical writer. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "animfs/bytes.h"
#include "animfs/codec.h"
#include "animfs/yamlio.h"
#include "motn.h"

struct hdr {
	uint32_t table_off, names_off, data_off, attr, size, n;
};

/* Detection rules 1-5 (spec 2) on the first 0x14 bytes; 0 when they hold. */
static int header_ok(const uint8_t *p, uint64_t limit, struct hdr *h)
{
	h->table_off = af_le32(p);
	h->names_off = af_le32(p + 4);
	h->data_off = af_le32(p + 8);
	h->attr = af_le32(p + 12);
	h->size = af_le32(p + 16);
	h->n = (h->attr & 0xFFF) ? (h->attr & 0xFFF) - 1 : 0;
	return h->n >= 1 && h->table_off >= 0x14 && h->table_off % 4 == 0 &&
	       (uint64_t)h->table_off + 8ull * h->n <= h->names_off && h->names_off % 4 == 0 &&
	       (uint64_t)h->names_off + 4ull * h->n <= h->data_off && h->data_off % 2 == 0 &&
	       h->data_off <= h->size && h->size <= limit ? 0 : -1;
}

int motn_fits(const uint8_t *head, size_t n, uint64_t len)
{
	struct hdr h;
	/* spec 2, rule 5: data_off <= size_field <= L (the bid sees no L) */
	return n < 0x20 || len > UINT32_MAX || header_ok(head, len, &h) == 0;
}

int motn_bid(const char *name, const uint8_t *head, size_t n)
{
	struct hdr h;
	int score = 50;
	if (n < 0x20 || header_ok(head, UINT32_MAX, &h))
		return 0;
	/* the first table entry's extra offset, when it is inside the head */
	if ((uint64_t)h.table_off + 8 <= n) {
		uint32_t xo = af_le32(head + h.table_off + 4);
		if (xo < h.table_off + 8ull * h.n || xo >= h.names_off)
			return 0;
		score += 10;
	}
	if (name) {
		size_t l = strlen(name);
		if (!strcasecmp(name, "motion.bin") || (l > 4 && !strcasecmp(name + l - 5, ".motn")) ||
		    (!strncasecmp(name, "m_", 2) && l > 4 && !strcasecmp(name + l - 4, ".bin")))
			score += 20;
	}
	return score;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Sorted distinct values of the table column col (0 data_rel, 1 extra_off). */
static uint32_t *distinct(const uint8_t *table, uint32_t n, int col, uint32_t *count)
{
	uint32_t *v = af_alloc((size_t)n * sizeof(*v)), k = 0;
	if (!v)
		return NULL;
	for (uint32_t i = 0; i < n; i++)
		v[i] = af_le32(table + 8 * (size_t)i + 4 * col);
	qsort(v, n, sizeof(*v), cmp_u32);
	for (uint32_t i = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	*count = k;
	return v;
}

static uint32_t find_u32(const uint32_t *v, uint32_t n, uint32_t key)
{
	const uint32_t *p = bsearch(&key, v, n, sizeof(*v), cmp_u32);
	return (uint32_t)(p - v);
}

/* Names: packed, NUL-terminated, in table order (detection rule 6). */
static int read_names(const uint8_t *bin, const struct hdr *h, struct motn_file *f,
		      struct af_arena *a, struct af_diag *d)
{
	uint32_t expect = h->names_off + 4 * h->n;
	for (uint32_t i = 0; i < h->n; i++) {
		uint32_t ptr = af_le32(bin + h->names_off + 4 * (size_t)i);
		const uint8_t *s = bin + expect, *z;
		if (ptr != expect)
			return af_diag_at_offset(d, AF_EUNSUP, h->names_off + 4 * (uint64_t)i,
						 "name pointer %u is 0x%X, expected 0x%X: names are not "
						 "packed in table order (unsupported MOTN variant)",
						 i, ptr, expect);
		z = memchr(s, 0, h->data_off - expect);
		if (!z)
			return af_diag_at_offset(d, AF_EINVAL, expect,
						 "name %u has no NUL before the data section", i);
		f->entries[i].name = af_arena_strndup(a, (const char *)s, (size_t)(z - s));
		f->entries[i].name_len = (size_t)(z - s);
		if (!f->entries[i].name)
			return af_diag_error(d, AF_ENOMEM, "out of memory");
		expect += (uint32_t)(z - s) + 1;
	}
	/* canonical padding: zeros up to the next multiple of 8 */
	size_t plen = h->data_off - expect;
	int canon = ((expect + 7) & ~7u) == h->data_off;
	for (size_t i = 0; canon && i < plen; i++)
		canon = bin[expect + i] == 0;
	if (!canon) {
		f->names_pad = bin + expect;
		f->names_pad_len = plen;
	}
	return 0;
}

/* Extra blobs: boundaries are the distinct extra offsets (spec 3.4). */
static int read_extras(const uint8_t *bin, const struct hdr *h, struct motn_file *f,
		       struct af_arena *a, struct af_diag *d)
{
	const uint8_t *table = bin + h->table_off;
	uint32_t tend = h->table_off + 8 * h->n, nx = 0, lead;
	uint32_t *xs = distinct(table, h->n, 1, &nx);
	int rc = 0;
	if (!xs)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	lead = xs[0] > tend;
	f->nextras = nx + lead;
	f->extras = af_arena_array(a, f->nextras, sizeof(*f->extras));
	if (!f->extras) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < f->nextras; i++) {
		struct motn_extra *x = &f->extras[i];
		x->orig = lead && i == 0 ? tend : xs[i - lead];
		uint32_t end = i + 1 < f->nextras ? xs[i + 1 - lead] : h->names_off;
		x->bytes = bin + x->orig;
		x->len = end - x->orig;
		x->referenced = !(lead && i == 0);
		if (x->len % 4) {
			rc = af_diag_at_offset(d, AF_EUNSUP, x->orig, "extra blob is %zu bytes, not a "
					       "multiple of 4 (unsupported MOTN variant)", x->len);
			goto out;
		}
	}
	for (uint32_t i = 0; i < h->n; i++)
		f->entries[i].extra = find_u32(xs, nx, af_le32(table + 8 * (size_t)i + 4)) + lead;
out:
	free(xs);
	return rc;
}

/* The asctime build stamp followed by NULs, at the end of [p, p+n): its start or n. */
static size_t find_stamp(const uint8_t *p, size_t n)
{
	size_t e = n;
	while (e > 0 && p[e - 1] == 0)
		e--;
	if (e < 25 || p[e - 1] != '\n')
		return n;
	const uint8_t *s = p + e - 25;
	static const char pat[] = "AAA AAA ## ##:##:## ####";
	for (int i = 0; i < 24; i++) {
		char c = (char)s[i], k = pat[i];
		int ok = k == '#' ? (c >= '0' && c <= '9') || (i == 8 && c == ' ')
			: k == 'A' ? (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') : c == k;
		if (!ok)
			return n;
	}
	return e - 25;
}

struct part {
	const uint8_t *data; /* data section */
	struct motn_file *f;
	struct af_arena *a;
	struct af_buf scratch;
	size_t cap;
	struct motn_block *blocks; /* heap, grown by af_grow */
};

static int add_block(struct part *pt, const struct motn_block *b)
{
	struct motn_block *nb = af_grow(pt->blocks, &pt->cap, pt->f->nblocks, sizeof(*nb), 256);
	if (!nb)
		return AF_ENOMEM;
	pt->blocks = nb;
	pt->blocks[pt->f->nblocks++] = *b;
	return 0;
}

/* One block at pos: a standard sequence, or by its rig word's bit 15 a baked or a node
 * block (motn_pose.c); the return of motn_seq_accept. */
static int accept(struct part *pt, uint32_t pos, uint32_t e, struct motn_block *b, size_t *used)
{
	const uint8_t *p = pt->data + pos;
	size_t n = e - pos;
	uint16_t rig = n >= 4 ? af_le16(p + 2) : 0;
	if (rig == 0xFFFF) {
		b->kind = MOTN_NODES;
		return motn_nodes_accept(p, n, pt->a, &pt->scratch, &b->nodes, used, &b->why);
	}
	if (rig & 0x8000) {
		b->kind = MOTN_BAKED;
		return motn_baked_accept(p, n, pt->a, &pt->scratch, &b->baked, used, &b->why);
	}
	return motn_seq_accept(p, n, pt->a, &pt->scratch, &b->seq, used, &b->why);
}

/* One region [s, e) of the data section (spec 3.6): standard sequences while they are
 * accepted, then raw bytes; in the last region the rest is the trailer. */
static int read_region(struct part *pt, uint32_t s, uint32_t e, int referenced, int last)
{
	uint32_t pos = s;
	while (pos < e) {
		struct motn_block b;
		size_t used = 0;
		int rc = 1;
		memset(&b, 0, sizeof(b));
		b.orig = pos;
		b.orphan = !referenced;
		if (!(pos & 1))
			rc = accept(pt, pos, e, &b, &used);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			b.len = used; /* the bytes it was decoded from (coverage) */
			if (add_block(pt, &b))
				return AF_ENOMEM;
			pos += (uint32_t)used;
			referenced = 0;
			continue;
		}
		b.view = rc == 2;
		if (pos & 1)
			b.why = "starts at an odd offset";
		size_t len = e - pos;
		if (last) {
			len = referenced ? find_stamp(pt->data + pos, len) : 0;
			if (referenced && !len) /* an entry points at the stamp: keep it a block */
				len = e - pos;
			pt->f->trailer = pt->data + pos + len;
			pt->f->trailer_len = e - pos - len;
		} else if (!referenced) {
			b.why = "unreferenced bytes that do not decode as a standard sequence";
		}
		if (len) {
			b.raw = 1;
			b.bytes = pt->data + pos;
			b.len = len;
			if (add_block(pt, &b))
				return AF_ENOMEM;
		}
		break;
	}
	return 0;
}

static int read_blocks(const uint8_t *bin, const struct hdr *h, struct motn_file *f,
		       struct af_arena *a, struct af_diag *d)
{
	const uint8_t *table = bin + h->table_off;
	uint32_t nr = 0, E = h->size - h->data_off;
	uint32_t *rs = distinct(table, h->n, 0, &nr), *first = NULL;
	struct part pt = { bin + h->data_off, f, a, AF_BUF_INIT, 0, NULL };
	int rc = AF_ENOMEM;
	if (!rs || !(first = af_alloc((size_t)nr * sizeof(*first))))
		goto out;
	if (rs[0] > 0 && read_region(&pt, 0, rs[0], 0, 0))
		goto out;
	for (uint32_t i = 0; i < nr; i++) {
		first[i] = f->nblocks;
		if (read_region(&pt, rs[i], i + 1 < nr ? rs[i + 1] : E, 1, i + 1 == nr))
			goto out;
	}
	f->blocks = af_arena_array(a, f->nblocks, sizeof(*f->blocks));
	if (!f->blocks)
		goto out;
	memcpy(f->blocks, pt.blocks, f->nblocks * sizeof(*f->blocks));
	for (uint32_t i = 0; i < h->n; i++)
		f->entries[i].block = first[find_u32(rs, nr, af_le32(table + 8 * (size_t)i))];
	rc = 0;
out:
	free(rs);
	free(first);
	free(pt.blocks);
	af_buf_free(&pt.scratch);
	return rc ? af_diag_error(d, rc, "out of memory") : 0;
}

int motn_decode(const uint8_t *bin, size_t n, struct af_arena *a, struct motn_file *f,
		struct af_diag *d)
{
	struct hdr h;
	int rc;
	memset(f, 0, sizeof(*f));
	if (n < 0x20)
		return af_diag_at_offset(d, AF_EINVAL, n, "file too short for a MOTN header (%zu bytes)", n);
	if (header_ok(bin, n, &h))
		return af_diag_at_offset(d, AF_EINVAL, 0, "header offsets are inconsistent "
					 "(table 0x%X, names 0x%X, data 0x%X, count %u, size 0x%X, file "
					 "0x%zX bytes)", h.table_off, h.names_off, h.data_off, h.n,
					 h.size, n);
	for (uint32_t i = 0; i < h.n; i++) {
		const uint8_t *e = bin + h.table_off + 8 * (size_t)i;
		if (af_le32(e) >= h.size - h.data_off)
			return af_diag_at_offset(d, AF_EUNSUP, h.table_off + 8ull * i, "entry %u: data "
						 "offset 0x%X is outside the data section (damaged file or "
						 "unsupported MOTN variant)", i, af_le32(e));
		if (af_le32(e + 4) < h.table_off + 8 * h.n || af_le32(e + 4) >= h.names_off)
			return af_diag_at_offset(d, AF_EUNSUP, h.table_off + 8ull * i + 4, "entry %u: "
						 "extra offset 0x%X is outside the extra-data area (damaged "
						 "file or unsupported MOTN variant)", i,
						 af_le32(e + 4));
	}
	f->table_off = h.table_off;
	f->attr_high = h.attr >> 12;
	f->hdr_pad = bin + 0x14;
	f->hdr_pad_len = h.table_off - 0x14;
	f->tail = bin + h.size;
	f->tail_len = n - h.size;
	f->nentries = h.n;
	f->entries = af_arena_array(a, h.n, sizeof(*f->entries));
	if (!f->entries)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	if ((rc = read_names(bin, &h, f, a, d)) || (rc = read_extras(bin, &h, f, a, d)))
		return rc;
	return read_blocks(bin, &h, f, a, d);
}

int motn_encode(const struct motn_file *f, struct af_buf *out, struct af_diag *d)
{
	size_t base = out->len, names_off, data_off, ptrs;
	if (f->nentries < 1 || f->nentries > MOTN_MAX_ENTRIES)
		return af_diag_error(d, AF_EINVAL, "%u entries: a MOTN holds 1..%u", f->nentries,
				     MOTN_MAX_ENTRIES);
	if ((0x14 + f->hdr_pad_len) % 4)
		return af_diag_error(d, AF_EINVAL, "header pad of %zu bytes puts the table at an "
				     "offset that is not a multiple of 4", f->hdr_pad_len);
	af_buf_fill(out, 0, 0x14);
	af_buf_append(out, f->hdr_pad, f->hdr_pad_len);
	af_buf_fill(out, 0, 8 * (size_t)f->nentries);
	for (uint32_t i = 0; i < f->nextras; i++) {
		struct motn_extra *x = &f->extras[i];
		if (!x->len || x->len % 4)
			return af_diag_error(d, AF_EINVAL, "extras[0x%X]: an extra blob must be a "
					     "non-empty multiple of 4 bytes, it has %zu", x->orig, x->len);
		x->new_off = (uint32_t)(out->len - base);
		af_buf_append(out, x->bytes, x->len);
	}
	names_off = out->len - base;
	ptrs = out->len;
	af_buf_fill(out, 0, 4 * (size_t)f->nentries);
	for (uint32_t i = 0; i < f->nentries; i++) {
		if (!out->failed)
			af_buf_patch_u32le(out, ptrs + 4 * (size_t)i, (uint32_t)(out->len - base));
		af_buf_append(out, f->entries[i].name, f->entries[i].name_len);
		af_buf_putc(out, 0);
	}
	if (f->names_pad)
		af_buf_append(out, f->names_pad, f->names_pad_len);
	else
		af_buf_align(out, 8);
	data_off = out->len - base;
	if (data_off & 1)
		return af_diag_error(d, AF_EINVAL, "header.names_pad: the data section would start at "
				     "the odd offset 0x%zX; drop names_pad to pad canonically", data_off);
	for (uint32_t i = 0; i < f->nblocks; i++) {
		struct motn_block *b = &f->blocks[i];
		b->new_off = (uint32_t)(out->len - base - data_off);
		if (b->raw)
			af_buf_append(out, b->bytes, b->len);
		else if (b->kind == MOTN_BAKED && motn_baked_encode(&b->baked, out) == AF_EINVAL)
			return af_diag_at_mark(d, AF_EINVAL, b->line, 1, "blocks[%u]: the baked block "
					       "does not fit its 16-bit record size", i);
		else if (b->kind == MOTN_NODES && motn_nodes_encode(&b->nodes, out) == AF_EINVAL)
			return af_diag_at_mark(d, AF_EINVAL, b->line, 1, "blocks[%u]: the node block's "
					       "tracks do not fit its 16-bit offsets", i);
		else if (b->kind == MOTN_STD && motn_seq_encode(&b->seq, out) == AF_EINVAL)
			return af_diag_at_mark(d, AF_EINVAL, b->line, 1, "blocks[%u]: the sequence does "
					       "not fit its 16-bit offsets or 8/16-bit counts", i);
	}
	af_buf_append(out, f->trailer, f->trailer_len);
	if (out->failed)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	if (out->len - base > UINT32_MAX)
		return af_diag_error(d, AF_EINVAL, "the MOTN would be %zu bytes; offsets are 32-bit",
				     out->len - base);
	af_buf_patch_u32le(out, base, f->table_off);
	af_buf_patch_u32le(out, base + 4, (uint32_t)names_off);
	af_buf_patch_u32le(out, base + 8, (uint32_t)data_off);
	af_buf_patch_u32le(out, base + 12, (f->nentries + 1) | f->attr_high << 12);
	af_buf_patch_u32le(out, base + 16, (uint32_t)(out->len - base));
	for (uint32_t i = 0; i < f->nentries; i++) {
		size_t t = base + f->table_off + 8 * (size_t)i;
		af_buf_patch_u32le(out, t, f->blocks[f->entries[i].block].new_off);
		af_buf_patch_u32le(out, t + 4, f->extras[f->entries[i].extra].new_off);
	}
	af_buf_append(out, f->tail, f->tail_len);
	return out->failed ? af_diag_error(d, AF_ENOMEM, "out of memory") : 0;
}
