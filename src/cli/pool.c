/* pool.c: one memory bound for a command's threads (pool.h). */
#include "pool.h"
#include "animfs/yamlio.h"

void af_cli_pool_init(struct af_cli_pool *p, size_t cache_bytes)
{
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->freed, NULL);
	p->cap = p->avail = cache_bytes + AF_BOUND_EXTRA - AF_YTREE_RESERVE;
}

void af_cli_pool_destroy(struct af_cli_pool *p)
{
	pthread_cond_destroy(&p->freed);
	pthread_mutex_destroy(&p->lock);
}

size_t af_cli_pool_take(struct af_cli_pool *p, size_t want)
{
	if (want > p->cap)
		want = p->cap;
	pthread_mutex_lock(&p->lock);
	while (p->avail < want)
		pthread_cond_wait(&p->freed, &p->lock);
	p->avail -= want;
	pthread_mutex_unlock(&p->lock);
	return want;
}

void af_cli_pool_give(struct af_cli_pool *p, size_t n)
{
	if (!n)
		return;
	pthread_mutex_lock(&p->lock);
	p->avail += n;
	pthread_cond_broadcast(&p->freed);
	pthread_mutex_unlock(&p->lock);
}

static size_t lend_now(void *pool, size_t want)
{
	struct af_cli_pool *p = pool;
	pthread_mutex_lock(&p->lock);
	size_t n = want < p->avail ? want : p->avail;
	p->avail -= n;
	pthread_mutex_unlock(&p->lock);
	return n;
}

static void repay(void *pool, size_t n)
{
	af_cli_pool_give(pool, n);
}

struct af_loan af_cli_pool_loan(struct af_cli_pool *p)
{
	return (struct af_loan){lend_now, repay, p, 0, 0};
}
