/* render.c's and budget.c's shared insides (private to them): the render cache's table
 * and its memory, which the renders' pool lends from. */
#ifndef ANIMFS_VIEW_RENDER_INT_H
#define ANIMFS_VIEW_RENDER_INT_H
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "animfs/fileio.h"
#include "render.h"

struct rc_entry {
	struct rc_entry *hnext, *prev, *next; /* hash chain; LRU of entries with text */
	struct rc_entry *sprev, *snext;       /* entries with a spilled text, oldest first */
	struct af_fid id;
	uint64_t sub; /* a container's member: the hash of its path (0: the file itself) */
	uint64_t names; /* a member's: the user dictionary it was rendered with (a hash of
			   its identity), when its put gave one; 0: none */
	unsigned version;
	struct af_rinfo info;
	struct af_text *text;
	uint64_t spill_off, spill_seq; /* where in the spill file, and which write (0: none) */
	size_t spill_len;
	struct af_text *pend; /* the spilled text until its write is done (read from here) */
	struct af_deps *deps; /* what its text was made of besides the file (deps.h), or NULL */
};

/* A text to write to the spill file, in the order the ring placed it (queued under the
 * cache's lock, written without it: flush). */
struct spill_job {
	struct spill_job *next;
	struct af_text *text;
	uint64_t off, seq;
	dev_t dev;
	ino_t ino;
	uint64_t sub;
};

/* Entries without text are small; past this many the table starts over. */
#define RC_MAX_ENTRIES (1u << 18)

struct af_rcache {
	pthread_mutex_t lock;   /* L8 (docs/HACKING.md): the table, the LRU, the ring's
				   places, the pool's counts; never held across a pread,
				   a pwrite or a render */
	struct rc_entry **buckets;
	size_t nbuckets, count;
	struct rc_entry *lru_head, *lru_tail; /* head = most recent */
	size_t text_bytes, max_text_bytes;
	size_t lent; /* of max_text_bytes, what parses borrow (af_rcache_lend) */
	size_t pool_free; /* of AF_RENDER_POOL, what no render in flight holds */
	unsigned pool_users;    /* renders and parses in flight (through the gate) */
	size_t pool_guessed;    /* what the renders in flight guessed they would take */
	pthread_cond_t pool_freed; /* a user left (pool_leave); waited for under lock */
	pthread_rwlock_t solo; /* L6: renders in flight hold it shared, one done again alone
				  holds it alone (writers first: it is not starved); taken
				  after a flight and a container's lock, once per thread */
	/* the spill file: texts written at spill_head, wrapping at spill_cap; the ring's
	 * entries in write order (spill_old: the oldest, overwritten first) */
	int spill_fd;
	uint64_t spill_cap, spill_head, spill_seq;
	struct rc_entry *spill_old, *spill_new;
	/* the writes the ring placed and nobody wrote yet, oldest first; one thread at a
	 * time writes them (writer), in order, so that a place the ring gives again is
	 * written last by its newest text */
	struct spill_job *jobs, **jobs_tail;
	pthread_mutex_t writer; /* L7: one spill writer, in the ring's order; taken with
				   lock let go, and takes lock only between writes */
	struct af_rcache_stats stats;
	/* texts open files hold that the texts' share cannot lend: each in an unlinked file
	 * of its own in hold_dir (the spill file's folder; -1: none), hold_disk bytes of
	 * them in all, at most hold_cap (af_rcache_hold_file) */
	int hold_dir;
	uint64_t hold_cap, hold_disk;
};

void af_rc_unlock_flush(struct af_rcache *c);
size_t af_rc_text_cap(const struct af_rcache *c);
void af_rc_make_room(struct af_rcache *c, size_t more);
void af_rc_count(struct af_rcache *c, struct af_text *t);
void af_rc_uncount(struct af_rcache *c, struct af_text *t);
size_t af_rc_pool_grab(struct af_rcache *c, size_t want);
void af_rc_pool_return(struct af_rcache *c, size_t n);

/* The table's insides for rclife.c (render.c's): every entry freed; whether an
 * entry's size outlives its text; an identity's entry (af_rc_find: by key;
 * af_rc_current: while it holds, names the user dictionary's identity now, else NULL;
 * af_rc_obtain: made when missing, NULL when full); an entry's text and verdict
 * forgotten; whether an entry is of st's identity. Each with the cache's lock held. */
void af_rc_clear_all(struct af_rcache *c);
int af_rc_size_outlives_text(const struct rc_entry *e);
struct rc_entry *af_rc_find(struct af_rcache *c, const struct stat *st, uint64_t sub);
struct rc_entry *af_rc_current(struct af_rcache *c, const struct stat *st, uint64_t sub,
			       const struct af_fid *names);
struct rc_entry *af_rc_obtain(struct af_rcache *c, const struct stat *st, uint64_t sub,
			      const struct af_codec *codec);
void af_rc_forget(struct af_rcache *c, struct rc_entry *e);
int af_rc_same_identity(const struct rc_entry *e, const struct stat *st);

#endif
