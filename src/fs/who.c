/* Acting for the caller: with allow_other every user of the mount acts as themselves,
 * so what a user creates through the view (files, folders, links, droppings, a new
 * binary) is owned by that user, with their umask. Permission checks stay the
 * kernel's (default_permissions). */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs_int.h"

struct af_who af_who_self(void)
{
	struct af_who w = {geteuid(), getegid(), 022};
	return w;
}

static int is_self(const struct af_who *w)
{
	return w->uid == geteuid() && w->gid == getegid();
}

void af_give_fd(int fd, const struct af_who *w, mode_t mode)
{
	/* the owner first: chown clears set-id bits a mode may ask for */
	if (!is_self(w) && fchown(fd, w->uid, w->gid) < 0)
		return; /* an unprivileged daemon cannot give files away: they stay its own */
	if (mode != (mode_t)-1)
		fchmod(fd, mode & ~w->umask & 07777);
}

void af_give_at(int dirfd, const char *base, const struct af_who *w)
{
	if (!is_self(w))
		fchownat(dirfd, base, w->uid, w->gid, AT_SYMLINK_NOFOLLOW);
}
