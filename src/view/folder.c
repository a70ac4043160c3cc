/* Containers in the view (container.h): a file a container claims and checks is shown
 * as a folder with the read-only index.yaml and one <member>.yaml per member (a raw
 * member as its bytes, read-only; a member that is itself a container as a folder
 * again). A member view's binary is the path "X/<member>" (nested: "X/A/<member>"),
 * which render and commit route here.
 * Verdicts (folder or plain file) and loaded containers are cached by the file's
 * identity, so an outside change is seen at once. The archive's index outlives its
 * loaded copy: each member's text, size and verdict, and each folder's listing, are
 * entries of the render cache (render.c) keyed by the container's identity and the
 * member's path, under its memory bound and in its spill file, so a pass over more
 * containers than are kept loaded lists, stats and reads what it has seen without
 * reading or parsing a container again. This names no format. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <unistd.h>

#include "animfs/yamlio.h"
#include "animfs/fs.h"
#include "animfs/path.h"
#include "animfs/beneath.h"
#include "animfs/container.h"
#include "animfs/fileio.h"
#include "animfs/fnv.h"
#include "animfs/pieces.h"
#include "binary.h"
#include "dest.h"
#include "errlog.h"
#include "folder.h"
#include "overlay.h"
#include "pristine.h"
#include "render.h"
#include "res.h"
#include "session.h"
#include "who.h"

#define VERDICTS 4096 /* direct-mapped by inode; small, bounded */
#define LOADED 4      /* at most this many containers kept open (LRU), and ... */

struct verdict {
	struct af_fid id;
	int used;
	const struct af_container *folder; /* NULL: a plain file */
};

/* One archive of a loaded file: the file's own, or one nested in it. */
struct node {
	const struct af_archive *a;
	char *broken;           /* per member: raw, or its body does not decode (shown raw, read-only) */
};

/* A loaded container. The table holds one reference while it lists the container, and
 * each user one while it uses it: an entry evicted while in use is freed by its last
 * user. The table's lock guards only the table and the counts (lookup, insert, evict);
 * the entry's own lock guards what it holds (its archive, nodes and index.yaml) and is
 * held by whoever opens it, lists it or renders a member of it: one slow archive
 * blocks only the users of that same archive. */
struct loaded {
	struct af_fid id;
	unsigned refs;          /* p->lock */
	int ok;                 /* opened (written under its lock before anyone else takes it) */
	unsigned waiting;       /* threads waiting for its lock (atomic): a listing lets them in */
	unsigned long last;     /* p->lock */
	size_t bytes;           /* the container's copy and its index.yaml (the members'
				   texts are the render cache's); p->lock */
	size_t charged;         /* of bytes, what the render cache lent (one memory bound
				   for texts and containers: af_rcache_lend); p->lock */
	pthread_mutex_t lock;   /* all below */
	struct af_archive v;
	struct af_text *index;
	struct node *nodes;     /* the archives whose members were asked for */
	size_t nnodes;
	char name[256];         /* the container's base name, for index.yaml */
};

struct af_folders {
	pthread_mutex_t lock;  /* the table of loaded containers and their counts: never held
				  across a read, a render or an open of a container */
	pthread_mutex_t vlock; /* the verdicts only: never held across a read, so a lookup of
				  any other file never waits for a big container being read */
	struct verdict verdicts[VERDICTS];
	struct loaded *loaded[LOADED];
	unsigned long tick;
	size_t max_bytes; /* ... within the --cache-mb bound (the one in use is always kept) */
	struct af_rcache *cache; /* whose texts' memory the containers borrow */
};

struct af_folders *af_folders_new(size_t max_bytes, struct af_rcache *cache)
{
	struct af_folders *p = af_alloc_zeroed(1, sizeof(*p));
	if (p) {
		pthread_mutex_init(&p->lock, NULL);
		pthread_mutex_init(&p->vlock, NULL);
		p->max_bytes = max_bytes;
		p->cache = cache;
	}
	return p;
}

/* l freed (its last reference gone), and what it borrowed of the texts' memory given
 * back (p->cache is NULL once the mount ends). */
static void drop(struct af_folders *p, struct loaded *l)
{
	if (p->cache)
		af_rcache_repay(p->cache, l->charged);
	for (size_t i = 0; i < l->nnodes; i++)
		free(l->nodes[i].broken);
	free(l->nodes);
	af_text_unref(l->index);
	af_archive_close(&l->v);
	pthread_mutex_destroy(&l->lock);
	free(l);
}

void af_folders_free(struct af_folders *p)
{
	if (!p)
		return;
	p->cache = NULL; /* the mount's end: nothing to give back to */
	for (int i = 0; i < LOADED; i++)
		if (p->loaded[i])
			drop(p, p->loaded[i]);
	pthread_mutex_destroy(&p->lock);
	pthread_mutex_destroy(&p->vlock);
	free(p);
}

/* ---- folder or plain file ---- */

/* The container that shows rel as a folder (its bid, then its check), or NULL. */
static const struct af_container *check_file(struct af_fs *fs, const char *rel,
					     const struct stat *st)
{
	uint8_t head[64];
	size_t got = 0;
	const char *base = af_base(rel);
	if (af_bn_read_head(af_ov_at(fs, rel), rel, head, sizeof(head), &got))
		return NULL;
	const struct af_container *c = af_container_bid(base, head, got);
	if (!c)
		return NULL;
	struct af_diag d;
	int fd = af_bn_open(af_ov_at(fs, rel), rel, O_RDONLY, 0);
	af_diag_init(&d);
	if (fd < 0 || c->check(fd, (uint64_t)st->st_size, &d)) {
		char msg[1200];
		if (fd < 0)
			af_diag_error(&d, AF_EIO, "cannot open: %s", strerror(errno));
		af_diag_format(&d, rel, msg, sizeof(msg));
		af_fs_log(LOG_WARNING, "%s (shown as the plain file)", msg);
		c = NULL;
	}
	if (fd >= 0)
		close(fd);
	af_diag_free(&d);
	return c;
}

/* The same for every user (the shared verdicts and loaded containers are the
 * daemon's; a caller's right to read a member is proven before it is handed out). */
static const struct af_container *check_folder(struct af_fs *fs, const char *rel,
					       const struct stat *st)
{
	int was = af_act_pause();
	const struct af_container *c = check_file(fs, rel, st);
	af_act_resume(was);
	return c;
}

/* The verdict for st's identity: the check runs with no lock held (two threads may
 * both check a new identity: the same answer). */
static const struct af_container *verdict(struct af_fs *fs, const char *rel,
					  const struct stat *st)
{
	struct af_folders *p = fs->folders;
	struct af_fid id;
	const struct af_container *c;
	af_fid_of(st, &id);
	struct verdict *v = &p->verdicts[(size_t)st->st_ino % VERDICTS];
	pthread_mutex_lock(&p->vlock);
	int known = v->used && af_fid_same(&v->id, &id);
	c = v->folder;
	pthread_mutex_unlock(&p->vlock);
	if (known)
		return c;
	c = check_folder(fs, rel, st);
	pthread_mutex_lock(&p->vlock);
	v->folder = c;
	v->id = id;
	v->used = 1;
	pthread_mutex_unlock(&p->vlock);
	return c;
}

const struct af_container *af_folder_of(struct af_fs *fs, const char *rel, const struct stat *st)
{
	if (!fs->folders || !S_ISREG(st->st_mode))
		return NULL;
	return verdict(fs, rel, st);
}

int af_folder_is(struct af_fs *fs, const char *rel, const struct stat *st)
{
	return af_folder_of(fs, rel, st) != NULL;
}

/* ---- loaded containers ---- */

/* The table's entry for id with a new reference, or NULL. Call with p->lock held. */
static struct loaded *lookup(struct af_folders *p, const struct af_fid *id)
{
	for (int i = 0; i < LOADED; i++)
		if (p->loaded[i] && af_fid_same(&p->loaded[i]->id, id)) {
			p->loaded[i]->refs++;
			p->loaded[i]->last = ++p->tick;
			return p->loaded[i];
		}
	return NULL;
}

/* Slot i leaves the table; its users keep it, and one no one holds goes to gone[] (freed
 * once p->lock is released). Call with p->lock held. */
static void evict(struct af_folders *p, int i, struct loaded **gone, int *ngone)
{
	struct loaded *l = p->loaded[i];
	p->loaded[i] = NULL;
	if (--l->refs == 0)
		gone[(*ngone)++] = l;
}

/* Evict least recently used containers (never keep) until `more` bytes fit the bound.
 * Call with p->lock held. */
static void trim(struct af_folders *p, const struct loaded *keep, size_t more, struct loaded **gone,
		 int *ngone)
{
	for (;;) {
		size_t total = more;
		int lru = -1;
		for (int i = 0; i < LOADED; i++)
			if (p->loaded[i] && p->loaded[i] != keep) {
				total += p->loaded[i]->bytes;
				if (lru < 0 || p->loaded[i]->last < p->loaded[lru]->last)
					lru = i;
			}
		if (lru < 0 || total <= p->max_bytes)
			return;
		evict(p, lru, gone, ngone);
	}
}

static void free_gone(struct af_folders *p, struct loaded **gone, int ngone)
{
	for (int i = 0; i < ngone; i++)
		drop(p, gone[i]);
}

/* The loaded copy of the file as it was (st) leaves the table: a save replaced the file,
 * so that identity is never asked for again, and the old file's blocks are freed now,
 * not once newer containers push it out (held open meanwhile, the next saves' copies of
 * a 200 MiB AFS took 0.3-0.5 s instead of 0.05 s here: docs/benchmark.md). */
static void forget_loaded(struct af_fs *fs, const struct stat *st)
{
	struct af_folders *p = fs->folders;
	struct loaded *gone[1];
	struct af_fid id;
	int ngone = 0;
	af_fid_of(st, &id);
	pthread_mutex_lock(&p->lock);
	for (int i = 0; i < LOADED && !ngone; i++)
		if (p->loaded[i] && af_fid_same(&p->loaded[i]->id, &id)) {
			evict(p, i, gone, &ngone);
			break;
		}
	pthread_mutex_unlock(&p->lock);
	free_gone(p, gone, ngone);
}

/* A user's reference given back (the last one frees an evicted container). */
static void unref(struct af_folders *p, struct loaded *l)
{
	pthread_mutex_lock(&p->lock);
	int last = --l->refs == 0;
	pthread_mutex_unlock(&p->lock);
	if (last)
		drop(p, l);
}

/* The end of a use of l that load gave (its lock released, its reference given back). */
static void done(struct af_fs *fs, struct loaded *l)
{
	if (!l)
		return;
	pthread_mutex_unlock(&l->lock);
	unref(fs->folders, l);
}

/* l, which failed to open, out of the table. */
static void unlist(struct af_folders *p, struct loaded *l)
{
	struct loaded *gone[1];
	int ngone = 0;
	pthread_mutex_lock(&p->lock);
	for (int i = 0; i < LOADED; i++)
		if (p->loaded[i] == l)
			evict(p, i, gone, &ngone);
	pthread_mutex_unlock(&p->lock);
	free_gone(p, gone, ngone);
}

/* The loaded container for rel, read when its identity is new, with a reference and its
 * lock held (give both back with done()); NULL on failure. Another thread that asks
 * for the same identity while it is read finds the new entry and waits on its lock:
 * a container is read once, and nothing else waits for it. No lock is held while the
 * file is read; the table's only to find or insert the entry. */
static struct loaded *load_file(struct af_fs *fs, const char *rel, struct af_diag *d)
{
	struct af_folders *p = fs->folders;
	struct af_buf file = AF_BUF_INIT;
	struct stat st, fst;
	struct af_fid id, fid;
	struct loaded *l = NULL, *gone[LOADED + 1];
	int rc, ngone = 0, fd = -1, ov = af_ov_on(fs); /* --overlay: the container is merged in memory */
	if (af_ov_stat(fs, rel, &st)) {
		af_diag_error(d, AF_EIO, "cannot stat: %s", strerror(errno));
		goto out;
	}
	for (int attempt = 0;; attempt++) {
		af_fid_of(&st, &id);
		pthread_mutex_lock(&p->lock);
		l = lookup(p, &id);
		pthread_mutex_unlock(&p->lock);
		if (l)
			goto found;
		if (!ov) { /* replaced since the stat: opened again under its new identity */
			if ((fd = af_bn_open(fs->rootfd, rel, O_RDONLY, 0)) < 0 || fstat(fd, &fst)) {
				af_diag_error(d, AF_EIO, "cannot open: %s", strerror(errno));
				goto out;
			}
			af_fid_of(&fst, &fid);
			if (af_fid_same(&fid, &id))
				break;
			close(fd);
			fd = -1;
			st = fst;
		} else {
			af_buf_reset(&file);
			/* replaced while we read it: read it again under its new identity */
			rc = af_bn_read_stable(af_ov_at(fs, rel), rel, AF_MAX_FILE, &st, &file, d);
			if (rc < 0)
				goto out;
			if (rc == 0)
				break;
		}
		if (attempt >= 3) {
			af_diag_error(d, AF_EIO, "it keeps changing while it is read");
			goto out;
		}
	}
	/* a new entry, listed with its lock held until it is open */
	if (!(l = af_alloc_zeroed(1, sizeof(*l)))) {
		af_diag_error(d, AF_ENOMEM, "out of memory");
		goto out;
	}
	pthread_mutex_init(&l->lock, NULL);
	pthread_mutex_lock(&l->lock);
	l->id = id;
	l->refs = 2; /* the table's and ours */
	pthread_mutex_lock(&p->lock);
	struct loaded *other = lookup(p, &id); /* listed meanwhile by another thread */
	if (!other) {
		int slot = 0;
		for (int i = 0; i < LOADED; i++)
			if (!p->loaded[i] || (p->loaded[slot] && p->loaded[i]->last < p->loaded[slot]->last))
				slot = i;
		if (p->loaded[slot])
			evict(p, slot, gone, &ngone);
		p->loaded[slot] = l;
		l->last = ++p->tick;
	}
	pthread_mutex_unlock(&p->lock);
	if (other) {
		pthread_mutex_unlock(&l->lock);
		drop(p, l);
		l = other;
		goto found;
	}
	/* a container that reads only its tables (open_src) holds no copy of the file */
	const struct af_container *c = verdict(fs, rel, &st);
	size_t held = !ov && c && c->open_src ? 0 : (size_t)st.st_size;
	pthread_mutex_lock(&p->lock);
	trim(p, l, held, gone, &ngone);
	pthread_mutex_unlock(&p->lock);
	if (!c) {
		af_diag_error(d, AF_EIO, "no longer shown as a folder");
		goto failed;
	}
	if (ov && af_ov_merge(fs, rel, c, &file, d)) /* with --overlay: GAME's under MODDIR's */
		goto failed;
	struct af_sibio sib; /* the files beside it, which its container may read */
	struct af_src src = {ov ? file.data : NULL, fd, ov ? file.len : (uint64_t)st.st_size, 0};
	af_sibio_init(&sib, fs, rel);
	int orc = af_archive_open_src(&l->v, c, &src, &sib.d.io, d);
	af_sibio_close(&sib);
	af_rcache_note_open(fs->cache);
	if (orc)
		goto failed;
	l->ok = 1;
	snprintf(l->name, sizeof(l->name), "%s", af_base(rel));
	size_t bytes = ov ? file.len : held + af_archive_held(&l->v); /* + a layer's bytes */
	size_t lent = af_rcache_lend(fs->cache, bytes); /* cached texts leave memory for it */
	pthread_mutex_lock(&p->lock);
	l->bytes = bytes;
	l->charged = lent;
	pthread_mutex_unlock(&p->lock);
	goto out;
failed:
	unlist(p, l); /* a later ask reads it again */
	done(fs, l);
	l = NULL;
	goto out;
found: /* listed: wait until whoever reads or uses it is done */
	__atomic_add_fetch(&l->waiting, 1, __ATOMIC_ACQ_REL);
	pthread_mutex_lock(&l->lock);
	__atomic_sub_fetch(&l->waiting, 1, __ATOMIC_ACQ_REL);
	if (!l->ok) { /* its reading failed (and said why) */
		done(fs, l);
		l = NULL;
		af_diag_error(d, AF_EIO, "cannot be read");
	}
out:
	free_gone(p, gone, ngone);
	if (fd >= 0)
		close(fd);
	af_buf_free(&file);
	return l;
}

static struct loaded *load(struct af_fs *fs, const char *rel, struct af_diag *d)
{
	int was = af_act_pause();
	struct loaded *l = load_file(fs, rel, d);
	af_act_resume(was);
	return l;
}

/* Between two members of a listing (l->lock held, and held again on return): the
 * threads waiting for l meanwhile go first, each for its own use (a member's text, a
 * lookup), so a long listing of an archive keeps its other users waiting for one
 * member at most, not for the whole loop. Bounded: a stream of newcomers does not
 * starve the listing. */
static void let_waiters_in(struct loaded *l)
{
	unsigned before = __atomic_load_n(&l->waiting, __ATOMIC_ACQUIRE);
	if (!before)
		return;
	pthread_mutex_unlock(&l->lock);
	for (int spins = 0; spins < 1000 && __atomic_load_n(&l->waiting, __ATOMIC_ACQUIRE) >= before;
	     spins++)
		sched_yield();
	pthread_mutex_lock(&l->lock);
}

/* The node of archive a (made on the first ask); NULL on ENOMEM. Call with l->lock held. */
static struct node *node_of(struct loaded *l, const struct af_archive *a)
{
	struct node *n;
	for (size_t i = 0; i < l->nnodes; i++)
		if (l->nodes[i].a == a)
			return &l->nodes[i];
	if (!(n = af_resize(l->nodes, (l->nnodes + 1) * sizeof(*n))))
		return NULL;
	l->nodes = n;
	n = &l->nodes[l->nnodes];
	n->a = a;
	n->broken = af_alloc_zeroed(a->n ? a->n : 1, 1);
	if (!n->broken)
		return NULL;
	for (size_t k = 0; k < a->n; k++)
		n->broken[k] = !a->m[k].codec; /* raw: its bytes, read-only */
	l->nnodes++;
	return n;
}

/* The identity of a container (the key of its members' entries in the render cache). */
static struct stat id_stat(const struct af_fid *id)
{
	struct stat st;
	memset(&st, 0, sizeof(st));
	st.st_dev = id->dev;
	st.st_ino = id->ino;
	st.st_size = id->size;
	st.st_mtim.tv_sec = id->mtime / 1000000000, st.st_mtim.tv_nsec = id->mtime % 1000000000;
	st.st_ctim.tv_sec = id->ctime / 1000000000, st.st_ctim.tv_nsec = id->ctime % 1000000000;
	return st;
}

/* A member view's key beside its container's identity: its "X/.../member" path (which
 * its text's modeline names, and no other member's path is); a folder's listing: its
 * path after a byte no path holds. Never 0 (the container file's own entry). */
static uint64_t member_key(const char *bin)
{
	return af_fnv1_64(bin, strlen(bin)) | 1;
}

static uint64_t listing_key(const char *dir)
{
	return (af_fnv1_64(dir, strlen(dir)) ^ af_fnv1_64("\1", 1)) | 1;
}

/* index.yaml of the folder bin ("X", or "X/A/index.yaml" nested). */
static uint64_t index_key(const char *bin)
{
	return (af_fnv1_64(bin, strlen(bin)) ^ af_fnv1_64("\2", 1)) | 1;
}

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

static struct af_text *item_text(struct af_fs *fs, struct loaded *l, struct node *n, size_t k,
				 const char *bin)
{
	struct af_rinfo info;
	struct af_text *t = NULL;
	struct stat st = id_stat(&l->id);
	uint64_t sub = member_key(bin);
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

/* "dir/X/inner" -> pkg "dir/X", *inner "inner" (which may name nested members, "A/B"),
 * when X is a container's file shown as a folder. */
static const struct af_container *split(struct af_fs *fs, const char *rel, char *pkg, size_t size,
					const char **inner, struct stat *st)
{
	const struct af_container *c;
	const char *last = strrchr(rel, '/');
	if (!last || (size_t)(last - rel) >= size)
		return NULL;
	/* the common cases at one stat: the parent is a real folder, or the container */
	snprintf(pkg, size, "%.*s", (int)(last - rel), rel);
	if (!af_ov_stat(fs, pkg, st)) {
		if (!S_ISREG(st->st_mode) || !(c = af_folder_of(fs, pkg, st)))
			return NULL;
		*inner = last + 1;
		return c;
	}
	for (const char *slash = strchr(rel, '/'); slash; slash = strchr(slash + 1, '/')) {
		if ((size_t)(slash - rel) >= size || !slash[1])
			return NULL;
		snprintf(pkg, size, "%.*s", (int)(slash - rel), rel);
		if (af_ov_stat(fs, pkg, st))
			return NULL;
		if (S_ISDIR(st->st_mode))
			continue;
		if (!S_ISREG(st->st_mode) || !(c = af_folder_of(fs, pkg, st)))
			return NULL;
		*inner = slash + 1;
		return c;
	}
	return NULL;
}

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
	return split(fs, rel, file, size, &inner, &st) != NULL;
}

int af_folder_member(struct af_fs *fs, const char *rel)
{
	char pkg[4096];
	const char *name;
	struct stat st;
	return split(fs, rel, pkg, sizeof(pkg), &name, &st) != NULL;
}

static void log_diag(const char *rel, const struct af_diag *d, const char *what)
{
	char msg[1200];
	af_diag_format(d, rel, msg, sizeof(msg));
	af_fs_log(LOG_WARNING, "%s (%s)", msg, what);
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
	struct node *nd = k >= 0 && !strcmp(h->m[k].name, item) ? node_of(l, h) : NULL;
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
	struct stat st = id_stat(&l->id);
	if (af_rcache_get_member(fs->cache, &st, member_key(r->bin), &known, NULL) &&
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
	if (!af_rcache_get_member(fs->cache, st, member_key(r->bin), &known, NULL) || known.failed ||
	    !known.codec || !known.have_size) {
		r->bin[0] = 0;
		return 0;
	}
	r->kind = AF_K_VIEW;
	r->info = known;
	r->info.name_hash = 0;
	return 1;
}

int af_folder_resolve(struct af_fs *fs, struct af_res *r)
{
	char pkg[sizeof(r->bin) - AF_MEMBER_NAME_MAX - 1]; /* room for "/<name>" in r->bin */
	const char *inner, *leaf;
	struct stat st;
	struct af_diag d;
	if (!split(fs, r->rel, pkg, sizeof(pkg), &inner, &st))
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
	struct loaded *l = load(fs, pkg, &d);
	struct af_archive *h = l ? af_archive_walk(&l->v, inner, &leaf) : NULL;
	if (h && !strcmp(leaf, AF_INDEX_NAME)) { /* a nested folder's index */
		r->kind = AF_K_ARCFILE;
		snprintf(r->bin, sizeof(r->bin), "%s", r->rel);
	} else if (h) {
		resolve_leaf(fs, l, h, pkg, inner, leaf, r);
	}
	done(fs, l);
	if (d.code)
		log_diag(pkg, &d, "cannot be listed");
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
	uint64_t key = listing_key(dir);
	if (!split(fs, dir, pkg, sizeof(pkg), &inner, &st)) {
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
	struct loaded *l = load(fs, pkg, &d); /* its lock held: only its own users wait */
	struct af_archive *h = l ? folder_at(l, inner) : NULL;
	struct node *nd = h ? node_of(l, h) : NULL;
	int listed = nd != NULL;
	/* Each member is rendered before it is named (ls -l would stat each anyway, and
	 * the texts are kept): one that does not decode is listed raw, never as a view
	 * whose stat fails. A nested container is a folder. */
	for (size_t n = 0; nd && n < h->n; n++) {
		char shown[AF_MEMBER_NAME_MAX * 3];
		if (n % 64 == 63 && __atomic_load_n(&l->waiting, __ATOMIC_ACQUIRE)) {
			/* h stays (l->v and its nested archives live as long as l); the nodes
			 * may have moved, and broken[] may have gained marks: read again */
			let_waiters_in(l);
			if (!(nd = node_of(l, h)))
				listed = 0; /* ENOMEM: what is listed so far, not kept */
			if (!nd)
				break;
		}
		int folder = af_archive_sub(h, n) != NULL;
		af_member_shown(h->m[n].name, 1, shown, sizeof(shown));
		snprintf(bin, sizeof(bin), "%s/%s", dir, shown);
		struct af_text *t = folder ? NULL : item_text(fs, l, nd, n, bin);
		int view = !folder && (t || !nd->broken[n]);
		af_text_unref(t);
		af_member_shown(h->m[n].name, view, shown, sizeof(shown));
		af_buf_append(&names, shown, strlen(shown));
		if (view)
			af_buf_append(&names, AF_VIEW_SUFFIX, strlen(AF_VIEW_SUFFIX));
		af_buf_append(&names, "", 1);
	}
	struct stat id = l ? id_stat(&l->id) : st;
	done(fs, l);
	if (names.failed)
		af_buf_reset(&names);
	list_names(names.data, names.len, cb, ctx);
	/* kept for the next listing of this identity (ov: the folder is a merge) */
	if (listed && !d.code && !af_ov_on(fs) && !names.failed && (known = af_text_take(&names))) {
		af_rcache_put_member_text(fs->cache, &id, key, NULL, 1, NULL, known);
		af_text_unref(known);
	}
	if (d.code)
		log_diag(dir, &d, "cannot be listed");
	af_diag_free(&d);
	af_buf_free(&names);
	return 0;
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
	struct node *nd = node_of(l, h);
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
	if (!split(fs, bin, pkg, sizeof(pkg), &inner, &st)) {
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
	if (index && af_rcache_get_member(fs->cache, &st, index_key(bin), &info, out) && *out)
		return 0;
	if (!ro && inner && !af_ov_on(fs) &&
	    af_rcache_get_member(fs->cache, &st, member_key(bin), &info, out) && *out)
		return 0;
	af_rcache_names_stamp(&names);
	af_diag_init(&d);
	struct loaded *l = load(fs, pkg, &d);
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
	struct node *nd = node_of(l, h);
	*out = nd ? item_text(fs, l, nd, (size_t)found, bin) : NULL;
	rc = *out ? 0 : nd && nd->broken[found] ? -EIO : -ENOMEM;
out:
	if (l && index && !rc) {
		struct stat id = id_stat(&l->id);
		af_rcache_put_member_text(fs->cache, &id, index_key(bin), NULL, 1, &names, *out);
	}
	done(fs, l);
	if (d.code)
		log_diag(inner ? bin : pkg, &d, "not shown");
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
	if (!split(fs, bin, pkg, sizeof(pkg), &inner, &st) || !inner)
		return -EIO;
	af_diag_init(&d);
	struct loaded *l = load(fs, pkg, &d);
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
	done(fs, l);
	af_diag_free(&d);
	return rc;
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

/* ---- members gained and lost (container.h add, remove) ---- */

/* The new member name of v holding yaml, into image: the container's add, which says
 * why when it takes no such member (its d), or that it gains none at all. */
static int add_member(const struct af_archive *v, const char *cname, const char *name,
		      const uint8_t *yaml, size_t n, struct af_buf *image, struct af_diag *d)
{
	int rc = af_member_add(v, name, yaml, n, image, d);
	if (rc == AF_EUNSUP) {
		af_diag_clear(d);
		rc = af_diag_error(d, AF_EINVAL, "%s holds no member '%s', and a %s gains none through the view",
				   cname, name, v->c->noun);
	}
	return rc;
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
	if (!(c = split(fs, bin, pkg, sizeof(pkg), &name, &st))) {
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
			forget_loaded(fs, &st);
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
	t->container = split(fs, to->bin_rel, t->pkg, sizeof(t->pkg), &t->inner, &t->pkg_st);
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
	struct af_rcache *cache;
	struct af_archive *v; /* the outermost archive (its YAML bound) */
	struct af_archive *h; /* the one holding the member */
	long k;           /* the member, or < 0: a new one, raw */
	const char *base;
	const char *raw;
	const uint8_t *yaml;
	size_t n;
	int ov;
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
	j->v->yaml_max = af_parse_begin(&ps, j->cache, j->n, alone);
	j->v->yaml_more = af_loan_more;
	j->v->yaml_more_ctx = &ps.loan;
	if (j->k < 0 || strcmp(h->m[j->k].name, j->raw)) {
		/* a new name in the folder: a new member, when the container takes one */
		rc = add_member(h, j->base, j->raw, j->yaml, j->n, j->image, j->d);
		*j->changed = 1;
	} else {
		rc = j->ov ? af_member_commit(h, (size_t)j->k, j->yaml, j->n, j->image, j->changed, j->d)
			   : af_member_commit_plan(h, (size_t)j->k, j->yaml, j->n, j->plan, j->changed, j->d);
	}
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
	/* the memory bound: the tree's own share from the renders' pool, and the texts'
	 * lent when it needs more (af_budget_run: again, alone, when refused short) */
	struct member_save job = {fs->cache, &v, h, k, base, raw, yaml, n, ov, &image, &plan, &changed, d};
	rc = af_budget_run(member_save_attempt, &job);
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
		forget_loaded(fs, &st);
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
