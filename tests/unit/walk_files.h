/* The tests' walk of a folder tree (the samples): fn for each file beneath dir, in
 * readdir order, folders first followed down; names starting with '.' are skipped. */
#ifndef TEST_WALK_FILES_H
#define TEST_WALK_FILES_H

#include <dirent.h>
#include <stddef.h>
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

/* 1 when the n bytes of path are a variant of a file an earlier call was given: the same
 * size, under 1% of the bytes different (the two Shenmue motion banks differ in 1,527 of
 * 1.8 M bytes); tests/samples.inc's sample_variant. A walk that checks what a text
 * parser makes of the views learns nothing new from a variant. Remembers 256 files. */
static inline int sample_variant(const char *path, const unsigned char *data, size_t n)
{
	static char seen[256][2048];
	static size_t sizes[256], count;
	for (size_t i = 0; i < count; i++) {
		FILE *f;
		size_t diff = 0, at = 0;
		int c;
		if (sizes[i] != n || !(f = fopen(seen[i], "rb")))
			continue;
		while ((c = getc(f)) != EOF && at < n && diff <= n / 100)
			diff += (unsigned char)c != data[at++];
		fclose(f);
		if (at == n && diff <= n / 100)
			return 1;
	}
	if (count < 256) {
		snprintf(seen[count], sizeof(seen[count]), "%s", path);
		sizes[count++] = n;
	}
	return 0;
}

#endif
