/* zlib framing: one bounded inflate, and deflate with compress2's exact settings. */
#include <zlib.h>

#include "animfs/zframe.h"

#ifdef ANIMFS_HAVE_LIBDEFLATE
#include <libdeflate.h>

/* libdeflate inflates a whole stream into a buffer of the known size 2-3x faster than
 * zlib (the bytes are the same: inflating is deterministic). A stream it does not
 * take (corrupt, truncated, larger than max_out) is inflated again by zlib below,
 * whose answer and message stand. 0 when done, 1 when zlib is to try, AF_ENOMEM. */
static int inflate_whole(const uint8_t *in, size_t n, size_t max_out, struct af_buf *out,
			 size_t *consumed)
{
	struct libdeflate_decompressor *dc;
	size_t used = 0, got = 0, room;
	int rc = 1;
	if (out->len > max_out)
		return 1;
	room = max_out - out->len;
	if (af_buf_reserve(out, room + 1)) /* + 1: what zlib's loop asks for at the end */
		return AF_ENOMEM;
	if (!(dc = libdeflate_alloc_decompressor()))
		return 1;
	if (libdeflate_zlib_decompress_ex(dc, in, n, out->data + out->len, room, &used, &got) ==
	    LIBDEFLATE_SUCCESS) {
		out->len += got;
		if (consumed)
			*consumed = used;
		rc = 0;
	}
	libdeflate_free_decompressor(dc);
	return rc;
}
#endif

int af_zframe_inflate(const uint8_t *in, size_t n, size_t max_out, struct af_buf *out,
		      size_t *consumed, struct af_diag *d)
{
	z_stream zs = { 0 };
	int rc = AF_OK, zrc;
#ifdef ANIMFS_HAVE_LIBDEFLATE
	if ((rc = inflate_whole(in, n, max_out, out, consumed)) <= 0)
		return rc ? af_diag_error(d, AF_ENOMEM, "out of memory while inflating") : AF_OK;
	rc = AF_OK;
#endif
	if (inflateInit(&zs) != Z_OK)
		return af_diag_error(d, AF_ENOMEM, "zlib: cannot initialise inflate");
	zs.next_in = (Bytef *)in;
	zs.avail_in = n > UINT32_MAX ? UINT32_MAX : (uInt)n;
	for (;;) {
		size_t room = max_out - out->len;
		size_t chunk = room < 65536 ? room : 65536;
		if (chunk == 0)
			chunk = 1; /* one byte of room to see whether more output is coming */
		if (af_buf_reserve(out, chunk)) {
			rc = af_diag_error(d, AF_ENOMEM, "out of memory while inflating");
			goto out;
		}
		zs.next_out = out->data + out->len;
		zs.avail_out = (uInt)chunk;
		zrc = inflate(&zs, Z_NO_FLUSH);
		out->len += chunk - zs.avail_out;
		if (out->len > max_out) {
			rc = af_diag_at_offset(d, AF_EINVAL, zs.total_in,
					       "zlib stream inflates to more than the %zu bytes expected",
					       max_out);
			goto out;
		}
		if (zrc == Z_STREAM_END)
			break;
		if (zrc == Z_OK)
			continue;
		if (zrc == Z_BUF_ERROR && zs.avail_in == 0) {
			rc = af_diag_at_offset(d, AF_EINVAL, zs.total_in,
					       "zlib stream is truncated (it does not end)");
			goto out;
		}
		if (zrc == Z_MEM_ERROR) {
			rc = af_diag_error(d, AF_ENOMEM, "out of memory while inflating");
			goto out;
		}
		rc = af_diag_at_offset(d, AF_EINVAL, zs.total_in, "corrupt zlib stream: %s",
				       zs.msg ? zs.msg : "inflate failed");
		goto out;
	}
	if (consumed)
		*consumed = zs.total_in;
out:
	inflateEnd(&zs);
	return rc;
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
