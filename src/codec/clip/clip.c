/* The sims3-clip codec descriptor: the bid (on content: a loose `.animation` is a CLIP
 * or a Diesel file by its first bytes), and the two pipelines bytes -> model -> YAML,
 * with bone names from a rig beside the clip, the clip's own IK strings, _KEY maps
 * and the user dictionary (the Jazz codec's name table), and YAML -> model -> bytes. */
#include <string.h>
#include <strings.h>

#include "animfs/bytes.h"
#include "animfs/codec.h"
#include "animfs/fnv.h"
#include "../sims3/sims3_names.h"
#include "clip.h"

/* Detection is on content (spec 2); the name only makes a full match surer. */
static int clip_bid(const char *name, const uint8_t *head, size_t n)
{
	int named = name && (strstr(name, "%%+CLIP") || !strncasecmp(name, "S3_6B20C4F3_", 12));
	if (n < 4 || af_le32(head) != CLIP_TYPE_ID)
		return 0;
	if (n >= CLIP_HEAD + 8 && !memcmp(head + CLIP_HEAD, "_pilC3S_", 8) &&
	    af_le32(head + 12) == CLIP_HEAD - 12)
		return named ? 90 : 85;
	return 30; /* the type id alone: ours, so that a damaged CLIP gets our message */
}

int clip_is_rig_name(const char *s)
{
	size_t l = strlen(s);
	return strstr(s, "%%+_RIG") || !strncasecmp(s, "S3_8EAF13DE_", 12) ||
	       (l > 10 && !strcasecmp(s + l - 10, ".grannyrig"));
}

int clip_chan_moves(const struct clip_chan *ch)
{
	const struct clip_type *t = clip_type(ch->type);
	return t && t->layout != CLIP_RAW && ch->nframes && ch->sub >= 1 && ch->sub <= 3;
}

struct rigs {
	const struct af_io *io;
	struct sims3_names *nm;
	struct clip_fit *fit; /* scored as they are read (NULL: not) */
};

static int add_bone(void *ctx, const char *s, size_t n)
{
	struct sims3_names *nm = ctx;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] >= 0x80 || !s[i])
			return 0;
	return sims3_names_add(nm, af_fnv1_32_lower(s, n), s, n) ? 1 : 0;
}

static int add_rig(void *ctx, const char *name)
{
	struct rigs *r = ctx;
	struct af_buf b = AF_BUF_INIT;
	if (!clip_is_rig_name(name))
		return 0;
	if (!r->io->read_sibling(r->io->ctx, name, &b) && !b.failed) {
		clip_rig_names(b.data, b.len, add_bone, r->nm);
		if (r->fit)
			clip_fit_rig(r->fit, name, b.data, b.len);
	}
	af_buf_free(&b);
	return 0;
}

/* The rig of --rig-dir (io->rig_dir) that the clip moves, by the rule of the preview's
 * skeleton (clip_scene.c), when none beside it fits: its bones' names added. */
static void dir_rig(const struct af_io *dir, struct clip_fit *fit, struct sims3_names *nm)
{
	struct af_buf b = AF_BUF_INIT;
	if (!dir->list_siblings || !dir->read_sibling || !clip_fit_pick(fit, dir))
		return;
	if (!dir->read_sibling(dir->ctx, fit->name, &b) && !b.failed)
		clip_rig_names(b.data, b.len, add_bone, nm);
	af_buf_free(&b);
}

/* The IK strings of the clip name its IK targets (rootWorld, ...), which are channel
 * targets too (spec 10). */
static void add_ik_names(const struct clip *c, struct sims3_names *nm)
{
	for (uint32_t k = 0; k < c->nchains; k++)
		for (uint32_t t = 0; t < c->chains[k].n; t++) {
			const uint8_t *s = c->chains[k].t[t].tg, *z = memchr(s, 0, CLIP_IK_STR);
			if (z && z > s)
				add_bone(nm, (const char *)s, (size_t)(z - s));
		}
}

/* Every Sims 3 rig has these two (spec 10); no public human or pet rig names the rest. */
static const char *const root_bones[] = { "b__ROOT__", "b__ROOT_bind__" };

/* Names in the order of spec 10: rig bones first (those beside the clip, else the one
 * of --rig-dir that fits), then the clip's own, the _KEY maps and the user dictionary;
 * the first that hashes back wins. */
static void load_names(const struct af_io *io, const struct clip *c, struct sims3_names *nm,
		       struct af_diag *d)
{
	struct clip_fit fit;
	char rig[256];
	int dir = io && io->rig_dir && !clip_fit_init(&fit, c->nchan, rig, sizeof(rig));
	struct rigs r = { io, nm, dir ? &fit : NULL };
	for (uint32_t i = 0; dir && i < c->nchan; i++)
		if (clip_chan_moves(&c->ch[i]))
			clip_fit_want(&fit, c->ch[i].target);
	if (io && io->list_siblings && io->read_sibling)
		io->list_siblings(io->ctx, add_rig, &r);
	if (dir && fit.nwant && !clip_fit_found(&fit))
		dir_rig(io->rig_dir, &fit, nm);
	if (dir)
		clip_fit_free(&fit);
	add_ik_names(c, nm);
	add_bone(nm, c->actor, c->actor_len);
	for (size_t i = 0; i < sizeof(root_bones) / sizeof(root_bones[0]); i++)
		add_bone(nm, root_bones[i], strlen(root_bones[i]));
	sims3_names_load(io, nm, d);
}

static int clip_view(const uint8_t *bin, size_t n, const struct af_io *io, struct af_buf *out,
		     struct af_diag *d)
{
	struct af_arena a;
	struct sims3_names nm;
	struct clip c;
	int rc;
	af_arena_init(&a);
	sims3_names_init(&nm, &a);
	if ((rc = clip_read(bin, n, &c, &a, d)))
		goto out;
	load_names(io, &c, &nm, d);
	if ((rc = clip_emit(&c, &nm, out)))
		af_diag_error(d, rc, "out of memory while writing YAML");
out:
	sims3_names_free(&nm);
	af_arena_free(&a);
	return rc;
}

static int clip_from_doc(const struct af_ynode *root, const struct af_io *io,
			 struct af_buf *out, struct af_diag *d)
{
	struct af_arena a;
	struct clip c;
	const char **names = NULL;
	size_t nnames = 0;
	int rc;
	af_arena_init(&a);
	if (!(rc = clip_parse(root, &c, &a, &names, &nnames, d)))
		rc = clip_write(&c, out, d);
	if (!rc) /* only on encode: the CLI and the mount keep what the old file held */
		rc = clip_check_rig(io, &c, d);
	if (!rc && io && io->learn_names && nnames)
		io->learn_names(io->ctx, names, nnames);
	af_arena_free(&a);
	return rc;
}

/* The whole CLIP resource is animation data: channels, IK targets, events. Opaque: the
 * fields of `unknown:` (header words at 28 and 32, the 16 reserved bytes, version, flags,
 * padding, event version, end block: 54 bytes), each event's unknown1..3 (12 bytes) and
 * the frames of channels of unknown layout (raw_frames). */
#define CLIP_UNKNOWN_BYTES (4 + 4 + 16 + 4 + 4 + 2 + 4 + 16)
static int clip_coverage(const uint8_t *bin, size_t n, const struct af_io *io, uint64_t *decoded,
			 uint64_t *opaque, struct af_diag *d)
{
	struct af_arena a;
	struct clip c;
	int rc;
	(void)io;
	*decoded = *opaque = 0;
	af_arena_init(&a);
	if (!(rc = clip_read(bin, n, &c, &a, d))) {
		*opaque = CLIP_UNKNOWN_BYTES + 12 * (uint64_t)c.nev;
		for (uint32_t i = 0; i < c.nchan; i++)
			*opaque += c.ch[i].raw ? c.ch[i].raw_len : 0;
		*decoded = n - *opaque;
	}
	af_arena_free(&a);
	return rc;
}

AF_CODEC_GLUE(clip)

static const struct af_split_key clip_split[] = {
	{"channels", "target", 1, 0},
	{NULL, NULL, 0, 0},
};

const struct af_codec af_codec_clip = {
	.name = "sims3-clip",
	.description = "The Sims 3 animation clip (CLIP 0x6B20C4F3, s3pe *.animation)",
	.extensions = "animation clip",
	.version = 1,
	.bid = clip_bid,
	.to_yaml = clip_to_yaml,
	.from_yaml = clip_from_yaml,
	.render_uses_names = 1,
	.schema = &clip_schema,
	.curves = clip_curves,
	.scene = clip_scene,
	.scene_base = clip_scene_base,
	.scene_import = clip_scene_import,
	.coverage = clip_coverage,
	.split = clip_split,
	.from_doc = clip_from_doc,
};
