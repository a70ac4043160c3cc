/* Growable byte buffer with a sticky failure flag, and little-endian writers. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "animfs/buf.h"
#include "animfs/diag.h"

/* The daemon's mmap threshold: a block from it up is mapped on its own and given back
 * to the system when freed. Below it blocks are the heap's, where texts the render
 * cache keeps, evicts in LRU order and replaces leave holes: with 256 KiB, scripts/bench
 * 3000 (--cache-mb=64, the samples beside) peaked at 133-147 MiB, over the bound of 128;
 * with 128 KiB at 98-101 (a text's buffer is reserved from its codec's upper-bound guess,
 * mostly past this), renders ~4% slower (docs/benchmark.md). A page more than 128 KiB:
 * a READ's buffer (128 KiB at most, the mount's max_read; libfuse mallocs it for each
 * READ) is the heap's, not a fresh mapping faulted in page by page and unmapped with a
 * TLB flush. */
#define DAEMON_MMAP (132u << 10)
/* The heap's free top the daemon keeps: with glibc's 128 KiB a READ's buffer freed at the
 * top was given back to the system at once, and faulted in again by the next READ. The
 * first read of the 1,015 Diesel views: the daemon's CPU -20% (docs/benchmark.md). */
#define DAEMON_TRIM (1u << 20)

/* A buffer's block from DAEMON_MMAP up is fresh pages in the daemon, which a writer
 * filling it would fault in one by one, each fault a trap; there they are made ready
 * ahead of the writer, READY_STEP at a time, by one madvise each (af_buf_ready). The
 * step bounds the pages made ready past a text's end. The first read of the 1,015
 * Diesel views: the daemon's CPU -10-15% (docs/benchmark.md). */
#define READY_STEP (32u << 10)
static int ready_ahead; /* the daemon's policy */

/* Warm blocks (af_alloc_warm): a few freed blocks kept for the next render, whose
 * pages are then already mapped. Off (0) but in the daemon, where the mmap threshold
 * makes every block past it fresh pages, faulted in one by one: the arenas of
 * 1,015 Diesel renders cost ~5,800 page faults of 45,000 (docs/benchmark.md). */
#define WARM_DAEMON (4u << 20) /* bytes kept at most, in all */
#define WARM_BLOCK (2u << 20)  /* the largest block kept */
#define WARM_SLOTS 16
#define WARM_MIN (256u << 10) /* smaller ones are not kept: below DAEMON_MMAP they are
				  the heap's, which reuses them (kept here they would pin
				  it), and keeping those between measured worse (45,000
				  faults for the 1,015 renders against 39,000) */
static struct {
	pthread_mutex_t lock;
	size_t max, bytes;
	unsigned n;
	struct {
		void *p;
		size_t size;
	} slot[WARM_SLOTS];
} warm = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void warm_set_max(size_t max)
{
	pthread_mutex_lock(&warm.lock);
	warm.max = max;
	pthread_mutex_unlock(&warm.lock);
}

void af_heap_policy(enum af_heap_kind kind)
{
#ifdef __GLIBC__
	/* One file at a time: what a file freed is what the next one reuses. Setting any
	 * of these turns glibc's growing mmap threshold off, so blocks up to 32 MiB come
	 * from the heap and 64 MiB of freed top is kept, else every large render would
	 * fault in fresh mmapped pages. Measured (docs/benchmark.md): 1,015 Diesel files
	 * 24,000 page faults -> 800, 1.1-1.2x faster; the 6 MOTN samples x5 59,000 ->
	 * 6,700, 1.44x faster; the peak the same. Not for the daemon: a top pad there made
	 * a first read 1.08x faster but its peak 15-24 MiB higher. */
	if (kind == AF_HEAP_THREADS) {
		/* two banks checked by two threads: 140-171 MiB -> 119 MiB (--cache-mb=72,
		 * bound 136), no slower (docs/benchmark.md) */
		mallopt(M_TRIM_THRESHOLD, 1 << 20);
		return;
	}
	if (kind == AF_HEAP_BATCH) {
		mallopt(M_MMAP_THRESHOLD, 32 << 20);
		mallopt(M_TRIM_THRESHOLD, 64 << 20);
		mallopt(M_TOP_PAD, 4 << 20);
		return;
	}
	/* with glibc's defaults (an arena per thread, a mmap threshold that grows to the
	 * largest block freed) freed renders stay resident and the daemon's peak far
	 * exceeds --cache-mb. One arena: with two, scripts/bench 3000 (--cache-mb=64)
	 * peaked at 130-136 MiB, over the bound of 128, and no listing or read measured
	 * slower with one (docs/benchmark.md). The threshold: DAEMON_MMAP above. */
	mallopt(M_MMAP_THRESHOLD, DAEMON_MMAP);
	mallopt(M_TRIM_THRESHOLD, DAEMON_TRIM);
	mallopt(M_ARENA_MAX, 1);
#ifdef MADV_POPULATE_WRITE
	ready_ahead = 1;
#endif
	warm_set_max(WARM_DAEMON);
#else
	(void)kind;
#endif
}

static _Thread_local unsigned long alloc_count, alloc_fail_at;

unsigned long af_alloc_fail_at(unsigned long n)
{
	unsigned long made = alloc_count;
	alloc_count = 0;
	alloc_fail_at = n;
	return made;
}

/* 1 when the allocation being made must fail. */
static int alloc_fails(void)
{
	alloc_count++;
	return alloc_fail_at && alloc_count >= alloc_fail_at;
}

/* A block of at least n bytes (*got: how many), a kept one when one fits (at most 2x
 * the size asked, so a small ask does not hold a big block). */
void *af_alloc_warm(size_t n, size_t *got)
{
	void *p = NULL;
	if (alloc_fails())
		return NULL;
	*got = n;
	if (!__atomic_load_n(&warm.n, __ATOMIC_RELAXED))
		return malloc(n);
	pthread_mutex_lock(&warm.lock);
	unsigned best = WARM_SLOTS;
	for (unsigned i = 0; i < warm.n; i++)
		if (warm.slot[i].size >= n && warm.slot[i].size / 2 <= n &&
		    (best == WARM_SLOTS || warm.slot[i].size < warm.slot[best].size))
			best = i;
	if (best < WARM_SLOTS) {
		p = warm.slot[best].p;
		*got = warm.slot[best].size;
		warm.bytes -= *got;
		warm.slot[best] = warm.slot[--warm.n];
	}
	pthread_mutex_unlock(&warm.lock);
	return p ? p : malloc(n);
}

/* Give back a block of af_alloc_warm (size: its *got): kept while there is room, when
 * it is one of the mmapped sizes. */
void af_free_warm(void *p, size_t size)
{
	if (!p)
		return;
	if (size >= WARM_MIN && size <= WARM_BLOCK &&
	    __atomic_load_n(&warm.max, __ATOMIC_RELAXED)) {
		pthread_mutex_lock(&warm.lock);
		int kept = warm.n < WARM_SLOTS && warm.bytes + size <= warm.max;
		if (kept) {
			warm.slot[warm.n].p = p;
			warm.slot[warm.n++].size = size;
			warm.bytes += size;
		}
		pthread_mutex_unlock(&warm.lock);
		if (kept)
			return;
	}
	free(p);
}

void *af_alloc(size_t n)
{
	return alloc_fails() ? NULL : malloc(n);
}

void *af_alloc_zeroed(size_t count, size_t size)
{
	return alloc_fails() ? NULL : calloc(count, size);
}

void *af_resize(void *p, size_t n)
{
	return alloc_fails() ? NULL : realloc(p, n);
}

char *af_strcopy(const char *s)
{
	return alloc_fails() ? NULL : strdup(s);
}

void *af_grow(void *array, size_t *cap, size_t n, size_t size, size_t first)
{
	size_t c = *cap ? *cap * 2 : first;
	void *p;
	if (n < *cap)
		return array;
	if (c < *cap || c > SIZE_MAX / size || !(p = af_resize(array, c * size)))
		return NULL;
	*cap = c;
	return p;
}

void af_buf_init(struct af_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void af_buf_free(struct af_buf *b)
{
	if (b->cap >= WARM_MIN)
		af_free_warm(b->data, b->cap);
	else
		free(b->data);
	af_buf_init(b);
}

void af_buf_reset(struct af_buf *b)
{
	b->len = 0;
	b->failed = 0;
}

/* The bound's room for want bytes in all: asked for more past max, in powers of two
 * from 64 KiB up to 8 MiB, then in steps of 8 MiB (a small text asks little). */
#define BOUND_STEP ((size_t)8 << 20)
static size_t bound_room(struct af_buf_bound *bd, size_t want)
{
	if (want > bd->max + bd->granted && bd->more) {
		size_t over = want - bd->max, step = 64 << 10;
		if (over < BOUND_STEP) {
			while (step < over)
				step <<= 1;
			over = step;
		} else if (over <= SIZE_MAX - BOUND_STEP) {
			over = (over + BOUND_STEP - 1) / BOUND_STEP * BOUND_STEP;
		}
		bd->granted = bd->more(bd->more_ctx, over);
	}
	return bd->max + bd->granted;
}

/* The room up to want (<= cap) ready to be written: READY_STEP past it made so at
 * once when the block is one of fresh pages (a failed madvise leaves them to fault). */
static void make_ready(struct af_buf *b, size_t want)
{
	size_t from = b->ready > b->len && b->ready <= b->cap ? b->ready : b->len;
	if (!ready_ahead || b->cap < DAEMON_MMAP) {
		b->ready = b->cap;
		return;
	}
	size_t to = b->cap - want > READY_STEP ? want + READY_STEP : b->cap;
#ifdef MADV_POPULATE_WRITE
	uintptr_t a = ((uintptr_t)b->data + from) & ~(uintptr_t)4095; /* a page's start */
	if (to > from)
		(void)madvise((void *)a, (uintptr_t)b->data + to - a, MADV_POPULATE_WRITE);
#else
	(void)from;
#endif
	b->ready = to;
}

int af_buf_reserve(struct af_buf *b, size_t n)
{
	if (b->failed)
		return AF_ENOMEM;
	if (n <= b->cap - b->len) {
		if (b->len + n > b->ready || b->ready > b->cap)
			make_ready(b, b->len + n);
		return 0;
	}
	if (n > SIZE_MAX / 2 - b->len) {
		b->failed = 1;
		return AF_ENOMEM;
	}
	size_t want = b->len + n, room = SIZE_MAX;
	if (b->bound && want > (room = bound_room(b->bound, want))) {
		b->failed = b->over = 1;
		return AF_ENOMEM;
	}
	size_t cap = b->cap ? b->cap : 256;
	while (cap < want)
		cap *= 2;
	if (cap > room)
		cap = room;
	/* a first block of a short-lived size (not a bounded text's) may be a warm one */
	uint8_t *p = !b->data && !b->bound && cap >= WARM_MIN && cap <= WARM_BLOCK
			     ? af_alloc_warm(cap, &cap)
			     : af_resize(b->data, cap);
	if (!p) {
		b->failed = 1;
		return AF_ENOMEM;
	}
	b->data = p;
	b->cap = cap;
	make_ready(b, want);
	return 0;
}

void af_buf_hint(struct af_buf *b, size_t n)
{
	if (b->failed || n <= b->cap - b->len || n > SIZE_MAX / 2 - b->len)
		return;
	size_t want = b->len + n, room;
	if (b->bound && want > b->bound->max + b->bound->granted) {
		room = b->bound->hint_asks ? bound_room(b->bound, want) : b->bound->max + b->bound->granted;
		want = want < room ? want : room;
	}
	if (want <= b->cap)
		return;
	uint8_t *p = af_resize(b->data, want);
	if (p) {
		b->data = p;
		b->cap = want;
	}
}

int af_buf_append(struct af_buf *b, const void *p, size_t n)
{
	if (af_buf_reserve(b, n))
		return AF_ENOMEM;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

int af_buf_puts(struct af_buf *b, const char *s)
{
	return af_buf_append(b, s, strlen(s));
}

int af_buf_putc(struct af_buf *b, char c)
{
	if (b->len < b->cap && !b->failed) {
		b->data[b->len++] = (uint8_t)c;
		return 0;
	}
	return af_buf_append(b, &c, 1);
}

int af_buf_printf(struct af_buf *b, const char *fmt, ...)
{
	va_list ap;
	char small[256];
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return AF_EINVAL;
	if ((size_t)n < sizeof(small))
		return af_buf_append(b, small, (size_t)n);
	if (af_buf_reserve(b, (size_t)n + 1))
		return AF_ENOMEM;
	va_start(ap, fmt);
	vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

int af_buf_fill(struct af_buf *b, uint8_t byte, size_t n)
{
	if (!n) /* an empty buffer has no data to offset */
		return b->failed ? AF_ENOMEM : 0;
	if (af_buf_reserve(b, n))
		return AF_ENOMEM;
	memset(b->data + b->len, byte, n);
	b->len += n;
	return 0;
}

int af_buf_align(struct af_buf *b, size_t align)
{
	if (align <= 1)
		return 0;
	size_t rem = b->len % align;
	return rem ? af_buf_fill(b, 0, align - rem) : 0;
}

int af_buf_put_u8(struct af_buf *b, uint8_t v)
{
	return af_buf_append(b, &v, 1);
}

int af_buf_put_u16le(struct af_buf *b, uint16_t v)
{
	uint8_t p[2] = { (uint8_t)v, (uint8_t)(v >> 8) };
	return af_buf_append(b, p, 2);
}

int af_buf_put_u32le(struct af_buf *b, uint32_t v)
{
	uint8_t p[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
	return af_buf_append(b, p, 4);
}

int af_buf_put_u64le(struct af_buf *b, uint64_t v)
{
	int rc = af_buf_put_u32le(b, (uint32_t)v);
	return rc ? rc : af_buf_put_u32le(b, (uint32_t)(v >> 32));
}

int af_buf_put_f32le(struct af_buf *b, float v)
{
	uint32_t u;
	memcpy(&u, &v, 4);
	return af_buf_put_u32le(b, u);
}

void af_buf_patch_u16le(struct af_buf *b, size_t off, uint16_t v)
{
	if (b->failed || off > b->len || b->len - off < 2)
		return;
	b->data[off] = (uint8_t)v;
	b->data[off + 1] = (uint8_t)(v >> 8);
}

void af_buf_patch_u32le(struct af_buf *b, size_t off, uint32_t v)
{
	if (b->failed || off > b->len || b->len - off < 4)
		return;
	for (int i = 0; i < 4; i++)
		b->data[off + (size_t)i] = (uint8_t)(v >> (8 * i));
}

void af_buf_patch_u64le(struct af_buf *b, size_t off, uint64_t v)
{
	af_buf_patch_u32le(b, off, (uint32_t)v);
	af_buf_patch_u32le(b, off + 4, (uint32_t)(v >> 32));
}

uint8_t *af_buf_steal(struct af_buf *b, size_t *len)
{
	uint8_t *p = b->data;
	if (len)
		*len = b->len;
	af_buf_init(b);
	return p;
}
