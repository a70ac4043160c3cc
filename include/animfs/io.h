/* What a codec or container may ask of the world: the files beside the one it reads
 * (a name map next to a state machine, the records of a package), and the user's
 * dictionary of names. One implementation over a folder descriptor serves the mount
 * and the command line alike (dirio.c); containers give their members their own. */
#ifndef ANIMFS_IO_H
#define ANIMFS_IO_H

#include <stddef.h>
#include "animfs/buf.h"

/* Where the bytes come from. Codecs that need companion files (a name map
 * next to a state machine) ask through this; all members may be NULL. */
struct af_io {
	const char *name; /* base name of the binary file ("walk.animation") */
	/* Read a file in the same folder by base name into out; 0 or AF_E*. */
	int (*read_sibling)(void *ctx, const char *name, struct af_buf *out);
	/* Call cb for each entry name of the same folder; stop when cb returns != 0. */
	int (*list_siblings)(void *ctx, int (*cb)(void *cbctx, const char *name), void *cbctx);
	void *ctx;
	/* The user dictionary of names (userdict.h), one a line, appended to out. */
	int (*read_names)(void *ctx, struct af_buf *out);
	/* Names the document spelled out that the encoder stored as hashes: kept so
	 * that the next decode can show them. Called after a successful encode. */
	void (*learn_names)(void *ctx, const char *const *names, size_t n);
};

/* The siblings of a file in the folder dirfd (which stays the caller's): plain files
 * of that folder only, never through a link, no temp files of saves in progress. */
struct af_dirio {
	struct af_io io;
	int dirfd;
	/* told of a sibling that is a link (not read); may be NULL */
	void (*on_link)(const struct af_dirio *s, const char *name);
};
/* name: the file's own base name. learn: whether names typed in a document may be
 * kept (encode, save) or not (decode). */
void af_dirio_init(struct af_dirio *s, int dirfd, const char *name, int learn);

#endif
