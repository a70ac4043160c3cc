/* Where a save lands (private to src/fs): handed from an open view to commit and folder. */
#ifndef ANIMFS_FS_DEST_H
#define ANIMFS_FS_DEST_H

#include <limits.h>
#include <sys/stat.h>

#include "animfs/buf.h"
#include "animfs/codec.h"
#include "who.h"

struct af_bin_ops;

/* A split view's save (splitview.c): doc is its index; the join reads the parts and
 * encodes in the codec's from_yaml's place, naming in where the file of the folder a
 * mistake is in. 0 or AF_E* with d filled. */
typedef int (*af_join_fn)(void *ctx, const struct af_codec *c, const uint8_t *doc, size_t n,
			  const struct af_io *io, struct af_buf *out, struct af_diag *d,
			  char *where, size_t wsize);

/* Where a save lands: the binary's folder, held from the open on, and its path. */
struct af_dest {
	int dirfd;           /* O_PATH descriptor of the folder, or -1: resolve bin_rel now */
	const char *bin_rel; /* relative to GAME */
	struct af_who who;   /* the saver: owner of a new binary, reader of its errors */
	mode_t mode;         /* a new binary's (the creator's umask applied) */
	int as_new;          /* a rename onto the name: the result is a new file of who's
				(or like's owner) with mode, whatever was there */
	const struct stat *like; /* as_new: the file that moved there (NULL: who's) */
	af_join_fn join;     /* NULL: the document is the whole view */
	void *join_ctx;
	int keep_said;       /* an editor putting its backup back after a refused save
				(emacs, vim): what .animfs/errors says of the view stays */
	int overwrite;       /* a binary no codec reads is overwritten (the command line's
				-o; a view never stands for such a file) */
};

/* A save's target, resolved once (af_target_resolve, folder.c) and carried down through
 * commit and folder: no step below splits the path or looks it up beneath GAME again. */
struct af_target {
	const char *bin_rel;       /* the view's binary, relative to GAME */
	int dirfd;                 /* the folder the file written lives in (a member: its
				      container's), the view's held one or opened here */
	int own_dir;               /* dirfd was opened here: af_target_close closes it */
	char base[NAME_MAX + 1];   /* the file written, in dirfd (a member: the container) */
	/* a member of a container shown as a folder (else container NULL): */
	const struct af_container *container;
	char pkg[4096];            /* the container's file, relative to GAME */
	const char *inner;         /* the member's path in it (in bin_rel; "A/B": nested) */
	struct stat pkg_st;        /* the container as resolved */
	/* a plain binary: */
	const struct af_codec *codec; /* the codec of the save (commit.c fills it) */
	const struct af_bin_ops *ops; /* the save's steps: a game file's or a member's (bin.h) */
};

#endif
