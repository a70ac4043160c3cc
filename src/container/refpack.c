/* RefPack (QFS): strict decompression of every opcode kind and a greedy hash-chain
 * compressor (spec sims3-jazz.md 6.3 and 6.4). Both work on whole buffers. */
#include <stdlib.h>
#include <string.h>

#include "refpack.h"

/* A copy opcode of 4 bytes yields at most 3 + 1028 bytes: no stream expands more than
 * this per input byte, which bounds what a header may claim before we allocate. */
#define MAX_RATIO 258u

int af_refpack_header(const uint8_t *in, size_t n, uint64_t *size, size_t *hdrlen,
		      struct af_diag *d)
{
	if (n < 2 || in[1] != 0xFB || !(in[0] & 0x10) || (in[0] & 0x2E))
		return af_diag_at_offset(d, AF_EINVAL, 0,
					 "not a RefPack stream (header %02X %02X, expected 10 FB)",
					 n > 0 ? in[0] : 0, n > 1 ? in[1] : 0);
	size_t w = (in[0] & 0x80) ? 4 : 3;
	size_t h = 2 + w * ((in[0] & 0x01) ? 2 : 1);
	if (n < h)
		return af_diag_at_offset(d, AF_EINVAL, 2, "RefPack header needs %zu bytes, the stream has %zu",
					 h, n);
	uint64_t v = 0;
	for (size_t i = h - w; i < h; i++) /* the last size field is the uncompressed one */
		v = v << 8 | in[i];
	*size = v;
	*hdrlen = h;
	return 0;
}

static int copy_back(struct af_buf *out, size_t dist, size_t len, uint64_t size, size_t at,
		     struct af_diag *d)
{
	if (dist > out->len)
		return af_diag_at_offset(d, AF_EINVAL, at,
					 "RefPack copy reaches %zu bytes back, only %zu are decoded",
					 dist, out->len);
	if (len > size - out->len)
		return af_diag_at_offset(d, AF_EINVAL, at,
					 "RefPack output would exceed the declared %llu bytes",
					 (unsigned long long)size);
	uint8_t *dst = out->data + out->len, *src = dst - dist;
	for (size_t i = 0; i < len; i++) /* byte by byte: source and target may overlap */
		dst[i] = src[i];
	out->len += len;
	return 0;
}

static int literals(struct af_buf *out, const uint8_t *in, size_t n, size_t *pos, size_t count,
		    uint64_t size, size_t at, struct af_diag *d)
{
	if (count > n - *pos)
		return af_diag_at_offset(d, AF_EINVAL, at,
					 "RefPack opcode wants %zu literal bytes, the stream has %zu left",
					 count, n - *pos);
	if (count > size - out->len)
		return af_diag_at_offset(d, AF_EINVAL, at,
					 "RefPack output would exceed the declared %llu bytes",
					 (unsigned long long)size);
	if (count)
		memcpy(out->data + out->len, in + *pos, count);
	out->len += count;
	*pos += count;
	return 0;
}

/* One opcode at *pos. *stop is set by the 0xFC-0xFF opcode. */
static int step(const uint8_t *in, size_t n, size_t *pos, struct af_buf *out, uint64_t size,
		int *stop, struct af_diag *d)
{
	size_t at = *pos, lit, len = 0, dist = 0, need;
	uint8_t b0 = in[at];
	need = b0 < 0x80 ? 2 : b0 < 0xC0 ? 3 : b0 < 0xE0 ? 4 : 1;
	if (need > n - at)
		return af_diag_at_offset(d, AF_EINVAL, at, "RefPack opcode %02X is cut off by the end",
					 b0);
	const uint8_t *b = in + at;
	if (b0 < 0x80) {
		lit = b0 & 3;
		len = ((b0 >> 2) & 7) + 3;
		dist = ((size_t)(b0 & 0x60) << 3 | b[1]) + 1;
	} else if (b0 < 0xC0) {
		lit = b[1] >> 6;
		len = (b0 & 0x3F) + 4;
		dist = ((size_t)(b[1] & 0x3F) << 8 | b[2]) + 1;
	} else if (b0 < 0xE0) {
		lit = b0 & 3;
		len = ((size_t)(b0 & 0x0C) << 6 | b[3]) + 5;
		dist = ((size_t)(b0 & 0x10) << 12 | (size_t)b[1] << 8 | b[2]) + 1;
	} else if (b0 < 0xFC) {
		lit = ((size_t)(b0 & 0x1F) + 1) * 4;
	} else {
		lit = b0 & 3;
		*stop = 1;
	}
	*pos = at + need;
	if (literals(out, in, n, pos, lit, size, at, d))
		return AF_EINVAL;
	return len ? copy_back(out, dist, len, size, at, d) : 0;
}

/* The header, its size checked against expect (UINT64_MAX: any). */
static int header_as(const uint8_t *in, size_t n, uint64_t expect, uint64_t *size, size_t *pos,
		     struct af_diag *d)
{
	int rc;
	if ((rc = af_refpack_header(in, n, size, pos, d)))
		return rc;
	if (expect != UINT64_MAX && *size != expect)
		return af_diag_at_offset(d, AF_EINVAL, 2,
					 "RefPack header declares %llu bytes, the index says %llu",
					 (unsigned long long)*size, (unsigned long long)expect);
	return 0;
}

int af_refpack_decompress(const uint8_t *in, size_t n, uint64_t expect, struct af_buf *out,
			  struct af_diag *d)
{
	uint64_t size;
	size_t pos, start = out->len;
	int stop = 0, rc;
	if ((rc = header_as(in, n, expect, &size, &pos, d)))
		return rc;
	if (size / MAX_RATIO > n)
		return af_diag_at_offset(d, AF_EINVAL, 2,
					 "RefPack header declares %llu bytes, more than %zu compressed bytes can hold",
					 (unsigned long long)size, n);
	if (af_buf_reserve(out, size ? (size_t)size : 1))
		return af_diag_error(d, AF_ENOMEM, "out of memory for %llu decompressed bytes",
				     (unsigned long long)size);
	/* Work relative to out->len == 0 so limits and distances ignore earlier content. */
	struct af_buf view = { out->data + start, 0, out->cap - start, 0, NULL, 0, out->cap - start };
	while (!stop) {
		if (pos >= n) {
			rc = af_diag_at_offset(d, AF_EINVAL, pos, "RefPack stream ends without a stop opcode");
			goto out;
		}
		if ((rc = step(in, n, &pos, &view, size, &stop, d)))
			goto out;
	}
	if (view.len != size)
		rc = af_diag_at_offset(d, AF_EINVAL, pos,
				       "RefPack stream stops after %zu of the declared %llu bytes",
				       view.len, (unsigned long long)size);
	else if (pos != n)
		rc = af_diag_at_offset(d, AF_EINVAL, pos, "%zu bytes after the RefPack stop opcode",
				       n - pos);
out:
	out->len = rc ? start : start + view.len;
	return rc;
}

int af_refpack_head(const uint8_t *in, size_t n, uint64_t expect, size_t want, struct af_buf *out,
		    struct af_diag *d)
{
	uint64_t size;
	size_t pos, start = out->len, room;
	int stop = 0, rc;
	if ((rc = header_as(in, n, expect, &size, &pos, d)))
		return rc;
	if (want > size)
		want = (size_t)size;
	/* one opcode yields at most 112 literals or 3 + 1028 bytes: stopping at the first
	 * opcode that reaches want, the output stays below want + 1200 */
	room = size < want + 1200 ? (size_t)size : want + 1200;
	if (af_buf_reserve(out, room ? room : 1))
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	struct af_buf view = { out->data + start, 0, out->cap - start, 0, NULL, 0, out->cap - start };
	while (!stop && view.len < want) {
		if (pos >= n) {
			rc = af_diag_at_offset(d, AF_EINVAL, pos, "RefPack stream ends without a stop opcode");
			goto out;
		}
		if ((rc = step(in, n, &pos, &view, size, &stop, d)))
			goto out;
	}
	if (view.len < want)
		rc = af_diag_at_offset(d, AF_EINVAL, pos,
				       "RefPack stream stops after %zu of the declared %llu bytes",
				       view.len, (unsigned long long)size);
out:
	out->len = rc ? start : start + (view.len < want ? view.len : want);
	return rc;
}

/* ---- compression ---- */

#define WINDOW 131072u
#define MAX_LEN 1028u
#define CHAIN 64
#define HBITS 16

static uint32_t hash3(const uint8_t *p)
{
	uint32_t v = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
	return (v * 2654435761u) >> (32 - HBITS);
}

/* The longest length an opcode can carry at this distance (spec 6.4 limits). */
static size_t usable(size_t len, size_t dist)
{
	if (dist <= 1024)
		return len >= 3 ? len : 0;
	if (dist <= 16384)
		return len >= 4 ? len : 0;
	return len >= 5 ? len : 0;
}

static void flush_literals(struct af_buf *o, const uint8_t *p, size_t *count)
{
	while (*count >= 4) {
		size_t k = *count > 112 ? 112 : *count & ~(size_t)3;
		af_buf_put_u8(o, (uint8_t)(0xE0 | (k / 4 - 1)));
		af_buf_append(o, p, k);
		p += k;
		*count -= k;
	}
}

/* A copy opcode with the 0-3 literals left before it: the shortest form that fits. */
static void put_copy(struct af_buf *o, const uint8_t *lit, size_t nlit, size_t len, size_t dist)
{
	size_t dd = dist - 1;
	if (len <= 10 && dist <= 1024) {
		af_buf_put_u8(o, (uint8_t)(((dd >> 3) & 0x60) | ((len - 3) << 2) | nlit));
		af_buf_put_u8(o, (uint8_t)dd);
	} else if (len <= 67 && dist <= 16384) {
		af_buf_put_u8(o, (uint8_t)(0x80 | (len - 4)));
		af_buf_put_u8(o, (uint8_t)(nlit << 6 | dd >> 8));
		af_buf_put_u8(o, (uint8_t)dd);
	} else {
		size_t ll = len - 5;
		af_buf_put_u8(o, (uint8_t)(0xC0 | ((dd >> 16) & 1) << 4 | (ll >> 8) << 2 | nlit));
		af_buf_put_u8(o, (uint8_t)(dd >> 8));
		af_buf_put_u8(o, (uint8_t)dd);
		af_buf_put_u8(o, (uint8_t)ll);
	}
	af_buf_append(o, lit, nlit);
}

static size_t match_len(const uint8_t *a, const uint8_t *b, size_t max)
{
	size_t i = 0;
	while (i < max && a[i] == b[i])
		i++;
	return i;
}

static void find_match(const uint8_t *in, size_t n, size_t i, const int32_t *head,
		       const int32_t *prev, size_t *blen, size_t *bdist)
{
	size_t max = n - i < MAX_LEN ? n - i : MAX_LEN;
	int32_t c = head[hash3(in + i)];
	*blen = 0;
	for (int k = 0; c >= 0 && k < CHAIN; k++, c = prev[c]) {
		size_t dist = i - (size_t)c;
		if (dist > WINDOW)
			break;
		size_t l = usable(match_len(in + c, in + i, max), dist);
		if (l > *blen) {
			*blen = l;
			*bdist = dist;
			if (l == max)
				break;
		}
	}
}

int af_refpack_compress(const uint8_t *in, size_t n, struct af_buf *out, struct af_diag *d)
{
	int32_t *head = NULL, *prev = NULL;
	size_t i = 0, lit_start = 0;
	int rc = 0;
	af_buf_reset(out);
	if (n > AF_REFPACK_MAX_OUT || n > INT32_MAX)
		return af_diag_error(d, AF_EINVAL, "%zu bytes are too many for one RefPack stream", n);
	head = af_alloc(((size_t)1 << HBITS) * sizeof(*head));
	prev = af_alloc((n ? n : 1) * sizeof(*prev));
	if (!head || !prev) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory compressing %zu bytes", n);
		goto out;
	}
	memset(head, 0xFF, ((size_t)1 << HBITS) * sizeof(*head));
	if (n <= 0xFFFFFF)
		af_buf_append(out, "\x10\xFB", 2);
	else {
		af_buf_append(out, "\x90\xFB", 2);
		af_buf_put_u8(out, (uint8_t)(n >> 24));
	}
	af_buf_put_u8(out, (uint8_t)(n >> 16));
	af_buf_put_u8(out, (uint8_t)(n >> 8));
	af_buf_put_u8(out, (uint8_t)n);
	while (i < n) {
		size_t len = 0, dist = 0;
		if (n - i >= 3)
			find_match(in, n, i, head, prev, &len, &dist);
		if (!len) {
			if (n - i >= 3) {
				uint32_t h = hash3(in + i);
				prev[i] = head[h];
				head[h] = (int32_t)i;
			}
			i++;
			continue;
		}
		size_t nlit = i - lit_start;
		flush_literals(out, in + lit_start, &nlit);
		put_copy(out, in + i - nlit, nlit, len, dist);
		for (size_t e = i + len; i < e; i++) {
			if (n - i >= 3) {
				uint32_t h = hash3(in + i);
				prev[i] = head[h];
				head[h] = (int32_t)i;
			}
		}
		lit_start = i;
	}
	size_t nlit = n - lit_start;
	flush_literals(out, in + lit_start, &nlit);
	af_buf_put_u8(out, (uint8_t)(0xFC | nlit));
	af_buf_append(out, in + n - nlit, nlit);
	if (out->failed)
		rc = af_diag_error(d, AF_ENOMEM, "out of memory compressing %zu bytes", n);
out:
	free(head);
	free(prev);
	return rc;
}
