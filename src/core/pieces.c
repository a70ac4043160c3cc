/* Sources read where asked, and new files as pieces of old ones (pieces.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/fs.h>

#include "animfs/pieces.h"
#include "animfs/zframe.h"

#define CHUNK ((size_t)1 << 20) /* the plain path's buffer */

static int plain_only;

void af_pieces_plain_for_tests(int on)
{
	plain_only = on;
}

int af_src_read(const struct af_src *s, uint64_t off, void *buf, size_t n, struct af_diag *d)
{
	uint8_t *p = buf;
	if (off > s->size || n > s->size - off)
		return af_diag_at_offset(d, AF_EINVAL, off,
					 "%zu bytes asked past the end (%llu bytes)", n,
					 (unsigned long long)s->size);
	if (s->mem) {
		memcpy(buf, s->mem + off, n);
		return 0;
	}
	while (n) {
		ssize_t r = pread(s->fd, p, n, (off_t)(s->base + off));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return af_diag_at_offset(d, AF_EIO, off, "read failed: %s", strerror(errno));
		if (r == 0)
			return af_diag_at_offset(d, AF_EINVAL, off,
						 "the file ends early: it changed while it was read");
		p += r;
		off += (uint64_t)r;
		n -= (size_t)r;
	}
	return 0;
}

int af_src_append(const struct af_src *s, uint64_t off, size_t n, struct af_buf *out,
		  struct af_diag *d)
{
	int rc;
	if (off > s->size || n > s->size - off)
		return af_diag_at_offset(d, AF_EINVAL, off,
					 "%zu bytes asked past the end (%llu bytes)", n,
					 (unsigned long long)s->size);
	if (!n) /* an empty member: out may have no data to offset */
		return out->failed ? af_diag_error(d, AF_ENOMEM, "out of memory") : 0;
	if (af_buf_reserve(out, n))
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	if (!(rc = af_src_read(s, off, out->data + out->len, n, d)))
		out->len += n;
	return rc;
}

void af_pieces_init(struct af_pieces *p)
{
	memset(p, 0, sizeof(*p));
}

static void free_z(struct af_pieces *p)
{
	for (size_t i = 0; i < p->nz; i++)
		af_pieces_free(&p->z[i].inner);
	free(p->z);
	p->z = NULL;
	p->nz = 0;
	p->unsized = 0;
}

void af_pieces_free(struct af_pieces *p)
{
	free(p->v);
	af_buf_free(&p->bytes);
	free_z(p);
	af_pieces_init(p);
}

void af_pieces_reset(struct af_pieces *p)
{
	p->n = 0;
	p->len = 0;
	p->failed = 0;
	af_buf_reset(&p->bytes);
	free_z(p);
}

static int add(struct af_pieces *p, int kind, uint64_t off, uint64_t len)
{
	struct af_piece *last = p->n ? &p->v[p->n - 1] : NULL;
	if (p->failed)
		return AF_ENOMEM;
	if (!len && kind != AF_PIECE_GZIP)
		return 0;
	p->len += len;
	if (last && last->kind == kind && kind != AF_PIECE_BYTES && kind != AF_PIECE_GZIP &&
	    (kind == AF_PIECE_ZERO || last->off + last->len == off)) {
		last->len += len;
		return 0;
	}
	if (last && last->kind == AF_PIECE_BYTES && kind == AF_PIECE_BYTES) {
		last->len += len; /* the bytes are appended right after the last ones */
		return 0;
	}
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct af_piece *v = af_resize(p->v, cap * sizeof(*v));
		if (!v) {
			p->failed = 1;
			return AF_ENOMEM;
		}
		p->v = v;
		p->cap = cap;
	}
	p->v[p->n++] = (struct af_piece){kind, off, len};
	return 0;
}

int af_pieces_copy(struct af_pieces *p, uint64_t off, uint64_t len)
{
	return add(p, AF_PIECE_COPY, off, len);
}

int af_pieces_bytes(struct af_pieces *p, const void *data, size_t len)
{
	size_t at = p->bytes.len;
	if (p->failed || af_buf_append(&p->bytes, data, len)) {
		p->failed = 1;
		return AF_ENOMEM;
	}
	return add(p, AF_PIECE_BYTES, at, len);
}

int af_pieces_zero(struct af_pieces *p, uint64_t len)
{
	return add(p, AF_PIECE_ZERO, 0, len);
}

int af_pieces_gzip(struct af_pieces *p, struct af_pieces *inner, uint64_t zoff, uint64_t zlen,
		   int level)
{
	struct af_zpiece *z;
	if (p->failed || inner->failed ||
	    !(z = af_resize(p->z, (p->nz + 1) * sizeof(*z)))) {
		af_pieces_free(inner);
		return p->failed = 1, AF_ENOMEM;
	}
	p->z = z;
	z[p->nz] = (struct af_zpiece){*inner, zoff, zlen, level};
	af_pieces_init(inner);
	if (add(p, AF_PIECE_GZIP, p->nz, 0)) {
		af_pieces_free(&z[p->nz].inner);
		return AF_ENOMEM;
	}
	p->nz++;
	p->unsized = 1;
	return 0;
}

int af_pieces_append(struct af_pieces *p, const struct af_pieces *from, uint64_t shift)
{
	if (from->failed)
		return p->failed = 1, AF_ENOMEM;
	for (size_t i = 0; i < from->n; i++) {
		const struct af_piece *x = &from->v[i];
		struct af_pieces inner = AF_PIECES_INIT;
		int rc;
		if (x->kind == AF_PIECE_GZIP) { /* its inner copies are of the stream: unshifted */
			const struct af_zpiece *z = &from->z[x->off];
			rc = af_pieces_append(&inner, &z->inner, 0) ? (af_pieces_free(&inner), p->failed = 1, AF_ENOMEM)
				: af_pieces_gzip(p, &inner, z->zoff + shift, z->zlen, z->level);
		} else {
			rc = x->kind == AF_PIECE_COPY ? af_pieces_copy(p, x->off + shift, x->len)
			     : x->kind == AF_PIECE_BYTES ? af_pieces_bytes(p, from->bytes.data + x->off, (size_t)x->len)
			     : af_pieces_zero(p, x->len);
		}
		if (rc)
			return rc;
	}
	return 0;
}

int af_pieces_take(struct af_pieces *p, struct af_buf *image)
{
	size_t at = p->bytes.len;
	if (p->failed || image->failed)
		return p->failed = 1, AF_ENOMEM;
	if (!at) { /* the usual case: nothing to copy, the buffer changes hands */
		af_buf_free(&p->bytes);
		p->bytes = *image;
		af_buf_init(image);
	} else if (af_buf_append(&p->bytes, image->data, image->len)) {
		return p->failed = 1, AF_ENOMEM;
	} else {
		af_buf_free(image);
	}
	return add(p, AF_PIECE_BYTES, at, p->bytes.len - at);
}

static int put_buf(void *ctx, const uint8_t *data, size_t n, struct af_diag *d)
{
	return af_buf_append(ctx, data, n) ? af_diag_error(d, AF_ENOMEM, "out of memory") : 0;
}

int af_pieces_to_buf(const struct af_pieces *p, const struct af_src *src, struct af_buf *out,
		     struct af_diag *d)
{
	int rc = 0;
	if (p->failed)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	if (af_buf_reserve(out, p->len))
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	if (p->unsized)
		return af_pieces_each(p, src, put_buf, out, d);
	for (size_t i = 0; i < p->n && !rc; i++) {
		const struct af_piece *x = &p->v[i];
		if (x->kind == AF_PIECE_COPY)
			rc = af_src_append(src, x->off, x->len, out, d);
		else if (x->kind == AF_PIECE_BYTES)
			af_buf_append(out, p->bytes.data + x->off, x->len);
		else
			af_buf_fill(out, 0, x->len);
	}
	return rc ? rc : out->failed ? af_diag_error(d, AF_ENOMEM, "out of memory") : 0;
}

static int pwrite_all(int fd, const uint8_t *p, size_t n, uint64_t at)
{
	while (n) {
		ssize_t w = pwrite(fd, p, n, (off_t)at);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		at += (uint64_t)w;
		n -= (size_t)w;
	}
	return 0;
}

static int wrote_err(struct af_diag *d, uint64_t at)
{
	return af_diag_error(d, AF_EIO,
			     "cannot write at %llu: %s", (unsigned long long)at, strerror(errno));
}

/* len bytes of src at off to fd at at, through a buffer (what the kernel would not
 * copy for us). */
static int copy_plain(const struct af_src *src, uint64_t off, uint64_t len, int fd, uint64_t at,
		      uint8_t **buf, struct af_diag *d)
{
	int rc;
	if (src->mem) {
		if (off > src->size || len > src->size - off)
			return af_diag_at_offset(d, AF_EINVAL, off, "a copy past the end");
		return pwrite_all(fd, src->mem + off, (size_t)len, at) ? wrote_err(d, at) : 0;
	}
	if (!*buf && !(*buf = af_alloc(CHUNK)))
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	while (len) {
		size_t n = len < CHUNK ? (size_t)len : CHUNK;
		if ((rc = af_src_read(src, off, *buf, n, d)))
			return rc;
		if (pwrite_all(fd, *buf, n, at))
			return wrote_err(d, at);
		off += n;
		at += n;
		len -= n;
	}
	return 0;
}

/* The kernel's copy (copy_file_range: a reflink where the filesystem shares blocks);
 * what it refuses goes through copy_plain. */
static int copy_range(const struct af_src *src, uint64_t off, uint64_t len, int fd, uint64_t at,
		      uint8_t **buf, uint64_t *copied, struct af_diag *d)
{
	if (off > src->size || len > src->size - off)
		return af_diag_at_offset(d, AF_EINVAL, off, "a copy past the end");
	while (len && !plain_only && !src->mem) {
		loff_t in = (loff_t)(src->base + off), out = (loff_t)at;
		ssize_t r = copy_file_range(src->fd, &in, fd, &out, len, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == ENOSPC || errno == EDQUOT || errno == EIO))
			return wrote_err(d, at);
		if (r == 0 && len)
			return af_diag_at_offset(d, AF_EINVAL, off,
						 "the file ends early: it changed while it was read");
		if (r < 0)
			break; /* EXDEV, EINVAL, ENOSYS, EOPNOTSUPP, ...: copy it ourselves */
		off += (uint64_t)r;
		at += (uint64_t)r;
		len -= (uint64_t)r;
		*copied += (uint64_t)r;
	}
	return len ? copy_plain(src, off, len, fd, at, buf, d) : 0;
}

/* Whether every copied range keeps its offset (the file's layout around an edit that
 * fits its room), and covers most of the new file. */
static int in_place(const struct af_pieces *p, const struct af_src *src)
{
	uint64_t at = 0, kept = 0;
	for (size_t i = 0; i < p->n; i++) {
		if (p->v[i].kind == AF_PIECE_COPY) {
			if (p->v[i].off != at)
				return 0;
			kept += p->v[i].len;
		}
		at += p->v[i].len;
	}
	return kept > p->len / 2 && src->size <= p->len + p->len / 2;
}

static const uint8_t zeros[65536];

static int write_new(const struct af_pieces *p, int fd, uint64_t at, const struct af_piece *x,
		     struct af_diag *d)
{
	if (x->kind == AF_PIECE_BYTES)
		return pwrite_all(fd, p->bytes.data + x->off, (size_t)x->len, at) ? wrote_err(d, at) : 0;
	for (uint64_t left = x->len; left;) {
		size_t n = left < sizeof(zeros) ? (size_t)left : sizeof(zeros);
		if (pwrite_all(fd, zeros, n, at))
			return wrote_err(d, at);
		at += n;
		left -= n;
	}
	return 0;
}

/* ---- the pieces handed out in order (af_pieces_each), GZIP pieces deflated ---- */

typedef int (*put_fn)(void *ctx, const uint8_t *data, size_t n, struct af_diag *d);

/* len bytes of data handed to put CHUNK at a time. */
static int put_slices(put_fn put, void *ctx, const uint8_t *data, uint64_t len, struct af_diag *d)
{
	int rc;
	for (; len; data += CHUNK < len ? CHUNK : len, len -= CHUNK < len ? CHUNK : len)
		if ((rc = put(ctx, data, CHUNK < len ? CHUNK : (size_t)len, d)))
			return rc;
	return 0;
}

/* A GZIP piece: its inner bytes (copies inflated again from the source's old stream)
 * deflated, then the trailer, all through put. */
static int gzip_piece(const struct af_zpiece *z, const struct af_src *src, put_fn put, void *ctx,
		      uint8_t **buf, struct af_diag *d)
{
	struct af_zin in;
	struct af_zout out;
	int rc, inflating = 0;
	if (!src)
		return af_diag_error(d, AF_EINVAL, "internal error: a gzip piece without its source");
	if ((rc = af_zout_open(&out, z->level, put, ctx, d)))
		return rc;
	for (size_t i = 0; i < z->inner.n && !rc; i++) {
		const struct af_piece *x = &z->inner.v[i];
		if (x->kind == AF_PIECE_BYTES) {
			rc = af_zout_write(&out, z->inner.bytes.data + x->off, (size_t)x->len, d);
		} else if (x->kind == AF_PIECE_ZERO) {
			static const uint8_t none[65536];
			for (uint64_t left = x->len; left && !rc; left -= left < sizeof(none) ? left : sizeof(none))
				rc = af_zout_write(&out, none, left < sizeof(none) ? (size_t)left : sizeof(none), d);
		} else if (x->kind == AF_PIECE_COPY) {
			if (!inflating && !(rc = af_zin_open(&in, src, z->zoff, z->zlen, d)))
				inflating = 1;
			if (!rc && !*buf && !(*buf = af_alloc(CHUNK)))
				rc = af_diag_error(d, AF_ENOMEM, "out of memory");
			for (uint64_t at = 0; at < x->len && !rc; at += CHUNK) {
				size_t k = x->len - at < CHUNK ? (size_t)(x->len - at) : CHUNK;
				if (!(rc = af_zin_read(&in, x->off + at, *buf, k, d)))
					rc = af_zout_write(&out, *buf, k, d);
			}
		} else {
			rc = af_diag_error(d, AF_EINVAL, "internal error: a gzip piece inside another");
		}
	}
	if (!rc)
		rc = af_zout_finish(&out, 1, d);
	if (inflating)
		af_zin_close(&in);
	af_zout_close(&out);
	return rc;
}

static int put_zeros(put_fn put, void *ctx, uint64_t len, struct af_diag *d)
{
	static const uint8_t none[65536];
	int rc;
	for (; len; len -= len < sizeof(none) ? len : sizeof(none))
		if ((rc = put(ctx, none, len < sizeof(none) ? (size_t)len : sizeof(none), d)))
			return rc;
	return 0;
}

int af_pieces_each(const struct af_pieces *p, const struct af_src *src, put_fn put, void *ctx,
		   struct af_diag *d)
{
	uint8_t *buf = NULL;
	int rc = 0;
	if (p->failed)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	for (size_t i = 0; i < p->n && !rc; i++) {
		const struct af_piece *x = &p->v[i];
		if (x->kind == AF_PIECE_BYTES) {
			rc = put_slices(put, ctx, p->bytes.data + x->off, x->len, d);
		} else if (x->kind == AF_PIECE_ZERO) {
			rc = put_zeros(put, ctx, x->len, d);
		} else if (x->kind == AF_PIECE_GZIP) {
			rc = gzip_piece(&p->z[x->off], src, put, ctx, &buf, d);
		} else if (!src || (!src->mem && src->fd < 0)) {
			rc = af_diag_error(d, AF_EINVAL, "internal error: a copy without its source");
		} else if (x->off > src->size || x->len > src->size - x->off) {
			rc = af_diag_at_offset(d, AF_EINVAL, x->off, "a copy past the end");
		} else if (src->mem) {
			rc = put_slices(put, ctx, src->mem + x->off, x->len, d);
		} else {
			if (!buf && !(buf = af_alloc(CHUNK)))
				rc = af_diag_error(d, AF_ENOMEM, "out of memory");
			for (uint64_t at = 0; at < x->len && !rc; at += CHUNK) {
				size_t k = x->len - at < CHUNK ? (size_t)(x->len - at) : CHUNK;
				if (!(rc = af_src_read(src, x->off + at, buf, k, d)))
					rc = put(ctx, buf, k, d);
			}
		}
	}
	free(buf);
	return rc;
}

/* A GZIP piece's bytes written into fd from *at on. */
struct fd_at {
	int fd;
	uint64_t at;
};

static int put_fd(void *ctx, const uint8_t *data, size_t n, struct af_diag *d)
{
	struct fd_at *w = ctx;
	if (pwrite_all(w->fd, data, n, w->at))
		return wrote_err(d, w->at);
	w->at += n;
	return 0;
}

int af_pieces_write(const struct af_pieces *p, const struct af_src *src, int fd,
		    uint64_t *copied, struct af_diag *d)
{
	static const struct af_src none = {NULL, -1, 0, 0};
	uint8_t *buf = NULL;
	uint64_t at = 0, dummy = 0;
	int rc = 0, cloned = 0;
	if (!src)
		src = &none; /* new bytes only */
	if (!copied)
		copied = &dummy;
	*copied = 0;
	if (p->failed)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	/* the whole file shared (a reflinking filesystem), then only the new bytes written */
	if (!plain_only && !src->mem && !src->base && !p->unsized && in_place(p, src) &&
	    ioctl(fd, FICLONE, src->fd) == 0) {
		cloned = 1;
		*copied = src->size;
		if (ftruncate(fd, (off_t)p->len) < 0)
			return wrote_err(d, p->len);
	}
	for (size_t i = 0; i < p->n && !rc; i++) {
		const struct af_piece *x = &p->v[i];
		if (x->kind == AF_PIECE_GZIP) { /* its length: what the stream takes */
			struct fd_at w = {fd, at};
			rc = gzip_piece(&p->z[x->off], src, put_fd, &w, &buf, d);
			at = w.at;
			continue;
		}
		if (x->kind != AF_PIECE_COPY)
			rc = write_new(p, fd, at, x, d);
		else if (!cloned)
			rc = copy_range(src, x->off, x->len, fd, at, &buf, copied, d);
		at += x->len;
	}
	free(buf);
	if (!rc && !cloned && ftruncate(fd, (off_t)at) < 0)
		rc = wrote_err(d, at);
	return rc;
}
