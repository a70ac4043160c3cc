/* One memory bound shared by a command's threads' encodes (`animfs check -j N`): a pool of
 * --cache-mb + 64 MiB less a reserve for the process. A file's encode takes from it,
 * at once, what its texts and a likely tree need (waiting until that is free), and its
 * tree borrows past that as it grows, without waiting (af_cli_loan_more): no thread
 * holds part of the pool while it waits for more, so none waits forever. A tree that
 * finds the pool taken by others is encoded again alone, with all of it. */
#ifndef ANIMFS_CLI_POOL_H
#define ANIMFS_CLI_POOL_H

#include <pthread.h>
#include <stddef.h>

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

/* One tree's borrowing (af_ylimits.more / af_io.yaml_more): what is free now, never
 * waiting; short_of: the tree asked for more than was free. */
struct af_cli_loan {
	struct af_cli_pool *pool;
	size_t lent;
	int short_of;
};
size_t af_cli_loan_more(void *ctx, size_t want);
/* The loan given back (call once the tree is freed). */
void af_cli_loan_end(struct af_cli_loan *l);

#endif
