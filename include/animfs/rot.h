/* Rotations for people: Euler angles in degrees <-> unit quaternions (x, y, z, w).
 * One convention everywhere (plots, the Diesel comments and Euler keys): rotation
 * order X, then Y, then Z, about the fixed axes (R = Rz Ry Rx), right-handed. */
#ifndef ANIMFS_ROT_H
#define ANIMFS_ROT_H

#include <stddef.h>

/* e = (about x, about y, about z) of the unit quaternion q = (x, y, z, w); y in
 * [-90, 90], x and z in (-180, 180]. */
void af_quat_to_euler_deg(const double q[4], double e[3]);
/* The unit quaternion of those angles, with w >= 0. */
void af_euler_deg_to_quat(const double e[3], double q[4]);
/* "rx, ry, rz" of q, 2 decimals each (at most 3 * 12 bytes and a NUL). */
size_t af_fmt_euler(char *out, const double q[4]);

#endif
