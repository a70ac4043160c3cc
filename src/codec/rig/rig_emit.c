/* The Sims 3 _RIG: model -> YAML (spec sims3-rig.md 5). Parents, opposites and IK
 * references by bone name when the names are distinct (else, and for an index that is
 * no bone, the stored integer); floats as the shortest text that reads back to the same
 * bits; opposite, flags, hash and scale only when they differ from the usual. */
#include <string.h>

#include "animfs/bytes.h"
#include "animfs/fnv.h"
#include "animfs/yamlio.h"
#include "rig.h"

struct em {
	const struct rig_file *f;
	struct af_buf *b;
	int by_name;
};

static void ref(const struct em *e, int32_t idx)
{
	if (idx == -1)
		af_buf_puts(e->b, "null");
	else if (e->by_name && idx >= 0 && (uint32_t)idx < e->f->nbones)
		af_y_str(e->b, e->f->bones[idx].name, e->f->bones[idx].name_len);
	else
		af_y_i64(e->b, idx);
}

static void floats(struct af_buf *b, const char *key, const uint32_t *v, int k)
{
	af_buf_printf(b, "    %s: [", key);
	for (int i = 0; i < k; i++) {
		if (i)
			af_buf_puts(b, ", ");
		af_y_f32(b, af_f32_from_bits(v[i]));
	}
	af_buf_puts(b, "]\n");
}

static int is_one(const uint32_t *s)
{
	return s[0] == RIG_ONE_BITS && s[1] == RIG_ONE_BITS && s[2] == RIG_ONE_BITS;
}

static void bone(const struct em *e, uint32_t i)
{
	const struct rig_bone *x = &e->f->bones[i];
	struct af_buf *b = e->b;
	uint32_t fnv = af_fnv1_32_lower(x->name, x->name_len);
	af_buf_puts(b, "  - name: ");
	af_y_str(b, x->name, x->name_len);
	af_buf_printf(b, " # bone %u, hash 0x%08X\n    parent: ", i, fnv);
	ref(e, x->parent);
	af_buf_putc(b, '\n');
	floats(b, "position", x->pos, 3);
	floats(b, "orientation", x->rot, 4);
	if (!is_one(x->scale))
		floats(b, "scale", x->scale, 3);
	if (x->opposite < 0 || (uint32_t)x->opposite != i) {
		af_buf_puts(b, "    opposite: ");
		ref(e, x->opposite);
		if (x->opposite < 0 || (uint32_t)x->opposite >= e->f->nbones)
			af_buf_puts(b, " # not a bone index: kept as stored");
		af_buf_putc(b, '\n');
	}
	if (x->flags != RIG_FLAGS_USUAL)
		af_buf_printf(b, "    flags: 0x%X\n", x->flags);
	if (x->hash != fnv)
		af_buf_printf(b, "    hash: 0x%08X # not FNV-1 32 of the name: kept as stored\n", x->hash);
}

static void refs(const struct em *e, const int32_t *v, uint32_t n)
{
	af_buf_putc(e->b, '[');
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			af_buf_puts(e->b, ", ");
		ref(e, v[i]);
	}
	af_buf_putc(e->b, ']');
}

static void chain(const struct em *e, const struct rig_chain *c)
{
	struct af_buf *b = e->b;
	af_buf_puts(b, "  - bones: ");
	refs(e, c->bones, c->n);
	af_buf_puts(b, "\n    info_nodes: ");
	refs(e, c->info, RIG_INFO_NODES);
	af_buf_puts(b, "\n    pole: ");
	ref(e, c->pole);
	af_buf_puts(b, "\n    slot_info: ");
	ref(e, c->slot_info);
	af_buf_printf(b, "\n    slot_offset: %d\n    root: ", c->slot_offset);
	ref(e, c->root);
	af_buf_putc(b, '\n');
}

static void carried(const struct rig_file *f, struct af_buf *b)
{
	af_buf_printf(b, "# READ-ONLY: byte 0x%llx: %s", (unsigned long long)f->at, f->why);
	af_buf_puts(b, ".\n# The Sims 3 skeleton (_RIG), shown by animfs (docs/sims3-rig.md).\nformat: sims3-rig\nkind: ");
	af_buf_puts(b, rig_kind_names[f->kind]);
	af_buf_printf(b, "\nsize: %zu # bytes, kept verbatim\n", f->size);
}

int rig_emit(const struct rig_file *f, struct af_buf *b)
{
	struct em e = { f, b, rig_names_unique(f) };
	if (f->kind != RIG_CLEAR) {
		carried(f, b);
		return b->failed ? AF_ENOMEM : 0;
	}
	af_buf_puts(b, "# The Sims 3 skeleton (_RIG), shown by animfs (docs/sims3-rig.md): parents,\n"
		       "# opposites and IK references name bones (an integer is a stored index);\n"
		       "# orientation is a quaternion x, y, z, w; scale is shown when not 1, 1, 1.\n"
		       "format: sims3-rig\nskeleton_name: ");
	af_y_str(b, f->skel, f->skel_len);
	af_buf_printf(b, "\nversion: [%u, %u]\n", f->major, f->minor);
	af_buf_printf(b, "bones:%s # %u\n", f->nbones ? "" : " []", f->nbones);
	for (uint32_t i = 0; i < f->nbones; i++)
		bone(&e, i);
	if (f->major >= 4) {
		af_buf_printf(b, "ik_chains:%s\n", f->nchains ? "" : " []");
		for (uint32_t i = 0; i < f->nchains; i++)
			chain(&e, &f->chains[i]);
	}
	return b->failed ? AF_ENOMEM : 0;
}
