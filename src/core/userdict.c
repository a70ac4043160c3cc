/* The user dictionary of names (see userdict.h). Appends are whole lines written
 * with O_APPEND, so concurrent writers interleave lines, never bytes; a name that
 * two writers add at once may appear twice, which readers tolerate. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "animfs/fileio.h"
#include "animfs/privdir.h"
#include "animfs/userdict.h"

static pthread_mutex_t learn_lock = PTHREAD_MUTEX_INITIALIZER;

int af_userdict_path(char *buf, size_t size)
{
	const char *v = getenv("ANIMFS_NAMES"), *base;
	int n;
	if (v)
		n = *v ? snprintf(buf, size, "%s", v) : -1;
	else if ((base = getenv("XDG_DATA_HOME")) && *base == '/')
		n = snprintf(buf, size, "%s/animfs/names.txt", base);
	else if ((base = getenv("HOME")) && *base == '/')
		n = snprintf(buf, size, "%s/.local/share/animfs/names.txt", base);
	else
		n = -1;
	return n > 0 && (size_t)n < size ? 0 : -1;
}

int af_userdict_read(struct af_buf *out)
{
	char path[4096];
	struct af_diag d;
	struct stat st;
	int rc = 0;
	if (af_userdict_path(path, sizeof(path)) || stat(path, &st))
		return 0; /* no dictionary (yet): no names */
	af_diag_init(&d);
	size_t start = out->len;
	if (af_read_file_at(AT_FDCWD, path, AF_USERDICT_MAX, out, &d)) {
		out->len = start; /* unreadable or too large: no names, it is only a help */
		rc = d.code == AF_ENOMEM ? AF_ENOMEM : 0;
	}
	af_diag_free(&d);
	return rc;
}

static int name_ok(const char *s, size_t n)
{
	if (!n || n > AF_USERDICT_NAME_MAX || s[0] == '#' || s[0] == ' ' || s[n - 1] == ' ')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7E)
			return 0;
	return 1;
}

/* Is the line name (n bytes) in text? */
static int has_line(const struct af_buf *text, const char *name, size_t n)
{
	if (!text->len)
		return 0; /* no text: data may be NULL */
	const char *p = (const char *)text->data, *end = p + text->len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);
		if (len == n && !memcmp(p, name, n))
			return 1;
		p = nl ? nl + 1 : end;
	}
	return 0;
}

/* mkdir -p of path's folder. */
static void make_parent(const char *path)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", path);
	for (char *p = dir + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			mkdir(dir, 0755);
			*p = '/';
		}
}

/* The dictionary opened to append: $ANIMFS_NAMES as named; the one in the user's data
 * folder with no link followed on the way (privdir.h; its folders 0755: every caller
 * of a shared mount reads it). fd or -1. */
static int open_to_append(const char *path)
{
	char dir[4096];
	struct af_diag d;
	int fd, dfd;
	if (getenv("ANIMFS_NAMES")) {
		make_parent(path);
		return open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	}
	af_diag_init(&d);
	dfd = af_private_dir("XDG_DATA_HOME", ".local/share", "animfs", 0755, 1, dir, sizeof(dir), &d);
	af_diag_free(&d);
	if (dfd < 0)
		return -1;
	fd = openat(dfd, "names.txt", O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
	close(dfd);
	return fd;
}

int af_userdict_learn(const char *const *names, size_t n)
{
	char path[4096];
	struct af_buf have = AF_BUF_INIT, add = AF_BUF_INIT;
	int rc = 0, fd = -1;
	if (!n || af_userdict_path(path, sizeof(path)))
		return 0;
	pthread_mutex_lock(&learn_lock);
	if (af_userdict_read(&have)) {
		rc = -1;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]);
		if (!name_ok(names[i], len) || has_line(&have, names[i], len) ||
		    has_line(&add, names[i], len))
			continue;
		af_buf_append(&add, names[i], len);
		af_buf_putc(&add, '\n');
	}
	if (!add.len)
		goto out;
	if (add.failed || have.len + add.len > AF_USERDICT_MAX) {
		rc = -1;
		goto out;
	}
	fd = open_to_append(path);
	if (fd < 0 || write(fd, add.data, add.len) != (ssize_t)add.len)
		rc = -1;
out:
	if (fd >= 0)
		close(fd);
	pthread_mutex_unlock(&learn_lock);
	af_buf_free(&have);
	af_buf_free(&add);
	return rc;
}

int af_userdict_io_read(void *ctx, struct af_buf *out)
{
	(void)ctx;
	return af_userdict_read(out);
}

void af_userdict_io_learn(void *ctx, const char *const *names, size_t n)
{
	(void)ctx;
	af_userdict_learn(names, n);
}
