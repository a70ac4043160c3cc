/* File helpers shared by the command line and the mount: bounded whole-file
 * reads and the atomic replace protocol (temp file, fsync, rename, fsync dir). */
#ifndef ANIMFS_FILEIO_H
#define ANIMFS_FILEIO_H

#include <stddef.h>
#include <sys/types.h>
#include "animfs/buf.h"
#include "animfs/diag.h"

#define AF_MAX_FILE ((size_t)1 << 30) /* larger inputs are refused, not read */
/* The most one decompression layer (a gzip member) may inflate to, and (with 1/64 and
 * 64 KiB more for stored blocks and header strings) the most its compressed bytes may
 * be. While a layer is shown it is held up to six times (the file the mount read, the
 * gzip's own copy, the inflated bytes, the copy the container inside is opened from,
 * that container's own copy, a member's bytes being read): 6 x 48 MiB stays within the
 * default --cache-mb + 64 MiB (measured: docs/benchmark.md); under a much smaller
 * --cache-mb a layer near the limit can pass it. The largest real layer known inflates
 * to 7.7 MiB (a tool's name list), the largest scene pack to 2.1 MiB; the limit leaves
 * room for real layers not seen yet. A larger layer is refused once the count passes
 * the limit, before anything is kept. */
#define AF_MAX_LAYER ((size_t)48 << 20)
#define AF_MAX_LAYER_STORED (AF_MAX_LAYER + AF_MAX_LAYER / 64 + ((size_t)64 << 10))

/* Read the whole file (relative to dirfd, or AT_FDCWD) into out. */
int af_read_file_at(int dirfd, const char *path, size_t max, struct af_buf *out,
		    struct af_diag *d);
/* Read at most n first bytes. */
int af_read_head_at(int dirfd, const char *path, uint8_t *head, size_t n, size_t *got);
/* The same from an open descriptor, which they close. */
int af_read_fd(int fd, size_t max, struct af_buf *out, struct af_diag *d);
int af_read_head_fd(int fd, uint8_t *head, size_t n, size_t *got);
/* Replace dirfd/name atomically with data: write a temp file in the same folder,
 * fsync it, rename it over name, fsync the folder. The owner, group and mode of an
 * existing file are kept (else `mode`, the daemon's own user). On failure the original is untouched and no temp file
 * remains. Temp names start with ".animfs-tmp-". */
int af_replace_file_at(int dirfd, const char *name, const void *data, size_t n, mode_t mode,
		       struct af_diag *d);

struct stat;
/* More of the same replace, for callers that overlap work with its I/O. */
struct af_replace_opts {
	/* Called after the temp file is written and fsynced, before the rename: a
	 * non-zero return (with d filled) abandons the replace, leaving name as it was. */
	int (*before_rename)(void *ctx, struct af_diag *d);
	void *ctx;
	/* When not NULL: the new file's stat, taken after the rename from the file
	 * itself (so it is ours even if name is replaced again at once). */
	struct stat *st_out;
	/* A new file (none of that name yet) gets this owner (an existing one keeps its
	 * own owner, group and mode always). */
	int set_owner;
	uid_t uid;
	gid_t gid;
	/* The result is a new file that replaces the name, as a rename onto it does: the
	 * existing file's owner, group and mode are not kept (the temp file's own are,
	 * then `mode`). */
	int as_new;
	/* Kept mode without S_ISUID, and without S_ISGID where group execute is set: what
	 * a write by a user without CAP_FSETID leaves of an existing file. */
	int clear_setid;
	/* Called after the data is written and fsynced, before before_rename: may give
	 * the temp file fd its owner and mode (0, or AF_E* with d filled). */
	int (*give)(void *ctx, int fd, struct af_diag *d);
	void *give_ctx;
	/* Called right after the new bytes are written, before the fsync, with the temp
	 * file fd open for reading and writing: may read it back (a check that it reads
	 * as it should: non-zero with d filled abandons the replace) or write it anew. */
	int (*check)(void *ctx, int fd, struct af_diag *d);
	void *check_ctx;
	/* When not NULL (and not as_new): the existing file as the one the replace is for
	 * proved it (its owner, group and mode are kept), not whatever the name holds by
	 * the time of the rename: a name swapped meanwhile never hands its file's owner
	 * to the new bytes. */
	const struct stat *old;
	/* Never over a file: a name taken by the time of the rename is refused (-EEXIST,
	 * "exists"), the name left as it was. */
	int noreplace;
};
int af_replace_file_ex(int dirfd, const char *name, const void *data, size_t n, mode_t mode,
		       const struct af_replace_opts *o, struct af_diag *d);

struct af_pieces;
struct af_src;
/* The same replace with the new file described as pieces (pieces.h) of src: kept
 * ranges copied by the kernel (copy_file_range, FICLONE), never through animfs. */
int af_replace_file_pieces(int dirfd, const char *name, const struct af_pieces *p,
			   const struct af_src *src, mode_t mode, const struct af_replace_opts *o,
			   struct af_diag *d);

#define AF_TMP_PREFIX ".animfs-tmp-"

/* An unlinked file of this process's, open for reading and writing, in $TMPDIR (else
 * /tmp): where bytes too large to hold go (a large gzip layer's inflated bytes). The
 * descriptor, or -1 with d filled. */
int af_tmpfile(struct af_diag *d);

/* A file's identity as far as "is it still the file I read?" goes: device, inode,
 * size, mtime and ctime in ns. One type for every cache and re-read in animfs. */
struct af_fid {
	dev_t dev;
	ino_t ino;
	off_t size;
	int64_t mtime, ctime;
};
void af_fid_of(const struct stat *st, struct af_fid *id);
int af_fid_same(const struct af_fid *a, const struct af_fid *b);

/* Test-only crash injection: reads ANIMFS_FAULT once (after-temp-write,
 * after-temp-fsync, before-rename or after-rename); from then on every
 * af_replace_file_at() _exit()s the process at that step, as a crash or power
 * loss would stop it. Unknown values are reported and refused (-1). */
int af_fault_init(void);

#endif
