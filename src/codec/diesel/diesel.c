/* Diesel engine `.animation` codec (PAYDAY 2, PAYDAY: The Heist, RAID: WW2):
 * the descriptor, content bidding, and the two pipelines
 * bytes -> model -> YAML and YAML -> model -> bytes. Spec: formats/diesel.md. */
#include <string.h>

#include "animfs/codec.h"
#include "animfs/yamlio.h"
#include "diesel.h"

static int ends_with(const char *s, const char *suffix)
{
	size_t n = s ? strlen(s) : 0, m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

static int diesel_bid(const char *name, const uint8_t *head, size_t n)
{
	static const uint8_t le[4] = { 0x85, 0xCC, 0x83, 0x08 }, sw[4] = { 0x08, 0x83, 0xCC, 0x85 };
	int ext = ends_with(name, ".animation");
	if (n >= 4 && (!memcmp(head, le, 4) || (ext && !memcmp(head, sw, 4))))
		return 80;
	if (ext && n >= 2 && head[0] == 0x78 && (head[0] * 256 + head[1]) % 31 == 0)
		return 70;
	return ext ? 10 : 0; /* claim it so that a broken .animation gets a message */
}

#define MODEL_PER_BLOB_BYTE 4

static int diesel_view(const uint8_t *bin, size_t n, const struct af_io *io,
		       struct af_buf *out, struct af_diag *d)
{
	struct af_arena a;
	struct af_buf blob = AF_BUF_INIT;
	struct diesel_anim m;
	int rc, view, euler = io && af_opts_on(io->opts, DSL_OPT_EULER);
	/* the inflated data and the keys parsed from them: about 3.3x the data (1.6 M keys:
	 * 26 MB inflated, a model of 60 MB), from a file up to ~1000x smaller */
	size_t blob_size = diesel_blob_size(bin, n), model = MODEL_PER_BLOB_BYTE * blob_size;
	af_arena_init(&a);
	if (io && io->mem_room && !io->mem_room(io->mem_ctx, model)) {
		rc = af_diag_error(d, AF_ENOMEM, "its %zu bytes of animation data take about %zu MiB to show",
				   blob_size, model >> 20);
		goto out;
	}
	if ((rc = diesel_read(bin, n, &a, &m, &blob, d)) < 0)
		goto out;
	view = rc;
	if (view) { /* d holds why the view is read-only; content faults still refuse it */
		struct af_diag cd;
		af_diag_init(&cd);
		rc = diesel_check_decoded(&m, &cd);
		af_diag_free(&cd);
		if (rc) {
			af_diag_clear(d);
			rc = diesel_check_decoded(&m, d);
			goto out;
		}
	} else if ((rc = diesel_check_decoded(&m, d))) {
		goto out;
	}
	if ((rc = diesel_emit_yaml(&m, view ? d : NULL, euler, out))) {
		af_diag_clear(d);
		af_diag_error(d, rc, "out of memory while writing YAML");
		goto out;
	}
	rc = view ? AF_VIEW_READONLY : 0;
out:
	af_buf_free(&blob);
	af_arena_free(&a);
	return rc;
}

static int diesel_from_doc(const struct af_ynode *root, const struct af_io *io,
			   struct af_buf *out, struct af_diag *d)
{
	struct af_arena a;
	struct diesel_anim m;
	int rc;
	af_arena_init(&a);
	if (!(rc = diesel_parse_yaml(root, &a, &m, d)))
		rc = diesel_write(&m, io, out, d);
	af_arena_free(&a);
	return rc;
}

/* The animation data is the (inflated) animation blob. Opaque: the words of unknown
 * meaning in the keys (pos_u16's `extra`, the `_flag` types' flag), or the whole blob when
 * its layout does not rebuild (a read-only view); every other byte is a named field or
 * layout the style keys rebuild. */
static int diesel_coverage(const uint8_t *bin, size_t n, const struct af_io *io,
			   uint64_t *decoded, uint64_t *opaque, struct af_diag *d)
{
	struct af_arena a;
	struct af_buf blob = AF_BUF_INIT;
	struct diesel_anim m;
	int rc;
	(void)io;
	*decoded = *opaque = 0;
	af_arena_init(&a);
	rc = diesel_read(bin, n, &a, &m, &blob, d);
	if (rc >= 0) {
		uint64_t unknown = 0;
		for (uint32_t i = 0; i < m.nobj; i++)
			for (int r = 0; r < 2; r++) {
				const struct diesel_track *t = r ? &m.obj[i].rot : &m.obj[i].pos;
				unknown += (uint64_t)t->nkeys * (t->type == DSL_POS_U16 ? 2
					   : diesel_types[t->type].has_flag ? 4 : 0);
			}
		uint64_t len = m.container == DSL_ZLIB ? blob.len : n; /* the blob */
		*opaque = rc == DSL_READONLY ? len : unknown;
		*decoded = len - *opaque;
		rc = 0;
	}
	af_buf_free(&blob);
	af_arena_free(&a);
	return rc;
}

AF_CODEC_GLUE(diesel)

static const struct af_split_key diesel_split[] = {
	{"objects", "name", 0, 0},
	{NULL, NULL, 0, 0},
};

static int target_width(const char *to)
{
	if (!to)
		return 0;
	if (!strcmp(to, "x64") || !strcmp(to, "64-bit") || !strcmp(to, "64"))
		return 64;
	if (!strcmp(to, "x32") || !strcmp(to, "32-bit") || !strcmp(to, "32"))
		return 32;
	return 0;
}

/* `animfs convert`: decode, refuse what cannot be carried over exactly, apply
 * the width rules, write. Files already in the target layout are left alone. */
static int diesel_convert_hook(const uint8_t *bin, size_t n, struct af_convert *cv, struct af_buf *out,
			  struct af_diag *d)
{
	struct af_arena a;
	struct af_buf blob = AF_BUF_INIT;
	struct diesel_anim m;
	size_t start = out->len;
	int width = target_width(cv->to), style = DSL_STYLE_DEFAULT, rc;
	af_arena_init(&a);
	cv->why = NULL;
	if (!width) {
		cv->why = "unknown target layout";
		rc = af_diag_error(d, AF_EINVAL, "unknown target layout '%s' (x64 or x32)",
				   cv->to ? cv->to : "");
		goto out;
	}
	if (cv->style && (style = diesel_style_by_name(cv->style, strlen(cv->style))) < 0) {
		cv->why = "unknown style";
		rc = af_diag_error(d, AF_EINVAL, "unknown style '%s' (converter, native; stock for x32)",
				   cv->style);
		goto out;
	}
	if ((rc = diesel_read(bin, n, &a, &m, &blob, d)) < 0) {
		cv->why = rc == AF_EUNSUP ? "a variant animfs does not read" : "damaged or not an animation";
		goto out;
	}
	if (rc == DSL_READONLY) {
		cv->why = "layout does not rebuild exactly (read-only)";
		rc = AF_EUNSUP;
		goto out;
	}
	if ((rc = diesel_check_decoded(&m, d))) {
		cv->why = "content animfs cannot save";
		goto out;
	}
	if (m.width == width) {
		if (width == 64 && m.container == DSL_ZLIB)
			cv->why = "zlib-wrapped (SuperBLT only)";
		rc = AF_CONVERT_ALREADY;
		goto out;
	}
	if ((rc = diesel_convert(&m, width, style, &cv->why, d)))
		goto out;
	if ((rc = diesel_write(&m, NULL, out, d)))
		cv->why = "cannot be written in that layout";
out:
	if (rc)
		out->len = start;
	af_buf_free(&blob);
	af_arena_free(&a);
	return rc;
}

/* The layouts `animfs convert` offers (codec.h), each with the styles
 * diesel_style_by_name knows for it, the default first. */
static const char *const styles64[] = { "converter", "native", NULL };
static const char *const styles32[] = { "stock", NULL };
static const struct af_layout diesel_layouts[] = {
	{ "x64", styles64, "PAYDAY 2 animations for the 64-bit build" },
	{ "x32", styles32, "PAYDAY 2 animations for the old 32-bit build" },
	{ NULL, NULL, NULL },
};

/* PAYDAY 2's mod folders (`--overlay-layout pd2`, codec.h): the game loads loose files
 * from assets/mod_overrides/<mod>/ at the asset paths of its bundles, and its 64-bit
 * build loads the x64 layout (docs/mount.md, "Mod folders", gives the sources). */
static const struct af_overlay_layout diesel_overlay_layouts[] = {
	{ "pd2", "MODDIR is PAYDAY 2's assets/mod_overrides/<mod>; 64-bit by default",
	  "mod_overrides", "x64" },
	{ NULL, NULL, NULL, NULL },
};

/* The rendering options to_yaml reads (codec.h); costly, so asked for (about 35% of a
 * render). */
static const struct af_codec_opt diesel_options[] = {
	{ DSL_OPT_EULER, "each rotation also as Euler angles in degrees, editable so" },
	{ NULL, NULL },
};

const struct af_codec af_codec_diesel = {
	.name = "diesel-animation",
	.description = "Diesel engine animation (PAYDAY 2, PAYDAY: The Heist, RAID: WW2)",
	.extensions = "animation",
	.version = 3, /* 3: layout notes, decoded_as, end_pad, read-only views */
	.bid = diesel_bid,
	.to_yaml = diesel_to_yaml,
	.from_yaml = diesel_from_yaml,
	.convert = diesel_convert_hook,
	.layouts = diesel_layouts,
	.overlay_layouts = diesel_overlay_layouts,
	.options = diesel_options,
	.schema = &diesel_schema,
	.curves = diesel_curves,
	.scene = diesel_scene,
	.scene_import = diesel_scene_import,
	.coverage = diesel_coverage,
	.split = diesel_split,
	.from_doc = diesel_from_doc,
};
