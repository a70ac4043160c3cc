/* CRI AFS (spec 7): the header area kept at its size, the TOC, the name table found at
 * either pointer position, records whose last word is the size or a copy of the
 * header words, 2048-byte alignment; names from the name table, else from an IDX beside
 * the file (through the env's io), else NNNNN.<EXT> from the content. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "animfs/bytes.h"
#include "animfs/fileio.h"
#include "animfs/yamlio.h"
#include "shm.h"

#define AFS_ALIGN 2048
#define AFS_RECORD 48
#define AFS_CLAIM 64 /* a member's first bytes its content claim reads (AF_BID_HEAD) */

enum { WORD_KEEP, WORD_SIZE, WORD_COPY };

/* Only the tables are held: the head [0, first) (header, TOC, pointer pair), the name
 * table, a few first bytes of each member while it opens; a member's bytes are read
 * from src when asked, and a rebuild copies what stays (plan). */
struct afs {
	struct af_buf own;  /* the file, when opened from memory (open: a copy) */
	struct af_src src;  /* the file's bytes: own, or a descriptor of its own */
	struct af_buf head; /* [0, first) (check: the TOC only) */
	struct af_buf recs; /* the name table [names_off, +names_size) */
	size_t len;     /* the file's length */
	uint32_t count;
	uint32_t *live; /* TOC index of each member (null entries are not members) */
	size_t n;
	uint64_t first; /* the first member's offset (end of the header area) */
	uint32_t names_off, names_size;
	int ptr_a, ptr_b; /* where the pointer pair sits: 8 + 8*count, first - 8 */
	int word;         /* WORD_* */
	const char **names; /* per member, in arena (NULL until named) */
	struct af_arena arena;
	const char **codec; /* per member: the codec that claims it (MOTN), or NULL */
	const char **ext;   /* per member: the extension its content gives it */
};

static uint32_t toc_off(const struct afs *a, uint32_t i)
{
	return af_le32(a->head.data + 8 + 8 * (size_t)i);
}

static uint32_t toc_size(const struct afs *a, uint32_t i)
{
	return af_le32(a->head.data + 12 + 8 * (size_t)i);
}

struct blk {
	uint32_t off, size;
};

static int blk_cmp(const void *x, const void *y)
{
	const struct blk *a = x, *b = y;
	return a->off != b->off ? (a->off < b->off ? -1 : 1) : (a->size > b->size) - (a->size < b->size);
}

/* Live entries inside the file and not overlapping (a shared block counts once). */
static int check_toc(struct afs *a, uint64_t *last_end, struct af_diag *d)
{
	size_t len = a->len, toc = 8 + 8 * (size_t)a->count;
	struct blk *b = af_alloc((a->count ? a->count : 1) * sizeof(*b));
	size_t nb = 0;
	int rc = 0;
	if (!b || !(a->live = af_alloc_zeroed(a->count ? a->count : 1, sizeof(*a->live)))) {
		free(b);
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	}
	a->first = len;
	*last_end = toc;
	for (uint32_t i = 0; i < a->count && !rc; i++) {
		uint32_t o = toc_off(a, i), s = toc_size(a, i);
		if (!o && !s)
			continue;
		if (o < toc || !af_fits(o, s, len))
			rc = af_diag_at_offset(d, AF_EINVAL, 8 + 8 * (int64_t)i,
					       "AFS: entry %u 0x%X+0x%X outside the file", i, o, s);
		if (s) /* an empty member overlaps nothing */
			b[nb++] = (struct blk){o, s};
		a->live[a->n++] = i;
		if (o < a->first)
			a->first = o;
		if ((uint64_t)o + s > *last_end)
			*last_end = (uint64_t)o + s;
	}
	qsort(b, nb, sizeof(*b), blk_cmp);
	for (size_t k = 1; k < nb && !rc; k++)
		if ((b[k].off != b[k - 1].off || b[k].size != b[k - 1].size) &&
		    (uint64_t)b[k - 1].off + b[k - 1].size > b[k].off)
			rc = af_diag_at_offset(d, AF_EINVAL, b[k].off,
					       "AFS entry at 0x%X overlaps the one at 0x%X", b[k].off,
					       b[k - 1].off);
	free(b);
	return rc;
}

static int pair_ok(const struct afs *a, size_t at, uint64_t last_end)
{
	uint32_t o = af_le32(a->head.data + at), s = af_le32(a->head.data + at + 4);
	return o && s >= (uint64_t)AFS_RECORD * a->count && o >= last_end && af_fits(o, s, a->len);
}

/* The name-table pointer: (a) right after the TOC, else (b) before the first member. */
static void find_names(struct afs *a, uint64_t last_end)
{
	size_t pa = 8 + 8 * (size_t)a->count;
	if (pa + 8 <= a->first && pair_ok(a, pa, last_end))
		a->ptr_a = 1;
	if (a->first >= pa + 8 && a->first - 8 >= pa && pair_ok(a, a->first - 8, last_end) &&
	    (!a->ptr_a || !memcmp(a->head.data + pa, a->head.data + a->first - 8, 8)))
		a->ptr_b = 1;
	if (!a->ptr_a && !a->ptr_b)
		return;
	size_t at = a->ptr_a ? pa : a->first - 8;
	a->names_off = af_le32(a->head.data + at);
	a->names_size = af_le32(a->head.data + at + 4);
}

static uint32_t record_word(const struct afs *a, uint32_t i)
{
	return af_le32(a->recs.data + AFS_RECORD * (size_t)i + 0x2C);
}

static int word_mode(const struct afs *a)
{
	int size = 1, copy = 1;
	for (uint32_t i = 0; i < a->count; i++) {
		if (record_word(a, i) != toc_size(a, i))
			size = 0;
		if (record_word(a, i) != af_le32(a->head.data + 4 + 4 * (size_t)i))
			copy = 0;
	}
	return size ? WORD_SIZE : copy ? WORD_COPY : WORD_KEEP;
}

static const char *ext_of(const uint8_t *p, size_t n)
{
	if (n >= 4 && !memcmp(p, "PAKS", 4))
		return "PKS";
	if (n >= 4 && !memcmp(p, "PAKF", 4))
		return "PKF";
	if (n >= 3 && p[0] == 0x1F && p[1] == 0x8B)
		return "GZ";
	if (n >= 4 && af_le32(p) == 0x20)
		return "MOTN";
	return "BIN";
}

/* The IDX beside the AFS (X.IDX or X.idx), appended to idx: 0, -1 when there is none,
 * or AF_ENOMEM. */
static int read_idx(const struct af_container_env *env, struct af_buf *idx)
{
	const struct af_io *io = env ? env->io : NULL;
	char want[AF_MEMBER_NAME_MAX];
	if (!io || !io->name || !io->read_sibling || strlen(io->name) < 4 ||
	    strlen(io->name) >= sizeof(want))
		return -1;
	int stem = (int)strlen(io->name) - 4;
	for (int upper = 1; upper >= 0; upper--) {
		af_buf_reset(idx);
		snprintf(want, sizeof(want), "%.*s.%s", stem, io->name, upper ? "IDX" : "idx");
		int rc = io->read_sibling(io->ctx, want, idx);
		if (rc == AF_ENOMEM || idx->failed)
			return AF_ENOMEM;
		if (!rc)
			return 0;
	}
	return -1;
}

/* Member k named from raw (max bytes, to a NUL) and its extension; 0, or AF_ENOMEM. */
static int name_from(struct afs *a, size_t k, const uint8_t *raw, size_t max)
{
	char id[AF_MEMBER_NAME_MAX / 2], name[AF_MEMBER_NAME_MAX];
	size_t l = 0;
	while (l < max && raw[l])
		l++;
	shm_escape(raw, l, id, sizeof(id));
	if (!id[0])
		return 0;
	snprintf(name, sizeof(name), "%s.%s", id, a->ext[k]);
	return (a->names[k] = shm_keep(&a->arena, name)) ? 0 : AF_ENOMEM;
}

/* Names from an IDX (spec 7.5): IDX0 (Shenmue I: 20-byte header, entries of char[12]
 * name, u16 AFS index, u16 last index, u32), or HUMANS.IDX (u32 count, a 4-character
 * NPC id per PKF/PKS pair); the extension comes from each member's content. */
static int idx_names(struct afs *a, const struct af_container_env *env)
{
	struct af_buf idx = AF_BUF_INIT;
	const uint8_t *p;
	int rc = read_idx(env, &idx);
	if (rc)
		goto out;
	p = idx.data;
	if (idx.len >= 20 && !memcmp(p, "IDX0", 4)) {
		for (size_t e = 0; e < (idx.len - 20) / 20; e++) {
			uint16_t at = af_le16(p + 20 + 20 * e + 12);
			size_t lo = 0, hi = a->n;
			while (lo < hi) { /* live is in TOC order: a binary search */
				size_t mid = lo + (hi - lo) / 2;
				if (a->live[mid] < at)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < a->n && a->live[lo] == at && (rc = name_from(a, lo, p + 20 + 20 * e, 12)))
				goto out;
		}
	} else if (idx.len >= 4 && af_le32(p) * 2ull == a->n && idx.len >= 4 + 4ull * af_le32(p)) {
		for (size_t k = 0; k < a->n && !rc; k++)
			rc = name_from(a, k, p + 4 + 4 * (k / 2), 4);
	}
out:
	af_buf_free(&idx);
	return rc == AF_ENOMEM ? rc : 0;
}

static int name_members(struct afs *a, const struct af_container_env *env, struct af_diag *d)
{
	int rc;
	a->names = af_alloc_zeroed(a->n ? a->n : 1, sizeof(*a->names));
	a->codec = af_alloc_zeroed(a->n ? a->n : 1, sizeof(*a->codec));
	a->ext = af_alloc_zeroed(a->n ? a->n : 1, sizeof(*a->ext));
	if (!a->names || !a->codec || !a->ext)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	for (size_t k = 0; k < a->n; k++) { /* what its first bytes say: a codec, an extension */
		uint8_t head[AFS_CLAIM];
		size_t got = toc_size(a, a->live[k]) < sizeof(head) ? toc_size(a, a->live[k]) : sizeof(head);
		if ((rc = af_src_read(&a->src, toc_off(a, a->live[k]), head, got, d)))
			return rc;
		a->codec[k] = shm_codec_of(env, "", head, got, toc_size(a, a->live[k]));
		a->ext[k] = ext_of(head, got);
	}
	if (!a->names_off && idx_names(a, env))
		return af_diag_error(d, AF_ENOMEM, "out of memory reading the IDX");
	for (size_t k = 0; k < a->n; k++) {
		uint32_t i = a->live[k];
		char name[AF_MEMBER_NAME_MAX] = "";
		if (a->names_off) {
			const uint8_t *r = a->recs.data + AFS_RECORD * (size_t)i;
			size_t l = 0;
			while (l < 32 && r[l])
				l++;
			shm_escape(r, l, name, sizeof(name));
			a->names[k] = NULL;
		}
		if (!name[0] && !a->names[k])
			snprintf(name, sizeof(name), "%05u.%s", i, a->ext[k]);
		if (name[0] && !(a->names[k] = shm_keep(&a->arena, name)))
			return af_diag_error(d, AF_ENOMEM, "out of memory");
	}
	return shm_dedupe(a->names, a->n, &a->arena) ? af_diag_error(d, AF_ENOMEM, "out of memory") : 0;
}

static size_t afs_tables(void *st)
{
	const struct afs *a = st;
	size_t per = sizeof(*a->live) + sizeof(*a->names) + sizeof(*a->codec) + sizeof(*a->ext);
	return a->n * per + a->head.cap + a->recs.cap + a->arena.used_total;
}

static void afs_close(void *st)
{
	struct afs *a = st;
	if (!a)
		return;
	af_buf_free(&a->own);
	af_buf_free(&a->head);
	af_buf_free(&a->recs);
	if (!a->src.mem && a->src.fd >= 0)
		close(a->src.fd);
	free(a->live);
	free(a->names);
	af_arena_free(&a->arena);
	free(a->codec);
	free(a->ext);
	free(a);
}

/* Open from a->src: the header, the TOC, the head up to the first member, the name
 * table; each member's first bytes. */
static int afs_load(struct afs *a, const struct af_container_env *env, struct af_diag *d)
{
	uint8_t h8[8];
	uint64_t last_end;
	int rc;
	a->len = (size_t)a->src.size;
	if (a->src.size < 8 || af_src_read(&a->src, 0, h8, 8, d) || memcmp(h8, "AFS", 3) ||
	    (h8[3] && h8[3] != ' '))
		return af_diag_clear(d), af_diag_at_offset(d, AF_EINVAL, 0, "not an AFS archive");
	if (8 + 8 * (uint64_t)af_le32(h8 + 4) > a->src.size)
		return af_diag_at_offset(d, AF_EINVAL, 4, "AFS: entry count %u cannot fit", af_le32(h8 + 4));
	a->count = af_le32(h8 + 4);
	if ((rc = af_src_append(&a->src, 0, 8 + 8 * (size_t)a->count, &a->head, d)) ||
	    (rc = check_toc(a, &last_end, d)))
		return rc;
	/* the head up to the first member (the pointer pair may sit at its end) */
	if ((rc = af_src_append(&a->src, a->head.len, a->first - a->head.len, &a->head, d)))
		return rc;
	find_names(a, last_end);
	if (a->names_off && (rc = af_src_append(&a->src, a->names_off, a->names_size, &a->recs, d)))
		return rc;
	a->word = a->names_off ? word_mode(a) : WORD_KEEP;
	return name_members(a, env, d);
}

static int afs_open_from(const struct af_src *src, const uint8_t *data, size_t n,
			 const struct af_container_env *env, void **st, struct af_diag *d)
{
	struct afs *a;
	int rc;
	if (!(a = af_alloc_zeroed(1, sizeof(*a))))
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	a->src.fd = -1;
	if (src && src->mem) { /* borrowed: a nested AFS's bytes outlive it */
		a->src = *src;
	} else if (src) {
		a->src = *src;
		if ((a->src.fd = fcntl(src->fd, F_DUPFD_CLOEXEC, 0)) < 0) {
			rc = af_diag_error(d, AF_EIO, "cannot keep the file open: %s", strerror(errno));
			goto out;
		}
	} else if (af_buf_append(&a->own, data, n)) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
		goto out;
	} else {
		a->src = (struct af_src){a->own.data ? a->own.data : (const uint8_t *)"", -1, n, 0};
	}
	rc = afs_load(a, env, d);
out:
	if (rc)
		afs_close(a);
	else
		*st = a;
	return rc;
}

static int afs_open(const uint8_t *data, size_t n, const struct af_container_env *env, void **st,
		    struct af_diag *d)
{
	return afs_open_from(NULL, data, n, env, st, d);
}

static int afs_open_src(const struct af_src *src, const struct af_container_env *env, void **st,
			struct af_diag *d)
{
	return afs_open_from(src, NULL, 0, env, st, d);
}

static int afs_bid(const char *name, const uint8_t *head, size_t n)
{
	size_t l = strlen(name);
	if (n >= 8 && !memcmp(head, "AFS", 3) && (!head[3] || head[3] == ' '))
		return 2;
	return l > 4 && !strcasecmp(name + l - 4, ".afs") ? 1 : 0;
}

extern const struct af_container af_container_afs;

/* From the header and the TOC only (an AFS can be large): two reads. */
static int afs_check(int fd, uint64_t size, struct af_diag *d)
{
	struct afs a;
	uint8_t head[8];
	uint64_t last_end;
	int rc;
	memset(&a, 0, sizeof(a));
	if (size > AF_MAX_FILE)
		return af_diag_error(d, AF_EUNSUP, "%llu bytes: larger than animfs reads",
				     (unsigned long long)size);
	if (size < 8 || pread(fd, head, 8, 0) != 8 || memcmp(head, "AFS", 3) || (head[3] && head[3] != ' '))
		return af_diag_at_offset(d, AF_EINVAL, 0, "not an AFS archive");
	a.count = af_le32(head + 4);
	a.len = (size_t)size;
	size_t toc = 8 + 8 * (size_t)a.count;
	if (toc > size)
		return af_diag_at_offset(d, AF_EINVAL, 4, "AFS: entry count %u cannot fit", a.count);
	if (af_buf_reserve(&a.head, toc)) /* bounded by the file's size, checked above */
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	if (pread(fd, a.head.data, toc, 0) != (ssize_t)toc) {
		rc = af_diag_error(d, AF_EIO, "cannot read the AFS table of contents");
	} else {
		a.head.len = toc;
		rc = check_toc(&a, &last_end, d);
	}
	free(a.live);
	af_buf_free(&a.head);
	return rc;
}

static size_t afs_count(void *st)
{
	return ((struct afs *)st)->n;
}

static void afs_member(void *st, size_t i, struct af_member *m)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", ((struct afs *)st)->names[i]);
	m->codec = ((struct afs *)st)->codec[i];
}

static int afs_body(void *st, size_t i, struct af_buf *out, struct af_diag *d)
{
	const struct afs *a = st;
	uint32_t e = a->live[i];
	return af_src_append(&a->src, toc_off(a, e), toc_size(a, e), out, d);
}

static int afs_span(void *st, size_t i, uint64_t *off, uint64_t *len)
{
	const struct afs *a = st;
	*off = toc_off(a, a->live[i]);
	*len = toc_size(a, a->live[i]);
	return 1;
}

static int afs_head(void *st, size_t i, uint8_t *buf, size_t n, size_t *got, struct af_diag *d)
{
	const struct afs *a = st;
	uint32_t e = a->live[i];
	*got = toc_size(a, e) < n ? toc_size(a, e) : n;
	return af_src_read(&a->src, toc_off(a, e), buf, *got, d);
}

static void afs_member_io(void *st, size_t i, struct af_io *io)
{
	memset(io, 0, sizeof(*io));
	io->name = ((struct afs *)st)->names[i];
}

static int region_cmp(const void *x, const void *y)
{
	const struct shm_region *a = x, *b = y;
	return a->off != b->off ? (a->off < b->off ? -1 : 1) : (a->len > b->len) - (a->len < b->len);
}

static size_t regions_of(const struct afs *a, struct shm_region *r)
{
	size_t n = 0, u = 0;
	for (size_t k = 0; k < a->n; k++) {
		uint64_t o = toc_off(a, a->live[k]), s = toc_size(a, a->live[k]);
		if (s) /* an empty member is no region: it moves with what follows it */
			r[n++] = (struct shm_region){.off = o, .len = s};
	}
	qsort(r, n, sizeof(*r), region_cmp);
	for (size_t k = 0; k < n; k++) /* a shared block is one region: sorted, they are adjacent */
		if (!u || r[k].off != r[u - 1].off || r[k].len != r[u - 1].len)
			r[u++] = r[k];
	n = u;
	if (a->names_off) { /* after every member (pair_ok): it sorts last */
		r[n++] = (struct shm_region){.off = a->names_off, .len = a->names_size};
		qsort(r, n, sizeof(*r), region_cmp);
	}
	return n;
}

/* The TOC, the pointer pair(s) and the record words after the relayout (spec 9.2), in
 * the planned bytes: the head at bytes[0..first), the name table's at recs. */
static void patch(const struct afs *a, long edit, size_t len, const struct shm_region *r, size_t n,
		  uint64_t newend, struct af_buf *bytes, size_t recs)
{
	uint32_t eo = edit >= 0 ? toc_off(a, a->live[edit]) : 0, es = edit >= 0 ? toc_size(a, a->live[edit]) : 0;
	for (uint32_t i = 0; i < a->count; i++) {
		uint32_t o = toc_off(a, i), s = toc_size(a, i);
		if (!o && !s)
			continue;
		af_buf_patch_u32le(bytes, 8 + 8 * (size_t)i, (uint32_t)shm_moved(r, n, o, newend));
		if (edit >= 0 && o == eo && s == es)
			af_buf_patch_u32le(bytes, 12 + 8 * (size_t)i, (uint32_t)len);
	}
	if (!a->names_off)
		return;
	uint32_t no = (uint32_t)shm_moved(r, n, a->names_off, newend);
	if (a->ptr_a)
		af_buf_patch_u32le(bytes, 8 + 8 * (size_t)a->count, no);
	if (a->ptr_b)
		af_buf_patch_u32le(bytes, a->first - 8, no);
	for (uint32_t i = 0; i < a->count; i++) {
		size_t at = recs + AFS_RECORD * (size_t)i + 0x2C;
		if (a->word == WORD_SIZE)
			af_buf_patch_u32le(bytes, at, af_le32(bytes->data + 12 + 8 * (size_t)i));
		else if (a->word == WORD_COPY)
			af_buf_patch_u32le(bytes, at, af_le32(bytes->data + 4 + 4 * (size_t)i));
	}
}

/* The archive anew (member edit's bytes body, or none: -1) as pieces of the old file:
 * the head and the name table as new bytes (patched), the new body, every other
 * member and gap a copy. Where the new body fits the room before the next member
 * (spec 9.1: its end in the same 2048-byte sector as the old end's gap allows), every
 * later member keeps its offset and the plan is the member and the tables. */
static int afs_plan_with(const struct afs *a, long edit, const uint8_t *body, size_t len,
			 const struct af_pieces *inner, struct af_pieces *out, struct af_diag *d)
{
	struct shm_region *r = af_alloc_zeroed(a->n + 1, sizeof(*r));
	size_t n, names = SIZE_MAX, base = out->bytes.len;
	uint64_t start = out->len;
	int rc = 0;
	if (!r)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	n = regions_of(a, r);
	if (edit >= 0) {
		uint32_t e = a->live[edit], shared = 0;
		for (size_t k = 0; k < a->n; k++)
			shared += toc_off(a, a->live[k]) == toc_off(a, e) && toc_size(a, a->live[k]) == toc_size(a, e);
		for (size_t j = 0; j < n; j++)
			if (r[j].off == toc_off(a, e) && r[j].len == toc_size(a, e)) {
				r[j].data = inner ? (const uint8_t *)"" : body;
				r[j].newlen = len;
				r[j].pieces = inner; /* the member's bytes at its offset */
				r[j].shift = toc_off(a, e);
			}
		if (!toc_size(a, e))
			rc = af_diag_error(d, AF_EUNSUP, "AFS entry %u is empty; v1 does not give it bytes", e);
		else if (shared > 1)
			rc = af_diag_error(d, AF_EUNSUP, "AFS entries share one block; v1 does not edit one alone");
		else if (len > UINT32_MAX)
			rc = af_diag_error(d, AF_EUNSUP, "a member of %zu bytes does not fit an AFS", len);
	}
	for (size_t j = 0; j < n; j++)
		if (a->names_off && r[j].off == a->names_off && r[j].len == a->names_size && !r[j].data) {
			r[j].data = a->recs.data; /* patched below, in the pieces' bytes */
			r[j].newlen = a->recs.len;
			names = j;
		}
	if (!rc && !(rc = shm_plan(a->len, a->head.data, a->head.len, r, n, AFS_ALIGN, out, d))) {
		if (out->len - start > UINT32_MAX)
			rc = af_diag_error(d, AF_EUNSUP, "the AFS would exceed 4 GiB");
		else if (base) /* the head's bytes are found at 0 */
			rc = af_diag_error(d, AF_EINVAL, "internal error: an AFS plan appended to another");
		else
			patch(a, edit, len, r, n, out->len - start, &out->bytes,
			      names < n ? r[names].bytes_at : 0);
	}
	free(r);
	return rc;
}

static int afs_rebuild_with(const struct afs *a, long edit, const uint8_t *body, size_t len,
			    struct af_buf *image, struct af_diag *d)
{
	struct af_pieces p = AF_PIECES_INIT;
	int rc = afs_plan_with(a, edit, body, len, NULL, &p, d);
	if (!rc)
		rc = af_pieces_to_buf(&p, &a->src, image, d);
	af_pieces_free(&p);
	return rc;
}

static int afs_plan(void *st, size_t i, const uint8_t *body, size_t n, struct af_pieces *out,
		    struct af_diag *d)
{
	return afs_plan_with(st, (long)i, body, n, NULL, out, d);
}

/* A member that is an archive planned in turn: its pieces (of its bytes, which lie at
 * its offset) in its place. */
static int afs_plan_in(void *st, size_t i, struct af_pieces *inner, struct af_pieces *out,
		       struct af_diag *d)
{
	int rc = inner->unsized || inner->len > UINT32_MAX
			 ? af_diag_error(d, AF_EUNSUP, "internal error: an AFS member of unknown size")
			 : afs_plan_with(st, (long)i, NULL, (size_t)inner->len, inner, out, d);
	af_pieces_free(inner);
	return rc;
}

/* A member's bytes as a window on the file (from a descriptor): an archive inside is
 * opened from its tables, never read whole. */
static int afs_member_src(void *st, size_t i, struct af_src *src, struct af_diag *d)
{
	const struct afs *a = st;
	uint32_t e = a->live[i];
	(void)d;
	if (a->src.mem || a->src.fd < 0)
		return 0;
	*src = (struct af_src){NULL, a->src.fd, toc_size(a, e), a->src.base + toc_off(a, e)};
	return 1;
}

static int afs_replace(void *st, size_t i, const uint8_t *body, size_t n, struct af_buf *image,
		       struct af_diag *d)
{
	return afs_rebuild_with(st, (long)i, body, n, image, d);
}

static int afs_rebuild(void *st, struct af_buf *image, struct af_diag *d)
{
	return afs_rebuild_with(st, -1, NULL, 0, image, d);
}

static int afs_rebuild_plan(void *st, struct af_pieces *out, const struct af_src **src,
			    struct af_diag *d)
{
	const struct afs *a = st;
	*src = &a->src;
	return afs_plan_with(a, -1, NULL, 0, NULL, out, d);
}

static int afs_layer(void *st, struct af_buf *out)
{
	const struct afs *a = st;
	static const char *const words[] = {"kept", "size", "header-copy"};
	af_buf_printf(out, "  - format: afs\n    count: %u\n    null_entries: %zu\n    first_offset: ",
		      a->count, a->count - a->n);
	shm_hex(out, a->first);
	if (a->names_off) {
		af_buf_puts(out, "\n    names_offset: ");
		shm_hex(out, a->names_off);
		af_buf_printf(out, "\n    names_size: %u\n    pointer: %s\n    last_word: %s\n", a->names_size,
			      a->ptr_a && a->ptr_b ? "both" : a->ptr_a ? "after-toc" : "before-first",
			      words[a->word]);
	} else {
		af_buf_puts(out, "\n    names: none\n");
	}
	return out->failed ? AF_ENOMEM : 0;
}

static int afs_members(void *st, const char *name, struct af_buf *out)
{
	const struct afs *a = st;
	(void)name;
	af_buf_puts(out, a->n ? "members:\n" : "members: []\n");
	for (size_t k = 0; k < a->n; k++) {
		uint32_t i = a->live[k];
		af_buf_printf(out, "  - {index: %u, file: ", i);
		af_y_cstr(out, a->names[k]);
		af_buf_puts(out, ", offset: ");
		shm_hex(out, toc_off(a, i));
		af_buf_printf(out, ", size: %u", toc_size(a, i));
		if (a->names_off) {
			const uint8_t *r = a->recs.data + AFS_RECORD * (size_t)i + 32;
			af_buf_printf(out, ", date: \"%04u-%02u-%02u %02u:%02u:%02u\", last_word: %u",
				      af_le16(r), af_le16(r + 2), af_le16(r + 4), af_le16(r + 6),
				      af_le16(r + 8), af_le16(r + 10), af_le32(r + 12));
		}
		af_buf_puts(out, "}\n");
	}
	return out->failed ? AF_ENOMEM : 0;
}

const struct af_container af_container_afs = {
	.name = "afs",
	.description = "CRI AFS archive (Shenmue HUMANS.AFS, ...): its members as a folder",
	.version = 1,
	.noun = "AFS archive",
	.plural = "AFS archives",
	.member_noun = "member",
	.members = "members",
	.bid = afs_bid,
	.check = afs_check,
	.open = afs_open,
	.open_src = afs_open_src,
	.close = afs_close,
	.count = afs_count,
	.member = afs_member,
	.tables = afs_tables,
	.body = afs_body,
	.member_io = afs_member_io,
	.index_yaml = afs_members,
	.replace = afs_replace,
	.plan = afs_plan,
	.plan_in = afs_plan_in,
	.member_src = afs_member_src,
	.span = afs_span,
	.head = afs_head,
	.rebuild = afs_rebuild,
	.rebuild_plan = afs_rebuild_plan,
	.layer_yaml = afs_layer,
};
