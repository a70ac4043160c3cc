/* `animfs gltf FILE [-o OUT.glb|OUT.gltf] [--anim NAME]... [--rig FILE] [--rig-dir DIR]
 * [--skeleton FILE]`: a glTF 2.0
 * preview of a file's skeleton, meshes and animations. FILE is taken as plot takes it (a
 * view, a binary, CONTAINER/MEMBER); the preview is made from the YAML alone (gltf.h).
 * --rig names a file whose skeleton the animation moves; without it, the codec may find
 * one beside the file (its scene_base hook: a clip's rig in the same package), or else in
 * the folder --rig-dir names (rigs extracted from the game), by the same rule. --skeleton
 * names a text of "CHILD -> PARENT" lines that parents the preview's nodes (gltf.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "animfs/fileio.h"
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
	const char *in = NULL, *outp = NULL, *rig = NULL, *rigdir = NULL, *skel = NULL, *where = NULL, *rwhere = NULL;
	struct af_dirio rd;
	int rdfd = -1;
	const char **anims = af_alloc_zeroed((size_t)argc, sizeof(char *));
	struct af_buf yaml = AF_BUF_INIT, base = AF_BUF_INIT, g = AF_BUF_INIT, sk = AF_BUF_INIT;
	struct af_gltf_opts o = { 0 };
	struct af_diag d;
	int rc = AF_EXIT_FAIL;
	af_diag_init(&d);
	if (!anims) {
		perror("animfs");
		return AF_EXIT_FAIL;
	}
	struct af_cli_valopt opts[] = {{"--anim", anims, 0, 1}, {"--rig", &rig, 0, 0}, {"--rig-dir", &rigdir, 0, 0},
					 {"--skeleton", &skel, 0, 0}};
	if ((rc = af_cli_in_out_args("gltf", argc, argv, opts, 4, &in, &outp)))
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
	if (skel) {
		if (af_read_file_at(AT_FDCWD, skel, (size_t)1 << 20, &sk, &d)) {
			where = skel;
			goto out;
		}
		o.skeleton = sk.data;
		o.nskeleton = sk.len;
	}
	if (rigdir) {
		if ((rdfd = open(rigdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
			fprintf(stderr, "animfs: %s: %s\n", rigdir, strerror(errno));
			goto out;
		}
		af_dirio_init(&rd, rdfd, "", 0);
		o.rig_dir = &rd.io;
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
	if (rdfd >= 0)
		close(rdfd);
	af_buf_free(&yaml);
	af_buf_free(&base);
	af_buf_free(&sk);
	af_buf_free(&g);
	af_diag_free(&d);
	return rc;
}
