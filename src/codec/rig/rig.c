/* The Sims 3 skeleton (_RIG): the codec descriptor, the bid, and the two pipelines.
 * The stages: rig_bin.c (bytes <-> model, the checks), rig_emit.c (model -> YAML),
 * rig_parse.c (YAML -> model), rig_schema.c. Spec: ../shared/formats/sims3-rig.md. */
#include <string.h>
#include <strings.h>

#include "animfs/bytes.h"
#include "animfs/codec.h"
#include "rig.h"

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = s ? strlen(s) : 0, m = strlen(suffix);
	return n >= m && !strcasecmp(s + n - m, suffix);
}

/* Spec 2: the version words, a bone count whose bones could fit, and a first bone
 * name of printable bytes (as far as the head shows it). The name (s3pe's
 * `.grannyrig`, a package member's `.rig`) makes it surer and claims Granny rigs. */
int rig_bid(const char *name, const uint8_t *head, size_t n)
{
	int named = has_suffix(name, ".grannyrig") || has_suffix(name, ".rig");
	if (rig_kind_of(head, n) != RIG_CLEAR || n < 16)
		return named ? 5 : 0; /* Granny, or too short: carried, read-only */
	uint32_t count = af_le32(head + 8);
	if (count > 0xFFFFFF)
		return named ? 5 : 0;
	if (count && n >= 56) {
		uint32_t len = af_le32(head + 52);
		if (len == 0 || len > 4096)
			return named ? 5 : 0;
		for (size_t i = 56; i < n && i < 56 + len; i++)
			if (head[i] < 0x20 || head[i] > 0x7E)
				return named ? 5 : 0;
	}
	return named ? 60 : 30;
}

static int rig_view(const uint8_t *bin, size_t n, const struct af_io *io, struct af_buf *out,
		    struct af_diag *d)
{
	struct af_arena a;
	struct rig_file f;
	struct af_diag cd;
	long bad;
	int rc, ro = 0;
	(void)io;
	af_arena_init(&a);
	af_diag_init(&cd);
	if ((rc = rig_decode(bin, n, &a, &f, d)))
		goto out;
	if (f.kind != RIG_CLEAR) {
		ro = 1;
		af_diag_at_offset(d, AF_EUNSUP, f.at, "%s", f.why);
	} else if (rig_check(&f, &bad, &cd)) {
		/* the YAML could not be saved back as it is: show it, read-only */
		ro = 1;
		af_diag_at_offset(d, AF_EUNSUP, bad >= 0 ? f.bones[bad].at : f.at, "%s; shown read-only",
				  cd.msg);
		af_buf_printf(out, "# READ-ONLY: %s; this rig cannot be written back as it is.\n", cd.msg);
	}
	if ((rc = rig_emit(&f, out)))
		af_diag_error(d, rc, "out of memory");
out:
	af_diag_free(&cd);
	af_arena_free(&a);
	return rc < 0 ? rc : ro ? AF_VIEW_READONLY : 0;
}

static int rig_from_doc(const struct af_ynode *root, const struct af_io *io, struct af_buf *out,
			struct af_diag *d)
{
	struct af_arena a;
	struct rig_file f;
	int rc;
	(void)io;
	af_arena_init(&a);
	rc = rig_parse(root, &a, &f, d);
	if (!rc)
		rc = rig_encode(&f, out, d);
	af_arena_free(&a);
	return rc;
}

/* A rig is the skeleton: bones, their rest transforms, IK chains. Nothing in it changes
 * over time (the motion is in the CLIPs, sims3-clip), so it has no animation bytes. */
static int rig_coverage(const uint8_t *bin, size_t n, const struct af_io *io, uint64_t *decoded,
			uint64_t *opaque, struct af_diag *d)
{
	(void)bin, (void)n, (void)io, (void)d;
	*decoded = *opaque = 0;
	return 0;
}

AF_CODEC_GLUE(rig)

const struct af_codec af_codec_rig = {
	.name = "sims3-rig",
	.description = "The Sims 3 skeleton (_RIG 0x8EAF13DE): bones, rest transforms, IK chains",
	.extensions = "grannyrig rig",
	.version = 1,
	.bid = rig_bid,
	.to_yaml = rig_to_yaml,
	.from_yaml = rig_from_yaml,
	.schema = &rig_schema,
	.scene = rig_scene,
	.coverage = rig_coverage,
};
