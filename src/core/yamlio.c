/* YAML helpers: direct text writers for codecs, and the checked getters codecs
 * use on the document tree (built by yamlread.c), whose nodes remember
 * line:column for error messages. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---------------------------------------------------------------- reading
 * (af_ydoc_parse is in yamlread.c and yamlfast.c) */

const struct af_ynode *af_ymap_get(const struct af_ynode *m, const char *key)
{
	if (!m || m->type != AF_YMAP)
		return NULL;
	size_t kl = strlen(key);
	for (size_t i = 0; i < m->n; i++) {
		const struct af_ynode *k = &m->items[2 * i];
		if (k->type == AF_YSCALAR && k->len == kl && !memcmp(k->str, key, kl))
			return &m->items[2 * i + 1];
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

int af_base64_decode(const char *s, size_t n, struct af_buf *out)
{
	uint32_t acc = 0;
	int bits = 0, pad = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		const char *p;
		if (c == ' ' || c == '\n' || c == '\t' || c == '\r')
			continue;
		if (c == '=') {
			pad++;
			continue;
		}
		if (pad || !(p = memchr(b64, c, 64)) || !c)
			return -1;
		acc = acc << 6 | (uint32_t)(p - b64);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (af_buf_put_u8(out, (uint8_t)(acc >> bits)))
				return -2;
		}
	}
	return pad > 2 ? -3 : 0;
}

int af_y_get_base64(struct af_diag *d, const struct af_ynode *n, struct af_buf *out,
		    const char *what)
{
	int rc = scalar(d, n, what);
	if (rc)
		return rc;
	switch (af_base64_decode(n->str, n->len, out)) {
	case -1: return af_y_error(d, n, "%s: invalid base64 text", what);
	case -2: return af_diag_error(d, AF_ENOMEM, "out of memory");
	case -3: return af_y_error(d, n, "%s: invalid base64 padding", what);
	}
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
