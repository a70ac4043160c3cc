/* nsfile.c: open files, whichever face opened them (struct af_handle: the core's handle,
 * what a face keeps for an open file). */
#ifndef ANIMFS_FS_HANDLE_H
#define ANIMFS_FS_HANDLE_H

#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

#include "animfs/buf.h"
#include "render.h"
#include "who.h"

struct af_dest;

struct af_fs;


enum af_hkind { AF_H_FD, AF_H_TEXT };
struct af_handle {
	struct af_handle *next, *prev;
	struct af_fs *fs;
	enum af_hkind kind;
	int fd;                /* AF_H_FD: backing or scratch descriptor */
	int is_view, is_ctl;   /* AF_H_TEXT: a view (commits) or a control file */
	int part;              /* AF_H_TEXT view: a file of a split view's folder (rel), saved
				  with the others as the whole binary (splitview.c) */
	int in_game;           /* AF_H_FD: a GAME file (shown as itself while open) */
	int scratch;           /* AF_H_FD: a dropping, counted against its user's quota */
	uid_t scratch_owner;   /* the user whose tree holds it */
	long opener;           /* the face's: the process (thread group) that opened it for
				  writing, whose close saves (0: read-only) */
	struct af_who who;     /* its opener: owner of a new binary, reader of its errors */
	mode_t mode;           /* a new view's: its binary's mode (the create's, umask applied) */
	int dirfd;             /* AF_H_TEXT view: its binary's folder, held from the open on
				  (-1: none); a save lands there whatever the path is now */
	char rel[4096];        /* view path relative to the root */
	char bin[4096];        /* the binary it commits to */
	pthread_mutex_t lock;  /* L2 (docs/HACKING.md): this file's buffer and state; held
				  across its save (L3 and below), taken under fs->lock
				  only by a stat's af_handle_view_size */
	struct af_text *snap;  /* text as opened (shared) until the first change */
	int held;              /* snap lent from the texts' share (af_rcache_hold) */
	int tfd;               /* or the text as opened in a file of the daemon's (the share
				  could not lend it; af_rcache_hold_file), -1: none */
	size_t tlen;           /* its length */
	struct af_buf own;     /* private copy after the first change */
	int owned, dirty;
	int refused;           /* the last save's result (a -errno or an AF_E*
				  code) while unchanged since, else 0 */
	int zeroed;            /* ftruncate(0) was asked for (not an O_TRUNC open) */
	long long pending;     /* buffer length while changed and unsaved, else -1 */
	size_t charged;        /* own's length as counted in fs->unsaved */
	/* the face's own (the FUSE face: the kernel's page cache, ops.c; nothing
	   of the core reads them) */
	int cached;            /* AF_H_TEXT view read through the kernel's page cache
				  (ops.c): its text never changes */
	uint64_t kc_id;        /* cached: the identity of its text (kcache.h), else 0 */
	unsigned long seen_gen; /* cached: seen (its fstat) is of this generation of the
				   mount's changes (kcache.h), 0: none yet */
	struct stat seen;
	/* AF_H_TEXT view: what its save is, when not af_commit_to (a glTF preview's:
	 * previews.c), set by whoever opened it */
	int (*save)(struct af_fs *fs, const struct af_dest *to, const char *rel, const uint8_t *text,
		    size_t n);
};
struct af_handle *af_handle_new_fd(struct af_fs *fs, int fd, const char *rel);
/* A text handle; NULL with errno ENOMEM, or EFBIG: the open files' texts beside the
 * cache would pass the bound with snap (a line in .animfs/errors says so). */
struct af_handle *af_handle_new_text(struct af_fs *fs, const char *rel, const char *bin,
				     struct af_text *snap, int is_view);
void af_handle_free(struct af_fs *fs, struct af_handle *h);
size_t af_handle_size(struct af_handle *h);
int af_handle_read(struct af_handle *h, char *out, size_t n, off_t off);
int af_handle_write(struct af_handle *h, const char *in, size_t n, off_t off);
int af_handle_truncate(struct af_handle *h, off_t size);
/* Commit when changed since the last commit; 0, a -errno or an AF_E* code (the refusal of the last
 * save again while nothing changed since: an editor's close after its fsync). */
int af_handle_commit(struct af_fs *fs, struct af_handle *h);
/* A view handle h (a reader) may be read through the kernel's page cache, its text's
 * identity id: only while every other open handle of its path is such a reader of the
 * same text (the kernel's pages and size are one per inode: a handle of another text
 * or one that writes would change them under it). 1 with h->kc_id set, or 0. */
int af_handle_cache_claim(struct af_fs *fs, struct af_handle *h, uint64_t id);
/* Whether a GAME file rel is open through the view (a binary being copied in is
 * shown under its own name until it is closed). */
int af_handle_game_open(struct af_fs *fs, const char *rel);
/* The size stat shows for the view rel whose saved text is `saved` bytes long.
 * FUSE does not say which descriptor an fstat comes from, so: a buffer being written
 * (the writer's own fstat), else the longest text an open descriptor holds, so that
 * a reader that opened a longer text and reads st_size bytes gets all of it. */
size_t af_handle_view_size(struct af_fs *fs, const char *rel, size_t saved);
/* Size of a changed open view of rel (an unsaved buffer), -1 when none: what a
 * new view not yet saved shows. */
long long af_handle_pending_size(struct af_fs *fs, const char *rel);

/* The namespace's own handles (nsfile.c), for nsnode.c's create and nsattr.c's
 * truncate. The error of a handle not made (EFBIG past the bound, else ENOMEM). */
int af_ns_no_handle(void);
/* h handed out as the caller's open file (NULL: not made): 0 or -errno. */
struct af_ns_opened;
int af_ns_put_handle(struct af_ns_opened *out, struct af_handle *h);
/* A descriptor of rel beneath dfd (never through a link), opened as the caller: with
 * O_CREAT a file the caller makes is theirs, with their umask. */
int af_ns_open_fd(struct af_fs *fs, struct af_ns_opened *out, int dfd, const char *rel,
		  int flags, mode_t mode);
/* A text handle of a view (t: its text, NULL for an empty new one); plain: its binary
 * bin is a game file with only folders above it (res.h); part: a file of a split
 * view's folder. */
int af_ns_view_handle(struct af_fs *fs, struct af_ns_opened *out, const char *rel,
		      const char *bin, int plain, struct af_text *t, int part);
/* A member of a container that is never rewritten: -EROFS, and a line in
 * .animfs/errors for the one who tried. */
struct af_res;
int af_ns_refuse_ro_container(struct af_fs *fs, struct af_res *r);

#endif
