/* `animfs gltf FILE [-o OUT.glb|OUT.gltf] [--anim NAME]... [--rig FILE]`: a glTF 2.0
 * preview of a file's skeleton, meshes and animations. FILE is taken as plot takes it (a
 * view, a binary, CONTAINER/MEMBER); the preview is made from the YAML alone (gltf.h).
 * --rig names a file whose skeleton the animation moves; without it, the codec may find
 * one beside the file (its scene_base hook: a clip's rig in the same package). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/gltf.h"
#include "animfs/path.h"
#include "cli.h"

struct job {
	struct af_gltf_opts *o;
	struct af_buf *g;
};

/* The preview of yaml, with the file's siblings at hand (a rig found beside a clip). */
static int make(void *ctx, const struct af_buf *yaml, const struct af_io *io, struct af_diag *d)
{
	struct job *j = ctx;
	j->o->io = io;
	int rc = af_gltf_from_yaml(yaml->data, yaml->len, j->o, j->g, d);
	j->o->io = NULL;
	return rc;
}

int af_cli_gltf(int argc, char **argv)
{
	const char *in = NULL, *outp = NULL, *rig = NULL, *where = NULL, *rwhere = NULL;
	const char **anims = af_alloc_zeroed((size_t)argc, sizeof(char *));
	struct af_buf yaml = AF_BUF_INIT, base = AF_BUF_INIT, g = AF_BUF_INIT;
	struct af_gltf_opts o = { 0 };
	struct af_diag d;
	int rc = AF_EXIT_FAIL;
	af_diag_init(&d);
	if (!anims) {
		perror("animfs");
		return AF_EXIT_FAIL;
	}
	struct af_cli_valopt opts[] = {{"--anim", anims, 0, 1}, {"--rig", &rig, 0, 0}};
	if ((rc = af_cli_in_out_args("gltf", argc, argv, opts, 2, &in, &outp)))
		goto out;
	rc = AF_EXIT_FAIL;
	o.nanims = opts[0].n;
	o.anims = o.nanims ? anims : NULL;
	o.title = af_base(in);
	o.json = outp && strlen(outp) > 5 && !strcmp(outp + strlen(outp) - 5, ".gltf");
	if (rig) {
		if (af_cli_view_yaml(rig, &base, &rwhere, &d)) {
			where = rwhere;
			goto out;
		}
		o.base = base.data;
		o.nbase = base.len;
	}
	struct job j = { &o, &g };
	if (af_cli_view_yaml_with(in, &yaml, &where, &d, make, &j))
		goto out;
	if (af_cli_output(outp, &g))
		goto out;
	rc = AF_EXIT_OK;
out:
	if (d.code)
		af_cli_report(where ? where : "gltf", &d);
	free(anims);
	af_buf_free(&yaml);
	af_buf_free(&base);
	af_buf_free(&g);
	af_diag_free(&d);
	return rc;
}
