/* The namespace's names (ns.h): listings (claimed binaries as <name>.yaml, scratch
 * files, the control folder, the previews' folders), folders made and removed, names
 * removed, and a new file made and opened (af_ns_create: a view's buffer, an editor's
 * dropping kept aside, or the user's file in GAME). (A path's attributes are
 * nsfile.c's: open files answer them first.) */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "animfs/codec.h"
#include "animfs/fs.h"
#include "animfs/path.h"
#include "animfs/beneath.h"
#include "animfs/split.h"
#include "binary.h"
#include "deps.h"
#include "dirlist.h"
#include "dropping.h"
#include "errlog.h"
#include "folder.h"
#include "ghost.h"
#include "handle.h"
#include "ns.h"
#include "overlay.h"
#include "prefetch.h"
#include "previews.h"
#include "render.h"
#include "res.h"
#include "scratch.h"
#include "session.h"
#include "splitview.h"
#include "sweep.h"
#include "view.h"
#include "who.h"

struct lister {
	struct af_fs *fs;
	af_ns_fill fill;
	void *arg;
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
		l->fill(l->arg, n);
		return;
	}
	snprintf(name, sizeof(name), "%s%s", n, AF_VIEW_SUFFIX);
	if (!af_ghost_has(l->fs, child(l, name), NULL))
		l->fill(l->arg, name);
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
			l->fill(l->arg, n);
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
			l->fill(l->arg, e->d_name);
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
			l->fill(l->arg, names[i]);
	}
}

/* A name in a container's folder, unless an editor renamed it away. */
static void fill_name(void *ctx, const char *name)
{
	struct lister *l = ctx;
	if (!af_ghost_has(l->fs, child(l, name), NULL))
		l->fill(l->arg, name);
}

static int list_previews(struct af_fs *fs, const char *mirror, af_ns_fill fill, void *arg);

int af_ns_list(struct af_fs *fs, const char *path, af_ns_fill fill, void *arg)
{
	struct af_res r;
	struct lister l = {fs, fill, arg, r.rel, ""};
	if (!path)
		return -ENOENT;
	int rc = af_view_resolve(fs, path, &r);
	if (rc)
		return rc;
	if (r.kind != AF_K_DIR && r.kind != AF_K_CTLDIR && r.kind != AF_K_ARCDIR &&
	    r.kind != AF_K_SPLITDIR)
		return r.kind == AF_K_NONE ? -ENOENT : -ENOTDIR;
	fill(arg, ".");
	fill(arg, "..");
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
		char mirror[4200];
		if (af_previews_mirror(r.rel, mirror, sizeof(mirror)))
			return list_previews(fs, mirror, fill, arg);
		if (!strcmp(r.rel, AF_CTL_DIR)) {
			static const char *const names[] = {AF_CTL_ERRORS, AF_CTL_PID, AF_CTL_SCRATCH,
							    AF_CTL_SCHEMA, AF_CTL_PLOT, AF_CTL_GLTF};
			for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
				fill(arg, names[i]);
		} else if (!strcmp(r.rel, AF_CTL_DIR "/" AF_CTL_SCHEMA)) {
			for (size_t i = 0; af_codecs[i]; i++) { /* those that have a schema */
				const struct af_codec *c = af_codecs[i];
				char name[AF_SPLIT_NAME_MAX + 80];
				if (!af_codec_has_schema(c))
					continue;
				snprintf(name, sizeof(name), "%s.json", c->name);
				fill(arg, name);
				if (!fs->splits || !af_split_able(c))
					continue;
				/* a split view's index's and parts' */
				af_split_schema_name(c, NULL, name, sizeof(name));
				fill(arg, name);
				for (const struct af_split_key *k = c->split; k->key; k++) {
					af_split_schema_name(c, k->key, name, sizeof(name));
					fill(arg, name);
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
		fill(arg, AF_CTL_DIR);
	return 0;
}

uint64_t af_ns_list_id(struct af_fs *fs, const char *path)
{
	struct af_res r;
	struct stat st;
	uint64_t h = 0xcbf29ce484222325ull;
	if (!path || af_view_resolve(fs, path, &r))
		return 0;
	switch (r.kind) {
	case AF_K_DIR: /* each tree's folder: a name made or removed there changes it */
		for (int k = 0, tree; (tree = af_ov_layer(fs, k)) >= 0; k++)
			h = af_bn_stat(tree, r.rel, &st) ? af_deps_fold(h, 'L', 0, "", NULL, -errno)
							  : af_deps_fold(h, 'L', 1, "", &st, 0);
		break;
	case AF_K_ARCDIR:
	case AF_K_SPLITDIR: /* the container's or the binary's file */
		h = af_deps_fold(h, 'L', 1, "", &r.st, 0);
		break;
	default: /* the control folders: listed each time */
		return 0;
	}
	return h ? h : 1;
}

/* A folder of .animfs/gltf/: the folder it mirrors listed first (as its caller may),
 * then each name resolved (previews.c), no lock held. */
static int list_previews(struct af_fs *fs, const char *mirror, af_ns_fill fill, void *arg)
{
	struct af_dirlist *names = af_dirlist_new();
	struct af_previews p = {fs, mirror, fill, arg};
	int rc = names ? af_ns_list(fs, mirror, af_dirlist_add, names) : -ENOMEM;
	if (!rc && af_dirlist_failed(names))
		rc = -ENOMEM;
	for (size_t i = 0, n = rc ? 0 : af_dirlist_count(names); i < n; i++)
		if (af_previews_fill(&p, af_dirlist_name(names, i)))
			break;
	af_dirlist_free(names);
	return rc;
}

int af_ns_mkdir(struct af_fs *fs, const char *path, mode_t mode)
{
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

int af_ns_rmdir(struct af_fs *fs, const char *path)
{
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

static int unlink_kind(struct af_fs *fs, struct af_res *r);

int af_ns_unlink(struct af_fs *fs, const char *path)
{
	struct af_res r;
	int rc = af_view_resolve(fs, path, &r);
	if (rc)
		return rc;
	if (fs->read_only)
		return -EROFS;
	rc = unlink_kind(fs, &r);
	if (rc == 0)
		af_face_note(fs, AF_NOTE_GONE, r.rel);
	if (rc == 0 && af_res_names_others(&r))
		af_face_note(fs, AF_NOTE_NAMES, r.rel);
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

/* ------------------------------------------------------------ a new file, opened */

/* X of a dropping is "a name in that folder": anything the view shows there, a name
 * an editor renamed away, a new view being written or about to be. */
struct in_folder {
	struct af_fs *fs;
	const char *rel; /* the dropping's path */
};

static int name_in_folder(void *ctx, const char *x)
{
	const struct in_folder *f = ctx;
	const char *base = af_base(f->rel);
	char path[4096 + 256];
	struct af_res r;
	snprintf(path, sizeof(path), "/%.*s%s", (int)(base - f->rel), f->rel, x);
	if (af_view_resolve(f->fs, path, &r))
		return 0;
	return r.kind != AF_K_NONE || r.ghost || af_view_is_candidate(r.rel) ||
	       af_handle_pending_size(f->fs, r.rel) >= 0;
}

int af_ns_is_dropping(struct af_fs *fs, const char *rel)
{
	struct in_folder f = {fs, rel};
	return af_dropping_is(af_base(rel), name_in_folder, &f);
}

/* The binary a new view name saves to: the name without ".yaml". */
static void bin_of(const char *rel, char *bin, size_t size)
{
	const char *base = af_base(rel);
	size_t n = (size_t)(base - rel) + af_view_strip(base);
	snprintf(bin, size, "%.*s", (int)n, rel);
}

/* A new file kept in the scratch area (an editor's dropping, a tool's temp file). */
static int create_aside(struct af_fs *fs, const struct af_res *r, int flags, mode_t mode,
			struct af_ns_opened *out)
{
	int fd = af_scratch_create(fs, r->rel, flags & ~O_CREAT, mode);
	if (fd < 0)
		return fd;
	struct af_handle *h = af_handle_new_fd(fs, fd, r->rel);
	if (!h) {
		close(fd);
	} else {
		h->scratch = 1;
		h->scratch_owner = af_scratch_owner(fs);
	}
	return af_ns_put_handle(out, h);
}

int af_ns_create(struct af_fs *fs, const char *path, mode_t mode, int flags,
		 struct af_ns_opened *out)
{
	struct af_res r;
	memset(out, 0, sizeof(*out));
	int rc = af_view_resolve(fs, path, &r);
	if (rc)
		return rc;
	if (fs->read_only)
		return -EROFS;
	if (r.kind != AF_K_NONE) {
		if (flags & O_EXCL)
			return -EEXIST;
		return af_ns_open(fs, path, flags, out);
	}
	af_face_note(fs, AF_NOTE_GONE, r.rel); /* a new file: nothing a face kept is of it */
	if (r.ghost && r.ghost_of == AF_K_SCRATCH) {
		/* a dropping removed while still open (its removal waits for its last close):
		 * the new one replaces it, and that pending removal is off */
		af_face_alias_detach(fs, r.rel);
		af_ghost_del(fs, r.rel);
		af_scratch_unlink(fs, r.rel);
	}
	if (r.in_split && r.ghost && r.ghost_of == AF_K_SPLITPART) {
		/* an editor writing back a part it renamed away (vim, emacs): that part */
		if ((rc = af_view_may(fs, r.bin, O_WRONLY)))
			return rc;
		af_face_note(fs, AF_NOTE_WRITER, r.rel);
		return af_ns_view_handle(fs, out, r.rel, r.bin, r.bin_plain, NULL, 1);
	}
	if (r.in_split && !af_split_aside(af_base(r.rel)) && !af_ns_is_dropping(fs, r.rel))
		return af_split_refuse(fs, r.rel, "no file is added", af_caller()->uid);
	if (r.in_split) /* a tool's temp file (rsync's, Python's), to be renamed onto a part */
		return create_aside(fs, &r, flags, mode, out);
	if (r.ghost && r.ghost_of == AF_K_PASS) {
		/* an editor writing back a file it renamed away: the original, in place */
		int tree = af_ov_open_tree(fs, r.rel, O_WRONLY | O_CREAT | O_TRUNC);
		rc = tree < 0 ? tree : af_ns_open_fd(fs, out, tree, r.rel,
					       (flags & ~O_EXCL) | O_CREAT | O_TRUNC, mode);
		if (rc == 0)
			af_ghost_del(fs, r.rel);
		return rc;
	}
	/* (Finder's ._X of a view X is a view's name too: its dropping, kept aside) */
	if ((r.ghost && r.ghost_of == AF_K_VIEW) ||
	    (af_view_is_candidate(r.rel) && !af_ns_is_dropping(fs, r.rel))) {
		char bin[4096];
		bin_of(r.rel, bin, sizeof(bin));
		/* a new binary will be the caller's: that they may make one there is known now,
		 * not only at the close */
		if ((rc = af_view_may_create(fs, bin)))
			return rc;
		af_face_note(fs, AF_NOTE_WRITER, r.rel);
		rc = af_ns_view_handle(fs, out, r.rel, bin, 0, NULL, 0);
		if (rc == 0)
			out->h->mode = mode & 07777;
		return rc;
	}
	if (af_ns_is_dropping(fs, r.rel)) /* an editor's own file: kept outside GAME */
		return create_aside(fs, &r, flags, mode, out);
	if (af_folder_member(fs, r.rel)) /* a file that is no member of its format */
		return af_folder_refuse(fs, r.rel, "plain file", af_caller()->uid);
	/* Anything else is the user's: it lands in GAME, as on the folder itself (a
	 * binary a codec claims is shown as its view once it is closed). */
	int tree = af_ov_open_tree(fs, r.rel, flags | O_CREAT);
	return tree < 0 ? tree : af_ns_open_fd(fs, out, tree, r.rel, flags | O_CREAT, mode);
}
