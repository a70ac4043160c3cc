/* animfs serve: the views of GAME over WebDAV (src/dav) instead of FUSE. The same
 * state as a mount (session.c: af_fs_open), the mount's own operations as the
 * namespace (davns.c), every request as the user who started it; serves until SIGINT
 * or SIGTERM, then waits for the requests running (every save is on disk) and ends. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>

#include "animfs/dav.h"
#include "animfs/fs.h"

#include "davns.h"
#include "errlog.h"
#include "render.h"
#include "session.h"
#include "sweep.h"
#include "who.h"

int af_fs_serve(int rootfd, const struct af_fs_opts *o, const struct af_dav_opts *dopts)
{
	struct af_fs_state st;
	struct af_dav_ns ns;
	struct af_dav *dav = NULL;
	char err[512];
	sigset_t set;
	int sig, rc = 1, served = 0;

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
	/* the namespace makes files with the serving user's umask (who.c) */
	mode_t um = umask(0);
	af_who_faceless(&st.fs, um);
	af_act_init();
	af_heap_policy(AF_HEAP_DAEMON);
	af_sweep_start(&st.fs);
	af_fs_dav_ns(&st.fs, &ns);
	dav = af_dav_start(dopts, &ns, err, sizeof(err));
	if (!dav) {
		fprintf(stderr, "animfs serve: %s\n", err);
		goto out;
	}
	const char *l = dopts->listen ? dopts->listen : "127.0.0.1:8080";
	const char *colon = strrchr(l, ':');
	printf("animfs serve: %s at %s://%.*s:%u/ (Ctrl-C stops it)\n", st.game,
	       dopts->tls_cert ? "https" : "http", (int)(colon ? colon - l : 0), l,
	       af_dav_port(dav));
	fflush(stdout);
	af_fs_log(LOG_INFO, "serving %s over WebDAV on port %u", st.game, af_dav_port(dav));
	sigwait(&set, &sig);
	af_fs_log(LOG_INFO, "stopping (signal %d): waiting for the requests running", sig);
	af_dav_stop(dav);
	served = 1;
	rc = 0;
out:
	af_who_faceless(NULL, 0);
	umask(um);
	af_fs_close(&st, served);
	return rc;
}
