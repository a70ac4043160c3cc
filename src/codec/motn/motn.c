/* Shenmue MOTN: the codec descriptor. The stages: motn_bin.c (bytes <-> model: the file
 * tables), motn_seq.c (one sequence block), motn_emit.c (model -> YAML), motn_parse.c
 * (YAML -> model). Spec: ../shared/formats/shenmue-motn.md. */
#include <string.h>

#include "animfs/arena.h"
#include "animfs/codec.h"
#include "animfs/yamlio.h"
#include "motn.h"

static int motn_view(const uint8_t *bin, size_t n, const struct af_io *io, struct af_buf *out,
		     struct af_diag *d)
{
	struct af_arena a;
	struct motn_file f;
	int rc;
	af_arena_init(&a);
	rc = motn_decode(bin, n, &a, &f, d);
	if (!rc)
		af_buf_hint(out, n * 8 + 4096); /* the text is about 8x the binary */
	if (!rc)
		rc = motn_emit(&f, io && io->name ? io->name : NULL, out, d);
	af_arena_free(&a);
	return rc;
}

static int motn_from_doc(const struct af_ynode *root, const struct af_io *io,
			 struct af_buf *out, struct af_diag *d)
{
	struct af_arena a;
	struct motn_file f;
	struct af_buf bin = AF_BUF_INIT;
	int rc;
	(void)io;
	af_arena_init(&a);
	rc = motn_parse(root, &a, &f, d);
	if (!rc)
		rc = motn_encode(&f, &bin, d);
	if (!rc)
		rc = af_buf_append(out, bin.data, bin.len) ? af_diag_error(d, AF_ENOMEM, "out of memory")
							   : 0;
	af_buf_free(&bin);
	af_arena_free(&a);
	return rc;
}

/* The animation data is the sequence blocks and the per-entry extra data (flags, frame
 * events). Opaque: raw blocks, the extra blobs (carried as hex) and the two header words of
 * each node block named unknown; every other byte of a block is a named field. */
static int motn_coverage(const uint8_t *bin, size_t n, const struct af_io *io, uint64_t *decoded,
			 uint64_t *opaque, struct af_diag *d)
{
	struct af_arena a;
	struct motn_file f;
	int rc;
	(void)io;
	*decoded = *opaque = 0;
	af_arena_init(&a);
	rc = motn_decode(bin, n, &a, &f, d);
	for (uint32_t i = 0; !rc && i < f.nblocks; i++) {
		const struct motn_block *b = &f.blocks[i];
		uint64_t unknown = b->raw ? b->len : b->kind == MOTN_NODES ? MOTN_NODES_UNKNOWN : 0;
		*opaque += unknown;
		*decoded += b->len - unknown;
	}
	for (uint32_t i = 0; !rc && i < f.nextras; i++)
		*opaque += f.extras[i].len;
	af_arena_free(&a);
	return rc;
}

AF_CODEC_GLUE(motn)

static const struct af_split_key motn_split[] = {
	{"entries", "name", 0, 256},
	{"extras", NULL, 0, 128},
	{"blocks", "block", 0, 0},
	{NULL, NULL, 0, 0},
};

const struct af_codec af_codec_motn = {
	.name = "shenmue-motn",
	.description = "Shenmue I/II MOTN motion bank (motion.bin, M_*.BIN, *.MOTN)",
	.extensions = "bin BIN MOTN",
	.version = 2, /* 2: rig-bit-15 blocks as baked: and nodes:, rotations named in turns */
	.bid = motn_bid,
	.fits = motn_fits,
	.to_yaml = motn_to_yaml,
	.from_yaml = motn_from_yaml,
	.schema = &motn_schema,
	.curves = motn_curves,
	.scene = motn_scene,
	.scene_import = motn_scene_import,
	.coverage = motn_coverage,
	.split = motn_split,
	.from_doc = motn_from_doc,
};
