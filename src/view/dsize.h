/* Sizes of the derived files of .animfs (a view's plot and glTF preview), so that a stat
 * (ls -l) does not make the file again: each kept under what it is made of, the path, the
 * identity of the binary (dev, ino, size, mtime ns: a save changes it) and, for a codec
 * whose text also takes names from elsewhere, a hash of the view's text. A bounded table;
 * an entry is only ever replaced (private to src/fs). */
#ifndef ANIMFS_FS_DSIZE_H
#define ANIMFS_FS_DSIZE_H

#include <stdint.h>
#include <sys/stat.h>

struct af_dsizes;
struct af_dkey {
	uint64_t path, text; /* FNV-1 64 of the derived file's path and of the view's text
				(0 when the codec's text is the binary's alone) */
	uint64_t dev, ino, size, mtime_ns; /* the binary's (a member's: its container's) */
};

struct af_dsizes *af_dsizes_new(void);
void af_dsizes_free(struct af_dsizes *t);
/* k from the path, the binary's stat and the text (n 0: none). */
void af_dkey_make(struct af_dkey *k, const char *path, const struct stat *bin, const void *text,
		  size_t n);
/* 1 with *len when k is kept, else 0. */
int af_dsizes_get(struct af_dsizes *t, const struct af_dkey *k, long long *len);
void af_dsizes_put(struct af_dsizes *t, const struct af_dkey *k, long long len);

#endif
