/* The outputs derived from a view (a plot's SVG, a preview's GLB) within the one memory
 * bound: each is made as a parse is (render.h's pool and the texts' loan), counting the
 * view's text, its tree, the model read from the tree and the file made; past the bound
 * it is refused with a line in .animfs/errors. One output of one binary is made at a
 * time and kept in the render cache, so that callers asking for it together share one. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <syslog.h>

#include "derive.h"
#include "errlog.h"
#include "flight.h"
#include "session.h"

/* ------------------------------------------------------------ the account */

/* What one attempt takes: the parse's own part of the pool (own), the tree within it and
 * past it (tree_over, while the tree lives), the model and the file; what passes own is
 * the texts' loan. */
struct acct {
	struct af_parse_share ps;
	size_t own, tree_over, model, file, fixed;
	int tree_live;
	int refused;
	size_t asked; /* the most asked for in all */
};

static size_t sum3(size_t a, size_t b, size_t c)
{
	return a > SIZE_MAX - b || a + b > SIZE_MAX - c ? SIZE_MAX : a + b + c;
}

/* Whether the parts as they stand now fit own and what the loan gives: 1, or 0 (refused). */
static int fits(struct acct *a)
{
	size_t tree = a->tree_live ? sum3(a->own, a->tree_over, 0) : 0;
	size_t need = sum3(sum3(tree, a->model, a->file), a->fixed, 0);
	a->asked = need > a->asked ? need : a->asked;
	if (need <= a->own)
		return 1;
	if (af_loan_more(&a->ps.loan, need - a->own) >= need - a->own)
		return 1;
	a->refused = 1;
	return 0;
}

/* A part's bytes in all (want) if they fit with the others': want, else what it had. */
static size_t grant(struct acct *a, size_t *part, size_t want)
{
	size_t was = *part;
	*part = want;
	if (fits(a))
		return want;
	*part = was;
	return was;
}

/* af_ylimits.more: the tree's bytes past own, in all. */
static size_t tree_more(void *ctx, size_t want)
{
	struct acct *a = ctx;
	return grant(a, &a->tree_over, want);
}

/* af_ybudget.room: the model's bytes in all. */
static int model_room(void *ctx, size_t bytes)
{
	struct acct *a = ctx;
	return grant(a, &a->model, bytes) == bytes;
}

static void tree_freed(void *ctx)
{
	struct acct *a = ctx;
	a->tree_live = 0;
	a->tree_over = 0;
}

/* af_buf_bound.more: the file's bytes in all (its bound's max is 0). */
static size_t file_more(void *ctx, size_t want)
{
	struct acct *a = ctx;
	return grant(a, &a->file, want);
}

/* ------------------------------------------------------------ one attempt */

struct job {
	struct af_fs *fs;
	size_t n, fixed;    /* the YAML's length; bytes held beside (counted throughout) */
	af_derive_fn *make;
	void *ctx;
	struct af_buf *out; /* the file made (AF_BUF_INIT); as a text when text */
	int text;
	struct af_diag *d;
	struct af_text *t;
	int over;     /* refused past the bound (the verdict) */
	size_t asked; /* what it asked for then */
};

static int attempt(void *ctx, int alone)
{
	struct job *j = ctx;
	struct acct a = {0};
	struct af_ylimits lim = {0};
	struct af_buf_bound ob = {0, file_more, &a, 0, 0};
	a.own = af_parse_begin(&a.ps, j->fs->cache, j->n, alone);
	a.tree_live = 1;
	a.fixed = j->fixed;
	lim.max_bytes = a.own;
	lim.more = tree_more;
	lim.more_ctx = &a;
	struct af_ybudget mem = {&lim, model_room, tree_freed, &a};
	af_buf_free(j->out);
	j->out->bound = &ob;
	af_diag_clear(j->d);
	int rc = j->text ? af_text_begin(j->out) : 0;
	if (!rc)
		rc = j->make(j->ctx, &mem, j->out, j->d);
	if (!rc && j->text && !(j->t = af_text_end(j->out)))
		rc = AF_ENOMEM;
	if (rc || j->text)
		af_buf_free(j->out);
	j->out->bound = NULL;
	/* the tree and the model are freed: the file is the cache's or the caller's now */
	if ((rc = af_parse_end(&a.ps, rc)) == AF_AGAIN_ALONE)
		return rc;
	if (rc && a.refused) { /* the tree's, the model's or the file's room (file_more) */
		j->over = 1;
		j->asked = a.asked;
	}
	return rc ? -1 : 0;
}

int af_derive_within(struct af_fs *fs, size_t n, size_t fixed, af_derive_fn *make, void *ctx, struct af_buf *out,
		     size_t *asked, struct af_diag *d)
{
	struct job j = {fs, n, fixed, make, ctx, out, 0, d, NULL, 0, 0};
	int rc = af_budget_run(attempt, &j);
	*asked = j.asked;
	return !rc ? 0 : j.over ? -EFBIG : d->code == AF_ENOMEM ? -ENOMEM : -EIO;
}

/* ------------------------------------------------------------ the output */

/* One output of one binary made at a time: whoever asks for it meanwhile waits, then
 * finds it kept (or its verdict). */

/* The kept output or verdict: 1 with *out, -EFBIG (refused before), or 0: to make. */
static int kept(struct af_fs *fs, const struct af_derive *q, struct af_text **out)
{
	struct af_rinfo info;
	if (!af_rcache_get_member(fs->cache, q->st, q->key, &info, out))
		return 0;
	if (*out)
		return 1;
	return info.failed ? -EFBIG : 0;
}

static void refuse(struct af_fs *fs, const struct af_derive *q, size_t asked, struct af_diag *d)
{
	af_diag_clear(d);
	af_diag_error(d, AF_ENOMEM,
		      "its %s would take more than %zu MiB (the view's YAML read as a tree, the model "
		      "read from it and the file made), more than one may take under --cache-mb=%zu "
		      "(the renders' pool and what the texts held for other views could lend): raise "
		      "--cache-mb",
		      q->what, (asked + ((size_t)1 << 20) - 1) >> 20, fs->cache_bytes >> 20);
	af_errlog_add(fs->errors, AF_ERRLOG_ALL, q->bin_rel, d); /* the file's, no one's text */
	af_fs_log(LOG_WARNING, "%s: %s (not made)", q->bin_rel, d->msg);
}

int af_derive(struct af_fs *fs, const struct af_derive *q, struct af_text **out, struct af_diag *d)
{
	struct af_flight me = {q->st->st_dev, q->st->st_ino, q->key, NULL};
	struct af_buf file = AF_BUF_INIT;
	struct job j = {fs, q->yaml->len, 0, q->make, q->ctx, &file, 1, d, NULL, 0, 0};
	int rc;
	*out = NULL;
	if ((rc = kept(fs, q, out)))
		return rc < 0 ? rc : 0;
	af_flight_take(&fs->outputs, &me);
	if ((rc = kept(fs, q, out))) { /* made (or refused) while it waited */
		af_flight_land(&fs->outputs, &me);
		return rc < 0 ? rc : 0;
	}
	rc = af_budget_run(attempt, &j);
	if (!rc) {
		*out = j.t;
		if (!q->asked || !*q->asked)
			af_rcache_put_member_text(fs->cache, q->st, q->key, NULL, 0, NULL, j.t);
	} else if (j.over) { /* decided alone or with the pool it asked for: the verdict */
		refuse(fs, q, j.asked, d);
		if (!q->asked || !*q->asked) /* kept as an output would be */
			af_rcache_put_member_failed(fs->cache, q->st, q->key, NULL);
		rc = -EFBIG;
	} else {
		rc = d->code == AF_ENOMEM ? -ENOMEM : -EIO;
	}
	af_flight_land(&fs->outputs, &me);
	return rc;
}

/* ------------------------------------------------------------ a container's tables */

int af_table_room(void *ctx, size_t want)
{
	struct af_table_room *r = ctx;
	size_t all = sum3(r->base, want, 0), over = all > AF_TABLE_OWN ? all - AF_TABLE_OWN : 0;
	if (over > r->lent)
		r->lent += af_rcache_lend(r->c, over - r->lent);
	if (r->lent >= over)
		return 1;
	r->refused = 1;
	r->want = all;
	return 0;
}

int af_nest_room(void *ctx, const char *member, size_t want)
{
	struct af_nest_room *r = ctx;
	struct af_diag d;
	if (af_table_room(&r->t, want))
		return 1;
	af_diag_init(&d);
	af_diag_error(&d, AF_ENOMEM, "its member %s, itself an archive, would take more than %zu MiB with the "
		      "container's own tables (its bytes read whole and its tables): shown as its raw member",
		      member, (r->t.want + ((size_t)1 << 20) - 1) >> 20);
	af_table_refused(r->fs, r->rel, &d);
	af_diag_free(&d);
	r->t.refused = 0;
	return 0;
}

void af_table_refused(struct af_fs *fs, const char *rel, struct af_diag *d)
{
	char msg[1200];
	snprintf(msg, sizeof(msg), "%s (under --cache-mb=%zu a container's tables borrow the texts' "
		 "share: raise --cache-mb)", d->msg, fs->cache_bytes >> 20);
	af_diag_clear(d);
	af_diag_error(d, AF_ENOMEM, "%s", msg);
	af_errlog_add(fs->errors, AF_ERRLOG_ALL, rel, d); /* the file's, no one's text */
	af_fs_log(LOG_WARNING, "%s: %s (not shown as a folder)", rel, d->msg);
}
