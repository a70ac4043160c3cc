/* The WebDAV face (animfs serve): RFC 4918 class 1 and 2 over libmicrohttpd, on a
 * namespace given as a table of operations (struct af_dav_ns). The face speaks HTTP and
 * XML; what a path is, its text and its save belong to the namespace. Names no format.
 * Paths given to the namespace are relative ("" the root, "a/b.yaml"), decoded, with no
 * "." or ".." segment, no NUL and no empty segment (href.c refuses everything else). */
#ifndef ANIMFS_DAV_H
#define ANIMFS_DAV_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* A file open for reading through the namespace (a view's text, a plain file). */
struct af_dav_reader;
/* A folder being listed. */
struct af_dav_dir;
/* A file being written by a PUT: its bytes arrive in order, then it is ended once. */
struct af_dav_writer;

/* Every operation answers 0 or a negative errno; the face turns it into a status. */
struct af_dav_ns {
	void *ctx;
	int (*stat)(void *ctx, const char *rel, struct stat *st);
	/* A folder's names, read in steps (a listing is never held whole). read_dir gives
	 * the next names (never "." or "..") to fn, which answers 0 to take one and go on, 1
	 * to stop before it (it comes again at the next call); read_dir answers 1 when fn
	 * stopped it, 0 at the end, or a negative errno. */
	int (*open_dir)(void *ctx, const char *rel, struct af_dav_dir **out);
	int (*read_dir)(struct af_dav_dir *dd, int (*fn)(void *arg, const char *name), void *arg);
	void (*close_dir)(struct af_dav_dir *dd);
	/* st: the open file's attributes (st_size: the bytes read will give) */
	int (*open_read)(void *ctx, const char *rel, struct af_dav_reader **out, struct stat *st);
	/* bytes read (0 at the end) or a negative errno */
	long (*read)(struct af_dav_reader *r, char *buf, size_t n, uint64_t off);
	void (*close_read)(struct af_dav_reader *r);
	/* A new or replaced file, written from its first byte to its last. *created: the
	 * name did not exist. */
	int (*open_write)(void *ctx, const char *rel, struct af_dav_writer **out, int *created);
	int (*write)(struct af_dav_writer *w, const char *buf, size_t n, uint64_t off);
	/* commit 0: abandon (the old file stays as it was). A refused save answers its
	 * reason in why (file:line:col: message) and -EINVAL, -EIO or the like. */
	int (*close_write)(struct af_dav_writer *w, int commit, char *why, size_t whylen);
	int (*mkcol)(void *ctx, const char *rel);
	int (*remove)(void *ctx, const char *rel, int is_dir);
	/* noreplace: fail with -EEXIST when to exists */
	int (*rename)(void *ctx, const char *from, const char *to, int noreplace);
};

struct af_dav_opts {
	const char *listen;         /* "ADDR:PORT" or "[ADDR6]:PORT"; NULL: 127.0.0.1:8080 */
	unsigned max_connections;   /* 0: 64 */
	unsigned timeout_s;         /* idle seconds of a connection; 0: 120 */
	uint64_t max_body;          /* largest PUT body; 0: 1 GiB */
	size_t max_xml;             /* largest XML request body; 0: 1 MiB */
	size_t header_bytes;        /* memory for a request's headers; 0: 32 KiB */
	unsigned max_locks;         /* locks held at once; 0: 4096 */
	size_t max_dead_props;      /* bytes of dead properties kept; 0: 4 MiB */
	const char *auth;           /* --auth FILE: user:crypt-hash lines (HTTP Basic) */
	const char *tls_cert, *tls_key; /* PEM files: HTTPS */
	int quiet;
	int log_requests;           /* each request's method, path and status on stderr */
	int daemon;                 /* --daemon: detach once listening (src/fs/serve.c) */
};

struct af_dav;

/* Starts serving (threads of its own); NULL and why in err when it cannot. */
struct af_dav *af_dav_start(const struct af_dav_opts *o, const struct af_dav_ns *ns,
			    char *err, size_t errlen);
/* The port it listens on (useful with port 0). */
unsigned af_dav_port(const struct af_dav *d);
/* Stops taking requests, waits for those running, frees everything. */
void af_dav_stop(struct af_dav *d);

#endif
