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

size_t af_cli_loan_more(void *ctx, size_t want)
{
	struct af_cli_loan *l = ctx;
	if (want <= l->lent)
		return l->lent;
	size_t more = want - l->lent;
	pthread_mutex_lock(&l->pool->lock);
	if (more > l->pool->avail) {
		more = l->pool->avail;
		l->short_of = 1;
	}
	l->pool->avail -= more;
	pthread_mutex_unlock(&l->pool->lock);
	l->lent += more;
	return l->lent;
}

void af_cli_loan_end(struct af_cli_loan *l)
{
	af_cli_pool_give(l->pool, l->lent);
	l->lent = 0;
}
