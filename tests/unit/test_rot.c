/* animfs/rot.h: Euler angles in degrees <-> unit quaternions, the one convention of
 * plots, Diesel comments and Diesel Euler keys (x, then y, then z, fixed axes). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "animfs/rot.h"

static void test_known(void **state)
{
	(void)state;
	double q[4], e[3];
	char t[64];
	af_euler_deg_to_quat((const double[3]){ 90, 0, 0 }, q);
	assert_true(fabs(q[0] - sqrt(0.5)) < 1e-12 && fabs(q[3] - sqrt(0.5)) < 1e-12);
	assert_true(fabs(q[1]) < 1e-12 && fabs(q[2]) < 1e-12);
	/* 90 about z after 90 about x: the axes are fixed, so z acts last */
	af_euler_deg_to_quat((const double[3]){ 90, 0, 90 }, q);
	assert_true(fabs(q[0] - 0.5) < 1e-12 && fabs(q[1] - 0.5) < 1e-12);
	assert_true(fabs(q[2] - 0.5) < 1e-12 && fabs(q[3] - 0.5) < 1e-12);
	af_quat_to_euler_deg((const double[4]){ 0, 0, 0, 1 }, e);
	assert_true(e[0] == 0 && e[1] == 0 && e[2] == 0);
	af_fmt_euler(t, (const double[4]){ 0, 0, sqrt(0.5), sqrt(0.5) });
	assert_string_equal(t, "0.00, 0.00, 90.00");
	af_fmt_euler(t, (const double[4]){ 0, sin(M_PI / 8), 0, cos(M_PI / 8) });
	assert_string_equal(t, "0.00, 45.00, 0.00");
	af_fmt_euler(t, (const double[4]){ -sin(M_PI / 12), 0, 0, cos(M_PI / 12) });
	assert_string_equal(t, "-30.00, 0.00, 0.00");
}

/* angles away from the gimbal lock come back, and q and -q give the same angles */
static void test_round_trip(void **state)
{
	(void)state;
	uint32_t s = 12345;
	for (int i = 0; i < 100000; i++) {
		double e[3], q[4], back[3], neg[4], eb[3];
		for (int j = 0; j < 3; j++) {
			s = s * 1664525u + 1013904223u;
			e[j] = (double)(s >> 8) / (1 << 24) * 360 - 180;
		}
		e[1] *= 0.49; /* |y| < 88.2 */
		af_euler_deg_to_quat(e, q);
		assert_true(fabs(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] - 1) < 1e-12);
		assert_true(q[3] >= 0);
		af_quat_to_euler_deg(q, back);
		for (int j = 0; j < 3; j++)
			if (fabs(back[j] - e[j]) > 1e-7)
				fail_msg("(%g, %g, %g) came back as (%g, %g, %g)", e[0], e[1], e[2], back[0],
					 back[1], back[2]);
		for (int j = 0; j < 4; j++)
			neg[j] = -q[j];
		af_quat_to_euler_deg(neg, eb);
		for (int j = 0; j < 3; j++)
			assert_true(fabs(eb[j] - back[j]) < 1e-9);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known),
		cmocka_unit_test(test_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
