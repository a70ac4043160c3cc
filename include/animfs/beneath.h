/* Paths beneath a folder descriptor that never pass through a symbolic link and never
 * leave it (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS on Linux 5.6+, else a walk
 * component by component with O_NOFOLLOW). The mount resolves every GAME path this
 * way: the kernel follows a view's symlinks itself, so a link met on a path here is a
 * planted one or a race, and is refused (ELOOP), never followed out of GAME. */
#ifndef ANIMFS_BENEATH_H
#define ANIMFS_BENEATH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "animfs/buf.h"
#include "animfs/diag.h"

/* open(2) of rel beneath root; a symlink as the last component is not followed either
 * (ELOOP, or the link itself with O_PATH). rel "." is root. fd, or -1 with errno. */
int af_bn_open(int root, const char *rel, int flags, mode_t mode);
/* lstat(2) of rel beneath root. 0, or -1 with errno. */
int af_bn_stat(int root, const char *rel, struct stat *st);
/* The folder that holds rel, as an O_PATH descriptor, and rel's last component in
 * base ("." for rel "."). fd, or -1 with errno. */
int af_bn_parent(int root, const char *rel, char *base, size_t size);
/* The whole file / its first n bytes, as af_read_file_at / af_read_head_at do. */
int af_bn_read_file(int root, const char *rel, size_t max, struct af_buf *out,
		    struct af_diag *d);
int af_bn_read_head(int root, const char *rel, uint8_t *head, size_t n, size_t *got);
/* Read the whole file whose identity the caller looked up as *st, and make sure it
 * was that file throughout: 0 when it still is; AF_BN_CHANGED with *st the new
 * identity when it was replaced meanwhile (look up again, read again); AF_E* with d. */
#define AF_BN_CHANGED 1
int af_bn_read_stable(int root, const char *rel, size_t max, struct stat *st,
		      struct af_buf *out, struct af_diag *d);
/* The same for the open file fd (read from its start; fd stays open): AF_BN_CHANGED
 * when it was written to meanwhile (the same file: read again). */
int af_fd_read_stable(int fd, size_t max, struct stat *st, struct af_buf *out, struct af_diag *d);
/* chmod(2) of the file or folder fd is an O_PATH descriptor of (not of a link). */
int af_bn_fchmod(int fd, mode_t mode);
/* unlinkat, mkdirat, symlinkat, readlinkat and renameat of rel's last component in
 * its folder, resolved beneath root (these never follow a last-component link).
 * 0 (readlink: the length), or -1 with errno. */
int af_bn_unlink(int root, const char *rel, int flags);
int af_bn_mkdir(int root, const char *rel, mode_t mode);
int af_bn_symlink(const char *target, int root, const char *rel);
ssize_t af_bn_readlink(int root, const char *rel, char *buf, size_t n);
int af_bn_rename(int root, const char *from, const char *to);
/* Tests: 1 makes every call take the walk that stands in for openat2. */
void af_bn_force_walk(int on);

#endif
