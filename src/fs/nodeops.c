/* Operations on names: attributes (exact YAML sizes), listings (claimed binaries as
 * <name>.yaml, scratch files, the control folder), folders, unlink and metadata. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "animfs/fs.h"
#include "animfs/path.h"
#include "animfs/beneath.h"
#include "animfs/fileio.h"
#include "animfs/split.h"
#include "ops.h"
#include "binary.h"
#include "errlog.h"
#include "folder.h"
#include "dirlist.h"
#include "ghost.h"
#include "hidden.h"
#include "kcache.h"
#include "overlay.h"
#include "prefetch.h"
#include "render.h"
#include "res.h"
#include "scratch.h"
#include "splitview.h"
#include "sweep.h"
#include "view.h"
#include "who.h"

/* A file that exists only as an open, unsaved buffer (a new view being written). */
static int pending_stat(struct af_fs *fs, const char *rel, struct stat *st)
{
	long long size = af_handle_pending_size(fs, rel);
	if (size < 0)
		return -ENOENT;
	if (fstatat(fs->rootfd, ".", st, 0))
		return -errno;
	st->st_mode = S_IFREG | 0644;
	st->st_nlink = 1;
	st->st_size = size;
	st->st_blocks = (size + 511) / 512;
	st->st_ino = 0;
	return 0;
}

int af_op_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct af_fs *fs = af_ctx_fs();
	struct af_handle *h = af_fi_handle(fi);
	struct af_res r;
	int rc;
	if (h && h->kind == AF_H_FD)
		return fstat(h->fd, st) ? -errno : 0;
	if (!path && !h)
		return -ENOENT;
	/* The kernel asks a page-cached view's handle again at each read that reaches its
	 * size (attributes not kept: ops.c): what its first fstat found is the answer
	 * while nothing changed through the mount since (a changed stat: the generation). */
	unsigned long gen = h && h->cached ? af_kc_generation() : 0;
	if (gen) {
		pthread_mutex_lock(&h->lock);
		int seen = h->seen_gen == gen;
		if (seen)
			*st = h->seen;
		pthread_mutex_unlock(&h->lock);
		if (seen)
			return 0;
	}
	rc = af_view_resolve(fs, path ? path : h->rel, &r);
	if (rc)
		return rc;
	if (r.kind == AF_K_NONE)
		return pending_stat(fs, r.rel, st);
	rc = af_view_stat(fs, &r, af_caller()->uid, st);
	if (rc == 0 && h && h->is_view) {
		/* fstat of an open view: its own buffer's size, not the saved text's */
		st->st_size = (off_t)af_handle_size(h);
		st->st_blocks = (st->st_size + 511) / 512;
		if (gen) {
			pthread_mutex_lock(&h->lock);
			h->seen = *st;
			h->seen_gen = gen;
			pthread_mutex_unlock(&h->lock);
		}
	}
	return rc;
}

struct lister {
	struct af_fs *fs;
	void *buf;
	fuse_fill_dir_t filler;
	const char *dir; /* relative, "." for the root */
	char rel[4096];
};

/* dir/name in l->rel ("" when too long: it then matches nothing). */
static const char *child(struct lister *l, const char *name)
{
	size_t dl = strcmp(l->dir, ".") ? strlen(l->dir) + 1 : 0, nl = strlen(name);
	if (dl + nl >= sizeof(l->rel)) {
		l->rel[0] = 0;
		return l->rel;
	}
	if (dl) {
		memcpy(l->rel, l->dir, dl - 1);
		l->rel[dl - 1] = '/';
	}
	memcpy(l->rel + dl, name, nl + 1);
	return l->rel;
}

/* Whether a real `x.yaml` is shadowed by the view of a claimed binary `x`. */
static int shadowed(struct lister *l, int dfd, const char *name)
{
	size_t n = af_view_strip(name);
	char bin[256];
	struct stat st;
	struct af_rinfo info;
	if (!n || n >= sizeof(bin))
		return 0;
	memcpy(bin, name, n);
	bin[n] = 0;
	if (fstatat(dfd, bin, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
		return 0;
	af_view_classify(l->fs, child(l, bin), &st, &info);
	return info.codec && !info.failed;
}

/* The folder's own names, read as the caller (who may list it, or is told no). */
/* How long one listing waits for the renders that say whether its claimed files decode. */
#define LIST_WAIT_MS 1000

/* A claimed file whose decoding is not known yet: named once its render says. */
struct pending {
	char name[256];
	struct stat st;
};

/* Fill the view name of a claimed file, or its own name when it does not decode. */
static void fill_claimed(struct lister *l, const char *n, int decodes)
{
	char name[300];
	if (!decodes) {
		l->filler(l->buf, n, NULL, 0, 0);
		return;
	}
	snprintf(name, sizeof(name), "%s%s", n, AF_VIEW_SUFFIX);
	if (!af_ghost_has(l->fs, child(l, name), NULL))
		l->filler(l->buf, name, NULL, 0, 0);
}

/* The folder's own names, read as the caller (who may list it, or is told no). A
 * claimed file is listed as its view only once it is known to decode, so a listing
 * never names a view whose stat then fails: those not known yet are rendered (on the
 * prefetch workers and this thread together) before they are named, for up to
 * LIST_WAIT_MS; their texts are what `ls -l` and a read want next anyway. */
static int list_layer(struct lister *l, int k, int tree)
{
	DIR *dir = af_opendir_at(tree, l->dir);
	struct dirent *e;
	struct pending *later = NULL;
	size_t nlater = 0, cap = 0;
	if (!dir)
		return -errno;
	while ((e = readdir(dir))) {
		const char *n = e->d_name;
		struct stat st;
		struct af_rinfo info = {0};
		if (!strncmp(n, AF_TMP_PREFIX, strlen(AF_TMP_PREFIX))) {
			if (!l->fs->read_only && tree == af_ov_top(l->fs)) /* a minute old: a save of another process may be at work */
				af_sweep_temp(dirfd(dir), n, 60);
			continue;
		}
		if (af_ov_shadowed(l->fs, k, l->dir, n))
			continue; /* MODDIR's is shown */
		if (!strcmp(n, ".") || !strcmp(n, "..") ||
		    (!strcmp(l->dir, ".") && !strcmp(n, AF_CTL_DIR)))
			continue;
		if (af_ghost_has(l->fs, child(l, n), NULL))
			continue;
		if ((e->d_type == DT_REG || e->d_type == DT_UNKNOWN) &&
		    fstatat(dirfd(dir), n, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)) {
			if (shadowed(l, dirfd(dir), n))
				continue;
			af_view_classify_at(l->fs, dirfd(dir), n, &st, &info);
			struct pending *grown;
			if (info.codec && !info.failed && !info.have_size && strlen(n) < sizeof(later->name) &&
			    (grown = af_grow(later, &cap, nlater, sizeof(*later), 64))) {
				later = grown;
				snprintf(later[nlater].name, sizeof(later[nlater].name), "%s", n);
				later[nlater++].st = st;
				af_prefetch_add(l->fs, child(l, n), &st);
				continue;
			}
		}
		if (info.codec && !info.failed)
			fill_claimed(l, n, 1);
		else
			l->filler(l->buf, n, NULL, 0, 0);
	}
	closedir(dir);
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t i = 0; i < nlater; i++) {
		struct af_text *t = NULL;
		int rc = 0;
		clock_gettime(CLOCK_MONOTONIC, &now);
		/* a huge folder is not held up: past the budget the rest are named as views,
		 * their renders go on in the background */
		if ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000 < LIST_WAIT_MS)
			rc = af_view_render(l->fs, child(l, later[i].name), &later[i].st, &t);
		af_text_unref(t);
		fill_claimed(l, later[i].name, rc != -EIO);
	}
	free(later);
	return 0;
}

/* The folder's names in each tree (with --overlay: MODDIR's, then GAME's it has not). */
static int list_backing(struct lister *l)
{
	int listed = 0, err = 0;
	for (int k = 0, tree; (tree = af_ov_layer(l->fs, k)) >= 0; k++) {
		int rc = list_layer(l, k, tree);
		listed |= rc == 0;
		if (rc && !err)
			err = rc;
	}
	return listed ? 0 : err;
}

static void list_scratch(struct lister *l)
{
	int tree = af_scratch_dirfd(l->fs); /* the caller's own droppings */
	DIR *dir = tree >= 0 ? af_opendir_at(tree, l->dir) : NULL;
	struct dirent *e;
	if (!dir)
		return;
	while ((e = readdir(dir)))
		if (e->d_type != DT_DIR && !af_ghost_has(l->fs, child(l, e->d_name), NULL))
			l->filler(l->buf, e->d_name, NULL, 0, 0);
	closedir(dir);
}

/* New views being written (no binary yet, or one renamed away) are listed too,
 * so a listing agrees with stat while an editor saves. */
static void list_pending(struct lister *l)
{
	enum { MAXP = 32 };
	char names[MAXP][256];
	int n = 0;
	size_t dl = strlen(l->dir);
	int root = !strcmp(l->dir, ".");
	pthread_mutex_lock(&l->fs->lock);
	for (struct af_handle *h = l->fs->handles; h && n < MAXP; h = h->next) {
		const char *base = af_base(h->rel);
		int here = root ? base == h->rel
				: (size_t)(base - h->rel) == dl + 1 && !strncmp(h->rel, l->dir, dl);
		size_t bl = strlen(base);
		if (h->kind == AF_H_TEXT && h->is_view && here && bl < sizeof(names[0]) &&
		    __atomic_load_n(&h->pending, __ATOMIC_ACQUIRE) >= 0) {
			memcpy(names[n], base, bl + 1);
			n++;
		}
	}
	pthread_mutex_unlock(&l->fs->lock);
	for (int i = 0; i < n; i++) {
		struct af_res r;
		char path[4400];
		snprintf(path, sizeof(path), "/%s", child(l, names[i]));
		if (af_view_resolve(l->fs, path, &r) == 0 && r.kind == AF_K_NONE)
			l->filler(l->buf, names[i], NULL, 0, 0);
	}
}

/* A name in a container's folder, unless an editor renamed it away. */
static void fill_name(void *ctx, const char *name)
{
	struct lister *l = ctx;
	if (!af_ghost_has(l->fs, child(l, name), NULL))
		l->filler(l->buf, name, NULL, 0, 0);
}

/* The whole listing of path, given to filler (the open directory's af_dirlist). */
static int list_dir(const char *path, void *buf, fuse_fill_dir_t filler)
{
	struct af_fs *fs = af_ctx_fs();
	struct af_res r;
	struct lister l = {fs, buf, filler, r.rel, ""};
	if (!path)
		return -ENOENT;
	int rc = af_view_resolve(fs, path, &r);
	if (rc)
		return rc;
	if (r.kind != AF_K_DIR && r.kind != AF_K_CTLDIR && r.kind != AF_K_ARCDIR &&
	    r.kind != AF_K_SPLITDIR)
		return r.kind == AF_K_NONE ? -ENOENT : -ENOTDIR;
	filler(buf, ".", NULL, 0, 0);
	filler(buf, "..", NULL, 0, 0);
	if (r.kind == AF_K_ARCDIR || r.kind == AF_K_SPLITDIR) { /* its members (parts), and
								   editors' files beside them */
		/* the container's (the binary's) readers only */
		if ((rc = af_view_may(fs, r.kind == AF_K_SPLITDIR ? r.bin : r.rel, O_RDONLY)))
			return rc;
		if (r.kind == AF_K_SPLITDIR) { /* a part removed is shown again */
			af_ghost_del_under(fs, r.rel, AF_K_SPLITPART);
			rc = af_view_split_names(fs, &r, fill_name, &l);
		} else {
			af_folder_list(fs, r.rel, fill_name, &l);
		}
		if (rc)
			return rc == -EIO ? -ENOENT : rc;
		if (__atomic_load_n(&fs->nscratch, __ATOMIC_RELAXED))
			list_scratch(&l);
		list_pending(&l);
		return 0;
	}
	if (r.kind == AF_K_CTLDIR) {
		if (!strcmp(r.rel, AF_CTL_DIR)) {
			static const char *const names[] = {AF_CTL_ERRORS, AF_CTL_PID, AF_CTL_SCRATCH,
							    AF_CTL_SCHEMA, AF_CTL_PLOT, AF_CTL_GLTF};
			for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
				filler(buf, names[i], NULL, 0, 0);
		} else if (!strcmp(r.rel, AF_CTL_DIR "/" AF_CTL_SCHEMA)) {
			for (size_t i = 0; af_codecs[i]; i++) { /* those that have a schema */
				const struct af_codec *c = af_codecs[i];
				char name[AF_SPLIT_NAME_MAX + 80];
				if (!af_codec_has_schema(c))
					continue;
				snprintf(name, sizeof(name), "%s.json", c->name);
				filler(buf, name, NULL, 0, 0);
				if (!fs->splits || !af_split_able(c))
					continue;
				/* a split view's index's and parts' */
				af_split_schema_name(c, NULL, name, sizeof(name));
				filler(buf, name, NULL, 0, 0);
				for (const struct af_split_key *k = c->split; k->key; k++) {
					af_split_schema_name(c, k->key, name, sizeof(name));
					filler(buf, name, NULL, 0, 0);
				}
			}
		} /* plot folders list nothing: a plot is made when asked for by name */
		return 0;
	}
	if ((rc = list_backing(&l)))
		return rc;
	if (__atomic_load_n(&fs->nscratch, __ATOMIC_RELAXED))
		list_scratch(&l);
	list_pending(&l);
	if (!strcmp(r.rel, "."))
		filler(buf, AF_CTL_DIR, NULL, 0, 0);
	return 0;
}

int af_op_opendir(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	fi->fh = (uintptr_t)af_dirlist_new();
	return fi->fh ? 0 : -ENOMEM;
}

int af_op_releasedir(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	af_dirlist_free((struct af_dirlist *)(uintptr_t)fi->fh);
	fi->fh = 0;
	return 0;
}

/* Listed once, when read from the start (a rewinddir too), then served by offset. */
int af_op_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t off,
		  struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	struct af_dirlist *l = fi ? (struct af_dirlist *)(uintptr_t)fi->fh : NULL;
	(void)flags;
	if (!l)
		return -EBADF;
	if (off == 0) {
		af_dirlist_reset(l);
		int rc = list_dir(path, l, af_dirlist_add);
		if (rc)
			return rc;
		if (af_dirlist_failed(l))
			return -ENOMEM;
	}
	af_dirlist_serve(l, off, buf, filler);
	return 0;
}

int af_op_readlink(const char *path, char *buf, size_t size)
{
	struct af_fs *fs = af_ctx_fs();
	struct af_res r;
	int rc = af_view_resolve(fs, path, &r);
	if (rc)
		return rc;
	if (r.kind != AF_K_PASS && r.kind != AF_K_SCRATCH)
		return -EINVAL;
	int dfd = r.kind == AF_K_SCRATCH ? af_scratch_dirfd(fs) : af_ov_at(fs, r.rel);
	if (dfd < 0)
		return dfd;
	ssize_t n = af_bn_readlink(dfd, r.rel, buf, size - 1);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

int af_op_mkdir(const char *path, mode_t mode)
{
	struct af_fs *fs = af_ctx_fs();
	char rel[4096];
	int rc = af_view_rel(path, rel, sizeof(rel));
	if (rc)
		return rc;
	if (fs->read_only)
		return -EROFS;
	if (!strcmp(rel, AF_CTL_DIR))
		return -EEXIST;
	if (af_folder_member(fs, rel))
		return af_folder_refuse(fs, rel, "folder", af_caller()->uid);
	if (fs->splits) {
		struct af_res r;
		if ((rc = af_view_resolve(fs, path, &r)))
			return rc;
		if (r.in_split)
			return r.kind != AF_K_NONE ? -EEXIST
						   : af_split_refuse(fs, r.rel, "no folder is made",
								     af_caller()->uid);
	}
	/* as the caller: the folder is theirs, with their umask (the kernel's mask) */
	return af_ov_mkdir(fs, rel, mode & ~af_caller()->umask);
}

int af_op_rmdir(const char *path)
{
	struct af_fs *fs = af_ctx_fs();
	struct af_res r;
	int rc = af_view_resolve(fs, path, &r);
	if (rc)
		return rc;
	if (r.kind == AF_K_CTLDIR)
		return -EACCES;
	if (r.kind == AF_K_SPLITDIR) /* its parts stay: rm of the binary's own name removes it */
		return af_split_refuse(fs, r.rel, "the folder is not removed (rm the binary by its own name)", af_caller()->uid);
	if (r.kind != AF_K_DIR)
		return r.kind == AF_K_NONE ? -ENOENT : -ENOTDIR;
	if (fs->read_only)
		return -EROFS;
	/* droppings listed in the folder make it not empty, as they would on disk */
	if (af_scratch_rmdir(fs, r.rel))
		return -ENOTEMPTY;
	return af_ov_unlink(fs, r.rel, AT_REMOVEDIR);
}

/* The last close of an open file that was removed or replaced (hidden.c): the
 * removal happens now, unless the name was written again meanwhile. */
static int unlink_alias(struct af_fs *fs, const char *path)
{
	char orig[4096], opath[4100];
	int detached;
	enum af_kind kind;
	if (!af_alias_take(fs, path + 1, orig, sizeof(orig), &detached))
		return -ENOENT;
	if (detached || !af_ghost_has(fs, orig, &kind))
		return 0; /* replaced, or the replace failed: nothing to remove */
	af_ghost_del(fs, orig);
	snprintf(opath, sizeof(opath), "/%s", orig);
	int rc = af_op_unlink(opath);
	if (rc && rc != -ENOENT)
		af_fs_log(LOG_WARNING, "%s: removed while open, but not removable (%s): kept", orig,
			  strerror(-rc));
	return 0;
}

static int unlink_kind(struct af_fs *fs, struct af_res *r);

int af_op_unlink(const char *path)
{
	struct af_fs *fs = af_ctx_fs();
	struct af_res r;
	if (af_alias_is_hidden(path))
		return unlink_alias(fs, path);
	int rc = af_view_resolve(fs, path, &r);
	if (rc)
		return rc;
	if (fs->read_only)
		return -EROFS;
	rc = unlink_kind(fs, &r);
	if (rc == 0)
		af_kc_forget(r.rel);
	if (rc == 0 && !r.in_split) { /* gone: so are the lines about it */
		af_errlog_forget(fs->errors, r.rel);
		if (r.bin[0])
			af_errlog_forget(fs->errors, r.bin);
	}
	return rc;
}

static int unlink_kind(struct af_fs *fs, struct af_res *r)
{
	switch (r->kind) {
	case AF_K_SCRATCH:
		return af_scratch_unlink(fs, r->rel);
	case AF_K_VIEW: /* rm of a view removes the binary, as rm would anywhere */
		if (af_folder_member(fs, r->bin)) /* the container is rebuilt without it */
			return af_folder_remove(fs, r->bin, af_caller());
		return af_ov_unlink(fs, r->bin, 0);
	case AF_K_ARCDIR:
	case AF_K_SPLITDIR:
		return -EISDIR;
	case AF_K_ARCFILE:
		return -EACCES;
	case AF_K_SPLITPART: { /* hidden, not removed: install, tar x and git checkout remove
				  a file before they write it anew (a save of the part) */
		int rc = af_view_may(fs, r->bin, O_WRONLY);
		if (rc)
			return rc;
		af_ghost_add(fs, r->rel, AF_K_SPLITPART);
		af_split_hidden(fs, r->rel, af_caller()->uid);
		return 0;
	}
	case AF_K_PASS:
		return af_ov_unlink(fs, r->rel, 0);
	case AF_K_DIR:
		return -EISDIR;
	case AF_K_CTLDIR:
	case AF_K_CTLFILE:
		return -EACCES;
	default:
		return -ENOENT;
	}
}

/* The descriptor and name a metadata change applies to; -errno when none. */
static int meta_target(struct af_fs *fs, const char *path, struct af_res *r, int *dfd,
		       const char **name)
{
	int rc = af_view_resolve(fs, path, r);
	if (rc)
		return rc;
	*dfd = fs->rootfd;
	switch (r->kind) {
	case AF_K_SPLITDIR: /* the folder and its parts are the binary's */
	case AF_K_SPLITPART:
	case AF_K_VIEW:
		*name = r->bin;
		if (af_folder_member(fs, r->bin)) { /* a member's mode is its container's */
			*strrchr(r->bin, '/') = 0;
		}
		return 0;
	case AF_K_PASS:
	case AF_K_DIR:
	case AF_K_ARCDIR:
		*name = r->rel;
		return 0;
	case AF_K_SCRATCH:
		*dfd = af_scratch_dirfd(fs);
		*name = r->rel;
		return *dfd < 0 ? *dfd : 0;
	case AF_K_NONE:
		/* an unsaved new view: nothing to change yet */
		return af_handle_pending_size(fs, r->rel) >= 0 ? 1 : -ENOENT;
	case AF_K_CTLDIR:
	case AF_K_CTLFILE:
	case AF_K_ARCFILE:
		return -EACCES;
	default:
		return -ENOENT;
	}
}

/* chmod, chown and utimens differ only in the call at the end. */
enum meta_op { META_MODE, META_OWNER, META_TIMES };
struct meta {
	enum meta_op op;
	mode_t mode;
	uid_t uid;
	gid_t gid;
	const struct timespec *tv;
};

static int meta_fd(int fd, const struct meta *m)
{
	int rc = m->op == META_MODE    ? fchmod(fd, m->mode)
		 : m->op == META_OWNER ? fchown(fd, m->uid, m->gid)
				       : futimens(fd, m->tv);
	return rc ? -errno : 0;
}

/* On name beneath dfd, through no link, and on a link itself, never on its target. */
static int meta_at(int dfd, const char *name, const struct meta *m)
{
	char base[NAME_MAX + 1];
	int fd = m->op == META_MODE ? af_bn_open(dfd, name, O_PATH, 0)
				    : af_bn_parent(dfd, name, base, sizeof(base));
	int rc;
	if (fd < 0)
		return -errno;
	if (m->op == META_MODE)
		rc = af_bn_fchmod(fd, m->mode);
	else if (m->op == META_OWNER)
		rc = fchownat(fd, base, m->uid, m->gid, AT_SYMLINK_NOFOLLOW);
	else
		rc = utimensat(fd, base, m->tv, AT_SYMLINK_NOFOLLOW);
	rc = rc ? -errno : 0;
	close(fd);
	return rc;
}

static int meta_apply(const char *path, struct fuse_file_info *fi, const struct meta *m)
{
	struct af_fs *fs = af_ctx_fs();
	struct af_handle *h = af_fi_handle(fi);
	struct af_res r;
	const char *name;
	int dfd, rc;
	if (fs->read_only)
		return -EROFS;
	if (h && h->kind == AF_H_FD)
		return meta_fd(h->fd, m);
	rc = meta_target(fs, path ? path : h ? h->rel : "", &r, &dfd, &name);
	if (rc)
		return rc > 0 ? 0 : rc;
	if (m->op == META_TIMES && (r.kind == AF_K_VIEW || r.kind == AF_K_SPLITDIR ||
				    r.kind == AF_K_SPLITPART))
		return 0; /* a view's times are its binary's; only a save moves them */
	struct meta file = *m;
	if (m->op == META_MODE && r.kind == AF_K_SPLITDIR) {
		/* the folder shows the binary's mode with x where it has r: its r and w bits
		 * are the binary's, whose own x bits stay (rsync -a, cp -a of a folder) */
		file.mode = (m->mode & 0666) | (r.st.st_mode & 0111);
		m = &file;
	}
	if (dfd == fs->rootfd && (dfd = af_ov_meta_tree(fs, name)) < 0)
		return dfd; /* with --overlay GAME's own file is never changed */
	return meta_at(dfd, name, m);
}

int af_op_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	struct meta m = {.op = META_MODE, .mode = mode};
	return meta_apply(path, fi, &m);
}

int af_op_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
	struct meta m = {.op = META_OWNER, .uid = uid, .gid = gid};
	return meta_apply(path, fi, &m);
}

int af_op_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
	struct meta m = {.op = META_TIMES, .tv = tv};
	return meta_apply(path, fi, &m);
}

int af_op_statfs(const char *path, struct statvfs *st)
{
	(void)path;
	return fstatvfs(af_ov_top(af_ctx_fs()), st) ? -errno : 0;
}

int af_op_removexattr(const char *path, const char *name)
{
	struct af_fs *fs = af_ctx_fs();
	struct af_res r;
	if (strcmp(name, AF_XATTR_ERRORS))
		return -ENODATA; /* the only one there is */
	int rc = af_view_resolve(fs, path, &r);
	if (rc)
		return rc;
	uid_t uid = af_caller()->uid;
	int all = uid == 0 || uid == af_daemon_uid(); /* the lines about files: the owner's */
	const char *rel = !strcmp(r.rel, ".") ? "" : r.rel;
	af_errlog_clear(fs->errors, uid, all, rel);
	if (r.bin[0] && strcmp(r.bin, rel))
		af_errlog_clear(fs->errors, uid, all, r.bin);
	return 0;
}

/* A link is the user's like any file (GAME), unless it is an editor's lock link
 * (emacs' `.#x`): that lives in the scratch area. */
int af_op_symlink(const char *target, const char *path)
{
	struct af_fs *fs = af_ctx_fs();
	struct af_res r;
	int rc = af_view_resolve(fs, path, &r);
	if (rc)
		return rc;
	if (r.kind != AF_K_NONE || r.ghost)
		return -EEXIST;
	if (fs->read_only)
		return -EROFS;
	if (af_view_is_dropping(fs, r.rel))
		return af_scratch_symlink(fs, target, r.rel);
	if (af_folder_member(fs, r.rel))
		return af_folder_refuse(fs, r.rel, "link", af_caller()->uid);
	if (r.in_split)
		return af_split_refuse(fs, r.rel, "no link is made", af_caller()->uid);
	return af_ov_symlink(fs, target, r.rel);
}
