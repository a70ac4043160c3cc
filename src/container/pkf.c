/* Shenmue PKF (spec 6): the PAKF header and its chunk area (DUMY, TEXN, the zero
 * terminator) carried verbatim and shown as read-only NNN.TAG members, then the
 * appended IPAC block as the member "IPAC" (a nested folder: ipac.c claims it). Only
 * that member is rewritten: it is the last part of the file, so nothing else moves. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "animfs/bytes.h"
#include "animfs/yamlio.h"
#include "shm.h"

#define PAKF_HEADER 16

struct pkf_chunk {
	uint32_t off, size;
};

struct pkf {
	struct af_buf file; /* an owned copy (opened from memory) */
	struct af_src src;  /* the file: file's bytes, or a descriptor of its own */
	int has_fd;
	size_t len;         /* the file's size */
	uint8_t lead[16];   /* its header */
	char ipac[4];       /* the first bytes after the chunk area */
	uint32_t content; /* end of the chunk area = where the IPAC starts */
	uint32_t end;     /* end of the last chunk (the terminator follows) */
	struct pkf_chunk *c;
	size_t n;
	char (*names)[AF_MEMBER_NAME_MAX];
};

/* The chunks' 8-byte headers, one read each (never their bodies). */
static int walk(struct pkf *k, struct af_diag *d)
{
	uint8_t p[8];
	size_t cap = 0;
	uint32_t pos = PAKF_HEADER;
	int rc;
	while (k->content - pos >= 8) {
		if ((rc = af_src_read(&k->src, pos, p, 8, d)))
			return rc;
		if (!af_le32(p) || !af_le32(p + 4))
			break;
		uint32_t size = af_le32(p + 4);
		if (size < 8 || size > k->content - pos)
			return af_diag_at_offset(d, AF_EINVAL, pos, "PAKF: chunk '%.4s' at 0x%X runs past content end 0x%X",
						 (const char *)p, pos, k->content);
		if (k->n == cap) {
			struct pkf_chunk *c = af_resize(k->c, (cap = cap ? cap * 2 : 64) * sizeof(*c));
			if (!c) /* at most content/8 chunks: bounded by the file */
				return af_diag_error(d, AF_ENOMEM, "out of memory");
			k->c = c;
		}
		k->c[k->n++] = (struct pkf_chunk){pos, size};
		pos += size;
	}
	k->end = pos;
	return 0;
}

static void pkf_close(void *st)
{
	struct pkf *k = st;
	if (!k)
		return;
	af_buf_free(&k->file);
	if (k->has_fd)
		close(k->src.fd);
	free(k->c);
	free(k->names);
	free(k);
}

static int name_members(struct pkf *k, struct af_diag *d)
{
	if (!(k->names = af_alloc_zeroed(k->n + 1, sizeof(*k->names))))
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	for (size_t i = 0; i < k->n; i++) {
		char tag[20];
		uint8_t t[4];
		int rc = af_src_read(&k->src, k->c[i].off, t, 4, d);
		if (rc)
			return rc;
		shm_escape(t, 4, tag, sizeof(tag));
		snprintf(k->names[i], sizeof(k->names[i]), "%03zu.%s", i, tag);
	}
	snprintf(k->names[k->n], sizeof(k->names[k->n]), "%s",
		 k->len - k->content >= 4 && !memcmp(k->ipac, "IPAC", 4) ? "IPAC" : "tail");
	return 0;
}

/* k->src set: the header, the chunks, the names. */
static int load(struct pkf *k, struct af_diag *d)
{
	int rc;
	k->len = (size_t)k->src.size;
	if (k->len < PAKF_HEADER || af_src_read(&k->src, 0, k->lead, PAKF_HEADER, d) ||
	    memcmp(k->lead, "PAKF", 4))
		return af_diag_clear(d), af_diag_at_offset(d, AF_EINVAL, 0, "not a PAKF file");
	k->content = af_le32(k->lead + 4);
	if (k->content < PAKF_HEADER || k->content > k->len)
		return af_diag_at_offset(d, AF_EINVAL, 4, "PAKF: content size 0x%X out of range",
					 k->content);
	if (k->len - k->content >= 4 && (rc = af_src_read(&k->src, k->content, k->ipac, 4, d)))
		return rc;
	if ((rc = walk(k, d)))
		return rc;
	return name_members(k, d);
}

static int pkf_open_from(const struct af_src *src, const uint8_t *data, size_t n, void **st,
			 struct af_diag *d)
{
	struct pkf *k;
	int rc = 0;
	if (!(k = af_alloc_zeroed(1, sizeof(*k))))
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	if (src && src->mem) { /* borrowed: a nested PKF's bytes outlive it */
		k->src = *src;
	} else if (src) {
		k->src = (struct af_src){NULL, fcntl(src->fd, F_DUPFD_CLOEXEC, 0), src->size, src->base};
		if (k->src.fd < 0)
			rc = af_diag_error(d, AF_EIO, "cannot keep the file open: %s", strerror(errno));
		k->has_fd = k->src.fd >= 0;
	} else if (af_buf_append(&k->file, data, n)) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
	} else {
		k->src = (struct af_src){k->file.data ? k->file.data : (const uint8_t *)"", -1, n, 0};
	}
	if (!rc)
		rc = load(k, d);
	if (rc) {
		pkf_close(k);
		return rc;
	}
	*st = k;
	return 0;
}

static int pkf_open(const uint8_t *data, size_t n, const struct af_container_env *env, void **st,
		    struct af_diag *d)
{
	(void)env;
	return pkf_open_from(NULL, data, n, st, d);
}

static int pkf_open_src(const struct af_src *src, const struct af_container_env *env, void **st,
			struct af_diag *d)
{
	(void)env;
	return pkf_open_from(src, NULL, 0, st, d);
}

static int pkf_bid(const char *name, const uint8_t *head, size_t n)
{
	size_t l = strlen(name);
	if (n >= 4 && !memcmp(head, "PAKF", 4))
		return 2;
	return l > 4 && !strcasecmp(name + l - 4, ".pkf") ? 1 : 0;
}

extern const struct af_container af_container_pkf;

static int pkf_check(int fd, uint64_t size, struct af_diag *d)
{
	return shm_check_open(fd, size, &af_container_pkf, d);
}

static size_t pkf_count(void *st)
{
	return ((struct pkf *)st)->n + 1;
}

static void pkf_member(void *st, size_t i, struct af_member *m)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", ((struct pkf *)st)->names[i]);
}

static int pkf_body(void *st, size_t i, struct af_buf *out, struct af_diag *d)
{
	const struct pkf *k = st;
	return i < k->n ? af_src_append(&k->src, k->c[i].off, k->c[i].size, out, d)
			: af_src_append(&k->src, k->content, k->len - k->content, out, d);
}

static int pkf_span(void *st, size_t i, uint64_t *off, uint64_t *len)
{
	const struct pkf *k = st;
	*off = i < k->n ? k->c[i].off : k->content;
	*len = i < k->n ? k->c[i].size : k->len - k->content;
	return 1;
}

static int pkf_head(void *st, size_t i, uint8_t *buf, size_t n, size_t *got, struct af_diag *d)
{
	uint64_t off, len;
	pkf_span(st, i, &off, &len);
	*got = len < n ? (size_t)len : n;
	return af_src_read(&((const struct pkf *)st)->src, off, buf, *got, d);
}

static void pkf_member_io(void *st, size_t i, struct af_io *io)
{
	memset(io, 0, sizeof(*io));
	io->name = ((struct pkf *)st)->names[i];
}

/* The header and the chunk area a copy, the appended IPAC new bytes: nothing moves. */
static int pkf_plan(void *st, size_t i, const uint8_t *body, size_t n, struct af_pieces *out,
		    struct af_diag *d)
{
	const struct pkf *k = st;
	if (i < k->n)
		return af_diag_error(d, AF_EUNSUP, "PKF chunks are not edited in v1 (%s)", k->names[i]);
	if (af_pieces_copy(out, 0, k->content) || af_pieces_bytes(out, body, n))
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	return 0;
}

/* The appended IPAC planned in turn: its pieces (of its bytes, at content) after the
 * chunk area's copy. */
static int pkf_plan_in(void *st, size_t i, struct af_pieces *inner, struct af_pieces *out,
		       struct af_diag *d)
{
	const struct pkf *k = st;
	int rc = 0;
	if (i < k->n)
		rc = af_diag_error(d, AF_EUNSUP, "PKF chunks are not edited in v1 (%s)", k->names[i]);
	else if (af_pieces_copy(out, 0, k->content) || af_pieces_append(out, inner, k->content))
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
	af_pieces_free(inner);
	return rc;
}

/* A member's bytes as a window on the file (from a descriptor): the IPAC inside is
 * opened from its tables. */
static int pkf_member_src(void *st, size_t i, struct af_src *src, struct af_diag *d)
{
	const struct pkf *k = st;
	uint64_t off, len;
	(void)d;
	if (k->src.mem || k->src.fd < 0)
		return 0;
	pkf_span(st, i, &off, &len);
	*src = (struct af_src){NULL, k->src.fd, len, k->src.base + off};
	return 1;
}

static int pkf_replace(void *st, size_t i, const uint8_t *body, size_t n, struct af_buf *image,
		       struct af_diag *d)
{
	const struct pkf *k = st;
	struct af_pieces p = AF_PIECES_INIT;
	int rc = pkf_plan(st, i, body, n, &p, d);
	if (!rc)
		rc = af_pieces_to_buf(&p, &k->src, image, d);
	af_pieces_free(&p);
	return rc;
}

static int pkf_rebuild(void *st, struct af_buf *image, struct af_diag *d)
{
	const struct pkf *k = st;
	struct af_buf tail = AF_BUF_INIT;
	int rc = pkf_body(st, k->n, &tail, d);
	if (!rc)
		rc = pkf_replace(st, k->n, tail.data, tail.len, image, d);
	af_buf_free(&tail);
	return rc;
}

static int pkf_layer(void *st, struct af_buf *out)
{
	const struct pkf *k = st;
	const uint8_t *p = k->lead;
	af_buf_puts(out, "  - format: pakf\n    content_size: ");
	shm_hex(out, k->content);
	af_buf_puts(out, "\n    word8: ");
	af_y_hex(out, af_le32(p + 8), 8);
	af_buf_printf(out, "      # pair tag, the same in the PKS beside it\n    texture_count: %u\n"
			   "    chunks: %zu\n    terminator_size: %u\n",
		      af_le32(p + 12), k->n, k->content - k->end);
	return out->failed ? AF_ENOMEM : 0;
}

static int pkf_members(void *st, const char *name, struct af_buf *out)
{
	const struct pkf *k = st;
	(void)name;
	af_buf_puts(out, "members:\n");
	for (size_t i = 0; i < k->n; i++)
		af_buf_printf(out, "  - {index: %zu, file: %s, offset: 0x%X, size: %u, content: raw}\n", i,
			      k->names[i], k->c[i].off, k->c[i].size);
	af_buf_printf(out, "  - {index: %zu, file: %s, offset: 0x%X, size: %zu}\n", k->n, k->names[k->n],
		      k->content, k->len - k->content);
	return out->failed ? AF_ENOMEM : 0;
}

const struct af_container af_container_pkf = {
	.name = "shenmue-pkf",
	.description = "Shenmue PKF texture pack (PAKF chunks + appended IPAC) as a folder",
	.version = 1,
	.noun = "PKF",
	.plural = "PKF files",
	.member_noun = "chunk",
	.members = "chunks",
	.bid = pkf_bid,
	.check = pkf_check,
	.open = pkf_open,
	.open_src = pkf_open_src,
	.close = pkf_close,
	.count = pkf_count,
	.member = pkf_member,
	.body = pkf_body,
	.member_io = pkf_member_io,
	.index_yaml = pkf_members,
	.replace = pkf_replace,
	.plan = pkf_plan,
	.plan_in = pkf_plan_in,
	.member_src = pkf_member_src,
	.span = pkf_span,
	.head = pkf_head,
	.rebuild = pkf_rebuild,
	.layer_yaml = pkf_layer,
};
