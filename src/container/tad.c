/* Shenmue HD TAD/TAC (spec 8), read-only: the .tad index (its header checksum checked:
 * MurmurHash2) names the members of the .tac beside it, read through the env's io.
 * Saves are refused (replace NULL): a size change would move the whole TAC. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "animfs/bytes.h"
#include "animfs/fileio.h"
#include "animfs/yamlio.h"
#include "shm.h"

#define TAD_HEADER 0x3C
#define TAD_ENTRY 32
#define TAD_SEED 0x066EE5D0u

struct tad {
	struct af_buf tad, tac;
	uint32_t n;
	uint32_t sum; /* the checksum computed */
	char (*names)[AF_MEMBER_NAME_MAX];
	const char **codec; /* per member: the codec that claims it (MOTN), or NULL */
};

/* MurmurHash2, 32-bit (m 0x5BD1E995, r 24). */
static uint32_t murmur2(const uint8_t *p, size_t len, uint32_t seed)
{
	const uint32_t m = 0x5BD1E995u;
	uint32_t h = seed ^ (uint32_t)len;
	for (; len >= 4; p += 4, len -= 4) {
		uint32_t k = af_le32(p) * m;
		k ^= k >> 24;
		h = h * m ^ k * m;
	}
	switch (len) {
	case 3: h ^= (uint32_t)p[2] << 16; /* fall through */
	case 2: h ^= (uint32_t)p[1] << 8;  /* fall through */
	case 1: h ^= p[0]; h *= m;
	}
	h ^= h >> 13;
	h *= m;
	return h ^ (h >> 15);
}

static uint32_t header_sum(const uint8_t *p)
{
	uint8_t h[0x38];
	memcpy(h, p, sizeof(h));
	memset(h + 0x20, 0, 4);
	return murmur2(h, sizeof(h), TAD_SEED);
}

static const uint8_t *entry(const struct tad *t, size_t i)
{
	return t->tad.data + TAD_HEADER + TAD_ENTRY * i;
}

/* The index alone (check has no TAC): its count fits, its entries fit its TAC size. */
static int check_index(const uint8_t *p, size_t n, struct af_diag *d)
{
	if (n < TAD_HEADER || af_le32(p) != 1 || af_le32(p + 4) != 5)
		return af_diag_at_offset(d, AF_EINVAL, 0, "not a TAD index");
	uint64_t count = af_le64(p + 0x30), tac = af_le64(p + 0x28);
	if (count > (n - TAD_HEADER) / TAD_ENTRY)
		return af_diag_at_offset(d, AF_EINVAL, 0x30, "TAD: entry count %llu cannot fit",
					 (unsigned long long)count);
	for (uint64_t i = 0; i < count; i++) {
		const uint8_t *e = p + TAD_HEADER + TAD_ENTRY * i;
		uint64_t o = af_le64(e + 0x10), s = af_le64(e + 0x18);
		if (o > tac || s > tac - o)
			return af_diag_at_offset(d, AF_EINVAL, TAD_HEADER + TAD_ENTRY * (int64_t)i + 0x10,
						 "TAD: entry %llu outside the TAC", (unsigned long long)i);
	}
	return 0;
}

static const char *ext_of(const uint8_t *p, size_t n)
{
	if (n >= 4 && !memcmp(p, "DDS ", 4))
		return "dds";
	if (n >= 1 && (p[0] == '{' || p[0] == '['))
		return "json";
	if (n >= 2 && p[0] == 0x1F && p[1] == 0x8B)
		return "gz";
	if (n >= 4 && (!memcmp(p, "PAKS", 4) || !memcmp(p, "PAKF", 4)))
		return p[3] == 'S' ? "PKS" : "PKF";
	if (n >= 4 && af_le32(p) == 0x20)
		return "MOTN";
	return "bin";
}

static int read_tac(struct tad *t, const struct af_container_env *env, struct af_diag *d)
{
	const struct af_io *io = env ? env->io : NULL;
	char want[AF_MEMBER_NAME_MAX];
	size_t l = io && io->name ? strlen(io->name) : 0;
	if (!io || !io->read_sibling || l < 4 || l >= sizeof(want))
		return af_diag_error(d, AF_EUNSUP, "TAD: no folder to read its TAC from");
	snprintf(want, sizeof(want), "%.*s%s", (int)(l - 4), io->name, io->name[l - 1] == 'D' ? ".TAC" : ".tac");
	int rc = io->read_sibling(io->ctx, want, &t->tac);
	if (rc == AF_ENOMEM || t->tac.failed)
		return af_diag_error(d, AF_ENOMEM, "out of memory reading the TAC %s", want);
	if (rc)
		return af_diag_error(d, AF_EIO, "TAD: its TAC %s cannot be read", want);
	if (t->tac.len != af_le64(t->tad.data + 0x28))
		return af_diag_error(d, AF_EINVAL, "TAD: the TAC %s has %zu bytes, the index says %llu", want,
				     t->tac.len, (unsigned long long)af_le64(t->tad.data + 0x28));
	return 0;
}

static void tad_close(void *st)
{
	struct tad *t = st;
	if (!t)
		return;
	af_buf_free(&t->tad);
	af_buf_free(&t->tac);
	free(t->names);
	free(t->codec);
	free(t);
}

/* What the state holds: its copy of the index, the TAC (read whole) and the names. */
static size_t held_of(size_t tad, uint64_t tac, uint64_t count)
{
	uint64_t sum = (uint64_t)tad + tac + (count + 1) * (AF_MEMBER_NAME_MAX + sizeof(const char *));
	return sum > SIZE_MAX ? SIZE_MAX : (size_t)sum;
}

static size_t tad_tables(void *st)
{
	const struct tad *t = st;
	return held_of(t->tad.cap, t->tac.cap, t->n);
}

/* The room for the index's copy, the TAC and the names, asked of the caller's bound
 * (env's io.mem_room) before any of them is read or made: 0, or AF_ENOMEM with d. */
static int room_for(const uint8_t *data, size_t n, const struct af_container_env *env, struct af_diag *d)
{
	const struct af_io *io = env ? env->io : NULL;
	uint64_t tac = af_le64(data + 0x28);
	size_t want = held_of(n, tac, af_le64(data + 0x30));
	if (!io || !io->mem_room || (tac <= AF_MAX_FILE && io->mem_room(io->mem_ctx, want)))
		return 0;
	return af_diag_error(d, AF_ENOMEM, "its index and the TAC beside it (%llu bytes, read whole) would take "
			     "more than %zu MiB, more than the memory bound lets one container hold",
			     (unsigned long long)tac, (want + ((size_t)1 << 20) - 1) >> 20);
}

static int tad_open(const uint8_t *data, size_t n, const struct af_container_env *env, void **st,
		    struct af_diag *d)
{
	struct tad *t;
	int rc;
	if ((rc = check_index(data, n, d)) || (rc = room_for(data, n, env, d)))
		return rc;
	if (!(t = af_alloc_zeroed(1, sizeof(*t))))
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	t->n = (uint32_t)af_le64(data + 0x30);
	t->names = af_alloc_zeroed(t->n + 1, sizeof(*t->names));
	t->codec = af_alloc_zeroed(t->n + 1, sizeof(*t->codec));
	if (af_buf_append(&t->tad, data, n) || !t->names || !t->codec) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = read_tac(t, env, d)))
		goto out;
	t->sum = header_sum(data);
	for (uint32_t i = 0; i < t->n; i++) {
		const uint8_t *e = entry(t, i);
		uint64_t o = af_le64(e + 0x10), s = af_le64(e + 0x18);
		const uint8_t *p = s ? t->tac.data + o : NULL; /* an empty TAC has no data */
		snprintf(t->names[i], sizeof(t->names[i]), "%05u_%08X.%s", i, af_le32(e), ext_of(p, s));
		t->codec[i] = shm_codec_of(env, t->names[i], p, s, s);
	}
	*st = t;
out:
	if (rc)
		tad_close(t);
	return rc;
}

static int tad_bid(const char *name, const uint8_t *head, size_t n)
{
	size_t l = strlen(name);
	int named = l > 4 && !strcasecmp(name + l - 4, ".tad");
	if (named && n >= 8 && af_le32(head) == 1 && af_le32(head + 4) == 5)
		return 2;
	return named;
}

static int tad_check(int fd, uint64_t size, struct af_diag *d)
{
	struct af_buf b = AF_BUF_INIT;
	int rc = size > (1u << 26) ? af_diag_error(d, AF_EUNSUP, "TAD index too large")
				   : af_read_fd(dup(fd), (size_t)size, &b, d);
	if (!rc)
		rc = check_index(b.data, b.len, d);
	af_buf_free(&b);
	return rc;
}

static size_t tad_count(void *st)
{
	return ((struct tad *)st)->n;
}

static void tad_member(void *st, size_t i, struct af_member *m)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", ((struct tad *)st)->names[i]);
	m->codec = ((struct tad *)st)->codec[i];
}

static int tad_body(void *st, size_t i, struct af_buf *out, struct af_diag *d)
{
	const struct tad *t = st;
	const uint8_t *e = entry(t, i);
	size_t n = (size_t)af_le64(e + 0x18);
	return n && af_buf_append(out, t->tac.data + af_le64(e + 0x10), n)
		       ? af_diag_error(d, AF_ENOMEM, "out of memory")
		       : 0;
}

static void tad_member_io(void *st, size_t i, struct af_io *io)
{
	memset(io, 0, sizeof(*io));
	io->name = ((struct tad *)st)->names[i];
}

static int tad_rebuild(void *st, struct af_buf *image, struct af_diag *d)
{
	const struct tad *t = st;
	return af_buf_append(image, t->tad.data, t->tad.len) ? af_diag_error(d, AF_ENOMEM, "out of memory") : 0;
}

static int tad_layer(void *st, struct af_buf *out)
{
	const struct tad *t = st;
	const uint8_t *p = t->tad.data;
	af_buf_printf(out, "  - format: tad\n    timestamp: %u\n    render_api: ", af_le32(p + 0x10));
	af_y_str(out, (const char *)p + 0x18, strnlen((const char *)p + 0x18, 4));
	af_buf_puts(out, "\n    checksum: ");
	af_y_hex(out, af_le32(p + 0x20), 8);
	af_buf_printf(out, "\n    checksum_ok: %s\n    tac_size: %llu\n    count: %u\n    read_only: true\n",
		      t->sum == af_le32(p + 0x20) ? "true" : "false",
		      (unsigned long long)af_le64(p + 0x28), t->n);
	return out->failed ? AF_ENOMEM : 0;
}

static int tad_members(void *st, const char *name, struct af_buf *out)
{
	const struct tad *t = st;
	(void)name;
	af_buf_puts(out, t->n ? "members:\n" : "members: []\n");
	for (uint32_t i = 0; i < t->n; i++) {
		const uint8_t *e = entry(t, i);
		af_buf_printf(out, "  - {index: %u, file: %s, hash1: 0x%08X, hash2: 0x%08X, offset: 0x%llX, size: %llu}\n",
			      i, t->names[i], af_le32(e), af_le32(e + 4),
			      (unsigned long long)af_le64(e + 0x10), (unsigned long long)af_le64(e + 0x18));
	}
	return out->failed ? AF_ENOMEM : 0;
}

const struct af_container af_container_tad = {
	.name = "shenmue-tad",
	.description = "Shenmue HD TAD index + TAC data: its members as a read-only folder",
	.version = 1,
	.noun = "TAD/TAC pair",
	.plural = "TAD/TAC pairs",
	.member_noun = "member",
	.members = "members",
	.bid = tad_bid,
	.check = tad_check,
	.open = tad_open,
	.close = tad_close,
	.tables = tad_tables,
	.count = tad_count,
	.member = tad_member,
	.body = tad_body,
	.member_io = tad_member_io,
	.index_yaml = tad_members,
	.replace = NULL,
	.rebuild = tad_rebuild,
	.layer_yaml = tad_layer,
};
