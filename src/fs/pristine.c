/* A revert is a revert: the first time the mount rewrites a container, the bytes it
 * had are kept (<scratch>/pristine/<hash of its path>, with the identity of the file
 * the mount wrote last beside it). A later save whose container would hold the same
 * members with the same bodies as that copy writes the copy itself, so saving the
 * original text of an edited member again gives back the original file byte for byte
 * (the container's own writer may store a body otherwise: RefPack of another encoder,
 * another layout). A container changed outside the mount since starts a new copy. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "animfs/container.h"
#include "animfs/fileio.h"
#include "animfs/fnv.h"
#include "pristine.h"
#include "session.h"
#include "who.h"

static void names(const char *pkg, char *orig, char *fid, size_t n)
{
	uint64_t h = af_fnv1_64(pkg, strlen(pkg));
	snprintf(orig, n, "%016" PRIx64 ".orig", h);
	snprintf(fid, n, "%016" PRIx64 ".fid", h);
}

static void fid_text(const struct stat *st, char *out, size_t n)
{
	struct af_fid id;
	af_fid_of(st, &id);
	snprintf(out, n, "%ju %ju %jd %" PRId64 " %" PRId64 "\n", (uintmax_t)id.dev, (uintmax_t)id.ino,
		 (intmax_t)id.size, id.mtime, id.ctime);
}

void af_pristine_keep(struct af_fs *fs, const char *pkg, const struct stat *cur,
		      const struct af_buf *file)
{
	char orig[64], fid[64], want[160];
	struct af_buf had = AF_BUF_INIT;
	struct af_diag d;
	if (fs->pristinefd < 0)
		return;
	names(pkg, orig, fid, sizeof(orig));
	fid_text(cur, want, sizeof(want));
	af_diag_init(&d);
	int was = af_act_pause();
	/* still the file the mount wrote last: the copy stands */
	if (af_read_file_at(fs->pristinefd, fid, 256, &had, &d) == 0 && had.len == strlen(want) &&
	    !memcmp(had.data, want, had.len))
		goto out;
	af_diag_clear(&d);
	if (af_replace_file_at(fs->pristinefd, orig, file->data, file->len, 0600, &d) == 0)
		af_replace_file_at(fs->pristinefd, fid, want, strlen(want), 0600, &d);
out:
	af_act_resume(was);
	af_buf_free(&had);
	af_diag_free(&d);
}

/* Whether archives a and b hold the same members (names, bodies), in the same order. */
static int same_members(const struct af_archive *a, const struct af_archive *b)
{
	struct af_buf x = AF_BUF_INIT, y = AF_BUF_INIT;
	struct af_diag d;
	int same = a->n == b->n;
	af_diag_init(&d);
	for (size_t i = 0; same && i < a->n; i++) {
		af_buf_reset(&x);
		af_buf_reset(&y);
		same = !strcmp(a->m[i].name, b->m[i].name) && !af_archive_body(a, i, &x, &d) &&
		       !af_archive_body(b, i, &y, &d) && x.len == y.len &&
		       (!x.len || !memcmp(x.data, y.data, x.len));
	}
	af_buf_free(&x);
	af_buf_free(&y);
	af_diag_free(&d);
	return same;
}

int af_pristine_match(struct af_fs *fs, const char *pkg, const struct af_archive *w,
		      struct af_buf *image)
{
	char orig[64], fid[64];
	struct af_buf copy = AF_BUF_INIT;
	struct af_archive p;
	struct af_diag d;
	int match = 0;
	if (fs->pristinefd < 0)
		return 0;
	memset(&p, 0, sizeof(p));
	names(pkg, orig, fid, sizeof(orig));
	af_diag_init(&d);
	int was = af_act_pause();
	if (af_read_file_at(fs->pristinefd, orig, AF_MAX_FILE, &copy, &d) == 0 &&
	    (copy.len != image->len || memcmp(copy.data, image->data, copy.len)) &&
	    af_archive_open(&p, w->c, copy.data, copy.len, &d) == 0 && same_members(&p, w)) {
		af_buf_reset(image);
		match = !af_buf_append(image, copy.data, copy.len);
	}
	af_act_resume(was);
	af_archive_close(&p);
	af_buf_free(&copy);
	af_diag_free(&d);
	return match;
}

void af_pristine_wrote(struct af_fs *fs, const char *pkg, const struct stat *now)
{
	char orig[64], fid[64], text[160];
	struct af_diag d;
	if (fs->pristinefd < 0 || !now->st_ino)
		return;
	names(pkg, orig, fid, sizeof(orig));
	fid_text(now, text, sizeof(text));
	af_diag_init(&d);
	int was = af_act_pause();
	af_replace_file_at(fs->pristinefd, fid, text, strlen(text), 0600, &d);
	af_act_resume(was);
	af_diag_free(&d);
}
