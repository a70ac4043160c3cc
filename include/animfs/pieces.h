/* A file's bytes read where they are asked for (struct af_src), and a new file
 * described as pieces of an old one (struct af_pieces): a range copied from the old
 * file, new bytes, or zeros. A container's rebuild says which ranges stay (most of a
 * large archive) and which bytes are new (a member, its tables); the writer assembles
 * the new file in its temp file with copy_file_range (FICLONE when every kept range
 * stays at its offset), so kept bytes never pass through animfs. */
#ifndef ANIMFS_PIECES_H
#define ANIMFS_PIECES_H

#include <stddef.h>
#include <stdint.h>
#include "animfs/buf.h"
#include "animfs/diag.h"

/* The bytes of a file: in memory (mem), or read with pread from fd, from base on (a
 * window on a larger file: an archive stored inside another). */
struct af_src {
	const uint8_t *mem; /* NULL: read from fd */
	int fd;
	uint64_t size;
	uint64_t base; /* fd: offset 0 is this offset of the file */
};
/* n bytes at off into buf: 0, or AF_EINVAL (past the end: the file is shorter than it
 * was) / AF_EIO with d saying where. */
int af_src_read(const struct af_src *s, uint64_t off, void *buf, size_t n, struct af_diag *d);
/* The same appended to out (AF_ENOMEM when it cannot grow). */
int af_src_append(const struct af_src *s, uint64_t off, size_t n, struct af_buf *out,
		  struct af_diag *d);

/* GZIP: a gzip member's body made while the file is written (a layer's save): the raw
 * deflate stream of the bytes `inner` stands for, then their CRC-32 and ISIZE. inner's
 * copies are ranges of the inflated bytes of the old deflate stream at [zoff, zoff +
 * zlen) of the source, which is inflated again as it is written (in order; a copy behind
 * the last one starts it again): the layer is never held, old or new. Its length is
 * known only once it is written. */
enum { AF_PIECE_COPY, AF_PIECE_BYTES, AF_PIECE_ZERO, AF_PIECE_GZIP };
struct af_piece {
	int kind;
	uint64_t off; /* COPY: offset in the source; BYTES: offset in the pieces' own bytes;
			 GZIP: index in the pieces' z */
	uint64_t len; /* GZIP: 0 (unknown until written) */
};
struct af_pieces;
struct af_zpiece;
struct af_pieces {
	struct af_piece *v;
	size_t n, cap;
	struct af_buf bytes; /* the new bytes of every BYTES piece */
	uint64_t len;        /* the new file's length (less the GZIP pieces': see unsized) */
	int failed;          /* sticky: an allocation failed */
	struct af_zpiece *z; /* the GZIP pieces' streams */
	size_t nz;
	int unsized;         /* a GZIP piece is there: the length is known once written */
};
struct af_zpiece {
	struct af_pieces inner; /* the new inflated bytes (copies: of the old ones) */
	uint64_t zoff, zlen;    /* the old raw deflate stream in the source */
	int level;              /* zlib level of the new stream */
};
#define AF_PIECES_INIT {NULL, 0, 0, AF_BUF_INIT, 0, 0, NULL, 0, 0}
void af_pieces_init(struct af_pieces *p);
void af_pieces_free(struct af_pieces *p);
void af_pieces_reset(struct af_pieces *p);
/* Append a piece (adjacent copies and zeros merge): 0 or AF_ENOMEM (p->failed set). */
int af_pieces_copy(struct af_pieces *p, uint64_t off, uint64_t len);
int af_pieces_bytes(struct af_pieces *p, const void *data, size_t len);
int af_pieces_zero(struct af_pieces *p, uint64_t len);
/* The pieces of from appended to p, its copies shifted by shift (from planned over a
 * part of the file that starts at shift: an archive inside another's bytes). */
int af_pieces_append(struct af_pieces *p, const struct af_pieces *from, uint64_t shift);
/* A GZIP piece (see above): inner (taken: left empty) deflated at level, its copies
 * ranges of the inflated bytes of the raw deflate stream at [zoff, zoff + zlen) of the
 * source. */
int af_pieces_gzip(struct af_pieces *p, struct af_pieces *inner, uint64_t zoff, uint64_t zlen,
		   int level);
/* The whole of image as one BYTES piece (image's memory is taken; it is left empty). */
int af_pieces_take(struct af_pieces *p, struct af_buf *image);
/* The bytes the pieces stand for (copies read from src), appended to out. */
int af_pieces_to_buf(const struct af_pieces *p, const struct af_src *src, struct af_buf *out,
		     struct af_diag *d);
/* The pieces as the bytes they stand for, handed to put in order (chunks of at most
 * 1 MiB from a constant number of buffers; a GZIP piece's stream made on the way):
 * 0, or put's error / AF_E* with d. */
int af_pieces_each(const struct af_pieces *p, const struct af_src *src,
		   int (*put)(void *ctx, const uint8_t *data, size_t n, struct af_diag *d),
		   void *ctx, struct af_diag *d);
/* Write them into fd from offset 0 (fd empty, open for reading and writing; its length
 * is then p->len): copies by FICLONE of the whole source when every copied range keeps
 * its offset (then the new bytes written over it), else copy_file_range per range
 * (pread/pwrite where the kernel refuses it); copies need src->fd (src->mem: written
 * from memory; src NULL: there are no copies). *copied (may be NULL) gets the bytes the kernel copied or cloned.
 * A GZIP piece is deflated into fd as it goes (no FICLONE then); the file's length is
 * then what was written. */
int af_pieces_write(const struct af_pieces *p, const struct af_src *src, int fd,
		    uint64_t *copied, struct af_diag *d);
/* Test-only: 1 makes af_pieces_write skip FICLONE and copy_file_range (the plain
 * pread/pwrite path); 0 back to normal. */
void af_pieces_plain_for_tests(int on);

#endif
