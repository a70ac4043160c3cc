/* ghost.c: backing names renamed away in the view (private to src/fs). */
#ifndef ANIMFS_FS_GHOST_H
#define ANIMFS_FS_GHOST_H

#include "res.h"
#include "session.h"

/* Whether rel was renamed away (its kind then in *kind). None renamed away (the common
 * case): answered here, without the mount's lock. */
int af_ghost_has(struct af_fs *fs, const char *rel, enum af_kind *kind);
static inline int af_ghost_any(struct af_fs *fs)
{
	return __atomic_load_n(&fs->ghosts, __ATOMIC_ACQUIRE) != NULL;
}
void af_ghost_add(struct af_fs *fs, const char *rel, enum af_kind kind);
void af_ghost_del(struct af_fs *fs, const char *rel);
/* Those of kind directly in the folder dir go (shown again). */
void af_ghost_del_under(struct af_fs *fs, const char *dir, enum af_kind kind);

#endif
