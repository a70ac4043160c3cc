/* Bounded little-endian reader. Every read is checked against the real size;
 * a failed read records "byte 0x..: ..." in the diag and returns AF_EINVAL. */
#ifndef ANIMFS_BYTES_H
#define ANIMFS_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "animfs/diag.h"

struct af_rd {
	const uint8_t *p;
	size_t n;
	size_t pos;
	struct af_diag *d;
};

void af_rd_init(struct af_rd *r, const uint8_t *p, size_t n, struct af_diag *d);
/* Move to an absolute offset (offset == n is allowed: the end). */
int af_rd_seek(struct af_rd *r, uint64_t off, const char *what);
/* Check that count elements of size bytes fit at off without overflow. */
int af_rd_need(struct af_rd *r, uint64_t off, uint64_t count, uint64_t size, const char *what);
int af_rd_u8(struct af_rd *r, uint8_t *v);
int af_rd_u16(struct af_rd *r, uint16_t *v);
int af_rd_u32(struct af_rd *r, uint32_t *v);
int af_rd_u64(struct af_rd *r, uint64_t *v);
int af_rd_f32(struct af_rd *r, float *v);
int af_rd_bytes(struct af_rd *r, size_t n, const uint8_t **out);
/* NUL-terminated string at off; *len excludes the NUL. */
int af_rd_cstr(struct af_rd *r, uint64_t off, const char **s, size_t *len, const char *what);

/* Unchecked loads for data already bounds-checked. */
static inline uint16_t af_le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t af_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t af_le64(const uint8_t *p)
{
	return (uint64_t)af_le32(p) | (uint64_t)af_le32(p + 4) << 32;
}
static inline uint16_t af_be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t af_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}
/* The bits of a float and back (inline: the codecs' key loops call them per value). */
#define AF_BITCAST(name, from, to)                 \
	static inline to name(from v)              \
	{                                          \
		to r;                              \
		_Static_assert(sizeof(r) == sizeof(v), #name); \
		memcpy(&r, &v, sizeof(r));         \
		return r;                          \
	}
AF_BITCAST(af_f32_from_bits, uint32_t, float)
AF_BITCAST(af_f32_bits, float, uint32_t)
AF_BITCAST(af_f64_from_bits, uint64_t, double)
AF_BITCAST(af_f64_bits, double, uint64_t)
#undef AF_BITCAST

/* a + b <= limit without overflow */
static inline int af_fits(uint64_t off, uint64_t len, uint64_t limit)
{
	return off <= limit && len <= limit - off;
}

/* The offset of the first byte where a and b differ (the shorter length when one is
 * the start of the other; an when they are equal). */
size_t af_first_diff(const uint8_t *a, size_t an, const uint8_t *b, size_t bn);

#endif
