/* A member's save (folder.c's containers): where a save lands (af_target_resolve), a
 * member gained or lost (the container's add, remove), the container rewritten,
 * verified by reading it back and replaced (af_folder_commit). This names no format. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "animfs/yamlio.h"
#include "animfs/fs.h"
#include "animfs/path.h"
#include "animfs/beneath.h"
#include "animfs/container.h"
#include "animfs/fileio.h"
#include "animfs/pieces.h"
#include "binary.h"
#include "dest.h"
#include "errlog.h"
#include "folder.h"
#include "overlay.h"
#include "pristine.h"
#include "render.h"
#include "session.h"
#include "who.h"
#include "folder_int.h"

/* ---- members gained and lost (container.h add, remove) ---- */

/* A member the container gains none of said as the view says it (the container's add
 * said AF_EUNSUP: it takes no such member, or none at all). */
static int no_new_member(const struct af_archive *v, const char *cname, const char *name,
			 struct af_diag *d)
{
	af_diag_clear(d);
	return af_diag_error(d, AF_EINVAL, "%s holds no member '%s', and a %s gains none through the view",
			     cname, name, v->c->noun);
}

/* The container pkg (base in its folder dirfd) opened afresh (never the cache: the file
 * on disk is what changes) as its container c with its siblings (an IDX, a TAC): file
 * is its descriptor (closed by the caller, -1 on failure), which a container that
 * reads only its tables keeps reading from (open_src; the others read it whole). With
 * --overlay, MODDIR's over GAME's, merged in bytes (file stays -1). */
static int open_on_disk(struct af_fs *fs, struct af_sibio *sib, int dirfd, const char *base,
			const char *pkg, const struct af_container *c, struct af_buf *bytes,
			struct af_src *file, struct stat *st, struct af_archive *a, struct af_diag *d)
{
	int rc;
	*file = (struct af_src){NULL, -1, 0, 0};
	if (af_ov_on(fs)) {
		rc = af_ov_read_container(fs, dirfd, base, pkg, c, bytes, d);
		return rc ? rc : af_archive_open_io(a, c, bytes->data, bytes->len, &sib->d.io, d);
	}
	if ((file->fd = af_bn_open(dirfd, base, O_RDONLY, 0)) < 0)
		return af_diag_error(d, AF_EIO, "cannot open: %s", strerror(errno));
	if (fstat(file->fd, st) || !S_ISREG(st->st_mode))
		return af_diag_error(d, AF_EIO, "cannot stat, or no longer a file");
	file->size = (uint64_t)st->st_size;
	return af_archive_open_src(a, c, file, &sib->d.io, d);
}

/* Whether a and b are one file, unchanged (device, inode, size, times). */
static int same_file(const struct stat *a, const struct stat *b)
{
	struct af_fid x, y;
	af_fid_of(a, &x);
	af_fid_of(b, &y);
	return af_fid_same(&x, &y);
}

/* The right to rewrite the container dirfd/base, proven by opening it for writing as
 * who (the rebuild is then the daemon's, keeping the owner, group and mode of the file
 * proven: *proven, or st_mode 0 for a new file). */
static int may_write(const struct af_who *who, int dirfd, const char *base, struct stat *proven,
		     struct af_diag *d)
{
	struct stat st;
	int rc = 0;
	proven->st_mode = 0; /* none: a new file */
	if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		rc = af_may_write_as(who, dirfd, base, proven);
	} else if (!(rc = af_act_with(who))) { /* a new file (a copy-up): the folder's right */
		rc = faccessat(dirfd, ".", W_OK | X_OK, AT_EACCESS) ? -errno : 0;
		af_act_back();
	}
	if (rc)
		af_diag_error(d, AF_EACCES, "%s is not yours to write: %s", base, strerror(-rc));
	return rc;
}

/* The container rewritten for who as the pieces of file (pieces.h: what stays is
 * copied by the kernel): its owner, group and mode kept, less the set-id bits a write by
 * who would clear; check (may be NULL) reads the new file back before it is kept. */
static int replace_container(int dirfd, const char *base, const struct af_pieces *image,
			     const struct af_src *file, const struct af_who *who,
			     const struct stat *proven, struct stat *now,
			     int (*check)(void *ctx, int fd, struct af_diag *d), void *ctx,
			     struct af_diag *d)
{
	struct af_replace_opts ro = {0};
	struct stat st;
	ro.clear_setid = !af_who_is_privileged(who);
	ro.st_out = now;
	ro.check = check;
	ro.check_ctx = ctx;
	ro.old = proven && proven->st_mode ? proven : NULL; /* its owner, as proven */
	if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return af_replace_file_pieces(dirfd, base, image, file, 0644, &ro, d);
	/* a new file (a copy-up to the mod folder): the saver's, made as them */
	ro.as_new = 1;
	if (af_act_with(who))
		return af_diag_error(d, AF_EIO, "cannot act as uid %u", (unsigned)who->uid);
	int rc = af_replace_file_pieces(dirfd, base, image, file, 0644, &ro, d);
	af_act_back();
	return rc;
}

/* Member `name` of the open container v removed: image made, re-read without it (and
 * with as many members less), then the atomic replace of dirfd/base. */
static int remove_member(const struct af_archive *v, int dirfd, const char *base,
			 const char *name, const struct af_who *who, const struct stat *proven,
			 struct af_diag *d)
{
	struct af_buf image = AF_BUF_INIT;
	struct af_pieces all = AF_PIECES_INIT;
	struct af_archive w;
	char raw[AF_MEMBER_NAME_MAX];
	long k = af_archive_find_shown(v, name, raw);
	int rc;
	memset(&w, 0, sizeof(w));
	if (k < 0 || strcmp(v->m[k].name, raw)) {
		rc = af_diag_error(d, AF_EIO, "%s holds no member '%s' (any more)", base, name);
		goto out;
	}
	if ((rc = af_member_remove(v, (size_t)k, &image, d)))
		goto out;
	if (af_archive_open(&w, v->c, image.data, image.len, d) || w.n + 1 != v->n ||
	    af_archive_find(&w, raw) >= 0) {
		rc = af_diag_error(d, AF_EIO, "internal error: %s without %s does not read back", base, name);
		goto out;
	}
	struct stat now;
	if (af_pieces_take(&all, &image))
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
	else
		rc = replace_container(dirfd, base, &all, NULL, who, proven, &now, NULL, NULL, d);
out:
	af_archive_close(&w);
	af_buf_free(&image);
	af_pieces_free(&all);
	return rc;
}

int af_folder_remove(struct af_fs *fs, const char *bin, const struct af_who *who)
{
	uid_t uid = who->uid;
	char pkg[4096], base[NAME_MAX + 1];
	const char *name;
	struct stat st, proven;
	struct af_buf bytes = AF_BUF_INIT;
	struct af_src file = {NULL, -1, 0, 0};
	struct af_archive v;
	struct af_diag d;
	const struct af_container *c = NULL;
	int rc = -EIO, dirfd = -1;
	memset(&v, 0, sizeof(v));
	af_diag_init(&d);
	pthread_mutex_lock(&fs->commit_lock);
	if (!(c = af_folder_split(fs, bin, pkg, sizeof(pkg), &name, &st))) {
		rc = -ENOENT;
		goto out;
	}
	if ((rc = af_ov_keeps(fs, pkg, &d))) /* --overlay: GAME's members stay */
		goto out;
	if ((dirfd = af_ov_parent_w(fs, pkg, base, sizeof(base), who)) < 0) { /* base: its name */
		af_diag_error(&d, AF_EIO, "cannot open the folder of %s: %s", pkg, strerror(errno));
		goto out;
	}
	if ((rc = may_write(who, dirfd, base, &proven, &d)))
		goto out; /* the container is not the caller's to rewrite */
	int was = af_act_pause();
	rc = -EIO;
	struct af_sibio sib;
	af_sibio_init_at(&sib, fs, af_ov_on(fs) ? -1 : dirfd, pkg);
	if (!open_on_disk(fs, &sib, dirfd, base, pkg, c, &bytes, &file, &st, &v, &d) &&
	    (af_ov_on(fs) || !proven.st_mode || same_file(&proven, &st) ||
	     af_diag_error(&d, AF_EIO, "%s was replaced meanwhile: remove it again", base) == 0) &&
	    !remove_member(&v, dirfd, base, name, who, &proven, &d))
		rc = 0;
	else
		rc = d.code == AF_EUNSUP ? -EPERM : d.code == AF_EINVAL ? -EINVAL : -EIO;
	af_act_resume(was);
out:
	pthread_mutex_unlock(&fs->commit_lock);
	if (rc == 0) {
		if (!af_ov_on(fs))
			af_loaded_forget(fs, &st);
		af_fs_log(LOG_INFO, "removed %s from %s", name, pkg);
	} else if (d.code) {
		char msg[1200];
		af_diag_format(&d, bin, msg, sizeof(msg));
		af_fs_log(LOG_ERR, "not removed, %s (the %s is unchanged)", msg, c ? c->noun : "file");
		af_errlog_add(fs->errors, uid, bin, &d);
	}
	if (dirfd >= 0)
		close(dirfd);
	if (file.fd >= 0)
		close(file.fd);
	af_archive_close(&v);
	af_buf_free(&bytes);
	af_diag_free(&d);
	return rc;
}

/* ---- a save's target ---- */

/* One split and, unless the view holds its folder, one lookup beneath GAME. */
int af_target_resolve(struct af_fs *fs, const struct af_dest *to, struct af_target *t,
		      struct af_diag *d)
{
	const char *file = to->bin_rel;
	memset(t, 0, sizeof(*t));
	t->bin_rel = to->bin_rel;
	t->dirfd = to->dirfd;
	t->container = af_folder_split(fs, to->bin_rel, t->pkg, sizeof(t->pkg), &t->inner, &t->pkg_st);
	if (t->container)
		file = t->pkg;
	snprintf(t->base, sizeof(t->base), "%s", af_base(file));
	if (t->dirfd < 0) {
		t->dirfd = af_ov_parent_w(fs, file, t->base, sizeof(t->base), &to->who);
		t->own_dir = t->dirfd >= 0;
		if (t->dirfd < 0)
			return af_diag_error(d, AF_EIO, "cannot open the folder of %s: %s", file,
					     strerror(errno));
	}
	return 0;
}

void af_target_close(struct af_target *t)
{
	if (t->own_dir && t->dirfd >= 0)
		close(t->dirfd);
	t->dirfd = -1;
	t->own_dir = 0;
}

/* What the new container must show before it is kept. */
struct readback {
	struct af_fs *fs;
	const struct af_container *c;
	struct af_sibio *sib;
	const char *pkg, *inner, *base;
	int revert; /* out: the new file is the pristine copy */
};

/* The new container (in src: the temp file, or with --overlay the image) reads back,
 * its tables only where its container reads so, with the member decoding; in the
 * temp file (fd >= 0) a revert to the pristine bytes makes it that copy. */
static int read_back_src(struct readback *rb, const struct af_src *src, int fd, struct af_diag *d)
{
	struct af_buf back = AF_BUF_INIT;
	struct af_archive w, *hw;
	const char *name;
	long kk = -1;
	int rc = 0;
	memset(&w, 0, sizeof(w));
	if (af_archive_open_src(&w, rb->c, src, &rb->sib->d.io, d) ||
	    !(hw = af_archive_walk(&w, rb->inner, &name)) || (kk = af_archive_find_shown(hw, name, NULL)) < 0 ||
	    af_member_yaml(hw, (size_t)kk, &back, d)) {
		rc = af_diag_error(d, AF_EIO, "internal error: the rebuilt %s does not read back", rb->base);
		goto out;
	}
	const struct af_archive *top = hw;
	size_t first = (size_t)kk;
	for (; top->parent; top = top->parent)
		first = top->at; /* the member of the file that holds the change */
	if (fd >= 0 && (rb->revert = af_pristine_match(rb->fs, rb->pkg, &w, first, fd)) < 0)
		rc = af_diag_error(d, AF_EIO, "cannot write the original bytes of %s again", rb->base);
out:
	af_archive_close(&w);
	af_buf_free(&back);
	return rc;
}

/* The check of the temp file (af_replace_opts.check). */
static int read_back(void *ctx, int fd, struct af_diag *d)
{
	struct readback *rb = ctx;
	struct stat st;
	if (fstat(fd, &st))
		return af_diag_error(d, AF_EIO, "cannot stat the new %s: %s", rb->base, strerror(errno));
	struct af_src src = {NULL, fd, (uint64_t)st.st_size, 0};
	return read_back_src(rb, &src, fd, d);
}

/* A fresh open of the container (never the cache: the file on disk is what we change),
 * the member's commit as pieces of the file (only the member and the tables are new
 * where the container plans so), assembled in the temp file, a check that it reads
 * back with the member decoding, then the atomic replace. With --overlay the container
 * is rebuilt in memory (GAME's merged under MODDIR's), read back there and reduced to
 * what differs from GAME's. Called under fs->commit_lock. */
/* A member's save parsed into the new container (image, or plan: the pieces of the old
 * file), within the memory bound. */
struct member_save {
	struct af_rcache *cache; /* NULL: no render cache (the command line) */
	size_t tree_max;         /* then the tree's bound */
	struct af_archive *v; /* the outermost archive (its YAML bound) */
	struct af_archive *h; /* the one holding the member */
	long k;           /* the member, or < 0: a new one, raw */
	const char *raw;
	const uint8_t *yaml;
	size_t n;
	int whole;
	struct af_buf *image;
	struct af_pieces *plan;
	int *changed;
	struct af_diag *d;
};

static int member_save_attempt(void *ctx, int alone)
{
	struct member_save *j = ctx;
	struct af_parse_share ps;
	struct af_archive *h = j->h;
	int rc;
	if (j->cache) {
		j->v->yaml_max = af_parse_begin(&ps, j->cache, j->n, alone);
		j->v->yaml_more = af_loan_more;
		j->v->yaml_more_ctx = &ps.loan;
	} else {
		j->v->yaml_max = j->tree_max;
	}
	if (j->k < 0 || strcmp(h->m[j->k].name, j->raw)) {
		/* a new name in the folder: a new member, when the container takes one */
		rc = af_member_add(h, j->raw, j->yaml, j->n, j->image, j->d);
		*j->changed = 1;
	} else {
		rc = j->whole ? af_member_commit(h, (size_t)j->k, j->yaml, j->n, j->image, j->changed, j->d)
			      : af_member_commit_plan(h, (size_t)j->k, j->yaml, j->n, j->plan, j->changed, j->d);
	}
	if (!j->cache)
		return rc;
	j->v->yaml_more = NULL; /* the loan ends with the parse */
	j->v->yaml_more_ctx = NULL;
	if ((rc = af_parse_end(&ps, rc)) == AF_AGAIN_ALONE) {
		af_buf_reset(j->image);
		af_pieces_free(j->plan);
		af_diag_clear(j->d);
		*j->changed = 0;
	}
	return rc;
}

int af_member_save_encode(struct af_rcache *cache, size_t tree_max, struct af_archive *v,
			  struct af_archive *h, long k, const char *raw, const uint8_t *yaml, size_t n,
			  int whole, struct af_buf *image, struct af_pieces *plan, int *changed,
			  struct af_diag *d)
{
	/* the memory bound: the tree's own share from the renders' pool, and the texts'
	 * lent when it needs more (af_budget_run: again, alone, when refused short) */
	struct member_save job = {cache, tree_max, v, h, k, raw, yaml, n, whole, image, plan, changed, d};
	return af_budget_run(member_save_attempt, &job);
}

int af_folder_commit(struct af_fs *fs, const struct af_dest *to, const struct af_target *t,
		     const uint8_t *yaml, size_t n, struct af_diag *d)
{
	const char *pkg = t->pkg, *base = t->base, *inner = t->inner, *name;
	char raw[AF_MEMBER_NAME_MAX];
	struct af_src file = {NULL, -1, 0, 0};
	struct af_buf bytes = AF_BUF_INIT, image = AF_BUF_INIT;
	struct af_pieces plan = AF_PIECES_INIT;
	struct af_archive v, *h;
	struct af_sibio sib;
	struct stat st, now, proven;
	const struct af_container *c = t->container;
	long k;
	int changed = 0, rc, dirfd = t->dirfd, ov = af_ov_on(fs), gone = 0;
	memset(&v, 0, sizeof(v));
	/* the container's siblings, for both reads (--overlay: those of the one shown) */
	af_sibio_init_at(&sib, fs, ov ? -1 : dirfd, pkg);
	struct readback rb = {fs, c, &sib, pkg, inner, base, 0};
	if ((rc = may_write(&to->who, dirfd, base, &proven, d)) ||
	    (rc = open_on_disk(fs, &sib, dirfd, base, pkg, c, &bytes, &file, &st, &v, d)))
		goto out;
	/* swapped since the proof (--overlay: st is the merge's, not the file's) */
	if (!ov && proven.st_mode && !same_file(&proven, &st)) {
		rc = af_diag_error(d, AF_EIO, "%s was replaced while it was being saved: save again", base);
		goto out;
	}
	if (!(h = af_archive_walk(&v, inner, &name))) {
		rc = af_diag_error(d, AF_EINVAL, "%s holds no folder for '%s'", base, inner);
		goto out;
	}
	if (!ov) /* with --overlay GAME's own is the pristine copy */
		af_pristine_keep(fs, pkg, &st, &file);
	/* the member listed as name (escaped names, af_member_shown), or a new one of that name */
	if ((k = af_archive_find_shown(h, name, raw)) < 0 &&
	    af_member_unshown(name, strlen(name), raw, sizeof(raw))) {
		rc = af_diag_error(d, AF_EINVAL, "'%s' names no member (too long)", name);
		goto out;
	}
	rc = af_member_save_encode(fs->cache, 0, &v, h, k, raw, yaml, n, ov, &image, &plan, &changed, d);
	if (rc == AF_EUNSUP && (k < 0 || strcmp(h->m[k].name, raw)))
		rc = no_new_member(h, base, raw, d);
	if (rc || !changed)
		goto out;
	if (ov) { /* read back in memory, then only what differs from GAME's, or nothing */
		struct af_src mem = {image.data ? image.data : (const uint8_t *)"", -1, image.len, 0};
		if ((rc = read_back_src(&rb, &mem, -1, d)) ||
		    (rc = af_ov_reduce(fs, pkg, c, dirfd, base, &to->who, &image, &gone, d)) || gone)
			goto out;
	}
	if (!plan.n && af_pieces_take(&plan, &image)) { /* a new member, or --overlay: whole */
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
		goto out;
	}
	af_archive_close(&v); /* the plan holds what it needs: gone before the new file is read back */
	if ((rc = replace_container(dirfd, base, &plan, &file, &to->who, &proven, &now, ov ? NULL : read_back,
				    &rb, d)))
		goto out;
	af_pristine_wrote(fs, pkg, &now);
	if (!ov) /* (--overlay: st is not the file's; its loaded copy is MODDIR's merge) */
		af_loaded_forget(fs, &st);
	af_fs_log(LOG_INFO, "saved %s in %s (%llu bytes%s)", inner, pkg, (unsigned long long)now.st_size,
		  rb.revert ? ", the original bytes again" : "");
out:
	if (file.fd >= 0)
		close(file.fd);
	af_archive_close(&v);
	af_buf_free(&bytes);
	af_buf_free(&image);
	af_pieces_free(&plan);
	return rc;
}
