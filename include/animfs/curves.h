/* The curves of a document in no format's words: objects, each with channels of keys
 * (time in seconds, a value in a unit a person reads, optionally Hermite tangents) and
 * markers on the time axis. A codec's `curves` hook (codec.h) fills one from its own
 * YAML document; the plotter (plot.h) draws it and names no format. */
#ifndef ANIMFS_CURVES_H
#define ANIMFS_CURVES_H

#include <stddef.h>
#include "animfs/yamlio.h"

/* One channel: key times (seconds) and values, optional tangents (units per second). */
struct af_curve {
	char title[96];     /* "position x" */
	const char *unit;   /* "cm", "deg": a string that outlives the model */
	size_t n, cap;
	int tangents;
	double *t, *v, *in, *out; /* in/out NULL: straight lines between keys */
};

struct af_curve_marker {
	double t;
	char label[48];
};

struct af_curve_object {
	char title[320];
	size_t first, count;   /* its channels */
	size_t mfirst, mcount; /* its markers */
	double t_end;          /* the clip's end (0: the last key) */
};

struct af_curves {
	struct af_curve *c;
	size_t nc, capc;
	struct af_curve_marker *m;
	size_t nm, capm;
	struct af_curve_object *o;
	size_t no, capo;
	size_t skipped;              /* objects left out (max_objects) */
	const char *const *select;   /* the names asked for (NULL: every object, up to max) */
	size_t nselect;
	unsigned max_objects;
	unsigned char *hit;          /* which of select were found */
	int oom;
	/* The model's bytes as it grows, told to room (af_ybudget's; NULL: no bound): past
	 * what it lets the model take, oom and over are set. */
	size_t bytes;
	int (*room)(void *ctx, size_t bytes);
	void *room_ctx;
	int over;
};

/* An empty model that keeps the objects named in select (nselect of them), or, with
 * none, the first max_objects. 0 or AF_ENOMEM. */
int af_curves_init(struct af_curves *cv, const char *const *select, size_t nselect,
		   unsigned max_objects);
void af_curves_free(struct af_curves *cv);

/* ---- for a codec's curves hook, in this order: an object, its channels and keys ---- */

/* Whether names were asked for (then only af_curves_match decides). */
int af_curves_selecting(const struct af_curves *cv);
/* Whether name (NULL: no) is one of the names asked for; notes that it was found. */
int af_curves_match(struct af_curves *cv, const char *name);
/* Whether the object called name (or alias, may be NULL) is kept; counts those that
 * max_objects leaves out. Ask before reading an object's keys. */
int af_curves_wanted(struct af_curves *cv, const char *name, const char *alias);
/* A new object, which the channels and markers added next belong to. 0 or AF_ENOMEM
 * (cv->oom set, as by every function below that runs out of memory). */
int af_curves_object(struct af_curves *cv, const char *title, double t_end);
/* A new channel of the last object, as its index; SIZE_MAX when out of memory. */
size_t af_curves_channel(struct af_curves *cv, const char *title, const char *unit, int tangents);
/* A key of channel ch (in and out are ignored unless the channel has tangents). */
void af_curves_key(struct af_curves *cv, size_t ch, double t, double v, double in, double out);
/* A marker on the last object's time axis. */
void af_curves_marker(struct af_curves *cv, double t, const char *label);
/* Channel ch holds angles in degrees: no 360-degree jumps between neighbouring keys. */
void af_curves_unwrap_deg(struct af_curves *cv, size_t ch);

/* Lenient readers of a document's nodes: a plot skips what does not read. */
/* A finite number: 0, or -1 (n absent, not a scalar, not a number). */
int af_cv_num(const struct af_ynode *n, double *v);
/* Item i of a sequence; NULL when seq is none or too short. */
const struct af_ynode *af_cv_item(const struct af_ynode *seq, size_t i);
/* Items of a sequence; 0 when seq is none. */
size_t af_cv_count(const struct af_ynode *seq);
/* A scalar's text; NULL when n is none. */
const char *af_cv_str(const struct af_ynode *n);

#endif
