/* The render cache (identity keys, the memory bound, sizes that outlive evicted
 * texts, failures), shared texts, and the ring behind .animfs/errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "../../src/fs/fs_int.h"
#include "../../src/fs/kcache.h"

static const struct af_codec fake = { .name = "fake", .description = "test", .extensions = "fk",
				      .version = 3 };
static const struct af_codec fake4 = { .name = "fake", .description = "test", .extensions = "fk",
				       .version = 4 };
/* a codec whose rendering reads names from outside the file */
static const struct af_codec named = { .name = "named", .description = "test", .extensions = "nm",
				       .version = 1, .render_uses_names = 1 };

static struct stat ident(ino_t ino, off_t size, long mtime_ns)
{
	struct stat st;
	memset(&st, 0, sizeof(st));
	st.st_dev = 7;
	st.st_ino = ino;
	st.st_size = size;
	st.st_mtim.tv_sec = 1000;
	st.st_mtim.tv_nsec = mtime_ns;
	st.st_mode = S_IFREG | 0644;
	return st;
}

static void test_text_refs(void **state)
{
	(void)state;
	struct af_text *t = af_text_new("abc", 3);
	assert_non_null(t);
	assert_int_equal(t->len, 3);
	assert_int_equal(t->data[3], 0);
	assert_ptr_equal(af_text_ref(t), t);
	af_text_unref(t);
	assert_memory_equal(t->data, "abc", 3); /* still alive: one reference left */
	af_text_unref(t);
	af_text_unref(NULL);
}

static void test_identity(void **state)
{
	(void)state;
	struct af_rcache *c = af_rcache_new(1 << 20);
	struct stat a = ident(1, 100, 5), changed = ident(1, 100, 6), grown = ident(1, 101, 5);
	struct af_rinfo info;
	struct af_text *t, *got;
	assert_int_equal(af_rcache_get(c, &a, &info, &got), 0);
	af_rcache_put_bid(c, &a, 1, &fake);
	assert_int_equal(af_rcache_get(c, &a, &info, &got), 1);
	assert_ptr_equal(info.codec, &fake);
	assert_int_equal(info.have_size, 0);
	assert_null(got);
	t = af_text_new("rendered", 8);
	af_rcache_put_text(c, &a, &fake, t);
	af_text_unref(t);
	assert_int_equal(af_rcache_get(c, &a, &info, &got), 1);
	assert_int_equal(info.size, 8);
	assert_non_null(got);
	assert_memory_equal(got->data, "rendered", 8);
	af_text_unref(got);
	/* another mtime (ns) or size is another identity */
	assert_int_equal(af_rcache_get(c, &changed, &info, &got), 0);
	assert_int_equal(af_rcache_get(c, &grown, &info, &got), 0);
	/* a new codec version resets what was known */
	af_rcache_put_bid(c, &a, 1, &fake4);
	assert_int_equal(af_rcache_get(c, &a, &info, &got), 1);
	assert_ptr_equal(info.codec, &fake4);
	assert_int_equal(info.have_size, 0);
	assert_null(got);
	assert_int_equal(af_rcache_text_bytes(c), 0);
	af_rcache_free(c);
}

static void test_bound_keeps_sizes(void **state)
{
	(void)state;
	struct af_rcache *c = af_rcache_new(100);
	struct af_rinfo info;
	struct af_text *got;
	char text[40];
	memset(text, 'x', sizeof(text));
	for (ino_t i = 1; i <= 10; i++) {
		struct stat st = ident(i, 10, 0);
		struct af_text *t = af_text_new(text, sizeof(text));
		af_rcache_put_text(c, &st, &fake, t);
		af_text_unref(t);
		assert_true(af_rcache_text_bytes(c) <= 100);
	}
	assert_int_equal(af_rcache_text_bytes(c), 80);
	struct stat old = ident(1, 10, 0), recent = ident(10, 10, 0);
	assert_int_equal(af_rcache_get(c, &old, &info, &got), 1);
	assert_null(got); /* text evicted ... */
	assert_int_equal(info.have_size, 1);
	assert_int_equal(info.size, 40); /* ... its size kept */
	assert_int_equal(af_rcache_get(c, &recent, &info, &got), 1);
	assert_non_null(got);
	af_text_unref(got);
	/* a text larger than the whole bound is not kept, its size is */
	char huge[200] = {0};
	struct stat hs = ident(99, 1, 0);
	struct af_text *big = af_text_new(huge, sizeof(huge));
	af_rcache_put_text(c, &hs, &fake, big);
	af_text_unref(big);
	assert_int_equal(af_rcache_get(c, &hs, &info, &got), 1);
	assert_null(got);
	assert_int_equal(info.size, 200);
	af_rcache_free(c);
}

/* A rendering that depends on names from elsewhere keeps its size only with its text:
 * evicted, too big to keep, or saved for the next mount, its size is forgotten. */
static void test_names_dep(void **state)
{
	(void)state;
	struct af_rcache *c = af_rcache_new(10);
	struct af_rinfo info;
	struct af_text *got, *t = af_text_new("0123456789", 8), *u = af_text_new("abcdefgh", 8);
	struct stat a = ident(1, 5, 0), b = ident(2, 5, 0), big = ident(3, 5, 0);
	af_rcache_put_text(c, &a, &named, t);
	assert_int_equal(af_rcache_get(c, &a, &info, &got), 1);
	assert_int_equal(info.have_size, 1);
	af_text_unref(got);
	af_rcache_put_text(c, &b, &named, u); /* evicts a's text (bound: 10 bytes) */
	assert_int_equal(af_rcache_get(c, &a, &info, &got), 1);
	assert_null(got);
	assert_int_equal(info.have_size, 0);
	struct af_text *huge = af_text_new("0123456789abcdef", 16);
	af_rcache_put_text(c, &big, &named, huge);
	assert_int_equal(af_rcache_get(c, &big, &info, &got), 1);
	assert_null(got);
	assert_int_equal(info.have_size, 0);
	/* b still has its text and size; neither is written for the next mount */
	char dir[] = "/tmp/animfs-rc-XXXXXX";
	assert_non_null(mkdtemp(dir));
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	assert_int_equal(af_rcache_save(c, dfd, "sizes"), 0);
	struct af_rcache *c2 = af_rcache_new(10);
	assert_int_equal(af_rcache_load(c2, dfd, "sizes"), 0);
	assert_int_equal(af_rcache_get(c2, &b, &info, NULL), 0);
	unlinkat(dfd, "sizes", 0);
	close(dfd);
	rmdir(dir);
	af_text_unref(t), af_text_unref(u), af_text_unref(huge);
	af_rcache_free(c);
	af_rcache_free(c2);
}

static void test_failed(void **state)
{
	(void)state;
	struct af_rcache *c = af_rcache_new(1000);
	struct stat st = ident(5, 3, 0);
	struct af_rinfo info;
	af_rcache_put_failed(c, &st, &fake);
	assert_int_equal(af_rcache_get(c, &st, &info, NULL), 1);
	assert_int_equal(info.failed, 1);
	assert_ptr_equal(info.codec, &fake);
	af_rcache_free(c);
}

static void test_many_entries(void **state)
{
	(void)state;
	struct af_rcache *c = af_rcache_new(1000);
	struct af_rinfo info;
	for (ino_t i = 0; i < 20000; i++) {
		struct stat st = ident(i, 1, 0);
		af_rcache_put_bid(c, &st, 1, i % 2 ? &fake : NULL);
	}
	for (ino_t i = 0; i < 20000; i += 997) {
		struct stat st = ident(i, 1, 0);
		assert_int_equal(af_rcache_get(c, &st, &info, NULL), 1);
		assert_ptr_equal(info.codec, i % 2 ? &fake : NULL);
	}
	af_rcache_free(c);
}

/* A spill file of 100 bytes behind a memory bound of 50: evicted texts read back
 * byte for byte (and kept in memory again), the ring forgets the oldest as it wraps,
 * a changed identity never reads a spilled text, and the counters say so. */
static void put(struct af_rcache *c, ino_t ino, char fill, size_t len)
{
	char text[64];
	struct stat st = ident(ino, 10, 0);
	memset(text, fill, len);
	struct af_text *t = af_text_new(text, len);
	af_rcache_put_text(c, &st, &fake, t);
	af_text_unref(t);
}

static int holds(struct af_rcache *c, ino_t ino, char fill, size_t len)
{
	struct stat st = ident(ino, 10, 0);
	struct af_rinfo info;
	struct af_text *got;
	char want[64];
	memset(want, fill, len);
	if (af_rcache_get(c, &st, &info, &got) != 1 || !got)
		return 0;
	int same = got->len == len && !memcmp(got->data, want, len) && got->data[len] == 0;
	af_text_unref(got);
	return same ? 1 : -1;
}

/* A cache of mem bytes of text whose evicted texts go to a spill file of cap bytes (an
 * unlinked temporary file). */
static struct af_rcache *spilling(size_t mem, uint64_t cap)
{
	char path[] = "/tmp/animfs-test-spill.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	struct af_rcache *c = af_rcache_new(mem);
	assert_non_null(c);
	af_rcache_spill(c, fd, cap);
	return c;
}

static void test_spill(void **state)
{
	(void)state;
	struct af_rcache *c = spilling(50, 100);
	struct af_rcache_stats s;
	put(c, 1, 'a', 30);
	put(c, 2, 'b', 30); /* a leaves memory: spilled at 0 */
	put(c, 3, 'c', 30); /* b: spilled at 30 */
	assert_int_equal(af_rcache_text_bytes(c), 30);
	assert_int_equal(holds(c, 1, 'a', 30), 1); /* read back; c goes to the file (60) */
	assert_int_equal(holds(c, 1, 'a', 30), 1); /* now from memory */
	af_rcache_stats(c, &s);
	assert_int_equal(s.spill_writes, 3);
	assert_int_equal(s.spill_reads, 1);
	assert_int_equal(s.hits, 1);
	assert_int_equal(s.spill_bytes, 90);
	put(c, 4, 'd', 30); /* a again would go to the file, but it is there: no write */
	af_rcache_stats(c, &s);
	assert_int_equal(s.spill_writes, 3);
	put(c, 5, 'e', 30); /* d: no room at 90, wraps to 0 over a's place */
	af_rcache_stats(c, &s);
	assert_int_equal(s.spill_writes, 4);
	assert_int_equal(s.spill_bytes, 90); /* b at 30, c at 60, d at 0 */
	assert_int_equal(holds(c, 1, 'a', 30), 0); /* overwritten: rendered again */
	assert_int_equal(holds(c, 2, 'b', 30), 1); /* (e is written over b's place) */
	assert_int_equal(holds(c, 3, 'c', 30), 1);
	assert_int_equal(holds(c, 4, 'd', 30), 1);
	assert_int_equal(holds(c, 5, 'e', 30), 1);
	af_rcache_stats(c, &s);
	assert_int_equal(s.spill_lost, 0);
	/* a text larger than the memory bound goes to the file at once */
	put(c, 6, 'f', 60);
	assert_int_equal(holds(c, 6, 'f', 60), 1);
	/* a new identity of the same file never reads the old text */
	struct stat now = ident(6, 11, 0);
	struct af_rinfo info;
	struct af_text *got;
	assert_int_equal(af_rcache_get(c, &now, &info, &got), 0);
	assert_null(got);
	/* a text larger than the file is not spilled */
	put(c, 7, 'g', 64);
	af_rcache_free(c);
	c = af_rcache_new(50);
	af_rcache_spill(c, -1, 0); /* none: evicted texts are gone */
	put(c, 1, 'a', 30);
	put(c, 2, 'b', 30);
	assert_int_equal(holds(c, 1, 'a', 30), 0);
	af_rcache_free(c);
}

/* One bound for texts and what parses and containers borrow: a loan makes texts leave
 * memory (to the spill file), is never more than the bound, and ends. */
static void test_lend(void **state)
{
	(void)state;
	struct af_rcache *c = spilling(100, 1000);
	struct af_rcache_stats s;
	put(c, 1, 'a', 30);
	put(c, 2, 'b', 30);
	put(c, 3, 'c', 30);
	assert_int_equal(af_rcache_text_bytes(c), 90);
	assert_int_equal(af_rcache_lend(c, 50), 50); /* a and b leave: 30 + 50 <= 100 */
	assert_int_equal(af_rcache_text_bytes(c), 30);
	put(c, 4, 'd', 30); /* c leaves: the loan holds */
	assert_int_equal(af_rcache_text_bytes(c), 30);
	assert_int_equal(holds(c, 1, 'a', 30), 1); /* read back from the file */
	assert_int_equal(af_rcache_text_bytes(c), 30);
	/* a loan through af_loan_more grows to what is asked, never past the bound */
	struct af_loan loan = af_rcache_loan(c);
	assert_int_equal(af_loan_more(&loan, 20), 20);
	assert_int_equal(af_loan_more(&loan, 10), 20); /* asked less: what it has */
	assert_int_equal(af_loan_more(&loan, 80), 50); /* 50 + 50: all there is */
	assert_int_equal(af_rcache_text_bytes(c), 0);
	af_rcache_stats(c, &s);
	assert_int_equal(s.lent_bytes, 100);
	assert_int_equal(s.lent_max, 100);
	put(c, 5, 'e', 30); /* no room at all: spilled at once */
	assert_int_equal(af_rcache_text_bytes(c), 0);
	assert_int_equal(holds(c, 5, 'e', 30), 1);
	af_loan_end(&loan);
	assert_int_equal(loan.lent, 0);
	af_rcache_repay(c, 50);
	af_rcache_stats(c, &s);
	assert_int_equal(s.lent_bytes, 0);
	put(c, 6, 'f', 30);
	put(c, 7, 'g', 30);
	put(c, 8, 'h', 30);
	assert_int_equal(af_rcache_text_bytes(c), 90); /* all of the bound again */
	af_rcache_free(c);
}

/* Spill writes happen without the cache's lock, in the order the ring placed them:
 * threads that put, read and borrow at once over a small ring that wraps all the time
 * get each text back whole or not at all, never another's bytes. */
struct racer {
	struct af_rcache *c;
	int id;
	unsigned long wrong;
};

static void *race(void *arg)
{
	struct racer *r = arg;
	for (int i = 0; i < 16000; i++) {
		ino_t ino = (ino_t)(1 + r->id * 8 + i % 8);
		char fill = (char)('a' + (ino + (ino_t)(i / 8)) % 26);
		size_t len = 8 + (size_t)((i * 7 + r->id) % 40);
		/* a new text of the same file is a new identity (its size changes) */
		char text[64];
		struct stat st = ident(ino, (off_t)(10 + i / 8), 0);
		memset(text, fill, len);
		struct af_text *t = af_text_new(text, len), *got;
		struct af_rinfo info;
		af_rcache_put_text(r->c, &st, &fake, t);
		af_text_unref(t);
		if (i % 5 == 0)
			af_rcache_repay(r->c, af_rcache_lend(r->c, 30));
		if (af_rcache_get(r->c, &st, &info, &got) == 1 && got) {
			for (size_t k = 0; k < got->len; k++)
				r->wrong += got->data[k] != fill;
			r->wrong += got->len != len;
			af_text_unref(got);
		}
	}
	return NULL;
}

static void test_spill_race(void **state)
{
	(void)state;
	struct af_rcache *c = spilling(60, 150);
	struct racer r[4];
	pthread_t th[4];
	for (int i = 0; i < 4; i++) {
		r[i] = (struct racer){c, i, 0};
		assert_int_equal(pthread_create(&th[i], NULL, race, &r[i]), 0);
	}
	for (int i = 0; i < 4; i++) /* all joined before any check can end the test */
		pthread_join(th[i], NULL);
	for (int i = 0; i < 4; i++)
		assert_int_equal(r[i].wrong, 0);
	struct af_rcache_stats s;
	af_rcache_stats(c, &s);
	assert_true(s.spill_writes > 1000);
	assert_true(s.spill_reads > 100);
	assert_int_equal(s.lent_bytes, 0);
	af_rcache_free(c);
}

/* The renders' gate: a render whose guess with those in flight passes the pool and half
 * of what the cache can lend waits until they leave; a smaller one and a parse (guess
 * 0) go in at once, even past one that waits; the first in never waits, whatever its
 * guess. */
struct gated {
	struct af_rcache *c;
	size_t guess;
	int *order;  /* a count shared by the threads, read and written with __atomic */
	int entered; /* its place in that count (1, 2, ...): 0 until it is in */
};

static void *enter_gate(void *arg)
{
	struct gated *g = arg;
	struct af_render_bound rb;
	af_render_bound_init(&rb, g->c, 0, g->guess);
	__atomic_store_n(&g->entered, __atomic_add_fetch(g->order, 1, __ATOMIC_ACQ_REL),
			 __ATOMIC_RELEASE);
	af_render_bound_end(&rb);
	return NULL;
}

/* Until n renders waited at c's gate (a few seconds at most). */
static void gate_waiters(struct af_rcache *c, unsigned long n)
{
	struct af_rcache_stats s;
	for (int i = 0; i < 5000; i++) {
		af_rcache_stats(c, &s);
		if (s.gate_waits >= n)
			return;
		usleep(1000);
	}
}

static void test_render_gate(void **state)
{
	(void)state;
	const size_t mib = (size_t)1 << 20;
	/* the pool (48 MiB) and half of a 16 MiB cache: 56 MiB for the guesses */
	struct af_rcache *c = af_rcache_new(16 * mib);
	struct af_render_bound first, small, huge;
	struct af_rcache_stats s;
	int order = 0;
	assert_non_null(c);
	assert_int_equal(af_render_guess(1000), 8000 + 8192); /* the model, a text in 2^n */
	assert_int_equal(af_render_guess(1826800), 8 * 1826800 + 16 * mib); /* the text's own cap */
	assert_int_equal(af_render_guess(UINT64_MAX), SIZE_MAX);
	af_render_bound_init(&first, c, 0, 40 * mib);
	af_render_bound_init(&small, c, 0, 16 * mib); /* 40 + 16 <= 56: in at once */
	af_render_bound_end(&small);
	size_t held = af_rcache_pool_begin(c, 4 * mib, 0); /* a parse: in at once */
	assert_int_equal(held, 4 * mib);
	af_rcache_pool_end(c, held);
	af_rcache_stats(c, &s);
	assert_int_equal(s.gate_waits, 0);
	struct gated big = {c, 40 * mib, &order, 0}, later = {c, 8 * mib, &order, 0};
	pthread_t tb, tl;
	assert_int_equal(pthread_create(&tb, NULL, enter_gate, &big), 0);
	gate_waiters(c, 1); /* 40 + 40 > 56: it waits */
	assert_int_equal(pthread_create(&tl, NULL, enter_gate, &later), 0);
	pthread_join(tl, NULL); /* 40 + 8 fits: in past the big one, and out */
	int early = __atomic_load_n(&big.entered, __ATOMIC_ACQUIRE);
	af_render_bound_end(&first);
	pthread_join(tb, NULL); /* joined before any check can end the test */
	assert_int_equal(early, 0);
	assert_int_equal(later.entered, 1);
	assert_int_equal(big.entered, 2);
	af_rcache_stats(c, &s);
	assert_int_equal(s.gate_waits, 1);
	af_render_bound_init(&huge, c, 0, SIZE_MAX); /* the first in: never waits */
	af_render_bound_end(&huge);
	af_rcache_free(c);
}

/* A container's members: one entry each (sub), apart from the file's own. */
static void test_members(void **state)
{
	(void)state;
	struct af_rcache *c = af_rcache_new(1 << 20);
	struct stat pkg = ident(1, 10, 0), later = ident(1, 11, 0);
	struct af_rinfo info;
	struct af_text *got, *t = af_text_new("member", 6);
	af_rcache_put_member_text(c, &pkg, 42, &fake, 1, NULL, t);
	af_text_unref(t);
	assert_int_equal(af_rcache_get(c, &pkg, &info, &got), 0);
	assert_int_equal(af_rcache_get_member(c, &pkg, 43, &info, &got), 0);
	assert_int_equal(af_rcache_get_member(c, &pkg, 42, &info, &got), 1);
	assert_non_null(got);
	assert_int_equal(info.size, 6);
	assert_int_equal(info.read_only, 1);
	assert_int_equal(info.container_ro, 1);
	af_text_unref(got);
	assert_int_equal(af_rcache_get_member(c, &later, 42, &info, &got), 0);
	af_rcache_put_member_failed(c, &pkg, 43, &fake);
	assert_int_equal(af_rcache_get_member(c, &pkg, 43, &info, &got), 1);
	assert_int_equal(info.failed, 1);
	af_rcache_free(c);
}

/* A member whose codec reads names keeps its size past its text, and both hold only
 * while the user dictionary is the one it was rendered with. */
static void test_member_names(void **state)
{
	(void)state;
	char path[] = "/tmp/animfs-test-names.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "one\n", 4), 4);
	setenv("ANIMFS_NAMES", path, 1);
	struct af_rcache *c = af_rcache_new(10);
	struct stat pkg = ident(1, 10, 0);
	struct af_rinfo info;
	struct af_text *got, *t = af_text_new("0123456789", 8), *u = af_text_new("abcdefgh", 8);
	struct af_fid names;
	af_rcache_names_stamp(&names);
	af_rcache_put_member_text(c, &pkg, 5, &named, 0, &names, t);
	af_rcache_put_member_text(c, &pkg, 6, &named, 0, &names, u); /* evicts 5's text */
	assert_int_equal(af_rcache_get_member(c, &pkg, 5, &info, &got), 1);
	assert_null(got);
	assert_int_equal(info.have_size, 1); /* the size outlives the text */
	assert_int_equal(af_rcache_get_member(c, &pkg, 6, &info, &got), 1);
	assert_non_null(got);
	af_text_unref(got);
	assert_int_equal(write(fd, "two\n", 4), 4); /* the dictionary changes */
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(af_rcache_get_member(c, &pkg, 5, &info, &got), 0);
	assert_int_equal(af_rcache_get_member(c, &pkg, 6, &info, &got), 0);
	assert_null(got);
	af_text_unref(t);
	af_text_unref(u);
	af_rcache_free(c);
	close(fd);
	unlink(path);
	unsetenv("ANIMFS_NAMES");
}

static void test_errlog_ring(void **state)
{
	(void)state;
	struct af_errlog *e = af_errlog_new(2);
	struct af_diag d;
	struct af_text *t;
	af_diag_init(&d);
	t = af_errlog_text(e, 0, NULL, NULL);
	assert_int_equal(t->len, 0);
	af_text_unref(t);
	for (int i = 1; i <= 3; i++) {
		af_diag_clear(&d);
		af_diag_at_mark(&d, AF_EINVAL, (unsigned)i, 7, "problem %d", i);
		af_errlog_add(e, 0, "a/walk.animation.yaml", &d);
	}
	t = af_errlog_text(e, 0, NULL, NULL);
	const char *s = (const char *)t->data;
	assert_null(strstr(s, "problem 1")); /* the oldest fell out */
	const char *two = strstr(s, "a/walk.animation.yaml:2:7: problem 2\n");
	const char *three = strstr(s, "a/walk.animation.yaml:3:7: problem 3\n");
	assert_non_null(two);
	assert_non_null(three);
	assert_true(two < three); /* newest last */
	assert_true(s[0] >= '2' && s[0] <= '9'); /* starts with the time */
	af_text_unref(t);
	af_diag_free(&d);
	af_errlog_free(e);
}

/* A text made of other sources than its file (deps.h): the entry keeps them and hands
 * them out with the text, shows no size without its text, and a new put replaces
 * them; a text without them has none. */
static void test_made_of_others(void **state)
{
	(void)state;
	struct af_rcache *c = af_rcache_new(1 << 20);
	struct stat st = ident(90, 100, 1);
	struct af_rinfo info;
	struct af_text *t = af_text_new("made", 4), *got = NULL;
	struct af_deps_rec rec;
	struct af_deps *d, *dd = NULL;
	af_deps_begin(&rec);
	assert_null(af_deps_end(&rec)); /* nothing read: no record */
	af_deps_begin(&rec);
	af_deps_note(&rec, AF_DEP_LIST, 1, "", &st, 0);
	af_deps_note(&rec, AF_DEP_READ, 0, "names.keyname", NULL, 2);
	d = af_deps_end(&rec);
	assert_non_null(d);
	assert_int_equal(d->hash, af_deps_fold(af_deps_fold(AF_DEPS_SEED, AF_DEP_LIST, 1, "", &st, 0),
					       AF_DEP_READ, 0, "names.keyname", NULL, 2));
	assert_int_not_equal(d->hash, af_deps_fold(af_deps_fold(AF_DEPS_SEED, AF_DEP_LIST, 1, "", &st, 0),
						   AF_DEP_READ, 1, "names.keyname", NULL, 2));
	t->src = d->hash;
	af_rcache_put_made(c, &st, 5, &fake, t, d);
	assert_true(af_rcache_get_made(c, &st, 5, &info, &got, &dd));
	assert_ptr_equal(got, t);
	assert_ptr_equal(dd, d);
	assert_false(info.have_size); /* its size is its text's, checked with it */
	af_text_unref(got);
	af_deps_unref(dd);
	struct af_text *t2 = af_text_new("plain", 5);
	af_rcache_put_made(c, &st, 5, &fake, t2, NULL);
	assert_true(af_rcache_get_made(c, &st, 5, &info, &got, &dd));
	assert_ptr_equal(got, t2);
	assert_null(dd);
	assert_true(info.have_size);
	af_text_unref(got);
	af_text_unref(t2);
	af_text_unref(t);
	af_deps_unref(d);
	af_rcache_free(c);
}

/* The kernel cache's table of paths, full, forgets one path at a time (the clock's
 * second chance): a path asked for again and again stays, the newest stay, and each
 * one's probe chain stays whole as others leave. */
static void test_kc_clock(void **state)
{
	(void)state;
	char p[32];
	const unsigned n = 200000;
	af_kc_forget_all();
	assert_int_equal(af_kc_open("/hot", 42), 0);
	for (unsigned i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "/cold/%u", i);
		assert_int_equal(af_kc_open(p, i + 1), 0);
		if (i % 1000 == 0)
			assert_int_equal(af_kc_open("/hot", 42), 1);
	}
	assert_int_equal(af_kc_open("/hot", 42), 1);
	for (unsigned i = n - 100; i < n; i++) {
		snprintf(p, sizeof(p), "/cold/%u", i);
		assert_int_equal(af_kc_open(p, i + 1), 1);
	}
	assert_int_equal(af_kc_open("/cold/0", 1), 0); /* long forgotten */
	af_kc_forget_all();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_refs),
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_bound_keeps_sizes),
		cmocka_unit_test(test_failed),
		cmocka_unit_test(test_names_dep),
		cmocka_unit_test(test_many_entries),
		cmocka_unit_test(test_spill),
		cmocka_unit_test(test_lend),
		cmocka_unit_test(test_spill_race),
		cmocka_unit_test(test_render_gate),
		cmocka_unit_test(test_members),
		cmocka_unit_test(test_member_names),
		cmocka_unit_test(test_errlog_ring),
		cmocka_unit_test(test_made_of_others),
		cmocka_unit_test(test_kc_clock),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
