/* animfs-bench: the in-process half of scripts/bench.
 *   animfs-bench gen DIR N          build N realistic Diesel animations with animfs' own
 *                                   encoder into DIR/anims, and the same bytes under names
 *                                   no codec claims into DIR/plain (the pass-through baseline)
 *   animfs-bench decode FILE...     decode every file to YAML in this one process; prints
 *                                   "<seconds> <files> <YAML bytes>"
 *   animfs-bench codec FILE...      per codec: decode->YAML and YAML->encode throughput in MB/s
 *                                   of YAML, against zlib inflate alone and copying the output
 *   animfs-bench which FILE...      "<codec>\t<file>" for each file a codec claims and decodes
 *   animfs-bench inflate FILE...    zlib inflate alone of Diesel files; prints "<seconds> <files>"
 *                                   (ANIMFS_BENCH_AF_INFLATE=1: animfs' af_zframe_inflate)
 *   animfs-bench printers N         ns per value of the fast f32 and f64 printers and of the
 *                                   searches they replace (their baselines), on N random values
 *   animfs-bench cpu N CMD ARG...   runs CMD N times (output discarded); prints the median CPU
 *                                   time of one run in ms (user + system, from wait4)
 *   animfs-bench save VIEW A B PLAIN N   N saves of VIEW through the mount, alternating the
 *                                   contents of files A and B (open, write, close: the time until
 *                                   close returns), each followed by the baseline: the same bytes
 *                                   written to PLAIN with open, write, fsync, close; prints
 *                                   "<median save ms> <median baseline ms>"
 *  * Every figure is printed with its baseline measured in the same run. */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>
#include <zlib.h>

#include "animfs/buf.h"
#include "animfs/codec.h"
#include "animfs/fileio.h"
#include "animfs/num.h"
#include "animfs/yamlio.h"
#include "animfs/zframe.h"

/* Wall time, or with ANIMFS_BENCH_CPU=1 the process's CPU time: on a machine shared
 * with other work the time this process was not running is then not counted. */
static double now(void)
{
	static int cpu = -1;
	struct timespec ts;
	if (cpu < 0)
		cpu = getenv("ANIMFS_BENCH_CPU") && !strcmp(getenv("ANIMFS_BENCH_CPU"), "1");
	clock_gettime(cpu ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static double urand(void) /* [0, 1) */
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static uint32_t af_le32_tail(const struct af_buf *b)
{
	const uint8_t *p = b->data + b->len - 4;
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int mkdirs(const char *path)
{
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if (mkdir(tmp, 0755) && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(tmp, 0755) && errno != EEXIST ? -1 : 0;
}

/* One animation as YAML: ~60 bones, a few dozen keys on moving tracks, half the
 * tracks constant (one key) as in the stock set, a mix of track types. */
static void gen_yaml(struct af_buf *y, int idx)
{
	int bones = 55 + (int)(urand() * 12);
	int frames = 20 + (int)(urand() * 60);
	double len = frames / 30.0;
	int rot_float = urand() < 0.27;
	af_buf_printf(y, "# benchmark animation %d\nformat: diesel-animation\nlength: %.6f\n", idx, len);
	int nev = (int)(urand() * 4);
	af_buf_puts(y, nev ? "events:\n" : "events: []\n");
	for (int e = 0; e < nev; e++)
		af_buf_printf(y, "  - [%.4f, %s]\n", (e + 1.0) / (nev + 1.0), e % 2 ? "leftfoot" : "rightfoot");
	af_buf_puts(y, "objects:\n");
	for (int b = 0; b < bones; b++) {
		int root = b == 0;
		af_buf_printf(y, "  - name: %s%d\n", root ? "root_point" : "Bone", b);
		int pk = urand() < 0.5 ? 1 : frames / 2 + 1;
		int rk = urand() < 0.4 ? 1 : frames / 2 + 1;
		af_buf_printf(y, "    position:\n      type: %s\n      keys:\n", root ? "pos_f32" : "pos_u16");
		double px = urand() * 40 - 20, py = urand() * 40 - 20, pz = urand() * 40 - 20;
		for (int k = 0; k < pk; k++) {
			double t = pk == 1 ? 0 : len * k / (pk - 1);
			if (root)
				af_buf_printf(y, "        - [%.7g, %.4f, %.4f, %.4f]\n", (float)t, px, py + 150 * t, pz);
			else
				af_buf_printf(y, "        - [%.7g, %.2f, %.2f, %.2f]\n", (float)t, px + k * 0.1,
					      py - k * 0.05, pz);
		}
		af_buf_printf(y, "    rotation:\n      type: %s\n      keys:\n", rot_float ? "rot_f32" : "rot_packed");
		double ax = urand() - 0.5, ay = urand() - 0.5, az = urand() - 0.5;
		for (int k = 0; k < rk; k++) {
			double t = rk == 1 ? 0 : len * k / (rk - 1);
			double a = 0.3 * sin(6.283 * t / len) + ax, bq = ay, c = az;
			double nrm = sqrt(a * a + bq * bq + c * c + 1);
			double q[4] = { a / nrm, bq / nrm, c / nrm, 1 / nrm };
			if (rot_float)
				af_buf_printf(y, "        - [%.7g, %.7g, %.7g, %.7g, %.7g]\n", (float)t, (float)q[0],
					      (float)q[1], (float)q[2], (float)q[3]);
			else
				af_buf_printf(y, "        - [%.7g, %.3f, %.3f, %.3f, %.3f]\n", (float)t, q[0], q[1],
					      q[2], q[3]);
		}
	}
}

static int cmd_gen(const char *dir, int n)
{
	const struct af_codec *c = af_codec_by_name("diesel-animation");
	char path[4096];
	struct af_diag d;
	if (!c) {
		fprintf(stderr, "no diesel codec in this build\n");
		return 1;
	}
	af_diag_init(&d);
	for (int i = 0; i < n; i++) {
		struct af_buf y = AF_BUF_INIT, bin = AF_BUF_INIT;
		gen_yaml(&y, i);
		if (c->from_yaml(y.data, y.len, NULL, &bin, &d)) {
			fprintf(stderr, "generated animation %d does not encode: line %u: %s\n", i, d.line, d.msg);
			return 1;
		}
		for (int plain = 0; plain < 2; plain++) {
			snprintf(path, sizeof(path), "%s/%s/set%02d", dir, plain ? "plain" : "anims", i / 250);
			if (mkdirs(path))
				return 1;
			snprintf(path, sizeof(path), "%s/%s/set%02d/anim_%05d.%s", dir, plain ? "plain" : "anims",
				 i / 250, i, plain ? "bin" : "animation");
			if (af_replace_file_at(AT_FDCWD, path, bin.data, bin.len, 0644, &d)) {
				fprintf(stderr, "%s: %s\n", path, d.msg);
				return 1;
			}
		}
		af_buf_free(&y);
		af_buf_free(&bin);
	}
	af_diag_free(&d);
	return 0;
}

struct loaded {
	struct af_buf *files;
	const struct af_codec **codec;
	int n;
};

static void row(const char *what, double secs, double mb, const char *base, double bsecs)
{
	printf("%-34s %9.1f ms %9.1f MB/s   %-26s %9.1f ms   ratio %6.2f\n", what, secs * 1e3,
	       secs > 0 ? mb / secs : 0, base, bsecs * 1e3, bsecs > 0 ? secs / bsecs : 0);
}

static int cmd_codec(int argc, char **argv)
{
	struct loaded L = { calloc((size_t)argc, sizeof(struct af_buf)),
			    calloc((size_t)argc, sizeof(void *)), 0 };
	struct af_diag d;
	af_diag_init(&d);
	for (int i = 0; i < argc; i++) {
		struct af_buf *b = &L.files[L.n];
		if (af_read_file_at(AT_FDCWD, argv[i], AF_MAX_FILE, b, &d))
			continue;
		const char *base = strrchr(argv[i], '/');
		L.codec[L.n] = af_codec_bid(base ? base + 1 : argv[i], b->data, b->len < 64 ? b->len : 64);
		if (L.codec[L.n])
			L.n++;
		else
			af_buf_free(b);
	}
	for (size_t ci = 0; af_codecs[ci]; ci++) {
		const struct af_codec *c = af_codecs[ci];
		struct af_buf *yaml = calloc((size_t)L.n, sizeof(*yaml));
		double bin_mb = 0, yaml_mb = 0;
		int cnt = 0;
		double t0 = now();
		for (int i = 0; i < L.n; i++) {
			if (L.codec[i] != c)
				continue;
			af_diag_clear(&d);
			if (c->to_yaml(L.files[i].data, L.files[i].len, NULL, &yaml[i], &d) == 0) {
				cnt++;
				bin_mb += L.files[i].len / 1e6;
				yaml_mb += yaml[i].len / 1e6;
			}
		}
		double t_dec = now() - t0;
		if (!cnt) {
			free(yaml);
			continue;
		}
		t0 = now();
		for (int i = 0; i < L.n; i++) {
			struct af_buf out = AF_BUF_INIT;
			if (L.codec[i] == c && yaml[i].len)
				c->from_yaml(yaml[i].data, yaml[i].len, NULL, &out, &d);
			af_buf_free(&out);
		}
		double t_enc = now() - t0;
		/* baselines: copying the YAML bytes; inflating (Diesel); libyaml parsing alone */
		t0 = now();
		for (int i = 0; i < L.n; i++) {
			if (!yaml[i].len)
				continue;
			uint8_t *cp = malloc(yaml[i].len);
			memcpy(cp, yaml[i].data, yaml[i].len);
			__asm__ volatile("" ::"r"(cp) : "memory");
			free(cp);
		}
		double t_copy = now() - t0;
		t0 = now();
		for (int i = 0; i < L.n; i++) {
			if (!yaml[i].len)
				continue;
			yaml_parser_t p;
			yaml_event_t ev;
			yaml_parser_initialize(&p);
			yaml_parser_set_input_string(&p, yaml[i].data, yaml[i].len);
			int done = 0;
			while (!done && yaml_parser_parse(&p, &ev)) {
				done = ev.type == YAML_STREAM_END_EVENT;
				yaml_event_delete(&ev);
			}
			yaml_parser_delete(&p);
		}
		double t_libyaml = now() - t0;
		double t_inflate = 0;
		if (!strcmp(c->name, "diesel-animation")) {
			t0 = now();
			for (int i = 0; i < L.n; i++) {
				if (L.codec[i] != c || L.files[i].len < 6)
					continue;
				uLongf outlen = af_le32_tail(&L.files[i]);
				uint8_t *o = malloc(outlen + 1);
				uncompress(o, &outlen, L.files[i].data, (uLong)L.files[i].len - 4);
				free(o);
			}
			t_inflate = now() - t0;
		}
		printf("\n%s: %d files, %.1f MB binary, %.1f MB YAML\n", c->name, cnt, bin_mb, yaml_mb);
		row("decode -> YAML", t_dec, yaml_mb, "copy of the YAML bytes", t_copy);
		if (t_inflate > 0)
			row("decode -> YAML", t_dec, yaml_mb, "zlib inflate alone", t_inflate);
		row("YAML -> encode", t_enc, yaml_mb, "libyaml parse alone", t_libyaml);
		for (int i = 0; i < L.n; i++)
			af_buf_free(&yaml[i]);
		free(yaml);
	}
	for (int i = 0; i < L.n; i++)
		af_buf_free(&L.files[i]);
	free(L.files);
	free(L.codec);
	af_diag_free(&d);
	return 0;
}

/* Calls fn for every file that can be read, with its bytes (freed after). */
struct per_file {
	double t;     /* seconds timed by fn */
	size_t bytes; /* output bytes */
	int n;        /* files fn counted */
	const struct af_io *io; /* what decodes are given (their rendering options), or NULL */
};

static void each_file(int argc, char **argv, struct per_file *pf,
		      void (*fn)(const char *path, const struct af_buf *in, struct per_file *pf,
				 struct af_diag *d))
{
	struct af_diag d;
	af_diag_init(&d);
	for (int i = 0; i < argc; i++) {
		struct af_buf in = AF_BUF_INIT;
		if (af_read_file_at(AT_FDCWD, argv[i], AF_MAX_FILE, &in, &d) == 0)
			fn(argv[i], &in, pf, &d);
		af_diag_clear(&d);
		af_buf_free(&in);
	}
	af_diag_free(&d);
}

/* bid and decode one file: its codec, or NULL when none decodes it (the time
 * includes the bid) */
static const struct af_codec *decode_one(const char *path, const struct af_buf *in,
					 struct per_file *pf, struct af_diag *d)
{
	const char *base = strrchr(path, '/');
	struct af_buf y = AF_BUF_INIT;
	double t0 = now();
	const struct af_codec *c = af_codec_bid(base ? base + 1 : path, in->data,
						 in->len < 64 ? in->len : 64);
	if (c && c->to_yaml(in->data, in->len, pf->io, &y, d) == 0)
		pf->n++, pf->bytes += y.len;
	else
		c = NULL;
	pf->t += now() - t0;
	af_buf_free(&y);
	return c;
}

static void decode_fn(const char *path, const struct af_buf *in, struct per_file *pf,
		      struct af_diag *d)
{
	decode_one(path, in, pf, d);
}

/* ANIMFS_BENCH_EULER=1: render as `animfs decode --euler` does (the cost of the comments) */
static int cmd_decode(int argc, char **argv)
{
	static const char *const euler[] = { "euler" };
	const struct af_opts opts = { euler, 1, NULL };
	const struct af_io io = { .opts = &opts };
	struct per_file pf = { 0, 0, 0, NULL };
	if (getenv("ANIMFS_BENCH_EULER") && !strcmp(getenv("ANIMFS_BENCH_EULER"), "1"))
		pf.io = &io;
	each_file(argc, argv, &pf, decode_fn);
	printf("%.6f %d %zu\n", pf.t, pf.n, pf.bytes);
	return 0;
}

static void which_fn(const char *path, const struct af_buf *in, struct per_file *pf,
		     struct af_diag *d)
{
	const struct af_codec *c = decode_one(path, in, pf, d);
	if (c)
		printf("%s\t%s\n", c->name, path);
}

static int cmd_which(int argc, char **argv)
{
	struct per_file pf = { 0, 0, 0, NULL };
	each_file(argc, argv, &pf, which_fn);
	return 0;
}

/* The baseline of a Diesel decode: the inflate it starts with, nothing else. */
static void inflate_fn(const char *path, const struct af_buf *in, struct per_file *pf,
		       struct af_diag *d)
{
	(void)path, (void)d;
	if (in->len < 6)
		return;
	double t0 = now();
	uLongf outlen = af_le32_tail(in);
	uint8_t *o = malloc(outlen + 1);
	if (o && uncompress(o, &outlen, in->data, (uLong)in->len - 4) == Z_OK)
		pf->n++, pf->bytes += outlen;
	free(o);
	pf->t += now() - t0;
}

/* The same through animfs' own inflate (af_zframe_inflate: the fast decoder, zlib
 * where it declines), into a buffer of the trailer's size as the codec makes it. */
static void inflate_af_fn(const char *path, const struct af_buf *in, struct per_file *pf,
			  struct af_diag *d)
{
	(void)path;
	if (in->len < 6)
		return;
	double t0 = now();
	struct af_buf o = AF_BUF_INIT;
	size_t used;
	if (!af_zframe_inflate(in->data, in->len - 4, af_le32_tail(in), &o, &used, d))
		pf->n++, pf->bytes += o.len;
	af_buf_free(&o);
	pf->t += now() - t0;
}

static int cmd_inflate(int argc, char **argv)
{
	struct per_file pf = { 0, 0, 0, NULL };
	each_file(argc, argv, &pf, getenv("ANIMFS_BENCH_AF_INFLATE") ? inflate_af_fn : inflate_fn);
	printf("%.6f %d\n", pf.t, pf.n);
	return 0;
}

static int dbl_cmp(const void *a, const void *b);

/* ns per value of one printer (p32 on f, or p64 on v) */
static double ns_per(int n, const float *f, const double *v, size_t (*p32)(char *, float),
		     size_t (*p64)(char *, double), size_t *sum)
{
	char t[AF_NUM_MAX];
	double t0 = now();
	for (int i = 0; i < n; i++)
		*sum += p32 ? p32(t, f[i]) : p64(t, v[i]);
	return (now() - t0) / n * 1e9;
}

/* values in [-100, 100) as in animation data */
static int cmd_printers(int n)
{
	float *f = malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
	double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
	size_t sum = 0;
	if (n <= 0 || !f || !v)
		return 2;
	for (int i = 0; i < n; i++) {
		v[i] = urand() * 200 - 100;
		f[i] = (float)v[i];
	}
	double a = ns_per(n, f, v, af_fmt_f32_uncached, NULL, &sum);
	double b = ns_per(n, f, v, af_fmt_f32_search, NULL, &sum);
	double c = ns_per(n, f, v, NULL, af_fmt_f64, &sum);
	double d = ns_per(n, f, v, NULL, af_fmt_f64_search, &sum);
	printf("f32: fast %.1f ns, search %.1f ns (ratio %.2f); f64: fast %.1f ns, search %.1f ns "
	       "(ratio %.2f); %d random values in [-100, 100) (%zu)\n", a, b, b / a, c, d, d / c, n,
	       sum % 10);
	free(f);
	free(v);
	return 0;
}

static int cmd_cpu(int n, char **cmd)
{
	double *ms = calloc((size_t)(n > 0 ? n : 1), sizeof(double));
	if (n <= 0 || !ms)
		return 2;
	for (int i = 0; i < n; i++) {
		struct rusage ru;
		int status;
		pid_t pid = fork();
		if (pid == 0) {
			int fd = open("/dev/null", O_WRONLY);
			dup2(fd, 1);
			dup2(fd, 2);
			execvp(cmd[0], cmd);
			_exit(127);
		}
		if (pid < 0 || wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status) == 127) {
			fprintf(stderr, "animfs-bench: cannot run %s\n", cmd[0]);
			free(ms);
			return 1;
		}
		ms[i] = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
			(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
	}
	qsort(ms, (size_t)n, sizeof(double), dbl_cmp);
	printf("%.3f\n", ms[n / 2]);
	free(ms);
	return 0;
}

static int write_all(const char *path, const struct af_buf *b, int sync, double *ms)
{
	double t0 = now();
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), rc = 0;
	if (fd < 0)
		return -1;
	for (size_t off = 0; off < b->len;) {
		ssize_t w = write(fd, b->data + off, b->len - off);
		if (w <= 0) {
			rc = -1;
			break;
		}
		off += (size_t)w;
	}
	if (sync && fsync(fd))
		rc = -1;
	if (close(fd))
		rc = -1;
	*ms = (now() - t0) * 1e3;
	return rc;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int cmd_save(char **argv)
{
	struct af_buf src[2] = { AF_BUF_INIT, AF_BUF_INIT };
	struct af_diag d;
	int n = atoi(argv[4]), rc = 1;
	double *save = calloc((size_t)(n > 0 ? n : 1), sizeof(double));
	double *base = calloc((size_t)(n > 0 ? n : 1), sizeof(double));
	af_diag_init(&d);
	if (n <= 0 || !save || !base || af_read_file_at(AT_FDCWD, argv[1], AF_MAX_FILE, &src[0], &d) ||
	    af_read_file_at(AT_FDCWD, argv[2], AF_MAX_FILE, &src[1], &d))
		goto out;
	for (int i = 0; i < n; i++) {
		if (write_all(argv[0], &src[i % 2], 0, &save[i])) {
			fprintf(stderr, "animfs-bench: saving %s failed: %s\n", argv[0], strerror(errno));
			goto out;
		}
		if (write_all(argv[3], &src[i % 2], 1, &base[i])) {
			fprintf(stderr, "animfs-bench: writing %s failed: %s\n", argv[3], strerror(errno));
			goto out;
		}
	}
	qsort(save, (size_t)n, sizeof(double), dbl_cmp);
	qsort(base, (size_t)n, sizeof(double), dbl_cmp);
	printf("%.2f %.2f\n", save[n / 2], base[n / 2]);
	rc = 0;
out:
	free(save);
	free(base);
	af_buf_free(&src[0]);
	af_buf_free(&src[1]);
	af_diag_free(&d);
	return rc;
}

int main(int argc, char **argv)
{
	af_heap_policy(AF_HEAP_BATCH); /* as the CLI: the decode figures are the CLI's */
	if (argc >= 7 && !strcmp(argv[1], "save"))
		return cmd_save(argv + 2);
	if (argc >= 3 && !strcmp(argv[1], "which"))
		return cmd_which(argc - 2, argv + 2);
	if (argc >= 3 && !strcmp(argv[1], "inflate"))
		return cmd_inflate(argc - 2, argv + 2);
	if (argc >= 3 && !strcmp(argv[1], "printers"))
		return cmd_printers(atoi(argv[2]));
	if (argc >= 4 && !strcmp(argv[1], "cpu"))
		return cmd_cpu(atoi(argv[2]), argv + 3);
	if (argc >= 3 && !strcmp(argv[1], "decode"))
		return cmd_decode(argc - 2, argv + 2);
	if (argc >= 4 && !strcmp(argv[1], "gen"))
		return cmd_gen(argv[2], atoi(argv[3]));
	if (argc >= 3 && !strcmp(argv[1], "codec"))
		return cmd_codec(argc - 2, argv + 2);
	fprintf(stderr, "usage: animfs-bench gen DIR N | decode FILE... | codec FILE... | "
			"which FILE... | inflate FILE... | printers N | cpu N CMD ARG... | save VIEW A B PLAIN N\n");
	return 2;
}
