/* The watches of GAME (src/view/watch.c) on a fake face: no FUSE. A change in GAME is
 * told (AF_NOTE_OUTSIDE) as it happens: a file made at the top, in a folder made after
 * the watch started, in that folder once renamed, a file's bytes rewritten in place; a
 * folder reached through a symbolic link in GAME is not watched (a change there is no
 * change of GAME). The first walk ends with one note of its own. */
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
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../src/fs/fs_int.h"
#include "../../src/view/watch.h"

static int outside; /* notes told, read across threads */

static void fake_note(struct af_fs *fs, enum af_note what, const char *rel)
{
	(void)fs, (void)rel;
	if (what == AF_NOTE_OUTSIDE)
		__atomic_add_fetch(&outside, 1, __ATOMIC_ACQ_REL);
}

static const struct af_face fake_face = {.note = fake_note};

static int notes(void)
{
	return __atomic_load_n(&outside, __ATOMIC_ACQUIRE);
}

/* 1 when a note past `since` came within ms milliseconds */
static int told_within(int since, int ms)
{
	struct timespec t = {0, 10 * 1000 * 1000};
	for (int i = 0; i < ms / 10; i++) {
		if (notes() > since)
			return 1;
		nanosleep(&t, NULL);
	}
	return notes() > since;
}

static void touch(const char *dir, const char *name, const char *text)
{
	char path[700];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void watch_tells_changes(void **state)
{
	(void)state;
	char game[256], outside_dir[256], path[700], path2[700];
	struct af_fs fs;
	snprintf(game, sizeof(game), "%s/animfs-watch-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	snprintf(outside_dir, sizeof(outside_dir), "%s/animfs-watch-out-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(game));
	assert_non_null(mkdtemp(outside_dir));
	snprintf(path, sizeof(path), "%s/link", game);
	assert_int_equal(symlink(outside_dir, path), 0);
	int fd = open(game, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(af_fs_init_bare(&fs, fd, 1 << 20, 0), 0);
	fs.face = &fake_face;

	assert_int_equal(af_watch_start(&fs), 0);
	assert_true(told_within(0, 5000)); /* the first walk's own note */
	assert_true(af_watch_whole(&fs));

	int n = notes();
	touch(game, "a.txt", "one");
	assert_true(told_within(n, 5000));

	/* a folder made after the start: watched once its creation is read */
	snprintf(path, sizeof(path), "%s/sub", game);
	n = notes();
	assert_int_equal(mkdir(path, 0755), 0);
	assert_true(told_within(n, 5000));
	struct timespec settle = {0, 100 * 1000 * 1000};
	nanosleep(&settle, NULL);
	n = notes();
	touch(path, "b.txt", "two");
	assert_true(told_within(n, 5000));

	/* renamed: still watched, under its new name */
	snprintf(path2, sizeof(path2), "%s/moved", game);
	n = notes();
	assert_int_equal(rename(path, path2), 0);
	assert_true(told_within(n, 5000));
	nanosleep(&settle, NULL);
	n = notes();
	touch(path2, "c.txt", "three");
	assert_true(told_within(n, 5000));
	snprintf(path, sizeof(path), "%s/moved/deeper", game);
	n = notes();
	assert_int_equal(mkdir(path, 0755), 0);
	assert_true(told_within(n, 5000));
	nanosleep(&settle, NULL);
	n = notes();
	touch(path, "d.txt", "four"); /* made below the renamed folder: its path is the new one */
	assert_true(told_within(n, 5000));

	/* a file rewritten in place */
	n = notes();
	touch(game, "a.txt", "one, again");
	assert_true(told_within(n, 5000));

	/* the folder behind a link is not GAME's */
	nanosleep(&settle, NULL);
	n = notes();
	touch(outside_dir, "x.txt", "elsewhere");
	assert_false(told_within(n, 300));

	af_watch_stop(&fs);
	af_watch_stop(&fs); /* twice: nothing */
	fs.face = NULL;
	af_fs_destroy(&fs);
	close(fd);
	char cmd[700];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", game, outside_dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(watch_tells_changes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
