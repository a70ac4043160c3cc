/* splitview.c: a big view shown as a folder of small documents (`mount --split`,
 * `--split-over=SIZE`), the same index.yaml and parts `animfs decode --split` writes
 * (animfs/split.h), and a part's save put together with the others and saved as the
 * whole binary through commit (private to src/fs). */
#ifndef ANIMFS_FS_SPLITVIEW_H
#define ANIMFS_FS_SPLITVIEW_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "dest.h"
#include "render.h"

struct af_fs;
struct af_splits;

/* How the whole view of bin_rel is had (view.c's af_view_render, handed down by the
 * session so that splitview calls nothing above it). */
typedef int (*af_split_render_fn)(struct af_fs *fs, const char *bin_rel, const struct stat *st,
				  struct af_text **out);
/* over: views whose text is longer than over bytes are shown split (0: every view a
 * codec can split); keeps the cuts of the last few texts. A cut's parse keeps the memory
 * bound: its own share (af_ytree_budget), and what cache lends (af_rcache_lend). */
struct af_splits *af_splits_new(af_split_render_fn render, size_t over, struct af_rcache *cache);
void af_splits_free(struct af_splits *s);
/* Whether a view of codec c whose text is size bytes long is shown as a folder (size
 * unknown: (size_t)-1, then only when every splittable view is). */
int af_split_shown(struct af_fs *fs, const struct af_codec *c, size_t size);
/* The text of the file name ("index.yaml" or a part's) in the split of whole (the
 * view of bin_rel): 0 (*out a reference), -ENOENT (no such part) or -ENOMEM. out NULL:
 * whether it is there. */
int af_split_file(struct af_fs *fs, struct af_text *whole, const char *bin_rel, const char *name,
		  struct af_text **out);
/* The names of the split of whole: index.yaml first, then the parts in order. */
int af_split_names(struct af_fs *fs, struct af_text *whole, const char *bin_rel,
		   void (*cb)(void *ctx, const char *name), void *ctx);
/* Save the file part_rel ("<view>/<name>") of the split view of to->bin_rel with text:
 * the others as they are now, put together as `animfs encode DIR` does, and the whole
 * saved through commit (atomic, as to->who); a mistake is refused at the place in the
 * file it is in, in .animfs/errors. The text the file has is no change (0 at once: the
 * caller has proven to->who's right to write the binary). 0, a -errno or an AF_E* code, as af_commit_to. */
int af_split_commit(struct af_fs *fs, const struct af_dest *to, const char *part_rel,
		    const uint8_t *text, size_t n);
/* Whether name is one no file of a split folder could have (it starts with a dot, or
 * is no part's name nor the index's): a tool's temporary file there (rsync's
 * `.part.yaml.XXXXXX`, Python's `tmpXXXXXXXX`), kept aside with the droppings. */
int af_split_aside(const char *name);
/* The line in uid's .animfs/errors that the part rel was removed only from sight. */
void af_split_hidden(struct af_fs *fs, const char *rel, uid_t uid);
/* A name in a split folder that no part has (a file, folder or link made there, a part
 * removed or renamed): refused with a line in uid's .animfs/errors. -EPERM. */
int af_split_refuse(struct af_fs *fs, const char *rel, const char *what, uid_t uid);

#endif
