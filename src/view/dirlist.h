/* dirlist.c: a folder's listing kept per open directory. A listing is made once, when
 * it is read from its start, and each later read of it is served from it by offset (a
 * face's readdir: libfuse's own keeping of entries filled without offsets walks them from
 * the start for every request, quadratic in a folder's entries; a WebDAV listing that
 * stops at a full reply and goes on). */
#ifndef ANIMFS_VIEW_DIRLIST_H
#define ANIMFS_VIEW_DIRLIST_H

#include <stddef.h>

struct af_dirlist;

struct af_dirlist *af_dirlist_new(void);
void af_dirlist_free(struct af_dirlist *l);
/* Emptied, to be filled again (a listing read from its start). */
void af_dirlist_reset(struct af_dirlist *l);
/* An af_ns_fill (ns.h) that appends name to the af_dirlist given as arg: 0, or 1 when
 * out of memory (the listing is then marked failed). */
int af_dirlist_add(void *arg, const char *name);
/* Whether an append failed since the last reset. */
int af_dirlist_failed(const struct af_dirlist *l);
/* How many entries it has, and entry i (i < that count); entry i's offset is i + 1. */
size_t af_dirlist_count(const struct af_dirlist *l);
const char *af_dirlist_name(const struct af_dirlist *l, size_t i);

/* to made a copy of from (its entries, in order): 0, or 1 when out of memory (to
 * emptied); the bytes a listing holds. */
int af_dirlist_copy(struct af_dirlist *to, const struct af_dirlist *from);
size_t af_dirlist_bytes(const struct af_dirlist *l);

#endif
