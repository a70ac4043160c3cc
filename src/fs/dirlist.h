/* dirlist.c: a folder's listing kept per open directory (private to src/fs). A listing
 * is made once, when it is read from its start, and each later readdir request is served
 * from it by offset: libfuse's own keeping of entries filled without offsets walks them
 * from the start for every request (quadratic in a folder's entries). */
#ifndef ANIMFS_FS_DIRLIST_H
#define ANIMFS_FS_DIRLIST_H

#include "ops.h"

struct af_dirlist;

struct af_dirlist *af_dirlist_new(void);
void af_dirlist_free(struct af_dirlist *l);
/* Emptied, to be filled again (a listing read from its start). */
void af_dirlist_reset(struct af_dirlist *l);
/* A fuse_fill_dir_t that appends name to the af_dirlist given as buf: 0, or 1 when out of
 * memory (the listing is then marked failed). */
int af_dirlist_add(void *buf, const char *name, const struct stat *st, off_t off,
		   enum fuse_fill_dir_flags flags);
/* Whether an append failed since the last reset. */
int af_dirlist_failed(const struct af_dirlist *l);
/* The entries from off on, given to filler with offsets (entry i has offset i + 1) until
 * it says the reply is full. */
void af_dirlist_serve(const struct af_dirlist *l, off_t off, void *buf, fuse_fill_dir_t filler);

#endif
