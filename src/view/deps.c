/* What a text was made of besides its binary (deps.h): a record of its sources, made
 * as a render reads them, and their hash. */
#include <stdlib.h>
#include <string.h>

#include "animfs/fileio.h"
#include "animfs/yamlio.h"
#include "deps.h"

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
