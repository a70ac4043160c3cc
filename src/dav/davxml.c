/* Request bodies (davxml.h) through expat, namespace-aware: an element's name comes as
 * "URI\x01local" (or "local" in no namespace). */
#include <errno.h>
#include <expat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "davxml.h"

#define SEP '\x01'
#define MAX_DEPTH 64
#define MAX_NAMES 1024

struct st {
	XML_Parser p;
	enum dav_body kind;
	struct dav_req *r;
	int depth;
	/* what the element at each depth is: see the on_start cases */
	int role[MAX_DEPTH + 1];
	int capture_depth;       /* >0: serialising everything below this depth */
	struct af_buf cap;
	size_t cap_max;
	int cap_for_owner;
	size_t cap_cap;          /* ops[] capacity */
	char why[160];
	int failed;
};

enum { R_NONE, R_ROOT, R_PROP, R_SET, R_REMOVE, R_SETPROP, R_REMOVEPROP, R_ONEPROP,
       R_SCOPE, R_TYPE, R_OWNER, R_OTHER };

static void fail(struct st *s, const char *why)
{
	if (!s->failed) {
		snprintf(s->why, sizeof s->why, "%s (line %lu)", why,
			 (unsigned long)XML_GetCurrentLineNumber(s->p));
		s->failed = 1;
	}
	XML_StopParser(s->p, XML_FALSE);
}

/* Splits an expat name into namespace and local part (copies). */
static int split_name(const char *n, struct dav_pname *out)
{
	const char *sep = strchr(n, SEP);
	size_t nl = sep ? (size_t)(sep - n) : 0;
	out->ns = af_alloc(nl + 1);
	out->name = af_strcopy(sep ? sep + 1 : n);
	if (!out->ns || !out->name) {
		free(out->ns);
		free(out->name);
		out->ns = out->name = NULL;
		return -ENOMEM;
	}
	memcpy(out->ns, n, nl);
	out->ns[nl] = 0;
	return 0;
}

static int is_dav(const char *n, const char *local)
{
	return !strncmp(n, DAV_NS, 4) && n[4] == SEP && !strcmp(n + 5, local);
}

void dav_xml_escape(struct af_buf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': af_buf_puts(b, "&lt;"); break;
		case '>': af_buf_puts(b, "&gt;"); break;
		case '&': af_buf_puts(b, "&amp;"); break;
		case '"': af_buf_puts(b, "&quot;"); break;
		case '\r': af_buf_puts(b, "&#13;"); break;
		default: af_buf_putc(b, *s);
		}
	}
}

/* <local xmlns="ns" a="v" xmlns:n1="..." n1:b="v"> of a captured element */
static void cap_start(struct st *s, const char *name, const char **atts)
{
	struct af_buf *b = &s->cap;
	const char *sep = strchr(name, SEP);
	af_buf_putc(b, '<');
	af_buf_puts(b, sep ? sep + 1 : name);
	af_buf_puts(b, " xmlns=\"");
	if (sep) {
		struct af_buf u = AF_BUF_INIT;
		af_buf_append(&u, name, (size_t)(sep - name));
		af_buf_putc(&u, 0);
		if (!u.failed)
			dav_xml_escape(b, (char *)u.data);
		af_buf_free(&u);
	}
	af_buf_putc(b, '"');
	for (int i = 0; atts[i]; i += 2) {
		const char *asep = strchr(atts[i], SEP);
		if (asep) {
			af_buf_printf(b, " xmlns:a%d=\"", i / 2);
			struct af_buf u = AF_BUF_INIT;
			af_buf_append(&u, atts[i], (size_t)(asep - atts[i]));
			af_buf_putc(&u, 0);
			if (!u.failed)
				dav_xml_escape(b, (char *)u.data);
			af_buf_free(&u);
			af_buf_printf(b, "\" a%d:%s=\"", i / 2, asep + 1);
		} else {
			af_buf_printf(b, " %s=\"", atts[i]);
		}
		dav_xml_escape(b, atts[i + 1]);
		af_buf_putc(b, '"');
	}
	af_buf_putc(b, '>');
}

static void cap_end(struct st *s, const char *name)
{
	const char *sep = strchr(name, SEP);
	af_buf_puts(&s->cap, "</");
	af_buf_puts(&s->cap, sep ? sep + 1 : name);
	af_buf_putc(&s->cap, '>');
}

static struct dav_propop *new_op(struct st *s, const char *name, int remove)
{
	struct dav_req *r = s->r;
	if (r->n >= MAX_NAMES) {
		fail(s, "too many properties in one request");
		return NULL;
	}
	struct dav_propop *ops = af_grow(r->ops, &s->cap_cap, r->n, sizeof *ops, 8);
	if (!ops) {
		fail(s, "out of memory");
		return NULL;
	}
	r->ops = ops;
	struct dav_propop *op = &ops[r->n];
	memset(op, 0, sizeof *op);
	if (split_name(name, &op->n)) {
		fail(s, "out of memory");
		return NULL;
	}
	op->remove = remove;
	r->n++;
	return op;
}

static int root_role(struct st *s, const char *name)
{
	static const char *roots[] = {"propfind", "propertyupdate", "lockinfo"};
	if (!is_dav(name, roots[s->kind])) {
		char w[96];
		snprintf(w, sizeof w, "the body is no DAV:%s", roots[s->kind]);
		fail(s, w);
		return R_NONE;
	}
	return R_ROOT;
}

/* The role of an element below one of role `parent`. */
static int child_role(struct st *s, int parent, const char *name)
{
	struct dav_req *r = s->r;
	switch (parent) {
	case R_ROOT:
		if (s->kind == DAV_BODY_PROPFIND) {
			if (is_dav(name, "allprop"))
				r->kind = DAV_PF_ALLPROP;
			else if (is_dav(name, "propname"))
				r->kind = DAV_PF_PROPNAME;
			else if (is_dav(name, "prop")) {
				r->kind = DAV_PF_PROP;
				return R_PROP;
			}
			return R_OTHER;
		}
		if (s->kind == DAV_BODY_PROPPATCH) {
			if (is_dav(name, "set"))
				return R_SET;
			if (is_dav(name, "remove"))
				return R_REMOVE;
			return R_OTHER;
		}
		if (is_dav(name, "lockscope")) {
			r->lock_scope_seen = 1;
			return R_SCOPE;
		}
		if (is_dav(name, "locktype"))
			return R_TYPE;
		if (is_dav(name, "owner"))
			return R_OWNER;
		return R_OTHER;
	case R_PROP:
		return new_op(s, name, 0) ? R_ONEPROP : R_NONE;
	case R_SET:
		return is_dav(name, "prop") ? R_SETPROP : R_OTHER;
	case R_REMOVE:
		return is_dav(name, "prop") ? R_REMOVEPROP : R_OTHER;
	case R_SETPROP:
	case R_REMOVEPROP:
		return new_op(s, name, parent == R_REMOVEPROP) ? R_ONEPROP : R_NONE;
	case R_SCOPE:
		if (is_dav(name, "exclusive"))
			r->lock_exclusive = 1;
		else if (!is_dav(name, "shared"))
			fail(s, "a lock scope is exclusive or shared");
		return R_OTHER;
	case R_TYPE:
		if (is_dav(name, "write"))
			r->lock_type_seen = 1;
		else
			fail(s, "the only lock type is write");
		return R_OTHER;
	default:
		return R_OTHER;
	}
}

static void XMLCALL on_start(void *ud, const char *name, const char **atts)
{
	struct st *s = ud;
	if (++s->depth > MAX_DEPTH) {
		fail(s, "elements nested too deep");
		return;
	}
	if (s->capture_depth) {
		cap_start(s, name, atts);
		s->role[s->depth] = R_OTHER;
		return;
	}
	int role = s->depth == 1 ? root_role(s, name) : child_role(s, s->role[s->depth - 1], name);
	s->role[s->depth] = role;
	int parent = s->depth > 1 ? s->role[s->depth - 1] : R_NONE;
	if ((role == R_ONEPROP && parent == R_SETPROP) || role == R_OWNER) {
		s->capture_depth = s->depth;
		s->cap_for_owner = role == R_OWNER;
		af_buf_reset(&s->cap);
	}
}

static void XMLCALL on_end(void *ud, const char *name)
{
	struct st *s = ud;
	if (s->capture_depth && s->depth > s->capture_depth)
		cap_end(s, name);
	else if (s->capture_depth == s->depth) {
		s->capture_depth = 0;
		af_buf_putc(&s->cap, 0);
		char *v = s->cap.failed ? NULL : af_strcopy((char *)s->cap.data);
		if (!v) {
			fail(s, "out of memory");
		} else if (s->cap_for_owner) {
			free(s->r->owner);
			s->r->owner = v;
		} else {
			s->r->ops[s->r->n - 1].value = v;
		}
	}
	if (s->cap.len > s->cap_max)
		fail(s, "a property value too large");
	s->depth--;
}

static void XMLCALL on_text(void *ud, const char *t, int len)
{
	struct st *s = ud;
	if (!s->capture_depth)
		return;
	struct af_buf tmp = AF_BUF_INIT;
	af_buf_append(&tmp, t, (size_t)len);
	af_buf_putc(&tmp, 0);
	if (!tmp.failed)
		dav_xml_escape(&s->cap, (char *)tmp.data);
	af_buf_free(&tmp);
}

static void XMLCALL on_doctype(void *ud, const char *n, const char *sys, const char *pub, int sub)
{
	(void)n, (void)sys, (void)pub, (void)sub;
	fail(ud, "a DOCTYPE is not accepted");
}

void dav_req_free(struct dav_req *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->ops[i].n.ns);
		free(r->ops[i].n.name);
		free(r->ops[i].value);
	}
	free(r->ops);
	free(r->owner);
	memset(r, 0, sizeof *r);
}

int dav_xml_parse(enum dav_body kind, const char *body, size_t len, struct dav_req *out,
		  char *why, size_t whylen)
{
	struct st s;
	int rc = 0;
	memset(&s, 0, sizeof s);
	memset(out, 0, sizeof *out);
	out->kind = DAV_PF_ALLPROP;
	if (len == 0)
		return 0;
	s.kind = kind;
	s.r = out;
	s.cap_max = len + 64;
	af_buf_init(&s.cap);
	s.p = XML_ParserCreateNS(NULL, SEP);
	if (!s.p) {
		rc = -ENOMEM;
		goto out;
	}
	XML_SetUserData(s.p, &s);
	XML_SetElementHandler(s.p, on_start, on_end);
	XML_SetCharacterDataHandler(s.p, on_text);
	XML_SetStartDoctypeDeclHandler(s.p, on_doctype);
	if (len > (size_t)0x7fffffff) {
		fail(&s, "body too large");
	} else if (XML_Parse(s.p, body, (int)len, XML_TRUE) != XML_STATUS_OK && !s.failed) {
		snprintf(s.why, sizeof s.why, "malformed XML: %s (line %lu)",
			 XML_ErrorString(XML_GetErrorCode(s.p)),
			 (unsigned long)XML_GetCurrentLineNumber(s.p));
		s.failed = 1;
	}
	if (!s.failed && kind == DAV_BODY_LOCK && (!out->lock_scope_seen || !out->lock_type_seen))
		fail(&s, "a lockinfo needs a lockscope and a locktype");
	if (s.failed) {
		snprintf(why, whylen, "%s", s.why);
		rc = -EINVAL;
	}
out:
	if (s.p)
		XML_ParserFree(s.p);
	af_buf_free(&s.cap);
	if (rc)
		dav_req_free(out);
	return rc;
}
