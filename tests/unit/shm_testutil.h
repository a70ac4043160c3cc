/* Hand-built Shenmue containers for the unit tests (test_ipac.c, test_gzip.c,
 * test_pkf.c, test_afs.c, test_tad.c): an IPAC block laid out by the 32-byte rule, a
 * PKS around it, a gzip member, and a check that an open fails with a message at an
 * offset. Header-only, static functions. */
#ifndef SHM_TESTUTIL_H
#define SHM_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "animfs/buf.h"
#include "animfs/bytes.h"
#include "animfs/container.h"
#include "animfs/diag.h"
#include "animfs/zframe.h"

struct tmember {
	const char *name; /* up to 8 bytes */
	const char *type; /* 4 bytes */
	const uint8_t *body;
	uint32_t size;
};

/* A canonical IPAC block: members from +0x10, each padded to a multiple of 32, then
 * the directory. */
static inline void t_ipac(struct af_buf *b, const struct tmember *m, size_t n)
{
	uint32_t off[16];
	af_buf_reset(b);
	af_buf_append(b, "IPAC", 4);
	af_buf_fill(b, 0, 12);
	for (size_t i = 0; i < n; i++) {
		off[i] = (uint32_t)b->len;
		af_buf_append(b, m[i].body, m[i].size);
		af_buf_fill(b, 0, (32 - m[i].size % 32) % 32);
	}
	uint32_t dir = (uint32_t)b->len;
	for (size_t i = 0; i < n; i++) {
		uint8_t name[8] = {0};
		memcpy(name, m[i].name, strlen(m[i].name));
		af_buf_append(b, name, 8);
		af_buf_append(b, m[i].type, 4);
		af_buf_put_u32le(b, off[i]);
		af_buf_put_u32le(b, m[i].size);
	}
	af_buf_patch_u32le(b, 4, dir);
	af_buf_patch_u32le(b, 8, (uint32_t)n);
	af_buf_patch_u32le(b, 12, dir);
}

/* PAKS header (+8 tag, +12 count) then the IPAC block. */
static inline void t_pks(struct af_buf *b, const struct af_buf *ipac, uint32_t tag, uint32_t count)
{
	af_buf_reset(b);
	af_buf_append(b, "PAKS", 4);
	af_buf_put_u32le(b, 16);
	af_buf_put_u32le(b, tag);
	af_buf_put_u32le(b, count);
	af_buf_append(b, ipac->data, ipac->len);
}

/* A gzip member of data: header flags flg with the optional fields given (NULL: none). */
static inline void t_gzip(struct af_buf *b, uint8_t flg, const char *extra, const char *fname,
			  const char *comment, const uint8_t *data, size_t n)
{
	struct af_diag d;
	static const uint8_t head[10] = {0x1F, 0x8B, 8, 0, 0x83, 0xF8, 0x9B, 0x39, 2, 3};
	af_diag_init(&d);
	af_buf_reset(b);
	af_buf_append(b, head, 10);
	b->data[3] = flg;
	if (flg & 4) {
		af_buf_put_u16le(b, (uint16_t)strlen(extra));
		af_buf_append(b, extra, strlen(extra));
	}
	if (flg & 8)
		af_buf_append(b, fname, strlen(fname) + 1);
	if (flg & 16)
		af_buf_append(b, comment, strlen(comment) + 1);
	if (flg & 2)
		af_buf_put_u16le(b, (uint16_t)(af_crc32(b->data, b->len) & 0xFFFF));
	assert_int_equal(af_zframe_deflate_raw(data, n, 9, b, &d), 0);
	af_buf_put_u32le(b, af_crc32(data, n));
	af_buf_put_u32le(b, (uint32_t)n);
	af_diag_free(&d);
}

/* c's open of b must fail (AF_EINVAL) with want in the message, at offset at (-1: any). */
static inline void t_refused(const struct af_container *c, const uint8_t *p, size_t n,
			     const char *want, int64_t at)
{
	struct af_diag d;
	void *st = NULL;
	af_diag_init(&d);
	int rc = c->open(p, n, NULL, &st, &d);
	if (!rc)
		c->close(st);
	if (rc == 0 || !strstr(d.msg, want) || (at >= 0 && d.offset != at))
		fail_msg("%s: expected a refusal '%s' at %lld; got rc %d '%s' at %lld", c->name, want,
			 (long long)at, rc, d.msg, (long long)d.offset);
	af_diag_free(&d);
}

/* The rebuild without edits of p is p itself. */
static inline void t_rebuilds(const struct af_container *c, const uint8_t *p, size_t n)
{
	struct af_archive a;
	struct af_buf out = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	assert_int_equal(af_archive_open(&a, c, p, n, &d), 0);
	assert_int_equal(c->rebuild(a.st, &out, &d), 0);
	assert_int_equal(out.len, n);
	assert_memory_equal(out.data, p, n);
	af_archive_close(&a);
	af_buf_free(&out);
	af_diag_free(&d);
}

#endif
