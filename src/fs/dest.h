/* Where a save lands (private to src/fs): handed from an open view to commit and folder. */
#ifndef ANIMFS_FS_DEST_H
#define ANIMFS_FS_DEST_H

#include <sys/stat.h>

#include "who.h"

/* Where a save lands: the binary's folder, held from the open on, and its path. */
struct af_dest {
	int dirfd;           /* O_PATH descriptor of the folder, or -1: resolve bin_rel now */
	const char *bin_rel; /* relative to GAME */
	struct af_who who;   /* the saver: owner of a new binary, reader of its errors */
	mode_t mode;         /* a new binary's (the creator's umask applied) */
	int as_new;          /* a rename onto the name: the result is a new file of who's
				(or like's owner) with mode, whatever was there */
	const struct stat *like; /* as_new: the file that moved there (NULL: who's) */
};

#endif
