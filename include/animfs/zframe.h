/* zlib framing helpers: bounded inflate of one stream, level-exact deflate. */
#ifndef ANIMFS_ZFRAME_H
#define ANIMFS_ZFRAME_H

#include <stddef.h>
#include <stdint.h>
#include "animfs/buf.h"
#include "animfs/diag.h"
#include "animfs/pieces.h"

/* Inflate one zlib stream from in[0..n). Fails (AF_EINVAL, with the byte offset)
 * if the stream is corrupt, does not end, or would produce more than max_out
 * bytes. *consumed = bytes of in used by the stream. */
int af_zframe_inflate(const uint8_t *in, size_t n, size_t max_out, struct af_buf *out,
		      size_t *consumed, struct af_diag *d);
/* compress2(level) semantics: one zlib stream, windowBits 15, memLevel 8. */
int af_zframe_deflate(const uint8_t *in, size_t n, int level, struct af_buf *out,
		      struct af_diag *d);
/* The same for a raw deflate stream (a gzip member's body, RFC 1951). */
int af_zframe_inflate_raw(const uint8_t *in, size_t n, size_t max_out, struct af_buf *out,
			  size_t *consumed, struct af_diag *d);
/* How many bytes the raw deflate stream inflates to, counted without keeping them: a
 * bomb costs time, never memory. Counting stops once past max_out (*size is then
 * max_out + 1, and the return 0: the caller names its own limit); errors as above. */
int af_zframe_inflated_size_raw(const uint8_t *in, size_t n, size_t max_out, size_t *size,
				struct af_diag *d);
/* The same two over the n bytes at off of src (pieces.h): from a descriptor the input is
 * read 1 MiB at a time, never held whole. */
int af_zframe_inflate_raw_src(const struct af_src *src, uint64_t off, size_t n, size_t max_out,
			      struct af_buf *out, size_t *consumed, struct af_diag *d);
int af_zframe_inflated_size_raw_src(const struct af_src *src, uint64_t off, size_t n,
				    size_t max_out, size_t *size, struct af_diag *d);
/* A raw deflate stream at level, windowBits -15, memLevel 8 (gzip's, RFC 1952 3.5). */
int af_zframe_deflate_raw(const uint8_t *in, size_t n, int level, struct af_buf *out,
			  struct af_diag *d);
/* CRC-32 (the gzip trailer's). */
uint32_t af_crc32(const uint8_t *p, size_t n);
/* Adler-32 (the zlib trailer's) of p[0..n) continued from adler (1 to start): zlib's
 * adler32() values, 16 bytes at a time (src/core/adler.c). */
uint32_t af_adler32(uint32_t adler, const uint8_t *p, size_t n);

#endif
