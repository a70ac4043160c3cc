/* Private model of the Sims 3 Jazz codec (RCOL resource 0x02D5DF13): plain structs in an
 * arena, shared by the binary reader/writer (jazz_bin.c), the YAML emitter (jazz_emit.c)
 * and the YAML parser (jazz_parse.c). Spec: formats/sims3-jazz.md. */
#ifndef ANIMFS_JAZZ_H
#define ANIMFS_JAZZ_H

#include <stddef.h>
#include <stdint.h>

#include "animfs/arena.h"
#include "animfs/buf.h"
#include "animfs/diag.h"
#include "animfs/schema.h"
#include "../sims3/sims3_names.h"

#define JZ_TYPE_JAZZ 0x02D5DF13u
#define JZ_TYPE_CLIP 0x6B20C4F3u
#define JZ_TYPE_TKMK 0x033260E3u
#define JZ_TYPE_PROP 0x139F7591u
#define JZ_DEADBEEF 0xDEADBEEFu
#define JZ_DGN 0x4E47442Fu    /* "/DGN" read as a little-endian u32 */
#define JZ_STR_MAX 4096       /* animfs policy limit for Play strings, in UTF-16 units */
#define JZ_NULL (-1)          /* a null reference */

enum jazz_kind {
	JZ_SM, JZ_AD, JZ_PD, JZ_ST, JZ_DG,
	JZ_PLAY, JZ_STOP, JZ_RAND, JZ_SOPN, JZ_DG00, JZ_SNSN, JZ_PROP, JZ_ACOP,
	JZ_OPAQUE, /* unknown type or tag/type mismatch: carried as bytes */
	JZ_NKINDS
};

struct jazz_kind_info {
	char tag[5];
	uint32_t type, version;
	const char *yname;  /* readable kind in YAML ("play") */
	const char *prefix; /* node label prefix ("play" -> play1) */
};
extern const struct jazz_kind_info jazz_kinds[JZ_NKINDS];
static inline int jazz_is_node(int k) { return k >= JZ_PLAY && k <= JZ_ACOP; }
/* Kind for a chunk key type (JZ_OPAQUE when unknown). */
int jazz_kind_of_type(uint32_t type);

struct jazz_key {
	uint64_t instance;
	uint32_t type, group;
};

struct jazz_refs {
	uint32_t n;
	int32_t *v; /* chunk indices */
};

/* Rand outcome {weight bits}, SoPn case {value hash}, DG00 case {state ref}. */
struct jazz_case {
	uint32_t value;
	int32_t state;
	struct jazz_refs next;
};

struct jazz_str {
	uint32_t n; /* UTF-16 units */
	uint16_t *u;
};

/* Scalar u32 slots (u[]) per kind; floats are stored as their bits:
 *  S_SM: 0 name, 1 flags, 2 default_priority, 3 awareness, 4..7 unknown2..5
 *  S_AD: 0 name, 1 unknown1          S_PD: 0 name, 1 default_value
 *  S_St: 0 name, 1 flags, 2 awareness S_DG: 0 unknown1
 *  Play: 0..2 unknown1..3; Play and Stop share the animation tail:
 *        3 flags, 4 priority, 5 f unknown9|unknown1, 6 f blend_in, 7 f blend_out,
 *        8 f unknown11|unknown4, 9 f speed, 10 timing_priority, 11..16 unknown13..18|6..11
 *  Rand: 0 flags   Prop: 0..3 unknown2..5   AcOp: 0 operation, 1 operand, 2..4 unknown1..3
 * Single refs (ref[]): S_St 0 decision_graph; Play/Stop/Prop/AcOp 0 actor; Prop 1 parameter;
 *  SoPn 0 parameter; SNSN 0 state.
 * Lists (list[]): S_SM 0 actors 1 parameters 2 states; S_St 0 transitions;
 *  S_DG 0 nodes 1 entry_points; Play/Stop/Prop/AcOp 0 next.
 * Keys (key[]): Play 0 clip 1 track_mask 2 additive_clip; Prop 0 prop. */
#define JZ_NU 17
struct jazz_chunk {
	int kind;
	struct jazz_key ckey; /* the chunk's RCOL key */
	uint32_t version;
	uint32_t u[JZ_NU];
	int32_t ref[2];
	struct jazz_refs list[3];
	struct jazz_key key[3];
	uint32_t ncases;
	struct jazz_case *cases;
	uint32_t nanims;   /* S_SM animations: 3 u32 each */
	uint32_t *anims;
	uint32_t nslots;   /* Play actor slots: 4 u32 each */
	uint32_t *slots;
	uint32_t nsuffixes; /* Play actor suffixes: 2 u32 each */
	uint32_t *suffixes;
	struct jazz_str str[2]; /* Play animation, additive_animation */
	const uint8_t *data; /* opaque: the whole body */
	uint32_t len;
	/* YAML side (parser only) */
	const char *label;
	const void *ynode;
};

struct jazz_model {
	struct af_arena *arena;
	uint32_t rcol_version, public_chunks, unused;
	uint32_t nchunks, nexternals;
	struct jazz_chunk *chunks;
	struct jazz_key *externals;
	/* jazz_parse: the names the document spelled out (hashed), in the arena */
	const char **names;
	size_t nnames;
};

/* jazz_bin.c: bytes <-> model. decode validates every count, offset, sentinel and
 * reference; errors carry the byte offset. */
int jazz_decode(const uint8_t *bin, size_t n, struct jazz_model *m, struct af_diag *d);
int jazz_encode(const struct jazz_model *m, struct af_buf *out, struct af_diag *d);
/* Cheap content check of section 2 on the first bytes (head may be short). */
int jazz_head_ok(const uint8_t *head, size_t n);

/* jazz_order.c: the canonical chunk order of spec 7.1, as model indices (order[0..n)).
 * def_order ranks chunks that the canonical rules do not place. */
int jazz_canonical_order(const struct jazz_model *m, const uint32_t *def_rank, uint32_t *order,
		       struct af_diag *d);

/* jazz_emit.c / jazz_parse.c */
int jazz_emit(const struct jazz_model *m, struct sims3_names *names, struct af_buf *out,
	    struct af_diag *d);
int jazz_parse(const struct af_ynode *root, struct af_arena *arena, struct jazz_model *m,
	     struct af_diag *d);

/* jazz_cross.c: warn for each Play node whose clip is no CLIP sibling (s3pe name) of io,
 * when io lists siblings and at least one is a CLIP. 0, or AF_ENOMEM (d set). */
struct af_io;
int jazz_check_clips(const struct af_io *io, const struct jazz_model *m, struct af_diag *d);

/* Flag and enum tables (jazz_enums.c). */
struct jazz_enum_item {
	uint32_t value;
	const char *name;
};
struct jazz_enum {
	const char *what;
	const struct jazz_enum_item *items;
	uint32_t mask; /* flags: bits of a multi-bit field (timing); 0 for plain flags/enums */
	int is_flags;
};
extern const struct jazz_enum jazz_sm_flags, jazz_st_flags, jazz_anim_flags, jazz_rand_flags,
	jazz_priority, jazz_awareness, jazz_acop_op;
/* Scalar fields of each kind, in YAML order (jazz_enums.c). omit: not printed when equal
 * to def (the "unknown" fields); every field takes def when absent from the YAML. */
enum jazz_ft { JZ_FT_U32, JZ_FT_F32, JZ_FT_H32, JZ_FT_ENUM, JZ_FT_FLAGS };
struct jazz_field {
	const char *name;
	uint8_t slot, ft, omit;
	uint32_t def;
	const struct jazz_enum *e;
};
extern const struct jazz_field *const jazz_fields[JZ_NKINDS];

/* jazz_schema.c: the keys of each kind besides its fields, the keys of every chunk map,
 * the top level's own keys, and the document's schema. */
extern const struct af_sch_prop *const jazz_kind_props[JZ_NKINDS];
extern const struct af_sch_prop jazz_chunk_props[], jazz_top_props[];
extern const struct af_sch jazz_schema;

const char *jazz_enum_name(const struct jazz_enum *e, uint32_t v);
int jazz_enum_lookup(const struct jazz_enum *e, const char *name, size_t n, uint32_t *v);

#endif
