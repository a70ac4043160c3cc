/* `animfs check [--coverage] PATH...`: every file a codec claims goes binary -> YAML ->
 * binary and must come back byte for byte. Prints each failure, then a table per format;
 * --coverage adds, from each codec's coverage hook, how many animation bytes are editable
 * fields and how many are carried opaque. */
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "animfs/path.h"
#include "cli.h"
#include "animfs/container.h"
#include "animfs/fileio.h"
#include "archive.h"

#define MAX_CODECS 32

struct stats {
	unsigned long files, identical, failed, unsupported, refused; /* refused: did not decode */
	unsigned long long bytes;
	unsigned long covered; /* files the coverage hook measured */
	unsigned long long decoded, opaque;
};

static struct stats per[MAX_CODECS];
static unsigned long not_claimed, seen;
#define MAX_CONTAINERS 16
static struct af_cli_arc_stats arcs[MAX_CONTAINERS];
static int progress, coverage;
static double last_progress;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static size_t codec_index(const struct af_codec *c)
{
	size_t i = 0;
	while (af_codecs[i] && af_codecs[i] != c)
		i++;
	return i;
}

static void clear_progress(void)
{
	if (progress)
		fputs("\r\033[K", stderr);
}

static void fail(const char *path, const char *what)
{
	clear_progress();
	printf("FAIL %s: %s\n", path, what);
	fflush(stdout);
}

/* A member checked inside a container counts under its codec. */
static void count_member(const char *codec, unsigned long long bytes, int ok)
{
	const struct af_codec *c = af_codec_by_name(codec);
	size_t i = c ? codec_index(c) : MAX_CODECS;
	if (i >= MAX_CODECS)
		return;
	per[i].files++;
	per[i].bytes += bytes;
	if (ok)
		per[i].identical++;
	else
		per[i].failed++;
}

/* A file that round-trips: its share of opaque animation bytes, one line per file
 * that has any (so that a regression names its file). */
static void measure(const struct af_codec *c, const char *path, const struct af_buf *in,
		    struct af_cli_io *io, struct stats *s)
{
	uint64_t dec = 0, opq = 0;
	struct af_diag d;
	char msg[2048];
	af_diag_init(&d);
	if (c->coverage(in->data, in->len, &io->d.io, &dec, &opq, &d)) {
		af_diag_format(&d, "coverage", msg, sizeof(msg));
		fail(path, msg);
		s->failed++;
		s->identical--;
	} else {
		s->covered++;
		s->decoded += dec;
		s->opaque += opq;
		if (opq) {
			clear_progress();
			printf("opaque %s: %llu of %llu animation bytes\n", path,
			       (unsigned long long)opq, (unsigned long long)(dec + opq));
		}
	}
	af_diag_free(&d);
}

static void print_coverage(void)
{
	printf("coverage: animation bytes shown as editable fields (decoded) or carried as bytes "
	       "or unknown fields (opaque)\n");
	printf("%-22s %8s %12s %12s %9s\n", "format", "files", "decoded", "opaque", "decoded%");
	for (size_t i = 0; af_codecs[i] && i < MAX_CODECS; i++) {
		const struct stats *s = &per[i];
		if (!s->files)
			continue;
		if (!af_codecs[i]->coverage) {
			printf("%-22s %8s %12s %12s %9s   (the codec does not report coverage)\n",
			       af_codecs[i]->name, "-", "-", "-", "-");
			continue;
		}
		unsigned long long all = s->decoded + s->opaque;
		if (!all && s->covered) {
			printf("%-22s %8lu %12llu %12llu %9s   (no animation data in these files)\n",
			       af_codecs[i]->name, s->covered, s->decoded, s->opaque, "-");
			continue;
		}
		printf("%-22s %8lu %12llu %12llu %8.2f%%\n", af_codecs[i]->name, s->covered,
		       s->decoded, s->opaque, all ? 100.0 * (double)s->decoded / (double)all : 100.0);
	}
}

static void check_one(const char *path)
{
	uint8_t head[AF_BID_HEAD];
	size_t got = 0;
	struct af_buf in = AF_BUF_INIT, yaml = AF_BUF_INIT, back = AF_BUF_INIT;
	struct af_diag d;
	struct af_cli_io io;
	char msg[2048];
	const char *base = af_base(path);

	if (af_read_head_at(AT_FDCWD, path, head, sizeof(head), &got))
		return;
	const struct af_container *arc = af_cli_arc_of(path);
	if (arc) {
		af_cli_arc_check(path, arcs, MAX_CONTAINERS, fail, count_member);
		return;
	}
	const struct af_codec *c = af_codec_bid(base, head, got);
	if (!c) {
		not_claimed++;
		return;
	}
	struct stats *s = &per[codec_index(c)];
	af_diag_init(&d);
	af_cli_io_init(&io, path, 0);
	s->files++;
	if (af_read_file_at(AT_FDCWD, path, AF_MAX_FILE, &in, &d)) {
		af_diag_format(&d, "read", msg, sizeof(msg));
		fail(path, msg);
		s->failed++;
		goto out;
	}
	s->bytes += in.len;
	int rc = c->to_yaml(in.data, in.len, &io.d.io, &yaml, &d);
	if (rc) {
		af_diag_format(&d, rc == AF_VIEW_READONLY ? "read-only view" : "decode", msg, sizeof(msg));
		fail(path, msg);
		if (d.code == AF_EUNSUP)
			s->unsupported++;
		else
			s->refused++;
		goto out;
	}
	if (c->from_yaml(yaml.data, yaml.len, &io.d.io, &back, &d)) {
		af_diag_format(&d, "encode of its own YAML", msg, sizeof(msg));
		fail(path, msg);
		s->failed++;
		goto out;
	}
	if (back.len != in.len || memcmp(back.data, in.data, in.len)) {
		size_t i = 0, m = back.len < in.len ? back.len : in.len;
		while (i < m && back.data[i] == in.data[i])
			i++;
		snprintf(msg, sizeof(msg), "re-encoded bytes differ from offset 0x%zx (%zu bytes in, %zu out)",
			 i, in.len, back.len);
		fail(path, msg);
		s->failed++;
		goto out;
	}
	s->identical++;
	if (coverage && c->coverage)
		measure(c, path, &in, &io, s);
out:
	af_cli_io_close(&io);
	af_buf_free(&in);
	af_buf_free(&yaml);
	af_buf_free(&back);
	af_diag_free(&d);
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type != FTW_F)
		return 0;
	seen++;
	if (progress && now() - last_progress > 0.2) {
		last_progress = now();
		fprintf(stderr, "\r\033[K%lu files: %s", seen, path);
	}
	check_one(path);
	return 0;
}

int af_cli_check(int argc, char **argv)
{
	unsigned long failed = 0, decoded = 0, identical = 0, refused = 0, unsupported = 0;
	int first = 1;
	coverage = argc > 1 && !strcmp(argv[1], "--coverage");
	first += coverage;
	if (argc <= first) {
		fprintf(stderr, "usage: animfs check [--coverage] PATH...\n");
		return AF_EXIT_USAGE;
	}
	progress = isatty(2);
	for (int i = first; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "animfs check: %s: no such file or folder\n", argv[i]);
			return AF_EXIT_FAIL; /* a missing input, as in every command */
		}
		if (nftw(argv[i], visit, 32, FTW_PHYS) < 0) {
			perror("animfs check");
			return AF_EXIT_FAIL;
		}
	}
	clear_progress();
	printf("%-22s %8s %12s %10s %8s %8s %12s\n", "format", "files", "bytes", "identical", "failed",
	       "refused", "unsupported");
	for (size_t i = 0; af_codecs[i] && i < MAX_CODECS; i++) {
		struct stats *s = &per[i];
		if (!s->files)
			continue;
		printf("%-22s %8lu %12llu %10lu %8lu %8lu %12lu\n", af_codecs[i]->name, s->files,
		       s->bytes, s->identical, s->failed, s->refused, s->unsupported);
		failed += s->failed;
		decoded += s->files - s->refused - s->unsupported;
		identical += s->identical;
		refused += s->refused;
		unsupported += s->unsupported;
	}
	for (size_t k = 0; af_containers[k] && k < MAX_CONTAINERS; k++) {
		const struct af_cli_arc_stats *a = &arcs[k];
		if (a->archives) {
			printf("%s: %lu (%lu %s inside), %lu rebuilt byte for byte, %lu failed",
			       af_containers[k]->plural, a->archives, a->members, af_containers[k]->members,
			       a->rebuilt, a->failed_archives);
			if (a->refused)
				printf(", %lu refused as damaged", a->refused);
			putchar('\n');
		}
		failed += a->failed_archives;
		refused += a->refused;
	}
	if (coverage)
		print_coverage();
	printf("not claimed: %lu file%s\n", not_claimed, not_claimed == 1 ? "" : "s");
	/* decoded: the files and members whose round trip ran; refused: the files and
	 * containers that do not decode or open at all */
	printf("%lu of %lu decoded files identical, %lu refused as damaged", identical, decoded,
	       refused);
	if (unsupported)
		printf(", %lu unsupported", unsupported);
	putchar('\n');
	return failed || refused ? AF_EXIT_FAIL : AF_EXIT_OK;
}
