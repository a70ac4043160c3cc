/* Diesel `.animation` codec, private interface shared by diesel*.c.
 * The model below is the format's own concepts (objects, tracks, keys, events)
 * plus the layout "style" that lets an edited file be rebuilt the way it was written. */
#ifndef ANIMFS_DIESEL_H
#define ANIMFS_DIESEL_H

#include <stddef.h>
#include <stdint.h>

#include "animfs/arena.h"
#include "animfs/buf.h"
#include "animfs/diag.h"
#include "animfs/schema.h"

#define DSL_MAGIC 0x0883CC85u           /* bytes 85 CC 83 08 */
#define DSL_MAX_BLOB (256u << 20)       /* refuse trailers beyond 256 MiB */
#define DSL_MAX_RATIO 1032u             /* deflate never expands more than ~1032:1 */

enum diesel_type {
	DSL_POS_U16,
	DSL_POS_F32,
	DSL_POS_F32_FLAG,
	DSL_ROT_F32,
	DSL_ROT_PACKED,
	DSL_ROT_F32_FLAG,
	DSL_NTYPES
};

struct diesel_type_info {
	const char *name;
	uint32_t hash;
	int is_rot;
	unsigned stride; /* key bytes, time included */
	unsigned nval;   /* values after the time in a YAML key, flag/extra excluded */
	int has_flag;
	const char *doc;   /* what a key holds (docs/diesel-animation.md), for the schema */
};
extern const struct diesel_type_info diesel_types[DSL_NTYPES];
int diesel_type_by_hash(uint32_t hash);                 /* -1 when unknown */
int diesel_type_by_name(const char *s, size_t n);       /* -1 when unknown */

/* One key; which members are used depends on the track type. */
struct diesel_key {
	float t;
	float f[4];      /* float types: x y z (w) */
	uint32_t u;      /* flag (_flag types) or packed code (rot_packed) */
	uint16_t c[4];   /* pos_u16: x y z codes and the `extra` word */
};

struct diesel_track {
	int type;
	uint64_t reserved; /* track header word 0, kept verbatim */
	uint32_t nkeys;
	struct diesel_key *keys;
	uint64_t keys_off; /* decoded: where the keys start in the blob (for messages) */
};

struct diesel_object {
	const char *name;
	size_t name_len;
	struct diesel_track pos, rot;
};

struct diesel_event {
	float frac; /* fraction of the clip length, not seconds */
	const char *name;
	size_t name_len;
	uint64_t off; /* decoded: the entry's offset in the blob (for messages) */
};

enum { DSL_RAW = 0, DSL_ZLIB = 1 };

struct diesel_anim {
	/* decoded: the blob read (names point into it), for byte offsets in messages */
	const uint8_t *blob;
	/* binary layout and container */
	int width;               /* 32 or 64 */
	int container;           /* DSL_RAW or DSL_ZLIB */
	int level;               /* zlib level that reproduces the stream, -1: none does */
	int zhdr_custom;         /* zhdr differs from what compress2(level) writes */
	uint8_t zhdr[2];
	const uint8_t *zextra;   /* bytes between the stream and the trailer */
	size_t nzextra;
	const uint8_t *zstream;  /* original stream when level == -1 */
	size_t nzstream;
	/* header fields kept as found */
	uint8_t magic[4];
	uint32_t version;
	uint64_t location;
	int size_actual;         /* size field = blob length; else size_value verbatim */
	uint64_t size_value;
	uint64_t hpad0;          /* 64-bit header padding words */
	uint32_t hpad1;
	/* layout style (spec 6.3) */
	int unk_same;            /* unknown offset = events offset; else unk_value */
	uint64_t unk_value;
	int evoff_here;          /* no events: events offset = current position; else evoff_value */
	uint64_t evoff_value;
	unsigned name_pad, event_pad, track_align;
	unsigned end_pad;        /* zero-pad the blob's end to this (1: none; X1 converter: 8) */
	int dedupe_events;
	int dedupe_known;        /* decoded: a repeated name showed shared or copied strings */
	/* parsed: the layout the document was decoded from (0: not said) and the
	 * writer style to convert with when `layout:` was changed (DSL_STYLE_*) */
	int decoded_width;
	int convert_style;
	/* content */
	float length;
	uint32_t nobj, nev;
	struct diesel_object *obj;
	struct diesel_event *ev;
};

void diesel_anim_defaults(struct diesel_anim *m, int width);

/* diesel_schema.c: the keys of each map of a document (the parser refuses others) and
 * the document's schema. */
extern const struct af_sch_prop diesel_sch_document[], diesel_sch_binary[], diesel_sch_event[],
	diesel_sch_track[], diesel_sch_object[];
extern const struct af_sch diesel_schema;

/* diesel_read's return when the file decodes but its layout does not rebuild byte
 * for byte: m is complete, d says why (AF_EUNSUP, byte offset). */
#define DSL_READONLY 1

/* diesel_convert.c: the width change rules of diesel-x64.md section 6. */
enum {
	DSL_STYLE_DEFAULT = 0, /* converter for 64-bit, stock for 32-bit */
	DSL_STYLE_CONVERTER,   /* perry519/pd2-x64-converter v1.0.2, byte for byte */
	DSL_STYLE_NATIVE,      /* the game's own 64-bit rules (X3) */
	DSL_STYLE_STOCK,       /* the stock 32-bit writer (diesel.md 6.1) */
};
int diesel_style_by_name(const char *s, size_t n); /* -1 when unknown */
/* Replace every width-dependent style key of m for a file in `width` bits with
 * `style` (content untouched). 0, or AF_EUNSUP with the reason in d and a short
 * category in *why (for a summary) when the content cannot take that layout. */
int diesel_convert(struct diesel_anim *m, int width, int style, const char **why, struct af_diag *d);

/* diesel_bin.c: bytes <-> model */
/* The bytes the data of bin take once inflated (its size trailer's word: the file's own
 * size when it is not zlib; 0 when it is too short to say or the trailer is one no
 * stream of that size can keep): what its model grows with. */
size_t diesel_blob_size(const uint8_t *bin, size_t n);
/* 0, DSL_READONLY (m complete, d says why) or AF_E* */
int diesel_read(const uint8_t *bin, size_t n, struct af_arena *a, struct diesel_anim *m,
	     struct af_buf *blob, struct af_diag *d);
int diesel_build_blob(const struct diesel_anim *m, struct af_buf *out, struct af_diag *d);
struct af_io;
/* io may be NULL; it lets the zlib writer reach the original file (see diesel_zlib_write). */
int diesel_write(const struct diesel_anim *m, const struct af_io *io, struct af_buf *out,
	      struct af_diag *d);

/* diesel_zlib.c: the container. diesel_unzip inflates and records level, header
 * bytes and extra bytes in m (a stock 78 9C stream is taken as level 6 unproven);
 * diesel_zlib_write appends stream, extra bytes, trailer. When io reaches the original
 * file (io->name) and it holds the same content in another stream, that stream's
 * level, or the stream itself, is used: the proof of spec 3 happens at encode. */
int diesel_unzip(const uint8_t *bin, size_t n, struct diesel_anim *m, struct af_buf *blob,
	      struct af_diag *d);
int diesel_zlib_write(const struct diesel_anim *m, const struct af_buf *blob, const struct af_io *io,
		   struct af_buf *out, struct af_diag *d);

/* diesel_emit.c / diesel_parse.c: model <-> YAML */
/* Refuse a decoded file whose YAML could not be saved back (section 7 hard errors). */
int diesel_check_decoded(const struct diesel_anim *m, struct af_diag *d);
/* ro: NULL, or why the file is shown read-only (a `read_only:` key stops a save);
 * euler: each rotation key also as Euler angles in degrees, in a comment (rot.h), with
 * `euler: xyz` (the DSL_OPT_EULER rendering option). */
#define DSL_OPT_EULER "euler"
int diesel_emit_yaml(const struct diesel_anim *m, const struct af_diag *ro, int euler,
		     struct af_buf *out);
struct af_ynode;
/* The model's strings point into the document's nodes: keep it until written. */
int diesel_parse_yaml(const struct af_ynode *root, struct af_arena *a, struct diesel_anim *m,
		   struct af_diag *d);
/* diesel_curves.c: the descriptor's curves hook (codec.h) */
struct af_curves;
int diesel_curves(const struct af_ynode *root, struct af_curves *cv);
/* diesel_scene.c: the descriptor's scene hook (codec.h) */
struct af_scene;
int diesel_scene(const struct af_ynode *root, struct af_scene *sc, struct af_diag *d);
/* diesel_import.c: the descriptor's scene_import hook (codec.h), and the stored step of a
 * track type's values (cm or quaternion components; 0: floats) */
struct af_scene_edit;
struct af_io;
int diesel_scene_import(const struct af_ynode *root, struct af_scene_edit *ed, size_t ned,
			const struct af_io *io, struct af_buf *out, struct af_diag *d);
double diesel_step(int type);

/* diesel_quant.c: the quantisation rules of spec 5.2, 5.5 and 6.5 */
double diesel_u16_to_cm(uint16_t code);
/* Round to nearest; -1 when the value does not fit a code 0..65535. */
int diesel_cm_to_u16(double cm, uint16_t *code);
void diesel_unpack_quat(uint32_t code, double q[4]);
/* Pack as typed with the windowed minimum-error k-rule (finite input). */
uint32_t diesel_pack_quat(const double q[4]);
uint32_t diesel_pack_quat_all(const double q[4]); /* every candidate compared (tests) */
/* Fewest decimals (0..2, more if ever needed) that re-encode to the code. */
size_t diesel_fmt_cm(char *out, uint16_t code);
size_t diesel_fmt_cm_slow(char *out, uint16_t code); /* the search diesel_fmt_cm tabulates */
/* Four components with the fewest common decimals d >= 3 that re-pack to the
 * code; writes "x, y, z, w"; returns 0 when no d <= 9 works. */
size_t diesel_fmt_quat(char *out, uint32_t code);

/* A small open-addressing set of strings (names), used to find duplicates
 * and de-duplicate event names without quadratic scans. */
struct diesel_strset {
	size_t cap;
	const char **s;
	size_t *len;
	uint64_t *val;
};
int diesel_strset_init(struct diesel_strset *set, struct af_arena *a, size_t count);
/* Returns the slot index; *found tells whether it already existed. */
size_t diesel_strset_put(struct diesel_strset *set, const char *s, size_t n, int *found);

#endif
