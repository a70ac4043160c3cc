/* The tree a view reads, and what its files are: lookups, never changes (those are
 * overlay.c's).
 *
 * Where a name lives: with --overlay MODDIR (issue 32) MODDIR's files over GAME's
 * (af_ov_at, af_ov_stat), what a stat of a GAME file shows every caller (af_ov_show), the
 * trees a listing reads (af_ov_layer), and the one open that proves a caller's right to
 * a binary (af_ov_open_proof, bin.h); without an overlay each is the plain GAME one.
 *
 * What a file there is: a view's backing binary, its view's name (rel, strip,
 * candidate; the file above it a container may show as a folder: holder), its bid
 * cached by identity (classify), the schema modeline of its text, and the sibling io a
 * codec reads its binary's siblings through (the binary's own folder, held as a
 * descriptor). Below view, folder and commit: all of them name a binary through here. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "animfs/beneath.h"
#include "animfs/fnv.h"
#include "animfs/fs.h"
#include "animfs/path.h"
#include "animfs/userdict.h"
#include "binary.h"
#include "errlog.h"
#include "overlay.h"
#include "render.h"
#include "session.h"
#include "who.h"

/* ------------------------------------------------------------ the tree */

int af_ov_on(const struct af_fs *fs)
{
	return fs->modfd >= 0;
}

int af_ov_in_mod(struct af_fs *fs, const char *rel)
{
	struct stat st;
	return fs->modfd >= 0 && af_bn_stat(fs->modfd, rel, &st) == 0;
}

int af_ov_in_game(struct af_fs *fs, const char *rel)
{
	struct stat st;
	return af_bn_stat(fs->rootfd, rel, &st) == 0;
}

int af_ov_at(struct af_fs *fs, const char *rel)
{
	return af_ov_in_mod(fs, rel) ? fs->modfd : fs->rootfd;
}

int af_ov_stat(struct af_fs *fs, const char *rel, struct stat *st)
{
	if (fs->modfd >= 0 && af_bn_stat(fs->modfd, rel, st) == 0)
		return 0;
	return af_bn_stat(fs->rootfd, rel, st);
}

/* The groups of user uid (the system's group database): their count, 0 when unknown. */
static int groups_of(uid_t uid, gid_t *groups, int max)
{
	struct passwd pw, *p = NULL;
	char buf[4096];
	int n = max;
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &p) || !p)
		return 0;
	if (getgrouplist(p->pw_name, p->pw_gid, groups, &n) < 0) {
		groups[0] = p->pw_gid; /* more than max: their primary group only */
		n = 1;
	}
	return n;
}

void af_ov_init(struct af_fs *fs)
{
	struct stat st;
	struct af_ov_owner *o = &fs->mod_owner;
	o->known = 0;
	if (fs->modfd < 0 || fstat(fs->modfd, &st))
		return;
	o->uid = st.st_uid;
	o->ngroups = groups_of(st.st_uid, o->groups, AF_OV_GROUPS);
	o->known = 1;
}

/* Whether user uid may read the file st is of, by its mode (root may). */
static int may_read(const struct af_fs *fs, uid_t uid, const struct stat *st)
{
	gid_t live[AF_OV_GROUPS];
	const gid_t *groups = live;
	int n;
	if (uid == 0)
		return 1;
	if (uid == st->st_uid)
		return !!(st->st_mode & S_IRUSR);
	if (fs->mod_owner.known && fs->mod_owner.uid == uid) {
		groups = fs->mod_owner.groups;
		n = fs->mod_owner.ngroups;
	} else {
		n = groups_of(uid, live, AF_OV_GROUPS); /* a MODDIR folder of another user's */
	}
	for (int i = 0; i < n; i++)
		if (groups[i] == st->st_gid)
			return !!(st->st_mode & S_IRGRP);
	return !!(st->st_mode & S_IROTH);
}

void af_ov_show(struct af_fs *fs, const char *rel, struct stat *st)
{
	char file[4096];
	struct stat ms;
	int found = 0;
	if (fs->modfd < 0 || af_ov_in_mod(fs, rel))
		return;
	/* a member ("X/A/m") of a container MODDIR holds: the container's own mode; else
	 * the folder of MODDIR a save of rel would land in (the nearest one there is) */
	snprintf(file, sizeof(file), "%s", rel);
	for (char *slash; (slash = strrchr(file, '/'));) {
		*slash = 0;
		if (af_bn_stat(fs->modfd, file, &ms) == 0) {
			if (S_ISREG(ms.st_mode))
				return;
			found = 1;
			break; /* a folder of MODDIR's: rel is not in it, it is GAME's */
		}
	}
	if (!found && fstat(fs->modfd, &ms))
		return;
	/* One answer for every caller: the kernel keeps one set of attributes per inode and
	 * checks every caller's open against whichever answer landed last (-o allow_other
	 * with default_permissions), so an answer per caller refused saves at random.
	 * The file is shown as the owner of that MODDIR folder (who may save into it) would
	 * have it after copying it there: their own, with GAME's mode (a copy-up keeps it)
	 * and the owner's write. Its group stays GAME's, so every other user's check is
	 * GAME's own. One who may not read it is never its owner: a file that folder's
	 * owner may not read is shown as it is, with no write. Never wider than GAME's
	 * mode plus the owner's write: an editor that copies the mode it sees onto its new
	 * file (vim) makes no group- or world-writable file in MODDIR. */
	if (!may_read(fs, ms.st_uid, st))
		return;
	st->st_uid = ms.st_uid;
	st->st_mode |= S_IWUSR;
}

int af_ov_top(const struct af_fs *fs)
{
	return fs->modfd >= 0 ? fs->modfd : fs->rootfd;
}

int af_ov_is_tree(const struct af_fs *fs, int dfd)
{
	return dfd == fs->rootfd || (fs->modfd >= 0 && dfd == fs->modfd);
}

int af_ov_layer(const struct af_fs *fs, int k)
{
	if (fs->modfd < 0)
		return k == 0 ? fs->rootfd : -1;
	return k == 0 ? fs->modfd : k == 1 ? fs->rootfd : -1;
}

int af_ov_shadowed(struct af_fs *fs, int k, const char *dir, const char *name)
{
	char rel[4096 + 256];
	struct stat st;
	if (k == 0 || fs->modfd < 0)
		return 0;
	snprintf(rel, sizeof(rel), "%s%s%s", strcmp(dir, ".") ? dir : "", strcmp(dir, ".") ? "/" : "",
		 name);
	return af_bn_stat(fs->modfd, rel, &st) == 0;
}

int af_ov_open_proof(struct af_fs *fs, const char *file, int flags)
{
	int acc = flags & O_ACCMODE;
	int tree = af_ov_at(fs, file);
	if (tree == fs->rootfd && fs->modfd >= 0)
		acc = O_RDONLY; /* GAME is only read: a save proves its right to MODDIR */
	int fd = af_bn_open(tree, file, acc | O_NONBLOCK | O_NOCTTY, 0);
	return fd < 0 ? -errno : fd;
}

/* ------------------------------------------------------------ a binary in it */

int af_view_modeline(const struct af_codec *c, const char *bin_rel, struct af_buf *out)
{
	char dir[4096];
	size_t n = 0;
	for (const char *p = bin_rel; *p && n + 3 < sizeof(dir) - sizeof(AF_CTL_DIR "/schema"); p++)
		if (*p == '/') {
			memcpy(dir + n, "../", 3);
			n += 3;
		}
	snprintf(dir + n, sizeof(dir) - n, "%s/schema", AF_CTL_DIR);
	return af_codec_modeline(c, dir, out);
}

int af_view_rel(const char *path, char *rel, size_t size)
{
	while (*path == '/')
		path++;
	if (!*path)
		path = ".";
	size_t n = strlen(path);
	if (n >= size)
		return -ENAMETOOLONG;
	memcpy(rel, path, n + 1);
	while (n > 1 && rel[n - 1] == '/')
		rel[--n] = 0;
	return 0;
}

size_t af_view_strip(const char *name)
{
	size_t n = strlen(name), k = strlen(AF_VIEW_SUFFIX);
	if (n <= k || strcmp(name + n - k, AF_VIEW_SUFFIX))
		return 0;
	return n - k;
}

int af_view_is_candidate(const char *rel)
{
	const char *base = af_base(rel);
	size_t n = af_view_strip(base);
	char stem[256];
	if (!n || n >= sizeof(stem))
		return 0;
	memcpy(stem, base, n);
	stem[n] = 0;
	return af_codec_for_ext(stem, 0) != NULL;
}

int af_view_holder(struct af_fs *fs, const char *rel, char *holder, size_t size,
		   const char **inner, struct stat *st)
{
	const char *last = strrchr(rel, '/');
	if (!last)
		return 0;
	if ((size_t)(last - rel) >= size)
		return -ENAMETOOLONG;
	/* the common cases at one stat: the parent is a real folder, or the file */
	snprintf(holder, size, "%.*s", (int)(last - rel), rel);
	if (!af_ov_stat(fs, holder, st)) {
		if (!S_ISREG(st->st_mode))
			return 0;
		*inner = last + 1;
		return 1;
	}
	for (const char *slash = strchr(rel, '/'); slash; slash = strchr(slash + 1, '/')) {
		if (!slash[1])
			return 0;
		if ((size_t)(slash - rel) >= size)
			return -ENAMETOOLONG;
		snprintf(holder, size, "%.*s", (int)(slash - rel), rel);
		if (af_ov_stat(fs, holder, st))
			return 0;
		if (S_ISDIR(st->st_mode))
			continue;
		if (!S_ISREG(st->st_mode))
			return 0;
		*inner = slash + 1;
		return 1;
	}
	return 0;
}

/* The first n bytes of fd (at most; from its start, its offset untouched). */
static int head_of(int fd, uint8_t *head, size_t n, size_t *got)
{
	size_t have = 0;
	while (have < n) {
		ssize_t r = pread(fd, head + have, n - have, (off_t)have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return AF_EIO;
		if (r == 0)
			break;
		have += (size_t)r;
	}
	*got = have;
	return 0;
}

/* The bid of name (its base decides with its head), cached by identity: the head is
 * read from fd when given (a readable descriptor of that identity), else name beneath
 * dirfd. */
static void classify(struct af_fs *fs, int dirfd, int fd, const char *name, const struct stat *st,
		     struct af_rinfo *info)
{
	uint8_t head[AF_BID_HEAD];
	size_t got = 0;
	memset(info, 0, sizeof(*info));
	const char *base = af_base(name);
	uint64_t name_hash = af_fnv1_64(base, strlen(base)) | 1;
	/* a binary whose view name would pass NAME_MAX cannot be shown as a view */
	if (!S_ISREG(st->st_mode) || strlen(base) + strlen(AF_VIEW_SUFFIX) > NAME_MAX)
		return;
	if (af_rcache_get(fs->cache, st, info, NULL) && info->name_hash == name_hash)
		return;
	memset(info, 0, sizeof(*info));
	/* what a file is, for every user alike (the shared cache): read by the daemon; a
	 * caller who may not read it still may not open its view */
	int was = af_act_pause(), rc;
	if (fd >= 0)
		rc = head_of(fd, head, sizeof(head), &got);
	else
		rc = af_bn_read_head(dirfd, name, head, sizeof(head), &got);
	af_act_resume(was);
	if (rc)
		return;
	info->codec = af_codec_bid(base, head, got);
	info->name_hash = name_hash;
	af_rcache_put_bid(fs->cache, st, name_hash, info->codec);
	/* the entry may still know this identity's size (same codec, same name) */
	af_rcache_get(fs->cache, st, info, NULL);
}

void af_view_classify_at(struct af_fs *fs, int dirfd, const char *name, const struct stat *st,
			 struct af_rinfo *info)
{
	classify(fs, dirfd, -1, name, st, info);
}

void af_view_classify_fd(struct af_fs *fs, int fd, const char *name, const struct stat *st,
			 struct af_rinfo *info)
{
	classify(fs, -1, fd, name, st, info);
}

void af_view_classify(struct af_fs *fs, const char *rel, const struct stat *st,
		      struct af_rinfo *info)
{
	af_view_classify_at(fs, af_ov_at(fs, rel), rel, st, info);
}


/* Sibling access for codecs: the binary's own folder, held as a descriptor. */

DIR *af_opendir_at(int dirfd, const char *rel)
{
	int fd = af_bn_open(dirfd, rel, O_RDONLY | O_DIRECTORY, 0);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir && fd >= 0)
		close(fd);
	return dir;
}

static void sib_link(const struct af_dirio *d, const char *name)
{
	const struct af_sibio *s = (const struct af_sibio *)d;
	af_fs_log(LOG_WARNING, "%s%s%s: a symbolic link, not read as a sibling of %s", s->dir,
		  s->dir[0] ? "/" : "", name, d->io.name);
}

/* A source's identity as the daemon sees it (deps.h): 0, or the errno of its stat. */
static int dep_stat(const struct af_sibio *s, char kind, const char *name, struct stat *st)
{
	char path[4096];
	int rig = kind == AF_DEP_RIG_READ || kind == AF_DEP_RIG_LIST;
	int dirfd = rig ? s->fs->rigdirfd : s->d.dirfd, rc;
	if (kind == AF_DEP_LIST || kind == AF_DEP_RIG_LIST)
		rc = fstat(dirfd, st);
	else if (kind == AF_DEP_DICT)
		rc = af_userdict_path(path, sizeof(path)) ? (errno = ENOENT, -1) : stat(path, st);
	else
		rc = fstatat(dirfd, name, st, AT_SYMLINK_NOFOLLOW);
	return rc ? errno : 0;
}

/* A source about to be read (its identity before the read: one changed meanwhile is
 * another at the next check), noted with its read's outcome. */
static void dep_note(struct af_sibio *s, char kind, const char *name, const struct stat *st,
		     int err, int rc)
{
	if (s->deps)
		af_deps_note(s->deps, kind, rc == 0, name, err ? NULL : st, err);
}

/* One read (read0 of ctx, into out) or listing (list0, each name to cb) of a folder's
 * files, of the kind noted. */
struct sib_op {
	int (*read0)(void *ctx, const char *name, struct af_buf *out);
	int (*list0)(void *ctx, int (*cb)(void *cbctx, const char *name), void *cbctx);
	void *ctx;
	struct af_buf *out;
	int (*cb)(void *cbctx, const char *name);
	void *cbctx;
};

/* The op done as s->as (the thread's identity is the daemon's meanwhile: af_act_with
 * switches it for the call and back). */
static int sib_do(struct af_sibio *s, char kind, const char *name, const struct sib_op *op)
{
	struct stat st;
	int err = s->deps ? dep_stat(s, kind, name, &st) : 0, rc;
	s->asked = 1;
	if (!s->as) {
		rc = op->read0 ? op->read0(op->ctx, name, op->out) : op->list0(op->ctx, op->cb, op->cbctx);
	} else {
		rc = af_act_with(s->as) ? AF_EIO
		     : op->read0 ? op->read0(op->ctx, name, op->out) : op->list0(op->ctx, op->cb, op->cbctx);
		af_act_back();
	}
	dep_note(s, kind, name, &st, err, rc);
	return rc;
}

static int sib_read(void *ctx, const char *name, struct af_buf *out)
{
	struct af_sibio *s = ctx;
	return sib_do(s, AF_DEP_READ, name, &(struct sib_op){.read0 = s->read0, .ctx = ctx, .out = out});
}

static int sib_list(void *ctx, int (*cb)(void *cbctx, const char *name), void *cbctx)
{
	struct af_sibio *s = ctx;
	return sib_do(s, AF_DEP_LIST, "", &(struct sib_op){.list0 = s->list0, .ctx = ctx, .cb = cb, .cbctx = cbctx});
}

/* --rig-dir's files, as the siblings are (the io's ctx is s, not s->rd) */
static int rig_read(void *ctx, const char *name, struct af_buf *out)
{
	struct af_sibio *s = ctx;
	return sib_do(s, AF_DEP_RIG_READ, name, &(struct sib_op){.read0 = s->rread0, .ctx = &s->rd, .out = out});
}

static int rig_list(void *ctx, int (*cb)(void *cbctx, const char *name), void *cbctx)
{
	struct af_sibio *s = ctx;
	return sib_do(s, AF_DEP_RIG_LIST, "",
		      &(struct sib_op){.list0 = s->rlist0, .ctx = &s->rd, .cb = cb, .cbctx = cbctx});
}

/* The user dictionary (the daemon's, whoever asks). */
static int sib_names(void *ctx, struct af_buf *out)
{
	struct af_sibio *s = ctx;
	struct stat st;
	int err = s->deps ? dep_stat(s, AF_DEP_DICT, "", &st) : 0;
	int rc = s->names0(ctx, out);
	dep_note(s, AF_DEP_DICT, "", &st, err, rc);
	return rc;
}

int af_sibio_holds(struct af_fs *fs, const char *bin_rel, const struct af_deps *d)
{
	struct af_sibio s;
	struct stat st;
	uint64_t h = AF_DEPS_SEED;
	if (d->lost)
		return 0;
	af_sibio_init(&s, fs, bin_rel);
	for (size_t i = 0; i + 2 < d->len;) {
		char kind = d->rec[i];
		int ok = d->rec[i + 1] == '1';
		const char *name = d->rec + i + 2;
		int err = dep_stat(&s, kind, name, &st);
		h = af_deps_fold(h, kind, ok, name, err ? NULL : &st, err);
		i += 2 + strlen(name) + 1;
	}
	af_sibio_close(&s);
	return (h ? h : 1) == d->hash;
}

void af_sibio_init_at(struct af_sibio *s, struct af_fs *fs, int dirfd, const char *bin_rel)
{
	const char *base = bin_rel ? af_base(bin_rel) : "";
	char name[NAME_MAX + 1];
	s->fs = fs;
	snprintf(s->dir, sizeof(s->dir), "%.*s", base == bin_rel || !bin_rel ? 0 : (int)(base - bin_rel - 1),
		 bin_rel ? bin_rel : "");
	s->owned = dirfd < 0 && bin_rel;
	if (dirfd < 0 && bin_rel)
		dirfd = af_bn_parent(af_ov_at(fs, bin_rel), bin_rel, name, sizeof(name));
	af_dirio_init(&s->d, dirfd, base, 1);
	s->d.on_link = sib_link;
	s->as = NULL;
	s->asked = 0;
	s->read0 = s->d.io.read_sibling;
	s->list0 = s->d.io.list_siblings;
	s->names0 = s->d.io.read_names;
	s->deps = NULL;
	s->d.io.read_sibling = sib_read;
	s->d.io.list_siblings = sib_list;
	if (s->names0)
		s->d.io.read_names = sib_names;
	if (fs->rigdirfd >= 0) { /* --rig-dir */
		af_dirio_init(&s->rd, fs->rigdirfd, "", 0);
		s->rread0 = s->rd.io.read_sibling;
		s->rlist0 = s->rd.io.list_siblings;
		s->rd.io.read_sibling = rig_read;
		s->rd.io.list_siblings = rig_list;
		s->rd.io.read_names = NULL;
		s->rd.io.ctx = s;
		s->d.io.rig_dir = &s->rd.io;
	}
}

void af_sibio_init(struct af_sibio *s, struct af_fs *fs, const char *bin_rel)
{
	af_sibio_init_at(s, fs, -1, bin_rel);
}

void af_sibio_close(struct af_sibio *s)
{
	if (s->owned && s->d.dirfd >= 0)
		close(s->d.dirfd);
	s->d.dirfd = -1;
}
