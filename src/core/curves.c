/* The format-neutral curve model (curves.h): what a codec's curves hook builds and the
 * plotter draws, with the choice of objects (--object, the first max_objects) made here
 * once for every codec. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/buf.h"
#include "animfs/curves.h"
#include "animfs/diag.h"

int af_curves_init(struct af_curves *cv, const char *const *select, size_t nselect,
		   unsigned max_objects)
{
	memset(cv, 0, sizeof(*cv));
	cv->select = select;
	cv->nselect = select ? nselect : 0;
	cv->max_objects = max_objects;
	if (cv->nselect && !(cv->hit = af_alloc_zeroed(cv->nselect, 1)))
		return AF_ENOMEM;
	return 0;
}

void af_curves_free(struct af_curves *cv)
{
	for (size_t i = 0; i < cv->nc; i++) {
		free(cv->c[i].t);
		free(cv->c[i].v);
		free(cv->c[i].in);
		free(cv->c[i].out);
	}
	free(cv->c);
	free(cv->m);
	free(cv->o);
	free(cv->hit);
	memset(cv, 0, sizeof(*cv));
}

int af_curves_selecting(const struct af_curves *cv)
{
	return cv->nselect != 0;
}

int af_curves_match(struct af_curves *cv, const char *name)
{
	int hit = 0;
	for (size_t i = 0; name && i < cv->nselect; i++)
		if (!strcmp(cv->select[i], name))
			cv->hit[i] = 1, hit = 1;
	return hit;
}

int af_curves_wanted(struct af_curves *cv, const char *name, const char *alias)
{
	if (af_curves_selecting(cv))
		return af_curves_match(cv, name) | af_curves_match(cv, alias);
	if (cv->no >= cv->max_objects) {
		cv->skipped++;
		return 0;
	}
	return 1;
}

/* n more bytes of the model, within its room (curves.h): 0, or -1 with oom and over. */
static int charge(struct af_curves *cv, size_t n)
{
	cv->bytes += n;
	if (cv->room && !cv->room(cv->room_ctx, cv->bytes)) {
		cv->oom = cv->over = 1;
		return -1;
	}
	return 0;
}

/* Room for one more element of a growing array, zeroed; NULL (and cv->oom) when none. */
static void *push(struct af_curves *cv, void **array, size_t *cap, size_t *n, size_t size)
{
	if (*n == *cap && charge(cv, (*cap ? *cap : 16) * size))
		return NULL;
	char *a = af_grow(*array, cap, *n, size, 16);
	if (!a) {
		cv->oom = 1;
		return NULL;
	}
	*array = a;
	memset(a + *n * size, 0, size);
	return a + (*n)++ * size;
}

int af_curves_object(struct af_curves *cv, const char *title, double t_end)
{
	struct af_curve_object *o = push(cv, (void **)&cv->o, &cv->capo, &cv->no, sizeof(*o));
	if (!o)
		return AF_ENOMEM;
	snprintf(o->title, sizeof(o->title), "%s", title);
	o->first = cv->nc;
	o->mfirst = cv->nm;
	o->t_end = t_end;
	return 0;
}

size_t af_curves_channel(struct af_curves *cv, const char *title, const char *unit, int tangents)
{
	struct af_curve *c;
	if (!cv->no || !(c = push(cv, (void **)&cv->c, &cv->capc, &cv->nc, sizeof(*c))))
		return SIZE_MAX;
	snprintf(c->title, sizeof(c->title), "%s", title);
	c->unit = unit;
	c->tangents = tangents;
	cv->o[cv->no - 1].count++;
	return cv->nc - 1;
}

/* Room for one more key in each of c's arrays (the times, values and tangents share
 * one capacity). */
static int grow_keys(struct af_curve *c)
{
	double **arrays[4] = { &c->t, &c->v, &c->in, &c->out };
	size_t cap = c->cap;
	for (int k = 0; k < (c->tangents ? 4 : 2); k++) {
		size_t ck = c->cap;
		double *a = af_grow(*arrays[k], &ck, c->n, sizeof(double), 16);
		if (!a)
			return -1;
		*arrays[k] = a;
		cap = ck;
	}
	c->cap = cap;
	return 0;
}

void af_curves_key(struct af_curves *cv, size_t ch, double t, double v, double in, double out)
{
	struct af_curve *c = &cv->c[ch];
	if (c->n == c->cap && charge(cv, (c->cap ? c->cap : 16) * (c->tangents ? 4 : 2) * sizeof(double)))
		return;
	if (c->n == c->cap && grow_keys(c)) {
		cv->oom = 1;
		return;
	}
	c->t[c->n] = t;
	c->v[c->n] = v;
	if (c->in) {
		c->in[c->n] = in;
		c->out[c->n] = out;
	}
	c->n++;
}

void af_curves_marker(struct af_curves *cv, double t, const char *label)
{
	struct af_curve_marker *m;
	if (!cv->no || !(m = push(cv, (void **)&cv->m, &cv->capm, &cv->nm, sizeof(*m))))
		return;
	m->t = t;
	snprintf(m->label, sizeof(m->label), "%s", label);
	cv->o[cv->no - 1].mcount++;
}

void af_curves_unwrap_deg(struct af_curves *cv, size_t ch)
{
	struct af_curve *c = &cv->c[ch];
	for (size_t i = 1; i < c->n; i++)
		while (fabs(c->v[i] - c->v[i - 1]) > 180)
			c->v[i] += c->v[i] > c->v[i - 1] ? -360 : 360;
}

int af_cv_num(const struct af_ynode *n, double *v)
{
	char *end;
	if (!n || n->type != AF_YSCALAR || !n->len)
		return -1;
	*v = strtod(n->str, &end);
	return *end || !isfinite(*v) ? -1 : 0;
}

const struct af_ynode *af_cv_item(const struct af_ynode *seq, size_t i)
{
	return seq && seq->type == AF_YSEQ && i < seq->n ? &seq->items[i] : NULL;
}

size_t af_cv_count(const struct af_ynode *seq)
{
	return seq && seq->type == AF_YSEQ ? seq->n : 0;
}

const char *af_cv_str(const struct af_ynode *n)
{
	return n && n->type == AF_YSCALAR ? n->str : NULL;
}
