/* animfs's own folders in a home (privdir.h): made 0700 through no link, a link on
 * the way or another user's folder refused with its path, the base as named. */
#include <errno.h>
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

#include "animfs/privdir.h"

static char home[512];

static void at(char *out, size_t n, const char *rel)
{
	snprintf(out, n, "%s/%s", home, rel);
}

static int setup(void **state)
{
	(void)state;
	const char *tmp = getenv("TMPDIR");
	snprintf(home, sizeof(home), "%s/animfs-privdir-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(home))
		return -1;
	setenv("HOME", home, 1);
	unsetenv("XDG_CACHE_HOME");
	return 0;
}

static int teardown(void **state)
{
	char cmd[600];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", home);
	return system(cmd) ? -1 : 0;
}

static int open_cache(int make, char *path, size_t n, struct af_diag *d)
{
	af_diag_clear(d);
	return af_private_dir("XDG_CACHE_HOME", ".cache", "animfs", 0700, make, path, n, d);
}

static void test_made(void **state)
{
	char path[4096], want[600];
	struct af_diag d;
	struct stat st;
	(void)state;
	af_diag_init(&d);
	assert_true(open_cache(0, path, sizeof(path), &d) == AF_EIO); /* not there, not made */
	int fd = open_cache(1, path, sizeof(path), &d);
	assert_true(fd >= 0);
	at(want, sizeof(want), ".cache/animfs");
	assert_string_equal(path, want);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(st.st_uid, geteuid());
	close(fd);
	/* a folder of ours with a wider mode is given 0700 */
	assert_int_equal(chmod(want, 0755), 0);
	fd = open_cache(1, path, sizeof(path), &d);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(stat(want, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	/* $XDG_CACHE_HOME when absolute: its animfs; a relative one is ignored */
	at(want, sizeof(want), "xdg");
	setenv("XDG_CACHE_HOME", want, 1);
	assert_int_equal(mkdir(want, 0700), 0);
	fd = open_cache(1, path, sizeof(path), &d);
	assert_true(fd >= 0);
	close(fd);
	at(want, sizeof(want), "xdg/animfs");
	assert_string_equal(path, want);
	setenv("XDG_CACHE_HOME", "relative", 1);
	fd = open_cache(1, path, sizeof(path), &d);
	assert_true(fd >= 0);
	close(fd);
	at(want, sizeof(want), ".cache/animfs");
	assert_string_equal(path, want);
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", "relative", 1);
	assert_int_equal(open_cache(1, path, sizeof(path), &d), AF_EINVAL);
	setenv("HOME", home, 1);
	af_diag_free(&d);
}

static void test_links(void **state)
{
	char path[4096], p[600], q[600];
	struct af_diag d;
	struct stat st;
	(void)state;
	af_diag_init(&d);
	/* the leaf a link: refused, nothing made where it points */
	at(p, sizeof(p), ".cache");
	assert_int_equal(mkdir(p, 0755), 0);
	at(p, sizeof(p), "elsewhere");
	assert_int_equal(mkdir(p, 0700), 0);
	at(q, sizeof(q), ".cache/animfs");
	assert_int_equal(symlink(p, q), 0);
	assert_int_equal(open_cache(1, path, sizeof(path), &d), AF_EPERM);
	assert_non_null(strstr(d.msg, q));
	assert_non_null(strstr(d.msg, "symbolic link"));
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(st.st_nlink, 2); /* still empty */
	/* a folder on the way a link: refused, named */
	assert_int_equal(unlink(q), 0);
	at(q, sizeof(q), ".cache");
	assert_int_equal(rmdir(q), 0);
	assert_int_equal(symlink(p, q), 0);
	assert_int_equal(open_cache(1, path, sizeof(path), &d), AF_EPERM);
	assert_non_null(strstr(d.msg, q));
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_nlink, 2);
	/* a file where the folder goes */
	assert_int_equal(unlink(q), 0);
	int fd = open(q, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(open_cache(1, path, sizeof(path), &d), AF_EPERM);
	assert_non_null(strstr(d.msg, "not a folder"));
	assert_int_equal(unlink(q), 0);
	af_diag_free(&d);
}

static void test_other_user(void **state)
{
	char path[4096], p[600];
	struct af_diag d;
	(void)state;
	if (geteuid() != 0)
		skip(); /* only root can make a folder another user owns */
	af_diag_init(&d);
	at(p, sizeof(p), ".cache");
	mkdir(p, 0755);
	at(p, sizeof(p), ".cache/animfs");
	assert_int_equal(mkdir(p, 0777), 0);
	assert_int_equal(chown(p, 65534, 65534), 0);
	assert_int_equal(open_cache(1, path, sizeof(path), &d), AF_EPERM);
	assert_non_null(strstr(d.msg, "owned by uid 65534"));
	af_diag_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_made, setup, teardown),
		cmocka_unit_test_setup_teardown(test_links, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_user, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
