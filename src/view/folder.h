/* folder.c: any container shown as a folder (container.h; private to src/fs). */
#ifndef ANIMFS_FS_FOLDER_H
#define ANIMFS_FS_FOLDER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "animfs/container.h"
#include "animfs/diag.h"
#include "dest.h"
#include "render.h"
#include "res.h"

struct af_fs;
/* X/ holds index.yaml (AF_K_ARCFILE) and <member>.yaml views (AF_K_VIEW whose bin is
 * "X/<member>"); render and commit route such bins here. A file its container's check
 * refuses is a plain file (the reason logged once). */
struct af_folders;
struct af_container;
/* max_bytes bounds the containers kept open (the one in use is always kept); what they
 * hold is lent by cache (af_rcache_lend): texts and containers share one bound. */
struct af_folders *af_folders_new(size_t max_bytes, struct af_rcache *cache);
void af_folders_free(struct af_folders *p);
/* The container that shows the GAME file rel as a folder (bid and check, cached by
 * identity), or NULL. */
const struct af_container *af_folder_of(struct af_fs *fs, const char *rel, const struct stat *st);
/* Whether the GAME file rel is shown as a folder. */
int af_folder_is(struct af_fs *fs, const char *rel, const struct stat *st);
/* Whether rel names something inside a container's folder. */
int af_folder_member(struct af_fs *fs, const char *rel);
/* When it does, the container's file ("X" of "X/A/B") copied to file: 1, else 0. */
int af_folder_file(struct af_fs *fs, const char *rel, char *file, size_t size);
/* When rel names something inside a container's folder: its container (pkg: the
 * container's file, *inner: the rest of rel, *st: the file the name holds), else NULL. */
const struct af_container *af_folder_split(struct af_fs *fs, const char *rel, char *pkg,
					   size_t size, const char **inner, struct stat *st);
/* Resolve r->rel, below the file pkg (af_view_holder: inner the rest of r->rel, st what
 * pkg holds), when a container shows pkg as a folder: 1 (r filled), else 0. pkg is
 * shorter than AF_FOLDER_PKG_SIZE (room for "/<member>" after it in r->bin). */
#define AF_FOLDER_PKG_SIZE (sizeof(((struct af_res *)0)->bin) - AF_MEMBER_NAME_MAX - 1)
int af_folder_resolve(struct af_fs *fs, struct af_res *r, const char *pkg, const char *inner,
		      const struct stat *st);
/* The names in a container's folder (index.yaml first). */
int af_folder_list(struct af_fs *fs, const char *pkg, void (*cb)(void *ctx, const char *name),
		  void *ctx);
/* With ro, the text of a read-only file of a container's folder: its index.yaml (bin
 * the container, or "X/A/index.yaml") or the raw body of a member that does not decode;
 * else of the member view bin ("X/<member>"), through the render pipeline (bin.h).
 * want: the container's identity as the caller opened it (bin.h), or NULL: the
 * container the name holds now; a container of another identity is never read for it
 * (-EAGAIN: to be proven again). 0, or -EIO when it cannot be shown. */
int af_folder_render(struct af_fs *fs, const char *bin, int ro, const struct stat *want,
		     struct af_text **out);
/* Whether the text of the member view bin of the container st read --rig-dir as its
 * caller (a clip's rig): each caller's own, never in the kernel's page cache under
 * -o allow_other. */
int af_folder_by_caller(struct af_fs *fs, const char *bin, const struct stat *st);
/* fn(ctx, io) with io the siblings of the member view bin ("X/<member>") in its container,
 * alive during the call (the folders locked): fn's result, or -EIO when bin is no
 * member (want: as af_folder_render's). */
struct af_io;
int af_folder_with_io(struct af_fs *fs, const char *bin, const struct stat *want,
		      int (*fn)(void *ctx, const struct af_io *io), void *ctx);
/* The bytes of the member view bin ("X/<member>"), as its codec reads them (the
 * container's body: unpacked), into out (want: as af_folder_render's). 0, -EAGAIN,
 * -ENOMEM, or -EIO (no such member, or its body does not read: d says why). */
int af_folder_body(struct af_fs *fs, const char *bin, const struct stat *want, struct af_buf *out,
		   struct af_diag *d);
/* Where to->bin_rel lands (a member: in its container, the chain of its folders in
 * t->inner), resolved once: the folder to->dirfd the view was opened in, else the one the
 * path names now, never through a link. 0, or AF_EIO with d filled. */
int af_target_resolve(struct af_fs *fs, const struct af_dest *to, struct af_target *t,
		      struct af_diag *d);
void af_target_close(struct af_target *t);
/* A save into a name the folder does not hold adds a member (the container's add, when it
 * has one). af_folder_remove: rm of member view bin ("X/<member>") rebuilds the container
 * without it, atomically, under the commit lock; a refusal is logged and in the uid's
 * .animfs/errors; who must be allowed to write the container. 0, -EPERM (the container loses
 * no members), -EACCES, -EINVAL or -EIO. */
int af_folder_remove(struct af_fs *fs, const char *bin, const struct af_who *who);
/* A folder, link or file that is no member (what: "folder", ...) asked for at rel in a
 * container's folder: refused with a line in uid's .animfs/errors that says why.
 * -EROFS when the container is never rewritten, else -EPERM. */
int af_folder_refuse(struct af_fs *fs, const char *rel, const char *what, uid_t uid);

#endif
