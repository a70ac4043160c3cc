/* The mount's state (struct af_fs, session.h): set up and torn down, whatever face
 * serves it. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/fs.h"

#include "dsize.h"
#include "errlog.h"
#include "folder.h"
#include "handle.h"
#include "prefetch.h"
#include "render.h"
#include "scratch.h"
#include "session.h"
#include "splitview.h"
#include "sweep.h"
#include "view.h"
#include "watch.h"

/* .animfs/errors is another length now */
static void errors_changed(void *arg)
{
	af_face_note(arg, AF_NOTE_RESIZED, AF_CTL_DIR "/" AF_CTL_ERRORS);
}

int af_fs_init_bare(struct af_fs *fs, int rootfd, size_t cache_bytes, int read_only)
{
	memset(fs, 0, sizeof(*fs));
	fs->rootfd = rootfd;
	fs->modfd = -1;
	fs->rigdirfd = -1;
	fs->scratchfd = -1;
	fs->usersfd = -1;
	fs->pristinefd = -1;
	fs->scratch_quota = (long long)AF_DEFAULT_SCRATCH_MB << 20;
	fs->read_only = read_only;
	fs->max_unsaved = (size_t)AF_DEFAULT_UNSAVED_MB << 20;
	pthread_mutex_init(&fs->lock, NULL);
	pthread_mutex_init(&fs->commit_lock, NULL);
	af_flights_init(&fs->renders);
	af_flights_init(&fs->outputs);
	fs->cache = af_rcache_new(cache_bytes);
	fs->cache_bytes = cache_bytes;
	fs->errors = af_errlog_new(64);
	fs->folders = af_folders_new(cache_bytes, fs->cache);
	fs->dsizes = af_dsizes_new();
	fs->render_bin = af_bin_render;
	fs->prefetch = af_prefetch_new(af_view_render);
	if (!fs->cache || !fs->errors || !fs->folders || !fs->prefetch || !fs->dsizes) {
		af_fs_destroy(fs);
		return -ENOMEM;
	}
	af_errlog_on_change(fs->errors, errors_changed, fs);
	return 0;
}

int af_fs_init(struct af_fs *fs, int rootfd, const char *game, size_t cache_bytes, int read_only)
{
	int rc = af_fs_init_bare(fs, rootfd, cache_bytes, read_only);
	if (rc)
		return rc;
	rc = af_scratch_open_dir(fs, game);
	if (rc)
		af_fs_destroy(fs);
	return rc;
}

void af_fs_destroy(struct af_fs *fs)
{
	af_watch_stop(fs); /* it tells the face: first */
	af_sweep_stop(fs);
	af_prefetch_free(fs->prefetch); /* its renders use all below */
	fs->prefetch = NULL;
	while (fs->handles) /* the open files */
		af_handle_free(fs, fs->handles);
	if (fs->face && fs->face->forget)
		fs->face->forget(fs); /* the face's own: aliases */
	while (fs->ghosts) {
		struct af_name *g = fs->ghosts;
		fs->ghosts = g->next;
		free(g);
	}
	af_scratch_remove(fs);
	af_rcache_free(fs->cache);
	af_errlog_free(fs->errors);
	af_folders_free(fs->folders);
	fs->folders = NULL;
	af_splits_free(fs->splits);
	fs->splits = NULL;
	af_dsizes_free(fs->dsizes);
	fs->dsizes = NULL;
	fs->cache = NULL;
	fs->errors = NULL;
	pthread_mutex_destroy(&fs->lock);
	pthread_mutex_destroy(&fs->commit_lock);
	af_flights_destroy(&fs->renders);
	af_flights_destroy(&fs->outputs);
}
