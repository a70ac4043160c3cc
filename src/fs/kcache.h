/* ops.c: what the kernel keeps of the mount's files between opens (private to
 * src/fs, the FUSE face's). A file opened without direct_io leaves its pages in the
 * kernel's page cache, one cache per inode whoever reads it; the next open keeps them
 * (keep_cache) only when the text they came from is the one it would read now. Each
 * path remembers the identity of the text its pages last came from (a hash of what
 * the text is made of: see ops.c); an open compares and remembers. */
#ifndef ANIMFS_FS_KCACHE_H
#define ANIMFS_FS_KCACHE_H

#include <stdint.h>
#include <sys/stat.h>

/* The identity of a text or file: its source's identity (dev, ino, size, mtime and
 * ctime in ns), what made it of that (a codec and its version, 0 for a file shown as
 * is), its length, its kind and what else it was made of (others: the hash of the
 * siblings and names it read, struct af_text's src, or 0); never 0. */
uint64_t af_kc_id(const struct stat *src, const void *maker, unsigned version, uint64_t len,
		  int kind, uint64_t others);
/* An open of path whose pages will come from id: 1 when the kernel's pages of path
 * came from id too (keep them), else 0 (the kernel drops them); id is remembered. */
int af_kc_open(const char *path, uint64_t id);
/* A view written in place through the mount (opened for writing): its readers are
 * served with direct_io from then on (ops.c; until the table forgets it), since a
 * writer's truncation and writes change the size the kernel keeps for every reader. */
void af_kc_written(const char *path);
int af_kc_is_written(const char *path);
/* The kernel's pages of path (and of every name below it) come from nothing known any
 * more (a rename onto it, its removal, a save through a descriptor that writes): the
 * next open drops them. */
void af_kc_forget(const char *path);
/* A folder renamed or removed: every path forgotten (the table keeps no names). */
void af_kc_forget_all(void);
/* The kernel is told to drop its attributes (and pages) of path now: an open that
 * finds another text while attributes are cached (-o attr_cache), so no read stops at
 * the old size. */
void af_kc_notify(const char *path);
/* As af_kc_forget, and the kernel is told now to drop path's pages and attributes (a
 * save through the mount: a process with the file open and mapped sees it at once).
 * Never from an operation the kernel holds path's inode for (the kernel's own
 * setattr, rename): their replies already update it. */
void af_kc_invalidate(const char *path);

/* The kernel's names dropped at once (af_kc_epoch), through the session of f. With
 * names and attributes kept S seconds (ops.c), every change the mount makes or is told
 * of (src/view/watch.c) ends in af_kc_epoch: the kernel then looks every name up again
 * at its next use, so a stat shows what a stat of GAME would at once, a name that
 * turned from a view into a folder or back included. Off until af_kc_epochs(1) (ops.c:
 * a kernel that knows the notification, names and attributes kept). */
struct fuse;
void af_kc_attach(struct fuse *f);
void af_kc_epochs(int on);
void af_kc_epoch(void);

/* A request that may change what a stat shows is done (ops.c): a stat remembered
 * before it (af_kc_generation) is not shown again. */
void af_kc_changed(void);
unsigned long af_kc_generation(void);

#endif
