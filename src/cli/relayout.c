/* `animfs convert --to LAYOUT [--style S] [-n] [-o OUTDIR] PATH...`: every file whose
 * codec writes LAYOUT (the layouts of the codec table) is rewritten, in place and
 * atomically (owner and mode kept) or into OUTDIR; a summary follows. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "animfs/path.h"
#include "cli.h"
#include "animfs/fileio.h"

#define MAX_REASONS 16
#define MAX_LAYOUTS 32

struct run {
	const char *to, *style, *outdir;
	int dry, progress;
	const char *root; /* the PATH being walked (for names below OUTDIR) */
	size_t rootlen;   /* without trailing slashes */
	dev_t out_dev;    /* OUTDIR, which a walk does not enter */
	ino_t out_ino;
	int have_out;
	unsigned long seen, converted, already, refused, other;
	struct reason {
		const char *why;
		unsigned long n;
	} reasons[MAX_REASONS], notes[MAX_REASONS];
	double last_progress;
};

static struct run R;

/* Every layout some codec converts to, once by name, in table order. */
static size_t all_layouts(const struct af_layout **l)
{
	size_t n = 0;
	for (size_t i = 0; af_codecs[i]; i++)
		for (const struct af_layout *x = af_codecs[i]->convert ? af_codecs[i]->layouts : NULL;
		     x && x->name; x++) {
			size_t k = 0;
			while (k < n && strcmp(l[k]->name, x->name))
				k++;
			if (k == n && n < MAX_LAYOUTS)
				l[n++] = x;
		}
	return n;
}

/* Whether some codec writes the layout to (in the style style, unless NULL). */
static int layout_known(const char *to, const char *style)
{
	for (size_t i = 0; af_codecs[i]; i++) {
		const struct af_layout *l = af_codec_layout(af_codecs[i], to);
		if (l && (!style || af_layout_has_style(l, style)))
			return 1;
	}
	return 0;
}

static size_t count_styles(const struct af_layout *l)
{
	size_t n = 0;
	while (l->styles && l->styles[n])
		n++;
	return n;
}

/* "a", "a or b", "a, b or c" (with last " or ") */
static void print_list(FILE *f, const char *const *items, size_t n, const char *last)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", !i ? "" : i + 1 < n ? ", " : last, items[i]);
}

void af_cli_convert_synopsis(FILE *f)
{
	const struct af_layout *l[MAX_LAYOUTS];
	const char *styles[MAX_LAYOUTS * 4];
	size_t n = all_layouts(l), ns = 0;
	fputs("convert --to ", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? "|" : "", l[i]->name);
	/* the styles of the layouts that have a choice of them */
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; count_styles(l[i]) > 1 && l[i]->styles[k]; k++) {
			size_t j = 0;
			while (j < ns && strcmp(styles[j], l[i]->styles[k]))
				j++;
			if (j == ns && ns < sizeof(styles) / sizeof(styles[0]))
				styles[ns++] = l[i]->styles[k];
		}
	if (ns) {
		fputs(" [--style ", f);
		for (size_t j = 0; j < ns; j++)
			fprintf(f, "%s%s", j ? "|" : "", styles[j]);
		fputs("]", f);
	}
	fputs(" [-n] [-o OUTDIR] PATH...", f);
}

void af_cli_convert_help(FILE *f, int indent)
{
	const struct af_layout *l[MAX_LAYOUTS];
	size_t n = all_layouts(l);
	fprintf(f, "%*sthe layouts:\n", indent, "");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%*s  %-4s %s\n", indent, "", l[i]->name, l[i]->description);
}

/* Why --style does not fit: what each layout takes. */
static void style_error(void)
{
	const struct af_layout *l[MAX_LAYOUTS];
	const char *one[MAX_LAYOUTS];
	size_t n = all_layouts(l), none = 0, nmany = 0;
	fputs("animfs convert: --style", stderr);
	for (size_t i = 0; i < n; i++) {
		if (count_styles(l[i]) < 2) {
			one[none++] = l[i]->name;
			continue;
		}
		fprintf(stderr, "%s for %s is ", nmany++ ? ";" : "", l[i]->name);
		print_list(stderr, l[i]->styles, count_styles(l[i]), " or ");
	}
	if (none) {
		fputs(" (", stderr);
		print_list(stderr, one, none, " and ");
		fprintf(stderr, " %s one style)", none > 1 ? "have" : "has");
	}
	fputc('\n', stderr);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void clear_progress(void)
{
	if (R.progress)
		fputs("\r\033[K", stderr);
}

static void count_reason(struct reason *r, const char *why)
{
	size_t i = 0;
	while (i < MAX_REASONS - 1 && r[i].why && strcmp(r[i].why, why))
		i++;
	if (!r[i].why)
		r[i].why = i == MAX_REASONS - 1 ? "other reasons" : why;
	r[i].n++;
}

static void refused(const char *path, const char *why, const struct af_diag *d)
{
	char msg[2048];
	clear_progress();
	if (d && d->code) {
		af_diag_format(d, path, msg, sizeof(msg));
		printf("REFUSED %s\n", msg);
	} else {
		printf("REFUSED %s: %s\n", path, why);
	}
	fflush(stdout);
	R.refused++;
	count_reason(R.reasons, why);
}

/* mkdir -p of the folder part of path */
static int make_parents(const char *path)
{
	char dir[8192];
	if ((size_t)snprintf(dir, sizeof(dir), "%s", path) >= sizeof(dir))
		return -1;
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return 0;
}

/* Where the converted bytes of path go: path itself, or OUTDIR/<path below its PATH>. */
static int target_path(const char *path, char *out, size_t size)
{
	if (!R.outdir)
		return snprintf(out, size, "%s", path) >= (int)size ? -1 : 0;
	size_t rl = R.rootlen;
	const char *rel = path;
	if (!strncmp(path, R.root, rl) && path[rl] == '/')
		rel = path + rl + 1;
	else if (!strncmp(path, R.root, rl) && !path[rl])
		rel = af_base(path);
	while (rel[0] == '.' && rel[1] == '/')
		rel += 2;
	while (*rel == '/')
		rel++;
	return snprintf(out, size, "%s/%s", R.outdir, rel) >= (int)size ? -1 : 0;
}

static void write_out(const char *path, const struct stat *st, const struct af_buf *bin)
{
	char dst[8192];
	struct af_diag d;
	af_diag_init(&d);
	if (target_path(path, dst, sizeof(dst)) || (R.outdir && make_parents(dst))) {
		refused(path, "cannot write the output", NULL);
		goto out;
	}
	/* in place the file keeps its owner, group and mode; a copy gets the mode */
	if (af_cli_write(dst, bin->data, bin->len, st->st_mode & 07777, &d)) {
		refused(dst, "cannot write the output", &d);
		goto out;
	}
	R.converted++;
out:
	af_diag_free(&d);
}

static void convert_one(const char *path, const struct stat *st)
{
	uint8_t head[AF_BID_HEAD];
	size_t got = 0;
	struct af_buf in = AF_BUF_INIT, out = AF_BUF_INIT;
	struct af_diag d;
	struct af_convert cv = { R.to, R.style, NULL };
	const char *base = af_base(path);
	af_diag_init(&d);
	if (af_read_head_at(AT_FDCWD, path, head, sizeof(head), &got))
		goto other;
	const struct af_codec *c = af_codec_bid(base, head, got);
	if (!af_codec_layout(c, R.to))
		goto other; /* no codec, or one that does not write that layout */
	if (af_read_file_at(AT_FDCWD, path, AF_MAX_FILE, &in, &d)) {
		refused(path, "cannot read", &d);
		goto out;
	}
	int rc = c->convert(in.data, in.len, &cv, &out, &d);
	if (rc == AF_CONVERT_ALREADY) {
		R.already++;
		if (cv.why)
			count_reason(R.notes, cv.why);
	} else if (rc) {
		refused(path, cv.why ? cv.why : af_strerror(rc), &d);
	} else if (R.dry) {
		clear_progress();
		printf("would convert %s (%zu -> %zu bytes)\n", path, in.len, out.len);
		R.converted++;
	} else {
		write_out(path, st, &out);
	}
	goto out;
other:
	R.other++;
out:
	af_buf_free(&in);
	af_buf_free(&out);
	af_diag_free(&d);
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type == FTW_D && R.have_out && st->st_dev == R.out_dev && st->st_ino == R.out_ino)
		return FTW_SKIP_SUBTREE; /* our own output */
	if (type != FTW_F || !S_ISREG(st->st_mode))
		return FTW_CONTINUE;
	if (!strncmp(af_base(path), AF_TMP_PREFIX,
		     strlen(AF_TMP_PREFIX)))
		return FTW_CONTINUE; /* another writer's temp file */
	R.seen++;
	if (R.progress && now() - R.last_progress > 0.2) {
		R.last_progress = now();
		fprintf(stderr, "\r\033[K%lu files, %lu converted: %s", R.seen, R.converted, path);
	}
	convert_one(path, st);
	return FTW_CONTINUE;
}

static void summary(void)
{
	char already[64];
	clear_progress();
	printf("convert --to %s%s%s%s\n", R.to, R.style ? " --style " : "", R.style ? R.style : "",
	       R.dry ? " (dry run: nothing written)" : "");
	printf("  %-44s %8lu\n", R.dry ? "would convert" : "converted", R.converted);
	snprintf(already, sizeof(already), "already %s (left alone)", R.to);
	printf("  %-44s %8lu\n", already, R.already);
	for (size_t i = 0; i < MAX_REASONS && R.notes[i].why; i++)
		printf("    %-42s %8lu\n", R.notes[i].why, R.notes[i].n);
	printf("  %-44s %8lu\n", "refused", R.refused);
	for (size_t i = 0; i < MAX_REASONS && R.reasons[i].why; i++)
		printf("    %-42s %8lu\n", R.reasons[i].why, R.reasons[i].n);
	printf("  %-44s %8lu\n", "other files (not a convertible format)", R.other);
}

static int usage(void)
{
	return af_cli_usage("convert");
}

/* Options anywhere, "--" ends them; the PATHs are collected into paths. */
static int parse_args(int argc, char **argv, char **paths, int *npaths)
{
	int opts = 1;
	*npaths = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int has_value = i + 1 < argc;
		if (opts && !strcmp(a, "--"))
			opts = 0;
		else if (opts && !strcmp(a, "--to") && has_value)
			R.to = argv[++i];
		else if (opts && !strcmp(a, "--style") && has_value)
			R.style = argv[++i];
		else if (opts && !strcmp(a, "-o") && has_value)
			R.outdir = argv[++i];
		else if (opts && (!strcmp(a, "-n") || !strcmp(a, "--dry-run")))
			R.dry = 1;
		else if (opts && a[0] == '-' && a[1]) {
			fprintf(stderr, "animfs convert: unknown option '%s'\n", a);
			return usage();
		} else
			paths[(*npaths)++] = argv[i];
	}
	if (!R.to || !*npaths)
		return usage();
	if (!layout_known(R.to, NULL)) {
		const struct af_layout *l[MAX_LAYOUTS];
		const char *names[MAX_LAYOUTS];
		size_t n = all_layouts(l);
		for (size_t k = 0; k < n; k++)
			names[k] = l[k]->name;
		fputs("animfs convert: --to takes ", stderr);
		print_list(stderr, names, n, " or ");
		fprintf(stderr, ", not '%s'\n", R.to);
		return AF_EXIT_USAGE;
	}
	if (R.style && !layout_known(R.to, R.style)) {
		style_error();
		return AF_EXIT_USAGE;
	}
	for (int i = 0; i < *npaths; i++) {
		struct stat st;
		if (lstat(paths[i], &st) < 0) {
			fprintf(stderr, "animfs convert: %s: %s\n", paths[i],
				errno == ENOENT ? "no such file or folder" : strerror(errno));
			return AF_EXIT_FAIL; /* a missing input, as in every command */
		}
		if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "animfs convert: %s: not a regular file or folder (a link is not followed)\n",
				paths[i]);
			return AF_EXIT_USAGE;
		}
	}
	return 0;
}

/* OUTDIR exists (made when needed), and the walk will not enter it. */
static int prepare_outdir(void)
{
	struct stat ost;
	char probe[4096];
	if (!R.outdir || R.dry)
		return 0;
	snprintf(probe, sizeof(probe), "%s/", R.outdir);
	if (make_parents(probe) || stat(R.outdir, &ost) < 0 || !S_ISDIR(ost.st_mode)) {
		fprintf(stderr, "animfs convert: -o %s: cannot make that folder\n", R.outdir);
		return AF_EXIT_FAIL;
	}
	R.out_dev = ost.st_dev, R.out_ino = ost.st_ino, R.have_out = 1;
	return 0;
}

int af_cli_convert_layout(int argc, char **argv)
{
	char **paths = af_alloc_zeroed((size_t)argc + 1, sizeof(*paths));
	int npaths, rc;
	memset(&R, 0, sizeof(R));
	if (!paths)
		return AF_EXIT_FAIL;
	if ((rc = parse_args(argc, argv, paths, &npaths)) || (rc = prepare_outdir()))
		goto out;
	R.progress = isatty(2);
	for (int i = 0; i < npaths; i++) {
		struct stat st;
		R.root = paths[i];
		R.rootlen = strlen(paths[i]);
		while (R.rootlen > 1 && paths[i][R.rootlen - 1] == '/')
			R.rootlen--;
		if (lstat(paths[i], &st) == 0 && S_ISREG(st.st_mode)) {
			R.seen++;
			convert_one(paths[i], &st);
		} else if (nftw(paths[i], visit, 32, FTW_PHYS | FTW_ACTIONRETVAL) < 0) {
			clear_progress();
			fprintf(stderr, "animfs convert: %s: %s\n", paths[i], strerror(errno));
			rc = AF_EXIT_FAIL;
			goto out;
		}
	}
	summary();
	rc = R.refused ? AF_EXIT_FAIL : AF_EXIT_OK;
out:
	free(paths);
	return rc;
}
