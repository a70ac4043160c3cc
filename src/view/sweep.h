/* sweep.c: temp files of unfinished saves (private to src/fs). */
#ifndef ANIMFS_FS_SWEEP_H
#define ANIMFS_FS_SWEEP_H



struct af_fs;


/* Remove dfd/name when it is a temp file (AF_TMP_PREFIX) whose writer is gone and
 * that is min_age seconds old; 1 when removed. */
int af_sweep_temp(int dfd, const char *name, int min_age);
/* The walk of all of GAME at mount, on a thread of its own; stop cancels and joins. */
void af_sweep_start(struct af_fs *fs);
void af_sweep_stop(struct af_fs *fs);

#endif
