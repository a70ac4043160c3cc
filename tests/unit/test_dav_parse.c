/* The WebDAV face's request parsing (src/dav: href.c, locks.c, davxml.c): the cases a
 * client sends and the ones an attacker does, and every stored fuzz seed through the
 * fuzz properties (tests/fuzz/fuzz_dav_props.c). */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/dav/davxml.h"
#include "../../src/dav/href.h"
#include "../../src/dav/locks.h"
#include "../fuzz/fuzz_dav_props.h"

static int decode(const char *raw, int abs, char *out)
{
	int dir;
	return dav_path_decode(raw, abs, out, &dir);
}

static void test_paths(void **state)
{
	(void)state;
	char out[DAV_PATH_MAX];
	assert_int_equal(decode("/", 0, out), 0);
	assert_string_equal(out, "");
	assert_int_equal(decode("/a/b%20c.yaml", 0, out), 0);
	assert_string_equal(out, "a/b c.yaml");
	assert_int_equal(decode("//a///b/", 0, out), 0);
	assert_string_equal(out, "a/b");
	assert_int_equal(decode("/a?x=1", 0, out), 0);
	assert_string_equal(out, "a");
	assert_int_equal(decode("http://host:8080/a%C3%A9", 1, out), 0);
	assert_string_equal(out, "a\xc3\xa9");
	/* out of GAME or unclear: refused */
	const char *bad[] = {"/..", "/a/../b", "/%2e%2e/x", "/%2E%2e", "/.", "/a/./b", "/a%2fb",
			     "/a%2Fb", "/a%00b", "/a%", "/a%4", "/a%zz", "a", "", "/a#frag",
			     "/a\x01", "http://h/../x"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_not_equal(decode(bad[i], 1, out), 0);
	char longname[400];
	memset(longname, 'a', sizeof longname);
	longname[0] = '/';
	longname[sizeof longname - 1] = 0;
	assert_int_equal(decode(longname, 0, out), -ENAMETOOLONG);
	char host[64];
	dav_url_host("http://user@127.0.0.1:8080/a", host, sizeof host);
	assert_string_equal(host, "127.0.0.1:8080");
	struct af_buf b = AF_BUF_INIT;
	dav_href_put(&b, "a b/c#d%e", 0);
	af_buf_putc(&b, 0);
	assert_string_equal((char *)b.data, "/a%20b/c%23d%25e");
	af_buf_free(&b);
}

static void test_if_header(void **state)
{
	(void)state;
	struct dav_if h;
	assert_int_equal(dav_if_parse("(<opaquelocktoken:a> [\"e\"]) (Not <DAV:no-lock>)", &h), 0);
	assert_int_equal(h.n, 2);
	assert_int_equal(h.l[0].n, 2);
	assert_true(h.l[0].c[1].etag);
	assert_true(h.l[1].c[0].not);
	dav_if_free(&h);
	assert_int_equal(dav_if_parse("<http://h/a%20b> (<t:1>)", &h), 0);
	assert_string_equal(h.l[0].tag, "a b");
	dav_if_free(&h);
	const char *bad[] = {"(", "()", "(<a>", "<x> (<a>", "junk", "(Not)", "([e)"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(dav_if_parse(bad[i], &h), -EINVAL);
}

static void test_locks(void **state)
{
	(void)state;
	struct dav_locks L;
	char t1[DAV_TOKEN_MAX], t2[DAV_TOKEN_MAX], root[DAV_PATH_MAX];
	assert_int_equal(dav_locks_init(&L, 2), 0);
	assert_int_equal(dav_lock_add(&L, "a", 1, 1, NULL, 60, t1, root), 0);
	assert_int_equal(dav_lock_add(&L, "a/b", 0, 0, NULL, 60, t2, root), -EBUSY);
	assert_string_equal(root, "a");
	assert_int_equal(dav_lock_add(&L, "c", 0, 0, NULL, 60, t2, root), 0);
	assert_int_equal(dav_lock_add(&L, "d", 0, 0, NULL, 60, t2, root), -ENOSPC);
	assert_true(dav_lock_covers(&L, t1, "a/x/y"));
	struct dav_if h;
	char hv[200];
	snprintf(hv, sizeof hv, "(<%s>)", t1);
	assert_int_equal(dav_if_parse(hv, &h), 0);
	assert_int_equal(dav_locks_check(&L, "a/x", 0, &h, root), 0);
	assert_int_equal(dav_locks_check(&L, "a/x", 0, NULL, root), -EBUSY);
	assert_int_equal(dav_locks_check(&L, "", 1, &h, root), -EBUSY); /* c's is not given */
	dav_if_free(&h);
	assert_int_equal(dav_lock_remove(&L, t1, "a/q"), 0);
	assert_int_equal(dav_lock_remove(&L, t1, "a"), -ENOENT);
	dav_locks_free(&L);
}

static void test_xml(void **state)
{
	(void)state;
	struct dav_req q;
	char why[200];
	const char *pp = "<D:propertyupdate xmlns:D=\"DAV:\"><D:set><D:prop><x xmlns=\"u:\">a&lt;<y/></x>"
			 "</D:prop></D:set></D:propertyupdate>";
	assert_int_equal(dav_xml_parse(DAV_BODY_PROPPATCH, pp, strlen(pp), &q, why, sizeof why), 0);
	assert_int_equal(q.n, 1);
	assert_string_equal(q.ops[0].n.ns, "u:");
	assert_string_equal(q.ops[0].value, "a&lt;<y xmlns=\"u:\"></y>");
	dav_req_free(&q);
	const char *doctype = "<!DOCTYPE x [<!ENTITY a \"b\">]><D:propfind xmlns:D=\"DAV:\"/>";
	assert_int_equal(dav_xml_parse(DAV_BODY_PROPFIND, doctype, strlen(doctype), &q, why, sizeof why),
			 -EINVAL);
	assert_non_null(strstr(why, "DOCTYPE"));
	assert_int_equal(dav_xml_parse(DAV_BODY_PROPFIND, "", 0, &q, why, sizeof why), 0);
	assert_int_equal(q.kind, DAV_PF_ALLPROP);
}

/* every stored seed through the fuzz properties (an abort fails the test) */
static void test_seeds(void **state)
{
	(void)state;
	char dir[4096], path[8192];
	snprintf(dir, sizeof dir, "%s/tests/fuzz/regressions/dav/bin", ANIMFS_SOURCE_DIR);
	DIR *dp = opendir(dir);
	assert_non_null(dp);
	int n = 0;
	for (struct dirent *e; (e = readdir(dp));) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "rb");
		assert_non_null(f);
		static uint8_t buf[1 << 20];
		size_t len = fread(buf, 1, sizeof buf, f);
		fclose(f);
		dav_fuzz_one(buf, len);
		n++;
	}
	closedir(dp);
	assert_true(n >= 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths), cmocka_unit_test(test_if_header),
		cmocka_unit_test(test_locks), cmocka_unit_test(test_xml),
		cmocka_unit_test(test_seeds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
