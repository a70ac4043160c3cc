/* The Sims 3 skeleton (_RIG, resource type 0x8EAF13DE; spec ../shared/formats/sims3-rig.md):
 * the model shared by the stages of the sims3-rig codec. Private to src/codec/rig/. */
#ifndef ANIMFS_RIG_H
#define ANIMFS_RIG_H

#include <stddef.h>
#include <stdint.h>
#include "animfs/arena.h"
#include "animfs/buf.h"
#include "animfs/diag.h"

#include "animfs/schema.h"

#define RIG_TYPE 0x8EAF13DEu
#define RIG_FLAGS_USUAL 0x23u
#define RIG_ONE_BITS 0x3F800000u /* 1.0f */
#define RIG_INFO_NODES 11
#define RIG_BONE_MIN 60  /* 10 floats, name length, opposite, parent, hash, flags */
#define RIG_CHAIN_MIN 64 /* count, 11 info nodes, pole, slot info, slot offset, root */
#define RIG_NAME_MAX 0x7FFFFFFF

/* What the bytes are (spec 1, 2). Only a clear rig is shown as editable data. */
enum rig_kind { RIG_CLEAR, RIG_GRANNY_WRAPPED, RIG_GRANNY_RAW, RIG_OPAQUE };

struct rig_bone {
	uint32_t pos[3], rot[4], scale[3]; /* f32 bits, kept exactly */
	const char *name;
	uint32_t name_len;
	int32_t opposite, parent;
	uint32_t hash, flags;
	uint64_t at; /* where it starts in the file (decoded bones), for messages */
};

struct rig_chain {
	uint32_t n;
	int32_t *bones;
	int32_t info[RIG_INFO_NODES];
	int32_t pole, slot_info, slot_offset, root;
};

struct rig_file {
	enum rig_kind kind;
	uint32_t major, minor;
	uint32_t nbones;
	struct rig_bone *bones;
	const char *skel;
	uint32_t skel_len;
	uint32_t nchains; /* major >= 4 only: the IK list */
	struct rig_chain *chains;
	size_t size;      /* of a rig that is not clear: its byte count */
	const char *why;  /* of a rig that is not clear: why it is carried as bytes, */
	uint64_t at;      /* and the byte offset of the reason; of a clear rig: where
			   * the skeleton name is */
};

/* rig_bin.c: bytes <-> model. */
/* The kind of the bytes from the first n (>= 8 when known) of them (spec 2, rule 2). */
enum rig_kind rig_kind_of(const uint8_t *p, size_t n);
/* Decode: a clear rig parses to its exact end (0), anything else is carried: 0 with
 * f->kind not RIG_CLEAR and f->why saying why. AF_ENOMEM only. */
int rig_decode(const uint8_t *p, size_t n, struct af_arena *a, struct rig_file *f,
	       struct af_diag *d);
int rig_encode(const struct rig_file *f, struct af_buf *out, struct af_diag *d);
/* The checks of spec 6 on a model (errors: duplicate hashes, parent cycles, major-3 IK
 * chains; warnings to d). The decoder runs them too: a file that fails them is shown
 * read-only, since its YAML could not be saved back. *bad: the bone at fault, or -1. */
int rig_check(const struct rig_file *f, long *bad, struct af_diag *d);
/* Whether the bone names are distinct (then references are shown by name). */
int rig_names_unique(const struct rig_file *f);
/* qsort order of bone pointers (const struct rig_bone **) by name: length, then bytes. */
int rig_by_name(const void *a, const void *b);

/* rig_emit.c: model -> YAML (the document after the caller's modeline). */
int rig_emit(const struct rig_file *f, struct af_buf *out);

/* rig_parse.c: YAML -> model (every error at its line:col). */
struct af_ynode;
int rig_parse(const struct af_ynode *root, struct af_arena *a, struct rig_file *f,
	      struct af_diag *d);

/* rig_schema.c: the key tables the parser checks against, and the JSON Schema. */
extern const struct af_sch_prop rig_sch_document[], rig_sch_bone[], rig_sch_chain[];
extern const struct af_sch rig_schema;
extern const char *const rig_kind_names[4];

int rig_bid(const char *name, const uint8_t *head, size_t n);
/* rig_scene.c: the descriptor's scene hook (codec.h) */
struct af_scene;
int rig_scene(const struct af_ynode *root, struct af_scene *sc, struct af_diag *d);

#endif
