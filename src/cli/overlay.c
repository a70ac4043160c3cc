/* --overlay MODDIR on the command line (issue 32): the mod folder a mount or an encode
 * writes into instead of GAME, and `animfs overlay status|diff GAME MODDIR`, what a mod
 * folder changes. Names no format: containers and codecs are asked through the tables. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Whether path `in` is `outer` or below it (both resolved). */
static int below(const char *in, const char *outer)
{
	size_t n = strlen(outer);
	if (n == 1 && outer[0] == '/')
		return 1;
	return !strncmp(in, outer, n) && (in[n] == 0 || in[n] == '/');
}

int af_cli_open_moddir(const char *cmd, const char *game, const char *view, const char *moddir)
{
	char g[PATH_MAX], m[PATH_MAX], v[PATH_MAX];
	int fd = open(moddir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "animfs %s: cannot open the mod folder '%s': %s%s\n", cmd, moddir,
			strerror(errno), errno == ENOENT ? " (make it first)" : "");
		return -1;
	}
	if (!realpath(moddir, m) || !realpath(game, g) || (view && !realpath(view, v))) {
		fprintf(stderr, "animfs %s: cannot resolve paths: %s\n", cmd, strerror(errno));
		goto fail;
	}
	if (below(m, g) || below(g, m)) {
		fprintf(stderr, "animfs %s: the mod folder '%s' and GAME '%s' must not hold one "
			"another (GAME is never written)\n", cmd, moddir, game);
		goto fail;
	}
	if (view && (below(m, v) || below(v, m))) {
		fprintf(stderr, "animfs %s: the mod folder '%s' and VIEW '%s' must not hold one "
			"another\n", cmd, moddir, view);
		goto fail;
	}
	if (faccessat(fd, ".", W_OK | X_OK, AT_EACCESS)) {
		fprintf(stderr, "animfs %s: the mod folder '%s' is not writable: %s\n", cmd, moddir,
			strerror(errno));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}
