/* The YAML document tree builder, shared by the two readers of af_ydoc_parse:
 * libyaml's event parser (all of YAML) and the fast scanner (yamlfast.c: the
 * block-and-flow subset animfs writes). Both feed the same calls, so limits
 * (depth, value count), duplicate-key checks and node marks are enforced once. */
#ifndef ANIMFS_YTREE_H
#define ANIMFS_YTREE_H

#include <stddef.h>
#include "animfs/yamlio.h"

struct af_yframe;

/* What af_ylimits.more is asked for at least, each time the tree outgrows its bound. */
#define AF_YMORE_STEP ((size_t)8 << 20)

struct af_ytree {
	struct af_ydoc *doc;
	struct af_diag *d;
	struct af_yframe *stack; /* max_depth + 1 open containers */
	size_t depth, nodes, max_nodes;
	size_t max_bytes;   /* af_ylimits.max_bytes: 0, or the most the tree may take */
	size_t held;        /* af_ylimits.held */
	af_ymore_fn *more;  /* af_ylimits.more (with max_bytes only) */
	void *more_ctx;
	size_t extra;       /* what more granted so far, over max_bytes */
	size_t frame_bytes; /* the open containers' children, before they move to the arena */
	unsigned max_depth;
	int over;           /* the last error: max_bytes reached */
};

int af_ytree_init(struct af_ytree *t, struct af_ydoc *doc, const struct af_ylimits *lim,
		  struct af_diag *d);
void af_ytree_free(struct af_ytree *t);
/* Drop everything built so far (the arena too) and start an empty document. */
void af_ytree_reset(struct af_ytree *t);
/* A sequence or mapping starts at line:col (1-based); tag may be NULL. */
int af_ytree_open(struct af_ytree *t, enum af_ytype type, unsigned line, unsigned col,
		  const char *tag);
/* A scalar; its text is copied. */
int af_ytree_scalar(struct af_ytree *t, unsigned line, unsigned col, const char *s, size_t n,
		    int plain, const char *tag);
/* A scalar whose NUL-terminated text the caller already put in the document's arena. */
int af_ytree_scalar_owned(struct af_ytree *t, unsigned line, unsigned col, const char *s,
			  size_t n, int plain);
int af_ytree_close(struct af_ytree *t);
/* Room for a scalar's text of n bytes and its NUL in the document's arena, for
 * af_ytree_scalar_owned, marked line:col; NULL with *rc (out of memory, or of the
 * tree's budget). */
char *af_ytree_str(struct af_ytree *t, unsigned line, unsigned col, size_t n, int *rc);

/* Read text with the fast scanner. 0: the tree is complete. AF_EUNSUP: the text
 * leaves the subset (or is malformed) and nothing was reported: the caller resets
 * the tree and lets libyaml read it. Other codes: the builder's errors. */
int af_yfast_parse(struct af_ytree *t, const uint8_t *text, size_t n);

#endif
