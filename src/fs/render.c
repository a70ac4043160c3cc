/* The render cache: what is known about each backing file identity (device, inode,
 * size, mtime and ctime in ns, codec version): the bid, the rendered size, and the
 * rendered text itself under a memory bound (LRU). Sizes outlive evicted texts,
 * and outlive the mount in a file of the user's cache folder (af_rcache_save). */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/codec.h"
#include "animfs/fileio.h"
#include "render.h"

struct af_text *af_text_new(const void *data, size_t len)
{
	struct af_text *t = af_alloc(sizeof(*t) + len + 1);
	if (!t)
		return NULL;
	t->refs = 1;
	t->len = len;
	if (len)
		memcpy(t->data, data, len);
	t->data[len] = 0;
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
	struct af_text *t = (struct af_text *)(void *)p;
	t->refs = 1;
	t->len = len;
	t->data[len] = 0;
	b->data = NULL;
	b->len = b->cap = 0;
	return t;
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

struct rc_entry {
	struct rc_entry *hnext, *prev, *next; /* hash chain; LRU of entries with text */
	struct af_fid id;
	unsigned version;
	struct af_rinfo info;
	struct af_text *text;
};

/* Entries without text are small; past this many the table starts over. */
#define RC_MAX_ENTRIES (1u << 18)

struct af_rcache {
	pthread_mutex_t lock;
	struct rc_entry **buckets;
	size_t nbuckets, count;
	struct rc_entry *lru_head, *lru_tail; /* head = most recent */
	size_t text_bytes, max_text_bytes;
};

struct af_rcache *af_rcache_new(size_t max_text_bytes)
{
	struct af_rcache *c = af_alloc_zeroed(1, sizeof(*c));
	if (!c)
		return NULL;
	c->nbuckets = 4096;
	c->buckets = af_alloc_zeroed(c->nbuckets, sizeof(*c->buckets));
	if (!c->buckets) {
		free(c);
		return NULL;
	}
	c->max_text_bytes = max_text_bytes;
	pthread_mutex_init(&c->lock, NULL);
	return c;
}

static void clear_all(struct af_rcache *c)
{
	for (size_t i = 0; i < c->nbuckets; i++) {
		struct rc_entry *e = c->buckets[i], *n;
		for (; e; e = n) {
			n = e->hnext;
			af_text_unref(e->text);
			free(e);
		}
		c->buckets[i] = NULL;
	}
	c->count = 0;
	c->lru_head = c->lru_tail = NULL;
	c->text_bytes = 0;
}

void af_rcache_free(struct af_rcache *c)
{
	if (!c)
		return;
	clear_all(c);
	free(c->buckets);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static size_t hash_of(dev_t dev, ino_t ino)
{
	uint64_t h = (uint64_t)ino * 0x9E3779B97F4A7C15ull ^ (uint64_t)dev * 0xC2B2AE3D27D4EB4Full;
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
 * file does not (not so for codecs that read names from elsewhere). */
static int size_outlives_text(const struct rc_entry *e)
{
	return !e->info.codec || !e->info.codec->render_uses_names;
}

static void drop_text(struct af_rcache *c, struct rc_entry *e)
{
	if (!e->text)
		return;
	lru_unlink(c, e);
	c->text_bytes -= e->text->len;
	af_text_unref(e->text);
	e->text = NULL;
	if (!size_outlives_text(e))
		e->info.have_size = 0;
}

static struct rc_entry *find(struct af_rcache *c, const struct stat *st)
{
	struct rc_entry *e = c->buckets[hash_of(st->st_dev, st->st_ino) % c->nbuckets];
	for (; e; e = e->hnext)
		if (e->id.dev == st->st_dev && e->id.ino == st->st_ino)
			return e;
	return NULL;
}

static int same_identity(const struct rc_entry *e, const struct stat *st)
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
			size_t k = hash_of(e->id.dev, e->id.ino) % n;
			e->hnext = b[k];
			b[k] = e;
		}
	}
	free(c->buckets);
	c->buckets = b;
	c->nbuckets = n;
}

/* The entry for st, reset when the identity changed; NULL on ENOMEM. */
static struct rc_entry *obtain(struct af_rcache *c, const struct stat *st,
			       const struct af_codec *codec)
{
	struct rc_entry *e = find(c, st);
	unsigned version = codec ? codec->version : 0;
	if (e) {
		if (!same_identity(e, st) || e->version != version) {
			drop_text(c, e);
			memset(&e->info, 0, sizeof(e->info));
		}
	} else {
		if (c->count >= RC_MAX_ENTRIES)
			clear_all(c);
		if (c->count >= c->nbuckets)
			grow(c);
		e = af_alloc_zeroed(1, sizeof(*e));
		if (!e)
			return NULL;
		size_t k = hash_of(st->st_dev, st->st_ino) % c->nbuckets;
		e->hnext = c->buckets[k];
		c->buckets[k] = e;
		c->count++;
	}
	af_fid_of(st, &e->id);
	e->version = version;
	return e;
}

int af_rcache_get(struct af_rcache *c, const struct stat *st, struct af_rinfo *info,
		  struct af_text **text)
{
	int known = 0;
	if (text)
		*text = NULL;
	pthread_mutex_lock(&c->lock);
	struct rc_entry *e = find(c, st);
	if (e && same_identity(e, st) &&
	    e->version == (e->info.codec ? e->info.codec->version : 0)) {
		*info = e->info;
		known = 1;
		if (text && e->text) {
			*text = af_text_ref(e->text);
			lru_unlink(c, e);
			lru_front(c, e);
		}
	}
	pthread_mutex_unlock(&c->lock);
	return known;
}

void af_rcache_put_bid(struct af_rcache *c, const struct stat *st, uint64_t name_hash,
		       const struct af_codec *codec)
{
	pthread_mutex_lock(&c->lock);
	struct rc_entry *e = obtain(c, st, codec);
	if (e && e->info.codec != codec) {
		drop_text(c, e);
		memset(&e->info, 0, sizeof(e->info));
		e->info.codec = codec;
	}
	if (e)
		e->info.name_hash = name_hash;
	pthread_mutex_unlock(&c->lock);
}

void af_rcache_put_text(struct af_rcache *c, const struct stat *st, const struct af_codec *codec,
			struct af_text *text)
{
	pthread_mutex_lock(&c->lock);
	struct rc_entry *e = obtain(c, st, codec);
	if (!e)
		goto out;
	drop_text(c, e);
	e->info.codec = codec;
	e->info.failed = 0;
	e->info.have_size = 1;
	e->info.size = text->len;
	if (text->len > c->max_text_bytes) {
		e->info.have_size = size_outlives_text(e);
		goto out; /* too big to keep: the size is still remembered (if it may be) */
	}
	e->text = af_text_ref(text);
	c->text_bytes += text->len;
	lru_front(c, e);
	while (c->text_bytes > c->max_text_bytes && c->lru_tail)
		drop_text(c, c->lru_tail);
out:
	pthread_mutex_unlock(&c->lock);
}

void af_rcache_put_failed(struct af_rcache *c, const struct stat *st, const struct af_codec *codec)
{
	pthread_mutex_lock(&c->lock);
	struct rc_entry *e = obtain(c, st, codec);
	if (e) {
		uint64_t name_hash = e->info.name_hash;
		drop_text(c, e);
		memset(&e->info, 0, sizeof(e->info));
		e->info.codec = codec;
		e->info.failed = 1;
		e->info.name_hash = name_hash;
	}
	pthread_mutex_unlock(&c->lock);
}

void af_rcache_mark_read_only(struct af_rcache *c, const struct stat *st)
{
	pthread_mutex_lock(&c->lock);
	struct rc_entry *e = find(c, st);
	if (e && same_identity(e, st))
		e->info.read_only = 1;
	pthread_mutex_unlock(&c->lock);
}

size_t af_rcache_text_bytes(struct af_rcache *c)
{
	pthread_mutex_lock(&c->lock);
	size_t n = c->text_bytes;
	pthread_mutex_unlock(&c->lock);
	return n;
}

/* ---- persistent sizes: a later mount lists without decoding. A record holds the
 * full identity (device, inode, size, mtime and ctime in ns) with the codec's name
 * and version and the bid's name hash, so a changed file or codec misses. */

#define RC_FILE_MAGIC "animfs sizes 1\n" /* 16 bytes with its NUL */

struct rc_rec {
	uint64_t dev, ino, size;
	int64_t mtime, ctime;
	uint64_t name_hash, ysize;
	uint32_t version;
	char codec[28];
};

int af_rcache_save(struct af_rcache *c, int dirfd, const char *name)
{
	struct af_buf b = AF_BUF_INIT;
	struct af_diag d;
	int rc;
	af_diag_init(&d);
	af_buf_append(&b, RC_FILE_MAGIC, sizeof(RC_FILE_MAGIC));
	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < c->nbuckets; i++)
		for (struct rc_entry *e = c->buckets[i]; e; e = e->hnext) {
			struct rc_rec r;
			/* read-only views are rendered again: the mark is not kept on disk */
			if (!e->info.codec || e->info.failed || e->info.read_only || !e->info.have_size ||
			    !size_outlives_text(e) || strlen(e->info.codec->name) >= sizeof(r.codec))
				continue;
			memset(&r, 0, sizeof(r));
			r.dev = (uint64_t)e->id.dev, r.ino = (uint64_t)e->id.ino;
			r.size = (uint64_t)e->id.size;
			r.mtime = e->id.mtime, r.ctime = e->id.ctime;
			r.name_hash = e->info.name_hash, r.ysize = e->info.size;
			r.version = e->version;
			memcpy(r.codec, e->info.codec->name, strlen(e->info.codec->name));
			af_buf_append(&b, &r, sizeof(r));
		}
	pthread_mutex_unlock(&c->lock);
	rc = b.failed ? AF_ENOMEM : af_replace_file_at(dirfd, name, b.data, b.len, 0600, &d);
	af_buf_free(&b);
	af_diag_free(&d);
	return rc;
}

int af_rcache_load(struct af_rcache *c, int dirfd, const char *name)
{
	struct af_buf b = AF_BUF_INIT;
	struct af_diag d;
	int rc, n = 0;
	af_diag_init(&d);
	rc = af_read_file_at(dirfd, name, AF_MAX_FILE, &b, &d);
	if (rc || b.len < sizeof(RC_FILE_MAGIC) || memcmp(b.data, RC_FILE_MAGIC, sizeof(RC_FILE_MAGIC)) ||
	    (b.len - sizeof(RC_FILE_MAGIC)) % sizeof(struct rc_rec))
		goto out; /* absent, or another version: start empty */
	pthread_mutex_lock(&c->lock);
	for (size_t off = sizeof(RC_FILE_MAGIC); off < b.len && c->count < RC_MAX_ENTRIES;
	     off += sizeof(struct rc_rec)) {
		struct rc_rec r;
		struct stat st;
		memcpy(&r, b.data + off, sizeof(r));
		r.codec[sizeof(r.codec) - 1] = 0;
		const struct af_codec *codec = af_codec_by_name(r.codec);
		if (!codec || codec->version != r.version || codec->render_uses_names ||
		    find(c, &(struct stat){
			.st_dev = (dev_t)r.dev, .st_ino = (ino_t)r.ino }))
			continue;
		memset(&st, 0, sizeof(st));
		st.st_dev = (dev_t)r.dev, st.st_ino = (ino_t)r.ino, st.st_size = (off_t)r.size;
		st.st_mtim.tv_sec = r.mtime / 1000000000, st.st_mtim.tv_nsec = r.mtime % 1000000000;
		st.st_ctim.tv_sec = r.ctime / 1000000000, st.st_ctim.tv_nsec = r.ctime % 1000000000;
		struct rc_entry *e = obtain(c, &st, codec);
		if (!e)
			break;
		e->info.codec = codec;
		e->info.name_hash = r.name_hash;
		e->info.have_size = 1;
		e->info.size = (size_t)r.ysize;
		n++;
	}
	pthread_mutex_unlock(&c->lock);
out:
	af_buf_free(&b);
	af_diag_free(&d);
	return n;
}
