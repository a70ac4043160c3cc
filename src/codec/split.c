/* A big view as a folder of small documents (split.h): the cut, the join and the
 * schemas, for any codec that names the lists to cut. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/split.h"
#include "animfs/yamlio.h"

#define MODELINE "# yaml-language-server: $schema="

int af_split_able(const struct af_codec *c)
{
	return c && c->split && c->split[0].key && c->from_doc;
}

void af_split_schema_name(const struct af_codec *c, const char *key, char *out, size_t size)
{
	snprintf(out, size, "%s.%s.json", c->name, key ? key : "index");
}

static void modeline(struct af_buf *b, const char *dir, const struct af_codec *c, const char *key)
{
	char name[256];
	if (!dir || !strcmp(dir, "none") || !c->schema)
		return;
	af_split_schema_name(c, key, name, sizeof(name));
	af_buf_printf(b, MODELINE "%s%s%s\n", dir, dir[0] && dir[strlen(dir) - 1] != '/' ? "/" : "",
		      name);
}

void af_split_free(struct af_split *s)
{
	af_buf_free(&s->index);
	for (size_t i = 0; i < s->n; i++)
		af_buf_free(&s->parts[i].text);
	free(s->parts);
	memset(s, 0, sizeof(*s));
}

int af_split_part_name_ok(const char *name, size_t len)
{
	if (len < 6 || len >= AF_SPLIT_NAME_MAX || name[0] == '.' || memchr(name, '/', len) ||
	    memchr(name, 0, len) || memcmp(name + len - 5, ".yaml", 5))
		return 0;
	return !(len == strlen(AF_SPLIT_INDEX) && !memcmp(name, AF_SPLIT_INDEX, len));
}

/* ---- the cut ---- */

/* Offsets of the start of each line (1-based: starts[line - 1]) and the text's end. */
struct lines {
	size_t *start, n;
	size_t end;
};

static int index_lines(const uint8_t *t, size_t n, struct lines *l)
{
	size_t cap = 0;
	l->n = 0;
	l->end = n;
	l->start = NULL;
	for (size_t i = 0; i <= n; i++)
		if (i == 0 || t[i - 1] == '\n') {
			if (i == n && i)
				break;
			size_t *g = af_grow(l->start, &cap, l->n + 1, sizeof(*l->start), 1024);
			if (!g)
				return AF_ENOMEM;
			l->start = g;
			l->start[l->n++] = i;
		}
	return 0;
}

static size_t line_at(const struct lines *l, unsigned line)
{
	return line >= 1 && line <= l->n ? l->start[line - 1] : l->end;
}

/* Element i of a list or map: the item, or the pair's key. */
static const struct af_ynode *element(const struct af_ynode *v, size_t i)
{
	return v->type == AF_YMAP ? &v->items[2 * i] : &v->items[i];
}

/* The element's name value (a map's: its key), made a file name's piece (letters,
 * digits, . _ -). */
static void name_piece(const struct af_ynode *v, size_t i, const char *key, char *out, size_t size)
{
	const struct af_ynode *n = v->type == AF_YMAP ? &v->items[2 * i]
			       : key ? af_ymap_get(&v->items[i], key) : NULL;
	size_t o = 0;
	out[0] = 0;
	if (!n || n->type != AF_YSCALAR)
		return;
	for (size_t k = 0; k < n->len && o + 1 < size && o < 48; k++) {
		char ch = n->str[k];
		int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
			 ch == '_' || ch == '-' || (ch == '.' && o);
		out[o++] = ok ? ch : '_';
	}
	out[o] = 0;
}

/* Whether elements i - 1 and i of v share a part: the same name value (group), else
 * fewer than per elements so far in the part that starts at first. */
static int same_part(const struct af_split_key *sk, const struct af_ynode *v, size_t first, size_t i)
{
	if (sk->group && sk->name && v->type == AF_YSEQ) {
		const struct af_ynode *x = af_ymap_get(&v->items[i - 1], sk->name);
		const struct af_ynode *y = af_ymap_get(&v->items[i], sk->name);
		return x && y && x->type == AF_YSCALAR && y->type == AF_YSCALAR && x->len == y->len &&
		       !memcmp(x->str, y->str, x->len);
	}
	return i - first < (sk->per ? sk->per : 1);
}

/* Whether the list (map) is written in block style, each item (key) starting its own
 * line below the key's: "- " first on the line (the key first on the line). */
static int block_style(const uint8_t *t, const struct lines *l, const struct af_ynode *v,
		       unsigned key_line)
{
	for (size_t i = 0; i < v->n; i++) {
		const struct af_ynode *e = element(v, i);
		size_t p = line_at(l, e->line), s0 = p;
		if (e->line <= key_line || (i && e->line <= element(v, i - 1)->line) || p >= l->end)
			return 0;
		while (p < l->end && t[p] == ' ')
			p++;
		if (v->type == AF_YMAP ? p - s0 + 1 != e->col || !p
				       : p + 1 >= l->end || t[p] != '-' || (t[p + 1] != ' ' && t[p + 1] != '\n'))
			return 0;
	}
	return 1;
}

/* Where the list's last item ends: the next line that starts at column 0 with content. */
static size_t list_end(const uint8_t *t, const struct lines *l, unsigned last_line)
{
	for (unsigned ln = last_line + 1; ln <= l->n; ln++) {
		size_t p = l->start[ln - 1];
		if (p < l->end && t[p] != ' ' && t[p] != '\n' && t[p] != '\r')
			return p;
	}
	return l->end;
}

static int add_part(struct af_split *s, size_t *cap, const char *key, size_t no, size_t width,
		    const char *piece)
{
	struct af_split_part *p = af_grow(s->parts, cap, s->n + 1, sizeof(*s->parts), 64);
	if (!p)
		return AF_ENOMEM;
	s->parts = p;
	p = &s->parts[s->n++];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s-%0*zu%s%s.yaml", key, (int)width, no,
		 piece[0] ? "-" : "", piece);
	return 0;
}

/* The parts of the list (map) v of key sk, its text replaced by their names in the index. */
static int cut(const struct af_codec *c, const struct af_split_key *sk, const struct af_ynode *v,
	       const uint8_t *yaml, const struct lines *l, const char *schema_dir,
	       struct af_split *s, size_t *cap)
{
	size_t width = 4, nparts = 0;
	size_t end = list_end(yaml, l, element(v, v->n - 1)->line);
	for (size_t i = 0, first = 0; i < v->n; i++)
		if (!i || !same_part(sk, v, first, i))
			nparts++, first = i;
	for (size_t m = 10000; m <= nparts - 1 && width < 12; m *= 10)
		width++;
	for (size_t i = 0, no = 0; i < v->n; no++) {
		size_t j = i + 1, from, to;
		char piece[64];
		struct af_split_part *p;
		while (j < v->n && same_part(sk, v, i, j))
			j++;
		name_piece(v, i, sk->name, piece, sizeof(piece));
		if (add_part(s, cap, sk->key, no, width, piece))
			return AF_ENOMEM;
		p = &s->parts[s->n - 1];
		from = line_at(l, element(v, i)->line);
		to = j < v->n ? line_at(l, element(v, j)->line) : end;
		modeline(&p->text, schema_dir, c, sk->key);
		af_buf_printf(&p->text, "%s:   # items %zu..%zu; %s lists the parts in order\n",
			      sk->key, i, j - 1, AF_SPLIT_INDEX);
		af_buf_append(&p->text, yaml + from, to - from);
		if (to > from && yaml[to - 1] != '\n')
			af_buf_putc(&p->text, '\n');
		af_buf_printf(&s->index, "  - %s\n", p->name);
		if (p->text.failed)
			return AF_ENOMEM;
		i = j;
	}
	return 0;
}

int af_split_view(const struct af_codec *c, const uint8_t *yaml, size_t n, const char *schema_dir,
		  const struct af_ylimits *tree, struct af_split *s, struct af_diag *d)
{
	struct af_ydoc doc;
	struct af_ylimits lim = { .max_bytes = tree ? tree->max_bytes : 0,
				  .more = tree ? tree->more : NULL,
				  .more_ctx = tree ? tree->more_ctx : NULL };
	struct lines l = {0};
	size_t cap = 0, pos = 0;
	int rc;

	memset(s, 0, sizeof(*s));
	memset(&doc, 0, sizeof(doc));
	if ((rc = af_ydoc_parse(&doc, yaml, n, &lim, d)))
		goto out;
	if ((rc = index_lines(yaml, n, &l)))
		goto out;
	/* the view's own modeline gives way to the index's */
	if (n >= sizeof(MODELINE) - 1 && !memcmp(yaml, MODELINE, sizeof(MODELINE) - 1))
		pos = line_at(&l, 2);
	modeline(&s->index, schema_dir, c, NULL);
	for (size_t k = 0; doc.root && doc.root->type == AF_YMAP && k < doc.root->n; k++) {
		const struct af_ynode *key = &doc.root->items[2 * k], *v = &doc.root->items[2 * k + 1];
		const struct af_split_key *sk = NULL;
		size_t first;
		for (const struct af_split_key *x = c->split; x && x->key; x++)
			if (key->type == AF_YSCALAR && !strcmp(key->str, x->key))
				sk = x;
		if (!sk || v->type == AF_YSCALAR || !v->n || !block_style(yaml, &l, v, key->line))
			continue;
		first = line_at(&l, element(v, 0)->line);
		af_buf_append(&s->index, yaml + pos, first - pos);
		if ((rc = cut(c, sk, v, yaml, &l, schema_dir, s, &cap)))
			goto out;
		pos = list_end(yaml, &l, element(v, v->n - 1)->line);
	}
	af_buf_append(&s->index, yaml + pos, n - pos);
	rc = s->index.failed ? AF_ENOMEM : 0;
out:
	if (rc == AF_ENOMEM)
		af_diag_error(d, AF_ENOMEM, "out of memory");
	if (rc)
		af_split_free(s);
	free(l.start);
	af_ydoc_free(&doc);
	return rc;
}

/* ---- the join ---- */

struct file {
	char name[AF_SPLIT_NAME_MAX];
	unsigned base; /* its line 1 is line base + 1 of the whole */
	struct af_ydoc doc;
};

static unsigned count_lines(const uint8_t *t, size_t n)
{
	unsigned c = 1;
	for (const uint8_t *p = t; (p = memchr(p, '\n', (size_t)(t + n - p))); p++)
		c++;
	return c;
}

static void shift(struct af_ynode *node, unsigned by)
{
	node->line += by;
	if (node->type != AF_YSCALAR)
		for (size_t i = 0; i < (node->type == AF_YMAP ? 2 * node->n : node->n); i++)
			shift(&node->items[i], by);
}

/* The file that line of the whole is in, and the line there. */
static const struct file *locate(struct file *const *f, size_t nf, unsigned line, unsigned *local)
{
	size_t k = 0;
	while (k + 1 < nf && f[k + 1]->base < line)
		k++;
	*local = line > f[k]->base ? line - f[k]->base : line;
	return f[k];
}

/* One part, parsed, its lines moved past base (*lines: how many it has): the items of
 * its list key in *items (NULL when the list is empty). d's place is the part's own. */
static int read_part(const char *key, af_split_read_fn *rd, void *ctx, struct file *f,
		     size_t *total, struct af_ylimits *lim, unsigned *lines,
		     const struct af_ynode **items, struct af_diag *d)
{
	struct af_buf text = AF_BUF_INIT;
	const struct af_ynode *root, *v;
	int rc;
	*items = NULL;
	if ((rc = rd(ctx, f->name, &text, d)))
		goto out;
	if (text.len > AF_MAX_YAML - *total) {
		rc = af_diag_error(d, AF_EINVAL, "the parts together are larger than %zu MiB",
				   AF_MAX_YAML >> 20);
		goto out;
	}
	*total += text.len;
	*lines = count_lines(text.data, text.len);
	if ((rc = af_ydoc_parse(&f->doc, text.data, text.len, lim, d)))
		goto out;
	lim->held += f->doc.arena.used_total; /* the parts' trees share the budget */
	root = f->doc.root;
	if (!root || root->type != AF_YMAP) {
		rc = af_diag_at_mark(d, AF_EINVAL, root ? root->line : 1, root ? root->col : 1,
				     "a part of '%s' is a map with the one key '%s'", key, key);
		goto out;
	}
	for (size_t i = 0; i < root->n; i++)
		if (root->items[2 * i].type != AF_YSCALAR || strcmp(root->items[2 * i].str, key)) {
			rc = af_y_error(d, &root->items[2 * i],
					"a part of '%s' holds the key '%s' only (%s lists this file under '%s')",
					key, key, AF_SPLIT_INDEX, key);
			goto out;
		}
	if (!(v = af_ymap_get(root, key))) {
		rc = af_diag_at_mark(d, AF_EINVAL, root->line, root->col,
				     "a part of '%s': missing key '%s'", key, key);
		goto out;
	}
	if (v->type == AF_YSCALAR && !af_y_is_null(v)) {
		rc = af_y_error(d, v, "'%s' of a part is a list or a map", key);
		goto out;
	}
	shift(f->doc.root, f->base);
	*items = v->type != AF_YSCALAR ? v : NULL;
out:
	af_buf_free(&text);
	return rc;
}

static struct file *add_file(struct file ***f, size_t *nf, size_t *cap, const char *name,
			     size_t len, unsigned base)
{
	struct file *x, **g = af_grow(*f, cap, *nf + 1, sizeof(**f), 16);
	if (!g)
		return NULL;
	*f = g;
	if (!(x = af_alloc_zeroed(1, sizeof(*x))))
		return NULL;
	snprintf(x->name, sizeof(x->name), "%.*s", (int)len, name);
	x->base = base;
	(*f)[(*nf)++] = x;
	return x;
}

static int by_key(const void *a, const void *b)
{
	const struct af_ynode *x = *(const struct af_ynode *const *)a, *y = *(const struct af_ynode *const *)b;
	int c = strcmp(x->str, y->str);
	return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* A key in two parts is one key twice: refused at the later one, as the parser does
 * within one document. */
static int no_twice(const struct af_ynode *map, struct af_diag *d)
{
	const struct af_ynode **keys = af_alloc_zeroed(map->n ? map->n : 1, sizeof(*keys));
	int rc = 0;
	if (!keys)
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	for (size_t i = 0; i < map->n; i++)
		keys[i] = &map->items[2 * i];
	qsort(keys, map->n, sizeof(*keys), by_key);
	for (size_t i = 1; i < map->n && !rc; i++)
		if (keys[i]->type == AF_YSCALAR && keys[i - 1]->type == AF_YSCALAR &&
		    !strcmp(keys[i]->str, keys[i - 1]->str))
			rc = af_y_error(d, keys[i], "duplicate key '%s'", keys[i]->str);
	free(keys);
	return rc;
}

/* Put the parts of list (map) k of the index back in its place: a list of the items of
 * each part in order, or, when the parts hold maps, one map of their pairs. */
static int join_list(const struct af_codec *c, struct file ***f, size_t *nf, size_t *cap,
		     size_t k, af_split_read_fn *rd, void *ctx, unsigned *base, size_t *total,
		     struct af_ylimits *lim, struct af_diag *d, char *where, size_t wsize, int *placed)
{
	struct af_ynode *root = (*f)[0]->doc.root, *seq = &root->items[2 * k + 1], joined;
	const struct af_ynode *kn = &root->items[2 * k], *first = NULL;
	size_t count = 0, o = 0, from = *nf;
	int known = 0, rc;
	for (const struct af_split_key *x = c->split; x->key; x++)
		known |= kn->type == AF_YSCALAR && !strcmp(kn->str, x->key);
	if (!known || seq->type != AF_YSEQ)
		return 0;
	/* each name is a part's file; anything else is an item written in place */
	for (size_t i = 0; i < seq->n; i++) {
		const struct af_ynode *it = &seq->items[i], *items;
		struct file *x;
		unsigned lines = 0;
		if (it->type != AF_YSCALAR) {
			items = it;
		} else {
			if (!af_split_part_name_ok(it->str, it->len))
				return af_y_error(d, it, "'%s' is no part's file name (NAME.yaml beside %s)",
						  it->str, AF_SPLIT_INDEX);
			if (!(x = add_file(f, nf, cap, it->str, it->len, *base)))
				return af_diag_error(d, AF_ENOMEM, "out of memory");
			if ((rc = read_part(kn->str, rd, ctx, x, total, lim, &lines, &items, d))) {
				*placed = 1; /* the place is the part's own, or the index's */
				if (d->line) /* a place in the part */
					snprintf(where, wsize, "%s", x->name);
				else if (rc != AF_ENOMEM) /* unreadable: where the index names it */
					d->line = it->line, d->col = it->col;
				return rc;
			}
			*base += lines;
			if (!items)
				continue;
		}
		if (!first)
			first = items;
		else if (items->type != first->type)
			return af_y_error(d, items, "'%s' is a %s here but a %s at %s", kn->str,
					  items->type == AF_YMAP ? "map" : "list",
					  first->type == AF_YMAP ? "map" : "list",
					  first == &seq->items[0] ? "its first item" : "its first part");
		count += it->type == AF_YSCALAR || items->type == AF_YMAP ? items->n : 1;
	}
	joined = *seq;
	joined.type = first ? first->type : AF_YSEQ;
	if (joined.type == AF_YMAP)
		count *= 2;
	/* the parts' items copied by value (what they point to stays in the parts' arenas) */
	if (!(joined.items = af_arena_array(&(*f)[0]->doc.arena, count ? count : 1, sizeof(*joined.items))))
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	for (size_t i = 0, p = from; i < seq->n; i++) {
		const struct af_ynode *items = &seq->items[i];
		if (items->type == AF_YSCALAR) {
			items = af_ymap_get((*f)[p++]->doc.root, kn->str);
		} else if (items->type == AF_YSEQ || joined.type == AF_YSEQ) {
			joined.items[o++] = seq->items[i]; /* an item written in the index */
			continue;
		}
		if (!items || items->type == AF_YSCALAR)
			continue;
		for (size_t j = 0; j < (items->type == AF_YMAP ? 2 * items->n : items->n); j++)
			joined.items[o++] = items->items[j];
	}
	joined.n = (uint32_t)(joined.type == AF_YMAP ? o / 2 : o);
	*seq = joined;
	return seq->type == AF_YMAP ? no_twice(seq, d) : 0;
}

/* d's warnings, each "NAME:line:col: text" in the file it is in. */
static void name_warnings(struct file *const *f, size_t nf, struct af_diag *d)
{
	struct af_buf w = AF_BUF_INIT;
	const char *p = (const char *)d->warnings.data, *end = p + d->warnings.len;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *colon;
		unsigned line = 0, local = 0;
		if (!eol)
			eol = end;
		colon = memchr(p, ':', (size_t)(eol - p));
		if (colon && sscanf(p, "%u:", &line) == 1 && line) {
			const struct file *at = locate(f, nf, line, &local);
			af_buf_printf(&w, "%s:%u%.*s\n", at->name, local, (int)(eol - colon), colon);
		} else {
			af_buf_printf(&w, "%s: %.*s\n", AF_SPLIT_INDEX, (int)(eol - p), p);
		}
		p = eol + 1;
	}
	if (!w.failed) {
		af_buf_free(&d->warnings);
		d->warnings = w;
	} else {
		af_buf_free(&w);
	}
}

int af_split_join(const struct af_codec *c, const uint8_t *index, size_t n, af_split_read_fn *rd,
		  void *ctx, const struct af_io *io, struct af_buf *out, struct af_diag *d,
		  char *where, size_t wsize)
{
	struct file **f = NULL;
	struct af_ylimits lim = { .max_bytes = io ? io->yaml_max : 0,
				  .more = io ? io->yaml_more : NULL,
				  .more_ctx = io ? io->yaml_more_ctx : NULL };
	size_t nf = 0, cap = 0, start = out->len, total = n;
	unsigned base;
	int rc, placed = 0;

	snprintf(where, wsize, "%s", AF_SPLIT_INDEX);
	if (!af_split_able(c))
		return af_diag_error(d, AF_EUNSUP, "%s views cannot be split", c ? c->name : "these");
	if (!add_file(&f, &nf, &cap, AF_SPLIT_INDEX, strlen(AF_SPLIT_INDEX), 0)) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = af_ydoc_parse(&f[0]->doc, index, n, &lim, d)))
		goto out;
	lim.held = f[0]->doc.arena.used_total;
	base = count_lines(index, n);
	for (size_t k = 0; f[0]->doc.root && f[0]->doc.root->type == AF_YMAP && k < f[0]->doc.root->n; k++)
		if ((rc = join_list(c, &f, &nf, &cap, k, rd, ctx, &base, &total, &lim, d, where, wsize, &placed)))
			goto out;
	rc = c->from_doc(f[0]->doc.root, io, out, d);
out:
	if (rc && d->line && !placed && f) {
		unsigned local;
		const struct file *at = locate(f, nf, d->line, &local);
		snprintf(where, wsize, "%s", at->name);
		d->line = local;
	}
	if (d->warnings.len && nf > 1)
		name_warnings(f, nf, d);
	if (rc < 0)
		out->len = start;
	for (size_t i = 0; i < nf; i++) {
		af_ydoc_free(&f[i]->doc);
		free(f[i]);
	}
	free(f);
	return rc;
}

/* ---- the schemas ---- */

static void json_str(struct af_buf *b, const char *s, size_t n)
{
	af_buf_putc(b, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '"' || ch == '\\')
			af_buf_putc(b, '\\'), af_buf_putc(b, (char)ch);
		else if (ch < 0x20)
			af_buf_printf(b, "\\u%04x", ch);
		else
			af_buf_putc(b, (char)ch);
	}
	af_buf_putc(b, '"');
}

/* A tree read from JSON, written as JSON again (plain scalars are its numbers, true,
 * false and null). */
static void json_node(struct af_buf *b, const struct af_ynode *n)
{
	if (n->type == AF_YSCALAR) {
		if (n->plain && n->len)
			af_buf_append(b, n->str, n->len);
		else
			json_str(b, n->str, n->len);
		return;
	}
	af_buf_putc(b, n->type == AF_YMAP ? '{' : '[');
	for (size_t i = 0; i < n->n; i++) {
		if (i)
			af_buf_puts(b, ", ");
		if (n->type == AF_YMAP) {
			json_str(b, n->items[2 * i].str, n->items[2 * i].len);
			af_buf_puts(b, ": ");
			json_node(b, &n->items[2 * i + 1]);
		} else {
			json_node(b, &n->items[i]);
		}
	}
	af_buf_putc(b, n->type == AF_YMAP ? '}' : ']');
}

static const struct af_split_key *split_key(const struct af_codec *c, const char *key)
{
	for (const struct af_split_key *x = c->split; x && x->key; x++)
		if (!strcmp(x->key, key))
			return x;
	return NULL;
}

static void member(struct af_buf *b, int *first, const char *key)
{
	af_buf_puts(b, *first ? "{\n  " : ",\n  ");
	*first = 0;
	json_str(b, key, strlen(key));
	af_buf_puts(b, ": ");
}

/* The index: the codec's schema, with each list it splits also taking part names. */
static void index_schema(const struct af_codec *c, const struct af_ynode *root, struct af_buf *b)
{
	int first = 1;
	for (size_t i = 0; i < root->n; i++) {
		const struct af_ynode *k = &root->items[2 * i], *v = &root->items[2 * i + 1];
		member(b, &first, k->str);
		if (!strcmp(k->str, "$id") || !strcmp(k->str, "title")) {
			af_buf_printf(b, "\"%s%s\"", v->str,
				      !strcmp(k->str, "$id") ? ".index" : " (index of a split view)");
		} else if (!strcmp(k->str, "properties") && v->type == AF_YMAP) {
			af_buf_puts(b, "{");
			for (size_t j = 0; j < v->n; j++) {
				const struct af_ynode *pk = &v->items[2 * j], *pv = &v->items[2 * j + 1];
				const struct af_ynode *desc = af_ymap_get(pv, "description");
				const struct af_ynode *items = af_ymap_get(pv, "items");
				af_buf_puts(b, j ? ",\n    " : "\n    ");
				json_str(b, pk->str, pk->len);
				af_buf_puts(b, ": ");
				if (!split_key(c, pk->str)) {
					json_node(b, pv);
					continue;
				}
				af_buf_printf(b, "{\"description\": ");
				{
					struct af_buf t = AF_BUF_INIT;
					if (desc && desc->type == AF_YSCALAR)
						af_buf_printf(&t, "%s; ", desc->str);
					af_buf_printf(&t, "a split view: the file names of its parts beside "
						      "%s, in order (each holds the next items of '%s'), "
						      "or items written here",
						      AF_SPLIT_INDEX, pk->str);
					json_str(b, t.failed ? "" : (const char *)t.data, t.failed ? 0 : t.len);
					af_buf_free(&t);
				}
				af_buf_puts(b, ", \"type\": \"array\", \"items\": {\"anyOf\": ["
					       "{\"type\": \"string\", \"pattern\": \"^[^./][^/]*\\\\.yaml$\"}");
				af_buf_puts(b, ", ");
				json_node(b, items ? items : pv); /* an item, or a map's pairs */
				af_buf_puts(b, "]}}");
			}
			af_buf_puts(b, "\n  }");
		} else {
			json_node(b, v);
		}
	}
	af_buf_puts(b, first ? "{}\n" : "\n}\n");
}

/* A part of list key: a map with that one key, shaped as in the codec's schema. */
static void part_schema(const struct af_ynode *root, const char *key, struct af_buf *b)
{
	const struct af_ynode *props = af_ymap_get(root, "properties");
	const struct af_ynode *id = af_ymap_get(root, "$id"), *title = af_ymap_get(root, "title");
	const struct af_ynode *defs = af_ymap_get(root, "$defs"), *sch = af_ymap_get(root, "$schema");
	const struct af_ynode *prop = af_ymap_get(props, key);
	int first = 1;
	if (sch)
		member(b, &first, "$schema"), json_node(b, sch);
	if (id && id->type == AF_YSCALAR)
		member(b, &first, "$id"), af_buf_printf(b, "\"%s.%s\"", id->str, key);
	if (title && title->type == AF_YSCALAR) {
		member(b, &first, "title");
		af_buf_printf(b, "\"%s (a part of a split view: items of '%s')\"", title->str, key);
	}
	member(b, &first, "description");
	af_buf_printf(b, "\"A part of a split view: the next items of the list '%s'; %s lists the "
		      "parts in order, and a save of any part saves the whole file.\"", key, AF_SPLIT_INDEX);
	member(b, &first, "type");
	af_buf_puts(b, "\"object\"");
	member(b, &first, "properties");
	af_buf_puts(b, "{");
	json_str(b, key, strlen(key));
	af_buf_puts(b, ": ");
	json_node(b, prop);
	af_buf_puts(b, "}");
	member(b, &first, "required");
	af_buf_puts(b, "[");
	json_str(b, key, strlen(key));
	af_buf_puts(b, "]");
	member(b, &first, "additionalProperties");
	af_buf_puts(b, "false");
	if (defs)
		member(b, &first, "$defs"), json_node(b, defs);
	af_buf_puts(b, "\n}\n");
}

int af_split_schema(const struct af_codec *c, const char *key, struct af_buf *out)
{
	struct af_buf json = AF_BUF_INIT;
	struct af_ydoc doc;
	struct af_diag d;
	size_t start = out->len;
	int rc;
	memset(&doc, 0, sizeof(doc));
	af_diag_init(&d);
	if (!af_split_able(c) || !c->schema || (key && !split_key(c, key))) {
		rc = AF_EUNSUP;
		goto out;
	}
	if ((rc = af_codec_schema(c, &json)))
		goto out;
	/* the codec's own schema, read back: a JSON document is a YAML one */
	if ((rc = af_ydoc_parse(&doc, json.data, json.len, NULL, &d)))
		goto out;
	if (!doc.root || doc.root->type != AF_YMAP ||
	    (key && !af_ymap_get(af_ymap_get(doc.root, "properties"), key))) {
		rc = AF_EUNSUP;
		goto out;
	}
	if (key)
		part_schema(doc.root, key, out);
	else
		index_schema(c, doc.root, out);
	rc = out->failed ? AF_ENOMEM : 0;
out:
	if (rc)
		out->len = start;
	af_ydoc_free(&doc);
	af_diag_free(&d);
	af_buf_free(&json);
	return rc;
}
