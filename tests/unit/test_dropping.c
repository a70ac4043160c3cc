/* The editor-dropping table (src/view/dropping.c): one case per row, each with a name
 * that matches and a near miss that does not, and the rule that a name derived from
 * X counts only while X is a name in the folder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/view/dropping.h"

/* The folder of these cases holds "walk.animation.yaml", "notes.txt" and ".x.swp". */
static int exists(void *ctx, const char *x)
{
	(void)ctx;
	return !strcmp(x, "walk.animation.yaml") || !strcmp(x, "notes.txt") || !strcmp(x, ".x.swp");
}

struct row_case {
	const char *hit, *x; /* a name the row matches, and its X ("" when none) */
	const char *miss;    /* close, but not a dropping */
};

/* In table order: the test fails when a row is added without a case. */
static const struct row_case cases[] = {
	{".walk.animation.yaml.swp", "walk.animation.yaml", ".walk.animation.yaml.swp1"},
	{".notes.txt.un~", "notes.txt", ".notes.txt.un"},
	{"4913", "", "4914"},
	{".#walk.animation.yaml", "walk.animation.yaml", ".#unknown"},
	{"#notes.txt#", "notes.txt", "#notes.txt"},
	{"notes.txt.~12~", "notes.txt", "notes.txt.~x~"},
	{"notes.txt~", "notes.txt", "other.txt~"},
	{"notes.txt.save", "notes.txt", "other.save"},
	{"notes.txt.save.3", "notes.txt", "notes.txt.save.x"},
	{"sedAb3xZ9", "", "sedAb3xZ"},
	{".goutputstream-K2LQ0Z", "", ".goutputstream-K2LQ"},
	{".notes.txt.kate-swp", "notes.txt", ".other.kate-swp"},
	{"notes.txt___jb_tmp___", "notes.txt", "notes___jb_tmp___"},
	{"notes.txt___jb_old___", "notes.txt", "x___jb_old___"},
	{".~lock.notes.txt#", "notes.txt", ".~lock.notes.txt"},
	{"._notes.txt", "notes.txt", "._other.txt"},
	{".DS_Store", "", ".DS_Stored"},
	{"Thumbs.db", "", "Thumbs.dbx"},
	{"desktop.ini", "", "desktop.ini.txt"},
	{"~$tes.txt", "", "~$"},
	{"~WRL0001.tmp", "", "~.tmp"},
};

static void test_every_row(void **state)
{
	(void)state;
	assert_int_equal(sizeof(cases) / sizeof(cases[0]), af_dropping_rows());
	for (size_t i = 0; i < af_dropping_rows(); i++) {
		char x[256];
		size_t row = 99;
		assert_non_null(af_dropping_editor(i));
		assert_true(af_dropping_match(cases[i].hit, x, sizeof(x), &row));
		assert_int_equal(row, i);
		assert_string_equal(x, cases[i].x);
		assert_true(af_dropping_is(cases[i].hit, exists, NULL));
		assert_false(af_dropping_is(cases[i].miss, exists, NULL));
	}
}

static void test_user_files(void **state)
{
	(void)state;
	static const char *const user[] = {
		"README.md", "new.animation", "notes.old", "backup~", ".hidden", "sed", "4913a",
		"04913", "mod.txt.save2", "#x", ".#", "~", ".~lock.#", "___jb_tmp___", "",
		"$tes.txt", "x~$y", "~WRL0001.tmp.yaml", "a~b.tmp",
	};
	for (size_t i = 0; i < sizeof(user) / sizeof(user[0]); i++)
		assert_false(af_dropping_is(user[i], exists, NULL));
	/* X may itself be a dropping: vim's backup of its swap file */
	assert_true(af_dropping_is(".x.swp~", exists, NULL));
	/* vim's probe sequence */
	assert_true(af_dropping_is("5036", exists, NULL));
	assert_false(af_dropping_is("5037", exists, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_row),
		cmocka_unit_test(test_user_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
