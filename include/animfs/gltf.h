/* glTF 2.0 previews of a view: the scene (scene.h) that the codec named by the document's
 * `format:` reads from its YAML alone, written as a GLB (or a .gltf with its buffer
 * inline), so the command line and the mount (VIEW/.animfs/gltf/<view path>.glb) make the
 * same file of the same text. Names no format. */
#ifndef ANIMFS_GLTF_H
#define ANIMFS_GLTF_H

#include <stddef.h>
#include <stdint.h>
#include "animfs/buf.h"
#include "animfs/diag.h"
#include "animfs/io.h"
#include "animfs/scene.h"
#include "animfs/yamlio.h"

struct af_gltf_opts {
	const char *const *anims; /* animations to keep (NULL: all) */
	size_t nanims;
	int json;                 /* 1: glTF JSON with a data: URI buffer; 0: GLB */
	const uint8_t *base;      /* NULL, or a document whose scene's nodes come first (a */
	size_t nbase;             /* skeleton the animation moves: `--rig FILE`) */
	const char *title;        /* the asset's name in extras (NULL: none) */
	/* The document's siblings (its binary's folder or container), or NULL. With no base,
	 * the codec's scene_base hook (codec.h) may pick one whose skeleton goes first (the
	 * sibling decoded by the codec that bids for it); asset.extras.animfs names it. The
	 * scene hook may read what its format keeps beside the file (scene.h's io). */
	const struct af_io *io;
	/* A folder of skeletons (`--rig-dir`: rigs a user extracted from the game), or NULL:
	 * when the siblings give none, the scene_base hook picks from these by the same rule. */
	const struct af_io *rig_dir;
	/* A skeleton text (`--skeleton FILE`, docs/gltf.md), or NULL: one "CHILD -> PARENT"
	 * a line (PARENT "-": a root; "#" starts a comment; " @ X Y Z" after PARENT: the
	 * child's rest offset), node names as the preview names them; each line whose CHILD
	 * the scene has sets that node's parent (and offset), over the codec's. */
	const uint8_t *skeleton;
	size_t nskeleton;
	/* The memory it may take (the mount's bound: the documents' trees, the scene, the JSON
	 * beside the file), or NULL. The document's tree is freed once the scene is read. */
	const struct af_ybudget *mem;
};

/* The glTF of the YAML document (yaml, n) appended to out. 0; AF_EUNSUP (d says why) for
 * a format without a scene hook or a document of no known format; AF_EINVAL with d for
 * text that is no YAML, a model that is not sound (af_scene_check: the place named), an
 * --anim name the document lacks, or a skeleton text's line that is not "CHILD -> PARENT"
 * or names a PARENT the scene lacks. After a failure out holds what it held before. */
int af_gltf_from_yaml(const uint8_t *yaml, size_t n, const struct af_gltf_opts *o,
		      struct af_buf *out, struct af_diag *d);

/* The glTF of a checked scene appended to out (json as in the options). 0 or AF_ENOMEM. A
 * GLB's binary chunk is written in its place in out and the head put in front of it (no
 * second copy); mem (or NULL): the JSON's parts are counted with the scene as they grow (out->over set
 * when refused). */
int af_gltf_write(const struct af_scene *sc, int json, const char *title, struct af_buf *out);
int af_gltf_write_room(const struct af_scene *sc, int json, const char *title, const struct af_ybudget *mem,
		       struct af_buf *out);

/* `animfs import`: a glTF brought back into a game file. */
struct af_gltf_import_opts {
	const char *const *anims; /* the file's animations to take from the glTF (NULL: all) */
	size_t nanims;
	const struct af_io *io;   /* the original's siblings (as for from_yaml), or NULL */
	/* The memory it may take (the mount's bound: the view's tree, the glTF's values read
	 * out, the scene; the file made is out's own bound), or NULL. */
	const struct af_ybudget *mem;
	int refit; /* --refit: a channel's range may change to hold the glTF's values */
};

/* The glTF (gl, ngl: GLB, or JSON with data: URI buffers) merged into the game file bin
 * (nbin bytes) whose view is yaml (nyaml), appended to out: the animations matched by
 * name (the file's own or the preview's "<name> @<rate>fps"), their channels by node name
 * and path; a channel whose curve agrees with the file's within one stored step at every
 * key of either stays as it is (none changed: out gets bin itself); the others go to the
 * codec's scene_import hook (codec.h). What the glTF moves that the file has no place for
 * (an animation, a joint, a channel; a channel that holds its rest value is passed over)
 * is AF_EINVAL, a format without the hook AF_EUNSUP, a hostile glTF (counts, ranges,
 * NaN, a loop in the nodes, buffers missing or shorter than said) AF_EINVAL, with d
 * saying what; then out is as it was. report (may be NULL) gets a line per changed
 * channel (keys in and out, the largest error in steps) and a summary line. */
int af_gltf_import(const uint8_t *gl, size_t ngl, const uint8_t *yaml, size_t nyaml, const uint8_t *bin,
		   size_t nbin, const struct af_gltf_import_opts *o, struct af_buf *out, struct af_buf *report,
		   struct af_diag *d);

/* A PNG (RGBA, 8 bits, zlib) of w x h pixels appended to out. 0 or AF_ENOMEM. */
int af_png_rgba(const uint8_t *rgba, unsigned w, unsigned h, struct af_buf *out);

#endif
