/* derive.c: a view's plot or preview made within the memory bound (private to src/fs). */
#ifndef ANIMFS_FS_DERIVE_H
#define ANIMFS_FS_DERIVE_H

#include <stdint.h>
#include <sys/stat.h>

#include "animfs/buf.h"
#include "animfs/diag.h"
#include "animfs/yamlio.h"
#include "render.h"

struct af_fs;

/* Makes the output of ctx's view into out (given with its bound) within mem (the tree,
 * the model; plot.h's and gltf.h's af_ybudget): 0, or an AF_ error with d. */
typedef int af_derive_fn(void *ctx, const struct af_ybudget *mem, struct af_buf *out, struct af_diag *d);

struct af_derive {
	const char *what;           /* "plot", "preview": for the line that refuses it */
	const char *bin_rel;        /* the view's binary: the line is about that file */
	const struct stat *st;      /* its identity: an output kept is kept under it */
	uint64_t key;               /* which output of it (a hash of its path and kind) */
	const struct af_text *yaml; /* the view's text, held by the caller meanwhile */
	af_derive_fn *make;
	void *ctx;
	const int *asked;           /* set by make when it read the binary's siblings (not
				       in the key: such an output is not kept), or NULL */
};

/* The output q names, made as a parse is, under the renders' pool (render.h): the
 * view's text counted twice, its tree, the model read out of it and the file made all
 * share the parse's own part of the pool and borrow the texts' share past it; one
 * refused while others held the pool is made again alone. One output of one binary is
 * made at a time (others asking for it meanwhile wait, then find it), and kept in the
 * render cache (within --cache-mb, spilled as a text is) unless it read siblings.
 * 0 with *out; -EFBIG when it would take more than the bound lets one output take (the
 * line in .animfs/errors says how much, and --cache-mb; the verdict is kept under the
 * key: asked again, it is refused at once); -EIO when it cannot be made (d says why);
 * -ENOMEM. */
int af_derive(struct af_fs *fs, const struct af_derive *q, struct af_text **out, struct af_diag *d);

/* make (its ctx) under the same account as an output of n bytes of YAML, with fixed bytes
 * held beside it meanwhile, its file made into out (empty; its bound is the account's
 * while it is made): 0 with out; -EFBIG past the bound (*asked: what it asked for in
 * all; no line is written: the caller's to say), -EIO (d says why), -ENOMEM. What a
 * glTF written to a preview's path takes to be brought back (src/view/previews.c). */
int af_derive_within(struct af_fs *fs, size_t n, size_t fixed, af_derive_fn *make, void *ctx, struct af_buf *out,
		     size_t *asked, struct af_diag *d);

/* A container's tables (its member table, names and indexes; base: the file's bytes when
 * it is held whole) lent from the texts' share as they grow (af_io.mem_room while the
 * container opens, af_table_room over this) past its own first MiB: a container whose
 * tables pass what the texts can lend is not opened. lent: what it borrowed (the container's charge, or
 * repaid when it does not open); refused: it did not fit, want what it asked for. */
#define AF_TABLE_OWN ((size_t)1 << 20) /* a container's first MiB of tables is its own:
					  at most LOADED (4) of them, within the 16 MiB the
					  process keeps beside the pool */
struct af_table_room {
	struct af_rcache *c;
	size_t base, lent, want;
	int refused;
};
int af_table_room(void *ctx, size_t want);
/* The line for a container refused so (d: the registry's why): .animfs/errors and the log. */
void af_table_refused(struct af_fs *fs, const char *rel, struct af_diag *d);
/* The archives nested in a loaded container (struct af_archive.nest_room): their bytes and
 * tables lent from the texts' share as the container's own tables are (t: its room, its
 * loan so far included), for as long as it is loaded; one that does not fit is refused
 * with its line (the container's rel) and shown as its raw member. */
struct af_nest_room {
	struct af_table_room t;
	struct af_fs *fs;
	char rel[4096];
};
int af_nest_room(void *ctx, const char *member, size_t want);

#endif
