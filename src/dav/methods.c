/* OPTIONS, GET and HEAD (ranges, etags), PUT (the body streamed into the namespace's
 * save), DELETE, MKCOL, COPY and MOVE (RFC 4918 sections 9.3-9.9). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dav_int.h"
#include "davxml.h"

#define COPY_CHUNK (64u << 10)
#define BATCH 256
#define INDEX_MAX 10000

static const char allow[] = "OPTIONS, GET, HEAD, PUT, DELETE, MKCOL, COPY, MOVE, PROPFIND, "
			    "PROPPATCH, LOCK, UNLOCK";

enum MHD_Result dav_options(struct dav_rq *r)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(0, (void *)"",
								    MHD_RESPMEM_PERSISTENT);
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, "DAV", "1, 2");
	MHD_add_response_header(resp, "Allow", allow);
	MHD_add_response_header(resp, "MS-Author-Via", "DAV");
	MHD_add_response_header(resp, "Accept-Ranges", "bytes");
	return dav_queue(r, MHD_HTTP_OK, resp);
}

int dav_etag_listed(const char *list, const char *etag)
{
	if (!strcmp(list, "*"))
		return 1;
	size_t n = strlen(etag);
	for (const char *s = strstr(list, etag); s; s = strstr(s + 1, etag))
		if ((s == list || s[-1] == ' ' || s[-1] == ',' || s[-1] == '/') &&
		    (s[n] == 0 || s[n] == ',' || s[n] == ' '))
			return 1;
	return 0;
}

/* A single "bytes=a-b" range of size bytes: 1 and [*a, *b] inclusive; 0: no usable
 * range (serve it whole); -1: unsatisfiable. */
static int parse_range(const char *h, uint64_t size, uint64_t *a, uint64_t *b)
{
	if (!h || strncmp(h, "bytes=", 6) || strchr(h, ','))
		return 0;
	const char *s = h + 6;
	char *end;
	if (*s == '-') {
		uint64_t n = strtoull(s + 1, &end, 10);
		if (end == s + 1 || *end)
			return 0;
		if (n == 0 || size == 0)
			return -1;
		*a = n >= size ? 0 : size - n;
		*b = size - 1;
		return 1;
	}
	if (*s < '0' || *s > '9')
		return 0;
	*a = strtoull(s, &end, 10);
	if (*end != '-')
		return 0;
	s = end + 1;
	if (*s == 0) {
		*b = size ? size - 1 : 0;
	} else {
		if (*s < '0' || *s > '9')
			return 0;
		*b = strtoull(s, &end, 10);
		if (*end || *b < *a)
			return 0;
		if (*b >= size)
			*b = size ? size - 1 : 0;
	}
	return *a >= size ? -1 : 1;
}

struct getctx {
	struct af_dav *d;
	struct af_dav_reader *rd;
	uint64_t start;
};

static ssize_t get_cb(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct getctx *g = cls;
	long n = g->d->ns.read(g->rd, buf, max, g->start + pos);
	if (n < 0)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	if (n == 0)
		return MHD_CONTENT_READER_END_OF_STREAM;
	return n;
}

static void get_free(void *cls)
{
	struct getctx *g = cls;
	g->d->ns.close_read(g->rd);
	free(g);
}

static void http_date(time_t t, char *out, size_t n)
{
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, n, "%a, %d %b %Y %H:%M:%S GMT", &tm);
}

struct index_ctx {
	struct af_buf *b;
	size_t n;
};

static int index_entry(void *arg, const char *name)
{
	struct index_ctx *x = arg;
	if (x->n++ >= INDEX_MAX)
		return 1;
	af_buf_puts(x->b, "<li><a href=\"");
	struct af_buf h = AF_BUF_INIT;
	dav_href_put(&h, name, 0);
	af_buf_putc(&h, 0);
	if (!h.failed)
		dav_xml_escape(x->b, (char *)h.data + 1);
	af_buf_free(&h);
	af_buf_puts(x->b, "\">");
	dav_xml_escape(x->b, name);
	af_buf_puts(x->b, "</a></li>\n");
	return 0;
}

/* A folder's GET: a small HTML index for a browser (the first INDEX_MAX names). */
static enum MHD_Result get_index(struct dav_rq *r)
{
	struct af_dav *d = r->d;
	struct af_dav_dir *dd;
	int rc = d->ns.open_dir(d->ns.ctx, r->rel, &dd);
	if (rc)
		return dav_reply(r, dav_status(rc), NULL);
	struct af_buf b = AF_BUF_INIT;
	struct index_ctx x = {&b, 0};
	af_buf_puts(&b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>/");
	dav_xml_escape(&b, r->rel);
	af_buf_puts(&b, "</title></head><body><ul>\n");
	rc = d->ns.read_dir(dd, index_entry, &x);
	d->ns.close_dir(dd);
	if (rc > 0)
		af_buf_puts(&b, "<li>(more names: list them with PROPFIND)</li>\n");
	af_buf_puts(&b, "</ul></body></html>\n");
	if (rc < 0 || b.failed) {
		af_buf_free(&b);
		return dav_reply(r, dav_status(rc < 0 ? rc : -ENOMEM), NULL);
	}
	struct MHD_Response *resp =
		MHD_create_response_from_buffer_with_free_callback(b.len, b.data, free);
	if (!resp) {
		af_buf_free(&b);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/html; charset=utf-8");
	return dav_queue(r, MHD_HTTP_OK, resp);
}

static const char *content_type(const char *rel)
{
	const char *dot = strrchr(dav_base(rel), '.');
	if (dot && (!strcmp(dot, ".yaml") || !strcmp(dot, ".yml")))
		return "application/yaml; charset=utf-8";
	if (dot && !strcmp(dot, ".svg"))
		return "image/svg+xml";
	if (dot && !strcmp(dot, ".glb"))
		return "model/gltf-binary";
	if (dot && !strcmp(dot, ".gltf"))
		return "model/gltf+json";
	if (dot && (!strcmp(dot, ".txt") || !strcmp(dot, ".md")))
		return "text/plain; charset=utf-8";
	/* a view keeps its binary's name: its text is YAML */
	return "application/octet-stream";
}

enum MHD_Result dav_get(struct dav_rq *r, int head)
{
	struct af_dav *d = r->d;
	struct stat st;
	int rc = d->ns.stat(d->ns.ctx, r->rel, &st);
	if (rc)
		return dav_reply(r, dav_status(rc), NULL);
	if (S_ISDIR(st.st_mode))
		return get_index(r);
	struct getctx *g = af_alloc_zeroed(1, sizeof *g);
	if (!g)
		return dav_reply(r, MHD_HTTP_SERVICE_UNAVAILABLE, NULL);
	g->d = d;
	rc = d->ns.open_read(d->ns.ctx, r->rel, &g->rd, &st);
	if (rc) {
		free(g);
		return dav_reply(r, dav_status(rc), NULL);
	}
	char etag[96], date[64];
	dav_etag(&st, etag, sizeof etag);
	const char *inm = dav_header(r, "If-None-Match"), *im = dav_header(r, "If-Match");
	unsigned status = MHD_HTTP_OK;
	if (im && !dav_etag_listed(im, etag))
		status = MHD_HTTP_PRECONDITION_FAILED;
	else if (inm && dav_etag_listed(inm, etag))
		status = MHD_HTTP_NOT_MODIFIED;
	if (status != MHD_HTTP_OK) {
		get_free(g);
		struct MHD_Response *resp = MHD_create_response_from_buffer(0, (void *)"",
									    MHD_RESPMEM_PERSISTENT);
		if (!resp)
			return MHD_NO;
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, etag);
		return dav_queue(r, status, resp);
	}
	uint64_t size = (uint64_t)st.st_size, a = 0, b = size ? size - 1 : 0;
	const char *ifr = dav_header(r, "If-Range");
	int ranged = head || (ifr && strcmp(ifr, etag)) ? 0 : parse_range(dav_header(r, "Range"), size, &a, &b);
	char cr[96];
	if (ranged < 0) {
		get_free(g);
		snprintf(cr, sizeof cr, "bytes */%" PRIu64, size);
		struct MHD_Response *resp = MHD_create_response_from_buffer(0, (void *)"",
									    MHD_RESPMEM_PERSISTENT);
		if (!resp)
			return MHD_NO;
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_RANGE, cr);
		return dav_queue(r, MHD_HTTP_RANGE_NOT_SATISFIABLE, resp);
	}
	g->start = ranged ? a : 0;
	uint64_t len = ranged ? b - a + 1 : size;
	struct MHD_Response *resp = MHD_create_response_from_callback(len, COPY_CHUNK, get_cb, g,
								       get_free);
	if (!resp) {
		get_free(g);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, etag);
	http_date(st.st_mtim.tv_sec, date, sizeof date);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_LAST_MODIFIED, date);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_ACCEPT_RANGES, "bytes");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type(r->rel));
	if (ranged) {
		snprintf(cr, sizeof cr, "bytes %" PRIu64 "-%" PRIu64 "/%" PRIu64, a, b, size);
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_RANGE, cr);
	}
	return dav_queue(r, ranged ? MHD_HTTP_PARTIAL_CONTENT : MHD_HTTP_OK, resp);
}

/* Whether rel's parent is a folder: 0, or a 409 queued. */
static int parent_ok(struct dav_rq *r, const char *rel, enum MHD_Result *res)
{
	char up[DAV_PATH_MAX];
	struct stat st;
	dav_parent(rel, up);
	if (r->d->ns.stat(r->d->ns.ctx, up, &st) || !S_ISDIR(st.st_mode)) {
		*res = dav_reply(r, MHD_HTTP_CONFLICT, "the parent folder does not exist\n");
		return -1;
	}
	return 0;
}

int dav_put_begin(struct dav_rq *r, enum MHD_Result *res)
{
	struct af_dav *d = r->d;
	struct dav_if h;
	struct stat st;
	const char *cl = dav_header(r, MHD_HTTP_HEADER_CONTENT_LENGTH);
	if (!r->rel[0] || r->dir) {
		*res = dav_reply(r, MHD_HTTP_METHOD_NOT_ALLOWED, "a folder takes no PUT\n");
		return -1;
	}
	if (dav_header(r, MHD_HTTP_HEADER_CONTENT_RANGE)) {
		*res = dav_reply(r, MHD_HTTP_BAD_REQUEST, "a PUT replaces a file whole: no Content-Range\n");
		return -1;
	}
	if (cl && strtoull(cl, NULL, 10) > d->o.max_body) {
		*res = dav_reply(r, MHD_HTTP_CONTENT_TOO_LARGE, "the body is larger than --max-body\n");
		return -1;
	}
	if (dav_if_check(r, &h, res))
		return -1;
	int rc = dav_lock_gate(r, &h, r->rel, 0, 1, res);
	dav_if_free(&h);
	if (rc || parent_ok(r, r->rel, res))
		return -1;
	int exists = !d->ns.stat(d->ns.ctx, r->rel, &st);
	if (exists && S_ISDIR(st.st_mode)) {
		*res = dav_reply(r, MHD_HTTP_METHOD_NOT_ALLOWED, "a folder takes no PUT\n");
		return -1;
	}
	/* If-Match / If-None-Match: a client's guard against a lost update (RFC 7232) */
	const char *im = dav_header(r, "If-Match"), *inm = dav_header(r, "If-None-Match");
	char etag[96] = "";
	if (exists)
		dav_etag(&st, etag, sizeof etag);
	if ((im && (!exists || !dav_etag_listed(im, etag))) ||
	    (inm && exists && dav_etag_listed(inm, etag))) {
		*res = dav_reply(r, MHD_HTTP_PRECONDITION_FAILED, "the file is not the one the "
				 "request's If-Match or If-None-Match names\n");
		return -1;
	}
	rc = d->ns.open_write(d->ns.ctx, r->rel, &r->w, &r->created);
	if (rc) {
		r->w = NULL;
		*res = dav_reply(r, dav_status(rc), NULL);
		return -1;
	}
	return 0;
}

enum MHD_Result dav_put_end(struct dav_rq *r)
{
	struct af_dav *d = r->d;
	char why[1024] = "";
	struct af_dav_writer *w = r->w;
	r->w = NULL;
	if (!w)
		return dav_reply(r, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL);
	if (r->put_off > d->o.max_body) {
		d->ns.close_write(w, 0, NULL, 0);
		return dav_reply(r, MHD_HTTP_CONTENT_TOO_LARGE, "the body is larger than --max-body\n");
	}
	if (r->put_rc) {
		d->ns.close_write(w, 0, NULL, 0);
		return dav_reply(r, dav_status(r->put_rc), NULL);
	}
	int rc = d->ns.close_write(w, 1, why, sizeof why);
	if (rc && why[0]) {
		size_t n = strlen(why);
		if (n + 1 < sizeof why && why[n - 1] != '\n')
			memcpy(why + n, "\n", 2);
		return dav_reply(r, MHD_HTTP_UNPROCESSABLE_CONTENT, why);
	}
	if (rc)
		return dav_reply(r, dav_status(rc), NULL);
	return dav_reply(r, r->created ? MHD_HTTP_CREATED : MHD_HTTP_NO_CONTENT, NULL);
}

struct batch {
	char **names;
	size_t n, cap;
	int failed; /* out of memory: the names taken are not all there are */
};

static int batch_add(void *arg, const char *name)
{
	struct batch *b = arg;
	if (b->n >= BATCH)
		return 1;
	char **v = af_grow(b->names, &b->cap, b->n, sizeof *v, 16);
	if (!v || !(v[b->n] = af_strcopy(name))) {
		b->failed = 1;
		return 1;
	}
	b->names = v;
	b->n++;
	return 0;
}

static void batch_free(struct batch *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->names[i]);
	free(b->names);
	memset(b, 0, sizeof *b);
}

/* A folder's first BATCH names (a removal takes the next ones once these are gone). */
static int take_batch(struct af_dav *d, const char *rel, struct batch *b)
{
	struct af_dav_dir *dd;
	int rc = d->ns.open_dir(d->ns.ctx, rel, &dd);
	if (rc)
		return rc;
	rc = d->ns.read_dir(dd, batch_add, b);
	d->ns.close_dir(dd);
	return rc < 0 ? rc : b->failed ? -ENOMEM : 0;
}

static int child(const char *rel, const char *name, char *out)
{
	int n = snprintf(out, DAV_PATH_MAX, "%s%s%s", rel, rel[0] ? "/" : "", name);
	return n >= DAV_PATH_MAX ? -ENAMETOOLONG : 0;
}

int dav_remove_tree(struct af_dav *d, const char *rel)
{
	struct stat st;
	int rc = d->ns.stat(d->ns.ctx, rel, &st);
	if (rc || !S_ISDIR(st.st_mode))
		return rc ? rc : d->ns.remove(d->ns.ctx, rel, 0);
	char *sub = af_alloc(DAV_PATH_MAX);
	if (!sub)
		return -ENOMEM;
	for (;;) {
		struct batch b = {0};
		rc = take_batch(d, rel, &b);
		size_t got = b.n;
		for (size_t i = 0; i < b.n && !rc; i++)
			if (!(rc = child(rel, b.names[i], sub)))
				rc = dav_remove_tree(d, sub);
		batch_free(&b);
		if (rc || got == 0)
			break;
	}
	free(sub);
	return rc ? rc : d->ns.remove(d->ns.ctx, rel, 1);
}

enum MHD_Result dav_delete(struct dav_rq *r)
{
	struct af_dav *d = r->d;
	enum MHD_Result res;
	struct dav_if h;
	struct stat st;
	if (!r->rel[0])
		return dav_reply(r, MHD_HTTP_FORBIDDEN, "the root is not deleted\n");
	if (dav_if_check(r, &h, &res))
		return res;
	int rc = dav_lock_gate(r, &h, r->rel, 1, 1, &res);
	dav_if_free(&h);
	if (rc)
		return res;
	if ((rc = d->ns.stat(d->ns.ctx, r->rel, &st)))
		return dav_reply(r, dav_status(rc), NULL);
	rc = dav_remove_tree(d, r->rel);
	if (rc)
		return dav_reply(r, dav_status(rc), NULL);
	dav_props_drop(&d->props, r->rel);
	dav_locks_drop(&d->locks, r->rel);
	return dav_reply(r, MHD_HTTP_NO_CONTENT, NULL);
}

enum MHD_Result dav_mkcol(struct dav_rq *r)
{
	struct af_dav *d = r->d;
	enum MHD_Result res;
	struct dav_if h;
	struct stat st;
	if (r->body_seen)
		return dav_reply(r, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, "MKCOL takes no body\n");
	if (!r->rel[0] || !d->ns.stat(d->ns.ctx, r->rel, &st))
		return dav_reply(r, MHD_HTTP_METHOD_NOT_ALLOWED, "it exists\n");
	if (dav_if_check(r, &h, &res))
		return res;
	int rc = dav_lock_gate(r, &h, r->rel, 0, 1, &res);
	dav_if_free(&h);
	if (rc || parent_ok(r, r->rel, &res))
		return res;
	rc = d->ns.mkcol(d->ns.ctx, r->rel);
	return dav_reply(r, rc ? dav_status(rc) : MHD_HTTP_CREATED, NULL);
}

static int copy_file(struct af_dav *d, const char *from, const char *to, char *why, size_t n)
{
	struct af_dav_reader *rd;
	struct af_dav_writer *w;
	struct stat st;
	int created, rc = d->ns.open_read(d->ns.ctx, from, &rd, &st);
	if (rc)
		return rc;
	char *buf = af_alloc(COPY_CHUNK);
	rc = buf ? d->ns.open_write(d->ns.ctx, to, &w, &created) : -ENOMEM;
	if (rc)
		goto out;
	uint64_t off = 0;
	for (;;) {
		long got = d->ns.read(rd, buf, COPY_CHUNK, off);
		if (got <= 0) {
			rc = (int)got;
			break;
		}
		if ((rc = d->ns.write(w, buf, (size_t)got, off)))
			break;
		off += (uint64_t)got;
	}
	int crc = d->ns.close_write(w, !rc, why, n);
	if (crc)
		rc = crc;
out:
	free(buf);
	d->ns.close_read(rd);
	return rc;
}

static int copy_tree(struct af_dav *d, const char *from, const char *to, int infinite,
		     char *why, size_t n)
{
	struct stat st;
	int rc = d->ns.stat(d->ns.ctx, from, &st);
	if (rc)
		return rc;
	if (!S_ISDIR(st.st_mode))
		return copy_file(d, from, to, why, n);
	if ((rc = d->ns.mkcol(d->ns.ctx, to)) || !infinite)
		return rc;
	/* the source folder is read once, a batch at a time, while its copy is made */
	struct af_dav_dir *dd = NULL;
	char *a = af_alloc(DAV_PATH_MAX), *b = af_alloc(DAV_PATH_MAX);
	rc = a && b ? d->ns.open_dir(d->ns.ctx, from, &dd) : -ENOMEM;
	for (int more = 1; !rc && more;) {
		struct batch bt = {0};
		rc = d->ns.read_dir(dd, batch_add, &bt);
		more = rc > 0;
		rc = rc < 0 ? rc : bt.failed ? -ENOMEM : 0;
		for (size_t i = 0; i < bt.n && !rc; i++)
			if (!(rc = child(from, bt.names[i], a)) && !(rc = child(to, bt.names[i], b)))
				rc = copy_tree(d, a, b, 1, why, n);
		batch_free(&bt);
	}
	if (dd)
		d->ns.close_dir(dd);
	free(a);
	free(b);
	return rc;
}

enum MHD_Result dav_copymove(struct dav_rq *r, int move)
{
	struct af_dav *d = r->d;
	enum MHD_Result res;
	struct dav_if h;
	struct stat st, dst;
	char to[DAV_PATH_MAX], host[256], why[1024] = "";
	int dir, rc;
	const char *dest = dav_header(r, "Destination"), *ow = dav_header(r, "Overwrite");
	const char *depth = dav_header(r, "Depth");
	if (!dest)
		return dav_reply(r, MHD_HTTP_BAD_REQUEST, "no Destination header\n");
	if ((rc = dav_path_decode(dest, 1, to, &dir)))
		return dav_reply(r, dav_status(rc), "bad Destination\n");
	dav_url_host(dest, host, sizeof host);
	const char *req_host = dav_header(r, MHD_HTTP_HEADER_HOST);
	if (host[0] && req_host && strcasecmp(host, req_host))
		return dav_reply(r, MHD_HTTP_BAD_GATEWAY, "the Destination is on another server\n");
	if (ow && strcmp(ow, "T") && strcmp(ow, "F"))
		return dav_reply(r, MHD_HTTP_BAD_REQUEST, "Overwrite is T or F\n");
	int overwrite = !ow || !strcmp(ow, "T");
	int infinite = !depth || !strcasecmp(depth, "infinity");
	if (depth && !infinite && (move || strcmp(depth, "0")))
		return dav_reply(r, MHD_HTTP_BAD_REQUEST, "Depth is 0 or infinity\n");
	if ((rc = d->ns.stat(d->ns.ctx, r->rel, &st)))
		return dav_reply(r, dav_status(rc), NULL);
	if (!r->rel[0] || !to[0] || !strcmp(r->rel, to) ||
	    (S_ISDIR(st.st_mode) && dav_under(to, r->rel)) || dav_under(r->rel, to))
		return dav_reply(r, MHD_HTTP_FORBIDDEN, "the source and the destination overlap\n");
	if (dav_if_check(r, &h, &res))
		return res;
	rc = (move && dav_lock_gate(r, &h, r->rel, 1, 1, &res)) ||
	     dav_lock_gate(r, &h, to, 1, 1, &res);
	dav_if_free(&h);
	if (rc || parent_ok(r, to, &res))
		return res;
	int existed = !d->ns.stat(d->ns.ctx, to, &dst);
	if (existed && !overwrite)
		return dav_reply(r, MHD_HTTP_PRECONDITION_FAILED, "the destination exists\n");
	if (existed && (rc = dav_remove_tree(d, to)))
		return dav_reply(r, dav_status(rc), NULL);
	if (existed) {
		dav_props_drop(&d->props, to);
		dav_locks_drop(&d->locks, to);
	}
	if (move) {
		rc = d->ns.rename(d->ns.ctx, r->rel, to, 0);
		if (!rc) {
			dav_props_move(&d->props, r->rel, to, 0, 1);
			dav_locks_drop(&d->locks, r->rel);
		}
	} else {
		rc = copy_tree(d, r->rel, to, infinite, why, sizeof why);
		if (!rc)
			dav_props_move(&d->props, r->rel, to, 1, infinite);
	}
	if (rc && why[0])
		return dav_reply(r, MHD_HTTP_UNPROCESSABLE_CONTENT, why);
	if (rc)
		return dav_reply(r, dav_status(rc), NULL);
	return dav_reply(r, existed ? MHD_HTTP_NO_CONTENT : MHD_HTTP_CREATED, NULL);
}
