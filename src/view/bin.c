/* What a view stands for, opened as its caller: the one proof of a caller's right to a
 * view's binary, whose descriptor the daemon's work then reads (see bin.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bin.h"
#include "folder.h"
#include "overlay.h"

int af_bin_open(struct af_fs *fs, const char *rel, int flags, struct af_bin *b)
{
	int rc;
	memset(b, 0, sizeof(*b));
	b->rel = rel;
	b->fd = -1;
	b->member = af_folder_file(fs, rel, b->file, sizeof(b->file));
	if (!b->member && (size_t)snprintf(b->file, sizeof(b->file), "%s", rel) >= sizeof(b->file))
		return -ENAMETOOLONG;
	int fd = af_ov_open_proof(fs, b->file, flags);
	if (fd < 0)
		return fd;
	if (fstat(fd, &b->st) || !S_ISREG(b->st.st_mode)) {
		rc = S_ISREG(b->st.st_mode) ? -errno : -ENOENT; /* no longer a binary */
		close(fd);
		return rc;
	}
	b->fd = fd;
	return 0;
}

void af_bin_close(struct af_bin *b)
{
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
}

int af_bin_reopen(const struct af_bin *b)
{
	char proc[64];
	if (b->fd < 0)
		return -EBADF;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", b->fd);
	int fd = open(proc, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}
