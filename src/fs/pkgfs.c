/* Sims 3 packages in the view: a DBPF 2.0 file `X.package` is shown as a folder with
 * the read-only index.yaml and one <name>.jazz.yaml per Jazz state machine (pkgview.h).
 * A member view's binary is the path "X.package/<name>.jazz", which render and commit
 * route here. Verdicts (folder or plain file) and loaded packages are cached by the
 * package file's identity, so an outside change is seen at once. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <unistd.h>

#include "animfs/beneath.h"
#include "animfs/bytes.h"
#include "animfs/dbpf.h"
#include "animfs/fileio.h"
#include "animfs/fs.h"
#include "animfs/pkgview.h"

struct ident {
	dev_t dev;
	ino_t ino;
	off_t size;
	int64_t mtime, ctime;
};

#define VERDICTS 4096 /* direct-mapped by inode; small, bounded */
#define LOADED 4      /* at most this many packages kept decoded (LRU), and ... */

struct verdict {
	struct ident id;
	int used, folder;
};

struct loaded {
	struct ident id;
	int used;
	unsigned long last;
	struct af_pkgview v;
	struct af_text *index;
	struct af_text **texts; /* per item, rendered on demand */
	char *broken;           /* per item: its body does not decode (shown raw, read-only) */
	size_t bytes;           /* the package copy and the rendered texts */
	char name[256];         /* the package's base name, for index.yaml */
};

struct af_pkgfs {
	pthread_mutex_t lock;
	struct verdict verdicts[VERDICTS];
	struct loaded loaded[LOADED];
	unsigned long tick;
	size_t max_bytes; /* ... within the --cache-mb bound (the one in use is always kept) */
};

static void ident_of(const struct stat *st, struct ident *id)
{
	memset(id, 0, sizeof(*id));
	id->dev = st->st_dev;
	id->ino = st->st_ino;
	id->size = st->st_size;
	id->mtime = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
	id->ctime = (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;
}

static int same(const struct ident *a, const struct ident *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mtime == b->mtime &&
	       a->ctime == b->ctime;
}

struct af_pkgfs *af_pkgfs_new(size_t max_bytes)
{
	struct af_pkgfs *p = calloc(1, sizeof(*p));
	if (p) {
		pthread_mutex_init(&p->lock, NULL);
		p->max_bytes = max_bytes;
	}
	return p;
}

static void drop(struct loaded *l)
{
	for (size_t k = 0; l->texts && k < l->v.nitems; k++)
		af_text_unref(l->texts[k]);
	free(l->texts);
	free(l->broken);
	af_text_unref(l->index);
	af_pkgview_close(&l->v);
	memset(l, 0, sizeof(*l));
}

void af_pkgfs_free(struct af_pkgfs *p)
{
	if (!p)
		return;
	for (int i = 0; i < LOADED; i++)
		if (p->loaded[i].used)
			drop(&p->loaded[i]);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

static const char *base_of(const char *rel)
{
	const char *s = strrchr(rel, '/');
	return s ? s + 1 : rel;
}

/* ---- folder or plain file ---- */

static ssize_t pread_all(int fd, uint8_t *p, size_t n, off_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(fd, p + got, n - got, off + (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* From the header and the index only: two reads, however big the package. */
static int check_package(struct af_fs *fs, const char *rel, const struct stat *st,
			 struct af_diag *d)
{
	uint8_t head[AF_DBPF_HEADER];
	uint8_t *index = NULL;
	struct af_dbpf p;
	int rc, fd = af_bn_open(fs->rootfd, rel, O_RDONLY, 0);
	if (fd < 0)
		return af_diag_error(d, AF_EIO, "cannot open: %s", strerror(errno));
	ssize_t hn = pread_all(fd, head, sizeof(head), 0);
	if (hn < 0) {
		rc = af_diag_error(d, AF_EIO, "cannot read");
		goto out;
	}
	uint32_t ioff = hn >= 68 ? (af_le32(head + 64) ? af_le32(head + 64) : af_le32(head + 40)) : 0;
	uint32_t isize = hn >= 48 ? af_le32(head + 44) : 0;
	size_t in = 0;
	if (hn == AF_DBPF_HEADER && af_fits(ioff, isize, (uint64_t)st->st_size)) {
		index = malloc(isize ? isize : 1); /* bounded by the file's size, checked above */
		if (!index) {
			rc = af_diag_error(d, AF_ENOMEM, "out of memory for a %u-byte index", isize);
			goto out;
		}
		in = (size_t)pread_all(fd, index, isize, ioff);
	}
	rc = af_dbpf_open_index(&p, head, (size_t)hn, index, in, (size_t)st->st_size, d);
	if (!rc)
		af_dbpf_close(&p);
out:
	free(index);
	close(fd);
	return rc;
}

int af_pkgfs_is_folder(struct af_fs *fs, const char *rel, const struct stat *st)
{
	struct af_pkgfs *p = fs->pkgs;
	struct ident id;
	struct af_diag d;
	uint8_t head[12];
	size_t got = 0;
	int folder;
	if (!p || !S_ISREG(st->st_mode))
		return 0;
	ident_of(st, &id);
	struct verdict *v = &p->verdicts[(size_t)st->st_ino % VERDICTS];
	pthread_mutex_lock(&p->lock);
	folder = v->used && same(&v->id, &id) ? v->folder : -1;
	pthread_mutex_unlock(&p->lock);
	if (folder >= 0)
		return folder;
	size_t l = strlen(rel);
	int named = l > 8 && !strcasecmp(rel + l - 8, ".package");
	if (af_bn_read_head(fs->rootfd, rel, head, sizeof(head), &got))
		return 0;
	folder = 0;
	if (named || (got >= 4 && !memcmp(head, "DBPF", 4))) {
		af_diag_init(&d);
		if (check_package(fs, rel, st, &d) == 0) {
			folder = 1;
		} else {
			char msg[1200];
			af_diag_format(&d, rel, msg, sizeof(msg));
			af_fs_log(LOG_WARNING, "%s (the package is shown as the plain file)", msg);
		}
		af_diag_free(&d);
	}
	pthread_mutex_lock(&p->lock);
	v->id = id;
	v->used = 1;
	v->folder = folder;
	pthread_mutex_unlock(&p->lock);
	return folder;
}

/* ---- loaded packages ---- */

/* Drop least recently used packages until `more` bytes fit the bound. */
static void trim(struct af_pkgfs *p, size_t more)
{
	for (;;) {
		size_t total = more;
		struct loaded *lru = NULL;
		for (int i = 0; i < LOADED; i++)
			if (p->loaded[i].used) {
				total += p->loaded[i].bytes;
				if (!lru || p->loaded[i].last < lru->last)
					lru = &p->loaded[i];
			}
		if (!lru || total <= p->max_bytes)
			return;
		drop(lru);
	}
}

/* The loaded package for rel, read when its identity is new. Call with p->lock held. */
static struct loaded *load(struct af_fs *fs, const char *rel, struct af_diag *d)
{
	struct af_pkgfs *p = fs->pkgs;
	struct af_buf file = AF_BUF_INIT;
	struct stat st, again;
	struct ident id;
	struct loaded *l = NULL, *victim = &p->loaded[0];
	for (int attempt = 0;; attempt++) {
		if (af_bn_stat(fs->rootfd, rel, &st)) {
			af_diag_error(d, AF_EIO, "cannot stat: %s", strerror(errno));
			goto out;
		}
		ident_of(&st, &id);
		for (int i = 0; i < LOADED; i++)
			if (p->loaded[i].used && same(&p->loaded[i].id, &id)) {
				l = &p->loaded[i];
				goto out;
			}
		af_buf_reset(&file);
		if (af_bn_read_file(fs->rootfd, rel, AF_MAX_FILE, &file, d))
			goto out;
		/* replaced while we read it: read it again under its new identity */
		if (!af_bn_stat(fs->rootfd, rel, &again) && again.st_ino == st.st_ino &&
		    again.st_size == st.st_size && again.st_mtim.tv_sec == st.st_mtim.tv_sec &&
		    again.st_mtim.tv_nsec == st.st_mtim.tv_nsec)
			break;
		if (attempt >= 3) {
			af_diag_error(d, AF_EIO, "the package keeps changing while it is read");
			goto out;
		}
	}
	for (int i = 0; i < LOADED; i++)
		if (!p->loaded[i].used || p->loaded[i].last < victim->last)
			victim = &p->loaded[i];
	if (victim->used)
		drop(victim);
	trim(p, file.len);
	if (af_pkgview_open(&victim->v, file.data, file.len, d))
		goto out;
	victim->texts = calloc(victim->v.nitems ? victim->v.nitems : 1, sizeof(*victim->texts));
	victim->broken = calloc(victim->v.nitems ? victim->v.nitems : 1, 1);
	if (!victim->texts || !victim->broken) {
		free(victim->texts);
		free(victim->broken);
		victim->texts = NULL;
		victim->broken = NULL;
		af_pkgview_close(&victim->v);
		af_diag_error(d, AF_ENOMEM, "out of memory");
		goto out;
	}
	victim->id = id;
	victim->used = 1;
	victim->bytes = file.len;
	snprintf(victim->name, sizeof(victim->name), "%s", base_of(rel));
	l = victim;
out:
	if (l)
		l->last = ++p->tick;
	af_buf_free(&file);
	return l;
}

/* The text of item k (rendered once and kept); NULL when it does not decode, which
 * marks it broken, said once in the log and in .animfs/errors. Call with p->lock held. */
static struct af_text *item_text(struct af_fs *fs, struct loaded *l, size_t k, const char *pkg)
{
	struct af_buf yaml = AF_BUF_INIT;
	struct af_diag d;
	if (l->texts[k] || l->broken[k])
		return l->texts[k];
	af_diag_init(&d);
	if (af_pkgview_read(&l->v, &l->v.items[k], &yaml, &d) || yaml.failed) {
		char where[4096 + AF_PKG_NAME_MAX + 2], msg[1200];
		if (!d.code)
			af_diag_error(&d, AF_ENOMEM, "out of memory");
		snprintf(where, sizeof(where), "%s/%s", pkg, l->v.items[k].name);
		if (d.code != AF_ENOMEM) {
			l->broken[k] = 1;
			af_diag_format(&d, where, msg, sizeof(msg));
			af_fs_log(LOG_WARNING, "%s (shown as the raw resource, read-only)", msg);
			af_errlog_add(fs->errors, AF_ERRLOG_ALL, where, &d); /* the package's, no one's text */
		}
	} else if ((l->texts[k] = af_text_new(yaml.data, yaml.len))) {
		l->bytes += yaml.len;
	}
	af_buf_free(&yaml);
	af_diag_free(&d);
	return l->texts[k];
}

/* "dir/X.package/name" -> pkg "dir/X.package", *name "name", when X.package is a
 * package shown as a folder. */
static int split(struct af_fs *fs, const char *rel, char *pkg, size_t size, const char **name,
		 struct stat *st)
{
	const char *slash = strrchr(rel, '/');
	if (!slash || (size_t)(slash - rel) >= size)
		return 0;
	snprintf(pkg, size, "%.*s", (int)(slash - rel), rel);
	if (af_bn_stat(fs->rootfd, pkg, st) || !S_ISREG(st->st_mode) ||
	    !af_pkgfs_is_folder(fs, pkg, st))
		return 0;
	*name = slash + 1;
	return 1;
}

int af_pkgfs_member(struct af_fs *fs, const char *rel)
{
	char pkg[4096];
	const char *name;
	struct stat st;
	return split(fs, rel, pkg, sizeof(pkg), &name, &st);
}

static void log_diag(const char *rel, const struct af_diag *d, const char *what)
{
	char msg[1200];
	af_diag_format(d, rel, msg, sizeof(msg));
	af_fs_log(LOG_WARNING, "%s (%s)", msg, what);
}

int af_pkgfs_resolve(struct af_fs *fs, struct af_res *r)
{
	char pkg[sizeof(r->bin) - AF_PKG_NAME_MAX - 1]; /* room for "/<name>" in r->bin */
	const char *name;
	struct stat st;
	struct af_diag d;
	size_t n;
	if (!split(fs, r->rel, pkg, sizeof(pkg), &name, &st))
		return 0;
	r->st = st;
	r->kind = AF_K_NONE;
	if (!strcmp(name, AF_PKG_INDEX_NAME)) {
		r->kind = AF_K_PKGINDEX;
		snprintf(r->bin, sizeof(r->bin), "%s", pkg);
		return 1;
	}
	n = af_view_strip(name);
	if (!n)
		n = strlen(name); /* a member shown raw, when its body does not decode */
	if (n >= AF_PKG_NAME_MAX)
		return 1;
	af_diag_init(&d);
	pthread_mutex_lock(&fs->pkgs->lock);
	struct loaded *l = load(fs, pkg, &d);
	char item[AF_PKG_NAME_MAX];
	snprintf(item, sizeof(item), "%.*s", (int)n, name);
	for (size_t k = 0; l && k < l->v.nitems; k++)
		if (!strcmp(l->v.items[k].name, item)) {
			int raw = n == strlen(name);
			if (raw != l->broken[k])
				break;
			snprintf(r->bin, sizeof(r->bin), "%s/%s", pkg, item);
			if (raw) {
				r->kind = AF_K_PKGINDEX; /* a read-only file of the folder */
				break;
			}
			r->kind = AF_K_VIEW;
			r->info.codec = af_codec_by_name("sims3-jazz");
			if (l->texts[k]) {
				r->info.have_size = 1;
				r->info.size = l->texts[k]->len;
			}
			break;
		}
	pthread_mutex_unlock(&fs->pkgs->lock);
	if (d.code)
		log_diag(pkg, &d, "cannot be listed");
	af_diag_free(&d);
	return 1;
}

int af_pkgfs_list(struct af_fs *fs, const char *pkg, void (*cb)(void *ctx, const char *name),
		  void *ctx)
{
	struct af_diag d;
	char (*names)[AF_PKG_NAME_MAX + 8] = NULL;
	size_t n = 0;
	af_diag_init(&d);
	pthread_mutex_lock(&fs->pkgs->lock);
	struct loaded *l = load(fs, pkg, &d);
	/* Each member is rendered before it is named (ls -l would stat each anyway, and
	 * the texts are kept): one that does not decode is listed raw, never as a view
	 * whose stat fails. */
	if (l && (names = calloc(l->v.nitems ? l->v.nitems : 1, sizeof(*names)))) {
		for (n = 0; n < l->v.nitems; n++)
			snprintf(names[n], sizeof(names[n]), "%s%s", l->v.items[n].name,
				 item_text(fs, l, n, pkg) || !l->broken[n] ? AF_VIEW_SUFFIX : "");
	}
	pthread_mutex_unlock(&fs->pkgs->lock);
	cb(ctx, AF_PKG_INDEX_NAME);
	for (size_t k = 0; k < n; k++)
		cb(ctx, names[k]);
	if (d.code)
		log_diag(pkg, &d, "cannot be listed");
	af_diag_free(&d);
	free(names);
	return 0;
}

/* bin is "X.package/name.jazz" or, for the index, "X.package" itself. With ro, the
 * read-only file of that name: the index, or the raw body of a member that does not
 * decode. */
int af_pkgfs_render(struct af_fs *fs, const char *bin, int ro, struct af_text **out)
{
	char pkg[4096];
	const char *name = NULL;
	struct af_buf body = AF_BUF_INIT;
	struct af_diag d;
	struct stat st;
	int rc = -EIO;
	*out = NULL;
	if (!split(fs, bin, pkg, sizeof(pkg), &name, &st)) {
		if (!ro)
			return -EIO;
		snprintf(pkg, sizeof(pkg), "%s", bin);
		name = NULL;
	}
	af_diag_init(&d);
	pthread_mutex_lock(&fs->pkgs->lock);
	struct loaded *l = load(fs, pkg, &d);
	if (!l)
		goto out;
	if (!name) {
		if (!l->index && !af_pkgview_index_yaml(&l->v, l->name, &body)) {
			l->index = af_text_new(body.data, body.len);
			l->bytes += body.len;
		}
		*out = af_text_ref(l->index);
		rc = *out ? 0 : -ENOMEM;
		goto out;
	}
	const struct af_pkg_item *it = af_pkgview_find(&l->v, name);
	if (!it || strcmp(it->name, name))
		goto out;
	size_t k = (size_t)(it - l->v.items);
	if (ro) {
		if (!l->broken[k] || af_pkgview_body(&l->v, it, &body, &d))
			goto out;
		*out = af_text_new(body.data, body.len);
		rc = *out ? 0 : -ENOMEM;
		goto out;
	}
	*out = af_text_ref(item_text(fs, l, k, pkg));
	rc = *out ? 0 : l->broken[k] ? -EIO : -ENOMEM;
out:
	pthread_mutex_unlock(&fs->pkgs->lock);
	if (d.code)
		log_diag(name ? bin : pkg, &d, "not shown");
	af_buf_free(&body);
	af_diag_free(&d);
	return rc;
}

/* A fresh read of the package (never the cache: the file on disk is what we change),
 * the commit of pkgview.h, a check that the new image reads back as a package whose
 * resource decodes, then the atomic replace. Called under fs->commit_lock. */
int af_pkgfs_commit(struct af_fs *fs, const struct af_dest *to, const uint8_t *yaml, size_t n,
		    struct af_diag *d)
{
	char pkg[4096], base[NAME_MAX + 1];
	const char *name;
	struct stat st;
	struct af_buf file = AF_BUF_INIT, image = AF_BUF_INIT, back = AF_BUF_INIT;
	struct af_pkgview v, w;
	const struct af_pkg_item *it;
	int changed = 0, rc, dirfd = to->dirfd, own_dir = 0;
	memset(&v, 0, sizeof(v));
	memset(&w, 0, sizeof(w));
	if (!split(fs, to->bin_rel, pkg, sizeof(pkg), &name, &st))
		return af_diag_error(d, AF_EIO, "the package is gone or no longer a package");
	/* the package in the folder the view was opened in, never through a link */
	snprintf(base, sizeof(base), "%s", base_of(pkg));
	if (dirfd < 0 && (dirfd = af_bn_parent(fs->rootfd, pkg, base, sizeof(base))) >= 0)
		own_dir = 1;
	if (dirfd < 0) {
		rc = af_diag_error(d, AF_EIO, "cannot open the package's folder: %s", strerror(errno));
		goto out;
	}
	if ((rc = af_bn_read_file(dirfd, base, AF_MAX_FILE, &file, d)) ||
	    (rc = af_pkgview_open(&v, file.data, file.len, d)))
		goto out;
	if (!(it = af_pkgview_find(&v, name)) || strcmp(it->name, name)) {
		rc = af_diag_error(d, AF_EINVAL,
				   "%s holds no resource '%s'; resources cannot be added or renamed through the view",
				   base_of(pkg), name);
		goto out;
	}
	if ((rc = af_pkgview_commit(&v, it, yaml, n, &image, &changed, d)) || !changed)
		goto out;
	if (af_pkgview_open(&w, image.data, image.len, d) || !af_pkgview_find(&w, name) ||
	    af_pkgview_read(&w, af_pkgview_find(&w, name), &back, d)) {
		rc = af_diag_error(d, AF_EIO, "internal error: the rebuilt package does not read back");
		goto out;
	}
	if ((rc = af_replace_file_at(dirfd, base, image.data, image.len, 0644, d)))
		goto out;
	af_fs_log(LOG_INFO, "saved %s in %s (%zu bytes)", name, pkg, image.len);
out:
	if (own_dir)
		close(dirfd);
	af_pkgview_close(&v);
	af_pkgview_close(&w);
	af_buf_free(&file);
	af_buf_free(&image);
	af_buf_free(&back);
	return rc;
}
