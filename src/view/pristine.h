/* pristine.c: a container's bytes before the mount first rewrote it (private to src/fs). */
#ifndef ANIMFS_FS_PRISTINE_H
#define ANIMFS_FS_PRISTINE_H

#include <sys/stat.h>

#include "animfs/buf.h"

struct af_fs;

struct af_archive;
struct af_src;
/* Before a rewrite of the container pkg (file: its bytes, copied by the kernel; cur: its
 * identity): keep them, unless the copy kept is of the file the mount wrote last. */
void af_pristine_keep(struct af_fs *fs, const char *pkg, const struct stat *cur,
		      const struct af_src *file);
/* The rewrite's new file w (written in fd, open for reading and writing) holds the same
 * members with the same bodies as the copy: fd is rewritten as the copy (1), else 0;
 * -1 when that rewrite failed (fd holds neither: the save must not go on).
 * Member `first` of w (the one that changed) is compared first: an edit that is no
 * revert costs that member, not the archive. */
int af_pristine_match(struct af_fs *fs, const char *pkg, const struct af_archive *w,
		      size_t first, int fd);
/* The mount wrote pkg: now is that file's identity. */
void af_pristine_wrote(struct af_fs *fs, const char *pkg, const struct stat *now);

#endif
