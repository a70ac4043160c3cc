/* Command-line access to resources inside a Sims 3 `.package` with the path syntax the
 * mount shows: `X.package/<name>.jazz` and `X.package/index.yaml` (src/cli/package.c). */
#ifndef ANIMFS_CLI_PKG_H
#define ANIMFS_CLI_PKG_H

#include <stddef.h>

/* When path is "<pkg>/<member>" and <pkg> is a regular file that starts like a DBPF 2.0
 * package, copy <pkg> into pkg and point *member into path; else return 0. */
int af_cli_pkg_split(const char *path, char *pkg, size_t size, const char **member);
/* decode: member's YAML (or index.yaml; member NULL: the whole package as one
 * document, its index and every member) to stdout or to out. A member's YAML starts with
 * the modeline of schema_ref (af_codec_modeline). Returns an exit code. */
int af_cli_pkg_decode(const char *path, const char *pkg, const char *member, const char *out,
		      const char *schema_ref);
/* encode: the YAML file yaml into the package's member; writes nothing when unchanged. */
int af_cli_pkg_encode(const char *yaml, const char *path, const char *pkg, const char *member);
/* check: every Jazz record round-trips and an unchanged rebuild is identical.
 * Adds to the counters; prints each failure. */
struct af_cli_pkg_stats {
	unsigned long packages, rebuilt, failed_packages;
	unsigned long items, items_identical, items_failed;
	unsigned long long bytes;
};
void af_cli_pkg_check(const char *path, struct af_cli_pkg_stats *st,
		      void (*fail)(const char *path, const char *what));

#endif
