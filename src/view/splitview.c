/* A big view as a folder of small documents: the cut of a rendered text into the
 * index and parts `animfs decode --split` writes (animfs/split.h, for any codec that
 * names lists to cut), kept per rendered text (a few texts, each cut once: listing
 * and reading every part of a motion bank's 1,342 costs one cut and a lookup each),
 * and the save of one part: the others as they are now, put together by the join as
 * `animfs encode DIR` does, and saved as the whole binary through commit. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "animfs/fnv.h"
#include "animfs/fs.h"
#include "animfs/path.h"
#include "animfs/split.h"
#include "animfs/yamlio.h"
#include "binary.h"
#include "commit.h"
#include "errlog.h"
#include "overlay.h"
#include "session.h"
#include "splitview.h"

/* One cut: the text it is of (held), the depth of the view's folder (the modelines'
 * relative path), and the files, with their names in sorted order for lookups. */
struct cut {
	unsigned refs;          /* the table's and each user's (under the table's lock) */
	struct af_text *whole;
	unsigned depth;
	uint64_t bin;           /* the hash of the binary's path: a later text of it
				   replaces this one (a save made it stale) */
	unsigned long used;
	size_t bytes;           /* the text and the files it holds */
	struct af_split s;      /* the names (the texts moved to text[]) */
	struct af_text *index;
	struct af_text **text;  /* s.n parts */
	size_t *order;          /* part numbers sorted by name */
};

#define KEPT 4 /* cuts kept: the views being edited at once */
/* The bytes the kept cuts may hold, the one being made counted in (about twice its text:
 * the text and its parts; a 14.5 MB motion bank's cut holds 29 MB): a part of the 64 MiB
 * the memory bound leaves beyond --cache-mb. The newest cut is kept whatever its size. */
#define KEPT_BYTES ((size_t)32 << 20)

struct af_splits {
	pthread_mutex_t lock;  /* L9 (docs/HACKING.md): the table and the refs; short */
	pthread_mutex_t build; /* L4: one cut at a time (a big one is made once): held
				  across the cut's parse (L6-L9), on purpose (the peak) */
	af_split_render_fn render;
	size_t over;
	struct af_rcache *cache; /* lends the cuts' parses their trees' memory */
	unsigned long clock;
	struct cut *kept[KEPT];
};

struct af_splits *af_splits_new(af_split_render_fn render, size_t over, struct af_rcache *cache)
{
	struct af_splits *s = af_alloc_zeroed(1, sizeof(*s));
	if (!s)
		return NULL;
	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_init(&s->build, NULL);
	s->render = render;
	s->over = over;
	s->cache = cache;
	return s;
}

static void cut_free(struct cut *c)
{
	if (!c)
		return;
	for (size_t i = 0; c->text && i < c->s.n; i++)
		af_text_unref(c->text[i]);
	free(c->text);
	free(c->order);
	af_text_unref(c->index);
	af_text_unref(c->whole);
	af_split_free(&c->s);
	free(c);
}

/* Drop a reference (the table's lock held). */
static void cut_put_locked(struct cut *c)
{
	if (c && !--c->refs)
		cut_free(c);
}

static void cut_put(struct af_splits *s, struct cut *c)
{
	pthread_mutex_lock(&s->lock);
	cut_put_locked(c);
	pthread_mutex_unlock(&s->lock);
}

void af_splits_free(struct af_splits *s)
{
	if (!s)
		return;
	for (int i = 0; i < KEPT; i++)
		cut_put_locked(s->kept[i]);
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->build);
	free(s);
}

int af_split_shown(struct af_fs *fs, const struct af_codec *c, size_t size)
{
	const struct af_splits *s = fs->splits;
	if (!s || !af_split_able(c))
		return 0;
	return s->over == 0 || (size != (size_t)-1 && size > s->over);
}

static unsigned depth_of(const char *bin_rel)
{
	unsigned d = 0;
	for (const char *p = bin_rel; *p; p++)
		d += *p == '/';
	return d;
}

struct named {
	const char *name;
	size_t no;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct named *)a)->name, ((const struct named *)b)->name);
}

/* A view's text cut into parts, within the memory bound. */
struct cut_job {
	struct af_rcache *cache;
	const struct af_codec *c;
	const struct af_text *whole;
	const char *dir;
	struct af_split *s;
	struct af_diag *d;
};

static int cut_attempt(void *ctx, int alone)
{
	struct cut_job *j = ctx;
	struct af_parse_share ps;
	struct af_ylimits lim = {0};
	lim.max_bytes = af_parse_begin(&ps, j->cache, j->whole->len, alone);
	lim.more = af_loan_more;
	lim.more_ctx = &ps.loan;
	int rc = af_split_view(j->c, j->whole->data, j->whole->len, j->dir, &lim, j->s, j->d);
	if ((rc = af_parse_end(&ps, rc)) == AF_AGAIN_ALONE) {
		af_split_free(j->s);
		af_diag_clear(j->d);
	}
	return rc;
}

/* Cut whole (the view of bin_rel, codec c) into a new cut: 0 or -errno. */
static int make_cut(const struct af_codec *c, struct af_text *whole, const char *bin_rel,
		    struct af_rcache *cache, struct cut **out)
{
	struct cut *x = af_alloc_zeroed(1, sizeof(*x));
	struct named *sorted = NULL;
	struct af_buf dir = AF_BUF_INIT;
	struct af_diag d;
	int rc = -ENOMEM;
	*out = NULL;
	af_diag_init(&d);
	if (!x)
		goto out;
	x->refs = 1;
	x->whole = af_text_ref(whole);
	x->depth = depth_of(bin_rel);
	x->bin = af_fnv1_64(bin_rel, strlen(bin_rel));
	/* the parts sit one folder below the view: their schemas one "../" further */
	for (unsigned i = 0; i <= x->depth; i++)
		af_buf_puts(&dir, "../");
	af_buf_printf(&dir, "%s/%s", AF_CTL_DIR, AF_CTL_SCHEMA);
	af_buf_putc(&dir, 0);
	if (dir.failed)
		goto out;
	/* the memory bound: the tree's own share from the renders' pool, and the texts'
	 * lent when it needs more (af_budget_run: again, alone, when refused short) */
	struct cut_job job = {cache, c, whole, (const char *)dir.data, &x->s, &d};
	int cut = af_budget_run(cut_attempt, &job);
	if (cut) {
		rc = d.code == AF_ENOMEM ? -ENOMEM : -EIO;
		if (rc == -EIO)
			af_fs_log(LOG_WARNING, "%s: its view does not cut into parts: %s", bin_rel,
				  d.msg);
		goto out;
	}
	if (!(x->index = af_text_take(&x->s.index)) ||
	    !(x->text = af_alloc_zeroed(x->s.n ? x->s.n : 1, sizeof(*x->text))) ||
	    !(x->order = af_alloc_zeroed(x->s.n ? x->s.n : 1, sizeof(*x->order))) ||
	    !(sorted = af_alloc_zeroed(x->s.n ? x->s.n : 1, sizeof(*sorted))))
		goto out;
	for (size_t i = 0; i < x->s.n; i++) {
		if (!(x->text[i] = af_text_take(&x->s.parts[i].text)))
			goto out;
		x->bytes += x->text[i]->len;
		sorted[i].name = x->s.parts[i].name;
		sorted[i].no = i;
	}
	x->bytes += whole->len + x->index->len;
	qsort(sorted, x->s.n, sizeof(*sorted), by_name);
	for (size_t i = 0; i < x->s.n; i++)
		x->order[i] = sorted[i].no;
	af_fs_log(LOG_INFO, "%s: its view (%zu bytes) cut into %zu parts", bin_rel, whole->len,
		  x->s.n);
	*out = x;
	x = NULL;
	rc = 0;
out:
	cut_free(x);
	free(sorted);
	af_buf_free(&dir);
	af_diag_free(&d);
	return rc;
}

/* The kept cut of whole at bin_rel's depth, a reference (the table's lock held). */
static struct cut *find_locked(struct af_splits *s, struct af_text *whole, unsigned depth)
{
	for (int i = 0; i < KEPT; i++)
		if (s->kept[i] && s->kept[i]->whole == whole && s->kept[i]->depth == depth) {
			s->kept[i]->used = ++s->clock;
			s->kept[i]->refs++;
			return s->kept[i];
		}
	return NULL;
}

/* The least recently used cuts other than keep, dropped until they and room bytes more
 * fit in KEPT_BYTES (the table's lock held; a cut in use lives on until its user puts it). */
static void drop_over_budget_locked(struct af_splits *s, const struct cut *keep, size_t room)
{
	for (;;) {
		size_t held = 0;
		int lru = -1;
		for (int i = 0; i < KEPT; i++) {
			if (!s->kept[i] || s->kept[i] == keep)
				continue;
			held += s->kept[i]->bytes;
			if (lru < 0 || s->kept[i]->used < s->kept[lru]->used)
				lru = i;
		}
		if (lru < 0 || held + room <= KEPT_BYTES)
			return;
		cut_put_locked(s->kept[lru]);
		s->kept[lru] = NULL;
	}
}

/* The cut of whole (codec c, at bin_rel): a reference, made once. 0 or -errno. */
static int cut_of(struct af_splits *s, const struct af_codec *c, struct af_text *whole,
		  const char *bin_rel, struct cut **out)
{
	unsigned depth = depth_of(bin_rel);
	int rc = 0;
	pthread_mutex_lock(&s->lock);
	*out = find_locked(s, whole, depth);
	pthread_mutex_unlock(&s->lock);
	if (*out)
		return 0;
	pthread_mutex_lock(&s->build);
	pthread_mutex_lock(&s->lock);
	*out = find_locked(s, whole, depth); /* another thread's, made meanwhile */
	if (!*out) /* room for the new one first */
		drop_over_budget_locked(s, NULL, 2 * whole->len);
	pthread_mutex_unlock(&s->lock);
	if (!*out && !(rc = make_cut(c, whole, bin_rel, s->cache, out))) {
		int oldest = 0; /* a free place, else the least recently used */
		pthread_mutex_lock(&s->lock);
		for (int i = 0; i < KEPT; i++) /* an earlier text of the same binary */
			if (s->kept[i] && s->kept[i]->bin == (*out)->bin) {
				cut_put_locked(s->kept[i]);
				s->kept[i] = NULL;
			}
		for (int i = 1; i < KEPT && s->kept[oldest]; i++)
			if (!s->kept[i] || s->kept[i]->used < s->kept[oldest]->used)
				oldest = i;
		cut_put_locked(s->kept[oldest]);
		s->kept[oldest] = *out;
		(*out)->used = ++s->clock;
		(*out)->refs++;
		drop_over_budget_locked(s, *out, (*out)->bytes);
		pthread_mutex_unlock(&s->lock);
	}
	pthread_mutex_unlock(&s->build);
	return rc;
}

/* The text of name in x (not a reference), or NULL. */
static struct af_text *file_in(const struct cut *x, const char *name)
{
	size_t lo = 0, hi = x->s.n;
	if (!strcmp(name, AF_SPLIT_INDEX))
		return x->index;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, x->s.parts[x->order[mid]].name);
		if (!c)
			return x->text[x->order[mid]];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* The codec of the view of bin_rel as it is now (its bid, cached). */
static const struct af_codec *codec_now(struct af_fs *fs, const char *bin_rel, struct stat *st)
{
	struct af_rinfo info;
	if (af_ov_stat(fs, bin_rel, st))
		return NULL;
	af_view_classify(fs, bin_rel, st, &info);
	return info.failed ? NULL : info.codec;
}

int af_split_file(struct af_fs *fs, struct af_text *whole, const char *bin_rel, const char *name,
		  struct af_text **out)
{
	struct stat st;
	const struct af_codec *c = codec_now(fs, bin_rel, &st);
	struct cut *x;
	struct af_text *t;
	int rc;
	if (out)
		*out = NULL;
	if (!c)
		return -ENOENT;
	if ((rc = cut_of(fs->splits, c, whole, bin_rel, &x))) {
		if (rc != -EIO || strcmp(name, AF_SPLIT_INDEX))
			return rc;
		if (out) /* not cut (the log says why): the whole view, as its index */
			*out = af_text_ref(whole);
		return 0;
	}
	t = file_in(x, name);
	if (t && out)
		*out = af_text_ref(t);
	cut_put(fs->splits, x);
	return t ? 0 : -ENOENT;
}

int af_split_names(struct af_fs *fs, struct af_text *whole, const char *bin_rel,
		   void (*cb)(void *ctx, const char *name), void *ctx)
{
	struct stat st;
	const struct af_codec *c = codec_now(fs, bin_rel, &st);
	struct cut *x;
	int rc;
	if (!c)
		return -ENOENT;
	if ((rc = cut_of(fs->splits, c, whole, bin_rel, &x))) {
		if (rc != -EIO)
			return rc;
		cb(ctx, AF_SPLIT_INDEX); /* not cut: the whole view alone (af_split_file) */
		return 0;
	}
	cb(ctx, AF_SPLIT_INDEX);
	for (size_t i = 0; i < x->s.n; i++)
		cb(ctx, x->s.parts[i].name);
	cut_put(fs->splits, x);
	return 0;
}

/* The folder as the join reads it: the saved file's new text, the others as they are. */
struct folder {
	const struct cut *x;
	const char *name;
	const uint8_t *text;
	size_t n;
};

static int read_file(void *ctx, const char *name, struct af_buf *out, struct af_diag *d)
{
	const struct folder *f = ctx;
	const struct af_text *t;
	if (!strcmp(name, f->name))
		return af_buf_append(out, f->text, f->n) ? af_diag_error(d, AF_ENOMEM, "out of memory") : 0;
	if (!(t = file_in(f->x, name)))
		return af_diag_error(d, AF_EINVAL, "%s: no such part in this folder (its parts are "
				     "the files it lists; none is added)", name);
	return af_buf_append(out, t->data, t->len) ? af_diag_error(d, AF_ENOMEM, "out of memory") : 0;
}

static int join(void *ctx, const struct af_codec *c, const uint8_t *index, size_t n,
		const struct af_io *io, struct af_buf *out, struct af_diag *d, char *where,
		size_t wsize)
{
	const struct folder *f = ctx;
	struct af_io parts = *io;
	/* commit's budget counts the index's text; the parts' are held as well */
	size_t more = 2 * (f->x->whole->len > n ? f->x->whole->len - n : 0);
	if (parts.yaml_max)
		parts.yaml_max = parts.yaml_max > more + ((size_t)1 << 20) ? parts.yaml_max - more
									    : (size_t)1 << 20;
	return af_split_join(c, index, n, read_file, ctx, &parts, out, d, where, wsize);
}

/* Whether a line about path (beneath the folder) is about a part of x other than the
 * one saved: it stays. */
struct other {
	const struct cut *x;
	const char *saved;
};

static int other_part(void *ctx, const char *path)
{
	const struct other *o = ctx;
	const char *name = af_base(path);
	return strcmp(name, o->saved) && strcmp(name, AF_SPLIT_INDEX) && file_in(o->x, name);
}

int af_split_commit(struct af_fs *fs, const struct af_dest *to, const char *part_rel,
		    const uint8_t *text, size_t n)
{
	struct af_splits *s = fs->splits;
	struct af_text *whole = NULL;
	struct stat st;
	const struct af_codec *c = codec_now(fs, to->bin_rel, &st);
	struct cut *x = NULL;
	const char *name = af_base(part_rel);
	int rc;
	if (!c)
		return -ENOENT;
	/* the other parts as they are now (another part saved meanwhile included) */
	if ((rc = s->render(fs, to->bin_rel, &st, &whole)))
		goto out;
	if ((rc = cut_of(s, c, whole, to->bin_rel, &x))) {
		/* not cut: its folder holds the whole view as index.yaml, saved as a view is */
		if (rc == -EIO && !strcmp(name, AF_SPLIT_INDEX))
			rc = whole->len == n && !memcmp(whole->data, text, n)
				     ? 0 : af_commit_to(fs, to, part_rel, text, n);
		goto out;
	}
	if (strcmp(name, AF_SPLIT_INDEX) && !file_in(x, name)) {
		/* a save renamed it (a name value it carries changed), or the index no longer
		 * lists it: the join would not read it, and the edit would be lost unsaid */
		struct af_diag d;
		af_diag_init(&d);
		af_diag_error(&d, AF_EINVAL, "not saved: %s is not in the folder any more (a save "
			      "renamed it, or index.yaml no longer lists it); put the text into a "
			      "file the folder lists now", name);
		af_fs_log(LOG_WARNING, "%s: not saved: no longer a part of its folder", part_rel);
		af_errlog_add(fs->errors, to->who.uid, part_rel, &d);
		af_diag_free(&d);
		rc = -EINVAL;
		goto out;
	}
	const struct af_text *now = file_in(x, name);
	if (now->len == n && !memcmp(now->data, text, n)) {
		/* the text it has (rsync and cp copy a whole folder back, most of it as it
		 * is): nothing to change (the caller proved the right to write it), and
		 * nothing said of the folder is mended by it (emacs puts its backup back
		 * after a refused save: the line stays) */
		goto out;
	}
	struct folder f = {x, name, text, n};
	struct af_dest whole_to = *to;
	whole_to.join = join;
	whole_to.join_ctx = &f;
	const struct af_text *index = file_in(x, AF_SPLIT_INDEX);
	int own_index = !strcmp(name, AF_SPLIT_INDEX);
	rc = af_commit_to(fs, &whole_to, part_rel, own_index ? text : index->data,
			  own_index ? n : index->len);
	if (rc == 0) { /* saved: what was said of this file, of the index (the whole), of the
			* folder and of names that are no part is no longer so; a refused save of
			* another part stays said (rsync saves one part after another) */
		char dir[4096];
		snprintf(dir, sizeof(dir), "%.*s", (int)(name - part_rel - 1), part_rel);
		struct other o = {x, name};
		af_errlog_forget_under(fs->errors, dir, other_part, &o);
	}
out:
	if (x)
		cut_put(s, x);
	af_text_unref(whole);
	return rc;
}

int af_split_refuse(struct af_fs *fs, const char *rel, const char *what, uid_t uid)
{
	struct af_diag d;
	af_diag_init(&d);
	af_diag_error(&d, AF_EINVAL, "%s: a split view's folder holds the files its index.yaml "
		      "lists and no others (edit them; without --split the view is one file)", what);
	af_fs_log(LOG_WARNING, "%s: %s: refused in a split view's folder", rel, what);
	af_errlog_add(fs->errors, uid, rel, &d);
	af_diag_free(&d);
	return -EPERM;
}

int af_split_aside(const char *name)
{
	return strcmp(name, AF_SPLIT_INDEX) && !af_split_part_name_ok(name, strlen(name));
}

void af_split_hidden(struct af_fs *fs, const char *rel, uid_t uid)
{
	struct af_diag d;
	af_diag_init(&d);
	af_diag_error(&d, AF_EINVAL, "not removed: a split view's folder holds the files its "
		      "index.yaml lists; this one is only hidden until a file is written under its "
		      "name (install, tar x and git checkout remove a file before they write it) or "
		      "the folder is listed again, and its text stays in the binary");
	af_fs_log(LOG_INFO, "%s: removed from a split view's folder: hidden until written again", rel);
	af_errlog_add(fs->errors, uid, rel, &d);
	af_diag_free(&d);
}
