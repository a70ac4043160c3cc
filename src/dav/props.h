/* Dead properties (RFC 4918 section 4): what a client sets with PROPPATCH that is no
 * live property of a file (Windows' Win32 times, litmus's test properties). Kept in
 * memory, per path, within a byte bound; they follow MOVE and COPY and go with DELETE.
 * A restart of the server forgets them (docs/serve.md). */
#ifndef ANIMFS_DAV_PROPS_H
#define ANIMFS_DAV_PROPS_H

#include <pthread.h>
#include <stddef.h>

#define DAV_PROP_BUCKETS 4096

struct dav_prop;

struct dav_props {
	pthread_mutex_t mu;      /* guards everything below; taken alone */
	struct dav_prop *b[DAV_PROP_BUCKETS];
	size_t bytes, max;
};

int dav_props_init(struct dav_props *P, size_t max_bytes);
void dav_props_free(struct dav_props *P);
/* 0, or -ENOSPC past the bound, -ENOMEM */
int dav_props_set(struct dav_props *P, const char *rel, const char *ns, const char *name,
		  const char *value);
void dav_props_remove(struct dav_props *P, const char *rel, const char *ns, const char *name);
/* Calls fn for each property of rel (under the table's lock: fn must not call back). */
void dav_props_each(struct dav_props *P, const char *rel,
		    void (*fn)(void *arg, const char *ns, const char *name, const char *value),
		    void *arg);
/* 1 and fn called with the value when rel has it, else 0 */
int dav_props_get(struct dav_props *P, const char *rel, const char *ns, const char *name,
		  void (*fn)(void *arg, const char *ns, const char *name, const char *value),
		  void *arg);
/* The properties of from and everything below it: moved to (or copied to) to's place
 * (with subtree 0 only from's own); dropped. */
int dav_props_move(struct dav_props *P, const char *from, const char *to, int copy, int subtree);
void dav_props_drop(struct dav_props *P, const char *rel);

#endif
