/* What every command shares: the siblings of a file given by path (the same rule as
 * the mount's: core's dirio), and reporting a diagnostic on stderr. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "animfs/fileio.h"
#include "cli.h"

static void on_link(const struct af_dirio *d, const char *name)
{
	fprintf(stderr, "animfs: note: %s beside %s is a symbolic link, not read (siblings are "
		"the folder's own files)\n", name, d->io.name);
}

void af_cli_io_init(struct af_cli_io *c, const char *path, int learn)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	char dir[4096];
	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash > path ? slash - path : 1), path);
	else
		snprintf(dir, sizeof(dir), ".");
	int fd = path && strcmp(path, "-") ? open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
	af_dirio_init(&c->d, fd, slash ? slash + 1 : path ? path : "", learn);
	c->d.on_link = on_link;
}

void af_cli_io_close(struct af_cli_io *c)
{
	if (c->d.dirfd >= 0)
		close(c->d.dirfd);
	c->d.dirfd = -1;
}

void af_cli_report(const char *file, const struct af_diag *d)
{
	af_cli_report_in(file, ":", file, d);
}

void af_cli_report_in(const char *prefix, const char *sep, const char *file, const struct af_diag *d)
{
	char msg[2048];
	if (d->warnings.len) {
		const char *p = (const char *)d->warnings.data, *end = p + d->warnings.len;
		while (p < end) {
			const char *eol = memchr(p, '\n', (size_t)(end - p));
			if (!eol)
				eol = end;
			fprintf(stderr, "animfs: %s%s%.*s\n", prefix, sep, (int)(eol - p), p);
			p = eol + 1;
		}
	}
	if (d->code) {
		af_diag_format(d, file, msg, sizeof(msg));
		fprintf(stderr, "animfs: %s\n", msg);
	}
}

/* A device, FIFO or socket named as the output is written to, never replaced:
 * `-o /dev/null` as root must not turn the device into a file. */
static int write_in_place(const char *path, const uint8_t *p, size_t n, struct af_diag *d)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return af_diag_error(d, AF_EIO, "cannot open: %s", strerror(errno));
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w < 0 ? errno : EIO;
			close(fd);
			return af_diag_error(d, AF_EIO, "cannot write: %s", strerror(e));
		}
		p += w;
		n -= (size_t)w;
	}
	if (close(fd))
		return af_diag_error(d, AF_EIO, "cannot write: %s", strerror(errno));
	return 0;
}

int af_cli_write(const char *path, const void *data, size_t n, mode_t mode, struct af_diag *d)
{
	struct stat st;
	if (stat(path, &st) || S_ISREG(st.st_mode)) /* a new file, or a file: replaced */
		return af_replace_file_at(AT_FDCWD, path, data, n, mode, d);
	if (S_ISDIR(st.st_mode))
		return af_diag_error(d, AF_EIO, "is a folder; name a file to write");
	return write_in_place(path, data, n, d);
}

void af_cli_bound_init(struct af_cli_bound *b, size_t cache_bytes)
{
	size_t half = (cache_bytes + AF_BOUND_EXTRA - AF_YTREE_RESERVE) / 2;
	*b = (struct af_cli_bound){{half, NULL, NULL, 0, 0}, cache_bytes, half, 0, 0};
}

int af_cli_bound_room(void *bound, size_t want)
{
	struct af_cli_bound *b = bound;
	if (want <= b->model_max)
		return 1;
	b->refused = 1;
	b->model_want = want;
	return 0;
}

void af_cli_bound_refusal(const struct af_cli_bound *b, int over, struct af_diag *d)
{
	af_diag_clear(d);
	if (!over)
		af_diag_error(d, AF_ENOMEM,
			      "decoding it would take about %zu MiB (the file and the codec's model of "
			      "it), more than --cache-mb=%zu lets it take: raise --cache-mb",
			      b->model_want >> 20, b->cache_bytes >> 20);
	else
		af_diag_error(d, AF_ENOMEM,
			      "its YAML would be more than %zu MiB, more than --cache-mb=%zu lets it "
			      "take: raise --cache-mb", b->text.max >> 20, b->cache_bytes >> 20);
}

int af_cli_parse_mb(const char *cmd, const char *opt, const char *v, size_t min_mb, size_t *bytes)
{
	char *end;
	unsigned long mb = strtoul(v, &end, 10);
	if (!isdigit((unsigned char)*v) || *end || mb < min_mb || mb > (1ul << 20)) {
		fprintf(stderr, "animfs %s: %s wants a number of MiB, %zu to 1048576\n", cmd, opt,
			min_mb);
		return -1;
	}
	*bytes = (size_t)mb << 20;
	return 0;
}
