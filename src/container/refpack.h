/* RefPack (QFS) compression as The Sims 3 packages use it (spec sims3-jazz.md 6.3/6.4):
 * a strict, bounded decompressor for every opcode kind and a greedy compressor whose
 * streams keep to what s3pe-written mods use (no 0x01 header flag, shortest opcodes). */
#ifndef ANIMFS_REFPACK_H
#define ANIMFS_REFPACK_H

#include <stddef.h>
#include <stdint.h>
#include "animfs/buf.h"
#include "animfs/diag.h"

#define AF_REFPACK_MAX_OUT 0xFFFFFFFFu /* the 4-byte size field's limit */

/* Read the stream header: the declared uncompressed size and the header length. */
int af_refpack_header(const uint8_t *in, size_t n, uint64_t *size, size_t *hdrlen,
		      struct af_diag *d);
/* Decompress the whole stream and append it to out. expect is the size the caller
 * knows (the package index's memory size), or UINT64_MAX to trust the header.
 * Errors name the stream byte offset; nothing past the declared size is written. */
int af_refpack_decompress(const uint8_t *in, size_t n, uint64_t expect, struct af_buf *out,
			  struct af_diag *d);
/* The first want bytes of the stream (fewer when it declares fewer), appended to out:
 * only the opcodes that give them are read, so in may be the stream's first bytes
 * alone (an opcode cut off by its end is then an error: read more and ask again). */
int af_refpack_head(const uint8_t *in, size_t n, uint64_t expect, size_t want, struct af_buf *out,
		    struct af_diag *d);
/* Compress in (n <= AF_REFPACK_MAX_OUT) into out (replacing its content). */
int af_refpack_compress(const uint8_t *in, size_t n, struct af_buf *out, struct af_diag *d);

#endif
