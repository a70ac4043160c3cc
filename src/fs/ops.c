/* The FUSE operations of the view: the fuse_operations table, which only dispatches,
 * each request as its caller (who.c; its uid, gid and groups from the FUSE context:
 * act_caller), and the operations on open files with getattr (which an open file
 * answers first), each one the namespace's (src/view/nsfile.c: views and control files
 * are text handles, a view saves on flush and fsync, pass-through and scratch files are
 * plain descriptors) with FUSE's file info, its caller's process and the kernel's page
 * cache around it. The names' operations are nodeops.c's.
 *
 * The kernel keeps names and attributes while nothing changed (the timeouts of
 * op_init, dropped at every change: kcache.h), except under allow_other, where every
 * lookup and stat reaches the daemon for each caller's own answer (a caller who may
 * not read a binary is shown its size, not its view's: the kernel keeps one size per
 * inode, not one per caller).
 *
 * The kernel's page cache (issue 43): a view opened for reading and a pass-through
 * file are read through it, and its pages are kept across opens (keep_cache) while the
 * text is the one they came from (kcache.h: the proven binary's identity, the codec
 * and its version, the text's length, and what else its render read: the siblings
 * and the user dictionary a Jazz or CLIP view takes names from, by their identities,
 * deps.h). Served with direct_io, every read a round trip as before: a view opened
 * for writing (its buffer is the handle's), control files and a container's
 * index.yaml (made of more than one file's identity), a text of other sources whose
 * render did not note them (a container's member that takes names from the user
 * dictionary, a split view's part), and under -o allow_other a text that read
 * siblings as its caller (another caller's text and size differ, and the kernel's
 * pages and size are one per inode).
 * The size the kernel reads up to is the lookup's: a read past it asks again.
 *
 * The kernel's pages and size are one per inode, while each open of a view reads the
 * text it opened (a reader during a save reads the old text or the new, never a mix):
 * so a view is read through the page cache only while every handle of it open is
 * such a reader of the same text (af_handle_cache_claim), and never again once it was
 * opened for writing through the mount (af_kc_written: a writer's truncation and
 * writes change the size every reader's reads stop at). A reader open through the
 * page cache when a view is first opened for writing keeps its text whole: the kernel
 * marks the size stale at the writer's O_TRUNC and at each of its writes, and a read
 * that reaches the size asks it again through the reader's handle, answered with that
 * handle's text (af_op_getattr; tests/mount/page_cache.sh reads past the writer's size,
 * with and without -o attr_cache). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "animfs/fs.h"

#include "ops.h" /* FUSE_USE_VERSION before fuse_lowlevel.h */
#include <fuse_lowlevel.h>

#include "errlog.h"
#include "kcache.h"
#include "listcache.h"
#include "ns.h"
#include "overlay.h"
#include "watch.h"
#include "who.h"

static void *op_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	if (conn->capable & FUSE_CAP_ATOMIC_O_TRUNC)
		conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
	/* No READDIRPLUS: the listings carry no attributes (every stat reaches the daemon),
	 * and libfuse's high-level readdirplus keeps entries filled at offset 0 in a list
	 * that each later request walks from its start: quadratic in a folder's entries
	 * (a 1 M-entry archive listed in 6.5x the time of `ls` of 1 M plain files). The
	 * plain readdir serves each request from one buffer by offset. */
	conn->want &= ~(unsigned)(FUSE_CAP_READDIRPLUS | FUSE_CAP_READDIRPLUS_AUTO);
	/* Lookups and listings of one folder at once: without it the kernel holds the
	 * folder's lock across each lookup, so the first lookup of a big archive (its
	 * check reads its tables: ~1 s for 1 M entries) keeps the other names of its
	 * folder waiting (issue 28). libfuse passes it to the kernel from 3.16 on only
	 * (3.14 drops it: docs/benchmark.md). */
	/* Pages are dropped at an open whose text is another (below), and when a
	 * lookup or stat finds another size; not at every read whose stat shows another
	 * mtime: with attributes never cached that stat would be a round trip per read. */
	conn->want &= ~(unsigned)FUSE_CAP_AUTO_INVAL_DATA;
	if (conn->capable & FUSE_CAP_PARALLEL_DIROPS)
		conn->want |= FUSE_CAP_PARALLEL_DIROPS;
	conn->max_read = AF_FUSE_MAX_READ; /* the mount's option (session.c) */
	cfg->use_ino = 0;
	cfg->nullpath_ok = 0; /* paths when known; NULL only for unlinked open files */
	/* An open file that is removed or replaced stays reachable under a .fuse_hidden
	 * name, so its descriptors keep working (fstat of `tail -f` across a save);
	 * such names are aliases that never reach GAME (hidden.c). */
	cfg->hard_remove = 0;
	/* Names and attributes kept S seconds (-o attr_cache=S; by default
	 * AF_ATTR_CACHE_DEFAULT when the kernel can be told of every change at once, else
	 * 0: every lookup and stat asks). Every change the mount makes or is told of ends in
	 * af_kc_epoch (kcache.h): the kernel looks each name up again at its next use, so
	 * a stat shows at once what a save, a rename or a change in GAME made of it (the
	 * watches of src/view/watch.c tell of those behind the mount's back, as they
	 * happen), a view turned into a folder or back included. An open that finds
	 * another text drops the attributes with the pages (below), so a read never
	 * stops at a stale size. What cannot be watched (past the watches' bound, a
	 * file system whose changes come from elsewhere) shows in a stat up to S seconds
	 * late (watch.c: then the names are dropped every second). Without the
	 * notification (a kernel before 6.16, protocol 7.44) the default is 0. Not under
	 * allow_other (state.c): the kernel keeps one size per inode, a caller who may not
	 * read a binary is shown its own. A name that is not there is always asked again
	 * (new files show at once). */
	struct af_fs *fs = af_ctx_fs();
	int epochs = conn->proto_major > 7 || (conn->proto_major == 7 && conn->proto_minor >= 44);
	if (fs->attr_cache < 0)
		fs->attr_cache = epochs && af_watch_whole(fs) ? AF_ATTR_CACHE_DEFAULT : 0;
	af_kc_epochs(epochs && fs->attr_cache > 0);
	if (fs->attr_cache > 0)
		af_fs_log(LOG_INFO, "names and attributes kept %g s; changes told to the kernel "
			  "at once: %s", fs->attr_cache,
			  !epochs ? "no (a kernel before protocol 7.44)"
			  : af_watch_whole(fs) ? "yes" : "through the mount only (GAME not watched)");
	cfg->attr_timeout = fs->attr_cache;
	cfg->entry_timeout = fs->attr_cache;
	cfg->negative_timeout = 0;
	return fs;
}

/* ---- the caller of a request: its uid, gid, umask and groups from the FUSE context,
 * and the thread acting as it for the request (the face's half of who.c) ---- */

/* The groups of the caller's process, read from /proc by the FUSE library: kept a
 * second per thread for the same process and user. */
static __thread struct {
	pid_t pid;
	uid_t uid;
	gid_t gid;
	time_t at;
	int n;
	gid_t g[AF_WHO_GROUPS];
} groups_seen;

static int who_of_request(struct af_who *w)
{
	struct fuse_context *c = fuse_get_context();
	struct af_who self = af_who_self();
	memset(w, 0, sizeof(*w));
	w->uid = c->uid;
	w->gid = c->gid;
	w->umask = c->umask;
	w->ngroups = -1;
	if (!af_act_enabled() || c->uid == 0 || (c->uid == self.uid && c->gid == self.gid))
		return 0;
	time_t now = time(NULL);
	if (groups_seen.pid == c->pid && groups_seen.uid == c->uid && groups_seen.gid == c->gid &&
	    groups_seen.at == now) {
		w->ngroups = groups_seen.n;
		memcpy(w->groups, groups_seen.g, sizeof(gid_t) * (size_t)groups_seen.n);
		return 0;
	}
	int n = fuse_getgroups(AF_WHO_GROUPS, w->groups);
	if (n < 0) /* no /proc entry (the process is gone): its own group only */
		n = 0;
	if (n > AF_WHO_GROUPS) {
		/* dropping one could grant what a group denies (mode 0604): refuse */
		af_fs_log(LOG_WARNING, "uid %u is in %d groups, more than the %d animfs acts with: "
			  "request refused", (unsigned)c->uid, n, AF_WHO_GROUPS);
		return -EACCES;
	}
	w->ngroups = n;
	groups_seen.pid = c->pid;
	groups_seen.uid = c->uid;
	groups_seen.gid = c->gid;
	groups_seen.at = now;
	groups_seen.n = n;
	memcpy(groups_seen.g, w->groups, sizeof(gid_t) * (size_t)n);
	return 0;
}

/* The thread takes the identity of the request's caller: 0, or -errno (-EACCES: in more
 * groups than animfs acts with) and it keeps the daemon's. */
static int act_caller(void)
{
	struct af_who w;
	int rc = who_of_request(&w);
	return rc ? rc : af_act_as(&w);
}

/* A core result as the errno of a request. -EAGAIN (a binary replaced between its proof
 * and its read more often than it was proven again: a rename race) is no answer for a
 * blocking read or open: it is EIO, as for a file that changed under the read. */
static int face_errno(int rc)
{
	rc = af_code_errno(rc);
	return rc == -EAGAIN ? -EIO : rc;
}

/* Every request runs as its caller (act_caller); the daemon's identity comes back at the
 * end, then `after` is done, and what the core said becomes errno here (af_code_errno:
 * an AF_E* result code its -errno, a -errno as it is). */
#define AS_CALLER_THEN(call, after)                                                  \
	do {                                                                         \
		int rc_ = act_caller();                                              \
		if (!rc_)                                                            \
			rc_ = (call);                                                \
		af_act_done();                                                       \
		after;                                                               \
		return rc_ < 0 ? face_errno(rc_) : rc_;                              \
	} while (0)
#define AS_CALLER(call) AS_CALLER_THEN(call, (void)0)
/* A request that may change what a stat shows (kcache.h: the open views' remembered
 * stats are of an older generation from then on). */
#define CHANGING(call) AS_CALLER_THEN(call, (af_kc_changed(), af_lc_changed()))
/* A close: a writer's may have saved (a name made, a binary shown as its view, a view
 * split); a reader's changes no name (listcache.h). */
#define CLOSING(call, fi)                                                              \
	AS_CALLER_THEN(call, (af_kc_changed(),                                        \
			      ((fi)->flags & O_ACCMODE) != O_RDONLY ? af_lc_changed() : (void)0))

typedef struct fuse_file_info ffi;
static int getattr_(const char *p, struct stat *st, ffi *fi) { AS_CALLER(af_op_getattr(p, st, fi)); }
static int opendir_(const char *p, ffi *fi) { AS_CALLER(af_op_opendir(p, fi)); }
static int releasedir_(const char *p, ffi *fi) { AS_CALLER(af_op_releasedir(p, fi)); }
static int readdir_(const char *p, void *b, fuse_fill_dir_t f, off_t o, ffi *fi,
		    enum fuse_readdir_flags fl) { AS_CALLER(af_op_readdir(p, b, f, o, fi, fl)); }
static int readlink_(const char *p, char *b, size_t n) { AS_CALLER(af_op_readlink(p, b, n)); }
static int symlink_(const char *t, const char *p) { CHANGING(af_op_symlink(t, p)); }
static int mkdir_(const char *p, mode_t m) { CHANGING(af_op_mkdir(p, m)); }
static int rmdir_(const char *p) { CHANGING(af_op_rmdir(p)); }
static int unlink_(const char *p) { CHANGING(af_op_unlink(p)); }
static int rename_(const char *a, const char *b, unsigned fl) { CHANGING(af_op_rename(a, b, fl)); }
static int chmod_(const char *p, mode_t m, ffi *fi) { CHANGING(af_op_chmod(p, m, fi)); }
static int chown_(const char *p, uid_t u, gid_t g, ffi *fi) { CHANGING(af_op_chown(p, u, g, fi)); }
static int utimens_(const char *p, const struct timespec tv[2], ffi *fi) { CHANGING(af_op_utimens(p, tv, fi)); }
static int statfs_(const char *p, struct statvfs *st) { AS_CALLER(af_op_statfs(p, st)); }
static int removexattr_(const char *p, const char *n) { AS_CALLER(af_op_removexattr(p, n)); }
static int open_(const char *p, ffi *fi) { AS_CALLER(af_op_open(p, fi)); }
static int create_(const char *p, mode_t m, ffi *fi) { CHANGING(af_op_create(p, m, fi)); }
static int read_(const char *p, char *b, size_t n, off_t o, ffi *fi) { AS_CALLER(af_op_read(p, b, n, o, fi)); }
static int write_(const char *p, const char *b, size_t n, off_t o, ffi *fi) { AS_CALLER(af_op_write(p, b, n, o, fi)); }
static int truncate_(const char *p, off_t n, ffi *fi) { CHANGING(af_op_truncate(p, n, fi)); }
static int flush_(const char *p, ffi *fi) { CLOSING(af_op_flush(p, fi), fi); }
static int fsync_(const char *p, int ds, ffi *fi) { CHANGING(af_op_fsync(p, ds, fi)); }
static int release_(const char *p, ffi *fi) { CLOSING(af_op_release(p, fi), fi); }

static const struct fuse_operations ops = {
	.init = op_init,
	.getattr = getattr_,
	.opendir = opendir_,
	.readdir = readdir_,
	.releasedir = releasedir_,
	.readlink = readlink_,
	.symlink = symlink_,
	.mkdir = mkdir_,
	.rmdir = rmdir_,
	.unlink = unlink_,
	.rename = rename_,
	.chmod = chmod_,
	.chown = chown_,
	.utimens = utimens_,
	.statfs = statfs_,
	.removexattr = removexattr_,
	.open = open_,
	.create = create_,
	.read = read_,
	.write = write_,
	.truncate = truncate_,
	.flush = flush_,
	.fsync = fsync_,
	.release = release_,
};

const struct fuse_operations *af_fs_operations(void)
{
	return &ops;
}

/* ------------------------------------------------------------ open files and their pages */

/* ---- what the kernel keeps of the mount's files between opens (kcache.h) ----
 * A bounded table of path hash -> identity (open addressing, linear probes): full, it
 * forgets one path the clock finds not used since its last sweep (that path's next
 * open drops its pages: never a stale one kept). A folder's rename or removal forgets
 * everything (the table knows hashes, not names below a folder): rare, only a cost. */

#define KC_SLOTS 65536u /* a power of two */
#define KC_MAX (KC_SLOTS / 4 * 3) /* paths kept at most: one is forgotten for another */

struct slot {
	uint64_t path, id;      /* path 0: free */
	unsigned char written;  /* af_kc_written */
	unsigned char used;     /* asked for since the clock's hand last passed */
};
static struct slot table[KC_SLOTS];
static unsigned used, hand;
static pthread_mutex_t kc_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}

/* FUSE's paths start with '/'; one path, one hash, however it is spelled there. */
static uint64_t path_hash(const char *path)
{
	while (*path == '/')
		path++;
	if (!*path)
		path = ".";
	uint64_t h = fnv(0xcbf29ce484222325ull, path, strlen(path));
	return h ? h : 1;
}

uint64_t af_kc_id(const struct stat *src, const void *maker, unsigned version, uint64_t len,
		  int kind, uint64_t others)
{
	uint64_t f[10] = {others,
			 (uint64_t)src->st_dev,
			 (uint64_t)src->st_ino,
			 (uint64_t)src->st_size,
			 (uint64_t)src->st_mtim.tv_sec * 1000000000ull + (uint64_t)src->st_mtim.tv_nsec,
			 (uint64_t)src->st_ctim.tv_sec * 1000000000ull + (uint64_t)src->st_ctim.tv_nsec,
			 (uint64_t)(uintptr_t)maker,
			 version,
			 len,
			 (uint64_t)kind};
	uint64_t h = fnv(0xcbf29ce484222325ull, f, sizeof(f));
	return h ? h : 1;
}

#define NEXT(i) (((i) + 1) & (KC_SLOTS - 1))

static unsigned home(uint64_t path)
{
	return (unsigned)path & (KC_SLOTS - 1);
}

/* Slot i emptied, the probe chains through it kept whole: each later slot of the run
 * whose home is not between i and it moves back into the hole. */
static void remove_at(unsigned i)
{
	for (unsigned j = NEXT(i); table[j].path; j = NEXT(j)) {
		unsigned h = home(table[j].path);
		if (i <= j ? (h <= i || h > j) : (h <= i && h > j)) {
			table[i] = table[j];
			i = j;
		}
	}
	memset(&table[i], 0, sizeof(table[i]));
	used--;
}

/* The first path the hand finds not asked for since it last passed is forgotten
 * (second chance); the ones it passes are asked again to be kept. */
static void evict_one(void)
{
	for (;;) {
		unsigned at = hand;
		hand = NEXT(hand);
		if (!table[at].path)
			continue;
		if (table[at].used) {
			table[at].used = 0;
			continue;
		}
		remove_at(at);
		return;
	}
}

static struct slot *find(uint64_t path, int add)
{
	for (unsigned i = home(path);; i = NEXT(i)) {
		if (table[i].path == path) {
			table[i].used = 1;
			return &table[i];
		}
		if (!table[i].path) {
			if (!add)
				return NULL;
			if (used >= KC_MAX) { /* full: one goes, then the probe again */
				evict_one();
				return find(path, add);
			}
			used++;
			memset(&table[i], 0, sizeof(table[i]));
			table[i].path = path;
			table[i].used = 1;
			return &table[i];
		}
	}
}

int af_kc_open(const char *path, uint64_t id)
{
	uint64_t p = path_hash(path);
	pthread_mutex_lock(&kc_lock);
	struct slot *s = find(p, 1);
	int keep = s->id == id;
	s->id = id;
	pthread_mutex_unlock(&kc_lock);
	return keep;
}

void af_kc_written(const char *path)
{
	uint64_t p = path_hash(path);
	pthread_mutex_lock(&kc_lock);
	struct slot *s = find(p, 1);
	s->written = 1;
	s->id = 0;
	pthread_mutex_unlock(&kc_lock);
}

int af_kc_is_written(const char *path)
{
	uint64_t p = path_hash(path);
	pthread_mutex_lock(&kc_lock);
	struct slot *s = find(p, 0);
	int w = s && s->written;
	pthread_mutex_unlock(&kc_lock);
	return w;
}

void af_kc_forget(const char *path)
{
	uint64_t p = path_hash(path);
	pthread_mutex_lock(&kc_lock);
	struct slot *s = find(p, 0);
	if (s)
		s->id = 0;
	pthread_mutex_unlock(&kc_lock);
}

static unsigned long generation = 1;

void af_kc_changed(void)
{
	__atomic_add_fetch(&generation, 1, __ATOMIC_ACQ_REL);
}

unsigned long af_kc_generation(void)
{
	return __atomic_load_n(&generation, __ATOMIC_ACQUIRE);
}

void af_kc_forget_all(void)
{
	pthread_mutex_lock(&kc_lock);
	memset(table, 0, sizeof(table));
	used = hand = 0;
	pthread_mutex_unlock(&kc_lock);
}

void af_kc_invalidate(const char *path)
{
	af_kc_forget(path);
	af_kc_notify(path);
}

static struct fuse *kc_fuse; /* af_kc_attach: for the threads that serve no request */
static int kc_fd = -1, kc_epochs;

void af_kc_attach(struct fuse *f)
{
	kc_fuse = f;
	kc_fd = fuse_session_fd(fuse_get_session(f));
}

void af_kc_notify(const char *path)
{
	struct fuse_context *cx = fuse_get_context();
	struct fuse *f = cx && cx->fuse ? cx->fuse : kc_fuse;
	if (f)
		fuse_invalidate_path(f, path); /* -ENOENT: the kernel holds nothing of it */
}

void af_kc_epochs(int on)
{
	__atomic_store_n(&kc_epochs, on, __ATOMIC_RELEASE);
}

/* FUSE_NOTIFY_INC_EPOCH (protocol 7.44, Linux 6.16): every name the kernel holds is
 * looked up again at its next use. A notification is a reply header with no request
 * (unique 0) and the notification's code in place of the error; libfuse 3.14 has no
 * call for this one, so it is written to the session's descriptor as libfuse writes
 * its own (one write, whole). */
#define NOTIFY_INC_EPOCH 8

void af_kc_epoch(void)
{
	struct {
		uint32_t len;
		int32_t error;
		uint64_t unique;
	} h = {sizeof(h), NOTIFY_INC_EPOCH, 0};
	if (!__atomic_load_n(&kc_epochs, __ATOMIC_ACQUIRE) || kc_fd < 0)
		return;
	if (write(kc_fd, &h, sizeof(h)) != (ssize_t)sizeof(h))
		return; /* the mount is going away: nothing is kept any more */
}

/* ---- the open files ---- */

#define WRITE_FLAGS (O_WRONLY | O_RDWR | O_TRUNC | O_APPEND)

/* The process of the request (its thread group: FUSE names the thread), or 0. */
static long caller_process(void)
{
	long tid = (long)fuse_get_context()->pid, tgid = 0;
	char path[64], line[128];
	if (tid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/status", tid);
	FILE *f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Tgid:", 5)) {
			tgid = strtol(line + 5, NULL, 10);
			break;
		}
	if (f)
		fclose(f);
	return tgid > 0 ? tgid : tid;
}

/* A handle read through the page cache whose pages came from id: kept when the
 * kernel's pages of rel came from id as well. A read-only one needs no flush at its
 * close (it saves nothing). */
static void cache_pages(struct fuse_file_info *fi, const char *rel, uint64_t id)
{
	fi->direct_io = 0;
	fi->keep_cache = af_kc_open(rel, id);
	fi->noflush = (fi->flags & (O_ACCMODE | O_TRUNC)) == O_RDONLY;
	if (!fi->keep_cache && af_ctx_fs()->attr_cache > 0)
		af_kc_notify(rel); /* its size too: a read stops at the kernel's (ops.c) */
}

/* --overlay under -o allow_other: every caller is shown one owner and mode of a view
 * (tree.c af_ov_show), but not one size (a caller who may not read the binary is
 * shown its own size), and the kernel keeps one set of attributes per inode, asked
 * again at each page-cached read that reaches the size: another user's O_TRUNC open
 * sets the size a reader's pages stop at (a short or empty read). Such views are read
 * with direct_io, whose reads ask nothing, as before issue 43. */
static int shown_per_caller(const struct af_fs *fs)
{
	return fs->others && af_ov_on(fs);
}

/* A GAME file opened for reading keeps the kernel's pages while it is the file they
 * came from; one opened for writing writes through them (the next open finds another
 * identity). */
static void cache_pass(struct fuse_file_info *fi, const char *rel)
{
	struct af_handle *h = af_fi_handle(fi);
	struct stat st;
	if ((fi->flags & WRITE_FLAGS) || fstat(h->fd, &st)) {
		af_kc_forget(rel);
		return;
	}
	cache_pages(fi, rel, af_kc_id(&st, NULL, 0, (uint64_t)st.st_size, AF_K_PASS, 0));
}

/* A view's handle just opened (o: its text, from the binary whose identity is o->from):
 * through the page cache when its text is known by what it was made of (see the top). */
static void cache_view(struct af_fs *fs, struct fuse_file_info *fi, const struct af_ns_opened *o)
{
	const struct af_codec *c = o->codec;
	const char *rel = o->h->rel;
	if (!o->text || (fi->flags & (WRITE_FLAGS | O_ACCMODE))) {
		af_kc_written(rel); /* a writer: direct_io for every reader from now on */
		return;
	}
	/* a text of other sources too (siblings, names) is known by them when its render
	 * noted them (its src; not a member's, not a split view's part); one read as its
	 * caller is each caller's own under -o allow_other, with its own size */
	int others = o->by_caller || (c && c->render_uses_names);
	if (!c || (others && !o->src) || (o->by_caller && fs->others) || af_kc_is_written(rel) ||
	    shown_per_caller(fs))
		return;
	uint64_t id = af_kc_id(&o->from, c, c->version, o->len, o->kind, o->src);
	if (!af_handle_cache_claim(fs, o->h, id))
		return; /* open with another text, or for writing: direct_io, as they are */
	cache_pages(fi, rel, id);
	o->h->cached = 1;
}

/* The namespace's open file handed to FUSE: a text is served with direct_io unless the
 * page cache may keep it; only a handle that can write saves on its opener's close (a
 * read-only one's flush has nothing to save: no /proc read for it, at open or at flush). */
static int opened(struct af_fs *fs, struct fuse_file_info *fi, int rc, const struct af_ns_opened *o)
{
	if (rc)
		return rc;
	struct af_handle *h = o->h;
	if (h->kind == AF_H_TEXT && h->is_view && (fi->flags & O_ACCMODE) != O_RDONLY)
		h->opener = caller_process();
	fi->fh = (uint64_t)(uintptr_t)h;
	fi->direct_io = h->kind == AF_H_TEXT;
	fi->keep_cache = 0;
	if (o->kind == AF_K_PASS && h->kind == AF_H_FD)
		cache_pass(fi, h->rel);
	else if ((o->kind == AF_K_VIEW || o->kind == AF_K_SPLITPART) && h->is_view)
		cache_view(fs, fi, o);
	return 0;
}

int af_op_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct af_handle *h = af_fi_handle(fi);
	/* The kernel asks a page-cached view's handle again at each read that reaches its
	 * size (attributes not kept: ops.c): what its first fstat found is the answer
	 * while nothing changed through the mount since (a changed stat: the generation). */
	unsigned long gen = h && h->cached ? af_kc_generation() : 0;
	if (gen) {
		pthread_mutex_lock(&h->lock);
		int seen = h->seen_gen == gen;
		if (seen)
			*st = h->seen;
		pthread_mutex_unlock(&h->lock);
		if (seen)
			return 0;
	}
	int rc = af_ns_stat(af_ctx_fs(), path, h, st);
	if (rc == 0 && gen && h->is_view) {
		pthread_mutex_lock(&h->lock);
		h->seen = *st;
		h->seen_gen = gen;
		pthread_mutex_unlock(&h->lock);
	}
	return rc;
}

int af_op_open(const char *path, struct fuse_file_info *fi)
{
	struct af_fs *fs = af_ctx_fs();
	struct af_ns_opened o;
	return opened(fs, fi, af_ns_open(fs, path, fi->flags, &o), &o);
}

int af_op_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	struct af_fs *fs = af_ctx_fs();
	struct af_ns_opened o;
	return opened(fs, fi, af_ns_create(fs, path, mode, fi->flags, &o), &o);
}

int af_op_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	(void)path;
	return af_ns_read(af_fi_handle(fi), buf, size, off);
}

int af_op_write(const char *path, const char *buf, size_t size, off_t off,
		struct fuse_file_info *fi)
{
	(void)path;
	return af_ns_write(af_ctx_fs(), af_fi_handle(fi), buf, size, off);
}

int af_op_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	return af_ns_truncate(af_ctx_fs(), path, af_fi_handle(fi), size);
}

/* A view saves when the process that opened it closes it (every close flushes; so
 * does the exit of a child that inherited the descriptor, as in
 * `{ head a; sleep 2; tail a; } > x.yaml`, and those must not save half a
 * document). fsync saves at once, and a change still unsaved when the last
 * descriptor goes (the opener closed first) is saved at release. */
int af_op_flush(const char *path, struct fuse_file_info *fi)
{
	struct af_handle *h = af_fi_handle(fi);
	(void)path;
	if (h->kind == AF_H_TEXT && h->is_view && h->opener && caller_process() != h->opener)
		return 0;
	return af_ns_save(af_ctx_fs(), h);
}

int af_op_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	struct af_handle *h = af_fi_handle(fi);
	(void)path;
	if (h->kind == AF_H_TEXT) {
		/* a refused document is EIO here: emacs takes EINVAL from fsync for "this file
		 * cannot be synced" and would say it wrote the file (close says EINVAL) */
		int rc = af_code_errno(af_ns_save(af_ctx_fs(), h));
		return rc == -EINVAL ? -EIO : rc;
	}
	int rc = datasync ? fdatasync(h->fd) : fsync(h->fd);
	return rc ? -errno : 0;
}

int af_op_release(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	af_ns_release(af_ctx_fs(), af_fi_handle(fi));
	return 0;
}
