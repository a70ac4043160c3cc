/* The namespace of views: what every face serves (the FUSE face, src/fs; the WebDAV face,
 * src/dav), in paths ("/a/b.animation.yaml", as af_view_resolve takes them), open files
 * (struct af_handle, handle.h) and the core's result codes (0 or a count, a -errno the
 * system said, an AF_E* code the core decided: each face turns them into its own answer
 * in one place). Each call runs as the thread's caller (who.c: the face made the thread
 * its request's caller). One file per concern: nsnode.c (listings, folders, removals, a
 * new file made: create), nsfile.c (open files: open, read, write, save, close; and a
 * path's attributes, which the open files answer first), nsmove.c (renames and the
 * editors' save paths through them), nsattr.c (links and metadata: readlink, symlink,
 * mode, owner, times, size (truncate), the filesystem's figures, the errors' log
 * cleared). */
#ifndef ANIMFS_VIEW_NS_H
#define ANIMFS_VIEW_NS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "res.h"

struct af_fs;
struct af_handle;
struct af_codec;

/* A listing's names are given one at a time: 0 to go on, else the listing stops there. */
typedef int (*af_ns_fill)(void *arg, const char *name);

/* The attributes of path, or of the open file h (path may then be NULL: an open file
 * removed since); a view's size is its text's (an open view's own buffer's). */
int af_ns_stat(struct af_fs *fs, const char *path, struct af_handle *h, struct stat *st);
/* The names in the folder path ("." and ".." first), each given to fill, as its caller
 * may list them. */
int af_ns_list(struct af_fs *fs, const char *path, af_ns_fill fill, void *arg);
/* What path's listing is made of, as one number (the folder's own identity in each tree,
 * or the container's or split view's file; never 0), or 0 for a folder listed each time
 * (the control folders) or a path that is none: a face that keeps listings between
 * changes it is told of keeps one only while this is unchanged too. As the caller. */
uint64_t af_ns_list_id(struct af_fs *fs, const char *path);

/* What an open found, for the face (its own caching of what it hands out). */
struct af_ns_opened {
	struct af_handle *h;          /* the open file */
	enum af_kind kind;            /* what path is (AF_K_VIEW, AF_K_PASS, ...) */
	const struct af_codec *codec; /* a view's codec, else NULL */
	int text;                     /* a view opened with its text (not emptied, not new) */
	size_t len;                   /* that text's length */
	uint64_t src;                 /* that text's other sources (struct af_text's src) */
	struct stat from;             /* the binary it was rendered from */
	int by_caller;                /* the text read siblings as its caller */
};
/* Open path with open(2)'s flags: *out filled (out->h the open file). */
int af_ns_open(struct af_fs *fs, const char *path, int flags, struct af_ns_opened *out);
/* Create path (open(2)'s flags with O_CREAT, mode with the caller's umask applied): a
 * new view (its binary made at the save), a dropping (kept outside GAME), a file of
 * GAME; an existing one is opened. */
int af_ns_create(struct af_fs *fs, const char *path, mode_t mode, int flags,
		 struct af_ns_opened *out);
/* n bytes at off: the count, or a result code. */
int af_ns_read(struct af_handle *h, char *buf, size_t n, off_t off);
int af_ns_write(struct af_fs *fs, struct af_handle *h, const char *buf, size_t n, off_t off);
/* path (or the open file h) cut or grown to size: a view's by name is a save. */
int af_ns_truncate(struct af_fs *fs, const char *path, struct af_handle *h, off_t size);
/* The open view h saved when it changed since its last save (the last refusal again
 * while nothing changed); a descriptor's: nothing to do. */
int af_ns_save(struct af_fs *fs, struct af_handle *h);
/* The open file let go, a change still unsaved saved first. */
void af_ns_release(struct af_fs *fs, struct af_handle *h);
/* The change the open view h holds dropped: its close saves nothing. */
void af_ns_abandon(struct af_handle *h);

/* A folder made with mode (the caller's umask applied), or removed. */
int af_ns_mkdir(struct af_fs *fs, const char *path, mode_t mode);
int af_ns_rmdir(struct af_fs *fs, const char *path);
/* A name removed: a view's is its binary's (a member's: its container rebuilt). */
int af_ns_unlink(struct af_fs *fs, const char *path);
/* rename(2) (noreplace: RENAME_NOREPLACE's EEXIST); onto a view name, a save. */
int af_ns_rename(struct af_fs *fs, const char *from, const char *to, int noreplace);

/* The link path's target into buf (size bytes, NUL-terminated); -EINVAL when path is no
 * link of GAME's or of the scratch area. */
int af_ns_readlink(struct af_fs *fs, const char *path, char *buf, size_t size);
/* A link path made to target (an editor's lock link: in the scratch area). */
int af_ns_symlink(struct af_fs *fs, const char *target, const char *path);
/* chmod(2), chown(2), utimensat(2) of path (or of the open file h: path may then be
 * NULL): a view's are its binary's (a member's: its container's; a view's times only a
 * save moves), never through a link; with --overlay never GAME's own file. */
enum af_meta_op { AF_META_MODE, AF_META_OWNER, AF_META_TIMES };
struct af_ns_meta {
	enum af_meta_op op;
	mode_t mode;                /* AF_META_MODE */
	uid_t uid;                  /* AF_META_OWNER (-1: unchanged, as chown's) */
	gid_t gid;
	const struct timespec *tv;  /* AF_META_TIMES: utimensat's two */
};
int af_ns_meta(struct af_fs *fs, const char *path, struct af_handle *h, const struct af_ns_meta *m);
/* statvfs(2) of the tree changes land in (GAME, or MODDIR with --overlay). */
struct statvfs;
int af_ns_statfs(struct af_fs *fs, struct statvfs *st);
/* The caller's lines of the errors' log about path (a view: its binary's too) cleared;
 * root and the daemon's owner clear everyone's. */
int af_ns_errors_clear(struct af_fs *fs, const char *path);

/* Whether a new name rel would be an editor's dropping (dropping.c): it matches the
 * table and the file it derives from is a name in that folder. */
int af_ns_is_dropping(struct af_fs *fs, const char *rel);

#endif
