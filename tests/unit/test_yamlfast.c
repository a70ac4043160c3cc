/* The fast YAML scanner against libyaml: whenever the scanner accepts a document,
 * its tree (types, text, quoting style, line:column of every node) must equal the
 * tree built from libyaml's events; whenever it gives up, af_ydoc_parse must answer
 * exactly as libyaml does. Checked on the examples, on the YAML of every real
 * sample (skipped when ../shared/samples is absent), on hand-written edge cases,
 * and on random mutations of the examples (32,000 here; ANIMFS_MUTATIONS=N
 * per example for longer runs). */
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "animfs/codec.h"
#include "animfs/fileio.h"
#include "animfs/yamlio.h"
#include "../fuzz/fuzz_props.h"
#include "walk_files.h"

/* The contract on one text (fuzz_props.c). Returns 1 when the fast scanner took it. */
static int check_text(const char *t, size_t n, const char *what)
{
	int fast = 0;
	if (af_fuzz_yaml_readers((const uint8_t *)t, n, &fast)) {
		print_message("%s: the readers disagree on\n---\n%.*s\n---\n", what,
			      (int)(n > 2000 ? 2000 : n), t);
		fail();
	}
	return fast;
}

/* The generators below repeat themselves (a small grammar gives the same short document
 * many times; a mutation may undo itself): each distinct text is checked once, so the
 * readers see every distinct input they saw before, and none twice. Texts are kept and
 * compared whole, so no distinct one is ever skipped. */
struct seen_text {
	uint64_t h;
	size_t len;
	char *t;
};
static struct seen_text *seen;
static size_t seen_cap, seen_n, seen_bytes;
static int seen_full;
/* a long run by hand (ANIMFS_MUTATIONS) stops remembering past this, and checks the rest */
#define SEEN_MAX_BYTES ((size_t)64 << 20)

static void seen_clear(void)
{
	for (size_t i = 0; i < seen_cap; i++)
		free(seen[i].t);
	free(seen);
	if (seen_full)
		print_message("note: over %zu MiB of texts; later repeats were checked again\n",
			      SEEN_MAX_BYTES >> 20);
	seen = NULL, seen_cap = seen_n = seen_bytes = 0, seen_full = 0;
}

/* 1 when t was checked before in this test; else remembers it and returns 0. */
static int seen_before(const char *t, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)t[i]) * 0x100000001b3ull;
	if (2 * (seen_n + 1) > seen_cap) { /* grow: rehash into twice the slots */
		size_t cap = seen_cap ? 2 * seen_cap : 1024;
		struct seen_text *e = calloc(cap, sizeof(*e));
		assert_non_null(e);
		for (size_t i = 0; i < seen_cap; i++) {
			if (!seen[i].t)
				continue;
			size_t k = seen[i].h & (cap - 1);
			while (e[k].t)
				k = (k + 1) & (cap - 1);
			e[k] = seen[i];
		}
		free(seen);
		seen = e, seen_cap = cap;
	}
	size_t k = h & (seen_cap - 1);
	for (; seen[k].t; k = (k + 1) & (seen_cap - 1))
		if (seen[k].h == h && seen[k].len == n && !memcmp(seen[k].t, t, n))
			return 1;
	if (seen_bytes + n > SEEN_MAX_BYTES) {
		seen_full = 1;
		return 0;
	}
	seen_bytes += n;
	seen[k].t = malloc(n + 1);
	assert_non_null(seen[k].t);
	memcpy(seen[k].t, t, n);
	seen[k].h = h, seen[k].len = n;
	seen_n++;
	return 0;
}

static char *read_all(const char *path, size_t *n)
{
	struct af_buf b = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	int rc = af_read_file_at(AT_FDCWD, path, AF_MAX_FILE, &b, &d);
	af_diag_free(&d);
	if (rc) {
		af_buf_free(&b);
		return NULL;
	}
	*n = b.len;
	af_buf_putc(&b, 0);
	return (char *)af_buf_steal(&b, NULL);
}

/* Every YAML file of examples/ (so a new format's example is read with no edit here). */
static struct dirent **example_list;
static size_t nexamples;
static const char *examples[64];
#define NEXAMPLES nexamples

static int is_yaml(const struct dirent *e)
{
	size_t n = strlen(e->d_name);
	return n > 5 && !strcmp(e->d_name + n - 5, ".yaml");
}

static int list_examples(void **state)
{
	char dir[1024];
	int n;
	(void)state;
	snprintf(dir, sizeof(dir), "%s/examples", ANIMFS_SOURCE_DIR);
	n = scandir(dir, &example_list, is_yaml, alphasort);
	if (n <= 0 || (size_t)n > sizeof(examples) / sizeof(examples[0]))
		return -1;
	for (int i = 0; i < n; i++)
		examples[i] = example_list[i]->d_name;
	nexamples = (size_t)n;
	return 0;
}

static int free_examples(void **state)
{
	(void)state;
	for (size_t i = 0; i < nexamples; i++)
		free(example_list[i]);
	free(example_list);
	return 0;
}

static char *read_example(size_t i, size_t *n)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/examples/%s", ANIMFS_SOURCE_DIR, examples[i]);
	char *t = read_all(path, n);
	assert_non_null(t);
	return t;
}

/* Every example is read by the fast scanner, to the same tree as libyaml's. */
static void test_examples(void **state)
{
	(void)state;
	for (size_t i = 0; i < NEXAMPLES; i++) {
		size_t n = 0;
		char *t = read_example(i, &n);
		if (!check_text(t, n, examples[i])) {
			print_message("%s: not taken by the fast scanner\n", examples[i]);
			fail();
		}
		free(t);
	}
}

struct walk {
	int files, fast, slow, other_tier;
};

/* The samples over BIG_FILE bytes (their documents over about 256 KiB; the motion banks
 * give 14 MB each) are the slow tier: ANIMFS_SAMPLE_TIER=big (unit/test_yamlfast_big,
 * LABELS slow) checks only those, else only the others are checked (told by the file's
 * size, so that neither tier decodes the other's). */
#define BIG_FILE (40 * 1024)
static int big_tier(void)
{
	const char *t = getenv("ANIMFS_SAMPLE_TIER");
	return t && !strcmp(t, "big");
}

static void check_sample(void *ctx, const char *dir, const char *name, const char *path)
{
	struct walk *w = ctx;
	size_t n = 0;
	struct stat st;
	char *bin;
	(void)dir;
	if (stat(path, &st))
		return;
	if ((st.st_size > BIG_FILE) != big_tier()) {
		w->other_tier++;
		return;
	}
	if (!(bin = read_all(path, &n)))
		return;
	if (sample_variant(path, (const unsigned char *)bin, n)) {
		print_message("not checked again: %s, a variant of a sample checked\n", path);
		free(bin);
		return;
	}
	const struct af_codec *c = af_codec_bid(name, (const uint8_t *)bin,
						n < AF_BID_HEAD ? n : AF_BID_HEAD);
	struct af_buf y = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	if (c && !c->to_yaml((const uint8_t *)bin, n, NULL, &y, &d)) {
		w->files++;
		if (check_text((const char *)y.data, y.len, path)) {
			w->fast++;
		} else {
			w->slow++;
			print_message("note: %s renders to YAML the fast scanner leaves to libyaml\n",
				      path);
		}
	}
	af_diag_free(&d);
	af_buf_free(&y);
	free(bin);
}

/* The YAML of every real sample: same tree both ways, and the scanner takes it. */
static void test_samples(void **state)
{
	struct walk w = { 0, 0, 0, 0 };
	struct stat st;
	(void)state;
	if (stat(ANIMFS_SAMPLES, &st)) {
		print_message("SKIP: ../shared/samples not found (sample documents not checked)\n");
		return;
	}
	walk_files(ANIMFS_SAMPLES, check_sample, &w);
	print_message("%d sample documents: %d read by the fast scanner, %d by libyaml (%d "
		      "files %s %d bytes: unit/test_yamlfast%s)\n", w.files, w.fast, w.slow,
		      w.other_tier, big_tier() ? "up to" : "over", BIG_FILE,
		      big_tier() ? "" : "_big");
	assert_true(w.files > 0);
	/* Jazz names may be any UTF-8 and are left to libyaml; all others are plain ASCII */
	assert_true(w.fast * 10 >= w.files * 8);
}

/* Forms the scanner reads: each must equal libyaml's tree. */
static void test_accepted(void **state)
{
	static const char *const docs[] = {
		"a: 1\n",
		"a: 1",
		"# c\n\na: 1   # x\nb:   two words  \n",
		"a:\n  b: 1\n  c:\n    - 1\n    - [2, 3]\n",
		"a:\n- 1\n- 2\nb: 3\n",
		"a:\n- x: 1\n  y: 2\n- x: 3\nb: []\n",
		"list:\n  - name: n\n    keys:\n      - [0.0, -1.5, .inf, -.nan]\n  - name: m\n",
		"a: [[1, 2], [], [\"x y\", 'z'], 3]\n",
		"\"q k\": 'v'\n'k2': \"\"\n",
		"a: |\n  00112233\n  4455\nb: 1\n",
		"a: |\n  00112233\n    4455\n",
		"a: |\n  00112233\n  4455",
		"a: |  # hex\n  ab\n\n\nb: 2\n",
		"a: |\n  ab\n\n",
		"a:\n  - x: |\n      ab\n      cd\n    y: 1\n",
		"a:    # comment\n    b: 1\n",
		"- 1\n- a: 2\n-\n  - 3\n",
		"a: ~\nb: null\nc: -0.0\nd: 0x1F\ne: 1e-7\nf: (x)\ng: a/b\nh: +1\n",
		"   a: 1\n   b: 2\n",
		"a:\n  -   x: 1\n      y: 2\n",
		"a: [ 1 ,2 ,  3 ]\n",
		"key with spaces: v\n",
	};
	(void)state;
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		char what[32];
		snprintf(what, sizeof(what), "accepted[%zu]", i);
		if (!check_text(docs[i], strlen(docs[i]), what)) {
			print_message("%s: expected the fast scanner to take it\n", what);
			fail();
		}
	}
}

/* Forms left to libyaml (or malformed): the answer must be libyaml's. */
static void test_left_to_libyaml(void **state)
{
	static const char *const docs[] = {
		"a:\tb\n", "a: 1\r\nb: 2\r\n", "a: &x 1\nb: *x\n", "a: !t 1\n", "---\na: 1\n",
		"a: 1\n...\n", "a: {b: 1}\n", "a:\nb: 1\n", "a: [1, 2,]\n", "a: [1,\n  2]\n",
		"a: b: c\n", "a: \"x\\ny\"\n", "a: 'it''s'\n", "a: long\n  text\n", "a: |-\n  x\n",
		"a: |\n  x\n\n  y\n", "a: caf\xc3\xa9\n", "a: 1\n a: 2\n", "a: 1\na: 2\n", "- - 1\n",
		"? a\n: b\n", "a: >\n  x\n", "a: 1 # c\n  - 2\n", "a:\n  - 1\n  b: 2\n", "", "# only\n",
		"x\n", "a: [1, 2] x\n", "a: \"x\" y\n", "a:b\n", "a: -\n", "a: @x\n", "a: %x\n",
		"a: [1, # c\n  2]\n", "a: |\n\n  x\n", "a: |\nb: 1\n", "a:\n  b: 1\n c: 2\n",
		"a:\n    b: 1\n  c: 2\n", "a: 1\n- 2\n", "a: [1]]\n", "a: ]\n", "a: 'x\n", "a: \"x\n",
		/* found by fuzzing: a last line of more spaces than the block's indentation
		 * is content (" "), not a trailing empty line */
		"u: |\n :\n  ", "a: |\n  x\n   \n", "a: |\n  x\n   \nb: 1\n",
	};
	(void)state;
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		char what[32];
		snprintf(what, sizeof(what), "left[%zu]", i);
		check_text(docs[i], strlen(docs[i]), what);
	}
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/* Random edits of real documents, biased to YAML's syntax characters. */
static void test_mutations(void **state)
{
	static const char *const pieces[] = { " ", "  ", "\n", "\n  ", "- ", "-", ":", ": ", "#",
					      " #", "[", "]", ",", ", ", "\"", "'", "|", "a", "1",
					      ".", "\t", "&a ", "*a", "!", "?", "{", "}", "\\", "~",
					      "\n\n", "x: ", "\n- ", "0", "e", "-1.5", "''" };
	size_t total = 0, fast = 0, made = 0;
	/* ANIMFS_MUTATIONS=N (per example) and ANIMFS_SEED=S for longer runs by hand */
	int per = getenv("ANIMFS_MUTATIONS") ? atoi(getenv("ANIMFS_MUTATIONS"))
					      : (int)(32000 / NEXAMPLES); /* 32,000 in all */
	if (getenv("ANIMFS_SEED")) {
		rng ^= (strtoull(getenv("ANIMFS_SEED"), NULL, 0) + 1) * 0xD1B54A32D192ED03ull;
		rng += !rng; /* xorshift must not start at 0 */
	}
	(void)state;
	for (size_t e = 0; e < NEXAMPLES; e++) {
		size_t n = 0;
		char *t = read_example(e, &n);
		if (n > 6000)
			n = 6000; /* a cut document is a mutation too */
		char *m = malloc(n + 64);
		assert_non_null(m);
		for (int k = 0; k < per; k++) {
			size_t len = n;
			memcpy(m, t, n);
			int edits = 1 + (int)rnd(3);
			for (int j = 0; j < edits; j++) {
				size_t at = rnd((uint32_t)len + 1);
				const char *p = pieces[rnd(sizeof(pieces) / sizeof(pieces[0]))];
				size_t pl = strlen(p);
				switch (rnd(3)) {
				case 0: /* insert */
					if (len + pl > n + 60)
						break;
					memmove(m + at + pl, m + at, len - at);
					memcpy(m + at, p, pl);
					len += pl;
					break;
				case 1: /* delete 1-3 bytes */
				{
					size_t del = 1 + rnd(3);
					if (at + del > len)
						break;
					memmove(m + at, m + at + del, len - at - del);
					len -= del;
					break;
				}
				default: /* overwrite one byte */
					if (at < len)
						m[at] = p[0];
				}
			}
			made++;
			if (seen_before(m, len))
				continue;
			total++;
			fast += (size_t)check_text(m, len, examples[e]);
		}
		free(m);
		free(t);
	}
	seen_clear();
	print_message("%zu mutated documents, %zu distinct: %zu read by the fast scanner, all as "
		      "libyaml reads them; the rest answered by libyaml\n", made, total, fast);
	/* both paths must have been exercised for the check to mean anything */
	assert_true(fast > total / 10);
	assert_true(fast < total);
}

/* Random literal blocks (the fuzzer found the first disagreement there): headers
 * with and without indicators and comments, lines indented more or less than the
 * block, lines of spaces, empty lines, what follows, and files that end anywhere. */
static void test_literal_blocks(void **state)
{
	static const char *const heads[] = { "|", "|-", "|+", "|2", "| # c", "|1-", "|#" };
	static const char *const texts[] = { "ab", "a b", "#x", "x: y", "- z", "'q'", ":", "" };
	static const char *const parents[] = { "", "m:\n  ", "- ", "s:\n- " };
	char doc[1024];
	size_t fast = 0, total = 0, made = 0;
	(void)state;
	for (int k = 0; k < 20000; k++) {
		size_t n = 0;
		int pi = (int)rnd(4), base = pi == 1 ? 2 : pi == 2 || pi == 3 ? 2 : 0;
		n += (size_t)snprintf(doc + n, sizeof(doc) - n, "%sk: %s\n", parents[pi],
				      heads[rnd(3) ? 0 : rnd(7)]);
		int lines = (int)rnd(5), ind = base + 1 + (int)rnd(3);
		for (int l = 0; l < lines && n < sizeof(doc) - 64; l++) {
			int kind = (int)rnd(6), sp;
			if (kind == 0)
				sp = (int)rnd((uint32_t)ind + 3); /* a line of spaces only */
			else
				sp = ind + (kind == 1 ? (int)rnd(3) : kind == 2 ? -(int)rnd(2) : 0);
			for (int i = 0; i < sp; i++)
				doc[n++] = ' ';
			if (kind)
				n += (size_t)snprintf(doc + n, sizeof(doc) - n, "%s", texts[rnd(8)]);
			doc[n++] = '\n';
		}
		switch (rnd(4)) {
		case 0: n += (size_t)snprintf(doc + n, sizeof(doc) - n, "z: 1\n"); break;
		case 1: n += (size_t)snprintf(doc + n, sizeof(doc) - n, "%*sz: 1\n", base, ""); break;
		case 2: if (n && doc[n - 1] == '\n') n--; break; /* no final newline */
		default: break;
		}
		made++;
		if (seen_before(doc, n))
			continue;
		total++;
		fast += (size_t)check_text(doc, n, "literal block");
	}
	seen_clear();
	print_message("%zu random literal blocks, %zu distinct: %zu read by the fast scanner, all "
		      "as libyaml reads them\n", made, total, fast);
	assert_true(fast > total / 20);
}

/* ---- random documents from a small YAML grammar, with deliberate slips ---- */

struct gen {
	char *b;
	size_t n, cap;
};

static void put(struct gen *g, const char *s)
{
	size_t l = strlen(s);
	if (g->n + l < g->cap) {
		memcpy(g->b + g->n, s, l);
		g->n += l;
	}
}

static void spaces(struct gen *g, int k)
{
	for (int i = 0; i < k; i++)
		put(g, " ");
}

static void scalar(struct gen *g, int flow)
{
	static const char *const plain[] = { "a", "b c", "-1.5", ".nan", "~", "0x1F", "x_y", "(p)",
					     "a/b", "+3", "e", "null", "-", "a-b", "x=y", "1e-7" };
	static const char *const odd[] = { "\"q r\"", "'s'", "\"\"", "''", "'a''b'", "\"a\\nb\"",
					   "a:b", "a #b", "a#b", "!t x", "&x a", "*x", "@x", "%x",
					   "`x", "?", "|", ">", "a,b", "[", "]", "{", "}", "a: b" };
	if (rnd(5))
		put(g, plain[rnd(sizeof(plain) / sizeof(plain[0]))]);
	else
		put(g, odd[rnd(sizeof(odd) / sizeof(odd[0]))]);
	if (!flow && !rnd(8))
		put(g, rnd(2) ? "  # c" : " ");
}

static void flow_node(struct gen *g, int depth)
{
	int k = (int)rnd(depth > 2 ? 1 : 5);
	if (k == 1 || k == 2) {
		int map = k == 2, n = (int)rnd(4);
		put(g, map ? "{" : "[");
		if (rnd(4) == 0)
			put(g, " ");
		for (int i = 0; i < n; i++) {
			if (i)
				put(g, rnd(6) ? ", " : rnd(2) ? "," : " ,");
			if (map) {
				scalar(g, 1);
				put(g, rnd(8) ? ": " : ":");
			}
			flow_node(g, depth + 1);
		}
		if (!rnd(12))
			put(g, ", ");
		put(g, map ? "}" : "]");
	} else {
		scalar(g, 1);
	}
}

static void block(struct gen *g, int ind, int depth, int in_item);

static void value(struct gen *g, int ind, int depth)
{
	switch (rnd(depth > 3 ? 3 : 6)) {
	case 0: put(g, " "); scalar(g, 0); put(g, "\n"); break;
	case 1: put(g, " "); flow_node(g, 0); put(g, rnd(6) ? "\n" : "  # c\n"); break;
	case 2: put(g, rnd(2) ? "\n" : "   # c\n"); break; /* empty, or a block below */
	case 3: put(g, " |\n"); for (int i = 0, n = (int)rnd(3) + 1; i < n; i++) {
			spaces(g, ind + 2); put(g, "00aa"); put(g, "\n"); } break;
	default: put(g, rnd(3) ? "\n" : " # c\n"); block(g, ind + 1 + (int)rnd(3) - (rnd(6) == 0), depth + 1, 0);
	}
}

static void block(struct gen *g, int ind, int depth, int in_item)
{
	int seq = (int)rnd(3) == 0, n = 1 + (int)rnd(3);
	if (ind < 0)
		ind = 0;
	for (int i = 0; i < n; i++) {
		int my = ind + (rnd(15) == 0 ? (int)rnd(3) - 1 : 0); /* a slip of indentation */
		if (!(i == 0 && in_item))
			spaces(g, my < 0 ? 0 : my);
		if (!rnd(10))
			put(g, rnd(2) ? "# comment\n" : "\n");
		if (seq) {
			put(g, "-");
			switch (rnd(depth > 3 ? 2 : 4)) {
			case 0: put(g, " "); scalar(g, 0); put(g, "\n"); break;
			case 1: put(g, " "); flow_node(g, 0); put(g, "\n"); break;
			case 2: put(g, "\n"); block(g, ind + 2, depth + 1, 0); break;
			default: put(g, rnd(2) ? " " : "  "); block(g, ind + 2 - (int)rnd(2), depth + 1, 1);
			}
		} else {
			char key[16];
			snprintf(key, sizeof(key), rnd(10) ? "k%d" : "\"k%d\"", i);
			put(g, key);
			put(g, rnd(12) ? ":" : " :");
			value(g, ind, depth);
		}
	}
}

/* Documents from the grammar above: whatever the fast scanner takes, it reads as
 * libyaml does; the rest is answered by libyaml. */
static void test_random_documents(void **state)
{
	char buf[4096];
	size_t fast = 0, total = 0, made = 0;
	(void)state;
	for (int k = 0; k < 30000; k++) {
		struct gen g = { buf, 0, sizeof(buf) };
		block(&g, (int)rnd(3) == 0 ? 1 : 0, 0, 0);
		if (!rnd(5) && g.n)
			g.n--; /* no final newline */
		made++;
		if (seen_before(buf, g.n))
			continue;
		total++;
		fast += (size_t)check_text(buf, g.n, "random document");
	}
	seen_clear();
	print_message("%zu random documents, %zu distinct: %zu read by the fast scanner, all as "
		      "libyaml reads them\n", made, total, fast);
	assert_true(fast > total / 10);
	assert_true(fast < total);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_accepted),
		cmocka_unit_test(test_left_to_libyaml),
		cmocka_unit_test(test_samples),
		cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_literal_blocks),
		cmocka_unit_test(test_random_documents),
	};
	const struct CMUnitTest big[] = {
		cmocka_unit_test(test_samples),
	};
	if (big_tier())
		return cmocka_run_group_tests(big, NULL, NULL);
	return cmocka_run_group_tests(tests, list_examples, free_examples);
}
