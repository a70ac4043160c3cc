/* gltf_read.c: a glTF 2.0 file (GLB, or JSON with its buffers as data: URIs) read back
 * for af_gltf_import: its nodes' names and its animations' channels, every index, count,
 * offset and number checked first (private to src/gltf). */
#ifndef ANIMFS_GLTF_IN_H
#define ANIMFS_GLTF_IN_H

#include <stddef.h>
#include <stdint.h>

#include "animfs/diag.h"
#include "animfs/scene.h"

struct af_gin_chan {
	size_t node;
	enum af_scene_path path;
	size_t n;       /* keys */
	float *t, *v;   /* n times (seconds, increasing), n * 3 or n * 4 values */
};

struct af_gin_anim {
	char *name;
	size_t first, count; /* its channels */
};

struct af_gin {
	char **name;         /* each node's name ("" when it has none) */
	long *parent;        /* each node's parent, or -1 */
	size_t nnode;
	struct af_gin_anim *anim;
	size_t nanim;
	struct af_gin_chan *ch;
	size_t nch;
};

/* The file (b, n) into g: 0, or AF_EINVAL (AF_EUNSUP for what glTF allows and this reader
 * does not: a buffer in another file, a sparse or integer accessor, CUBICSPLINE) with d
 * saying where; AF_ENOMEM. Values and times are finite, times increasing, counts and
 * ranges inside the file, the nodes a forest. g is freed on failure. */
int af_gltf_read(const uint8_t *b, size_t n, struct af_gin *g, struct af_diag *d);
void af_gin_free(struct af_gin *g);

#endif
