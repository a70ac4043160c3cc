/* One piece of work on one file at a time (flight.h): a render of a binary, a plot or
 * preview of it. */
#include "flight.h"

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
