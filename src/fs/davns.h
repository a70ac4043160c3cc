/* davns.c: the views as the WebDAV face's namespace (private to src/fs). */
#ifndef ANIMFS_FS_DAVNS_H
#define ANIMFS_FS_DAVNS_H

struct af_fs;
struct af_dav_ns;
void af_fs_dav_ns(struct af_fs *fs, struct af_dav_ns *ns);

#endif
