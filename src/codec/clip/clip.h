/* The Sims 3 animation clip (CLIP, resource 0x6B20C4F3): the in-memory model shared by
 * the clip_*.c stages (bytes <-> model, model -> YAML, YAML -> model, schema). Private
 * to src/codec/clip. Section numbers are those of formats/sims3-clip.md. */
#ifndef AF_CLIP_H
#define AF_CLIP_H

#include <stddef.h>
#include <stdint.h>

#include "animfs/arena.h"
#include "animfs/buf.h"
#include "animfs/diag.h"
#include "animfs/schema.h"
#include "animfs/yamlio.h"

#define CLIP_TYPE_ID 0x6B20C4F3u
#define CLIP_HEAD 56         /* the CLIP header (4) */
#define CLIP_BODY_HEAD 48    /* the _S3Clip_ body header (5.1) */
#define CLIP_CHAN_HEAD 20    /* one channel header (5.2) */
#define CLIP_IK_STR 512      /* an IK namespace or target string (6) */
#define CLIP_IK_TARGET (4 + 2 * CLIP_IK_STR)
#define CLIP_EV_HEAD 28      /* the common event header (8) */
#define CLIP_SOUND 128       /* a Sound event's sound name field */
#define CLIP_EV_TAG 0xC1E4u
#define CLIP_MIN_SIZE (CLIP_HEAD + CLIP_BODY_HEAD + 16) /* detection rule 1 */

/* How a channel type's frame values are stored (5.3). */
enum clip_layout {
	CLIP_RAW,     /* unknown layout: frame bytes carried verbatim, not editable */
	CLIP_PALETTE, /* n x u16 palette index */
	CLIP_U16,     /* one u16 code (F1_Normalized) */
	CLIP_U32X3,   /* 3 x 10 bits in a u32 (F3_HighPrecisionNormalized) */
	CLIP_U16X4,   /* 4 x 12 bits in u16s (F4_SuperHighPrecision_Quaternion) */
	CLIP_CONST,   /* no value bytes (zero, one, identity) */
};

struct clip_type {
	const char *name;
	uint8_t layout; /* enum clip_layout */
	uint8_t ncomp;  /* components (sign bits a frame may set) */
	uint8_t bytes;  /* value bytes after the 4-byte frame header */
	uint32_t max;   /* the code that means 1.0 (0 for palette, const, raw) */
};

struct clip_frame {
	uint16_t tick, flags; /* flags: bits 0-3 signs, 4-15 carried */
	uint16_t code[4];     /* codes or palette indices */
};

struct clip_chan {
	uint32_t target;        /* FNV-1 32 of the lower-cased bone name */
	uint32_t offset, scale; /* f32 bits */
	uint8_t type, sub;      /* channel_type, sub_target */
	uint32_t nframes;       /* frame_count */
	struct clip_frame *f;   /* known layouts */
	const uint8_t *raw;     /* CLIP_RAW: every frame byte of the channel */
	size_t raw_len;
};

struct clip_ik_target {
	uint32_t index;
	uint8_t ns[CLIP_IK_STR], tg[CLIP_IK_STR]; /* raw fields (zstr + '#' fill) */
};

struct clip_ik_chain {
	uint32_t n;
	struct clip_ik_target *t;
};

struct clip_event {
	uint16_t type, tag;
	uint32_t id, time, unknown1, unknown2, unknown3; /* time, unknown1/2: f32 bits */
	const char *name;
	size_t name_len;
	const uint8_t *pay; /* the payload of the kind (clip_ev_kind), verbatim */
	size_t pay_len;
};

struct clip {
	uint32_t unknown1, unknown2; /* header +28, +32 */
	uint8_t reserved[16];        /* header +40 */
	uint32_t version, flags, tick_length; /* body; tick_length f32 bits */
	uint16_t num_ticks, padding;
	const char *name, *source;
	size_t name_len, source_len;
	uint32_t npal;
	uint32_t *pal; /* f32 bits */
	uint32_t nchan;
	struct clip_chan *ch;
	int has_ik; /* 0: no table (ik_offset 0); 1: a table, maybe of 0 chains */
	uint32_t nchains;
	struct clip_ik_chain *chains;
	const char *actor;
	size_t actor_len;
	uint32_t ev_version;
	uint32_t nev;
	struct clip_event *ev;
	uint32_t end[4]; /* end block, f32 bits */
};

/* ---- event kinds: one payload field table a kind (8) ---- */
enum clip_fk { CLIP_FK_H32, CLIP_FK_U32, CLIP_FK_F32, CLIP_FK_U64, CLIP_FK_MAT, CLIP_FK_SOUND };
struct clip_field {
	const char *key;
	uint8_t kind; /* enum clip_fk */
};
struct clip_ev_kind {
	uint16_t type;
	const char *name;
	struct clip_field f[6]; /* ends with a NULL key */
};
const struct clip_ev_kind *clip_ev_kind(unsigned type);
const struct clip_ev_kind *clip_ev_kind_by_name(const char *s, size_t n);
extern const struct clip_ev_kind clip_ev_kinds[];
size_t clip_field_size(unsigned kind);
size_t clip_ev_pay_size(const struct clip_ev_kind *k);

/* ---- clip_bin.c: bytes <-> model (sections 2-11) ---- */
const struct clip_type *clip_type(unsigned id); /* NULL for ids without a table row */
int clip_type_by_name(const char *s, size_t n);   /* id, or -1 */
const char *clip_sub_name(unsigned id);           /* NULL when unnamed */
int clip_sub_by_name(const char *s, size_t n);    /* id, or -1 */
int clip_read(const uint8_t *p, size_t n, struct clip *c, struct af_arena *a,
	      struct af_diag *d);
int clip_write(const struct clip *c, struct af_buf *out, struct af_diag *d);
/* Component j of frame f decoded (5.6), in double; the value shown is its f32. */
double clip_value(const struct clip *c, const struct clip_chan *ch, const struct clip_frame *f,
		  unsigned j);
/* Rule 12.2 for a value v: code and sign; 0, or -1 when the code exceeds max. */
int clip_quantize(const struct clip_chan *ch, const struct clip_type *t, float v,
		  uint16_t *code, int *neg);
/* A clear rig's bone names (sims3-rig.md 3), for each cb(ctx, name, len); stops at the
 * first fault (names are a help, never a reason to refuse). */
void clip_rig_names(const uint8_t *p, size_t n,
		    int (*cb)(void *ctx, const char *name, size_t len), void *ctx);

/* clip.c: is a sibling's base name a rig export (s3pe "%%+_RIG", "S3_8EAF13DE_")? */
int clip_is_rig_name(const char *s);
/* clip_cross.c: warn once when channels target no bone of the rig(s) beside the clip
 * (nothing when io reads no clear rig). 0, or AF_ENOMEM (d set). */
struct af_io;
int clip_check_rig(const struct af_io *io, const struct clip *c, struct af_diag *d);

/* ---- clip_emit.c / clip_parse.c ---- */
struct sims3_names;
int clip_emit(const struct clip *c, struct sims3_names *nm, struct af_buf *out);
/* names: the names the document spells out (for the user dictionary), in the arena. */
int clip_parse(const struct af_ynode *root, struct clip *c, struct af_arena *a,
	       const char ***names, size_t *nnames, struct af_diag *d);

/* ---- clip_schema.c: the key tables the parser checks maps against ---- */
extern const struct af_sch_prop clip_sch_document[], clip_sch_unknown[], clip_sch_channel[],
	clip_sch_frame[], clip_sch_chain[], clip_sch_target[], clip_sch_event[];
extern const struct af_sch clip_schema;

/* clip_curves.c: the descriptor's curves hook (codec.h) */
struct af_ynode;
struct af_curves;
int clip_curves(const struct af_ynode *root, struct af_curves *cv);
/* clip_scene.c: the descriptor's scene hook (codec.h) */
struct af_scene;
int clip_scene(const struct af_ynode *root, struct af_scene *sc, struct af_diag *d);
/* and its scene_base hook: the rig beside the clip that its channels move (the rule in
 * clip_scene.c and docs/gltf.md) */
struct af_io;
struct af_buf;
/* A channel's target (a bone's name, or "0x" and 8 hex digits) as its hash: 0, or -1. */
int clip_target_hash(const char *t, uint32_t *h);
/* clip_import.c: the descriptor's scene_import hook (codec.h): a glTF brought back */
struct af_scene_edit;
int clip_scene_import(const struct af_ynode *root, struct af_scene_edit *ed, size_t ned,
		      const struct af_io *io, struct af_buf *out, struct af_diag *d);
int clip_scene_base(const struct af_ynode *root, const struct af_io *io, char *name, size_t size,
		    struct af_buf *why);
/* The rig a clip moves, by that rule (clip_scene.c), for the preview's skeleton and the
 * view's names: want holds the hashes of the targets of the channels that move a node
 * (distinct: clip_fit_want), and of the rigs scored (clip_fit_rig: a rig's bytes, or
 * clip_fit_pick: every clear rig io lists, best from 0), the one holding the most of
 * them is in name, best of them (the first of two as good); clip_fit_found: at least
 * half. init: room for n targets (0, or AF_ENOMEM: nothing to free). */
struct clip_fit {
	uint32_t *want;
	size_t nwant, best;
	unsigned char *seen; /* per target: a bone of the rig being scored */
	char *name;
	size_t size;
};
int clip_fit_init(struct clip_fit *f, size_t n, char *name, size_t size);
void clip_fit_want(struct clip_fit *f, uint32_t h);
void clip_fit_rig(struct clip_fit *f, const char *name, const uint8_t *rig, size_t n);
int clip_fit_pick(struct clip_fit *f, const struct af_io *io);
int clip_fit_found(const struct clip_fit *f);
void clip_fit_free(struct clip_fit *f);
/* Whether channel ch moves a node (Translation, Orientation, Scale, with frames shown). */
int clip_chan_moves(const struct clip_chan *ch);

#endif
