/* LOCK and UNLOCK (RFC 4918 sections 9.10, 9.11): a new lock (an unmapped URL becomes
 * an empty file), a refresh (no body, the token in If), a release by Lock-Token. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dav_int.h"
#include "davxml.h"

#define TIMEOUT_DEFAULT 600u
#define TIMEOUT_MAX 3600u

/* The Timeout header: the first of its values we can grant ("Infinite" or
 * "Second-N"), at most TIMEOUT_MAX. */
static unsigned timeout_of(const char *h)
{
	if (!h)
		return TIMEOUT_DEFAULT;
	for (const char *s = h; *s;) {
		while (*s == ' ' || *s == ',')
			s++;
		if (!strncasecmp(s, "Infinite", 8))
			return TIMEOUT_MAX;
		if (!strncasecmp(s, "Second-", 7)) {
			unsigned long long v = strtoull(s + 7, NULL, 10);
			return v == 0 ? 1 : v > TIMEOUT_MAX ? TIMEOUT_MAX : (unsigned)v;
		}
		s += strcspn(s, ",");
	}
	return TIMEOUT_DEFAULT;
}

static enum MHD_Result lock_reply(struct dav_rq *r, unsigned status, const char *token,
				  int with_header)
{
	struct af_buf b = AF_BUF_INIT;
	af_buf_puts(&b, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
			"<D:prop xmlns:D=\"DAV:\"><D:lockdiscovery>");
	dav_lock_active(&r->d->locks, token, &b);
	af_buf_puts(&b, "</D:lockdiscovery></D:prop>\n");
	if (b.failed) {
		af_buf_free(&b);
		return dav_reply(r, MHD_HTTP_SERVICE_UNAVAILABLE, NULL);
	}
	struct MHD_Response *resp =
		MHD_create_response_from_buffer_with_free_callback(b.len, b.data, free);
	if (!resp) {
		af_buf_free(&b);
		return MHD_NO;
	}
	char hv[DAV_TOKEN_MAX + 4];
	snprintf(hv, sizeof hv, "<%s>", token);
	if (with_header)
		MHD_add_response_header(resp, "Lock-Token", hv);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/xml; charset=utf-8");
	return dav_queue(r, status, resp);
}

/* A refresh: the lock whose token the If header names, on this resource. */
static enum MHD_Result refresh(struct dav_rq *r, const struct dav_if *h, unsigned timeout)
{
	for (size_t i = 0; i < h->n; i++)
		for (size_t j = 0; j < h->l[i].n; j++) {
			const struct dav_cond *c = &h->l[i].c[j];
			if (c->etag || c->not || strlen(c->val) >= DAV_TOKEN_MAX)
				continue;
			if (!dav_lock_refresh(&r->d->locks, c->val, r->rel, timeout))
				return lock_reply(r, MHD_HTTP_OK, c->val, 0);
		}
	return dav_reply_cond(r, MHD_HTTP_PRECONDITION_FAILED, "lock-token-matches-request-uri", NULL);
}

enum MHD_Result dav_lock(struct dav_rq *r)
{
	struct af_dav *d = r->d;
	enum MHD_Result res;
	struct dav_if h;
	struct dav_req q;
	struct stat st;
	char why[200], token[DAV_TOKEN_MAX], conflict[DAV_PATH_MAX];
	const char *depth = dav_header(r, "Depth");
	unsigned timeout = timeout_of(dav_header(r, "Timeout"));
	int rc, created = 0;
	if (dav_if_check(r, &h, &res))
		return res;
	if (r->body.len == 0) {
		res = refresh(r, &h, timeout);
		dav_if_free(&h);
		return res;
	}
	if (dav_xml_parse(DAV_BODY_LOCK, (char *)r->body.data, r->body.len, &q, why, sizeof why)) {
		dav_if_free(&h);
		return dav_reply(r, MHD_HTTP_BAD_REQUEST, why);
	}
	int infinite = !depth || !strcasecmp(depth, "infinity");
	if (depth && !infinite && strcmp(depth, "0")) {
		res = dav_reply(r, MHD_HTTP_BAD_REQUEST, "a lock's Depth is 0 or infinity\n");
		goto out;
	}
	if (d->ns.stat(d->ns.ctx, r->rel, &st)) {
		/* an unmapped URL: locked as an empty file (section 7.3) */
		char up[DAV_PATH_MAX];
		struct stat pst;
		struct af_dav_writer *w;
		dav_parent(r->rel, up);
		if (!r->rel[0] || d->ns.stat(d->ns.ctx, up, &pst) || !S_ISDIR(pst.st_mode)) {
			res = dav_reply(r, MHD_HTTP_CONFLICT, "the parent folder does not exist\n");
			goto out;
		}
		if (dav_lock_gate(r, &h, r->rel, 0, 1, &res))
			goto out;
		if ((rc = d->ns.open_write(d->ns.ctx, r->rel, &w, &created)) ||
		    (rc = d->ns.close_write(w, 1, why, sizeof why))) {
			res = dav_reply(r, dav_status(rc), NULL);
			goto out;
		}
		created = 1;
	}
	rc = dav_lock_add(&d->locks, r->rel, infinite, q.lock_exclusive, q.owner, timeout, token,
			  conflict);
	if (rc == -EBUSY)
		res = dav_reply_cond(r, MHD_HTTP_LOCKED, "no-conflicting-lock", conflict);
	else if (rc)
		res = dav_reply(r, MHD_HTTP_SERVICE_UNAVAILABLE, "too many locks held\n");
	else
		res = lock_reply(r, created ? MHD_HTTP_CREATED : MHD_HTTP_OK, token, 1);
out:
	dav_req_free(&q);
	dav_if_free(&h);
	return res;
}

enum MHD_Result dav_unlock(struct dav_rq *r)
{
	const char *t = dav_header(r, "Lock-Token");
	char token[DAV_TOKEN_MAX];
	size_t n = t ? strlen(t) : 0;
	if (n < 3 || t[0] != '<' || t[n - 1] != '>' || n - 2 >= sizeof token)
		return dav_reply(r, MHD_HTTP_BAD_REQUEST, "no Lock-Token header\n");
	memcpy(token, t + 1, n - 2);
	token[n - 2] = 0;
	if (dav_lock_remove(&r->d->locks, token, r->rel))
		return dav_reply_cond(r, MHD_HTTP_CONFLICT, "lock-token-matches-request-uri", NULL);
	return dav_reply(r, MHD_HTTP_NO_CONTENT, NULL);
}
