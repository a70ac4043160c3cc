/* Resolution beneath a folder (src/core/beneath.c), with openat2 and with the walk
 * that stands in for it: plain paths work; a symlink anywhere on the path, "..", and
 * absolute paths are refused (ELOOP) and nothing outside is touched; a trailing link
 * is the link itself with O_PATH, never its target. */
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

#include "animfs/beneath.h"

static char top[256];
static int root;

static int setup(void **state)
{
	(void)state;
	char path[512];
	snprintf(top, sizeof(top), "%s/animfs-bn-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(top))
		return -1;
	/* top/game/{a/f, a/in -> ../b, b/g, out -> ../secret, a/esc -> ../../secret}, top/secret/s */
	snprintf(path, sizeof(path), "%s/game", top);
	mkdir(path, 0755);
	root = open(path, O_RDONLY | O_DIRECTORY);
	snprintf(path, sizeof(path), "%s/secret", top);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/secret/s", top);
	FILE *f = fopen(path, "w");
	fputs("secret", f);
	fclose(f);
	mkdirat(root, "a", 0755);
	mkdirat(root, "b", 0755);
	close(openat(root, "a/f", O_CREAT | O_WRONLY, 0644));
	close(openat(root, "b/g", O_CREAT | O_WRONLY, 0644));
	symlinkat("../b", root, "a/in");
	symlinkat("../secret", root, "out");
	symlinkat("../../secret", root, "a/esc");
	return root < 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[400];
	close(root);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	return system(cmd);
}

static void check_all(void)
{
	struct stat st;
	char base[256], link[64];
	int fd;
	assert_int_equal(af_bn_stat(root, "a/f", &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(af_bn_stat(root, ".", &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	/* a link in the middle, wherever it points, and "..": refused */
	assert_int_equal(af_bn_stat(root, "a/in/g", &st), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(af_bn_open(root, "out/s", O_RDONLY, 0), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(af_bn_open(root, "../game/a/f", O_RDONLY, 0), -1);
	assert_int_equal(af_bn_open(root, "a/../../secret/s", O_RDONLY, 0), -1);
	assert_int_equal(af_bn_open(root, "/etc/passwd", O_RDONLY, 0), -1);
	/* a trailing link: the link itself with O_PATH, refused for reading */
	assert_int_equal(af_bn_stat(root, "a/esc", &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(af_bn_open(root, "a/esc", O_RDONLY, 0), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(af_bn_readlink(root, "a/esc", link, sizeof(link)), 12);
	/* creating through a link is refused; in a real folder it works */
	assert_int_equal(af_bn_open(root, "out/new", O_CREAT | O_WRONLY, 0600), -1);
	assert_int_equal(af_bn_open(root, "a/esc", O_CREAT | O_WRONLY, 0600), -1);
	fd = af_bn_open(root, "a/new", O_CREAT | O_WRONLY, S_IFREG | 0600);
	assert_true(fd >= 0);
	close(fd);
	/* entry operations on the last component, in the folder beneath */
	assert_int_equal(af_bn_rename(root, "a/new", "b/new2"), 0);
	assert_int_equal(af_bn_rename(root, "b/new2", "out/x"), -1);
	assert_int_equal(af_bn_unlink(root, "b/new2", 0), 0);
	assert_int_equal(af_bn_mkdir(root, "a/in/d", 0755), -1);
	assert_int_equal(af_bn_mkdir(root, "a/d", 0755), 0);
	assert_int_equal(af_bn_unlink(root, "a/d", AT_REMOVEDIR), 0);
	fd = af_bn_parent(root, "a/f", base, sizeof(base));
	assert_true(fd >= 0);
	assert_string_equal(base, "f");
	close(fd);
	assert_int_equal(af_bn_parent(root, "out/s", base, sizeof(base)), -1);
	/* a chmod by descriptor reaches the file, and never a link's target */
	fd = af_bn_open(root, "a/f", O_PATH, 0);
	assert_int_equal(af_bn_fchmod(fd, 0600), 0);
	close(fd);
	assert_int_equal(af_bn_stat(root, "a/f", &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	fd = af_bn_open(root, "out", O_PATH, 0);
	assert_int_equal(af_bn_fchmod(fd, 0777), -1);
	close(fd);
	char path[512];
	snprintf(path, sizeof(path), "%s/secret", top);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
}

static void test_openat2(void **state)
{
	(void)state;
	af_bn_force_walk(0);
	check_all();
}

static void test_walk(void **state)
{
	(void)state;
	af_bn_force_walk(1);
	check_all();
	af_bn_force_walk(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_openat2, setup, teardown),
		cmocka_unit_test_setup_teardown(test_walk, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
