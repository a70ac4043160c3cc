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
#include <syslog.h>
#include <unistd.h>

#include "animfs/yamlio.h"
#include "animfs/fs.h"
#include "animfs/path.h"
#include "animfs/beneath.h"
#include "animfs/container.h"
#include "animfs/fileio.h"
#include "animfs/fnv.h"
#include "binary.h"
#include "errlog.h"
#include "folder.h"
#include "derive.h"
#include "folder_int.h"
#include "overlay.h"
#include "render.h"
#include "res.h"
#include "session.h"
#include "who.h"

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
	if (p->cache) /* its charge, and what archives nested in it borrowed since */
		af_rcache_repay(p->cache, l->nest.t.lent > l->charged ? l->nest.t.lent : l->charged);
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
		/* said where a user looks: the file's line, no one's text (once: a check
		 * made again after its verdict left the table replaces it) */
		af_errlog_forget(fs->errors, rel);
		af_errlog_add(fs->errors, AF_ERRLOG_ALL, rel, &d);
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
const struct af_container *af_folder_verdict(struct af_fs *fs, const char *rel,
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

/* st's identity is shown as its plain file from now on (its tables would pass the bound). */
static void not_a_folder(struct af_fs *fs, const struct stat *st)
{
	struct af_folders *p = fs->folders;
	struct verdict *v = &p->verdicts[(size_t)st->st_ino % VERDICTS];
	pthread_mutex_lock(&p->vlock);
	af_fid_of(st, &v->id);
	v->folder = NULL;
	v->used = 1;
	pthread_mutex_unlock(&p->vlock);
}

const struct af_container *af_folder_of(struct af_fs *fs, const char *rel, const struct stat *st)
{
	if (!fs->folders || !S_ISREG(st->st_mode))
		return NULL;
	return af_folder_verdict(fs, rel, st);
}

int af_folder_is(struct af_fs *fs, const char *rel, const struct stat *st)
{
	return af_folder_of(fs, rel, st) != NULL;
}

/* ---- loaded containers ---- */

/* The table's entry for id with a new reference, or NULL. Call with p->lock held. */
struct loaded *af_loaded_find(struct af_folders *p, const struct af_fid *id)
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
void af_loaded_forget(struct af_fs *fs, const struct stat *st)
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
void af_loaded_done(struct af_fs *fs, struct loaded *l)
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
 * lock held (give both back with af_loaded_done()); NULL on failure. Another thread that asks
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
		l = af_loaded_find(p, &id);
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
	struct loaded *other = af_loaded_find(p, &id); /* listed meanwhile by another thread */
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
	const struct af_container *c = af_folder_verdict(fs, rel, &st);
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
	struct af_table_room room = {fs->cache, held, 0, 0, 0}; /* its tables: within the bound */
	af_sibio_init(&sib, fs, rel);
	sib.d.io.mem_room = af_table_room;
	sib.d.io.mem_ctx = &room;
	int orc = af_archive_open_src(&l->v, c, &src, &sib.d.io, d);
	af_sibio_close(&sib);
	af_rcache_note_open(fs->cache);
	if (orc) {
		af_rcache_repay(fs->cache, room.lent);
		if (room.refused) { /* shown as its plain file, as a view past the bound is */
			af_table_refused(fs, rel, d);
			not_a_folder(fs, &st);
			af_face_note(fs, AF_NOTE_NAMES, rel); /* the folder is a file now */
		}
		goto failed;
	}
	l->ok = 1;
	snprintf(l->name, sizeof(l->name), "%s", af_base(rel));
	size_t bytes = ov ? file.len : held + af_archive_held(&l->v); /* + a layer's bytes */
	size_t lent = room.lent; /* cached texts leave memory for it */
	if (bytes > lent)
		lent += af_rcache_lend(fs->cache, bytes - lent);
	pthread_mutex_lock(&p->lock);
	l->bytes = bytes;
	l->charged = lent;
	pthread_mutex_unlock(&p->lock);
	l->nest = (struct af_nest_room){{fs->cache, held, lent, 0, 0}, fs, ""};
	snprintf(l->nest.rel, sizeof(l->nest.rel), "%s", rel);
	l->v.nest_room = af_nest_room;
	l->v.nest_ctx = &l->nest;
	goto out;
failed:
	unlist(p, l); /* a later ask reads it again */
	af_loaded_done(fs, l);
	l = NULL;
	goto out;
found: /* listed: wait until whoever reads or uses it is done */
	__atomic_add_fetch(&l->waiting, 1, __ATOMIC_ACQ_REL);
	pthread_mutex_lock(&l->lock);
	__atomic_sub_fetch(&l->waiting, 1, __ATOMIC_ACQ_REL);
	if (!l->ok) { /* its reading failed (and said why) */
		af_loaded_done(fs, l);
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

struct loaded *af_loaded_get(struct af_fs *fs, const char *rel, struct af_diag *d)
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
void af_loaded_let_in(struct loaded *l)
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
struct node *af_loaded_node(struct loaded *l, const struct af_archive *a)
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
struct stat af_loaded_stat(const struct af_fid *id)
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
uint64_t af_member_key(const char *bin)
{
	return af_fnv1_64(bin, strlen(bin)) | 1;
}

uint64_t af_listing_key(const char *dir)
{
	return (af_fnv1_64(dir, strlen(dir)) ^ af_fnv1_64("\1", 1)) | 1;
}

/* index.yaml of the folder bin ("X", or "X/A/index.yaml" nested). */
uint64_t af_index_key(const char *bin)
{
	return (af_fnv1_64(bin, strlen(bin)) ^ af_fnv1_64("\2", 1)) | 1;
}

/* "dir/X/inner" -> pkg "dir/X", *inner "inner" (which may name nested members, "A/B"),
 * when X is a container's file shown as a folder. */
const struct af_container *af_folder_split(struct af_fs *fs, const char *rel, char *pkg, size_t size,
					const char **inner, struct stat *st)
{
	return af_view_holder(fs, rel, pkg, size, inner, st) > 0 ? af_folder_of(fs, pkg, st) : NULL;
}

void af_folder_log_diag(const char *rel, const struct af_diag *d, const char *what)
{
	char msg[1200];
	af_diag_format(d, rel, msg, sizeof(msg));
	af_fs_log(LOG_WARNING, "%s (%s)", msg, what);
}
