/* Diesel animation container: one zlib stream + optional extra bytes + a u32 size
 * trailer (spec 3). Inflate is bounded by a sane trailer. The compress2 level that
 * reproduces the stream is proven by recompressing: on decode for unusual headers;
 * for the stock 78 9C (level 6 in every known file) on encode, against the original
 * file when it is at hand, so decoding stays close to inflate speed (deflate costs
 * ~7x inflate) and an unedited file still comes back exact. */
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "animfs/bytes.h"
#include "animfs/codec.h"
#include "animfs/zframe.h"
#include "diesel.h"

/* Does compress2(level) write s[0..ns), header bytes aside? The deflate output is
 * compared as it is produced, so a wrong level costs only up to its first difference. */
static int level_matches(const uint8_t *blob, size_t n, const uint8_t *s, size_t ns, int level,
			 uint8_t hdr[2], int *match)
{
	z_stream zs;
	uint8_t chunk[16384];
	size_t pos = 0;
	int zrc;
	*match = 0;
	memset(&zs, 0, sizeof(zs));
	if (deflateInit(&zs, level) != Z_OK)
		return AF_ENOMEM;
	zs.next_in = (Bytef *)blob;
	zs.avail_in = (uInt)n;
	do {
		zs.next_out = chunk;
		zs.avail_out = sizeof(chunk);
		zrc = deflate(&zs, Z_FINISH);
		size_t got = sizeof(chunk) - zs.avail_out, skip = 0;
		if (pos + got > ns)
			goto out;
		if (pos == 0 && got >= 2) {
			hdr[0] = chunk[0], hdr[1] = chunk[1];
			skip = 2;
		}
		if (memcmp(chunk + skip, s + pos + skip, got - skip))
			goto out;
		pos += got;
	} while (zrc == Z_OK);
	*match = zrc == Z_STREAM_END && pos == ns;
out:
	deflateEnd(&zs);
	return 0;
}

static const int level_order[] = { 6, 9, 1, 2, 3, 4, 5, 7, 8, 0 };
#define NLEVELS (sizeof(level_order) / sizeof(level_order[0]))

/* Which compress2 level reproduces the stream (spec 3)? Level 6 first. */
static int detect_level(const uint8_t *blob, size_t n, const uint8_t *s, size_t ns,
			struct diesel_anim *m, struct af_diag *d)
{
	/* a header's FLEVEL says "fastest" for levels 0-1 (78 01): try 1 first then,
	 * the level of Python's zlib.compress(b, 1) and of converter v1.0.0-1.0.1 */
	static const int fastest_order[] = { 1, 0, 6, 9, 2, 3, 4, 5, 7, 8 };
	const int *order = (s[1] >> 6) == 0 ? fastest_order : level_order;
	uint8_t hdr[2];
	int match;
	m->zhdr[0] = s[0], m->zhdr[1] = s[1];
	if (n > UINT32_MAX)
		return af_diag_error(d, AF_EINVAL, "inflated data too large");
	for (size_t i = 0; i < NLEVELS; i++) {
		if (level_matches(blob, n, s, ns, order[i], hdr, &match))
			return af_diag_error(d, AF_ENOMEM, "zlib: cannot initialise deflate");
		if (match) {
			m->level = order[i];
			m->zhdr_custom = memcmp(hdr, s, 2) != 0;
			return 0;
		}
	}
	m->level = -1;
	m->zstream = s;
	m->nzstream = ns;
	return 0;
}

int diesel_unzip(const uint8_t *bin, size_t n, struct diesel_anim *m, struct af_buf *blob,
	      struct af_diag *d)
{
	size_t consumed = 0;
	int rc;
	if (n < 2 + 4)
		return af_diag_at_offset(d, AF_EINVAL, 0,
					 "file is truncated: %zu bytes cannot hold a zlib stream and the 4-byte size trailer",
					 n);
	uint32_t want = af_le32(bin + n - 4);
	if (want > DSL_MAX_BLOB)
		return af_diag_at_offset(d, AF_EINVAL, n - 4,
					 "size trailer claims %u bytes, more than the %u MiB animfs accepts (is the file truncated?)",
					 want, DSL_MAX_BLOB >> 20);
	if ((uint64_t)want > (uint64_t)(n - 4) * DSL_MAX_RATIO)
		return af_diag_at_offset(d, AF_EINVAL, n - 4,
					 "size trailer claims %u bytes, but %zu compressed bytes cannot inflate to more than %llu (deflate expands at most ~1032:1); the trailer is wrong or the file is truncated",
					 want, n - 4, (unsigned long long)(n - 4) * DSL_MAX_RATIO);
	if ((rc = af_zframe_inflate(bin, n - 4, want, blob, &consumed, d))) {
		if (rc == AF_EINVAL && strstr(d->msg, "more than"))
			snprintf(d->msg, sizeof(d->msg),
				 "zlib stream inflates to more than the %u bytes the size trailer says (the trailer lies)",
				 want);
		return rc;
	}
	if (blob->len != want)
		return af_diag_at_offset(d, AF_EINVAL, n - 4,
					 "size trailer says %u bytes, but the zlib stream inflates to %zu (the trailer lies)",
					 want, blob->len);
	m->container = DSL_ZLIB;
	m->zextra = bin + consumed;
	m->nzextra = n - 4 - consumed;
	if (bin[0] == 0x78 && bin[1] == 0x9C) {
		/* stock header: level 6, proven when encoding (diesel_zlib_write) */
		m->zhdr[0] = bin[0], m->zhdr[1] = bin[1];
		m->level = 6;
		return 0;
	}
	return detect_level(blob->data, blob->len, bin, consumed, m, d);
}

/* The original stream is reused only when it inflates to exactly this blob. */
static int stream_matches(const struct diesel_anim *m, const struct af_buf *blob)
{
	struct af_buf t = AF_BUF_INIT;
	struct af_diag d;
	size_t used = 0;
	af_diag_init(&d);
	int ok = !af_zframe_inflate(m->zstream, m->nzstream, blob->len, &t, &used, &d) &&
		 used == m->nzstream && t.len == blob->len && !memcmp(t.data, blob->data, t.len);
	af_buf_free(&t);
	af_diag_free(&d);
	return ok;
}

/* The original file's stream when io reaches it, it is a zlib container with
 * the same extra bytes, and its stream holds this very blob (Adler-32 first, the
 * cheap test, then a full inflate). *s points into orig. */
static int original_stream(const struct diesel_anim *m, const struct af_buf *blob,
			   const struct af_io *io, struct af_buf *orig, const uint8_t **s,
			   size_t *ns)
{
	struct diesel_anim t;
	if (!io || !io->read_sibling || !io->name || io->read_sibling(io->ctx, io->name, orig) ||
	    orig->len < 2 + 4 + 4 + m->nzextra || af_le32(orig->data + orig->len - 4) != blob->len)
		return 0;
	size_t n = orig->len - 4 - m->nzextra;
	uint32_t ad = af_adler32(1, blob->data, blob->len);
	if (af_be32(orig->data + n - 4) != ad ||
	    (m->nzextra && memcmp(orig->data + n, m->zextra, m->nzextra)))
		return 0;
	memset(&t, 0, sizeof(t));
	t.zstream = orig->data;
	t.nzstream = n;
	if (!stream_matches(&t, blob))
		return 0;
	*s = orig->data, *ns = n;
	return 1;
}

/* Our stream is out[start..). When the original file holds the same content in
 * other bytes (another level or deflate implementation), give those back. */
static void match_original(const struct diesel_anim *m, const struct af_buf *blob,
			   const struct af_io *io, struct af_buf *out, size_t start)
{
	struct af_buf orig = AF_BUF_INIT;
	const uint8_t *s;
	size_t ns;
	if (original_stream(m, blob, io, &orig, &s, &ns) &&
	    (ns != out->len - start || memcmp(s, out->data + start, ns))) {
		out->len = start;
		af_buf_append(out, s, ns);
	}
	af_buf_free(&orig);
}

int diesel_zlib_write(const struct diesel_anim *m, const struct af_buf *blob, const struct af_io *io,
		   struct af_buf *out, struct af_diag *d)
{
	size_t start = out->len;
	int rc;
	if (blob->len > UINT32_MAX)
		return af_diag_error(d, AF_EINVAL, "the animation is too large for the size trailer");
	if (m->level < 0 && m->zstream && stream_matches(m, blob)) {
		af_buf_append(out, m->zstream, m->nzstream);
	} else {
		/* not reproducible and edited: a stock stream (78 9C, level 6) */
		if ((rc = af_zframe_deflate(blob->data, blob->len, m->level < 0 ? 6 : m->level, out, d)))
			return rc;
		if (m->level >= 0 && m->zhdr_custom)
			memcpy(out->data + start, m->zhdr, 2);
		if (m->level >= 0 && !m->zhdr_custom)
			match_original(m, blob, io, out, start);
	}
	if (m->nzextra)
		af_buf_append(out, m->zextra, m->nzextra);
	af_buf_put_u32le(out, (uint32_t)blob->len);
	return out->failed ? af_diag_error(d, AF_ENOMEM, "out of memory") : 0;
}
