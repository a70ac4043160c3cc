/* `animfs errors [VIEW]`: the refused saves of a mount, newest first, as
 * `path:line:col: message` with the path as an editor started here opens it, for vim's
 * quickfix (`:cexpr system('animfs errors view')` lands on the save just refused) and
 * emacs' compilation-mode. `animfs errors --clear [PATH]`: the caller's lines about PATH
 * (a folder: beneath it; none: the whole mount the current folder is in) go. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "cli.h"
#include "animfs/fileio.h"

#define ERRLOG "/.animfs/errors"
#define XATTR_ERRORS "user.animfs.errors" /* src/fs/ops.h: AF_XATTR_ERRORS */

static int has_errlog(const char *view)
{
	char p[PATH_MAX + 32];
	struct stat st;
	snprintf(p, sizeof(p), "%s%s", view, ERRLOG);
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* The mount holding the current folder: ".", "..", "../.." ... up to the root. */
static int find_view(char *out, size_t size)
{
	struct stat here, up;
	snprintf(out, size, ".");
	for (int depth = 0; depth < 64; depth++) {
		if (has_errlog(out))
			return 0;
		if (stat(out, &here) || strlen(out) + 4 >= size)
			return -1;
		if (depth == 0)
			snprintf(out, size, "..");
		else
			strcat(out, "/..");
		if (stat(out, &up) || (up.st_dev == here.st_dev && up.st_ino == here.st_ino))
			return -1; /* the root */
	}
	return -1;
}

/* One log line, "<time> <view-relative path>...", as "<view>/<path>...". */
static void print_line(const char *view, const char *line, size_t n)
{
	const char *sp = memchr(line, ' ', n);
	if (!sp) /* not a log line: shown as it is */
		sp = line - 1;
	const char *rest = sp + 1;
	size_t rn = n - (size_t)(rest - line);
	while (rn && *rest == '/')
		rest++, rn--;
	if (strcmp(view, "."))
		printf("%s/%.*s\n", view, (int)rn, rest);
	else
		printf("%.*s\n", (int)rn, rest);
}

static int clear(const char *path)
{
	char view[PATH_MAX];
	if (!path) {
		if (find_view(view, sizeof(view))) {
			fputs("animfs errors --clear: not inside an animfs mount; name a PATH in one\n",
			      stderr);
			return AF_EXIT_USAGE;
		}
		path = view;
	}
	if (removexattr(path, XATTR_ERRORS) == 0)
		return AF_EXIT_OK;
	if (errno == ENOTSUP || errno == ENODATA || errno == ENOSYS)
		fprintf(stderr, "animfs errors --clear: %s is not in an animfs mount\n", path);
	else
		fprintf(stderr, "animfs errors --clear: %s: %s\n", path, strerror(errno));
	return AF_EXIT_FAIL;
}

int af_cli_errors(int argc, char **argv)
{
	char view[PATH_MAX], path[PATH_MAX + 32];
	struct af_buf b = AF_BUF_INIT;
	struct af_diag d;
	int rc = AF_EXIT_OK;
	if (argc >= 2 && !strcmp(argv[1], "--clear")) {
		if (argc > 3 || (argc == 3 && argv[2][0] == '-' && argv[2][1]))
			return af_cli_usage("errors");
		return clear(argc == 3 ? argv[2] : NULL);
	}
	if (argc > 2 || (argc == 2 && argv[1][0] == '-' && argv[1][1])) {
		return af_cli_usage("errors");
	}
	if (argc == 2) {
		size_t l = strlen(argv[1]);
		while (l > 1 && argv[1][l - 1] == '/')
			l--;
		snprintf(view, sizeof(view), "%.*s", (int)l, argv[1]);
		if (!has_errlog(view)) {
			fprintf(stderr, "animfs errors: %s is not an animfs mount (no %s)\n", view,
				&ERRLOG[1]); /* without its leading slash */
			return AF_EXIT_FAIL;
		}
	} else if (find_view(view, sizeof(view))) {
		fputs("animfs errors: not inside an animfs mount; name the VIEW folder\n", stderr);
		return AF_EXIT_USAGE;
	}
	af_diag_init(&d);
	snprintf(path, sizeof(path), "%s%s", view, ERRLOG);
	if (af_read_file_at(AT_FDCWD, path, 16u << 20, &b, &d)) {
		af_cli_report(path, &d);
		rc = AF_EXIT_FAIL;
		goto out;
	}
	/* the log is oldest first: newest first here, from the end back */
	for (size_t end = b.len; end > 0;) {
		const char *s = (const char *)b.data;
		size_t start = end;
		if (s[end - 1] == '\n')
			end--, start--;
		while (start > 0 && s[start - 1] != '\n')
			start--;
		if (end > start)
			print_line(view, s + start, end - start);
		end = start;
	}
	if (fflush(stdout)) {
		perror("animfs: writing the output");
		rc = AF_EXIT_FAIL;
	}
out:
	af_buf_free(&b);
	af_diag_free(&d);
	return rc;
}
