/* Temporary files of saves that never finished (.animfs-tmp-<pid>-*, left by a crash
 * or a power loss): removed at mount for the whole of GAME by a background walk
 * (names only: one getdents per folder, no stat but of the temp files themselves),
 * and again whenever a folder is listed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "animfs/fileio.h"
#include "errlog.h"
#include "overlay.h"
#include "session.h"
#include "sweep.h"

#define MAX_DEPTH 64

int af_sweep_temp(int dfd, const char *name, int min_age)
{
	struct stat st;
	char *end;
	long pid = strtol(name + strlen(AF_TMP_PREFIX), &end, 10);
	if (strncmp(name, AF_TMP_PREFIX, strlen(AF_TMP_PREFIX)) || pid <= 0 || *end != '-' ||
	    pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
		return 0; /* its writer may still be at work */
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) ||
	    time(NULL) - st.st_mtime < min_age)
		return 0;
	if (unlinkat(dfd, name, 0))
		return 0;
	af_fs_log(LOG_NOTICE, "removed %s, left by a save that did not finish", name);
	return 1;
}

static unsigned walk(struct af_fs *fs, int dfd, int depth)
{
	DIR *dir = fdopendir(dfd);
	struct dirent *e;
	unsigned removed = 0;
	if (!dir) {
		close(dfd);
		return 0;
	}
	while (!__atomic_load_n(&fs->sweep_stop, __ATOMIC_RELAXED) && (e = readdir(dir))) {
		const char *n = e->d_name;
		if (!strcmp(n, ".") || !strcmp(n, ".."))
			continue;
		if (!strncmp(n, AF_TMP_PREFIX, strlen(AF_TMP_PREFIX))) {
			removed += (unsigned)af_sweep_temp(dirfd(dir), n, 0);
			continue;
		}
		if (depth >= MAX_DEPTH || (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN))
			continue;
		int sub = openat(dirfd(dir), n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0)
			removed += walk(fs, sub, depth + 1);
	}
	closedir(dir);
	return removed;
}

static void *sweep_run(void *arg)
{
	struct af_fs *fs = arg;
	int fd = openat(af_ov_top(fs), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* never GAME under --overlay */
	if (fd >= 0) {
		unsigned n = walk(fs, fd, 0);
		if (n)
			af_fs_log(LOG_INFO, "removed %u temporary file%s of unfinished saves", n,
				  n == 1 ? "" : "s");
	}
	return NULL;
}

void af_sweep_start(struct af_fs *fs)
{
	if (fs->read_only)
		return;
	fs->sweep_started = pthread_create(&fs->sweep_thread, NULL, sweep_run, fs) == 0;
}

void af_sweep_stop(struct af_fs *fs)
{
	if (!fs->sweep_started)
		return;
	__atomic_store_n(&fs->sweep_stop, 1, __ATOMIC_RELAXED);
	pthread_join(fs->sweep_thread, NULL);
	fs->sweep_started = 0;
}
