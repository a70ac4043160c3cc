/* Growable byte buffer and little-endian writer.
 * Every codec produces its output (YAML text or binary) into an af_buf. */
#ifndef ANIMFS_BUF_H
#define ANIMFS_BUF_H

#include <stddef.h>
#include <stdint.h>

/* A bound on a buffer's growth (a view's text as the mount renders it): max bytes, and
 * past them more(more_ctx, want) is asked to let it take want bytes over max in all
 * (what it granted before included: af_loan_more of yamlio.h is one) and returns what
 * it lets it take over max now, in all (kept in granted). more NULL: nothing more. */
struct af_buf_bound {
	size_t max;
	size_t (*more)(void *ctx, size_t want);
	void *more_ctx;
	size_t granted;
	int hint_asks; /* af_buf_hint asks `more` for its guess (else it stops at the room) */
};

struct af_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
	int failed; /* sticky: an allocation failed; later appends are no-ops */
	struct af_buf_bound *bound; /* NULL: grows as memory allows */
	int over; /* failed because the bound refused the growth, not the allocator */
	size_t ready; /* bytes from data on whose pages a write faults no more (af_buf_ready) */
};

#define AF_BUF_INIT { NULL, 0, 0, 0, NULL, 0, 0 }

void af_buf_init(struct af_buf *b);
void af_buf_free(struct af_buf *b);
void af_buf_reset(struct af_buf *b);
/* Make room for n more bytes; 0 or AF_ENOMEM (and b->failed set; b->over too when
 * the bound refused it). */
int af_buf_reserve(struct af_buf *b, size_t n);
/* The bytes past len a writer may write in place without a page fault each page: one
 * that writes at data + len itself asks af_buf_reserve when fewer are left than it
 * needs (which makes them room, and ready). Only a speed: cap - len is the room. */
static inline size_t af_buf_ready(const struct af_buf *b)
{
	return b->ready > b->len && b->ready <= b->cap ? b->ready - b->len : 0;
}
/* Room for about n more bytes when that is cheap to have (a codec's guess of its whole
 * text, made once): within the bound and what memory gives, else nothing; never fails
 * the buffer (the appends then grow it). */
void af_buf_hint(struct af_buf *b, size_t n);
int af_buf_append(struct af_buf *b, const void *p, size_t n);
int af_buf_puts(struct af_buf *b, const char *s);
int af_buf_putc(struct af_buf *b, char c);
int af_buf_printf(struct af_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int af_buf_fill(struct af_buf *b, uint8_t byte, size_t n);
/* Zero-pad to a multiple of align (1 = nothing). */
int af_buf_align(struct af_buf *b, size_t align);

/* The one way animfs allocates: malloc, calloc (zeroed), realloc (resize) and strdup
 * (strcopy), failing (NULL) when the allocation-failure hook below says so; af_resize
 * then leaves p as it was. Free with free(). Nothing else in src/ calls the C
 * library's allocators: `grep -rn "malloc\|realloc\|calloc\|strdup" src` finds only
 * src/core/buf.c. */
void *af_alloc(size_t n);
void *af_alloc_zeroed(size_t count, size_t size);
void *af_resize(void *p, size_t n);
char *af_strcopy(const char *s);
/* A block of at least n bytes (*got: its size) that may be one freed before, its pages
 * still mapped (the daemon keeps up to 4 MiB of such blocks: the arenas of renders);
 * give it back with af_free_warm(p, *got), never free(). */
void *af_alloc_warm(size_t n, size_t *got);
void af_free_warm(void *p, size_t size);

/* Room for element n of a heap array (af_alloc) of *cap elements of `size` bytes: the
 * array itself while n < *cap, else the array grown to twice *cap (`first` when empty)
 * with *cap updated. NULL when out of memory (or the size overflows); the old array is
 * then still valid. */
void *af_grow(void *array, size_t *cap, size_t n, size_t size, size_t first);

int af_buf_put_u8(struct af_buf *b, uint8_t v);
int af_buf_put_u16le(struct af_buf *b, uint16_t v);
int af_buf_put_u32le(struct af_buf *b, uint32_t v);
int af_buf_put_u64le(struct af_buf *b, uint64_t v);
int af_buf_put_f32le(struct af_buf *b, float v);
/* Overwrite already written bytes (offset + width must be <= len). */
void af_buf_patch_u16le(struct af_buf *b, size_t off, uint16_t v);
void af_buf_patch_u32le(struct af_buf *b, size_t off, uint32_t v);
void af_buf_patch_u64le(struct af_buf *b, size_t off, uint64_t v);

/* Take ownership of the data (caller frees with free()); b becomes empty. */
uint8_t *af_buf_steal(struct af_buf *b, size_t *len);

/* How the process's heap serves the short-lived buffers of renders (glibc malloc; a
 * no-op elsewhere). Called once, early, by each program:
 *  AF_HEAP_BATCH   one thread decoding file after file (the CLI, the benchmarks): the
 *                  heap serves blocks up to 32 MiB and keeps what they freed, so the
 *                  next file's buffers reuse those pages instead of faulting in fresh
 *                  ones;
 *  AF_HEAP_DAEMON  many FUSE threads: one arena, large blocks mmapped and given back
 *                  at once, so freed renders do not stay resident beyond --cache-mb;
 *  AF_HEAP_THREADS after AF_HEAP_BATCH, threads that share one memory bound (`animfs
 *                  check -j N`): each thread's heap gives back what is free at its top
 *                  past 1 MiB, else each kept what its last file freed (up to 64 MiB
 *                  each) beside what another thread's file takes. */
enum af_heap_kind { AF_HEAP_BATCH, AF_HEAP_DAEMON, AF_HEAP_THREADS };
void af_heap_policy(enum af_heap_kind kind);

/* Tests: the allocation-failure hook (as zlib's test allocators let tests force every
 * failure path). From now on, on this thread, the n-th allocation made through the
 * functions above (af_alloc ... af_grow, af_buf, the arena: every allocation of src/)
 * fails, and so does every later one; n 0 turns it off. Returns how many allocations
 * were made on this thread since the previous call. */
unsigned long af_alloc_fail_at(unsigned long n);

#endif
