/* watch.c: changes made behind the mount's back. inotify watches on every folder of
 * GAME and of --overlay's MODDIR, and on --rig-dir's folder and the user dictionary's,
 * read by a thread of their own, which tells the face that what it shows may have
 * changed (af_face_note AF_NOTE_OUTSIDE): a face that lets a kernel keep names and
 * attributes (src/fs: ops.c) has it drop them. Folders made later are watched as their
 * events arrive. Bounded: at most AF_WATCH_MAX folders; a folder that cannot be watched
 * (the bound, the kernel's own limit, a lost event queue) makes the thread tell the face
 * every second instead while any is unwatched. */
#ifndef ANIMFS_VIEW_WATCH_H
#define ANIMFS_VIEW_WATCH_H

#define AF_WATCH_MAX 65536 /* folders watched at most */

struct af_fs;

/* The watches set up (a walk of GAME and MODDIR: names only, one getdents a folder) and
 * the thread started; 0, or -errno with nothing started (no inotify here). */
int af_watch_start(struct af_fs *fs);
/* 1 while every folder is watched (a change anywhere is told at once). */
int af_watch_whole(const struct af_fs *fs);
/* The thread stopped and joined, the watches closed; safe when never started. */
void af_watch_stop(struct af_fs *fs);

#endif
