/* A revert is a revert: the first time the mount rewrites a container, the bytes it
 * had are kept (<scratch>/pristine/<hash of its path>, with the identity of the file
 * the mount wrote last beside it). A later save whose container would hold the same
 * members with the same bodies as that copy writes the copy itself, so saving the
 * original text of an edited member again gives back the original file byte for byte
 * (the container's own writer may store a body otherwise: compressed by another encoder,
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
#include "animfs/pieces.h"
#include "pristine.h"
#include "session.h"
#include "who.h"
#include <sys/stat.h>

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
		      const struct af_src *file)
{
	struct af_pieces all = AF_PIECES_INIT;
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
	af_pieces_copy(&all, 0, file->size);
	if (af_replace_file_pieces(fs->pristinefd, orig, &all, file, 0600, NULL, &d) == 0)
		af_replace_file_at(fs->pristinefd, fid, want, strlen(want), 0600, &d);
out:
	af_act_resume(was);
	af_pieces_free(&all);
	af_buf_free(&had);
	af_diag_free(&d);
}

#define SPAN_CHUNK ((size_t)1 << 16)

/* Member i of a (in the file fa) and of b (in fb) have the same bytes. Where both lie
 * in their files as they are (af_archive_span), they are compared 64 KiB at a time,
 * never held whole (a 48 MiB member of a revert costs 128 KiB, not 96 MiB). */
static int same_body(const struct af_archive *a, int fa, const struct af_archive *b, int fb,
		     size_t i, struct af_buf *x, struct af_buf *y, struct af_diag *d)
{
	uint64_t ao, al, bo, bl;
	if (af_archive_span(a, i, &ao, &al) && af_archive_span(b, i, &bo, &bl)) {
		struct af_src sa = {NULL, fa, ao + al, 0}, sb = {NULL, fb, bo + bl, 0};
		if (al != bl)
			return 0;
		if (af_buf_reserve(x, SPAN_CHUNK) || af_buf_reserve(y, SPAN_CHUNK))
			return 0;
		for (uint64_t at = 0; at < al; at += SPAN_CHUNK) {
			size_t n = al - at < SPAN_CHUNK ? (size_t)(al - at) : SPAN_CHUNK;
			if (af_src_read(&sa, ao + at, x->data, n, d) || af_src_read(&sb, bo + at, y->data, n, d) ||
			    memcmp(x->data, y->data, n))
				return 0;
		}
		return 1;
	}
	/* a layer: told apart by its digest, else a's bytes made as they are compared */
	int same = af_archive_same_member(a, b, i, d);
	if (same >= 0)
		return same;
	/* in memory already (a layer's inflated bytes): compared where they are */
	size_t an, bn;
	const uint8_t *ap = af_archive_lent(a, i, &an), *bp = af_archive_lent(b, i, &bn);
	af_buf_reset(x);
	af_buf_reset(y);
	if ((!ap && af_archive_body(a, i, x, d)) || (!bp && af_archive_body(b, i, y, d)))
		return 0;
	if (!ap)
		ap = x->data, an = x->len;
	if (!bp)
		bp = y->data, bn = y->len;
	return an == bn && (!an || !memcmp(ap, bp, an));
}

/* Whether archives a (in file fa) and b (in fb) hold the same members (names, bodies),
 * in the same order: member first (the one that changed) before the others. */
static int same_members(const struct af_archive *a, int fa, const struct af_archive *b, int fb,
			size_t first)
{
	struct af_buf x = AF_BUF_INIT, y = AF_BUF_INIT;
	struct af_diag d;
	int same = a->n == b->n && first < a->n;
	af_diag_init(&d);
	for (size_t i = 0; same && i < a->n; i++)
		same = !strcmp(a->m[i].name, b->m[i].name);
	same = same && same_body(a, fa, b, fb, first, &x, &y, &d);
	for (size_t i = 0; same && i < a->n; i++)
		same = i == first || same_body(a, fa, b, fb, i, &x, &y, &d);
	af_buf_free(&x);
	af_buf_free(&y);
	af_diag_free(&d);
	return same;
}

int af_pristine_match(struct af_fs *fs, const char *pkg, const struct af_archive *w,
		      size_t first, int fd)
{
	char orig[64], fid[64];
	struct af_pieces all = AF_PIECES_INIT;
	struct af_archive p;
	struct af_diag d;
	struct stat st;
	int match = 0, cfd;
	if (fs->pristinefd < 0)
		return 0;
	memset(&p, 0, sizeof(p));
	names(pkg, orig, fid, sizeof(orig));
	af_diag_init(&d);
	int was = af_act_pause();
	if ((cfd = openat(fs->pristinefd, orig, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) >= 0 &&
	    !fstat(cfd, &st) && S_ISREG(st.st_mode)) {
		struct af_src copy = {NULL, cfd, (uint64_t)st.st_size, 0};
		if (af_archive_open_src(&p, w->c, &copy, NULL, &d) == 0 && same_members(&p, cfd, w, fd, first)) {
			/* fd becomes the copy itself */
			af_pieces_copy(&all, 0, copy.size);
			match = ftruncate(fd, 0) == 0 && !af_pieces_write(&all, &copy, fd, NULL, &d) ? 1 : -1;
		}
	}
	af_act_resume(was);
	if (cfd >= 0)
		close(cfd);
	af_archive_close(&p);
	af_pieces_free(&all);
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
