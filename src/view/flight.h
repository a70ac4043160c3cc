/* budget.c's flights: one piece of work on one file at a time (private to the mount). */
#ifndef ANIMFS_FS_FLIGHT_H
#define ANIMFS_FS_FLIGHT_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

/* Work in flight on a file's identity (dev, ino) and which work of it (key: a hash; two
 * keys that collide only wait for each other). Whoever asks for the same work meanwhile
 * waits, holding no other lock of the list, then finds what the first made. The list
 * holds one entry per thread at work: never more than the daemon's threads. */
struct af_flight {
	dev_t dev;
	ino_t ino;
	uint64_t key;
	struct af_flight *next;
};
struct af_flights {
	pthread_mutex_t lock; /* L9 (docs/HACKING.md): the list only; never held
			       while taking another lock */
	pthread_cond_t landed;
	struct af_flight *list;
};
/* A list that is a field (the mount's, struct af_fs): set up, and torn down when empty. */
void af_flights_init(struct af_flights *fl);
void af_flights_destroy(struct af_flights *fl);

void af_flight_take(struct af_flights *fl, struct af_flight *me);
void af_flight_land(struct af_flights *fl, struct af_flight *me);

#endif
