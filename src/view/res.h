/* What a view path is (types only, private to src/fs): view.c resolves, folder.c fills
 * the ones inside a container's folder, ghost.c remembers the kind a name had. */
#ifndef ANIMFS_FS_RES_H
#define ANIMFS_FS_RES_H

#include <sys/stat.h>

#include "render.h"

enum af_kind {
	AF_K_NONE,     /* nothing there */
	AF_K_DIR,      /* a backing folder */
	AF_K_PASS,     /* a backing file shown as is */
	AF_K_VIEW,     /* <binary>.yaml: a rendered view */
	AF_K_HIDDEN,   /* a claimed binary's own name: not listed; resolved as AF_K_PASS
			  with unlisted set */
	AF_K_SCRATCH,  /* an editor file in the scratch area */
	AF_K_CTLDIR,   /* /.animfs */
	AF_K_CTLFILE,  /* /.animfs/errors, /.animfs/pid */
	AF_K_ARCDIR,   /* a container shown as a folder (folder.c) */
	AF_K_ARCFILE, /* a read-only file in it: index.yaml (bin: the container), or a
			  member that does not decode, raw (bin: X/<member>) */
	AF_K_SPLITDIR,  /* <binary>.yaml shown as a folder of parts (splitview.c; bin: the
			   binary) */
	AF_K_SPLITPART, /* <binary>.yaml/<part or index.yaml> (bin: the binary) */
};

struct af_res {
	enum af_kind kind;
	char rel[4096];     /* path relative to GAME (or scratch); "." for the root */
	char bin[4096];     /* AF_K_VIEW: the backing binary's relative path */
	int bin_plain;      /* bin is a game file with only folders above it (no container
			       holds it): its kind is not looked up again (bin.c) */
	struct stat st;     /* backing (or scratch) stat */
	struct af_rinfo info;
	int ghost;          /* the name was renamed away: reported as AF_K_NONE */
	int unlisted;       /* AF_K_PASS: a claimed binary's own name (its view is listed) */
	int in_split;       /* the name is in a split view's folder (bin: its binary, st and
			       info its) */
	int writable;       /* AF_K_CTLFILE: a glTF preview a glTF may be saved to
			       (previews.c): shown with its binary's owner and write bits
			       (st: the binary's) */
	enum af_kind ghost_of;
};

/* r stands for more names than its own: a view and its binary's own name, a container
 * and its members, a split view and its parts (a change of it changes those too). */
static inline int af_res_names_others(const struct af_res *r)
{
	return r->kind == AF_K_VIEW || r->kind == AF_K_SPLITDIR || r->kind == AF_K_SPLITPART ||
	       r->kind == AF_K_ARCDIR || r->in_split || (r->kind == AF_K_PASS && r->unlisted);
}

#endif
