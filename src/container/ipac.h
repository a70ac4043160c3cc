/* The IPAC block (spec 5), shared by PKS (pks.c), PKF (pkf.c) and the bare IPAC
 * container (ipac.c): the block parsed and checked, its entries as members with view
 * names, the rebuild with one member replaced (spec 9), the index.yaml parts. Private
 * to src/container/ and its tests. */
#ifndef ANIMFS_IPAC_H
#define ANIMFS_IPAC_H

#include <stddef.h>
#include <stdint.h>
#include "animfs/buf.h"
#include "animfs/container.h"
#include "animfs/diag.h"
#include "animfs/pieces.h"

#define IPAC_HEADER 16
#define IPAC_ENTRY 20
#define IPAC_ALIGN 32
#define IPAC_FIRST 64 /* an entry's first bytes kept while it is open (its content claim) */

struct ipac_entry {
	const uint8_t *raw; /* its 20 directory bytes: name[8], type[4], offset, size */
	uint32_t off, size;
	int floating;       /* size 0 with an offset outside the block: kept as it is */
};

struct ipac_block {
	struct af_src src; /* the file the block is read from (its bytes, or a descriptor) */
	uint64_t base;     /* where the block starts in it; it runs to the file's end */
	size_t len;
	uint8_t hdr[IPAC_HEADER];
	uint32_t dir, count;
	struct af_buf dirbytes; /* the directory (read from src) */
	struct ipac_entry *e;
};

/* Parse and check the block p[0..len) (spec 5.6): p must outlive b. 0, or AF_EINVAL with
 * the offset (relative to the block) and the reason. */
int ipac_parse(struct ipac_block *b, const uint8_t *p, size_t len, struct af_diag *d);
/* The same for the block at base of src: its header and directory are read, nothing else
 * (src's bytes or descriptor must outlive b). */
int ipac_parse_src(struct ipac_block *b, const struct af_src *src, uint64_t base, struct af_diag *d);
void ipac_free(struct ipac_block *b);
/* A container's check (struct af_container.check) of the block at base of the file fd of
 * size bytes: its header and directory parsed as ipac_parse_src does, nothing else (what
 * an open adds, the members' names, first bytes and codecs, cannot refuse a block that
 * parses: a check of 1 M entries takes the directory's read, not the members'). */
int ipac_check_fd(int fd, uint64_t size, uint64_t base, struct af_diag *d);
/* "canonical-32", "packed" or "irregular" (spec 5.5): reads the bytes between entries. */
const char *ipac_layout(const struct ipac_block *b);
/* The block anew with entry i's bytes replaced (i < 0: none) as pieces of src (copies
 * at their file offsets), appended to out: the header, the directory and the new body
 * are new bytes, every other entry and gap a copy (spec 9.1). */
int ipac_plan(const struct ipac_block *b, long i, const uint8_t *body, size_t n,
	      struct af_pieces *out, struct af_diag *d);
/* The same put together, appended to out (a block at base 0 of src: the block alone). */
int ipac_rebuild(const struct ipac_block *b, long i, const uint8_t *body, size_t n,
		 struct af_buf *out, struct af_diag *d);

/* An archive whose IPAC block starts at base (a PKS's ipac_offset, a PKF's content
 * size, 0 for a bare IPAC), with its members. */
struct ipac_view {
	struct af_buf file; /* an owned copy (opened from memory) */
	int fd, has_fd;     /* or a descriptor of its own (opened from a src) */
	uint8_t lead[16];   /* the file's first bytes (a PKS's header) */
	size_t base;
	struct ipac_block blk;
	uint8_t (*motn)[8];  /* each entry's bytes 0xC-0x13 (a MOTN's count and size words,
				for index.yaml; the rest of its first bytes only while it opens) */
	const char *layout; /* ipac_layout, found once */
	const char **names; /* in arena */
	struct af_arena arena;
	const char **codec;
	unsigned char *warn; /* per entry: type MOTN, but no MOTN */
};
int ipac_view_open(struct ipac_view *v, const uint8_t *data, size_t n, size_t base,
		   const struct af_container_env *env, struct af_diag *d);
/* The same from src (only the tables and each entry's first bytes read; a descriptor
 * duplicated, bytes in memory borrowed: they must outlive v). */
int ipac_view_open_src(struct ipac_view *v, const struct af_src *src, size_t base,
		       const struct af_container_env *env, struct af_diag *d);
void ipac_view_close(struct ipac_view *v);
void ipac_view_member(const struct ipac_view *v, size_t i, struct af_member *m);
int ipac_view_body(const struct ipac_view *v, size_t i, struct af_buf *out, struct af_diag *d);
/* The whole file with entry i replaced (i < 0: none): bytes before base verbatim. */
int ipac_view_rebuild(const struct ipac_view *v, long i, const uint8_t *body, size_t n,
		      struct af_buf *image, struct af_diag *d);
/* The same as pieces of the file: bytes before base a copy. */
int ipac_view_plan(const struct ipac_view *v, long i, const uint8_t *body, size_t n,
		   struct af_pieces *out, struct af_diag *d);
/* index.yaml: the "  - format: ipac" layer entry, and the members list. */
void ipac_view_layer(const struct ipac_view *v, struct af_buf *out);
void ipac_view_members(const struct ipac_view *v, struct af_buf *out);

/* The descriptor functions of a container that is an ipac_view (its state); open: the
 * IPAC block at base of data (n bytes), a new state in *st. */
int ipac_st_open(const uint8_t *data, size_t n, size_t base, const struct af_container_env *env,
		 void **st, struct af_diag *d);
int ipac_st_open_src(const struct af_src *src, size_t base, const struct af_container_env *env,
		     void **st, struct af_diag *d);
void ipac_st_close(void *st);
size_t ipac_st_count(void *st);
void ipac_st_member(void *st, size_t i, struct af_member *m);
size_t ipac_st_tables(void *st);
int ipac_st_body(void *st, size_t i, struct af_buf *out, struct af_diag *d);
void ipac_st_member_io(void *st, size_t i, struct af_io *io);
int ipac_st_members(void *st, const char *name, struct af_buf *out);
int ipac_st_replace(void *st, size_t i, const uint8_t *body, size_t n, struct af_buf *image,
		    struct af_diag *d);
int ipac_st_rebuild(void *st, struct af_buf *image, struct af_diag *d);
int ipac_st_rebuild_plan(void *st, struct af_pieces *out, const struct af_src **src,
			 struct af_diag *d);
int ipac_st_plan(void *st, size_t i, const uint8_t *body, size_t n, struct af_pieces *out,
		 struct af_diag *d);
int ipac_st_span(void *st, size_t i, uint64_t *off, uint64_t *len);
int ipac_st_head(void *st, size_t i, uint8_t *buf, size_t n, size_t *got, struct af_diag *d);
/* Those functions as the members of a struct af_container initialiser. */
#define IPAC_ST_OPS                                                                       \
	.member_noun = "entry", .members = "entries", .close = ipac_st_close,             \
	.count = ipac_st_count, .member = ipac_st_member, .body = ipac_st_body,           \
	.member_io = ipac_st_member_io, .index_yaml = ipac_st_members,                    \
	.replace = ipac_st_replace, .rebuild = ipac_st_rebuild,                            \
	.rebuild_plan = ipac_st_rebuild_plan, .plan = ipac_st_plan, .span = ipac_st_span, \
	.head = ipac_st_head, .tables = ipac_st_tables

#endif
