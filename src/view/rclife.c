/* The render cache beside its lookups and its texts (render.c): made and freed, its
 * spill file handed over, the marks a render or a listing leaves on a file's entry (its
 * text is its caller's, it is read-only), its figures (.animfs/stats), and the sizes it
 * keeps across mounts in a file of the user's cache folder (af_rcache_save,
 * af_rcache_load), so a later mount lists without decoding. */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "animfs/codec.h"
#include "animfs/fileio.h"
#include "render.h"
#include "render_int.h"

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
	c->pool_free = AF_RENDER_POOL;
	pthread_cond_init(&c->pool_freed, NULL);
	pthread_rwlockattr_t ra;
	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&c->solo, &ra);
	pthread_rwlockattr_destroy(&ra);
	c->spill_fd = -1;
	c->hold_dir = -1;
	c->jobs_tail = &c->jobs;
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_init(&c->writer, NULL);
	return c;
}

void af_rcache_spill(struct af_rcache *c, int fd, uint64_t cap)
{
	pthread_mutex_lock(&c->lock);
	if (c->spill_fd >= 0)
		close(c->spill_fd);
	c->spill_fd = fd;
	c->spill_cap = fd >= 0 ? cap : 0;
	pthread_mutex_unlock(&c->lock);
}

void af_rcache_free(struct af_rcache *c)
{
	if (!c)
		return;
	af_rc_clear_all(c);
	for (struct spill_job *j = c->jobs, *n; j; j = n) {
		n = j->next;
		af_text_unref(j->text);
		free(j);
	}
	free(c->buckets);
	if (c->spill_fd >= 0)
		close(c->spill_fd);
	if (c->hold_dir >= 0)
		close(c->hold_dir);
	pthread_mutex_destroy(&c->lock);
	pthread_mutex_destroy(&c->writer);
	pthread_rwlock_destroy(&c->solo);
	pthread_cond_destroy(&c->pool_freed);
	free(c);
}

/* ---- what a render or a listing learned of a file ---- */

void af_rcache_mark_by_caller(struct af_rcache *c, const struct stat *st)
{
	pthread_mutex_lock(&c->lock);
	struct rc_entry *e = af_rc_current(c, st, 0, NULL);
	if (e)
		e->info.by_caller = 1;
	pthread_mutex_unlock(&c->lock);
}

void af_rcache_mark_member_by_caller(struct af_rcache *c, const struct stat *st, uint64_t sub,
				     const struct af_codec *codec, int read_only)
{
	pthread_mutex_lock(&c->lock);
	struct rc_entry *e = af_rc_obtain(c, st, sub, codec);
	if (e && (!e->deps || e->info.codec != codec)) { /* no text of the daemon's: none kept */
		af_rc_forget(c, e);
		e->names = 0;
		memset(&e->info, 0, sizeof(e->info));
		e->info.codec = codec;
		e->info.read_only = e->info.container_ro = read_only;
	}
	if (e)
		e->info.by_caller = 1;
	af_rc_unlock_flush(c);
}

void af_rcache_mark_read_only(struct af_rcache *c, const struct stat *st)
{
	pthread_mutex_lock(&c->lock);
	struct rc_entry *e = af_rc_find(c, st, 0);
	if (e && af_rc_same_identity(e, st))
		e->info.read_only = 1;
	pthread_mutex_unlock(&c->lock);
}

/* ---- figures ---- */

void af_rcache_note_open(struct af_rcache *c)
{
	pthread_mutex_lock(&c->lock);
	c->stats.archive_opens++;
	pthread_mutex_unlock(&c->lock);
}

void af_rcache_stats(struct af_rcache *c, struct af_rcache_stats *out)
{
	pthread_mutex_lock(&c->lock);
	*out = c->stats;
	out->text_bytes = c->text_bytes;
	out->lent_bytes = c->lent;
	out->spill_bytes = 0;
	for (const struct rc_entry *e = c->spill_old; e; e = e->snext)
		out->spill_bytes += e->spill_len;
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
			if (e->sub || e->deps || !e->info.codec || e->info.failed || e->info.read_only || !e->info.have_size ||
			    !af_rc_size_outlives_text(e) || strlen(e->info.codec->name) >= sizeof(r.codec))
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
		    af_rc_find(c, &(struct stat){
			.st_dev = (dev_t)r.dev, .st_ino = (ino_t)r.ino }, 0))
			continue;
		memset(&st, 0, sizeof(st));
		st.st_dev = (dev_t)r.dev, st.st_ino = (ino_t)r.ino, st.st_size = (off_t)r.size;
		st.st_mtim.tv_sec = r.mtime / 1000000000, st.st_mtim.tv_nsec = r.mtime % 1000000000;
		st.st_ctim.tv_sec = r.ctime / 1000000000, st.st_ctim.tv_nsec = r.ctime % 1000000000;
		struct rc_entry *e = af_rc_obtain(c, &st, 0, codec);
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
