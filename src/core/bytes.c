/* Bounded little-endian reader: nothing is read or allocated past the real size. */
#include <string.h>

#include "animfs/bytes.h"

void af_rd_init(struct af_rd *r, const uint8_t *p, size_t n, struct af_diag *d)
{
	r->p = p;
	r->n = n;
	r->pos = 0;
	r->d = d;
}

int af_rd_seek(struct af_rd *r, uint64_t off, const char *what)
{
	if (off > r->n)
		return af_diag_at_offset(r->d, AF_EINVAL, r->pos,
					 "%s: offset 0x%llx is outside the %zu-byte data",
					 what, (unsigned long long)off, r->n);
	r->pos = (size_t)off;
	return 0;
}

int af_rd_need(struct af_rd *r, uint64_t off, uint64_t count, uint64_t size, const char *what)
{
	if (off > r->n)
		return af_diag_at_offset(r->d, AF_EINVAL, off,
					 "%s: offset is outside the %zu-byte data", what, r->n);
	uint64_t left = r->n - off;
	if (size && count > left / size)
		return af_diag_at_offset(r->d, AF_EINVAL, off,
					 "%s claims %llu entries of %llu bytes, %llu bytes remain",
					 what, (unsigned long long)count, (unsigned long long)size,
					 (unsigned long long)left);
	return 0;
}

static int take(struct af_rd *r, size_t n, const uint8_t **p)
{
	if (r->n - r->pos < n)
		return af_diag_at_offset(r->d, AF_EINVAL, r->pos,
					 "unexpected end of data (%zu bytes wanted, %zu remain)",
					 n, r->n - r->pos);
	*p = r->p + r->pos;
	r->pos += n;
	return 0;
}

int af_rd_u8(struct af_rd *r, uint8_t *v)
{
	const uint8_t *p = NULL;
	int rc = take(r, 1, &p);
	if (!rc)
		*v = p[0];
	return rc;
}

int af_rd_u16(struct af_rd *r, uint16_t *v)
{
	const uint8_t *p = NULL;
	int rc = take(r, 2, &p);
	if (!rc)
		*v = af_le16(p);
	return rc;
}

int af_rd_u32(struct af_rd *r, uint32_t *v)
{
	const uint8_t *p = NULL;
	int rc = take(r, 4, &p);
	if (!rc)
		*v = af_le32(p);
	return rc;
}

int af_rd_u64(struct af_rd *r, uint64_t *v)
{
	const uint8_t *p = NULL;
	int rc = take(r, 8, &p);
	if (!rc)
		*v = af_le64(p);
	return rc;
}

int af_rd_f32(struct af_rd *r, float *v)
{
	uint32_t u;
	int rc = af_rd_u32(r, &u);
	if (!rc)
		*v = af_f32_from_bits(u);
	return rc;
}

int af_rd_bytes(struct af_rd *r, size_t n, const uint8_t **out)
{
	return take(r, n, out);
}

int af_rd_cstr(struct af_rd *r, uint64_t off, const char **s, size_t *len, const char *what)
{
	if (off >= r->n)
		return af_diag_at_offset(r->d, AF_EINVAL, off,
					 "%s: string offset is outside the %zu-byte data", what, r->n);
	const uint8_t *start = r->p + off;
	const uint8_t *nul = memchr(start, 0, r->n - (size_t)off);
	if (!nul)
		return af_diag_at_offset(r->d, AF_EINVAL, off,
					 "%s: string is not terminated before the end of the data", what);
	*s = (const char *)start;
	*len = (size_t)(nul - start);
	return 0;
}

size_t af_first_diff(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	size_t i = 0, m = an < bn ? an : bn;
	while (i < m && a[i] == b[i])
		i++;
	return i;
}
