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

/* Rig-word bit 15 (spec 4.9; docs/shenmue-motn.md "Blocks with rig bit 15"): a baked
 * block holds one record a frame, a node block per-node sampled tracks. */
#define MOTN_HINGE(id) ((id) == 7 || (id) == 14 || (id) == 28 || (id) == 34) /* 1 angle */
struct motn_baked {
	uint16_t frames;      /* 1..32767: records */
	uint16_t rig;         /* the rig word without bit 15 (0..0x7FFE) */
	uint64_t mask;        /* bit i: bone i has angles in each record (bit 0 clear) */
	uint32_t nwords;      /* words a record: 6 for the root, then 3 a bone, 1 a hinge */
	uint16_t *w;          /* frames x nwords, in file order */
};

struct motn_node {
	uint16_t scale[3];    /* halves, when scale_track is NULL */
	uint16_t *scale_track; /* (frames + 1) x 3 halves, or NULL */
	uint16_t rot[3];      /* angles (65536 a turn), where rot_track[c] is NULL */
	uint16_t *rot_track[3]; /* frames + 1 angles each, or NULL */
	uint16_t trans[3];    /* halves */
};

struct motn_nodes {
	uint16_t frames;      /* tracks hold frames + 1 samples */
	uint16_t unknown[2];  /* header words +4, +6: a half 1.0 and 0 in every sample */
	uint32_t n;
	struct motn_node *node;
};

enum { MOTN_STD, MOTN_BAKED, MOTN_NODES };

struct motn_block {
	uint32_t orig;        /* original data_rel: the block's label */
	uint8_t kind;         /* MOTN_STD (seq), MOTN_BAKED, MOTN_NODES; when !raw */
	const char *label;    /* user-chosen non-numeric id, or NULL */
	uint8_t orphan;       /* referenced by no entry */
	uint8_t raw;          /* kept verbatim */
	uint8_t view;         /* raw, but seq holds what the game reads (shown read-only) */
	const char *why;      /* reason a block is raw */
	const uint8_t *bytes; /* raw bytes */
	size_t len;           /* raw: of bytes; decoded from a file: the bytes it was read from */
	struct motn_seq seq;  /* when !raw and kind MOTN_STD */
	struct motn_baked baked;
	struct motn_nodes nodes;
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
/* motn_pose.c: blocks with rig bit 15. Decode at p (region of n bytes): 0 with *used,
 * 1 with *why (raw: not this layout, or not canonical), AF_ENOMEM. */
int motn_baked_accept(const uint8_t *p, size_t n, struct af_arena *a, struct af_buf *scratch,
		      struct motn_baked *out, size_t *used, const char **why);
int motn_nodes_accept(const uint8_t *p, size_t n, struct af_arena *a, struct af_buf *scratch,
		      struct motn_nodes *out, size_t *used, const char **why);
/* Canonical encodings: AF_EINVAL when a size or offset does not fit its field. */
int motn_baked_encode(const struct motn_baked *b, struct af_buf *out);
int motn_nodes_encode(const struct motn_nodes *s, struct af_buf *out);
/* Bytes of s the view names unknown (header words +4, +6). */
#define MOTN_NODES_UNKNOWN 4
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
	motn_sch_block[], motn_sch_baked[], motn_sch_baked_bone[], motn_sch_nodes[], motn_sch_node[];
extern const struct af_sch motn_schema;

/* motn_bin.c: the whole blob. */
int motn_decode(const uint8_t *bin, size_t n, struct af_arena *a, struct motn_file *f,
		struct af_diag *d);
int motn_encode(const struct motn_file *f, struct af_buf *out, struct af_diag *d);
int motn_bid(const char *name, const uint8_t *head, size_t n);
int motn_fits(const uint8_t *head, size_t n, uint64_t len);

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
/* The animation a block (its YAML map) is in a preview: its first name, else its id. */
void motn_anim_name(const struct af_ynode *bl, char *an, size_t size);
/* A valued key of a curve: its frame, value and slopes (per second; type 1: flat). */
struct motn_hkey {
	double f, v, in, out;
};
/* The curve of n valued keys at frame f: cubic Hermite between keys, held past its ends
 * (at two keys on one frame the later holds from there on), 0 with none. at: NULL, or a
 * key index to search from, left at f's segment (calls at rising frames: linear). */
double motn_hermite(const struct motn_hkey *k, size_t n, size_t *at, double f);
/* motn_import.c: the descriptor's scene_import hook (codec.h) */
struct af_scene_edit;
struct af_io;
int motn_scene_import(const struct af_ynode *root, struct af_scene_edit *ed, size_t ned, const struct af_io *io,
		      struct af_buf *out, struct af_diag *d);

#endif
