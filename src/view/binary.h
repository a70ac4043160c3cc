/* tree.c: a view's backing binary: its view's name, its bid, the modeline of its
 * text, its siblings (private to src/fs). */
#ifndef ANIMFS_FS_BINARY_H
#define ANIMFS_FS_BINARY_H

#include <dirent.h>
#include <stddef.h>
#include <sys/stat.h>

#include "animfs/buf.h"
#include "animfs/codec.h"
#include "animfs/io.h"
#include "deps.h"
#include "render.h"
#include "who.h"

struct af_fs;

/* The yaml-language-server modeline a view of bin_rel starts with: its codec's schema
 * in VIEW/.animfs/schema, by a path relative to the view's folder. */
int af_view_modeline(const struct af_codec *c, const char *bin_rel, struct af_buf *out);
/* "/a/b.yaml" -> "a/b.yaml" ("." for "/"); -ENAMETOOLONG. */
int af_view_rel(const char *path, char *rel, size_t size);
/* Length of name without ".yaml", or 0 when it does not end so (or is only that). */
size_t af_view_strip(const char *name);
/* The nearest name above rel that is a file, not a folder ("dir/X" of "dir/X/inner":
 * a container's file, when a container shows it as a folder; folder.c decides that):
 * 1 with holder (its path, shorter than size), *inner (the rest of rel: "inner") and
 * *st (what the name holds); 0 when every name above rel is a folder (or is missing or
 * no regular file): rel is then nothing inside a container; -ENAMETOOLONG when a path
 * above rel is size bytes or more (not told). */
int af_view_holder(struct af_fs *fs, const char *rel, char *holder, size_t size,
		   const char **inner, struct stat *st);
/* Would a new file of this name be a view YAML (its binary's extension is one a
 * codec lists)? */
int af_view_is_candidate(const char *rel);
/* Classify a backing regular file: bid (cached by identity). */
void af_view_classify(struct af_fs *fs, const char *rel, const struct stat *st,
		      struct af_rinfo *info);
/* The same for name beneath the folder descriptor dirfd. */
void af_view_classify_at(struct af_fs *fs, int dirfd, const char *name, const struct stat *st,
			 struct af_rinfo *info);
/* The same with the head read from fd, a readable descriptor of st's identity (its
 * offset untouched): a binary the caller opened (bin.h). */
void af_view_classify_fd(struct af_fs *fs, int fd, const char *name, const struct stat *st,
			 struct af_rinfo *info);
/* opendir of a folder below dirfd (NULL and errno on failure). */
DIR *af_opendir_at(int dirfd, const char *rel);
/* An af_io giving a codec its binary's siblings through the GAME descriptor. */
struct af_sibio {
	struct af_dirio d; /* first: the io (its dirfd the binary's folder, O_PATH) */
	struct af_fs *fs;
	int owned;         /* the folder descriptor is closed by af_sibio_close */
	char dir[4096];    /* its path, for messages */
	/* whose siblings: read and listed as this user (a caller the daemon renders for:
	 * a sibling they may not read is absent), or NULL: as the thread is */
	const struct af_who *as;
	int asked;         /* a sibling was read or listed (the text may depend on who) */
	int (*read0)(void *ctx, const char *name, struct af_buf *out);
	int (*list0)(void *ctx, int (*cb)(void *cbctx, const char *name), void *cbctx);
	int (*names0)(void *ctx, struct af_buf *out);
	/* what was read, noted here when not NULL (a render's: deps.h) */
	struct af_deps_rec *deps;
	/* --rig-dir (fs->rigdirfd), read and noted as the siblings are: the io's rig_dir */
	struct af_dirio rd;
	int (*rread0)(void *ctx, const char *name, struct af_buf *out);
	int (*rlist0)(void *ctx, int (*cb)(void *cbctx, const char *name), void *cbctx);
};
/* Siblings from the folder dirfd (the binary's, held by an open view), or with dirfd
 * -1 from bin_rel's folder resolved now. Siblings are read from that folder only, never
 * through a link. bin_rel NULL (and dirfd -1): no folder, --rig-dir's io only (a
 * member's: its siblings are its container's). */
void af_sibio_init_at(struct af_sibio *s, struct af_fs *fs, int dirfd, const char *bin_rel);
void af_sibio_init(struct af_sibio *s, struct af_fs *fs, const char *bin_rel);
void af_sibio_close(struct af_sibio *s);
/* Whether every source d noted (a render of bin_rel's) is still what it was, as the
 * daemon sees it now (a caller's right to read one changes with its identity: a chmod,
 * a chown, a rename change its ctime). The binary's folder is resolved again (bin_rel
 * NULL: a member's, whose sources are --rig-dir's only). */
int af_sibio_holds(struct af_fs *fs, const char *bin_rel, const struct af_deps *d);

#endif
