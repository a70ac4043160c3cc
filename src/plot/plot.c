/* af_plot_svg: a view's YAML -> curves (the codec named by the document's `format:` reads
 * them from the document's own keys, through its curves hook) -> an SVG of small panels.
 * Only the YAML is read, through the project's tree reader; no format is named here. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/codec.h"
#include "animfs/curves.h"
#include "animfs/plot.h"
#include "animfs/yamlio.h"

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

static void panel(struct af_buf *b, const struct af_curve *s, const struct af_curve_marker *m, size_t nm,
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

static void svg(const struct af_curves *p, const struct af_plot_opts *opt, struct af_buf *b)
{
	double y = opt && opt->title ? 34 : 10, height;
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
	if (opt && opt->title) {
		af_buf_puts(b, "<text x=\"10\" y=\"22\" class=\"doc\">");
		esc(b, opt->title);
		af_buf_puts(b, "</text>\n");
	}
	for (size_t i = 0; i < p->no; i++) {
		const struct af_curve_object *o = &p->o[i];
		af_buf_printf(b, "<g class=\"object\">\n<text x=\"10\" y=\"%.0f\" class=\"head\">", y + 18);
		esc(b, o->title);
		af_buf_puts(b, "</text>\n");
		y += HEAD;
		for (size_t k = 0; k < o->count; k++)
			panel(b, &p->c[o->first + k], p->m + o->mfirst, o->mcount, o->t_end,
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
	struct af_curves cv;
	const struct af_codec *c;
	const char *format;
	const struct af_ybudget *mem = o ? o->mem : NULL;
	size_t start = out->len;
	int rc, parsed = 1;
	if (af_curves_init(&cv, o ? o->objects : NULL, o ? o->nobjects : 0,
			   o && o->max_objects ? o->max_objects : AF_PLOT_MAX_OBJECTS))
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	if (mem) {
		cv.room = mem->room;
		cv.room_ctx = mem->ctx;
	}
	if ((rc = af_ydoc_parse(&doc, yaml, n, mem ? mem->lim : NULL, d))) {
		af_curves_free(&cv);
		return rc;
	}
	format = af_cv_str(af_ymap_get(doc.root, "format"));
	if (!format) {
		rc = af_diag_error(d, AF_EUNSUP, "no top-level 'format:' key: not an animfs view");
		goto out;
	}
	if (!(c = af_codec_by_name(format)) || !c->curves) {
		rc = af_diag_error(d, AF_EUNSUP, "%s documents have no curves to plot", format);
		goto out;
	}
	if (c->curves(doc.root, &cv) || cv.oom) {
		rc = af_diag_error(d, AF_ENOMEM, cv.over ? "the curves need more memory than the plot may take"
							 : "out of memory");
		goto out;
	}
	for (size_t i = 0; i < cv.nselect; i++)
		if (!cv.hit[i]) {
			rc = af_diag_error(d, AF_EINVAL, "no object '%s' with curves in this %s document",
					   cv.select[i], format);
			goto out;
		}
	af_ydoc_free(&doc); /* the curves hold what the picture needs: the tree's room is the SVG's */
	parsed = 0;
	if (mem && mem->freed)
		mem->freed(mem->ctx);
	svg(&cv, o, out);
	if (out->failed)
		rc = af_diag_error(d, AF_ENOMEM, out->over ? "the SVG is larger than the plot may take" : "out of memory");
out:
	if (rc)
		out->len = start;
	af_curves_free(&cv);
	if (parsed)
		af_ydoc_free(&doc);
	return rc;
}
