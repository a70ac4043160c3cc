/* Diagnostics: what went wrong and where (YAML line:column or byte offset).
 * Codecs fill a struct af_diag and never print; main.c and fs/ format it. */
#ifndef ANIMFS_DIAG_H
#define ANIMFS_DIAG_H

#include <stddef.h>
#include <stdint.h>
#include "animfs/buf.h"

/* The core's result codes: 0, or one of these, each distinct from every -errno (Linux's
 * errno values are below 200; a face's, below 1000), so that a code handed on as an
 * errno, or an errno taken for a code, shows at once. A face turns a code into its own
 * errors in one place (af_code_errno for the POSIX ones). */
enum {
	AF_OK = 0,
	AF_EINVAL = -1001, /* the content is wrong (bad binary, bad YAML, bad value) */
	AF_ENOMEM = -1002, /* allocation failed */
	AF_EIO = -1003,    /* reading or writing failed */
	AF_EUNSUP = -1004, /* valid, but a variant this codec cannot handle */
	AF_EROFS = -1005,  /* read-only: a container that is never rewritten */
	AF_EACCES = -1006, /* the user it is done for may not (a permission the kernel checked) */
	AF_EPERM = -1007,  /* the same, refused by ownership (a sticky folder, another's file) */
};

/* The -errno of a result code (AF_EUNSUP: -EINVAL); 0 and a -errno (above -1000) stay
 * as they are, and any other value is -EIO. A face turns what the core returns into
 * errno with it, in one place (src/fs/ops.c). */
int af_code_errno(int code);

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

/* A note among the warnings ("line:col: note: text"): what the encoder did that the
 * text does not say, such as a value stored as the nearest step it can hold. */
void af_diag_note(struct af_diag *d, unsigned line, unsigned col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Drop the warnings of d whose text (its place aside) known also has: what a file
 * already held is no news when an edit of it is encoded. */
void af_diag_drop_known(struct af_diag *d, const struct af_diag *known);

/* "file:line:col: msg", "file: byte 0x3c: msg" or "file: msg". */
void af_diag_format(const struct af_diag *d, const char *file, char *out, size_t size);

const char *af_strerror(int code);

#endif
