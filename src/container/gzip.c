/* gzip (RFC 1952; spec 3) as a layer: one member, the inflated bytes. When they are a
 * container the folder shows that one (the registry's layer rule). An unchanged content
 * writes the stored bytes back (the stream SEGA's gzip made cannot be remade); a changed
 * one keeps the header bytes and gets a new deflate stream, CRC-32 and ISIZE. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "animfs/bytes.h"
#include "animfs/codec.h"
#include "animfs/fileio.h"
#include "animfs/yamlio.h"
#include "animfs/zframe.h"
#include "shm.h"

enum { FTEXT = 1, FHCRC = 2, FEXTRA = 4, FNAME = 8, FCOMMENT = 16 };

struct gz {
	struct af_buf own;   /* a copy of the file (open), or its header (from a descriptor) */
	const uint8_t *file; /* the header at least ([0, hdr)); the file when in memory */
	size_t have;         /* bytes at file */
	struct af_src src;   /* the stored bytes: in memory, or a descriptor of its own */
	int has_fd;
	size_t len;          /* the file's length */
	uint32_t crc;        /* the trailer's CRC-32 */
	size_t isize;        /* the inflated bytes' length (checked against the trailer) */
	/* inflated, once asked (load_data): a layer a save or a revert check only compares
	 * or re-deflates is never held */
	struct af_buf data;
	int loaded;
	int tmpfd;           /* a large layer's inflated bytes: in this unlinked file (or -1) */
	pthread_mutex_t mu;
	size_t hdr, deflate, trailing;
	uint8_t head[AF_BID_HEAD]; /* the inflated bytes' first (a bid's) */
	size_t head_n;
	size_t fname, fname_len, fcomment, fcomment_len, xlen;
	char name[AF_MEMBER_NAME_MAX];
	const char *codec;
};

/* A NUL-terminated string at *pos: its start and length; -1 when it has no NUL. */
static int zstring(const uint8_t *p, size_t n, size_t *pos, size_t *at, size_t *len)
{
	const uint8_t *z = *pos < n ? memchr(p + *pos, 0, n - *pos) : NULL;
	if (!z)
		return -1;
	*at = *pos;
	*len = (size_t)(z - (p + *pos));
	*pos += *len + 1;
	return 0;
}

static int parse_header(struct gz *g, const uint8_t *p, size_t n, struct af_diag *d)
{
	size_t pos = 10;
	if (n < 10 || p[0] != 0x1F || p[1] != 0x8B)
		return af_diag_at_offset(d, AF_EINVAL, 0, "not a gzip member");
	if (p[2] != 8)
		return af_diag_at_offset(d, AF_EINVAL, 2, "not a gzip member: compression method %u", p[2]);
	if (p[3] & 0xE0)
		return af_diag_at_offset(d, AF_EINVAL, 3, "not a gzip member: reserved flags 0x%02X",
					 p[3] & 0xE0);
	if (p[3] & FEXTRA) {
		if (n - pos < 2 || (g->xlen = af_le16(p + pos)) > n - pos - 2)
			return af_diag_at_offset(d, AF_EINVAL, pos, "truncated gzip header (FEXTRA)");
		pos += 2 + g->xlen;
	}
	if ((p[3] & FNAME) && zstring(p, n, &pos, &g->fname, &g->fname_len))
		return af_diag_at_offset(d, AF_EINVAL, pos, "gzip FNAME without its NUL");
	if ((p[3] & FCOMMENT) && zstring(p, n, &pos, &g->fcomment, &g->fcomment_len))
		return af_diag_at_offset(d, AF_EINVAL, pos, "gzip FCOMMENT without its NUL");
	if (p[3] & FHCRC) {
		if (n - pos < 2)
			return af_diag_at_offset(d, AF_EINVAL, pos, "truncated gzip header (FHCRC)");
		if ((af_crc32(p, pos) & 0xFFFF) != af_le16(p + pos))
			return af_diag_at_offset(d, AF_EINVAL, pos, "gzip header CRC mismatch");
		pos += 2;
	}
	g->hdr = pos;
	return 0;
}

/* The header from g->file, then the deflate stream and the trailer from g->src (read
 * as they are inflated: the stored bytes are not kept for it). */
static int parse(struct gz *g, struct af_diag *d)
{
	uint8_t tr[8];
	size_t n = g->len;
	int rc;
	if ((rc = parse_header(g, g->file, g->have, d)))
		return rc;
	size_t size = 0; /* counted first: memory only for what the member really holds */
	uint32_t crc = 0;
	if (n > AF_MAX_LAYER_STORED)
		return af_diag_error(d, AF_EUNSUP, "a gzip file of %zu bytes: more than %zu, the "
				     "most one gzip layer may be (AF_MAX_LAYER_STORED); not read", n,
				     AF_MAX_LAYER_STORED);
	/* one pass keeping nothing: the size, the stream's end, the CRC-32, the head */
	if (!(rc = af_zframe_scan_raw_src(&g->src, g->hdr, n - g->hdr, AF_MAX_LAYER, &size, &g->deflate,
					  &crc, g->head, sizeof(g->head), &g->head_n, d)) &&
	    size > AF_MAX_LAYER)
		return af_diag_error(d, AF_EUNSUP, "gzip member inflates past %zu MiB, the most one "
				     "gzip layer may hold (AF_MAX_LAYER); refused before it is kept",
				     AF_MAX_LAYER >> 20);
	if (rc) {
		if (d->offset >= 0)
			d->offset += (int64_t)g->hdr;
		return rc;
	}
	size_t t = g->hdr + g->deflate;
	if (n - t < 8)
		return af_diag_at_offset(d, AF_EINVAL, t, "truncated gzip member (no trailer)");
	if ((rc = af_src_read(&g->src, t, tr, 8, d)))
		return rc;
	g->crc = af_le32(tr);
	g->isize = size;
	if (g->crc != crc)
		return af_diag_at_offset(d, AF_EINVAL, t, "gzip CRC-32 mismatch");
	if (af_le32(tr + 4) != (uint32_t)size)
		return af_diag_at_offset(d, AF_EINVAL, t + 4, "gzip ISIZE mismatch");
	g->trailing = n - t - 8;
	return 0;
}

/* A layer larger than this is inflated into a temporary file, never held. */
#define LAYER_IN_MEMORY ((size_t)4 << 20)

static int put_tmp(void *ctx, const uint8_t *data, size_t n, struct af_diag *d)
{
	struct gz *g = ctx;
	for (size_t k = 0; k < n;) {
		ssize_t w = write(g->tmpfd, data + k, n - k);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return af_diag_error(d, AF_EIO, "cannot write the inflated layer: %s", strerror(errno));
		k += (size_t)w;
	}
	return 0;
}

static int gz_each(void *st, size_t i,
		   int (*put)(void *ctx, const uint8_t *data, size_t n, struct af_diag *d), void *ctx,
		   struct af_diag *d);

/* A large layer's inflated bytes into g->tmpfd, checked against the trailer. */
static int load_tmp(struct gz *g, struct af_diag *d)
{
	int rc;
	struct stat st;
	if ((g->tmpfd = af_tmpfile(d)) < 0)
		return d->code;
	if (!(rc = gz_each(g, 0, put_tmp, g, d)) && (fstat(g->tmpfd, &st) || (size_t)st.st_size != g->isize))
		rc = af_diag_error(d, AF_EIO, "the inflated layer was not written whole");
	if (rc) {
		close(g->tmpfd);
		g->tmpfd = -1;
	}
	return rc;
}

/* The inflated bytes in g->data (or, past LAYER_IN_MEMORY, in g->tmpfd), made on the
 * first ask (the stream read again from the file or the bytes it was opened over). */
static int load_data(struct gz *g, struct af_diag *d)
{
	size_t used = 0;
	int rc = 0;
	pthread_mutex_lock(&g->mu);
	if (!g->loaded && g->isize > LAYER_IN_MEMORY) {
		if (!(rc = load_tmp(g, d)))
			__atomic_store_n(&g->loaded, 1, __ATOMIC_RELEASE);
	} else if (!g->loaded) {
		af_buf_reset(&g->data);
		if (!(rc = af_zframe_inflate_raw_src(&g->src, g->hdr, g->len - g->hdr, g->isize, &g->data,
						     &used, d)) &&
		    (g->data.len != g->isize || af_crc32(g->data.data, g->data.len) != g->crc))
			rc = af_diag_error(d, AF_EINVAL, "the gzip layer changed while it was read");
		if (rc)
			af_buf_free(&g->data);
		else
			__atomic_store_n(&g->loaded, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&g->mu);
	return rc;
}

/* The member's name: FNAME (escaped) or "data". */
static void member_name(struct gz *g)
{
	if (g->fname_len)
		shm_escape(g->file + g->fname, g->fname_len, g->name, sizeof(g->name));
	if (!g->name[0])
		snprintf(g->name, sizeof(g->name), "data");
}

static void gz_close(void *st)
{
	struct gz *g = st;
	if (!g)
		return;
	af_buf_free(&g->own);
	af_buf_free(&g->data);
	if (g->has_fd)
		close(g->src.fd);
	if (g->tmpfd >= 0)
		close(g->tmpfd);
	pthread_mutex_destroy(&g->mu);
	free(g);
}

/* g->file set: parse, name, claim. */
static int gz_load(struct gz *g, const struct af_container_env *env, struct af_diag *d)
{
	int rc = parse(g, d);
	if (rc)
		return rc;
	member_name(g);
	g->codec = shm_codec_of(env, g->name, g->head, g->head_n, g->isize);
	return 0;
}

static int gz_open(const uint8_t *data, size_t n, const struct af_container_env *env, void **st,
		   struct af_diag *d)
{
	struct gz *g = af_alloc_zeroed(1, sizeof(*g));
	int rc;
	if (!g)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	pthread_mutex_init(&g->mu, NULL);
	g->tmpfd = -1;
	if (af_buf_append(&g->own, data, n)) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory for a %zu-byte gzip", n);
		goto out;
	}
	g->file = g->own.data ? g->own.data : (const uint8_t *)"";
	g->have = g->len = n;
	g->src = (struct af_src){g->file, -1, n, 0};
	if (!(rc = gz_load(g, env, d)))
		*st = g;
out:
	if (rc)
		gz_close(g);
	return rc;
}

#define HEADER_READ ((size_t)1 << 20) /* what a header's strings may take */

/* From memory: the bytes borrowed (a nested layer's); from a descriptor: the header kept,
 * the stream inflated as it is read (the stored bytes are never held). */
static int gz_open_src(const struct af_src *src, const struct af_container_env *env, void **st,
		       struct af_diag *d)
{
	struct gz *g;
	int rc = 0;
	if (src->size > AF_MAX_LAYER_STORED)
		return af_diag_error(d, AF_EUNSUP, "a gzip file of %llu bytes: more than %zu, the "
				     "most one gzip layer may be (AF_MAX_LAYER_STORED); not read",
				     (unsigned long long)src->size, AF_MAX_LAYER_STORED);
	if (!(g = af_alloc_zeroed(1, sizeof(*g))))
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	pthread_mutex_init(&g->mu, NULL);
	g->tmpfd = -1;
	g->len = (size_t)src->size;
	if (src->mem) {
		g->src = *src;
		g->file = src->mem;
		g->have = g->len;
	} else if ((g->src.fd = fcntl(src->fd, F_DUPFD_CLOEXEC, 0)) < 0) {
		rc = af_diag_error(d, AF_EIO, "cannot keep the file open: %s", strerror(errno));
	} else {
		g->has_fd = 1;
		g->src.size = src->size;
		g->src.base = src->base;
		g->have = g->len < HEADER_READ ? g->len : HEADER_READ;
		if (!(rc = af_src_append(&g->src, 0, g->have, &g->own, d)))
			g->file = g->own.data ? g->own.data : (const uint8_t *)"";
	}
	if (!rc && !(rc = gz_load(g, env, d)))
		*st = g;
	if (!rc && g->has_fd) { /* only the header stays */
		struct af_buf h = AF_BUF_INIT;
		if (af_buf_append(&h, g->file, g->hdr)) {
			rc = af_diag_error(d, AF_ENOMEM, "out of memory");
			*st = NULL;
		}
		af_buf_free(&g->own);
		g->own = h;
		g->file = h.data ? h.data : (const uint8_t *)"";
		g->have = g->hdr;
	}
	if (rc)
		gz_close(g);
	return rc;
}

static int gz_bid(const char *name, const uint8_t *head, size_t n)
{
	size_t l = strlen(name);
	if (n >= 3 && head[0] == 0x1F && head[1] == 0x8B && head[2] == 8)
		return 2;
	return l > 3 && !strcasecmp(name + l - 3, ".gz") ? 1 : 0;
}

extern const struct af_container af_container_gzip;

static int gz_check(int fd, uint64_t size, struct af_diag *d)
{
	if (size > AF_MAX_LAYER_STORED) /* before the file is read */
		return af_diag_error(d, AF_EUNSUP, "a gzip file of %llu bytes: more than %zu, the "
				     "most one gzip layer may be (AF_MAX_LAYER_STORED); not read",
				     (unsigned long long)size, AF_MAX_LAYER_STORED);
	return shm_check_open(fd, size, &af_container_gzip, d);
}

static size_t gz_count(void *st)
{
	(void)st;
	return 1;
}

static void gz_member(void *st, size_t i, struct af_member *m)
{
	const struct gz *g = st;
	(void)i;
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", g->name);
	m->codec = g->codec;
}

static int gz_body(void *st, size_t i, struct af_buf *out, struct af_diag *d)
{
	struct gz *g = st;
	int rc;
	(void)i;
	if (__atomic_load_n(&g->loaded, __ATOMIC_ACQUIRE) && g->tmpfd >= 0)
		return af_src_append(&(struct af_src){NULL, g->tmpfd, g->isize, 0}, 0, g->isize, out, d);
	if (__atomic_load_n(&g->loaded, __ATOMIC_ACQUIRE))
		return af_buf_append(out, g->data.data, g->data.len) ? af_diag_error(d, AF_ENOMEM, "out of memory") : 0;
	if (af_buf_reserve(out, g->isize))
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	size_t start = out->len, used = 0;
	if ((rc = af_zframe_inflate_raw_src(&g->src, g->hdr, g->len - g->hdr, g->isize, out, &used, d)))
		return rc;
	if (out->len - start != g->isize || af_crc32(out->data + start, g->isize) != g->crc) {
		out->len = start;
		return af_diag_error(d, AF_EINVAL, "the gzip layer changed while it was read");
	}
	return 0;
}

/* The first n inflated bytes (kept from the open's scan; a bid's). */
static int gz_head(void *st, size_t i, uint8_t *buf, size_t n, size_t *got, struct af_diag *d)
{
	const struct gz *g = st;
	(void)i;
	(void)d;
	*got = n < g->head_n ? n : g->head_n;
	memcpy(buf, g->head, *got);
	return 0;
}

/* The inflated bytes, lent to the container inside (never copied for it); made on the
 * first ask. */
static const uint8_t *gz_lend(void *st, size_t i, size_t *n)
{
	struct gz *g = st;
	struct af_diag d;
	(void)i;
	*n = 0;
	af_diag_init(&d);
	int rc = load_data(g, &d);
	af_diag_free(&d);
	if (rc || g->tmpfd >= 0) /* in a file: opened from there (member_src) */
		return NULL;
	*n = g->data.len;
	return g->data.data ? g->data.data : (const uint8_t *)"";
}

/* A large layer's inflated bytes: its temporary file (made on the first ask). */
static int gz_member_src(void *st, size_t i, struct af_src *src, struct af_diag *d)
{
	struct gz *g = st;
	int rc;
	(void)i;
	if (g->isize <= LAYER_IN_MEMORY)
		return 0;
	if ((rc = load_data(g, d)))
		return rc;
	*src = (struct af_src){NULL, g->tmpfd, g->isize, 0};
	return 1;
}

/* The inflated bytes' CRC-32 and length, from the open (nothing is inflated). */
static int gz_digest(void *st, size_t i, uint32_t *crc, uint64_t *len)
{
	const struct gz *g = st;
	(void)i;
	*crc = g->crc;
	*len = g->isize;
	return 1;
}

/* The inflated bytes handed to put in order, made as they are handed (never held
 * whole unless they are already). */
static int gz_each(void *st, size_t i,
		   int (*put)(void *ctx, const uint8_t *data, size_t n, struct af_diag *d), void *ctx,
		   struct af_diag *d)
{
	struct gz *g = st;
	struct af_pieces all = AF_PIECES_INIT;
	int rc;
	(void)i;
	if (__atomic_load_n(&g->loaded, __ATOMIC_ACQUIRE)) {
		struct af_src mem = {g->data.data ? g->data.data : (const uint8_t *)"", -1, g->data.len, 0};
		if (g->tmpfd >= 0)
			mem = (struct af_src){NULL, g->tmpfd, g->isize, 0};
		af_pieces_copy(&all, 0, mem.size);
		rc = af_pieces_each(&all, &mem, put, ctx, d);
		af_pieces_free(&all);
		return rc;
	}
	/* inflated again from the stored stream, 1 MiB at a time */
	struct af_zin in;
	uint8_t *buf = af_alloc((size_t)1 << 20);
	if (!buf)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	if (!(rc = af_zin_open(&in, &g->src, g->hdr, g->len - g->hdr, d))) {
		for (uint64_t at = 0; at < g->isize && !rc; at += (size_t)1 << 20) {
			size_t k = g->isize - at < ((size_t)1 << 20) ? (size_t)(g->isize - at) : (size_t)1 << 20;
			if (!(rc = af_zin_read(&in, at, buf, k, d)))
				rc = put(ctx, buf, k, d);
		}
		af_zin_close(&in);
	}
	free(buf);
	return rc;
}

static void gz_member_io(void *st, size_t i, struct af_io *io)
{
	(void)i;
	memset(io, 0, sizeof(*io));
	io->name = ((const struct gz *)st)->name;
}

static int level_of(uint8_t xfl)
{
	return xfl == 2 ? 9 : xfl == 4 ? 1 : 6; /* so that XFL stays truthful (spec 3.5) */
}

/* body against the inflated bytes as they are handed over. */
struct against {
	const uint8_t *p;
	size_t n, at;
	int differ;
};

static int put_against(void *ctx, const uint8_t *data, size_t n, struct af_diag *d)
{
	struct against *a = ctx;
	(void)d;
	if (n > a->n - a->at || memcmp(a->p + a->at, data, n))
		return a->differ = 1, AF_EINVAL; /* stops the stream */
	a->at += n;
	return 0;
}

/* Whether body is the layer's inflated bytes (compared as they are made, or where they
 * are held): 1, 0, or AF_E* when they cannot be read. */
static int same_data(struct gz *g, const uint8_t *body, size_t n, struct af_diag *d)
{
	struct against a = {body, n, 0, 0};
	int rc;
	if (n != g->isize)
		return 0;
	rc = gz_each(g, 0, put_against, &a, d);
	if (a.differ)
		return 0;
	return rc ? rc : a.at == n;
}

static int gz_replace(void *st, size_t i, const uint8_t *body, size_t n, struct af_buf *image,
		      struct af_diag *d)
{
	struct gz *g = st;
	const uint8_t *p = g->file;
	int rc;
	(void)i;
	if ((rc = same_data(g, body, n, d)) < 0)
		return rc;
	if (rc) /* the stored stream */
		return af_src_append(&g->src, 0, g->len, image, d);
	if (g->trailing)
		return af_diag_error(d, AF_EUNSUP, "%zu unknown bytes follow the gzip member; not edited",
				     g->trailing);
	if (n > AF_MAX_LAYER) /* it would not open again */
		return af_diag_error(d, AF_EUNSUP, "%zu bytes: more than the %zu MiB one gzip layer "
				     "may hold (AF_MAX_LAYER)", n, AF_MAX_LAYER >> 20);
	af_buf_append(image, p, g->hdr); /* header bytes verbatim (FHCRC covers only them) */
	if ((rc = af_zframe_deflate_raw(body, n, level_of(p[8]), image, d)))
		return rc;
	af_buf_put_u32le(image, af_crc32(body, n));
	af_buf_put_u32le(image, (uint32_t)n);
	return image->failed ? af_diag_error(d, AF_ENOMEM, "out of memory") : 0;
}

/* Nothing changed: the stored stream (nothing is inflated). */
static int gz_rebuild(void *st, struct af_buf *image, struct af_diag *d)
{
	const struct gz *g = st;
	return af_src_append(&g->src, 0, g->len, image, d);
}

/* The stored bytes as they are (gz_rebuild's), as one copy. */
static int gz_rebuild_plan(void *st, struct af_pieces *out, const struct af_src **src,
			   struct af_diag *d)
{
	const struct gz *g = st;
	*src = &g->src;
	return af_pieces_copy(out, 0, g->len) ? af_diag_error(d, AF_ENOMEM, "out of memory") : 0;
}

/* Whether inner stands for the inflated bytes as they are: every copy at its own
 * offset, the new bytes and zeros equal to the old ones there (read where the layer
 * holds them; a layer not inflated yet: not told, 0). */
static int inner_unchanged(const struct gz *g, const struct af_pieces *inner)
{
	struct af_src old = g->tmpfd >= 0 ? (struct af_src){NULL, g->tmpfd, g->isize, 0}
					  : (struct af_src){g->data.data, -1, g->data.len, 0};
	uint8_t buf[4096];
	uint64_t at = 0;
	if (inner->unsized || inner->len != g->isize || !__atomic_load_n(&g->loaded, __ATOMIC_ACQUIRE))
		return 0;
	for (size_t k = 0; k < inner->n; at += inner->v[k].len, k++) {
		const struct af_piece *x = &inner->v[k];
		if (x->kind == AF_PIECE_COPY) {
			if (x->off != at)
				return 0;
			continue;
		}
		for (uint64_t o = 0; o < x->len; o += sizeof(buf)) {
			size_t m = x->len - o < sizeof(buf) ? (size_t)(x->len - o) : sizeof(buf);
			if (af_src_read(&old, at + o, buf, m, NULL))
				return 0;
			for (size_t j = 0; j < m; j++)
				if (buf[j] != (x->kind == AF_PIECE_BYTES ? inner->bytes.data[x->off + o + j] : 0))
					return 0;
		}
	}
	return 1;
}

/* The new file as pieces, the member's new bytes given as pieces (inner, taken) of the
 * inflated bytes: the same inflated bytes give the stored file back (one copy);
 * otherwise the header bytes, then a GZIP piece: the stream made anew as the file is
 * written, from the old stream inflated again where inner keeps its bytes. Neither the
 * old nor the new inflated bytes are held. */
static int gz_plan_in(void *st, size_t i, struct af_pieces *inner, struct af_pieces *out,
		      struct af_diag *d)
{
	const struct gz *g = st;
	int rc = 0;
	(void)i;
	if (inner->failed) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
	} else if ((inner->n == 1 && inner->v[0].kind == AF_PIECE_COPY && !inner->v[0].off &&
		    inner->len == g->isize) || (!inner->n && !g->isize) || inner_unchanged(g, inner)) {
		if (af_pieces_copy(out, 0, g->len)) /* unchanged: the stored stream */
			rc = af_diag_error(d, AF_ENOMEM, "out of memory");
	} else if (g->trailing) {
		rc = af_diag_error(d, AF_EUNSUP, "%zu unknown bytes follow the gzip member; not edited",
				   g->trailing);
	} else if (inner->unsized || inner->len > AF_MAX_LAYER) { /* it would not open again */
		rc = af_diag_error(d, AF_EUNSUP, "%llu bytes: more than the %zu MiB one gzip layer "
				   "may hold (AF_MAX_LAYER)", (unsigned long long)inner->len,
				   AF_MAX_LAYER >> 20);
	} else if (af_pieces_bytes(out, g->file, g->hdr) || /* header bytes verbatim */
		   af_pieces_gzip(out, inner, g->hdr, g->deflate, level_of(g->file[8]))) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
	}
	af_pieces_free(inner);
	return rc;
}

/* The member's new bytes in memory (a bare .GZ's MOTN): as one piece of new bytes. */
static int gz_plan(void *st, size_t i, const uint8_t *body, size_t n, struct af_pieces *out,
		   struct af_diag *d)
{
	struct gz *g = st;
	struct af_pieces inner = AF_PIECES_INIT;
	int rc = same_data(g, body, n, d);
	if (rc < 0)
		return rc;
	if (rc)
		af_pieces_copy(&inner, 0, n);
	else
		af_pieces_bytes(&inner, body, n);
	return gz_plan_in(st, i, &inner, out, d);
}

static void string_field(struct af_buf *out, const char *key, const struct gz *g, size_t at,
			 size_t len)
{
	char s[AF_MEMBER_NAME_MAX * 2];
	shm_escape(g->file + at, len, s, sizeof(s));
	af_buf_printf(out, "    %s: ", key);
	af_y_cstr(out, s);
	af_buf_putc(out, '\n');
}

static int gz_layer(void *st, struct af_buf *out)
{
	const struct gz *g = st;
	const uint8_t *p = g->file;
	uint32_t mtime = af_le32(p + 4);
	time_t t = (time_t)mtime;
	struct tm tm;
	char when[40] = "";
	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	af_buf_puts(out, "  - format: gzip\n    flags: ");
	af_y_hex(out, p[3], 2);
	af_buf_printf(out, "\n    mtime: %u\n    mtime_utc: \"%s\"\n    xfl: %u\n    os: %u\n", mtime,
		      when, p[8], p[9]);
	if (p[3] & FEXTRA)
		af_buf_printf(out, "    fextra_size: %zu\n", g->xlen);
	if (p[3] & FNAME)
		string_field(out, "fname", g, g->fname, g->fname_len);
	if (p[3] & FCOMMENT)
		string_field(out, "fcomment", g, g->fcomment, g->fcomment_len);
	if (p[3] & FHCRC)
		af_buf_puts(out, "    fhcrc: true\n");
	af_buf_printf(out, "    header_size: %zu\n    deflate_size: %zu\n    crc32: ", g->hdr, g->deflate);
	af_y_hex(out, g->crc, 8);
	af_buf_printf(out, "\n    isize: %zu\n    trailing_bytes: %zu\n", g->isize, g->trailing);
	return out->failed ? AF_ENOMEM : 0;
}

static int gz_members(void *st, const char *name, struct af_buf *out)
{
	const struct gz *g = st;
	(void)name;
	af_buf_puts(out, "members:\n  - {index: 0, file: ");
	af_y_cstr(out, g->name);
	af_buf_printf(out, ", size: %zu, content: %s}\n", g->isize, g->codec ? "motn" : "raw");
	return out->failed ? AF_ENOMEM : 0;
}

const struct af_container af_container_gzip = {
	.name = "gzip",
	.description = "gzip layer (Shenmue .PKS/.PKF/.GZ): shows what it holds; the stored stream is kept",
	.version = 1,
	.noun = "gzip file",
	.plural = "gzip files",
	.member_noun = "member",
	.members = "inflated",
	.bid = gz_bid,
	.check = gz_check,
	.open = gz_open,
	.open_src = gz_open_src,
	.lend = gz_lend,
	.head = gz_head,
	.member_src = gz_member_src,
	.digest = gz_digest,
	.each = gz_each,
	.plan = gz_plan,
	.plan_in = gz_plan_in,
	.close = gz_close,
	.count = gz_count,
	.member = gz_member,
	.body = gz_body,
	.member_io = gz_member_io,
	.index_yaml = gz_members,
	.replace = gz_replace,
	.rebuild = gz_rebuild,
	.rebuild_plan = gz_rebuild_plan,
	.layer = 1,
	.layer_yaml = gz_layer,
};
