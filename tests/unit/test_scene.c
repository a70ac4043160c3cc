/* animfs/scene.h: af_scene_check refuses a node whose parents loop and a node an animation
 * moves twice the same way, at the first node or channel that does, and takes scenes of
 * tens of thousands of nodes and channels (each checked against the others, each walk up
 * to the root, was quadratic); af_parent_loops marks the nodes a loop is reached from;
 * af_scene_find finds a node by name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "animfs/scene.h"

enum { N = 30000 };

/* A chain of N nodes (node i the parent of i + 1), one animation moving each node once. */
static void chain(struct af_scene *sc, long loop_at)
{
	static const double v[3] = { 0, 0, 0 };
	char name[32];
	assert_int_equal(af_scene_init(sc, NULL, 0), 0);
	for (long i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "n%ld", i);
		assert_int_not_equal(af_scene_node(sc, name, i == loop_at ? N - 1 : i - 1, (unsigned)i + 1), SIZE_MAX);
	}
	assert_int_equal(af_scene_anim(sc, "a"), 0);
	for (size_t i = 0; i < N; i++) {
		size_t c = af_scene_channel(sc, i, AF_SC_TRANSLATION, (unsigned)i + 1);
		assert_int_not_equal(c, SIZE_MAX);
		af_scene_key(sc, c, 0, v);
	}
}

static void test_check(void **state)
{
	(void)state;
	static const double v[3] = { 0, 0, 0 };
	struct af_scene sc;
	struct af_diag d;
	af_diag_init(&d);
	chain(&sc, -1);
	/* a second animation may move every node again */
	assert_int_equal(af_scene_anim(&sc, "b"), 0);
	for (size_t i = 0; i < N; i++)
		af_scene_key(&sc, af_scene_channel(&sc, i, AF_SC_TRANSLATION, 1), 0, v);
	assert_int_equal(af_scene_check(&sc, &d), 0);
	af_scene_free(&sc);

	chain(&sc, N / 2); /* node N/2's parent is the last node: a loop from N/2 on */
	assert_int_equal(af_scene_check(&sc, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "node 'n15000': its parents loop back to it"));
	af_scene_free(&sc);

	chain(&sc, -1); /* node 20000 moved twice in the first animation */
	af_scene_key(&sc, af_scene_channel(&sc, 20000, AF_SC_TRANSLATION, 7), 0, v);
	af_diag_clear(&d);
	assert_int_equal(af_scene_check(&sc, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "animation 'a': node 'n20000' moved twice the same way"));
	assert_int_equal(d.line, 7);
	af_scene_free(&sc);
	af_diag_free(&d);
}

/* af_scene_find: the first node of a name, by an index kept as nodes come, and still
 * right after nodes were dropped (a half-made skeleton) and others added. */
static void test_find(void **state)
{
	(void)state;
	struct af_scene sc;
	chain(&sc, -1);
	assert_int_equal(af_scene_find(&sc, "n12345"), 12345);
	assert_int_equal(af_scene_find(&sc, "n0"), 0);
	assert_int_equal(af_scene_find(&sc, "nope"), -1);
	assert_int_equal(af_scene_find(&sc, NULL), -1);
	assert_int_equal(af_scene_node(&sc, "n7", -1, 1), N); /* a second n7: the first stays */
	assert_int_equal(af_scene_find(&sc, "n7"), 7);
	sc.nnode = 10;
	assert_int_equal(af_scene_find(&sc, "n20"), -1);
	assert_int_equal(af_scene_find(&sc, "n5"), 5);
	assert_int_equal(af_scene_node(&sc, "x", -1, 1), 10);
	assert_int_equal(af_scene_find(&sc, "x"), 10);
	assert_int_equal(af_scene_find(&sc, "n20"), -1);
	assert_int_equal(af_scene_find(&sc, "n9"), 9);
	af_scene_free(&sc);
}

static long parent_of(const void *ctx, size_t i)
{
	return ((const long *)ctx)[i];
}

static void test_parent_loops(void **state)
{
	(void)state;
	/* 0 root; 1 -> 0; 2 -> 3 -> 4 -> 2 a loop; 5 -> 2 into it; 6 -> 99 outside; 7 -> 7 */
	static const long parent[8] = { -1, 0, 3, 4, 2, 2, 99, 7 };
	static const uint8_t want[8] = { 0, 0, 1, 1, 1, 1, 0, 1 };
	uint8_t loop[8];
	af_parent_loops(8, parent_of, parent, loop);
	assert_memory_equal(loop, want, sizeof(want));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_parent_loops),
		cmocka_unit_test(test_find),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
