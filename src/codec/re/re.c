/* The "re-model" codec: Resident Evil 2/3 .PLD/.PLW/.EMD. Wires the stages together:
 * bytes -> directory -> banks (EDD+EMR, or verbatim when a bank is not in the form the
 * rebuild rules reproduce) -> YAML, and YAML -> model -> sections -> directory. */
#include <stdio.h>
#include <string.h>

#include "re.h"
#include "animfs/codec.h"

/* Sequences need a pool. A frame that names a pose past it is kept as it is, marked
 * 'outside' (the view says so and the parser then lets it be): one such frame must not
 * turn its whole bank into bytes. */
static int check_refs(struct re_bank *k, unsigned game, uint64_t base, struct af_diag *d)
{
	for (size_t i = 0; i < k->edd.nseq; i++) {
		struct re_seq *s = &k->edd.seq[i];
		for (size_t j = 0; j < s->nframes; j++) {
			uint64_t p = (uint64_t)s->frames[j].pose +
				(game == RE_GAME3 ? s->pose_start : 0);
			if (k->emr.empty)
				return af_diag_at_offset(d, AF_EINVAL, base, "sequence %zu frame "
							 "%zu: pose %llu, but the bank has no "
							 "keyframe pool", i, j,
							 (unsigned long long)p);
			s->frames[j].outside = p >= k->emr.nposes;
		}
	}
	return AF_OK;
}

static int decode_bank(struct re_file *f, unsigned i, struct af_arena *a, struct af_diag *d)
{
	struct re_bank *k = &f->bank[i];
	const unsigned game = f->lay->game;
	struct af_diag local;
	int rc;
	re_bank_slots(f->lay, i, k);
	const struct re_sec *e = &f->sec[k->edd_sec], *m = &f->sec[k->emr_sec];
	af_diag_init(&local);
	rc = re_edd_decode(e->p, e->len, game, (uint64_t)e->file_off, &k->edd, a, &local);
	if (!rc)
		rc = re_emr_decode(m->p, m->len, game,
				      f->lay->slots[k->emr_sec].flags & RE_SLOT_SEVEN,
				      (uint64_t)m->file_off, &k->emr, a, &local);
	if (!rc)
		rc = check_refs(k, game, (uint64_t)e->file_off, &local);
	if (rc == AF_ENOMEM) {
		af_diag_error(d, rc, "out of memory");
	} else if (rc) {
		char why[900];
		snprintf(why, sizeof(why), "byte 0x%llx: %s", (unsigned long long)local.offset,
			 local.msg);
		k->verbatim = af_arena_strndup(a, why, strlen(why));
		af_diag_warn(d, 0, 0, "bank %u (sections %u, %u) carried as bytes: %s", i,
			     k->edd_sec, k->emr_sec, why);
		rc = k->verbatim ? AF_OK : af_diag_error(d, AF_ENOMEM, "out of memory");
	}
	af_diag_free(&local);
	return rc;
}

static int decode_file(const uint8_t *bin, size_t n, const struct af_io *io, struct re_file *f,
		       struct af_arena *a, struct af_diag *d)
{
	memset(f, 0, sizeof(*f));
	int rc = re_dir_read(bin, n, io ? io->name : NULL, f, a, d);
	for (unsigned i = 0; !rc && i < f->lay->nbanks; i++)
		rc = decode_bank(f, i, a, d);
	return rc;
}

static int re_view(const uint8_t *bin, size_t n, const struct af_io *io, struct af_buf *out,
		   struct af_diag *d)
{
	struct af_arena a;
	struct re_file f;
	af_arena_init(&a);
	int rc = decode_file(bin, n, io, &f, &a, d);
	if (!rc)
		rc = re_emit(&f, out, d);
	af_arena_free(&a);
	return rc;
}

/* The animation data is the banks' EDD and EMR sections; what a bank carries as bytes
 * (a verbatim bank, a 7-bone pool read as 'opaque', a pool's partial last keyframe) and
 * the two 12-bit values of unknown use in each 7-bone record (3 bytes) are opaque,
 * everything else is a named field. */
static int re_coverage(const uint8_t *bin, size_t n, const struct af_io *io, uint64_t *decoded,
		       uint64_t *opaque, struct af_diag *d)
{
	struct af_arena a;
	struct re_file f;
	af_arena_init(&a);
	int rc = decode_file(bin, n, io, &f, &a, d);
	*decoded = *opaque = 0;
	for (unsigned i = 0; !rc && i < f.lay->nbanks; i++) {
		const struct re_bank *k = &f.bank[i];
		uint64_t len = f.sec[k->edd_sec].len + f.sec[k->emr_sec].len;
		uint64_t carried = k->verbatim ? len : k->emr.opaque_pool ? k->emr.pool_len
			: k->emr.tail_len + (k->emr.recs ? 3 * (uint64_t)k->emr.nposes : 0);
		*opaque += carried;
		*decoded += len - carried;
	}
	af_arena_free(&a);
	return rc;
}

static int encode_sections(const struct re_file *f, struct af_buf *bufs, struct re_sec *sec,
			   struct af_diag *d)
{
	const unsigned game = f->lay->game;
	for (unsigned s = 0; s < f->lay->nsec; s++) {
		const struct re_slot *sl = &f->lay->slots[s];
		const struct re_bank *k = sl->bank >= 0 ? &f->bank[sl->bank] : NULL;
		char path[32];
		int rc = AF_OK;
		sec[s] = f->sec[s];
		if (!k || k->verbatim)
			continue;
		snprintf(path, sizeof(path), "banks[%d]", sl->bank);
		if (sl->role == RE_EDD)
			rc = re_edd_encode(&k->edd, game, path, &bufs[s], d);
		else
			rc = re_emr_encode(&k->emr, game, &bufs[s], d);
		if (rc)
			return rc;
		sec[s].p = bufs[s].data;
		sec[s].len = bufs[s].len;
	}
	return AF_OK;
}

int re_write(const struct re_file *f, struct af_buf *out, struct af_diag *d)
{
	struct af_buf bufs[16];
	struct re_sec sec[16];
	int rc;
	for (int i = 0; i < 16; i++)
		af_buf_init(&bufs[i]);
	rc = encode_sections(f, bufs, sec, d);
	if (!rc)
		rc = re_dir_write(sec, f->lay->nsec, out, d);
	for (int i = 0; i < 16; i++)
		af_buf_free(&bufs[i]);
	return rc;
}

static int re_from_doc(const struct af_ynode *root, const struct af_io *io, struct af_buf *out,
		       struct af_diag *d)
{
	struct af_arena a;
	struct re_file f;
	int rc;
	memset(&f, 0, sizeof(f));
	af_arena_init(&a);
	rc = re_parse(root, &f, &a, d);
	if (!rc)
		rc = re_cross_check(&f, io, d);
	if (!rc)
		rc = re_write(&f, out, d);
	af_arena_free(&a);
	return rc;
}

AF_CODEC_GLUE(re)

static const struct af_split_key re_split[] = {
	{"banks", "name", 0, 0},
	{NULL, NULL, 0, 0},
};

const struct af_codec af_codec_re_model = {
	.name = "re-model",
	.description = "Resident Evil 2/3 models: EDD sequences, EMR skeleton and keyframes",
	.extensions = "PLD PLW EMD",
	.version = 3, /* 2: one bone a line with its name, frame flags by name; 3: stray_bits,
		       * the 7-bone bank's records */
	.bid = re_bid,
	.schema = &re_schema,
	.curves = re_curves,
	.scene = re_scene,
	.scene_import = re_scene_import,
	.to_yaml = re_to_yaml,
	.from_yaml = re_from_yaml,
	.coverage = re_coverage,
	.split = re_split,
	.from_doc = re_from_doc,
};
