/* Logging for the mount (syslog once daemonized, stderr in the foreground) and the
 * ring of recent failed saves shown as VIEW/.animfs/errors. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "errlog.h"
#include "render.h"

static int log_to_syslog;
static int log_off; /* a save with no mount (saveonce.c): its face says what it did */

void af_fs_log_init(int use_syslog)
{
	log_to_syslog = use_syslog;
	if (use_syslog)
		openlog("animfs", LOG_PID, LOG_DAEMON);
}

int af_fs_log_quiet(int quiet)
{
	int was = log_off;
	log_off = quiet;
	return was;
}

void af_fs_log(int prio, const char *fmt, ...)
{
	va_list ap;
	if (log_off)
		return;
	va_start(ap, fmt);
	if (log_to_syslog) {
		vsyslog(prio, fmt, ap);
	} else {
		char line[2048];
		vsnprintf(line, sizeof(line), fmt, ap);
		fprintf(stderr, "animfs: %s\n", line);
	}
	va_end(ap);
}

struct af_errlog {
	pthread_mutex_t lock; /* L9 (docs/HACKING.md): the ring of lines; takes no other */
	unsigned cap, count, next; /* ring: next = slot to write */
	char **lines;
	uid_t *uids; /* whose save each line is */
	char **paths; /* the view (AF_ERRLOG_ALL: the file) each line is about; lines[k]
			 NULL: forgotten (a later save of it succeeded, or it is gone) */
	void (*changed)(void *arg); /* af_errlog_on_change: after the lock is let go */
	void *changed_arg;
};

void af_errlog_on_change(struct af_errlog *e, void (*fn)(void *arg), void *arg)
{
	e->changed = fn;
	e->changed_arg = arg;
}

static void tell(struct af_errlog *e, int n)
{
	if (n && e->changed)
		e->changed(e->changed_arg);
}

struct af_errlog *af_errlog_new(unsigned capacity)
{
	struct af_errlog *e = af_alloc_zeroed(1, sizeof(*e));
	if (!e)
		return NULL;
	e->cap = capacity ? capacity : 1;
	e->lines = af_alloc_zeroed(e->cap, sizeof(char *));
	e->uids = af_alloc_zeroed(e->cap, sizeof(uid_t));
	e->paths = af_alloc_zeroed(e->cap, sizeof(char *));
	if (!e->lines || !e->uids || !e->paths) {
		free(e->lines);
		free(e->uids);
		free(e->paths);
		free(e);
		return NULL;
	}
	pthread_mutex_init(&e->lock, NULL);
	return e;
}

void af_errlog_free(struct af_errlog *e)
{
	if (!e)
		return;
	for (unsigned i = 0; i < e->cap; i++) {
		free(e->lines[i]);
		free(e->paths[i]);
	}
	free(e->lines);
	free(e->uids);
	free(e->paths);
	pthread_mutex_destroy(&e->lock);
	free(e);
}

/* s with control characters and backslashes escaped, so that a name holding a
 * newline cannot forge a line of its own. */
static char *escaped(const char *s)
{
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		n += *p < 0x20 || *p == 0x7f ? 4 : *p == '\\' ? 2 : 1;
	char *out = af_alloc(n + 1), *o = out;
	if (!out)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\n')
			o += sprintf(o, "\\n");
		else if (*p == '\t')
			o += sprintf(o, "\\t");
		else if (*p < 0x20 || *p == 0x7f)
			o += sprintf(o, "\\x%02x", *p);
		else if (*p == '\\')
			o += sprintf(o, "\\\\");
		else
			*o++ = (char)*p;
	}
	*o = 0;
	return out;
}

void af_errlog_add(struct af_errlog *e, uid_t uid, const char *view_path, const struct af_diag *d)
{
	char msg[1200], stamp[32], *line, *esc;
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	af_diag_format(d, view_path, msg, sizeof(msg));
	if (!(esc = escaped(msg)))
		return;
	size_t n = strlen(stamp) + strlen(esc) + 3;
	line = af_alloc(n);
	if (line)
		snprintf(line, n, "%s %s\n", stamp, esc);
	free(esc);
	char *path = af_strcopy(view_path);
	if (!line || !path) {
		free(line);
		free(path);
		return;
	}
	pthread_mutex_lock(&e->lock);
	free(e->lines[e->next]);
	free(e->paths[e->next]);
	e->lines[e->next] = line;
	e->paths[e->next] = path;
	e->uids[e->next] = uid;
	e->next = (e->next + 1) % e->cap;
	if (e->count < e->cap)
		e->count++;
	pthread_mutex_unlock(&e->lock);
	tell(e, 1);
}

void af_errlog_note(struct af_errlog *e, uid_t uid, const char *view_path, const char *text)
{
	struct af_diag d;
	af_diag_init(&d);
	af_diag_error(&d, AF_EINVAL, "note: %s", text);
	af_errlog_add(e, uid, view_path, &d);
	af_diag_free(&d);
}

void af_errlog_forget(struct af_errlog *e, const char *path)
{
	int n = 0;
	pthread_mutex_lock(&e->lock);
	for (unsigned k = 0; k < e->cap; k++)
		if (e->lines[k] && e->paths[k] && !strcmp(e->paths[k], path)) {
			free(e->lines[k]);
			e->lines[k] = NULL;
			n++;
		}
	pthread_mutex_unlock(&e->lock);
	tell(e, n);
}

void af_errlog_forget_under(struct af_errlog *e, const char *dir,
			     int (*keep)(void *ctx, const char *path), void *ctx)
{
	size_t n = strlen(dir);
	int gone = 0;
	pthread_mutex_lock(&e->lock);
	for (unsigned k = 0; k < e->cap; k++)
		if (e->lines[k] && e->paths[k] && !strncmp(e->paths[k], dir, n) &&
		    (e->paths[k][n] == 0 || e->paths[k][n] == '/') && !(keep && keep(ctx, e->paths[k]))) {
			free(e->lines[k]);
			e->lines[k] = NULL;
			gone++;
		}
	pthread_mutex_unlock(&e->lock);
	tell(e, gone);
}

void af_errlog_clear(struct af_errlog *e, uid_t uid, int all, const char *path)
{
	size_t n = strlen(path);
	int gone = 0;
	pthread_mutex_lock(&e->lock);
	for (unsigned k = 0; k < e->cap; k++) {
		const char *p = e->paths[k];
		if (!e->lines[k] || !p || (n && (strncmp(p, path, n) || (p[n] && p[n] != '/'))))
			continue;
		if (e->uids[k] == AF_ERRLOG_ALL ? all : uid == 0 || e->uids[k] == uid) {
			free(e->lines[k]);
			e->lines[k] = NULL;
			gone++;
		}
	}
	pthread_mutex_unlock(&e->lock);
	tell(e, gone);
}

int af_errlog_newest(struct af_errlog *e, uid_t uid, const char *path, char *out, size_t n)
{
	int found = 0;
	pthread_mutex_lock(&e->lock);
	for (unsigned i = 1; i <= e->count && !found; i++) {
		unsigned k = (e->next + e->cap - i) % e->cap;
		if (!e->lines[k] || e->uids[k] != uid || !e->paths[k] || strcmp(e->paths[k], path))
			continue;
		const char *text = strchr(e->lines[k], ' '); /* past the time stamp */
		snprintf(out, n, "%s", text ? text + 1 : e->lines[k]);
		found = 1;
	}
	pthread_mutex_unlock(&e->lock);
	return found;
}

struct af_text *af_errlog_text(struct af_errlog *e, uid_t uid,
			       int (*may_read)(void *ctx, const char *path), void *ctx)
{
	struct af_buf b = AF_BUF_INIT;
	struct af_text *t;
	pthread_mutex_lock(&e->lock);
	unsigned first = (e->next + e->cap - e->count) % e->cap;
	for (unsigned i = 0; i < e->count; i++) {
		unsigned k = (first + i) % e->cap;
		if (!e->lines[k])
			continue;
		if (e->uids[k] == AF_ERRLOG_ALL ? !may_read || may_read(ctx, e->paths[k])
						: uid == 0 || e->uids[k] == uid)
			af_buf_puts(&b, e->lines[k]);
	}
	pthread_mutex_unlock(&e->lock);
	t = b.failed ? NULL : af_text_new(b.data, b.len);
	af_buf_free(&b);
	return t;
}
