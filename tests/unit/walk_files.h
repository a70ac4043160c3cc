/* The tests' walk of a folder tree (the samples): fn for each file beneath dir, in
 * readdir order, folders first followed down; names starting with '.' are skipped. */
#ifndef TEST_WALK_FILES_H
#define TEST_WALK_FILES_H

#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>

static void walk_files(const char *dir,
		       void (*fn)(void *ctx, const char *dir, const char *name, const char *path),
		       void *ctx)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	if (!dp)
		return;
	while ((e = readdir(dp))) {
		char path[2048];
		struct stat st;
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode))
			walk_files(path, fn, ctx);
		else
			fn(ctx, dir, e->d_name, path);
	}
	closedir(dp);
}

#endif
