/* commit.c: a YAML document -> the backing binary (private to src/fs). */
#ifndef ANIMFS_FS_COMMIT_H
#define ANIMFS_FS_COMMIT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "animfs/yamlio.h"
#include "dest.h"
#include "who.h"

struct af_fs;


/* The save pipeline, for a game file and a member alike: parse, validate, encode and
 * atomically replace to->bin_rel (relative to GAME) in
 * the folder to->dirfd (the one the view was opened in; -1: resolve it now, through
 * no link). A binary that exists keeps its owner, group and mode; a new one is
 * to->who's. view_rel names the YAML in messages. 0, a -errno, or the AF_E* result code
 * of the refusal (AF_EINVAL: bad content; a face turns it into errno: af_code_errno). */
int af_commit_to(struct af_fs *fs, const struct af_dest *to, const char *view_rel,
		 const uint8_t *yaml, size_t n);
/* The same, and what the save did and said in *said (animfs/fs.h: its diag, refusal and
 * warnings, moved there; whether it wrote), for a face that answers at once. */
struct af_save_said;
int af_commit_said(struct af_fs *fs, const struct af_dest *to, const char *view_rel,
		   const uint8_t *yaml, size_t n, struct af_save_said *said);
/* The same, resolved now, as the daemon's own user. */
int af_commit(struct af_fs *fs, const char *view_rel, const char *bin_rel, const uint8_t *yaml,
	      size_t n);
/* Replace (or create) a plain GAME file with data (a dropping renamed onto it): the
 * result is the moved file, like's owner, group and mode, made and renamed as who. */
int af_commit_plain(struct af_fs *fs, const struct af_who *who, const char *rel,
		    const uint8_t *data, size_t n, const struct stat *like);

/* A game file's save steps (bin.h's operations, struct af_save of save.h), which the
 * pipeline af_commit_to calls. */
struct af_save;
int af_file_save_open(struct af_save *s);
int af_file_save_encode(struct af_save *s, size_t tree_max, af_ymore_fn *more, void *more_ctx);
void af_file_save_reset(struct af_save *s);
int af_file_save_layout(struct af_save *s);
int af_file_save_prove(struct af_save *s);
int af_file_save_same(struct af_save *s);
int af_file_save_replace(struct af_save *s);
void af_file_save_close(struct af_save *s);

#endif
