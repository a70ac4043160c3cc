/* pool.c: one memory bound for a command's threads (pool.h). */
#include "pool.h"
#include "animfs/yamlio.h"

void af_cli_pool_init(struct af_cli_pool *p, size_t cache_bytes)
{
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->freed, NULL);
	pthread_mutex_init(&p->alone, NULL);
	p->cap = p->avail = cache_bytes + AF_BOUND_EXTRA - AF_YTREE_RESERVE;
	p->all_waiting = 0;
}

void af_cli_pool_destroy(struct af_cli_pool *p)
{
	pthread_mutex_destroy(&p->alone);
	pthread_cond_destroy(&p->freed);
	pthread_mutex_destroy(&p->lock);
}

size_t af_cli_pool_take(struct af_cli_pool *p, size_t want)
{
	if (want > p->cap)
		want = p->cap;
	pthread_mutex_lock(&p->lock);
	while (p->avail < want || p->all_waiting)
		pthread_cond_wait(&p->freed, &p->lock);
	p->avail -= want;
	pthread_mutex_unlock(&p->lock);
	return want;
}

size_t af_cli_pool_lend(struct af_cli_pool *p, size_t want)
{
	pthread_mutex_lock(&p->lock);
	size_t n = want < p->avail ? want : p->avail;
	p->avail -= n;
	pthread_mutex_unlock(&p->lock);
	return n;
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

size_t af_cli_pool_take_all(struct af_cli_pool *p)
{
	pthread_mutex_lock(&p->alone);
	pthread_mutex_lock(&p->lock);
	p->all_waiting++;
	while (p->avail < p->cap)
		pthread_cond_wait(&p->freed, &p->lock);
	p->all_waiting--;
	p->avail = 0;
	pthread_mutex_unlock(&p->lock);
	return p->cap;
}

void af_cli_pool_give_all(struct af_cli_pool *p, size_t n)
{
	af_cli_pool_give(p, n); /* wakes the takes that waited behind it too */
	pthread_mutex_unlock(&p->alone);
}

static size_t lend_now(void *pool, size_t want)
{
	return af_cli_pool_lend(pool, want);
}

static void repay(void *pool, size_t n)
{
	af_cli_pool_give(pool, n);
}

struct af_loan af_cli_pool_loan(struct af_cli_pool *p)
{
	return (struct af_loan){lend_now, repay, p, 0, 0};
}
