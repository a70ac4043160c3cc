/* animfs's own folders in a user's home, opened one component at a time from a
 * descriptor, never through a link (privdir.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "animfs/privdir.h"

#define DIRFLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* The folder name in dfd (made with mode when missing and make), never a link; path names
 * it for messages. fd, or an AF_E* code with d. */
static int step(int dfd, const char *name, mode_t mode, int make, const char *path,
		struct af_diag *d)
{
	int fd = openat(dfd, name, DIRFLAGS);
	if (fd < 0 && errno == ENOENT && make) {
		if (mkdirat(dfd, name, mode) && errno != EEXIST)
			return af_diag_error(d, AF_EIO, "%s: cannot make the folder: %s", path,
					     strerror(errno));
		fd = openat(dfd, name, DIRFLAGS);
	}
	if (fd >= 0)
		return fd;
	if (errno == ELOOP || errno == ENOTDIR) {
		struct stat st;
		int link = !fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode);
		return af_diag_error(d, AF_EPERM, "%s is %s: not followed, not used", path,
				     link ? "a symbolic link" : "not a folder");
	}
	int e = errno;
	af_diag_error(d, AF_EIO, "%s: %s", path, strerror(e));
	errno = e;
	return AF_EIO;
}

int af_private_dir(const char *xdg, const char *home_rel, const char *leaf, mode_t mode,
		   int make, char *path, size_t size, struct af_diag *d)
{
	const char *x = getenv(xdg), *home = getenv("HOME");
	char rel[PATH_MAX], walked[PATH_MAX];
	struct stat st;
	int fd = -1, rc;
	if (x && x[0] == '/')
		snprintf(rel, sizeof(rel), "%s", leaf);
	else if (home && home[0] == '/' && (x = home))
		snprintf(rel, sizeof(rel), "%s/%s", home_rel, leaf);
	else
		return af_diag_error(d, AF_EINVAL, "neither $%s nor $HOME names a folder", xdg);
	if ((size_t)snprintf(path, size, "%s/%s", x, rel) >= size || strlen(path) >= sizeof(walked))
		return af_diag_error(d, AF_EIO, "%s/%s: %s", x, rel, strerror(ENAMETOOLONG));
	/* the base as the environment names it (a home may well be a link), made as
	 * mkdir -p would when missing: $XDG_STATE_HOME may not exist yet */
	if ((fd = open(x, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 && errno == ENOENT && make) {
		memcpy(walked, x, strlen(x) + 1);
		for (char *p = strchr(walked + 1, '/'); p; p = strchr(p + 1, '/')) {
			*p = 0;
			mkdir(walked, mode);
			*p = '/';
		}
		mkdir(walked, mode);
		fd = open(x, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (fd < 0) {
		int e = errno;
		af_diag_error(d, AF_EIO, "%s: %s", x, strerror(e));
		errno = e;
		return AF_EIO;
	}
	/* each folder below it by name, walked names the path so far (path cut after it) */
	size_t at = strlen(path) - strlen(rel);
	memcpy(walked, path, strlen(path) + 1);
	for (char *name = rel, *slash; name; name = slash) {
		if ((slash = strchr(name, '/')))
			*slash++ = 0;
		at += strlen(name) + 1;
		if (!*name)
			continue;
		walked[at - 1] = 0;
		rc = step(fd, name, mode, make, walked, d);
		if (slash)
			walked[at - 1] = '/';
		close(fd);
		if (rc < 0)
			return rc;
		fd = rc;
	}
	/* the leaf is this user's alone: another's (made there before us) is not used */
	if (fstat(fd, &st)) {
		rc = af_diag_error(d, AF_EIO, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (st.st_uid != geteuid()) {
		rc = af_diag_error(d, AF_EPERM, "%s is owned by uid %u, not by this user (uid %u): "
				   "not used", path, (unsigned)st.st_uid, (unsigned)geteuid());
		goto out;
	}
	if ((st.st_mode & 07777) != mode && fchmod(fd, mode)) {
		rc = af_diag_error(d, AF_EIO, "%s: cannot make it mode %04o: %s", path, (unsigned)mode,
				   strerror(errno));
		goto out;
	}
	rc = fd;
	fd = -1;
out:
	if (fd >= 0)
		close(fd);
	return rc;
}
