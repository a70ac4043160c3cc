/* Base names and extensions (path.h). */
#include <string.h>

#include "animfs/path.h"

const char *af_base(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

const char *af_ext(const char *path)
{
	const char *base = af_base(path), *dot = strrchr(base, '.');
	return dot && dot != base ? dot + 1 : "";
}
