/* Shenmue PKS (spec 4): the 16-byte PAKS header, kept verbatim, then one IPAC block to
 * the end of the file (ipac.c does the block). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "animfs/bytes.h"
#include "animfs/yamlio.h"
#include "ipac.h"
#include "shm.h"

#define PAKS_HEADER 16

static int pks_bid(const char *name, const uint8_t *head, size_t n)
{
	size_t l = strlen(name);
	if (n >= 4 && !memcmp(head, "PAKS", 4))
		return 2;
	return l > 4 && !strcasecmp(name + l - 4, ".pks") ? 1 : 0; /* judged by check */
}

static int pks_open(const uint8_t *data, size_t n, const struct af_container_env *env, void **st,
		    struct af_diag *d)
{
	if (n < 2 * PAKS_HEADER || memcmp(data, "PAKS", 4))
		return af_diag_at_offset(d, AF_EINVAL, 0, "not a PAKS file");
	uint32_t at = af_le32(data + 4);
	if (at < PAKS_HEADER || at > n - IPAC_HEADER)
		return af_diag_at_offset(d, AF_EINVAL, 4, "PAKS: IPAC offset 0x%X out of range", at);
	return ipac_st_open(data, n, at, env, st, d);
}

/* The PAKS header of src, and where its IPAC block starts. */
static int paks_head(const struct af_src *src, uint32_t *at, struct af_diag *d)
{
	uint8_t h[PAKS_HEADER];
	if (src->size < 2 * PAKS_HEADER || af_src_read(src, 0, h, sizeof(h), d) || memcmp(h, "PAKS", 4))
		return af_diag_clear(d), af_diag_at_offset(d, AF_EINVAL, 0, "not a PAKS file");
	*at = af_le32(h + 4);
	if (*at < PAKS_HEADER || *at > src->size - IPAC_HEADER)
		return af_diag_at_offset(d, AF_EINVAL, 4, "PAKS: IPAC offset 0x%X out of range", *at);
	return 0;
}

static int pks_open_src(const struct af_src *src, const struct af_container_env *env, void **st,
			struct af_diag *d)
{
	uint32_t at;
	int rc = paks_head(src, &at, d);
	return rc ? rc : ipac_st_open_src(src, at, env, st, d);
}

/* The header and the block's directory only (ipac_check_fd). */
static int pks_check(int fd, uint64_t size, struct af_diag *d)
{
	struct af_src src = {NULL, fd, size, 0};
	uint32_t at;
	int rc = paks_head(&src, &at, d);
	return rc ? rc : ipac_check_fd(fd, size, at, d);
}

static int pks_layer(void *st, struct af_buf *out)
{
	const struct ipac_view *v = st;
	const uint8_t *p = v->lead;
	af_buf_puts(out, "  - format: paks\n    ipac_offset: ");
	shm_hex(out, af_le32(p + 4));
	af_buf_puts(out, "\n    word8: ");
	af_y_hex(out, af_le32(p + 8), 8);
	af_buf_printf(out, "      # pair tag, the same in the PKF beside it\n    word12: %u\n",
		      af_le32(p + 12));
	ipac_view_layer(v, out);
	return out->failed ? AF_ENOMEM : 0;
}

const struct af_container af_container_pks = {
	.name = "shenmue-pks",
	.description = "Shenmue PKS scene pack (PAKS + IPAC): its entries (MOTN as YAML) as a folder",
	.version = 1,
	.noun = "PKS",
	.plural = "PKS files",
	.bid = pks_bid,
	.check = pks_check,
	.open = pks_open,
	.open_src = pks_open_src,
	IPAC_ST_OPS,
	.layer_yaml = pks_layer,
};
