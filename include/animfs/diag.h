/* Diagnostics: what went wrong and where (YAML line:column or byte offset).
 * Codecs fill a struct af_diag and never print; main.c and fs/ format it. */
#ifndef ANIMFS_DIAG_H
#define ANIMFS_DIAG_H

#include <stddef.h>
#include <stdint.h>
#include "animfs/buf.h"

enum {
	AF_OK = 0,
	AF_EINVAL = -1,  /* the content is wrong (bad binary, bad YAML, bad value) */
	AF_ENOMEM = -2,  /* allocation failed */
	AF_EIO = -3,     /* reading or writing failed */
	AF_EUNSUP = -4,  /* valid, but a variant this codec cannot handle */
	AF_EROFS = -5,   /* read-only: a container that is never rewritten */
	AF_EACCES = -6,  /* the user it is done for may not (a permission the kernel checked) */
	AF_EPERM = -7,   /* the same, refused by ownership (a sticky folder, another's file) */
};

struct af_diag {
	int code;          /* AF_E* of the first error, 0 when none */
	char msg[768];
	unsigned line, col; /* 1-based YAML position; 0 when not known */
	int64_t offset;    /* byte offset in the binary; -1 when not known */
	struct af_buf warnings; /* "line:col: text\n" lines, in order */
	unsigned nwarnings;
};

void af_diag_init(struct af_diag *d);
void af_diag_free(struct af_diag *d);
void af_diag_clear(struct af_diag *d);

/* Record an error (the first one wins) and return code. */
int af_diag_error(struct af_diag *d, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int af_diag_at_offset(struct af_diag *d, int code, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int af_diag_at_mark(struct af_diag *d, int code, unsigned line, unsigned col,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void af_diag_warn(struct af_diag *d, unsigned line, unsigned col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Drop the warnings of d whose text (its place aside) known also has: what a file
 * already held is no news when an edit of it is encoded. */
void af_diag_drop_known(struct af_diag *d, const struct af_diag *known);

/* "file:line:col: msg", "file: byte 0x3c: msg" or "file: msg". */
void af_diag_format(const struct af_diag *d, const char *file, char *out, size_t size);

const char *af_strerror(int code);

#endif
