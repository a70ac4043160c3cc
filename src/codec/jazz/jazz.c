/* The sims3-jazz codec descriptor: bid, and the two pipelines
 * bytes -> model -> YAML (with names from _KEY maps beside the file) and
 * YAML -> model -> bytes. The codec takes resource bytes, never a container. */
#include <string.h>
#include <strings.h>

#include "animfs/codec.h"
#include "animfs/yamlio.h"
#include "jazz.h"

static int jazz_view(const uint8_t *bin, size_t n, const struct af_io *io, struct af_buf *out,
		     struct af_diag *d)
{
	struct af_arena arena;
	struct jazz_model m = { 0 };
	struct sims3_names nm;
	int rc;
	af_arena_init(&arena);
	sims3_names_init(&nm, &arena);
	m.arena = &arena;
	if ((rc = jazz_decode(bin, n, &m, d)))
		goto out;
	sims3_names_load(io, &nm, d);
	if (sims3_names_add_script_name(&nm, m.chunks[0].ckey.instance, m.chunks[0].u[0])) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
		goto out;
	}
	rc = jazz_emit(&m, &nm, out, d);
out:
	sims3_names_free(&nm);
	af_arena_free(&arena);
	return rc;
}

static int jazz_from_doc(const struct af_ynode *root, const struct af_io *io,
			 struct af_buf *out, struct af_diag *d)
{
	struct af_arena arena;
	struct jazz_model m = { 0 };
	int rc;
	af_arena_init(&arena);
	m.arena = &arena;
	rc = jazz_parse(root, &arena, &m, d);
	if (!rc)
		rc = jazz_encode(&m, out, d);
	if (!rc) /* only on encode: the CLI and the mount keep what the old file held */
		rc = jazz_check_clips(io, &m, d);
	if (!rc && io && io->learn_names && m.nnames)
		io->learn_names(io->ctx, m.names, m.nnames);
	af_arena_free(&arena);
	return rc;
}

/* A Jazz file is the state machine that picks and blends clips (which CLIP plays when, its
 * priority, blend times, speed): control, not animation data. The poses and curves it
 * plays live in the CLIPs (sims3-clip). So it has no animation bytes to count. */
static int jazz_coverage(const uint8_t *bin, size_t n, const struct af_io *io, uint64_t *decoded,
			uint64_t *opaque, struct af_diag *d)
{
	(void)bin, (void)n, (void)io, (void)d;
	*decoded = *opaque = 0;
	return 0;
}

AF_CODEC_GLUE(jazz)

static int jazz_bid(const char *name, const uint8_t *head, size_t n)
{
	size_t l = name ? strlen(name) : 0;
	int named = (l > 5 && !strcasecmp(name + l - 5, ".jazz")) ||
		    (name && (strstr(name, "%%+JAZZ") || !strncasecmp(name, "S3_02D5DF13_", 12)));
	if (!jazz_head_ok(head, n))
		return 0;
	/* the content is what counts; a Jazz-like name only makes us surer */
	return named ? 80 : 40;
}

const struct af_codec af_codec_jazz = {
	.name = "sims3-jazz",
	.description = "The Sims 3 animation state machine (Jazz RCOL 0x02D5DF13, s3pe *.jazz)",
	.extensions = "jazz",
	.version = 1,
	.bid = jazz_bid,
	.to_yaml = jazz_to_yaml,
	.from_yaml = jazz_from_yaml,
	.render_uses_names = 1,
	.schema = &jazz_schema,
	.coverage = jazz_coverage,
};
