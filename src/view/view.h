/* view.c: what a view path is, its stat, its text (private to src/fs). */
#ifndef ANIMFS_FS_VIEW_H
#define ANIMFS_FS_VIEW_H

#include <sys/stat.h>
#include <sys/types.h>

#include "render.h"
#include "res.h"

struct af_fs;

int af_view_resolve(struct af_fs *fs, const char *path, struct af_res *r);
/* Render a view (cached); 0, or -errno (-EIO when it does not decode). */
int af_view_render(struct af_fs *fs, const char *bin_rel, const struct stat *st,
		   struct af_text **out);
/* The render pipeline (bin.c), one for both kinds of binary: b, resolved once
 * (bin.h: opened as its caller, or the daemon's own by name), rendered through its
 * operations: its flight (none when its container is held), the cache, the render
 * under the budget (again alone when refused short), the modeline, the codec, the
 * verdict, the cache put. 0 or -errno, *out a new reference. */
struct af_bin;
int af_bin_render(struct af_fs *fs, const struct af_bin *b, struct af_text **out);
/* The text of r (a view, a split view's part, a container's index.yaml or raw member)
 * rendered from b (NULL: by name). */
int af_view_text_of(struct af_fs *fs, struct af_res *r, const struct af_bin *b,
		    struct af_text **out);
/* The text of a control file (rel ".animfs/<name>") as the user caller sees it (the
 * errors: only that user's); NULL on ENOMEM, or with *err -EACCES when it is derived
 * from a binary the caller may not read (a plot). */
struct af_text *af_ctl_text(struct af_fs *fs, const char *rel, uid_t caller, int *err);
/* The caller's right to open the binary bin (a member: its container) with the flags'
 * access mode, proven by opening it as the caller: 0 or -errno. */
int af_view_may(struct af_fs *fs, const char *bin, int flags);
/* The caller's right to make the new binary bin (its folder's write and search; a
 * new member: the container's write): 0 or -errno. */
int af_view_may_create(struct af_fs *fs, const char *bin);
/* The text of the resolved view r (AF_K_VIEW) or part (AF_K_SPLITPART), a reference:
 * 0, or -errno (-EIO when it does not decode). The daemon's own: read by name. */
int af_view_text(struct af_fs *fs, struct af_res *r, struct af_text **out);
/* The caller's open of r (a view, a part, or a container's read-only file), with flags'
 * access mode: the binary opened as the caller (bin.h) and, when out is not NULL, its
 * text rendered from what that open found, never from what the name holds later.
 * 0, or -errno (-EIO when it does not decode). */
int af_view_open_text(struct af_fs *fs, struct af_res *r, int flags, struct af_text **out);
/* The same, and what the text was made from: *from the identity of the binary the
 * caller's open proved (a member: its container's file), *by_caller whether the text
 * read the binary's siblings as its caller (another caller's text may differ). */
int af_view_open_from(struct af_fs *fs, struct af_res *r, int flags, struct af_text **out,
		      struct stat *from, int *by_caller);
/* The names in the split view r's folder (AF_K_SPLITDIR): index.yaml, then its parts. */
int af_view_split_names(struct af_fs *fs, struct af_res *r, void (*cb)(void *ctx, const char *name),
			void *ctx);
/* Whether the resolved view r is read-only (its text, once rendered, says why). */
int af_view_read_only(struct af_fs *fs, struct af_res *r);
/* Fill st for a resolved view path (exact YAML size for views). */
int af_view_stat(struct af_fs *fs, struct af_res *r, uid_t caller, struct stat *st);

#endif
