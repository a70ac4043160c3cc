/* One save with no mount (animfs/fs.h af_save_file): a state of the core over the
 * folder of the binary, for that save alone, and the one save pipeline (commit.c) run
 * on it as the process's own user. Nothing is kept on disk (af_fs_init_bare) and
 * nothing is logged: what the save did and said comes back to the caller, whose face
 * says it. Names no format and no face. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "animfs/fs.h"
#include "commit.h"
#include "dest.h"
#include "errlog.h"
#include "folder.h"
#include "session.h"
#include "who.h"

static int open_dir(const char *path, struct af_diag *d)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		af_diag_error(d, AF_EIO, "cannot open the folder %s: %s", path, strerror(errno));
	return fd;
}

int af_save_file(const struct af_save_once *o, const unsigned char *yaml, size_t n,
		 struct af_save_said *said)
{
	struct af_fs fs;
	struct stat st;
	char pkg[4096];
	const char *inner;
	int rc, have = 0, quiet = af_fs_log_quiet(1);
	int rootfd = open_dir(o->dir, &said->d), modfd = -1;
	said->wrote = said->gone = said->late = 0;
	said->codec = NULL;
	if (rootfd < 0 || (o->moddir && (modfd = open_dir(o->moddir, &said->d)) < 0)) {
		rc = AF_EIO;
		goto out;
	}
	if ((rc = af_fs_init_bare(&fs, rootfd, o->cache_bytes, 0))) {
		rc = af_diag_error(&said->d, AF_ENOMEM, "out of memory");
		goto out;
	}
	have = 1;
	fs.modfd = modfd;
	fs.mod_layout = o->layout;
	/* a member: its container must be one the mount shows as a folder */
	if (strchr(o->rel, '/') && !af_folder_split(&fs, o->rel, pkg, sizeof(pkg), &inner, &st)) {
		rc = af_diag_error(&said->d, AF_EUNSUP, "no container of this build reads %s", o->rel);
		goto out;
	}
	struct af_dest to = {-1, o->rel, af_who_self(), 0666 & ~022, 0, NULL, NULL, NULL, 0,
			     o->overwrite};
	rc = af_commit_said(&fs, &to, o->rel, yaml, n, said);
out:
	if (have)
		af_fs_destroy(&fs);
	if (modfd >= 0)
		close(modfd);
	if (rootfd >= 0)
		close(rootfd);
	af_fs_log_quiet(quiet);
	return rc;
}
