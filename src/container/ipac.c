/* The IPAC block (spec 5): parse and check, members and their names, the rebuild with
 * one member replaced (spec 9.1, 32-byte rule relative to the block), index.yaml; and
 * the bare IPAC container (a file that is one IPAC block). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/bytes.h"
#include "animfs/yamlio.h"
#include "ipac.h"
#include "shm.h"

/* ---- the block ---- */

struct span {
	uint32_t off, size, i;
};

static int by_off(const void *x, const void *y)
{
	const struct span *a = x, *b = y;
	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	return a->size < b->size ? -1 : a->size > b->size;
}

/* The entries with bytes, sorted by offset (shared blocks twice, adjacent). */
static struct span *spans_of(const struct ipac_block *b, size_t *n)
{
	struct span *s = af_alloc((b->count ? b->count : 1) * sizeof(*s));
	*n = 0;
	if (!s)
		return NULL;
	for (uint32_t i = 0; i < b->count; i++)
		if (b->e[i].size)
			s[(*n)++] = (struct span){b->e[i].off, b->e[i].size, i};
	qsort(s, *n, sizeof(*s), by_off);
	return s;
}

static int check_overlaps(const struct ipac_block *b, struct af_diag *d)
{
	size_t n;
	struct span *s = spans_of(b, &n);
	uint64_t dir_end = b->dir + (uint64_t)IPAC_ENTRY * b->count;
	int rc = 0;
	if (!s)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	for (size_t k = 0; k < n && !rc; k++) {
		uint64_t end = (uint64_t)s[k].off + s[k].size;
		if (k && s[k].off == s[k - 1].off && s[k].size == s[k - 1].size)
			continue; /* one block shared by two entries */
		if (k && (uint64_t)s[k - 1].off + s[k - 1].size > s[k].off)
			rc = af_diag_at_offset(d, AF_EINVAL, s[k].off,
					       "IPAC entry at 0x%X overlaps the one at 0x%X", s[k].off,
					       s[k - 1].off);
		else if (b->count && s[k].off < dir_end && end > b->dir)
			rc = af_diag_at_offset(d, AF_EINVAL, s[k].off,
					       "IPAC entry at 0x%X overlaps the directory at 0x%X",
					       s[k].off, b->dir);
	}
	free(s);
	return rc;
}

static int parse_entries(struct ipac_block *b, struct af_diag *d)
{
	for (uint32_t i = 0; i < b->count; i++) {
		struct ipac_entry *e = &b->e[i];
		e->raw = b->p + b->dir + (size_t)IPAC_ENTRY * i;
		e->off = af_le32(e->raw + 12);
		e->size = af_le32(e->raw + 16);
		e->floating = !e->size && (e->off < IPAC_HEADER || e->off > b->len);
		if (!e->floating && (e->off < IPAC_HEADER || !af_fits(e->off, e->size, b->len)))
			return af_diag_at_offset(d, AF_EINVAL, e->raw + 12 - b->p,
						 "IPAC entry %u 0x%X+0x%X outside 0x10..0x%zX", i,
						 e->off, e->size, b->len);
	}
	return check_overlaps(b, d);
}

int ipac_parse(struct ipac_block *b, const uint8_t *p, size_t len, struct af_diag *d)
{
	int rc;
	memset(b, 0, sizeof(*b));
	b->p = p;
	b->len = len;
	if (len < IPAC_HEADER || memcmp(p, "IPAC", 4))
		return af_diag_at_offset(d, AF_EINVAL, 0, "not an IPAC block");
	b->dir = af_le32(p + 4);
	b->count = af_le32(p + 8);
	if (b->dir != af_le32(p + 12))
		return af_diag_at_offset(d, AF_EINVAL, 4,
					 "IPAC: directory offset (+4) 0x%X disagrees with content size (+12) 0x%X",
					 b->dir, af_le32(p + 12));
	if (b->count > (len - IPAC_HEADER) / IPAC_ENTRY)
		return af_diag_at_offset(d, AF_EINVAL, 8, "IPAC: entry count %u cannot fit in %zu bytes",
					 b->count, len);
	if (b->dir < IPAC_HEADER || !af_fits(b->dir, (uint64_t)IPAC_ENTRY * b->count, len))
		return af_diag_at_offset(d, AF_EINVAL, 4, "IPAC: directory 0x%X+%u*20 outside the block",
					 b->dir, b->count);
	if (!(b->e = af_alloc_zeroed(b->count ? b->count : 1, sizeof(*b->e)))) /* count bounded above */
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	if ((rc = parse_entries(b, d)))
		ipac_free(b);
	return rc;
}

void ipac_free(struct ipac_block *b)
{
	free(b->e);
	b->e = NULL;
}

static int region_cmp(const void *x, const void *y)
{
	const struct shm_region *a = x, *b = y;
	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	return a->len < b->len ? -1 : a->len > b->len;
}

/* The regions of spec 9.1: distinct member blocks and the directory, by offset. */
static struct shm_region *regions_of(const struct ipac_block *b, size_t *n)
{
	size_t ns;
	struct span *s = spans_of(b, &ns);
	struct shm_region *r = s ? af_alloc_zeroed(ns + 1, sizeof(*r)) : NULL;
	*n = 0;
	for (size_t k = 0; r && k < ns; k++)
		if (!k || s[k].off != s[k - 1].off || s[k].size != s[k - 1].size)
			r[(*n)++] = (struct shm_region){.off = s[k].off, .len = s[k].size};
	if (r) {
		r[(*n)++] = (struct shm_region){.off = b->dir, .len = (uint64_t)IPAC_ENTRY * b->count};
		qsort(r, *n, sizeof(*r), region_cmp);
	}
	free(s);
	return r;
}

const char *ipac_layout(const struct ipac_block *b)
{
	size_t n;
	struct shm_region *r = regions_of(b, &n);
	int canonical = 1, packed = 1;
	if (!r)
		return "irregular";
	if (!n || r[0].off != IPAC_HEADER || r[n - 1].off != b->dir || b->dir + r[n - 1].len != b->len)
		canonical = packed = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		uint64_t end = r[i].off + r[i].len, gap = r[i + 1].off - end;
		if (gap)
			packed = 0;
		if (gap != (IPAC_ALIGN - (end - IPAC_HEADER) % IPAC_ALIGN) % IPAC_ALIGN)
			canonical = 0;
		for (uint64_t k = end; canonical && k < r[i + 1].off; k++)
			if (b->p[k])
				canonical = 0;
	}
	free(r);
	return canonical ? "canonical-32" : packed ? "packed" : "irregular";
}

static long region_at(const struct shm_region *r, size_t n, uint64_t off)
{
	for (size_t k = 0; k < n; k++)
		if (r[k].off == off)
			return (long)k;
	return -1;
}

static int edit_region(const struct ipac_block *b, long i, struct shm_region *r, size_t n,
		       const uint8_t *body, size_t len, struct af_diag *d)
{
	const struct ipac_entry *e = &b->e[i];
	if (len > UINT32_MAX)
		return af_diag_error(d, AF_EUNSUP, "a member of %zu bytes does not fit an IPAC", len);
	if (!e->size)
		return af_diag_error(d, AF_EUNSUP, "IPAC entry %ld is empty; v1 does not give it bytes", i);
	for (uint32_t k = 0; k < b->count; k++)
		if (k != (uint32_t)i && b->e[k].off == e->off && b->e[k].size == e->size)
			return af_diag_error(d, AF_EUNSUP,
					     "IPAC entries %ld and %u share one block; v1 does not edit one alone",
					     i, k);
	long j = region_at(r, n, e->off);
	if (j < 0)
		return af_diag_error(d, AF_EINVAL, "internal error: no region for entry %ld", i);
	r[j].data = body;
	r[j].newlen = len;
	return 0;
}

static void patch_dir(const struct ipac_block *b, long i, size_t n_new, const struct shm_region *r,
		      size_t n, struct af_buf *out, size_t at)
{
	uint64_t newend = out->len - at;
	uint32_t dir = (uint32_t)shm_moved(r, n, b->dir, newend);
	af_buf_patch_u32le(out, at + 4, dir);
	af_buf_patch_u32le(out, at + 12, dir);
	for (uint32_t k = 0; k < b->count; k++) {
		const struct ipac_entry *e = &b->e[k];
		size_t where = at + dir + (size_t)IPAC_ENTRY * k;
		if (!e->floating)
			af_buf_patch_u32le(out, where + 12,
					   (uint32_t)shm_moved(r, n, e->off, newend));
		if ((long)k == i || (i >= 0 && e->size && e->off == b->e[i].off && e->size == b->e[i].size))
			af_buf_patch_u32le(out, where + 16, (uint32_t)n_new);
	}
}

int ipac_rebuild(const struct ipac_block *b, long i, const uint8_t *body, size_t len,
		 struct af_buf *out, struct af_diag *d)
{
	size_t n, at = out->len;
	struct shm_region *r = regions_of(b, &n);
	int rc;
	if (!r)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	if ((i < 0 || !(rc = edit_region(b, i, r, n, body, len, d))) &&
	    !(rc = shm_relayout(b->p, b->len, r, n, IPAC_ALIGN, out, d))) {
		if (out->len - at > UINT32_MAX)
			rc = af_diag_error(d, AF_EUNSUP, "the IPAC block would exceed 4 GiB");
		else if (i >= 0)
			patch_dir(b, i, len, r, n, out, at);
	}
	free(r);
	return rc;
}

/* ---- members ---- */

/* NAME.TYPE, each cut at its first NUL, the type without trailing spaces (spec 10.1). */
static void view_name(const struct ipac_entry *e, uint32_t i, char *out, size_t size)
{
	char name[40], type[24];
	size_t nl = 0, tl = 0;
	while (nl < 8 && e->raw[nl])
		nl++;
	while (tl < 4 && e->raw[8 + tl])
		tl++;
	while (tl && e->raw[8 + tl - 1] == ' ')
		tl--;
	shm_escape(e->raw, nl, name, sizeof(name));
	shm_escape(e->raw + 8, tl, type, sizeof(type));
	if (!name[0])
		snprintf(name, sizeof(name), "%03u", i);
	snprintf(out, size, "%s%s%s", name, type[0] ? "." : "", type);
}

int ipac_view_open(struct ipac_view *v, const uint8_t *data, size_t n, size_t base,
		   const struct af_container_env *env, struct af_diag *d)
{
	int rc;
	memset(v, 0, sizeof(*v));
	if (base > n || n - base < IPAC_HEADER) /* also: no pointer into an empty copy */
		return af_diag_at_offset(d, AF_EINVAL, 0, "not an IPAC block");
	if (af_buf_append(&v->file, data, n))
		return af_diag_error(d, AF_ENOMEM, "out of memory for a %zu-byte archive", n);
	v->base = base;
	if ((rc = ipac_parse(&v->blk, v->file.data + base, n - base, d))) {
		d->offset = d->offset >= 0 ? d->offset + (int64_t)base : d->offset;
		goto out;
	}
	size_t count = v->blk.count ? v->blk.count : 1;
	v->names = af_alloc_zeroed(count, sizeof(*v->names));
	v->codec = af_alloc_zeroed(count, sizeof(*v->codec));
	v->warn = af_alloc_zeroed(count, 1);
	if (!v->names || !v->codec || !v->warn) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < v->blk.count; i++) {
		const struct ipac_entry *e = &v->blk.e[i];
		view_name(e, i, v->names[i], sizeof(v->names[i]));
		if (e->size)
			v->codec[i] = shm_codec_of(env, v->names[i], v->blk.p + e->off, e->size);
		v->warn[i] = !v->codec[i] && !memcmp(e->raw + 8, "MOTN", 4);
	}
	if (shm_dedupe(v->names, v->blk.count))
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
out:
	if (rc)
		ipac_view_close(v);
	return rc;
}

void ipac_view_close(struct ipac_view *v)
{
	ipac_free(&v->blk);
	free(v->names);
	free(v->codec);
	free(v->warn);
	af_buf_free(&v->file);
	memset(v, 0, sizeof(*v));
}

void ipac_view_member(const struct ipac_view *v, size_t i, struct af_member *m)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", v->names[i]);
	m->codec = v->codec[i];
}

int ipac_view_body(const struct ipac_view *v, size_t i, struct af_buf *out, struct af_diag *d)
{
	const struct ipac_entry *e = &v->blk.e[i];
	if (e->size && af_buf_append(out, v->blk.p + e->off, e->size))
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	return 0;
}

int ipac_view_rebuild(const struct ipac_view *v, long i, const uint8_t *body, size_t n,
		      struct af_buf *image, struct af_diag *d)
{
	if (af_buf_append(image, v->file.data, v->base))
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	return ipac_rebuild(&v->blk, i, body, n, image, d);
}

void ipac_view_layer(const struct ipac_view *v, struct af_buf *out)
{
	af_buf_puts(out, "  - format: ipac\n    dir_offset: ");
	shm_hex(out, v->blk.dir);
	af_buf_printf(out, "\n    count: %u\n    layout: %s\n", v->blk.count, ipac_layout(&v->blk));
}

/* Bytes from an entry's end to the next thing in the block (its trailing pad): the
 * directory, the first entry with bytes that starts at or after its end (s: those
 * entries by offset, a binary search), or the end of the block. */
static uint64_t pad_after(const struct ipac_block *b, const struct span *s, size_t ns,
			  const struct ipac_entry *e)
{
	uint64_t end = (uint64_t)e->off + e->size, next = b->len;
	size_t lo = 0, hi = ns;
	if (b->dir >= end && b->dir < next)
		next = b->dir;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s[mid].off < end)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ns && s[lo].off < next)
		next = s[lo].off;
	return next - end;
}

static void raw_field(struct af_buf *out, const char *key, const uint8_t *p, size_t n)
{
	int clean = 1;
	size_t l = 0;
	while (l < n && p[l])
		l++;
	for (size_t k = 0; k < n; k++)
		if (k < l ? (p[k] < 0x20 || p[k] > 0x7E) : p[k] != 0)
			clean = 0;
	af_buf_printf(out, ", %s: ", key);
	if (clean) {
		af_y_str(out, (const char *)p, l);
		return;
	}
	af_buf_putc(out, '"');
	for (size_t k = 0; k < n; k++)
		af_buf_printf(out, "%02X", p[k]);
	af_buf_putc(out, '"');
}

void ipac_view_members(const struct ipac_view *v, struct af_buf *out)
{
	size_t ns;
	struct span *s = spans_of(&v->blk, &ns);
	if (!s) {
		out->failed = 1;
		return;
	}
	af_buf_puts(out, v->blk.count ? "members:\n" : "members: []\n");
	for (uint32_t i = 0; i < v->blk.count; i++) {
		const struct ipac_entry *e = &v->blk.e[i];
		af_buf_printf(out, "  - {index: %u, file: ", i);
		af_y_cstr(out, v->names[i]);
		raw_field(out, "name", e->raw, 8);
		raw_field(out, "type", e->raw + 8, 4);
		af_buf_puts(out, ", offset: ");
		shm_hex(out, e->off);
		af_buf_printf(out, ", size: %u", e->size);
		if (!e->floating && e->size)
			af_buf_printf(out, ", pad: %llu", (unsigned long long)pad_after(&v->blk, s, ns, e));
		af_buf_printf(out, ", content: %s", v->codec[i] ? "motn" : "raw");
		if (v->codec[i])
			af_buf_printf(out, ", motn: \"%d entries, size field 0x%X\"",
				      e->size >= 0x10 ? (int)(af_le32(v->blk.p + e->off + 0xC) & 0xFFF) - 1 : 0,
				      e->size >= 0x14 ? af_le32(v->blk.p + e->off + 0x10) : 0);
		if (v->warn[i])
			af_buf_puts(out, ", warning: \"type MOTN, but not a MOTN: kept raw\"");
		af_buf_puts(out, "}\n");
	}
	free(s);
}

/* ---- descriptor functions over an ipac_view state ---- */

int ipac_st_open(const uint8_t *data, size_t n, size_t base, const struct af_container_env *env,
		 void **st, struct af_diag *d)
{
	struct ipac_view *v = af_alloc_zeroed(1, sizeof(*v));
	int rc;
	if (!v)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	if ((rc = ipac_view_open(v, data, n, base, env, d))) {
		free(v);
		return rc;
	}
	*st = v;
	return 0;
}

void ipac_st_close(void *st)
{
	if (st)
		ipac_view_close(st);
	free(st);
}

size_t ipac_st_count(void *st)
{
	return ((struct ipac_view *)st)->blk.count;
}

void ipac_st_member(void *st, size_t i, struct af_member *m)
{
	ipac_view_member(st, i, m);
}

int ipac_st_body(void *st, size_t i, struct af_buf *out, struct af_diag *d)
{
	return ipac_view_body(st, i, out, d);
}

void ipac_st_member_io(void *st, size_t i, struct af_io *io)
{
	const struct ipac_view *v = st;
	memset(io, 0, sizeof(*io));
	io->name = v->names[i];
}

int ipac_st_members(void *st, const char *name, struct af_buf *out)
{
	(void)name;
	ipac_view_members(st, out);
	return out->failed ? AF_ENOMEM : 0;
}

int ipac_st_replace(void *st, size_t i, const uint8_t *body, size_t n, struct af_buf *image,
		    struct af_diag *d)
{
	return ipac_view_rebuild(st, (long)i, body, n, image, d);
}

int ipac_st_rebuild(void *st, struct af_buf *image, struct af_diag *d)
{
	return ipac_view_rebuild(st, -1, NULL, 0, image, d);
}

/* ---- the bare IPAC container ---- */

static int bare_bid(const char *name, const uint8_t *head, size_t n)
{
	(void)name;
	return n >= IPAC_HEADER && !memcmp(head, "IPAC", 4) ? 2 : 0;
}

static int bare_open(const uint8_t *data, size_t n, const struct af_container_env *env, void **st,
		     struct af_diag *d)
{
	return ipac_st_open(data, n, 0, env, st, d);
}

extern const struct af_container af_container_ipac;

static int bare_check(int fd, uint64_t size, struct af_diag *d)
{
	return shm_check_open(fd, size, &af_container_ipac, d);
}

static int bare_layer(void *st, struct af_buf *out)
{
	ipac_view_layer(st, out);
	return out->failed ? AF_ENOMEM : 0;
}

const struct af_container af_container_ipac = {
	.name = "shenmue-ipac",
	.description = "Shenmue IPAC archive: its entries (MOTN as YAML) as a folder",
	.version = 1,
	.noun = "IPAC archive",
	.plural = "IPAC archives",
	.bid = bare_bid,
	.check = bare_check,
	.open = bare_open,
	IPAC_ST_OPS,
	.layer_yaml = bare_layer,
};
