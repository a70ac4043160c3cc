/* A member's save (folder.c's containers): where a save lands (af_target_resolve: its
 * kind's steps), a member gained or lost (the container's add, remove), and a member's
 * save steps for the one save pipeline (commit.c): the container proven and opened,
 * the member encoded, rebuilt, verified by reading it back and replaced. This names no
 * format. */
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
#include "bin.h"
#include "dest.h"
#include "errlog.h"
#include "folder.h"
#include "overlay.h"
#include "pristine.h"
#include "render.h"
#include "save.h"
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
	t->ops = t->container ? &af_bin_member_ops : &af_bin_file_ops;
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

/* The new container (in src: the temp file, or with --overlay the image) reads back,
 * its tables only where its container reads so, with the member decoding; in the
 * temp file (fd >= 0) a revert to the pristine bytes makes it that copy. */
static int read_back_src(struct af_readback *rb, const struct af_src *src, int fd, struct af_diag *d)
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
	struct af_readback *rb = ctx;
	struct stat st;
	if (fstat(fd, &st))
		return af_diag_error(d, AF_EIO, "cannot stat the new %s: %s", rb->base, strerror(errno));
	struct af_src src = {NULL, fd, (uint64_t)st.st_size, 0};
	return read_back_src(rb, &src, fd, d);
}

/* ---- a member's save steps (bin.h's operations, for the one save pipeline) ---- */

/* yaml encoded into member k of h (k < 0, or another name than raw: a new member raw,
 * when the container takes one): the whole new container in image, or (whole 0) the
 * pieces of the old file in plan; *changed whether the bytes differ. The tree's bound
 * is the outermost archive's (yaml_max, yaml_more). */
static int member_encode(struct af_archive *h, long k, const char *raw, const uint8_t *yaml,
			 size_t n, int whole, struct af_buf *image, struct af_pieces *plan,
			 int *changed, struct af_diag *d)
{
	if (k < 0 || strcmp(h->m[k].name, raw)) {
		*changed = 1;
		return af_member_add(h, raw, yaml, n, image, d);
	}
	return whole ? af_member_commit(h, (size_t)k, yaml, n, image, changed, d)
		     : af_member_commit_plan(h, (size_t)k, yaml, n, plan, changed, d);
}

/* A result code of a step that failed with d said (AF_EIO when it said nothing). */
static int said(const struct af_diag *d)
{
	return d->code ? d->code : AF_EIO;
}

/* The right to rewrite the container first (a container's rewrite is proven before it
 * is read), then a fresh open of it (never the cache: the file on disk is what we
 * change), the member's archive, and the member (or the new one) by name. */
int af_member_save_open(struct af_save *s)
{
	struct af_fs *fs = s->fs;
	const struct af_target *t = &s->t;
	struct af_diag *d = &s->d;
	const char *name;
	int ov = af_ov_on(fs);
	/* the container's siblings, for both reads (--overlay: those of the one shown) */
	af_sibio_init_at(&s->sib, fs, ov ? -1 : t->dirfd, t->pkg);
	s->sib_open = 1;
	s->rb = (struct af_readback){fs, t->container, &s->sib, t->pkg, t->inner, t->base, 0};
	if (may_write(&s->to->who, t->dirfd, t->base, &s->proven, d) ||
	    open_on_disk(fs, &s->sib, t->dirfd, t->base, t->pkg, t->container, &s->bytes, &s->file,
			 &s->mst, &s->arc, d))
		return said(d);
	/* swapped since the proof (--overlay: mst is the merge's, not the file's) */
	if (!ov && s->proven.st_mode && !same_file(&s->proven, &s->mst))
		return af_diag_error(d, AF_EIO, "%s was replaced while it was being saved: save again", t->base);
	if (!(s->h = af_archive_walk(&s->arc, t->inner, &name)))
		return af_diag_error(d, AF_EINVAL, "%s holds no folder for '%s'", t->base, t->inner);
	if (!ov) /* with --overlay GAME's own is the pristine copy */
		af_pristine_keep(fs, t->pkg, &s->mst, &s->file);
	/* the member listed as name (escaped names, af_member_shown), or a new one of that name */
	if ((s->k = af_archive_find_shown(s->h, name, s->raw)) < 0 &&
	    af_member_unshown(name, strlen(name), s->raw, sizeof(s->raw)))
		return af_diag_error(d, AF_EINVAL, "'%s' names no member (too long)", name);
	return 0;
}

/* The member's edit (with --overlay the container whole) within the tree's bound. */
int af_member_save_step(struct af_save *s, size_t tree_max, af_ymore_fn *more, void *more_ctx)
{
	int fresh = s->k < 0 || strcmp(s->h->m[s->k].name, s->raw);
	s->arc.yaml_max = tree_max;
	s->arc.yaml_more = more;
	s->arc.yaml_more_ctx = more_ctx;
	int rc = member_encode(s->h, s->k, s->raw, s->yaml, s->n, af_ov_on(s->fs), &s->bin, &s->plan,
			       &s->changed, &s->d);
	s->arc.yaml_more = NULL; /* the loan ends with the parse */
	s->arc.yaml_more_ctx = NULL;
	return rc == AF_EUNSUP && fresh ? no_new_member(s->h, s->t.base, s->raw, &s->d) : rc;
}

void af_member_save_reset(struct af_save *s)
{
	af_buf_reset(&s->bin);
	af_pieces_free(&s->plan);
	af_diag_clear(&s->d);
	s->changed = 0;
}

/* With --overlay: the new container read back in memory, then only what differs from
 * GAME's (or nothing: gone). */
int af_member_save_layout(struct af_save *s)
{
	const struct af_target *t = &s->t;
	if (!s->changed || !af_ov_on(s->fs))
		return 0;
	struct af_src mem = {s->bin.data ? s->bin.data : (const uint8_t *)"", -1, s->bin.len, 0};
	if (read_back_src(&s->rb, &mem, -1, &s->d) ||
	    af_ov_reduce(s->fs, t->pkg, t->container, t->dirfd, t->base, &s->to->who, &s->bin, &s->gone, &s->d))
		return said(&s->d);
	return 0;
}

/* Proven before the container was read (af_member_save_open). */
int af_member_save_prove(struct af_save *s)
{
	(void)s;
	return 0;
}

int af_member_save_same(struct af_save *s)
{
	return !s->changed || s->gone;
}

/* The member's commit as pieces of the file (only the member and the tables are new
 * where the container plans so), assembled in the temp file, a check that it reads
 * back with the member decoding (--overlay: read back in memory before), then the
 * atomic replace. */
int af_member_save_replace(struct af_save *s)
{
	struct af_fs *fs = s->fs;
	const struct af_target *t = &s->t;
	int ov = af_ov_on(fs);
	if (!s->plan.n && af_pieces_take(&s->plan, &s->bin)) /* a new member, or --overlay: whole */
		return af_diag_error(&s->d, AF_ENOMEM, "out of memory");
	af_archive_close(&s->arc); /* the plan holds what it needs: gone before the new file is read back */
	if (replace_container(t->dirfd, t->base, &s->plan, &s->file, &s->to->who, &s->proven, &s->now,
			      ov ? NULL : read_back, &s->rb, &s->d))
		return said(&s->d);
	af_pristine_wrote(fs, t->pkg, &s->now);
	if (!ov) /* (--overlay: mst is not the file's; its loaded copy is MODDIR's merge) */
		af_loaded_forget(fs, &s->mst);
	af_fs_log(LOG_INFO, "saved %s in %s (%llu bytes%s)", t->inner, t->pkg,
		  (unsigned long long)s->now.st_size, s->rb.revert ? ", the original bytes again" : "");
	return 0;
}

void af_member_save_close(struct af_save *s)
{
	if (s->file.fd >= 0)
		close(s->file.fd);
	s->file.fd = -1;
	af_archive_close(&s->arc);
	af_buf_free(&s->bytes);
	af_pieces_free(&s->plan);
}
