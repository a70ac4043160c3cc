/* A member's render operations (bin.h, for the one render pipeline: its container
 * loaded or held, the container's codec call, the verdict and the cache under its
 * container's identity and its path), a listing's render of a member (af_member_text),
 * a container's read-only files (af_folder_render), a member's siblings
 * (af_folder_with_io) and its bytes (af_folder_body). This names no format. */
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
#include "bin.h"
#include "binary.h"
#include "errlog.h"
#include "folder.h"
#include "overlay.h"
#include "render.h"
#include "session.h"
#include "who.h"
#include "folder_int.h"

/* ---- a member's render (the render pipeline's operations, bin.h) ---- */

/* A member's text that read --rig-dir as its caller (by_caller) is theirs: kept under a
 * key of the member's and the caller's (the member's own key keeps only the daemon's). */
static uint64_t caller_key(const struct af_rjob *j)
{
	uint64_t k = j->sub ^ af_who_key(j->as);
	return k ? k : j->sub + 1;
}

/* What the cache knows of the member j->sub of the container st (info: the member's
 * entry) and its text for j->as (*out), while every rig it read is what it was. */
static int member_cached(struct af_rjob *j, const struct stat *st, struct af_rinfo *info,
			 struct af_text **out)
{
	struct af_rcache *c = j->fs->cache;
	struct af_deps *deps = NULL;
	struct af_rinfo mine;
	int known = af_rcache_get_made(c, st, j->sub, info, out, &deps);
	if (known && info->by_caller && j->as) {
		af_text_unref(*out);
		af_deps_unref(deps);
		af_rcache_get_made(c, st, caller_key(j), &mine, out, &deps);
	}
	if (*out && deps && !af_sibio_holds(j->fs, NULL, deps)) {
		af_text_unref(*out); /* a rig changed: rendered again */
		*out = NULL;
	}
	af_deps_unref(deps);
	return known;
}

/* The member view j->b->rel: its container (held when the thread holds it already: a
 * listing's; else loaded here, only the one the caller opened), its node and index, its
 * codec, and what the cache knows: 1 with *out, -errno, or 0 to render. */
static int member_known(struct af_rjob *j, struct af_text **out)
{
	struct af_fs *fs = j->fs;
	const struct af_bin *b = j->b;
	struct af_rinfo info;
	*out = NULL;
	j->sub = af_member_key(b->rel);
	if (b->l) {
		j->l = b->l, j->n = b->n, j->k = b->k;
	} else {
		char raw[AF_MEMBER_NAME_MAX];
		const char *pkg = b->file, *inner = b->inner, *leaf;
		const struct stat *st = &b->named; /* resolved with b (bin.c) */
		struct af_diag d;
		struct af_fid want, have;
		int rc = -EIO;
		if (!inner)
			return -EIO;
		af_fid_of(&b->st, &want);
		af_fid_of(st, &have);
		if (b->proven && !af_fid_same(&want, &have)) /* the file the caller opened, or nothing */
			return -EAGAIN;
		/* a member's text made before for this identity (and user dictionary): no load */
		if (!af_ov_on(fs) && member_cached(j, st, &info, out) && *out)
			return 1;
		af_diag_init(&d);
		if (!(j->l = af_loaded_get(fs, pkg, &d)))
			goto fail;
		j->loaded_here = 1;
		if (b->proven && !af_fid_same(&want, &j->l->id)) { /* replaced since the caller's open */
			rc = -EAGAIN;
			goto fail;
		}
		struct af_archive *h = af_archive_walk(&j->l->v, inner, &leaf);
		long found = h ? af_archive_find_shown(h, leaf, raw) : -1;
		if (found < 0 || strcmp(h->m[found].name, raw))
			goto fail;
		if (!(j->n = af_loaded_node(j->l, h))) {
			rc = -ENOMEM;
			goto fail;
		}
		j->k = (size_t)found;
		af_diag_free(&d);
		goto loaded;
fail:
		if (d.code)
			af_folder_log_diag(b->rel, &d, "not shown");
		af_diag_free(&d);
		return rc;
	}
loaded:
	j->st = af_loaded_stat(&j->l->id);
	if (j->n->broken[j->k] || !j->n->a->m[j->k].codec)
		return -EIO;
	j->codec = af_codec_by_name(j->n->a->m[j->k].codec);
	if (member_cached(j, &j->st, &info, out) && (*out || info.failed)) {
		j->n->broken[j->k] = !*out;
		return *out ? 1 : -EIO;
	}
	return 0; /* a member's size: not known here (no guess) */
}

static int member_read(struct af_rjob *j, struct af_text **out)
{
	*out = NULL;
	af_rcache_names_stamp(&j->names); /* before the render reads the dictionary */
	return 0;
}

/* The container reads the member's body and runs its codec (container.h), with
 * --rig-dir (a clip's rig when none in its container fits: sims3-clip.md) read as the
 * caller and noted (j->deps; j->by_caller when it was read). */
static int member_to_yaml(struct af_rjob *j)
{
	struct af_sibio sib;
	struct af_deps_rec rec;
	if (j->fs->rigdirfd < 0)
		return af_member_yaml_room(j->n->a, j->k, NULL, af_render_mem_room, &j->rb, &j->yaml, &j->d);
	af_sibio_init_at(&sib, j->fs, -1, NULL);
	sib.as = j->as;
	af_deps_begin(&rec);
	sib.deps = &rec;
	struct af_opts o = {.rig_dir = sib.d.io.rig_dir};
	int rc = af_member_yaml_room(j->n->a, j->k, &o, af_render_mem_room, &j->rb, &j->yaml, &j->d);
	j->by_caller = sib.asked;
	af_deps_unref(j->deps);
	j->deps = af_deps_end(&rec);
	af_sibio_close(&sib);
	return rc;
}

static void member_put(struct af_rjob *j, struct af_text *t)
{
	const struct af_codec *c = j->codec;
	const struct af_fid *names = c && c->render_uses_names ? &j->names : NULL;
	struct af_rcache *rc = j->fs->cache;
	int ro = af_archive_read_only(j->n->a);
	if (!j->by_caller) {
		af_rcache_put_member_text(rc, &j->st, j->sub, c, ro, names, t);
		return;
	}
	af_rcache_put_member_made(rc, &j->st, j->as ? caller_key(j) : j->sub, c, ro, names, t, j->deps);
	af_rcache_mark_member_by_caller(rc, &j->st, j->sub, c, ro);
}

/* Shown raw and read-only from now on (the verdict is this mount's: not kept on disk,
 * another --cache-mb may show it). */
static void member_failed(struct af_rjob *j)
{
	j->n->broken[j->k] = 1;
	af_rcache_put_member_failed(j->fs->cache, &j->st, j->sub, j->codec);
}

static void member_end(struct af_rjob *j)
{
	if (j->loaded_here)
		af_loaded_done(j->fs, j->l);
	j->l = NULL;
	j->loaded_here = 0;
	af_deps_unref(j->deps);
	j->deps = NULL;
}

const struct af_bin_ops af_bin_member_ops = {
	.kind = "member",
	.shown_as = "the raw member, read-only",
	.read_only_views = 0,
	.oom_rc = -ENOMEM,
	.known = member_known,
	.read = member_read,
	.to_yaml = member_to_yaml,
	.put = member_put,
	.failed = member_failed,
	.end = member_end,
	.open = af_member_save_open,
	.encode = af_member_save_step,
	.reset = af_member_save_reset,
	.layout = af_member_save_layout,
	.prove = af_member_save_prove,
	.same = af_member_save_same,
	.replace = af_member_save_replace,
	.close = af_member_save_close,
};

/* The member view bin, the daemon's own (no descriptor). */
static void member_bin(struct af_bin *b, const char *bin)
{
	memset(b, 0, sizeof(*b));
	b->ops = &af_bin_member_ops;
	b->rel = bin;
	b->member = 1;
	b->fd = -1;
}

/* A listing's render of member k (its container l held): through the render pipeline,
 * with no flight (the container's lock is its flight). */
struct af_text *af_member_text(struct af_fs *fs, struct loaded *l, struct node *n, size_t k,
				 const char *bin)
{
	struct af_bin b;
	struct af_text *t = NULL;
	member_bin(&b, bin);
	b.st = af_loaded_stat(&l->id);
	b.l = l, b.n = n, b.k = k;
	if (fs->render_bin && fs->render_bin(fs, &b, &t))
		t = NULL;
	return t;
}

/* Member k's raw bytes: its body, or, when that does not unpack (the errors line says
 * why), its bytes as stored. */
static int raw_bytes(struct af_archive *h, size_t k, struct af_buf *out, struct af_diag *d)
{
	struct af_diag sd;
	int rc = af_archive_body(h, k, out, d);
	if (!rc || rc == AF_ENOMEM)
		return rc;
	af_diag_init(&sd);
	af_buf_reset(out);
	if (!af_archive_stored(h, k, out, &sd)) {
		af_diag_clear(d);
		rc = 0;
	}
	af_diag_free(&sd);
	return rc;
}

/* The read-only text of member k of h (its raw bytes) or of its folder's index. */
static int ro_text(struct loaded *l, struct af_archive *h, long k, struct af_text **out,
		   struct af_diag *d)
{
	struct af_buf body = AF_BUF_INIT;
	struct node *nd = af_loaded_node(l, h);
	int rc = -EIO;
	if (k < 0 ? !af_archive_index(h, af_archive_name(h, l->name), &body)
		  : nd && nd->broken[k] && !af_archive_sub(h, (size_t)k) &&
			    !raw_bytes(h, (size_t)k, &body, d)) {
		*out = af_text_new(body.data, body.len);
		rc = *out ? 0 : -ENOMEM;
	}
	af_buf_free(&body);
	return rc;
}

/* bin is "X/member" (nested: "X/A/member", "X/A/index.yaml") or, for the index, "X"
 * itself: the read-only file of that name, an index, or the raw body of a member (raw,
 * or that does not decode). */
static int ro_file(struct af_fs *fs, const char *bin, const struct stat *want, struct af_text **out)
{
	char pkg[4096];
	const char *inner = NULL, *leaf;
	struct af_buf body = AF_BUF_INIT;
	struct af_diag d;
	struct stat st;
	int rc = -EIO, index = 0;
	struct af_rinfo info;
	struct af_fid names;
	*out = NULL;
	if (!af_folder_split(fs, bin, pkg, sizeof(pkg), &inner, &st)) {
		snprintf(pkg, sizeof(pkg), "%s", bin);
		inner = NULL;
		index = !af_ov_stat(fs, pkg, &st);
	} else {
		index = !strcmp(af_base(inner), AF_INDEX_NAME);
	}
	if (want) { /* the file the caller opened, or nothing */
		struct af_fid a, b;
		af_fid_of(want, &a);
		af_fid_of(&st, &b);
		if (!af_fid_same(&a, &b))
			return -EAGAIN;
	}
	/* an index.yaml made before for this identity (and user dictionary): no load */
	index = index && !af_ov_on(fs);
	if (index && af_rcache_get_member(fs->cache, &st, af_index_key(bin), &info, out) && *out)
		return 0;
	af_rcache_names_stamp(&names);
	af_diag_init(&d);
	struct loaded *l = af_loaded_get(fs, pkg, &d);
	if (!l)
		goto out;
	if (want) { /* replaced between the caller's open and this load */
		struct af_fid a;
		af_fid_of(want, &a);
		if (!af_fid_same(&a, &l->id)) {
			rc = -EAGAIN;
			goto out;
		}
	}
	if (!inner) {
		if (!l->index && !af_archive_index(af_archive_shown(&l->v), l->name, &body) &&
		    (l->index = af_text_new(body.data, body.len))) {
			size_t lent = af_rcache_lend(fs->cache, body.len);
			pthread_mutex_lock(&fs->folders->lock);
			l->bytes += body.len;
			l->charged += lent;
			pthread_mutex_unlock(&fs->folders->lock);
		}
		*out = af_text_ref(l->index);
		rc = *out ? 0 : -ENOMEM;
		goto out;
	}
	struct af_archive *h = af_archive_walk(&l->v, inner, &leaf);
	char raw[AF_MEMBER_NAME_MAX];
	long found = h ? af_archive_find_shown(h, leaf, raw) : -1;
	if (h && !strcmp(leaf, AF_INDEX_NAME)) {
		rc = ro_text(l, h, -1, out, &d);
		goto out;
	}
	if (found < 0 || strcmp(h->m[found].name, raw))
		goto out;
	rc = ro_text(l, h, found, out, &d);
out:
	if (l && index && !rc) {
		struct stat id = af_loaded_stat(&l->id);
		af_rcache_put_member_text(fs->cache, &id, af_index_key(bin), NULL, 1, &names, *out);
	}
	af_loaded_done(fs, l);
	if (d.code)
		af_folder_log_diag(inner ? bin : pkg, &d, "not shown");
	af_buf_free(&body);
	af_diag_free(&d);
	return rc;
}

int af_folder_render(struct af_fs *fs, const char *bin, int ro, const struct stat *want,
		     struct af_text **out)
{
	struct af_bin b;
	*out = NULL;
	if (ro)
		return ro_file(fs, bin, want, out);
	member_bin(&b, bin);
	if (!af_folder_split(fs, bin, b.file, sizeof(b.file), &b.inner, &b.named))
		return -EIO;
	if ((b.proven = want != NULL))
		b.st = *want;
	return fs->render_bin ? fs->render_bin(fs, &b, out) : -EIO;
}

int af_folder_by_caller(struct af_fs *fs, const char *bin, const struct stat *st)
{
	struct af_rinfo info;
	return af_rcache_get_member(fs->cache, st, af_member_key(bin), &info, NULL) && info.by_caller;
}

/* fn(ctx, h, k) with member k of h the member view bin ("X/<member>"), its container
 * loaded (only the one the caller opened: want) and held during the call. */
static int with_member(struct af_fs *fs, const char *bin, const struct stat *want,
		       int (*fn)(void *ctx, const struct af_archive *h, size_t k), void *ctx)
{
	char pkg[4096], raw[AF_MEMBER_NAME_MAX];
	const char *inner = NULL, *leaf;
	struct af_diag d;
	struct stat st;
	int rc = -EIO;
	if (!af_folder_split(fs, bin, pkg, sizeof(pkg), &inner, &st) || !inner)
		return -EIO;
	af_diag_init(&d);
	struct loaded *l = af_loaded_get(fs, pkg, &d);
	if (l && want) { /* only the container the caller opened */
		struct af_fid a;
		af_fid_of(want, &a);
		if (!af_fid_same(&a, &l->id)) {
			rc = -EAGAIN;
			goto out;
		}
	}
	struct af_archive *h = l ? af_archive_walk(&l->v, inner, &leaf) : NULL;
	long found = h ? af_archive_find_shown(h, leaf, raw) : -1;
	if (found >= 0 && !strcmp(h->m[found].name, raw))
		rc = fn(ctx, h, (size_t)found);
out:
	af_loaded_done(fs, l);
	af_diag_free(&d);
	return rc;
}

struct with_io {
	int (*fn)(void *ctx, const struct af_io *io);
	void *ctx;
};

static int io_of(void *ctx, const struct af_archive *h, size_t k)
{
	struct with_io *w = ctx;
	struct af_io io;
	h->c->member_io(h->st, k, &io);
	return w->fn(w->ctx, &io);
}

int af_folder_with_io(struct af_fs *fs, const char *bin, const struct stat *want,
		      int (*fn)(void *ctx, const struct af_io *io), void *ctx)
{
	struct with_io w = {fn, ctx};
	return with_member(fs, bin, want, io_of, &w);
}

struct with_body {
	struct af_buf *out;
	struct af_diag *d;
};

static int body_of(void *ctx, const struct af_archive *h, size_t k)
{
	struct with_body *w = ctx;
	int rc = af_archive_body(h, k, w->out, w->d);
	return rc == AF_ENOMEM ? -ENOMEM : rc ? -EIO : 0;
}

int af_folder_body(struct af_fs *fs, const char *bin, const struct stat *want, struct af_buf *out,
		   struct af_diag *d)
{
	struct with_body w = {out, d};
	return with_member(fs, bin, want, body_of, &w);
}
