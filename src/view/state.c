/* A face's state set up and torn down (session.h: af_fs_open, af_fs_close): the mount's
 * state (mount.c) over GAME with the options of a mount or of animfs serve, the size
 * cache kept between runs and the render cache's spill file. Each face sets its own
 * struct af_face on it before serving. */
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

#include "errlog.h"
#include "overlay.h"
#include "render.h"
#include "session.h"
#include "splitview.h"
#include "view.h"

/* The persistent size file of this GAME and this animfs binary:
 * $XDG_CACHE_HOME (or ~/.cache)/animfs/sizes-<GAME path hash>-<binary hash>, never
 * inside GAME. The binary's identity is part of the name because a rebuilt animfs
 * may render differently without a codec version bump; files of older binaries for
 * the same GAME are removed. Returns a folder descriptor (-1: none;
 * ANIMFS_SIZE_CACHE=0 turns it off) and the file name in name. */
static int sizes_dir(const char *game, char *name, size_t n)
{
	const char *off = getenv("ANIMFS_SIZE_CACHE");
	char dir[PATH_MAX], prefix[32];
	struct stat exe;
	struct af_diag d;
	int fd;
	if (off && !strcmp(off, "0"))
		return -1;
	if (stat("/proc/self/exe", &exe))
		return -1;
	uint64_t id[4] = { (uint64_t)exe.st_ino, (uint64_t)exe.st_size, (uint64_t)exe.st_mtim.tv_sec,
			   (uint64_t)exe.st_mtim.tv_nsec };
	/* never through a link: a HOME another user controls sends nothing elsewhere */
	af_diag_init(&d);
	fd = af_private_dir("XDG_CACHE_HOME", ".cache", "animfs", 0700, 1, dir, sizeof(dir), &d);
	if (fd < 0 && d.code != AF_EINVAL)
		fprintf(stderr, "animfs mount: no size cache: %s\n", d.msg);
	af_diag_free(&d);
	if (fd < 0)
		return -1;
	snprintf(prefix, sizeof(prefix), "sizes-%016llx-",
		 (unsigned long long)af_fnv1_64(game, strlen(game)));
	snprintf(name, n, "%s%016llx", prefix, (unsigned long long)af_fnv1_64(id, sizeof(id)));
	DIR *dp = fdopendir(dup(fd));
	for (struct dirent *e; dp && (e = readdir(dp));)
		if (!strncmp(e->d_name, prefix, strlen(prefix)) && strcmp(e->d_name, name))
			unlinkat(fd, e->d_name, 0);
	if (dp)
		closedir(dp);
	return fd;
}

/* The spill file of the render cache (render.c): an unlinked file in the user's cache
 * folder (dirfd; -1: beside the scratch area), never inside GAME, of at most `want`
 * bytes and half the free space of its file system. */
static void spill_open(struct af_fs *fs, int dirfd, size_t want)
{
	struct statvfs sv;
	char name[64];
	int at = dirfd >= 0 ? dirfd : fs->scratchfd, fd;
	if (!want || at < 0)
		return;
	fd = openat(at, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) { /* no O_TMPFILE there: a name, removed at once */
		snprintf(name, sizeof(name), ".animfs-spill-%ld", (long)getpid());
		fd = openat(at, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd >= 0)
			unlinkat(at, name, 0);
	}
	if (fd < 0) {
		af_fs_log(LOG_WARNING, "no spill file for rendered texts: %s", strerror(errno));
		return;
	}
	if (fstatvfs(fd, &sv) == 0) {
		uint64_t half = (uint64_t)sv.f_bavail * sv.f_frsize / 2;
		if (half < want)
			want = (size_t)half;
	}
	af_rcache_spill(fs->cache, fd, want);
	af_rcache_hold_dir(fs->cache, at, want); /* texts open files hold past the bound */
}

int af_fs_open(struct af_fs_state *s, int rootfd, const struct af_fs_opts *o, const char *cmd)
{
	struct af_fs *fs = &s->fs;
	s->have_fs = 0;
	s->sizesfd = -1;
	if (!realpath(o->game, s->game)) {
		fprintf(stderr, "animfs %s: %s: %s\n", cmd, o->game, strerror(errno));
		return -1;
	}
	int e = af_fs_init(fs, rootfd, s->game, o->cache_bytes, o->read_only);
	if (e) {
		fprintf(stderr, "animfs %s: cannot make the scratch folder: %s\n", cmd, strerror(-e));
		return -1;
	}
	s->have_fs = 1;
	fs->modfd = o->overlay_fd;
	af_ov_init(fs);
	fs->rigdirfd = o->rig_dir_fd;
	fs->mod_layout = o->overlay_to;
	fs->max_unsaved = o->unsaved_bytes;
	fs->attr_cache = o->allow_other ? 0 : o->attr_cache;
	fs->others = o->allow_other;
	if (o->scratch_bytes)
		fs->scratch_quota = (long long)o->scratch_bytes;
	if (o->split && !(fs->splits = af_splits_new(af_view_render, o->split_over, fs->cache))) {
		fprintf(stderr, "animfs %s: out of memory\n", cmd);
		goto fail;
	}
	s->sizesfd = sizes_dir(s->game, s->sizes_name, sizeof(s->sizes_name));
	if (s->sizesfd >= 0)
		af_rcache_load(fs->cache, s->sizesfd, s->sizes_name);
	spill_open(fs, s->sizesfd, o->spill_bytes == SIZE_MAX ? (size_t)AF_DEFAULT_SPILL_MB << 20
								: o->spill_bytes);
	char sp[PATH_MAX];
	size_t gl = strlen(s->game);
	if (realpath(fs->scratch_path, sp) && !strncmp(sp, s->game, gl) &&
	    (sp[gl] == '/' || sp[gl] == 0)) {
		fprintf(stderr, "animfs %s: the scratch folder %s would be inside GAME; "
			"set TMPDIR to a folder outside it\n", cmd, sp);
		goto fail;
	}
	return 0;
fail:
	af_fs_close(s, 0);
	return -1;
}

void af_fs_close(struct af_fs_state *s, int served)
{
	if (served && s->sizesfd >= 0 && af_rcache_save(s->fs.cache, s->sizesfd, s->sizes_name))
		af_fs_log(LOG_WARNING, "cannot keep the size cache %s", s->sizes_name);
	if (s->sizesfd >= 0)
		close(s->sizesfd);
	s->sizesfd = -1;
	if (s->have_fs)
		af_fs_destroy(&s->fs);
	s->have_fs = 0;
}
