/* Euler angles in degrees <-> unit quaternions (rot.h): order X, Y, Z about fixed axes. */
#include <math.h>

#include "animfs/num.h"
#include "animfs/rot.h"

#define DEG (180.0 / 3.14159265358979323846)

void af_quat_to_euler_deg(const double q[4], double e[3])
{
	double x = q[0], y = q[1], z = q[2], w = q[3];
	double sp = 2 * (w * y - z * x);
	e[0] = atan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y)) * DEG;
	e[1] = asin(sp > 1 ? 1 : sp < -1 ? -1 : sp) * DEG;
	e[2] = atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)) * DEG;
}

void af_euler_deg_to_quat(const double e[3], double q[4])
{
	double cx = cos(e[0] / DEG / 2), sx = sin(e[0] / DEG / 2);
	double cy = cos(e[1] / DEG / 2), sy = sin(e[1] / DEG / 2);
	double cz = cos(e[2] / DEG / 2), sz = sin(e[2] / DEG / 2);
	q[0] = sx * cy * cz - cx * sy * sz;
	q[1] = cx * sy * cz + sx * cy * sz;
	q[2] = cx * cy * sz - sx * sy * cz;
	q[3] = cx * cy * cz + sx * sy * sz;
	if (q[3] < 0)
		for (int i = 0; i < 4; i++)
			q[i] = -q[i];
}

size_t af_fmt_euler(char *out, const double q[4])
{
	double e[3];
	char *p = out;
	af_quat_to_euler_deg(q, e);
	for (int i = 0; i < 3; i++) {
		long long r = llround(e[i] * 100);
		if (i) {
			*p++ = ',';
			*p++ = ' ';
		}
		p += af_fmt_dec(p, r, 2);
	}
	return (size_t)(p - out);
}
