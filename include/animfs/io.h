/* What a codec or container may ask of the world: the files beside the one it reads
 * (a name map next to a state machine, the records of a package), and the user's
 * dictionary of names. One implementation over a folder descriptor serves the mount
 * and the command line alike (dirio.c); containers give their members their own. */
#ifndef ANIMFS_IO_H
#define ANIMFS_IO_H

#include <stddef.h>
#include <string.h>
#include "animfs/buf.h"
#include "animfs/yamlio.h"

/* The caller's choices for a render (`animfs decode --euler`): the names of the options
 * asked for, each one that a codec offers (struct af_codec.options). A codec reads those
 * it offers and ignores the rest. None (NULL, or n 0): the defaults, which every cached
 * size and `git diff` text assume; the mount renders with none. */
struct af_opts {
	const char *const *on;
	size_t n;
	/* `animfs decode --rig-dir DIR`: the folder handed to the codec as af_io.rig_dir (a
	 * container's member's too, by the table), or NULL */
	const struct af_io *rig_dir;
};

/* Whether o asks for the option called name. */
static inline int af_opts_on(const struct af_opts *o, const char *name)
{
	for (size_t i = 0; o && i < o->n; i++)
		if (!strcmp(o->on[i], name))
			return 1;
	return 0;
}

/* What a caller asks af_io.mem_room for before a decode, a byte of the binary: the
 * binary and a model of it (the real samples' decodes peak at 13-15x the binary, text
 * included); a codec whose model may be far larger (compressed data) asks for itself.
 * Saturates instead of wrapping. */
#define AF_MODEL_PER_BYTE 8
static inline size_t af_model_of(uint64_t n)
{
	return n < SIZE_MAX / AF_MODEL_PER_BYTE ? AF_MODEL_PER_BYTE * (size_t)n : SIZE_MAX;
}

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
	/* How to render (to_yaml only); NULL: the defaults. */
	const struct af_opts *opts;
	/* The most the parsed document's tree may take (from_yaml, a split view's join):
	 * the caller's share of its memory bound (af_ytree_budget in yamlio.h); 0: none.
	 * yaml_more (may be NULL) lends more when the tree needs it (af_ylimits.more). */
	size_t yaml_max;
	af_ymore_fn *yaml_more;
	void *yaml_more_ctx;
	/* to_yaml: asked, before a codec builds a model that may be far larger than the
	 * file (its decompressed data and what it parses out of them), whether want bytes
	 * of it fit the caller's memory bound: 1, or 0 (then refuse with AF_ENOMEM and say
	 * how much). NULL: no bound but the codec's own limits. */
	int (*mem_room)(void *ctx, size_t want);
	void *mem_ctx;
	/* A folder the user gave of files a binary refers to that neither it nor its
	 * siblings hold (`--rig-dir`: rigs extracted from the game), as an io of its own
	 * (its read_sibling and list_siblings; name ""), or NULL: none. A codec reads it
	 * only when nothing beside the binary serves, by a rule it documents (the CLIP's
	 * rig for bone names: docs/sims3-clip.md). */
	const struct af_io *rig_dir;
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
