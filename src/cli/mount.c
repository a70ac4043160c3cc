/* `animfs mount` and `animfs umount`: argument checks with clear reasons, GAME opened
 * once before the daemon starts, and an unmount that waits for the daemon to exit
 * (every save is on disk when it returns). */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "animfs/fileio.h"
#include "animfs/dav.h"
#include "animfs/fs.h"

static int usage(void)
{
	return af_cli_usage("mount");
}

static int parse_o(const char *cmd, const char *list, struct af_fs_opts *o)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *save, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!strcmp(t, "ro"))
			o->read_only = 1;
		else if (!strcmp(t, "rw"))
			o->read_only = 0;
		else if (!strcmp(t, "allow_other"))
			o->allow_other = 1;
		else if (!strncmp(t, "attr_cache=", 11)) {
			char *end;
			o->attr_cache = strtod(t + 11, &end);
			if (*end || end == t + 11 || !(o->attr_cache >= 0 && o->attr_cache <= 3600)) {
				fprintf(stderr, "animfs %s: -o attr_cache wants seconds (0 to 3600)\n", cmd);
				return -1;
			}
		} else {
			fprintf(stderr, "animfs %s: unknown option -o %s (known: ro, allow_other, "
				"attr_cache=S)\n", cmd, t);
			return -1;
		}
	}
	return 0;
}

/* --split-over=SIZE: bytes, or with K, M or G (binary units) after the number. */
static int parse_size(const char *cmd, const char *v, size_t *bytes)
{
	char *end;
	unsigned long long n = strtoull(v, &end, 10);
	unsigned shift = 0;
	if (*end == 'K' || *end == 'k')
		shift = 10, end++;
	else if (*end == 'M' || *end == 'm')
		shift = 20, end++;
	else if (*end == 'G' || *end == 'g')
		shift = 30, end++;
	if (*end || !*v || v[0] == '-' || n > (1ull << 40) >> shift) {
		fprintf(stderr, "animfs %s: --split-over wants a size (bytes, or a number with "
			"K, M or G)\n", cmd);
		return -1;
	}
	*bytes = (size_t)(n << shift);
	return 0;
}

/* The value of option name at argv[*i] ("--name VALUE" or "--name=VALUE"), or NULL. */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);
	if (strncmp(argv[*i], name, n))
		return NULL;
	if (argv[*i][n] == '=' && argv[*i][n + 1])
		return argv[*i] + n + 1;
	if (argv[*i][n] == 0 && *i + 1 < argc)
		return argv[++*i];
	return NULL;
}

int af_cli_fs_parse(const char *cmd, int argc, char **argv, struct af_fs_opts *o,
		    const char **layout, struct af_dav_opts *dav)
{
	memset(o, 0, sizeof(*o));
	o->overlay_fd = -1;
	o->rig_dir_fd = -1;
	o->attr_cache = -1;
	o->cache_bytes = (size_t)AF_DEFAULT_CACHE_MB << 20;
	o->spill_bytes = SIZE_MAX;
	o->unsaved_bytes = (size_t)AF_DEFAULT_UNSAVED_MB << 20;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		if (!strcmp(a, "-f")) {
			o->foreground = 1;
		} else if (!strcmp(a, "-d")) {
			o->debug = o->foreground = 1;
		} else if (!strcmp(a, "-o") && i + 1 < argc) {
			if (parse_o(cmd, argv[++i], o))
				return -1;
		} else if (!strncmp(a, "-o", 2) && a[2]) {
			if (parse_o(cmd, a + 2, o))
				return -1;
		} else if (!strncmp(a, "--cache-mb=", 11)) {
			if (af_cli_parse_mb(cmd, "--cache-mb", a + 11, 0, &o->cache_bytes))
				return -1;
		} else if (!strncmp(a, "--spill-mb=", 11)) {
			if (af_cli_parse_mb(cmd, "--spill-mb", a + 11, 0, &o->spill_bytes))
				return -1;
		} else if (!strncmp(a, "--unsaved-mb=", 13)) {
			if (af_cli_parse_mb(cmd, "--unsaved-mb", a + 13, 0, &o->unsaved_bytes))
				return -1;
		} else if (!strncmp(a, "--scratch-mb=", 13)) {
			if (af_cli_parse_mb(cmd, "--scratch-mb", a + 13, 0, &o->scratch_bytes))
				return -1;
		} else if (!strcmp(a, "--split")) {
			o->split = 1;
			o->split_over = 0;
		} else if (!strncmp(a, "--split-over=", 13)) {
			if (parse_size(cmd, a + 13, &o->split_over))
				return -1;
			o->split = 1;
		} else if (!strcmp(a, "--overlay") && i + 1 < argc) {
			o->overlay = argv[++i];
		} else if (!strncmp(a, "--overlay=", 10) && a[10]) {
			o->overlay = a + 10;
		} else if (!strcmp(a, "--rig-dir") && i + 1 < argc) {
			o->rig_dir = argv[++i];
		} else if (!strncmp(a, "--rig-dir=", 10) && a[10]) {
			o->rig_dir = a + 10;
		} else if (!strcmp(a, "--to") && i + 1 < argc) {
			o->overlay_to = argv[++i];
		} else if (!strcmp(a, "--overlay-layout") && i + 1 < argc) {
			*layout = argv[++i];
		} else if (dav && !strcmp(a, "--daemon")) {
			dav->daemon = 1;
		} else if (dav && (v = opt_value(argc, argv, &i, "--listen"))) {
			dav->listen = v;
		} else if (dav && (v = opt_value(argc, argv, &i, "--auth"))) {
			dav->auth = v;
		} else if (dav && (v = opt_value(argc, argv, &i, "--tls-cert"))) {
			dav->tls_cert = v;
		} else if (dav && (v = opt_value(argc, argv, &i, "--tls-key"))) {
			dav->tls_key = v;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "animfs %s: unknown option '%s'\n", cmd, a);
			return -1;
		} else if (!o->game) {
			o->game = a;
		} else if (!dav && !o->view) {
			o->view = a;
		} else {
			fprintf(stderr, "animfs %s: too many arguments ('%s')\n", cmd, a);
			return -1;
		}
	}
	return o->game && (dav || o->view) ? 0 : -1;
}

int af_cli_open_game(const char *cmd, const char *game)
{
	int fd = open(game, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			fprintf(stderr, "animfs %s: GAME folder '%s' does not exist\n", cmd, game);
		else if (errno == ENOTDIR)
			fprintf(stderr, "animfs %s: GAME '%s' is not a folder\n", cmd, game);
		else
			fprintf(stderr, "animfs %s: cannot open GAME folder '%s': %s\n", cmd, game,
				strerror(errno));
		return -1;
	}
	if (faccessat(fd, ".", R_OK | X_OK, AT_EACCESS)) {
		fprintf(stderr, "animfs %s: GAME folder '%s' is not readable: %s\n", cmd, game,
			strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int check_view(const char *view)
{
	struct stat st;
	if (stat(view, &st)) {
		if (errno == ENOTCONN)
			fprintf(stderr, "animfs mount: '%s' is a stale mount (Transport endpoint is not "
				"connected); clear it with: fusermount3 -u %s\n", view, view);
		else if (errno == ENOENT)
			fprintf(stderr, "animfs mount: VIEW folder '%s' does not exist (mkdir it first)\n",
				view);
		else
			fprintf(stderr, "animfs mount: VIEW '%s': %s\n", view, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "animfs mount: VIEW '%s' is not a folder\n", view);
		return -1;
	}
	return 0;
}

static int check_view_empty(const char *view)
{
	DIR *d;
	struct dirent *e;
	int entries = 0, animfs = 0;
	d = opendir(view);
	if (!d) {
		fprintf(stderr, "animfs mount: cannot read VIEW '%s': %s\n", view, strerror(errno));
		return -1;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			entries++;
			animfs |= !strcmp(e->d_name, AF_CTL_DIR);
		}
	closedir(d);
	if (entries) {
		fprintf(stderr, "animfs mount: VIEW folder '%s' is not empty%s\n", view,
			animfs ? " (an animfs mount is there; animfs umount it first)" : "");
		return -1;
	}
	return 0;
}

/* Whether path `in` is `outer` or below it (both resolved). */
static int inside(const char *in, const char *outer)
{
	size_t n = strlen(outer);
	if (n == 1 && outer[0] == '/')
		return 1;
	return !strncmp(in, outer, n) && (in[n] == 0 || in[n] == '/');
}

static int check_nesting(const char *game, const char *view)
{
	char g[PATH_MAX], v[PATH_MAX];
	if (!realpath(game, g) || !realpath(view, v)) {
		fprintf(stderr, "animfs mount: cannot resolve paths: %s\n", strerror(errno));
		return -1;
	}
	if (inside(v, g)) {
		fprintf(stderr, "animfs mount: VIEW '%s' is inside GAME '%s'; choose a VIEW outside "
			"the game folder\n", view, game);
		return -1;
	}
	if (inside(g, v)) {
		fprintf(stderr, "animfs mount: GAME '%s' is inside VIEW '%s'\n", game, view);
		return -1;
	}
	return 0;
}

/* A field of /proc/self/mountinfo in place, its octal escapes (\040 for a space) undone. */
static void unescape(char *s)
{
	char *o = s;
	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = 0;
}

/* A second daemon on the same GAME would serve it twice, each with its own cache and
 * its own idea of what is being saved: refused, naming where GAME is shown already.
 * The daemon names its mount "animfs:<GAME resolved>" (fsname, src/fs/session.c). */
static int check_not_mounted(const char *game)
{
	char g[PATH_MAX], want[PATH_MAX + 16], *line = NULL;
	size_t cap = 0;
	int rc = 0;
	FILE *f;
	if (!realpath(game, g))
		return 0; /* check_nesting says why */
	snprintf(want, sizeof(want), "animfs:%s", g);
	if (!(f = fopen("/proc/self/mountinfo", "re")))
		return 0; /* no way to tell: the mount goes ahead */
	while (!rc && getline(&line, &cap, f) > 0) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER */
		char *save, *point = NULL, *fstype, *source;
		char *dash = strstr(line, " - ");
		if (!dash)
			continue;
		*dash = 0;
		strtok_r(line, " ", &save);
		for (int i = 1; i < 5 && (point = strtok_r(NULL, " ", &save)); i++)
			;
		fstype = strtok_r(dash + 3, " ", &save);
		source = strtok_r(NULL, " \n", &save);
		if (!point || !fstype || !source || strncmp(fstype, "fuse", 4))
			continue;
		unescape(source);
		if (strcmp(source, want))
			continue;
		unescape(point);
		fprintf(stderr, "animfs mount: %s is already mounted on %s (animfs umount %s first)\n",
			game, point, point);
		rc = -1;
	}
	free(line);
	fclose(f);
	return rc;
}

/* With allow_other the daemon serves every user as that user (docs/hardening.md),
 * which only root can do: a daemon of another user would create, read and write for
 * them all as itself. */
static int check_allow_other(void)
{
	if (geteuid() == 0)
		return 0;
	fprintf(stderr, "animfs mount: -o allow_other needs animfs to run as root: it serves "
		"each user as that user, which no other user can do; mount without "
		"allow_other to use the view yourself\n");
	return -1;
}

int af_cli_fs_overlay(const char *cmd, struct af_fs_opts *o, const char *layout)
{
	char how[160] = "";
	int rc;
	if ((o->overlay_to || layout) && !o->overlay) {
		fprintf(stderr, "animfs %s: %s goes with --overlay MODDIR\n", cmd,
			layout ? "--overlay-layout" : "--to");
		return AF_EXIT_USAGE;
	}
	if (!o->overlay)
		return 0;
	if ((o->overlay_fd = af_cli_open_moddir(cmd, o->game, o->view, o->overlay)) < 0)
		return AF_EXIT_FAIL;
	if ((rc = af_cli_ov_layout(cmd, o->overlay, layout, &o->overlay_to, how, sizeof(how)))) {
		close(o->overlay_fd);
		o->overlay_fd = -1;
		return rc;
	}
	if (how[0])
		fprintf(stderr, "animfs %s: saves into %s are written in the %s layout, %s "
			"(--to LAYOUT chooses another)\n", cmd, o->overlay, o->overlay_to, how);
	return 0;
}

int af_cli_fs_rigdir(const char *cmd, struct af_fs_opts *o)
{
	if (o->rig_dir && (o->rig_dir_fd = open(o->rig_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		fprintf(stderr, "animfs %s: --rig-dir %s: %s\n", cmd, o->rig_dir, strerror(errno));
		return AF_EXIT_FAIL;
	}
	return 0;
}

int af_cli_fs_run(const char *cmd, struct af_fs_opts *o, const char *layout,
		  int (*check)(const struct af_fs_opts *o),
		  int (*run)(int gamefd, const struct af_fs_opts *o, void *ctx), void *ctx)
{
	int rc, fd = af_cli_open_game(cmd, o->game);
	if (fd < 0)
		return AF_EXIT_FAIL;
	if (check && check(o)) {
		rc = AF_EXIT_FAIL;
		goto out;
	}
	if ((rc = af_cli_fs_overlay(cmd, o, layout)) || (rc = af_cli_fs_rigdir(cmd, o)))
		goto out;
	rc = run(fd, o, ctx) ? AF_EXIT_FAIL : AF_EXIT_OK;
out:
	close(fd);
	if (o->rig_dir_fd >= 0)
		close(o->rig_dir_fd);
	if (o->overlay_fd >= 0)
		close(o->overlay_fd);
	return rc;
}

static int mount_checks(const struct af_fs_opts *o)
{
	return check_view(o->view) || check_nesting(o->game, o->view) || check_view_empty(o->view) ||
	       check_not_mounted(o->game) || (o->allow_other && check_allow_other());
}

static int run_mount(int gamefd, const struct af_fs_opts *o, void *ctx)
{
	(void)ctx;
	return af_fs_run(gamefd, o);
}

int af_cli_mount(int argc, char **argv)
{
	struct af_fs_opts o;
	const char *layout = NULL;
	if (af_cli_fs_parse("mount", argc, argv, &o, &layout, NULL))
		return usage();
	if (af_fault_init()) {
		fprintf(stderr, "animfs mount: unknown ANIMFS_FAULT value (a test switch)\n");
		return AF_EXIT_USAGE;
	}
	return af_cli_fs_run("mount", &o, layout, mount_checks, run_mount, NULL);
}

/* The first line of VIEW/.animfs/<name> into buf; its length, or -1 (errno in *err). */
static ssize_t read_ctl(const char *view, const char *name, char *buf, size_t size, int *err)
{
	char path[PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s/%s/%s", view, AF_CTL_DIR, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	*err = 0;
	if (fd < 0) {
		*err = errno;
		return -1;
	}
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return (ssize_t)strlen(buf);
}

static long read_pid(const char *view, int *err)
{
	char buf[32];
	return read_ctl(view, AF_CTL_PID, buf, sizeof(buf), err) > 0 ? strtol(buf, NULL, 10) : -1;
}

/* Droppings kept for the next mount are said, with where they are, so that nothing
 * the editors left is a surprise. */
static void say_droppings(const char *scratch)
{
	if (!scratch[0])
		return;
	unsigned n = af_scratch_sweep(scratch);
	if (n)
		printf("animfs umount: %u editor file%s (swap files, backups) kept in %s; the next mount "
		       "of this GAME shows them again\n", n, n == 1 ? "" : "s", scratch);
}

static int run_fusermount(const char *view)
{
	pid_t p = fork();
	int status;
	if (p < 0)
		return -1;
	if (p == 0) {
		execlp("fusermount3", "fusermount3", "-u", view, (char *)NULL);
		perror("animfs umount: cannot run fusermount3");
		_exit(127);
	}
	if (waitpid(p, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* Wait (up to a minute) until the daemon has exited. */
static int wait_exit(long pid, int pidfd)
{
	if (pidfd >= 0) {
		struct pollfd p = {pidfd, POLLIN, 0};
		int r = poll(&p, 1, 60000);
		return r == 1 ? 0 : -1;
	}
	for (int i = 0; i < 6000; i++) {
		if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
			return 0;
		struct timespec ts = {0, 10000000};
		nanosleep(&ts, NULL);
	}
	return -1;
}

int af_cli_umount(int argc, char **argv)
{
	const char *view;
	char scratch[PATH_MAX];
	int err, pidfd = -1, rc = AF_EXIT_FAIL;
	long pid;
	if (argc != 2) {
		return af_cli_usage("umount");
	}
	view = argv[1];
	pid = read_pid(view, &err);
	if (pid <= 0) {
		if (err == ENOTCONN) {
			/* the daemon is gone: only the stale mount is left */
			if (run_fusermount(view) == 0)
				return AF_EXIT_OK;
			return AF_EXIT_FAIL;
		}
		fprintf(stderr, "animfs umount: '%s' is not an animfs mount\n", view);
		return AF_EXIT_FAIL;
	}
	if (read_ctl(view, AF_CTL_SCRATCH, scratch, sizeof(scratch), &err) < 0)
		scratch[0] = 0;
	pidfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
	if (run_fusermount(view)) {
		fprintf(stderr, "animfs umount: could not unmount '%s' (files still open?)\n", view);
		goto out;
	}
	if (wait_exit(pid, pidfd)) {
		fprintf(stderr, "animfs umount: the daemon (pid %ld) did not exit within a minute\n",
			pid);
		goto out;
	}
	say_droppings(scratch);
	rc = AF_EXIT_OK;
out:
	if (pidfd >= 0)
		close(pidfd);
	return rc;
}
