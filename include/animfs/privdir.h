/* animfs's own folders in a user's home (the cache, the state, the name dictionary's
 * folder), opened so that no link planted on the way is followed: whoever can write
 * in that home (a daemon started by root with another user's HOME) cannot send the
 * files animfs makes there anywhere else. */
#ifndef ANIMFS_PRIVDIR_H
#define ANIMFS_PRIVDIR_H

#include <stddef.h>
#include <sys/types.h>
#include "animfs/diag.h"

/* The folder leaf ("animfs") in $xdg (an absolute path; "XDG_CACHE_HOME") or, without
 * it, in $HOME/home_rel (".cache"), as a descriptor (O_DIRECTORY, close-on-exec).
 * The base ($xdg or $HOME) is taken as the environment names it; each folder below it
 * is opened without following a link (one is refused, never followed), the missing
 * ones made with mode. The leaf must be a folder owned by this thread's user and is
 * given mode (0700 for the cache and the state; the names' folder, which every
 * caller of a shared mount reads, 0755). path (size bytes) gets the leaf's path.
 * fd, or: AF_EINVAL when neither variable names an absolute folder; AF_EPERM when
 * a path on the way is refused (a link, not a folder, another user's leaf); AF_EIO
 * when a folder cannot be made or opened (errno kept: ENOENT for a missing one when
 * make is 0). d says which path and why. */
int af_private_dir(const char *xdg, const char *home_rel, const char *leaf, mode_t mode,
		   int make, char *path, size_t size, struct af_diag *d);

#endif
