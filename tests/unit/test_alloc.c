/* Every allocation a codec or a container makes can fail, and each failure is an
 * error (never a crash, a leak or a half result): the allocation-failure hook
 * (af_alloc_fail_at) fails the 1st, 2nd, ... allocation of a run until the run needs
 * no more, and each run either fails with AF_ENOMEM or gives exactly what the run with
 * no failure gave. The tables are walked: every codec row with each example of its
 * format (each examples/ YAML file, by its `format:`): encode and decode (and for a codec
 * whose views split, split.h: the cut and the join; for a codec with a scene hook, the glTF
 * preview); every container row with
 * the smallest sample it claims, at any depth inside another (../shared/samples): open,
 * index.yaml, every member's YAML and an unchanged commit, nested members too, and the
 * rebuild. A codec with no example fails the test; a container with no sample fails it
 * when the samples are there. ASan watches for leaks and bad accesses. */
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
#include <unistd.h>
#include <cmocka.h>

#include "animfs/codec.h"
#include "animfs/container.h"
#include "animfs/fileio.h"
#include "animfs/gltf.h"
#include "animfs/io.h"
#include "animfs/split.h"
#include "animfs/yamlio.h"
#include "walk_files.h"

/* One piece of work under the hook: 0 (or AF_VIEW_READONLY) with what it made appended
 * to trace, or an AF_E* code. */
struct job {
	const char *what;
	int (*step)(const struct job *j, struct af_buf *trace, struct af_diag *d);
	const struct af_codec *codec;
	const struct af_container *container;
	const struct af_buf *in;
	const char *name;   /* the container's file name */
	const struct af_io *io;
	int decode;
};

static int codec_step(const struct job *j, struct af_buf *trace, struct af_diag *d)
{
	struct af_io io = {0};
	return (j->decode ? j->codec->to_yaml : j->codec->from_yaml)(j->in->data, j->in->len, &io,
								    trace, d);
}

/* The glTF preview of the example (codecs with a scene hook): the hook, the check, the
 * writer and its PNG. */
static int gltf_step(const struct job *j, struct af_buf *trace, struct af_diag *d)
{
	return af_gltf_from_yaml(j->in->data, j->in->len, NULL, trace, d);
}

/* A split view's parts, for the join's reader. */
static int split_read(void *ctx, const char *name, struct af_buf *out, struct af_diag *d)
{
	const struct af_split *s = ctx;
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->parts[i].name, name))
			return af_buf_append(out, s->parts[i].text.data, s->parts[i].text.len) ? AF_ENOMEM : 0;
	return af_diag_error(d, AF_EIO, "%s: no such part", name);
}

/* The view of j->in (a binary) cut into parts (split.h), each part in the trace, and
 * joined again into the binary. */
static int split_step(const struct job *j, struct af_buf *trace, struct af_diag *d)
{
	struct af_io io = {0};
	struct af_buf yaml = AF_BUF_INIT;
	struct af_split s;
	char where[AF_SPLIT_NAME_MAX];
	int rc = j->codec->to_yaml(j->in->data, j->in->len, &io, &yaml, d);
	memset(&s, 0, sizeof(s));
	if (!rc && !(rc = af_split_view(j->codec, yaml.data, yaml.len, "schema", NULL, &s, d))) {
		af_buf_append(trace, s.index.data, s.index.len);
		for (size_t i = 0; i < s.n; i++)
			af_buf_append(trace, s.parts[i].text.data, s.parts[i].text.len);
		rc = af_split_join(j->codec, s.index.data, s.index.len, split_read, &s, &io, trace, d,
				   where, sizeof(where));
	}
	af_split_free(&s);
	af_buf_free(&yaml);
	return rc;
}

static int is_nomem(int rc, const struct af_diag *d, const struct af_buf *b)
{
	return rc == AF_ENOMEM || d->code == AF_ENOMEM || b->failed;
}

/* Every member of a (and of the archives nested in it): its YAML and an unchanged
 * commit, or the error it gives when it does not decode, in the trace. */
static int walk_members(struct af_archive *a, struct af_buf *trace, struct af_diag *d)
{
	struct af_buf y = AF_BUF_INIT, img = AF_BUF_INIT;
	int rc = 0;
	for (size_t k = 0; !rc && k < a->n; k++) {
		struct af_archive *s;
		int changed = 1;
		af_buf_printf(trace, "member %s:\n", a->m[k].name);
		if (!a->m[k].codec) {
			if ((s = af_archive_sub(a, k)))
				rc = walk_members(af_archive_shown(s), trace, d);
			continue;
		}
		af_buf_reset(&y);
		rc = af_member_yaml(a, k, &y, d);
		if (is_nomem(rc, d, &y)) {
			rc = AF_ENOMEM;
			break;
		}
		if (rc == AF_VIEW_READONLY || rc < 0) { /* the same in every run */
			af_buf_printf(trace, "  yaml: %d\n", rc);
			rc = 0;
			af_diag_free(d);
			af_diag_init(d);
			continue;
		}
		af_buf_append(trace, y.data, y.len);
		rc = af_member_commit(a, k, y.data, y.len, &img, &changed, d);
		if (!rc)
			assert_int_equal(changed, 0);
	}
	af_buf_free(&y);
	af_buf_free(&img);
	return rc ? rc : trace->failed ? AF_ENOMEM : 0;
}

static int collect(void *ctx, const uint8_t *data, size_t n, struct af_diag *d)
{
	return af_buf_append(ctx, data, n) ? af_diag_error(d, AF_ENOMEM, "out of memory") : 0;
}

static int container_step(const struct job *j, struct af_buf *trace, struct af_diag *d)
{
	struct af_archive a;
	struct af_buf img = AF_BUF_INIT, each = AF_BUF_INIT;
	int rc = af_archive_open_io(&a, j->container, j->in->data, j->in->len, j->io, d);
	if (rc)
		return rc;
	rc = af_archive_index(&a, j->name, trace);
	if (!rc)
		rc = walk_members(af_archive_shown(&a), trace, d);
	if (!rc && a.c->rebuild && !(rc = a.c->rebuild(a.st, &img, d)))
		af_buf_append(trace, img.data, img.len);
	/* the rebuild handed in pieces (what `animfs check` compares): the same bytes */
	if (!rc && a.c->rebuild_plan && !(rc = af_archive_rebuild_each(&a, collect, &each, d)) &&
	    !img.failed) {
		assert_int_equal(each.len, img.len);
		assert_memory_equal(each.data, img.data, img.len);
	}
	af_archive_close(&a);
	af_buf_free(&img);
	af_buf_free(&each);
	return rc;
}

/* The n-th allocation fails (0: none does): 1 = the run failed cleanly, 0 = it gave
 * ref's trace and rc; *made: the allocations it made. */
static int run(const struct job *j, unsigned long n, struct af_buf *trace, int *rc_out,
	       unsigned long *made)
{
	struct af_diag d;
	af_diag_init(&d);
	af_buf_reset(trace);
	af_alloc_fail_at(n);
	int rc = j->step(j, trace, &d);
	*made = af_alloc_fail_at(0);
	int failed = (rc && rc != AF_VIEW_READONLY) || trace->failed;
	if (failed && !is_nomem(rc, &d, trace))
		fail_msg("%s: allocation %lu failed, and the run says %d: %s", j->what, n, rc,
			 d.msg);
	af_diag_free(&d);
	*rc_out = rc;
	return failed;
}

static void sweep(const struct job *j)
{
	struct af_buf ref = AF_BUF_INIT, t = AF_BUF_INIT;
	unsigned long total, made, n;
	int ref_rc, rc;
	assert_int_equal(run(j, 0, &ref, &ref_rc, &total), 0);
	assert_true(total > 0);
	for (n = 1; n <= total; n++) {
		if (run(j, n, &t, &rc, &made))
			continue;
		/* went through although allocation n failed: then it was not needed */
		if (rc != ref_rc || t.len != ref.len || memcmp(t.data, ref.data, t.len))
			fail_msg("%s: allocation %lu failed, the run went through but gave another "
				 "result (a half result)", j->what, n);
	}
	print_message("  %s: %lu allocations, each failed once\n", j->what, total);
	af_buf_free(&ref);
	af_buf_free(&t);
}

/* ---- codecs: every row, with each example of its format ---- */

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);
	return n >= m && !strcmp(s + n - m, tail);
}

static void test_codecs(void **state)
{
	char dir[512];
	int missing = 0;
	(void)state;
	setenv("ANIMFS_NAMES", "", 1);
	snprintf(dir, sizeof(dir), "%s/examples", ANIMFS_SOURCE_DIR);
	for (size_t i = 0; af_codecs[i]; i++) {
		const struct af_codec *c = af_codecs[i];
		DIR *dp = opendir(dir);
		struct dirent *e;
		int found = 0;
		assert_non_null(dp);
		while ((e = readdir(dp))) {
			char path[1024], what[600];
			struct af_buf yaml = AF_BUF_INIT, bin = AF_BUF_INIT;
			struct af_diag d;
			struct af_io io = {0};
			if (!ends_with(e->d_name, ".yaml"))
				continue;
			af_diag_init(&d);
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			assert_int_equal(af_read_file_at(AT_FDCWD, path, AF_MAX_YAML, &yaml, &d), 0);
			if (af_codec_for_yaml(yaml.data, yaml.len, &d) == c) {
				found++;
				assert_int_equal(c->from_yaml(yaml.data, yaml.len, &io, &bin, &d), 0);
				struct job enc = { what, codec_step, c, NULL, &yaml, NULL, NULL, 0 };
				struct job dec = { what, codec_step, c, NULL, &bin, NULL, NULL, 1 };
				snprintf(what, sizeof(what), "%s encode of %s", c->name, e->d_name);
				sweep(&enc);
				snprintf(what, sizeof(what), "%s decode of %s", c->name, e->d_name);
				sweep(&dec);
				if (c->scene) {
					struct job gl = { what, gltf_step, c, NULL, &yaml, NULL, NULL, 0 };
					snprintf(what, sizeof(what), "%s glTF preview of %s", c->name, e->d_name);
					sweep(&gl);
				}
				if (af_split_able(c)) {
					struct job spl = { what, split_step, c, NULL, &bin, NULL, NULL, 1 };
					snprintf(what, sizeof(what), "%s split and join of %s", c->name,
						 e->d_name);
					sweep(&spl);
				}
			}
			af_buf_free(&yaml);
			af_buf_free(&bin);
			af_diag_free(&d);
		}
		closedir(dp);
		if (!found) {
			print_error("codec %s: no example in examples/ has format: %s, so its "
				    "allocation failures are not tested\n", c->name, c->name);
			missing++;
		}
	}
	assert_int_equal(missing, 0);
}

/* ---- containers: every row, with the smallest sample it claims ---- */

struct pick {
	struct af_buf bytes;
	char name[AF_MEMBER_NAME_MAX];
	char dir[1024]; /* the folder of a top-level file (its siblings), "" when nested */
};

static struct pick picks[64];

static void consider(const struct af_container *c, const uint8_t *p, size_t n, const char *name,
		     const char *dir)
{
	size_t i = 0;
	while (af_containers[i] && af_containers[i] != c)
		i++;
	if (!af_containers[i] || i >= sizeof(picks) / sizeof(picks[0]))
		return;
	struct pick *k = &picks[i];
	if (k->bytes.len && k->bytes.len <= n)
		return;
	af_buf_reset(&k->bytes);
	af_buf_append(&k->bytes, p, n);
	snprintf(k->name, sizeof(k->name), "%s", name);
	snprintf(k->dir, sizeof(k->dir), "%s", dir);
}

/* a and every archive nested in it, each as a candidate for its container. */
static void consider_nested(struct af_archive *a, const uint8_t *p, size_t n, const char *name,
			    const char *dir)
{
	consider(a->c, p, n, name, dir);
	for (size_t k = 0; k < a->n; k++) {
		struct af_archive *s = af_archive_sub(a, k);
		struct af_buf body = AF_BUF_INIT;
		struct af_diag d;
		af_diag_init(&d);
		if (s && !af_archive_body(a, k, &body, &d))
			consider_nested(s, body.data, body.len, a->m[k].name, "");
		af_buf_free(&body);
		af_diag_free(&d);
	}
}

/* A sample file: each container it is (itself, and what nests in it) is a candidate. */
static void scan_file(void *ctx, const char *dir, const char *name, const char *path)
{
	struct af_buf b = AF_BUF_INIT;
	struct af_diag d;
	struct af_dirio dio;
	struct af_archive a;
	const struct af_container *c;
	(void)ctx;
	af_diag_init(&d);
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	af_dirio_init(&dio, fd, name, 0);
	if (!af_read_file_at(AT_FDCWD, path, AF_MAX_FILE, &b, &d) &&
	    (c = af_container_bid(name, b.data, b.len < 64 ? b.len : 64)) &&
	    !af_archive_open_io(&a, c, b.data, b.len, &dio.io, &d)) {
		consider_nested(&a, b.data, b.len, name, dir);
		af_archive_close(&a);
	}
	if (fd >= 0)
		close(fd);
	af_buf_free(&b);
	af_diag_free(&d);
}

static void test_containers(void **state)
{
	struct stat st;
	int missing = 0;
	(void)state;
	setenv("ANIMFS_NAMES", "", 1);
	if (stat(ANIMFS_SAMPLES, &st)) {
		print_message("SKIP: ../shared/samples not found: no container's allocation "
			      "failures are tested\n");
		skip();
	}
	walk_files(ANIMFS_SAMPLES, scan_file, NULL);
	/* our own synthetic files, for a container ../shared/samples has none of */
	if (!stat(ANIMFS_SOURCE_DIR "/tests/data", &st))
		walk_files(ANIMFS_SOURCE_DIR "/tests/data", scan_file, NULL);
	for (size_t i = 0; af_containers[i]; i++) {
		const struct af_container *c = af_containers[i];
		struct pick *k = &picks[i];
		char what[600];
		if (!k->bytes.len) {
			print_error("container %s: no file in ../shared/samples or tests/data is one, "
				    "so its allocation failures are not tested (add a small "
				    "synthetic one to tests/data: docs/HACKING.md)\n", c->name);
			missing++;
			continue;
		}
		struct af_dirio dio;
		int fd = k->dir[0] ? open(k->dir, O_RDONLY | O_DIRECTORY) : -1;
		af_dirio_init(&dio, fd, k->name, 0);
		snprintf(what, sizeof(what), "%s: %s (%zu bytes)", c->name, k->name, k->bytes.len);
		struct job j = { what, container_step, NULL, c, &k->bytes, k->name,
				 fd >= 0 ? &dio.io : NULL, 0 };
		sweep(&j);
		if (fd >= 0)
			close(fd);
		af_buf_free(&k->bytes);
	}
	assert_int_equal(missing, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codecs),
		cmocka_unit_test(test_containers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
