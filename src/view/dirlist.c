/* A folder's listing, kept per open directory and served by offset (dirlist.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/buf.h"
#include "dirlist.h"

struct af_dirlist {
	struct af_buf names; /* each name and its NUL, one after the other */
	size_t *at;          /* where entry i starts in names */
	size_t n, cap;
	int failed;
};

struct af_dirlist *af_dirlist_new(void)
{
	return af_alloc_zeroed(1, sizeof(struct af_dirlist));
}

void af_dirlist_free(struct af_dirlist *l)
{
	if (!l)
		return;
	af_buf_free(&l->names);
	free(l->at);
	free(l);
}

void af_dirlist_reset(struct af_dirlist *l)
{
	l->names.len = 0;
	l->names.failed = 0;
	l->n = 0;
	l->failed = 0;
}

int af_dirlist_add(void *arg, const char *name)
{
	struct af_dirlist *l = arg;
	if (l->failed)
		return 1;
	size_t *at = af_grow(l->at, &l->cap, l->n, sizeof(*at), 64);
	if (!at) {
		l->failed = 1;
		return 1;
	}
	l->at = at;
	size_t start = l->names.len;
	if (af_buf_append(&l->names, name, strlen(name) + 1)) {
		l->failed = 1;
		return 1;
	}
	l->at[l->n++] = start;
	return 0;
}

int af_dirlist_failed(const struct af_dirlist *l)
{
	return l->failed;
}

size_t af_dirlist_count(const struct af_dirlist *l)
{
	return l->n;
}

const char *af_dirlist_name(const struct af_dirlist *l, size_t i)
{
	return (const char *)l->names.data + l->at[i];
}

int af_dirlist_copy(struct af_dirlist *to, const struct af_dirlist *from)
{
	af_dirlist_reset(to);
	if (to->cap < from->n) {
		size_t *at = af_resize(to->at, from->n * sizeof(*at));
		if (!at)
			return 1;
		to->at = at;
		to->cap = from->n;
	}
	if (from->names.len && af_buf_append(&to->names, from->names.data, from->names.len)) {
		af_dirlist_reset(to);
		return 1;
	}
	if (from->n)
		memcpy(to->at, from->at, from->n * sizeof(*to->at));
	to->n = from->n;
	return 0;
}

size_t af_dirlist_bytes(const struct af_dirlist *l)
{
	return l->names.len + l->n * sizeof(*l->at) + sizeof(*l);
}
