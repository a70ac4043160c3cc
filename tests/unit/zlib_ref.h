/* zlib's own answer for a raw deflate stream, the reference test_inflate and
 * fuzz_inflate hold the fast decoder to: 0 when the stream ends within limit bytes of
 * output (*used: the input it took, *len: the bytes made), else -1. */
#ifndef ANIMFS_TEST_ZLIB_REF_H
#define ANIMFS_TEST_ZLIB_REF_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static int zlib_raw(const uint8_t *in, size_t n, uint8_t *out, size_t limit, size_t *used,
		    size_t *len)
{
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, -15) != Z_OK)
		abort();
	zs.next_in = (Bytef *)in;
	zs.avail_in = (uInt)n;
	zs.next_out = out;
	zs.avail_out = (uInt)limit;
	int rc = inflate(&zs, Z_FINISH);
	*used = zs.total_in;
	*len = zs.total_out;
	inflateEnd(&zs);
	return rc == Z_STREAM_END ? 0 : -1;
}

#endif
