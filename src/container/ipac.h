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

#define IPAC_HEADER 16
#define IPAC_ENTRY 20
#define IPAC_ALIGN 32

struct ipac_entry {
	const uint8_t *raw; /* its 20 directory bytes: name[8], type[4], offset, size */
	uint32_t off, size;
	int floating;       /* size 0 with an offset outside the block: kept as it is */
};

struct ipac_block {
	const uint8_t *p; /* the block: its header up to the end of the file */
	size_t len;
	uint32_t dir, count;
	struct ipac_entry *e;
};

/* Parse and check the block p[0..len) (spec 5.6). 0, or AF_EINVAL with the offset
 * (relative to the block) and the reason. */
int ipac_parse(struct ipac_block *b, const uint8_t *p, size_t len, struct af_diag *d);
void ipac_free(struct ipac_block *b);
/* "canonical-32", "packed" or "irregular" (spec 5.5). */
const char *ipac_layout(const struct ipac_block *b);
/* The block anew with entry i's bytes replaced (i < 0: none), appended to out. */
int ipac_rebuild(const struct ipac_block *b, long i, const uint8_t *body, size_t n,
		 struct af_buf *out, struct af_diag *d);

/* An archive whose IPAC block starts at base (a PKS's ipac_offset, a PKF's content
 * size, 0 for a bare IPAC), with its members. */
struct ipac_view {
	struct af_buf file; /* an owned copy */
	size_t base;
	struct ipac_block blk;
	char (*names)[AF_MEMBER_NAME_MAX];
	const char **codec;
	unsigned char *warn; /* per entry: type MOTN, but no MOTN */
};
int ipac_view_open(struct ipac_view *v, const uint8_t *data, size_t n, size_t base,
		   const struct af_container_env *env, struct af_diag *d);
void ipac_view_close(struct ipac_view *v);
void ipac_view_member(const struct ipac_view *v, size_t i, struct af_member *m);
int ipac_view_body(const struct ipac_view *v, size_t i, struct af_buf *out, struct af_diag *d);
/* The whole file with entry i replaced (i < 0: none): bytes before base verbatim. */
int ipac_view_rebuild(const struct ipac_view *v, long i, const uint8_t *body, size_t n,
		      struct af_buf *image, struct af_diag *d);
/* index.yaml: the "  - format: ipac" layer entry, and the members list. */
void ipac_view_layer(const struct ipac_view *v, struct af_buf *out);
void ipac_view_members(const struct ipac_view *v, struct af_buf *out);

/* The descriptor functions of a container that is an ipac_view (its state); open: the
 * IPAC block at base of data (n bytes), a new state in *st. */
int ipac_st_open(const uint8_t *data, size_t n, size_t base, const struct af_container_env *env,
		 void **st, struct af_diag *d);
void ipac_st_close(void *st);
size_t ipac_st_count(void *st);
void ipac_st_member(void *st, size_t i, struct af_member *m);
int ipac_st_body(void *st, size_t i, struct af_buf *out, struct af_diag *d);
void ipac_st_member_io(void *st, size_t i, struct af_io *io);
int ipac_st_members(void *st, const char *name, struct af_buf *out);
int ipac_st_replace(void *st, size_t i, const uint8_t *body, size_t n, struct af_buf *image,
		    struct af_diag *d);
int ipac_st_rebuild(void *st, struct af_buf *image, struct af_diag *d);
/* Those functions as the members of a struct af_container initialiser. */
#define IPAC_ST_OPS                                                                       \
	.member_noun = "entry", .members = "entries", .close = ipac_st_close,             \
	.count = ipac_st_count, .member = ipac_st_member, .body = ipac_st_body,           \
	.member_io = ipac_st_member_io, .index_yaml = ipac_st_members,                    \
	.replace = ipac_st_replace, .rebuild = ipac_st_rebuild

#endif
