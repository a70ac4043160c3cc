/* A member's text (folder.c's containers): rendered within the memory bound and kept by
 * the render cache under its container's identity and its path (af_member_text), and
 * a member's bytes for a render that proved its container by descriptor
 * (af_folder_render, af_folder_with_io). This names no format. */
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
#include "session.h"
#include "who.h"
#include "folder_int.h"

/* The text of member k of node n (a new reference: from the render cache, or rendered
 * and put there); NULL when it does not decode, which marks it broken, said once in
 * the log and in .animfs/errors. bin is its "X/.../member" path. Call with l->lock held. */
/* A member's render (item_text) within the memory bound. */
struct member_render {
	struct af_rcache *cache;
	const struct af_archive *a;
	size_t k;
	const struct af_codec *codec;
	const char *bin;
	struct af_render_bound rb;
	struct af_buf yaml;
	struct af_diag d;
	struct af_fid names;
	int rc;
};

static int member_render_attempt(void *ctx, int alone)
{
	struct member_render *j = ctx;
	if (alone) { /* what the first attempt made goes */
		af_render_bound_end(&j->rb);
		af_buf_free(&j->yaml);
		af_diag_clear(&j->d);
	}
	af_render_bound_init(&j->rb, j->cache, alone, 0); /* a member's size: not known here */
	j->yaml.bound = &j->rb.b;
	af_rcache_note_render(j->cache);
	af_rcache_names_stamp(&j->names); /* before the render reads the dictionary */
	int rc = af_text_begin(&j->yaml);
	if (!rc)
		rc = af_view_modeline(j->codec, j->bin, &j->yaml);
	if (!rc)
		rc = af_member_yaml_room(j->a, j->k, NULL, af_render_mem_room, &j->rb, &j->yaml, &j->d);
	j->rc = rc;
	return !alone && (j->yaml.over || j->rb.refused) && j->rb.pool_short ? AF_AGAIN_ALONE : 0;
}

struct af_text *af_member_text(struct af_fs *fs, struct loaded *l, struct node *n, size_t k,
				 const char *bin)
{
	struct af_rinfo info;
	struct af_text *t = NULL;
	struct stat st = af_loaded_stat(&l->id);
	uint64_t sub = af_member_key(bin);
	if (n->broken[k] || !n->a->m[k].codec)
		return NULL;
	const struct af_codec *codec = af_codec_by_name(n->a->m[k].codec);
	int was = af_act_pause();
	if (af_rcache_get_member(fs->cache, &st, sub, &info, &t) && (t || info.failed)) {
		af_act_resume(was);
		n->broken[k] = !t;
		return t;
	}
	struct member_render j = {.cache = fs->cache, .a = n->a, .k = k, .codec = codec, .bin = bin,
				  .yaml = AF_BUF_INIT};
	af_diag_init(&j.d);
	/* refused while other renders shared their memory: done again alone (render.h) */
	af_budget_run(member_render_attempt, &j);
	af_act_resume(was);
	if (j.yaml.over || j.rb.refused) { /* the verdict is this mount's (not kept on disk: another --cache-mb) */
		af_render_too_big(fs, &j.d, &j.rb, bin);
		n->broken[k] = 1;
		af_rcache_put_member_failed(fs->cache, &st, sub, codec);
	} else if (j.rc || j.yaml.failed) {
		char msg[1200];
		if (!j.d.code)
			af_diag_error(&j.d, AF_ENOMEM, "out of memory");
		if (j.d.code != AF_ENOMEM) {
			n->broken[k] = 1;
			af_rcache_put_member_failed(fs->cache, &st, sub, codec);
			af_diag_format(&j.d, bin, msg, sizeof(msg));
			af_fs_log(LOG_WARNING, "%s (shown as the raw member, read-only)", msg);
			af_errlog_add(fs->errors, AF_ERRLOG_ALL, bin, &j.d); /* the container's, no one's text */
		}
	} else if ((t = af_text_end(&j.yaml))) {
		af_rcache_put_member_text(fs->cache, &st, sub, codec, af_archive_read_only(n->a),
					  codec && codec->render_uses_names ? &j.names : NULL, t);
	}
	af_render_bound_end(&j.rb); /* the text is the cache's now, counted as its own */
	af_buf_free(&j.yaml);
	af_diag_free(&j.d);
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
 * itself. With ro, the read-only file of that name: an index, or the raw body of a
 * member (raw, or that does not decode). */
int af_folder_render(struct af_fs *fs, const char *bin, int ro, const struct stat *want,
		     struct af_text **out)
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
		if (!ro)
			return -EIO;
		snprintf(pkg, sizeof(pkg), "%s", bin);
		inner = NULL;
		index = !af_ov_stat(fs, pkg, &st);
	} else {
		index = ro && !strcmp(af_base(inner), AF_INDEX_NAME);
	}
	if (want) { /* the file the caller opened, or nothing */
		struct af_fid a, b;
		af_fid_of(want, &a);
		af_fid_of(&st, &b);
		if (!af_fid_same(&a, &b))
			return -EAGAIN;
	}
	/* an index.yaml or a member's text made before for this identity (and user
	 * dictionary): no load */
	index = index && !af_ov_on(fs);
	if (index && af_rcache_get_member(fs->cache, &st, af_index_key(bin), &info, out) && *out)
		return 0;
	if (!ro && inner && !af_ov_on(fs) &&
	    af_rcache_get_member(fs->cache, &st, af_member_key(bin), &info, out) && *out)
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
	if (h && ro && !strcmp(leaf, AF_INDEX_NAME)) {
		rc = ro_text(l, h, -1, out, &d);
		goto out;
	}
	if (found < 0 || strcmp(h->m[found].name, raw))
		goto out;
	if (ro) {
		rc = ro_text(l, h, found, out, &d);
		goto out;
	}
	struct node *nd = af_loaded_node(l, h);
	*out = nd ? af_member_text(fs, l, nd, (size_t)found, bin) : NULL;
	rc = *out ? 0 : nd && nd->broken[found] ? -EIO : -ENOMEM;
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

int af_folder_with_io(struct af_fs *fs, const char *bin, const struct stat *want,
		      int (*fn)(void *ctx, const struct af_io *io), void *ctx)
{
	char pkg[4096], raw[AF_MEMBER_NAME_MAX];
	const char *inner = NULL, *leaf;
	struct af_diag d;
	struct stat st;
	struct af_io io;
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
	if (found >= 0 && !strcmp(h->m[found].name, raw)) {
		h->c->member_io(h->st, (size_t)found, &io);
		rc = fn(ctx, &io);
	}
out:
	af_loaded_done(fs, l);
	af_diag_free(&d);
	return rc;
}
