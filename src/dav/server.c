/* The WebDAV face's server (dav.h): libmicrohttpd with a thread per connection (a
 * request may wait on a render), bounded headers, bodies, connections and idle time;
 * each request decoded once (href.c), then handed to its method. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dav_int.h"
#include "davxml.h"

static const struct { const char *name; enum dav_method m; } methods[] = {
	{"OPTIONS", M_OPTIONS}, {"GET", M_GET}, {"HEAD", M_HEAD}, {"PUT", M_PUT},
	{"DELETE", M_DELETE}, {"MKCOL", M_MKCOL}, {"COPY", M_COPY}, {"MOVE", M_MOVE},
	{"PROPFIND", M_PROPFIND}, {"PROPPATCH", M_PROPPATCH}, {"LOCK", M_LOCK},
	{"UNLOCK", M_UNLOCK},
};

unsigned dav_status(int err)
{
	switch (-err) {
	case ENOENT: return MHD_HTTP_NOT_FOUND;
	case EACCES: case EPERM: case EROFS: case ELOOP: return MHD_HTTP_FORBIDDEN;
	case EEXIST: return MHD_HTTP_METHOD_NOT_ALLOWED;
	case ENOTDIR: case ENOTEMPTY: case EISDIR: return MHD_HTTP_CONFLICT;
	case ENOSPC: case EDQUOT: return MHD_HTTP_INSUFFICIENT_STORAGE;
	case EFBIG: return MHD_HTTP_CONTENT_TOO_LARGE;
	case ENAMETOOLONG: return MHD_HTTP_URI_TOO_LONG;
	case EBUSY: return MHD_HTTP_LOCKED;
	case EINVAL: return MHD_HTTP_BAD_REQUEST;
	case EXDEV: return MHD_HTTP_BAD_GATEWAY;
	case ENOMEM: case EAGAIN: return MHD_HTTP_SERVICE_UNAVAILABLE;
	default: return MHD_HTTP_INTERNAL_SERVER_ERROR;
	}
}

static enum MHD_Result queue(struct dav_rq *r, unsigned status, struct MHD_Response *resp,
			     const char *type)
{
	if (!resp)
		return MHD_NO;
	if (type)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (r->m == M_LOCK || r->m == M_OPTIONS)
		MHD_add_response_header(resp, "DAV", "1, 2");
	return dav_queue(r, status, resp);
}

enum MHD_Result dav_queue(struct dav_rq *r, unsigned status, struct MHD_Response *resp)
{
	enum MHD_Result res = MHD_queue_response(r->c, status, resp);
	MHD_destroy_response(resp);
	r->answered = 1;
	r->status = status;
	return res;
}

enum MHD_Result dav_reply(struct dav_rq *r, unsigned status, const char *text)
{
	size_t n = text ? strlen(text) : 0;
	struct MHD_Response *resp =
		MHD_create_response_from_buffer(n, (void *)(text ? text : ""), MHD_RESPMEM_MUST_COPY);
	return queue(r, status, resp, n ? "text/plain; charset=utf-8" : NULL);
}

enum MHD_Result dav_reply_xml(struct dav_rq *r, unsigned status, struct af_buf *body)
{
	if (body->failed) {
		af_buf_free(body);
		return dav_reply(r, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory\n");
	}
	struct MHD_Response *resp = MHD_create_response_from_buffer_with_free_callback(
		body->len, body->data, free);
	if (!resp)
		af_buf_free(body);
	else
		af_buf_init(body);
	return queue(r, status, resp, "application/xml; charset=utf-8");
}

enum MHD_Result dav_reply_cond(struct dav_rq *r, unsigned status, const char *cond,
			       const char *root)
{
	struct af_buf b = AF_BUF_INIT;
	af_buf_printf(&b, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
			  "<D:error xmlns:D=\"DAV:\"><D:%s>", cond);
	if (root) {
		af_buf_puts(&b, "<D:href>");
		struct af_buf h = AF_BUF_INIT;
		dav_href_put(&h, root, 0);
		af_buf_putc(&h, 0);
		if (!h.failed)
			dav_xml_escape(&b, (char *)h.data);
		af_buf_free(&h);
		af_buf_puts(&b, "</D:href>");
	}
	af_buf_printf(&b, "</D:%s></D:error>\n", cond);
	return dav_reply_xml(r, status, &b);
}

const char *dav_header(struct dav_rq *r, const char *name)
{
	return MHD_lookup_connection_value(r->c, MHD_HEADER_KIND, name);
}

void dav_etag(const struct stat *st, char *out, size_t n)
{
	snprintf(out, n, "\"%llx-%llx-%llx\"", (unsigned long long)st->st_ino,
		 (unsigned long long)st->st_size,
		 (unsigned long long)st->st_mtim.tv_sec * 1000000000ull +
			 (unsigned long long)st->st_mtim.tv_nsec);
}

void dav_etag_of(void *ctx, const char *rel, char *out, size_t n)
{
	struct af_dav *d = ctx;
	struct stat st;
	if (d->ns.stat(d->ns.ctx, rel, &st) || S_ISDIR(st.st_mode))
		out[0] = 0;
	else
		dav_etag(&st, out, n);
}

void dav_parent(const char *rel, char *out)
{
	const char *s = strrchr(rel, '/');
	size_t n = s ? (size_t)(s - rel) : 0;
	memcpy(out, rel, n);
	out[n] = 0;
}

int dav_if_check(struct dav_rq *r, struct dav_if *h, enum MHD_Result *res)
{
	if (dav_if_parse(dav_header(r, "If"), h)) {
		*res = dav_reply(r, MHD_HTTP_BAD_REQUEST, "malformed If header\n");
		return -1;
	}
	if (!dav_if_holds(h, r->rel, &r->d->locks, dav_etag_of, r->d)) {
		dav_if_free(h);
		*res = dav_reply(r, MHD_HTTP_PRECONDITION_FAILED, NULL);
		return -1;
	}
	return 0;
}

int dav_lock_gate(struct dav_rq *r, const struct dav_if *h, const char *rel, int subtree,
		  int parent, enum MHD_Result *res)
{
	char root[DAV_PATH_MAX], up[DAV_PATH_MAX];
	int rc = dav_locks_check(&r->d->locks, rel, subtree, h, root);
	if (!rc && parent && rel[0]) {
		dav_parent(rel, up);
		rc = dav_locks_check(&r->d->locks, up, 0, h, root);
	}
	if (rc) {
		*res = dav_reply_cond(r, MHD_HTTP_LOCKED, "lock-token-submitted", root);
		return -1;
	}
	return 0;
}

static int authorized(struct af_dav *d, struct MHD_Connection *c)
{
	char *pass = NULL, *user = MHD_basic_auth_get_username_password(c, &pass);
	int ok = user && pass && dav_auth_check(d->auth, user, pass);
	if (pass) {
		memset(pass, 0, strlen(pass));
		MHD_free(pass);
	}
	if (user)
		MHD_free(user);
	return ok;
}

/* The request's first call: its method and path, a PUT's file opened for the body. */
static enum MHD_Result begin(struct af_dav *d, struct MHD_Connection *c, const char *url,
			     const char *method, void **con_cls)
{
	struct dav_rq *r = af_alloc_zeroed(1, sizeof *r);
	if (!r)
		return MHD_NO;
	r->d = d;
	r->c = c;
	af_buf_init(&r->body);
	snprintf(r->method, sizeof r->method, "%s", method);
	for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
		if (!strcmp(method, methods[i].name))
			r->m = methods[i].m;
	r->path_rc = dav_path_decode(url, 0, r->rel, &r->dir);
	*con_cls = r;
	if (d->auth && !authorized(d, c)) {
		struct MHD_Response *resp = MHD_create_response_from_buffer(
			14, (void *)"who are you?\n\n", MHD_RESPMEM_PERSISTENT);
		if (!resp)
			return MHD_NO;
		enum MHD_Result res = MHD_queue_basic_auth_fail_response(c, "animfs", resp);
		MHD_destroy_response(resp);
		r->answered = 1;
		r->status = MHD_HTTP_UNAUTHORIZED;
		return res;
	}
	if (r->m == M_OTHER)
		return dav_reply(r, MHD_HTTP_NOT_IMPLEMENTED, "unknown method\n");
	if (r->path_rc)
		return dav_reply(r, dav_status(r->path_rc), "bad path\n");
	if (r->m == M_PUT) {
		enum MHD_Result res = MHD_YES;
		if (dav_put_begin(r, &res))
			return res;
	}
	return MHD_YES;
}

/* Body bytes of the request. */
static void take_body(struct dav_rq *r, const char *data, size_t n)
{
	r->body_seen = 1;
	if (r->m == M_PUT) {
		if (r->w && !r->put_rc) {
			r->put_rc = r->d->ns.write(r->w, data, n, r->put_off);
			r->put_off += n;
		}
		return;
	}
	if (r->m != M_PROPFIND && r->m != M_PROPPATCH && r->m != M_LOCK)
		return; /* MKCOL's and the others' are refused at the end, unread */
	if (r->body.len + n > r->d->o.max_xml) {
		r->body_over = 1;
		return;
	}
	af_buf_append(&r->body, data, n);
}

static enum MHD_Result dispatch(struct dav_rq *r)
{
	if (r->body_over)
		return dav_reply(r, MHD_HTTP_CONTENT_TOO_LARGE, "request body too large\n");
	if (r->body.failed)
		return dav_reply(r, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory\n");
	switch (r->m) {
	case M_OPTIONS: return dav_options(r);
	case M_GET: return dav_get(r, 0);
	case M_HEAD: return dav_get(r, 1);
	case M_PUT: return dav_put_end(r);
	case M_DELETE: return dav_delete(r);
	case M_MKCOL: return dav_mkcol(r);
	case M_COPY: return dav_copymove(r, 0);
	case M_MOVE: return dav_copymove(r, 1);
	case M_PROPFIND: return dav_propfind(r);
	case M_PROPPATCH: return dav_proppatch(r);
	case M_LOCK: return dav_lock(r);
	case M_UNLOCK: return dav_unlock(r);
	default: return dav_reply(r, MHD_HTTP_NOT_IMPLEMENTED, "unknown method\n");
	}
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version,
				  const char *upload, size_t *upload_size, void **con_cls)
{
	(void)version;
	struct dav_rq *r = *con_cls;
	if (!r)
		return begin(cls, c, url, method, con_cls);
	if (*upload_size) {
		if (!r->answered)
			take_body(r, upload, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	if (r->answered)
		return MHD_YES;
	return dispatch(r);
}

static void on_done(void *cls, struct MHD_Connection *c, void **con_cls,
		    enum MHD_RequestTerminationCode why)
{
	(void)cls, (void)c;
	struct dav_rq *r = *con_cls;
	if (!r)
		return;
	if (r->w) /* the client went away mid-body: the old file stays */
		r->d->ns.close_write(r->w, 0, NULL, 0);
	if (r->d->o.log_requests)
		fprintf(stderr, "animfs serve: %s /%s%s %u%s\n", r->method, r->rel,
			r->dir && r->rel[0] ? "/" : "", r->status,
			why == MHD_REQUEST_TERMINATED_COMPLETED_OK ? "" : " (not completed)");
	af_buf_free(&r->body);
	free(r);
	*con_cls = NULL;
}

/* URLs are decoded by href.c (which refuses an encoded '/' or NUL), not by MHD. */
static size_t keep_escaped(void *cls, struct MHD_Connection *c, char *s)
{
	(void)cls, (void)c;
	return strlen(s);
}

static int parse_listen(const char *l, struct sockaddr_storage *ss, int *v6, int *loopback)
{
	char host[128];
	const char *colon = strrchr(l, ':');
	if (!colon || colon == l || (size_t)(colon - l) >= sizeof host)
		return -EINVAL;
	char *end;
	unsigned long port = strtoul(colon + 1, &end, 10);
	if (*end || end == colon + 1 || port > 65535)
		return -EINVAL;
	memcpy(host, l, (size_t)(colon - l));
	host[colon - l] = 0;
	memset(ss, 0, sizeof *ss);
	if (host[0] == '[') {
		size_t n = strlen(host);
		if (n < 3 || host[n - 1] != ']')
			return -EINVAL;
		host[n - 1] = 0;
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host + 1, &a->sin6_addr) != 1)
			return -EINVAL;
		*v6 = 1;
		*loopback = IN6_IS_ADDR_LOOPBACK(&a->sin6_addr);
		return 0;
	}
	struct sockaddr_in *a = (struct sockaddr_in *)ss;
	a->sin_family = AF_INET;
	a->sin_port = htons((uint16_t)port);
	if (!strcmp(host, "localhost"))
		snprintf(host, sizeof host, "127.0.0.1");
	if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
		return -EINVAL;
	*v6 = 0;
	*loopback = (ntohl(a->sin_addr.s_addr) >> 24) == 127;
	return 0;
}

struct af_dav *af_dav_start(const struct af_dav_opts *o, const struct af_dav_ns *ns,
			    char *err, size_t errlen)
{
	struct af_dav *d = af_alloc_zeroed(1, sizeof *d);
	struct sockaddr_storage ss;
	int v6 = 0, loopback = 0;
	if (!d) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	d->ns = *ns;
	d->o = *o;
	if (!d->o.listen)
		d->o.listen = "127.0.0.1:8080";
	if (!d->o.max_connections)
		d->o.max_connections = 64;
	if (!d->o.timeout_s)
		d->o.timeout_s = 120;
	if (!d->o.max_body)
		d->o.max_body = 1ull << 30;
	if (!d->o.max_xml)
		d->o.max_xml = 1u << 20;
	if (!d->o.header_bytes)
		d->o.header_bytes = 32u << 10;
	if (!d->o.max_locks)
		d->o.max_locks = 4096;
	if (!d->o.max_dead_props)
		d->o.max_dead_props = 4u << 20;
	if (parse_listen(d->o.listen, &ss, &v6, &loopback)) {
		snprintf(err, errlen, "--listen %s: not ADDR:PORT (e.g. 127.0.0.1:8080 or [::1]:8080)",
			 d->o.listen);
		goto fail;
	}
	if (!loopback && (!o->auth || !o->tls_cert)) {
		snprintf(err, errlen, "--listen %s: an address other than loopback (127.0.0.0/8, "
			 "[::1]) needs --auth FILE and --tls-cert/--tls-key: the requests would "
			 "be neither authenticated nor encrypted (docs/serve.md)", d->o.listen);
		goto fail;
	}
	if (!o->tls_cert != !o->tls_key) {
		snprintf(err, errlen, "--tls-cert and --tls-key go together");
		goto fail;
	}
	if (o->auth && !(d->auth = dav_auth_load(o->auth, err, errlen)))
		goto fail;
	size_t len;
	int rc;
	if (o->tls_cert && ((rc = dav_read_small(o->tls_cert, 1u << 20, &d->cert, &len)) ||
			    (rc = dav_read_small(o->tls_key, 1u << 20, &d->key, &len)))) {
		snprintf(err, errlen, "%s: %s", d->cert ? o->tls_key : o->tls_cert, strerror(-rc));
		goto fail;
	}
	if (dav_mhd_load(err, errlen))
		goto fail;
	if (dav_locks_init(&d->locks, d->o.max_locks) ||
	    dav_props_init(&d->props, d->o.max_dead_props)) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
			 (v6 ? MHD_USE_IPv6 : 0) | (o->quiet ? 0 : MHD_USE_ERROR_LOG) |
			 (d->cert ? MHD_USE_TLS : 0);
	/* the TLS options last: without TLS, the list ends before them */
	/* the port is ss's; given here too only for the library's own messages */
	uint16_t port = ntohs(v6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
				 : ((struct sockaddr_in *)&ss)->sin_port);
	d->mhd = MHD_start_daemon(flags, port, NULL, NULL, on_request, d,
				  MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				  MHD_OPTION_CONNECTION_LIMIT, d->o.max_connections,
				  MHD_OPTION_CONNECTION_TIMEOUT, d->o.timeout_s,
				  MHD_OPTION_CONNECTION_MEMORY_LIMIT, d->o.header_bytes,
				  MHD_OPTION_NOTIFY_COMPLETED, on_done, d,
				  MHD_OPTION_UNESCAPE_CALLBACK, keep_escaped, d,
				  d->cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, d->cert,
				  MHD_OPTION_HTTPS_MEM_KEY, d->key, MHD_OPTION_END);
	if (!d->mhd) {
		snprintf(err, errlen, "cannot listen on %s: %s%s", d->o.listen, strerror(errno),
			 d->cert ? " (or the TLS certificate and key do not go together)" : "");
		dav_locks_free(&d->locks);
		dav_props_free(&d->props);
		goto fail;
	}
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(d->mhd, MHD_DAEMON_INFO_BIND_PORT);
	d->port = info ? info->port : 0;
	return d;
fail:
	dav_auth_free(d->auth);
	free(d->cert);
	free(d->key);
	free(d);
	return NULL;
}

unsigned af_dav_port(const struct af_dav *d)
{
	return d->port;
}

void af_dav_stop(struct af_dav *d)
{
	if (!d)
		return;
	MHD_stop_daemon(d->mhd);
	dav_locks_free(&d->locks);
	dav_props_free(&d->props);
	dav_auth_free(d->auth);
	free(d->cert);
	free(d->key);
	free(d);
}
