/* The caller of a FUSE request (the face's half of who.c): its uid, gid, umask and
 * groups from the FUSE context, and the thread acting as it for the request. */
#include <errno.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "ops.h"
#include "errlog.h"
#include "who.h"

/* The groups of the caller's process, read from /proc by the FUSE library: kept a
 * second per thread for the same process and user. */
static __thread struct {
	pid_t pid;
	uid_t uid;
	gid_t gid;
	time_t at;
	int n;
	gid_t g[AF_WHO_GROUPS];
} groups_seen;

static int who_of_request(struct af_who *w)
{
	struct fuse_context *c = fuse_get_context();
	struct af_who self = af_who_self();
	memset(w, 0, sizeof(*w));
	w->uid = c->uid;
	w->gid = c->gid;
	w->umask = c->umask;
	w->ngroups = -1;
	if (!af_act_enabled() || c->uid == 0 || (c->uid == self.uid && c->gid == self.gid))
		return 0;
	time_t now = time(NULL);
	if (groups_seen.pid == c->pid && groups_seen.uid == c->uid && groups_seen.gid == c->gid &&
	    groups_seen.at == now) {
		w->ngroups = groups_seen.n;
		memcpy(w->groups, groups_seen.g, sizeof(gid_t) * (size_t)groups_seen.n);
		return 0;
	}
	int n = fuse_getgroups(AF_WHO_GROUPS, w->groups);
	if (n < 0) /* no /proc entry (the process is gone): its own group only */
		n = 0;
	if (n > AF_WHO_GROUPS) {
		/* dropping one could grant what a group denies (mode 0604): refuse */
		af_fs_log(LOG_WARNING, "uid %u is in %d groups, more than the %d animfs acts with: "
			  "request refused", (unsigned)c->uid, n, AF_WHO_GROUPS);
		return -EACCES;
	}
	w->ngroups = n;
	groups_seen.pid = c->pid;
	groups_seen.uid = c->uid;
	groups_seen.gid = c->gid;
	groups_seen.at = now;
	groups_seen.n = n;
	memcpy(groups_seen.g, w->groups, sizeof(gid_t) * (size_t)n);
	return 0;
}

int af_act_caller(void)
{
	struct af_who w;
	int rc = who_of_request(&w);
	return rc ? rc : af_act_as(&w);
}
