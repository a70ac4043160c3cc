/* YAML syntax errors at the line and column of the mistake (issue 46): the common
 * slips as a table of small documents, and each slip made on every line of every
 * example it applies to, read by both readers (AUTO: the fast scanner, then libyaml;
 * LIBYAML alone): each must name the line that was changed. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "animfs/yamlio.h"

static int parse_with(enum af_yreader reader, const char *text, size_t n, struct af_diag *d)
{
	struct af_ylimits lim = {0};
	struct af_ydoc doc;
	lim.reader = reader;
	af_diag_init(d);
	int rc = af_ydoc_parse(&doc, (const uint8_t *)text, n, &lim, d);
	if (!rc)
		af_ydoc_free(&doc);
	return rc;
}

struct slip {
	const char *name, *text;
	unsigned line, col;
	const char *says; /* a part of the message */
};

static const struct slip slips[] = {
	{"lost ] before the next key", "a:\n  keys: [1, 2, 3\n  fps: 30\nb: 1\n", 2, 9,
	 "did not find expected ',' or ']'"},
	{"lost ] at the end", "a:\n  keys: [1, 2, 3\n", 2, 9, "flow sequence"},
	{"lost ] of a key item", "keys:\n  - [0.0, 1.0]\n  - [0.5, 2.0\n  - [1.0, 3.0]\n", 3, 5,
	 "flow sequence"},
	{"lost } of a flow mapping", "a:\n  k: {x: 1, y: 2\n  fps: 30\n", 2, 6, "flow mapping"},
	{"lost : of the last key", "a:\n  fps: 30\n  keys 1\nb: 2\n", 3, 3, "expected ':'"},
	{"lost : of a key above another", "a:\n  keys 1\n  fps: 30\n", 2, 3, "no ':'"},
	{"lost : of a key in an item", "a:\n  - name x\n    fps: 30\n", 2, 5, "no ':'"},
	{"lost : before a nested block", "a:\n  b\n    c: 1\n", 2, 3, "no ':'"},
	{"lost : of a key with a comment", "p:\n  t:\n    type pos # c\n    keys: [1]\n", 3, 5,
	 "no ':'"},
	{"lost , between flow sequences", "a:\n  k: [[1, 2] [3, 4]]\n", 2, 14,
	 "did not find expected ',' or ']'"},
	{"lost , between quoted items", "a:\n  k: [\"a\" \"b\"]\n", 2, 11, "expected ','"},
	{"lost , in a flow mapping", "a:\n  k: {x: 1 y: 2}\n", 2, 13, "expected ','"},
	{"indented one more", "a:\n  b: 1\n   c: 2\n", 3, 5, "not allowed"},
	{"indented one less", "a:\n  b: 1\n c: 2\n", 3, 2, "expected key"},
	{"first key indented one more", "a:\n  p:\n     t: 1\n    k: 2\n    j: 3\n", 3, 6,
	 "indentation"},
	{"first key indented one less", "a:\n  p:\n   t: 1\n    k: 2\n    j: 3\n", 3, 4,
	 "indentation"},
	{"item indented one less", "a:\n  - x: 1\n    y: 2\n   z: 3\n", 4, 4, "indicator"},
	{"tab as indentation", "a:\n\tb: 1\n", 2, 1, "cannot start any token"},
	{"tab inside indentation", "a:\n  b: 1\n  \tc: 2\n", 3, 3, "tab"},
	{"lost closing quote", "a:\n  b: \"xy\n  c: 1\n", 2, 6, "quoted scalar"},
	/* not a slip that libyaml notices late: its own mark stays */
	{"bad escape on a quoted scalar's second line", "a:\n  b: \"xy\n  \\q\"\n", 3, 3,
	 "unknown escape"},
};

static void test_slips(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(slips) / sizeof(slips[0]); i++) {
		const struct slip *s = &slips[i];
		for (int r = 0; r < 2; r++) {
			struct af_diag d;
			int rc = parse_with(r ? AF_YREAD_LIBYAML : AF_YREAD_AUTO, s->text,
					    strlen(s->text), &d);
			if (rc != AF_EINVAL || d.line != s->line || d.col != s->col ||
			    !strstr(d.msg, s->says))
				fail_msg("%s: rc %d at %u:%u '%s', expected %u:%u '%s'", s->name, rc,
					 d.line, d.col, d.msg, s->line, s->col, s->says);
			af_diag_free(&d);
		}
	}
}

/* ------------------------------------------------------------------ the sweep */

/* A slip made on one line (ls..le, its indentation ind): the changed line into out, 0
 * when the slip does not apply to the line. */
typedef int slip_fn(const char *ls, const char *le, int ind, char *out, size_t size);

static int put(char *out, size_t size, const char *a, size_t na, const char *b, size_t nb,
	       const char *c, size_t nc)
{
	if (na + nb + nc + 1 > size)
		return 0;
	memcpy(out, a, na);
	memcpy(out + na, b, nb);
	memcpy(out + na + nb, c, nc);
	out[na + nb + nc] = 0;
	return 1;
}

/* The line's last ']' goes. */
static int lose_bracket(const char *ls, const char *le, int ind, char *out, size_t size)
{
	(void)ind;
	const char *q = le, *hash = memchr(ls, '#', (size_t)(le - ls));
	if (hash)
		q = hash;
	while (q > ls && q[-1] != ']')
		q--;
	if (q == ls || memchr(ls, '"', (size_t)(le - ls)))
		return 0;
	return put(out, size, ls, (size_t)(q - 1 - ls), "", 0, q, (size_t)(le - q));
}

/* "key: value" or "- key: value" with a plain key: its ':' goes. */
static int lose_colon(const char *ls, const char *le, int ind, char *out, size_t size)
{
	const char *q = ls + ind;
	if (q + 2 <= le && q[0] == '-' && q[1] == ' ')
		q += 2;
	const char *k = q;
	while (q < le && (*q == '_' || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
			  (*q >= '0' && *q <= '9')))
		q++;
	if (q == k || q >= le || *q != ':' || (q + 1 < le && q[1] != ' '))
		return 0;
	return put(out, size, ls, (size_t)(q - ls), "", 0, q + 1, (size_t)(le - q - 1));
}

static int indent_more(const char *ls, const char *le, int ind, char *out, size_t size)
{
	if (ind == 0)
		return 0;
	return put(out, size, " ", 1, ls, (size_t)(le - ls), "", 0);
}

static int indent_less(const char *ls, const char *le, int ind, char *out, size_t size)
{
	if (ind == 0)
		return 0;
	return put(out, size, "", 0, ls + 1, (size_t)(le - ls - 1), "", 0);
}

/* The indentation's first two spaces become a tab, as an editor set to tabs writes. */
static int tab_indent(const char *ls, const char *le, int ind, char *out, size_t size)
{
	if (ind < 2)
		return 0;
	return put(out, size, "\t", 1, ls + 2, (size_t)(le - ls - 2), "", 0);
}

static const struct {
	const char *name;
	slip_fn *fn;
} sweep[] = {
	{"lost ]", lose_bracket},		{"lost :", lose_colon},
	{"indented one more", indent_more}, {"indented one less", indent_less},
	{"tab", tab_indent},
};

static char *read_all(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	long len;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (b = malloc((size_t)len + 1)) && fread(b, 1, (size_t)len, f) == (size_t)len) {
		b[len] = 0;
		*n = (size_t)len;
	} else {
		free(b);
		b = NULL;
	}
	fclose(f);
	return b;
}

/* Each slip on each line of one example; counts what was tried, what still read as
 * YAML (a slip YAML allows: the codec's checks name its place) and what was wrong. */
static void sweep_file(const char *path, const char *text, size_t n, unsigned *tried,
		       unsigned *valid, unsigned *wrong)
{
	char *mut = malloc(n + 16), line[4096];
	assert_non_null(mut);
	for (size_t k = 0; k < sizeof(sweep) / sizeof(sweep[0]); k++) {
		unsigned lineno = 0;
		for (const char *ls = text; ls < text + n;) {
			const char *nl = memchr(ls, '\n', (size_t)(text + n - ls));
			const char *le = nl ? nl : text + n;
			int ind = 0;
			lineno++;
			while (ls + ind < le && ls[ind] == ' ')
				ind++;
			if (ls + ind < le && ls[ind] != '#' && sweep[k].fn(ls, le, ind, line, sizeof line)) {
				size_t a = (size_t)(ls - text), b = strlen(line);
				memcpy(mut, text, a);
				memcpy(mut + a, line, b);
				memcpy(mut + a + b, le, (size_t)(text + n - le));
				size_t m = a + b + (size_t)(text + n - le);
				tried[k]++;
				for (int r = 0; r < 2; r++) {
					struct af_diag d;
					int rc = parse_with(r ? AF_YREAD_LIBYAML : AF_YREAD_AUTO, mut, m, &d);
					if (rc == 0) {
						valid[k] += r == 0;
					} else if (d.line != lineno) {
						wrong[k]++;
						print_message("%s: %s on line %u: reported %u:%u: %s\n", path,
							      sweep[k].name, lineno, d.line, d.col, d.msg);
					}
					af_diag_free(&d);
				}
			}
			ls = nl ? nl + 1 : text + n;
		}
	}
	free(mut);
}

static void test_sweep_examples(void **state)
{
	(void)state;
	char dir[2048], path[4096];
	unsigned tried[8] = {0}, valid[8] = {0}, wrong[8] = {0};
	snprintf(dir, sizeof dir, "%s/examples", ANIMFS_SOURCE_DIR);
	DIR *dp = opendir(dir);
	struct dirent *e;
	assert_non_null(dp);
	while ((e = readdir(dp))) {
		size_t n = 0, len = strlen(e->d_name);
		char *text;
		if (len < 5 || strcmp(e->d_name + len - 5, ".yaml"))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		assert_non_null(text = read_all(path, &n));
		sweep_file(e->d_name, text, n, tried, valid, wrong);
		free(text);
	}
	closedir(dp);
	unsigned bad = 0;
	for (size_t k = 0; k < sizeof(sweep) / sizeof(sweep[0]); k++) {
		print_message("%-18s %4u lines, %4u still YAML, %3u reported elsewhere\n",
			      sweep[k].name, tried[k], valid[k], wrong[k]);
		bad += wrong[k];
		assert_true(tried[k] > valid[k]);
	}
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slips),
		cmocka_unit_test(test_sweep_examples),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
