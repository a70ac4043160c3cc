/* Replays stored fuzz inputs as an ordinary test (gcc, sanitizers in CI).
 * Files in tests/fuzz/regressions/CODEC/bin and .../yaml (and CONTAINER/bin) are
 * crashers and property violations found before; every examples YAML goes through the
 * YAML property. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "animfs/fileio.h"
#include "fuzz_props.h"

static int replayed, failed;

static void run(const struct af_codec *c, const struct af_container *k, int yaml,
		const char *path)
{
	struct af_buf b = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	if (af_read_file_at(AT_FDCWD, path, AF_MAX_FILE, &b, &d) == 0) {
		replayed++;
		int rc = k ? af_fuzz_container(k, b.data, b.len)
			   : yaml ? af_fuzz_yaml(c, b.data, b.len) : af_fuzz_binary(c, b.data, b.len);
		if (rc) {
			failed++;
			fprintf(stderr, "FAIL %s (%s)\n", path, yaml ? "yaml" : "binary");
		}
	}
	af_buf_free(&b);
	af_diag_free(&d);
}

static void run_dir(const struct af_codec *c, const struct af_container *k, int yaml,
		    const char *dir)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	char path[8192];
	if (!dp)
		return;
	while ((e = readdir(dp))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		run(c, k, yaml, path);
	}
	closedir(dp);
}

int main(void)
{
	char dir[4096];
	for (size_t i = 0; af_codecs[i]; i++) {
		const struct af_codec *c = af_codecs[i];
		snprintf(dir, sizeof(dir), "%s/tests/fuzz/regressions/%s/bin", ANIMFS_SOURCE_DIR, c->name);
		run_dir(c, NULL, 0, dir);
		snprintf(dir, sizeof(dir), "%s/tests/fuzz/regressions/%s/yaml", ANIMFS_SOURCE_DIR, c->name);
		run_dir(c, NULL, 1, dir);
	}
	for (size_t i = 0; af_containers[i]; i++) {
		snprintf(dir, sizeof(dir), "%s/tests/fuzz/regressions/%s/bin", ANIMFS_SOURCE_DIR,
			 af_containers[i]->name);
		run_dir(NULL, af_containers[i], 0, dir);
	}
	/* every example document, through the codec it names */
	snprintf(dir, sizeof(dir), "%s/examples", ANIMFS_SOURCE_DIR);
	DIR *dp = opendir(dir);
	struct dirent *e;
	while (dp && (e = readdir(dp))) {
		char path[8192];
		struct af_buf b = AF_BUF_INIT;
		struct af_diag d;
		size_t l = strlen(e->d_name);
		if (l < 6 || strcmp(e->d_name + l - 5, ".yaml"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		af_diag_init(&d);
		if (af_read_file_at(AT_FDCWD, path, AF_MAX_FILE, &b, &d) == 0) {
			const struct af_codec *c = af_codec_for_yaml(b.data, b.len, &d);
			if (c) {
				replayed++;
				if (af_fuzz_yaml(c, b.data, b.len)) {
					failed++;
					fprintf(stderr, "FAIL %s\n", path);
				}
			}
		}
		af_buf_free(&b);
		af_diag_free(&d);
	}
	if (dp)
		closedir(dp);
	printf("%d passed, %d failed\n", replayed - failed, failed);
	return failed ? 1 : 0;
}
