/* The canonical chunk order of spec 7.1 (S_SM, S_AD, S_PD, S_St by the S_SM lists, S_DG by
 * the states, nodes by first appearance in the S_DG node lists), computed from the model.
 * Chunks those rules do not reach follow in the order the YAML document defines them. */
#include <stdlib.h>

#include "jazz.h"

struct placer {
	const struct jazz_model *m;
	uint8_t *placed;
	uint32_t *order, n;
};

static void place(struct placer *p, int32_t c, int kind_ok)
{
	if (c < 0 || (uint32_t)c >= p->m->nchunks || p->placed[c] || !kind_ok)
		return;
	p->placed[c] = 1;
	p->order[p->n++] = (uint32_t)c;
}

struct ranked {
	uint32_t rank, idx;
};

static int rank_cmp(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

int jazz_canonical_order(const struct jazz_model *m, const uint32_t *def_rank, uint32_t *order,
		       struct af_diag *d)
{
	struct placer p = { m, af_alloc_zeroed(m->nchunks ? m->nchunks : 1, 1), order, 0 };
	struct ranked *rest = af_alloc((m->nchunks + 1) * sizeof(*rest));
	const struct jazz_chunk *ch = m->chunks;
	uint32_t nrest = 0;
	int rc = 0;
	if (!p.placed || !rest) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
		goto out;
	}
	place(&p, 0, 1);
	for (int l = 0; l < 3; l++) {
		static const int want[3] = { JZ_AD, JZ_PD, JZ_ST };
		for (uint32_t i = 0; i < ch[0].list[l].n; i++) {
			int32_t c = ch[0].list[l].v[i];
			place(&p, c, c >= 0 && ch[c].kind == want[l]);
		}
	}
	uint32_t states_end = p.n;
	for (uint32_t i = 0; i < states_end; i++) {
		int32_t g = ch[order[i]].kind == JZ_ST ? ch[order[i]].ref[0] : JZ_NULL;
		place(&p, g, g >= 0 && ch[g].kind == JZ_DG);
	}
	uint32_t graphs_end = p.n;
	for (uint32_t i = states_end; i < graphs_end; i++) {
		const struct jazz_refs *nodes = &ch[order[i]].list[0];
		for (uint32_t k = 0; k < nodes->n; k++) {
			int32_t c = nodes->v[k];
			place(&p, c, c >= 0 && jazz_is_node(ch[c].kind));
		}
	}
	/* The rest by definition rank. */
	for (uint32_t c = 0; c < m->nchunks; c++)
		if (!p.placed[c])
			rest[nrest++] = (struct ranked){ def_rank ? def_rank[c] : c, c };
	qsort(rest, nrest, sizeof(*rest), rank_cmp);
	for (uint32_t i = 0; i < nrest; i++)
		order[p.n++] = rest[i].idx;
out:
	free(rest);
	free(p.placed);
	return rc;
}
