/* Private model of the Shenmue MOTN codec, shared by its four stages:
 * motn_bin.c (file tables), motn_seq.c (sequence blocks), motn_emit.c (YAML out),
 * motn_parse.c (YAML in). Spec: ../shared/formats/shenmue-motn.md. */
#ifndef ANIMFS_CODEC_MOTN_H
#define ANIMFS_CODEC_MOTN_H

#include <stddef.h>
#include <stdint.h>

#include "animfs/arena.h"
#include "animfs/buf.h"
#include "animfs/diag.h"
#include "animfs/schema.h"

struct af_ynode;

#define MOTN_MAX_BONE 127
#define MOTN_MAX_ENTRIES 4094 /* 12-bit count field holds N + 1 */

enum { MOTN_TX, MOTN_TY, MOTN_TZ, MOTN_RX, MOTN_RY, MOTN_RZ, MOTN_NCH };

/* One key. w[] holds the block-5 words in file order: slopes first, value last. */
struct motn_key {
	uint16_t frame;
	uint8_t type;      /* 0..3 = number of words */
	uint16_t w[3];
};

struct motn_chan {
	uint32_t nkeys;    /* >= 2: implicit first, intermediates, implicit last */
	struct motn_key *keys;
	const struct af_ynode *node; /* its YAML key list while parsing; NULL when decoded */
};

struct motn_bone {
	uint8_t id;        /* 0..127 */
	uint8_t mask;      /* bit c set = channel c (MOTN_TX..MOTN_RZ) present */
	struct motn_chan ch[MOTN_NCH];
};

struct motn_seq {
	uint16_t frames;   /* 1..32767 */
	uint8_t wide;      /* frame-word bit 15: u16 block-2 counts */
	uint16_t rig;      /* bit 15 clear */
	uint32_t nbones;
	struct motn_bone *bones;
};

struct motn_block {
	uint32_t orig;        /* original data_rel: the block's label */
	const char *label;    /* user-chosen non-numeric id, or NULL */
	uint8_t orphan;       /* referenced by no entry */
	uint8_t raw;          /* kept verbatim */
	uint8_t view;         /* raw, but seq holds what the game reads (shown read-only) */
	const char *why;      /* reason a block is raw */
	const uint8_t *bytes; /* raw bytes */
	size_t len;
	struct motn_seq seq;  /* when !raw */
	uint32_t new_off;     /* set by the encoder */
	unsigned line;        /* YAML line of the block (0 when from binary) */
};

struct motn_extra {
	uint32_t orig;        /* original absolute offset: the blob's label */
	const uint8_t *bytes;
	size_t len;
	uint32_t new_off;
	uint8_t referenced;
};

struct motn_entry {
	const char *name;
	size_t name_len;
	uint32_t block;       /* index into blocks */
	uint32_t extra;       /* index into extras */
};

struct motn_file {
	uint32_t table_off;
	uint32_t attr_high;        /* attr bits 12..31, shifted down */
	const uint8_t *hdr_pad;    /* bytes 0x14..table_off */
	size_t hdr_pad_len;
	const uint8_t *names_pad;  /* non-canonical padding before data_off, or NULL */
	size_t names_pad_len;
	const uint8_t *trailer;    /* build stamp + NULs */
	size_t trailer_len;
	const uint8_t *tail;       /* bytes after size_field (container entries) */
	size_t tail_len;
	uint32_t nentries, nextras, nblocks;
	struct motn_entry *entries;
	struct motn_extra *extras;
	struct motn_block *blocks;
};

/* motn_seq.c: one sequence block. */
/* Decode the block at p (region of n bytes) following its header offsets, then accept it
 * only if the canonical re-encoding equals the original bytes. Returns 0 and the length
 * used; 1 with *why set (raw); 2 with *why when it decoded but is not canonical (raw, and
 * *out is what the game reads); or AF_ENOMEM. scratch is reused between calls. */
int motn_seq_accept(const uint8_t *p, size_t n, struct af_arena *a, struct af_buf *scratch,
		    struct motn_seq *out, size_t *used, const char **why);
/* Canonical block offsets off2..off5 (spec 4.7); -1 when a channel has fewer than 2 keys
 * or more intermediate keys than its count field holds. */
int motn_seq_layout(const struct motn_seq *s, size_t off[4]);
/* Canonical encoding; AF_EINVAL when motn_seq_layout fails or block 5 would start past
 * 0xFFFF (the parser reports both with the YAML position first), AF_ENOMEM. */
int motn_seq_encode(const struct motn_seq *s, struct af_buf *out);
/* Human name of a rig slot, or NULL ("BoneNN"). */
const char *motn_bone_name(unsigned id);
extern const char motn_chan_names[MOTN_NCH][3];

/* motn_schema.c: key types 0..3 (the values a key takes after its type, and what it
 * is), the keys of each map of a document (the parser refuses others), the schema. */
struct motn_key_type {
	const char *words, *doc;
};
extern const struct motn_key_type motn_key_types[4];
extern const struct af_sch_prop motn_sch_document[], motn_sch_header[], motn_sch_entry[],
	motn_sch_block[];
extern const struct af_sch motn_schema;

/* motn_bin.c: the whole blob. */
int motn_decode(const uint8_t *bin, size_t n, struct af_arena *a, struct motn_file *f,
		struct af_diag *d);
int motn_encode(const struct motn_file *f, struct af_buf *out, struct af_diag *d);
int motn_bid(const char *name, const uint8_t *head, size_t n);

/* motn_emit.c / motn_parse.c */
int motn_name_ascii(const struct motn_entry *en); /* printable ASCII: shown as text */
int motn_emit(const struct motn_file *f, const char *filename, struct af_buf *out,
	      struct af_diag *d);
int motn_parse(const struct af_ynode *root, struct af_arena *a, struct motn_file *f,
	       struct af_diag *d);
/* motn_curves.c: the descriptor's curves hook (codec.h) */
struct af_curves;
int motn_curves(const struct af_ynode *root, struct af_curves *cv);
/* A key's value as the view writes it: a number, or a half float's bits (0x...); 0 or -1. */
int motn_yhalf(const struct af_ynode *n, double *v);
/* motn_scene.c: the descriptor's scene hook (codec.h) */
struct af_scene;
int motn_scene(const struct af_ynode *root, struct af_scene *sc, struct af_diag *d);

#endif
