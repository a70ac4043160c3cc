/* YAML helpers: direct text writers for codecs, and a bounded document tree
 * built from libyaml's event parser (aliases refused, depth limited, duplicate
 * keys rejected), whose nodes remember line:column for error messages. */
#include <stdalign.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "animfs/num.h"
#include "animfs/yamlio.h"

/* ---------------------------------------------------------------- writing */

void af_y_indent(struct af_buf *b, int spaces)
{
	if (spaces > 0)
		af_buf_fill(b, ' ', (size_t)spaces);
}

static int reserved_word(const char *s, size_t n)
{
	static const char *const words[] = { "true", "false", "yes", "no", "on", "off",
					     "null", "y", "n", NULL };
	char low[8];
	if (n == 0 || n > 5)
		return 0;
	for (size_t i = 0; i < n; i++)
		low[i] = (char)((s[i] >= 'A' && s[i] <= 'Z') ? s[i] + 32 : s[i]);
	for (int i = 0; words[i]; i++)
		if (strlen(words[i]) == n && !memcmp(low, words[i], n))
			return 1;
	return 0;
}

static int plain_ok(const char *s, size_t n)
{
	if (n == 0 || s[n - 1] == ' ')
		return 0;
	unsigned char c0 = (unsigned char)s[0];
	if (!((c0 >= 'A' && c0 <= 'Z') || (c0 >= 'a' && c0 <= 'z') || c0 == '_' || c0 == '/'))
		return 0;
	if (reserved_word(s, n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			 c == '_' || c == '.' || c == '/' || c == '-' || c == '(' || c == ')' ||
			 c == '+' || c == ' ' || c == '$' || c == '=' || c == '<' || c == '>';
		if (!ok)
			return 0;
	}
	/* "nan:0x.." style texts are plain-safe only if no ': ' appears: checked above */
	return 1;
}

/* Length of a valid UTF-8 sequence at s (max n bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	uint32_t cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		len = 2, cp = c & 0x1F;
	else if (c >= 0xE0 && c <= 0xEF)
		len = 3, cp = c & 0x0F;
	else if (c >= 0xF0 && c <= 0xF4)
		len = 4, cp = c & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3F);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
		return 0;
	return len;
}

void af_y_str(struct af_buf *b, const char *s, size_t n)
{
	static const char hx[] = "0123456789ABCDEF";
	if (plain_ok(s, n)) {
		af_buf_append(b, s, n);
		return;
	}
	af_buf_putc(b, '"');
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			af_buf_putc(b, '\\');
			af_buf_putc(b, (char)c);
			i++;
		} else if (c < 0x20 || c == 0x7F) {
			char e[4] = { '\\', 'x', hx[c >> 4], hx[c & 15] };
			af_buf_append(b, e, 4);
			i++;
		} else if (c < 0x80) {
			af_buf_putc(b, (char)c);
			i++;
		} else {
			size_t l = utf8_len((const unsigned char *)s + i, n - i);
			if (l) {
				af_buf_append(b, s + i, l);
				i += l;
			} else { /* not UTF-8: the byte as the code point U+00NN */
				char e[4] = { '\\', 'x', hx[c >> 4], hx[c & 15] };
				af_buf_append(b, e, 4);
				i++;
			}
		}
	}
	af_buf_putc(b, '"');
}

void af_y_cstr(struct af_buf *b, const char *s)
{
	af_y_str(b, s, strlen(s));
}

#define EMIT_NUM(call)                                  \
	do {                                            \
		char t_[AF_NUM_MAX];                    \
		size_t n_ = call;                       \
		af_buf_append(b, t_, n_);               \
	} while (0)

void af_y_f32(struct af_buf *b, float v) { EMIT_NUM(af_fmt_f32(t_, v)); }
void af_y_f64(struct af_buf *b, double v) { EMIT_NUM(af_fmt_f64(t_, v)); }
void af_y_f16(struct af_buf *b, uint16_t v) { EMIT_NUM(af_fmt_f16(t_, v)); }
void af_y_u64(struct af_buf *b, uint64_t v) { EMIT_NUM(af_fmt_u64(t_, v)); }
void af_y_i64(struct af_buf *b, int64_t v) { EMIT_NUM(af_fmt_i64(t_, v)); }
void af_y_hex(struct af_buf *b, uint64_t v, int digits) { EMIT_NUM(af_fmt_hex(t_, v, digits)); }

void af_y_hexblock(struct af_buf *b, const uint8_t *p, size_t n, int indent)
{
	static const char hx[] = "0123456789abcdef";
	if (n == 0) {
		af_buf_puts(b, "\"\"\n");
		return;
	}
	af_buf_puts(b, "|\n");
	for (size_t i = 0; i < n; i += 32) {
		size_t m = n - i < 32 ? n - i : 32;
		af_y_indent(b, indent);
		if (af_buf_reserve(b, 2 * m + 1))
			return;
		char *o = (char *)b->data + b->len;
		for (size_t j = 0; j < m; j++) {
			o[2 * j] = hx[p[i + j] >> 4];
			o[2 * j + 1] = hx[p[i + j] & 15];
		}
		o[2 * m] = '\n';
		b->len += 2 * m + 1;
	}
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void af_y_base64block(struct af_buf *b, const uint8_t *p, size_t n, int indent)
{
	if (n == 0) {
		af_buf_puts(b, "\"\"\n");
		return;
	}
	af_buf_puts(b, "|\n");
	for (size_t i = 0; i < n; i += 57) { /* 57 bytes -> 76 characters */
		size_t m = n - i < 57 ? n - i : 57;
		af_y_indent(b, indent);
		for (size_t j = 0; j < m; j += 3) {
			uint32_t v = (uint32_t)p[i + j] << 16;
			size_t k = m - j;
			if (k > 1)
				v |= (uint32_t)p[i + j + 1] << 8;
			if (k > 2)
				v |= p[i + j + 2];
			char q[4] = { b64[v >> 18], b64[(v >> 12) & 63], k > 1 ? b64[(v >> 6) & 63] : '=',
				      k > 2 ? b64[v & 63] : '=' };
			af_buf_append(b, q, 4);
		}
		af_buf_putc(b, '\n');
	}
}

/* ---------------------------------------------------------------- reading */

struct frame {
	struct af_ynode *node;
	struct af_ynode **items;
	size_t n, cap;
};

static int push_item(struct frame *f, struct af_ynode *child)
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

/* Close a container: move its items into the arena; reject duplicate map keys. */
static int close_frame(struct af_ydoc *doc, struct frame *f, struct af_diag *d)
{
	struct af_ynode *node = f->node;
	int rc = 0;
	node->items = af_arena_array(&doc->arena, f->n ? f->n : 1, sizeof(*node->items));
	if (!node->items)
		return af_diag_error(d, AF_ENOMEM, "out of memory reading YAML");
	if (f->n)
		memcpy(node->items, f->items, f->n * sizeof(*node->items));
	if (node->type == AF_YMAP) {
		node->n = f->n / 2;
		if (node->n > 1) {
			struct af_ynode **keys = malloc(node->n * sizeof(*keys));
			if (!keys)
				return af_diag_error(d, AF_ENOMEM, "out of memory reading YAML");
			size_t k = 0;
			for (size_t i = 0; i < node->n; i++)
				if (node->items[2 * i]->type == AF_YSCALAR)
					keys[k++] = node->items[2 * i];
			qsort(keys, k, sizeof(*keys), key_cmp);
			for (size_t i = 1; i < k; i++)
				if (!key_cmp(&keys[i - 1], &keys[i])) {
					const struct af_ynode *dup = keys[i]->line > keys[i - 1]->line ||
						(keys[i]->line == keys[i - 1]->line &&
						 keys[i]->col > keys[i - 1]->col) ? keys[i] : keys[i - 1];
					rc = af_diag_at_mark(d, AF_EINVAL, dup->line, dup->col,
							     "duplicate key '%s'", dup->str);
					break;
				}
			free(keys);
		}
	} else {
		node->n = f->n;
	}
	f->n = 0; /* f->items stays for the next container at this depth */
	return rc;
}

static struct af_ynode *new_node(struct af_ydoc *doc, enum af_ytype t, const yaml_event_t *ev,
				 const yaml_char_t *tag)
{
	struct af_ynode *n = af_arena_alloc_aligned(&doc->arena, sizeof(*n), alignof(struct af_ynode));
	if (!n)
		return NULL;
	n->type = t;
	n->line = (unsigned)ev->start_mark.line + 1;
	n->col = (unsigned)ev->start_mark.column + 1;
	if (tag)
		n->tag = af_arena_strndup(&doc->arena, (const char *)tag, strlen((const char *)tag));
	return n;
}

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

int af_ydoc_parse(struct af_ydoc *doc, const uint8_t *text, size_t n,
		  const struct af_ylimits *lim, struct af_diag *d)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	unsigned max_depth = lim && lim->max_depth ? lim->max_depth : 64;
	size_t max_nodes = lim && lim->max_nodes ? lim->max_nodes : AF_MAX_YAML_NODES, nodes = 0;
	struct frame *stack = NULL;
	size_t depth = 0;
	int rc = 0, docs = 0, have_ev = 0;

	af_arena_init(&doc->arena);
	doc->root = NULL;
	if (n > AF_MAX_YAML)
		return af_diag_error(d, AF_EINVAL,
				     "the document is %zu bytes; animfs accepts YAML up to %zu MiB",
				     n, AF_MAX_YAML >> 20);
	if (!yaml_parser_initialize(&parser))
		return af_diag_error(d, AF_ENOMEM, "cannot initialise the YAML parser");
	yaml_parser_set_input_string(&parser, text, n);
	stack = calloc(max_depth + 1, sizeof(*stack));
	if (!stack) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory reading YAML");
		goto out;
	}
	for (;;) {
		if (!yaml_parser_parse(&parser, &ev)) {
			const char *prob = parser.problem ? parser.problem : "malformed YAML";
			if (parser.error == YAML_READER_ERROR)
				rc = reader_error(text, n, &parser, d);
			else if (parser.context)
				rc = af_diag_at_mark(d, AF_EINVAL, (unsigned)parser.problem_mark.line + 1,
						     (unsigned)parser.problem_mark.column + 1,
						     "%s %s", parser.context, prob);
			else
				rc = af_diag_at_mark(d, AF_EINVAL, (unsigned)parser.problem_mark.line + 1,
						     (unsigned)parser.problem_mark.column + 1, "%s", prob);
			goto out;
		}
		have_ev = 1;
		struct af_ynode *node = NULL;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			goto done;
		case YAML_DOCUMENT_START_EVENT:
			if (++docs > 1) {
				rc = af_diag_at_mark(d, AF_EINVAL, (unsigned)ev.start_mark.line + 1,
						     (unsigned)ev.start_mark.column + 1,
						     "more than one YAML document; expected exactly one");
				goto out;
			}
			break;
		case YAML_ALIAS_EVENT:
			rc = af_diag_at_mark(d, AF_EINVAL, (unsigned)ev.start_mark.line + 1,
					     (unsigned)ev.start_mark.column + 1,
					     "aliases (*%s) are not supported; write the value out",
					     (const char *)ev.data.alias.anchor);
			goto out;
		case YAML_SCALAR_EVENT:
			node = new_node(doc, AF_YSCALAR, &ev, ev.data.scalar.tag);
			if (node) {
				node->str = af_arena_strndup(&doc->arena, (const char *)ev.data.scalar.value,
							     ev.data.scalar.length);
				node->len = ev.data.scalar.length;
				node->plain = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
				if (!node->str)
					node = NULL;
			}
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (depth >= max_depth) {
				rc = af_diag_at_mark(d, AF_EINVAL, (unsigned)ev.start_mark.line + 1,
						     (unsigned)ev.start_mark.column + 1,
						     "nesting deeper than %u levels", max_depth);
				goto out;
			}
			node = new_node(doc, ev.type == YAML_SEQUENCE_START_EVENT ? AF_YSEQ : AF_YMAP,
					&ev, ev.type == YAML_SEQUENCE_START_EVENT
						? ev.data.sequence_start.tag : ev.data.mapping_start.tag);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			rc = close_frame(doc, &stack[depth - 1], d);
			if (rc)
				goto out;
			depth--;
			break;
		default:
			break;
		}
		if (node || ev.type == YAML_SCALAR_EVENT || ev.type == YAML_SEQUENCE_START_EVENT ||
		    ev.type == YAML_MAPPING_START_EVENT) {
			if (!node) {
				rc = af_diag_error(d, AF_ENOMEM, "out of memory reading YAML");
				goto out;
			}
			if (++nodes > max_nodes) {
				rc = af_diag_at_mark(d, AF_EINVAL, node->line, node->col,
						     "document has more than %zu values (the limit for YAML read by animfs)",
						     max_nodes);
				goto out;
			}
			if (depth == 0)
				doc->root = node;
			else if (push_item(&stack[depth - 1], node)) {
				rc = af_diag_error(d, AF_ENOMEM, "out of memory reading YAML");
				goto out;
			}
			if (node->type != AF_YSCALAR) {
				stack[depth].node = node;
				stack[depth].n = 0;
				depth++;
			}
		}
		yaml_event_delete(&ev);
		have_ev = 0;
	}
done:
	if (!doc->root)
		rc = af_diag_at_mark(d, AF_EINVAL, 1, 1, "empty document");
out:
	if (have_ev)
		yaml_event_delete(&ev);
	if (stack)
		for (size_t i = 0; i <= max_depth; i++)
			free(stack[i].items); /* calloc'ed: unused levels are NULL */
	free(stack);
	yaml_parser_delete(&parser);
	if (rc)
		af_ydoc_free(doc);
	return rc;
}

void af_ydoc_free(struct af_ydoc *doc)
{
	af_arena_free(&doc->arena);
	doc->root = NULL;
}

const struct af_ynode *af_ymap_get(const struct af_ynode *m, const char *key)
{
	if (!m || m->type != AF_YMAP)
		return NULL;
	size_t kl = strlen(key);
	for (size_t i = 0; i < m->n; i++) {
		const struct af_ynode *k = m->items[2 * i];
		if (k->type == AF_YSCALAR && k->len == kl && !memcmp(k->str, key, kl))
			return m->items[2 * i + 1];
	}
	return NULL;
}

int af_y_error(struct af_diag *d, const struct af_ynode *n, const char *fmt, ...)
{
	char msg[640];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return af_diag_at_mark(d, AF_EINVAL, n ? n->line : 0, n ? n->col : 0, "%s", msg);
}

void af_y_warn(struct af_diag *d, const struct af_ynode *n, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	af_diag_warn(d, n ? n->line : 0, n ? n->col : 0, "%s", msg);
}

int af_y_is_null(const struct af_ynode *n)
{
	if (!n || n->type != AF_YSCALAR || !n->plain)
		return 0;
	return n->len == 0 || !strcmp(n->str, "~") || !strcmp(n->str, "null") ||
	       !strcmp(n->str, "Null") || !strcmp(n->str, "NULL");
}

static const char *type_name(enum af_ytype t)
{
	return t == AF_YSCALAR ? "a single value" : t == AF_YSEQ ? "a list" : "a mapping";
}

int af_y_want(struct af_diag *d, const struct af_ynode *n, enum af_ytype t, const char *what)
{
	if (!n)
		return af_diag_error(d, AF_EINVAL, "%s: missing", what);
	if (n->type != t)
		return af_y_error(d, n, "%s: expected %s, found %s", what, type_name(t),
				  type_name(n->type));
	return 0;
}

static int scalar(struct af_diag *d, const struct af_ynode *n, const char *what)
{
	return af_y_want(d, n, AF_YSCALAR, what);
}

static const char *shown(const struct af_ynode *n)
{
	return n->len > 40 ? "(a long text)" : n->str;
}

int af_y_get_f32(struct af_diag *d, const struct af_ynode *n, float *out, const char *what)
{
	int rc = scalar(d, n, what);
	if (!rc && af_parse_f32(n->str, n->len, out))
		rc = af_y_error(d, n, "%s: expected a number, got '%s'", what, shown(n));
	return rc;
}

int af_y_get_f64(struct af_diag *d, const struct af_ynode *n, double *out, const char *what)
{
	int rc = scalar(d, n, what);
	if (!rc && af_parse_f64(n->str, n->len, out))
		rc = af_y_error(d, n, "%s: expected a number, got '%s'", what, shown(n));
	return rc;
}

int af_y_get_f16(struct af_diag *d, const struct af_ynode *n, uint16_t *out, const char *what)
{
	int rc = scalar(d, n, what);
	double v;
	if (rc)
		return rc;
	if (af_parse_f64(n->str, n->len, &v) && af_parse_f16(n->str, n->len, out))
		return af_y_error(d, n, "%s: expected a number, got '%s'", what, shown(n));
	if (af_parse_f16(n->str, n->len, out))
		return af_y_error(d, n, "%s: %s does not fit a half float (largest is 65504)", what,
				  shown(n));
	return 0;
}

int af_y_get_u64(struct af_diag *d, const struct af_ynode *n, uint64_t max, uint64_t *out,
		 const char *what)
{
	int rc = scalar(d, n, what);
	if (rc)
		return rc;
	if (af_parse_u64(n->str, n->len, out))
		return af_y_error(d, n, "%s: expected a whole number 0..%llu, got '%s'", what,
				  (unsigned long long)max, shown(n));
	if (*out > max)
		return af_y_error(d, n, "%s: %s is out of range 0..%llu", what, shown(n),
				  (unsigned long long)max);
	return 0;
}

int af_y_get_u32(struct af_diag *d, const struct af_ynode *n, uint32_t *out, const char *what)
{
	uint64_t v;
	int rc = af_y_get_u64(d, n, UINT32_MAX, &v, what);
	if (!rc)
		*out = (uint32_t)v;
	return rc;
}

int af_y_get_i64(struct af_diag *d, const struct af_ynode *n, int64_t min, int64_t max,
		 int64_t *out, const char *what)
{
	int rc = scalar(d, n, what);
	if (rc)
		return rc;
	if (af_parse_i64(n->str, n->len, out))
		return af_y_error(d, n, "%s: expected a whole number %lld..%lld, got '%s'", what,
				  (long long)min, (long long)max, shown(n));
	if (*out < min || *out > max)
		return af_y_error(d, n, "%s: %s is out of range %lld..%lld", what, shown(n),
				  (long long)min, (long long)max);
	return 0;
}

int af_y_get_str(struct af_diag *d, const struct af_ynode *n, const char **s, size_t *len,
		 const char *what)
{
	int rc = scalar(d, n, what);
	if (!rc) {
		*s = n->str;
		*len = n->len;
	}
	return rc;
}

int af_y_get_hex(struct af_diag *d, const struct af_ynode *n, struct af_buf *out, const char *what)
{
	int rc = scalar(d, n, what);
	int half = -1;
	if (rc)
		return rc;
	for (size_t i = 0; i < n->len; i++) {
		char c = n->str[i];
		int v = af_hex_digit(c);
		if (c == ' ' || c == '\n' || c == '\t' || c == '\r')
			continue;
		if (v < 0)
			return af_y_error(d, n, "%s: '%c' is not a hex digit", what, c);
		if (half < 0) {
			half = v;
		} else {
			if (af_buf_put_u8(out, (uint8_t)(half << 4 | v)))
				return af_diag_error(d, AF_ENOMEM, "out of memory");
			half = -1;
		}
	}
	if (half >= 0)
		return af_y_error(d, n, "%s: odd number of hex digits", what);
	return 0;
}

int af_y_get_base64(struct af_diag *d, const struct af_ynode *n, struct af_buf *out,
		    const char *what)
{
	int rc = scalar(d, n, what);
	uint32_t acc = 0;
	int bits = 0, pad = 0;
	if (rc)
		return rc;
	for (size_t i = 0; i < n->len; i++) {
		char c = n->str[i];
		const char *p;
		if (c == ' ' || c == '\n' || c == '\t' || c == '\r')
			continue;
		if (c == '=') {
			pad++;
			continue;
		}
		if (pad || !(p = memchr(b64, c, 64)) || !c)
			return af_y_error(d, n, "%s: invalid base64 text", what);
		acc = acc << 6 | (uint32_t)(p - b64);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (af_buf_put_u8(out, (uint8_t)(acc >> bits)))
				return af_diag_error(d, AF_ENOMEM, "out of memory");
		}
	}
	if (pad > 2)
		return af_y_error(d, n, "%s: invalid base64 padding", what);
	return 0;
}

const struct af_ynode *af_y_need(struct af_diag *d, const struct af_ynode *m, const char *key,
				 const char *what)
{
	const struct af_ynode *v = af_ymap_get(m, key);
	if (!v) {
		if (m && m->type != AF_YMAP)
			af_y_error(d, m, "%s: expected a mapping", what);
		else
			af_y_error(d, m, "%s: missing key '%s'", what, key);
	}
	return v;
}
