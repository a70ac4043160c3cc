/* animfs serve: the views of GAME over WebDAV (src/dav) instead of FUSE. The same
 * state as a mount (src/view/state.c: af_fs_open), the core's namespace of views as the
 * WebDAV namespace (davns.c), every request as the user who started it; serves until SIGINT
 * or SIGTERM, then waits for the requests running (every save is on disk) and ends.
 * --daemon: a child in its own session serves; the command ends once it listens. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "animfs/dav.h"
#include "animfs/fs.h"

#include "davns.h"
#include "errlog.h"
#include "render.h"
#include "session.h"
#include "sweep.h"
#include "who.h"

/* Fork before any thread starts: the parent waits for the child's word on a pipe and
 * ends with it (0: listening; the child's own message said why not); a child that dies
 * first says nothing, which is 1 too. The child gets the pipe's end in *ready. */
static int detach(int *ready)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC))
		return -1;
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid > 0) {
		unsigned char c = 1;
		ssize_t n;
		close(p[1]);
		do
			n = read(p[0], &c, 1);
		while (n < 0 && errno == EINTR);
		_exit(n == 1 ? c : 1);
	}
	close(p[0]);
	setsid();
	*ready = p[1];
	return 0;
}

/* The child's word to the waiting parent; once listening it leaves the terminal and
 * the folder it started in (the options' paths are read by now) and logs to syslog. */
static void detached(int *ready, int status)
{
	unsigned char c = (unsigned char)status;
	if (*ready < 0)
		return;
	if (status == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		fflush(stdout);
		fflush(stderr);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
			close(null);
		}
		if (chdir("/"))
			af_fs_log(LOG_WARNING, "serve: cannot leave the start folder: %s",
				  strerror(errno));
		af_fs_log_init(1);
	}
	if (write(*ready, &c, 1) != 1)
		af_fs_log(LOG_WARNING, "serve: the starting command is gone: %s", strerror(errno));
	close(*ready);
	*ready = -1;
}

int af_fs_serve(int rootfd, const struct af_fs_opts *o, const struct af_dav_opts *dopts)
{
	struct af_fs_state st;
	struct af_dav_ns ns;
	struct af_dav *dav = NULL;
	char err[512];
	sigset_t set;
	int sig, rc = 1, served = 0, ready = -1;

	af_fs_log_init(0);
	/* the signals that stop it: blocked in every thread (all start after this, the
	 * state's workers too), taken by sigwait below */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (af_fs_open(&st, rootfd, o, "serve"))
		return 1;
	/* the namespace makes files with the serving user's umask (davns.c) */
	mode_t um = umask(0);
	af_act_init();
	af_heap_policy(AF_HEAP_DAEMON);
	if (dopts->daemon && detach(&ready)) {
		fprintf(stderr, "animfs serve: cannot detach: %s\n", strerror(errno));
		goto out;
	}
	af_sweep_start(&st.fs);
	af_fs_dav_ns(&st.fs, um, &ns);
	dav = af_dav_start(dopts, &ns, err, sizeof(err));
	if (!dav) {
		fprintf(stderr, "animfs serve: %s\n", err);
		goto out;
	}
	const char *l = dopts->listen ? dopts->listen : "127.0.0.1:8080";
	const char *colon = strrchr(l, ':');
	char stop[64];
	if (dopts->daemon)
		snprintf(stop, sizeof(stop), "pid %ld: kill %ld stops it", (long)getpid(),
			 (long)getpid());
	else
		snprintf(stop, sizeof(stop), "Ctrl-C stops it");
	printf("animfs serve: %s at %s://%.*s:%u/ (%s)\n", st.game,
	       dopts->tls_cert ? "https" : "http", (int)(colon ? colon - l : 0), l,
	       af_dav_port(dav), stop);
	fflush(stdout);
	detached(&ready, 0);
	af_fs_log(LOG_INFO, "serving %s over WebDAV on port %u", st.game, af_dav_port(dav));
	sigwait(&set, &sig);
	af_fs_log(LOG_INFO, "stopping (signal %d): waiting for the requests running", sig);
	af_dav_stop(dav);
	served = 1;
	rc = 0;
out:
	detached(&ready, 1);
	umask(um);
	af_fs_close(&st, served);
	return rc;
}
