/* One memory bound shared by a command's threads' encodes (`animfs check -j N`): a pool of
 * --cache-mb + 64 MiB less a reserve for the process. A file's encode takes from it,
 * at once, what its texts and a likely tree need (waiting until that is free), and its
 * tree borrows past that as it grows, without waiting (af_cli_pool_loan): no thread
 * holds part of the pool while it waits for more, so none waits forever. A tree that
 * finds the pool taken by others is encoded again alone, with all of it. */
#ifndef ANIMFS_CLI_POOL_H
#define ANIMFS_CLI_POOL_H

#include <pthread.h>
#include <stddef.h>
#include "animfs/yamlio.h"

struct af_cli_pool {
	pthread_mutex_t lock;
	pthread_cond_t freed;
	size_t cap, avail;
};

/* cache_bytes: --cache-mb; the pool is the bound less AF_YTREE_RESERVE. */
void af_cli_pool_init(struct af_cli_pool *p, size_t cache_bytes);
void af_cli_pool_destroy(struct af_cli_pool *p);
/* want bytes (at most the whole pool), waiting until they are free; returns them. */
size_t af_cli_pool_take(struct af_cli_pool *p, size_t want);
void af_cli_pool_give(struct af_cli_pool *p, size_t n);

/* One tree's loan from p (af_loan_more, af_loan_end in yamlio.h): what is free now,
 * never waiting (short_of: the tree asked for more than was free). */
struct af_loan af_cli_pool_loan(struct af_cli_pool *p);

#endif
