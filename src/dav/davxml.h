/* The XML bodies of PROPFIND, PROPPATCH and LOCK requests (expat), bounded: depth,
 * names and bytes; no DOCTYPE (so no entities at all). */
#ifndef ANIMFS_DAV_XML_H
#define ANIMFS_DAV_XML_H

#include <stddef.h>

#include "animfs/buf.h"

#define DAV_NS "DAV:"

struct dav_pname {
	char *ns;   /* "" for no namespace */
	char *name;
};

struct dav_propop {
	struct dav_pname n;
	char *value;  /* the property's content as XML (set), NULL (remove) */
	int remove;
};

enum dav_pf_kind { DAV_PF_ALLPROP, DAV_PF_PROPNAME, DAV_PF_PROP };

struct dav_req {
	enum dav_pf_kind kind;       /* PROPFIND */
	struct dav_propop *ops;      /* PROPFIND: the names asked; PROPPATCH: in order */
	size_t n;
	int lock_exclusive;          /* LOCK: scope */
	int lock_scope_seen, lock_type_seen;
	char *owner;                 /* LOCK: the owner element's content as XML, or NULL */
};

enum dav_body { DAV_BODY_PROPFIND, DAV_BODY_PROPPATCH, DAV_BODY_LOCK };

/* Parses body (len bytes; len 0 is a PROPFIND of allprop, a LOCK refresh). 0, or -EINVAL
 * with why (for the 400's body) when it is no well-formed body of that kind. */
int dav_xml_parse(enum dav_body kind, const char *body, size_t len, struct dav_req *out,
		  char *why, size_t whylen);
void dav_req_free(struct dav_req *r);

/* Writes s escaped for XML text or attribute values. */
void dav_xml_escape(struct af_buf *b, const char *s);

#endif
