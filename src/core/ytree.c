/* The YAML document tree builder (ytree.h): the one place where limits (depth, value
 * count), duplicate-key checks and node marks are enforced, for both readers
 * (yamlread.c: libyaml; yamlfast.c: the fast scanner). */
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/yamlio.h"
#include "ytree.h"

struct af_yframe {
	struct af_ynode *node;
	struct af_ynode **items;
	size_t n, cap;
};

static int push_item(struct af_yframe *f, struct af_ynode *child)
{
	struct af_ynode **p = af_grow(f->items, &f->cap, f->n, sizeof(*p), 8);
	if (!p)
		return AF_ENOMEM;
	f->items = p;
	f->items[f->n++] = child;
	return 0;
}

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
		if (map->items[2 * i]->type == AF_YSCALAR)
			keys[k++] = map->items[2 * i];
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
}

static struct af_ynode *new_node(struct af_ytree *t, enum af_ytype type, unsigned line,
				 unsigned col, const char *tag)
{
	struct af_ynode *n = af_arena_alloc_aligned(&t->doc->arena, sizeof(*n),
						    alignof(struct af_ynode));
	if (!n)
		return NULL;
	n->type = type;
	n->line = line;
	n->col = col;
	if (tag && !(n->tag = af_arena_strndup(&t->doc->arena, tag, strlen(tag))))
		return NULL;
	return n;
}

/* Count the node and hang it under the open container (or make it the root). */
static int attach(struct af_ytree *t, struct af_ynode *node)
{
	if (!node)
		return oom(t);
	if (++t->nodes > t->max_nodes)
		return af_diag_at_mark(t->d, AF_EINVAL, node->line, node->col,
				       "document has more than %zu values (the limit for YAML read by animfs)",
				       t->max_nodes);
	if (t->depth == 0)
		t->doc->root = node;
	else if (push_item(&t->stack[t->depth - 1], node))
		return oom(t);
	return 0;
}

int af_ytree_open(struct af_ytree *t, enum af_ytype type, unsigned line, unsigned col,
		  const char *tag)
{
	struct af_ynode *node;
	int rc;
	if (t->depth >= t->max_depth)
		return af_diag_at_mark(t->d, AF_EINVAL, line, col, "nesting deeper than %u levels",
				       t->max_depth);
	node = new_node(t, type, line, col, tag);
	if ((rc = attach(t, node)))
		return rc;
	t->stack[t->depth].node = node;
	t->stack[t->depth].n = 0;
	t->depth++;
	return 0;
}

int af_ytree_scalar_owned(struct af_ytree *t, unsigned line, unsigned col, const char *s,
			  size_t n, int plain)
{
	struct af_ynode *node = new_node(t, AF_YSCALAR, line, col, NULL);
	if (node) {
		node->str = s;
		node->len = n;
		node->plain = plain;
	}
	return attach(t, node);
}

int af_ytree_scalar(struct af_ytree *t, unsigned line, unsigned col, const char *s, size_t n,
		    int plain, const char *tag)
{
	struct af_ynode *node = new_node(t, AF_YSCALAR, line, col, tag);
	if (node) {
		node->len = n;
		node->plain = plain;
		if (!(node->str = af_arena_strndup(&t->doc->arena, s, n)))
			node = NULL;
	}
	return attach(t, node);
}

/* Close the innermost container: move its items into the arena. */
int af_ytree_close(struct af_ytree *t)
{
	struct af_yframe *f = &t->stack[t->depth - 1];
	struct af_ynode *node = f->node;
	node->items = af_arena_array(&t->doc->arena, f->n ? f->n : 1, sizeof(*node->items));
	if (!node->items)
		return oom(t);
	if (f->n)
		memcpy(node->items, f->items, f->n * sizeof(*node->items));
	node->n = node->type == AF_YMAP ? f->n / 2 : f->n;
	f->n = 0; /* f->items stays for the next container at this depth */
	t->depth--;
	return node->type == AF_YMAP ? check_keys(t, node) : 0;
}
