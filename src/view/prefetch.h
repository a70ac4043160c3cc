/* prefetch.c: listed views rendered ahead on a pool of workers (private to src/fs). */
#ifndef ANIMFS_FS_PREFETCH_H
#define ANIMFS_FS_PREFETCH_H

#include <sys/stat.h>

#include "render.h"
#include "session.h"

struct af_fs;

struct af_prefetch;
/* render: how a worker renders a view (view.c's af_view_render, handed down by the
 * session so that prefetch calls nothing above it). */
typedef int (*af_prefetch_render_fn)(struct af_fs *fs, const char *bin_rel,
				     const struct stat *st, struct af_text **out);
struct af_prefetch *af_prefetch_new(af_prefetch_render_fn render);
/* Stop the workers (a render under way finishes), drop the queue, free. */
void af_prefetch_free(struct af_prefetch *p);
/* A listing named the view of the GAME file rel (its size not known): queue it. */
void af_prefetch_add(struct af_fs *fs, const char *rel, const struct stat *st);
/* Before rendering st's view: take it off the queue, or wait while a worker renders it
 * (its text is then in the cache). */
void af_prefetch_claim(struct af_fs *fs, const struct stat *st);
/* Whether a view may be queued or in a worker's hands: its workers started (at the
 * first listing, when not off). Before (and always with ANIMFS_PREFETCH=0) a render has
 * nothing to claim: answered here, as af_ghost_any is. */
static inline int af_prefetch_any(struct af_fs *fs)
{
	return __atomic_load_n(&fs->prefetching, __ATOMIC_ACQUIRE);
}

#endif
