/* Command-line subcommands, private to src/cli. Each returns the process exit code. */
#ifndef ANIMFS_CLI_H
#define ANIMFS_CLI_H

/* decode --review: the name asked in struct af_opts (no codec's): a whole container's
 * index without the keys that only say where members lie (container.h layout_keys). */
#define AF_CLI_REVIEW "review"

#include <stdio.h>
#include <sys/types.h>

#include "animfs/codec.h"

enum { AF_EXIT_OK = 0, AF_EXIT_FAIL = 1, AF_EXIT_USAGE = 2 };

/* Print the synopsis of the command name (main.c's table) to stderr; AF_EXIT_USAGE. */
int af_cli_usage(const char *name);

int af_cli_decode(int argc, char **argv);
/* decode's rendering options for its synopsis (" [--NAME]" each), from the codec table. */
void af_cli_decode_options(FILE *f);
/* Their lines of the help at indent: "--NAME: what it does (codec)". */
void af_cli_decode_options_help(FILE *f, int indent);
int af_cli_encode(int argc, char **argv);
int af_cli_check(int argc, char **argv);
int af_cli_convert_layout(int argc, char **argv); /* `animfs convert` (relayout.c) */
/* convert's synopsis ("convert --to ..."), and its lines of the help at indent, from the
 * layouts of the codec table. */
void af_cli_convert_synopsis(FILE *f);
void af_cli_convert_help(FILE *f, int indent);
int af_cli_schema(int argc, char **argv);
int af_cli_errors(int argc, char **argv);
int af_cli_plot(int argc, char **argv);
int af_cli_gltf(int argc, char **argv);
int af_cli_import(int argc, char **argv);
/* The YAML of the file in (plot.c): a view as it is, a binary decoded, CONTAINER/MEMBER as
 * decode takes it; *where: the name errors give. 0, or nonzero with d set. */
struct af_buf;
struct af_diag;
int af_cli_view_yaml(const char *in, struct af_buf *yaml, const char **where, struct af_diag *d);
/* The same, then with (yaml, the file's siblings: its folder or its container's other
 * members, alive only during the call) when with is not NULL: its result is returned. */
struct af_io;
typedef int af_cli_with_fn(void *ctx, const struct af_buf *yaml, const struct af_io *io,
			   struct af_diag *d);
int af_cli_view_yaml_with(const char *in, struct af_buf *yaml, const char **where, struct af_diag *d,
			  af_cli_with_fn *with, void *ctx);
/* b to standard output (outp NULL or "-") or to the file outp (af_cli_write); 0, or -1
 * after saying why on stderr. */
int af_cli_output(const char *outp, const struct af_buf *b);
/* A value option of a one-input command: each "NAME VALUE" goes to vals (room for argc
 * values when repeat, else one slot, the last value kept); n counts them. */
struct af_cli_valopt {
	const char *name;
	const char **vals;
	size_t n;
	int repeat;
};
/* The arguments of a command that reads one input and writes one output (plot, gltf):
 * "-o OUT", the value options opts, and exactly one input. 0, or the usage exit code
 * after printing the synopsis of name. */
int af_cli_in_out_args(const char *name, int argc, char **argv, struct af_cli_valopt *opts,
		       size_t nopts, const char **in, const char **out);
int af_cli_mount(int argc, char **argv);
int af_cli_umount(int argc, char **argv);
int af_cli_serve(int argc, char **argv);
/* The options mount and serve share (serve: dav non-NULL, no VIEW), GAME opened as
 * the caller, MODDIR and its layout for --overlay; messages name cmd. */
struct af_fs_opts;
struct af_dav_opts;
int af_cli_fs_parse(const char *cmd, int argc, char **argv, struct af_fs_opts *o,
		    const char **layout, struct af_dav_opts *dav);
int af_cli_open_game(const char *cmd, const char *game);
int af_cli_fs_overlay(const char *cmd, struct af_fs_opts *o, const char *layout);
/* --rig-dir DIR opened as the caller: 0, or an exit code (said why). */
int af_cli_fs_rigdir(const char *cmd, struct af_fs_opts *o);
/* GAME opened as the caller, check (NULL: none) passed, --overlay and --rig-dir set up,
 * then run (0: served); everything opened closed after. An exit code. */
int af_cli_fs_run(const char *cmd, struct af_fs_opts *o, const char *layout,
		  int (*check)(const struct af_fs_opts *o),
		  int (*run)(int gamefd, const struct af_fs_opts *o, void *ctx), void *ctx);
/* overlay.c: the mod folder of --overlay, opened for cmd's messages after the checks
 * (it exists and is writable; it and GAME, and VIEW when given, hold no one another).
 * fd, or -1 with the reason printed. */
int af_cli_open_moddir(const char *cmd, const char *game, const char *view, const char *moddir);
/* --overlay MODDIR [--overlay-layout name] [--to *to] for cmd's messages: name (NULL:
 * none) must be a codec's mod folder layout (codec.h) and MODDIR a mod's folder of it;
 * *to a layout of that codec (of any, without name). Without --to, *to becomes the
 * layout MODDIR's files are in (of the first of up to 64 a codec with layouts, name's
 * when given, claims: the one its convert says it has already), else name's default
 * (else stays NULL), and how says which ("as its files are", ...; "" with --to).
 * AF_EXIT_OK, or AF_EXIT_USAGE / AF_EXIT_FAIL with the reason printed. */
int af_cli_ov_layout(const char *cmd, const char *moddir, const char *name, const char **to,
		     char *how, size_t hsize);
/* The mod folder layouts of the codec table, for the help at indent. */
void af_cli_ov_layouts_help(FILE *f, int indent);
/* Whether some codec writes the layout name (codec.h convert/layouts). */
int af_cli_layout_known(const char *name);
/* `animfs overlay status|diff GAME MODDIR`: what the mod folder changes (files, and the
 * members of containers, new and changed), and the YAML diff of each. */
int af_cli_overlay(int argc, char **argv);
/* `animfs overlay ship [--force] MODDIR DEST` (ship.c): MODDIR's files copied to where the
 * game loads mods from, an override under its install name. */
int af_cli_overlay_ship(int argc, char **argv);
/* Every regular file below MODDIR mod, in name order, each(ctx, its path below mod);
 * temp files of unfinished saves skipped. 0, or -1 when a folder could not be listed
 * (said). */
int af_cli_ov_walk(const char *mod, void (*each)(void *ctx, const char *rel), void *ctx);
/* Where MODDIR's container file rel goes among the game's mods under the container's
 * overlay_install (a name of its own in its folder: "Overrides/a/x.override.package"). */
struct af_overlay_install;
void af_cli_ov_install_name(const struct af_overlay_install *in, const char *rel, char *out,
			    size_t size);
/* encode --overlay MODDIR: where the GAME file path (below game) lands in moddir, its
 * folders made. 0, or -1 with the reason printed. */
struct af_cli_ov {
	char game[4096]; /* the file in GAME (what a change starts from) */
	char mod[8400];  /* its place in MODDIR */
};
int af_cli_ov_target(const char *game, const char *moddir, const char *path, struct af_cli_ov *ov);

/* A loose game file saved through the mount's save pipeline (filesave.c, af_save_file):
 * proven, encoded under the bound, read back, unchanged skipped, replaced. */
struct af_cli_file_save {
	const struct af_buf *yaml;  /* the document */
	const char *where;          /* the name its mistakes are reported at (its file) */
	const char *out;            /* the file (with ov: GAME's, ov->mod is written) */
	const struct af_cli_ov *ov; /* --overlay (NULL: none) */
	const char *layout;         /* --to LAYOUT: a copy-up's layout (NULL: its own) */
	const char *how;            /* why layout, when no --to chose it ("" or NULL: --to did) */
	size_t cache_bytes;         /* --cache-mb */
};
/* Said on stderr as encode says it (the mistakes at where, a refusal of the file at the
 * file, warnings less those the old file gave, "unchanged"). An exit code. */
int af_cli_file_save(const struct af_cli_file_save *s);
/* Whether the output path is saved through it: a regular file, or none yet (not "-", a
 * device, FIFO, socket, symlink or folder: those af_cli_write writes). */
int af_cli_saves_through(const char *path);
/* The folder of path into dir ("." when none) and path's name in it. */
const char *af_cli_dir_of(const char *path, char *dir, size_t size);
/* d less the warnings that re-encoding old (the file being replaced, c's) already gives:
 * only what the edit introduced is said. */
struct af_io;
void af_cli_drop_old_warnings(const struct af_codec *c, const struct af_buf *old,
			      const struct af_io *io, struct af_diag *d);

/* An af_io for a file given by path: its siblings, as the mount gives them (dirio). */
struct af_cli_io {
	struct af_dirio d; /* the io is d.io */
};
void af_cli_io_init(struct af_cli_io *c, const char *path, int learn);
void af_cli_io_close(struct af_cli_io *c);

/* OPT=V of command CMD, a number of MiB from min_mb to 1048576, into *bytes; else an
 * error on stderr naming them and -1. */
int af_cli_parse_mb(const char *cmd, const char *opt, const char *v, size_t min_mb, size_t *bytes);

/* A decode's memory bound (`animfs decode --cache-mb=N`, a file's or a container's): half
 * of N + 64 MiB (less what the process keeps) for the YAML (text: the output buffer's
 * bound), half for the binary and the codec's model of it (af_cli_bound_room as
 * af_io.mem_room, and asked with af_model_of the binary before it is read). */
struct af_cli_bound {
	struct af_buf_bound text;
	size_t cache_bytes, model_max, model_want;
	int refused;
};
void af_cli_bound_init(struct af_cli_bound *b, size_t cache_bytes);
int af_cli_bound_room(void *bound, size_t want);
/* What a decode past it says (d): the model refused, or (over) its YAML; names
 * --cache-mb. */
void af_cli_bound_refusal(const struct af_cli_bound *b, int over, struct af_diag *d);

/* Where decodes point their modeline: the installed schemas, as a file:// URI. */
void af_cli_schema_ref(char *out, size_t size);

/* Write an output file: a regular file (or a new one) is replaced atomically
 * (af_replace_file_at, keeping an existing file's owner, group and mode); a device,
 * FIFO or socket (-o /dev/null, /dev/stdout) is written to in place. 0 or AF_E*. */
int af_cli_write(const char *path, const void *data, size_t n, mode_t mode, struct af_diag *d);

/* Whether path is a folder (after symlinks). */
int af_cli_is_dir(const char *path);
/* decode --split DIR: the view yaml of c written as DIR/index.yaml and its parts (split.h),
 * parts of an earlier split that this one has not removed. 0 or AF_E* with d. */
struct af_diag;
int af_cli_split_write(const struct af_codec *c, const char *dir, const uint8_t *yaml, size_t n,
		       const char *schema_ref, struct af_diag *d);
/* encode DIR: the binary of the split view in DIR, into out; errors printed, naming the
 * file (DIR/index.yaml or DIR/PART) and line:col. 0 or -1. */
struct af_buf;
int af_cli_split_encode(const char *dir, const char *outpath, size_t cache_bytes, struct af_buf *out);

/* Print "animfs: <diag formatted with file>" (and warnings) to stderr. */
void af_cli_report(const char *file, const struct af_diag *d);
/* The same with the error's file given apart, and each warning line after prefix and sep
 * ("DIR", "/": warnings that name their file in DIR). */
void af_cli_report_in(const char *prefix, const char *sep, const char *file,
		      const struct af_diag *d);

#endif
