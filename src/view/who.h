/* who.c: who a request comes from, and acting as that caller (private to the mount). */
#ifndef ANIMFS_FS_WHO_H
#define ANIMFS_FS_WHO_H

#include <stdint.h>
#include <sys/types.h>

/* Who a request comes from (who.c). A daemon that runs as root acts as the caller:
 * each request runs with the caller's uid, gid and groups, so the kernel checks
 * every permission and what is made is the caller's. */
#define AF_WHO_GROUPS 64
struct af_who {
	uid_t uid;
	gid_t gid;
	mode_t umask;
	int ngroups;                   /* -1: the daemon's own identity (no switch) */
	gid_t groups[AF_WHO_GROUPS];
};
/* A key of w's identity (uid, gid, groups), never 0: what the render cache keeps a text
 * read as w under (one user never gets another's). */
uint64_t af_who_key(const struct af_who *w);
/* The daemon's own user and umask 022 (the command line, tests). */
struct af_who af_who_self(void);
/* The daemon's own uid, whatever identity the thread holds now. */
uid_t af_daemon_uid(void);
/* The caller of the request this thread serves (outside a request: the daemon). */
const struct af_who *af_caller(void);
/* Root acts with the rights of any user (CAP_FSETID: a write keeps set-id bits). */
int af_who_is_privileged(const struct af_who *w);
/* Once per mount, before serving: a root daemon acts as its callers from then on. */
void af_act_init(void);
int af_act_enabled(void);
/* The thread takes the identity of w, the caller of the request it serves (0, or -errno
 * and it keeps the daemon's; af_caller() is w from then on), and af_act_done gives it
 * back at the end of the request. A face tells who its caller is (src/fs/caller.c). */
int af_act_as(const struct af_who *w);
void af_act_done(void);
/* Root-only work in a request: pause returns whether the thread was acting as the
 * caller; resume takes that identity again. */
int af_act_pause(void);
/* Whether this thread acts as a caller other than the daemon now (root and the daemon's
 * own user are the daemon: they may read whatever it reads). */
int af_act_is_caller(void);
void af_act_resume(int was);
/* Between a pause and its resume: act as w for a proof or a creation (0, or -errno),
 * then back to the daemon's identity. */
int af_act_with(const struct af_who *w);
void af_act_back(void);
/* w's right to write the file name in dirfd, proven by opening it so as w: 0 or -errno;
 * proven (may be NULL) gets the identity of the file that open found. */
struct stat;
int af_may_write_as(const struct af_who *w, int dirfd, const char *name, struct stat *proven);

#endif
