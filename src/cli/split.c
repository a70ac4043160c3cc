/* `animfs decode FILE --split DIR` and `animfs encode DIR`: a view as a folder of small
 * documents (animfs/split.h), written and read back. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "animfs/fs.h"
#include "animfs/fileio.h"
#include "animfs/split.h"
#include "animfs/yamlio.h"

int af_cli_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A part a split of c writes ("KEY-....yaml"), so a stale one of an earlier split goes. */
static int part_of(const struct af_codec *c, const char *name)
{
	size_t l = strlen(name);
	if (!af_split_part_name_ok(name, l))
		return 0;
	for (const struct af_split_key *k = c->split; k->key; k++)
		if (!strncmp(name, k->key, strlen(k->key)) && name[strlen(k->key)] == '-')
			return 1;
	return 0;
}

static int listed(const struct af_split *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->parts[i].name, name))
			return 1;
	return 0;
}

int af_cli_split_write(const struct af_codec *c, const char *dir, const uint8_t *yaml, size_t n,
		       const char *schema_ref, struct af_diag *d)
{
	struct af_split s;
	char path[PATH_MAX];
	DIR *dh;
	int rc;
	if (!af_split_able(c))
		return af_diag_error(d, AF_EUNSUP, "%s views are not split (the format names no lists to cut)",
				     c->name);
	if (mkdir(dir, 0755) && errno != EEXIST)
		return af_diag_error(d, AF_EIO, "%s: %s", dir, strerror(errno));
	if (!af_cli_is_dir(dir))
		return af_diag_error(d, AF_EINVAL, "%s: not a folder", dir);
	struct af_ylimits lim = { .max_bytes = af_ytree_budget((size_t)AF_DEFAULT_CACHE_MB << 20, n) };
	if ((rc = af_split_view(c, yaml, n, schema_ref, &lim, &s, d)))
		return rc;
	for (size_t i = 0; i < s.n && !rc; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, s.parts[i].name);
		rc = af_cli_write(path, s.parts[i].text.data, s.parts[i].text.len, 0644, d);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, AF_SPLIT_INDEX);
	if (!rc)
		rc = af_cli_write(path, s.index.data, s.index.len, 0644, d);
	if (!rc && (dh = opendir(dir))) { /* parts of an earlier split that this one has not */
		struct dirent *e;
		while ((e = readdir(dh)))
			if (part_of(c, e->d_name) && !listed(&s, e->d_name))
				unlinkat(dirfd(dh), e->d_name, 0);
		closedir(dh);
	}
	af_split_free(&s);
	return rc;
}

struct reader {
	int dirfd;
};

static int read_part(void *ctx, const char *name, struct af_buf *out, struct af_diag *d)
{
	struct reader *r = ctx;
	return af_read_file_at(r->dirfd, name, AF_MAX_YAML, out, d);
}

int af_cli_split_encode(const char *dir, const char *outpath, size_t cache_bytes, struct af_buf *out)
{
	struct af_buf index = AF_BUF_INIT;
	struct af_diag d;
	struct reader r = {open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
	const struct af_codec *c = NULL, *claimed = NULL;
	char where[AF_SPLIT_NAME_MAX] = AF_SPLIT_INDEX, file[PATH_MAX];
	uint8_t head[AF_BID_HEAD];
	size_t got = 0;
	int rc = -1;

	af_diag_init(&d);
	if (r.dirfd < 0) {
		af_diag_error(&d, AF_EIO, "%s", strerror(errno));
		snprintf(where, sizeof(where), "%s", "");
		goto out;
	}
	if (af_read_file_at(r.dirfd, AF_SPLIT_INDEX, AF_MAX_YAML, &index, &d))
		goto out;
	if (outpath && strcmp(outpath, "-") && af_read_head_at(AT_FDCWD, outpath, head, sizeof(head), &got) == 0)
		claimed = af_codec_bid(strrchr(outpath, '/') ? strrchr(outpath, '/') + 1 : outpath, head, got);
	if (!(c = af_codec_for_save(claimed, outpath ? outpath : "", index.data, index.len, &d)))
		goto out;
	{
		struct af_cli_io io;
		af_cli_io_init(&io, outpath && strcmp(outpath, "-") ? outpath : "", 1);
		io.d.io.yaml_max = af_ytree_budget(cache_bytes, index.len);
		rc = af_split_join(c, index.data, index.len, read_part, &r, &io.d.io, out, &d, where,
				   sizeof(where));
		af_cli_io_close(&io);
	}
out:
	snprintf(file, sizeof(file), "%s%s%s", dir, where[0] ? "/" : "", where);
	af_cli_report_in(dir, "/", file, &d);
	if (r.dirfd >= 0)
		close(r.dirfd);
	af_buf_free(&index);
	af_diag_free(&d);
	return rc ? -1 : 0;
}
