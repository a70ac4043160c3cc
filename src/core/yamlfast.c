/* The fast YAML scanner: reads the subset of YAML that animfs writes (and that
 * people keep when they edit it) about ten times faster than libyaml, into the
 * same tree with the same line:column marks:
 *   - ASCII text without tabs, carriage returns or other control characters;
 *   - block mappings and block sequences (indentless ones too, and "- key: value"
 *     items), keys that are plain or quoted scalars on one line;
 *   - plain scalars of letters, digits, spaces and _ . + - / ( ) ~ =;
 *   - quoted scalars on one line without escapes;
 *   - flow sequences and flow mappings ("key: value" pairs) on one line, nested;
 *   - empty values ("key:" with nothing below), which are nulls;
 *   - literal blocks ("|") with the default chomping and indentation, no empty
 *     lines inside and no lines of spaces beyond their indentation;
 *   - comments and blank lines.
 * Anything else, and anything malformed, makes it give up (AF_EUNSUP) without a
 * word, and libyaml reads the document instead. So this file never has to be
 * right about the rest of YAML, only about what it accepts; tests/unit/
 * test_yamlfast.c checks that on real, mutated and generated documents, and the
 * YAML fuzz targets on whatever they make. */
#include <pthread.h>
#include <string.h>

#include "ytree.h"

#define NO AF_EUNSUP /* outside the subset: let libyaml read it */

enum { BLK_MAP, BLK_SEQ };
enum { PEND_NONE, PEND_VALUE, PEND_ITEM }; /* a line ended "key:" or "-" */

struct blk {
	int kind, indent, indentless;
};

struct scan {
	struct af_ytree *t;
	const char *text, *end;
	const char *ls, *le; /* the current line, without its '\n' */
	const char *next;    /* where the next line starts (end: none) */
	unsigned line;       /* 1-based number of the current line */
	struct blk *blk;     /* open block collections, innermost last */
	size_t nblk;
	int pending;
	unsigned pend_line, pend_col; /* where the ":" or "-" of a pending value ends */
};

/* Characters a plain scalar may hold (besides inner spaces). */
static unsigned char plain_tab[256];
static pthread_once_t plain_once = PTHREAD_ONCE_INIT;

static void init_tab(void)
{
	const char *extra = "_.+-/()~=";
	for (int c = '0'; c <= '9'; c++)
		plain_tab[c] = 1;
	for (int c = 'a'; c <= 'z'; c++)
		plain_tab[c] = plain_tab[c - 32] = 1;
	for (const char *e = extra; *e; e++)
		plain_tab[(unsigned char)*e] = 1;
}

static int is_alnum(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Can a plain scalar start at q? Indicators ("- ", "?", ":" ...) cannot. */
static int plain_start(const char *q, const char *le)
{
	if (q >= le)
		return 0;
	int c = (unsigned char)*q;
	if (c == '-')
		return q + 1 < le && (is_alnum((unsigned char)q[1]) || q[1] == '.');
	return is_alnum(c) || c == '_' || c == '.' || c == '/' || c == '(' || c == '~' || c == '+';
}

static unsigned col_of(const struct scan *s, const char *q)
{
	return (unsigned)(q - s->ls) + 1;
}

static const char *skip_spaces(const char *q, const char *le)
{
	while (q < le && *q == ' ')
		q++;
	return q;
}

/* After a value: only spaces, then the end of the line or a comment. */
static int line_rest_ok(const char *q, const char *le)
{
	const char *r = skip_spaces(q, le);
	return r == le || (*r == '#' && r > q);
}

/* A plain scalar in block context from q. Stops at the line's end, at " #", or at
 * ':' followed by a space or the end (then *is_key). *e is its trimmed end. */
static int scan_plain_block(const char *q, const char *le, const char **e, int *is_key)
{
	const char *i = q, *last = q;
	*is_key = 0;
	while (i < le) {
		unsigned char c = (unsigned char)*i;
		if (c == ' ') {
			const char *j = skip_spaces(i, le);
			if (j == le || *j == '#')
				break;
			i = j;
		} else if (plain_tab[c]) {
			last = ++i;
		} else if (c == ':' && (i + 1 == le || i[1] == ' ')) {
			*is_key = 1;
			break;
		} else {
			return NO;
		}
	}
	*e = last;
	return 0;
}

/* A one-line quoted scalar at q (the quote); *e is the closing quote. */
static int scan_quoted(const char *q, const char *le, const char **e)
{
	char quote = *q;
	for (const char *i = q + 1; i < le; i++) {
		if (*i == quote) {
			if (quote == '\'' && i + 1 < le && i[1] == '\'')
				return NO; /* '' escape */
			*e = i;
			return 0;
		}
		if (*i == '\\' && quote == '"')
			return NO; /* escapes */
	}
	return NO; /* runs onto the next line */
}

static int emit_quoted(struct scan *s, const char *q, const char *e)
{
	return af_ytree_scalar(s->t, s->line, col_of(s, q), q + 1, (size_t)(e - q - 1), 0, NULL);
}

static int flow_node(struct scan *s, const char *q, const char **out);

/* A plain scalar in flow context from q: it ends before ',', ']', '}' or ':'
 * (*e is its trimmed end, *stop where it stopped). */
static int scan_plain_flow(const char *q, const char *le, const char **e, const char **stop)
{
	const char *i = q, *last = q;
	while (i < le && *i != ',' && *i != ']' && *i != '}' && *i != ':') {
		if (*i == ' ') {
			i = skip_spaces(i, le);
			if (i < le && *i == '#')
				return NO; /* a comment: the collection goes on below */
		} else if (plain_tab[(unsigned char)*i]) {
			last = ++i;
		} else {
			return NO;
		}
	}
	*e = last;
	*stop = i;
	return 0;
}

/* A flow sequence ('[') or mapping ('{') on one line from q; *out is just past
 * its closing bracket. Keys of a flow mapping are scalars followed by ": ". */
static int flow_collection(struct scan *s, const char *q, const char **out)
{
	const char *le = s->le, *e, *stop;
	int map = *q == '{', rc;
	char close = map ? '}' : ']';
	if ((rc = af_ytree_open(s->t, map ? AF_YMAP : AF_YSEQ, s->line, col_of(s, q), NULL)))
		return rc;
	q = skip_spaces(q + 1, le);
	if (q < le && *q == close)
		goto done;
	for (;;) {
		if (q >= le)
			return NO;
		if (map) {
			if (*q == '"' || *q == '\'') {
				if ((rc = scan_quoted(q, le, &e)))
					return rc;
				stop = skip_spaces(e + 1, le);
				if ((rc = emit_quoted(s, q, e)))
					return rc;
			} else {
				if (!plain_start(q, le) || (rc = scan_plain_flow(q, le, &e, &stop)))
					return NO;
				if ((rc = af_ytree_scalar(s->t, s->line, col_of(s, q), q,
							  (size_t)(e - q), 1, NULL)))
					return rc;
			}
			if (stop >= le || *stop != ':' || stop + 1 >= le || stop[1] != ' ')
				return NO;
			q = skip_spaces(stop + 1, le);
			if (q >= le || *q == ',' || *q == close)
				return NO; /* an empty value */
		}
		if ((rc = flow_node(s, q, &q)))
			return rc;
		q = skip_spaces(q, le);
		if (q < le && *q == close)
			break;
		if (q >= le || *q != ',')
			return NO;
		q = skip_spaces(q + 1, le);
		if (q >= le || *q == close)
			return NO; /* a trailing comma, or the collection goes on below */
	}
done:
	*out = q + 1;
	return af_ytree_close(s->t);
}

/* One value inside a flow collection; *out is just past it. */
static int flow_node(struct scan *s, const char *q, const char **out)
{
	const char *le = s->le, *e, *stop;
	int rc;
	if (*q == '[' || *q == '{')
		return flow_collection(s, q, out);
	if (*q == '"' || *q == '\'') {
		if ((rc = scan_quoted(q, le, &e)) || (rc = emit_quoted(s, q, e)))
			return rc;
		*out = e + 1;
		return 0;
	}
	if (!plain_start(q, le) || scan_plain_flow(q, le, &e, &stop) || (stop < le && *stop == ':'))
		return NO;
	*out = stop;
	return af_ytree_scalar(s->t, s->line, col_of(s, q), q, (size_t)(e - q), 1, NULL);
}

static void next_line(struct scan *s)
{
	const char *nl = memchr(s->next, '\n', (size_t)(s->end - s->next));
	s->ls = s->next;
	s->le = nl ? nl : s->end;
	s->next = nl ? nl + 1 : s->end;
	s->line++;
}

/* Leading spaces of the current line. */
static int line_indent(const struct scan *s)
{
	return (int)(skip_spaces(s->ls, s->le) - s->ls);
}

static int blank(const char *ls, const char *le)
{
	return skip_spaces(ls, le) == le;
}

/* A literal block ("|" at q, the rest of the line checked) belonging to a
 * collection at indent parent. Its lines follow; the scan ends on the line after it. */
static int literal(struct scan *s, const char *q, int parent)
{
	unsigned line = s->line, col = col_of(s, q);
	const char *save_next;
	unsigned save_line;
	size_t total = 0;
	int n = -1, rc;
	char *str, *w;

	if (!line_rest_ok(q + 1, s->le))
		return NO; /* chomping or indentation indicators */
	/* pass 1: measure */
	save_next = s->next, save_line = s->line;
	for (;;) {
		if (s->next >= s->end)
			break;
		next_line(s);
		int k = line_indent(s);
		if (blank(s->ls, s->le)) {
			if (n < 0)
				return NO; /* leading blank lines */
			/* trailing empty lines are dropped; empty lines inside are not handled,
			 * nor are lines of spaces beyond the indentation (content: spaces) */
			for (;;) {
				if (s->le - s->ls > n)
					return NO;
				if (s->next >= s->end)
					break;
				next_line(s);
				if (!blank(s->ls, s->le)) {
					if (line_indent(s) >= n)
						return NO;
					break;
				}
			}
			break;
		}
		if (n < 0) {
			if (k <= parent)
				return NO; /* an empty block */
			n = k;
		}
		if (k < n)
			break;
		total += (size_t)(s->le - s->ls - n) + (s->le < s->end);
	}
	if (n < 0)
		return NO;
	/* pass 2: copy the lines without their indentation */
	s->next = save_next, s->line = save_line;
	if (!(str = af_ytree_str(s->t, line, col, total, &rc)))
		return rc;
	w = str;
	for (;;) {
		if (s->next >= s->end)
			break;
		next_line(s);
		if (blank(s->ls, s->le) || line_indent(s) < n) {
			/* the main loop reads this line again */
			s->next = s->ls;
			s->line--;
			break;
		}
		size_t len = (size_t)(s->le - s->ls - n);
		memcpy(w, s->ls + n, len);
		w += len;
		if (s->le < s->end)
			*w++ = '\n';
	}
	*w = 0;
	return af_ytree_scalar_owned(s->t, line, col, str, total, 0);
}

/* A value in block context at q (not at the line's end). */
static int block_value(struct scan *s, const char *q, int parent)
{
	const char *le = s->le, *e;
	int rc, is_key;
	if (*q == '|')
		return literal(s, q, parent);
	if (*q == '[' || *q == '{') {
		if ((rc = flow_collection(s, q, &e)))
			return rc;
		return line_rest_ok(e, le) ? 0 : NO;
	}
	if (*q == '"' || *q == '\'') {
		if ((rc = scan_quoted(q, le, &e)))
			return rc;
		if (!line_rest_ok(e + 1, le))
			return NO;
		return emit_quoted(s, q, e);
	}
	if (!plain_start(q, le))
		return NO;
	if ((rc = scan_plain_block(q, le, &e, &is_key)))
		return rc;
	if (is_key)
		return NO; /* "a: b: c" */
	return af_ytree_scalar(s->t, s->line, col_of(s, q), q, (size_t)(e - q), 1, NULL);
}

/* "key: value", "key:" or "key: |" at q, in the mapping at blk[nblk-1]. */
static int map_entry(struct scan *s, const char *q)
{
	const char *le = s->le, *e, *v;
	int rc, is_key;
	if (*q == '"' || *q == '\'') {
		if ((rc = scan_quoted(q, le, &e)))
			return rc;
		v = skip_spaces(e + 1, le);
		if (v >= le || *v != ':' || (v + 1 < le && v[1] != ' '))
			return NO;
		if ((rc = emit_quoted(s, q, e)))
			return rc;
	} else {
		if (!plain_start(q, le) || (rc = scan_plain_block(q, le, &e, &is_key)))
			return NO;
		if (!is_key || e - q > 1000)
			return NO;
		v = skip_spaces(e, le); /* at the ':' */
		if ((rc = af_ytree_scalar(s->t, s->line, col_of(s, q), q, (size_t)(e - q), 1, NULL)))
			return rc;
	}
	s->pend_line = s->line, s->pend_col = col_of(s, v) + 1;
	v = skip_spaces(v + 1, le);
	if (v == le || *v == '#') {
		s->pending = PEND_VALUE;
		return 0;
	}
	return block_value(s, v, s->blk[s->nblk - 1].indent);
}

/* Is the key of a "- key: value" item at q? */
static int item_is_map(const char *q, const char *le)
{
	const char *e;
	int is_key;
	if (*q == '"' || *q == '\'') {
		if (scan_quoted(q, le, &e))
			return 0;
		e = skip_spaces(e + 1, le);
		return e < le && *e == ':';
	}
	return plain_start(q, le) && !scan_plain_block(q, le, &e, &is_key) && is_key;
}

static int push_blk(struct scan *s, int kind, int indent, int indentless, const char *q)
{
	int rc;
	if (s->nblk > s->t->max_depth)
		return NO;
	if ((rc = af_ytree_open(s->t, kind == BLK_MAP ? AF_YMAP : AF_YSEQ, s->line, col_of(s, q),
				NULL)))
		return rc;
	s->blk[s->nblk++] = (struct blk){ kind, indent, indentless };
	return 0;
}

/* A pending "key:" or "-" that no deeper block follows holds a null, marked
 * where its indicator ends (as libyaml marks it). */
static int empty_value(struct scan *s)
{
	s->pending = PEND_NONE;
	return af_ytree_scalar(s->t, s->pend_line, s->pend_col, "", 0, 1, NULL);
}

/* A content line whose first non-space character is at q. */
static int content_line(struct scan *s, const char *q)
{
	const char *le = s->le;
	int c = (int)(q - s->ls), rc;
	int dash = *q == '-' && (q + 1 == le || q[1] == ' ');

	if (s->pending) {
		struct blk *top = &s->blk[s->nblk - 1];
		if (c > top->indent) {
			s->pending = PEND_NONE;
			if ((rc = push_blk(s, dash ? BLK_SEQ : BLK_MAP, c, 0, q)))
				return rc;
			goto entry;
		}
		if (s->pending == PEND_VALUE && c == top->indent && dash) {
			s->pending = PEND_NONE;
			if ((rc = push_blk(s, BLK_SEQ, c, 1, q)))
				return rc;
			goto entry;
		}
		if ((rc = empty_value(s)))
			return rc;
	}
	if (s->nblk == 0) {
		if (s->t->doc->root)
			return NO; /* more after the root collection */
		if ((rc = push_blk(s, dash ? BLK_SEQ : BLK_MAP, c, 0, q)))
			return rc;
		goto entry;
	}
	while (s->nblk && (c < s->blk[s->nblk - 1].indent ||
			   (s->blk[s->nblk - 1].indentless && c == s->blk[s->nblk - 1].indent && !dash))) {
		if ((rc = af_ytree_close(s->t)))
			return rc;
		s->nblk--;
	}
	if (!s->nblk || c != s->blk[s->nblk - 1].indent)
		return NO;
entry:
	if (s->blk[s->nblk - 1].kind == BLK_MAP)
		return map_entry(s, q);
	if (!dash)
		return NO;
	const char *r = skip_spaces(q + 1, le);
	if (r == le || *r == '#') {
		s->pending = PEND_ITEM;
		s->pend_line = s->line, s->pend_col = col_of(s, q) + 1;
		return 0;
	}
	if (*r == '-' && (r + 1 == le || r[1] == ' '))
		return NO; /* "- - x" */
	if (item_is_map(r, le)) {
		if ((rc = push_blk(s, BLK_MAP, (int)(r - s->ls), 0, r)))
			return rc;
		return map_entry(s, r);
	}
	return block_value(s, r, c);
}

int af_yfast_parse(struct af_ytree *t, const uint8_t *text, size_t n)
{
	struct scan s;
	struct blk stack[129];
	int rc = 0;

	pthread_once(&plain_once, init_tab);
	if (!n)
		return NO; /* empty: libyaml says so (and text may be NULL) */
	for (size_t i = 0; i < n; i++)
		if (text[i] >= 0x7F || (text[i] < 0x20 && text[i] != '\n'))
			return NO; /* non-ASCII (UTF-8 is checked by libyaml), tabs, CR, controls */
	if (t->max_depth + 1 > sizeof(stack) / sizeof(stack[0]))
		return NO;
	memset(&s, 0, sizeof(s));
	s.t = t;
	s.text = (const char *)text;
	s.end = s.text + n;
	s.blk = stack;
	s.next = s.text;
	while (s.next < s.end) {
		next_line(&s);
		const char *q = skip_spaces(s.ls, s.le);
		if (q == s.le || *q == '#')
			continue;
		if (q == s.ls && s.le - q >= 3 && (!memcmp(q, "---", 3) || !memcmp(q, "...", 3)))
			return NO; /* document markers */
		if ((rc = content_line(&s, q)))
			return rc;
	}
	if (!t->doc->root)
		return NO;
	if (s.pending && (rc = empty_value(&s)))
		return rc;
	while (s.nblk) {
		if ((rc = af_ytree_close(t)))
			return rc;
		s.nblk--;
	}
	return 0;
}
