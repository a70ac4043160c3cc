/* The siblings of a file, through a folder descriptor: what a codec may read beside
 * the file it decodes or encodes, the same in the mount and on the command line. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "animfs/beneath.h"
#include "animfs/fileio.h"
#include "animfs/io.h"
#include "animfs/userdict.h"

static int dir_read(void *ctx, const char *name, struct af_buf *out)
{
	struct af_dirio *s = ctx;
	struct af_diag d;
	if (s->dirfd < 0 || !name[0] || strchr(name, '/') || !strcmp(name, "..") ||
	    !strcmp(name, "."))
		return AF_EINVAL;
	int fd = af_bn_open(s->dirfd, name, O_RDONLY, 0);
	if (fd < 0) {
		if (errno == ELOOP && s->on_link)
			s->on_link(s, name);
		return AF_EIO;
	}
	af_diag_init(&d);
	int rc = af_read_fd(fd, AF_MAX_FILE, out, &d);
	af_diag_free(&d);
	return rc;
}

static int dir_list(void *ctx, int (*cb)(void *, const char *), void *cbctx)
{
	struct af_dirio *s = ctx;
	int fd = s->dirfd >= 0 ? af_bn_open(s->dirfd, ".", O_RDONLY | O_DIRECTORY, 0) : -1;
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return AF_EIO;
	}
	while ((e = readdir(dir)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    strncmp(e->d_name, AF_TMP_PREFIX, strlen(AF_TMP_PREFIX)))
			if (cb(cbctx, e->d_name))
				break;
	closedir(dir);
	return 0;
}

void af_dirio_init(struct af_dirio *s, int dirfd, const char *name, int learn)
{
	memset(s, 0, sizeof(*s));
	s->dirfd = dirfd;
	s->io.name = name;
	s->io.read_sibling = dir_read;
	s->io.list_siblings = dir_list;
	s->io.read_names = af_userdict_io_read;
	s->io.learn_names = learn ? af_userdict_io_learn : NULL;
	s->io.ctx = s;
}
