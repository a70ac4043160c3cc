/* What the Shenmue containers (gzip.c, ipac.c, pks.c, pkf.c, afs.c, tad.c) share:
 * a check that opens the whole file, member file names (spec 10.1), the content claim
 * of a member, and the one rewrite rule after a member changes size (spec 9.1).
 * Private to src/container/ and its tests. Spec: ../shared/formats/shenmue-containers.md */
#ifndef ANIMFS_SHM_H
#define ANIMFS_SHM_H

#include <stddef.h>
#include <stdint.h>
#include "animfs/buf.h"
#include "animfs/container.h"
#include "animfs/diag.h"
#include "animfs/pieces.h"

#define SHM_MOTN_CODEC "shenmue-motn"

/* check() for a container whose open is cheap enough: open it from fd (open_src: its
 * tables), else read the file (bounded by AF_MAX_FILE) and open it. */
int shm_check_open(int fd, uint64_t size, const struct af_container *c, struct af_diag *d);

/* v as 0x<hex>, as short as it is (index.yaml). */
void shm_hex(struct af_buf *out, uint64_t v);

/* Raw name bytes as a file name: bytes outside 0x21-0x7E and / \ : * ? " < > | % as %XX. */
void shm_escape(const uint8_t *p, size_t n, char *out, size_t size);
/* Names equal but for case get ~N before the extension, in order (spec 10.1): the
 * first N from 1 that no earlier name (as written) has; a new name is put in arena.
 * 0, or AF_ENOMEM. */
int shm_dedupe(const char **names, size_t n, struct af_arena *arena);
/* s (at most AF_MEMBER_NAME_MAX - 1 bytes of it) in arena, or NULL. */
const char *shm_keep(struct af_arena *arena, const char *s);

/* The codec that claims a member's bytes (MOTN; p: its first n bytes, len: its length),
 * or NULL: a raw member. */
const char *shm_codec_of(const struct af_container_env *env, const char *name, const uint8_t *p,
			 size_t n, uint64_t len);

/* One region of an archive in physical order (a member, a directory, a name table). */
struct shm_region {
	uint64_t off, len;   /* where it is and how long */
	const uint8_t *data; /* its new bytes (newlen), or NULL: keep the old ones */
	size_t newlen;
	uint64_t newoff;     /* out: where it is written */
	size_t bytes_at;     /* out (shm_plan, with data): where its bytes are in the
				pieces' own bytes */
	/* or its new bytes as pieces of its old ones (an archive inside planned in turn),
	 * their copies shifted by shift (with data non-NULL, newlen their length) */
	const struct af_pieces *pieces;
	uint64_t shift;
};
/* Spec 9.1 as pieces (pieces.h) of the old file of `end` bytes: its head [0, r[0].off)
 * (the first headlen bytes given as head, or all copied), then each region at the
 * running position: new bytes or a copy; an unchanged length keeps its trailing gap
 * (copied), a changed one gets the smallest zero gap that keeps the next region at its
 * old offset mod a. Regions sorted, not overlapping, inside the file; headlen <=
 * r[0].off. Appends to out. */
int shm_plan(uint64_t end, const uint8_t *head, size_t headlen, struct shm_region *r, size_t n,
	     uint64_t a, struct af_pieces *out, struct af_diag *d);
/* The same rule over src[0..end) in memory, the head verbatim: the new bytes appended
 * to out. */
int shm_relayout(const uint8_t *src, uint64_t end, struct shm_region *r, size_t n, uint64_t a,
		 struct af_buf *out, struct af_diag *d);
/* The new position of old offset off (of an empty entry, or a region's start): inside
 * a region it moves with it; in the gap before a region with that one, never before
 * the end of the region before it; after the last region with it, at most to newend. */
uint64_t shm_moved(const struct shm_region *r, size_t n, uint64_t off, uint64_t newend);

#endif
