/* Pictures of a view's curves: an SVG with one small panel per object and channel, read
 * from the view's YAML alone (no codec internals), so the command line and the mount
 * (VIEW/.animfs/plot/<path of the view>.svg) draw the same picture of the same text. */
#ifndef ANIMFS_PLOT_H
#define ANIMFS_PLOT_H

#include <stddef.h>
#include <stdint.h>
#include "animfs/buf.h"
#include "animfs/diag.h"
#include "animfs/yamlio.h"

struct af_plot_opts {
	const char *const *objects; /* names to draw (NULL: every object, up to max_objects) */
	size_t nobjects;
	unsigned max_objects;       /* 0: AF_PLOT_MAX_OBJECTS */
	const char *title;          /* NULL: none (the command line passes the file name) */
	const struct af_ybudget *mem; /* the memory it may take (the mount's bound), or NULL */
};
#define AF_PLOT_MAX_OBJECTS 24

/* The SVG of the YAML document (yaml, n), appended to out: the curves that the codec
 * named by its `format:` reads from it (the codec's curves hook, curves.h), one panel per
 * channel with its unit, keys as dots, Hermite segments where a channel has tangents,
 * markers (events, flagged frames) on the time axis. 0; AF_EUNSUP (d says why) for a
 * format without curves or a document without a known format; AF_EINVAL with d for text
 * that is no YAML, or an --object name the document lacks; AF_ENOMEM past o->mem (the
 * document's tree is freed before the SVG is written). */
int af_plot_svg(const uint8_t *yaml, size_t n, const struct af_plot_opts *o, struct af_buf *out,
		struct af_diag *d);

#endif
