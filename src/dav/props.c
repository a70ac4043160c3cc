/* Dead properties (props.h): a hash of paths, each a chain of (namespace, name, value). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/buf.h"
#include "animfs/fnv.h"
#include "href.h"
#include "props.h"

struct dav_prop {
	struct dav_prop *next;
	char *rel, *ns, *name, *value;
	size_t size;
};

static size_t bucket(const char *rel)
{
	return af_fnv1_32(rel, strlen(rel)) % DAV_PROP_BUCKETS;
}

int dav_props_init(struct dav_props *P, size_t max_bytes)
{
	memset(P, 0, sizeof *P);
	P->max = max_bytes;
	return pthread_mutex_init(&P->mu, NULL) ? -ENOMEM : 0;
}

static void prop_free(struct dav_prop *p)
{
	free(p->rel);
	free(p->ns);
	free(p->name);
	free(p->value);
	free(p);
}

void dav_props_free(struct dav_props *P)
{
	for (size_t i = 0; i < DAV_PROP_BUCKETS; i++)
		while (P->b[i]) {
			struct dav_prop *p = P->b[i];
			P->b[i] = p->next;
			prop_free(p);
		}
	pthread_mutex_destroy(&P->mu);
}

static struct dav_prop **slot(struct dav_props *P, const char *rel, const char *ns,
			      const char *name)
{
	struct dav_prop **pp = &P->b[bucket(rel)];
	for (; *pp; pp = &(*pp)->next)
		if (!strcmp((*pp)->rel, rel) && !strcmp((*pp)->ns, ns) && !strcmp((*pp)->name, name))
			return pp;
	return pp;
}

/* Adds (or replaces) one property; under mu. */
static int put(struct dav_props *P, const char *rel, const char *ns, const char *name,
	       const char *value)
{
	size_t size = strlen(rel) + strlen(ns) + strlen(name) + strlen(value) + 4 +
		      sizeof(struct dav_prop);
	struct dav_prop **pp = slot(P, rel, ns, name);
	size_t old = *pp ? (*pp)->size : 0;
	if (P->bytes - old + size > P->max)
		return -ENOSPC;
	struct dav_prop *p = af_alloc_zeroed(1, sizeof *p);
	if (!p)
		return -ENOMEM;
	p->rel = af_strcopy(rel);
	p->ns = af_strcopy(ns);
	p->name = af_strcopy(name);
	p->value = af_strcopy(value);
	if (!p->rel || !p->ns || !p->name || !p->value) {
		prop_free(p);
		return -ENOMEM;
	}
	p->size = size;
	if (*pp) {
		p->next = (*pp)->next;
		prop_free(*pp);
	}
	*pp = p;
	P->bytes = P->bytes - old + size;
	return 0;
}

int dav_props_set(struct dav_props *P, const char *rel, const char *ns, const char *name,
		  const char *value)
{
	pthread_mutex_lock(&P->mu);
	int rc = put(P, rel, ns, name, value);
	pthread_mutex_unlock(&P->mu);
	return rc;
}

void dav_props_remove(struct dav_props *P, const char *rel, const char *ns, const char *name)
{
	pthread_mutex_lock(&P->mu);
	struct dav_prop **pp = slot(P, rel, ns, name);
	if (*pp) {
		struct dav_prop *p = *pp;
		*pp = p->next;
		P->bytes -= p->size;
		prop_free(p);
	}
	pthread_mutex_unlock(&P->mu);
}

void dav_props_each(struct dav_props *P, const char *rel,
		    void (*fn)(void *arg, const char *ns, const char *name, const char *value),
		    void *arg)
{
	pthread_mutex_lock(&P->mu);
	for (struct dav_prop *p = P->b[bucket(rel)]; p; p = p->next)
		if (!strcmp(p->rel, rel))
			fn(arg, p->ns, p->name, p->value);
	pthread_mutex_unlock(&P->mu);
}

int dav_props_get(struct dav_props *P, const char *rel, const char *ns, const char *name,
		  void (*fn)(void *arg, const char *ns, const char *name, const char *value),
		  void *arg)
{
	pthread_mutex_lock(&P->mu);
	struct dav_prop *p = *slot(P, rel, ns, name);
	if (p)
		fn(arg, p->ns, p->name, p->value);
	pthread_mutex_unlock(&P->mu);
	return p != NULL;
}

static int takes(const char *rel, const char *from, int subtree)
{
	return subtree ? dav_under(rel, from) : !strcmp(rel, from);
}

int dav_props_move(struct dav_props *P, const char *from, const char *to, int copy, int subtree)
{
	int rc = 0;
	size_t fl = strlen(from);
	struct dav_prop *moved = NULL;
	pthread_mutex_lock(&P->mu);
	/* take the matching ones out first (a copy: their copies), then put them back
	 * under their new names: no chain is walked while it changes */
	for (size_t i = 0; i < DAV_PROP_BUCKETS; i++) {
		for (struct dav_prop **pp = &P->b[i]; *pp;) {
			struct dav_prop *p = *pp;
			if (!takes(p->rel, from, subtree)) {
				pp = &p->next;
				continue;
			}
			struct af_buf n = AF_BUF_INIT;
			af_buf_puts(&n, to);
			af_buf_puts(&n, p->rel + fl);
			af_buf_putc(&n, 0);
			struct dav_prop *q = af_alloc_zeroed(1, sizeof *q);
			if (n.failed || !q) {
				af_buf_free(&n);
				free(q);
				rc = -ENOMEM;
				goto out;
			}
			q->rel = (char *)n.data;
			q->ns = af_strcopy(p->ns);
			q->name = af_strcopy(p->name);
			q->value = af_strcopy(p->value);
			if (!q->ns || !q->name || !q->value) {
				prop_free(q);
				rc = -ENOMEM;
				goto out;
			}
			q->next = moved;
			moved = q;
			if (copy) {
				pp = &p->next;
			} else {
				*pp = p->next;
				P->bytes -= p->size;
				prop_free(p);
			}
		}
	}
out:
	while (moved) {
		struct dav_prop *q = moved;
		moved = q->next;
		if (!rc)
			rc = put(P, q->rel, q->ns, q->name, q->value);
		prop_free(q);
	}
	pthread_mutex_unlock(&P->mu);
	return rc;
}

void dav_props_drop(struct dav_props *P, const char *rel)
{
	pthread_mutex_lock(&P->mu);
	for (size_t i = 0; i < DAV_PROP_BUCKETS; i++)
		for (struct dav_prop **pp = &P->b[i]; *pp;) {
			struct dav_prop *p = *pp;
			if (dav_under(p->rel, rel)) {
				*pp = p->next;
				P->bytes -= p->size;
				prop_free(p);
			} else {
				pp = &p->next;
			}
		}
	pthread_mutex_unlock(&P->mu);
}
