/* Every allocation a codec or a container makes can fail, and each failure is an
 * error (never a crash, a leak or a half result): the allocation-failure hook
 * (af_alloc_fail_at) fails the 1st, 2nd, ... allocation of each example's encode and
 * decode, and of the package container's open, member YAML and commit, until the run
 * needs no more. ASan watches for leaks and bad accesses. */
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
#include "animfs/container.h"
#include "animfs/fileio.h"
#include "animfs/yamlio.h"

extern const struct af_container af_container_sims3_package;

static const char *const examples[] = {
	"walk.animation.yaml", "wave_hello.jazz.yaml", "re3_tiny.PLD.yaml", "MOTION.BIN.yaml",
};

/* One run of encode (or decode) with the n-th allocation failing: 1 = it failed
 * cleanly, 0 = it went through (n is past its last allocation). */
static int run(const struct af_codec *c, const struct af_buf *in, int decode, unsigned long n)
{
	struct af_buf out = AF_BUF_INIT;
	struct af_diag d;
	struct af_io io = {0};
	af_diag_init(&d);
	af_alloc_fail_at(n);
	int rc = (decode ? c->to_yaml : c->from_yaml)(in->data, in->len, &io, &out, &d);
	unsigned long made = af_alloc_fail_at(0);
	int failed = (rc && rc != AF_VIEW_READONLY) || out.failed;
	if (failed)
		assert_true(rc == AF_ENOMEM || out.failed || d.code == AF_ENOMEM);
	af_buf_free(&out);
	af_diag_free(&d);
	return failed || made >= n;
}

static void sweep(const struct af_codec *c, const struct af_buf *in, int decode)
{
	unsigned long n = 1;
	while (run(c, in, decode, n) && n < 100000)
		n++;
	assert_true(n > 1); /* at least one allocation was made, and made to fail */
	print_message("  %s %s: %lu allocations, each failed once\n", c->name, decode ? "decode" : "encode", n - 1);
}

static void test_codecs(void **state)
{
	(void)state;
	setenv("ANIMFS_NAMES", "", 1);
	for (size_t i = 0; i < sizeof(examples) / sizeof(examples[0]); i++) {
		char path[512];
		struct af_buf yaml = AF_BUF_INIT, bin = AF_BUF_INIT;
		struct af_diag d;
		struct af_io io = {0};
		af_diag_init(&d);
		snprintf(path, sizeof(path), "%s/examples/%s", ANIMFS_SOURCE_DIR, examples[i]);
		assert_int_equal(af_read_file_at(AT_FDCWD, path, AF_MAX_YAML, &yaml, &d), 0);
		const struct af_codec *c = af_codec_for_yaml(yaml.data, yaml.len, &d);
		assert_non_null(c);
		assert_int_equal(c->from_yaml(yaml.data, yaml.len, &io, &bin, &d), 0);
		sweep(c, &yaml, 0);
		sweep(c, &bin, 1);
		af_buf_free(&yaml);
		af_buf_free(&bin);
		af_diag_free(&d);
	}
}

/* The package container: open, every member's YAML, a commit of its own document. */
static int run_package(const struct af_buf *file, unsigned long n)
{
	struct af_archive a;
	struct af_buf y = AF_BUF_INIT, img = AF_BUF_INIT;
	struct af_diag d;
	int failed = 0, changed = 0;
	af_diag_init(&d);
	af_alloc_fail_at(n);
	if (af_archive_open(&a, &af_container_sims3_package, file->data, file->len, &d)) {
		failed = 1;
		goto out;
	}
	for (size_t k = 0; k < a.n; k++) {
		af_buf_reset(&y);
		if (af_member_yaml(&a, k, &y, &d) || y.failed ||
		    af_member_commit(&a, k, y.data, y.len, &img, &changed, &d)) {
			failed = 1;
			break;
		}
		assert_int_equal(changed, 0);
	}
	af_archive_close(&a);
out:;
	unsigned long made = af_alloc_fail_at(0);
	af_buf_free(&y);
	af_buf_free(&img);
	af_diag_free(&d);
	return failed || made >= n;
}

static void test_package(void **state)
{
	(void)state;
	struct af_buf file = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	if (af_read_file_at(AT_FDCWD, ANIMFS_SAMPLES "/sims3/echoweaver_WarriorCats/WarriorCats.package",
			    AF_MAX_FILE, &file, &d)) {
		af_diag_free(&d);
		skip(); /* ../shared/samples not found */
	}
	unsigned long n = 1;
	while (run_package(&file, n) && n < 100000)
		n++;
	assert_true(n > 1);
	af_buf_free(&file);
	af_diag_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codecs),
		cmocka_unit_test(test_package),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
