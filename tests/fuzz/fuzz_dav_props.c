/* The properties of the WebDAV face's request parsing (src/dav: href.c, locks.c's If
 * header, davxml.c), for its libFuzzer target and its unit test: nothing crashes or
 * leaks, and what is accepted is what the face relies on. */
#include <expat.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_dav_props.h"
#include "../../src/dav/davxml.h"
#include "../../src/dav/href.h"
#include "../../src/dav/locks.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

/* A decoded path: relative, no empty, "." or ".." segment, and its href decodes to it. */
static void path_ok(const char *rel)
{
	CHECK(rel[0] != '/');
	CHECK(strlen(rel) < DAV_PATH_MAX);
	for (const char *s = rel; *s;) {
		size_t n = strcspn(s, "/");
		CHECK(n > 0 && n <= DAV_NAME_MAX);
		CHECK(!(n == 1 && s[0] == '.') && !(n == 2 && s[0] == '.' && s[1] == '.'));
		s += n;
		if (*s == '/') {
			s++;
			CHECK(*s);
		}
	}
	struct af_buf b = AF_BUF_INIT;
	dav_href_put(&b, rel, 0);
	af_buf_putc(&b, 0);
	if (!b.failed) {
		char *again = malloc(DAV_PATH_MAX);
		int dir;
		CHECK(again && dav_path_decode((char *)b.data, 0, again, &dir) == 0);
		CHECK(!strcmp(again, rel));
		free(again);
	}
	af_buf_free(&b);
}

/* A stored property value is a well-formed XML fragment. */
static void fragment_ok(const char *v)
{
	XML_Parser p = XML_ParserCreateNS(NULL, '\x01');
	CHECK(p);
	const char *open = "<x>", *close = "</x>";
	int ok = XML_Parse(p, open, 3, XML_FALSE) == XML_STATUS_OK &&
		 XML_Parse(p, v, (int)strlen(v), XML_FALSE) == XML_STATUS_OK &&
		 XML_Parse(p, close, 4, XML_TRUE) == XML_STATUS_OK;
	XML_ParserFree(p);
	CHECK(ok);
}

void dav_fuzz_one(const uint8_t *data, size_t size)
{
	if (size < 1)
		return;
	unsigned what = data[0] % 6;
	char *s = malloc(size);
	if (!s)
		return;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = 0;
	if (what <= 1) {
		char *rel = malloc(DAV_PATH_MAX);
		int dir;
		if (rel && dav_path_decode(s, (int)what, rel, &dir) == 0)
			path_ok(rel);
		free(rel);
	} else if (what == 2) {
		struct dav_if h;
		if (dav_if_parse(s, &h) == 0) {
			for (size_t i = 0; i < h.n; i++) {
				CHECK(h.l[i].n > 0);
				for (size_t j = 0; j < h.l[i].n; j++)
					CHECK(h.l[i].c[j].val);
				if (h.l[i].tag)
					path_ok(h.l[i].tag);
			}
			dav_if_free(&h);
		}
	} else {
		static const enum dav_body kinds[] = {DAV_BODY_PROPFIND, DAV_BODY_PROPPATCH,
						      DAV_BODY_LOCK};
		struct dav_req q;
		char why[200];
		/* the raw bytes, NULs included: a body is not a string */
		if (dav_xml_parse(kinds[what - 3], (const char *)data + 1, size - 1, &q,
				  why, sizeof why) == 0) {
			for (size_t i = 0; i < q.n; i++) {
				CHECK(q.ops[i].n.ns && q.ops[i].n.name && q.ops[i].n.name[0]);
				if (q.ops[i].value)
					fragment_ok(q.ops[i].value);
			}
			if (q.owner)
				fragment_ok(q.owner);
			dav_req_free(&q);
		}
	}
	free(s);
}
