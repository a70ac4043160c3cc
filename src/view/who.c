/* Acting as the caller. A daemon that runs as root serves every request with the
 * caller's identity: the handling thread takes the caller's effective uid, gid and
 * supplementary groups (per thread, through the raw system calls: glibc's wrappers
 * change every thread of the process), does the work and takes the daemon's own
 * back. The kernel then checks every permission and whatever is made is the caller's,
 * with the caller's umask (the kernel applies it before the request reaches us; the
 * daemon's own umask is 0). Work only the daemon may do (the shared render cache, an
 * atomic replace in a folder the caller may not write) runs between af_act_pause and
 * af_act_resume, after the caller's right to it has been proven as the caller. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "errlog.h"
#include "who.h"

static int can_act;               /* the daemon is root: it can take any identity */
static int inited;
static uid_t daemon_uid;
static gid_t daemon_gid;
static int daemon_ngroups;
static gid_t daemon_groups[AF_WHO_GROUPS];


static __thread int acting;       /* this thread holds another identity now */
static __thread struct af_who caller; /* the caller of the request being served */
static __thread int have_caller;
static __thread struct af_who self;

void af_act_init(void)
{
	daemon_uid = geteuid();
	can_act = daemon_uid == 0;
	daemon_gid = getegid();
	inited = 1;
	int n = getgroups(AF_WHO_GROUPS, daemon_groups);
	daemon_ngroups = n < 0 ? 0 : n;
}

int af_act_enabled(void)
{
	return can_act;
}

uid_t af_daemon_uid(void)
{
	return inited ? daemon_uid : geteuid(); /* no mount: nobody else's identity is held */
}

struct af_who af_who_self(void)
{
	struct af_who w;
	memset(&w, 0, sizeof(w));
	w.uid = af_daemon_uid();
	w.gid = inited ? daemon_gid : getegid();
	w.umask = 022;
	w.ngroups = -1; /* the daemon's own: nothing to switch */
	return w;
}

uint64_t af_who_key(const struct af_who *w)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint64_t v[3] = {(uint64_t)w->uid, (uint64_t)w->gid, (uint64_t)(int64_t)w->ngroups};
	for (int i = 0; i < 3 + (w->ngroups > 0 ? w->ngroups : 0); i++)
		h = (h ^ (i < 3 ? v[i] : (uint64_t)w->groups[i - 3])) * 0x100000001b3ull;
	return h | 1;
}

/* Whether w is the daemon itself, or root (who may do anything the daemon may). */
static int is_daemon(const struct af_who *w)
{
	return !can_act || w->ngroups < 0 || w->uid == 0;
}

static void to_daemon(void)
{
	if (!acting)
		return;
	/* uid first: the daemon's uid 0 brings back the right to set the rest */
	if (syscall(SYS_setresuid, -1, 0, -1) || syscall(SYS_setresgid, -1, daemon_gid, -1) ||
	    syscall(SYS_setgroups, daemon_ngroups, daemon_groups)) {
		af_fs_log(LOG_CRIT, "cannot take the daemon's identity back: %s", strerror(errno));
		abort(); /* never serve another request with a caller's identity */
	}
	acting = 0;
}

static int to_who(const struct af_who *w)
{
	to_daemon();
	if (is_daemon(w))
		return 0;
	acting = 1; /* from the first call on: a failure part way is undone */
	if (syscall(SYS_setgroups, w->ngroups, w->groups) ||
	    syscall(SYS_setresgid, -1, w->gid, -1) || syscall(SYS_setresuid, -1, w->uid, -1)) {
		int e = errno;
		to_daemon();
		af_fs_log(LOG_ERR, "cannot act as uid %u: %s", (unsigned)w->uid, strerror(e));
		return -EPERM;
	}
	return 0;
}

const struct af_who *af_caller(void)
{
	if (have_caller)
		return &caller;
	self = af_who_self();
	return &self;
}

int af_act_as(const struct af_who *w)
{
	caller = *w;
	have_caller = 1;
	return to_who(&caller);
}

void af_act_done(void)
{
	to_daemon();
	have_caller = 0;
}

int af_act_is_caller(void)
{
	return acting;
}

int af_act_pause(void)
{
	int was = acting;
	to_daemon();
	return was;
}

void af_act_resume(int was)
{
	if (was && to_who(&caller))
		abort(); /* it held that identity a moment ago */
}

int af_act_with(const struct af_who *w)
{
	return to_who(w);
}

void af_act_back(void)
{
	to_daemon();
}

int af_who_is_privileged(const struct af_who *w)
{
	return w->uid == 0;
}

int af_may_write_as(const struct af_who *w, int dirfd, const char *name, struct stat *proven)
{
	int was = af_act_pause(), fd = -1, rc = af_act_with(w);
	if (!rc) { /* the open itself, as w: no write happens, nothing is truncated */
		fd = openat(dirfd, name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		rc = fd < 0 ? -errno : proven && fstat(fd, proven) ? -errno : 0;
	}
	af_act_back();
	af_act_resume(was);
	if (fd >= 0)
		close(fd);
	return rc;
}
