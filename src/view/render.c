/* The render cache and what it keeps.
 *
 * What a render makes: its text (struct af_text, render.h: shared, reference counted,
 * made from a buffer without a copy) and the record of what the text was made of
 * besides its binary (struct af_deps, deps.h: its sources, noted as the render reads
 * them, and their hash, the text's src), which the cache keeps beside it.
 *
 * The cache: what is known about each backing file identity (device, inode, size,
 * mtime and ctime in ns, codec version; a container's member also by its path): the
 * bid, the rendered size, and the rendered text itself under a memory bound (LRU).
 * Sizes outlive evicted texts, and outlive the mount (rclife.c). An evicted text goes
 * to the spill file (a ring on disk, an unlinked file of the daemon's): a listing's
 * renders are read back from there by the reads that follow, and a second pass over a
 * folder larger than the memory bound costs a read of the text, not its render. */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "animfs/codec.h"
#include "animfs/fileio.h"
#include "animfs/userdict.h"
#include "animfs/yamlio.h"
#include "deps.h"
#include "render.h"
#include "render_int.h"

/* ------------------------------------------------------------ texts and their sources */

struct af_text *af_text_new(const void *data, size_t len)
{
	struct af_text *t = af_alloc(sizeof(*t) + len + 1);
	if (!t)
		return NULL;
	t->refs = 1;
	t->holds = 0;
	t->resident = 0;
	t->len = len;
	t->src = 0;
	if (len && data)
		memcpy(t->data, data, len);
	t->data[len] = 0;
	return t;
}

/* The block p (b's, resized: the header, then len bytes of text and room for a NUL) as
 * the text; b is left empty. */
static struct af_text *text_of(struct af_buf *b, uint8_t *p, size_t len)
{
	struct af_text *t = (struct af_text *)(void *)p;
	t->refs = 1;
	t->holds = 0;
	t->resident = 0;
	t->len = len;
	t->src = 0;
	t->data[len] = 0;
	b->data = NULL;
	b->len = b->cap = 0;
	return t;
}

struct af_text *af_text_take(struct af_buf *b)
{
	size_t h = offsetof(struct af_text, data), len = b->len;
	if (b->failed || len > SIZE_MAX - h - 1)
		return NULL;
	/* the text moves up by the header inside its own block: no second copy of a
	 * render that may be tens of MB */
	uint8_t *p = af_resize(b->data, h + len + 1);
	if (!p)
		return NULL;
	memmove(p + h, p, len);
	return text_of(b, p, len);
}

int af_text_begin(struct af_buf *b)
{
	static const uint8_t room[offsetof(struct af_text, data)];
	return af_buf_append(b, room, sizeof(room)) ? AF_ENOMEM : 0;
}

struct af_text *af_text_end(struct af_buf *b)
{
	size_t h = offsetof(struct af_text, data);
	if (b->failed || b->len < h || b->len == SIZE_MAX)
		return NULL;
	uint8_t *p = af_resize(b->data, b->len + 1); /* gives back what was reserved past it */
	return p ? text_of(b, p, b->len - h) : NULL;
}

struct af_text *af_text_ref(struct af_text *t)
{
	if (t)
		__atomic_add_fetch(&t->refs, 1, __ATOMIC_RELAXED);
	return t;
}

void af_text_unref(struct af_text *t)
{
	if (t && __atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) == 0)
		free(t);
}

/* ---- what a text was made of besides its binary (deps.h) ---- */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}

uint64_t af_deps_fold(uint64_t h, char kind, int ok, const char *name, const struct stat *st,
		      int err)
{
	struct af_fid id;
	uint64_t f[6] = {0};
	if (st) {
		af_fid_of(st, &id);
		f[0] = (uint64_t)id.dev, f[1] = (uint64_t)id.ino, f[2] = (uint64_t)id.size;
		f[3] = (uint64_t)id.mtime, f[4] = (uint64_t)id.ctime;
		f[5] = (uint64_t)st->st_mode;
	} else {
		f[0] = (uint64_t)(int64_t)err;
	}
	unsigned char k[2] = {(unsigned char)kind, ok ? '1' : '0'};
	h = fnv(h, k, sizeof(k));
	h = fnv(h, name, strlen(name) + 1);
	return fnv(h, f, sizeof(f));
}

void af_deps_begin(struct af_deps_rec *r)
{
	struct af_buf empty = AF_BUF_INIT;
	r->rec = empty;
	r->hash = AF_DEPS_SEED;
	r->n = 0;
}

void af_deps_note(struct af_deps_rec *r, char kind, int ok, const char *name,
		  const struct stat *st, int err)
{
	char k[2] = {kind, ok ? '1' : '0'};
	r->hash = af_deps_fold(r->hash, kind, ok, name, st, err);
	r->n++;
	af_buf_append(&r->rec, k, sizeof(k)); /* a failure is kept in rec.failed */
	af_buf_append(&r->rec, name, strlen(name) + 1);
}

/* Out of memory for a record: one that never holds (never freed: its count never
 * falls to 0). */
static struct af_deps lost = {.refs = 1u << 30, .hash = 1, .lost = 1};

struct af_deps *af_deps_end(struct af_deps_rec *r)
{
	struct af_deps *d = NULL;
	if (!r->n)
		goto out;
	size_t len = r->rec.failed ? 0 : r->rec.len;
	d = af_alloc(sizeof(*d) + len);
	if (!d) {
		d = af_deps_ref(&lost);
		goto out;
	}
	d->refs = 1;
	d->hash = r->hash ? r->hash : 1;
	d->lost = r->rec.failed;
	d->len = len;
	if (len)
		memcpy(d->rec, r->rec.data, len);
out:
	af_deps_abort(r);
	return d;
}

void af_deps_abort(struct af_deps_rec *r)
{
	af_buf_free(&r->rec);
	r->n = 0;
}

struct af_deps *af_deps_ref(struct af_deps *d)
{
	if (d)
		__atomic_add_fetch(&d->refs, 1, __ATOMIC_RELAXED);
	return d;
}

void af_deps_unref(struct af_deps *d)
{
	if (d && __atomic_sub_fetch(&d->refs, 1, __ATOMIC_ACQ_REL) == 0)
		free(d);
}

/* ------------------------------------------------------------ the cache */

void af_rc_clear_all(struct af_rcache *c)
{
	for (size_t i = 0; i < c->nbuckets; i++) {
		struct rc_entry *e = c->buckets[i], *n;
		for (; e; e = n) {
			n = e->hnext;
			if (e->text)
				e->text->resident = 0; /* a held one stays counted in lent */
			af_text_unref(e->text);
			af_text_unref(e->pend);
			af_deps_unref(e->deps);
			free(e);
		}
		c->buckets[i] = NULL;
	}
	c->count = 0;
	c->lru_head = c->lru_tail = NULL;
	c->spill_old = c->spill_new = NULL;
	c->text_bytes = 0;
}

static size_t hash_of(dev_t dev, ino_t ino, uint64_t sub)
{
	uint64_t h = (uint64_t)ino * 0x9E3779B97F4A7C15ull ^ (uint64_t)dev * 0xC2B2AE3D27D4EB4Full ^ sub;
	return (size_t)(h ^ (h >> 29));
}

static void lru_unlink(struct af_rcache *c, struct rc_entry *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else if (c->lru_head == e)
		c->lru_head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else if (c->lru_tail == e)
		c->lru_tail = e->prev;
	e->prev = e->next = NULL;
}

static void lru_front(struct af_rcache *c, struct rc_entry *e)
{
	e->next = c->lru_head;
	e->prev = NULL;
	if (c->lru_head)
		c->lru_head->prev = e;
	c->lru_head = e;
	if (!c->lru_tail)
		c->lru_tail = e;
}

/* A size is kept without its text only when the text cannot change while the
 * file does not (not so for codecs that read names from elsewhere: a file's siblings,
 * the user dictionary). A container's member reads names only from its container
 * and the user dictionary, whose identity its entry keeps (names_ok). */
int af_rc_size_outlives_text(const struct rc_entry *e)
{
	return !e->info.codec || !e->info.codec->render_uses_names || e->names;
}

void af_rcache_names_stamp(struct af_fid *out)
{
	char path[4096];
	struct stat st;
	memset(out, 0, sizeof(*out));
	if (!af_userdict_path(path, sizeof(path)) && !stat(path, &st))
		af_fid_of(&st, out);
}

static uint64_t names_hash(const struct af_fid *id)
{
	uint64_t f[5] = {(uint64_t)id->dev, (uint64_t)id->ino, (uint64_t)id->size, (uint64_t)id->mtime,
			 (uint64_t)id->ctime}, h = 0xcbf29ce484222325ull;
	for (int i = 0; i < 5; i++)
		h = (h ^ f[i]) * 0x100000001b3ull;
	return h | 1;
}

static int names_ok(const struct rc_entry *e, const struct af_fid *names)
{
	return !e->names || (names && e->names == names_hash(names));
}

/* ---- the spill ring ---- */

static void spill_unlink(struct af_rcache *c, struct rc_entry *e)
{
	if (!e->spill_seq)
		return;
	if (e->sprev)
		e->sprev->snext = e->snext;
	else
		c->spill_old = e->snext;
	if (e->snext)
		e->snext->sprev = e->sprev;
	else
		c->spill_new = e->sprev;
	e->sprev = e->snext = NULL;
	e->spill_seq = 0;
	e->spill_len = 0;
	af_text_unref(e->pend); /* its write, if still queued, is the job's */
	e->pend = NULL;
}

static int overlaps(const struct rc_entry *e, uint64_t from, uint64_t to)
{
	return e->spill_off < to && e->spill_off + e->spill_len > from;
}

/* Keep e's text in the spill file (it is leaving memory): the oldest texts in the
 * bytes it takes are forgotten first. Here the ring only places it and queues its
 * write (flush writes it once the lock is let go); until then readers get
 * it from e->pend. */
static void spill_write(struct af_rcache *c, struct rc_entry *e)
{
	struct af_text *t = e->text;
	uint64_t at = c->spill_head, end;
	struct spill_job *j;
	if (c->spill_fd < 0 || e->spill_seq || !t->len || t->len > c->spill_cap ||
	    !(j = af_alloc(sizeof(*j))))
		return;
	if (at + t->len > c->spill_cap) { /* wrap: the tail past at is swept too */
		while (c->spill_old && overlaps(c->spill_old, at, c->spill_cap))
			spill_unlink(c, c->spill_old);
		at = 0;
	}
	end = at + t->len;
	while (c->spill_old && overlaps(c->spill_old, at, end))
		spill_unlink(c, c->spill_old);
	e->spill_off = at;
	e->spill_len = t->len;
	e->spill_seq = ++c->spill_seq;
	e->pend = af_text_ref(t);
	e->sprev = c->spill_new;
	e->snext = NULL;
	if (c->spill_new)
		c->spill_new->snext = e;
	else
		c->spill_old = e;
	c->spill_new = e;
	c->spill_head = end;
	c->stats.spill_writes++;
	*j = (struct spill_job){NULL, af_text_ref(t), at, e->spill_seq, e->id.dev, e->id.ino, e->sub};
	*c->jobs_tail = j;
	c->jobs_tail = &j->next;
}

static struct rc_entry *find_key(struct af_rcache *c, dev_t dev, ino_t ino, uint64_t sub);

/* len bytes at off of the spill file read into p (write: written from p), as far as
 * it goes: the count done (len unless the disk refused). */
static size_t spill_io(int fd, uint8_t *p, size_t len, uint64_t off, int write)
{
	size_t done = 0;
	while (done < len) {
		ssize_t r = write ? pwrite(fd, p + done, len - done, (off_t)(off + done))
				  : pread(fd, p + done, len - done, (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		done += (size_t)r;
	}
	return done;
}

/* Write what the ring queued, in order, without the cache's lock (call without it):
 * a reader of another text never waits for the disk. A write that fails turns
 * spilling off. */
static void flush(struct af_rcache *c)
{
	pthread_mutex_lock(&c->writer);
	for (;;) {
		pthread_mutex_lock(&c->lock);
		struct spill_job *j = c->jobs;
		int fd = c->spill_fd;
		if (j && !(c->jobs = j->next))
			c->jobs_tail = &c->jobs;
		pthread_mutex_unlock(&c->lock);
		if (!j)
			break;
		size_t len = j->text->len, done = fd < 0 ? 0 : spill_io(fd, j->text->data, len, j->off, 1);
		pthread_mutex_lock(&c->lock);
		struct rc_entry *e = find_key(c, j->dev, j->ino, j->sub);
		if (done == len && e && e->spill_seq == j->seq) { /* on disk: read from there */
			af_text_unref(e->pend);
			e->pend = NULL;
		} else if (done != len && fd >= 0 && c->spill_fd == fd) {
			close(c->spill_fd); /* ENOSPC or worse: no more spilling, and nothing */
			c->spill_fd = -1;   /* of the file is read again */
			while (c->spill_old)
				spill_unlink(c, c->spill_old);
		}
		pthread_mutex_unlock(&c->lock);
		af_text_unref(j->text);
		free(j);
	}
	pthread_mutex_unlock(&c->writer);
}

/* The cache's lock let go, then what it queued written. */
void af_rc_unlock_flush(struct af_rcache *c)
{
	int queued = c->jobs != NULL;
	pthread_mutex_unlock(&c->lock);
	if (queued)
		flush(c);
}

static void drop_text(struct af_rcache *c, struct rc_entry *e)
{
	if (!e->text)
		return;
	lru_unlink(c, e);
	af_rc_uncount(c, e->text);
	af_text_unref(e->text);
	e->text = NULL;
	if (!af_rc_size_outlives_text(e))
		e->info.have_size = 0;
}

/* The text leaves memory for the bound: kept in the spill file when its size may
 * outlive it (a text read again is the same text while the identity is). */
static void evict_text(struct af_rcache *c, struct rc_entry *e)
{
	if (e->text && af_rc_size_outlives_text(e))
		spill_write(c, e);
	drop_text(c, e);
}

/* What was known of e is no longer so (a new identity, codec or verdict). */
void af_rc_forget(struct af_rcache *c, struct rc_entry *e)
{
	drop_text(c, e);
	spill_unlink(c, e);
	af_deps_unref(e->deps);
	e->deps = NULL;
}

static struct rc_entry *find_key(struct af_rcache *c, dev_t dev, ino_t ino, uint64_t sub)
{
	struct rc_entry *e = c->buckets[hash_of(dev, ino, sub) % c->nbuckets];
	for (; e; e = e->hnext)
		if (e->id.dev == dev && e->id.ino == ino && e->sub == sub)
			return e;
	return NULL;
}

struct rc_entry *af_rc_find(struct af_rcache *c, const struct stat *st, uint64_t sub)
{
	return find_key(c, st->st_dev, st->st_ino, sub);
}

int af_rc_same_identity(const struct rc_entry *e, const struct stat *st)
{
	struct af_fid id;
	af_fid_of(st, &id);
	return af_fid_same(&e->id, &id);
}

static void grow(struct af_rcache *c)
{
	size_t n = c->nbuckets * 2;
	struct rc_entry **b = af_alloc_zeroed(n, sizeof(*b));
	if (!b)
		return; /* longer chains, still correct */
	for (size_t i = 0; i < c->nbuckets; i++) {
		struct rc_entry *e = c->buckets[i], *next;
		for (; e; e = next) {
			next = e->hnext;
			size_t k = hash_of(e->id.dev, e->id.ino, e->sub) % n;
			e->hnext = b[k];
			b[k] = e;
		}
	}
	free(c->buckets);
	c->buckets = b;
	c->nbuckets = n;
}

/* The entry for st (sub: a member of it), reset when the identity changed; NULL on
 * ENOMEM. */
struct rc_entry *af_rc_obtain(struct af_rcache *c, const struct stat *st, uint64_t sub,
			      const struct af_codec *codec)
{
	struct rc_entry *e = af_rc_find(c, st, sub);
	unsigned version = codec ? codec->version : 0;
	if (e) {
		if (!af_rc_same_identity(e, st) || e->version != version) {
			af_rc_forget(c, e);
			e->names = 0;
			memset(&e->info, 0, sizeof(e->info));
		}
	} else {
		if (c->count >= RC_MAX_ENTRIES)
			af_rc_clear_all(c);
		if (c->count >= c->nbuckets)
			grow(c);
		e = af_alloc_zeroed(1, sizeof(*e));
		if (!e)
			return NULL;
		size_t k = hash_of(st->st_dev, st->st_ino, sub) % c->nbuckets;
		e->sub = sub;
		e->hnext = c->buckets[k];
		c->buckets[k] = e;
		c->count++;
	}
	af_fid_of(st, &e->id);
	e->version = version;
	return e;
}

/* st's entry while it holds (names: the user dictionary's identity now, for a member). */
struct rc_entry *af_rc_current(struct af_rcache *c, const struct stat *st, uint64_t sub,
			       const struct af_fid *names)
{
	struct rc_entry *e = af_rc_find(c, st, sub);
	if (e && af_rc_same_identity(e, st) &&
	    e->version == (e->info.codec ? e->info.codec->version : 0) && names_ok(e, names))
		return e;
	return NULL;
}

/* What texts may take in memory now: the bound less what is lent. */
size_t af_rc_text_cap(const struct af_rcache *c)
{
	return c->max_text_bytes - c->lent;
}

/* t now in an entry's memory (count), or no longer (uncount): counted in the texts'
 * bytes unless open files hold it, whose loan counts it meanwhile (af_rcache_hold). */
void af_rc_count(struct af_rcache *c, struct af_text *t)
{
	t->resident = 1;
	if (!t->holds)
		c->text_bytes += t->len;
}

void af_rc_uncount(struct af_rcache *c, struct af_text *t)
{
	t->resident = 0;
	if (!t->holds)
		c->text_bytes -= t->len;
}

/* Make room for `more` bytes of text in memory: the least recently used texts go
 * (to the spill file). */
void af_rc_make_room(struct af_rcache *c, size_t more)
{
	while (c->text_bytes + more > af_rc_text_cap(c) && c->lru_tail)
		evict_text(c, c->lru_tail);
}

/* Up to want of the renders' pool (what is free of it), and back. */
size_t af_rc_pool_grab(struct af_rcache *c, size_t want)
{
	pthread_mutex_lock(&c->lock);
	size_t n = want < c->pool_free ? want : c->pool_free;
	c->pool_free -= n;
	pthread_mutex_unlock(&c->lock);
	return n;
}

void af_rc_pool_return(struct af_rcache *c, size_t n)
{
	if (!n)
		return;
	pthread_mutex_lock(&c->lock);
	c->pool_free += n;
	pthread_mutex_unlock(&c->lock);
}

/* The spilled text of st's entry read back (no lock held while reading; the ring
 * may overwrite it meanwhile, which the check after the read sees), and kept in
 * memory again; NULL when it is gone. */
static struct af_text *spill_read(struct af_rcache *c, const struct stat *st, uint64_t sub,
				  const struct af_fid *names, uint64_t off, size_t len, uint64_t seq,
				  int fd)
{
	struct af_text *t = af_text_new(NULL, len);
	size_t done = 0;
	if (!t)
		return NULL;
	done = spill_io(fd, t->data, len, off, 0);
	pthread_mutex_lock(&c->lock);
	struct rc_entry *e = af_rc_current(c, st, sub, names);
	if (done != len || c->spill_fd != fd || !e || e->spill_seq != seq) {
		af_text_unref(t);
		t = NULL;
		c->stats.spill_lost++;
	} else {
		c->stats.spill_reads++;
		/* a member's names (e->names) are none of its deps: no src (render.h) */
		t->src = e->deps && !e->names ? e->deps->hash : 0;
		if (!e->text && len <= af_rc_text_cap(c)) {
			af_rc_make_room(c, len);
			e->text = af_text_ref(t);
			af_rc_count(c, t);
			lru_front(c, e);
		}
	}
	af_rc_unlock_flush(c);
	return t;
}

int af_rcache_get_made(struct af_rcache *c, const struct stat *st, uint64_t sub,
		       struct af_rinfo *info, struct af_text **text, struct af_deps **deps)
{
	int known = 0, fd = -1;
	uint64_t off = 0, seq = 0;
	size_t len = 0;
	struct af_fid names = {0};
	if (text)
		*text = NULL;
	if (deps)
		*deps = NULL;
	if (sub)
		af_rcache_names_stamp(&names);
	pthread_mutex_lock(&c->lock);
	struct rc_entry *e = af_rc_current(c, st, sub, &names);
	if (e) {
		*info = e->info;
		if (e->deps) /* its size is its text's, which is checked (render.h) */
			info->have_size = 0;
		if (deps)
			*deps = af_deps_ref(e->deps);
		known = 1;
		if (text && e->text) {
			*text = af_text_ref(e->text);
			lru_unlink(c, e);
			lru_front(c, e);
			c->stats.hits++;
		} else if (text && e->pend && e->info.have_size) { /* still on its way to disk */
			*text = af_text_ref(e->pend);
			c->stats.hits++;
		} else if (text && e->spill_seq && e->info.have_size) {
			off = e->spill_off, len = e->spill_len, seq = e->spill_seq, fd = c->spill_fd;
		}
	}
	pthread_mutex_unlock(&c->lock);
	if (seq) {
		/* its copy, made before the cache makes room for it, is counted in the renders'
		 * pool meanwhile (what of it is free: never waited for) */
		size_t held = af_rc_pool_grab(c, len);
		*text = spill_read(c, st, sub, &names, off, len, seq, fd);
		af_rc_pool_return(c, held);
	}
	return known;
}

int af_rcache_get_member(struct af_rcache *c, const struct stat *st, uint64_t sub,
			 struct af_rinfo *info, struct af_text **text)
{
	return af_rcache_get_made(c, st, sub, info, text, NULL);
}

int af_rcache_get(struct af_rcache *c, const struct stat *st, struct af_rinfo *info,
		  struct af_text **text)
{
	return af_rcache_get_member(c, st, 0, info, text);
}

void af_rcache_put_bid(struct af_rcache *c, const struct stat *st, uint64_t name_hash,
		       const struct af_codec *codec)
{
	pthread_mutex_lock(&c->lock);
	struct rc_entry *e = af_rc_obtain(c, st, 0, codec);
	if (e && e->info.codec != codec) {
		af_rc_forget(c, e);
		memset(&e->info, 0, sizeof(e->info));
		e->info.codec = codec;
	}
	if (e)
		e->info.name_hash = name_hash;
	pthread_mutex_unlock(&c->lock);
}

static void put_text(struct af_rcache *c, const struct stat *st, uint64_t sub,
		     const struct af_codec *codec, int read_only, const struct af_fid *names,
		     struct af_text *text, struct af_deps *deps)
{
	pthread_mutex_lock(&c->lock);
	struct rc_entry *e = af_rc_obtain(c, st, sub, codec);
	if (!e)
		goto out;
	drop_text(c, e); /* the same identity's text: what is spilled of it stays true */
	if (e->info.codec != codec || !names_ok(e, names) || e->deps || deps)
		spill_unlink(c, e); /* unless it was made of other sources */
	af_deps_unref(e->deps);
	e->deps = af_deps_ref(deps);
	e->names = sub && names ? names_hash(names) : 0;
	e->info.codec = codec;
	e->info.failed = 0;
	e->info.have_size = 1;
	e->info.size = text->len;
	if (sub) /* a member of a container that is never rewritten */
		e->info.read_only = e->info.container_ro = read_only;
	if (text->len > af_rc_text_cap(c)) {
		e->info.have_size = af_rc_size_outlives_text(e);
		e->text = text; /* too big to keep: spilled (if its size may outlive it) */
		if (e->info.have_size)
			spill_write(c, e);
		e->text = NULL;
		goto out;
	}
	af_rc_make_room(c, text->len);
	e->text = af_text_ref(text);
	af_rc_count(c, text);
	lru_front(c, e);
out:
	af_rc_unlock_flush(c);
}

void af_rcache_put_member_text(struct af_rcache *c, const struct stat *st, uint64_t sub,
			       const struct af_codec *codec, int read_only, const struct af_fid *names,
			       struct af_text *text)
{
	put_text(c, st, sub, codec, read_only, names, text, NULL);
}

void af_rcache_put_made(struct af_rcache *c, const struct stat *st, uint64_t sub,
			const struct af_codec *codec, struct af_text *text, struct af_deps *deps)
{
	put_text(c, st, sub, codec, 0, NULL, text, deps);
}

void af_rcache_put_member_made(struct af_rcache *c, const struct stat *st, uint64_t sub,
			       const struct af_codec *codec, int read_only, const struct af_fid *names,
			       struct af_text *text, struct af_deps *deps)
{
	put_text(c, st, sub, codec, read_only, names, text, deps);
}

void af_rcache_put_text(struct af_rcache *c, const struct stat *st, const struct af_codec *codec,
			struct af_text *text)
{
	af_rcache_put_member_text(c, st, 0, codec, 0, NULL, text);
}

void af_rcache_put_member_failed(struct af_rcache *c, const struct stat *st, uint64_t sub,
				 const struct af_codec *codec)
{
	pthread_mutex_lock(&c->lock);
	struct rc_entry *e = af_rc_obtain(c, st, sub, codec);
	if (e) {
		uint64_t name_hash = e->info.name_hash;
		af_rc_forget(c, e);
		e->names = 0;
		memset(&e->info, 0, sizeof(e->info));
		e->info.codec = codec;
		e->info.failed = 1;
		e->info.name_hash = name_hash;
	}
	pthread_mutex_unlock(&c->lock);
}

void af_rcache_put_failed(struct af_rcache *c, const struct stat *st, const struct af_codec *codec)
{
	af_rcache_put_member_failed(c, st, 0, codec);
}

void af_rcache_note_render(struct af_rcache *c)
{
	pthread_mutex_lock(&c->lock);
	c->stats.renders++;
	pthread_mutex_unlock(&c->lock);
}

