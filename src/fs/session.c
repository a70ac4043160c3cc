/* The mount's life as FUSE serves it: the state (src/view/state.c, mount.c) set up before
 * daemonizing (GAME's descriptor is the caller's, the scratch folder is made there), the
 * FUSE session, the daemon (which logs to syslog, never to the terminal it left), and
 * the cleanup at unmount. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "animfs/fnv.h"
#include "animfs/fs.h"
#include "animfs/privdir.h"

#include "ops.h"
#include "errlog.h"
#include "hidden.h"
#include "kcache.h"
#include "listcache.h"
#include "overlay.h"
#include "render.h"
#include "splitview.h"
#include "sweep.h"
#include "view.h"
#include "watch.h"
#include "who.h"

/* The face's answers to the core (struct af_face): the aliases of its open files, and
 * what the kernel keeps of them (kcache.h) told what happened to a path. */
static void note(struct af_fs *fs, enum af_note what, const char *rel)
{
	(void)fs;
	if (what != AF_NOTE_WRITER && what != AF_NOTE_RESIZED)
		af_lc_changed(); /* a name may be another: no listing kept is served again */
	switch (what) {
	case AF_NOTE_GONE:
		af_kc_forget(rel);
		break;
	case AF_NOTE_ALL_GONE:
		af_kc_forget_all();
		break;
	case AF_NOTE_WRITER:
		af_kc_written(rel);
		break;
	case AF_NOTE_SAVED:
		af_kc_invalidate(rel);
		break;
	case AF_NOTE_RESIZED:
		af_kc_notify(rel);
		break;
	case AF_NOTE_NAMES:
	case AF_NOTE_OUTSIDE:
		af_kc_epoch();
		break;
	}
}

static const struct af_face fuse_face = {
	.alias_prefix = AF_ALIAS_PREFIX,
	.alias_orig = af_alias_orig,
	.alias_add = af_alias_add,
	.alias_detach = af_alias_detach,
	.note = note,
	.forget = af_alias_free_all,
};

static int build_args(const struct af_fs_opts *o, const char *game, struct fuse_args *args)
{
	char opt[PATH_MAX + 128];
	snprintf(opt, sizeof(opt), "fsname=animfs:%s,subtype=animfs", game);
	/* max_read: a READ asks 128 KiB at most. libfuse's high-level read hands each one
	 * a buffer of the size asked (malloc), and the kernel's page-cache fills of a view
	 * ask 256 KiB: past the daemon's mmap threshold (buf.c), so each was a fresh
	 * mapping faulted in page by page and unmapped with a TLB flush on every core, where
	 * a 128 KiB one reuses the heap's. The first read of the 1,015 Diesel views: the
	 * daemon's page faults 64,000 -> 40,000, its CPU -20% (docs/benchmark.md). */
	if (fuse_opt_add_arg(args, "animfs") || fuse_opt_add_arg(args, "-o") ||
	    fuse_opt_add_arg(args, opt) || fuse_opt_add_arg(args, "-o") ||
	    fuse_opt_add_arg(args, AF_FUSE_MAX_READ_OPT))
		return -1;
	if (o->read_only && (fuse_opt_add_arg(args, "-o") || fuse_opt_add_arg(args, "ro")))
		return -1;
	if (o->allow_other && (fuse_opt_add_arg(args, "-o") ||
			       fuse_opt_add_arg(args, "allow_other,default_permissions")))
		return -1;
	if (o->debug && fuse_opt_add_arg(args, "-d"))
		return -1;
	return 0;
}

int af_fs_run(int rootfd, const struct af_fs_opts *o)
{
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	struct fuse *f = NULL;
	struct af_fs_state st;
	char view[PATH_MAX];
	int rc = 1, mounted = 0, opened = 0, served = 0;

	af_fs_log_init(0);
	if (!realpath(o->view, view)) {
		fprintf(stderr, "animfs mount: %s: %s\n", o->view, strerror(errno));
		goto out;
	}
	if (af_fs_open(&st, rootfd, o, "mount"))
		goto out;
	opened = 1;
	st.fs.face = &fuse_face;
	if (build_args(o, st.game, &args)) {
		fprintf(stderr, "animfs mount: out of memory\n");
		goto out;
	}
	f = fuse_new(&args, af_fs_operations(), sizeof(struct fuse_operations), &st.fs);
	if (!f) {
		fprintf(stderr, "animfs mount: cannot set up FUSE (see the message above)\n");
		goto out;
	}
	if (fuse_mount(f, view)) {
		fprintf(stderr, "animfs mount: cannot mount on %s (see the message above)\n", o->view);
		goto out;
	}
	mounted = 1;
	af_kc_attach(f);
	if (fuse_set_signal_handlers(fuse_get_session(f))) {
		fprintf(stderr, "animfs mount: cannot set signal handlers\n");
		goto out;
	}
	/* The mount is in place; the parent returns once the child is detached. */
	if (!o->foreground) {
		if (fuse_daemonize(0)) {
			fprintf(stderr, "animfs mount: cannot daemonize\n");
			goto out;
		}
		af_fs_log_init(1);
	}
	/* A root daemon acts as each caller (who.c); the kernel has applied the caller's
	 * umask to every mode a request brings, so the daemon's own is none. */
	af_act_init();
	umask(0);
	/* renders are short-lived buffers of up to tens of MB made on many FUSE threads */
	af_heap_policy(AF_HEAP_DAEMON);
	af_fs_log(LOG_INFO, "serving %s on %s (scratch %s)", st.game, view, st.fs.scratch_path);
	af_sweep_start(&st.fs);
	/* names and attributes may be kept (ops.c): changes in GAME are watched */
	if (st.fs.attr_cache != 0 && (rc = af_watch_start(&st.fs)))
		af_fs_log(LOG_NOTICE, "changes in GAME are not watched (%s): every lookup "
			  "and stat asks the daemon", strerror(-rc));
	rc = 1;
	rc = fuse_loop_mt(f, 0) ? 1 : 0;
	served = 1;
	af_lc_free();
	af_fs_log(LOG_INFO, "unmounted %s", view);
out:
	if (f) {
		fuse_remove_signal_handlers(fuse_get_session(f));
		if (mounted)
			fuse_unmount(f);
		fuse_destroy(f);
	}
	fuse_opt_free_args(&args);
	if (opened)
		af_fs_close(&st, served);
	return rc;
}
