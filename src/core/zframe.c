/* zlib framing: one bounded inflate, and deflate with compress2's exact settings. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "animfs/bytes.h"
#include "animfs/inflate.h"
#include "animfs/zframe.h"

#define INFLATE_ROOM_ONCE (8u << 20)
#define FEED ((size_t)1 << 20) /* input read from a descriptor at a time */

/* The next input of the stream (n bytes at off of src) once zlib has used the last:
 * from memory all at once (up to 4 GiB), from a descriptor FEED bytes into *buf. */
static int feed(z_stream *zs, const struct af_src *src, uint64_t off, size_t n, size_t *fed,
		uint8_t **buf, struct af_diag *d)
{
	size_t k = n - *fed;
	int rc;
	if (zs->avail_in || !k)
		return 0;
	if (src->mem) {
		k = k > UINT32_MAX ? UINT32_MAX : k;
		zs->next_in = (Bytef *)(src->mem + off + *fed);
	} else {
		k = k < FEED ? k : FEED;
		if (!*buf && !(*buf = af_alloc(FEED)))
			return af_diag_error(d, AF_ENOMEM, "out of memory while inflating");
		if ((rc = af_src_read(src, off + *fed, *buf, k, d)))
			return rc;
		zs->next_in = *buf;
	}
	zs->avail_in = (uInt)k;
	*fed += k;
	return 0;
}

/* The stream whole in memory into the room made for all of it: af_inflate_fast, zlib
 * framing checked here (the header zlib takes with a 32 KiB window and no dictionary,
 * the Adler-32 trailer). 0: done, exactly as zlib would have; else zlib decides. */
static int inflate_in_memory(int raw, const uint8_t *in, size_t n, size_t max_out,
			     struct af_buf *out, size_t *consumed)
{
	size_t hdr = raw ? 0 : 2, used, len;
	if (!raw && (n < 6 || (in[0] & 15) != 8 || in[0] >> 4 != 7 || (in[1] & 0x20) ||
		     (in[0] << 8 | in[1]) % 31))
		return -1;
	if (af_inflate_fast(in + hdr, n - hdr, out->data + out->len, max_out - out->len,
			    out->cap - out->len, &used, &len))
		return -1;
	used += hdr;
	if (!raw && (n - used < 4 || af_be32(in + used) != af_adler32(1, out->data + out->len, len)))
		return -1;
	out->len += len;
	if (consumed)
		*consumed = raw ? used : used + 4;
	return 0;
}

/* One bounded inflate of the n bytes at off of src; raw: a raw deflate stream
 * (windowBits -15), else zlib framing. out NULL: count the bytes only (*counted),
 * through a small scratch buffer. */
struct scan {
	uint32_t crc;
	uint8_t *head;
	size_t head_n, head_got;
};

static int inflate_bits(int raw, const struct af_src *src, uint64_t off, size_t n, size_t max_out,
			struct af_buf *out, size_t *consumed, size_t *counted, struct scan *sc,
			struct af_diag *d)
{
	const char *what = raw ? "deflate" : "zlib";
	struct af_buf scratch = AF_BUF_INIT;
	z_stream zs = { 0 };
	uint8_t *inbuf = NULL;
	int rc = AF_OK, zrc;
	size_t total = 0, start = out ? out->len : 0, fed = 0;
	int own_check = !raw && out; /* the Adler-32 trailer, compared below */
	if (!out)
		out = &scratch;
	/* an output of a known, modest size is made room for once: grown chunk by chunk
	 * it would be copied at every doubling */
	else if (max_out > out->len && max_out - out->len <= INFLATE_ROOM_ONCE &&
		 af_buf_reserve(out, max_out - out->len + 1))
		return af_diag_error(d, AF_ENOMEM, "out of memory while inflating");
	if (out != &scratch && src->mem && out->cap - out->len > max_out - out->len &&
	    !inflate_in_memory(raw, src->mem + off, n, max_out, out, consumed))
		return AF_OK;
	if (inflateInit2(&zs, raw ? -15 : 15) != Z_OK)
		return af_diag_error(d, AF_ENOMEM, "zlib: cannot initialise inflate");
	/* zlib framing: the Adler-32 trailer is compared below, with af_adler32 (zlib
	 * computes it a byte at a time); zlib still checks the header */
	if (own_check && inflateValidate(&zs, 0) != Z_OK) {
		rc = af_diag_error(d, AF_ENOMEM, "zlib: cannot initialise inflate");
		goto out;
	}
	for (;;) {
		if ((rc = feed(&zs, src, off, n, &fed, &inbuf, d)))
			goto out;
		/* up to max_out; into the room already made when there is plenty, else
		 * 64 KiB at a time */
		size_t room = max_out - out->len, have = out->cap - out->len;
		size_t step = out != &scratch && have > 65536 ? (have < (1u << 30) ? have : 1u << 30) : 65536;
		size_t chunk = room < step ? room : step;
		if (chunk == 0)
			chunk = 1; /* one byte of room to see whether more output is coming */
		if (af_buf_reserve(out, chunk)) {
			rc = af_diag_error(d, AF_ENOMEM, "out of memory while inflating");
			goto out;
		}
		zs.next_out = out->data + out->len;
		zs.avail_out = (uInt)chunk;
		zrc = inflate(&zs, Z_NO_FLUSH);
		if (out == &scratch) { /* counting: the scratch is reused */
			size_t got = chunk - zs.avail_out;
			if (sc && got) {
				size_t h = sc->head_n - sc->head_got < got ? sc->head_n - sc->head_got : got;
				if (h && total == sc->head_got)
					memcpy(sc->head + sc->head_got, out->data, h), sc->head_got += h;
				sc->crc = (uint32_t)crc32(sc->crc, out->data, (uInt)got);
			}
			total += got;
			if (total > max_out) { /* past the bound: stop here, the caller says so */
				*counted = max_out + 1;
				goto out;
			}
		} else {
			out->len += chunk - zs.avail_out;
		}
		if (out->len > max_out) {
			rc = af_diag_at_offset(d, AF_EINVAL, zs.total_in,
					       raw ? "the deflate stream inflates past %zu bytes"
						   : "zlib stream inflates to more than the %zu bytes expected",
					       max_out);
			goto out;
		}
		if (zrc == Z_STREAM_END)
			break;
		if (zrc == Z_OK)
			continue;
		if (zrc == Z_BUF_ERROR && zs.avail_in == 0 && fed < n)
			continue; /* more input to come */
		if (zrc == Z_BUF_ERROR && zs.avail_in == 0) {
			rc = af_diag_at_offset(d, AF_EINVAL, zs.total_in,
					       "%s stream is truncated (it does not end)", what);
			goto out;
		}
		if (zrc == Z_MEM_ERROR) {
			rc = af_diag_error(d, AF_ENOMEM, "out of memory while inflating");
			goto out;
		}
		rc = af_diag_at_offset(d, AF_EINVAL, zs.total_in, "corrupt %s stream: %s", what,
				       zs.msg ? zs.msg : "inflate failed");
		goto out;
	}
	uint8_t check[4];
	if (own_check &&
	    (zs.total_in < 4 || af_src_read(src, off + zs.total_in - 4, check, 4, NULL) ||
	     af_be32(check) != af_adler32(1, out->data + start, out->len - start))) {
		rc = af_diag_at_offset(d, AF_EINVAL, zs.total_in, "corrupt zlib stream: incorrect data check");
		goto out;
	}
	if (consumed)
		*consumed = zs.total_in;
	if (counted && total <= max_out)
		*counted = total;
out:
	inflateEnd(&zs);
	af_buf_free(&scratch);
	free(inbuf);
	return rc;
}

/* in[0..n) as a src */
#define MEM(in, n) (&(struct af_src){(in) ? (in) : (const uint8_t *)"", -1, (n), 0})

int af_zframe_inflate(const uint8_t *in, size_t n, size_t max_out, struct af_buf *out,
		      size_t *consumed, struct af_diag *d)
{
	return inflate_bits(0, MEM(in, n), 0, n, max_out, out, consumed, NULL, NULL, d);
}

int af_zframe_deflate(const uint8_t *in, size_t n, int level, struct af_buf *out,
		      struct af_diag *d)
{
	uLongf bound = compressBound((uLong)n);
	if (af_buf_reserve(out, bound))
		return af_diag_error(d, AF_ENOMEM, "out of memory while compressing");
	uLongf dlen = bound;
	int zrc = compress2(out->data + out->len, &dlen, in, (uLong)n, level);
	if (zrc != Z_OK)
		return af_diag_error(d, zrc == Z_MEM_ERROR ? AF_ENOMEM : AF_EIO,
				     "zlib compress failed (%d)", zrc);
	out->len += dlen;
	return 0;
}

/* Raw deflate (RFC 1951, no zlib framing): the body of a gzip member, with the same
 * bound checked while inflating, so a bomb stops at the cap. */
int af_zframe_inflate_raw(const uint8_t *in, size_t n, size_t max_out, struct af_buf *out,
			  size_t *consumed, struct af_diag *d)
{
	return inflate_bits(1, MEM(in, n), 0, n, max_out, out, consumed, NULL, NULL, d);
}

int af_zframe_inflate_raw_src(const struct af_src *src, uint64_t off, size_t n, size_t max_out,
			      struct af_buf *out, size_t *consumed, struct af_diag *d)
{
	return inflate_bits(1, src, off, n, max_out, out, consumed, NULL, NULL, d);
}

int af_zframe_inflated_size_raw_src(const struct af_src *src, uint64_t off, size_t n,
				    size_t max_out, size_t *size, struct af_diag *d)
{
	return inflate_bits(1, src, off, n, max_out, NULL, NULL, size, NULL, d);
}

int af_zframe_inflated_size_raw(const uint8_t *in, size_t n, size_t max_out, size_t *size,
				struct af_diag *d)
{
	return inflate_bits(1, MEM(in, n), 0, n, max_out, NULL, NULL, size, NULL, d);
}

int af_zframe_deflate_raw(const uint8_t *in, size_t n, int level, struct af_buf *out,
			  struct af_diag *d)
{
	z_stream zs = { 0 };
	int zrc;
	if (deflateInit2(&zs, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return af_diag_error(d, AF_ENOMEM, "zlib: cannot initialise deflate");
	uLong bound = deflateBound(&zs, (uLong)n);
	if (af_buf_reserve(out, bound)) {
		deflateEnd(&zs);
		return af_diag_error(d, AF_ENOMEM, "out of memory while compressing");
	}
	zs.next_in = (Bytef *)in;
	zs.avail_in = (uInt)n;
	zs.next_out = out->data + out->len;
	zs.avail_out = (uInt)bound;
	zrc = deflate(&zs, Z_FINISH);
	if (zrc == Z_STREAM_END)
		out->len += zs.total_out;
	deflateEnd(&zs);
	return zrc == Z_STREAM_END ? 0 : af_diag_error(d, AF_EIO, "zlib deflate failed (%d)", zrc);
}

uint32_t af_crc32(const uint8_t *p, size_t n)
{
	uLong c = crc32(0L, Z_NULL, 0);
	while (n) {
		uInt k = n > (1u << 30) ? 1u << 30 : (uInt)n;
		c = crc32(c, p, k);
		p += k;
		n -= k;
	}
	return (uint32_t)c;
}

int af_zframe_scan_raw_src(const struct af_src *src, uint64_t off, size_t n, size_t max_out,
			   size_t *size, size_t *consumed, uint32_t *crc, uint8_t *head,
			   size_t head_n, size_t *head_got, struct af_diag *d)
{
	struct scan sc = {(uint32_t)crc32(0L, Z_NULL, 0), head, head_n, 0};
	int rc = inflate_bits(1, src, off, n, max_out, NULL, consumed, size, &sc, d);
	*crc = sc.crc;
	*head_got = sc.head_got;
	return rc;
}

/* ---- streams a chunk at a time (af_zin, af_zout) ---- */

#define ZCHUNK ((size_t)1 << 18) /* af_zout's output buffer */

static int zin_init(struct af_zin *z, struct af_diag *d)
{
	z_stream *zs = z->zs;
	memset(zs, 0, sizeof(*zs));
	z->fed = z->pos = 0;
	z->end = 0;
	if (inflateInit2(zs, -15) != Z_OK)
		return af_diag_error(d, AF_ENOMEM, "zlib: cannot initialise inflate");
	return 0;
}

int af_zin_open(struct af_zin *z, const struct af_src *src, uint64_t off, uint64_t n,
		struct af_diag *d)
{
	memset(z, 0, sizeof(*z));
	if (!(z->zs = af_alloc_zeroed(1, sizeof(z_stream))))
		return af_diag_error(d, AF_ENOMEM, "out of memory while inflating");
	z->src = *src;
	z->off = off;
	z->n = n;
	int rc = zin_init(z, d);
	if (rc) {
		free(z->zs);
		z->zs = NULL;
	}
	return rc;
}

void af_zin_close(struct af_zin *z)
{
	if (z->zs) {
		inflateEnd(z->zs);
		free(z->zs);
	}
	free(z->in);
	memset(z, 0, sizeof(*z));
}

/* The next k inflated bytes into buf (k of them, or AF_EINVAL). */
static int zin_next(struct af_zin *z, uint8_t *buf, size_t k, struct af_diag *d)
{
	z_stream *zs = z->zs;
	int rc, zrc;
	if (!k)
		return 0;
	if (z->end)
		return af_diag_at_offset(d, AF_EINVAL, (int64_t)(z->off + zs->total_in),
					 "the deflate stream ends after %llu bytes; more were asked",
					 (unsigned long long)z->pos);
	zs->next_out = buf;
	zs->avail_out = (uInt)k;
	while (zs->avail_out) {
		size_t fed = (size_t)z->fed;
		if (z->n - z->fed > SIZE_MAX - 1)
			return af_diag_error(d, AF_EINVAL, "a deflate stream too large");
		if ((rc = feed(zs, &z->src, z->off, (size_t)z->n, &fed, &z->in, d)))
			return rc;
		z->fed = fed;
		zrc = inflate(zs, Z_NO_FLUSH);
		if (zrc == Z_STREAM_END) {
			z->end = 1;
			break;
		}
		if (zrc == Z_OK || (zrc == Z_BUF_ERROR && !zs->avail_in && z->fed < z->n))
			continue;
		if (zrc == Z_MEM_ERROR)
			return af_diag_error(d, AF_ENOMEM, "out of memory while inflating");
		if (zrc == Z_BUF_ERROR)
			return af_diag_at_offset(d, AF_EINVAL, (int64_t)(z->off + zs->total_in),
						 "deflate stream is truncated (it does not end)");
		return af_diag_at_offset(d, AF_EINVAL, (int64_t)(z->off + zs->total_in),
					 "corrupt deflate stream: %s", zs->msg ? zs->msg : "inflate failed");
	}
	z->pos += k - zs->avail_out;
	if (zs->avail_out)
		return af_diag_at_offset(d, AF_EINVAL, (int64_t)(z->off + zs->total_in),
					 "the deflate stream ends after %llu bytes; more were asked",
					 (unsigned long long)z->pos);
	return 0;
}

int af_zin_read(struct af_zin *z, uint64_t at, uint8_t *buf, size_t n, struct af_diag *d)
{
	int rc;
	if (at < z->pos) { /* behind: the stream again from its start */
		inflateEnd(z->zs);
		if ((rc = zin_init(z, d)))
			return rc;
	}
	while (z->pos < at) { /* skipped through buf (n bytes of room), or a small scratch */
		uint8_t scratch[4096];
		uint8_t *into = n ? buf : scratch;
		size_t room = n ? n : sizeof(scratch);
		size_t k = at - z->pos < room ? (size_t)(at - z->pos) : room;
		if ((rc = zin_next(z, into, k, d)))
			return rc;
	}
	return zin_next(z, buf, n, d);
}

int af_zout_open(struct af_zout *z, int level,
		 int (*put)(void *ctx, const uint8_t *data, size_t n, struct af_diag *d), void *ctx,
		 struct af_diag *d)
{
	memset(z, 0, sizeof(*z));
	z->put = put;
	z->ctx = ctx;
	z->crc = (uint32_t)crc32(0L, Z_NULL, 0);
	if (!(z->zs = af_alloc_zeroed(1, sizeof(z_stream))) || !(z->out = af_alloc(ZCHUNK))) {
		af_zout_close(z);
		return af_diag_error(d, AF_ENOMEM, "out of memory while compressing");
	}
	if (deflateInit2(z->zs, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(z->zs);
		z->zs = NULL;
		af_zout_close(z);
		return af_diag_error(d, AF_ENOMEM, "zlib: cannot initialise deflate");
	}
	return 0;
}

/* Deflate what zlib holds with flush, handing every full (or, at the end, last)
 * output buffer to put. */
static int zout_run(struct af_zout *z, int flush, struct af_diag *d)
{
	z_stream *zs = z->zs;
	int rc, zrc;
	do {
		zs->next_out = z->out;
		zs->avail_out = (uInt)ZCHUNK;
		zrc = deflate(zs, flush);
		if (zrc == Z_STREAM_ERROR)
			return af_diag_error(d, AF_EIO, "zlib deflate failed (%d)", zrc);
		if (ZCHUNK - zs->avail_out && (rc = z->put(z->ctx, z->out, ZCHUNK - zs->avail_out, d)))
			return rc;
	} while (flush == Z_FINISH ? zrc != Z_STREAM_END : zs->avail_in != 0 || !zs->avail_out);
	return 0;
}

int af_zout_write(struct af_zout *z, const uint8_t *p, size_t n, struct af_diag *d)
{
	z_stream *zs = z->zs;
	int rc;
	while (n) {
		uInt k = n > (1u << 30) ? 1u << 30 : (uInt)n;
		z->crc = (uint32_t)crc32(z->crc, p, k);
		z->isize += k;
		zs->next_in = (Bytef *)p;
		zs->avail_in = k;
		if ((rc = zout_run(z, Z_NO_FLUSH, d)))
			return rc;
		p += k;
		n -= k;
	}
	return 0;
}

int af_zout_finish(struct af_zout *z, int trailer, struct af_diag *d)
{
	uint8_t t[8];
	int rc;
	((z_stream *)z->zs)->avail_in = 0;
	if ((rc = zout_run(z, Z_FINISH, d)))
		return rc;
	if (!trailer)
		return 0;
	for (int i = 0; i < 4; i++) {
		t[i] = (uint8_t)(z->crc >> (8 * i));
		t[4 + i] = (uint8_t)(z->isize >> (8 * i));
	}
	return z->put(z->ctx, t, 8, d);
}

void af_zout_close(struct af_zout *z)
{
	if (z->zs) {
		deflateEnd(z->zs);
		free(z->zs);
	}
	free(z->out);
	memset(z, 0, sizeof(*z));
}
