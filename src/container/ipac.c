/* The IPAC block (spec 5): parse and check, members and their names, the rebuild with
 * one member replaced (spec 9.1, 32-byte rule relative to the block), index.yaml; and
 * the bare IPAC container (a file that is one IPAC block). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "animfs/bytes.h"
#include "animfs/fileio.h"
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
		e->raw = b->dirbytes.data + (size_t)IPAC_ENTRY * i;
		e->off = af_le32(e->raw + 12);
		e->size = af_le32(e->raw + 16);
		e->floating = !e->size && (e->off < IPAC_HEADER || e->off > b->len);
		if (!e->floating && (e->off < IPAC_HEADER || !af_fits(e->off, e->size, b->len)))
			return af_diag_at_offset(d, AF_EINVAL, b->dir + (size_t)IPAC_ENTRY * i + 12,
						 "IPAC entry %u 0x%X+0x%X outside 0x10..0x%zX", i,
						 e->off, e->size, b->len);
	}
	return check_overlaps(b, d);
}

/* The block at b->base of b->src (b->len bytes): its header, then its directory. */
static int parse(struct ipac_block *b, struct af_diag *d)
{
	const uint8_t *p = b->hdr;
	size_t len = b->len;
	int rc;
	if (len < IPAC_HEADER || af_src_read(&b->src, b->base, b->hdr, IPAC_HEADER, d) ||
	    memcmp(p, "IPAC", 4))
		return af_diag_clear(d), af_diag_at_offset(d, AF_EINVAL, 0, "not an IPAC block");
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
	/* the directory and the entries: count bounded above by the block's size */
	if ((rc = af_src_append(&b->src, b->base + b->dir, (size_t)IPAC_ENTRY * b->count, &b->dirbytes, d)))
		goto out;
	if (!(b->e = af_alloc_zeroed(b->count ? b->count : 1, sizeof(*b->e)))) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
		goto out;
	}
	rc = parse_entries(b, d);
out:
	if (rc)
		ipac_free(b);
	return rc;
}

int ipac_parse(struct ipac_block *b, const uint8_t *p, size_t len, struct af_diag *d)
{
	memset(b, 0, sizeof(*b));
	b->src = (struct af_src){p ? p : (const uint8_t *)"", -1, len, 0};
	b->len = len;
	return parse(b, d);
}

int ipac_parse_src(struct ipac_block *b, const struct af_src *src, uint64_t base, struct af_diag *d)
{
	memset(b, 0, sizeof(*b));
	b->src = *src;
	b->base = base;
	b->len = base <= src->size ? (size_t)(src->size - base) : 0;
	return parse(b, d);
}

void ipac_free(struct ipac_block *b)
{
	free(b->e);
	b->e = NULL;
	af_buf_free(&b->dirbytes);
}

int ipac_check_fd(int fd, uint64_t size, uint64_t base, struct af_diag *d)
{
	struct ipac_block b;
	struct af_src src = {NULL, fd, size, 0};
	if (size > AF_MAX_FILE)
		return af_diag_error(d, AF_EUNSUP, "%llu bytes: larger than animfs reads",
				     (unsigned long long)size);
	if (base > size || size - base < IPAC_HEADER)
		return af_diag_at_offset(d, AF_EINVAL, 0, "not an IPAC block");
	int rc = ipac_parse_src(&b, &src, base, d);
	if (rc && d->offset >= 0)
		d->offset += (int64_t)base;
	ipac_free(&b);
	return rc;
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
		uint8_t pad[IPAC_ALIGN];
		if (gap)
			packed = 0;
		if (gap != (IPAC_ALIGN - (end - IPAC_HEADER) % IPAC_ALIGN) % IPAC_ALIGN)
			canonical = 0;
		/* a canonical gap is under 32 bytes: read it, and it must be zeros */
		if (canonical && gap && af_src_read(&b->src, b->base + end, pad, (size_t)gap, NULL))
			canonical = 0;
		for (uint64_t k = 0; canonical && k < gap; k++)
			if (pad[k])
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

/* The header (at hdr) and the directory (at dir_at) of the planned bytes out, after the
 * relayout into a block of newend bytes. */
static void patch_dir(const struct ipac_block *b, long i, size_t n_new, const struct shm_region *r,
		      size_t n, uint64_t newend, struct af_buf *out, size_t hdr, size_t dir_at)
{
	uint32_t dir = (uint32_t)shm_moved(r, n, b->dir, newend);
	af_buf_patch_u32le(out, hdr + 4, dir);
	af_buf_patch_u32le(out, hdr + 12, dir);
	for (uint32_t k = 0; k < b->count; k++) {
		const struct ipac_entry *e = &b->e[k];
		size_t where = dir_at + (size_t)IPAC_ENTRY * k;
		if (!e->floating)
			af_buf_patch_u32le(out, where + 12,
					   (uint32_t)shm_moved(r, n, e->off, newend));
		if ((long)k == i || (i >= 0 && e->size && e->off == b->e[i].off && e->size == b->e[i].size))
			af_buf_patch_u32le(out, where + 16, (uint32_t)n_new);
	}
}

int ipac_plan(const struct ipac_block *b, long i, const uint8_t *body, size_t len,
	      struct af_pieces *out, struct af_diag *d)
{
	struct af_pieces sub = AF_PIECES_INIT; /* planned over the block alone, then shifted */
	size_t n, dj = SIZE_MAX;
	struct shm_region *r = regions_of(b, &n);
	int rc = 0;
	if (!r)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	if (i >= 0)
		rc = edit_region(b, i, r, n, body, len, d);
	for (size_t j = 0; j < n && !rc; j++)
		if (r[j].off == b->dir && r[j].len == (uint64_t)IPAC_ENTRY * b->count && !r[j].data) {
			r[j].data = b->dirbytes.data ? b->dirbytes.data : (const uint8_t *)"";
			r[j].newlen = b->dirbytes.len; /* patched below, in the pieces' bytes */
			dj = j;
		}
	if (!rc && dj == SIZE_MAX)
		rc = af_diag_error(d, AF_EINVAL, "internal error: no region for the IPAC directory");
	if (!rc && !(rc = shm_plan(b->len, b->hdr, IPAC_HEADER, r, n, IPAC_ALIGN, &sub, d))) {
		if (sub.len > UINT32_MAX)
			rc = af_diag_error(d, AF_EUNSUP, "the IPAC block would exceed 4 GiB");
		else if (i >= 0)
			patch_dir(b, i, len, r, n, sub.len, &sub.bytes, 0, r[dj].bytes_at);
		if (!rc && af_pieces_append(out, &sub, b->base))
			rc = af_diag_error(d, AF_ENOMEM, "out of memory");
	}
	af_pieces_free(&sub);
	free(r);
	return rc;
}

int ipac_rebuild(const struct ipac_block *b, long i, const uint8_t *body, size_t len,
		 struct af_buf *out, struct af_diag *d)
{
	struct af_pieces p = AF_PIECES_INIT;
	int rc = ipac_plan(b, i, body, len, &p, d);
	if (!rc)
		rc = af_pieces_to_buf(&p, &b->src, out, d);
	af_pieces_free(&p);
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

#define WINDOW ((size_t)64 << 10)

/* Each entry's first bytes, in file order through a 64 KiB window: small entries side by
 * side cost one read a window, a large one a read of its own (never its whole body). */
static int read_firsts(struct ipac_view *v, const struct af_container_env *env, struct af_diag *d)
{
	const struct ipac_block *b = &v->blk;
	size_t ns;
	struct span *s = spans_of(b, &ns);
	uint8_t *w = s ? af_alloc(WINDOW) : NULL;
	uint64_t wlo = 0, whi = 0; /* the window holds [wlo, whi) of the block */
	int rc = 0;
	if (!w) {
		free(s);
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	}
	for (size_t k = 0; k < ns && !rc; k++) {
		uint64_t off = s[k].off, got = s[k].size < IPAC_FIRST ? s[k].size : IPAC_FIRST;
		if (off < wlo || off + got > whi) {
			wlo = off;
			whi = off + (b->len - off < WINDOW ? b->len - off : WINDOW);
			rc = af_src_read(&b->src, b->base + wlo, w, (size_t)(whi - wlo), d);
		}
		if (!rc) { /* its codec, from its name and first bytes; then 8 of them kept */
			const uint8_t *first = w + (off - wlo);
			uint32_t i = s[k].i;
			v->codec[i] = shm_codec_of(env, v->names[i], first, (size_t)got, s[k].size);
			if (got > 0xC)
				memcpy(v->motn[i], first + 0xC, got - 0xC < 8 ? (size_t)(got - 0xC) : 8);
		}
	}
	free(w);
	free(s);
	return rc;
}

/* v->blk parsed: names, each entry's first bytes and its codec, the layout. */
static int view_members(struct ipac_view *v, const struct af_container_env *env, struct af_diag *d)
{
	size_t count = v->blk.count ? v->blk.count : 1;
	int rc;
	v->names = af_alloc_zeroed(count, sizeof(*v->names));
	v->codec = af_alloc_zeroed(count, sizeof(*v->codec));
	v->warn = af_alloc_zeroed(count, 1);
	v->motn = af_alloc_zeroed(count, sizeof(*v->motn));
	if (!v->names || !v->codec || !v->warn || !v->motn)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < v->blk.count; i++) {
		char name[AF_MEMBER_NAME_MAX];
		view_name(&v->blk.e[i], i, name, sizeof(name));
		if (!(v->names[i] = shm_keep(&v->arena, name)))
			return af_diag_error(d, AF_ENOMEM, "out of memory");
	}
	if ((rc = read_firsts(v, env, d)))
		return rc;
	for (uint32_t i = 0; i < v->blk.count; i++)
		v->warn[i] = !v->codec[i] && !memcmp(v->blk.e[i].raw + 8, "MOTN", 4);
	v->layout = ipac_layout(&v->blk);
	return shm_dedupe(v->names, v->blk.count, &v->arena) ? af_diag_error(d, AF_ENOMEM, "out of memory")
							    : 0;
}

/* Before a block's tables are made, whether its caller's memory bound (env's io
 * mem_room) lets them be: what the directory, the entries, names, codecs and first bytes
 * of count members take (a name's arena about 16 bytes). 0, or AF_ENOMEM with d. A count
 * the block cannot hold is the parse's to refuse. */
static int view_room(const struct af_src *src, size_t base, const struct af_container_env *env,
		     struct af_diag *d)
{
	const struct af_io *io = env ? env->io : NULL;
	const struct ipac_view *v = NULL;
	uint8_t h[IPAC_HEADER];
	size_t per = IPAC_ENTRY + sizeof(struct ipac_entry) + sizeof(*v->names) + sizeof(*v->codec) + 1 +
		     sizeof(*v->motn) + 16;
	if (!io || !io->mem_room || af_src_read(src, base, h, IPAC_HEADER, d)) {
		af_diag_clear(d);
		return 0;
	}
	size_t count = af_le32(h + 8);
	if (count > (src->size - base - IPAC_HEADER) / IPAC_ENTRY || io->mem_room(io->mem_ctx, count * per))
		return 0;
	return af_diag_error(d, AF_ENOMEM, "its table of %zu members would take more than %zu MiB, more than "
			     "the memory bound lets one container hold", count, (count * per >> 20) + 1);
}

/* The block at base of src, into v (whose file or descriptor src is). */
static int view_open(struct ipac_view *v, const struct af_src *src, size_t base,
		     const struct af_container_env *env, struct af_diag *d)
{
	int rc;
	v->base = base;
	if (base > src->size || src->size - base < IPAC_HEADER)
		return af_diag_at_offset(d, AF_EINVAL, 0, "not an IPAC block");
	if (af_src_read(src, 0, v->lead, src->size < sizeof(v->lead) ? (size_t)src->size : sizeof(v->lead), d))
		return d->code;
	if ((rc = view_room(src, base, env, d)))
		return rc;
	if ((rc = ipac_parse_src(&v->blk, src, base, d))) {
		d->offset = d->offset >= 0 ? d->offset + (int64_t)base : d->offset;
		return rc;
	}
	return view_members(v, env, d);
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
	struct af_src src = {v->file.data, -1, n, 0};
	if ((rc = view_open(v, &src, base, env, d)))
		ipac_view_close(v);
	return rc;
}

int ipac_view_open_src(struct ipac_view *v, const struct af_src *src, size_t base,
		       const struct af_container_env *env, struct af_diag *d)
{
	int rc;
	memset(v, 0, sizeof(*v));
	if (src->mem) { /* borrowed: a nested block's bytes outlive it */
		if ((rc = view_open(v, src, base, env, d)))
			ipac_view_close(v);
		return rc;
	}
	if ((v->fd = fcntl(src->fd, F_DUPFD_CLOEXEC, 0)) < 0)
		return af_diag_error(d, AF_EIO, "cannot keep the file open: %s", strerror(errno));
	v->has_fd = 1;
	struct af_src own = {NULL, v->fd, src->size, src->base};
	if ((rc = view_open(v, &own, base, env, d)))
		ipac_view_close(v);
	return rc;
}

void ipac_view_close(struct ipac_view *v)
{
	ipac_free(&v->blk);
	free(v->names);
	free(v->codec);
	free(v->warn);
	free(v->motn);
	af_arena_free(&v->arena);
	af_buf_free(&v->file);
	if (v->has_fd)
		close(v->fd);
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
	return e->size ? af_src_append(&v->blk.src, v->base + e->off, e->size, out, d) : 0;
}

int ipac_view_plan(const struct ipac_view *v, long i, const uint8_t *body, size_t n,
		   struct af_pieces *out, struct af_diag *d)
{
	if (af_pieces_copy(out, 0, v->base)) /* what comes before the block, verbatim */
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	return ipac_plan(&v->blk, i, body, n, out, d);
}

int ipac_view_rebuild(const struct ipac_view *v, long i, const uint8_t *body, size_t n,
		      struct af_buf *image, struct af_diag *d)
{
	struct af_pieces p = AF_PIECES_INIT;
	int rc = ipac_view_plan(v, i, body, n, &p, d);
	if (!rc)
		rc = af_pieces_to_buf(&p, &v->blk.src, image, d);
	af_pieces_free(&p);
	return rc;
}

void ipac_view_layer(const struct ipac_view *v, struct af_buf *out)
{
	af_buf_puts(out, "  - format: ipac\n    dir_offset: ");
	shm_hex(out, v->blk.dir);
	af_buf_printf(out, "\n    count: %u\n    layout: %s\n", v->blk.count, v->layout);
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
				      e->size >= 0x10 ? (int)(af_le32(v->motn[i]) & 0xFFF) - 1 : 0,
				      e->size >= 0x14 ? af_le32(v->motn[i] + 4) : 0);
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

int ipac_st_open_src(const struct af_src *src, size_t base, const struct af_container_env *env,
		     void **st, struct af_diag *d)
{
	struct ipac_view *v = af_alloc_zeroed(1, sizeof(*v));
	int rc;
	if (!v)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	if ((rc = ipac_view_open_src(v, src, base, env, d))) {
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

size_t ipac_st_tables(void *st)
{
	const struct ipac_view *v = st;
	size_t per = sizeof(*v->blk.e) + sizeof(*v->names) + sizeof(*v->codec) + 1 + sizeof(*v->motn);
	return v->blk.count * per + v->blk.dirbytes.cap + v->arena.used_total;
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

int ipac_st_rebuild_plan(void *st, struct af_pieces *out, const struct af_src **src,
			 struct af_diag *d)
{
	const struct ipac_view *v = st;
	*src = &v->blk.src;
	return ipac_view_plan(v, -1, NULL, 0, out, d);
}

int ipac_st_plan(void *st, size_t i, const uint8_t *body, size_t n, struct af_pieces *out,
		 struct af_diag *d)
{
	return ipac_view_plan(st, (long)i, body, n, out, d);
}

int ipac_st_span(void *st, size_t i, uint64_t *off, uint64_t *len)
{
	const struct ipac_view *v = st;
	const struct ipac_entry *e = &v->blk.e[i];
	if (!e->size)
		return 0;
	*off = v->base + e->off;
	*len = e->size;
	return 1;
}

int ipac_st_head(void *st, size_t i, uint8_t *buf, size_t n, size_t *got, struct af_diag *d)
{
	const struct ipac_view *v = st;
	const struct ipac_entry *e = &v->blk.e[i];
	*got = e->size < n ? e->size : n;
	return *got ? af_src_read(&v->blk.src, v->base + e->off, buf, *got, d) : 0;
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

static int bare_open_src(const struct af_src *src, const struct af_container_env *env, void **st,
			 struct af_diag *d)
{
	return ipac_st_open_src(src, 0, env, st, d);
}

extern const struct af_container af_container_ipac;

static int bare_check(int fd, uint64_t size, struct af_diag *d)
{
	return ipac_check_fd(fd, size, 0, d);
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
	.open_src = bare_open_src,
	IPAC_ST_OPS,
	.layer_yaml = bare_layer,
};
