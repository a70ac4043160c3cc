/* The greedy line reduction of a glTF import (lfit.h), linear in the keys.
 *
 * A run from key a carries key c when every key i between them is within tol of the
 * line from a to c, whose slope in component j is s = (vc - va) / dt(a, c); key i allows
 * the slopes [(vi - va - tol) / dt(a, i), (vi - va + tol) / dt(a, i)], so the run keeps
 * the intersection of what the keys so far allow and a candidate is one comparison.
 * The answer must be the one the check key by key gives (the same keys kept as ever, on
 * a tie too): the range is kept twice, narrowed and widened by far more than either
 * computation rounds (REL), and a candidate inside the narrow one fits, one outside the
 * wide one does not, and only one between them (a key on the edge: a tie) is checked
 * key by key, which a run longer than AF_LFIT_EXACT keys does not do: it ends there. */
#include <math.h>
#include <string.h>

#include "animfs/lfit.h"

/* Far above what the few roundings of either computation move a value (2^-52 each). */
#define REL 1e-9

struct run {
	size_t a, upto; /* its first key; the keys after a up to upto are in the ranges */
	int odd; /* a value that is no number, or a time that does not increase: key by key */
	double va[4];
	double lo_in[4], hi_in[4];   /* slopes that surely fit */
	double lo_out[4], hi_out[4]; /* outside these, surely not */
};

static void start(const struct af_lfit *f, struct run *r, size_t a)
{
	r->a = r->upto = a;
	r->odd = 0;
	for (size_t j = 0; j < f->w; j++) {
		r->va[j] = f->val(f->ctx, a, a, j);
		r->odd |= !isfinite(r->va[j]);
		r->lo_in[j] = r->lo_out[j] = -INFINITY;
		r->hi_in[j] = r->hi_out[j] = INFINITY;
	}
}

/* Key i narrows the run's ranges. */
static void narrow(const struct af_lfit *f, struct run *r, size_t i)
{
	double d = f->dt(f->ctx, r->a, i);
	if (!(d > 0) || !isfinite(d)) {
		r->odd = 1;
		return;
	}
	for (size_t j = 0; j < f->w; j++) {
		double vi = f->val(f->ctx, r->a, i, j), t = f->tol(f->ctx, i, j), x = vi - r->va[j];
		double e = REL * (fabs(r->va[j]) + fabs(vi) + fabs(t));
		if (!isfinite(vi) || !isfinite(t)) {
			r->odd = 1;
			return;
		}
		r->lo_in[j] = fmax(r->lo_in[j], (x - t + e) / d);
		r->hi_in[j] = fmin(r->hi_in[j], (x + t - e) / d);
		r->lo_out[j] = fmax(r->lo_out[j], (x - t - e) / d);
		r->hi_out[j] = fmin(r->hi_out[j], (x + t + e) / d);
	}
}

/* Key by key: whether every key between a and c is within tol of the line a-c. */
static int fits_each(const struct af_lfit *f, size_t a, size_t c)
{
	double dc = f->dt(f->ctx, a, c);
	for (size_t i = a + 1; i < c; i++) {
		double t = f->dt(f->ctx, a, i) / dc;
		for (size_t j = 0; j < f->w; j++) {
			double va = f->val(f->ctx, a, a, j), vc = f->val(f->ctx, a, c, j);
			if (fabs(va + (vc - va) * t - f->val(f->ctx, a, i, j)) > f->tol(f->ctx, i, j))
				return 0;
		}
	}
	return 1;
}

/* Whether the run from r->a carries key c (the keys between are in the ranges). */
static int fits(const struct af_lfit *f, struct run *r, size_t c)
{
	double d = f->dt(f->ctx, r->a, c);
	int sure = !r->odd && d > 0 && isfinite(d);
	for (size_t j = 0; sure && j < f->w; j++) {
		double vc = f->val(f->ctx, r->a, c, j), s = (vc - r->va[j]) / d;
		double m = REL * (fabs(s) + (fabs(vc) + fabs(r->va[j])) / d);
		if (!isfinite(s) || !isfinite(m))
			sure = 0;
		else if (s + m < r->lo_out[j] || s - m > r->hi_out[j])
			return 0;
		else if (!(r->lo_in[j] <= s - m && s + m <= r->hi_in[j]))
			sure = 0;
	}
	if (sure)
		return 1;
	return c - r->a <= AF_LFIT_EXACT && fits_each(f, r->a, c);
}

void af_lfit_reduce(const struct af_lfit *f, unsigned char *keep)
{
	size_t at = 0;
	struct run r;
	if (!f->n)
		return;
	keep[0] = keep[f->n - 1] = 1;
	while (at + 1 < f->n) { /* the longest run from at that one line carries */
		size_t c = at + 1;
		start(f, &r, at);
		while (c + 1 < f->n && !keep[c]) {
			for (; r.upto < c; r.upto++)
				narrow(f, &r, r.upto + 1);
			if (!fits(f, &r, c + 1))
				break;
			c++;
		}
		keep[c] = 1;
		at = c;
	}
}
