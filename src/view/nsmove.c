/* The namespace's renames (ns.h): what mv does (plain files and folders are renamed in
 * GAME), how sed -i, gedit and vim (backupcopy=no) save (a rename onto a view name
 * commits the moved text), and how emacs and vim make backups (renaming a file to a
 * dropping name makes a scratch copy and hides the old name until the editor writes it
 * again). A rename onto a name the face keeps an open file under (struct af_face: the
 * FUSE library's .fuse_hidden) is the face's alias of it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <unistd.h>

#include "animfs/path.h"
#include "animfs/beneath.h"
#include "animfs/fileio.h"
#include "binary.h"
#include "commit.h"
#include "dest.h"
#include "errlog.h"
#include "folder.h"
#include "ghost.h"
#include "handle.h"
#include "ns.h"
#include "overlay.h"
#include "render.h"
#include "res.h"
#include "scratch.h"
#include "session.h"
#include "splitview.h"
#include "view.h"
#include "who.h"

/* A whole backing (or scratch) file read, for a rename that moves content. */
static int read_whole_at(int dirfd, const char *rel, struct af_buf *out)
{
	struct af_diag d;
	af_diag_init(&d);
	int rc = af_bn_read_file(dirfd, rel, AF_MAX_FILE, out, &d);
	af_diag_free(&d);
	return rc ? -EIO : 0;
}

/* What the target name is: a view (commit there), a GAME file or a new user name
 * (GAME), an editor's dropping (scratch), or a part of a split view (saved into its
 * binary with the others). */
enum target { T_VIEW, T_PASS, T_NEW, T_SCRATCH, T_PART };

static int target_of(struct af_fs *fs, const struct af_res *s, const struct af_res *t, char *bin,
		     size_t size, enum target *out)
{
	switch (t->kind) {
	case AF_K_VIEW:
	case AF_K_SPLITDIR: /* a split view renamed onto a split view (else EISDIR first) */
		snprintf(bin, size, "%s", t->bin);
		*out = T_VIEW;
		return 0;
	case AF_K_SPLITPART:
		snprintf(bin, size, "%s", t->bin);
		*out = T_PART;
		return 0;
	case AF_K_PASS:
		*out = T_PASS;
		return 0;
	case AF_K_SCRATCH:
		*out = T_SCRATCH;
		return 0;
	case AF_K_NONE:
		break;
	case AF_K_DIR:
		return -EISDIR;
	case AF_K_HIDDEN:
		return -EPERM;
	default:
		return -EACCES;
	}
	if (t->in_split && t->ghost && t->ghost_of == AF_K_SPLITPART) { /* written back */
		snprintf(bin, size, "%s", t->bin);
		*out = T_PART;
		return 0;
	}
	if (t->in_split && !af_ns_is_dropping(fs, t->rel)) {
		/* a tool's temp file renamed about among the kept-aside ones: still aside */
		if (s->kind == AF_K_SCRATCH && af_split_aside(af_base(t->rel))) {
			*out = T_SCRATCH;
			return 0;
		}
		return af_split_refuse(fs, t->rel, "no file is added or renamed there",
				       af_caller()->uid);
	}
	if (t->ghost && t->ghost_of == AF_K_PASS) {
		*out = T_PASS;
		return 0;
	}
	if ((t->ghost && t->ghost_of == AF_K_VIEW) || af_view_is_candidate(t->rel)) {
		const char *base = af_base(t->rel);
		snprintf(bin, size, "%.*s", (int)((size_t)(base - t->rel) + af_view_strip(base)),
			 t->rel);
		*out = T_VIEW;
		return 0;
	}
	*out = af_ns_is_dropping(fs, t->rel) ? T_SCRATCH : T_NEW;
	return 0;
}

/* The bytes the source shows: a view's rendered text, else the file itself (read by
 * the daemon: moving a file needs no right to read it, and nobody who could not read
 * it can read it where it lands, which keeps its owner and mode). */
static int source_bytes(struct af_fs *fs, struct af_res *s, struct af_buf *out)
{
	if (s->kind == AF_K_VIEW || s->kind == AF_K_SPLITPART) {
		struct af_text *t;
		int rc = af_view_text(fs, s, &t);
		if (rc)
			return rc;
		rc = af_buf_append(out, t->data, t->len) ? -ENOMEM : 0;
		af_text_unref(t);
		return rc;
	}
	int tree = s->kind == AF_K_SCRATCH ? af_scratch_dirfd(fs) : af_ov_at(fs, s->rel);
	if (tree < 0)
		return tree;
	int was = af_act_pause();
	int rc = read_whole_at(tree, s->rel, out);
	af_act_resume(was);
	return rc;
}

/* The caller's right to take the source's name away, as rename(2) wants it: write and
 * search on its folder and, where that folder is sticky, the file or the folder is
 * theirs (a container's member: the container is theirs to write). 0 or -errno. */
static int may_remove(struct af_fs *fs, const struct af_res *s)
{
	char base[NAME_MAX + 1];
	struct stat dir;
	if (s->kind == AF_K_SCRATCH)
		return 0; /* their own tree */
	if (s->kind == AF_K_SPLITPART) /* the part stays in the binary: only hidden */
		return af_view_may(fs, s->bin, O_WRONLY);
	const char *rel = s->kind == AF_K_VIEW ? s->bin : s->rel;
	if (af_folder_member(fs, rel))
		return af_view_may(fs, rel, O_WRONLY);
	int dfd = af_bn_parent(af_ov_top(fs), rel, base, sizeof(base));
	if (dfd < 0)
		return -errno;
	int rc = faccessat(dfd, ".", W_OK | X_OK, AT_EACCESS) ? -errno : 0;
	uid_t me = af_caller()->uid;
	if (!rc && fstat(dfd, &dir) == 0 && (dir.st_mode & S_ISVTX) && me != 0 &&
	    me != s->st.st_uid && me != dir.st_uid)
		rc = -EPERM;
	close(dfd);
	return rc;
}

/* Drop the source name after its content moved elsewhere: a dropping or a user's file
 * goes, as mv would make it go; a file an editor renamed to a backup name is only
 * hidden (GAME keeps it until the editor writes the name again). */
static int drop_source(struct af_fs *fs, struct af_res *s, enum target tk)
{
	if (s->kind == AF_K_SCRATCH)
		return af_scratch_unlink(fs, s->rel);
	if (tk == T_SCRATCH) {
		af_ghost_add(fs, s->rel, s->kind);
		return 0;
	}
	return af_ov_unlink(fs, s->rel, 0);
}

static int refuse(struct af_fs *fs, const struct af_res *s, const struct af_res *t, int err,
		  const char *why)
{
	struct af_diag d;
	af_diag_init(&d);
	af_diag_error(&d, AF_EINVAL, "not renamed to %s: %s (nothing changed)", t->rel, why);
	af_fs_log(LOG_WARNING, "%s: not renamed to %s: %s", s->rel, t->rel, why);
	af_errlog_add(fs->errors, af_caller()->uid, s->rel, &d);
	af_diag_free(&d);
	return err;
}

/* A view renamed to another view name moves its binary, which must stay a file of the
 * same kind under the new name: same extension, claimed by the same codec. */
static int same_format(struct af_fs *fs, const struct af_res *s, const char *bin)
{
	uint8_t head[AF_BID_HEAD];
	size_t got = 0;
	const char *base = af_base(bin);
	if (strcasecmp(af_ext(s->bin), af_ext(bin)))
		return 0;
	if (af_folder_member(fs, s->bin) || af_folder_member(fs, bin))
		return 0;
	if (af_bn_read_head(af_ov_at(fs, s->bin), s->bin, head, sizeof(head), &got))
		return 0;
	return af_codec_bid(base, head, got) == s->info.codec;
}

static int move_view(struct af_fs *fs, struct af_res *s, struct af_res *t, enum target tk,
		     const char *bin)
{
	if (af_folder_member(fs, s->bin) || af_folder_member(fs, bin))
		return refuse(fs, s, t, -EPERM, "a member of a container keeps its name: members "
			      "are not renamed or moved through the view (copy its text to a new "
			      "name to add one, where the container takes new members)");
	if (tk == T_VIEW) {
		if (!same_format(fs, s, bin))
			return refuse(fs, s, t, -EPERM, "a view is renamed only to a view of the same "
				      "format (the binary would be left under another extension)");
		return af_ov_rename(fs, s->bin, bin);
	}
	return refuse(fs, s, t, -EPERM, "a view is renamed only to another view name of its "
		      "format (rename the binary in GAME to give it another name)");
}

static int move_file(struct af_fs *fs, struct af_res *s, struct af_res *t)
{
	struct af_buf data = AF_BUF_INIT;
	char bin[4096];
	enum target tk = T_NEW;
	int rc = target_of(fs, s, t, bin, sizeof(bin), &tk);
	if (rc)
		return rc;
	if ((tk == T_VIEW || tk == T_PART) && t->kind != AF_K_NONE && af_view_read_only(fs, t))
		return -EACCES; /* a read-only view is not saved into */
	/* a part's save proves the right to write its binary first (the text it has is no
	 * change, and makes no commit that would prove it) */
	if (tk == T_PART && (rc = af_view_may(fs, bin, O_WRONLY)))
		return rc;
	if (s->kind == AF_K_SPLITPART && tk != T_SCRATCH)
		return af_split_refuse(fs, s->rel, "no part is renamed (an editor's backup name aside)",
				       af_caller()->uid);
	if ((s->kind == AF_K_VIEW && tk != T_SCRATCH) || s->kind == AF_K_SPLITDIR) {
		rc = move_view(fs, s, t, tk, bin);
		goto done;
	}
	if (s->kind == AF_K_PASS && (tk == T_PASS || tk == T_NEW)) {
		rc = af_ov_rename(fs, s->rel, t->rel);
		goto done;
	}
	if (s->kind == AF_K_SCRATCH && tk == T_SCRATCH) {
		rc = af_scratch_rename(fs, s->rel, t->rel);
		goto out;
	}
	/* content moves: the source goes (or hides), and what lands is the file that moved,
	 * its owner and mode, put there as the caller would rename it */
	if ((rc = may_remove(fs, s)) || (rc = source_bytes(fs, s, &data)))
		goto out;
	const struct af_who *me = af_caller();
	struct af_dest to = {-1, bin, *me, s->st.st_mode & 07777, tk != T_PART, &s->st, NULL, NULL, 0, 0};
	/* a dropping renamed onto the name it was renamed away from: an editor's backup put
	 * back (emacs and vim do so after a refused save; the buffer still holds the edit) */
	to.keep_said = s->kind == AF_K_SCRATCH && t->ghost && t->ghost_of == AF_K_VIEW;
	if (tk == T_PART) /* the binary is written into, as a save of the part */
		rc = af_split_commit(fs, &to, t->rel, data.data ? data.data : (const uint8_t *)"",
				     data.len);
	else if (tk == T_VIEW)
		rc = af_commit_to(fs, &to, t->rel, data.data ? data.data : (const uint8_t *)"",
				  data.len);
	else if (tk == T_SCRATCH)
		rc = af_scratch_put(fs, t->rel, data.data, data.len, &s->st);
	else
		rc = af_commit_plain(fs, me, t->rel, data.data, data.len, &s->st);
	if (rc)
		goto out;
	rc = drop_source(fs, s, tk);
done:
	if (rc == 0 && tk != T_SCRATCH) {
		af_ghost_del(fs, t->rel);
		af_errlog_forget(fs->errors, s->rel); /* that name is gone */
	}
out:
	af_buf_free(&data);
	return rc;
}

static int move_kind(struct af_fs *fs, struct af_res *s, struct af_res *t);

int af_ns_rename(struct af_fs *fs, const char *from, const char *to, int noreplace)
{
	struct af_res s, t;
	int rc;
	if (fs->read_only)
		return -EROFS;
	rc = af_view_resolve(fs, from, &s);
	if (!rc)
		rc = af_view_resolve(fs, to, &t);
	if (rc)
		return rc;
	if (noreplace && t.kind != AF_K_NONE)
		return -EEXIST;
	if (!strcmp(s.rel, t.rel))
		return 0;
	if (t.kind == AF_K_SPLITDIR && s.kind != AF_K_SPLITDIR)
		return -EISDIR;
	if (s.kind == AF_K_SPLITDIR && t.kind != AF_K_NONE && t.kind != AF_K_SPLITDIR &&
	    t.kind != AF_K_VIEW)
		return -ENOTDIR;
	if (af_is_alias(fs, t.rel) && fs->face->alias_add && s.kind != AF_K_DIR &&
	    s.kind != AF_K_NONE) {
		/* the FUSE library keeps an open file that is being removed or replaced */
		rc = fs->face->alias_add(fs, t.rel, s.rel);
		if (!rc)
			af_ghost_add(fs, s.rel, s.kind);
		af_face_note(fs, AF_NOTE_GONE, s.rel);
		return rc;
	}
	rc = move_kind(fs, &s, &t);
	if (!rc && (af_res_names_others(&s) || af_res_names_others(&t)))
		af_face_note(fs, AF_NOTE_NAMES, s.rel);
	return rc;
}

static int move_kind(struct af_fs *fs, struct af_res *s, struct af_res *t)
{
	int rc;
	switch (s->kind) {
	case AF_K_DIR:
		if (t->kind != AF_K_NONE && t->kind != AF_K_DIR)
			return -ENOTDIR;
		if ((rc = af_ov_rename(fs, s->rel, t->rel)))
			return rc;
		/* the caller's droppings inside move along (none, or it cannot: nothing lost) */
		af_scratch_move_dir(fs, s->rel, t->rel);
		af_face_note(fs, AF_NOTE_ALL_GONE, s->rel); /* the names below moved along */
		return 0;
	case AF_K_ARCDIR: /* the container's file itself moves */
		if (af_folder_member(fs, s->rel))
			return -EACCES; /* a nested container: members are not renamed */
		if (t->kind != AF_K_NONE)
			return -EEXIST;
		af_face_note(fs, AF_NOTE_ALL_GONE, s->rel);
		return af_ov_rename(fs, s->rel, t->rel);
	case AF_K_VIEW:
	case AF_K_PASS:
	case AF_K_SCRATCH:
	case AF_K_SPLITDIR: /* the binary moves, as for its view */
	case AF_K_SPLITPART:
		if (s->kind == AF_K_SPLITDIR)
			af_face_note(fs, AF_NOTE_ALL_GONE, s->rel);
		rc = move_file(fs, s, t);
		/* what a face kept of the name renamed onto is of the moved file, not of
		 * the text a save made of it */
		af_face_note(fs, AF_NOTE_GONE, s->rel);
		af_face_note(fs, AF_NOTE_GONE, t->rel);
		/* a replace of an open file that failed: the file keeps its name */
		if (rc && t->ghost && af_face_alias_detach(fs, t->rel))
			af_ghost_del(fs, t->rel);
		return rc;
	case AF_K_CTLDIR:
	case AF_K_CTLFILE:
	case AF_K_ARCFILE:
		return -EACCES;
	default:
		return -ENOENT;
	}
}
