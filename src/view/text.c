/* Rendered texts (struct af_text, render.h): shared, reference counted, made from a
 * buffer without a copy. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/yamlio.h"
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
