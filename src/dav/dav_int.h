/* The WebDAV face's own parts, shared by its files: the server, one request, and the
 * helpers every method uses. */
#ifndef ANIMFS_DAV_INT_H
#define ANIMFS_DAV_INT_H

#include "mhd.h"
#include <stdint.h>

#include "animfs/buf.h"
#include "animfs/dav.h"
#include "auth.h"
#include "href.h"
#include "locks.h"
#include "props.h"

struct af_dav {
	struct MHD_Daemon *mhd;
	struct af_dav_ns ns;
	struct af_dav_opts o;
	struct dav_locks locks;
	struct dav_props props;
	unsigned port;
	struct dav_auth *auth;     /* NULL: no password asked (loopback only) */
	char *cert, *key;          /* TLS: the PEM texts, or NULL */
};

enum dav_method { M_OTHER, M_OPTIONS, M_GET, M_HEAD, M_PUT, M_DELETE, M_MKCOL, M_COPY,
		  M_MOVE, M_PROPFIND, M_PROPPATCH, M_LOCK, M_UNLOCK };

/* One request, from its headers to its response. */
struct dav_rq {
	struct af_dav *d;
	struct MHD_Connection *c;
	enum dav_method m;
	char rel[DAV_PATH_MAX];
	int dir;                   /* the URL ended with '/' */
	int path_rc;               /* dav_path_decode's answer */
	struct af_buf body;        /* an XML body (PROPFIND, PROPPATCH, LOCK) */
	int body_over;             /* the body passed its bound: 413 */
	int body_seen;             /* any body bytes came */
	struct af_dav_writer *w;   /* a PUT being written */
	int created;
	uint64_t put_off;
	int put_rc;                /* the first write's failure */
	int answered;              /* a response was queued */
	unsigned status;           /* its status */
	char method[16];           /* as sent (cut), for the request log */
};

/* Queues a response (text/plain body, or none) and says so to MHD. */
enum MHD_Result dav_reply(struct dav_rq *r, unsigned status, const char *text);
/* Queues resp (destroyed here) with status: the one way a response leaves. */
enum MHD_Result dav_queue(struct dav_rq *r, unsigned status, struct MHD_Response *resp);
/* Queues body (XML, taken over: freed here) with status. */
enum MHD_Result dav_reply_xml(struct dav_rq *r, unsigned status, struct af_buf *body);
/* The DAV:error body of a precondition (RFC 4918 section 16), e.g. "lock-token-submitted"
 * with the href of root (NULL: none). */
enum MHD_Result dav_reply_cond(struct dav_rq *r, unsigned status, const char *cond,
			       const char *root);
/* The status of a negative errno. */
unsigned dav_status(int err);
/* A header's value or NULL. */
const char *dav_header(struct dav_rq *r, const char *name);
/* Whether a list of etags (If-Match, If-None-Match) names etag ("*": any). */
int dav_etag_listed(const char *list, const char *etag);
/* The resource's etag, quoted, in out ("" when it has none). */
void dav_etag(const struct stat *st, char *out, size_t n);
void dav_etag_of(void *d, const char *rel, char *out, size_t n);
/* The If header of the request: 0 (parsed into h), or a response queued (400 / 412). */
int dav_if_check(struct dav_rq *r, struct dav_if *h, enum MHD_Result *res);
/* Whether the locks let this request change rel (subtree: and everything below) and,
 * for a change of membership, rel's parent: 0, or a 423 queued. */
int dav_lock_gate(struct dav_rq *r, const struct dav_if *h, const char *rel, int subtree,
		  int parent, enum MHD_Result *res);
/* "a/b" -> "a" ("" for a top name) in out */
void dav_parent(const char *rel, char *out);

enum MHD_Result dav_options(struct dav_rq *r);
enum MHD_Result dav_get(struct dav_rq *r, int head);
int dav_put_begin(struct dav_rq *r, enum MHD_Result *res);
enum MHD_Result dav_put_end(struct dav_rq *r);
enum MHD_Result dav_delete(struct dav_rq *r);
enum MHD_Result dav_mkcol(struct dav_rq *r);
enum MHD_Result dav_copymove(struct dav_rq *r, int move);
enum MHD_Result dav_propfind(struct dav_rq *r);
enum MHD_Result dav_proppatch(struct dav_rq *r);
enum MHD_Result dav_lock(struct dav_rq *r);
enum MHD_Result dav_unlock(struct dav_rq *r);
/* Removes rel and everything below it: 0 or the first failure. */
int dav_remove_tree(struct af_dav *d, const char *rel);

#endif
