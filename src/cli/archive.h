/* Command-line access to the members of containers (container.h) with the path
 * syntax the mount shows: `X/<member>` and `X/index.yaml`, and a whole container as
 * one document (src/cli/archive.c). */
#ifndef ANIMFS_CLI_ARCHIVE_H
#define ANIMFS_CLI_ARCHIVE_H

#include <stddef.h>

#include "animfs/yamlio.h"

/* The container that path (a regular file) is, or NULL. */
struct af_container;
const struct af_container *af_cli_arc_of(const char *path);
/* When path is "<file>/<member>" and <file> is a container's regular file, copy <file>
 * into arc and point *member into path; else return 0. */
int af_cli_arc_split(const char *path, char *arc, size_t size, const char **member);
/* decode: member's YAML (or index.yaml; member NULL: the whole container as one
 * document, its index and every member) to stdout or to out. A member's YAML starts with
 * the modeline of schema_ref (af_codec_modeline); the members render with opts (io.h;
 * NULL: the defaults). The document stays within half of cache_bytes (--cache-mb) + 64
 * MiB, as a file's decode. Returns an exit code. */
struct af_opts;
int af_cli_arc_decode(const char *path, const char *arc, const char *member, const char *out,
		      const char *schema_ref, const struct af_opts *opts, size_t cache_bytes);
/* What decode writes for path (arc, member as af_cli_arc_split gave them), appended to
 * out instead: for `animfs plot` and the like. 0, or AF_E* with d set (or, for a member
 * that is not there, with the reason already on stderr and d clear); *where is the
 * name d's message is about. */
struct af_buf;
struct af_diag;
int af_cli_arc_render(const char *path, const char *arc, const char *member,
		      const char *schema_ref, const struct af_opts *opts, struct af_buf *out,
		      const char **where, struct af_diag *d);
/* The same for a member's view (no schema_ref, no options), then with (yaml, the member's
 * siblings in its container, alive during the call) when with is not NULL: its result
 * is returned. */
struct af_io;
int af_cli_arc_render_with(const char *path, const char *arc, const char *member,
			   struct af_buf *out, const char **where, struct af_diag *d,
			   int (*with)(void *ctx, const struct af_buf *yaml, const struct af_io *io,
				       struct af_diag *d),
			   void *ctx);
/* encode: the YAML file yaml into the container's member; writes nothing when unchanged.
 * With ov (encode --overlay, cli.h): the container as GAME's arc with MODDIR's ov->mod
 * on top is what changes, and ov->mod gets the result (a container that reduces: only
 * the members that differ from GAME's; none: ov->mod goes); arc is never written. */
struct af_cli_ov;
int af_cli_arc_encode(const char *yaml, const char *path, const char *arc, const char *member,
		      const struct af_cli_ov *ov, size_t cache_bytes);
/* The same with the YAML given as text (for `animfs import` into a member: the member's
 * new view); path names it in messages. */
int af_cli_arc_encode_text(const struct af_buf *yaml, const char *path, const char *arc, const char *member,
			   size_t cache_bytes);
/* check: every member round-trips and an unchanged rebuild is identical, in every
 * nested container too. Adds to the counters st[k] of container af_containers[k]
 * (k < max), each layer under its own; member(codec name, bytes, ok) counts each member
 * that has a codec under it; prints each failure. */
struct af_cli_arc_stats {
	unsigned long archives, rebuilt, failed_archives, members;
	unsigned long refused; /* archives that do not open (counted in archives) */
};
/* The bound of the members' encodes (their YAML trees): what a tree may take, and who
 * lends it more (struct af_io's yaml_max, yaml_more, yaml_more_ctx); NULL: none. */
struct af_cli_arc_bound {
	size_t yaml_max;
	af_ymore_fn *yaml_more;
	void *yaml_more_ctx;
};
void af_cli_arc_check(const char *path, const struct af_cli_arc_bound *bound,
		      struct af_cli_arc_stats *st, size_t max,
		      void (*fail)(const char *path, const char *what),
		      void (*member)(const char *codec, unsigned long long bytes, int ok));

#endif
