/* The mount's inside (private to src/fs/ and its unit tests): the render cache, the
 * log, names -> nodes, containers as folders, droppings, commits, open files. The
 * files: render.c, errlog.c, view.c, folder.c, dropping.c (its table: dropping.h),
 * scratch.c, pristine.c, sweep.c, hidden.c, who.c, commit.c, handle.c, ops.c (+ ops.h, nodeops.c,
 * fileops.c, rename.c), session.c, prefetch.c. */
#ifndef ANIMFS_FS_INT_H
#define ANIMFS_FS_INT_H

#include <dirent.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "animfs/buf.h"
#include "animfs/codec.h"
#include "animfs/diag.h"
#include "animfs/fs.h"
#include "animfs/io.h"

/* ---- render.c: immutable shared text and the identity-keyed render cache ---- */

/* Rendered YAML, shared read-only by the cache and open handles. */
struct af_text {
	unsigned refs; /* atomic */
	size_t len;
	uint8_t data[];
};
struct af_text *af_text_new(const void *data, size_t len);
/* The text of b itself (b is left empty), or NULL on ENOMEM (b unchanged). */
struct af_text *af_text_take(struct af_buf *b);
struct af_text *af_text_ref(struct af_text *t);
void af_text_unref(struct af_text *t);

/* What is known about one backing file identity. */
struct af_rinfo {
	const struct af_codec *codec; /* NULL: no codec claims it (plain pass-through) */
	int failed;                   /* claimed but does not decode: pass-through */
	int read_only;                /* decodes, but would not rebuild byte for byte:
					 shown without write permission, saves refused */
	int container_ro;             /* read_only because a container holding it is
					 (no writer): opens for writing get EROFS */
	int have_size;
	size_t size;                  /* rendered length when have_size */
	uint64_t name_hash;           /* the name the bid was made for (bids read names) */
};

struct af_rcache;
struct af_rcache *af_rcache_new(size_t max_text_bytes);
void af_rcache_free(struct af_rcache *c);
/* The entry for st's identity: 1 when known (info filled; *text gets a reference
 * when the text is still cached and text != NULL), 0 when unknown. */
int af_rcache_get(struct af_rcache *c, const struct stat *st, struct af_rinfo *info,
		  struct af_text **text);
/* Record the bid result, or a render (text != NULL) or a failure for st. */
void af_rcache_put_bid(struct af_rcache *c, const struct stat *st, uint64_t name_hash,
		       const struct af_codec *codec);
void af_rcache_put_text(struct af_rcache *c, const struct stat *st, const struct af_codec *codec,
			struct af_text *text);
void af_rcache_put_failed(struct af_rcache *c, const struct stat *st, const struct af_codec *codec);
/* st's text (just put) is a read-only view (the codec's AF_VIEW_READONLY). */
void af_rcache_mark_read_only(struct af_rcache *c, const struct stat *st);
size_t af_rcache_text_bytes(struct af_rcache *c);
/* Keep the known sizes in dirfd/name (atomic replace), and read them back into an
 * empty cache at the next mount (returns the count; a missing or foreign file: 0). */
int af_rcache_save(struct af_rcache *c, int dirfd, const char *name);
int af_rcache_load(struct af_rcache *c, int dirfd, const char *name);

/* ---- errlog.c: log lines and the .animfs/errors ring ---- */

void af_fs_log_init(int use_syslog);
void af_fs_log(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
struct af_errlog;
struct af_errlog *af_errlog_new(unsigned capacity);
void af_errlog_free(struct af_errlog *e);
/* Record "time view_path: line:col: problem" (the diag formatted) for a save by uid;
 * control characters in it are escaped (\n, \xNN), so one line is one refused save. */
void af_errlog_add(struct af_errlog *e, uid_t uid, const char *view_path,
		   const struct af_diag *d);
/* AF_ERRLOG_ALL: a line about a file itself (no one's text; view_path its GAME path),
 * shown to every user who may read that file (root too: a file gone is not shown). */
#define AF_ERRLOG_ALL ((uid_t)-1)
/* The lines of uid's saves and, of those for all, the ones about a file may_read
 * (NULL: any) says yes to (root: every line), oldest first: one user never sees the
 * text another typed, nor a line about a file they may not read. */
struct af_text *af_errlog_text(struct af_errlog *e, uid_t uid,
			       int (*may_read)(void *ctx, const char *path), void *ctx);
/* The lines about path (a view path, or the file of an AF_ERRLOG_ALL line) go: a later
 * save of it succeeded, or it was removed or renamed away. */
void af_errlog_forget(struct af_errlog *e, const char *path);

/* ---- the mounted file system ---- */

/* Who a request comes from (who.c). A daemon that runs as root acts as the caller:
 * each request runs with the caller's uid, gid and groups, so the kernel checks
 * every permission and what is made is the caller's. */
#define AF_WHO_GROUPS 64
struct af_who {
	uid_t uid;
	gid_t gid;
	mode_t umask;
	int ngroups;                   /* -1: the daemon's own identity (no switch) */
	gid_t groups[AF_WHO_GROUPS];
};
/* The daemon's own user and umask 022 (the command line, tests). */
struct af_who af_who_self(void);
/* The daemon's own uid, whatever identity the thread holds now. */
uid_t af_daemon_uid(void);
/* The caller of the request this thread serves (outside a request: the daemon). */
const struct af_who *af_caller(void);
/* The caller of the FUSE request being served; 0 or -EACCES (too many groups). */
int af_who_of_request(struct af_who *w);
/* Root acts with the rights of any user (CAP_FSETID: a write keeps set-id bits). */
int af_who_is_privileged(const struct af_who *w);
/* Once per mount, before serving: a root daemon acts as its callers from then on. */
void af_act_init(void);
int af_act_enabled(void);
/* The thread takes the identity of the request's caller (0, or -errno and it keeps
 * the daemon's), and af_act_done gives it back at the end of the request. */
int af_act_caller(void);
void af_act_done(void);
/* Root-only work in a request: pause returns whether the thread was acting as the
 * caller; resume takes that identity again. */
int af_act_pause(void);
void af_act_resume(int was);
/* Between a pause and its resume: act as w for a proof or a creation (0, or -errno),
 * then back to the daemon's identity. */
int af_act_with(const struct af_who *w);
void af_act_back(void);
/* w's right to write the file name in dirfd, proven by opening it so as w: 0 or -errno. */
int af_may_write_as(const struct af_who *w, int dirfd, const char *name);

/* Where a save lands: the binary's folder, held from the open on, and its path. */
struct af_dest {
	int dirfd;           /* O_PATH descriptor of the folder, or -1: resolve bin_rel now */
	const char *bin_rel; /* relative to GAME */
	struct af_who who;   /* the saver: owner of a new binary, reader of its errors */
	mode_t mode;         /* a new binary's (the creator's umask applied) */
	int as_new;          /* a rename onto the name: the result is a new file of who's
				(or like's owner) with mode, whatever was there */
	const struct stat *like; /* as_new: the file that moved there (NULL: who's) */
};

struct af_handle;
struct af_fs {
	int rootfd;    /* GAME, opened once before daemonizing */
	int scratchfd; /* folder outside GAME for editors' droppings (scratch.c): the
			  daemon's user's tree */
	int usersfd;   /* the folder of the other users' trees, or -1 */
	struct af_scratch_user {
		uid_t uid;
		int fd;          /* that user's tree */
		long long bytes; /* in it, against scratch_quota */
	} *users, own;       /* own: the daemon's user's */
	size_t nusers;
	long long scratch_quota; /* --scratch-mb, per user */
	int pristinefd;          /* containers as they were before the first rewrite
				    (pristine.c), or -1 */
	int scratch_private; /* a temporary one (no GAME path given): removed at the end */
	char scratch_path[4096];
	int read_only;
	struct af_rcache *cache;
	struct af_errlog *errors;
	pthread_mutex_t lock;        /* handles, ghosts, scratch bookkeeping */
	pthread_mutex_t commit_lock; /* one commit at a time */
	struct af_handle *handles;   /* open files (list) */
	struct af_name *ghosts;      /* backing names renamed away: hidden, untouched */
	struct af_alias *aliases;    /* .fuse_hidden names of open files (hidden.c) */
	unsigned nscratch;           /* files in the scratch area (0: skip lookups) */
	struct af_folders *folders;  /* containers shown as folders (folder.c) */
	pthread_t sweep_thread;      /* the walk that removes temp files at mount (sweep.c) */
	int sweep_started, sweep_stop;
	size_t unsaved;              /* bytes in open views' private buffers (atomic) */
	size_t max_unsaved;          /* --unsaved-mb: writes past it get ENOMEM */
	struct af_prefetch *prefetch; /* views of listed folders rendered ahead (prefetch.c) */
};
struct af_name {
	struct af_name *next;
	int kind; /* enum af_kind the name had */
	char path[];
};

/* game: GAME's real path, which names its scratch area (NULL: a temporary one). */
int af_fs_init(struct af_fs *fs, int rootfd, const char *game, size_t cache_bytes, int read_only);
void af_fs_destroy(struct af_fs *fs);

/* ---- view.c: what a view path is ---- */

enum af_kind {
	AF_K_NONE,     /* nothing there */
	AF_K_DIR,      /* a backing folder */
	AF_K_PASS,     /* a backing file shown as is */
	AF_K_VIEW,     /* <binary>.yaml: a rendered view */
	AF_K_HIDDEN,   /* a claimed binary's own name: not listed; resolved as AF_K_PASS
			  with unlisted set */
	AF_K_SCRATCH,  /* an editor file in the scratch area */
	AF_K_CTLDIR,   /* /.animfs */
	AF_K_CTLFILE,  /* /.animfs/errors, /.animfs/pid */
	AF_K_ARCDIR,   /* a container shown as a folder (folder.c) */
	AF_K_ARCFILE, /* a read-only file in it: index.yaml (bin: the container), or a
			  member that does not decode, raw (bin: X/<member>) */
};

struct af_res {
	enum af_kind kind;
	char rel[4096];     /* path relative to GAME (or scratch); "." for the root */
	char bin[4096];     /* AF_K_VIEW: the backing binary's relative path */
	struct stat st;     /* backing (or scratch) stat */
	struct af_rinfo info;
	int ghost;          /* the name was renamed away: reported as AF_K_NONE */
	int unlisted;       /* AF_K_PASS: a claimed binary's own name (its view is listed) */
	enum af_kind ghost_of;
};

/* The yaml-language-server modeline a view of bin_rel starts with: its codec's schema
 * in VIEW/.animfs/schema, by a path relative to the view's folder. */
int af_view_modeline(const struct af_codec *c, const char *bin_rel, struct af_buf *out);
/* "/a/b.yaml" -> "a/b.yaml" ("." for "/"); -ENAMETOOLONG. */
int af_view_rel(const char *path, char *rel, size_t size);
/* Length of name without ".yaml", or 0 when it does not end so (or is only that). */
size_t af_view_strip(const char *name);
/* Would a new file of this name be a view YAML (its binary's extension is one a
 * codec lists)? */
int af_view_is_candidate(const char *rel);
/* Whether a new name rel would be an editor's dropping (dropping.c): it matches the
 * table and the file it derives from is a name in that folder. */
int af_view_is_dropping(struct af_fs *fs, const char *rel);
/* Classify a backing regular file: bid (cached by identity). */
void af_view_classify(struct af_fs *fs, const char *rel, const struct stat *st,
		      struct af_rinfo *info);
/* The same for name beneath the folder descriptor dirfd. */
void af_view_classify_at(struct af_fs *fs, int dirfd, const char *name, const struct stat *st,
			 struct af_rinfo *info);
int af_view_resolve(struct af_fs *fs, const char *path, struct af_res *r);
/* opendir of a folder below dirfd (NULL and errno on failure). */
DIR *af_opendir_at(int dirfd, const char *rel);
/* An af_io giving a codec its binary's siblings through the GAME descriptor. */
struct af_sibio {
	struct af_dirio d; /* first: the io (its dirfd the binary's folder, O_PATH) */
	struct af_fs *fs;
	int owned;         /* the folder descriptor is closed by af_sibio_close */
	char dir[4096];    /* its path, for messages */
};
/* Siblings from the folder dirfd (the binary's, held by an open view), or with dirfd
 * -1 from bin_rel's folder resolved now. Siblings are read from that folder only, never
 * through a link. */
void af_sibio_init_at(struct af_sibio *s, struct af_fs *fs, int dirfd, const char *bin_rel);
void af_sibio_init(struct af_sibio *s, struct af_fs *fs, const char *bin_rel);
void af_sibio_close(struct af_sibio *s);
/* Render a view (cached); 0, or -errno (-EIO when it does not decode). */
int af_view_render(struct af_fs *fs, const char *bin_rel, const struct stat *st,
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
/* Whether the resolved view r is read-only (its text, once rendered, says why). */
int af_view_read_only(struct af_fs *fs, struct af_res *r);
/* Fill st for a resolved view path (exact YAML size for views). */
int af_view_stat(struct af_fs *fs, struct af_res *r, uid_t caller, struct stat *st);
int af_ghost_has(struct af_fs *fs, const char *rel, enum af_kind *kind);
void af_ghost_add(struct af_fs *fs, const char *rel, enum af_kind kind);
void af_ghost_del(struct af_fs *fs, const char *rel);

/* ---- folder.c: any container shown as a folder (container.h) ----
 * X/ holds index.yaml (AF_K_ARCFILE) and <member>.yaml views (AF_K_VIEW whose bin is
 * "X/<member>"); render and commit route such bins here. A file its container's check
 * refuses is a plain file (the reason logged once). */
struct af_folders;
struct af_container;
/* max_bytes bounds the containers kept open (the one in use is always kept). */
struct af_folders *af_folders_new(size_t max_bytes);
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
/* Resolve r->rel when it is inside a container's folder: 1 (r filled), else 0. */
int af_folder_resolve(struct af_fs *fs, struct af_res *r);
/* The names in a container's folder (index.yaml first). */
int af_folder_list(struct af_fs *fs, const char *pkg, void (*cb)(void *ctx, const char *name),
		  void *ctx);
/* The text of a member view (bin "X/<member>") or, with ro, of a read-only
 * file of the folder: the index.yaml (bin the container) or the raw body of a member
 * that does not decode. 0, or -EIO when it cannot be shown. */
int af_folder_render(struct af_fs *fs, const char *bin, int ro, struct af_text **out);
/* Save yaml into the member to->bin_rel (in the container's folder to->dirfd when it is
 * held): the container is rewritten atomically unless the member's bytes stay the
 * same, keeping its owner, group and mode. 0 or AF_E* with d filled. */
int af_folder_commit(struct af_fs *fs, const struct af_dest *to, const uint8_t *yaml, size_t n,
		    struct af_diag *d);
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

/* ---- pristine.c: a container's bytes before the mount first rewrote it ---- */

struct af_archive;
struct af_src;
/* Before a rewrite of the container pkg (file: its bytes, copied by the kernel; cur: its
 * identity): keep them, unless the copy kept is of the file the mount wrote last. */
void af_pristine_keep(struct af_fs *fs, const char *pkg, const struct stat *cur,
		      const struct af_src *file);
/* The rewrite's new file w (written in fd, open for reading and writing) holds the same
 * members with the same bodies as the copy: fd is rewritten as the copy (1), else 0;
 * -1 when that rewrite failed (fd holds neither: the save must not go on).
 * Member `first` of w (the one that changed) is compared first: an edit that is no
 * revert costs that member, not the archive. */
int af_pristine_match(struct af_fs *fs, const char *pkg, const struct af_archive *w,
		      size_t first, int fd);
/* The mount wrote pkg: now is that file's identity. */
void af_pristine_wrote(struct af_fs *fs, const char *pkg, const struct stat *now);

/* ---- scratch.c: editors' droppings outside GAME ---- */

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

/* ---- hidden.c: .fuse_hidden aliases of removed or replaced open files ---- */

struct af_alias;
/* Whether rel's base name is one the FUSE library hides an open file under. */
int af_alias_is_hidden(const char *rel);
int af_alias_add(struct af_fs *fs, const char *hidden, const char *orig);
/* The name a hidden one stands for (1), or 0. */
int af_alias_orig(struct af_fs *fs, const char *hidden, char *orig, size_t size);
/* A replace of orig failed: its aliases no longer remove it. The count marked. */
int af_alias_detach(struct af_fs *fs, const char *orig);
/* Remove the alias (1, with its name and whether it was detached), or 0. */
int af_alias_take(struct af_fs *fs, const char *hidden, char *orig, size_t size, int *detached);
void af_alias_free_all(struct af_fs *fs);

/* ---- sweep.c: temp files of unfinished saves ---- */

/* Remove dfd/name when it is a temp file (AF_TMP_PREFIX) whose writer is gone and
 * that is min_age seconds old; 1 when removed. */
int af_sweep_temp(int dfd, const char *name, int min_age);
/* The walk of all of GAME at mount, on a thread of its own; stop cancels and joins. */
void af_sweep_start(struct af_fs *fs);
void af_sweep_stop(struct af_fs *fs);

/* ---- prefetch.c: listed views rendered ahead on a pool of workers ---- */

struct af_prefetch;
struct af_prefetch *af_prefetch_new(void);
/* Stop the workers (a render under way finishes), drop the queue, free. */
void af_prefetch_free(struct af_prefetch *p);
/* A listing named the view of the GAME file rel (its size not known): queue it. */
void af_prefetch_add(struct af_fs *fs, const char *rel, const struct stat *st);
/* Before rendering st's view: take it off the queue, or wait while a worker renders it
 * (its text is then in the cache). */
void af_prefetch_claim(struct af_fs *fs, const struct stat *st);

/* ---- commit.c: a YAML document -> the backing binary ---- */

/* Parse, validate, encode and atomically replace to->bin_rel (relative to GAME) in
 * the folder to->dirfd (the one the view was opened in; -1: resolve it now, through
 * no link). A binary that exists keeps its owner, group and mode; a new one is
 * to->who's. view_rel names the YAML in messages. 0, -EINVAL (bad content) or -EIO. */
int af_commit_to(struct af_fs *fs, const struct af_dest *to, const char *view_rel,
		 const uint8_t *yaml, size_t n);
/* The same, resolved now, as the daemon's own user. */
int af_commit(struct af_fs *fs, const char *view_rel, const char *bin_rel, const uint8_t *yaml,
	      size_t n);
/* Replace (or create) a plain GAME file with data (a dropping renamed onto it): the
 * result is the moved file, like's owner, group and mode, made and renamed as who. */
int af_commit_plain(struct af_fs *fs, const struct af_who *who, const char *rel,
		    const uint8_t *data, size_t n, const struct stat *like);

/* ---- handle.c: open files ---- */

enum af_hkind { AF_H_FD, AF_H_TEXT };
struct af_handle {
	struct af_handle *next, *prev;
	struct af_fs *fs;
	enum af_hkind kind;
	int fd;                /* AF_H_FD: backing or scratch descriptor */
	int is_view, is_ctl;   /* AF_H_TEXT: a view (commits) or a control file */
	int in_game;           /* AF_H_FD: a GAME file (shown as itself while open) */
	int scratch;           /* AF_H_FD: a dropping, counted against its user's quota */
	uid_t scratch_owner;   /* the user whose tree holds it */
	long opener;           /* process (thread group) that opened it for writing: its close saves (0: read-only) */
	struct af_who who;     /* its opener: owner of a new binary, reader of its errors */
	mode_t mode;           /* a new view's: its binary's mode (the create's, umask applied) */
	int dirfd;             /* AF_H_TEXT view: its binary's folder, held from the open on
				  (-1: none); a save lands there whatever the path is now */
	char rel[4096];        /* view path relative to the root */
	char bin[4096];        /* the binary it commits to */
	pthread_mutex_t lock;
	struct af_text *snap;  /* text as opened (shared) until the first change */
	struct af_buf own;     /* private copy after the first change */
	int owned, dirty;
	int refused;           /* the last save's error (-errno) while unchanged since, else 0 */
	int zeroed;            /* ftruncate(0) was asked for (not an O_TRUNC open) */
	long long pending;     /* buffer length while changed and unsaved, else -1 */
	size_t charged;        /* own's length as counted in fs->unsaved */
};
struct af_handle *af_handle_new_fd(struct af_fs *fs, int fd, const char *rel);
struct af_handle *af_handle_new_text(struct af_fs *fs, const char *rel, const char *bin,
				     struct af_text *snap, int is_view);
void af_handle_free(struct af_fs *fs, struct af_handle *h);
size_t af_handle_size(struct af_handle *h);
int af_handle_read(struct af_handle *h, char *out, size_t n, off_t off);
int af_handle_write(struct af_handle *h, const char *in, size_t n, off_t off);
int af_handle_truncate(struct af_handle *h, off_t size);
/* Commit when changed since the last commit; 0 or -errno (the refusal of the last
 * save again while nothing changed since: an editor's close after its fsync). */
int af_handle_commit(struct af_fs *fs, struct af_handle *h);
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

/* ---- ops.c / session.c ---- */

struct fuse_operations;
const struct fuse_operations *af_fs_operations(void);

#endif
