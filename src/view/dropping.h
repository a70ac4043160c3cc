/* Editor droppings (dropping.c): the one table of names that go to the scratch
 * area instead of GAME. Private to src/fs/. */
#ifndef ANIMFS_FS_DROPPING_H
#define ANIMFS_FS_DROPPING_H

#include <stddef.h>

/* Whether the base name is an editor's dropping: it matches a row of the table and,
 * for rows derived from a file X, exists(ctx, X) says X is a name in that folder. */
int af_dropping_is(const char *name, int (*exists)(void *ctx, const char *x), void *ctx);
/* The pattern part alone: 1 when a row matches (X, or "" for rows without one, in x;
 * the row's index in *row). For tests and docs. */
int af_dropping_match(const char *name, char *x, size_t xsize, size_t *row);
size_t af_dropping_rows(void);
const char *af_dropping_editor(size_t row);

#endif
