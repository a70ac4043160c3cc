/* Shared by the Shenmue containers (shm.h): the whole-file check, member names, the
 * content claim, and the rewrite rule of spec 9.1. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "animfs/fileio.h"
#include "animfs/nameidx.h"
#include "shm.h"

int shm_check_open(int fd, uint64_t size, const struct af_container *c, struct af_diag *d)
{
	struct af_buf file = AF_BUF_INIT;
	void *st = NULL;
	int rc;
	if (size > AF_MAX_FILE)
		return af_diag_error(d, AF_EUNSUP, "%llu bytes: larger than animfs reads",
				     (unsigned long long)size);
	if (c->open_src) { /* its tables only */
		struct af_src src = {NULL, fd, size, 0};
		if (!(rc = c->open_src(&src, NULL, &st, d)))
			c->close(st);
		return rc;
	}
	/* af_read_fd closes what it reads; fd stays the caller's */
	if (!(rc = af_read_fd(dup(fd), AF_MAX_FILE, &file, d)) &&
	    !(rc = c->open(file.data, file.len, NULL, &st, d)))
		c->close(st);
	af_buf_free(&file);
	return rc;
}

void shm_hex(struct af_buf *out, uint64_t v)
{
	af_buf_printf(out, "0x%llX", (unsigned long long)v);
}

void shm_escape(const uint8_t *p, size_t n, char *out, size_t size)
{
	size_t k = 0;
	for (size_t i = 0; i < n && k + 4 < size; i++) {
		uint8_t c = p[i];
		if (c < 0x21 || c > 0x7E || strchr("/\\:*?\"<>|%", c))
			k += (size_t)snprintf(out + k, size - k, "%%%02X", c);
		else
			out[k++] = (char)c;
	}
	out[k] = 0;
}

static size_t stem_len(const char *s)
{
	const char *dot = strrchr(s, '.');
	return dot && dot != s ? (size_t)(dot - s) : strlen(s);
}

static const char *name_at(const void *ctx, size_t i)
{
	return ((const char *const *)ctx)[i];
}

/* One pass, hash lookups only: a name no earlier one (as written) equals but for case
 * is kept; else it gets the first ~N free, N counting up from where the last name
 * like it stopped (kept with that name in the index), so a name repeated n times
 * costs n tries, not n^2. Where the names had at most one repeat each this is the
 * rule as it was (~1); beyond, each name is still unique (before, a third DUP.BIN
 * was DUP~1.BIN again, and the second one could not be reached). */
const char *shm_keep(struct af_arena *arena, const char *s)
{
	size_t n = strlen(s);
	return af_arena_strndup(arena, s, n < AF_MEMBER_NAME_MAX ? n : AF_MEMBER_NAME_MAX - 1);
}

int shm_dedupe(const char **names, size_t n, struct af_arena *arena)
{
	struct af_nameidx shown;
	if (af_nameidx_init(&shown, n, 1, name_at, names))
		return AF_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint32_t *next = af_nameidx_aux(&shown, names[i]);
		if (next) {
			char copy[AF_MEMBER_NAME_MAX], want[AF_MEMBER_NAME_MAX];
			size_t s = stem_len(names[i]);
			uint32_t k = *next ? *next : 1;
			snprintf(copy, sizeof(copy), "%s", names[i]);
			if (s > AF_MEMBER_NAME_MAX - 16)
				s = AF_MEMBER_NAME_MAX - 16;
			for (;; k++) { /* at most n names are taken: this ends */
				snprintf(want, sizeof(want), "%.*s~%u%.40s", (int)s, copy, k, copy + s);
				if (af_nameidx_find(&shown, want) < 0)
					break;
			}
			*next = k + 1;
			if (!(names[i] = shm_keep(arena, want))) {
				af_nameidx_free(&shown);
				return AF_ENOMEM;
			}
		}
		af_nameidx_add(&shown, i);
	}
	af_nameidx_free(&shown);
	return 0;
}

const char *shm_codec_of(const struct af_container_env *env, const char *name, const uint8_t *p,
			 size_t n, uint64_t len)
{
	if (env && env->claims && env->claims(env->ctx, SHM_MOTN_CODEC, name, p, n, len))
		return SHM_MOTN_CODEC;
	return NULL;
}

static uint64_t gap_to(uint64_t next, uint64_t pos, uint64_t a)
{
	return (next % a + a - pos % a) % a;
}

int shm_plan(uint64_t end, const uint8_t *head, size_t headlen, struct shm_region *r, size_t n,
	     uint64_t a, struct af_pieces *out, struct af_diag *d)
{
	uint64_t first = n ? r[0].off : end, base = out->len;
	if (head) {
		af_pieces_bytes(out, head, headlen);
		af_pieces_copy(out, headlen, first - headlen);
	} else {
		af_pieces_copy(out, 0, first);
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t next = i + 1 < n ? r[i + 1].off : end, old_end = r[i].off + r[i].len;
		uint64_t len = r[i].data ? r[i].newlen : r[i].len;
		r[i].newoff = out->len - base;
		if (out->len - base + len > AF_MAX_FILE)
			return af_diag_error(d, AF_EUNSUP, "the rebuilt archive would exceed %zu bytes",
					     (size_t)AF_MAX_FILE);
		r[i].bytes_at = out->bytes.len;
		if (r[i].pieces)
			af_pieces_append(out, r[i].pieces, r[i].shift);
		else if (r[i].data)
			af_pieces_bytes(out, r[i].data, (size_t)len);
		else
			af_pieces_copy(out, r[i].off, len);
		if (len == r[i].len)
			af_pieces_copy(out, old_end, next - old_end); /* its gap verbatim */
		else
			af_pieces_zero(out, gap_to(next, out->len - base, a));
	}
	return out->failed ? af_diag_error(d, AF_ENOMEM, "out of memory") : 0;
}

int shm_relayout(const uint8_t *src, uint64_t end, struct shm_region *r, size_t n, uint64_t a,
		 struct af_buf *out, struct af_diag *d)
{
	struct af_pieces p = AF_PIECES_INIT;
	struct af_src from = {src, -1, end, 0};
	int rc = shm_plan(end, NULL, 0, r, n, a, &p, d);
	if (!rc)
		rc = af_pieces_to_buf(&p, &from, out, d);
	af_pieces_free(&p);
	return rc;
}

static uint64_t new_len(const struct shm_region *r)
{
	return r->data ? r->newlen : r->len;
}

uint64_t shm_moved(const struct shm_region *r, size_t n, uint64_t off, uint64_t newend)
{
	size_t i = 0, hi = n;
	while (i < hi) { /* the first region at or after off (sorted: a binary search) */
		size_t mid = i + (hi - i) / 2;
		if (r[mid].off < off)
			i = mid + 1;
		else
			hi = mid;
	}
	if (i && off < r[i - 1].off + r[i - 1].len) { /* inside a region: with it */
		uint64_t at = off - r[i - 1].off, len = new_len(&r[i - 1]);
		return r[i - 1].newoff + (at < len ? at : len);
	}
	if (i == n) { /* after the last region: with it, at most to the new end */
		uint64_t at = n ? off - r[n - 1].off + r[n - 1].newoff : off;
		return at < newend ? at : newend;
	}
	/* in the gap before region i: with it, but never before the end of the one before
	 * (a gap of several sectors may shrink by more than the distance) */
	uint64_t lo = i ? r[i - 1].newoff + new_len(&r[i - 1]) : 0, at = off + r[i].newoff;
	return at < r[i].off || at - r[i].off < lo ? lo : at - r[i].off;
}
