/* `animfs decode` and `animfs encode`: one file through one codec. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "animfs/path.h"
#include "cli.h"
#include "animfs/container.h"
#include "animfs/fileio.h"
#include "animfs/fs.h"
#include "animfs/userdict.h"
#include "animfs/yamlio.h"
#include "archive.h"

static int read_input(const char *path, size_t max, struct af_buf *in, struct af_diag *d)
{
	return af_read_file_at(AT_FDCWD, strcmp(path, "-") ? path : "/dev/stdin", max, in, d);
}

static int write_stdout(const struct af_buf *b)
{
	size_t off = 0;
	while (off < b->len) {
		ssize_t w = write(1, b->data + off, b->len - off);
		if (w <= 0)
			return -1;
		off += (size_t)w;
	}
	return 0;
}

/* Standard output when path is NULL or "-", else an atomic replace of path.
 * A write error is reported here (naming path) and leaves d clear. */
static int write_result(const char *path, const struct af_buf *b, struct af_diag *d)
{
	if (!path || !strcmp(path, "-")) {
		if (write_stdout(b) == 0)
			return 0;
		perror("animfs: writing the output");
		return -1;
	}
	if (af_cli_write(path, b->data, b->len, 0644, d) == 0)
		return 0;
	af_cli_report(path, d);
	af_diag_clear(d);
	return -1;
}

#define MAX_OPTS 16

struct args {
	const char *in, *out, *format, *schema_ref, *split;
	const char *rig_dir;        /* decode --rig-dir DIR */
	struct af_dirio rd;         /* its rigs (opts.rig_dir), read as the user */
	const char *overlay, *game; /* encode --overlay MODDIR [--game GAME] */
	const char *to, *layout;    /* [--to LAYOUT] [--overlay-layout NAME] */
	char how[160];              /* why in layout to when no --to chose it ("": --to did) */
	const char *on[MAX_OPTS]; /* the rendering options asked for (--NAME) */
	struct af_opts opts;
	size_t cache_bytes;       /* --cache-mb=N: the memory bound is it + 64 MiB */
};

/* Whether arg is `--NAME` of a rendering option some codec offers (codec.h); then it is
 * asked for. Each codec reads the ones it offers. */
static int render_option(struct args *a, const char *arg)
{
	const struct af_codec_opt *o = arg[0] == '-' && arg[1] == '-' ? af_codec_option(arg + 2) : NULL;
	if (!o)
		return 0;
	if (!af_opts_on(&a->opts, o->name) && a->opts.n < MAX_OPTS)
		a->on[a->opts.n++] = o->name;
	return 1;
}

void af_cli_decode_options(FILE *f)
{
	for (size_t i = 0; af_codecs[i]; i++)
		for (const struct af_codec_opt *o = af_codecs[i]->options; o && o->name; o++)
			if (af_codec_option(o->name) == o) /* once by name */
				fprintf(f, " [--%s]", o->name);
}

void af_cli_decode_options_help(FILE *f, int indent)
{
	for (size_t i = 0; af_codecs[i]; i++)
		for (const struct af_codec_opt *o = af_codecs[i]->options; o && o->name; o++)
			if (af_codec_option(o->name) == o)
				fprintf(f, "%*s--%s: %s (%s)\n", indent, "", o->name, o->help, af_codecs[i]->name);
}

static int parse_args(int argc, char **argv, struct args *a, int allow_format)
{
	memset(a, 0, sizeof(*a));
	a->opts.on = a->on;
	a->cache_bytes = (size_t)AF_DEFAULT_CACHE_MB << 20;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			a->out = argv[++i];
		else if (!allow_format && !strcmp(argv[i], "--overlay") && i + 1 < argc)
			a->overlay = argv[++i];
		else if (!allow_format && !strcmp(argv[i], "--game") && i + 1 < argc)
			a->game = argv[++i];
		else if (!allow_format && !strcmp(argv[i], "--to") && i + 1 < argc)
			a->to = argv[++i];
		else if (!allow_format && !strcmp(argv[i], "--overlay-layout") && i + 1 < argc)
			a->layout = argv[++i];
		else if (!strncmp(argv[i], "--cache-mb=", 11)) {
			if (af_cli_parse_mb(argv[0], "--cache-mb", argv[i] + 11, 1, &a->cache_bytes))
				return -1;
		}
		else if (allow_format && !strcmp(argv[i], "--format") && i + 1 < argc)
			a->format = argv[++i];
		else if (allow_format && !strcmp(argv[i], "--split") && i + 1 < argc)
			a->split = argv[++i];
		else if (allow_format && !strcmp(argv[i], "--schema-ref") && i + 1 < argc)
			a->schema_ref = argv[++i];
		else if (allow_format && !strcmp(argv[i], "--rig-dir") && i + 1 < argc)
			a->rig_dir = argv[++i];
		else if (allow_format && render_option(a, argv[i]))
			continue;
		else if (allow_format && !strcmp(argv[i], "--review")) {
			if (!af_opts_on(&a->opts, AF_CLI_REVIEW) && a->opts.n < MAX_OPTS)
				a->on[a->opts.n++] = AF_CLI_REVIEW;
		}
		else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "animfs %s: unknown option '%s'\n", argv[0], argv[i]);
			return -1;
		} else if (!a->in)
			a->in = argv[i];
		else {
			fprintf(stderr, "animfs %s: one input file only ('%s')\n", argv[0], argv[i]);
			return -1;
		}
	}
	if (!a->in) {
		af_cli_usage(argv[0]);
		return -1;
	}
	return 0;
}

/* The codec that decodes in: the one --format names, else the surest bidder.
 * NULL with d set, or with *rc set to a usage error already printed. */
static const struct af_codec *pick_decoder(const struct args *a, const struct af_io *io,
					   const struct af_buf *in, struct af_diag *d, int *rc)
{
	const struct af_codec *c;
	if (a->format) {
		c = af_codec_by_name(a->format);
		if (!c) {
			fprintf(stderr, "animfs: unknown format '%s' (see 'animfs formats')\n", a->format);
			*rc = AF_EXIT_USAGE;
		}
		return c;
	}
	c = af_codec_bid(io->name, in->data, in->len < AF_BID_HEAD ? in->len : AF_BID_HEAD);
	if (!c && af_container_bid(io->name, in->data, in->len < 64 ? in->len : 64))
		af_diag_error(d, AF_EUNSUP, "a container: decode it whole, %s/%s, or %s/MEMBER",
			      a->in, AF_INDEX_NAME, a->in);
	else if (!c)
		af_diag_error(d, AF_EUNSUP, "no codec recognises this file (see 'animfs formats')");
	return c;
}

/* The codec that encodes into a->out: the one rule (af_codec_for_save) with the codec
 * that claims the file already there, if one is. */
static const struct af_codec *encoder(const struct args *a, const struct af_buf *yaml,
				      struct af_diag *d)
{
	uint8_t head[AF_BID_HEAD];
	size_t got = 0;
	const struct af_codec *claimed = NULL;
	const char *name = a->out && strcmp(a->out, "-") ? a->out : "";
	if (name[0] && af_read_head_at(AT_FDCWD, name, head, sizeof(head), &got) == 0)
		claimed = af_codec_bid(af_base(name), head, got);
	return af_codec_for_save(claimed, name, yaml->data, yaml->len, d);
}

/* Warnings about what the file being replaced already held are noise: only what the
 * edit introduced is said (a symlink's file: the others are saved through the pipeline). */
static void drop_old_warnings(const struct af_codec *c, const char *path, const struct af_io *io,
			      struct af_diag *d)
{
	struct af_buf old = AF_BUF_INIT;
	struct af_diag quiet;
	af_diag_init(&quiet);
	if (path && strcmp(path, "-") && !af_read_file_at(AT_FDCWD, path, AF_MAX_FILE, &old, &quiet))
		af_cli_drop_old_warnings(c, &old, io, d);
	af_buf_free(&old);
	af_diag_free(&quiet);
}

/* What decode and encode share: read a->in, run it through the codec one way, write a->out.
 * Siblings are looked up beside the binary side (the input to decode, the output of encode). */
static int convert(const struct args *a, int decode)
{
	struct af_buf in = AF_BUF_INIT, out = AF_BUF_INIT;
	struct af_diag d;
	struct af_cli_io io;
	struct af_cli_bound bound;
	const struct af_codec *c;
	int rc = AF_EXIT_FAIL;

	af_diag_init(&d);
	af_cli_bound_init(&bound, a->cache_bytes);
	af_cli_io_init(&io, decode ? a->in : a->out, !decode); /* !decode: names typed are kept */
	if (decode) {
		io.d.io.opts = &a->opts;
		io.d.io.rig_dir = a->opts.rig_dir;
		io.d.io.mem_room = af_cli_bound_room;
		io.d.io.mem_ctx = &bound;
		out.bound = &bound.text;
	}
	struct stat st;
	if (decode && strcmp(a->in, "-") && stat(a->in, &st) == 0 && S_ISREG(st.st_mode) &&
	    !af_cli_bound_room(&bound, af_model_of((uint64_t)st.st_size))) { /* not read */
		af_cli_bound_refusal(&bound, 0, &d);
		goto out;
	}
	if (read_input(a->in, decode ? bound.model_max / AF_MODEL_PER_BYTE : AF_MAX_YAML, &in, &d))
		goto out;
	c = decode ? pick_decoder(a, &io.d.io, &in, &d, &rc) : encoder(a, &in, &d);
	if (!c)
		goto out;
	if (decode && af_codec_modeline(c, a->schema_ref, &out)) {
		af_diag_error(&d, AF_ENOMEM, "out of memory");
		goto out;
	}
	if (!decode)
		io.d.io.yaml_max = af_ytree_budget(a->cache_bytes, in.len);
	int crc = (decode ? c->to_yaml : c->from_yaml)(in.data, in.len, &io.d.io, &out, &d);
	if (decode && (out.over || bound.refused)) {
		af_cli_bound_refusal(&bound, out.over, &d);
		goto out;
	}
	if (decode && crc == AF_VIEW_READONLY) {
		/* a view all the same: the text says it is read-only, and why */
		char msg[1200];
		af_diag_format(&d, a->in, msg, sizeof(msg));
		fprintf(stderr, "animfs: note: shown read-only (animfs cannot write it back byte for byte): %s\n",
			msg);
		af_diag_clear(&d);
	} else if (crc) {
		goto out;
	}
	if (!decode && d.nwarnings)
		drop_old_warnings(c, a->out, &io.d.io, &d);
	if (decode && a->split) {
		if (af_cli_split_write(c, a->split, out.data, out.len, a->schema_ref, &d))
			goto out;
	} else if (write_result(a->out, &out, &d)) {
		goto out;
	}
	rc = AF_EXIT_OK;
out:
	if (d.code || d.warnings.len)
		af_cli_report(a->in, &d);
	af_buf_free(&in);
	af_buf_free(&out);
	af_diag_free(&d);
	return rc;
}

/* encode -o FILE of a regular file or a new one (ov: --overlay's place of it): through
 * the mount's save pipeline (filesave.c). */
static int save_file(const struct args *a, const struct af_cli_ov *ov)
{
	struct af_buf yaml = AF_BUF_INIT;
	struct af_diag d;
	int rc = AF_EXIT_FAIL;
	af_diag_init(&d);
	if (read_input(a->in, AF_MAX_YAML, &yaml, &d)) {
		af_cli_report(a->in, &d);
	} else {
		struct af_cli_file_save s = {&yaml, a->in, a->out, ov, a->to, a->how, a->cache_bytes};
		rc = af_cli_file_save(&s);
	}
	af_buf_free(&yaml);
	af_diag_free(&d);
	return rc;
}

int af_cli_decode(int argc, char **argv)
{
	struct args a;
	char pkg[4096], ref[8192];
	const char *member;

	if (parse_args(argc, argv, &a, 1))
		return AF_EXIT_USAGE;
	if (a.rig_dir) { /* its folder, opened for the run (the process ends it) */
		int fd = open(a.rig_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "animfs decode: --rig-dir %s: %s\n", a.rig_dir, strerror(errno));
			return AF_EXIT_FAIL;
		}
		af_dirio_init(&a.rd, fd, "", 0);
		a.opts.rig_dir = &a.rd.io;
	}
	if (!a.schema_ref) {
		af_cli_schema_ref(ref, sizeof(ref));
		a.schema_ref = ref;
	}
	if (a.split && a.out) {
		fprintf(stderr, "animfs decode: --split DIR or -o OUT, not both\n");
		return AF_EXIT_USAGE;
	}
	if (a.split && (af_cli_arc_split(a.in, pkg, sizeof(pkg), &member) ||
			(strcmp(a.in, "-") && af_cli_arc_of(a.in)))) {
		fprintf(stderr, "animfs decode: --split takes a file of one format, not a container or its member\n");
		return AF_EXIT_USAGE;
	}
	if (af_cli_arc_split(a.in, pkg, sizeof(pkg), &member)) /* members name their codec */
		return af_cli_arc_decode(a.in, pkg, member, a.out, a.schema_ref, &a.opts, a.cache_bytes);
	if (!a.format && strcmp(a.in, "-") && af_cli_arc_of(a.in)) /* a whole container, for diffs */
		return af_cli_arc_decode(a.in, a.in, NULL, a.out, NULL, &a.opts, a.cache_bytes);
	return convert(&a, 1);
}

/* encode DIR: a split view (decode --split) back to one binary; OUT defaults to DIR
 * without ".yaml", as for a file. */
static int encode_split(struct args *a)
{
	struct af_buf out = AF_BUF_INIT;
	struct af_diag d;
	char outpath[4096];
	size_t l = strlen(a->in);
	int rc = AF_EXIT_FAIL;
	while (l > 1 && a->in[l - 1] == '/')
		l--;
	if (!a->out) {
		if (l <= 5 || strncmp(a->in + l - 5, ".yaml", 5) || l - 5 >= sizeof(outpath)) {
			fprintf(stderr, "animfs encode: give -o OUT (the folder's name does not end in .yaml)\n");
			return AF_EXIT_USAGE;
		}
		snprintf(outpath, sizeof(outpath), "%.*s", (int)(l - 5), a->in);
		a->out = outpath;
	}
	af_diag_init(&d);
	if (!af_cli_split_encode(a->in, a->out, a->cache_bytes, &out) && !write_result(a->out, &out, &d))
		rc = AF_EXIT_OK;
	af_buf_free(&out);
	af_diag_free(&d);
	return rc;
}

int af_cli_encode(int argc, char **argv)
{
	struct args a;
	char outpath[4096], pkg[4096];
	const char *member;

	if (parse_args(argc, argv, &a, 0))
		return AF_EXIT_USAGE;
	if (strcmp(a.in, "-") && af_cli_is_dir(a.in)) {
		if (a.overlay || a.game || a.to || a.layout) {
			fprintf(stderr, "animfs encode: a split view (DIR) with --overlay: encode it to a file first\n");
			return AF_EXIT_USAGE;
		}
		return encode_split(&a);
	}
	if (!a.out) {
		size_t l = strlen(a.in);
		if (l <= 5 || strcmp(a.in + l - 5, ".yaml") || l - 5 >= sizeof(outpath)) {
			fprintf(stderr, "animfs encode: give -o OUT (the input does not end in .yaml)\n");
			return AF_EXIT_USAGE;
		}
		snprintf(outpath, sizeof(outpath), "%.*s", (int)(l - 5), a.in);
		a.out = outpath;
	}
	if ((a.game || a.to || a.layout) && !a.overlay) {
		fprintf(stderr, "animfs encode: %s goes with --overlay MODDIR\n",
			a.game ? "--game" : a.to ? "--to" : "--overlay-layout");
		return AF_EXIT_USAGE;
	}
	/* --overlay: GAME named (never guessed from the current folder: OUT's path below it
	 * is where the result lands in MODDIR) */
	if (a.overlay && !a.game) {
		fprintf(stderr, "animfs encode: --overlay needs --game GAME, the game folder OUT is "
			"in (the result goes to MODDIR at OUT's path below GAME)\n");
		return AF_EXIT_USAGE;
	}
	/* --overlay: the mod folder's layout checked, and the one its copy-ups are written in */
	int rc = a.overlay ? af_cli_ov_layout("encode", a.overlay, a.layout, &a.to, a.how,
					      sizeof(a.how)) : 0;
	if (rc)
		return rc;
	if (af_cli_arc_split(a.out, pkg, sizeof(pkg), &member)) { /* containers go whole */
		struct af_cli_ov ov;
		if (a.overlay && af_cli_ov_target(a.game, a.overlay, pkg, &ov))
			return AF_EXIT_FAIL;
		return af_cli_arc_encode(a.in, a.out, pkg, member, a.overlay ? &ov : NULL, a.cache_bytes);
	}
	static struct af_cli_ov ov;
	if (a.overlay) { /* the binary lands in MODDIR at its GAME path, in its layout */
		if (af_cli_ov_target(a.game, a.overlay, a.out, &ov))
			return AF_EXIT_FAIL;
		return save_file(&a, &ov);
	}
	if (af_cli_saves_through(a.out)) /* a game file: the mount's save */
		return save_file(&a, NULL);
	return convert(&a, 0); /* standard output, a device, a symlink: written here */
}
