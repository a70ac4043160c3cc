/* `animfs import FILE.glb|FILE.gltf --into GAMEFILE[/MEMBER] [-o OUT] [--anim NAME]...`: a
 * glTF (a preview of GAMEFILE, edited, e.g. in Blender) brought back into the game file as
 * a merge into it (gltf.h: af_gltf_import): the channels that differ from the file's are
 * re-keyed in its format, everything else stays as the file has it. The result replaces
 * GAMEFILE as a save of its view would (the mount's save pipeline: proven, read back,
 * unchanged skipped), or goes to OUT; a container's member (`X.package/NAME.clip`) goes
 * back into the container as `animfs encode` puts a member's view there (unchanged: the
 * container is not written), or, with -o, its binary to OUT. A line per changed channel
 * on standard output; nothing is written when anything cannot map. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "animfs/codec.h"
#include "animfs/fileio.h"
#include "animfs/fs.h"
#include "animfs/gltf.h"
#include "archive.h"
#include "cli.h"

#define GLTF_MAX ((size_t)1 << 30)
#define BIN_MAX ((size_t)1 << 31)

struct job {
	struct af_buf *gl, *bin;
	struct af_gltf_import_opts o;
	struct af_buf *out, *report;
	int merged;           /* the merge ran: its errors are the glTF's */
	int member;           /* into a container's member (its view is encoded for bin) */
	struct af_buf *view;  /* the new view, for the save (NULL: the bytes are written out) */
	int same;             /* the merge changed nothing */
	int readonly;         /* the new view is read-only: its bytes are written as they are */
};

/* A member's binary: its view encoded (every codec gives back the bytes it decoded). */
static int member_bin(const struct af_buf *yaml, const struct af_io *io, struct af_buf *bin, struct af_diag *d)
{
	const struct af_codec *c = af_codec_for_yaml(yaml->data, yaml->len, d);
	if (!c)
		return d->code ? d->code : af_diag_error(d, AF_EUNSUP, "the member's view names no format");
	return c->from_yaml(yaml->data, yaml->len, io, bin, d);
}

static int merge(void *ctx, const struct af_buf *yaml, const struct af_io *io, struct af_diag *d)
{
	struct job *j = ctx;
	int rc;
	j->o.io = io;
	if (j->member && (rc = member_bin(yaml, io, j->bin, d)))
		return rc;
	j->merged = 1;
	if ((rc = af_gltf_import(j->gl->data, j->gl->len, yaml->data, yaml->len, j->bin->data, j->bin->len, &j->o,
				 j->out, j->report, d)) || !j->view)
		return rc;
	j->same = j->out->len == j->bin->len && !memcmp(j->out->data, j->bin->data, j->bin->len);
	if (j->same)
		return 0;
	/* the container takes a member as its view: the new binary's, read as the member is */
	const struct af_codec *c = af_codec_for_yaml(yaml->data, yaml->len, d);
	rc = c->to_yaml(j->out->data, j->out->len, io, j->view, d);
	j->readonly = rc == AF_VIEW_READONLY;
	return j->readonly ? 0 : rc;
}

int af_cli_import(int argc, char **argv)
{
	const char *in = NULL, *outp = NULL, *into = NULL, *where = NULL, *mname = NULL;
	char arc[4096];
	int member;
	const char **anims = af_alloc_zeroed((size_t)argc, sizeof(char *));
	struct af_buf gl = AF_BUF_INIT, bin = AF_BUF_INIT, yaml = AF_BUF_INIT, out = AF_BUF_INIT, rep = AF_BUF_INIT;
	struct af_buf view = AF_BUF_INIT;
	struct af_diag d;
	int rc = AF_EXIT_FAIL;
	af_diag_init(&d);
	if (!anims) {
		perror("animfs");
		return AF_EXIT_FAIL;
	}
	struct af_cli_valopt opts[] = {{"--into", &into, 0, 0}, {"--anim", anims, 0, 1}};
	int refit = 0, kept = 0;
	for (int i = 0; i < argc; i++) /* --refit: a flag, taken out before the value options */
		if (i > 0 && !strcmp(argv[i], "--refit"))
			refit = 1;
		else
			argv[kept++] = argv[i];
	argc = kept;
	if ((rc = af_cli_in_out_args("import", argc, argv, opts, 2, &in, &outp)))
		goto out;
	rc = AF_EXIT_FAIL;
	if (!into) {
		fprintf(stderr, "animfs import: --into GAMEFILE names the file the glTF goes back into\n");
		rc = af_cli_usage("import");
		goto out;
	}
	if (af_read_file_at(AT_FDCWD, in, GLTF_MAX, &gl, &d)) {
		where = in;
		goto out;
	}
	member = af_cli_arc_split(into, arc, sizeof(arc), &mname);
	if (!member && af_read_file_at(AT_FDCWD, into, BIN_MAX, &bin, &d)) {
		where = into;
		goto out;
	}
	/* a file replaced in place: saved as its view would be, as the mount saves a
	 * preview brought back (af_save_file) */
	int in_place = !member && !outp && af_cli_saves_through(into);
	struct job j = {&gl, &bin, {opts[1].n ? anims : NULL, opts[1].n, NULL, NULL, refit}, &out, &rep, 0,
			member, member || in_place ? &view : NULL, 0, 0};
	if (af_cli_view_yaml_with(into, &yaml, &where, &d, merge, &j)) {
		if (j.merged)
			where = in;
		goto out;
	}
	if (member && !outp) { /* into the container, through a member's encode; unchanged: nothing */
		fwrite(rep.data, 1, rep.len, stdout);
		fflush(stdout);
		rc = j.same ? AF_EXIT_OK
			     : af_cli_arc_encode_text(&view, into, arc, mname, (size_t)AF_DEFAULT_CACHE_MB << 20);
		goto out;
	}
	if (in_place && !j.readonly) { /* unchanged: nothing written */
		fwrite(rep.data, 1, rep.len, stdout);
		fflush(stdout);
		struct af_cli_file_save s = {&view, into, into, NULL, NULL, NULL, (size_t)AF_DEFAULT_CACHE_MB << 20};
		rc = j.same ? AF_EXIT_OK : af_cli_file_save(&s);
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
	af_buf_free(&view);
	af_diag_free(&d);
	return rc;
}
