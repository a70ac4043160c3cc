/* `animfs import FILE.glb|FILE.gltf --into GAMEFILE [-o OUT] [--anim NAME]...`: a glTF
 * (a preview of GAMEFILE, edited, e.g. in Blender) brought back into the game file as a
 * merge into it (gltf.h: af_gltf_import): the channels that differ from the file's are
 * re-keyed in its format, everything else stays as the file has it. GAMEFILE is taken
 * as a binary (a container's member is not taken yet); the result replaces GAMEFILE
 * atomically, or goes to OUT. A line per changed channel on standard output; nothing is
 * written when anything cannot map. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "animfs/fileio.h"
#include "animfs/gltf.h"
#include "cli.h"

#define GLTF_MAX ((size_t)1 << 30)
#define BIN_MAX ((size_t)1 << 31)

struct job {
	const struct af_buf *gl, *bin;
	struct af_gltf_import_opts o;
	struct af_buf *out, *report;
	int merged; /* the merge ran: its errors are the glTF's */
};

static int merge(void *ctx, const struct af_buf *yaml, const struct af_io *io, struct af_diag *d)
{
	struct job *j = ctx;
	j->o.io = io;
	j->merged = 1;
	return af_gltf_import(j->gl->data, j->gl->len, yaml->data, yaml->len, j->bin->data, j->bin->len, &j->o,
			      j->out, j->report, d);
}

/* Whether path names a member of a container (its folder part is no folder). */
static int is_member(const char *path)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	if (!slash || slash == path || (size_t)(slash - path) >= sizeof(dir))
		return 0;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = 0;
	return !af_cli_is_dir(dir) && access(dir, F_OK) == 0;
}

int af_cli_import(int argc, char **argv)
{
	const char *in = NULL, *outp = NULL, *into = NULL, *where = NULL;
	const char **anims = af_alloc_zeroed((size_t)argc, sizeof(char *));
	struct af_buf gl = AF_BUF_INIT, bin = AF_BUF_INIT, yaml = AF_BUF_INIT, out = AF_BUF_INIT, rep = AF_BUF_INIT;
	struct af_diag d;
	int rc = AF_EXIT_FAIL;
	af_diag_init(&d);
	if (!anims) {
		perror("animfs");
		return AF_EXIT_FAIL;
	}
	struct af_cli_valopt opts[] = {{"--into", &into, 0, 0}, {"--anim", anims, 0, 1}};
	if ((rc = af_cli_in_out_args("import", argc, argv, opts, 2, &in, &outp)))
		goto out;
	rc = AF_EXIT_FAIL;
	if (!into) {
		fprintf(stderr, "animfs import: --into GAMEFILE names the file the glTF goes back into\n");
		rc = af_cli_usage("import");
		goto out;
	}
	if (is_member(into)) {
		fprintf(stderr, "animfs import: %s is a member of a container, which import does not take yet: "
			"extract it, or save the glTF in a mount (docs/gltf.md)\n", into);
		goto out;
	}
	if (af_read_file_at(AT_FDCWD, in, GLTF_MAX, &gl, &d)) {
		where = in;
		goto out;
	}
	if (af_read_file_at(AT_FDCWD, into, BIN_MAX, &bin, &d)) {
		where = into;
		goto out;
	}
	struct job j = {&gl, &bin, {opts[1].n ? anims : NULL, opts[1].n, NULL, NULL}, &out, &rep, 0};
	if (af_cli_view_yaml_with(into, &yaml, &where, &d, merge, &j)) {
		if (j.merged)
			where = in;
		goto out;
	}
	if (af_cli_write(outp ? outp : into, out.data, out.len, 0644, &d)) {
		where = outp ? outp : into;
		goto out;
	}
	fwrite(rep.data, 1, rep.len, stdout);
	rc = AF_EXIT_OK;
out:
	if (d.code)
		af_cli_report(where ? where : "import", &d);
	free(anims);
	af_buf_free(&gl);
	af_buf_free(&bin);
	af_buf_free(&yaml);
	af_buf_free(&out);
	af_buf_free(&rep);
	af_diag_free(&d);
	return rc;
}
