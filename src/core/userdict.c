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
#include "animfs/nameidx.h"
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

static const char *name_at(const void *ctx, size_t i)
{
	return ((const char *const *)ctx)[i];
}

/* Marks seen[k] for each name k (the first of its spelling among names, by idx) that is
 * a line of text: one pass over the text, a hash lookup a line. */
static void lines_seen(const struct af_buf *text, const struct af_nameidx *idx, unsigned char *seen)
{
	const char *p = (const char *)text->data, *end = p + text->len;
	char line[AF_USERDICT_NAME_MAX + 1];
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);
		long k;
		if (len <= AF_USERDICT_NAME_MAX && !memchr(p, 0, len)) { /* longer: no name */
			memcpy(line, p, len);
			line[len] = 0;
			if ((k = af_nameidx_find(idx, line)) >= 0)
				seen[k] = 1;
		}
		p = nl ? nl + 1 : end;
	}
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
	struct af_nameidx idx;
	unsigned char *seen = NULL;
	int rc = 0, fd = -1;
	if (!n || af_userdict_path(path, sizeof(path)))
		return 0;
	memset(&idx, 0, sizeof(idx)); /* freed empty when learning stops before it is made */
	pthread_mutex_lock(&learn_lock);
	if (af_userdict_read(&have)) {
		rc = -1;
		goto out;
	}
	/* the names indexed, the dictionary read once (a scan of it and of the names added
	 * so far for each name was quadratic in the names a document gives) */
	if (!(seen = calloc(n, 1)) || af_nameidx_init(&idx, n, 0, name_at, names)) {
		rc = -1;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		af_nameidx_add(&idx, i);
	lines_seen(&have, &idx, seen);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]);
		if (!name_ok(names[i], len) || seen[i] || af_nameidx_find(&idx, names[i]) != (long)i)
			continue; /* a bad name, one the dictionary has, or a repeat */
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
	af_nameidx_free(&idx);
	free(seen);
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
