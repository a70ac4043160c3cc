/* listcache.c: folders' listings kept by the FUSE face between opens (private to
 * src/fs). Only where every change of a name reaches the face (ops.c: names kept by the
 * kernel, a single-user mount told of every change): a request through the mount
 * (ops.c), a verdict or a change behind its back (session.c's notes) each start a new
 * generation. A listing is served again while its generation lasts and what it is made
 * of (af_ns_list_id: the folder's own identity in GAME and MODDIR, a container's or a
 * split view's file) is unchanged: a name made or removed in GAME behind the mount's back
 * changes its folder's identity at once, before the watch's event is read. Bounded:
 * 4 MiB of names in all, a listing of more than 1 MiB is not kept. */
#ifndef ANIMFS_FS_LISTCACHE_H
#define ANIMFS_FS_LISTCACHE_H

#include <stdint.h>

struct af_dirlist;

/* A name may have changed: no kept listing is served again. */
void af_lc_changed(void);
/* The generation a listing starts in. */
unsigned long af_lc_generation(void);
/* path's listing of identity id copied into l when one of this generation is kept: 1,
 * else 0. */
int af_lc_get(const char *path, uint64_t id, struct af_dirlist *l);
/* l, path's listing of identity id made from generation gen on: kept when no name
 * changed since. */
void af_lc_put(const char *path, unsigned long gen, uint64_t id, const struct af_dirlist *l);
/* Everything let go (the end of the mount). */
void af_lc_free(void);

#endif
