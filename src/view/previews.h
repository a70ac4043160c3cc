/* previews.c: a folder of .animfs/gltf/ listed as the folder it mirrors, a preview name
 * for each of its views that has one; a glTF saved through a preview. */
#ifndef ANIMFS_FS_PREVIEWS_H
#define ANIMFS_FS_PREVIEWS_H

#include <stddef.h>
#include <stdint.h>

#include "ns.h"

struct af_fs;

/* What a listing of the mirrored folder gives its names to (as the arg of
 * af_previews_fill): the preview folder's own listing. */
struct af_previews {
	struct af_fs *fs;
	const char *dir;         /* the mirrored folder's path ("/" for the root) */
	af_ns_fill fill;         /* the preview folder's listing */
	void *arg;
};

/* 1 with the path of the folder it mirrors ("/a/b") in path when rel is .animfs/gltf or
 * a folder of it (.animfs/gltf/a/b), else 0. */
int af_previews_mirror(const char *rel, char *path, size_t size);
/* An af_ns_fill for the mirrored folder's listing (arg: struct af_previews): a folder
 * by its name, a view that has a preview as "<view>.glb", nothing else. */
int af_previews_fill(void *arg, const char *name);

/* 1 with the view's path ("/a/b.animation.yaml") in view when rel is a preview's file
 * (.animfs/gltf/a/b.animation.yaml.glb), else 0. */
int af_previews_view(const char *rel, char *view, size_t size);
/* A glTF written to the preview rel, saved into its view's binary (a struct af_handle's
 * save): the import's result, when it changed anything, committed as that file's view
 * (to: where, by whom); each changed channel a note in .animfs/errors (and a refusal
 * there too). 0 or -errno. */
struct af_dest;
int af_previews_save(struct af_fs *fs, const struct af_dest *to, const char *rel, const uint8_t *gl, size_t n);

#endif
