/* bin.c: what a view stands for, resolved once and opened as its caller (private to
 * src/fs). */
#ifndef ANIMFS_FS_BIN_H
#define ANIMFS_FS_BIN_H

#include <sys/stat.h>

struct af_fs;

/* A view's binary as its caller opened it: the file (a container's member: the
 * container's file) opened by the thread's identity with the access the request asks
 * for. That open is the proof of the caller's right, and its descriptor is what the
 * daemon's work then reads (af_bin_reopen): never the name again, so a name swapped
 * after the proof (a rename, renameat2's RENAME_EXCHANGE) cannot hand the caller a file
 * they may not open. st is the descriptor's identity: the render cache's key. */
struct af_bin {
	const char *rel;    /* the view's binary, relative to GAME ("X/<member>": a member) */
	char file[4096];    /* the file opened: rel, or the container's file */
	int member;         /* rel is a member of the container file */
	int fd;             /* the caller's descriptor of file (any access mode), or -1 */
	struct stat st;     /* its identity (fstat) */
};

/* Prove the caller's right to open the view's binary rel with flags' access mode by
 * opening it so (with --overlay: the tree its read shows, a write proven on MODDIR's
 * copy by the save): 0 with b filled, or -errno (b then holds no descriptor). */
int af_bin_open(struct af_fs *fs, const char *rel, int flags, struct af_bin *b);
void af_bin_close(struct af_bin *b);
/* A new descriptor of the same file for reading, opened by the daemon through the
 * caller's descriptor (its inode, whatever its name is now): fd or -errno. The thread
 * must hold the daemon's identity (af_act_pause). */
int af_bin_reopen(const struct af_bin *b);

#endif
