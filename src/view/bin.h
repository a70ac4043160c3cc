/* What a view stands for, resolved once per request: a game file (through the overlay
 * and beneath) or a member of a container (through the container table), with the one
 * small table of operations the render pipeline (bin.c) and the save pipeline
 * (commit.c) call (private to the core). */
#ifndef ANIMFS_VIEW_BIN_H
#define ANIMFS_VIEW_BIN_H

#include <stdint.h>
#include <sys/stat.h>

#include "animfs/buf.h"
#include "animfs/diag.h"
#include "animfs/fileio.h"
#include "animfs/yamlio.h"
#include "render.h"

struct af_fs;
struct af_res;
struct af_who;
struct af_rjob;
struct af_save;
struct loaded;
struct node;

/* The two kinds' operations. A render: known (what the cache knows: 1 with the text,
 * -errno, or 0 with the codec and what the render needs held), read (the bytes within
 * the bound: 1 when a re-read found the text in the cache), to_yaml (the codec's YAML
 * after the modeline), put (the text into the cache), failed (the verdict: fails), end
 * (what known held let go). A save (struct af_save, save.h): open (what is saved into,
 * and the proof a member's container asks first), encode (the document parsed and
 * encoded under the budget; reset: an attempt's output gone before it is done again
 * alone), layout (--overlay: the layout, or the reduce against GAME's), prove (the
 * saver's right to the write), same (1: unchanged, nothing to write), replace (the
 * atomic replace, and the caches told: forget), close. */
struct af_bin_ops {
	const char *kind;     /* "file", "member": for messages and tests */
	const char *shown_as; /* what a view that fails to render is shown as */
	int read_only_views;  /* a codec's AF_VIEW_READONLY shows the view read-only */
	int oom_rc;           /* a render out of memory (no verdict): its result */
	int (*known)(struct af_rjob *j, struct af_text **out);
	int (*read)(struct af_rjob *j, struct af_text **out);
	int (*to_yaml)(struct af_rjob *j);
	void (*put)(struct af_rjob *j, struct af_text *t);
	void (*failed)(struct af_rjob *j);
	void (*end)(struct af_rjob *j);
	int (*open)(struct af_save *s);
	int (*encode)(struct af_save *s, size_t tree_max, af_ymore_fn *more, void *more_ctx);
	void (*reset)(struct af_save *s);
	int (*layout)(struct af_save *s);
	int (*prove)(struct af_save *s);
	int (*same)(struct af_save *s);
	int (*replace)(struct af_save *s);
	void (*close)(struct af_save *s);
};

extern const struct af_bin_ops af_bin_file_ops, af_bin_member_ops;

/* A view's binary. Opened as its caller (af_bin_open): the file (a member: the
 * container's file) opened by the thread's identity with the access the request asks
 * for. That open is the proof of the caller's right, and its descriptor is what the
 * daemon's work then reads (af_bin_reopen): never the name again, so a name swapped
 * after the proof (a rename, renameat2's RENAME_EXCHANGE) cannot hand the caller a file
 * they may not open. st is the descriptor's identity: the render cache's key, and a
 * container of another identity is never read for it (-EAGAIN: proven again). Or the
 * daemon's own (af_bin_by_name: a listing's, a prefetch's): st what the name held. */
struct af_bin {
	const struct af_bin_ops *ops;
	const char *rel;    /* the view's binary, relative to GAME ("X/<member>": a member) */
	char file[4096];    /* the file opened: rel, or the container's file */
	int member;         /* rel is a member of the container file */
	const char *inner;  /* a member: its path in the container (in rel: "A/m" nested) */
	struct stat named;  /* a member: the container the name held when resolved */
	int fd;             /* the caller's descriptor of file (any access mode), or -1 */
	int proven;         /* st is fd's: the render reads only that file */
	struct stat st;     /* its identity (fstat), or the name's */
	/* a member whose container the thread holds (a listing's): no flight, no load */
	struct loaded *l;
	struct node *n;
	size_t k;
};

/* A render of a binary, in the render pipeline (bin.c) and the kinds' operations. */
struct af_rjob {
	struct af_fs *fs;
	const struct af_bin *b;
	const struct af_who *as; /* whose siblings (NULL: the daemon's) */
	const struct af_codec *codec;
	size_t guess;            /* what the render will take (the gate's) */
	struct stat st;          /* the identity rendered (a member: its container's) */
	struct af_render_bound rb;
	struct af_buf yaml;
	struct af_diag d;
	int by_caller;           /* the text read the caller's siblings */
	int read_only;           /* the codec said AF_VIEW_READONLY */
	/* a game file's: */
	int rd;                  /* the daemon's descriptor of the caller's file, or -1 */
	struct af_buf in;
	struct af_rinfo info;
	struct af_deps *deps;    /* what its text read besides the binary (deps.h), or NULL
				    (a member's too: --rig-dir's rigs) */
	/* a member's: */
	struct loaded *l;        /* its container, held (loaded here: let go by end) */
	int loaded_here;
	struct node *n;
	size_t k;
	uint64_t sub;
	struct af_fid names;
};

/* Prove the caller's right to open the view's binary rel with flags' access mode by
 * opening it so (with --overlay: the tree its read shows, a write proven on MODDIR's
 * copy by the save): 0 with b filled, or -errno (b then holds no descriptor). */
int af_bin_open(struct af_fs *fs, const char *rel, int flags, struct af_bin *b);
/* The daemon's own binary rel, whose name held st: no descriptor (read by name). */
int af_bin_by_name(struct af_fs *fs, const char *rel, const struct stat *st, struct af_bin *b);
/* The same two for the binary of a path resolved (res.h: r->bin, r->st), whose kind is
 * the one its resolve found (r->bin_plain: a game file, no container looked up). */
int af_bin_open_res(struct af_fs *fs, const struct af_res *r, int flags, struct af_bin *b);
int af_bin_by_res(struct af_fs *fs, const struct af_res *r, struct af_bin *b);
void af_bin_close(struct af_bin *b);
/* A new descriptor of the same file for reading, opened by the daemon through the
 * caller's descriptor (its inode, whatever its name is now): fd or -errno. The thread
 * must hold the daemon's identity (af_act_pause). */
int af_bin_reopen(const struct af_bin *b);

#endif
