/* pristine.c: a container's bytes before the mount first rewrote it (private to src/fs). */
#ifndef ANIMFS_FS_PRISTINE_H
#define ANIMFS_FS_PRISTINE_H

#include <sys/stat.h>

#include "animfs/buf.h"

struct af_fs;

struct af_archive;
/* Before a rewrite of the container pkg (file: its bytes, cur: its identity): keep them,
 * unless the copy kept is of the file the mount wrote last (still that one). */
void af_pristine_keep(struct af_fs *fs, const char *pkg, const struct stat *cur,
		      const struct af_buf *file);
/* The rewrite's image w (bytes image) holds the same members with the same bodies as
 * the copy: image becomes the copy (1), else 0. */
int af_pristine_match(struct af_fs *fs, const char *pkg, const struct af_archive *w,
		      struct af_buf *image);
/* The mount wrote pkg: now is that file's identity. */
void af_pristine_wrote(struct af_fs *fs, const char *pkg, const struct stat *now);

#endif
