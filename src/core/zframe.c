/* zlib framing: one bounded inflate, and deflate with compress2's exact settings. */
#include <stdlib.h>
#include <zlib.h>

#include "animfs/bytes.h"
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

/* One bounded inflate of the n bytes at off of src; raw: a raw deflate stream
 * (windowBits -15), else zlib framing. out NULL: count the bytes only (*counted),
 * through a small scratch buffer. */
static int inflate_bits(int raw, const struct af_src *src, uint64_t off, size_t n, size_t max_out,
			struct af_buf *out, size_t *consumed, size_t *counted, struct af_diag *d)
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
			total += chunk - zs.avail_out;
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
	if (counted)
		*counted = total;
out:
	inflateEnd(&zs);
	af_buf_free(&scratch);
	free(inbuf);
	return rc;
}

/* in[0..n) as a src */
#define MEM(in, n) (&(struct af_src){(in) ? (in) : (const uint8_t *)"", -1, (n)})

int af_zframe_inflate(const uint8_t *in, size_t n, size_t max_out, struct af_buf *out,
		      size_t *consumed, struct af_diag *d)
{
	return inflate_bits(0, MEM(in, n), 0, n, max_out, out, consumed, NULL, d);
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
	return inflate_bits(1, MEM(in, n), 0, n, max_out, out, consumed, NULL, d);
}

int af_zframe_inflate_raw_src(const struct af_src *src, uint64_t off, size_t n, size_t max_out,
			      struct af_buf *out, size_t *consumed, struct af_diag *d)
{
	return inflate_bits(1, src, off, n, max_out, out, consumed, NULL, d);
}

int af_zframe_inflated_size_raw_src(const struct af_src *src, uint64_t off, size_t n,
				    size_t max_out, size_t *size, struct af_diag *d)
{
	return inflate_bits(1, src, off, n, max_out, NULL, NULL, size, d);
}

int af_zframe_inflated_size_raw(const uint8_t *in, size_t n, size_t max_out, size_t *size,
				struct af_diag *d)
{
	return inflate_bits(1, MEM(in, n), 0, n, max_out, NULL, NULL, size, d);
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
