/* af_plot_svg: a view's YAML -> curves (per format, from the document's own keys) ->
 * an SVG of small panels. Only the YAML is read, through the project's tree reader. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/plot.h"
#include "animfs/rot.h"
#include "animfs/yamlio.h"

/* One channel: key times (seconds) and values, optional tangents (units per second). */
struct series {
	char title[96];
	const char *unit;
	size_t n, cap;
	int tangents;
	double *t, *v, *in, *out; /* in/out NULL: straight lines between keys */
};

struct marker {
	double t;
	char label[48];
};

struct object {
	char name[128], title[320];
	size_t first, count;   /* its series */
	size_t mfirst, mcount; /* its markers */
	double t_end;          /* the clip's end (0: the last key) */
};

struct plot {
	struct af_diag *d;
	struct series *s;
	size_t ns, caps;
	struct marker *m;
	size_t nm, capm;
	struct object *o;
	size_t no, capo;
	size_t skipped;      /* objects not drawn (max_objects) */
	const struct af_plot_opts *opt;
	unsigned char *hit;  /* which of opt->objects were found */
	int oom;
};

static int num(const struct af_ynode *n, double *v)
{
	char *end;
	if (!n || n->type != AF_YSCALAR || !n->len)
		return -1;
	*v = strtod(n->str, &end);
	return *end || !isfinite(*v) ? -1 : 0;
}

static const struct af_ynode *item(const struct af_ynode *seq, size_t i)
{
	return seq && seq->type == AF_YSEQ && i < seq->n ? seq->items[i] : NULL;
}

static size_t count(const struct af_ynode *seq)
{
	return seq && seq->type == AF_YSEQ ? seq->n : 0;
}

static const char *str(const struct af_ynode *n)
{
	return n && n->type == AF_YSCALAR ? n->str : NULL;
}

/* Whether name is one of the --object names (and note that it was found). */
static int in_list(struct plot *p, const char *name)
{
	int hit = 0;
	for (size_t i = 0; name && i < p->opt->nobjects; i++)
		if (!strcmp(p->opt->objects[i], name))
			p->hit[i] = 1, hit = 1;
	return hit;
}

static int selecting(const struct plot *p)
{
	return p->opt && p->opt->nobjects;
}

/* Whether the object named name (or alias) is drawn; counts those max_objects leaves out. */
static int wanted(struct plot *p, const char *name, const char *alias)
{
	unsigned max = p->opt && p->opt->max_objects ? p->opt->max_objects : AF_PLOT_MAX_OBJECTS;
	if (selecting(p))
		return in_list(p, name) | in_list(p, alias);
	if (p->no >= max) {
		p->skipped++;
		return 0;
	}
	return 1;
}

/* Room for one more element of a growing array, zeroed; NULL (and p->oom) when none. */
static void *push(struct plot *p, void **array, size_t *cap, size_t *n, size_t size)
{
	char *a = af_grow(*array, cap, *n, size, 16);
	if (!a) {
		p->oom = 1;
		return NULL;
	}
	*array = a;
	memset(a + *n * size, 0, size);
	return a + (*n)++ * size;
}

static struct object *new_object(struct plot *p, const char *name, const char *title, double t_end)
{
	struct object *o = push(p, (void **)&p->o, &p->capo, &p->no, sizeof(*o));
	if (!o)
		return NULL;
	snprintf(o->name, sizeof(o->name), "%s", name);
	snprintf(o->title, sizeof(o->title), "%s", title);
	o->first = p->ns;
	o->mfirst = p->nm;
	o->t_end = t_end;
	return o;
}

/* A new channel of o, as its index: p->s moves as it grows. SIZE_MAX when out of memory. */
static size_t new_series(struct plot *p, struct object *o, const char *title, const char *unit,
			 int tangents)
{
	struct series *s = push(p, (void **)&p->s, &p->caps, &p->ns, sizeof(*s));
	if (!s)
		return SIZE_MAX;
	snprintf(s->title, sizeof(s->title), "%s", title);
	s->unit = unit;
	s->tangents = tangents;
	o->count++;
	return p->ns - 1;
}

static void add_key(struct plot *p, size_t si, double t, double v, double in, double out)
{
	struct series *s = &p->s[si];
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		double *nt = af_resize(s->t, cap * sizeof(double)), *nv;
		if (nt)
			s->t = nt;
		nv = nt ? af_resize(s->v, cap * sizeof(double)) : NULL;
		if (nv)
			s->v = nv;
		if (!nt || !nv) {
			p->oom = 1;
			return;
		}
		if (s->tangents) {
			double *ni = af_resize(s->in, cap * sizeof(double)), *no;
			if (ni)
				s->in = ni;
			no = ni ? af_resize(s->out, cap * sizeof(double)) : NULL;
			if (no)
				s->out = no;
			if (!ni || !no) {
				p->oom = 1;
				return;
			}
		}
		s->cap = cap;
	}
	s->t[s->n] = t;
	s->v[s->n] = v;
	if (s->in) {
		s->in[s->n] = in;
		s->out[s->n] = out;
	}
	s->n++;
}

static void add_marker(struct plot *p, struct object *o, double t, const char *label)
{
	struct marker *m = push(p, (void **)&p->m, &p->capm, &p->nm, sizeof(*m));
	if (!m)
		return;
	m->t = t;
	snprintf(m->label, sizeof(m->label), "%s", label);
	o->mcount++;
}

/* ------------------------------------------------------------ diesel-animation */

/* Euler angles in degrees (animfs/rot.h's one convention). */
static void quat_euler(double x, double y, double z, double w, double e[3])
{
	const double q[4] = { x, y, z, w };
	af_quat_to_euler_deg(q, e);
}

/* No 360-degree jumps between neighbouring keys. */
static void unwrap(struct series *s)
{
	for (size_t i = 1; i < s->n; i++)
		while (fabs(s->v[i] - s->v[i - 1]) > 180)
			s->v[i] += s->v[i] > s->v[i - 1] ? -360 : 360;
}

static void plot_diesel(struct plot *p, const struct af_ynode *root)
{
	static const char *const axes[] = { "x", "y", "z" };
	const struct af_ynode *objs = af_ymap_get(root, "objects"), *evs = af_ymap_get(root, "events");
	double length = 0;
	num(af_ymap_get(root, "length"), &length);
	for (size_t i = 0; i < count(objs) && !p->oom; i++) {
		const struct af_ynode *ob = item(objs, i);
		const char *name = str(af_ymap_get(ob, "name"));
		char title[160];
		if (!name || !wanted(p, name, NULL))
			continue;
		snprintf(title, sizeof(title), "%s", name);
		struct object *o = new_object(p, name, title, length);
		if (!o)
			return;
		for (int rot = 0; rot < 2; rot++) {
			const struct af_ynode *keys = af_ymap_get(af_ymap_get(ob, rot ? "rotation" : "position"), "keys");
			size_t s[3];
			for (int a = 0; a < 3; a++) {
				char t[64];
				snprintf(t, sizeof(t), "%s %s", rot ? "rotation" : "position", axes[a]);
				if ((s[a] = new_series(p, o, t, rot ? "deg" : "cm", 0)) == SIZE_MAX)
					return;
			}
			for (size_t k = 0; k < count(keys); k++) {
				const struct af_ynode *kn = item(keys, k);
				double v[5] = { 0 }, e[3];
				int bad = num(item(kn, 0), &v[0]);
				for (int j = 1; j <= 3 + rot; j++)
					bad |= num(item(kn, (size_t)j), &v[j]);
				if (bad)
					continue;
				if (rot)
					quat_euler(v[1], v[2], v[3], v[4], e);
				for (int a = 0; a < 3; a++)
					add_key(p, s[a], v[0], rot ? e[a] : v[a + 1], 0, 0);
			}
			for (int a = 0; rot && a < 3; a++)
				unwrap(&p->s[s[a]]);
		}
		for (size_t k = 0; k < count(evs); k++) {
			const struct af_ynode *ev = item(evs, k), *t = item(ev, 0), *nm = item(ev, 1);
			double frac;
			if (ev && ev->type == AF_YMAP)
				t = af_ymap_get(ev, "time"), nm = af_ymap_get(ev, "name");
			if (!num(t, &frac))
				add_marker(p, o, frac * length, str(nm) ? str(nm) : "");
		}
	}
}

/* ------------------------------------------------------------ shenmue-motn */

static double half_bits(unsigned h)
{
	int e = (h >> 10) & 31;
	double m = h & 1023, v = e ? ldexp(m + 1024, e - 25) : ldexp(m, -24);
	return (h & 0x8000 ? -v : v) * (e == 31 ? INFINITY : 1);
}

static int half(const struct af_ynode *n, double *v)
{
	if (n && n->type == AF_YSCALAR && n->len > 2 && n->str[0] == '0' && n->str[1] == 'x') {
		*v = half_bits((unsigned)strtoul(n->str + 2, NULL, 16));
		return isfinite(*v) ? 0 : -1;
	}
	return num(n, v);
}

static void plot_motn(struct plot *p, const struct af_ynode *root)
{
	static const char *const chans[] = { "tx", "ty", "tz", "rx", "ry", "rz" };
	const struct af_ynode *blocks = af_ymap_get(root, "blocks");
	for (size_t b = 0; b < count(blocks) && !p->oom; b++) {
		const struct af_ynode *bl = item(blocks, b), *names = af_ymap_get(bl, "names");
		const struct af_ynode *bones = af_ymap_get(bl, "bones");
		const char *name = str(item(names, 0)), *id = str(af_ymap_get(bl, "block"));
		char oname[128], title[320];
		double frames = 0;
		if (!bones || num(af_ymap_get(bl, "frames"), &frames))
			continue; /* a raw block: nothing to draw */
		snprintf(oname, sizeof(oname), "%s", name ? name : id ? id : "?");
		int hit = 0;
		for (size_t i = 0; selecting(p) && i < count(names); i++)
			hit |= in_list(p, str(item(names, i)));
		if (!(selecting(p) ? hit | in_list(p, id) : wanted(p, oname, id)))
			continue;
		snprintf(title, sizeof(title), "%s (block %s, %g frames at 30 fps)", oname, id ? id : "?", frames);
		struct object *o = new_object(p, oname, title, (frames - 1) / 30.0);
		if (!o)
			return;
		for (size_t i = 0; i < count(bones); i++) {
			const struct af_ynode *bn = item(bones, i);
			const char *bone = str(af_ymap_get(bn, "bone"));
			for (int c = 0; c < 6; c++) {
				const struct af_ynode *keys = af_ymap_get(bn, chans[c]);
				char t[64];
				size_t s;
				if (!keys)
					continue;
				snprintf(t, sizeof(t), "bone %s %s", bone ? bone : "?", chans[c]);
				if ((s = new_series(p, o, t, c < 3 ? "units" : "rad", 1)) == SIZE_MAX)
					return;
				for (size_t k = 0; k < count(keys); k++) {
					const struct af_ynode *kn = item(keys, k);
					double f, ty, v, a = 0, z = 0;
					if (num(item(kn, 0), &f) || num(item(kn, 1), &ty) || ty < 1 ||
					    half(item(kn, 2), &v))
						continue; /* type 0: no stored value */
					if (ty == 2 && !half(item(kn, 3), &a))
						z = a;
					if (ty == 3 && (half(item(kn, 3), &a) || half(item(kn, 4), &z)))
						continue;
					add_key(p, s, f / 30.0, v, a, z);
				}
			}
		}
	}
}

/* ------------------------------------------------------------ re-model */

static void plot_re(struct plot *p, const struct af_ynode *root)
{
	static const char *const axes[] = { "x", "y", "z" };
	const struct af_ynode *banks = af_ymap_get(root, "banks");
	int re2 = str(af_ymap_get(root, "game")) && !strcmp(str(af_ymap_get(root, "game")), "re2");
	for (size_t b = 0; b < count(banks) && !p->oom; b++) {
		const struct af_ynode *bk = item(banks, b), *seqs = af_ymap_get(bk, "sequences");
		const struct af_ynode *pool = af_ymap_get(bk, "keyframes");
		for (size_t q = 0; q < count(seqs) && !p->oom; q++) {
			const struct af_ynode *sq = item(seqs, q), *frames = af_ymap_get(sq, "frames");
			char name[48], title[160];
			double start = 0;
			if (!count(frames) || !count(pool))
				continue;
			snprintf(name, sizeof(name), "%zu/%zu", b, q);
			if (!wanted(p, name, NULL))
				continue;
			num(af_ymap_get(sq, "pose_start"), &start);
			snprintf(title, sizeof(title), "bank %zu, sequence %zu (%s): root motion", b, q, name);
			struct object *o = new_object(p, name, title, (double)(count(frames) - 1) / 30.0);
			size_t s[4];
			if (!o)
				return;
			for (int a = 0; a < 4; a++) {
				char t[48];
				snprintf(t, sizeof(t), a < 3 ? "motion %s" : "%s", a < 3 ? axes[a] : re2 ? "offset y" : "y_offset");
				if ((s[a] = new_series(p, o, t, "units", 0)) == SIZE_MAX)
					return;
			}
			for (size_t f = 0; f < count(frames); f++) {
				const struct af_ynode *fr = item(frames, f);
				double pose, flags = 0, v;
				const struct af_ynode *kf;
				/* flags: a number, or a name (none: no flag) that labels the marker */
				const char *fname = str(item(fr, 1));
				int named = num(item(fr, 1), &flags) != 0;
				if (num(item(fr, 0), &pose) || (named && !fname))
					continue;
				kf = item(pool, (size_t)(re2 ? pose : start + pose));
				for (int a = 0; a < 3; a++)
					if (!num(item(af_ymap_get(kf, "motion"), (size_t)a), &v))
						add_key(p, s[a], (double)f / 30.0, v, 0, 0);
				if (!num(re2 ? item(af_ymap_get(kf, "offset"), 1) : af_ymap_get(kf, "y_offset"), &v))
					add_key(p, s[3], (double)f / 30.0, v, 0, 0);
				if (named ? strcmp(fname, "none") != 0 : flags != 0) {
					char l[24];
					if (named)
						snprintf(l, sizeof(l), "%.20s", fname);
					else
						snprintf(l, sizeof(l), "0x%02X", (unsigned)flags);
					add_marker(p, o, (double)f / 30.0, l);
				}
			}
		}
	}
}

/* ------------------------------------------------------------ SVG */

#define COLS 3
#define PW 300 /* panel */
#define PH 120
#define ML 56  /* panel margins: left (value labels), top (title), bottom (time labels) */
#define MT 20
#define MB 26
#define GAP 14
#define HEAD 26 /* an object's heading */

static void esc(struct af_buf *b, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<': af_buf_puts(b, "&lt;"); break;
		case '>': af_buf_puts(b, "&gt;"); break;
		case '&': af_buf_puts(b, "&amp;"); break;
		case '"': af_buf_puts(b, "&quot;"); break;
		default:
			if ((unsigned char)*s >= 0x20)
				af_buf_putc(b, *s);
		}
}

static void panel(struct af_buf *b, const struct series *s, const struct marker *m, size_t nm,
		  double t_end, double x0, double y0)
{
	double lo = INFINITY, hi = -INFINITY, tmax = t_end;
	double w = PW - ML - 8, h = PH - MT - MB;
	for (size_t i = 0; i < s->n; i++) {
		lo = fmin(lo, s->v[i]), hi = fmax(hi, s->v[i]);
		tmax = fmax(tmax, s->t[i]);
		if (s->in && i) { /* a Bezier stays inside its control points */
			double dt = s->t[i] - s->t[i - 1], a = s->v[i - 1] + s->out[i - 1] * dt / 3;
			double b2 = s->v[i] - s->in[i] * dt / 3;
			lo = fmin(lo, fmin(a, b2)), hi = fmax(hi, fmax(a, b2));
		}
	}
	if (!s->n)
		lo = 0, hi = 1;
	if (hi - lo < 1e-9)
		lo -= 1, hi += 1;
	if (tmax <= 0)
		tmax = 1;
#define X(t) (x0 + ML + (t) / tmax * w)
#define Y(v) (y0 + MT + (hi - (v)) / (hi - lo) * h)
	af_buf_printf(b, "<g class=\"panel\">\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"frame\"/>\n",
		      x0 + ML, y0 + MT, w, h);
	af_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" class=\"title\">", x0 + ML, y0 + MT - 6);
	esc(b, s->title);
	af_buf_printf(b, " (%s)</text>\n", s->unit);
	af_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" class=\"vlab\">%.4g</text>\n", x0 + ML - 4, y0 + MT + 8, hi);
	af_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" class=\"vlab\">%.4g</text>\n", x0 + ML - 4, y0 + MT + h, lo);
	af_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" class=\"tlab\">0 s</text>\n", x0 + ML, y0 + PH - MB + 14);
	af_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" class=\"tlab end\">%.4g s</text>\n", x0 + ML + w,
		      y0 + PH - MB + 14, tmax);
	for (size_t i = 0; i < nm; i++) {
		af_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"event\"><title>",
			      X(m[i].t), y0 + MT, X(m[i].t), y0 + MT + h + 5);
		esc(b, m[i].label);
		af_buf_printf(b, "</title></line>\n<text x=\"%.1f\" y=\"%.1f\" class=\"elab\">", X(m[i].t), y0 + PH - MB + 24);
		esc(b, m[i].label);
		af_buf_puts(b, "</text>\n");
	}
	if (!s->n)
		af_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" class=\"tlab\">no key stores a value</text>\n",
			      x0 + ML + 8, y0 + MT + h / 2);
	af_buf_puts(b, "<path class=\"curve\" d=\"");
	for (size_t i = 0; i < s->n; i++) {
		if (!i || !s->in) {
			af_buf_printf(b, "%s%.2f %.2f", i ? " L" : "M", X(s->t[i]), Y(s->v[i]));
			continue;
		}
		double dt = s->t[i] - s->t[i - 1]; /* a cubic Hermite segment as a Bezier */
		af_buf_printf(b, " C%.2f %.2f %.2f %.2f %.2f %.2f", X(s->t[i - 1] + dt / 3),
			      Y(s->v[i - 1] + s->out[i - 1] * dt / 3), X(s->t[i] - dt / 3),
			      Y(s->v[i] - s->in[i] * dt / 3), X(s->t[i]), Y(s->v[i]));
	}
	af_buf_puts(b, "\"/>\n");
	for (size_t i = 0; i < s->n; i++)
		af_buf_printf(b, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"1.8\" class=\"key\"/>\n", X(s->t[i]), Y(s->v[i]));
	af_buf_puts(b, "</g>\n");
#undef X
#undef Y
}

static void svg(struct plot *p, struct af_buf *b)
{
	double y = p->opt && p->opt->title ? 34 : 10, height;
	size_t total = 0;
	for (size_t i = 0; i < p->no; i++)
		total += HEAD + (p->o[i].count + COLS - 1) / COLS * (PH + GAP);
	height = y + (double)total + (p->skipped ? 24 : 0) + 10;
	af_buf_printf(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\">\n",
		      COLS * PW + 20, height, COLS * PW + 20, height);
	af_buf_puts(b, "<style>text{font:11px sans-serif;fill:#222}.title{font-weight:bold}"
		       ".vlab{text-anchor:end;fill:#555}.tlab{fill:#555}.end{text-anchor:end}"
		       ".head{font-size:14px;font-weight:bold}.doc{font-size:16px;font-weight:bold}"
		       ".frame{fill:#fafafa;stroke:#bbb}.curve{fill:none;stroke:#1f5fbf;stroke-width:1.5}"
		       ".key{fill:#c0392b}.event{stroke:#e67e22;stroke-dasharray:3 2}"
		       ".elab{fill:#e67e22;font-size:9px;text-anchor:middle}</style>\n"
		       "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n");
	if (p->opt && p->opt->title) {
		af_buf_puts(b, "<text x=\"10\" y=\"22\" class=\"doc\">");
		esc(b, p->opt->title);
		af_buf_puts(b, "</text>\n");
	}
	for (size_t i = 0; i < p->no; i++) {
		const struct object *o = &p->o[i];
		af_buf_printf(b, "<g class=\"object\">\n<text x=\"10\" y=\"%.0f\" class=\"head\">", y + 18);
		esc(b, o->title);
		af_buf_puts(b, "</text>\n");
		y += HEAD;
		for (size_t k = 0; k < o->count; k++)
			panel(b, &p->s[o->first + k], p->m + o->mfirst, o->mcount, o->t_end,
			      10 + (double)(k % COLS) * PW, y + (double)(k / COLS) * (PH + GAP));
		y += (double)((o->count + COLS - 1) / COLS) * (PH + GAP);
		af_buf_puts(b, "</g>\n");
	}
	if (p->skipped)
		af_buf_printf(b, "<text x=\"10\" y=\"%.0f\">%zu more objects not drawn (animfs plot --object NAME draws one)</text>\n",
			      y + 16, p->skipped);
	af_buf_puts(b, "</svg>\n");
}

int af_plot_svg(const uint8_t *yaml, size_t n, const struct af_plot_opts *o, struct af_buf *out,
		struct af_diag *d)
{
	struct af_ydoc doc;
	struct plot p = { .d = d, .opt = o };
	const char *format;
	size_t start = out->len;
	int rc;
	if (o && o->nobjects && !(p.hit = af_alloc_zeroed(o->nobjects, 1)))
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	if ((rc = af_ydoc_parse(&doc, yaml, n, NULL, d))) {
		free(p.hit);
		return rc;
	}
	format = str(af_ymap_get(doc.root, "format"));
	if (!format) {
		rc = af_diag_error(d, AF_EUNSUP, "no top-level 'format:' key: not an animfs view");
		goto out;
	}
	if (!strcmp(format, "diesel-animation"))
		plot_diesel(&p, doc.root);
	else if (!strcmp(format, "shenmue-motn"))
		plot_motn(&p, doc.root);
	else if (!strcmp(format, "re-model"))
		plot_re(&p, doc.root);
	else {
		rc = af_diag_error(d, AF_EUNSUP, "%s documents have no curves to plot", format);
		goto out;
	}
	if (p.oom) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; o && i < o->nobjects; i++)
		if (!p.hit[i]) {
			rc = af_diag_error(d, AF_EINVAL, "no object '%s' with curves in this %s document",
					   o->objects[i], format);
			goto out;
		}
	svg(&p, out);
	if (out->failed)
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
out:
	if (rc)
		out->len = start;
	for (size_t i = 0; i < p.ns; i++) {
		free(p.s[i].t);
		free(p.s[i].v);
		free(p.s[i].in);
		free(p.s[i].out);
	}
	free(p.s);
	free(p.hit);
	free(p.m);
	free(p.o);
	af_ydoc_free(&doc);
	return rc;
}
