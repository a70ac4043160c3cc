/* Names and hashes of The Sims 3 (spec 5): FNV-1 of lower-cased ASCII names, the CLIP
 * instance rule, and the _KEY name map (resource 0x0166038C) that un-hashes them.
 * Kept apart from the Jazz codec so the .package container can reuse the map parser. */
#ifndef ANIMFS_JAZZ_NAMES_H
#define ANIMFS_JAZZ_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "animfs/arena.h"
#include "animfs/diag.h"

#define JZ_TYPE_KEYMAP 0x0166038Cu

/* Which hash a field uses (spec 5.2). */
enum jz_hash_rule { JZ_H32, JZ_H64, JZ_HCLIP };

/* Hash a name with a rule; -1 if the name is empty of meaning for hashing
 * (non-ASCII or NUL bytes: spec 5.1 refuses them). */
int jz_hash_name(const char *s, size_t n, int rule, uint64_t *out);
uint64_t jz_clip_hash(const char *s, size_t n); /* s must be ASCII */

struct jz_name_ent {
	uint64_t key;
	const char *text; /* NUL-terminated copy */
	uint32_t len;
	uint32_t order;   /* position in load order: first wins on collisions */
};

struct jz_names {
	struct af_arena *arena;
	struct jz_name_ent *e;
	size_t n, cap;
	int sorted;
};

void jz_names_init(struct jz_names *nm, struct af_arena *a);
void jz_names_free(struct jz_names *nm); /* the entry array; texts live in the arena */
/* Parse one _KEY resource and append its entries. Errors carry byte offsets. */
int jz_names_add_keymap(struct jz_names *nm, const uint8_t *p, size_t n, struct af_diag *d);
int jz_names_add(struct jz_names *nm, uint64_t key, const char *text, size_t len);
/* A name that hashes back to v under rule (map first, then the built-in list), or NULL. */
const char *jz_names_find(struct jz_names *nm, uint64_t v, int rule);

/* Does a base file name look like an s3pe _KEY export ("*.keyname", "%%+_KEY")? */
int jz_is_keymap_name(const char *name);

#endif
