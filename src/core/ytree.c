/* The YAML document tree builder (ytree.h): the one place where limits (depth, value
 * count), duplicate-key checks and node marks are enforced, for both readers
 * (yamlread.c: libyaml; yamlfast.c: the fast scanner). */
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/yamlio.h"
#include "ytree.h"

/* An open container: its node (in the parent's frame, which does not grow while the
 * container is open, or the root) and its children so far, by value. */
struct af_yframe {
	struct af_ynode *node;
	struct af_ynode *items;
	size_t n, cap;
};

_Static_assert(sizeof(void *) != 8 || sizeof(struct af_ynode) == 40,
	       "struct af_ynode is 40 bytes: a tree holds millions");

static int key_cmp(const void *a, const void *b)
{
	const struct af_ynode *x = *(const struct af_ynode *const *)a;
	const struct af_ynode *y = *(const struct af_ynode *const *)b;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(x->str, y->str, x->len);
}

static int oom(struct af_ytree *t)
{
	return af_diag_error(t->d, AF_ENOMEM, "out of memory reading YAML");
}

/* Reject duplicate scalar keys; the later one is named. */
static int check_keys(struct af_ytree *t, const struct af_ynode *map)
{
	struct af_ynode **keys;
	size_t k = 0;
	int rc = 0;
	if (map->n < 2)
		return 0;
	if (!(keys = af_alloc(map->n * sizeof(*keys))))
		return oom(t);
	for (size_t i = 0; i < map->n; i++)
		if (map->items[2 * i].type == AF_YSCALAR)
			keys[k++] = &map->items[2 * i];
	qsort(keys, k, sizeof(*keys), key_cmp);
	for (size_t i = 1; i < k; i++)
		if (!key_cmp(&keys[i - 1], &keys[i])) {
			const struct af_ynode *dup = keys[i]->line > keys[i - 1]->line ||
				(keys[i]->line == keys[i - 1]->line && keys[i]->col > keys[i - 1]->col)
				? keys[i] : keys[i - 1];
			rc = af_diag_at_mark(t->d, AF_EINVAL, dup->line, dup->col, "duplicate key '%s'",
					     dup->str);
			break;
		}
	free(keys);
	return rc;
}

int af_ytree_init(struct af_ytree *t, struct af_ydoc *doc, const struct af_ylimits *lim,
		  struct af_diag *d)
{
	memset(t, 0, sizeof(*t));
	t->doc = doc;
	t->d = d;
	t->max_depth = lim && lim->max_depth ? lim->max_depth : 64;
	t->max_nodes = lim && lim->max_nodes ? lim->max_nodes : AF_MAX_YAML_NODES;
	t->max_bytes = lim ? lim->max_bytes : 0;
	t->held = lim && lim->max_bytes ? lim->held : 0;
	t->more = lim && lim->max_bytes ? lim->more : NULL;
	t->more_ctx = lim ? lim->more_ctx : NULL;
	af_arena_init(&doc->arena);
	doc->root = NULL;
	if (!(t->stack = af_alloc_zeroed(t->max_depth + 1, sizeof(*t->stack))))
		return oom(t);
	return 0;
}

void af_ytree_free(struct af_ytree *t)
{
	if (t->stack)
		for (size_t i = 0; i <= t->max_depth; i++)
			free(t->stack[i].items); /* zeroed: unused levels are NULL */
	free(t->stack);
	t->stack = NULL;
}

void af_ytree_reset(struct af_ytree *t)
{
	af_arena_free(&t->doc->arena);
	af_arena_init(&t->doc->arena);
	t->doc->root = NULL;
	for (size_t i = 0; i <= t->max_depth; i++)
		t->stack[i].n = 0;
	t->depth = t->nodes = 0;
	t->over = 0;
}

size_t af_loan_more(void *loan, size_t want)
{
	struct af_loan *l = loan;
	if (want > l->lent) {
		size_t got = l->lend(l->lender, want - l->lent);
		l->short_of |= got < want - l->lent;
		l->lent += got;
	}
	return l->lent;
}

void af_loan_end(struct af_loan *l)
{
	if (l->lent)
		l->repay(l->lender, l->lent);
	l->lent = 0;
}

/* Whether the tree may take size bytes more (its arena and the open containers' children
 * together, against af_ylimits.max_bytes); else the error, marked at line:col. */
static int room(struct af_ytree *t, size_t size, unsigned line, unsigned col)
{
	size_t used = t->held + t->doc->arena.used_total + t->frame_bytes;
	size_t limit = t->max_bytes + t->extra;
	if (!t->max_bytes || (used <= limit && size <= limit - used))
		return 0;
	if (t->more) { /* asked in steps of at least AF_YMORE_STEP: few calls, few evictions */
		size_t want = used + size - t->max_bytes;
		if (want - t->extra < AF_YMORE_STEP)
			want = t->extra + AF_YMORE_STEP;
		t->extra = t->more(t->more_ctx, want);
		limit = t->max_bytes + t->extra;
		if (used <= limit && size <= limit - used)
			return 0;
	}
	t->over = 1;
	return af_diag_at_mark(t->d, AF_EINVAL, line, col,
			       "the document needs more than %zu MiB to encode: raise --cache-mb "
			       "(memory stays within --cache-mb + 64 MiB)",
			       limit >> 20);
}

char *af_ytree_str(struct af_ytree *t, unsigned line, unsigned col, size_t n, int *rc)
{
	char *p;
	if ((*rc = room(t, n + 1, line, col)))
		return NULL;
	/* packed: alignment 1, as every scalar's text (af_arena_strndup) */
	if (!(p = af_arena_alloc_aligned(&t->doc->arena, n + 1, 1)))
		*rc = oom(t);
	return p;
}

/* A new node at line:col, zeroed but for its type and mark, counted and hung under the
 * open container (at the end of its children) or made the root. */
static struct af_ynode *new_node(struct af_ytree *t, enum af_ytype type, unsigned line,
				 unsigned col, const char *tag, int *rc)
{
	struct af_ynode *n;
	if (++t->nodes > t->max_nodes) {
		*rc = af_diag_at_mark(t->d, AF_EINVAL, line, col,
				      "document has more than %zu values (the limit for YAML read by animfs)",
				      t->max_nodes);
		return NULL;
	}
	if (t->depth == 0) {
		if ((*rc = room(t, sizeof(*n), line, col)))
			return NULL;
		n = af_arena_alloc_aligned(&t->doc->arena, sizeof(*n), alignof(struct af_ynode));
		if (!n)
			goto oom;
		t->doc->root = n;
	} else {
		struct af_yframe *f = &t->stack[t->depth - 1];
		if (f->n == f->cap) {
			size_t cap = f->cap, more = (cap ? cap : 8) * sizeof(*n);
			if ((*rc = room(t, more, line, col)))
				return NULL;
			if (!(n = af_grow(f->items, &cap, f->n, sizeof(*n), 8)))
				goto oom;
			t->frame_bytes += (cap - f->cap) * sizeof(*n);
			f->items = n;
			f->cap = cap;
		}
		n = &f->items[f->n++];
		memset(n, 0, sizeof(*n));
	}
	n->type = type;
	n->line = line & ((1u << 29) - 1); /* a document of AF_MAX_YAML bytes has fewer */
	n->col = col;
	*rc = 0;
	if (tag && !(n->tag = af_ytree_str(t, line, col, strlen(tag), rc)))
		return NULL;
	if (tag)
		memcpy((char *)n->tag, tag, strlen(tag) + 1);
	return n;
oom:
	*rc = oom(t);
	return NULL;
}

int af_ytree_open(struct af_ytree *t, enum af_ytype type, unsigned line, unsigned col,
		  const char *tag)
{
	struct af_ynode *node;
	int rc;
	if (t->depth >= t->max_depth)
		return af_diag_at_mark(t->d, AF_EINVAL, line, col, "nesting deeper than %u levels",
				       t->max_depth);
	if (!(node = new_node(t, type, line, col, tag, &rc)))
		return rc;
	/* the parent's children do not move while this one is open: nothing else is
	 * added to them until it closes */
	t->stack[t->depth].node = node;
	t->stack[t->depth].n = 0;
	t->depth++;
	return 0;
}

int af_ytree_scalar_owned(struct af_ytree *t, unsigned line, unsigned col, const char *s,
			  size_t n, int plain)
{
	int rc;
	struct af_ynode *node = new_node(t, AF_YSCALAR, line, col, NULL, &rc);
	if (!node)
		return rc;
	node->str = s;
	node->len = (uint32_t)n;
	node->plain = !!plain;
	return 0;
}

int af_ytree_scalar(struct af_ytree *t, unsigned line, unsigned col, const char *s, size_t n,
		    int plain, const char *tag)
{
	int rc;
	struct af_ynode *node = new_node(t, AF_YSCALAR, line, col, tag, &rc);
	char *str;
	if (!node)
		return rc;
	if (!(str = af_ytree_str(t, line, col, n, &rc)))
		return rc;
	memcpy(str, s, n);
	str[n] = 0;
	node->str = str;
	node->len = (uint32_t)n;
	node->plain = !!plain;
	return 0;
}

/* Close the innermost container: move its children into one block of the arena. */
int af_ytree_close(struct af_ytree *t)
{
	struct af_yframe *f = &t->stack[t->depth - 1];
	struct af_ynode *node = f->node;
	int rc;
	if ((rc = room(t, (f->n ? f->n : 1) * sizeof(*node->items), node->line, node->col)))
		return rc;
	node->items = af_arena_alloc_aligned(&t->doc->arena, (f->n ? f->n : 1) * sizeof(*node->items),
					     alignof(struct af_ynode));
	if (!node->items)
		return oom(t);
	if (f->n)
		memcpy(node->items, f->items, f->n * sizeof(*node->items));
	node->n = (uint32_t)(node->type == AF_YMAP ? f->n / 2 : f->n);
	f->n = 0; /* f->items stays for the next container at this depth */
	t->depth--;
	return node->type == AF_YMAP ? check_keys(t, node) : 0;
}
