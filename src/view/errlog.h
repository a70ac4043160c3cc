/* errlog.c: log lines and the .animfs/errors ring (private to src/fs). */
#ifndef ANIMFS_FS_ERRLOG_H
#define ANIMFS_FS_ERRLOG_H

#include <sys/types.h>

#include "animfs/diag.h"
#include "render.h"

void af_fs_log_init(int use_syslog);
/* Log lines dropped (1) or written again (0), for a save with no mount (saveonce.c):
 * the previous setting. */
int af_fs_log_quiet(int quiet);
void af_fs_log(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
struct af_errlog;
struct af_errlog *af_errlog_new(unsigned capacity);
void af_errlog_free(struct af_errlog *e);
/* fn(arg) after each change of the lines (a line added or gone), outside the log's
 * lock: what a face keeps of .animfs/errors's size is dropped (mount.c). */
void af_errlog_on_change(struct af_errlog *e, void (*fn)(void *arg), void *arg);
/* Record "time view_path: line:col: problem" (the diag formatted) for a save by uid;
 * control characters in it are escaped (\n, \xNN), so one line is one refused save. */
void af_errlog_add(struct af_errlog *e, uid_t uid, const char *view_path,
		   const struct af_diag *d);
/* A note (not a refusal) on a save by uid: "time view_path: note: text". */
void af_errlog_note(struct af_errlog *e, uid_t uid, const char *view_path, const char *text);
/* AF_ERRLOG_ALL: a line about a file itself (no one's text; view_path its GAME path),
 * shown to every user who may read that file (root too: a file gone is not shown). */
#define AF_ERRLOG_ALL ((uid_t)-1)
/* The lines of uid's saves and, of those for all, the ones about a file may_read
 * (NULL: any) says yes to (root: every line), oldest first: one user never sees the
 * text another typed, nor a line about a file they may not read. */
struct af_text *af_errlog_text(struct af_errlog *e, uid_t uid,
			       int (*may_read)(void *ctx, const char *path), void *ctx);
/* The newest line of uid's saves of path, without its time stamp, in out: 1, or 0
 * when there is none (what a face that answers a save at once says why). */
int af_errlog_newest(struct af_errlog *e, uid_t uid, const char *path, char *out, size_t n);
/* The lines about path (a view path, or the file of an AF_ERRLOG_ALL line) go: a later
 * save of it succeeded, or it was removed or renamed away. */
void af_errlog_forget(struct af_errlog *e, const char *path);
/* The same for dir and every path beneath it (a split view's folder, saved), but for
 * those keep (NULL: none; called under the log's lock) says stay. */
void af_errlog_forget_under(struct af_errlog *e, const char *dir,
			    int (*keep)(void *ctx, const char *path), void *ctx);
/* `animfs errors --clear [PATH]`: the lines of uid's saves (all: the lines for all
 * too; uid 0: everyone's) about path or beneath it ("": every path) go. */
void af_errlog_clear(struct af_errlog *e, uid_t uid, int all, const char *path);

#endif
