/* A scene in no format's words, for previews (glTF, gltf.h): nodes with names, a parent and
 * a rest transform; meshes drawn by a node; one optional RGBA image for the meshes'
 * texture coordinates; animations whose channels move one node's translation, rotation
 * or scale over time (seconds). A codec's `scene` hook (codec.h) fills one from its own
 * YAML document; af_scene_check proves the model sound before anything is written. */
#ifndef ANIMFS_SCENE_H
#define ANIMFS_SCENE_H

#include <stddef.h>
#include <stdint.h>
#include "animfs/buf.h"
#include "animfs/diag.h"
#include "animfs/io.h"
#include "animfs/nameidx.h"
#include "animfs/yamlio.h"

/* Sizes a scene may have: past these af_scene_check refuses it (a file's absurd counts
 * never become a preview that no viewer opens). */
#define AF_SCENE_MAX_NODES 65536
#define AF_SCENE_MAX_VERTS (1u << 22)
#define AF_SCENE_MAX_KEYS (1u << 26) /* keys over all channels */
#define AF_SCENE_MAX_IMAGE 4096      /* pixels a side */

enum af_scene_path { AF_SC_TRANSLATION, AF_SC_ROTATION, AF_SC_SCALE };

struct af_scene_node {
	char name[128];
	long parent;      /* a node's index, or -1: a root */
	double t[3], r[4], s[3]; /* rest translation, rotation (quaternion x, y, z, w), scale */
	long mesh;        /* the mesh this node draws, or -1 */
	unsigned line;    /* the YAML line it comes from (0: none), for errors */
};

struct af_scene_mesh {
	char name[64];
	size_t nv, ni;
	float *pos;       /* nv * 3 */
	float *nrm;       /* nv * 3, or NULL */
	float *uv;        /* nv * 2 (0..1, the image's), or NULL */
	uint32_t *idx;    /* ni, three per triangle */
	unsigned line;
};

struct af_scene_channel {
	size_t node;
	enum af_scene_path path;
	int step;         /* 1: STEP interpolation, 0: LINEAR */
	size_t n, cap;
	float *t;         /* n times, seconds, increasing */
	float *v;         /* n * 3 (translation, scale) or n * 4 (rotation x, y, z, w) */
	unsigned line;
	/* One stored step of its values (the file's quantisation, in the values' units), or 0
	 * when the file stores floats: a glTF brought back (af_gltf_import) whose keys agree
	 * with these within it leaves the channel as it is. */
	double quantum;
};

/* A channel of a glTF brought back that differs from the file's (af_gltf_import): the
 * animation, node and path as the scene hook named them, and its keys as the glTF gives
 * them (times in seconds, increasing; n * 3 or n * 4 values), for a codec's
 * scene_import hook (codec.h), which says what it made of them. */
struct af_scene_edit {
	const char *anim, *node;
	enum af_scene_path path;
	size_t n;
	const float *t, *v;
	/* set by the hook: the keys the file held and holds now, and the largest distance of
	 * the new keys' curve from the glTF's keys, in stored steps */
	size_t keys_before, keys_after;
	double max_steps;
	/* set by the hook when, sample by sample, the glTF's keys are within one stored step of
	 * the file's curve after all (a step finer than the scene's quantum could say): the
	 * channel stays exactly as it was, counted with those as they were */
	int same;
	/* and, when the channel's own storage had to change to hold the keys (a range
	 * refitted), what and why, for the report; empty otherwise */
	char note[200];
	/* set by the caller: a value outside its channel's stored range may change that
	 * range (`animfs import --refit`, as `refit: true` in the YAML); 0: refused */
	int refit;
};

struct af_scene_anim {
	char name[160];
	size_t first, count; /* its channels */
	struct af_buf extras; /* JSON object members ("\"k\": v, ...") for its extras, or empty */
	/* Its timing as the format counts it (af_scene_timing; rate 0: none given): frames a
	 * second, the frames of the sequence, the seconds from its first frame to its last,
	 * and where in the file it comes from (the glTF name says rate, extras all four). */
	double rate, frames, duration;
	char source[160];
};

struct af_scene {
	struct af_scene_node *node;
	size_t nnode, capnode;
	struct af_scene_mesh *mesh;
	size_t nmesh, capmesh;
	struct af_scene_channel *ch;
	size_t nch, capch;
	struct af_scene_anim *anim;
	size_t nanim, capanim;
	unsigned img_w, img_h;
	uint8_t *img;          /* img_w * img_h * 4 RGBA, or NULL */
	/* To glTF's metres, Y up, right-handed: a root node "<root_name>" with this scale
	 * and rotation holds every root of the model (none when scale 1 and no rotation). */
	double scale, axes[4];
	char root_name[64];
	struct af_buf extras;  /* JSON object members for asset.extras.animfs */
	/* The document's siblings (its binary's folder or container; gltf.h), or NULL: a scene
	 * hook reads from them only what its format keeps beside the file (an EMD's .TIM). */
	const struct af_io *io;
	const char *const *select; /* the animations asked for (--anim), NULL: all */
	size_t nselect;
	unsigned char *hit;
	int oom;
	/* The model's bytes as it grows, told to room (af_ybudget's; NULL: no bound): past
	 * what it lets the scene take, oom and over are set. */
	size_t bytes;
	int (*room)(void *ctx, size_t bytes);
	void *room_ctx;
	int over;
	/* the nodes by name, for af_scene_find: nodes 0..idx_n-1 in an index of room idx_cap */
	struct af_nameidx byname;
	size_t idx_n, idx_cap;
};

/* An empty scene that keeps the animations named in select (nselect; none: all). 0 or
 * AF_ENOMEM. */
int af_scene_init(struct af_scene *sc, const char *const *select, size_t nselect);
void af_scene_free(struct af_scene *sc);

/* ---- for a codec's scene hook ---- */
/* A new node as its index (identity rest pose, no mesh); SIZE_MAX when out of memory. */
size_t af_scene_node(struct af_scene *sc, const char *name, long parent, unsigned line);
/* The first node called name, or -1. */
long af_scene_find(const struct af_scene *sc, const char *name);
/* A new mesh of nv vertices (normals and uvs when asked) and ni indices, all zeroed, as
 * its index; SIZE_MAX when out of memory. */
size_t af_scene_mesh(struct af_scene *sc, const char *name, size_t nv, int normals, int uvs,
		     size_t ni, unsigned line);
/* Whether the animation called name is wanted (--anim); notes that it was found. */
int af_scene_wanted(struct af_scene *sc, const char *name);
/* A new animation, which the channels added next belong to. 0 or AF_ENOMEM. */
int af_scene_anim(struct af_scene *sc, const char *name);
/* The timing of the last animation: rate frames a second, frames of the sequence, duration
 * seconds from its first frame to its last, and source, where in the file it is. */
void af_scene_timing(struct af_scene *sc, double rate, double frames, double duration, const char *source);
/* A new channel of the last animation moving node's path, as its index; SIZE_MAX when out
 * of memory. */
size_t af_scene_channel(struct af_scene *sc, size_t node, enum af_scene_path path, unsigned line);
/* A key of channel ch: time t (seconds) and 3 or 4 values (by its path). */
void af_scene_key(struct af_scene *sc, size_t ch, double t, const double *v);
/* The RGBA image of w x h pixels, zeroed, for the codec to fill; NULL when out of memory
 * or too big. */
uint8_t *af_scene_image(struct af_scene *sc, unsigned w, unsigned h);
/* A string member "key": "value" of asset.extras.animfs (or of the last animation's
 * extras with anim set); a raw JSON value with raw set. */
void af_scene_extra(struct af_scene *sc, int anim, const char *key, const char *value, int raw);
/* s as a JSON string (quotes, escapes) appended to b. */
void af_scene_jstr(struct af_buf *b, const char *s);

/* Items from .. from+k-1 of the sequence seq as finite numbers into v: 0, or AF_EINVAL
 * with d at seq's line ("<what>: ..."). */
int af_scene_nums(const struct af_ynode *seq, size_t from, size_t k, double *v, const char *what,
		  struct af_diag *d);

/* The value at time x of a curve of n keys (times t, w values each: 3, or 4 for a
 * quaternion): linear between keys, held past its ends; a quaternion's next key
 * sign-aligned with the one before. For the import (af_gltf_import) and the scene_import
 * hooks, which read a glTF's curve where the file keeps its keys. */
void af_scene_curve_at(const float *t, const float *v, size_t n, size_t w, double x, double *out);

/* ---- for the writer ---- */
/* Whether sc is a sound model: parents in range and no loop, mesh indices inside their
 * mesh, channels on existing nodes with finite values and increasing times, no two
 * channels of an animation on one node's path, sizes under the limits above. 0, or
 * AF_EINVAL with d naming the place (the YAML line). Also drops empty animations and
 * makes rotations unit quaternions and normals unit vectors. AF_EINVAL too when
 * animations were asked for by a name the document lacks. */
int af_scene_check(struct af_scene *sc, struct af_diag *d);

/* Rotations for scene hooks: q = the quaternion of the rotation matrix Rx*Ry*Rz (column
 * vectors: Z applied first) of the angles e (radians); and the product a*b. */
/* For each of n nodes (parent(ctx, i): a node's index, or anything outside 0..n-1 for none),
 * whether the walk up its parents runs into a loop: loop[i] 1 or 0. Linear in n (each
 * node walked once), where a walk from every node is quadratic in a chain's depth. */
void af_parent_loops(size_t n, long (*parent)(const void *ctx, size_t i), const void *ctx, uint8_t *loop);
void af_quat_xyz(const double e[3], double q[4]);
void af_quat_mul(const double a[4], const double b[4], double out[4]);

#endif
