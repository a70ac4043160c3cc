/* WebDAV write locks (RFC 4918 sections 6, 9.10, 9.11) and the If header (10.4): a
 * table of the locks held, each on a path with depth 0 or infinity, shared or exclusive,
 * timing out; kept in memory (a restart of the server drops every lock). */
#ifndef ANIMFS_DAV_LOCKS_H
#define ANIMFS_DAV_LOCKS_H

#include <pthread.h>
#include <stddef.h>
#include <time.h>

#include "animfs/buf.h"

#define DAV_TOKEN_MAX 64

struct dav_lock {
	char token[DAV_TOKEN_MAX]; /* opaquelocktoken:<uuid> */
	char *root;                /* the locked path ("" the root) */
	char *owner;               /* the owner element's content, or NULL */
	int infinite;              /* depth infinity */
	int exclusive;
	unsigned timeout;          /* seconds asked for (granted) */
	time_t expires;            /* CLOCK_MONOTONIC seconds */
};

struct dav_locks {
	pthread_mutex_t mu;        /* guards every field below; taken alone */
	struct dav_lock *v;
	size_t n, cap, max;
};

int dav_locks_init(struct dav_locks *L, size_t max);
void dav_locks_free(struct dav_locks *L);

/* A new lock on rel: 0 and its token in token; -EBUSY when a lock conflicts (its root
 * in conflict, DAV_PATH_MAX bytes), -ENOSPC when the table is full. */
int dav_lock_add(struct dav_locks *L, const char *rel, int infinite, int exclusive,
		 const char *owner, unsigned timeout, char *token, char *conflict);
/* Refreshes the lock of token that covers rel: 0, or -ENOENT. */
int dav_lock_refresh(struct dav_locks *L, const char *token, const char *rel, unsigned timeout);
/* Removes the lock of token that covers rel: 0, or -ENOENT. */
int dav_lock_remove(struct dav_locks *L, const char *token, const char *rel);
/* Drops every lock whose root is rel or below it (rel deleted or moved away). */
void dav_locks_drop(struct dav_locks *L, const char *rel);
/* The <D:lockdiscovery> content for rel (the locks that cover it); href_base: how a
 * lock root is written (the hrefs are paths). */
void dav_lock_discovery(struct dav_locks *L, const char *rel, struct af_buf *b);
/* Writes one <D:activelock> of token (after a LOCK) */
void dav_lock_active(struct dav_locks *L, const char *token, struct af_buf *b);
/* 1 when token names a lock that covers rel. */
int dav_lock_covers(struct dav_locks *L, const char *token, const char *rel);

/* The If header. */
struct dav_cond {
	int not;
	int etag;       /* [etag] rather than <state-token> */
	char *val;
};
struct dav_iflist {
	char *tag;      /* the decoded path of its resource tag, NULL for the request's */
	struct dav_cond *c;
	size_t n;
};
struct dav_if {
	struct dav_iflist *l;
	size_t n;
};
/* 0, or -EINVAL for a malformed header (400). */
int dav_if_parse(const char *h, struct dav_if *out);
void dav_if_free(struct dav_if *h);
/* Whether the header holds (at least one list true, each evaluated on its resource):
 * etag_of(ctx, rel, out) gives a resource's etag ("" when it has none). A missing
 * header (NULL or no list) holds. */
int dav_if_holds(const struct dav_if *h, const char *req_rel, struct dav_locks *L,
		 void (*etag_of)(void *ctx, const char *rel, char *out, size_t n), void *ctx);
/* The locks rel is under (and, with subtree, those below rel) whose token the header
 * does not submit: 0 when there is none, else -EBUSY and the first one's root in root
 * (DAV_PATH_MAX bytes). */
int dav_locks_check(struct dav_locks *L, const char *rel, int subtree, const struct dav_if *h,
		    char *root);

#endif
