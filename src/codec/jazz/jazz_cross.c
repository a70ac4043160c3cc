/* The cross-check of a state machine against its package (issue 17): a Play node whose
 * clip is no CLIP beside it. A warning, never a refusal: EA's clips live in other
 * packages than the scripts that play them. Siblings that hold no CLIP at all (JazzData,
 * a folder of scripts) say nothing: there every clip is elsewhere. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "animfs/io.h"
#include "animfs/yamlio.h"
#include "jazz.h"

#define CLIP_PREFIX "S3_6B20C4F3_" /* s3pe: S3_<type>_<group>_<instance>... */

struct clips {
	uint64_t *inst;
	size_t n, cap;
	int nomem;
};

/* The instance of an s3pe CLIP name, or 0 when the name is no CLIP's. */
static int clip_instance(const char *name, uint64_t *out)
{
	const size_t p = sizeof(CLIP_PREFIX) - 1;
	char hex[17];
	char *end;
	if (strncasecmp(name, CLIP_PREFIX, p) || strlen(name) < p + 9 + 16 || name[p + 8] != '_')
		return 0;
	memcpy(hex, name + p + 9, 16);
	hex[16] = 0;
	*out = strtoull(hex, &end, 16);
	return *end == 0;
}

static int add_clip(void *ctx, const char *name)
{
	struct clips *c = ctx;
	uint64_t v;
	if (!clip_instance(name, &v))
		return 0;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		uint64_t *a = af_resize(c->inst, cap * sizeof(*a));
		if (!a) {
			c->nomem = 1;
			return 1;
		}
		c->inst = a;
		c->cap = cap;
	}
	c->inst[c->n++] = v;
	return 0;
}

static int held(const struct clips *c, uint64_t v)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->inst[i] == v)
			return 1;
	return 0;
}

/* Named as the document names it (the clip's scalar), else by its instance. */
static void warn_play(const struct jazz_chunk *ch, uint64_t v, struct af_diag *d)
{
	const struct af_ynode *y = ch->ynode ? af_ymap_get(ch->ynode, "clip") : NULL;
	const char *label = ch->label ? ch->label : "?";
	if (y && y->type == AF_YSCALAR && y->len && y->len < 256)
		af_y_warn(d, y, "node '%s': clip '%s' (0x%016llX) is no CLIP beside this state "
			  "machine", label, y->str, (unsigned long long)v);
	else
		af_y_warn(d, ch->ynode, "node '%s': clip 0x%016llX is no CLIP beside this state "
			  "machine", label, (unsigned long long)v);
}

int jazz_check_clips(const struct af_io *io, const struct jazz_model *m, struct af_diag *d)
{
	struct clips c = { 0 };
	int rc = 0;
	if (!io || !io->list_siblings)
		return 0;
	io->list_siblings(io->ctx, add_clip, &c);
	if (c.nomem)
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
	if (!c.n || c.nomem)
		goto out;
	for (uint32_t i = 0; i < m->nchunks; i++) {
		const struct jazz_chunk *ch = &m->chunks[i];
		uint64_t v = ch->key[0].instance;
		if (ch->kind != JZ_PLAY || !v || held(&c, v))
			continue;
		warn_play(ch, v, d);
	}
out:
	free(c.inst);
	return rc;
}
