/* Name mapping: what a path in the view is (a folder, a pass-through file, a YAML
 * view of a claimed binary, an editor's scratch file, the control folder), and the
 * lazy bid and render behind a view, both cached by the backing file's identity. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <unistd.h>

#include "animfs/fs.h"
#include "animfs/path.h"
#include "animfs/beneath.h"
#include "animfs/fileio.h"
#include "animfs/fnv.h"
#include "animfs/gltf.h"
#include "animfs/plot.h"
#include "animfs/split.h"
#include "bin.h"
#include "binary.h"
#include "derive.h"
#include "dsize.h"
#include "errlog.h"
#include "folder.h"
#include "ghost.h"
#include "overlay.h"
#include "prefetch.h"
#include "render.h"
#include "res.h"
#include "scratch.h"
#include "session.h"
#include "splitview.h"
#include "view.h"
#include "who.h"
#include "animfs/userdict.h"

int af_view_may(struct af_fs *fs, const char *bin, int flags)
{
	struct af_bin b;
	int rc = af_bin_open(fs, bin, flags, &b);
	af_bin_close(&b);
	return rc;
}

int af_view_may_create(struct af_fs *fs, const char *bin)
{
	char file[4096], base[NAME_MAX + 1];
	if (af_folder_file(fs, bin, file, sizeof(file)))
		return af_view_may(fs, bin, O_WRONLY); /* a member added: its container rewritten */
	if (af_ov_on(fs))
		return af_ov_may_create(fs, bin);
	int dfd = af_bn_parent(fs->rootfd, bin, base, sizeof(base)), rc = 0;
	if (dfd < 0)
		return -errno;
	if (faccessat(dfd, ".", W_OK | X_OK, AT_EACCESS))
		rc = -errno;
	close(dfd);
	return rc;
}

/* A claimed binary asked for by its own name: hidden when it renders, shown as
 * itself when it does not decode (only this decides, so it is decided here). */
static void hidden_or_broken(struct af_fs *fs, struct af_res *r)
{
	struct af_text *t;
	if (af_view_render(fs, r->rel, &r->st, &t) == -EIO)
		r->kind = AF_K_PASS;
	af_text_unref(t);
}

/* The schema ".animfs/schema/<name>": a codec's ("<codec name>.json") or, with split
 * views shown, a split view's index's or part's ("<codec>.index.json",
 * "<codec>.<list>.json", af_split_schema_name), appended to out when out is not NULL.
 * 0, or -1 when there is none. */
static int schema_named(struct af_fs *fs, const char *name, struct af_buf *out)
{
	char codec[64], *dot;
	size_t n = strlen(name);
	struct af_buf b = AF_BUF_INIT;
	if (n <= 5 || n - 5 >= sizeof(codec) || strcmp(name + n - 5, ".json"))
		return -1;
	memcpy(codec, name, n - 5);
	codec[n - 5] = 0;
	const struct af_codec *c = af_codec_by_name(codec);
	if (af_codec_has_schema(c))
		return out && af_codec_schema(c, out) ? -1 : 0;
	if (!fs->splits || !(dot = strchr(codec, '.')))
		return -1;
	*dot = 0;
	c = af_codec_by_name(codec);
	if (!af_split_able(c) || !af_codec_has_schema(c))
		return -1;
	int rc = af_split_schema(c, strcmp(dot + 1, "index") ? dot + 1 : NULL, out ? out : &b);
	af_buf_free(&b);
	return rc ? -1 : 0;
}

/* ".animfs/plot/<path>" and ".animfs/gltf/<path>": a folder for each folder of the view,
 * "<view>.svg" (".glb") for each view (made when read; never listed, so listings of GAME
 * cost nothing for it). ext: ".svg" or ".glb". *kind set; 0, or -EACCES where the
 * caller may not look the view's name up (in a folder they may not search): a stat and
 * an open of its plot are refused as those of the binary are, whatever is there. */
static int plot_kind(struct af_fs *fs, const char *rest, const char *ext, enum af_kind *kind,
		     int *writable, struct stat *bst) /* writable: NULL, or set for a glTF preview
							(res.h), bst then its binary's */
{
	char path[4200];
	struct af_res v;
	struct stat st;
	size_t n = strlen(rest);
	int file = n > 4 && !strcmp(rest + n - 4, ext);
	snprintf(path, sizeof(path), "/%.*s", (int)(file ? n - 4 : n), rest);
	*kind = AF_K_NONE;
	if (af_is_alias(fs, path) || af_view_resolve(fs, path, &v))
		return 0;
	if (v.kind == AF_K_NONE && af_ov_stat(fs, v.rel, &st) && errno == EACCES)
		return -EACCES;
	if (file)
		*kind = v.kind == AF_K_VIEW || v.kind == AF_K_SPLITDIR ? AF_K_CTLFILE : AF_K_NONE;
	else
		*kind = v.kind == AF_K_DIR || v.kind == AF_K_ARCDIR ? AF_K_CTLDIR : AF_K_NONE;
	if (file && writable) /* a preview a glTF may be saved to (previews.c) */
		*writable = v.kind == AF_K_VIEW && v.info.codec && v.info.codec->scene_import && !v.info.read_only;
	if (file && writable && *writable)
		*bst = v.st; /* its binary's */
	return 0;
}

/* Files a preview may read (its siblings, --rig-dir's rigs), telling when it does. */
struct asked {
	struct af_io io;
	const struct af_io *of;
	int *asked;
};

struct glb_job {
	struct af_gltf_opts o;
	const struct af_text *yaml;
	struct af_buf *out;
	struct af_diag *d;
	struct asked sib, rigs;
	int asked, asked_rigs;
};

static int ask_read(void *ctx, const char *name, struct af_buf *out)
{
	struct asked *a = ctx;
	*a->asked = 1;
	return a->of->read_sibling(a->of->ctx, name, out);
}

static int ask_list(void *ctx, int (*cb)(void *cbctx, const char *name), void *cbctx)
{
	struct asked *a = ctx;
	*a->asked = 1;
	return a->of->list_siblings(a->of->ctx, cb, cbctx);
}

static const struct af_io *ask_of(struct asked *a, const struct af_io *io, int *asked)
{
	a->of = io;
	a->asked = asked;
	a->io = (struct af_io){.name = io->name, .ctx = a, .read_sibling = io->read_sibling ? ask_read : NULL,
			       .list_siblings = io->list_siblings ? ask_list : NULL};
	return &a->io;
}

/* The glTF preview of the job's view, io its siblings (g->asked: whether it read them). */
static int glb_with(void *ctx, const struct af_io *io)
{
	struct glb_job *g = ctx;
	g->o.io = ask_of(&g->sib, io, &g->asked);
	return af_gltf_from_yaml(g->yaml->data, g->yaml->len, &g->o, g->out, g->d);
}

/* A plot's or preview's making, handed to af_derive (derive.h): the view's text into
 * out within mem. asked: a preview read the binary's folder (a member's siblings are in
 * its container, whose identity is the key's). */
struct out_job {
	struct af_fs *fs;
	const struct af_res *v;
	const struct af_bin *b;
	const struct af_text *yaml;
	int glb, asked;
	int rigs; /* a preview read --rig-dir (as its caller): never kept */
};

static int out_make(void *ctx, const struct af_ybudget *mem, struct af_buf *out, struct af_diag *d)
{
	struct out_job *j = ctx;
	if (!j->glb) {
		struct af_plot_opts o = {.title = af_base(j->v->rel), .mem = mem};
		return af_plot_svg(j->yaml->data, j->yaml->len, &o, out, d);
	}
	struct glb_job g = {.o = {.title = af_base(j->v->rel), .mem = mem}, .yaml = j->yaml, .out = out, .d = d};
	struct af_dirio rd;
	int rc;
	if (j->fs->rigdirfd >= 0) { /* --rig-dir: read as the caller, never kept */
		af_dirio_init(&rd, j->fs->rigdirfd, "", 0);
		g.o.rig_dir = ask_of(&g.rigs, &rd.io, &g.asked_rigs);
	}
	if (j->b->member) {
		rc = af_folder_with_io(j->fs, j->v->bin, &j->b->st, glb_with, &g);
	} else { /* its siblings: a skeleton beside it (gltf.h) */
		struct af_sibio s;
		af_sibio_init(&s, j->fs, j->v->bin);
		rc = glb_with(&g, &s.d.io);
		af_sibio_close(&s);
		j->asked = g.asked;
	}
	j->rigs = g.asked_rigs;
	j->asked |= g.asked_rigs;
	return rc;
}

/* The SVG plot (glb: the glTF preview) of the view at rest ("<view path>.svg", ".glb"),
 * or NULL. With size (a stat), *size is set instead when the sizes table knows it (then
 * NULL is returned), and a made file's size is put there. A preview that read the
 * binary's folder (a skeleton or texture beside it) is never kept, since its siblings are
 * not in the key; a container member's siblings are in its container, whose file is. */
static struct af_text *plot_text(struct af_fs *fs, const char *rest, int glb, int *err,
				 long long *size)
{
	char path[4200];
	struct af_res v;
	struct af_text *yaml = NULL, *t = NULL;
	struct af_diag d;
	struct af_dkey key;
	struct af_bin b;
	size_t n = strlen(rest);
	snprintf(path, sizeof(path), "/%.*s", (int)(n > 4 ? n - 4 : n), rest);
	if (af_view_resolve(fs, path, &v) || (v.kind != AF_K_VIEW && v.kind != AF_K_SPLITDIR))
		return NULL;
	/* derived from the binary: its readers only, and from the file they opened */
	if ((*err = af_bin_open_res(fs, &v, O_RDONLY, &b)))
		return NULL;
	/* the text is in the key when it may change with the same binary (names from beside
	 * it); otherwise a stat needs not even the text */
	int member = b.member, by_text = !v.info.codec || v.info.codec->render_uses_names;
	af_dkey_make(&key, rest, &b.st, NULL, 0);
	if (glb)
		key.path = ~key.path; /* "x.svg" and "x.glb" are never one file anyway */
	if (size && !by_text && af_dsizes_get(fs->dsizes, &key, size))
		goto out;
	if (af_bin_render(fs, &b, &yaml)) {
		*err = 0;
		goto out;
	}
	if (by_text)
		key.text = af_fnv1_64(yaml->data, yaml->len);
	if (size && by_text && af_dsizes_get(fs->dsizes, &key, size))
		goto out;
	/* made within the memory bound, one at a time, kept in the render cache (derive.h) */
	struct out_job oj = {fs, &v, &b, yaml, glb, 0, 0};
	uint64_t k = af_fnv1_64(rest, n) ^ key.text ^ (glb ? 0x676c62 : 0x737667);
	struct af_derive q = {glb ? "preview" : "plot", v.bin, &b.st, k ? k : 1, yaml, out_make, &oj, &oj.asked};
	af_diag_init(&d);
	if (af_derive(fs, &q, &t, &d) == -EFBIG)
		*err = -EFBIG; /* past the memory bound: the line in .animfs/errors says so */
	if (t && (member || !oj.asked) && !oj.rigs)
		af_dsizes_put(fs->dsizes, &key, (long long)t->len);
	af_diag_free(&d);
out:
	af_bin_close(&b);
	af_text_unref(yaml);
	return t;
}

/* Whether the view r is shown as a folder of parts (--split, --split-over). */
static int shown_split(struct af_fs *fs, struct af_res *r)
{
	struct af_text *t = NULL;
	size_t size = r->info.have_size ? r->info.size : (size_t)-1;
	if (!fs->splits || !af_split_able(r->info.codec))
		return 0;
	if (size == (size_t)-1 && !af_split_shown(fs, r->info.codec, size) &&
	    af_view_render(fs, r->bin, &r->st, &t) == 0) /* over a size: its size, once */
		size = t->len;
	af_text_unref(t);
	return af_split_shown(fs, r->info.codec, size);
}

/* A name in a split view's folder ("<view>.yaml/<name>"): 1 with r filled (a part,
 * index.yaml, or nothing there, with in_split and the view's binary), else 0. */
static int split_member(struct af_fs *fs, struct af_res *r)
{
	const char *base = af_base(r->rel);
	size_t k = strlen(AF_VIEW_SUFFIX);
	char path[4200];
	struct af_res p;
	struct af_text *whole = NULL;
	if (base == r->rel || (size_t)(base - r->rel) <= k + 1 ||
	    memcmp(base - k - 1, AF_VIEW_SUFFIX, k))
		return 0;
	snprintf(path, sizeof(path), "/%.*s", (int)(base - r->rel - 1), r->rel);
	if (af_view_resolve(fs, path, &p) || p.kind != AF_K_SPLITDIR)
		return 0;
	r->in_split = 1;
	memcpy(r->bin, p.bin, sizeof(r->bin));
	r->bin_plain = p.bin_plain;
	r->st = p.st;
	r->info = p.info;
	if (af_view_render(fs, r->bin, &r->st, &whole) == 0 &&
	    af_split_file(fs, whole, r->bin, base, NULL) == 0)
		r->kind = AF_K_SPLITPART;
	af_text_unref(whole);
	return 1;
}

int af_view_resolve(struct af_fs *fs, const char *path, struct af_res *r)
{
	int rc = af_view_rel(path, r->rel, sizeof(r->rel));
	const char *base, *inner;
	char pkg[AF_FOLDER_PKG_SIZE];
	struct stat pst;
	size_t n;
	int alias = 0, held = -1;
	memset(&r->info, 0, sizeof(r->info));
	r->kind = AF_K_NONE;
	r->bin[0] = 0;
	r->bin_plain = 0;
	r->ghost = 0;
	r->unlisted = 0;
	r->in_split = 0;
	r->writable = 0;
	if (rc)
		return rc;
	base = af_base(r->rel);
	if (!strcmp(r->rel, ".")) {
		r->kind = AF_K_DIR;
		return fstatat(fs->rootfd, ".", &r->st, 0) ? -errno : 0;
	}
	if (!strcmp(r->rel, AF_CTL_DIR)) {
		r->kind = AF_K_CTLDIR;
		return 0;
	}
	if (!strncmp(r->rel, AF_CTL_DIR "/", sizeof(AF_CTL_DIR))) {
		const char *f = r->rel + sizeof(AF_CTL_DIR);
		if (!strcmp(f, AF_CTL_ERRORS) || !strcmp(f, AF_CTL_PID) || !strcmp(f, AF_CTL_SCRATCH) ||
		    !strcmp(f, AF_CTL_STATS))
			r->kind = AF_K_CTLFILE;
		else if (!strcmp(f, AF_CTL_SCHEMA) || !strcmp(f, AF_CTL_PLOT) || !strcmp(f, AF_CTL_GLTF))
			r->kind = AF_K_CTLDIR;
		else if (!strncmp(f, AF_CTL_SCHEMA "/", sizeof(AF_CTL_SCHEMA)))
			r->kind = schema_named(fs, f + sizeof(AF_CTL_SCHEMA), NULL) ? AF_K_NONE : AF_K_CTLFILE;
		else if (!strncmp(f, AF_CTL_PLOT "/", sizeof(AF_CTL_PLOT)))
			return plot_kind(fs, f + sizeof(AF_CTL_PLOT), ".svg", &r->kind, NULL, NULL);
		else if (!strncmp(f, AF_CTL_GLTF "/", sizeof(AF_CTL_GLTF)))
			return plot_kind(fs, f + sizeof(AF_CTL_GLTF), ".glb", &r->kind, &r->writable, &r->st);
		return 0;
	}
	if (!strncmp(base, AF_TMP_PREFIX, strlen(AF_TMP_PREFIX)))
		return 0; /* our own commit in flight */
	if (af_is_alias(fs, r->rel)) { /* a removed or replaced open file: its own name */
		if (!fs->face->alias_orig || !fs->face->alias_orig(fs, r->rel, r->rel, sizeof(r->rel)))
			return 0;
		base = af_base(r->rel);
		alias = 1;
	}
	if (__atomic_load_n(&fs->nscratch, __ATOMIC_RELAXED) &&
	    af_scratch_exists(fs, r->rel, &r->st)) {
		r->kind = AF_K_SCRATCH;
		goto ghosts; /* removed while open: hidden until its last close */
	}
	/* inside a container's folder? Asked of the containers only below a file */
	held = af_view_holder(fs, r->rel, pkg, sizeof(pkg), &inner, &pst);
	if (held > 0 && af_folder_resolve(fs, r, pkg, inner, &pst))
		goto ghosts;
	if (fs->splits && split_member(fs, r))
		goto ghosts;
	n = af_view_strip(base);
	if (n) {
		size_t dirlen = (size_t)(base - r->rel);
		memcpy(r->bin, r->rel, dirlen + n);
		r->bin[dirlen + n] = 0;
		r->bin_plain = held == 0; /* only folders above it */
		if (af_ov_stat(fs, r->bin, &r->st) == 0 &&
		    S_ISREG(r->st.st_mode)) {
			af_view_classify(fs, r->bin, &r->st, &r->info);
			if (r->info.codec && !r->info.failed)
				r->kind = shown_split(fs, r) ? AF_K_SPLITDIR : AF_K_VIEW;
		}
		if (r->kind == AF_K_NONE) {
			r->bin[0] = 0;
			r->bin_plain = 0;
		}
	}
	if (r->kind == AF_K_NONE && af_ov_stat(fs, r->rel, &r->st) == 0) {
		if (S_ISDIR(r->st.st_mode)) {
			r->kind = AF_K_DIR;
		} else if (af_folder_is(fs, r->rel, &r->st)) {
			r->kind = AF_K_ARCDIR;
		} else {
			af_view_classify(fs, r->rel, &r->st, &r->info);
			r->kind = r->info.codec && !r->info.failed ? AF_K_HIDDEN : AF_K_PASS;
			if (r->kind == AF_K_HIDDEN && !r->info.have_size)
				hidden_or_broken(fs, r);
			/* a claimed binary's own name is not listed (its view is), but it still
			 * names the file for every operation: install, cp -p, rsync and
			 * shutil.copy2 set modes and times by name after the close */
			if (r->kind == AF_K_HIDDEN) {
				r->kind = AF_K_PASS;
				r->unlisted = 1;
			}
		}
	}
ghosts:
	if (!alias && r->kind != AF_K_NONE && r->kind != AF_K_DIR && af_ghost_any(fs) &&
	    af_ghost_has(fs, r->rel, &r->ghost_of)) {
		r->ghost = 1;
		r->kind = AF_K_NONE;
	}
	return 0;
}
static int may_read(void *ctx, const char *bin)
{
	return af_view_may(ctx, bin, O_RDONLY) == 0;
}

/* .animfs/stats is the mount's owner's: its counters move with every user's reads, of
 * their 0600 views too (issue 47), so it is a 0400 file of the daemon's user, which
 * root reads as well (a per-caller count would still show the shared cache's state). */
static int is_stats(const char *rel)
{
	return !strcmp(rel + sizeof(AF_CTL_DIR), AF_CTL_STATS);
}

static int stats_reader(uid_t caller)
{
	return caller == 0 || caller == af_daemon_uid();
}

struct af_text *af_ctl_text(struct af_fs *fs, const char *rel, uid_t caller, int *err)
{
	const char *f = rel + sizeof(AF_CTL_DIR);
	char line[4200];
	int n, e = 0;
	if (!err)
		err = &e;
	*err = 0;
	if (!strcmp(f, AF_CTL_ERRORS))
		return af_errlog_text(fs->errors, caller, may_read, fs);
	if (!strncmp(f, AF_CTL_SCHEMA "/", sizeof(AF_CTL_SCHEMA))) {
		struct af_buf b = AF_BUF_INIT;
		struct af_text *t = !schema_named(fs, f + sizeof(AF_CTL_SCHEMA), &b) ? af_text_take(&b) : NULL;
		af_buf_free(&b);
		return t;
	}
	if (!strncmp(f, AF_CTL_PLOT "/", sizeof(AF_CTL_PLOT)))
		return plot_text(fs, f + sizeof(AF_CTL_PLOT), 0, err, NULL);
	if (!strncmp(f, AF_CTL_GLTF "/", sizeof(AF_CTL_GLTF)))
		return plot_text(fs, f + sizeof(AF_CTL_GLTF), 1, err, NULL);
	if (!strcmp(f, AF_CTL_PID)) {
		n = snprintf(line, sizeof(line), "%ld\n", (long)getpid());
	} else if (!strcmp(f, AF_CTL_STATS)) { /* counters, no names: the owner's */
		struct af_rcache_stats s;
		if (!stats_reader(caller)) {
			*err = -EACCES;
			return NULL;
		}
		af_rcache_stats(fs->cache, &s);
		n = snprintf(line, sizeof(line), "renders %lu\nhits %lu\nspill_writes %lu\n"
			     "spill_reads %lu\nspill_lost %lu\ntext_bytes %zu\nspill_bytes %zu\n"
			     "archive_opens %lu\nlent_bytes %zu\nlent_max %zu\ngate_waits %lu\n",
			     s.renders, s.hits, s.spill_writes, s.spill_reads, s.spill_lost,
			     s.text_bytes, s.spill_bytes, s.archive_opens, s.lent_bytes, s.lent_max,
			     s.gate_waits);
	} else if (af_scratch_owner(fs) == af_daemon_uid() || strlen(fs->scratch_path) < 5) {
		n = snprintf(line, sizeof(line), "%s\n", fs->scratch_path);
	} else { /* the caller's own tree: <scratch>/users/<uid> beside <scratch>/tree */
		n = snprintf(line, sizeof(line), "%.*s/users/%u\n", (int)(strlen(fs->scratch_path) - 5),
			     fs->scratch_path, (unsigned)af_scratch_owner(fs));
	}
	return af_text_new(line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

static long long ctl_size(struct af_fs *fs, const char *rel, uid_t caller)
{
	const char *f = rel + sizeof(AF_CTL_DIR);
	int err = 0, glb = !strncmp(f, AF_CTL_GLTF "/", sizeof(AF_CTL_GLTF));
	long long size = -1;
	if (glb || !strncmp(f, AF_CTL_PLOT "/", sizeof(AF_CTL_PLOT))) { /* its size kept, if made */
		struct af_text *p = plot_text(fs, f + (glb ? sizeof(AF_CTL_GLTF) : sizeof(AF_CTL_PLOT)), glb, &err, &size);
		if (p)
			size = (long long)p->len;
		af_text_unref(p);
		return size >= 0 ? size : err ? err : -ENOENT;
	}
	struct af_text *t = af_ctl_text(fs, rel, caller, &err);
	long long n = t ? (long long)t->len : err ? err : -ENOENT;
	af_text_unref(t);
	return n;
}

int af_view_read_only(struct af_fs *fs, struct af_res *r)
{
	struct af_rinfo now;
	/* rendered since it was resolved? (one cache lookup: a container member's identity
	 * is its container's file, whose entry names no codec of the member's) */
	if (!r->info.read_only &&
	    (r->kind == AF_K_VIEW || r->kind == AF_K_SPLITDIR || r->kind == AF_K_SPLITPART) &&
	    af_rcache_get(fs->cache, &r->st, &now, NULL) && now.codec == r->info.codec)
		r->info.read_only = now.read_only;
	return r->info.read_only;
}

/* --overlay: a change of what is GAME's is made to MODDIR's copy, so it shows the
 * write permission of its read (the save proves the right to MODDIR). */
static void ov_writable(struct af_fs *fs, struct af_res *r, struct stat *st)
{
	int view = r->kind == AF_K_VIEW || r->kind == AF_K_SPLITDIR || r->kind == AF_K_SPLITPART;
	if (!af_ov_on(fs) || (view && af_view_read_only(fs, r)))
		return;
	af_ov_show(fs, view ? r->bin : r->rel, st);
}

/* The length a stat shows for r (a view, a part, a container's read-only file): its
 * text's, or the binary's own size when the caller may not read the binary (nothing
 * derived from its bytes, as a plain file system shows). A caller other than the daemon
 * proves their read (bin.h), and the length is of the file they may open; the daemon's
 * own user and root are shown what the cache knows. 0 or -errno. */
static int stat_size(struct af_fs *fs, struct af_res *r, off_t *size)
{
	struct af_text *t = NULL;
	struct af_rinfo info;
	struct af_bin b;
	int rc;
	if (!af_act_is_caller()) {
		if (r->kind == AF_K_VIEW && r->info.have_size) {
			*size = (off_t)r->info.size;
			return 0;
		}
		rc = r->kind == AF_K_ARCFILE ? af_folder_render(fs, r->bin, 1, NULL, &t)
					     : af_view_text(fs, r, &t);
	} else if ((rc = af_bin_open_res(fs, r, O_RDONLY, &b))) {
		if (rc != -EACCES && rc != -EPERM)
			return rc;
		*size = r->st.st_size; /* not theirs to read */
		return 0;
	} else {
		const struct af_codec *codec = r->info.codec;
		int known = r->kind == AF_K_VIEW && af_rcache_get(fs->cache, &b.st, &info, NULL) &&
			    (!info.by_caller || af_rcache_get_member(fs->cache, &b.st,
								     af_who_key(af_caller()), &info, NULL)) &&
			    info.have_size && info.codec == codec;
		rc = known ? 0 : af_view_text_of(fs, r, &b, &t); /* from the proof held */
		af_bin_close(&b);
		if (rc == -EAGAIN) /* its container replaced since: proven again */
			rc = af_view_open_text(fs, r, O_RDONLY, &t);
		if (known) {
			*size = (off_t)info.size;
			return 0;
		}
	}
	if (!rc)
		*size = (off_t)t->len;
	af_text_unref(t);
	return rc;
}

int af_view_stat(struct af_fs *fs, struct af_res *r, uid_t caller, struct stat *st)
{
	switch (r->kind) {
	case AF_K_NONE:
	case AF_K_HIDDEN:
		return -ENOENT;
	case AF_K_CTLDIR:
	case AF_K_CTLFILE:
		if (fstatat(fs->rootfd, ".", st, 0))
			return -errno;
		st->st_nlink = r->kind == AF_K_CTLDIR ? 2 : 1;
		st->st_mode = r->kind == AF_K_CTLDIR ? S_IFDIR | 0555 : S_IFREG | 0444;
		if (r->writable && !fs->read_only) { /* a glTF preview: its binary's owner and
							write bits (allow_other's kernel check) */
			st->st_mode = S_IFREG | 0444 | (r->st.st_mode & 0222);
			st->st_uid = r->st.st_uid;
			st->st_gid = r->st.st_gid;
		}
		if (r->kind == AF_K_CTLFILE && is_stats(r->rel)) { /* the owner's 0400 file */
			st->st_mode = S_IFREG | 0400;
			st->st_uid = af_daemon_uid();
			st->st_gid = af_who_self().gid;
			if (!stats_reader(caller)) {
				st->st_size = 0;
				st->st_ino = 0;
				break;
			}
		}
		st->st_size = r->kind == AF_K_CTLDIR ? 0 : (off_t)ctl_size(fs, r->rel, caller);
		if (st->st_size < 0) /* a view with no plot (no curves), out of memory, or a */
			return (int)st->st_size; /* binary the caller may not read */
		st->st_ino = 0;
		break;
	case AF_K_ARCDIR: /* the container's file as a folder: its times and owner */
		*st = r->st;
		st->st_mode = S_IFDIR | (r->st.st_mode & 0777) | ((r->st.st_mode & 0444) >> 2);
		st->st_nlink = 2;
		st->st_size = 0;
		break;
	case AF_K_ARCFILE: {
		off_t size;
		int rc = stat_size(fs, r, &size);
		if (rc)
			return rc == -EIO ? -ENOENT : rc;
		*st = r->st;
		st->st_mode = S_IFREG | (r->st.st_mode & 0444);
		st->st_size = size;
		break;
	}
	case AF_K_SPLITDIR: /* the binary as a folder: its times and owner, as a container's */
		*st = r->st;
		st->st_mode = S_IFDIR | (r->st.st_mode & 0777) | ((r->st.st_mode & 0444) >> 2);
		if (af_view_read_only(fs, r))
			st->st_mode &= ~(mode_t)0222;
		st->st_nlink = 2;
		st->st_size = 0;
		break;
	case AF_K_SPLITPART: {
		off_t size;
		int rc = stat_size(fs, r, &size);
		if (rc)
			return rc == -EIO ? -ENOENT : rc;
		*st = r->st;
		st->st_mode = S_IFREG | (r->st.st_mode & 07777);
		st->st_nlink = 1;
		st->st_size = size;
		if (af_view_read_only(fs, r))
			st->st_mode &= ~(mode_t)0222;
		break;
	}
	case AF_K_VIEW: {
		off_t size;
		int rc = stat_size(fs, r, &size);
		if (rc)
			return rc == -EIO ? -ENOENT : rc;
		*st = r->st;
		st->st_size = size; /* open ones may hold others: af_ns_stat */
		/* a view that is not for saving shows no write permission; one in a container
		 * that is never rewritten keeps the container's, as files on a read-only
		 * mount do: a write then gets EROFS and a line that says why, whoever tries */
		if (af_view_read_only(fs, r) && !r->info.container_ro)
			st->st_mode &= ~(mode_t)0222;
		break;
	}
	default:
		*st = r->st;
		ov_writable(fs, r, st);
		return 0;
	}
	if (r->kind == AF_K_VIEW || r->kind == AF_K_ARCDIR || r->kind == AF_K_SPLITDIR ||
	    r->kind == AF_K_SPLITPART)
		ov_writable(fs, r, st);
	st->st_blocks = (st->st_size + 511) / 512;
	return 0;
}
