/* hidden.c: .fuse_hidden aliases of removed or replaced open files (private to src/fs). */
#ifndef ANIMFS_FS_HIDDEN_H
#define ANIMFS_FS_HIDDEN_H

#include <stddef.h>

struct af_fs;


/* The start of the names the FUSE library hides an open file under. */
#define AF_ALIAS_PREFIX ".fuse_hidden"

struct af_alias;
/* Whether rel's base name is one the FUSE library hides an open file under. */
int af_alias_is_hidden(const char *rel);
int af_alias_add(struct af_fs *fs, const char *hidden, const char *orig);
/* The name a hidden one stands for (1), or 0. */
int af_alias_orig(struct af_fs *fs, const char *hidden, char *orig, size_t size);
/* A replace of orig failed: its aliases no longer remove it. The count marked. */
int af_alias_detach(struct af_fs *fs, const char *orig);
/* Remove the alias (1, with its name and whether it was detached), or 0. */
int af_alias_take(struct af_fs *fs, const char *hidden, char *orig, size_t size, int *detached);
void af_alias_free_all(struct af_fs *fs);

#endif
