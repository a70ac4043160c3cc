/* A container's names (folder.c's containers): which path is a member or a folder of
 * one (af_folder_resolve), its listing and index.yaml (af_folder_list), and what is
 * refused in its folder (af_folder_refuse). This names no format. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "animfs/yamlio.h"
#include "animfs/fs.h"
#include "animfs/path.h"
#include "animfs/container.h"
#include "animfs/fileio.h"
#include "binary.h"
#include "errlog.h"
#include "folder.h"
#include "overlay.h"
#include "render.h"
#include "res.h"
#include "session.h"
#include "folder_int.h"

/* The archive shown as the folder "inner" of l ("" or NULL: the file's own folder). */
static struct af_archive *folder_at(struct loaded *l, const char *inner)
{
	char path[4096];
	const char *leaf;
	if (!inner || !inner[0])
		return af_archive_shown(&l->v);
	snprintf(path, sizeof(path), "%s/", inner);
	return af_archive_walk(&l->v, path, &leaf);
}

int af_folder_file(struct af_fs *fs, const char *rel, char *file, size_t size)
{
	const char *inner;
	struct stat st;
	return af_folder_split(fs, rel, file, size, &inner, &st) != NULL;
}

int af_folder_member(struct af_fs *fs, const char *rel)
{
	char pkg[4096];
	const char *name;
	struct stat st;
	return af_folder_split(fs, rel, pkg, sizeof(pkg), &name, &st) != NULL;
}

/* r->rel is leaf inside holder h (from the folder's inner path): a nested folder, a
 * view, or a raw member. Call with l->lock held. */
static void resolve_leaf(struct af_fs *fs, struct loaded *l, struct af_archive *h, const char *pkg,
			 const char *inner, const char *leaf, struct af_res *r)
{
	char item[AF_MEMBER_NAME_MAX], shown[AF_MEMBER_NAME_MAX * 3];
	size_t n = af_view_strip(leaf), cut;
	int raw = !n;
	if (raw)
		n = strlen(leaf); /* a raw member, or one whose body does not decode */
	if (n >= sizeof(shown))
		return;
	snprintf(shown, sizeof(shown), "%.*s", (int)n, leaf);
	long k = af_archive_find_shown(h, shown, item);
	struct node *nd = k >= 0 && !strcmp(h->m[k].name, item) ? af_loaded_node(l, h) : NULL;
	if (!nd)
		return;
	af_member_shown(item, !raw, shown, sizeof(shown)); /* only the name it is listed under */
	if (strlen(shown) != n || memcmp(shown, leaf, n))
		return;
	if (raw && af_archive_sub(h, (size_t)k)) {
		r->kind = AF_K_ARCDIR; /* a nested container: a folder again */
		return;
	}
	if (raw != nd->broken[k])
		return;
	cut = strlen(leaf) - n; /* the ".yaml" of a view */
	snprintf(r->bin, sizeof(r->bin), "%s/%.*s", pkg, (int)(strlen(inner) - cut), inner);
	if (raw) {
		r->kind = AF_K_ARCFILE; /* a read-only file of the folder */
		return;
	}
	r->kind = AF_K_VIEW;
	r->info.codec = af_codec_by_name(h->m[k].codec);
	r->info.read_only = r->info.container_ro = af_archive_read_only(h);
	struct af_rinfo known;
	struct stat st = af_loaded_stat(&l->id);
	if (af_rcache_get_member(fs->cache, &st, af_member_key(r->bin), &known, NULL) &&
	    !known.failed && known.have_size) {
		r->info.have_size = 1;
		r->info.size = known.size;
	}
}

/* A member view already rendered for this identity of its container (its entry in the
 * render cache), resolved from that entry alone: no load. 1 when r is filled. */
static int resolve_known(struct af_fs *fs, const struct stat *st, const char *pkg,
			 const char *inner, struct af_res *r)
{
	struct af_rinfo known;
	const char *leaf = af_base(inner);
	size_t n = af_view_strip(leaf), cut = strlen(leaf) - n;
	if (!n || af_ov_on(fs) || !strcmp(leaf, AF_INDEX_NAME))
		return 0;
	snprintf(r->bin, sizeof(r->bin), "%s/%.*s", pkg, (int)(strlen(inner) - cut), inner);
	if (!af_rcache_get_member(fs->cache, st, af_member_key(r->bin), &known, NULL) || known.failed ||
	    !known.codec || !known.have_size) {
		r->bin[0] = 0;
		return 0;
	}
	r->kind = AF_K_VIEW;
	r->info = known;
	r->info.name_hash = 0;
	return 1;
}

int af_folder_resolve(struct af_fs *fs, struct af_res *r, const char *pkg, const char *inner,
		      const struct stat *held)
{
	const char *leaf;
	struct stat st = *held;
	struct af_diag d;
	if (strlen(pkg) >= AF_FOLDER_PKG_SIZE || !af_folder_of(fs, pkg, &st))
		return 0;
	r->st = st;
	r->kind = AF_K_NONE;
	if (!strcmp(inner, AF_INDEX_NAME)) {
		r->kind = AF_K_ARCFILE;
		snprintf(r->bin, sizeof(r->bin), "%s", pkg);
		return 1;
	}
	if (resolve_known(fs, &st, pkg, inner, r))
		return 1;
	af_diag_init(&d);
	struct loaded *l = af_loaded_get(fs, pkg, &d);
	struct af_archive *h = l ? af_archive_walk(&l->v, inner, &leaf) : NULL;
	if (h && !strcmp(leaf, AF_INDEX_NAME)) { /* a nested folder's index */
		r->kind = AF_K_ARCFILE;
		snprintf(r->bin, sizeof(r->bin), "%s", r->rel);
	} else if (h) {
		resolve_leaf(fs, l, h, pkg, inner, leaf, r);
	}
	af_loaded_done(fs, l);
	if (d.code)
		af_folder_log_diag(pkg, &d, "cannot be listed");
	af_diag_free(&d);
	return 1;
}

/* The names of a listing (NUL after each) to cb, index.yaml first. */
static void list_names(const uint8_t *names, size_t len, void (*cb)(void *ctx, const char *name),
		       void *ctx)
{
	cb(ctx, AF_INDEX_NAME);
	for (size_t at = 0; at < len; at += strlen((const char *)names + at) + 1)
		cb(ctx, (const char *)names + at);
}

int af_folder_list(struct af_fs *fs, const char *dir, void (*cb)(void *ctx, const char *name),
		  void *ctx)
{
	struct af_diag d;
	struct af_buf names = AF_BUF_INIT;
	struct af_text *known = NULL;
	struct af_rinfo info;
	char pkg[4096], bin[8192];
	const char *inner = NULL;
	struct stat st;
	int ov = af_ov_on(fs);
	uint64_t key = af_listing_key(dir);
	if (!af_folder_split(fs, dir, pkg, sizeof(pkg), &inner, &st)) {
		snprintf(pkg, sizeof(pkg), "%s", dir); /* the container's file itself */
		if (af_ov_stat(fs, pkg, &st))
			ov = 1; /* (no listing of its own to look for) */
	}
	/* listed before, this identity: the same names, nothing read */
	if (!ov && af_rcache_get_member(fs->cache, &st, key, &info, &known) && known) {
		list_names(known->data, known->len, cb, ctx);
		af_text_unref(known);
		return 0;
	}
	af_diag_init(&d);
	struct loaded *l = af_loaded_get(fs, pkg, &d); /* its lock held: only its own users wait */
	struct af_archive *h = l ? folder_at(l, inner) : NULL;
	struct node *nd = h ? af_loaded_node(l, h) : NULL;
	int listed = nd != NULL;
	/* Each member is rendered before it is named (ls -l would stat each anyway, and
	 * the texts are kept): one that does not decode is listed raw, never as a view
	 * whose stat fails. A nested container is a folder. */
	for (size_t n = 0; nd && n < h->n; n++) {
		char shown[AF_MEMBER_NAME_MAX * 3];
		if (n % 64 == 63 && __atomic_load_n(&l->waiting, __ATOMIC_ACQUIRE)) {
			/* h stays (l->v and its nested archives live as long as l); the nodes
			 * may have moved, and broken[] may have gained marks: read again */
			af_loaded_let_in(l);
			if (!(nd = af_loaded_node(l, h)))
				listed = 0; /* ENOMEM: what is listed so far, not kept */
			if (!nd)
				break;
		}
		int folder = af_archive_sub(h, n) != NULL;
		af_member_shown(h->m[n].name, 1, shown, sizeof(shown));
		snprintf(bin, sizeof(bin), "%s/%s", dir, shown);
		struct af_text *t = folder ? NULL : af_member_text(fs, l, nd, n, bin);
		int view = !folder && (t || !nd->broken[n]);
		af_text_unref(t);
		af_member_shown(h->m[n].name, view, shown, sizeof(shown));
		af_buf_append(&names, shown, strlen(shown));
		if (view)
			af_buf_append(&names, AF_VIEW_SUFFIX, strlen(AF_VIEW_SUFFIX));
		af_buf_append(&names, "", 1);
	}
	struct stat id = l ? af_loaded_stat(&l->id) : st;
	af_loaded_done(fs, l);
	if (names.failed)
		af_buf_reset(&names);
	list_names(names.data, names.len, cb, ctx);
	/* kept for the next listing of this identity (ov: the folder is a merge) */
	if (listed && !d.code && !af_ov_on(fs) && !names.failed && (known = af_text_take(&names))) {
		af_rcache_put_member_text(fs->cache, &id, key, NULL, 1, NULL, known);
		af_text_unref(known);
	}
	if (d.code)
		af_folder_log_diag(dir, &d, "cannot be listed");
	af_diag_free(&d);
	af_buf_free(&names);
	return 0;
}

int af_folder_refuse(struct af_fs *fs, const char *rel, const char *what, uid_t uid)
{
	char file[4096];
	struct stat st;
	const struct af_container *c = NULL;
	struct af_diag d;
	if (af_folder_file(fs, rel, file, sizeof(file)) && af_ov_stat(fs, file, &st) == 0)
		c = af_folder_of(fs, file, &st);
	int ro = c && !c->replace;
	af_diag_init(&d);
	af_diag_error(&d, ro ? AF_EROFS : AF_EINVAL, "%s: a %s shown as a folder holds only its %ss; "
		      "no %s is made in it%s", af_base(rel), c ? c->noun : "container",
		      c && c->member_noun ? c->member_noun : "member", what,
		      ro ? " (and it is never rewritten)" : "");
	af_fs_log(LOG_WARNING, "%s: not made: a %s in a container's folder", rel, what);
	af_errlog_add(fs->errors, uid, rel, &d);
	af_diag_free(&d);
	return ro ? -EROFS : -EPERM;
}
