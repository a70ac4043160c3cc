/* A plain folder served by the WebDAV face (src/dav) through a namespace of plain files:
 * the protocol's test double (litmus and the request tests run against it), so the face
 * is tested apart from the views. usage: dav_dirserve DIR PORTFILE (writes the port it
 * listens on, 127.0.0.1:0, to PORTFILE; serves until SIGTERM/SIGINT). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "animfs/beneath.h"
#include "animfs/buf.h"
#include "animfs/dav.h"

static int root;

static const char *rp(const char *rel)
{
	return rel[0] ? rel : ".";
}

static int ns_stat(void *ctx, const char *rel, struct stat *st)
{
	(void)ctx;
	return af_bn_stat(root, rp(rel), st) ? -errno : 0;
}

struct af_dav_dir {
	DIR *d;
	struct dirent *held; /* the entry fn stopped before */
};

static int ns_open_dir(void *ctx, const char *rel, struct af_dav_dir **out)
{
	(void)ctx;
	int fd = af_bn_open(root, rp(rel), O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return -errno;
	struct af_dav_dir *dd = af_alloc_zeroed(1, sizeof *dd);
	if (!dd || !(dd->d = fdopendir(fd))) {
		close(fd);
		free(dd);
		return -ENOMEM;
	}
	*out = dd;
	return 0;
}

static int ns_read_dir(struct af_dav_dir *dd, int (*fn)(void *, const char *), void *arg)
{
	for (;;) {
		struct dirent *e = dd->held ? dd->held : readdir(dd->d);
		dd->held = NULL;
		if (!e)
			return 0;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fn(arg, e->d_name)) {
			dd->held = e;
			return 1;
		}
	}
}

static void ns_close_dir(struct af_dav_dir *dd)
{
	closedir(dd->d);
	free(dd);
}

struct af_dav_reader {
	int fd;
};

static int ns_open_read(void *ctx, const char *rel, struct af_dav_reader **out, struct stat *st)
{
	(void)ctx;
	int fd = af_bn_open(root, rp(rel), O_RDONLY, 0);
	if (fd < 0)
		return -errno;
	struct af_dav_reader *r = af_alloc(sizeof *r);
	if (!r || fstat(fd, st)) {
		close(fd);
		free(r);
		return -ENOMEM;
	}
	r->fd = fd;
	*out = r;
	return 0;
}

static long ns_read(struct af_dav_reader *r, char *buf, size_t n, uint64_t off)
{
	ssize_t got = pread(r->fd, buf, n, (off_t)off);
	return got < 0 ? -errno : (long)got;
}

static void ns_close_read(struct af_dav_reader *r)
{
	close(r->fd);
	free(r);
}

struct af_dav_writer {
	int fd;
	char rel[4096], tmp[4200];
};

static int ns_open_write(void *ctx, const char *rel, struct af_dav_writer **out, int *created)
{
	(void)ctx;
	struct stat st;
	struct af_dav_writer *w = af_alloc_zeroed(1, sizeof *w);
	if (!w)
		return -ENOMEM;
	*created = af_bn_stat(root, rel, &st) != 0;
	snprintf(w->rel, sizeof w->rel, "%s", rel);
	snprintf(w->tmp, sizeof w->tmp, "%s.davtmp%d", rel, (int)getpid());
	w->fd = af_bn_open(root, w->tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (w->fd < 0) {
		int e = errno;
		free(w);
		return -e;
	}
	*out = w;
	return 0;
}

static int ns_write(struct af_dav_writer *w, const char *buf, size_t n, uint64_t off)
{
	while (n) {
		ssize_t put = pwrite(w->fd, buf, n, (off_t)off);
		if (put < 0)
			return -errno;
		buf += put;
		n -= (size_t)put;
		off += (uint64_t)put;
	}
	return 0;
}

static int ns_close_write(struct af_dav_writer *w, int commit, char *why, size_t n)
{
	int rc = 0;
	(void)why, (void)n;
	if (close(w->fd))
		rc = -errno;
	if (commit && !rc && af_bn_rename(root, w->tmp, w->rel))
		rc = -errno;
	if (!commit || rc)
		af_bn_unlink(root, w->tmp, 0);
	free(w);
	return rc;
}

static int ns_mkcol(void *ctx, const char *rel)
{
	(void)ctx;
	return af_bn_mkdir(root, rel, 0755) ? -errno : 0;
}

static int ns_remove(void *ctx, const char *rel, int is_dir)
{
	(void)ctx;
	return af_bn_unlink(root, rel, is_dir ? AT_REMOVEDIR : 0) ? -errno : 0;
}

static int ns_rename(void *ctx, const char *from, const char *to, int noreplace)
{
	(void)ctx;
	struct stat st;
	if (noreplace && !af_bn_stat(root, to, &st))
		return -EEXIST;
	return af_bn_rename(root, from, to) ? -errno : 0;
}

static volatile sig_atomic_t stop;

static void on_signal(int s)
{
	(void)s;
	stop = 1;
}

int main(int argc, char **argv)
{
	char err[512];
	if (argc != 3) {
		fprintf(stderr, "usage: dav_dirserve DIR PORTFILE\n");
		return 2;
	}
	root = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (root < 0) {
		perror(argv[1]);
		return 1;
	}
	struct af_dav_ns ns = {
		.stat = ns_stat, .open_dir = ns_open_dir, .read_dir = ns_read_dir,
		.close_dir = ns_close_dir, .open_read = ns_open_read, .read = ns_read,
		.close_read = ns_close_read, .open_write = ns_open_write, .write = ns_write,
		.close_write = ns_close_write, .mkcol = ns_mkcol, .remove = ns_remove,
		.rename = ns_rename,
	};
	struct af_dav_opts o = {.listen = "127.0.0.1:0", .quiet = 1};
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	struct af_dav *d = af_dav_start(&o, &ns, err, sizeof err);
	if (!d) {
		fprintf(stderr, "dav_dirserve: %s\n", err);
		return 1;
	}
	FILE *f = fopen(argv[2], "w");
	if (!f || fprintf(f, "%u\n", af_dav_port(d)) < 0 || fclose(f)) {
		perror(argv[2]);
		af_dav_stop(d);
		return 1;
	}
	while (!stop)
		pause();
	af_dav_stop(d);
	close(root);
	return 0;
}
