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
/* One pass over the raw deflate stream at off of src, keeping nothing: its inflated
 * size as af_zframe_inflated_size_raw_src counts it (max_out + 1 past the bound, then
 * nothing else is told), the stored bytes it takes (*consumed), the CRC-32 of its bytes
 * and their first head_n (or fewer: *head_got) into head. */
int af_zframe_scan_raw_src(const struct af_src *src, uint64_t off, size_t n, size_t max_out,
			   size_t *size, size_t *consumed, uint32_t *crc, uint8_t *head,
			   size_t head_n, size_t *head_got, struct af_diag *d);
/* A raw deflate stream at level, windowBits -15, memLevel 8 (gzip's, RFC 1952 3.5). */
int af_zframe_deflate_raw(const uint8_t *in, size_t n, int level, struct af_buf *out,
			  struct af_diag *d);
/* A raw deflate stream (n bytes at off of src) read as its inflated bytes, at any
 * offset, from a constant number of buffers: reads in order cost one inflate in all, a
 * read behind the last one starts the stream again. The stream must hold what is asked
 * (AF_EINVAL: it ends early or is corrupt). */
struct af_zin {
	void *zs;
	struct af_src src;
	uint64_t off, n, fed; /* the stored stream, and how much of it zlib was given */
	uint64_t pos;         /* inflated bytes made so far */
	uint8_t *in;          /* input buffer (from a descriptor) */
	int end;              /* the stream ended at pos */
};
int af_zin_open(struct af_zin *z, const struct af_src *src, uint64_t off, uint64_t n,
		struct af_diag *d);
int af_zin_read(struct af_zin *z, uint64_t at, uint8_t *buf, size_t n, struct af_diag *d);
void af_zin_close(struct af_zin *z);

/* A raw deflate stream made a chunk at a time (level, windowBits -15, memLevel 8: the
 * bytes af_zframe_deflate_raw makes of the same input), its output handed to put; the
 * CRC-32 and length of the input counted on the way. finish ends the stream and, with
 * trailer, puts the gzip trailer (CRC-32, ISIZE) after it. */
struct af_zout {
	void *zs;
	uint8_t *out;
	uint32_t crc;
	uint64_t isize;
	int (*put)(void *ctx, const uint8_t *data, size_t n, struct af_diag *d);
	void *ctx;
};
int af_zout_open(struct af_zout *z, int level,
		 int (*put)(void *ctx, const uint8_t *data, size_t n, struct af_diag *d), void *ctx,
		 struct af_diag *d);
int af_zout_write(struct af_zout *z, const uint8_t *p, size_t n, struct af_diag *d);
int af_zout_finish(struct af_zout *z, int trailer, struct af_diag *d);
void af_zout_close(struct af_zout *z);

/* CRC-32 (the gzip trailer's). */
uint32_t af_crc32(const uint8_t *p, size_t n);
/* Adler-32 (the zlib trailer's) of p[0..n) continued from adler (1 to start): zlib's
 * adler32() values, 16 bytes at a time (src/core/adler.c). */
uint32_t af_adler32(uint32_t adler, const uint8_t *p, size_t n);

#endif
