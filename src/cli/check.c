/* `animfs check [--coverage] [-j N] [--cache-mb=N] PATH...`: every file a codec claims goes binary ->
 * YAML -> binary and must come back byte for byte. Prints each failure, then a table per
 * format; --coverage adds, from each codec's coverage hook, how many animation bytes are
 * editable fields and how many are carried opaque. The files are checked by N threads
 * (default: one per core); what each file prints is kept and printed in the order of
 * the walk, and the counts are summed at the end, so the output does not depend on N.
 * The threads' checks share one memory bound, --cache-mb + 64 MiB (pool.h). */
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "animfs/path.h"
#include "cli.h"
#include "animfs/container.h"
#include "animfs/fileio.h"
#include "animfs/fs.h"
#include "archive.h"
#include "pool.h"

#define MAX_CODECS 32

struct stats {
	unsigned long files, identical, failed, unsupported, refused; /* refused: did not decode */
	unsigned long long bytes;
	unsigned long covered; /* files the coverage hook measured */
	unsigned long long decoded, opaque;
};

#define MAX_CONTAINERS 16
/* What one thread counted. */
struct sink {
	struct stats per[MAX_CODECS];
	struct af_cli_arc_stats arcs[MAX_CONTAINERS];
	unsigned long not_claimed;
};
/* The counts of this thread, and where the file it checks prints (fail, measure). */
static _Thread_local struct sink *me;
static _Thread_local struct af_buf *said;
static int progress, coverage;
static struct af_cli_pool pool; /* the memory bound of every thread's checks */
static size_t cache_mb; /* --cache-mb, in bytes */
static double last_progress;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* What a tree takes a byte of its text, about (a real motion bank: 6): what an encode
 * tops its share up to at once, past which its tree borrows. */
#define TREE_PER_BYTE 8
/* What a check takes a byte of the binary before its tree, about: the binary, the
 * decode's own (an inflated stream, its model) and the text, then the texts the encode
 * holds (the binary and twice the text). The real samples peak at 13-15x in the decode
 * (the motion bank: 1.8 MB -> 29 MB; a package 0.9 -> 15 MB; a Diesel file 0.2 -> 3 MB)
 * and the bank's texts are 17x: the share a check takes before it reads the file. */
#define DECODE_PER_BYTE 20

/* A container is checked a member at a time, holding its tables and never the whole
 * file (archive.c): its share is that of a binary of this size (real members are a few
 * MB at most; a larger one borrows as it goes). */
#define ARC_MEMBER_GUESS ((size_t)4 << 20)

/* What one file's check holds of the pool, and whether it ran short of it. */
struct share {
	size_t held;
	int alone; /* held is the whole pool */
	int short_of; /* a tree wanted more than was free while others held the rest */
	size_t in, model;  /* of held: the binary, and the model its decode asked for */
	size_t model_want; /* a decode's model refused (af_io.mem_room), when refused alone */
};

/* Whether the share holds need bytes, topped up with what is free without waiting;
 * when it cannot, and others hold the rest, the check is to be done again alone. */
static int share_has(struct share *sh, size_t need)
{
	if (need > sh->held)
		sh->held += af_cli_pool_lend(&pool, need - sh->held);
	if (need <= sh->held)
		return 1;
	if (!sh->alone)
		sh->short_of = 1;
	return 0;
}

/* A decode's ask for its model (af_io.mem_room), beside the binary in the share;
 * refused alone, the file is more than the bound lets a check take. */
static int check_room(void *ctx, size_t want)
{
	struct share *sh = ctx;
	if (share_has(sh, sh->in + want)) {
		sh->model = want;
		return 1;
	}
	if (sh->alone)
		sh->model_want = want;
	return 0;
}

/* The decode's text (its buffer's bound, max 0: all of it asked here): what the share
 * holds beside the binary and the model. */
static size_t text_room(void *ctx, size_t want)
{
	struct share *sh = ctx;
	size_t beside = sh->in + sh->model;
	share_has(sh, beside + want);
	return sh->held > beside ? sh->held - beside : 0;
}

/* c's encode of yaml (the view of in) into back within the share (pool.h): topped up to
 * its texts and a likely tree without waiting, more borrowed as the tree grows. A tree
 * refused for want of what others held sets sh->short_of: the check is done again
 * alone. */
static int encode_bounded(const struct af_codec *c, const struct af_buf *in, const struct af_buf *yaml,
			  struct af_cli_io *io, struct af_buf *back, struct share *sh, struct af_diag *d)
{
	size_t texts = in->len + 2 * yaml->len, mib = (size_t)1 << 20;
	size_t tree = yaml->len < pool.cap / TREE_PER_BYTE ? TREE_PER_BYTE * yaml->len : pool.cap;
	size_t want = texts + mib + tree;
	if (want > sh->held)
		sh->held += af_cli_pool_lend(&pool, want - sh->held);
	if (sh->held < texts + mib && !sh->alone) { /* its texts are more than its share */
		sh->short_of = 1;
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	}
	struct af_loan loan = af_cli_pool_loan(&pool);
	io->d.io.yaml_max = sh->held > texts + mib ? sh->held - texts : mib;
	io->d.io.yaml_more = af_loan_more;
	io->d.io.yaml_more_ctx = &loan;
	int rc = c->from_yaml(yaml->data, yaml->len, &io->d.io, back, d);
	af_loan_end(&loan);
	io->d.io.yaml_more = NULL;
	if (rc && loan.short_of && !sh->alone)
		sh->short_of = 1;
	return rc;
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
	af_buf_printf(said, "FAIL %s: %s\n", path, what);
}

/* A member checked inside a container counts under its codec. */
static void count_member(const char *codec, unsigned long long bytes, int ok)
{
	const struct af_codec *c = af_codec_by_name(codec);
	size_t i = c ? codec_index(c) : MAX_CODECS;
	if (i >= MAX_CODECS)
		return;
	me->per[i].files++;
	me->per[i].bytes += bytes;
	if (ok)
		me->per[i].identical++;
	else
		me->per[i].failed++;
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
		if (opq)
			af_buf_printf(said, "opaque %s: %llu of %llu animation bytes\n", path,
				      (unsigned long long)opq, (unsigned long long)(dec + opq));
	}
	af_diag_free(&d);
}

static void print_coverage(const struct stats *per)
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

/* One attempt at path's check within the share sh. */
static void check_file(const char *path, struct share *sh)
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
		struct af_loan loan = af_cli_pool_loan(&pool);
		/* half the share for a member's tree (its tables, the member's bytes and
		 * texts take the rest), more borrowed as it grows */
		size_t half = sh->held / 2 > ((size_t)1 << 20) ? sh->held / 2 : (size_t)1 << 20;
		struct af_cli_arc_bound b = {half, af_loan_more, &loan};
		af_cli_arc_check(path, &b, me->arcs, MAX_CONTAINERS, fail, count_member);
		af_loan_end(&loan);
		if (loan.short_of && !sh->alone)
			sh->short_of = 1;
		return;
	}
	const struct af_codec *c = af_codec_bid(base, head, got);
	if (!c) {
		me->not_claimed++;
		return;
	}
	struct stats *s = &me->per[codec_index(c)];
	struct af_buf_bound text = {0, text_room, sh, 0, 0};
	af_diag_init(&d);
	af_cli_io_init(&io, path, 0);
	io.d.io.mem_room = check_room;
	io.d.io.mem_ctx = sh;
	yaml.bound = &text;
	s->files++;
	if (af_read_file_at(AT_FDCWD, path, AF_MAX_FILE, &in, &d)) {
		af_diag_format(&d, "read", msg, sizeof(msg));
		fail(path, msg);
		s->failed++;
		goto out;
	}
	s->bytes += in.len;
	sh->in = in.len;
	int rc = c->to_yaml(in.data, in.len, &io.d.io, &yaml, &d);
	if (sh->short_of)
		goto out; /* done again alone */
	if (yaml.over || sh->model_want) {
		if (yaml.over)
			snprintf(msg, sizeof(msg), "decode: its YAML would be more than %zu MiB, more than "
				 "--cache-mb=%zu lets a check hold: raise --cache-mb", text.granted >> 20,
				 cache_mb >> 20);
		else
			snprintf(msg, sizeof(msg), "decode: it would take about %zu MiB (the file and the "
				 "codec's model of it), more than --cache-mb=%zu lets a check hold: raise "
				 "--cache-mb", sh->model_want >> 20, cache_mb >> 20);
		fail(path, msg);
		s->failed++;
		goto out;
	}
	if (rc) {
		af_diag_format(&d, rc == AF_VIEW_READONLY ? "read-only view" : "decode", msg, sizeof(msg));
		fail(path, msg);
		if (d.code == AF_EUNSUP)
			s->unsupported++;
		else
			s->refused++;
		goto out;
	}
	if (encode_bounded(c, &in, &yaml, &io, &back, sh, &d)) {
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

/* path's check within the pool: a share for its decode taken before the file is read
 * (the whole pool when that is all of it), and when a tree ran short of what others held,
 * everything it counted and said forgotten and the check done again alone. */
static void check_one(const char *path)
{
	struct stat st;
	size_t mib = (size_t)1 << 20, size = stat(path, &st) == 0 ? (size_t)st.st_size : 0;
	if (af_cli_arc_of(path) && size > ARC_MEMBER_GUESS)
		size = ARC_MEMBER_GUESS; /* its tables, and one member at a time */
	size_t est = size < (pool.cap - mib) / DECODE_PER_BYTE ? DECODE_PER_BYTE * size + mib : pool.cap;
	struct share sh = {0, est >= pool.cap, 0, 0, 0, 0};
	struct sink before = *me;
	size_t said_before = said->len;
	sh.held = sh.alone ? af_cli_pool_take_all(&pool) : af_cli_pool_take(&pool, est);
	check_file(path, &sh);
	if (sh.short_of) {
		*me = before;
		said->len = said_before;
		af_cli_pool_give(&pool, sh.held);
		sh = (struct share){af_cli_pool_take_all(&pool), 1, 0, 0, 0, 0};
		check_file(path, &sh);
	}
	if (sh.alone)
		af_cli_pool_give_all(&pool, sh.held);
	else
		af_cli_pool_give(&pool, sh.held);
}

/* The files of the walk, in its order, each with what its check printed. */
struct job {
	char *path;
	struct af_buf said;
	int done;
};
static struct {
	struct job *v;
	size_t n, cap, next, printed;
	pthread_mutex_t lock;
} jobs = {NULL, 0, 0, 0, 0, PTHREAD_MUTEX_INITIALIZER};

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type != FTW_F)
		return 0;
	if (jobs.n == jobs.cap) {
		size_t cap = jobs.cap ? jobs.cap * 2 : 256;
		struct job *v = af_resize(jobs.v, cap * sizeof(*v));
		if (!v)
			return -1;
		jobs.v = v;
		jobs.cap = cap;
	}
	struct job *j = &jobs.v[jobs.n];
	memset(j, 0, sizeof(*j));
	if (!(j->path = af_strcopy(path)))
		return -1;
	jobs.n++;
	return 0;
}

/* What the checked files said, in the order of the walk, as far as they are done. Call
 * with jobs.lock held. */
static void print_done(void)
{
	while (jobs.printed < jobs.n && jobs.v[jobs.printed].done) {
		struct job *j = &jobs.v[jobs.printed++];
		if (j->said.len) {
			clear_progress();
			fwrite(j->said.data, 1, j->said.len, stdout);
			fflush(stdout);
		}
		af_buf_free(&j->said);
		if (progress && now() - last_progress > 0.2) {
			last_progress = now();
			fprintf(stderr, "\r\033[K%zu of %zu files: %s", jobs.printed, jobs.n, j->path);
		}
	}
}

static void *worker(void *arg)
{
	me = arg;
	for (;;) {
		pthread_mutex_lock(&jobs.lock);
		size_t i = jobs.next++;
		pthread_mutex_unlock(&jobs.lock);
		if (i >= jobs.n)
			return NULL;
		said = &jobs.v[i].said;
		check_one(jobs.v[i].path);
		if (said->failed) { /* what it said is lost, never the failure */
			af_buf_reset(said);
			said->failed = 0;
			af_buf_printf(said, "FAIL %s: out of memory for its messages\n", jobs.v[i].path);
		}
		pthread_mutex_lock(&jobs.lock);
		jobs.v[i].done = 1;
		print_done();
		pthread_mutex_unlock(&jobs.lock);
	}
}

/* -j N, -jN, --jobs N, --jobs=N: N, or 0 when v is no count. */
static long jobs_of(const char *v)
{
	char *end;
	long n = v ? strtol(v, &end, 10) : 0;
	return v && *v && !*end && n > 0 && n <= 1024 ? n : 0;
}

int af_cli_check(int argc, char **argv)
{
	unsigned long failed = 0, decoded = 0, identical = 0, refused = 0, unsupported = 0;
	long nthreads = sysconf(_SC_NPROCESSORS_ONLN);
	int first = 1, rc = AF_EXIT_FAIL;
	struct sink *sinks = NULL, all;
	pthread_t *tids = NULL;
	long started = 0;
	size_t cache_bytes = (size_t)AF_DEFAULT_CACHE_MB << 20;
	int pooled = 0;
	for (; first < argc && argv[first][0] == '-' && argv[first][1]; first++) {
		const char *a = argv[first], *v = NULL;
		if (!strcmp(a, "--coverage")) {
			coverage = 1;
			continue;
		}
		if (!strncmp(a, "--cache-mb=", 11)) {
			if (af_cli_parse_mb("check", "--cache-mb", a + 11, 1, &cache_bytes))
				return AF_EXIT_USAGE;
			continue;
		}
		if (!strcmp(a, "-j") || !strcmp(a, "--jobs"))
			v = first + 1 < argc ? argv[++first] : NULL;
		else if (!strncmp(a, "-j", 2))
			v = a + 2;
		else if (!strncmp(a, "--jobs=", 7))
			v = a + 7;
		else
			break;
		if (!(nthreads = jobs_of(v))) {
			fprintf(stderr, "animfs check: -j wants a number of threads from 1 to 1024\n");
			return AF_EXIT_USAGE;
		}
	}
	if (argc <= first || argv[first][0] == '-') {
		fprintf(stderr, "usage: animfs check [--coverage] [-j N] [--cache-mb=N] PATH...\n");
		return AF_EXIT_USAGE;
	}
	progress = isatty(2);
	for (int i = first; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "animfs check: %s: no such file or folder\n", argv[i]);
			goto out; /* a missing input, as in every command */
		}
		if (nftw(argv[i], visit, 32, FTW_PHYS) < 0) {
			perror("animfs check");
			goto out;
		}
	}
	if (nthreads < 1)
		nthreads = 1;
	if ((size_t)nthreads > jobs.n)
		nthreads = jobs.n ? (long)jobs.n : 1;
	sinks = af_alloc_zeroed((size_t)nthreads, sizeof(*sinks));
	tids = af_alloc_zeroed((size_t)nthreads, sizeof(*tids));
	if (!sinks || !tids) {
		fprintf(stderr, "animfs check: out of memory\n");
		goto out;
	}
	af_cli_pool_init(&pool, cache_bytes);
	cache_mb = cache_bytes;
	pooled = 1;
	if (nthreads > 1)
		af_heap_policy(AF_HEAP_THREADS);
	/* the other threads start with every signal the main one has; this one checks too */
	for (started = 1; started < nthreads; started++)
		if (pthread_create(&tids[started], NULL, worker, &sinks[started]))
			break;
	worker(&sinks[0]);
	for (long t = 1; t < started; t++)
		pthread_join(tids[t], NULL);
	memset(&all, 0, sizeof(all));
	for (long t = 0; t < nthreads; t++) {
		for (size_t i = 0; i < MAX_CODECS; i++) {
			struct stats *a = &all.per[i], *b = &sinks[t].per[i];
			a->files += b->files;
			a->identical += b->identical;
			a->failed += b->failed;
			a->unsupported += b->unsupported;
			a->refused += b->refused;
			a->bytes += b->bytes;
			a->covered += b->covered;
			a->decoded += b->decoded;
			a->opaque += b->opaque;
		}
		for (size_t k = 0; k < MAX_CONTAINERS; k++) {
			struct af_cli_arc_stats *a = &all.arcs[k], *b = &sinks[t].arcs[k];
			a->archives += b->archives;
			a->rebuilt += b->rebuilt;
			a->failed_archives += b->failed_archives;
			a->members += b->members;
			a->refused += b->refused;
		}
		all.not_claimed += sinks[t].not_claimed;
	}
	struct stats *per = all.per;
	struct af_cli_arc_stats *arcs = all.arcs;
	unsigned long not_claimed = all.not_claimed;
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
		print_coverage(per);
	printf("not claimed: %lu file%s\n", not_claimed, not_claimed == 1 ? "" : "s");
	/* decoded: the files and members whose round trip ran; refused: the files and
	 * containers that do not decode or open at all */
	printf("%lu of %lu decoded files identical, %lu refused as damaged", identical, decoded,
	       refused);
	if (unsupported)
		printf(", %lu unsupported", unsupported);
	putchar('\n');
	rc = failed || refused ? AF_EXIT_FAIL : AF_EXIT_OK;
out:
	for (size_t i = 0; i < jobs.n; i++) {
		free(jobs.v[i].path);
		af_buf_free(&jobs.v[i].said);
	}
	free(jobs.v);
	free(sinks);
	free(tids);
	if (pooled)
		af_cli_pool_destroy(&pool);
	return rc;
}
