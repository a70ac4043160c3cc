/* DBPF 2.0 packages (The Sims 3 `.package`, spec sims3-jazz.md 6): bounded reading of
 * the header and the index (all shared-field variants) and the rebuild that replaces
 * some resources while every other one keeps its exact stored bytes (spec 6.5, 7.2). */
#ifndef ANIMFS_DBPF_H
#define ANIMFS_DBPF_H

#include <stddef.h>
#include <stdint.h>
#include "animfs/buf.h"
#include "animfs/diag.h"
#include "animfs/pieces.h"

#define AF_DBPF_HEADER 96
#define AF_DBPF_TYPE_JAZZ 0x02D5DF13u
#define AF_DBPF_TYPE_KEY 0x0166038Cu

enum { AF_DBPF_SHARE_TYPE = 1, AF_DBPF_SHARE_GROUP = 2, AF_DBPF_SHARE_INSTHI = 4 };

struct af_dbpf_entry {
	uint32_t type, group, inst_hi, inst_lo;
	uint32_t offset;
	uint32_t file_size;  /* as stored: bit 31 is a flag s3pi sets */
	uint32_t mem_size;
	uint16_t compressed; /* 0xFFFF RefPack, 0 raw */
	uint16_t committed;
	uint32_t index_pos;  /* where the record starts in the file (for messages) */
};

/* A parsed package. The bytes are borrowed: they must outlive the struct. */
struct af_dbpf {
	const uint8_t *data; /* the whole file; NULL after af_dbpf_open_index or _src (fd) */
	size_t n;
	const uint8_t *ix;   /* the index bytes */
	struct af_src src;   /* where the stored bytes are read: data, or a descriptor */
	uint8_t head[AF_DBPF_HEADER]; /* the header (af_dbpf_open_src) */
	struct af_buf own_ix;         /* the index read from src (af_dbpf_open_src) */
	uint32_t count, index_off, index_size, index_type;
	uint32_t shared[3]; /* type, group, instance-high when their flag is set */
	struct af_dbpf_entry *e;
};

/* Cheap test on the first bytes: "DBPF" with version 2.0. */
int af_dbpf_is_v2(const uint8_t *head, size_t n);
/* Parse and check the header and the index: every entry's data inside the file,
 * known compression values. Not DBPF 2.0 gives AF_EUNSUP; damage gives AF_EINVAL
 * with the byte offset. Warnings (flag/size disagreements) go to d. */
int af_dbpf_open(struct af_dbpf *p, const uint8_t *data, size_t n, struct af_diag *d);
/* The same checks from the 96-byte header and the index alone (two small reads, for
 * listings); n is the file size. Only the index is usable afterwards (data is NULL). */
int af_dbpf_open_index(struct af_dbpf *p, const uint8_t *head, size_t hn, const uint8_t *index,
		       size_t in, size_t n, struct af_diag *d);
/* The same from src (pieces.h): only the header and the index are read (a descriptor
 * stays the caller's, open while p is used); stored bytes are read from src when asked. */
int af_dbpf_open_src(struct af_dbpf *p, const struct af_src *src, struct af_diag *d);
void af_dbpf_close(struct af_dbpf *p);

static inline uint64_t af_dbpf_instance(const struct af_dbpf_entry *e)
{
	return (uint64_t)e->inst_hi << 32 | e->inst_lo;
}
static inline uint32_t af_dbpf_stored_size(const struct af_dbpf_entry *e)
{
	return e->file_size & 0x7FFFFFFFu;
}
/* s3pi's rule: a record with file size 1 and memory size 0xFFFFFFFF has no data. */
static inline int af_dbpf_deleted(const struct af_dbpf_entry *e)
{
	return af_dbpf_stored_size(e) == 1 && e->mem_size == 0xFFFFFFFFu;
}
/* s3pi's rule: stored compressed when the stored size differs from the memory size. */
static inline int af_dbpf_compressed(const struct af_dbpf_entry *e)
{
	return af_dbpf_stored_size(e) != e->mem_size;
}
/* The s3pe tag of a resource type ("JAZZ", "_KEY", "CLIP"), or NULL. */
const char *af_dbpf_type_tag(uint32_t type);

/* The stored bytes of entry i (borrowed from the package; opened from memory only). */
const uint8_t *af_dbpf_stored(const struct af_dbpf *p, size_t i);
/* The stored bytes of entry i appended to out (read from src). */
int af_dbpf_read_stored(const struct af_dbpf *p, size_t i, struct af_buf *out, struct af_diag *d);
/* The body of entry i, decompressed when needed, appended to out. */
int af_dbpf_body(const struct af_dbpf *p, size_t i, struct af_buf *out, struct af_diag *d);
/* Its first n bytes (fewer when it is shorter: *got) into buf, reading and unpacking only
 * what gives them (a listing's content check reads no body whole). */
int af_dbpf_head(const struct af_dbpf *p, size_t i, uint8_t *buf, size_t n, size_t *got,
		 struct af_diag *d);

/* One replaced resource body (uncompressed). */
struct af_dbpf_edit {
	size_t index;
	const uint8_t *body;
	size_t n;
};
/* Write a new package image into out: other resources keep their stored bytes, in
 * the original file order; an edited body equal to the old one keeps its old stored
 * bytes, otherwise it is stored RefPack-compressed if its entry was compressed and
 * that is smaller, else raw. The result is re-read and checked before returning. */
int af_dbpf_rebuild(const struct af_dbpf *p, const struct af_dbpf_edit *edits, size_t nedits,
		    struct af_buf *out, struct af_diag *d);
/* The same package as pieces (pieces.h, appended to an empty out) of the file p was
 * opened from: the header, the edited resources' new stored bytes and the index are new
 * bytes, every other resource's stored bytes a copy of its range (the same bytes
 * af_dbpf_rebuild gives). Checked before returning: the new index read back, each kept
 * record a copy of its old range, each edited one unpacking to its new body; only the
 * edited resources and the tables are held. */
int af_dbpf_plan(const struct af_dbpf *p, const struct af_dbpf_edit *edits, size_t nedits,
		 struct af_pieces *out, struct af_diag *d);

/* A resource a rewrite adds (uncompressed body). */
struct af_dbpf_new {
	uint32_t type, group;
	uint64_t instance;
	const uint8_t *body;
	size_t n;
};
/* An edit's or an addition's body given as stored bytes, kept as they are, with the
 * record's size unpacked (mem) and compression flag: a resource that does not unpack,
 * carried from another package byte for byte (an overlay's merge). */
struct af_dbpf_as_stored {
	int stored; /* 0: the body is a body, as usual */
	uint32_t mem;
	uint16_t compressed;
};
/* What a rewrite changes: bodies replaced, records removed (their index record and
 * their data, unless another kept record shares the blob), records added;
 * edits_stored and adds_stored: NULL, or one an edit / an addition. */
struct af_dbpf_change {
	const struct af_dbpf_edit *edits;
	size_t nedits;
	const size_t *drops;
	size_t ndrops;
	const struct af_dbpf_new *adds;
	size_t nadds;
	const struct af_dbpf_as_stored *edits_stored, *adds_stored;
};
/* af_dbpf_rebuild with removals and additions: kept records keep their index order and
 * their data its file order; added ones follow, in the data (stored RefPack-compressed
 * when that is smaller, spec 6.4) and at the end of the index (file size bit 31 set,
 * committed 1). A shared index field that an added record breaks is no longer shared.
 * Re-read and checked like a rebuild. */
int af_dbpf_rewrite(const struct af_dbpf *p, const struct af_dbpf_change *ch, struct af_buf *out,
		    struct af_diag *d);

#endif
