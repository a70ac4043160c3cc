/* Names and hashes of The Sims 3 (spec 5): FNV-1 of lower-cased ASCII names, the CLIP
 * instance rule, and the _KEY name map (resource 0x0166038C) that un-hashes them.
 * Shared by the Sims 3 codecs (src/codec/sims3/ holds no codec: only what they share). */
#ifndef ANIMFS_SIMS3_NAMES_H
#define ANIMFS_SIMS3_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "animfs/arena.h"
#include "animfs/diag.h"

#define S3_TYPE_KEYMAP 0x0166038Cu

/* Which hash a field uses (spec 5.2). */
enum sims3_hash_rule { S3_H32, S3_H64, S3_HCLIP };

/* Hash a name with a rule; -1 if the name is empty of meaning for hashing
 * (non-ASCII or NUL bytes: spec 5.1 refuses them). */
int sims3_hash_name(const char *s, size_t n, int rule, uint64_t *out);
uint64_t sims3_clip_hash(const char *s, size_t n); /* s must be ASCII */

struct sims3_name_ent {
	uint64_t key;
	const char *text; /* NUL-terminated copy */
	uint32_t len;
	uint32_t order;   /* position in load order: first wins on collisions */
	uint8_t derived;  /* the text again, under the hash of another rule than its key's */
	uint8_t expanded; /* its derived entries are in the table */
};

struct sims3_names {
	struct af_arena *arena;
	struct sims3_name_ent *e;
	size_t n, cap;
	int sorted;
};

void sims3_names_init(struct sims3_names *nm, struct af_arena *a);
void sims3_names_free(struct sims3_names *nm); /* the entry array; texts live in the arena */
/* Parse one _KEY resource and append its entries. Errors carry byte offsets. */
int sims3_names_add_keymap(struct sims3_names *nm, const uint8_t *p, size_t n, struct af_diag *d);
int sims3_names_add(struct sims3_names *nm, uint64_t key, const char *text, size_t len);
/* A name that hashes back to v under rule (map first, then the built-in list), or NULL.
 * A map's text counts under every rule (FNV-1 32, FNV-1 64, the clip rule), whatever the
 * width of the key it is stored under: a _KEY map keys clip names by their FNV-1 32 too. */
const char *sims3_names_find(struct sims3_names *nm, uint64_t v, int rule);

/* Smooth Jazz maps a machine's instance to its script path ("mods\name.tigerjazz"): offer
 * that file's base name as the machine name when it hashes to name_hash. */
int sims3_names_add_script_name(struct sims3_names *nm, uint64_t instance, uint32_t name_hash);

/* The names beside a file: its sibling _KEY maps in name order (one that does not parse
 * is a warning in d and skipped), then the user dictionary under every rule. Shared by
 * the Sims 3 codecs (Jazz, CLIP). io may be NULL. */
struct af_io;
void sims3_names_load(const struct af_io *io, struct sims3_names *nm, struct af_diag *d);

/* Does a base file name look like an s3pe _KEY export ("*.keyname", "%%+_KEY")? */
int sims3_is_keymap_name(const char *name);

#endif
