/* The view's pieces without a mount: path and name mapping, open-file buffers, the
 * scratch area, resolving names against a GAME folder (and the file above a path that
 * decides whether a container is asked), and commits (bad documents
 * refused with line:col and the binary untouched; an unchanged save writes nothing). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "animfs/fileio.h"
#include "../../src/fs/fs_int.h"

static void test_names(void **state)
{
	(void)state;
	char rel[16];
	assert_int_equal(af_view_rel("/", rel, sizeof(rel)), 0);
	assert_string_equal(rel, ".");
	assert_int_equal(af_view_rel("/a/b.yaml", rel, sizeof(rel)), 0);
	assert_string_equal(rel, "a/b.yaml");
	assert_int_equal(af_view_rel("/0123456789abcdef", rel, sizeof(rel)), -ENAMETOOLONG);
	assert_int_equal(af_view_strip("walk.animation.yaml"), strlen("walk.animation"));
	assert_int_equal(af_view_strip(".yaml"), 0);
	assert_int_equal(af_view_strip("walk.animation"), 0);
	assert_int_equal(af_view_strip("walk.yml"), 0);
	assert_int_equal(af_view_is_candidate("notes.yaml"), 0);
	assert_int_equal(af_view_is_candidate("a/b.unknownext.yaml"), 0);
	assert_int_equal(af_view_is_candidate("a/walk.animation"), 0);
	if (!af_codecs[0]) {
		skip();
		return;
	}
	/* the first word of the first codec's extensions makes a candidate */
	char ext[32], name[64];
	snprintf(ext, sizeof(ext), "%.*s", (int)strcspn(af_codecs[0]->extensions, " ,"),
		 af_codecs[0]->extensions);
	snprintf(name, sizeof(name), "dir/new.%s.yaml", ext);
	assert_int_equal(af_view_is_candidate(name), 1);
}

struct env {
	char game[256];
	struct af_fs fs;
};

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	snprintf(e->game, sizeof(e->game), "%s/animfs-unit-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(e->game))
		return -1;
	int fd = open(e->game, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || af_fs_init(&e->fs, fd, NULL, 1 << 20, 0))
		return -1;
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;
	char cmd[400];
	int fd = e->fs.rootfd;
	af_fs_destroy(&e->fs);
	close(fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", e->game);
	int rc = system(cmd);
	free(e);
	return rc;
}

static void test_handle_buffers(void **state)
{
	struct env *e = *state;
	struct af_text *t = af_text_new("hello world", 11);
	struct af_handle *h = af_handle_new_text(&e->fs, "x.yaml", "x", t, 1);
	char out[32];
	assert_int_equal(af_handle_read(h, out, sizeof(out), 6), 5);
	assert_memory_equal(out, "world", 5);
	assert_int_equal(af_handle_pending_size(&e->fs, "x.yaml"), -1);
	assert_int_equal(af_handle_write(h, "W", 1, 6), 1);
	assert_memory_equal(t->data, "hello world", 11); /* the shared text is untouched */
	assert_int_equal(af_handle_read(h, out, sizeof(out), 0), 11);
	assert_memory_equal(out, "hello World", 11);
	assert_int_equal(af_handle_pending_size(&e->fs, "x.yaml"), 11);
	assert_int_equal(af_handle_write(h, "!", 1, 13), 1); /* past the end: a zero gap */
	assert_int_equal(af_handle_size(h), 14);
	assert_int_equal(af_handle_read(h, out, sizeof(out), 0), 14);
	assert_int_equal(out[11], 0);
	assert_int_equal(af_handle_truncate(h, 5), 0);
	assert_int_equal(af_handle_read(h, out, sizeof(out), 0), 5);
	assert_int_equal(af_handle_read(h, out, sizeof(out), 99), 0);
	assert_int_equal(af_handle_write(h, "x", 1, -1), -EFBIG);
	assert_int_equal(af_handle_truncate(h, -1), -EFBIG);
	af_text_unref(t);
	af_handle_free(&e->fs, h);
	assert_null(e->fs.handles);
}

/* A file of the test's own user with mode m, as one moved into the scratch area. */
static const struct stat *mine(mode_t m)
{
	static struct stat st;
	st.st_uid = geteuid();
	st.st_gid = getegid();
	st.st_mode = S_IFREG | m;
	return &st;
}

static void test_scratch(void **state)
{
	struct env *e = *state;
	struct stat st;
	int fd = af_scratch_create(&e->fs, "d/e/.walk.yaml.swp", O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(e->fs.nscratch, 1);
	assert_true(af_scratch_exists(&e->fs, "d/e/.walk.yaml.swp", &st));
	assert_false(af_scratch_exists(&e->fs, "d/e", NULL)); /* folders are not entries */
	assert_int_equal(af_scratch_put(&e->fs, "4913", "", 0, mine(0644)), 0);
	assert_int_equal(e->fs.nscratch, 2);
	assert_int_equal(af_scratch_rename(&e->fs, "4913", "d/e/.walk.yaml.swp"), 0);
	assert_int_equal(e->fs.nscratch, 1);
	assert_int_equal(af_scratch_unlink(&e->fs, "d/e/.walk.yaml.swp"), 0);
	assert_int_equal(af_scratch_unlink(&e->fs, "d/e/.walk.yaml.swp"), -ENOENT);
	assert_int_equal(e->fs.nscratch, 0);
	/* nothing of it is in GAME */
	DIR *d = opendir(e->game);
	struct dirent *de;
	int n = 0;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	assert_int_equal(n, 0);
	/* the area is removed with the mount */
	char path[4096];
	snprintf(path, sizeof(path), "%s", e->fs.scratch_path);
	assert_int_equal(af_scratch_put(&e->fs, "a/b/c", "x", 1, mine(0644)), 0);
	af_scratch_remove(&e->fs);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(af_scratch_open_dir(&e->fs, NULL), 0); /* teardown removes this one */
}

static void test_resolve_plain(void **state)
{
	struct env *e = *state;
	struct af_res r;
	struct af_diag d;
	af_diag_init(&d);
	assert_int_equal(mkdirat(e->fs.rootfd, "sub", 0755), 0);
	assert_int_equal(af_replace_file_at(e->fs.rootfd, "sub/readme.txt", "hi\n", 3, 0644, &d),
			 0);
	af_diag_free(&d);
	assert_int_equal(af_view_resolve(&e->fs, "/", &r), 0);
	assert_int_equal(r.kind, AF_K_DIR);
	assert_int_equal(af_view_resolve(&e->fs, "/sub/readme.txt", &r), 0);
	assert_int_equal(r.kind, AF_K_PASS);
	assert_int_equal(af_view_resolve(&e->fs, "/sub/readme.txt.yaml", &r), 0);
	assert_int_equal(r.kind, AF_K_NONE); /* not claimed: no view */
	assert_int_equal(af_view_resolve(&e->fs, "/.animfs/errors", &r), 0);
	assert_int_equal(r.kind, AF_K_CTLFILE);
	assert_int_equal(af_view_resolve(&e->fs, "/.animfs/other", &r), 0);
	assert_int_equal(r.kind, AF_K_NONE);
	af_ghost_add(&e->fs, "sub/readme.txt", AF_K_PASS);
	assert_int_equal(af_view_resolve(&e->fs, "/sub/readme.txt", &r), 0);
	assert_int_equal(r.kind, AF_K_NONE);
	assert_int_equal(r.ghost, 1);
	assert_int_equal(r.ghost_of, AF_K_PASS);
	af_ghost_del(&e->fs, "sub/readme.txt");
	assert_int_equal(af_view_resolve(&e->fs, "/sub/readme.txt", &r), 0);
	assert_int_equal(r.kind, AF_K_PASS);
	/* a scratch file shadows nothing in GAME and is found by name */
	assert_int_equal(af_scratch_put(&e->fs, "sub/x~", "x", 1, mine(0644)), 0);
	assert_int_equal(af_view_resolve(&e->fs, "/sub/x~", &r), 0);
	assert_int_equal(r.kind, AF_K_SCRATCH);
}

/* The file above a path (af_view_holder): what the resolve asks before any container
 * is (only folders above: no container holds it). */
static void test_holder(void **state)
{
	struct env *e = *state;
	struct af_diag d;
	struct stat st;
	char holder[64];
	const char *inner = NULL;
	af_diag_init(&d);
	assert_int_equal(mkdirat(e->fs.rootfd, "sub", 0755), 0);
	assert_int_equal(mkdirat(e->fs.rootfd, "sub/deep", 0755), 0);
	assert_int_equal(af_replace_file_at(e->fs.rootfd, "sub/f.bin", "hi\n", 3, 0644, &d), 0);
	af_diag_free(&d);
	assert_int_equal(af_view_holder(&e->fs, "top.yaml", holder, sizeof(holder), &inner, &st), 0);
	assert_int_equal(af_view_holder(&e->fs, "sub/f.bin.yaml", holder, sizeof(holder), &inner, &st), 0);
	assert_int_equal(af_view_holder(&e->fs, "sub/deep/x.yaml", holder, sizeof(holder), &inner, &st), 0);
	assert_int_equal(af_view_holder(&e->fs, "gone/x.yaml", holder, sizeof(holder), &inner, &st), 0);
	/* a file's name with more after it: that file, at the first stat or by the walk */
	assert_int_equal(af_view_holder(&e->fs, "sub/f.bin/m.yaml", holder, sizeof(holder), &inner, &st), 1);
	assert_string_equal(holder, "sub/f.bin");
	assert_string_equal(inner, "m.yaml");
	assert_true(S_ISREG(st.st_mode) && st.st_size == 3);
	inner = NULL;
	assert_int_equal(af_view_holder(&e->fs, "sub/f.bin/A/m.yaml", holder, sizeof(holder), &inner, &st), 1);
	assert_string_equal(holder, "sub/f.bin");
	assert_string_equal(inner, "A/m.yaml");
	/* too long to tell: not "no file above" */
	assert_int_equal(af_view_holder(&e->fs, "sub/f.bin/m.yaml", holder, 4, &inner, &st), -ENAMETOOLONG);
}

static void test_commit_refuses(void **state)
{
	struct env *e = *state;
	static const char orig[] = "original bytes";
	static const char nofmt[] = "# a document\nlength: 2\n";
	static const char unknown[] = "# a document\nformat: no-such-format\n";
	struct af_buf b = AF_BUF_INIT;
	struct af_diag d;
	struct af_text *t;
	af_diag_init(&d);
	assert_int_equal(af_replace_file_at(e->fs.rootfd, "walk.bin", orig, sizeof(orig), 0644, &d),
			 0);
	assert_int_equal(af_commit(&e->fs, "walk.bin.yaml", "walk.bin", (const uint8_t *)nofmt,
				   strlen(nofmt)), -EINVAL);
	assert_int_equal(af_commit(&e->fs, "walk.bin.yaml", "walk.bin", (const uint8_t *)unknown,
				   strlen(unknown)), -EINVAL);
	assert_int_equal(af_read_file_at(e->fs.rootfd, "walk.bin", 1 << 20, &b, &d), 0);
	assert_int_equal(b.len, sizeof(orig));
	assert_memory_equal(b.data, orig, sizeof(orig));
	t = af_errlog_text(e->fs.errors, 0, NULL, NULL);
	assert_non_null(strstr((const char *)t->data, "walk.bin.yaml:1:1: "));
	assert_non_null(strstr((const char *)t->data, "walk.bin.yaml:2:9: unknown format"));
	af_text_unref(t);
	e->fs.read_only = 1;
	assert_int_equal(af_commit(&e->fs, "walk.bin.yaml", "walk.bin", (const uint8_t *)unknown,
				   strlen(unknown)), -EROFS);
	e->fs.read_only = 0;
	af_buf_free(&b);
	af_diag_free(&d);
}

/* With a real sample: render, save unchanged (no write), save an edit (new bytes). */
static void test_commit_sample(void **state)
{
	struct env *e = *state;
	char src[4096];
	struct af_buf bin = AF_BUF_INIT, yaml = AF_BUF_INIT;
	struct af_diag d;
	struct af_res r;
	struct af_text *t = NULL;
	struct stat before, after;
	af_diag_init(&d);
	DIR *dir = opendir(ANIMFS_SAMPLES "/diesel");
	struct dirent *de;
	src[0] = 0;
	while (dir && (de = readdir(dir)))
		if (strstr(de->d_name, ".animation")) {
			snprintf(src, sizeof(src), "%s/diesel/%s", ANIMFS_SAMPLES, de->d_name);
			break;
		}
	if (dir)
		closedir(dir);
	if (!src[0] || !af_codec_by_name("diesel-animation")) {
		skip();
		return;
	}
	assert_int_equal(af_read_file_at(AT_FDCWD, src, AF_MAX_FILE, &bin, &d), 0);
	assert_int_equal(af_replace_file_at(e->fs.rootfd, "w.animation", bin.data, bin.len, 0644,
					    &d), 0);
	assert_int_equal(af_view_resolve(&e->fs, "/w.animation", &r), 0);
	assert_int_equal(r.kind, AF_K_PASS); /* its own name still names it, unlisted */
	assert_true(r.unlisted);
	assert_int_equal(af_view_resolve(&e->fs, "/w.animation.yaml", &r), 0);
	assert_int_equal(r.kind, AF_K_VIEW);
	assert_string_equal(r.bin, "w.animation");
	assert_int_equal(af_view_render(&e->fs, r.bin, &r.st, &t), 0);
	assert_int_equal(fstatat(e->fs.rootfd, "w.animation", &before, 0), 0);
	assert_int_equal(af_commit(&e->fs, r.rel, r.bin, t->data, t->len), 0);
	assert_int_equal(fstatat(e->fs.rootfd, "w.animation", &after, 0), 0);
	assert_int_equal(before.st_ino, after.st_ino); /* unchanged: not replaced */
	assert_int_equal(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
	/* edit the length line */
	const char *l = strstr((const char *)t->data, "\nlength: ");
	assert_non_null(l);
	const char *eol = strchr(l + 1, '\n');
	af_buf_append(&yaml, t->data, (size_t)(l - (const char *)t->data));
	af_buf_puts(&yaml, "\nlength: 12.5");
	af_buf_puts(&yaml, eol);
	assert_int_equal(af_commit(&e->fs, r.rel, r.bin, yaml.data, yaml.len), 0);
	assert_int_equal(fstatat(e->fs.rootfd, "w.animation", &after, 0), 0);
	assert_true(before.st_ino != after.st_ino); /* replaced by rename */
	/* the cache sees the new identity: the view renders the edit */
	struct af_text *t2 = NULL;
	assert_int_equal(af_view_resolve(&e->fs, "/w.animation.yaml", &r), 0);
	assert_int_equal(af_view_render(&e->fs, r.bin, &r.st, &t2), 0);
	assert_non_null(strstr((const char *)t2->data, "\nlength: 12.5"));
	af_text_unref(t2);
	af_text_unref(t);
	af_buf_free(&bin);
	af_buf_free(&yaml);
	af_diag_free(&d);
}

/* Bids read names: two hard links to one zlib-framed Diesel file under names that
 * bid differently are told apart although they share one identity. */
static void test_hardlink_bid(void **state)
{
	struct env *e = *state;
	struct af_buf bin = AF_BUF_INIT;
	struct af_diag d;
	struct af_res r;
	char src[4096] = "";
	DIR *dir = opendir(ANIMFS_SAMPLES "/diesel");
	struct dirent *de;
	af_diag_init(&d);
	while (dir && !src[0] && (de = readdir(dir))) {
		if (!strstr(de->d_name, ".animation"))
			continue;
		snprintf(src, sizeof(src), "%s/diesel/%s", ANIMFS_SAMPLES, de->d_name);
		af_buf_reset(&bin);
		if (af_read_file_at(AT_FDCWD, src, AF_MAX_FILE, &bin, &d) || !bin.len ||
		    bin.data[0] != 0x78)
			src[0] = 0;
	}
	if (dir)
		closedir(dir);
	if (!src[0] || !af_codec_by_name("diesel-animation")) {
		af_buf_free(&bin);
		af_diag_free(&d);
		skip();
		return;
	}
	assert_int_equal(af_replace_file_at(e->fs.rootfd, "h.animation", bin.data, bin.len, 0644,
					    &d), 0);
	assert_int_equal(linkat(e->fs.rootfd, "h.animation", e->fs.rootfd, "h.dat", 0), 0);
	for (int round = 0; round < 2; round++) {
		assert_int_equal(af_view_resolve(&e->fs, "/h.animation.yaml", &r), 0);
		assert_int_equal(r.kind, AF_K_VIEW);
		assert_int_equal(af_view_resolve(&e->fs, "/h.dat", &r), 0);
		assert_int_equal(r.kind, AF_K_PASS);
		assert_int_equal(af_view_resolve(&e->fs, "/h.dat.yaml", &r), 0);
		assert_int_equal(r.kind, AF_K_NONE);
	}
	af_buf_free(&bin);
	af_diag_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test_setup_teardown(test_handle_buffers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scratch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resolve_plain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_holder, setup, teardown),
		cmocka_unit_test_setup_teardown(test_commit_refuses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_commit_sample, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hardlink_bid, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
