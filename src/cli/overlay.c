/* --overlay MODDIR on the command line (issue 32): the mod folder a mount or an encode
 * writes into instead of GAME, and `animfs overlay status|diff GAME MODDIR`, what a mod
 * folder changes. Names no format: containers and codecs are asked through the tables. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "animfs/container.h"
#include "animfs/fileio.h"
#include "animfs/path.h"
#include "archive.h"
#include "cli.h"

/* Whether path `in` is `outer` or below it (both resolved). */
static int below(const char *in, const char *outer)
{
	size_t n = strlen(outer);
	if (n == 1 && outer[0] == '/')
		return 1;
	return !strncmp(in, outer, n) && (in[n] == 0 || in[n] == '/');
}

/* The mod folder layout (the table's overlay_layouts) whose parent folder m (resolved)
 * sits in, or NULL: MODDIR is then a game's own mod folder. */
static const struct af_overlay_layout *layout_of_parent(const char *m)
{
	const char *base = strrchr(m, '/'), *up = base;
	while (up && up > m && up[-1] != '/')
		up--;
	if (!up || up == base)
		return NULL;
	for (size_t i = 0; af_codecs[i]; i++)
		for (const struct af_overlay_layout *o = af_codecs[i]->convert ? af_codecs[i]->overlay_layouts : NULL;
		     o && o->name; o++)
			if (strlen(o->parent) == (size_t)(base - up) &&
			    !strncasecmp(up, o->parent, (size_t)(base - up)))
				return o;
	return NULL;
}

int af_cli_open_moddir(const char *cmd, const char *game, const char *view, const char *moddir)
{
	char g[PATH_MAX], m[PATH_MAX], v[PATH_MAX];
	/* the option that names GAME: mount takes it as an argument, encode as --game */
	const char *game_opt = strcmp(cmd, "encode") ? "GAME" : "--game";
	const struct af_overlay_layout *o;
	int fd = open(moddir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "animfs %s: cannot open the mod folder '%s': %s (%s--overlay names "
			"the folder the changes go to)\n", cmd, moddir, strerror(errno),
			errno == ENOENT ? "make it first; " : "");
		return -1;
	}
	if (!realpath(game, g)) {
		fprintf(stderr, "animfs %s: GAME '%s': %s (%s names the game folder)\n", cmd, game,
			strerror(errno), game_opt);
		goto fail;
	}
	if (!realpath(moddir, m) || (view && !realpath(view, v))) {
		fprintf(stderr, "animfs %s: cannot resolve paths: %s\n", cmd, strerror(errno));
		goto fail;
	}
	if (below(m, g) && (o = layout_of_parent(m))) {
		/* a game's own mod folder (PAYDAY 2's assets/mod_overrides/<mod>) in the
		 * game folder given as GAME: GAME should be what the mod changes */
		fprintf(stderr, "animfs %s: GAME '%s' holds the mod folder '%s', but GAME is "
			"never written: give as %s what the mod changes, the game's assets unpacked "
			"(a copy outside the game folder) or another mod's folder, and keep --overlay "
			"'%s'%s\n", cmd, game, moddir, game_opt, moddir,
			strcmp(cmd, "encode") ? "" : " (-o then names the file in that GAME)");
		goto fail;
	}
	if (below(m, g) || below(g, m)) {
		fprintf(stderr, "animfs %s: the mod folder '%s' and GAME '%s' must not hold one "
			"another (GAME is never written): give --overlay a folder outside GAME%s\n",
			cmd, moddir, game, below(g, m) ? ", or a GAME outside the mod folder" : "");
		goto fail;
	}
	if (view && (below(m, v) || below(v, m))) {
		fprintf(stderr, "animfs %s: the mod folder '%s' and VIEW '%s' must not hold one "
			"another: give --overlay a folder outside VIEW\n", cmd, moddir, view);
		goto fail;
	}
	if (faccessat(fd, ".", W_OK | X_OK, AT_EACCESS)) {
		fprintf(stderr, "animfs %s: the mod folder '%s' is not writable: %s (give --overlay "
			"a folder you may write)\n", cmd, moddir, strerror(errno));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

int af_cli_ov_target(const char *game, const char *moddir, const char *path, struct af_cli_ov *ov)
{
	char g[PATH_MAX], dir[PATH_MAX], d[PATH_MAX];
	const char *base = strrchr(path, '/');
	int fd = af_cli_open_moddir("encode", game, NULL, moddir);
	if (fd < 0)
		return -1;
	close(fd);
	snprintf(dir, sizeof(dir), "%.*s", base ? (int)(base - path) : 1, base ? path : ".");
	if (base == path)
		snprintf(dir, sizeof(dir), "/");
	base = base ? base + 1 : path;
	if (!realpath(game, g) || !realpath(dir[0] ? dir : "/", d)) {
		fprintf(stderr, "animfs encode: %s: %s\n", path, strerror(errno));
		return -1;
	}
	size_t gl = strlen(g);
	if (strncmp(d, g, gl) || (d[gl] && d[gl] != '/') || !*base) {
		fprintf(stderr, "animfs encode: %s is not a file in GAME '%s': give -o a path in GAME, "
			"or --game the game folder it is in\n", path, game);
		return -1;
	}
	const char *rel = d + gl + (d[gl] == '/');
	snprintf(ov->game, sizeof(ov->game), "%s", path);
	snprintf(ov->mod, sizeof(ov->mod), "%s/%s%s%s", moddir, rel, *rel ? "/" : "", base);
	/* its folders in MODDIR, each with GAME's folder's mode and the owner's rwx */
	for (char *p = ov->mod + strlen(moddir) + 1; (p = strchr(p, '/')); p++) {
		struct stat st;
		char gdir[PATH_MAX + 4200];
		*p = 0;
		snprintf(gdir, sizeof(gdir), "%s/%s", g, ov->mod + strlen(moddir) + 1);
		mode_t mode = stat(gdir, &st) == 0 ? (st.st_mode & 0777) | 0700 : 0755;
		int bad = mkdir(ov->mod, mode) && errno != EEXIST;
		*p = '/';
		if (bad) {
			fprintf(stderr, "animfs encode: cannot make a folder for %s: %s (give --overlay "
				"a folder you may write)\n", ov->mod, strerror(errno));
			return -1;
		}
	}
	return 0;
}

int af_cli_layout_known(const char *name)
{
	for (size_t i = 0; af_codecs[i]; i++)
		if (af_codec_layout(af_codecs[i], name))
			return 1;
	return 0;
}

/* The layout (of c's layouts) the file bin is in: the one c's convert finds it in
 * already; NULL when none. */
static const char *layout_of(const struct af_codec *c, const struct af_buf *bin)
{
	struct af_buf out = AF_BUF_INIT;
	struct af_diag dg;
	const char *found = NULL;
	af_diag_init(&dg);
	for (const struct af_layout *l = c->convert ? c->layouts : NULL; !found && l && l->name; l++) {
		struct af_convert cv = { l->name, NULL, NULL };
		af_buf_reset(&out);
		if (c->convert(bin->data, bin->len, &cv, &out, &dg) == AF_CONVERT_ALREADY)
			found = l->name;
		af_diag_clear(&dg);
	}
	af_buf_free(&out);
	af_diag_free(&dg);
	return found;
}

/* The layout of the first file below dir (depth-first, at most *budget files looked
 * at) that a codec with layouts (only want, unless NULL) claims: the layout its convert
 * finds it in already. */
static const char *layout_in(const char *dir, const struct af_codec *want, int depth, int *budget)
{
	DIR *d = depth < 16 ? opendir(dir) : NULL;
	const char *found = NULL;
	for (struct dirent *e; d && !found && *budget > 0 && (e = readdir(d));) {
		char path[PATH_MAX];
		struct stat st;
		if (e->d_name[0] == '.' ||
		    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= (int)sizeof(path) ||
		    lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			found = layout_in(path, want, depth + 1, budget);
			continue;
		}
		uint8_t head[AF_BID_HEAD];
		size_t got = 0;
		if (!S_ISREG(st.st_mode))
			continue;
		(*budget)--;
		if (af_read_head_at(AT_FDCWD, path, head, sizeof(head), &got))
			continue;
		const struct af_codec *c = af_codec_bid(e->d_name, head, got);
		if (!c || !c->convert || !c->layouts || (want && c != want))
			continue;
		struct af_buf in = AF_BUF_INIT;
		struct af_diag dg;
		af_diag_init(&dg);
		if (!af_read_file_at(AT_FDCWD, path, AF_MAX_FILE, &in, &dg))
			found = layout_of(c, &in);
		af_buf_free(&in);
		af_diag_free(&dg);
	}
	if (d)
		closedir(d);
	return found;
}

void af_cli_ov_layouts_help(FILE *f, int indent)
{
	for (size_t i = 0; af_codecs[i]; i++)
		for (const struct af_overlay_layout *o = af_codecs[i]->convert ? af_codecs[i]->overlay_layouts : NULL;
		     o && o->name; o++)
			fprintf(f, "%*s--overlay-layout %s: %s\n", indent, "", o->name, o->description);
}

/* Whether the resolved path m is a mod's own folder in a folder called parent (case
 * aside); *self: m is that folder itself. where: the name of m's folder. */
static int in_parent(const char *m, const char *parent, int *self, char *where, size_t size)
{
	const char *base = strrchr(m, '/'), *up = base;
	while (up && up > m && up[-1] != '/')
		up--;
	snprintf(where, size, "%.*s", up ? (int)(base - up) : 0, up ? up : "");
	*self = base && !strcasecmp(base + 1, parent);
	return base && base[1] && !*self && !strcasecmp(where, parent);
}

int af_cli_ov_layout(const char *cmd, const char *moddir, const char *name, const char **to,
		     char *how, size_t hsize)
{
	const struct af_codec *c = NULL;
	const struct af_overlay_layout *o = af_overlay_layout(name, &c);
	char m[PATH_MAX], where[PATH_MAX];
	int self = 0;
	how[0] = 0;
	if (name && !o) {
		fprintf(stderr, "animfs %s: --overlay-layout %s: no format has that mod folder layout "
			"(animfs help mount lists them)\n", cmd, name);
		return AF_EXIT_USAGE;
	}
	if (*to && (o ? !af_codec_layout(c, *to) : !af_cli_layout_known(*to))) {
		if (o)
			fprintf(stderr, "animfs %s: --to %s: not a layout of %s, the files of "
				"--overlay-layout %s (see animfs convert --help)\n", cmd, *to, c->name, name);
		else
			fprintf(stderr, "animfs %s: --to %s: no format writes that layout (see animfs "
				"convert --help)\n", cmd, *to);
		return AF_EXIT_USAGE;
	}
	if (o && !realpath(moddir, m)) {
		fprintf(stderr, "animfs %s: cannot open the mod folder '%s': %s%s\n", cmd, moddir,
			strerror(errno), errno == ENOENT ? " (make it first)" : "");
		return AF_EXIT_FAIL;
	}
	if (o && !in_parent(m, o->parent, &self, where, sizeof(where))) {
		fprintf(stderr, "animfs %s: --overlay-layout %s: the mod folder must be a mod's own "
			"folder in a '%s' folder (%s/<mod>), and '%s' is %s%s%s: give --overlay %s%s%s, "
			"or leave out --overlay-layout\n", cmd, name, o->parent, o->parent, moddir,
			self ? "that folder itself" : "in '", self ? "" : where, self ? "" : "'",
			self ? "'" : "a mod's own folder in ", self ? moddir : o->parent,
			self ? "/<mod>'" : "");
		return AF_EXIT_FAIL;
	}
	if (*to)
		return AF_EXIT_OK;
	int budget = 64;
	if ((*to = layout_in(moddir, c, 0, &budget)))
		snprintf(how, hsize, "as its files are");
	else if (o && (*to = o->to))
		snprintf(how, hsize, "the default of --overlay-layout %s", name);
	return AF_EXIT_OK;
}

/* ---- animfs overlay status|diff GAME MODDIR ---- */

struct walk {
	const char *game, *mod;
	int diff;        /* print the YAML diff of each change, not only its line */
	int layout;      /* diff --layout: GAME's file as it is, not in MODDIR's layout */
	int failed;
};

/* The YAML of a loose file's bytes (its codec by bid), or -1 when none reads it. */
static int loose_yaml(const char *path, const struct af_buf *in, struct af_buf *yaml)
{
	struct af_cli_io io;
	struct af_diag d;
	af_diag_init(&d);
	af_cli_io_init(&io, path, 0);
	const struct af_codec *c = af_codec_bid(io.d.io.name, in->data,
						in->len < AF_BID_HEAD ? in->len : AF_BID_HEAD);
	int rc = c ? c->to_yaml(in->data, in->len, &io.d.io, yaml, &d) : -1;
	af_cli_io_close(&io);
	af_diag_free(&d);
	return rc == 0 || rc == AF_VIEW_READONLY ? 0 : -1;
}

/* `diff -u` of the two texts, labelled a/rel and b/rel (a missing side: /dev/null). */
static int print_diff(const char *rel, const struct af_buf *a, const struct af_buf *b)
{
	const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : P_tmpdir;
	char ta[4200], tb[4200], la[4200], lb[4200];
	snprintf(ta, sizeof(ta), "%s/animfs-overlay-a.XXXXXX", tmp);
	snprintf(tb, sizeof(tb), "%s/animfs-overlay-b.XXXXXX", tmp);
	int fa = mkstemp(ta), fb = fa >= 0 ? mkstemp(tb) : -1, rc = -1;
	if (fa < 0 || fb < 0)
		goto out;
	if ((a && a->len && write(fa, a->data, a->len) != (ssize_t)a->len) ||
	    (b && b->len && write(fb, b->data, b->len) != (ssize_t)b->len))
		goto out;
	snprintf(la, sizeof(la), "%s%s", a ? "a/" : "/dev/null", a ? rel : "");
	snprintf(lb, sizeof(lb), "b/%s", rel);
	printf("diff --animfs a/%s b/%s\n", rel, rel);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		execlp("diff", "diff", "-u", "--label", la, "--label", lb, ta, tb, (char *)NULL);
		_exit(127);
	}
	int status = 0;
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	    WEXITSTATUS(status) <= 1)
		rc = 0;
out:
	if (fa >= 0) {
		close(fa);
		unlink(ta);
	}
	if (fb >= 0) {
		close(fb);
		unlink(tb);
	}
	return rc;
}

/* GAME's file g in the layout of MODDIR's m (a PAYDAY 2 x64 copy-up of a 32-bit file):
 * its diff then shows the values changed, and one line says the layout changed. */
static void same_layout(const char *rel, const char *mp, const struct af_buf *m, struct af_buf *g)
{
	const struct af_codec *c = af_codec_bid(af_base(mp), m->data, m->len < AF_BID_HEAD ? m->len : AF_BID_HEAD);
	const char *ml = c && c->convert ? layout_of(c, m) : NULL, *gl = ml ? layout_of(c, g) : NULL;
	if (!ml || !gl || !strcmp(ml, gl))
		return;
	struct af_buf as = AF_BUF_INIT;
	struct af_diag d;
	const char *why = NULL;
	af_diag_init(&d);
	if (!af_buf_append(&as, g->data, g->len) && !as.failed &&
	    af_codec_relayout(c, ml, &as, &why, &d) == 0) {
		printf("%-8s %s: %s -> %s (the lines it changes: overlay diff --layout)\n", "layout",
		       rel, gl, ml);
		af_buf_free(g);
		*g = as;
		as = (struct af_buf)AF_BUF_INIT;
	}
	af_buf_free(&as);
	af_diag_free(&d);
}

static void say(struct walk *w, const char *what, const char *rel)
{
	printf("%-8s %s\n", what, rel);
	(void)w;
}

/* The members of MODDIR's archive m against GAME's g (NULL: a new container), rel the
 * folder's path; nested containers inside both are walked too. */
static void walk_members(struct walk *w, struct af_archive *g, struct af_archive *m, const char *rel)
{
	struct af_archive *gs = g ? af_archive_shown(g) : NULL, *ms = af_archive_shown(m);
	struct af_buf gb = AF_BUF_INIT, mb = AF_BUF_INIT, gy = AF_BUF_INIT, my = AF_BUF_INIT;
	struct af_diag d;
	char path[4400];
	af_diag_init(&d);
	for (size_t i = 0; i < ms->n; i++) {
		long k = gs ? af_archive_find(gs, ms->m[i].name) : -1;
		snprintf(path, sizeof(path), "%s/%s", rel, ms->m[i].name);
		af_buf_reset(&gb);
		af_buf_reset(&mb);
		if (af_archive_body(ms, i, &mb, &d) ||
		    (k >= 0 && af_archive_body(gs, (size_t)k, &gb, &d))) {
			fprintf(stderr, "animfs overlay: %s: %s\n", path, d.msg);
			af_diag_clear(&d);
			w->failed = 1;
			continue;
		}
		if (k >= 0 && gb.len == mb.len && (!gb.len || !memcmp(gb.data, mb.data, gb.len)))
			continue;
		struct af_archive *msub = af_archive_sub(ms, i);
		struct af_archive *gsub = k >= 0 ? af_archive_sub(gs, (size_t)k) : NULL;
		if (msub && (gsub || k < 0)) {
			walk_members(w, gsub, msub, path);
			continue;
		}
		say(w, k >= 0 ? "changed" : "new", path);
		if (!w->diff || !ms->m[i].codec)
			continue;
		af_buf_reset(&gy);
		af_buf_reset(&my);
		if (af_member_yaml(ms, i, &my, &d) ||
		    (k >= 0 && af_member_yaml(gs, (size_t)k, &gy, &d)) ||
		    print_diff(path, k >= 0 ? &gy : NULL, &my)) {
			af_diag_clear(&d);
			w->failed = 1;
		}
	}
	af_buf_free(&gb);
	af_buf_free(&mb);
	af_buf_free(&gy);
	af_buf_free(&my);
	af_diag_free(&d);
}

/* An archive of the file's bytes (kept in *file while it is open), or 0 when c is NULL. */
static int open_arc(const struct af_container *c, const char *path, struct af_buf *file,
		    struct af_archive *a)
{
	struct af_diag d;
	struct af_cli_io io;
	af_diag_init(&d);
	int rc = af_read_file_at(AT_FDCWD, path, AF_MAX_FILE, file, &d);
	if (!rc) {
		af_cli_io_init(&io, path, 0);
		rc = af_archive_open_io(a, c, file->data, file->len, &io.d.io, &d);
		af_cli_io_close(&io);
	}
	if (rc)
		af_cli_report(path, &d);
	af_diag_free(&d);
	return rc;
}

/* in->folder/DIR/NAME.TAG.EXT: rel's folders become one folder (their '/' a '-'), since the
 * config lines read in->folder and one folder below it (Sims 3's PackedFile lines), so
 * GameData/Shared/Packages/x.package goes to Overrides/GameData-Shared-Packages/
 * x.override.package. */
void af_cli_ov_install_name(const struct af_overlay_install *in, const char *rel, char *out,
			    size_t size)
{
	const char *base = af_base(rel), *dot = strrchr(base, '.');
	int nb = dot && dot != base ? (int)(dot - base) : (int)strlen(base);
	char dir[4096];
	int nd = snprintf(dir, sizeof(dir), "%.*s", (int)(base - rel), rel);
	for (int i = 0; i + 1 < nd && i + 1 < (int)sizeof(dir); i++)
		if (dir[i] == '/')
			dir[i] = '-'; /* the last '/' (before the name) stays */
	snprintf(out, size, "%s/%s%.*s.%s%s", in->folder, dir, nb, base, in->tag, dot && dot != base ? dot : "");
}

/* The line that says where MODDIR's container file rel goes among the game's mods
 * (the container's overlay_install): a name of its own, read above the file it overrides. */
static void say_install(const struct af_overlay_install *in, const char *rel)
{
	char to[8400];
	af_cli_ov_install_name(in, rel, to, sizeof(to));
	printf("%-8s %s -> %s (%s)\n", "install", rel, to, in->how);
}

static void one_file(struct walk *w, const char *rel)
{
	char gp[8400], mp[8400];
	struct af_buf g = AF_BUF_INIT, m = AF_BUF_INIT, gy = AF_BUF_INIT, my = AF_BUF_INIT;
	struct af_archive ga, ma;
	struct af_diag d;
	struct stat st;
	snprintf(gp, sizeof(gp), "%s/%s", w->game, rel);
	snprintf(mp, sizeof(mp), "%s/%s", w->mod, rel);
	int in_game = stat(gp, &st) == 0 && S_ISREG(st.st_mode);
	const struct af_container *c = af_cli_arc_of(mp);
	memset(&ga, 0, sizeof(ga));
	memset(&ma, 0, sizeof(ma));
	af_diag_init(&d);
	if (c && (!in_game || af_cli_arc_of(gp) == c)) { /* its members, one by one */
		if (open_arc(c, mp, &m, &ma) || (in_game && open_arc(c, gp, &g, &ga)))
			w->failed = 1;
		else
			walk_members(w, in_game ? &ga : NULL, &ma, rel);
		if (c->overlay_merge && c->overlay_install)
			say_install(c->overlay_install, rel);
		goto out;
	}
	if (af_read_file_at(AT_FDCWD, mp, AF_MAX_FILE, &m, &d) ||
	    (in_game && af_read_file_at(AT_FDCWD, gp, AF_MAX_FILE, &g, &d))) {
		af_cli_report(rel, &d);
		w->failed = 1;
		goto out;
	}
	if (in_game && g.len == m.len && (!g.len || !memcmp(g.data, m.data, g.len)))
		goto out;
	say(w, in_game ? "changed" : "new", rel);
	if (w->diff && in_game && !w->layout)
		same_layout(rel, mp, &m, &g);
	if (w->diff && !loose_yaml(mp, &m, &my) && (!in_game || !loose_yaml(gp, &g, &gy)) &&
	    print_diff(rel, in_game ? &gy : NULL, &my))
		w->failed = 1;
out:
	af_archive_close(&ga);
	af_archive_close(&ma);
	af_buf_free(&g);
	af_buf_free(&m);
	af_buf_free(&gy);
	af_buf_free(&my);
	af_diag_free(&d);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A walk of MODDIR's files: each(ctx, its path below MODDIR); failed: one not listed. */
struct files {
	const char *mod;
	void (*each)(void *ctx, const char *rel);
	void *ctx;
	int failed;
};

/* Every file below MODDIR/rel, in name order (temp files of unfinished saves skipped). */
static void walk_dir(struct files *w, const char *rel)
{
	char path[8400], **names = NULL;
	size_t n = 0, cap = 0;
	snprintf(path, sizeof(path), "%s%s%s", w->mod, rel[0] ? "/" : "", rel);
	DIR *dir = opendir(path);
	if (!dir) {
		fprintf(stderr, "animfs overlay: %s: %s\n", path, strerror(errno));
		w->failed = 1;
		return;
	}
	for (struct dirent *e; (e = readdir(dir));) {
		char **grown;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    !strncmp(e->d_name, AF_TMP_PREFIX, strlen(AF_TMP_PREFIX)))
			continue;
		if (!(grown = af_grow(names, &cap, n, sizeof(*names), 64)) ||
		    !(grown[n] = af_strcopy(e->d_name))) {
			names = grown ? grown : names;
			w->failed = 1;
			break;
		}
		names = grown;
		n++;
	}
	closedir(dir);
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		char sub[4400];
		struct stat st;
		snprintf(sub, sizeof(sub), "%s%s%s", rel, rel[0] ? "/" : "", names[i]);
		snprintf(path, sizeof(path), "%s/%s", w->mod, sub);
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			walk_dir(w, sub);
		else if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
			w->each(w->ctx, sub);
		free(names[i]);
	}
	free(names);
}

int af_cli_ov_walk(const char *mod, void (*each)(void *ctx, const char *rel), void *ctx)
{
	struct files w = {mod, each, ctx, 0};
	walk_dir(&w, "");
	return w.failed ? -1 : 0;
}

static void each_file(void *ctx, const char *rel)
{
	one_file(ctx, rel);
}

int af_cli_overlay(int argc, char **argv)
{
	struct walk w = {0};
	if (argc >= 2 && !strcmp(argv[1], "ship"))
		return af_cli_overlay_ship(argc, argv);
	if (argc == 5 && !strcmp(argv[1], "diff") && !strcmp(argv[2], "--layout")) {
		w.layout = 1;
		argv[2] = argv[1]; /* "diff" in --layout's place: the rest as without it */
		argv++, argc--;
	}
	if (argc != 4 || (strcmp(argv[1], "status") && strcmp(argv[1], "diff")))
		return af_cli_usage("overlay");
	w.diff = !strcmp(argv[1], "diff");
	w.game = argv[2];
	w.mod = argv[3];
	struct stat st;
	if (stat(w.game, &st) || !S_ISDIR(st.st_mode) || stat(w.mod, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "animfs overlay: GAME and MODDIR must be folders\n");
		return AF_EXIT_FAIL;
	}
	if (af_cli_ov_walk(w.mod, each_file, &w))
		w.failed = 1;
	fflush(stdout);
	return w.failed ? AF_EXIT_FAIL : AF_EXIT_OK;
}
