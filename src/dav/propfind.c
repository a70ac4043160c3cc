/* PROPFIND (streamed: a folder's responses are made a few at a time while the client
 * reads, so a listing of any size costs a bounded buffer) and PROPPATCH (dead
 * properties; the live ones are protected). RFC 4918 sections 9.1, 9.2, 15. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dav_int.h"
#include "davxml.h"

#define CHUNK (32u << 10)
#define PER_STEP 32

static const char *const live[] = {"creationdate", "displayname", "getcontentlength",
				   "getcontenttype", "getetag", "getlastmodified",
				   "resourcetype", "lockdiscovery", "supportedlock"};
#define NLIVE (sizeof live / sizeof live[0])

static int is_live(const char *ns, const char *name)
{
	if (strcmp(ns, DAV_NS))
		return -1;
	for (size_t i = 0; i < NLIVE; i++)
		if (!strcmp(live[i], name))
			return (int)i;
	return -1;
}

/* Writes live property i of a resource; 0 when the resource has none such. */
static int put_live(struct af_dav *d, size_t i, const char *rel, const struct stat *st,
		    struct af_buf *b, int name_only)
{
	int dir = S_ISDIR(st->st_mode);
	if (dir && (i == 2 || i == 3 || i == 4))
		return 0;
	if (name_only) {
		af_buf_printf(b, "<D:%s/>", live[i]);
		return 1;
	}
	char v[128];
	struct tm tm;
	switch (i) {
	case 0:
		gmtime_r(&st->st_ctim.tv_sec, &tm);
		strftime(v, sizeof v, "%Y-%m-%dT%H:%M:%SZ", &tm);
		af_buf_printf(b, "<D:creationdate>%s</D:creationdate>", v);
		break;
	case 1:
		af_buf_puts(b, "<D:displayname>");
		dav_xml_escape(b, dav_base(rel));
		af_buf_puts(b, "</D:displayname>");
		break;
	case 2:
		af_buf_printf(b, "<D:getcontentlength>%lld</D:getcontentlength>",
			      (long long)st->st_size);
		break;
	case 3:
		af_buf_puts(b, "<D:getcontenttype>application/octet-stream</D:getcontenttype>");
		break;
	case 4:
		dav_etag(st, v, sizeof v);
		af_buf_puts(b, "<D:getetag>");
		dav_xml_escape(b, v);
		af_buf_puts(b, "</D:getetag>");
		break;
	case 5:
		gmtime_r(&st->st_mtim.tv_sec, &tm);
		strftime(v, sizeof v, "%a, %d %b %Y %H:%M:%S GMT", &tm);
		af_buf_printf(b, "<D:getlastmodified>%s</D:getlastmodified>", v);
		break;
	case 6:
		af_buf_puts(b, dir ? "<D:resourcetype><D:collection/></D:resourcetype>"
				   : "<D:resourcetype/>");
		break;
	case 7:
		af_buf_puts(b, "<D:lockdiscovery>");
		dav_lock_discovery(&d->locks, rel, b);
		af_buf_puts(b, "</D:lockdiscovery>");
		break;
	default:
		af_buf_puts(b, "<D:supportedlock>"
			       "<D:lockentry><D:lockscope><D:exclusive/></D:lockscope>"
			       "<D:locktype><D:write/></D:locktype></D:lockentry>"
			       "<D:lockentry><D:lockscope><D:shared/></D:lockscope>"
			       "<D:locktype><D:write/></D:locktype></D:lockentry></D:supportedlock>");
	}
	return 1;
}

static void open_el(struct af_buf *b, const char *ns, const char *name, int empty)
{
	af_buf_printf(b, "<%s xmlns=\"", name);
	dav_xml_escape(b, ns);
	af_buf_puts(b, empty ? "\"/>" : "\">");
}

struct dead_ctx {
	struct af_buf *b;
	int name_only;
};

static void put_dead(void *arg, const char *ns, const char *name, const char *value)
{
	struct dead_ctx *x = arg;
	open_el(x->b, ns, name, x->name_only);
	if (!x->name_only)
		af_buf_printf(x->b, "%s</%s>", value, name);
}

static void nothing(void *arg, const char *ns, const char *name, const char *value)
{
	(void)arg, (void)ns, (void)name, (void)value;
}

static void status_line(struct af_buf *b, unsigned code, const char *text)
{
	af_buf_printf(b, "<D:status>HTTP/1.1 %u %s</D:status></D:propstat>", code, text);
}

/* One <D:response> of rel. */
static void response(struct af_dav *d, const struct dav_req *q, const char *rel,
		     const struct stat *st, struct af_buf *b)
{
	af_buf_puts(b, "<D:response><D:href>");
	struct af_buf h = AF_BUF_INIT;
	dav_href_put(&h, rel, S_ISDIR(st->st_mode));
	af_buf_putc(&h, 0);
	if (!h.failed)
		dav_xml_escape(b, (char *)h.data);
	af_buf_free(&h);
	af_buf_puts(b, "</D:href><D:propstat><D:prop>");
	if (q->kind != DAV_PF_PROP) {
		int names = q->kind == DAV_PF_PROPNAME;
		for (size_t i = 0; i < NLIVE; i++)
			put_live(d, i, rel, st, b, names);
		struct dead_ctx x = {b, names};
		dav_props_each(&d->props, rel, put_dead, &x);
		af_buf_puts(b, "</D:prop>");
		status_line(b, 200, "OK");
		af_buf_puts(b, "</D:response>");
		return;
	}
	size_t missing = 0;
	struct dead_ctx x = {b, 0};
	for (size_t i = 0; i < q->n; i++) {
		const struct dav_pname *n = &q->ops[i].n;
		int l = is_live(n->ns, n->name);
		int found = l >= 0 ? put_live(d, (size_t)l, rel, st, b, 0)
				   : dav_props_get(&d->props, rel, n->ns, n->name, put_dead, &x);
		missing += !found;
	}
	af_buf_puts(b, "</D:prop>");
	status_line(b, 200, "OK");
	if (missing) {
		af_buf_puts(b, "<D:propstat><D:prop>");
		for (size_t i = 0; i < q->n; i++) {
			const struct dav_pname *n = &q->ops[i].n;
			int l = is_live(n->ns, n->name);
			int dir = S_ISDIR(st->st_mode);
			int found = l >= 0 ? !(dir && (l == 2 || l == 3 || l == 4))
					   : dav_props_get(&d->props, rel, n->ns, n->name, nothing, NULL);
			if (!found)
				open_el(b, n->ns, n->name, 1);
		}
		af_buf_puts(b, "</D:prop>");
		status_line(b, 404, "Not Found");
	}
	af_buf_puts(b, "</D:response>");
}

struct pf {
	struct af_dav *d;
	struct dav_req q;
	char rel[DAV_PATH_MAX];
	char sub[DAV_PATH_MAX];
	struct stat st;
	struct af_dav_dir *dd; /* depth 1 of a folder: its names still to come */
	struct af_buf out;
	size_t sent;           /* bytes of out given to MHD */
	int phase;             /* 0 the head and rel's own response, 1 the children, 2 done */
	int err;
};

static int pf_child(void *arg, const char *name)
{
	struct pf *p = arg;
	struct stat st;
	if (p->out.len - p->sent > CHUNK)
		return 1;
	if (snprintf(p->sub, sizeof p->sub, "%s%s%s", p->rel, p->rel[0] ? "/" : "", name) >=
	    (int)sizeof p->sub)
		return 0;
	if (p->d->ns.stat(p->d->ns.ctx, p->sub, &st))
		return 0; /* gone meanwhile, or not to be seen */
	response(p->d, &p->q, p->sub, &st, &p->out);
	return 0;
}

static ssize_t pf_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct pf *p = cls;
	(void)pos;
	if (p->sent == p->out.len) {
		af_buf_reset(&p->out);
		p->sent = 0;
	}
	while (p->phase < 2 && p->out.len - p->sent < max && !p->out.failed) {
		if (p->phase == 0) {
			af_buf_puts(&p->out, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
					     "<D:multistatus xmlns:D=\"DAV:\">");
			response(p->d, &p->q, p->rel, &p->st, &p->out);
			p->phase = 1;
		} else if (p->dd) {
			int rc = p->d->ns.read_dir(p->dd, pf_child, p);
			if (rc <= 0) {
				p->d->ns.close_dir(p->dd);
				p->dd = NULL;
				if (rc < 0)
					return MHD_CONTENT_READER_END_WITH_ERROR;
			}
		} else {
			af_buf_puts(&p->out, "</D:multistatus>\n");
			p->phase = 2;
		}
	}
	if (p->out.failed)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	size_t n = p->out.len - p->sent;
	if (n == 0)
		return MHD_CONTENT_READER_END_OF_STREAM;
	if (n > max)
		n = max;
	memcpy(buf, p->out.data + p->sent, n);
	p->sent += n;
	return (ssize_t)n;
}

static void pf_free(void *cls)
{
	struct pf *p = cls;
	if (p->dd)
		p->d->ns.close_dir(p->dd);
	dav_req_free(&p->q);
	af_buf_free(&p->out);
	free(p);
}

enum MHD_Result dav_propfind(struct dav_rq *r)
{
	struct af_dav *d = r->d;
	const char *depth = dav_header(r, "Depth");
	char why[200];
	int rc;
	if (!depth || !strcasecmp(depth, "infinity"))
		return dav_reply_cond(r, MHD_HTTP_FORBIDDEN, "propfind-finite-depth", NULL);
	if (strcmp(depth, "0") && strcmp(depth, "1"))
		return dav_reply(r, MHD_HTTP_BAD_REQUEST, "Depth is 0, 1 or infinity\n");
	struct pf *p = af_alloc_zeroed(1, sizeof *p);
	if (!p)
		return dav_reply(r, MHD_HTTP_SERVICE_UNAVAILABLE, NULL);
	p->d = d;
	af_buf_init(&p->out);
	snprintf(p->rel, sizeof p->rel, "%s", r->rel);
	if ((rc = dav_xml_parse(DAV_BODY_PROPFIND, (char *)r->body.data, r->body.len, &p->q, why,
				sizeof why))) {
		pf_free(p);
		return dav_reply(r, MHD_HTTP_BAD_REQUEST, why);
	}
	if ((rc = d->ns.stat(d->ns.ctx, r->rel, &p->st)) ||
	    (depth[0] == '1' && S_ISDIR(p->st.st_mode) &&
	     (rc = d->ns.open_dir(d->ns.ctx, r->rel, &p->dd)))) {
		p->dd = NULL;
		pf_free(p);
		return dav_reply(r, dav_status(rc), NULL);
	}
	struct MHD_Response *resp =
		MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, CHUNK, pf_read, p, pf_free);
	if (!resp) {
		pf_free(p);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/xml; charset=utf-8");
	return dav_queue(r, MHD_HTTP_MULTI_STATUS, resp);
}

enum MHD_Result dav_proppatch(struct dav_rq *r)
{
	struct af_dav *d = r->d;
	enum MHD_Result res;
	struct dav_if h;
	struct dav_req q;
	struct stat st;
	char why[200];
	int rc;
	if ((rc = d->ns.stat(d->ns.ctx, r->rel, &st)))
		return dav_reply(r, dav_status(rc), NULL);
	if (dav_if_check(r, &h, &res))
		return res;
	rc = dav_lock_gate(r, &h, r->rel, 0, 0, &res);
	dav_if_free(&h);
	if (rc)
		return res;
	if (dav_xml_parse(DAV_BODY_PROPPATCH, (char *)r->body.data, r->body.len, &q, why, sizeof why))
		return dav_reply(r, MHD_HTTP_BAD_REQUEST, why);
	if (q.n == 0) {
		dav_req_free(&q);
		return dav_reply(r, MHD_HTTP_BAD_REQUEST, "a propertyupdate sets or removes something\n");
	}
	/* all or nothing: a protected (DAV:) property fails the whole request */
	int protected = 0;
	for (size_t i = 0; i < q.n; i++)
		protected |= !strcmp(q.ops[i].n.ns, DAV_NS);
	unsigned code = protected ? 424 : 200;
	for (size_t i = 0; i < q.n && !protected; i++) {
		const struct dav_propop *op = &q.ops[i];
		if (op->remove)
			dav_props_remove(&d->props, r->rel, op->n.ns, op->n.name);
		else if (dav_props_set(&d->props, r->rel, op->n.ns, op->n.name,
				       op->value ? op->value : ""))
			code = 507;
	}
	struct af_buf b = AF_BUF_INIT;
	af_buf_puts(&b, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
			"<D:multistatus xmlns:D=\"DAV:\"><D:response><D:href>");
	struct af_buf hr = AF_BUF_INIT;
	dav_href_put(&hr, r->rel, S_ISDIR(st.st_mode));
	af_buf_putc(&hr, 0);
	if (!hr.failed)
		dav_xml_escape(&b, (char *)hr.data);
	af_buf_free(&hr);
	af_buf_puts(&b, "</D:href>");
	for (size_t i = 0; i < q.n; i++) {
		const struct dav_pname *n = &q.ops[i].n;
		unsigned c = protected && !strcmp(n->ns, DAV_NS) ? 403 : code;
		af_buf_puts(&b, "<D:propstat><D:prop>");
		open_el(&b, n->ns, n->name, 1);
		af_buf_puts(&b, "</D:prop>");
		status_line(&b, c, c == 200 ? "OK" : c == 403 ? "Forbidden" : c == 424 ? "Failed Dependency"
											 : "Insufficient Storage");
	}
	af_buf_puts(&b, "</D:response></D:multistatus>\n");
	dav_req_free(&q);
	return dav_reply_xml(r, MHD_HTTP_MULTI_STATUS, &b);
}
