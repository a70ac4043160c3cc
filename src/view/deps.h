/* render.c, beside its texts: what a text was made of besides its binary (issue 43):
 * the siblings a render read or listed and the user dictionary it read, each by its
 * identity as the render saw it (private to src/view). A text made of them is used
 * again only while each of them is still what it was (tree.c checks them again), and
 * its identity in the kernel's page cache includes them (the text's src). */
#ifndef ANIMFS_VIEW_DEPS_H
#define ANIMFS_VIEW_DEPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "animfs/buf.h"

/* The kinds of source. */
#define AF_DEP_READ 'r' /* a sibling read (by its name) */
#define AF_DEP_LIST 'l' /* the binary's folder listed */
#define AF_DEP_DICT 'n' /* the user dictionary read */
#define AF_DEP_RIG_READ 'R' /* a file of --rig-dir read (by its name) */
#define AF_DEP_RIG_LIST 'L' /* the --rig-dir folder listed */

/* What a render read, in its order: immutable once made, shared by references (the
 * render cache's entry holds one). hash: of every source's identity and of whether
 * its read succeeded, never 0; rec: each source as a kind byte, the read's outcome
 * byte ('1' read, '0' refused or absent) and a NUL-ended name. */
struct af_deps {
	unsigned refs;
	uint64_t hash;
	int lost; /* the record could not be kept (out of memory): it never holds */
	size_t len;
	char rec[];
};

/* A record being made (one render's): af_deps_note for each source, as it is read. */
struct af_deps_rec {
	struct af_buf rec;
	uint64_t hash;
	int n;
};
void af_deps_begin(struct af_deps_rec *r);
/* st: the source's identity just before its read (NULL: it had none, err its errno). */
void af_deps_note(struct af_deps_rec *r, char kind, int ok, const char *name,
		  const struct stat *st, int err);
/* The record as a struct af_deps (r is emptied): NULL when nothing was noted; one that
 * never holds (lost) when memory ran out for it. */
struct af_deps *af_deps_end(struct af_deps_rec *r);
void af_deps_abort(struct af_deps_rec *r);

/* The hash of one source (h: of the ones before it), as af_deps_note folds it. */
uint64_t af_deps_fold(uint64_t h, char kind, int ok, const char *name, const struct stat *st,
		      int err);
#define AF_DEPS_SEED 0xcbf29ce484222325ull

struct af_deps *af_deps_ref(struct af_deps *d);
void af_deps_unref(struct af_deps *d);

#endif
