/* scratch.c: editors' droppings outside GAME (private to src/fs). */
#ifndef ANIMFS_FS_SCRATCH_H
#define ANIMFS_FS_SCRATCH_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

struct af_fs;


/* GAME's scratch area, $XDG_STATE_HOME/animfs/scratch-<hash of game>/tree (or under
 * ~/.local/state), kept across mounts: droppings older than a week are removed and
 * the rest counted. game NULL: a temporary folder removed by af_scratch_remove. */
int af_scratch_open_dir(struct af_fs *fs, const char *game);
/* Close it (a temporary one is deleted; a kept one loses only its empty folders). */
void af_scratch_remove(struct af_fs *fs);

/* Every call works in the tree of the request's caller (their own, made at their
 * first dropping), as that caller, never through a link. */
/* Create (O_CREAT | flags) rel in the scratch area, making its folders. fd or -errno. */
int af_scratch_create(struct af_fs *fs, const char *rel, int flags, mode_t mode);
int af_scratch_symlink(struct af_fs *fs, const char *target, const char *rel);
int af_scratch_exists(struct af_fs *fs, const char *rel, struct stat *st);
int af_scratch_unlink(struct af_fs *fs, const char *rel);
int af_scratch_rename(struct af_fs *fs, const char *from, const char *to);
/* rmdir of a view folder: the caller's droppings' folder goes too (-ENOTEMPTY while
 * droppings are in it, as on disk). */
int af_scratch_rmdir(struct af_fs *fs, const char *rel);
/* A folder renamed in the view: the caller's droppings in it move along. */
int af_scratch_move_dir(struct af_fs *fs, const char *from, const char *to);
/* Put data into a new scratch file rel (replacing one there), with the owner, group
 * and mode of like (a file moved in keeps them). 0 or -errno (-EDQUOT). */
int af_scratch_put(struct af_fs *fs, const char *rel, const void *data, size_t n,
		   const struct stat *like);
/* The caller's tree, as a descriptor (-ENOENT: none yet), and its user. */
int af_scratch_dirfd(struct af_fs *fs);
uid_t af_scratch_owner(struct af_fs *fs);
/* Count delta bytes more (or less) in owner's tree: -EDQUOT past --scratch-mb. */
int af_scratch_charge(struct af_fs *fs, uid_t owner, long long delta);

#endif
