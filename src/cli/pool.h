/* One memory bound shared by a command's threads (`animfs check -j N`): a pool of
 * --cache-mb + 64 MiB less a reserve for the process. A file's check takes from it, before
 * it reads the file, what its decode likely needs (waiting until that is free, holding
 * nothing); its encode then tops that up to its texts and a likely tree without waiting,
 * and its tree borrows past that as it grows, without waiting (af_cli_pool_loan). No
 * thread holds part of the pool while it waits for more, so none waits forever. A check
 * whose tree found the pool taken by others gives everything back and is done again
 * alone (af_cli_pool_take_all), with all of it; while one waits for that, no other check
 * starts, so it is not starved. */
#ifndef ANIMFS_CLI_POOL_H
#define ANIMFS_CLI_POOL_H

#include <pthread.h>
#include <stddef.h>
#include "animfs/yamlio.h"

struct af_cli_pool {
	pthread_mutex_t lock;
	pthread_cond_t freed;
	pthread_mutex_t alone; /* held by the check that has (or waits for) the whole pool */
	size_t cap, avail;
	unsigned all_waiting;  /* a take_all waits: takes wait behind it */
};

/* cache_bytes: --cache-mb; the pool is the bound less AF_YTREE_RESERVE. */
void af_cli_pool_init(struct af_cli_pool *p, size_t cache_bytes);
void af_cli_pool_destroy(struct af_cli_pool *p);
/* want bytes (at most the whole pool), waiting until they are free; returns them. Call
 * holding nothing of the pool. */
size_t af_cli_pool_take(struct af_cli_pool *p, size_t want);
/* As much of want as is free now, never waiting (0 when none is). */
size_t af_cli_pool_lend(struct af_cli_pool *p, size_t want);
void af_cli_pool_give(struct af_cli_pool *p, size_t n);
/* The whole pool, once every other check gave its share back (one such check at a
 * time; the others' takes wait meanwhile). Call holding nothing; give it back with
 * af_cli_pool_give_all. */
size_t af_cli_pool_take_all(struct af_cli_pool *p);
void af_cli_pool_give_all(struct af_cli_pool *p, size_t n);

/* One tree's loan from p (af_loan_more, af_loan_end in yamlio.h): what is free now,
 * never waiting (short_of: the tree asked for more than was free). */
struct af_loan af_cli_pool_loan(struct af_cli_pool *p);

#endif
