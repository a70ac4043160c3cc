/* Names in paths, written once: the base name and its extension. */
#ifndef ANIMFS_PATH_H
#define ANIMFS_PATH_H

/* What follows the last '/' of path (path itself when it has none). */
const char *af_base(const char *path);
/* The extension of path's base name, after its last '.', or "" (none, or a name that
 * only starts with a dot). */
const char *af_ext(const char *path);

#endif
