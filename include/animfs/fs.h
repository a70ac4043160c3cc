/* The mount's public face (its core src/view/ and its FUSE face src/fs/): its options and
 * defaults, the control files a command may read, the call that mounts and serves, and
 * the one save pipeline, which the command line's member save runs too. The rest of
 * both folders is private (a header per module; docs/HACKING.md gives their order). */
#ifndef ANIMFS_FS_H
#define ANIMFS_FS_H

#include <stddef.h>

#include "animfs/diag.h"

#define AF_VIEW_SUFFIX ".yaml"
#define AF_CTL_DIR ".animfs"         /* virtual folder at the view's root */
#define AF_CTL_ERRORS "errors"       /* recent failed saves, newest last */
#define AF_CTL_PID "pid"             /* the daemon's pid, for `animfs umount` */
#define AF_CTL_SCRATCH "scratch"     /* where the editors' droppings are kept */
#define AF_CTL_SCHEMA "schema"       /* <format>.json: the JSON Schema of each format */
#define AF_CTL_PLOT "plot"           /* <view path>.svg: a view's curves, when read */
#define AF_CTL_GLTF "gltf"           /* <view path>.glb: a view's glTF preview, when read */
#define AF_CTL_STATS "stats"         /* the render cache's counters (not listed) */
#define AF_DEFAULT_CACHE_MB 256
#define AF_DEFAULT_SPILL_MB 4096   /* rendered texts kept on disk past the cache */
#define AF_DEFAULT_UNSAVED_MB 1024 /* unsaved text of all open views together */
#define AF_DEFAULT_SCRATCH_MB 256  /* editors' droppings, per user */

#define AF_ATTR_CACHE_DEFAULT 60 /* seconds: see af_fs_opts.attr_cache */

struct af_fs_opts {
	const char *game, *view; /* as given (for messages) */
	int foreground, debug, read_only, allow_other;
	size_t cache_bytes;
	size_t spill_bytes;   /* --spill-mb (SIZE_MAX: the default; 0: off) */
	size_t unsaved_bytes;
	size_t scratch_bytes; /* --scratch-mb (0: the default) */
	const char *overlay;  /* --overlay MODDIR: GAME is never written, changes land there */
	int overlay_fd;       /* MODDIR opened by the caller (-1: no overlay) */
	const char *overlay_to; /* --to LAYOUT: saves into MODDIR in that layout (codec.h convert) */
	int split;            /* --split or --split-over=SIZE: big views shown as folders */
	size_t split_over;    /* ... whose text is longer than this (0: every view that splits) */
	double attr_cache;    /* -o attr_cache=S: the kernel keeps names and attributes S
				 seconds (0: every lookup and stat asks; never with allow_other);
				 -1, not given: AF_ATTR_CACHE_DEFAULT where every change
				 reaches the kernel at once (src/fs/ops.c), else 0 */
	const char *rig_dir;  /* --rig-dir DIR: rigs the previews may take (docs/gltf.md) */
	int rig_dir_fd;       /* DIR opened by the caller (-1: none) */
};

/* Mount opts->view, daemonize unless foreground, serve until unmounted.
 * rootfd is GAME opened by the caller. Returns a process exit code. */
int af_fs_run(int rootfd, const struct af_fs_opts *opts);
/* One save through the mount's save pipeline (src/view/commit.c af_commit_to: target,
 * proof, encode under the budget, --overlay's copy-up, layout and reduce, read-back,
 * unchanged skip, replace) with no mount: a state of the core opened over the folder dir
 * for it alone, with nothing kept on disk (no scratch folder, no size cache, no spill
 * file, no pristine copies, no log lines: what the save did and said comes back in
 * *said). The command line's `encode X/<member>` and `encode X.yaml -o FILE` save
 * through it. */
struct af_codec;
struct af_save_said {
	struct af_diag d; /* the save's refusal (d.code) and its warnings; the caller inits
			     and frees it */
	int wrote;        /* the file was rewritten (0: unchanged, or refused) */
	int gone;         /* --overlay: MODDIR's copy went, the file is GAME's again */
	int late;         /* the refusal is the file's (its open, proof, rewrite, read-back),
			     not the document's */
	const struct af_codec *codec; /* the codec it was encoded with (NULL: none chosen) */
};
struct af_save_once {
	const char *dir;    /* the folder the binary (a member: its container) is in */
	const char *moddir; /* --overlay: the folder of MODDIR changes land in, at dir's
			       place (NULL: none) */
	const char *rel;    /* the binary in dir: FILE, or FILE/MEMBER (A/B: nested) */
	size_t cache_bytes; /* --cache-mb: the memory bound is it + the renders' pool */
	const char *layout; /* --overlay --to LAYOUT: the layout a copy-up is written in */
	int overwrite;      /* FILE exists and no codec reads it: it is overwritten all the
			       same (the command line's -o names it; a view never does) */
};
/* 0, or an AF_E* or -errno code with said->d saying why. */
int af_save_file(const struct af_save_once *o, const unsigned char *yaml, size_t n,
		 struct af_save_said *said);
/* Serve GAME's views over WebDAV (animfs serve, dav.h's options) until SIGINT or
 * SIGTERM, as the user who runs it. Returns a process exit code. */
struct af_dav_opts;
int af_fs_serve(int rootfd, const struct af_fs_opts *opts, const struct af_dav_opts *dav);
/* In the scratch folder tree (VIEW/.animfs/scratch names it): remove week-old editor
 * files and empty folders; the count of files left. */
unsigned af_scratch_sweep(const char *tree);

#endif
