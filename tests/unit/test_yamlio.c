/* YAML tree (marks, limits, aliases, duplicates) and the text writers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "animfs/yamlio.h"

static int parse(const char *text, struct af_ydoc *doc, struct af_diag *d)
{
	af_diag_init(d);
	return af_ydoc_parse(doc, (const uint8_t *)text, strlen(text), NULL, d);
}

static void test_tree_and_marks(void **state)
{
	(void)state;
	struct af_ydoc doc;
	struct af_diag d;
	const char *t = "format: x\nobjects:\n  - name: Hips\n    keys:\n      - [0.0, 1.5]\n      - [0.5, abc]\n";
	assert_int_equal(parse(t, &doc, &d), 0);
	const struct af_ynode *objs = af_ymap_get(doc.root, "objects");
	assert_non_null(objs);
	assert_int_equal(objs->type, AF_YSEQ);
	const struct af_ynode *keys = af_ymap_get(&objs->items[0], "keys");
	assert_int_equal(keys->n, 2);
	const struct af_ynode *bad = &keys->items[1].items[1];
	assert_int_equal(bad->line, 6);
	assert_int_equal(bad->col, 15);
	float f;
	assert_int_equal(af_y_get_f32(&d, &keys->items[0].items[1], &f, "k"), 0);
	assert_true(f == 1.5f);
	assert_int_equal(af_y_get_f32(&d, bad, &f, "objects[0].keys[1][1]"), AF_EINVAL);
	char msg[512];
	af_diag_format(&d, "walk.yaml", msg, sizeof(msg));
	assert_string_equal(msg, "walk.yaml:6:15: objects[0].keys[1][1]: expected a number, got 'abc'");
	af_ydoc_free(&doc);
	af_diag_free(&d);
}

static void test_errors(void **state)
{
	(void)state;
	struct af_ydoc doc;
	struct af_diag d;
	char msg[512];
	assert_int_equal(parse("a: [1, 2\nb: 3\n", &doc, &d), AF_EINVAL);
	assert_true(d.line > 0);
	af_diag_free(&d);

	assert_int_equal(parse("a: &x [1]\nb: *x\n", &doc, &d), AF_EINVAL);
	af_diag_format(&d, "f", msg, sizeof(msg));
	assert_non_null(strstr(msg, "f:2:4: aliases"));
	af_diag_free(&d);

	assert_int_equal(parse("a: 1\nb: 2\na: 3\n", &doc, &d), AF_EINVAL);
	af_diag_format(&d, "f", msg, sizeof(msg));
	assert_string_equal(msg, "f:3:1: duplicate key 'a'");
	af_diag_free(&d);

	/* empty collections are fine (no copy from an empty item list) */
	assert_int_equal(parse("a: []\nb: {}\nc: [[], {}]\n", &doc, &d), 0);
	assert_int_equal(af_ymap_get(doc.root, "a")->n, 0);
	assert_int_equal(af_ymap_get(doc.root, "b")->type, AF_YMAP);
	af_ydoc_free(&doc);
	af_diag_free(&d);

	assert_int_equal(parse("", &doc, &d), AF_EINVAL);
	af_diag_free(&d);

	assert_int_equal(parse("a: 1\n---\nb: 2\n", &doc, &d), AF_EINVAL);
	af_diag_free(&d);

	/* invalid UTF-8 */
	assert_int_equal(parse("a: \xff\xfe\n", &doc, &d), AF_EINVAL);
	assert_true(d.line >= 1);
	af_diag_free(&d);
}

static void test_depth_limit(void **state)
{
	(void)state;
	struct af_ydoc doc;
	struct af_diag d;
	size_t n = 100000;
	char *t = malloc(2 * n + 1);
	memset(t, '[', n);
	memset(t + n, ']', n);
	t[2 * n] = 0;
	assert_int_equal(parse(t, &doc, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "nesting deeper"));
	af_diag_free(&d);
	free(t);

	/* billion laughs is refused at the first alias, in bounded time */
	const char *lol = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n"
			  "c: &c [*b, *b, *b, *b, *b, *b, *b, *b]\n";
	assert_int_equal(parse(lol, &doc, &d), AF_EINVAL);
	af_diag_free(&d);

	struct af_ylimits lim = { .max_nodes = 10 };
	af_diag_init(&d);
	const char *many = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]";
	assert_int_equal(af_ydoc_parse(&doc, (const uint8_t *)many, strlen(many), &lim, &d), AF_EINVAL);
	af_diag_free(&d);
}

/* af_ylimits.max_bytes: the tree of a document (its nodes, strings and the children of
 * containers still open) stays within it, or the parse fails with the mark where it ran
 * out, in both readers; what other documents hold (held) counts. */
static void test_byte_budget(void **state)
{
	(void)state;
	struct af_ydoc doc;
	struct af_diag d;
	size_t n = 200000, len = 0;
	char *t = malloc(4 * n + 16);
	len += (size_t)sprintf(t, "k: [");
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(t + len, i ? ", 7" : "7");
	len += (size_t)sprintf(t + len, "]\n");
	for (int reader = AF_YREAD_AUTO; reader <= AF_YREAD_LIBYAML; reader++) {
		struct af_ylimits lim = { .max_bytes = (size_t)4 << 20, .reader = reader };
		/* 200 001 nodes of 40 bytes and 200 000 strings of 2: over 8 MB */
		af_diag_init(&d);
		assert_int_equal(af_ydoc_parse(&doc, (const uint8_t *)t, len, &lim, &d), AF_EINVAL);
		assert_non_null(strstr(d.msg, "the document needs more than 4 MiB to encode: raise --cache-mb"));
		assert_int_equal(d.line, 1);
		assert_true(d.col > 4 && d.col < len);
		assert_null(doc.root);
		af_diag_free(&d);

		/* the list's children grow in a frame (doubling) before they move to the arena */
		lim.max_bytes = (size_t)32 << 20;
		af_diag_init(&d);
		assert_int_equal(af_ydoc_parse(&doc, (const uint8_t *)t, len, &lim, &d), 0);
		assert_int_equal(doc.root->items[1].n, n);
		assert_string_equal(doc.root->items[1].items[n - 1].str, "7");
		assert_true(doc.arena.used_total <= lim.max_bytes);
		af_ydoc_free(&doc);
		af_diag_free(&d);

		lim.held = (size_t)28 << 20; /* another document's tree: no room left for this one */
		af_diag_init(&d);
		assert_int_equal(af_ydoc_parse(&doc, (const uint8_t *)t, len, &lim, &d), AF_EINVAL);
		assert_non_null(strstr(d.msg, "needs more than 32 MiB"));
		af_diag_free(&d);
	}
	free(t);
}

static void roundtrip_str(const char *s, size_t n)
{
	struct af_buf b = AF_BUF_INIT;
	struct af_ydoc doc;
	struct af_diag d;
	af_buf_puts(&b, "v: ");
	af_y_str(&b, s, n);
	af_buf_putc(&b, '\n');
	af_diag_init(&d);
	if (af_ydoc_parse(&doc, b.data, b.len, NULL, &d))
		fail_msg("'%.*s' -> %.*s does not parse: %s", (int)n, s, (int)b.len, b.data, d.msg);
	const struct af_ynode *v = af_ymap_get(doc.root, "v");
	assert_non_null(v);
	assert_int_equal(v->len, n);
	assert_memory_equal(v->str, s, n);
	/* what reads back as a plain scalar must not look like a number/bool/null */
	if (v->plain)
		assert_false(af_y_is_null(v));
	af_ydoc_free(&doc);
	af_diag_free(&d);
	af_buf_free(&b);
}

static void test_str_roundtrip(void **state)
{
	(void)state;
	static const char *const cases[] = { "root_point", "Bip01 L Thigh", "", " lead", "trail ",
					     "true", "No", "null", "~", "123", "1.5", "-x", "a: b",
					     "a #b", "\"q\"", "back\\slash", "tab\there", "line\nbreak",
					     "[x]", "{y}", "*star", "&amp", "!bang", "%pct", "@at",
					     "`tick", "é", "Plant Height", "PlantSmallVine ", "0x1F",
					     ".nan", "#hash", "key:", "?q", "|pipe", ">gt", "'s" };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		roundtrip_str(cases[i], strlen(cases[i]));
	roundtrip_str("nul\0inside", 10);
}

static void test_blocks(void **state)
{
	(void)state;
	uint8_t data[200];
	for (int i = 0; i < 200; i++)
		data[i] = (uint8_t)(i * 37 + 11);
	for (size_t n = 0; n <= 200; n += 7) {
		for (int kind = 0; kind < 2; kind++) {
			struct af_buf b = AF_BUF_INIT, out = AF_BUF_INIT;
			struct af_ydoc doc;
			struct af_diag d;
			af_buf_puts(&b, "blob: ");
			if (kind)
				af_y_base64block(&b, data, n, 2);
			else
				af_y_hexblock(&b, data, n, 2);
			af_diag_init(&d);
			assert_int_equal(af_ydoc_parse(&doc, b.data, b.len, NULL, &d), 0);
			const struct af_ynode *v = af_ymap_get(doc.root, "blob");
			int rc = kind ? af_y_get_base64(&d, v, &out, "blob") : af_y_get_hex(&d, v, &out, "blob");
			assert_int_equal(rc, 0);
			assert_int_equal(out.len, n);
			if (n)
				assert_memory_equal(out.data, data, n);
			af_ydoc_free(&doc);
			af_diag_free(&d);
			af_buf_free(&b);
			af_buf_free(&out);
		}
	}
}

static void test_numbers_parse_back_in_libyaml(void **state)
{
	(void)state;
	struct af_buf b = AF_BUF_INIT;
	struct af_ydoc doc;
	struct af_diag d;
	float vals[] = { 0.0f, -0.0f, 1.0f, 1e-5f, 3.4028235e38f, 1.4e-45f, -453.5727f };
	af_buf_puts(&b, "v: [");
	for (size_t i = 0; i < 7; i++) {
		if (i)
			af_buf_puts(&b, ", ");
		af_y_f32(&b, vals[i]);
	}
	af_buf_puts(&b, "]\n");
	af_diag_init(&d);
	assert_int_equal(af_ydoc_parse(&doc, b.data, b.len, NULL, &d), 0);
	const struct af_ynode *v = af_ymap_get(doc.root, "v");
	for (size_t i = 0; i < 7; i++) {
		float f;
		assert_int_equal(af_y_get_f32(&d, &v->items[i], &f, "v"), 0);
		assert_memory_equal(&f, &vals[i], 4);
		assert_true(v->items[i].plain);
	}
	af_ydoc_free(&doc);
	af_diag_free(&d);
	af_buf_free(&b);
}

static void test_getters(void **state)
{
	(void)state;
	struct af_ydoc doc;
	struct af_diag d;
	uint64_t u;
	int64_t s;
	uint16_t h;
	assert_int_equal(parse("a: 70000\nb: -5\nc: 1.0e+10\nd: [1]\n", &doc, &d), 0);
	assert_int_equal(af_y_get_u64(&d, af_ymap_get(doc.root, "a"), 65535, &u, "a"), AF_EINVAL);
	assert_non_null(strstr(d.msg, "out of range 0..65535"));
	af_diag_clear(&d);
	assert_int_equal(af_y_get_i64(&d, af_ymap_get(doc.root, "b"), -10, 10, &s, "b"), 0);
	assert_true(s == -5);
	assert_int_equal(af_y_get_f16(&d, af_ymap_get(doc.root, "c"), &h, "c"), AF_EINVAL);
	assert_non_null(strstr(d.msg, "half float"));
	af_diag_clear(&d);
	assert_int_equal(af_y_get_u64(&d, af_ymap_get(doc.root, "d"), 1, &u, "d"), AF_EINVAL);
	assert_non_null(strstr(d.msg, "expected a single value, found a list"));
	af_diag_clear(&d);
	assert_null(af_y_need(&d, doc.root, "zzz", "top"));
	assert_non_null(strstr(d.msg, "missing key 'zzz'"));
	af_ydoc_free(&doc);
	af_diag_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_and_marks), cmocka_unit_test(test_errors),
		cmocka_unit_test(test_depth_limit), cmocka_unit_test(test_byte_budget),    cmocka_unit_test(test_str_roundtrip),
		cmocka_unit_test(test_blocks),         cmocka_unit_test(test_numbers_parse_back_in_libyaml),
		cmocka_unit_test(test_getters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
