/* Names of open files that were removed or replaced. The FUSE library keeps such a
 * file reachable by renaming it to `.fuse_hiddenNNNN` (hard_remove off) and unlinks
 * that name when its last descriptor closes. animfs never puts those names in GAME:
 * a hidden name is an alias of the file's own name, whose old name the view hides
 * meanwhile (GAME untouched), so that fstat of a descriptor that a save replaced
 * (`tail -f` across `sed -i`) keeps working. At the alias' unlink the removal is
 * done, unless the name was written again (a replace) in between. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/buf.h"
#include "animfs/path.h"
#include "hidden.h"
#include "session.h"

struct af_alias {
	struct af_alias *next;
	int detached; /* the replace failed: the name is the file's again */
	char *hidden, *orig;
};

int af_alias_is_hidden(const char *rel)
{
	const char *base = af_base(rel);
	return !strncmp(base, AF_ALIAS_PREFIX, strlen(AF_ALIAS_PREFIX));
}

int af_alias_add(struct af_fs *fs, const char *hidden, const char *orig)
{
	struct af_alias *a = af_alloc_zeroed(1, sizeof(*a));
	if (!a || !(a->hidden = af_strcopy(hidden)) || !(a->orig = af_strcopy(orig))) {
		if (a)
			free(a->hidden);
		free(a);
		return -ENOMEM;
	}
	pthread_mutex_lock(&fs->lock);
	a->next = fs->aliases;
	fs->aliases = a;
	pthread_mutex_unlock(&fs->lock);
	return 0;
}

int af_alias_orig(struct af_fs *fs, const char *hidden, char *orig, size_t size)
{
	int found = 0;
	pthread_mutex_lock(&fs->lock);
	for (struct af_alias *a = fs->aliases; a && !found; a = a->next)
		if (!strcmp(a->hidden, hidden)) {
			found = strlen(a->orig) < size;
			if (found)
				memcpy(orig, a->orig, strlen(a->orig) + 1);
		}
	pthread_mutex_unlock(&fs->lock);
	return found;
}

int af_alias_detach(struct af_fs *fs, const char *orig)
{
	int n = 0;
	pthread_mutex_lock(&fs->lock);
	for (struct af_alias *a = fs->aliases; a; a = a->next)
		if (!strcmp(a->orig, orig) && !a->detached) {
			a->detached = 1;
			n++;
		}
	pthread_mutex_unlock(&fs->lock);
	return n;
}

int af_alias_take(struct af_fs *fs, const char *hidden, char *orig, size_t size, int *detached)
{
	struct af_alias *a = NULL;
	pthread_mutex_lock(&fs->lock);
	for (struct af_alias **p = &fs->aliases; *p; p = &(*p)->next)
		if (!strcmp((*p)->hidden, hidden)) {
			a = *p;
			*p = a->next;
			break;
		}
	pthread_mutex_unlock(&fs->lock);
	if (!a)
		return 0;
	snprintf(orig, size, "%s", a->orig);
	*detached = a->detached;
	free(a->hidden);
	free(a->orig);
	free(a);
	return 1;
}

void af_alias_free_all(struct af_fs *fs)
{
	while (fs->aliases) {
		struct af_alias *a = fs->aliases;
		fs->aliases = a->next;
		free(a->hidden);
		free(a->orig);
		free(a);
	}
}
