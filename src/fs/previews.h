/* previews.c: a folder of .animfs/gltf/ listed as the folder it mirrors, a preview name
 * for each of its views that has one (private to src/fs). */
#ifndef ANIMFS_FS_PREVIEWS_H
#define ANIMFS_FS_PREVIEWS_H

#include "ops.h"

struct af_fs;

/* What a listing of the mirrored folder gives its names to (as the buf of
 * af_previews_fill): the preview folder's own listing. */
struct af_previews {
	struct af_fs *fs;
	const char *dir;         /* the mirrored folder's path ("/" for the root) */
	void *buf;               /* the preview folder's listing and its filler */
	fuse_fill_dir_t filler;
};

/* 1 with the path of the folder it mirrors ("/a/b") in path when rel is .animfs/gltf or
 * a folder of it (.animfs/gltf/a/b), else 0. */
int af_previews_mirror(const char *rel, char *path, size_t size);
/* A fuse_fill_dir_t for the mirrored folder's listing (buf: struct af_previews): a folder
 * by its name, a view that has a preview as "<view>.glb", nothing else. */
int af_previews_fill(void *buf, const char *name, const struct stat *st, off_t off,
		     enum fuse_fill_dir_flags flags);

#endif
