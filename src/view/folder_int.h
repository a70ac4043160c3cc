/* folder*.c's shared insides (private to them): the table of loaded containers
 * (folder.c), a member's text (member.c), a container's names (arcdir.c), a member's
 * save (memsave.c). */
#ifndef ANIMFS_VIEW_FOLDER_INT_H
#define ANIMFS_VIEW_FOLDER_INT_H
#include <pthread.h>
#include <stdint.h>
#include <sys/stat.h>

#include "animfs/container.h"
#include "animfs/fileio.h"
#include "animfs/diag.h"
#include "animfs/yamlio.h"
#include "derive.h"
#include "render.h"

struct af_fs;

#define VERDICTS 4096 /* direct-mapped by inode; small, bounded */
#define LOADED 4      /* at most this many containers kept open (LRU), and ... */

struct verdict {
	struct af_fid id;
	int used;
	const struct af_container *folder; /* NULL: a plain file */
};

/* One archive of a loaded file: the file's own, or one nested in it. */
struct node {
	const struct af_archive *a;
	char *broken;           /* per member: raw, or its body does not decode (shown raw, read-only) */
};

/* A loaded container. The table holds one reference while it lists the container, and
 * each user one while it uses it: an entry evicted while in use is freed by its last
 * user. The table's lock guards only the table and the counts (lookup, insert, evict);
 * the entry's own lock guards what it holds (its archive, nodes and index.yaml) and is
 * held by whoever opens it, lists it or renders a member of it: one slow archive
 * blocks only the users of that same archive. */
struct loaded {
	struct af_fid id;
	unsigned refs;          /* p->lock */
	int ok;                 /* opened (written under its lock before anyone else takes it) */
	unsigned waiting;       /* threads waiting for its lock (atomic): a listing lets them in */
	unsigned long last;     /* p->lock */
	size_t bytes;           /* the container's copy and its index.yaml (the members'
				   texts are the render cache's); p->lock */
	size_t charged;         /* of bytes, what the render cache lent (one memory bound
				   for texts and containers: af_rcache_lend); p->lock */
	struct af_nest_room nest; /* the archives nested in it: their room (its loan: the
				   charge, then what they borrow; under lock, below) */
	pthread_mutex_t lock;   /* L5 (docs/HACKING.md): all below; held by whoever opens
				   it, lists it or renders or saves a member of it */
	struct af_archive v;
	struct af_text *index;
	struct node *nodes;     /* the archives whose members were asked for */
	size_t nnodes;
	char name[256];         /* the container's base name, for index.yaml */
};

struct af_folders {
	pthread_mutex_t lock;  /* L9: the table of loaded containers and their counts: never held
				  across a read, a render or an open of a container */
	pthread_mutex_t vlock; /* L9: the verdicts only: never held across a read, so a lookup
				  of any other file never waits for a big container being read */
	struct verdict verdicts[VERDICTS];
	struct loaded *loaded[LOADED];
	unsigned long tick;
	size_t max_bytes; /* ... within the --cache-mb bound (the one in use is always kept) */
	struct af_rcache *cache; /* whose texts' memory the containers borrow */
};

void af_loaded_done(struct af_fs *fs, struct loaded *l);
struct loaded *af_loaded_get(struct af_fs *fs, const char *rel, struct af_diag *d);
struct loaded *af_loaded_find(struct af_folders *p, const struct af_fid *id);
void af_loaded_forget(struct af_fs *fs, const struct stat *st);
void af_loaded_let_in(struct loaded *l);
struct node *af_loaded_node(struct loaded *l, const struct af_archive *a);
struct stat af_loaded_stat(const struct af_fid *id);
uint64_t af_member_key(const char *bin);
uint64_t af_listing_key(const char *dir);
uint64_t af_index_key(const char *bin);
const struct af_container *af_folder_verdict(struct af_fs *fs, const char *rel, const struct stat *st);
struct af_text *af_member_text(struct af_fs *fs, struct loaded *l, struct node *n, size_t k, const char *bin);
void af_folder_log_diag(const char *rel, const struct af_diag *d, const char *what);

/* A member's save steps (memsave.c; bin.h's operations, struct af_save of save.h). */
struct af_save;
int af_member_save_open(struct af_save *s);
int af_member_save_step(struct af_save *s, size_t tree_max, af_ymore_fn *more, void *more_ctx);
void af_member_save_reset(struct af_save *s);
int af_member_save_layout(struct af_save *s);
int af_member_save_prove(struct af_save *s);
int af_member_save_same(struct af_save *s);
int af_member_save_replace(struct af_save *s);
void af_member_save_close(struct af_save *s);

#endif
