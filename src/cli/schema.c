/* `animfs schema`: each codec's JSON Schema, and where the command line's decodes
 * point their yaml-language-server modeline (the installed schemas). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "animfs/fileio.h"
#include "animfs/split.h"

#ifndef ANIMFS_SCHEMA_DIR
#define ANIMFS_SCHEMA_DIR "/usr/local/share/animfs/schema"
#endif

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The folder of the schemas for this binary: beside an installed binary
 * (BIN/../share/animfs/schema, so a moved prefix still works), in a build tree
 * (BUILD/schema), else where the build was configured to install them. */
static void schema_dir(char *out, size_t size)
{
	char exe[PATH_MAX], try[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;
		exe[n] = 0;
		if ((slash = strrchr(exe, '/')))
			*slash = 0;
		snprintf(try, sizeof(try), "%s/../share/animfs/schema", exe);
		if (is_dir(try) && realpath(try, out))
			return;
		snprintf(try, sizeof(try), "%s/schema", exe);
		if (is_dir(try) && realpath(try, out))
			return;
	}
	snprintf(out, size, "%s", ANIMFS_SCHEMA_DIR);
}

void af_cli_schema_ref(char *out, size_t size)
{
	static const char keep[] = "/-._~";
	char dir[PATH_MAX];
	size_t o;
	schema_dir(dir, sizeof(dir));
	o = (size_t)snprintf(out, size, "file://");
	for (const unsigned char *p = (const unsigned char *)dir; *p && o + 4 < size; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr(keep, *p))
			out[o++] = (char)*p;
		else
			o += (size_t)snprintf(out + o, size - o, "%%%02X", *p);
	out[o < size ? o : size - 1] = 0;
}

/* The schema of a split view's index (key NULL) or of a part of list key. */
static int write_split(const char *dir, const struct af_codec *c, const char *key)
{
	struct af_buf b = AF_BUF_INIT;
	struct af_diag d;
	char name[256], path[PATH_MAX];
	int rc = AF_EXIT_OK;
	af_diag_init(&d);
	af_split_schema_name(c, key, name, sizeof(name));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (af_split_schema(c, key, &b) == 0 && af_cli_write(path, b.data, b.len, 0644, &d)) {
		af_cli_report(path, &d);
		rc = AF_EXIT_FAIL;
	}
	af_diag_free(&d);
	af_buf_free(&b);
	return rc;
}

static int write_all(const char *dir)
{
	int rc = AF_EXIT_OK;
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "animfs schema: %s: %s\n", dir, strerror(errno));
		return AF_EXIT_FAIL;
	}
	for (size_t i = 0; af_codecs[i]; i++) {
		struct af_buf b = AF_BUF_INIT;
		struct af_diag d;
		char path[PATH_MAX];
		af_diag_init(&d);
		snprintf(path, sizeof(path), "%s/%s.json", dir, af_codecs[i]->name);
		if (af_codec_schema(af_codecs[i], &b) == 0 &&
		    af_cli_write(path, b.data, b.len, 0644, &d)) {
			af_cli_report(path, &d);
			rc = AF_EXIT_FAIL;
		}
		if (af_split_able(af_codecs[i])) { /* a split view's index and parts (split.h) */
			rc |= write_split(dir, af_codecs[i], NULL);
			for (const struct af_split_key *k = af_codecs[i]->split; k->key; k++)
				rc |= write_split(dir, af_codecs[i], k->key);
		}
		af_diag_free(&d);
		af_buf_free(&b);
	}
	return rc;
}

int af_cli_schema(int argc, char **argv)
{
	struct af_buf b = AF_BUF_INIT;
	const struct af_codec *c;
	int rc;
	if (argc == 3 && !strcmp(argv[1], "--all"))
		return write_all(argv[2]);
	if (argc != 2 || argv[1][0] == '-') {
		return af_cli_usage("schema");
	}
	if (!(c = af_codec_by_name(argv[1]))) {
		fprintf(stderr, "animfs: unknown format '%s' (see 'animfs formats')\n", argv[1]);
		return AF_EXIT_USAGE;
	}
	rc = af_codec_schema(c, &b);
	if (rc)
		fprintf(stderr, "animfs schema: %s has no schema\n", c->name);
	else if (fwrite(b.data, 1, b.len, stdout) != b.len || fflush(stdout))
		rc = -1, perror("animfs: writing the output");
	af_buf_free(&b);
	return rc ? AF_EXIT_FAIL : AF_EXIT_OK;
}
