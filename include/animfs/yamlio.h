/* YAML in and out.
 * Out: codecs write text straight into an af_buf with these helpers (fast, one
 * keyframe per line as flow sequences, no wrapping). In: a small tree whose nodes
 * carry line:column, with aliases refused and depth bounded, so a hostile document
 * cannot blow up memory or time; a fast scanner reads the subset animfs writes and
 * libyaml everything else, into the same tree. */
#ifndef ANIMFS_YAMLIO_H
#define ANIMFS_YAMLIO_H

#include <stddef.h>
#include <stdint.h>
#include "animfs/arena.h"
#include "animfs/buf.h"
#include "animfs/diag.h"

/* ---- writing ---- */
void af_y_indent(struct af_buf *b, int spaces);
/* A string scalar: plain when it reads back as the same string, else quoted. */
void af_y_str(struct af_buf *b, const char *s, size_t n);
void af_y_cstr(struct af_buf *b, const char *s);
void af_y_f32(struct af_buf *b, float v);
void af_y_f64(struct af_buf *b, double v);
void af_y_f16(struct af_buf *b, uint16_t bits);
void af_y_u64(struct af_buf *b, uint64_t v);
void af_y_i64(struct af_buf *b, int64_t v);
void af_y_hex(struct af_buf *b, uint64_t v, int digits);
/* Opaque bytes as a literal block of hex ("|" then lines of 32 bytes) at indent. */
void af_y_hexblock(struct af_buf *b, const uint8_t *p, size_t n, int indent);
/* Opaque bytes as a base64 literal block (76 chars a line) at indent. */
void af_y_base64block(struct af_buf *b, const uint8_t *p, size_t n, int indent);

/* ---- reading ---- */
enum af_ytype { AF_YSCALAR, AF_YSEQ, AF_YMAP };

/* 40 bytes (a tree holds millions): a container's children lie by value in one block
 * of the document's arena (&n->items[i]), scalars' strings are packed (alignment 1).
 * len and n fit 32 bits and line 29 because a document is at most AF_MAX_YAML bytes.
 * str and items stay separate (and NULL when not of the node's type), so code that
 * forgets a type check reads nothing it should not. */
struct af_ynode {
	unsigned type : 2;    /* enum af_ytype */
	unsigned plain : 1;   /* scalar: plain (unquoted) style, may be null/number */
	unsigned line : 29;   /* 1-based start mark */
	uint32_t col;
	/* scalar: strlen(str); seq: n items; map: n pairs, items[2i] key, items[2i+1] value */
	uint32_t len, n;
	const char *tag;      /* NULL when none */
	const char *str;      /* scalar: NUL-terminated copy */
	struct af_ynode *items;
};

struct af_ydoc {
	struct af_arena arena;
	struct af_ynode *root;
};

/* Which reader af_ydoc_parse uses. AUTO: the fast scanner for the block-and-flow
 * subset animfs writes, libyaml for everything else (and for every error). The
 * other two are for tests: LIBYAML only, or FAST only (AF_EUNSUP outside the subset). */
enum af_yreader { AF_YREAD_AUTO, AF_YREAD_LIBYAML, AF_YREAD_FAST };

typedef size_t af_ymore_fn(void *ctx, size_t want);

/* A tree's borrowing from a lender of memory (the daemon's render cache, the command
 * line's pool of threads): af_loan_more is an af_ymore_fn over a struct af_loan, which
 * asks lend for what is missing (lend returns what it gives, never waiting: short_of
 * is set when it gave less); af_loan_end gives it all back, once the tree is freed. */
struct af_loan {
	size_t (*lend)(void *lender, size_t want);
	void (*repay)(void *lender, size_t n);
	void *lender;
	size_t lent;
	int short_of;
};
size_t af_loan_more(void *loan, size_t want);
void af_loan_end(struct af_loan *l);

struct af_ylimits {
	unsigned max_depth;   /* default 64 */
	size_t max_nodes;     /* default 0 = AF_MAX_YAML_NODES */
	enum af_yreader reader;
	/* The bytes the tree may take while it is built (its nodes and strings, and the
	 * children of the containers still open); 0: no limit. Past it the parse fails
	 * with "L:C: the document needs more than N MiB to encode: raise --cache-mb". */
	size_t max_bytes;
	size_t held; /* of max_bytes, what other documents of the same encode hold already */
	/* When the tree would pass max_bytes: asked to let it take `want` bytes over
	 * max_bytes in all (a daemon lends them from its render cache, which evicts texts
	 * to make room); returns what it lets the tree take over max_bytes now, in all
	 * (what it granted before included: the parts of one split view ask the same
	 * lender). NULL: nothing more. The lender takes back what it lent once the
	 * documents are freed. */
	af_ymore_fn *more;
	void *more_ctx;
};

/* A derived output's memory (a plot's, a preview's: the mount makes them within its
 * bound): the document's tree within lim (NULL: none), then the model read out of it,
 * whose size in all is told to room as it grows (0: refused; the model then stops as
 * out of memory, with over set), and freed(ctx) once the tree is freed (its share then
 * goes to the model and the file). room and freed may be NULL. */
struct af_ybudget {
	const struct af_ylimits *lim;
	int (*room)(void *ctx, size_t bytes);
	void (*freed)(void *ctx);
	void *ctx;
};

/* No real document comes near this (the largest samples render to a few MiB); a
 * larger one is refused before parsing, by the command line, the mount (EFBIG)
 * and af_ydoc_parse itself, so memory stays bounded by a small multiple of it. */
#define AF_MAX_YAML ((size_t)256 << 20)
/* The tree costs about 43 bytes a value (a 40-byte node, its string and NUL; measured:
 * the largest real document, a Shenmue motion bank of 14.5 MB, has 2.0 M nodes, 1.51 M
 * of them scalars, in 86.9 MB of tree, 6 bytes a byte of text), so the size limit alone
 * would let a document of "1," pairs take over 5 GiB. This default (used when
 * af_ylimits.max_nodes is 0) leaves 4x room and bounds the tree to ~350 MiB; a caller
 * under a memory bound also gives af_ylimits.max_bytes. */
#define AF_MAX_YAML_NODES ((size_t)8 << 20)

/* The memory bound: --cache-mb (the daemon's render cache; the command line's default is
 * the daemon's) + 64 MiB for everything else. A document's tree gets what is left of it
 * once the document's text (twice: the text saved and the text it replaces) and 16 MiB
 * (the process, the codec's model, the binary) are counted: af_ytree_budget, at least
 * 1 MiB. The largest real document (14.5 MB, 87 MB of tree) fits the default bound
 * (320 MiB) with room to spare, and not --cache-mb=16's (80 MiB). The daemon, whose
 * render cache holds texts within --cache-mb, passes 0 for cache_bytes and lets the
 * tree borrow the texts' share as it grows (af_ylimits.more: the cache lends it,
 * evicting texts), so that texts and tree never both take it. */
#define AF_BOUND_EXTRA ((size_t)64 << 20)
#define AF_YTREE_RESERVE ((size_t)16 << 20)
static inline size_t af_ytree_budget(size_t cache_bytes, size_t n)
{
	size_t bound = cache_bytes + AF_BOUND_EXTRA, other = AF_YTREE_RESERVE + 2 * n;
	return bound > other + ((size_t)1 << 20) ? bound - other : (size_t)1 << 20;
}

/* Parse one document. Errors carry line:column. Aliases are refused. Documents
 * larger than AF_MAX_YAML are refused. */
int af_ydoc_parse(struct af_ydoc *doc, const uint8_t *text, size_t n,
		  const struct af_ylimits *lim, struct af_diag *d);
void af_ydoc_free(struct af_ydoc *doc);

/* Map lookup; NULL when absent or when m is not a map. */
const struct af_ynode *af_ymap_get(const struct af_ynode *m, const char *key);
/* Error with the node's position: "line:col" is taken from n. Returns code. */
int af_y_error(struct af_diag *d, const struct af_ynode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void af_y_warn(struct af_diag *d, const struct af_ynode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A null scalar (plain "", "~", "null"). */
int af_y_is_null(const struct af_ynode *n);

/* Checked getters: on failure an error naming `what` and the node's position. */
int af_y_want(struct af_diag *d, const struct af_ynode *n, enum af_ytype t, const char *what);
int af_y_get_f32(struct af_diag *d, const struct af_ynode *n, float *out, const char *what);
int af_y_get_f64(struct af_diag *d, const struct af_ynode *n, double *out, const char *what);
int af_y_get_f16(struct af_diag *d, const struct af_ynode *n, uint16_t *out, const char *what);
int af_y_get_u64(struct af_diag *d, const struct af_ynode *n, uint64_t max, uint64_t *out,
		 const char *what);
int af_y_get_u32(struct af_diag *d, const struct af_ynode *n, uint32_t *out, const char *what);
int af_y_get_i64(struct af_diag *d, const struct af_ynode *n, int64_t min, int64_t max,
		 int64_t *out, const char *what);
int af_y_get_str(struct af_diag *d, const struct af_ynode *n, const char **s, size_t *len,
		 const char *what);
/* Decode a hex or base64 block written by the helpers above (whitespace ignored). */
int af_y_get_hex(struct af_diag *d, const struct af_ynode *n, struct af_buf *out, const char *what);
int af_y_get_base64(struct af_diag *d, const struct af_ynode *n, struct af_buf *out,
		    const char *what);
/* Required key of a map: error "what: missing key 'k'" when absent. */
const struct af_ynode *af_y_need(struct af_diag *d, const struct af_ynode *m, const char *key,
				 const char *what);

#endif
