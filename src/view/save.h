/* A save in the save pipeline (commit.c) and the kinds' save operations (bin.h: a game
 * file's in commit.c, a member's in memsave.c); private to them. */
#ifndef ANIMFS_VIEW_SAVE_H
#define ANIMFS_VIEW_SAVE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "animfs/buf.h"
#include "animfs/container.h"
#include "animfs/diag.h"
#include "animfs/fileio.h"
#include "animfs/pieces.h"
#include "animfs/split.h"
#include "binary.h"
#include "dest.h"

struct af_fs;

/* The encoder's output must decode: checked on a second thread while the temp file is
 * written (commit.c). */
struct af_save_verify {
	const struct af_codec *c;
	struct af_sibio sib;
	const struct af_buf *bin;
	const char *bin_rel; /* where it goes: the view's modeline depends on it */
	struct af_buf yaml;
	struct af_diag d;
	int rc, started;
	pthread_t thread;
};

/* What a member's new container must show before it is kept (memsave.c). */
struct af_readback {
	struct af_fs *fs;
	const struct af_container *c;
	struct af_sibio *sib;
	const char *pkg, *inner, *base;
	int revert; /* out: the new file is the pristine copy */
};

struct af_save {
	struct af_fs *fs;
	const struct af_dest *to; /* the save's (a copy-up: up) */
	struct af_target t;       /* where it lands, resolved once; t.ops its kind's */
	const uint8_t *yaml;
	size_t n;
	struct af_diag d, rd;
	char where[AF_SPLIT_NAME_MAX]; /* a split view's file a mistake is in */
	struct af_buf bin;        /* the encoded binary (a member: its new container, whole) */
	int changed;              /* the encode changed the bytes (a member's) */
	struct stat proven;       /* the file the saver proved they may write */
	struct af_sibio sib;      /* the siblings the save consults (the saver's) */
	int sib_open;
	/* a game file's (commit.c): */
	struct af_dest up;
	struct af_target game;
	int curfd, exists, found, verifying;
	struct stat old, st;
	struct af_buf cur;
	struct af_save_verify v;
	/* a member's (memsave.c): */
	struct af_src file;
	struct af_buf bytes;
	struct af_pieces plan;
	struct af_archive arc, *h;
	long k;
	char raw[AF_MEMBER_NAME_MAX];
	struct stat mst, now;
	struct af_readback rb;
	int gone;
};

#endif
