/* Diagnostics: first error wins; warnings accumulate as lines. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "animfs/diag.h"

void af_diag_init(struct af_diag *d)
{
	memset(d, 0, sizeof(*d));
	d->offset = -1;
}

void af_diag_free(struct af_diag *d)
{
	af_buf_free(&d->warnings);
	af_diag_init(d);
}

void af_diag_clear(struct af_diag *d)
{
	af_buf_reset(&d->warnings);
	struct af_buf w = d->warnings;
	af_diag_init(d);
	d->warnings = w;
}

static int set(struct af_diag *d, int code, const char *fmt, va_list ap)
{
	if (!d || d->code)
		return code;
	d->code = code;
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	return code;
}

int af_diag_error(struct af_diag *d, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set(d, code, fmt, ap);
	va_end(ap);
	return code;
}

int af_diag_at_offset(struct af_diag *d, int code, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	if (d && !d->code)
		d->offset = (int64_t)off;
	va_start(ap, fmt);
	set(d, code, fmt, ap);
	va_end(ap);
	return code;
}

int af_diag_at_mark(struct af_diag *d, int code, unsigned line, unsigned col, const char *fmt, ...)
{
	va_list ap;
	if (d && !d->code) {
		d->line = line;
		d->col = col;
	}
	va_start(ap, fmt);
	set(d, code, fmt, ap);
	va_end(ap);
	return code;
}

/* A line of d's warnings: "line:col: kind: text" (or "kind: text" with no place). */
static void add_line(struct af_diag *d, unsigned line, unsigned col, const char *kind,
		     const char *fmt, va_list ap)
{
	char msg[512];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (line)
		af_buf_printf(&d->warnings, "%u:%u: %s: %s\n", line, col, kind, msg);
	else
		af_buf_printf(&d->warnings, "%s: %s\n", kind, msg);
	d->nwarnings++;
}

void af_diag_warn(struct af_diag *d, unsigned line, unsigned col, const char *fmt, ...)
{
	va_list ap;
	if (!d)
		return;
	va_start(ap, fmt);
	add_line(d, line, col, "warning", fmt, ap);
	va_end(ap);
}

void af_diag_note(struct af_diag *d, unsigned line, unsigned col, const char *fmt, ...)
{
	va_list ap;
	if (!d)
		return;
	va_start(ap, fmt);
	add_line(d, line, col, "note", fmt, ap);
	va_end(ap);
}

/* The text of a warning line after its "line:col: warning: " or "warning: " (a
 * note's after "note: "). */
static void warn_text(const char *line, size_t n, const char **t, size_t *tn)
{
	const char *w = memmem(line, n, "warning: ", 9);
	if (!w && (w = memmem(line, n, "note: ", 6)))
		w -= 3; /* "note: " is 3 shorter than "warning: " */
	*t = w ? w + 9 : line;
	*tn = n - (size_t)(*t - line);
}

static int known_warning(const struct af_buf *known, const char *t, size_t tn)
{
	const char *p = (const char *)known->data, *end = p + known->len;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *kt;
		size_t kn;
		if (!eol)
			eol = end;
		warn_text(p, (size_t)(eol - p), &kt, &kn);
		if (kn == tn && !memcmp(kt, t, tn))
			return 1;
		p = eol + 1;
	}
	return 0;
}

void af_diag_drop_known(struct af_diag *d, const struct af_diag *known)
{
	struct af_buf kept = AF_BUF_INIT;
	const char *p = (const char *)d->warnings.data, *end = p + d->warnings.len;
	unsigned n = 0;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *t;
		size_t tn;
		if (!eol)
			eol = end;
		warn_text(p, (size_t)(eol - p), &t, &tn);
		if (!known_warning(&known->warnings, t, tn)) {
			af_buf_append(&kept, p, (size_t)(eol - p));
			af_buf_puts(&kept, "\n");
			n++;
		}
		p = eol + 1;
	}
	if (kept.failed) { /* keep them all rather than lose one */
		af_buf_free(&kept);
		return;
	}
	af_buf_free(&d->warnings);
	d->warnings = kept;
	d->nwarnings = n;
}

void af_diag_format(const struct af_diag *d, const char *file, char *out, size_t size)
{
	const char *msg = d->code ? d->msg : "no error";
	if (!msg[0])
		msg = af_strerror(d->code);
	if (d->line)
		snprintf(out, size, "%s:%u:%u: %s", file, d->line, d->col, msg);
	else if (d->offset >= 0)
		snprintf(out, size, "%s: byte 0x%llx: %s", file, (unsigned long long)d->offset, msg);
	else
		snprintf(out, size, "%s: %s", file, msg);
}

const char *af_strerror(int code)
{
	switch (code) {
	case AF_OK: return "ok";
	case AF_EINVAL: return "invalid content";
	case AF_ENOMEM: return "out of memory";
	case AF_EIO: return "input/output error";
	case AF_EUNSUP: return "unsupported variant";
	case AF_EROFS: return "read-only";
	default: return "unknown error";
	}
}

int af_code_errno(int code)
{
	switch (code) {
	case AF_OK:
		return 0;
	case AF_EINVAL:
	case AF_EUNSUP:
		return -EINVAL;
	case AF_ENOMEM:
		return -ENOMEM;
	case AF_EROFS:
		return -EROFS;
	case AF_EACCES:
		return -EACCES;
	case AF_EPERM:
		return -EPERM;
	default: /* a -errno the system gave stays as it is */
		return code < 0 && code > -1000 ? code : -EIO;
	}
}
