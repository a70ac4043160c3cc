/* davns.c: the views as the WebDAV face's namespace (animfs serve: serve.c). */
#ifndef ANIMFS_DAV_DAVNS_H
#define ANIMFS_DAV_DAVNS_H

#include <sys/types.h>

struct af_fs;
struct af_dav_ns;
/* ns: the views of fs, every request the serving user's, with umask. */
void af_fs_dav_ns(struct af_fs *fs, mode_t umask, struct af_dav_ns *ns);

#endif
