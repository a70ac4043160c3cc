/* Checks of an encoded model against things outside its YAML (spec 8, items 13-15):
 * the character's PLD beside a PLW (error), the mesh's object count (warning) and the
 * file being replaced (warning when a bank's sequence count changes). Sibling files
 * that are absent or unreadable are skipped: the checks protect, they never block. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "re.h"
#include "animfs/bytes.h"
#include "animfs/codec.h"

/* "PL00W0A.PLW" -> "PL00.PLD" (same case for the extension); 0 when not that shape. */
static int pld_name_of(const char *plw, char *out, size_t size)
{
	size_t n = strlen(plw);
	if (n < 8 || n + 1 > size || strcasecmp(plw + n - 4, ".PLW") ||
	    (plw[n - 7] != 'W' && plw[n - 7] != 'w'))
		return 0;
	memcpy(out, plw, n - 7);
	snprintf(out + n - 7, size - (n - 7), ".%c%c%c", plw[n - 3], plw[n - 2],
		 plw[n - 1] == 'W' ? 'D' : 'd');
	return 1;
}

static int check_pld_sibling(const struct re_file *f, const struct af_io *io, struct af_diag *d)
{
	char name[512];
	struct af_buf sib = AF_BUF_INIT;
	struct af_arena a;
	struct re_file g;
	struct af_diag quiet;
	const struct re_bank *k = &f->bank[0];
	int rc = AF_OK;
	if (f->lay->kind != RE_PLW || k->verbatim || k->emr.empty || !io || !io->name ||
	    !io->read_sibling || !pld_name_of(io->name, name, sizeof(name)))
		return AF_OK;
	af_arena_init(&a);
	af_diag_init(&quiet);
	memset(&g, 0, sizeof(g));
	if (io->read_sibling(io->ctx, name, &sib) ||
	    re_dir_read(sib.data, sib.len, name, &g, &a, &quiet) ||
	    g.lay->kind != RE_PLD || g.lay->game != f->lay->game || g.sec[1].len < 8)
		goto out;
	unsigned n = af_le16(g.sec[1].p + 4), ks = af_le16(g.sec[1].p + 6);
	if (n != k->emr.nbones || ks != k->emr.keyframe_size)
		rc = af_y_error(d, k->node, "banks[0]: bank 0 has %u bones / %u-byte keyframes but "
				"%s has %u / %u; it animates that skeleton", k->emr.nbones,
				k->emr.keyframe_size, name, n, ks);
out:
	af_diag_free(&quiet);
	af_arena_free(&a);
	af_buf_free(&sib);
	return rc;
}

static void check_mesh(const struct re_file *f, struct af_diag *d)
{
	long objects = -1;
	if (f->lay->kind == RE_PLW)
		return; /* a PLW mesh is the hand and weapon */
	for (unsigned s = 0; s < f->lay->nsec; s++) {
		const struct re_sec *x = &f->sec[s];
		unsigned role = f->lay->slots[s].role;
		if (x->len >= 8 && role == RE_MD2 && af_le32(x->p))
			objects = af_le32(x->p + 4);
		else if (x->len >= 12 && role == RE_MD1)
			objects = af_le32(x->p + 8) / 2;
	}
	for (unsigned i = 0; objects >= 0 && i < f->lay->nbanks; i++) {
		const struct re_bank *k = &f->bank[i];
		if (!k->verbatim && k->emr.has_skeleton && k->emr.nbones > objects)
			af_y_warn(d, k->node, "banks[%u]: %u bones but the mesh has %ld objects", i,
				  k->emr.nbones, objects);
	}
}

static void check_sequence_counts(const struct re_file *f, const struct af_io *io,
				  struct af_diag *d)
{
	struct af_buf old = AF_BUF_INIT;
	struct af_arena a;
	struct re_file g;
	struct af_diag quiet;
	const unsigned R = f->lay->game == RE_GAME3 ? 8 : 4;
	if (!io || !io->name || !io->read_sibling)
		return;
	af_arena_init(&a);
	af_diag_init(&quiet);
	memset(&g, 0, sizeof(g));
	if (io->read_sibling(io->ctx, io->name, &old) ||
	    re_dir_read(old.data, old.len, io->name, &g, &a, &quiet) || g.lay != f->lay)
		goto out;
	for (unsigned i = 0; i < f->lay->nbanks; i++) {
		const struct re_bank *k = &f->bank[i];
		const struct re_sec *e = &g.sec[k->edd_sec];
		size_t was = e->len > 4 ? af_le16(e->p + 2) / R : 0;
		if (!k->verbatim && k->edd.nseq != was)
			af_y_warn(d, k->node, "banks[%u]: %zu sequences, the original has %zu; the "
				  "game expects a fixed set in a fixed order", i, k->edd.nseq, was);
	}
out:
	af_diag_free(&quiet);
	af_arena_free(&a);
	af_buf_free(&old);
}

int re_cross_check(const struct re_file *f, const struct af_io *io, struct af_diag *d)
{
	int rc = check_pld_sibling(f, io, d);
	if (!rc) {
		check_mesh(f, d);
		check_sequence_counts(f, io, d);
	}
	return rc;
}
