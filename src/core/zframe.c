/* zlib framing: one bounded inflate, and deflate with compress2's exact settings. */
#include <zlib.h>

#include "animfs/zframe.h"

int af_zframe_inflate(const uint8_t *in, size_t n, size_t max_out, struct af_buf *out,
		      size_t *consumed, struct af_diag *d)
{
	z_stream zs = { 0 };
	int rc = AF_OK, zrc;
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
