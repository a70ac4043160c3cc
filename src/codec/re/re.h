/* Resident Evil 2/3 model files (.PLD .PLW .EMD): the in-memory model shared by the
 * re_*.c stages (container, EDD, EMR, verbatim info, YAML emit/parse). Private to
 * src/codec. The format is described in formats/re-pld.md (section numbers below). */
#ifndef AF_RE_H
#define AF_RE_H

#include <stddef.h>
#include <stdint.h>

#include "animfs/arena.h"
#include "animfs/buf.h"
#include "animfs/diag.h"
#include "animfs/schema.h"
#include "animfs/yamlio.h"

enum re_game { RE_GAME2 = 2, RE_GAME3 = 3 };
enum re_kind { RE_PLD, RE_PLW, RE_EMD };
enum re_role { RE_EDD, RE_EMR, RE_MD2, RE_MD1, RE_TIM, RE_BLOCK20, RE_UNKNOWN };

#define RE_SLOT_HEADER_ONLY 1 /* bank animates another file's skeleton (spec 5.7) */
#define RE_SLOT_SEVEN 2       /* the 7-bone lower-body bank with 32-byte records (5.8) */

struct re_slot {
	uint8_t role;  /* enum re_role */
	int8_t bank;   /* bank number for EDD/EMR slots, -1 otherwise */
	uint8_t flags; /* RE_SLOT_* on the EMR slot */
};

/* One per (game, kind); the section count alone fixes it (spec 2). */
struct re_layout {
	uint8_t game, kind, nsec, nbanks;
	const char *ext;               /* "PLD" */
	const struct re_slot *slots;   /* nsec entries */
	const char *const *bank_names; /* nbanks entries */
};

struct re_frame {
	uint32_t pose;  /* RE3: relative u8; RE2: absolute 12-bit */
	uint32_t flags; /* RE3: u8; RE2: 20 bits */
	uint8_t outside; /* names a pose past the pool in the file: carried, not checked */
	const struct af_ynode *node;
};

struct re_seq {
	uint32_t pose_start; /* RE3 only */
	size_t nframes;
	struct re_frame *frames;
	const struct af_ynode *node;
};

struct re_edd {
	size_t nseq;
	struct re_seq *seq;
};

struct re_pose {
	int16_t offset[3]; /* RE2 only */
	int16_t motion[3]; /* cumulative root motion, raw */
	int16_t y_offset;  /* RE3 only */
	uint16_t *codes;   /* 3 * nbones 12-bit angle codes, bone-major x y z */
	uint32_t stray;    /* the bits after the last angle, LSB first; 0 in normal files */
};

/* One 32-byte record of the 7-bone lower-body pool (spec 5.8; the layout and its
 * evidence are in docs/re-model.md): all 256 bits are these fields. */
struct re_rec7 {
	int16_t motion[3];  /* bytes 0-5: as the paired upper-body pose's */
	int16_t y8;         /* 6-7: 8 x the root height */
	uint16_t v[8];      /* 8-19: 12-bit, LSB first: unknown, x y z, unknown, x y z */
	int16_t feet[2][3]; /* 20-31: right foot, left foot */
};

struct re_emr {
	int empty;                /* the 4-zero-byte slot (spec 3.3) */
	int has_skeleton;         /* keyframe_offset > 8 */
	uint16_t armature_offset; /* carried for header-only banks (stale) */
	uint16_t nbones, keyframe_size;
	int16_t (*relpos)[3];
	int *parent;              /* -1 for bone 0 */
	int opaque_pool;          /* 7-bone bank from 'keyframes: opaque': pool as bytes */
	struct re_rec7 *recs;     /* 7-bone bank: its nposes records */
	const uint8_t *pool;
	size_t pool_len;
	size_t nposes;            /* for the 7-bone bank: pool bytes / 32 */
	struct re_pose *poses;
	const uint8_t *tail;      /* bytes after the last whole keyframe or record */
	size_t tail_len;          /* shorter than one; 0 in every sample */
};

struct re_bank {
	unsigned edd_sec, emr_sec;
	const struct af_ynode *node; /* when parsed from YAML */
	const char *verbatim; /* non-NULL: both sections carried as bytes, this is why */
	struct re_edd edd;
	struct re_emr emr;
};

struct re_sec {
	const uint8_t *p; /* raw bytes (decoded file, or carried from YAML) */
	size_t len;
	int64_t file_off; /* -1 when not from a binary */
};

struct re_file {
	const struct re_layout *lay;
	struct re_sec *sec; /* lay->nsec */
	struct re_bank *bank; /* lay->nbanks */
};

#define RE_SEVEN_RECORD 32

/* re_bin.c */
const struct re_layout *re_layout_find(unsigned nsec, const char *name);
const struct re_layout *re_layout_by(unsigned game, unsigned kind);
const char *re_kind_name(unsigned kind);
/* Fill k->edd_sec and k->emr_sec from the layout. */
void re_bank_slots(const struct re_layout *L, unsigned bank, struct re_bank *k);
const char *re_role_name(unsigned role);
/* re_curves.c: the descriptor's curves hook (codec.h) */
struct af_curves;
int re_curves(const struct af_ynode *root, struct af_curves *cv);
/* re_scene.c: the descriptor's scene hook (codec.h); re_mesh.c: the meshes and texture of
 * the carried MD1/MD2 and TIM sections, object i drawn by the node first + i. */
struct af_scene;
int re_scene(const struct af_ynode *root, struct af_scene *sc, struct af_diag *d);
int re_scene_meshes(const struct af_ynode *root, struct af_scene *sc, size_t first, size_t nbones,
		    struct af_diag *d);
/* re_import.c: the descriptor's scene_import hook (codec.h): a glTF brought back */
struct af_scene_edit;
struct af_io;
int re_scene_import(const struct af_ynode *root, struct af_scene_edit *ed, size_t ned, const struct af_io *io,
		    struct af_buf *out, struct af_diag *d);
/* re.c: the file of f (its banks encoded, the rest carried) appended to out. */
int re_write(const struct re_file *f, struct af_buf *out, struct af_diag *d);
int re_bid(const char *name, const uint8_t *head, size_t n);
int re_dir_read(const uint8_t *bin, size_t n, const char *name, struct re_file *f,
		   struct af_arena *a, struct af_diag *d);
int re_dir_write(const struct re_sec *sec, unsigned nsec, struct af_buf *out,
		    struct af_diag *d);

/* re_edd.c: spec 4. base = file offset of the section, for messages. */
int re_edd_decode(const uint8_t *p, size_t len, unsigned game, uint64_t base,
		     struct re_edd *e, struct af_arena *a, struct af_diag *d);
int re_edd_encode(const struct re_edd *e, unsigned game, const char *path,
		     struct af_buf *out, struct af_diag *d);

/* re_emr.c: spec 5. */
unsigned re_kf_header(unsigned game);
unsigned re_kf_size(unsigned game, unsigned nbones);
/* How many bits of a keyframe follow its last angle (0..28 with the sizes of 5.3). */
unsigned re_stray_width(unsigned game, unsigned nbones, unsigned keyframe_size);
uint16_t re_angle_get(const uint8_t *area, unsigned k);
void re_angle_put(uint8_t *area, unsigned k, uint16_t code);
size_t re_deg_fmt(char *out, uint16_t code);
size_t re_deg_fmt_slow(char *out, uint16_t code); /* the reference (tests) */
int re_deg_quantize(double deg, uint16_t *code);
int re_emr_decode(const uint8_t *p, size_t len, unsigned game, int seven, uint64_t base,
		     struct re_emr *m, struct af_arena *a, struct af_diag *d);
int re_emr_encode(const struct re_emr *m, unsigned game, struct af_buf *out,
		     struct af_diag *d);
int re_tree_check(const int *parent, unsigned n, unsigned *bad, const char **why);
/* A 7-bone record from and to its 32 bytes. */
void re_rec7_get(const uint8_t *p, struct re_rec7 *r);
void re_rec7_put(const struct re_rec7 *r, uint8_t *p);

/* re_verbatim.c: read-only information about carried sections (comment lines). */
void re_info(struct af_buf *b, unsigned role, const uint8_t *p, size_t len, int indent);

/* re_cross.c: checks against sibling files and the mesh (spec 8, items 13-15). */
struct af_io;
int re_cross_check(const struct re_file *f, const struct af_io *io, struct af_diag *d);

/* re_names.c: bone names of the skeletons the spec names (NULL: none known, the
 * emitter writes bone_<i>), frame flag names (spellings of values, per game). */
const char *const *re_bone_names(unsigned game, const struct re_emr *m);
struct re_flag_name {
	uint32_t value;
	unsigned games; /* bit 1 << enum re_game */
	const char *name, *doc;
};
extern const struct re_flag_name re_flag_names[]; /* ends with a NULL name */
const char *re_flag_name(unsigned game, uint32_t value);
const struct re_flag_name *re_flag_by_name(const char *name);

/* re_schema.c: the keys of each map of the document (the parser refuses others). */
extern const struct af_sch_prop re_top_props[], re_bank_props[], re_bone_props[],
	re_seq_props[], re_key_props[], re_rec7_props[], re_data_props[];
extern const struct af_sch re_schema;

/* re_emit.c / re_parse.c */
int re_emit(const struct re_file *f, struct af_buf *out, struct af_diag *d);
int re_parse(const struct af_ynode *root, struct re_file *f, struct af_arena *a,
		struct af_diag *d);

#endif
