/* A fast raw DEFLATE decoder (RFC 1951) for a whole stream in memory into a buffer of
 * known size: the common case of af_zframe's inflates. It answers only what it is
 * sure of: anything zlib might answer otherwise (a corrupt or unusual stream, an
 * output past the limit, a stream that does not end in the input) is "not here", and
 * the caller asks zlib, which then gives the same bytes or the same error as always. */
#ifndef ANIMFS_INFLATE_H
#define ANIMFS_INFLATE_H

#include <stddef.h>
#include <stdint.h>

/* Decode the raw deflate stream at in[0..n) into out: at most limit bytes, though up
 * to cap (>= limit) may be written past the end as scratch. 0: the stream ended
 * (*used: its bytes, the last one partly used counted whole, as zlib counts them;
 * *len: the bytes made); -1: not decoded here (out's content is then undefined);
 * AF_ENOMEM: no room for the tables. */
int af_inflate_fast(const uint8_t *in, size_t n, uint8_t *out, size_t limit, size_t cap,
		    size_t *used, size_t *len);

#endif
