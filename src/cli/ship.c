/* `animfs overlay ship [--force] MODDIR DEST` (issue 46): a mod folder's files copied to
 * where the game loads them from. A container file whose game reads overrides beside the
 * file they override (the table's overlay_install: a Sims 3 package) goes under the
 * name and folder its install says, never over the file it overrides, and the mods
 * folder's config gains the lines that read that folder when it lacks them; any other
 * file keeps its path (PAYDAY 2's mod_overrides/<mod>, a Shenmue archive in the game's
 * place). Nothing is replaced without --force; each copy is atomic (the kernel copies:
 * no file is held), with the source's mode less the umask. Names no format. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "animfs/container.h"
#include "animfs/fileio.h"
#include "animfs/pieces.h"
#include "archive.h"
#include "cli.h"

/* One file to ship: its path below MODDIR and below DEST, and the install it follows. */
struct item {
	char *rel, *to;
	const struct af_overlay_install *in;
};

struct ship {
	const char *mod, *dest;
	int force, failed;
	struct item *v;
	size_t n, cap;
};

static void plan_one(void *ctx, const char *rel)
{
	struct ship *s = ctx;
	char path[8400], to[8400];
	struct item *grown;
	snprintf(path, sizeof(path), "%s/%s", s->mod, rel);
	const struct af_container *c = af_cli_arc_of(path);
	const struct af_overlay_install *in = c && c->overlay_merge ? c->overlay_install : NULL;
	if (in)
		af_cli_ov_install_name(in, rel, to, sizeof(to));
	else
		snprintf(to, sizeof(to), "%s", rel);
	if (!(grown = af_grow(s->v, &s->cap, s->n, sizeof(*s->v), 16))) {
		s->failed = 1;
		return;
	}
	s->v = grown;
	s->v[s->n] = (struct item){af_strcopy(rel), af_strcopy(to), in};
	if (!s->v[s->n].rel || !s->v[s->n].to) {
		free(s->v[s->n].rel);
		free(s->v[s->n].to);
		s->failed = 1;
		return;
	}
	s->n++;
}

/* DEST/to's folders, made as mkdir -p makes them (0777 less the umask). */
static int make_dirs(int dfd, const char *to)
{
	char p[8400];
	snprintf(p, sizeof(p), "%s", to);
	for (char *q = p; (q = strchr(q, '/')); q++) {
		*q = 0;
		int bad = mkdirat(dfd, p, 0777) && errno != EEXIST;
		*q = '/';
		if (bad)
			return -1;
	}
	return 0;
}

static int copy_one(struct ship *s, int dfd, const struct item *it, mode_t mask)
{
	char path[8400];
	struct stat st;
	struct af_diag d;
	struct af_pieces p = AF_PIECES_INIT;
	int rc = -1, fd;
	af_diag_init(&d);
	snprintf(path, sizeof(path), "%s/%s", s->mod, it->rel);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0 || fstat(fd, &st)) {
		fprintf(stderr, "animfs overlay ship: %s: %s\n", path, strerror(errno));
		goto out;
	}
	if (make_dirs(dfd, it->to)) {
		fprintf(stderr, "animfs overlay ship: cannot make the folders of %s/%s: %s\n", s->dest,
			it->to, strerror(errno));
		goto out;
	}
	struct af_src src = {NULL, fd, (uint64_t)st.st_size, 0};
	/* a new file of the source's mode less the umask; replacing one only with --force */
	struct af_replace_opts o = {.as_new = 1, .noreplace = !s->force};
	if ((st.st_size && af_pieces_copy(&p, 0, (uint64_t)st.st_size)) ||
	    af_replace_file_pieces(dfd, it->to, &p, &src, st.st_mode & 0777 & ~mask, &o, &d)) {
		fprintf(stderr, "animfs overlay ship: %s/%s: %s%s\n", s->dest, it->to,
			p.failed ? "out of memory" : d.msg,
			d.code == -EEXIST ? " (--force replaces it)" : "");
		goto out;
	}
	printf("%-8s %s -> %s\n", "shipped", it->rel, it->to);
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	af_pieces_free(&p);
	af_diag_free(&d);
	return rc;
}

/* Whether cfg has the line l (n bytes), blanks and a CR at its end aside. */
static int has_line(const struct af_buf *cfg, const char *l, size_t n)
{
	for (size_t at = 0; at < cfg->len;) {
		const uint8_t *p = cfg->data + at, *e = memchr(p, '\n', cfg->len - at);
		size_t m = e ? (size_t)(e - p) : cfg->len - at;
		at += m + 1;
		while (m && (p[m - 1] == '\r' || p[m - 1] == ' ' || p[m - 1] == '\t'))
			m--;
		if (m == n && !memcmp(p, l, n))
			return 1;
	}
	return 0;
}

/* The mods folder's config (in->config) reads in->folder: its lines added when any is
 * missing (atomically, its mode kept); none there: said, nothing made (DEST is then not
 * the game's mods folder, or the game reads none). 0, or -1 said. */
static int config_reads(struct ship *s, int dfd, const struct af_overlay_install *in)
{
	struct af_buf cfg = AF_BUF_INIT;
	struct af_diag d;
	int rc = 0, missing = 0;
	af_diag_init(&d);
	if (af_read_file_at(dfd, in->config, AF_MAX_FILE, &cfg, &d)) {
		fprintf(stderr, "animfs overlay ship: note: no %s/%s (is DEST the game's mods "
			"folder?): the game reads %s/ only when it has these lines:\n%s", s->dest,
			in->config, in->folder, in->config_lines);
		goto out;
	}
	for (const char *l = in->config_lines; *l;) {
		const char *eol = strchr(l, '\n');
		size_t n = eol ? (size_t)(eol - l) : strlen(l);
		missing |= !has_line(&cfg, l, n);
		l += n + (eol != NULL);
	}
	if (!missing)
		goto out;
	/* in the file's own line ends (the game's own Resource.cfg has CR LF) */
	int crlf = cfg.len && memmem(cfg.data, cfg.len, "\r\n", 2) != NULL;
	if (cfg.len && cfg.data[cfg.len - 1] != '\n')
		af_buf_puts(&cfg, crlf ? "\r\n" : "\n");
	for (const char *l = in->config_lines; *l; l++) {
		if (*l == '\n' && crlf)
			af_buf_putc(&cfg, '\r');
		af_buf_putc(&cfg, *l);
	}
	if (cfg.failed || af_replace_file_at(dfd, in->config, cfg.data, cfg.len, 0644, &d)) {
		fprintf(stderr, "animfs overlay ship: %s/%s: %s\n", s->dest, in->config,
			cfg.failed ? "out of memory" : d.msg);
		rc = -1;
		goto out;
	}
	printf("%-8s %s: \"", "added", in->config);
	for (const char *l = in->config_lines; *l; l++)
		fputs(*l != '\n' ? (char[]){*l, 0} : l[1] ? "\", \"" : "\"\n", stdout);
out:
	af_buf_free(&cfg);
	af_diag_free(&d);
	return rc;
}

int af_cli_overlay_ship(int argc, char **argv)
{
	struct ship s = {0};
	char m[PATH_MAX], dr[PATH_MAX];
	int dfd = -1, rc = AF_EXIT_FAIL;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--force"))
			s.force = 1;
		else if (argv[i][0] == '-' && argv[i][1])
			return af_cli_usage("overlay");
		else if (!s.mod)
			s.mod = argv[i];
		else if (!s.dest)
			s.dest = argv[i];
		else
			return af_cli_usage("overlay");
	}
	if (!s.dest)
		return af_cli_usage("overlay");
	if (!realpath(s.mod, m) || !af_cli_is_dir(m)) {
		fprintf(stderr, "animfs overlay ship: MODDIR '%s' is no folder\n", s.mod);
		return AF_EXIT_FAIL;
	}
	if ((dfd = open(s.dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 || !realpath(s.dest, dr)) {
		fprintf(stderr, "animfs overlay ship: DEST '%s': %s (make it first: the folder the "
			"game loads mods from)\n", s.dest, strerror(errno));
		goto out;
	}
	size_t ml = strlen(m), dl = strlen(dr);
	if (!strncmp(m, dr, ml < dl ? ml : dl) && (m[dl < ml ? dl : ml] == '/' || dr[dl < ml ? dl : ml] == '/' ||
						   ml == dl)) {
		fprintf(stderr, "animfs overlay ship: MODDIR '%s' and DEST '%s' must not hold one another\n",
			s.mod, s.dest);
		goto out;
	}
	if (af_cli_ov_walk(s.mod, plan_one, &s) || s.failed) {
		fprintf(stderr, "animfs overlay ship: cannot list %s\n", s.mod);
		goto out;
	}
	/* nothing is copied when anything would be replaced without --force */
	for (size_t i = 0; i < s.n && !s.force; i++) {
		struct stat st;
		if (!fstatat(dfd, s.v[i].to, &st, AT_SYMLINK_NOFOLLOW)) {
			fprintf(stderr, "animfs overlay ship: %s/%s exists (%s's copy): nothing shipped "
				"(--force replaces it)\n", s.dest, s.v[i].to, s.v[i].rel);
			s.failed = 1;
		}
	}
	if (s.failed)
		goto out;
	mode_t mask = umask(0);
	umask(mask);
	const struct af_overlay_install *cfg = NULL;
	for (size_t i = 0; i < s.n; i++) {
		if (copy_one(&s, dfd, &s.v[i], mask))
			s.failed = 1;
		else if (s.v[i].in && s.v[i].in->config)
			cfg = s.v[i].in;
	}
	if (cfg && config_reads(&s, dfd, cfg))
		s.failed = 1;
	if (!s.n)
		fprintf(stderr, "animfs overlay ship: MODDIR '%s' holds no file\n", s.mod);
	rc = s.failed ? AF_EXIT_FAIL : AF_EXIT_OK;
out:
	for (size_t i = 0; i < s.n; i++) {
		free(s.v[i].rel);
		free(s.v[i].to);
	}
	free(s.v);
	if (dfd >= 0)
		close(dfd);
	return rc;
}
