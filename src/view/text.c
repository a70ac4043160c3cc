/* What a render makes: its text (struct af_text, render.h: shared, reference counted,
 * made from a buffer without a copy) and the record of what the text was made of
 * besides its binary (struct af_deps, deps.h: its sources, noted as the render reads
 * them, and their hash, the text's src), which the render cache keeps beside it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/fileio.h"
#include "animfs/yamlio.h"
#include "deps.h"
#include "render.h"

struct af_text *af_text_new(const void *data, size_t len)
{
	struct af_text *t = af_alloc(sizeof(*t) + len + 1);
	if (!t)
		return NULL;
	t->refs = 1;
	t->holds = 0;
	t->resident = 0;
	t->len = len;
	t->src = 0;
	if (len && data)
		memcpy(t->data, data, len);
	t->data[len] = 0;
	return t;
}

/* The block p (b's, resized: the header, then len bytes of text and room for a NUL) as
 * the text; b is left empty. */
static struct af_text *text_of(struct af_buf *b, uint8_t *p, size_t len)
{
	struct af_text *t = (struct af_text *)(void *)p;
	t->refs = 1;
	t->holds = 0;
	t->resident = 0;
	t->len = len;
	t->src = 0;
	t->data[len] = 0;
	b->data = NULL;
	b->len = b->cap = 0;
	return t;
}

struct af_text *af_text_take(struct af_buf *b)
{
	size_t h = offsetof(struct af_text, data), len = b->len;
	if (b->failed || len > SIZE_MAX - h - 1)
		return NULL;
	/* the text moves up by the header inside its own block: no second copy of a
	 * render that may be tens of MB */
	uint8_t *p = af_resize(b->data, h + len + 1);
	if (!p)
		return NULL;
	memmove(p + h, p, len);
	return text_of(b, p, len);
}

int af_text_begin(struct af_buf *b)
{
	static const uint8_t room[offsetof(struct af_text, data)];
	return af_buf_append(b, room, sizeof(room)) ? AF_ENOMEM : 0;
}

struct af_text *af_text_end(struct af_buf *b)
{
	size_t h = offsetof(struct af_text, data);
	if (b->failed || b->len < h || b->len == SIZE_MAX)
		return NULL;
	uint8_t *p = af_resize(b->data, b->len + 1); /* gives back what was reserved past it */
	return p ? text_of(b, p, b->len - h) : NULL;
}

struct af_text *af_text_ref(struct af_text *t)
{
	if (t)
		__atomic_add_fetch(&t->refs, 1, __ATOMIC_RELAXED);
	return t;
}

void af_text_unref(struct af_text *t)
{
	if (t && __atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) == 0)
		free(t);
}

/* ---- what a text was made of besides its binary (deps.h) ---- */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}

uint64_t af_deps_fold(uint64_t h, char kind, int ok, const char *name, const struct stat *st,
		      int err)
{
	struct af_fid id;
	uint64_t f[6] = {0};
	if (st) {
		af_fid_of(st, &id);
		f[0] = (uint64_t)id.dev, f[1] = (uint64_t)id.ino, f[2] = (uint64_t)id.size;
		f[3] = (uint64_t)id.mtime, f[4] = (uint64_t)id.ctime;
		f[5] = (uint64_t)st->st_mode;
	} else {
		f[0] = (uint64_t)(int64_t)err;
	}
	unsigned char k[2] = {(unsigned char)kind, ok ? '1' : '0'};
	h = fnv(h, k, sizeof(k));
	h = fnv(h, name, strlen(name) + 1);
	return fnv(h, f, sizeof(f));
}

void af_deps_begin(struct af_deps_rec *r)
{
	struct af_buf empty = AF_BUF_INIT;
	r->rec = empty;
	r->hash = AF_DEPS_SEED;
	r->n = 0;
}

void af_deps_note(struct af_deps_rec *r, char kind, int ok, const char *name,
		  const struct stat *st, int err)
{
	char k[2] = {kind, ok ? '1' : '0'};
	r->hash = af_deps_fold(r->hash, kind, ok, name, st, err);
	r->n++;
	af_buf_append(&r->rec, k, sizeof(k)); /* a failure is kept in rec.failed */
	af_buf_append(&r->rec, name, strlen(name) + 1);
}

/* Out of memory for a record: one that never holds (never freed: its count never
 * falls to 0). */
static struct af_deps lost = {.refs = 1u << 30, .hash = 1, .lost = 1};

struct af_deps *af_deps_end(struct af_deps_rec *r)
{
	struct af_deps *d = NULL;
	if (!r->n)
		goto out;
	size_t len = r->rec.failed ? 0 : r->rec.len;
	d = af_alloc(sizeof(*d) + len);
	if (!d) {
		d = af_deps_ref(&lost);
		goto out;
	}
	d->refs = 1;
	d->hash = r->hash ? r->hash : 1;
	d->lost = r->rec.failed;
	d->len = len;
	if (len)
		memcpy(d->rec, r->rec.data, len);
out:
	af_deps_abort(r);
	return d;
}

void af_deps_abort(struct af_deps_rec *r)
{
	af_buf_free(&r->rec);
	r->n = 0;
}

struct af_deps *af_deps_ref(struct af_deps *d)
{
	if (d)
		__atomic_add_fetch(&d->refs, 1, __ATOMIC_RELAXED);
	return d;
}

void af_deps_unref(struct af_deps *d)
{
	if (d && __atomic_sub_fetch(&d->refs, 1, __ATOMIC_ACQ_REL) == 0)
		free(d);
}
