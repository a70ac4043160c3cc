/* The work in flight and its memory (render.h, "One memory bound" in docs/HACKING.md):
 * one render of a binary, one plot or preview of it, at a time (its flight, flight.h);
 * the pool the renders and parses in flight share (AF_RENDER_POOL) and its gate, what
 * the render cache lends past it (af_rcache_lend), and the one "done again alone" of a
 * render or parse refused short of room while others held the pool (af_budget_run); the
 * texts open files hold, lent from the texts' share too or kept in files
 * (af_rcache_hold). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "animfs/yamlio.h"
#include "flight.h"
#include "render.h"
#include "render_int.h"

/* ------------------------------------------------------------ flights */

static int flying(const struct af_flights *fl, const struct af_flight *me)
{
	for (const struct af_flight *f = fl->list; f; f = f->next)
		if (f->dev == me->dev && f->ino == me->ino && f->key == me->key)
			return 1;
	return 0;
}

void af_flight_take(struct af_flights *fl, struct af_flight *me)
{
	pthread_mutex_lock(&fl->lock);
	while (flying(fl, me))
		pthread_cond_wait(&fl->landed, &fl->lock);
	me->next = fl->list;
	fl->list = me;
	pthread_mutex_unlock(&fl->lock);
}

void af_flight_land(struct af_flights *fl, struct af_flight *me)
{
	pthread_mutex_lock(&fl->lock);
	struct af_flight **p = &fl->list;
	while (*p != me)
		p = &(*p)->next;
	*p = me->next;
	pthread_cond_broadcast(&fl->landed);
	pthread_mutex_unlock(&fl->lock);
}

void af_flights_init(struct af_flights *fl)
{
	pthread_mutex_init(&fl->lock, NULL);
	pthread_cond_init(&fl->landed, NULL);
	fl->list = NULL;
}

void af_flights_destroy(struct af_flights *fl)
{
	pthread_mutex_destroy(&fl->lock);
	pthread_cond_destroy(&fl->landed);
}

/* ------------------------------------------------------------ the pool */

size_t af_rcache_lend(struct af_rcache *c, size_t want)
{
	pthread_mutex_lock(&c->lock);
	size_t n = af_rc_text_cap(c) < want ? af_rc_text_cap(c) : want;
	c->lent += n;
	af_rc_make_room(c, 0);
	c->stats.lent_max = c->lent > c->stats.lent_max ? c->lent : c->stats.lent_max;
	af_rc_unlock_flush(c); /* the texts that left are on disk before the loan is used */
	return n;
}

void af_rcache_repay(struct af_rcache *c, size_t n)
{
	pthread_mutex_lock(&c->lock);
	c->lent -= n <= c->lent ? n : c->lent;
	pthread_mutex_unlock(&c->lock);
}

static size_t lend_fn(void *cache, size_t want)
{
	return af_rcache_lend(cache, want);
}

static void repay_fn(void *cache, size_t n)
{
	af_rcache_repay(cache, n);
}

struct af_loan af_rcache_loan(struct af_rcache *c)
{
	return (struct af_loan){lend_fn, repay_fn, c, 0, 0};
}

/* More of the renders' pool for *held (up to cap in all), toward want in all. */
static void pool_take(struct af_render_bound *rb, size_t *held, size_t cap, size_t want)
{
	size_t to = want < cap ? want : cap;
	if (to > *held) {
		size_t got = af_rc_pool_grab(rb->cache, to - *held);
		rb->pool_short |= got < to - *held;
		*held += got;
	}
}

/* The text's room (want bytes past none of its own): the pool first, then the loan
 * both borrow from, the text's part counted twice, and the model's. */
static size_t render_more(void *ctx, size_t want)
{
	struct af_render_bound *rb = ctx;
	pool_take(rb, &rb->text_pool, AF_RENDER_OWN, want);
	size_t over = want > rb->text_pool ? want - rb->text_pool : 0;
	if (over > rb->text_over) {
		size_t need = over > (SIZE_MAX - rb->model_over) / 2 ? SIZE_MAX : 2 * over + rb->model_over;
		size_t got = af_loan_more(&rb->loan, need);
		size_t text = got > rb->model_over ? (got - rb->model_over) / 2 : 0;
		rb->text_over = text < over ? text : over;
	}
	return rb->text_pool + rb->text_over;
}

int af_render_mem_room(void *ctx, size_t want)
{
	struct af_render_bound *rb = ctx;
	pool_take(rb, &rb->model_pool, AF_RENDER_MODEL_OWN, want);
	size_t over = want > rb->model_pool ? want - rb->model_pool : 0;
	if (over <= rb->model_over)
		return 1;
	size_t need = over > SIZE_MAX / 4 ? SIZE_MAX : 2 * rb->text_over + over;
	if (af_loan_more(&rb->loan, need) < need) {
		rb->refused = 1;
		rb->model_want = want;
		return 0;
	}
	rb->model_over = over;
	return 1;
}

int af_rcache_pool_parsed(struct af_rcache *c, size_t held, size_t want, int alone, int rc,
			  struct af_loan *loan)
{
	int short_of = loan->short_of;
	af_loan_end(loan); /* the tree is freed */
	af_rcache_pool_end(c, held);
	if (alone || !rc || held >= want || !short_of)
		return 0;
	*loan = af_rcache_loan(c);
	return 1;
}

int af_budget_run(int (*attempt)(void *ctx, int alone), void *ctx)
{
	int rc = attempt(ctx, 0);
	return rc == AF_AGAIN_ALONE ? attempt(ctx, 1) : rc;
}

size_t af_parse_begin(struct af_parse_share *p, struct af_rcache *c, size_t n, int alone)
{
	p->c = c;
	p->alone = alone;
	p->want = af_ytree_budget(0, n);
	p->held = af_rcache_pool_begin(c, p->want, alone);
	p->loan = af_rcache_loan(c);
	return p->held ? p->held : 1;
}

int af_parse_end(struct af_parse_share *p, int rc)
{
	return af_rcache_pool_parsed(p->c, p->held, p->want, p->alone, rc, &p->loan) ? AF_AGAIN_ALONE : rc;
}

/* Whether a render guessing guess would pass, with those in, the pool and half of what
 * the cache can lend (a text borrowed is counted twice). */
static int gate_full(const struct af_rcache *c, size_t guess)
{
	size_t room = AF_RENDER_POOL + af_rc_text_cap(c) / 2;
	return c->pool_users && (guess > room || c->pool_guessed > room - guess);
}

/* The pool's gate: the solo lock, then, for a render that guesses what it will take,
 * a wait while the gate is full for it: started now it would most likely be refused
 * and done again alone, its work thrown away. The first in and a guess of 0 (a parse)
 * never wait. Not first come, first served: a render that fits goes in past a bigger
 * one that waits (in line, a listing's next view waited behind the workers' renders
 * further ahead: 12 banks with 8 workers 209-237 -> 311-332 ms). Then want of what is
 * free. */
static size_t pool_enter(struct af_rcache *c, size_t want, int alone, size_t guess)
{
	if (alone)
		pthread_rwlock_wrlock(&c->solo);
	else
		pthread_rwlock_rdlock(&c->solo);
	pthread_mutex_lock(&c->lock);
	if (guess && gate_full(c, guess)) {
		c->stats.gate_waits++;
		while (gate_full(c, guess))
			pthread_cond_wait(&c->pool_freed, &c->lock);
	}
	c->pool_users++;
	c->pool_guessed += guess;
	size_t n = want < c->pool_free ? want : c->pool_free;
	c->pool_free -= n;
	pthread_mutex_unlock(&c->lock);
	return n;
}

size_t af_render_guess(uint64_t n)
{
	size_t model = af_model_of(n), text = 1;
	while (text < model && text < AF_RENDER_OWN)
		text <<= 1;
	return model > SIZE_MAX - text ? SIZE_MAX : model + text;
}

void af_render_bound_init(struct af_render_bound *rb, struct af_rcache *c, int alone, size_t guess)
{
	memset(rb, 0, sizeof(*rb));
	rb->cache = c;
	rb->guess = guess;
	pool_enter(c, 0, alone, guess); /* the pool's gate; its bytes as it grows */
	rb->loan = af_rcache_loan(c);
	/* nothing of its own: its text takes from the pool as it grows, its guess too */
	rb->b = (struct af_buf_bound){0, render_more, rb, 0, 1};
}

size_t af_rcache_pool_begin(struct af_rcache *c, size_t want, int alone)
{
	return pool_enter(c, want, alone, 0);
}

static void pool_leave(struct af_rcache *c, size_t held, size_t guess)
{
	pthread_mutex_lock(&c->lock);
	c->pool_free += held;
	c->pool_users--;
	c->pool_guessed -= guess;
	pthread_cond_broadcast(&c->pool_freed);
	pthread_mutex_unlock(&c->lock);
	pthread_rwlock_unlock(&c->solo);
}

void af_rcache_pool_end(struct af_rcache *c, size_t held)
{
	pool_leave(c, held, 0);
}

void af_render_bound_end(struct af_render_bound *rb)
{
	af_loan_end(&rb->loan);
	if (!rb->cache)
		return;
	pool_leave(rb->cache, rb->text_pool + rb->model_pool, rb->guess);
	rb->text_pool = rb->model_pool = 0;
	rb->cache = NULL;
}

/* ------------------------------------------------------------ texts held open */

int af_rcache_hold(struct af_rcache *c, struct af_text *t)
{
	int ok = 1;
	pthread_mutex_lock(&c->lock);
	if (t->holds) {
		t->holds++;
	} else if (t->len > c->max_text_bytes - c->lent) {
		ok = 0;
	} else {
		if (t->resident) /* counted in the loan from now on, not twice */
			c->text_bytes -= t->len;
		t->holds = 1;
		c->lent += t->len;
		af_rc_make_room(c, 0);
		c->stats.lent_max = c->lent > c->stats.lent_max ? c->lent : c->stats.lent_max;
	}
	af_rc_unlock_flush(c);
	return ok;
}

void af_rcache_unhold(struct af_rcache *c, struct af_text *t)
{
	pthread_mutex_lock(&c->lock);
	if (t->holds && !--t->holds) {
		c->lent -= t->len <= c->lent ? t->len : c->lent;
		if (t->resident) { /* the cache's own again */
			c->text_bytes += t->len;
			af_rc_make_room(c, 0);
		}
	}
	af_rc_unlock_flush(c);
}

void af_rcache_hold_dir(struct af_rcache *c, int dirfd, uint64_t cap)
{
	int fd = dirfd >= 0 ? fcntl(dirfd, F_DUPFD_CLOEXEC, 0) : -1;
	pthread_mutex_lock(&c->lock);
	if (c->hold_dir >= 0)
		close(c->hold_dir);
	c->hold_dir = fd;
	c->hold_cap = fd >= 0 ? cap : 0;
	pthread_mutex_unlock(&c->lock);
}

int af_rcache_hold_file(struct af_rcache *c, const struct af_text *t)
{
	int fd = -1, dir, rc = -EFBIG;
	pthread_mutex_lock(&c->lock);
	dir = c->hold_dir;
	if (dir >= 0 && t->len <= c->hold_cap - c->hold_disk) {
		c->hold_disk += t->len;
		rc = 0;
	}
	pthread_mutex_unlock(&c->lock);
	if (rc)
		return rc;
	fd = openat(dir, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	for (size_t at = 0; fd >= 0 && at < t->len;) {
		ssize_t n = pwrite(fd, t->data + at, t->len - at, (off_t)at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -errno : -ENOSPC;
			close(fd);
			fd = -1;
			break;
		}
		at += (size_t)n;
	}
	if (fd < 0) {
		rc = rc ? rc : -errno;
		af_rcache_unhold_file(c, t->len);
		return rc;
	}
	return fd;
}

void af_rcache_unhold_file(struct af_rcache *c, size_t len)
{
	pthread_mutex_lock(&c->lock);
	c->hold_disk -= len <= c->hold_disk ? len : c->hold_disk;
	pthread_mutex_unlock(&c->lock);
}
