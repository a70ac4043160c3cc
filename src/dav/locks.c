/* WebDAV locks and the If header (locks.h). The table is small (max entries, each
 * check a walk of it): a lock's cost is proportional to the locks held, which the
 * server bounds (--max-locks). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "davxml.h"
#include "href.h"
#include "locks.h"

static time_t now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

int dav_locks_init(struct dav_locks *L, size_t max)
{
	memset(L, 0, sizeof *L);
	L->max = max;
	return pthread_mutex_init(&L->mu, NULL) ? -ENOMEM : 0;
}

static void lock_free(struct dav_lock *k)
{
	free(k->root);
	free(k->owner);
}

void dav_locks_free(struct dav_locks *L)
{
	for (size_t i = 0; i < L->n; i++)
		lock_free(&L->v[i]);
	free(L->v);
	pthread_mutex_destroy(&L->mu);
}

/* Drops timed-out locks; under mu. */
static void expire(struct dav_locks *L)
{
	time_t t = now_s();
	size_t o = 0;
	for (size_t i = 0; i < L->n; i++) {
		if (L->v[i].expires <= t)
			lock_free(&L->v[i]);
		else
			L->v[o++] = L->v[i];
	}
	L->n = o;
}

/* Whether lock k covers rel: rel is its root, or below it with depth infinity. */
static int covers(const struct dav_lock *k, const char *rel)
{
	if (!strcmp(k->root, rel))
		return 1;
	return k->infinite && dav_under(rel, k->root);
}

static void new_token(char *out)
{
	unsigned char u[16];
	if (getrandom(u, sizeof u, 0) != (ssize_t)sizeof u) {
		/* no entropy: a token from the clock and a counter, still unique here */
		static unsigned long seq;
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		unsigned long long a = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)ts.tv_sec << 30);
		unsigned long long b = __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED);
		memcpy(u, &a, 8);
		memcpy(u + 8, &b, 8);
	}
	u[6] = (u[6] & 0x0f) | 0x40; /* a version 4 UUID */
	u[8] = (u[8] & 0x3f) | 0x80;
	snprintf(out, DAV_TOKEN_MAX,
		 "opaquelocktoken:%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
		 u[13], u[14], u[15]);
}

int dav_lock_add(struct dav_locks *L, const char *rel, int infinite, int exclusive,
		 const char *owner, unsigned timeout, char *token, char *conflict)
{
	int rc = 0;
	pthread_mutex_lock(&L->mu);
	expire(L);
	for (size_t i = 0; i < L->n; i++) {
		const struct dav_lock *k = &L->v[i];
		int overlap = covers(k, rel) || (infinite && dav_under(k->root, rel));
		if (overlap && (exclusive || k->exclusive)) {
			snprintf(conflict, DAV_PATH_MAX, "%s", k->root);
			rc = -EBUSY;
			goto out;
		}
	}
	if (L->n >= L->max) {
		rc = -ENOSPC;
		goto out;
	}
	struct dav_lock *v = af_grow(L->v, &L->cap, L->n, sizeof *v, 16);
	if (!v) {
		rc = -ENOMEM;
		goto out;
	}
	L->v = v;
	struct dav_lock *k = &v[L->n];
	memset(k, 0, sizeof *k);
	k->root = af_strcopy(rel);
	k->owner = owner ? af_strcopy(owner) : NULL;
	if (!k->root || (owner && !k->owner)) {
		lock_free(k);
		rc = -ENOMEM;
		goto out;
	}
	k->infinite = infinite;
	k->exclusive = exclusive;
	k->timeout = timeout;
	k->expires = now_s() + (time_t)timeout;
	new_token(k->token);
	snprintf(token, DAV_TOKEN_MAX, "%s", k->token);
	L->n++;
out:
	pthread_mutex_unlock(&L->mu);
	return rc;
}

static struct dav_lock *find(struct dav_locks *L, const char *token, const char *rel)
{
	for (size_t i = 0; i < L->n; i++)
		if (!strcmp(L->v[i].token, token) && covers(&L->v[i], rel))
			return &L->v[i];
	return NULL;
}

int dav_lock_refresh(struct dav_locks *L, const char *token, const char *rel, unsigned timeout)
{
	pthread_mutex_lock(&L->mu);
	expire(L);
	struct dav_lock *k = find(L, token, rel);
	if (k) {
		k->timeout = timeout;
		k->expires = now_s() + (time_t)timeout;
	}
	pthread_mutex_unlock(&L->mu);
	return k ? 0 : -ENOENT;
}

int dav_lock_remove(struct dav_locks *L, const char *token, const char *rel)
{
	pthread_mutex_lock(&L->mu);
	expire(L);
	struct dav_lock *k = find(L, token, rel);
	if (k) {
		lock_free(k);
		*k = L->v[--L->n];
	}
	pthread_mutex_unlock(&L->mu);
	return k ? 0 : -ENOENT;
}

void dav_locks_drop(struct dav_locks *L, const char *rel)
{
	pthread_mutex_lock(&L->mu);
	size_t o = 0;
	for (size_t i = 0; i < L->n; i++) {
		if (dav_under(L->v[i].root, rel))
			lock_free(&L->v[i]);
		else
			L->v[o++] = L->v[i];
	}
	L->n = o;
	pthread_mutex_unlock(&L->mu);
}

int dav_lock_covers(struct dav_locks *L, const char *token, const char *rel)
{
	pthread_mutex_lock(&L->mu);
	expire(L);
	int r = find(L, token, rel) != NULL;
	pthread_mutex_unlock(&L->mu);
	return r;
}

static void active(const struct dav_lock *k, struct af_buf *b)
{
	time_t left = k->expires - now_s();
	af_buf_printf(b, "<D:activelock><D:locktype><D:write/></D:locktype>"
			 "<D:lockscope><D:%s/></D:lockscope><D:depth>%s</D:depth>",
		      k->exclusive ? "exclusive" : "shared", k->infinite ? "infinity" : "0");
	if (k->owner)
		af_buf_printf(b, "<D:owner>%s</D:owner>", k->owner);
	af_buf_printf(b, "<D:timeout>Second-%lld</D:timeout><D:locktoken><D:href>%s</D:href>"
			 "</D:locktoken><D:lockroot><D:href>",
		      (long long)(left > 0 ? left : 0), k->token);
	struct af_buf h = AF_BUF_INIT;
	dav_href_put(&h, k->root, 0);
	af_buf_putc(&h, 0);
	if (!h.failed)
		dav_xml_escape(b, (char *)h.data);
	af_buf_free(&h);
	af_buf_puts(b, "</D:href></D:lockroot></D:activelock>");
}

void dav_lock_discovery(struct dav_locks *L, const char *rel, struct af_buf *b)
{
	pthread_mutex_lock(&L->mu);
	expire(L);
	for (size_t i = 0; i < L->n; i++)
		if (covers(&L->v[i], rel))
			active(&L->v[i], b);
	pthread_mutex_unlock(&L->mu);
}

void dav_lock_active(struct dav_locks *L, const char *token, struct af_buf *b)
{
	pthread_mutex_lock(&L->mu);
	for (size_t i = 0; i < L->n; i++)
		if (!strcmp(L->v[i].token, token))
			active(&L->v[i], b);
	pthread_mutex_unlock(&L->mu);
}

/* ---- the If header ---- */

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* A token up to the closing character c: a copy, *s moved past c. */
static char *until(const char **s, char c)
{
	const char *e = strchr(*s, c);
	if (!e || e - *s > DAV_PATH_MAX * 3)
		return NULL;
	char *v = af_alloc((size_t)(e - *s) + 1);
	if (!v)
		return NULL;
	memcpy(v, *s, (size_t)(e - *s));
	v[e - *s] = 0;
	*s = e + 1;
	return v;
}

void dav_if_free(struct dav_if *h)
{
	for (size_t i = 0; i < h->n; i++) {
		for (size_t j = 0; j < h->l[i].n; j++)
			free(h->l[i].c[j].val);
		free(h->l[i].c);
		free(h->l[i].tag);
	}
	free(h->l);
	memset(h, 0, sizeof *h);
}

#define IF_MAX_LISTS 64
#define IF_MAX_CONDS 64

int dav_if_parse(const char *s, struct dav_if *out)
{
	char *tag = NULL;
	size_t lcap = 0;
	memset(out, 0, sizeof *out);
	if (!s)
		return 0;
	for (s = skip_ws(s); *s; s = skip_ws(s)) {
		if (*s == '<') { /* a resource tag: the lists after it are its */
			s++;
			char *url = until(&s, '>');
			if (!url)
				goto bad;
			free(tag);
			tag = af_alloc(DAV_PATH_MAX);
			int dir;
			int rc = tag ? dav_path_decode(url, 1, tag, &dir) : -ENOMEM;
			free(url);
			if (rc)
				goto bad;
			continue;
		}
		if (*s != '(' || out->n >= IF_MAX_LISTS)
			goto bad;
		s++;
		struct dav_iflist *l = af_grow(out->l, &lcap, out->n, sizeof *l, 4);
		if (!l)
			goto bad;
		out->l = l;
		l = &out->l[out->n++];
		memset(l, 0, sizeof *l);
		if (tag && !(l->tag = af_strcopy(tag)))
			goto bad;
		size_t ccap = 0;
		for (s = skip_ws(s); *s != ')'; s = skip_ws(s)) {
			struct dav_cond c = {0, 0, NULL};
			if (!strncmp(s, "Not", 3)) {
				c.not = 1;
				s = skip_ws(s + 3);
			}
			if (*s == '<') {
				s++;
				c.val = until(&s, '>');
			} else if (*s == '[') {
				s++;
				c.etag = 1;
				c.val = until(&s, ']');
			}
			if (!c.val || l->n >= IF_MAX_CONDS)
				goto bad_c;
			struct dav_cond *cv = af_grow(l->c, &ccap, l->n, sizeof *cv, 4);
			if (!cv)
				goto bad_c;
			l->c = cv;
			l->c[l->n++] = c;
			continue;
bad_c:
			free(c.val);
			goto bad;
		}
		if (l->n == 0)
			goto bad;
		s++;
	}
	free(tag);
	return 0;
bad:
	free(tag);
	dav_if_free(out);
	return -EINVAL;
}

/* Under mu. */
static int cond_true(struct dav_locks *L, const struct dav_cond *c, const char *rel,
		     const char *etag)
{
	int t;
	if (c->etag)
		t = etag[0] && !strcmp(c->val, etag);
	else
		t = find(L, c->val, rel) != NULL;
	return c->not ? !t : t;
}

int dav_if_holds(const struct dav_if *h, const char *req_rel, struct dav_locks *L,
		 void (*etag_of)(void *ctx, const char *rel, char *out, size_t n), void *ctx)
{
	if (!h || h->n == 0)
		return 1;
	for (size_t i = 0; i < h->n; i++) {
		const struct dav_iflist *l = &h->l[i];
		const char *rel = l->tag ? l->tag : req_rel;
		char etag[96];
		etag_of(ctx, rel, etag, sizeof etag);
		int all = 1;
		pthread_mutex_lock(&L->mu);
		expire(L);
		for (size_t j = 0; j < l->n && all; j++)
			all = cond_true(L, &l->c[j], rel, etag);
		pthread_mutex_unlock(&L->mu);
		if (all)
			return 1;
	}
	return 0;
}

static int submitted(const struct dav_if *h, const char *token)
{
	for (size_t i = 0; h && i < h->n; i++)
		for (size_t j = 0; j < h->l[i].n; j++)
			if (!h->l[i].c[j].etag && !strcmp(h->l[i].c[j].val, token))
				return 1;
	return 0;
}

int dav_locks_check(struct dav_locks *L, const char *rel, int subtree, const struct dav_if *h,
		    char *root)
{
	int rc = 0;
	pthread_mutex_lock(&L->mu);
	expire(L);
	for (size_t i = 0; i < L->n && !rc; i++) {
		const struct dav_lock *k = &L->v[i];
		if ((covers(k, rel) || (subtree && dav_under(k->root, rel))) &&
		    !submitted(h, k->token)) {
			snprintf(root, DAV_PATH_MAX, "%s", k->root);
			rc = -EBUSY;
		}
	}
	pthread_mutex_unlock(&L->mu);
	return rc;
}
