/* FNV-1 (multiply, then xor) hashes, as The Sims 3 uses them. */
#ifndef ANIMFS_FNV_H
#define ANIMFS_FNV_H

#include <stddef.h>
#include <stdint.h>

uint32_t af_fnv1_32(const void *p, size_t n);
uint64_t af_fnv1_64(const void *p, size_t n);
/* The same over the ASCII-lower-cased bytes. */
uint32_t af_fnv1_32_lower(const void *p, size_t n);
uint64_t af_fnv1_64_lower(const void *p, size_t n);
/* The Sims 3 CLIP instance rule (sims3-jazz.md 5.3): FNV-1 64 of the age-generic clip
 * name with bit 63 cleared, the actors' age codes in the top 16 bits. */
uint64_t af_fnv1_64_clip(const char *s, size_t n);

#endif
