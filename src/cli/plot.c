/* `animfs plot FILE [--object NAME]... [--rig-dir DIR] [-o OUT.svg]`: an SVG of a file's curves. FILE
 * is a view (YAML), a binary, which is decoded first, or a container's member
 * (X/MEMBER, as decode takes it); the picture is drawn from the YAML alone (plot.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "animfs/path.h"
#include "cli.h"
#include "animfs/fileio.h"
#include "animfs/plot.h"
#include "animfs/yamlio.h"
#include "archive.h"

/* The YAML of in: the text itself when it names a format, else its decode. */
static int to_yaml(const char *path, const struct af_buf *in, const struct af_io *rig_dir,
		   struct af_buf *yaml, struct af_diag *d)
{
	struct af_diag quiet;
	struct af_cli_io io;
	const struct af_codec *c;
	int rc;
	af_diag_init(&quiet);
	c = af_codec_for_yaml(in->data, in->len, &quiet);
	af_diag_free(&quiet);
	if (c || (strlen(path) > 5 && !strcmp(path + strlen(path) - 5, ".yaml")))
		return af_buf_append(yaml, in->data, in->len);
	af_cli_io_init(&io, path, 0);
	io.d.io.rig_dir = rig_dir;
	c = af_codec_bid(io.d.io.name, in->data, in->len < AF_BID_HEAD ? in->len : AF_BID_HEAD);
	if (!c)
		rc = af_diag_error(d, AF_EUNSUP, "no codec recognises this file (see 'animfs formats')");
	else
		rc = c->to_yaml(in->data, in->len, &io.d.io, yaml, d);
	if (rc == AF_VIEW_READONLY) {
		af_diag_clear(d);
		rc = 0;
	}
	af_cli_io_close(&io);
	return rc;
}

/* The YAML of in (rig_dir: a decode's --rig-dir, or NULL), then with. */
static int view_yaml(const char *in, const struct af_io *rig_dir, struct af_buf *yaml, const char **where,
		     struct af_diag *d, af_cli_with_fn *with, void *ctx)
{
	char arc[4096];
	const char *member;
	struct af_buf bin = AF_BUF_INIT;
	struct af_opts opts = {NULL, 0, rig_dir};
	int rc;
	*where = in;
	if (af_cli_arc_split(in, arc, sizeof(arc), &member)) { /* as decode reads it */
		rc = with ? af_cli_arc_render_with(in, arc, member, yaml, where, d, with, ctx)
			  : af_cli_arc_render(in, arc, member, NULL, &opts, yaml, where, d);
	} else {
		rc = af_read_file_at(AT_FDCWD, strcmp(in, "-") ? in : "/dev/stdin", AF_MAX_YAML, &bin, d) ||
			     to_yaml(in, &bin, rig_dir, yaml, d) ? -1 : 0;
		if (!rc && with) {
			struct af_cli_io io;
			af_cli_io_init(&io, strcmp(in, "-") ? in : "", 0);
			rc = with(ctx, yaml, &io.d.io, d);
			af_cli_io_close(&io);
		}
	}
	af_buf_free(&bin);
	*where = in;
	return rc;
}

int af_cli_view_yaml_with(const char *in, struct af_buf *yaml, const char **where, struct af_diag *d,
			  af_cli_with_fn *with, void *ctx)
{
	return view_yaml(in, NULL, yaml, where, d, with, ctx);
}

int af_cli_view_yaml(const char *in, struct af_buf *yaml, const char **where, struct af_diag *d)
{
	return view_yaml(in, NULL, yaml, where, d, NULL, NULL);
}

int af_cli_output(const char *outp, const struct af_buf *b)
{
	struct af_diag d;
	int rc = 0;
	if (!outp || !strcmp(outp, "-")) {
		if (fwrite(b->data, 1, b->len, stdout) != b->len || fflush(stdout)) {
			perror("animfs: writing the output");
			return -1;
		}
		return 0;
	}
	af_diag_init(&d);
	if (af_cli_write(outp, b->data, b->len, 0644, &d)) {
		af_cli_report(outp, &d);
		rc = -1;
	}
	af_diag_free(&d);
	return rc;
}

int af_cli_in_out_args(const char *name, int argc, char **argv, struct af_cli_valopt *opts,
		       size_t nopts, const char **in, const char **out)
{
	*in = *out = NULL;
	for (int i = 1; i < argc; i++) {
		size_t k = 0;
		while (k < nopts && (strcmp(argv[i], opts[k].name) || i + 1 >= argc))
			k++;
		if (k < nopts) {
			struct af_cli_valopt *v = &opts[k];
			v->vals[v->repeat ? v->n : 0] = argv[++i];
			v->n = v->repeat ? v->n + 1 : 1;
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			*out = argv[++i];
		else if ((argv[i][0] == '-' && argv[i][1]) || *in)
			return af_cli_usage(name);
		else
			*in = argv[i];
	}
	return *in ? 0 : af_cli_usage(name);
}

int af_cli_plot(int argc, char **argv)
{
	const char *in = NULL, *outp = NULL, **objects = af_alloc_zeroed((size_t)argc, sizeof(char *));
	const char *where = NULL;
	struct af_buf yaml = AF_BUF_INIT, svg = AF_BUF_INIT;
	struct af_plot_opts o = { 0 };
	struct af_diag d;
	int rc = AF_EXIT_FAIL;
	af_diag_init(&d);
	if (!objects) {
		perror("animfs");
		return AF_EXIT_FAIL;
	}
	const char *rigdir = NULL;
	struct af_dirio rd;
	int rdfd = -1;
	struct af_cli_valopt opt[] = {{"--object", objects, 0, 1}, {"--rig-dir", &rigdir, 0, 0}};
	if ((rc = af_cli_in_out_args("plot", argc, argv, opt, 2, &in, &outp)))
		goto out;
	rc = AF_EXIT_FAIL;
	o.nobjects = opt[0].n;
	o.objects = objects;
	o.title = af_base(in);
	if (rigdir) { /* a binary clip's bones named as decode --rig-dir names them */
		if ((rdfd = open(rigdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
			fprintf(stderr, "animfs plot: --rig-dir %s: %s\n", rigdir, strerror(errno));
			goto out;
		}
		af_dirio_init(&rd, rdfd, "", 0);
	}
	if (view_yaml(in, rigdir ? &rd.io : NULL, &yaml, &where, &d, NULL, NULL))
		goto out;
	if (af_plot_svg(yaml.data, yaml.len, &o, &svg, &d))
		goto out;
	if (af_cli_output(outp, &svg))
		goto out;
	rc = AF_EXIT_OK;
out:
	if (d.code)
		af_cli_report(where ? where : "plot", &d);
	if (rdfd >= 0)
		close(rdfd);
	free(objects);
	af_buf_free(&yaml);
	af_buf_free(&svg);
	af_diag_free(&d);
	return rc;
}
