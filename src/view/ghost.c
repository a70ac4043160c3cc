/* Ghosts: backing names renamed away in the view (hidden, the file untouched), so a
 * rename an editor makes over a view does not show the old binary under its name. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/buf.h"
#include "ghost.h"
#include "session.h"

int af_ghost_has(struct af_fs *fs, const char *rel, enum af_kind *kind)
{
	int found = 0;
	pthread_mutex_lock(&fs->lock);
	for (struct af_name *g = fs->ghosts; g; g = g->next)
		if (!strcmp(g->path, rel)) {
			found = 1;
			if (kind)
				*kind = (enum af_kind)g->kind;
			break;
		}
	pthread_mutex_unlock(&fs->lock);
	return found;
}

void af_ghost_add(struct af_fs *fs, const char *rel, enum af_kind kind)
{
	if (af_ghost_has(fs, rel, NULL))
		return;
	size_t n = strlen(rel) + 1;
	struct af_name *g = af_alloc(sizeof(*g) + n);
	if (!g)
		return;
	memcpy(g->path, rel, n);
	g->kind = (int)kind;
	pthread_mutex_lock(&fs->lock);
	g->next = fs->ghosts;
	__atomic_store_n(&fs->ghosts, g, __ATOMIC_RELEASE); /* af_ghost_any reads it unlocked */
	pthread_mutex_unlock(&fs->lock);
}

void af_ghost_del(struct af_fs *fs, const char *rel)
{
	pthread_mutex_lock(&fs->lock);
	for (struct af_name **p = &fs->ghosts; *p; p = &(*p)->next)
		if (!strcmp((*p)->path, rel)) {
			struct af_name *g = *p;
			*p = g->next;
			free(g);
			break;
		}
	pthread_mutex_unlock(&fs->lock);
}

void af_ghost_del_under(struct af_fs *fs, const char *dir, enum af_kind kind)
{
	size_t n = strlen(dir);
	pthread_mutex_lock(&fs->lock);
	for (struct af_name **p = &fs->ghosts; *p;) {
		struct af_name *g = *p;
		if (g->kind == (int)kind && !strncmp(g->path, dir, n) && g->path[n] == '/' &&
		    !strchr(g->path + n + 1, '/')) {
			*p = g->next;
			free(g);
		} else {
			p = &g->next;
		}
	}
	pthread_mutex_unlock(&fs->lock);
}
