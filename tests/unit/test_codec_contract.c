/* The codec contract (codec.h), for every row of the codec table: a to_yaml or from_yaml
 * that fails leaves out exactly as it was on entry (empty stays empty, a caller's text
 * before stays as it was), whether it fails on a bad input or for want of memory at any
 * one of its allocations (af_alloc_fail_at). Each codec is driven from its example, the
 * file of examples/ whose `format:` names it, so a new row needs an example and no edit
 * here. */
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "animfs/codec.h"
#include "animfs/fileio.h"

#define MAX_EXAMPLES 64

struct example {
	const struct af_codec *c;
	char name[256];    /* the binary's name: the example's without ".yaml" */
	struct af_buf yaml; /* the example */
	struct af_buf bin;  /* its encoding */
};

static struct example ex[MAX_EXAMPLES];
static size_t nex;

/* What a call may find in out before it: nothing, or a caller's line (a modeline). */
static const char *const before[] = { "", "# a caller's line\n" };

static int call(const struct example *e, int decode, const uint8_t *in, size_t n,
		struct af_buf *out, struct af_diag *d)
{
	struct af_io io = { .name = e->name };
	return (decode ? e->c->to_yaml : e->c->from_yaml)(in, n, &io, out, d);
}

/* One call with out holding pre; after a failure out must hold pre and nothing else.
 * Returns rc. */
static int check_call(const struct example *e, int decode, const uint8_t *in, size_t n,
		      const char *pre, unsigned long fail_at, unsigned long *made)
{
	struct af_buf out = AF_BUF_INIT;
	struct af_diag d;
	size_t pl = strlen(pre);
	af_diag_init(&d);
	assert_int_equal(af_buf_append(&out, pre, pl), 0);
	af_alloc_fail_at(fail_at);
	int rc = call(e, decode, in, n, &out, &d);
	*made = af_alloc_fail_at(0);
	if (rc < 0) {
		if (out.len != pl || (pl && memcmp(out.data, pre, pl)))
			fail_msg("%s %s (allocation %lu failing, %zu bytes before): a failure left %zu bytes in out, not the %zu it held",
				 e->c->name, decode ? "to_yaml" : "from_yaml", fail_at, pl, out.len, pl);
		assert_int_not_equal(d.code, 0); /* and says why */
	} else {
		assert_false(out.failed); /* success with a half text is no success */
		assert_true(out.len >= pl && !memcmp(out.data, pre, pl));
	}
	af_buf_free(&out);
	af_diag_free(&d);
	return rc;
}

/* Every allocation of one call made to fail in turn, until the call needs no more. */
static void sweep(const struct example *e, int decode, const uint8_t *in, size_t n)
{
	for (size_t p = 0; p < sizeof(before) / sizeof(before[0]); p++) {
		unsigned long k = 1, made = 0, failures = 0;
		for (;; k++) {
			int rc = check_call(e, decode, in, n, before[p], k, &made);
			failures += rc < 0;
			if (made < k || k > 200000)
				break; /* the k-th allocation was never made: the call ran through */
		}
		assert_true(failures > 0);
		if (!p)
			print_message("  %s %s: %lu allocations, each made to fail\n", e->c->name,
				      decode ? "to_yaml" : "from_yaml", k - 1);
	}
}

static int load_examples(void **state)
{
	const char *dir = ANIMFS_SOURCE_DIR "/examples";
	DIR *dp = opendir(dir);
	struct dirent *de;
	(void)state;
	setenv("ANIMFS_NAMES", "", 1);
	if (!dp)
		return -1;
	while ((de = readdir(dp)) && nex < MAX_EXAMPLES) {
		size_t l = strlen(de->d_name);
		struct example *e = &ex[nex];
		char path[1024];
		struct af_diag d;
		if (l <= 5 || strcmp(de->d_name + l - 5, ".yaml") || l - 5 >= sizeof(e->name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		snprintf(e->name, sizeof(e->name), "%.*s", (int)(l - 5), de->d_name);
		af_diag_init(&d);
		if (af_read_file_at(AT_FDCWD, path, 1 << 24, &e->yaml, &d) ||
		    !(e->c = af_codec_for_yaml(e->yaml.data, e->yaml.len, &d))) {
			af_buf_free(&e->yaml);
			af_diag_free(&d);
			continue;
		}
		struct af_io io = { .name = e->name };
		if (e->c->from_yaml(e->yaml.data, e->yaml.len, &io, &e->bin, &d))
			fprintf(stderr, "%s: %s\n", de->d_name, d.msg);
		af_diag_free(&d);
		nex++;
	}
	closedir(dp);
	return 0;
}

static int free_examples(void **state)
{
	(void)state;
	for (size_t i = 0; i < nex; i++) {
		af_buf_free(&ex[i].yaml);
		af_buf_free(&ex[i].bin);
	}
	return 0;
}

static const struct example *example_of(const struct af_codec *c)
{
	for (size_t i = 0; i < nex; i++)
		if (ex[i].c == c && ex[i].bin.len)
			return &ex[i];
	return NULL;
}

/* Every row has an example that encodes, and that encoding decodes. */
static void test_every_codec_has_an_example(void **state)
{
	(void)state;
	for (size_t i = 0; af_codecs[i]; i++) {
		const struct example *e = example_of(af_codecs[i]);
		unsigned long made;
		if (!e)
			fail_msg("codec %s: no examples/*.yaml with `format: %s` that encodes (docs/HACKING.md, Add a codec)",
				 af_codecs[i]->name, af_codecs[i]->name);
		int rc = check_call(e, 1, e->bin.data, e->bin.len, "", 0, &made);
		assert_true(rc == 0 || rc == AF_VIEW_READONLY);
	}
}

/* Out of memory at each allocation, in each direction. */
static void test_failed_calls_leave_out_as_it_was(void **state)
{
	(void)state;
	for (size_t i = 0; af_codecs[i]; i++) {
		const struct example *e = example_of(af_codecs[i]);
		if (!e)
			continue; /* test_every_codec_has_an_example says so */
		sweep(e, 1, e->bin.data, e->bin.len);
		sweep(e, 0, e->yaml.data, e->yaml.len);
	}
}

/* Bad inputs: the binary cut short or with its head zeroed, the document cut at half its
 * lines or its values replaced by a word; whichever of them fails leaves out as it was. */
static void test_bad_inputs_leave_out_as_it_was(void **state)
{
	(void)state;
	for (size_t i = 0; af_codecs[i]; i++) {
		const struct example *e = example_of(af_codecs[i]);
		struct af_buf bad = AF_BUF_INIT;
		unsigned long made;
		int failed = 0;
		if (!e)
			continue;
		const size_t cuts[] = { 0, 1, e->bin.len / 2, e->bin.len - 1 };
		for (size_t k = 0; k < sizeof(cuts) / sizeof(cuts[0]); k++)
			for (size_t p = 0; p < 2; p++)
				failed += check_call(e, 1, e->bin.data, cuts[k], before[p], 0, &made) < 0;
		assert_int_equal(af_buf_append(&bad, e->bin.data, e->bin.len), 0);
		memset(bad.data, 0, bad.len < 16 ? bad.len : 16);
		for (size_t p = 0; p < 2; p++)
			failed += check_call(e, 1, bad.data, bad.len, before[p], 0, &made) < 0;
		/* the document: its first half (at a line end), then every value a word */
		const uint8_t *mid = memchr(e->yaml.data + e->yaml.len / 2, '\n', e->yaml.len / 2);
		size_t half = mid ? (size_t)(mid - e->yaml.data) + 1 : e->yaml.len;
		for (size_t p = 0; p < 2; p++)
			failed += check_call(e, 0, e->yaml.data, half, before[p], 0, &made) < 0;
		af_buf_reset(&bad);
		for (size_t k = 0; k < e->yaml.len; k++) {
			uint8_t ch = e->yaml.data[k];
			af_buf_putc(&bad, (char)(ch >= '0' && ch <= '9' ? 'x' : ch));
		}
		for (size_t p = 0; p < 2; p++)
			failed += check_call(e, 0, bad.data, bad.len, before[p], 0, &made) < 0;
		assert_true(failed > 0); /* some of them are refused */
		af_buf_free(&bad);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_codec_has_an_example),
		cmocka_unit_test(test_failed_calls_leave_out_as_it_was),
		cmocka_unit_test(test_bad_inputs_leave_out_as_it_was),
	};
	return cmocka_run_group_tests(tests, load_examples, free_examples);
}
