/* The mount's state, struct af_fs, set up and torn down (mount.c; private to the mount). */
#ifndef ANIMFS_FS_SESSION_H
#define ANIMFS_FS_SESSION_H

#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/types.h>

#include "flight.h"

/* the groups of MODDIR's owner kept (struct af_ov_owner, tree.c) */
#define AF_OV_GROUPS 64

struct af_rcache;
struct af_errlog;
struct af_folders;
struct af_alias;
struct af_prefetch;
struct af_bin;
struct af_text;
struct af_handle;
struct af_fs;

/* What a face is told of a path by the core (struct af_face's note): what it keeps of
 * the files it handed out (the FUSE face: the kernel's pages and attributes, kcache.h)
 * may have to go. */
enum af_note {
	AF_NOTE_GONE,     /* rel's content comes from nothing known any more (a new file, one
			     removed, renamed onto or away) */
	AF_NOTE_ALL_GONE, /* so is every path's (a folder renamed) */
	AF_NOTE_WRITER,   /* the view rel is written in place (opened for writing, truncated) */
	AF_NOTE_SAVED,    /* a save changed the view rel: those who have it open see it now */
	AF_NOTE_RESIZED,  /* rel's attributes changed (a container's index.yaml, by a save) */
	AF_NOTE_NAMES,    /* a request on rel changed other names too (a view's binary
			     removed or renamed by either name, a split save that turned a
			     view into a folder or back): the face's names may be stale */
	AF_NOTE_OUTSIDE,  /* something changed behind the mount's back (watch.c; rel ""):
			     any name, kind, size or text may be another now */
};

/* What only the face knows of a path, asked by the core, and what it is told: the names
 * it keeps open files under (src/fs: hidden.c), what it keeps of them (ops.c). Any
 * NULL: none (a unit test, animfs serve). */
struct af_face {
	/* the start of the base names the face hides open files under (FUSE's
	 * ".fuse_hidden": af_is_alias), or NULL */
	const char *alias_prefix;
	/* the name such an alias stands for (1), or 0 */
	int (*alias_orig)(struct af_fs *fs, const char *alias, char *orig, size_t size);
	/* an open file of orig is kept under the name alias from now on (orig renamed
	 * onto alias while open): 0 or -errno */
	int (*alias_add)(struct af_fs *fs, const char *alias, const char *orig);
	/* orig's aliases no longer remove it (a replace of it failed, or a new file took its
	 * name): how many */
	int (*alias_detach)(struct af_fs *fs, const char *orig);
	/* something happened to rel (enum af_note) */
	void (*note)(struct af_fs *fs, enum af_note what, const char *rel);
	/* the face's own state freed, at the end (af_fs_destroy) */
	void (*forget)(struct af_fs *fs);
};

struct af_fs {
	const struct af_face *face;  /* set by the face before serving, or NULL */
	int rootfd;    /* GAME, opened once before daemonizing */
	int modfd;     /* --overlay MODDIR (overlay.c: every change lands there), or -1 */
	struct af_ov_owner {
		int known;
		uid_t uid;
		int ngroups;
		gid_t groups[AF_OV_GROUPS];
	} mod_owner;   /* MODDIR's owner and their groups (tree.c: what a view shows) */
	int rigdirfd;  /* --rig-dir DIR: rigs for the glTF previews (view.c), or -1 */
	const char *mod_layout; /* --to LAYOUT: what a save into MODDIR is written in, or NULL */
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
	double attr_cache;           /* -o attr_cache: seconds the kernel keeps names and
					attributes (0: none; ops.c) */
	int others;                  /* -o allow_other: several users' requests, each shown
					their own attributes (ops.c) */
	struct af_rcache *cache;
	size_t cache_bytes;          /* --cache-mb: the memory bound is it + 64 MiB */
	struct af_errlog *errors;
	/* Locks (docs/HACKING.md, "Locks of the mount", gives the whole table and their
	 * order: a lock is taken only while holding locks listed above it there). */
	pthread_mutex_t lock;        /* L1: the face's open files and aliases, ghosts, the
					scratch bookkeeping; short, never across I/O; held
					while taking a handle's lock (a stat's view size) */
	pthread_mutex_t commit_lock; /* L3: one save at a time (a save's parse, rebuild,
					verify and replace; a member's removal); held
					across all of it; no read, listing or render takes it */
	/* Work in flight, one per binary and kind (flight.h; each list's lock is L9: it
	 * guards the list only and is never held while taking another lock). A render
	 * or an output holds its flight (not a lock: a wait for one holds none of L3-L8)
	 * across what it takes, L5-L9. */
	struct af_flights renders;   /* renders of views (bin.c) */
	struct af_flights outputs;   /* plots and previews (derive.c) */
	struct af_handle *handles;   /* the faces' open files (handle.c, a list) */
	struct af_name *ghosts;      /* backing names renamed away: hidden, untouched */
	struct af_alias *aliases;    /* the face's aliases of open files (src/fs/hidden.c) */
	unsigned nscratch;           /* files in the scratch area (0: skip lookups) */
	struct af_folders *folders;  /* containers shown as folders (folder.c) */
	struct af_dsizes *dsizes;    /* sizes of .animfs's plots and previews (dsize.c) */
	struct af_watch *watch;      /* changes behind the mount's back (watch.c), or NULL */
	pthread_t sweep_thread;      /* the walk that removes temp files at mount (sweep.c) */
	int sweep_started, sweep_stop;
	size_t unsaved;              /* bytes in open views' private buffers (atomic) */
	size_t max_unsaved;          /* --unsaved-mb: writes past it get ENOMEM */
	/* the render pipeline (bin.c's af_bin_render), handed down by mount.c to what is
	 * below it: a listing renders its members with their container held (arcdir.c) */
	int (*render_bin)(struct af_fs *fs, const struct af_bin *b, struct af_text **out);
	struct af_prefetch *prefetch; /* views of listed folders rendered ahead (prefetch.c) */
	int prefetching;              /* its workers started (atomic): before, no view is
					 queued or in a worker's hands (af_prefetch_any) */
	struct af_splits *splits;     /* --split, --split-over: big views as folders
					 (splitview.c), or NULL */
};
struct af_name {
	struct af_name *next;
	int kind; /* enum af_kind the name had */
	char path[];
};

/* game: GAME's real path, which names its scratch area (NULL: a temporary one). */
int af_fs_init(struct af_fs *fs, int rootfd, const char *game, size_t cache_bytes, int read_only);
/* The same without a scratch area or anything kept on disk (no editors' droppings, no
 * pristine copies): a state for one save (saveonce.c). */
int af_fs_init_bare(struct af_fs *fs, int rootfd, size_t cache_bytes, int read_only);

/* The face told (struct af_face): none when it has no such hook. */
static inline void af_face_note(struct af_fs *fs, enum af_note what, const char *rel)
{
	if (fs->face && fs->face->note)
		fs->face->note(fs, what, rel);
}
/* Whether rel's base name is one the face hides an open file under. */
static inline int af_is_alias(const struct af_fs *fs, const char *rel)
{
	const char *p = fs->face ? fs->face->alias_prefix : NULL;
	const char *base = strrchr(rel, '/');
	base = base ? base + 1 : rel;
	return p && !strncmp(base, p, strlen(p));
}
static inline int af_face_alias_detach(struct af_fs *fs, const char *orig)
{
	return fs->face && fs->face->alias_detach ? fs->face->alias_detach(fs, orig) : 0;
}
void af_fs_destroy(struct af_fs *fs);

/* A face's whole state: the file system and what outlives it (the size cache file). */
struct af_fs_opts;
struct af_fs_state {
	struct af_fs fs;
	int have_fs;
	int sizesfd;            /* the size cache's folder, or -1 */
	char sizes_name[80];
	char game[4096];        /* GAME's real path */
};
/* Sets up the state of a face over o->game (rootfd: GAME opened by the caller); says
 * why on stderr as "animfs CMD: ..." and answers -1 when it cannot. */
int af_fs_open(struct af_fs_state *s, int rootfd, const struct af_fs_opts *o, const char *cmd);
/* Tears it down; served: it served requests (its size cache is kept). */
void af_fs_close(struct af_fs_state *s, int served);

#endif
