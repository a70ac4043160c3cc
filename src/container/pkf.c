/* Shenmue PKF (spec 6): the PAKF header and its chunk area (DUMY, TEXN, the zero
 * terminator) carried verbatim and shown as read-only NNN.TAG members, then the
 * appended IPAC block as the member "IPAC" (a nested folder: ipac.c claims it). Only
 * that member is rewritten: it is the last part of the file, so nothing else moves. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "animfs/bytes.h"
#include "animfs/yamlio.h"
#include "shm.h"

#define PAKF_HEADER 16

struct pkf_chunk {
	uint32_t off, size;
};

struct pkf {
	struct af_buf file;
	uint32_t content; /* end of the chunk area = where the IPAC starts */
	uint32_t end;     /* end of the last chunk (the terminator follows) */
	struct pkf_chunk *c;
	size_t n;
	char (*names)[AF_MEMBER_NAME_MAX];
};

static int walk(struct pkf *k, struct af_diag *d)
{
	const uint8_t *p = k->file.data;
	size_t cap = 0;
	uint32_t pos = PAKF_HEADER;
	while (k->content - pos >= 8 && af_le32(p + pos) && af_le32(p + pos + 4)) {
		uint32_t size = af_le32(p + pos + 4);
		if (size < 8 || size > k->content - pos)
			return af_diag_at_offset(d, AF_EINVAL, pos, "PAKF: chunk '%.4s' at 0x%X runs past content end 0x%X",
						 (const char *)p + pos, pos, k->content);
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
		shm_escape(k->file.data + k->c[i].off, 4, tag, sizeof(tag));
		snprintf(k->names[i], sizeof(k->names[i]), "%03zu.%s", i, tag);
	}
	snprintf(k->names[k->n], sizeof(k->names[k->n]), "%s",
		 k->file.len - k->content >= 4 && !memcmp(k->file.data + k->content, "IPAC", 4) ? "IPAC"
												  : "tail");
	return 0;
}

static int pkf_open(const uint8_t *data, size_t n, const struct af_container_env *env, void **st,
		    struct af_diag *d)
{
	struct pkf *k;
	int rc;
	(void)env;
	if (n < PAKF_HEADER || memcmp(data, "PAKF", 4))
		return af_diag_at_offset(d, AF_EINVAL, 0, "not a PAKF file");
	if (af_le32(data + 4) < PAKF_HEADER || af_le32(data + 4) > n)
		return af_diag_at_offset(d, AF_EINVAL, 4, "PAKF: content size 0x%X out of range",
					 af_le32(data + 4));
	if (!(k = af_alloc_zeroed(1, sizeof(*k))))
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	k->content = af_le32(data + 4);
	if (af_buf_append(&k->file, data, n))
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
	else if (!(rc = walk(k, d)))
		rc = name_members(k, d);
	if (rc) {
		pkf_close(k);
		return rc;
	}
	*st = k;
	return 0;
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
	const uint8_t *p = k->file.data;
	int rc = i < k->n ? af_buf_append(out, p + k->c[i].off, k->c[i].size)
			  : af_buf_append(out, p + k->content, k->file.len - k->content);
	return rc ? af_diag_error(d, AF_ENOMEM, "out of memory") : 0;
}

static void pkf_member_io(void *st, size_t i, struct af_io *io)
{
	memset(io, 0, sizeof(*io));
	io->name = ((struct pkf *)st)->names[i];
}

static int pkf_replace(void *st, size_t i, const uint8_t *body, size_t n, struct af_buf *image,
		       struct af_diag *d)
{
	const struct pkf *k = st;
	if (i < k->n)
		return af_diag_error(d, AF_EUNSUP, "PKF chunks are not edited in v1 (%s)", k->names[i]);
	if (af_buf_append(image, k->file.data, k->content) || af_buf_append(image, body, n))
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	return 0;
}

static int pkf_rebuild(void *st, struct af_buf *image, struct af_diag *d)
{
	const struct pkf *k = st;
	return pkf_replace(st, k->n, k->file.data + k->content, k->file.len - k->content, image, d);
}

static int pkf_layer(void *st, struct af_buf *out)
{
	const struct pkf *k = st;
	const uint8_t *p = k->file.data;
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
		      k->content, k->file.len - k->content);
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
	.close = pkf_close,
	.count = pkf_count,
	.member = pkf_member,
	.body = pkf_body,
	.member_io = pkf_member_io,
	.index_yaml = pkf_members,
	.replace = pkf_replace,
	.rebuild = pkf_rebuild,
	.layer_yaml = pkf_layer,
};
