/* Cold listings on every core: when a folder is listed, the views whose size is not
 * known yet are queued here, and a pool of worker threads (one per core) renders them
 * into the render cache, so the getattr calls of `ls -l` that follow find the size
 * ready. Only what the listing named is queued (this folder's views, once each), and
 * a getattr that comes first takes its view off the queue and renders it itself, or
 * waits for the worker already rendering it: no view is rendered twice for a listing.
 * Memory stays the cache's bound plus one render in flight per worker. The threads
 * start with the first listing (after the daemon forked) and are joined at unmount,
 * the queue dropped. ANIMFS_PREFETCH=N sets the number of workers (0: off). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "errlog.h"
#include "prefetch.h"
#include "render.h"
#include "session.h"
#include "who.h"

#define PF_MAX_THREADS 8
#define PF_MAX_QUEUE 16384 /* items (a name and a stat each); more are left to getattr */
#define PF_BUCKETS 1024

struct pf_item {
	struct pf_item *next;  /* queue order (NULL while busy) */
	struct pf_item *prev;  /* so a getattr takes it off the queue in O(1) */
	struct pf_item *hnext; /* hash chain: queued and busy items */
	struct stat st;
	int busy;              /* a worker renders it now */
	char rel[];
};

struct af_prefetch {
	pthread_mutex_t lock;      /* L9 (docs/HACKING.md): the queue and the counts; let go
				      before a worker renders; a claim waits on done with no
				      other lock held */
	pthread_cond_t work, done; /* an item queued; a worker's render ended */
	struct pf_item *head, *tail;
	struct pf_item *buckets[PF_BUCKETS];
	unsigned queued, want, nthreads;
	int started, stop;
	unsigned long rendered, taken, dropped;
	pthread_t threads[PF_MAX_THREADS];
	af_prefetch_render_fn render;
};

/* Set in the workers: their own renders never wait for themselves. */
static _Thread_local int pf_worker;

static unsigned pf_workers_wanted(void)
{
	const char *env = getenv("ANIMFS_PREFETCH");
	long n = env && *env ? strtol(env, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 0)
		n = 1;
	return n > PF_MAX_THREADS ? PF_MAX_THREADS : (unsigned)n;
}

struct af_prefetch *af_prefetch_new(af_prefetch_render_fn render)
{
	struct af_prefetch *p = af_alloc_zeroed(1, sizeof(*p));
	if (!p)
		return NULL;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	p->want = pf_workers_wanted();
	p->render = render;
	return p;
}

static struct pf_item **pf_slot(struct af_prefetch *p, const struct stat *st)
{
	uint64_t h = (uint64_t)st->st_ino * 0x9E3779B97F4A7C15ull ^ (uint64_t)st->st_dev;
	struct pf_item **s = &p->buckets[(h ^ (h >> 31)) % PF_BUCKETS];
	while (*s && ((*s)->st.st_ino != st->st_ino || (*s)->st.st_dev != st->st_dev))
		s = &(*s)->hnext;
	return s;
}

/* Take it off the queue (it is not busy), keeping the order of the others. */
static void pf_unqueue(struct af_prefetch *p, struct pf_item *it)
{
	if (it->prev)
		it->prev->next = it->next;
	else
		p->head = it->next;
	if (it->next)
		it->next->prev = it->prev;
	else
		p->tail = it->prev;
	it->next = it->prev = NULL;
	p->queued--;
}

static void pf_forget(struct af_prefetch *p, struct pf_item *it)
{
	struct pf_item **s = pf_slot(p, &it->st);
	if (*s == it)
		*s = it->hnext;
	free(it);
}

/* Render it unless its size became known meanwhile (a getattr, another listing). */
static void pf_render(struct af_fs *fs, struct pf_item *it)
{
	struct af_rinfo info;
	struct af_text *t = NULL;
	if (af_rcache_get(fs->cache, &it->st, &info, NULL) && info.have_size)
		return;
	fs->prefetch->render(fs, it->rel, &it->st, &t);
	af_text_unref(t);
}

static void *pf_run(void *arg)
{
	struct af_fs *fs = arg;
	struct af_prefetch *p = fs->prefetch;
	pf_worker = 1;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->stop && !p->head)
			pthread_cond_wait(&p->work, &p->lock);
		if (p->stop)
			break;
		struct pf_item *it = p->head;
		pf_unqueue(p, it);
		it->busy = 1;
		pthread_mutex_unlock(&p->lock);
		pf_render(fs, it);
		pthread_mutex_lock(&p->lock);
		pf_forget(p, it);
		p->rendered++;
		pthread_cond_broadcast(&p->done);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* The workers, at the first listing (a daemon's threads must start after its fork).
 * They take no signals: those are the FUSE loop's. Called with the lock held. */
static void pf_start(struct af_fs *fs, struct af_prefetch *p)
{
	sigset_t all, old;
	__atomic_store_n(&p->started, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&fs->prefetching, 1, __ATOMIC_RELEASE);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	while (p->nthreads < p->want &&
	       pthread_create(&p->threads[p->nthreads], NULL, pf_run, fs) == 0)
		p->nthreads++;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (p->nthreads < p->want)
		af_fs_log(LOG_WARNING, "prefetch: %u of %u worker threads started", p->nthreads,
			  p->want);
}

void af_prefetch_add(struct af_fs *fs, const char *rel, const struct stat *st)
{
	struct af_prefetch *p = fs->prefetch;
	size_t n = strlen(rel) + 1;
	if (!p || !p->want)
		return;
	pthread_mutex_lock(&p->lock);
	if (!p->started) { /* a thread starts with its creator's identity: the daemon's */
		int was = af_act_pause();
		pf_start(fs, p);
		af_act_resume(was);
	}
	struct pf_item **s = pf_slot(p, st);
	if (p->stop || !p->nthreads || *s)
		goto out; /* stopping, no workers, or already queued or in flight */
	if (p->queued >= PF_MAX_QUEUE) {
		p->dropped++;
		goto out;
	}
	struct pf_item *it = af_alloc(sizeof(*it) + n);
	if (!it)
		goto out;
	memcpy(it->rel, rel, n);
	it->st = *st;
	it->busy = 0;
	it->next = NULL;
	it->prev = p->tail;
	it->hnext = NULL;
	*s = it;
	if (p->tail)
		p->tail->next = it;
	else
		p->head = it;
	p->tail = it;
	p->queued++;
	pthread_cond_signal(&p->work);
out:
	pthread_mutex_unlock(&p->lock);
}

void af_prefetch_claim(struct af_fs *fs, const struct stat *st)
{
	struct af_prefetch *p = fs->prefetch;
	if (!p || pf_worker || !__atomic_load_n(&p->started, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&p->lock);
	struct pf_item **s = pf_slot(p, st);
	if (*s && !(*s)->busy) { /* not started: the caller renders it now */
		struct pf_item *it = *s;
		pf_unqueue(p, it);
		pf_forget(p, it);
		p->taken++;
	}
	while (*(s = pf_slot(p, st)) && (*s)->busy && !p->stop)
		pthread_cond_wait(&p->done, &p->lock); /* its render lands in the cache */
	pthread_mutex_unlock(&p->lock);
}

void af_prefetch_free(struct af_prefetch *p)
{
	unsigned long left = 0;
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_broadcast(&p->work);
	pthread_cond_broadcast(&p->done);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	while (p->head) {
		struct pf_item *it = p->head;
		p->head = it->next;
		free(it);
		left++;
	}
	if (p->started)
		af_fs_log(LOG_INFO, "prefetch: %lu views rendered ahead, %lu taken by getattr, "
			  "%lu left at unmount, %lu over the queue's bound", p->rendered, p->taken,
			  left, p->dropped);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
