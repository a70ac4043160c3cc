/* The user dictionary of names: where it lives, reading a missing or empty one,
 * learning names once each and skipping the ones that cannot be lines. */
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

#include "animfs/userdict.h"

static char dir[512], path[600];

static int setup(void **state)
{
	(void)state;
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/animfs-dict-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/sub/names.txt", dir);
	setenv("ANIMFS_NAMES", path, 1);
	return 0;
}

static int teardown(void **state)
{
	char sub[600];
	(void)state;
	unlink(path);
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	rmdir(sub);
	rmdir(dir);
	return 0;
}

static char *text(void)
{
	struct af_buf b = AF_BUF_INIT;
	assert_int_equal(af_userdict_read(&b), 0);
	af_buf_putc(&b, 0);
	return (char *)af_buf_steal(&b, NULL);
}

static void test_path(void **state)
{
	char p[4096];
	(void)state;
	assert_int_equal(af_userdict_path(p, sizeof(p)), 0);
	assert_string_equal(p, path);
	setenv("ANIMFS_NAMES", "", 1);
	assert_int_equal(af_userdict_path(p, sizeof(p)), -1);
	unsetenv("ANIMFS_NAMES");
	setenv("XDG_DATA_HOME", "/x/data", 1);
	assert_int_equal(af_userdict_path(p, sizeof(p)), 0);
	assert_string_equal(p, "/x/data/animfs/names.txt");
	unsetenv("XDG_DATA_HOME");
	setenv("HOME", "/home/u", 1);
	assert_int_equal(af_userdict_path(p, sizeof(p)), 0);
	assert_string_equal(p, "/home/u/.local/share/animfs/names.txt");
	setenv("ANIMFS_NAMES", path, 1);
}

static void test_learn(void **state)
{
	(void)state;
	char *t = text(); /* missing: no names, no error */
	assert_string_equal(t, "");
	free(t);
	const char *a[] = { "Enter", "Wave At", "Enter", "caf\xc3\xa9", "", "#c", " x", "a\nb",
			    "Exit" };
	assert_int_equal(af_userdict_learn(a, sizeof(a) / sizeof(a[0])), 0);
	t = text();
	assert_string_equal(t, "Enter\nWave At\nExit\n");
	free(t);
	const char *b[] = { "Exit", "Loop" }; /* one known, one new */
	assert_int_equal(af_userdict_learn(b, 2), 0);
	t = text();
	assert_string_equal(t, "Enter\nWave At\nExit\nLoop\n");
	free(t);
	/* an empty file reads as no names, and learning into it works */
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	t = text();
	assert_string_equal(t, "");
	free(t);
	assert_int_equal(af_userdict_learn(b, 2), 0);
	t = text();
	assert_string_equal(t, "Exit\nLoop\n");
	free(t);
	/* turned off: nothing read, nothing written */
	setenv("ANIMFS_NAMES", "", 1);
	assert_int_equal(af_userdict_learn(a, 1), 0);
	setenv("ANIMFS_NAMES", path, 1);
	t = text();
	assert_string_equal(t, "Exit\nLoop\n");
	free(t);
}

/* A document of many names against a large dictionary: each name the dictionary lacks
 * is added once, in the document's order (the check was a scan of the dictionary and of
 * the names added so far, a name: quadratic, 18 s for a Jazz of 32000 states). */
static void test_learn_many(void **state)
{
	(void)state;
	enum { N = 60000 };
	static char names[2 * N][16];
	static const char *list[2 * N];
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 0; i < N; i++)
		fprintf(f, "k%d\n", 2 * i); /* the even ones known */
	fprintf(f, "last\n");
	fclose(f);
	for (int i = 0; i < N; i++) {
		snprintf(names[2 * i], sizeof(names[0]), "k%d", i);
		snprintf(names[2 * i + 1], sizeof(names[0]), "k%d", i / 2); /* a repeat */
		list[2 * i] = names[2 * i];
		list[2 * i + 1] = names[2 * i + 1];
	}
	assert_int_equal(af_userdict_learn(list, 2 * N), 0);
	char *t = text(), *p = strstr(t, "last\n");
	assert_non_null(p);
	p += strlen("last\n");
	for (int i = 1; i < N; i += 2) { /* the odd ones, once each, in order */
		char want[24];
		int n = snprintf(want, sizeof(want), "k%d\n", i);
		if (strncmp(p, want, (size_t)n))
			fail_msg("expected %.*s, found '%.20s'", n - 1, want, p);
		p += n;
	}
	assert_string_equal(p, "");
	free(t);
}

/* The dictionary in the data folder: learnt there (a 0755 folder: every caller of a
 * shared mount reads it), and never through a link planted at that folder. */
static void test_data_folder(void **state)
{
	char data[600], folder[700], elsewhere[700], file[800];
	struct stat st;
	const char *a[] = { "Enter" };
	(void)state;
	unsetenv("ANIMFS_NAMES");
	snprintf(data, sizeof(data), "%s/data", dir);
	snprintf(folder, sizeof(folder), "%s/animfs", data);
	snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere", dir);
	snprintf(file, sizeof(file), "%s/names.txt", folder);
	setenv("XDG_DATA_HOME", data, 1);
	assert_int_equal(mkdir(data, 0700), 0);
	assert_int_equal(af_userdict_learn(a, 1), 0);
	assert_int_equal(stat(folder, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	assert_int_equal(stat(file, &st), 0);
	assert_int_equal(unlink(file), 0);
	assert_int_equal(rmdir(folder), 0);
	/* the folder a link: nothing learnt, nothing made where it points */
	assert_int_equal(mkdir(elsewhere, 0700), 0);
	assert_int_equal(symlink(elsewhere, folder), 0);
	assert_int_equal(af_userdict_learn(a, 1), -1);
	snprintf(file, sizeof(file), "%s/names.txt", elsewhere);
	assert_int_equal(stat(file, &st), -1);
	assert_int_equal(unlink(folder), 0);
	assert_int_equal(rmdir(elsewhere), 0);
	assert_int_equal(rmdir(data), 0);
	unsetenv("XDG_DATA_HOME");
	setenv("ANIMFS_NAMES", path, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_learn),
		cmocka_unit_test(test_learn_many),
		cmocka_unit_test(test_data_folder),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
