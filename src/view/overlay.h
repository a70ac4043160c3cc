/* --overlay MODDIR (tree.c: its lookups; overlay.c: its changes): GAME is read, never
 * written; the view shows MODDIR's files on top of GAME's, and every change lands in
 * MODDIR, the way the games load mods. Without an overlay each call is the plain GAME one (fs->rootfd), so the rest of
 * the mount calls these where it reads or changes a GAME path. */
#ifndef ANIMFS_FS_OVERLAY_H
#define ANIMFS_FS_OVERLAY_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "animfs/buf.h"
#include "animfs/diag.h"

struct af_fs;
struct af_who;
struct af_container;

/* Whether the mount has an overlay. */
int af_ov_on(const struct af_fs *fs);
/* Whether MODDIR (GAME) holds rel. */
int af_ov_in_mod(struct af_fs *fs, const char *rel);
int af_ov_in_game(struct af_fs *fs, const char *rel);
/* The tree rel is read from: MODDIR when it holds rel, else GAME. */
int af_ov_at(struct af_fs *fs, const char *rel);
/* lstat of rel in the tree it is read from. 0 or -1 with errno. */
int af_ov_stat(struct af_fs *fs, const char *rel, struct stat *st);
/* The tree changes land in (MODDIR, else GAME). */
int af_ov_top(const struct af_fs *fs);
/* Once, when fs->modfd is set: MODDIR's owner and their groups, for af_ov_show. */
void af_ov_init(struct af_fs *fs);
/* st (of rel, read from GAME) shows one answer for every caller: GAME's mode and group,
 * owned by the owner of the MODDIR folder a save lands in, with the owner's write (a
 * change lands in MODDIR), when that owner may read it; else as it is. MODDIR's own
 * files (and members of its containers: rel "X/member") show their own. */
void af_ov_show(struct af_fs *fs, const char *rel, struct stat *st);
/* Whether dfd is one of the mount's trees (GAME or MODDIR). */
int af_ov_is_tree(const struct af_fs *fs, int dfd);
/* The trees a listing reads, top first: k-th descriptor, -1 past the last. */
int af_ov_layer(const struct af_fs *fs, int k);
/* Whether name in folder dir is listed from a tree above layer k (shown once). */
int af_ov_shadowed(struct af_fs *fs, int k, const char *dir, const char *name);

/* The folder a change of rel lands in, as af_bn_parent gives it (base: rel's name):
 * in MODDIR, its missing folders made first as who (NULL: as the thread is) with
 * GAME's folders' modes (and the owner's rwx). fd or -1 with errno. */
int af_ov_parent_w(struct af_fs *fs, const char *rel, char *base, size_t size,
		   const struct af_who *who);
/* The GAME folder of a save of rel whose MODDIR folder dirfd does not hold it yet
 * (a copy-up): the file there is what the save compares with, and *mode its mode for
 * the copy. fd, or -1 when the save is no copy-up. */
int af_ov_copy_source(struct af_fs *fs, int dirfd, const char *rel, mode_t *mode);
/* The caller's right to open file with flags' access (a write: MODDIR's copy, else the
 * read of GAME's; the save proves the rest), kept: the descriptor the thread's identity
 * opened file with (the tree a read shows; without an overlay GAME's), or -errno. */
int af_ov_open_proof(struct af_fs *fs, const char *file, int flags);
/* The caller's right to make rel in MODDIR (write and search on the folder that will
 * hold it, or the nearest one MODDIR has). 0 or -errno. */
int af_ov_may_create(struct af_fs *fs, const char *rel);
/* The tree a plain file rel is opened in with flags: a write to a GAME file copies it
 * up to MODDIR first (as the caller; not its bytes with O_TRUNC). fd or -errno. */
int af_ov_open_tree(struct af_fs *fs, const char *rel, int flags);

/* --to LAYOUT: the encoded binary bin of codec c rewritten in that layout, when c writes
 * it (the convert hook, byte for byte as `animfs convert`); a file it cannot convert is
 * kept as encoded (said in the log). 0, or AF_ENOMEM. */
struct af_codec;
int af_ov_layout(struct af_fs *fs, const struct af_codec *c, const char *rel, struct af_buf *bin,
		 struct af_diag *d);
/* Changes by name, as the caller: in MODDIR; a GAME file or folder is never removed
 * nor renamed (-EROFS, with a line in the caller's .animfs/errors). 0 or -errno. */
int af_ov_unlink(struct af_fs *fs, const char *rel, int flags);
int af_ov_rename(struct af_fs *fs, const char *from, const char *to);
int af_ov_mkdir(struct af_fs *fs, const char *rel, mode_t mode);
int af_ov_symlink(struct af_fs *fs, const char *target, const char *rel);
/* The tree a metadata change of rel happens in: MODDIR's copy, else -EROFS. */
int af_ov_meta_tree(struct af_fs *fs, const char *rel);
/* -EROFS with d saying why when rel is GAME's (an overlay never removes it), else 0. */
int af_ov_keeps(struct af_fs *fs, const char *rel, struct af_diag *d);

/* Containers. The bytes shown for the container file rel read into file (from MODDIR
 * when it holds one): a container that merges (container.h overlay_merge) shows GAME's
 * with MODDIR's members on top. 0 or AF_E* with d. */
int af_ov_merge(struct af_fs *fs, const char *rel, const struct af_container *c,
		struct af_buf *file, struct af_diag *d);
/* The container pkg as a save starts from it: read from the MODDIR folder dirfd
 * (base), else GAME's, merged as above. 0 or AF_E*. */
int af_ov_read_container(struct af_fs *fs, int dirfd, const char *base, const char *pkg,
			 const struct af_container *c, struct af_buf *file, struct af_diag *d);
/* The rebuilt container pkg before it lands in MODDIR: a container that reduces keeps
 * only the members that differ from GAME's; when none do, MODDIR's file goes (as who)
 * and *gone is 1. 0 or AF_E*. */
int af_ov_reduce(struct af_fs *fs, const char *pkg, const struct af_container *c, int dirfd,
		 const char *base, const struct af_who *who, struct af_buf *image, int *gone,
		 struct af_diag *d);

#endif
