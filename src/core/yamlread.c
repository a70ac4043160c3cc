/* Reading a YAML document into a bounded tree whose nodes remember line:column:
 * aliases refused, depth and value count limited, duplicate keys rejected.
 * The fast scanner (yamlfast.c) reads the subset animfs writes; anything else,
 * and every malformed document, is read by libyaml, whose messages we report. */
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "animfs/yamlio.h"
#include "ytree.h"

/* ---------------------------------------------------------------- the tree */

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
	if (!(keys = malloc(map->n * sizeof(*keys))))
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
	if (!(t->stack = calloc(t->max_depth + 1, sizeof(*t->stack))))
		return oom(t);
	return 0;
}

void af_ytree_free(struct af_ytree *t)
{
	if (t->stack)
		for (size_t i = 0; i <= t->max_depth; i++)
			free(t->stack[i].items); /* calloc'ed: unused levels are NULL */
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

/* ---------------------------------------------------------------- libyaml */

/* libyaml's reader (bad UTF-8, control characters) reports a byte offset, not a
 * mark: turn it into line:column (columns count characters) for the message. */
static int reader_error(const uint8_t *text, size_t n, const yaml_parser_t *p,
			struct af_diag *d)
{
	size_t off = p->problem_offset < n ? p->problem_offset : n;
	unsigned line = 1, col = 1;
	for (size_t i = 0; i < off; i++) {
		if (text[i] == '\n') {
			line++;
			col = 1;
		} else if ((text[i] & 0xC0) != 0x80) {
			col++;
		}
	}
	if (p->problem_value >= 0)
		return af_diag_at_mark(d, AF_EINVAL, line, col, "%s (byte 0x%02x at offset %zu)",
				       p->problem, (unsigned)p->problem_value, off);
	return af_diag_at_mark(d, AF_EINVAL, line, col, "%s (at offset %zu)", p->problem, off);
}

static int parse_error(const uint8_t *text, size_t n, const yaml_parser_t *p, struct af_diag *d)
{
	const char *prob = p->problem ? p->problem : "malformed YAML";
	unsigned line = (unsigned)p->problem_mark.line + 1, col = (unsigned)p->problem_mark.column + 1;
	if (p->error == YAML_READER_ERROR)
		return reader_error(text, n, p, d);
	if (p->context)
		return af_diag_at_mark(d, AF_EINVAL, line, col, "%s %s", p->context, prob);
	return af_diag_at_mark(d, AF_EINVAL, line, col, "%s", prob);
}

static int libyaml_parse(struct af_ytree *t, const uint8_t *text, size_t n)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	int rc = 0, docs = 0, have_ev = 0;

	if (!yaml_parser_initialize(&parser))
		return af_diag_error(t->d, AF_ENOMEM, "cannot initialise the YAML parser");
	yaml_parser_set_input_string(&parser, text, n);
	for (;;) {
		if (!yaml_parser_parse(&parser, &ev)) {
			rc = parse_error(text, n, &parser, t->d);
			goto out;
		}
		have_ev = 1;
		unsigned line = (unsigned)ev.start_mark.line + 1, col = (unsigned)ev.start_mark.column + 1;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			goto out;
		case YAML_DOCUMENT_START_EVENT:
			if (++docs > 1) {
				rc = af_diag_at_mark(t->d, AF_EINVAL, line, col,
						     "more than one YAML document; expected exactly one");
				goto out;
			}
			break;
		case YAML_ALIAS_EVENT:
			rc = af_diag_at_mark(t->d, AF_EINVAL, line, col,
					     "aliases (*%s) are not supported; write the value out",
					     (const char *)ev.data.alias.anchor);
			goto out;
		case YAML_SCALAR_EVENT:
			rc = af_ytree_scalar(t, line, col, (const char *)ev.data.scalar.value,
					     ev.data.scalar.length,
					     ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE,
					     (const char *)ev.data.scalar.tag);
			break;
		case YAML_SEQUENCE_START_EVENT:
			rc = af_ytree_open(t, AF_YSEQ, line, col, (const char *)ev.data.sequence_start.tag);
			break;
		case YAML_MAPPING_START_EVENT:
			rc = af_ytree_open(t, AF_YMAP, line, col, (const char *)ev.data.mapping_start.tag);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			rc = af_ytree_close(t);
			break;
		default:
			break;
		}
		if (rc)
			goto out;
		yaml_event_delete(&ev);
		have_ev = 0;
	}
out:
	if (have_ev)
		yaml_event_delete(&ev);
	yaml_parser_delete(&parser);
	return rc;
}

/* ---------------------------------------------------------------- entry */

int af_ydoc_parse(struct af_ydoc *doc, const uint8_t *text, size_t n,
		  const struct af_ylimits *lim, struct af_diag *d)
{
	struct af_ytree t;
	struct af_diag fd;
	int rc, reader = lim ? lim->reader : AF_YREAD_AUTO;

	af_diag_init(&fd);
	if ((rc = af_ytree_init(&t, doc, lim, d)))
		goto out;
	if (n > AF_MAX_YAML) {
		rc = af_diag_error(d, AF_EINVAL,
				   "the document is %zu bytes; animfs accepts YAML up to %zu MiB", n,
				   AF_MAX_YAML >> 20);
		goto out;
	}
	if (reader != AF_YREAD_LIBYAML) {
		/* the fast scanner's own complaints are never shown: libyaml's are */
		t.d = &fd;
		rc = af_yfast_parse(&t, text, n);
		t.d = d;
		if (rc == 0 || reader == AF_YREAD_FAST)
			goto out;
		af_ytree_reset(&t);
	}
	if (!(rc = libyaml_parse(&t, text, n)) && !doc->root)
		rc = af_diag_at_mark(d, AF_EINVAL, 1, 1, "empty document");
out:
	af_ytree_free(&t);
	af_diag_free(&fd);
	if (rc)
		af_ydoc_free(doc);
	return rc;
}

void af_ydoc_free(struct af_ydoc *doc)
{
	af_arena_free(&doc->arena);
	doc->root = NULL;
}
