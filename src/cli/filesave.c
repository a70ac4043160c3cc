/* A loose game file saved from the command line (`animfs encode X.yaml -o FILE`, `animfs
 * import G.glb --into FILE`) through the mount's save pipeline (af_save_file): the
 * saver's right proven by opening FILE for writing, the document encoded under the
 * memory bound, --overlay's copy-up in its layout, the new bytes read back before they
 * replace FILE, nothing written when they are FILE's already, its owner, group and mode
 * kept; a save of FILE's own bytes writes nothing, silently. What no view stands for (standard output, a device or FIFO, a symlink, a folder)
 * the command line writes itself (af_cli_write). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "animfs/fileio.h"
#include "animfs/fs.h"
#include "animfs/path.h"
#include "cli.h"

int af_cli_saves_through(const char *path)
{
	struct stat st;
	if (!path || !strcmp(path, "-"))
		return 0;
	return lstat(path, &st) ? errno == ENOENT : S_ISREG(st.st_mode);
}

const char *af_cli_dir_of(const char *path, char *dir, size_t size)
{
	const char *base = af_base(path);
	size_t n = (size_t)(base - path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	snprintf(dir, size, "%.*s", n ? (int)n : 1, n ? path : ".");
	return base;
}

void af_cli_drop_old_warnings(const struct af_codec *c, const struct af_buf *old,
			      const struct af_io *io, struct af_diag *d)
{
	struct af_buf yaml = AF_BUF_INIT, bin = AF_BUF_INIT;
	struct af_diag od, quiet;
	struct af_io sil = *io;
	af_diag_init(&od);
	af_diag_init(&quiet);
	sil.learn_names = NULL;
	if (old->len && !c->to_yaml(old->data, old->len, &sil, &yaml, &quiet) &&
	    !c->from_yaml(yaml.data, yaml.len, &sil, &bin, &od))
		af_diag_drop_known(d, &od);
	af_buf_free(&yaml);
	af_buf_free(&bin);
	af_diag_free(&od);
	af_diag_free(&quiet);
}

/* The file the save replaces (with --overlay: MODDIR's copy, else GAME's), held open
 * across the save: its old warnings are read from it afterwards, whatever the name
 * then holds. -1 when there is none. */
static int hold_old(const struct af_cli_file_save *s)
{
	int fd = s->ov ? open(s->ov->mod, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
	if (fd < 0)
		fd = open(s->out, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	return fd;
}

static void drop_old(const struct af_cli_file_save *s, int oldfd, const struct af_codec *c,
		     struct af_diag *d)
{
	struct af_buf old = AF_BUF_INIT;
	struct af_diag quiet;
	struct af_cli_io io;
	af_diag_init(&quiet);
	af_cli_io_init(&io, s->ov ? s->ov->mod : s->out, 0);
	if (!af_read_fd(oldfd, AF_MAX_FILE, &old, &quiet))
		af_cli_drop_old_warnings(c, &old, &io.d.io, d);
	af_cli_io_close(&io);
	af_buf_free(&old);
	af_diag_free(&quiet);
}

int af_cli_file_save(const struct af_cli_file_save *s)
{
	char dir[4096], moddir[8400];
	const char *file = s->ov ? s->ov->mod : s->out;
	struct af_save_said said;
	int rc = AF_EXIT_FAIL, oldfd = hold_old(s);
	af_diag_init(&said.d);
	/* GAME's folder; with --overlay MODDIR's folder of the same path at its place */
	struct af_save_once once = {dir, NULL, af_cli_dir_of(s->out, dir, sizeof(dir)), s->cache_bytes,
				    s->layout, 1};
	if (s->ov) {
		af_cli_dir_of(s->ov->mod, moddir, sizeof(moddir));
		once.moddir = moddir;
	}
	if (af_save_file(&once, s->yaml->data, s->yaml->len, &said)) {
		af_cli_report(said.late ? file : s->where, &said.d);
		goto out;
	}
	if (said.d.warnings.len && said.codec && oldfd >= 0)
		drop_old(s, oldfd, said.codec, &said.d);
	if (said.d.warnings.len)
		af_cli_report(s->where, &said.d);
	/* unchanged (the file's bytes already, or with --overlay GAME's: no copy made): said
	 * by nothing, as before the pipeline (cli/warnings) */
	if (said.wrote && s->how && s->how[0] && said.codec && af_codec_layout(said.codec, s->layout))
		fprintf(stderr, "animfs encode: %s: written in the %s layout, %s (--to LAYOUT chooses "
			"another)\n", file, s->layout, s->how);
	rc = AF_EXIT_OK;
out:
	if (oldfd >= 0)
		close(oldfd);
	af_diag_free(&said.d);
	return rc;
}
