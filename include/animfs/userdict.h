/* The user dictionary of names (Sims 3 spec 5.6, "optionally a user dictionary"):
 * a text file of names, one a line, that a codec may try when un-hashing values, and
 * where animfs keeps the names people type into documents, so that a state renamed
 * in the YAML still shows as its name after the next decode. It lives in
 * $ANIMFS_NAMES, else $XDG_DATA_HOME/animfs/names.txt, else
 * ~/.local/share/animfs/names.txt; ANIMFS_NAMES set to "" turns it off. */
#ifndef ANIMFS_USERDICT_H
#define ANIMFS_USERDICT_H

#include <stddef.h>
#include "animfs/buf.h"

#define AF_USERDICT_MAX ((size_t)16 << 20) /* a larger file is not read */
#define AF_USERDICT_MAX_NAMES 262144        /* names a reader takes from it, at most */
#define AF_USERDICT_NAME_MAX 255

/* The dictionary's path into buf; 0, or -1 when there is none (turned off, or no
 * home to put it in). */
int af_userdict_path(char *buf, size_t size);
/* Its text (empty when the file does not exist); 0 or AF_E*. */
int af_userdict_read(struct af_buf *out);
/* Add the names not in it yet (ASCII, printable, no "#" at the start, at most
 * AF_USERDICT_NAME_MAX bytes; others are skipped). Best effort: 0, or -1 when the
 * file could not be written. Safe to call from several threads. */
int af_userdict_learn(const char *const *names, size_t n);

/* The two as af_io callbacks (read_names, learn_names); ctx is ignored. */
int af_userdict_io_read(void *ctx, struct af_buf *out);
void af_userdict_io_learn(void *ctx, const char *const *names, size_t n);

#endif
