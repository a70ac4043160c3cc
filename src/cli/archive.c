/* `animfs decode|encode|check` on the members of containers: the path `X/<member>`
 * does not exist on disk, so the prefix that is a container's file is opened through
 * the container table and the file is replaced atomically on encode. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "animfs/path.h"
#include "animfs/bytes.h"
#include "cli.h"
#include "animfs/codec.h"
#include "animfs/container.h"
#include "animfs/fileio.h"
#include "animfs/yamlio.h"
#include "archive.h"

const struct af_container *af_cli_arc_of(const char *path)
{
	uint8_t head[64];
	size_t got = 0;
	struct stat st;
	const char *base = af_base(path);
	if (stat(path, &st) || !S_ISREG(st.st_mode) ||
	    af_read_head_at(AT_FDCWD, path, head, sizeof(head), &got))
		return NULL;
	/* by content: a damaged one is still a container, and says what is wrong */
	for (size_t i = 0; af_containers[i]; i++)
		if (af_containers[i]->bid(base, head, got) >= 2)
			return af_containers[i];
	return NULL;
}

int af_cli_arc_split(const char *path, char *arc, size_t size, const char **member)
{
	const char *slash = strrchr(path, '/');
	struct stat st;
	if (!slash || !slash[1] || (size_t)(slash - path) >= size)
		return 0;
	if (!stat(path, &st)) /* a real file or folder wins */
		return 0;
	snprintf(arc, size, "%.*s", (int)(slash - path), path);
	if (!af_cli_arc_of(arc))
		return 0;
	*member = slash + 1;
	return 1;
}

static int load(const char *path, struct af_archive *a, struct af_diag *d)
{
	struct af_buf file = AF_BUF_INIT;
	const struct af_container *c = af_cli_arc_of(path);
	int rc = c ? af_read_file_at(AT_FDCWD, path, AF_MAX_FILE, &file, d)
		   : af_diag_error(d, AF_EUNSUP, "no container reads this file");
	if (!rc)
		rc = af_archive_open(a, c, file.data, file.len, d);
	af_buf_free(&file);
	return rc;
}

static void no_such(const struct af_archive *a, const char *arc, const char *member)
{
	fprintf(stderr, "animfs: %s: no %s '%s' in the %s; it has %s", arc, a->c->member_noun, member,
		a->c->noun, AF_INDEX_NAME);
	for (size_t k = 0; k < a->n; k++)
		fprintf(stderr, ", %s", a->m[k].name);
	fputc('\n', stderr);
}

static int emit(const struct af_buf *b, const char *out, struct af_diag *d)
{
	size_t off = 0;
	if (out)
		return af_cli_write(out, b->data, b->len, 0644, d);
	while (off < b->len) {
		ssize_t w = write(1, b->data + off, b->len - off);
		if (w <= 0)
			return af_diag_error(d, AF_EIO, "cannot write to standard output");
		off += (size_t)w;
	}
	return 0;
}

/* The whole container as one YAML document, so that containers diff like every other
 * file (git textconv): the index, then each member's document nested under its name,
 * or a comment saying why a member is not shown. */
static int whole(const struct af_archive *a, const char *arc, struct af_buf *out)
{
	struct af_buf one = AF_BUF_INIT;
	struct af_diag d;
	int rc = a->c->index_yaml(a->st, af_base(arc), out);
	af_buf_printf(out, "members: # %zu shown as YAML below, by name\n", a->n);
	for (size_t k = 0; !rc && k < a->n; k++) {
		af_buf_reset(&one);
		af_diag_init(&d);
		int mrc = af_member_yaml(a, k, &one, &d);
		if ((mrc && mrc != AF_VIEW_READONLY) || one.failed) {
			char msg[1200];
			af_diag_format(&d, a->m[k].name, msg, sizeof(msg));
			af_buf_printf(out, "  # not shown: %s\n", msg);
		} else {
			af_buf_printf(out, "  %s:\n", a->m[k].name);
			for (size_t i = 0; i < one.len;) {
				const uint8_t *eol = memchr(one.data + i, '\n', one.len - i);
				size_t n = eol ? (size_t)(eol - (one.data + i)) : one.len - i;
				if (n)
					af_buf_puts(out, "    ");
				af_buf_append(out, one.data + i, n);
				af_buf_puts(out, "\n");
				i += n + 1;
			}
		}
		af_diag_free(&d);
	}
	af_buf_free(&one);
	return rc || out->failed ? AF_ENOMEM : 0;
}

int af_cli_arc_decode(const char *path, const char *arc, const char *member, const char *out,
		      const char *schema_ref)
{
	struct af_archive a;
	struct af_buf yaml = AF_BUF_INIT;
	struct af_diag d;
	const char *where = arc;
	int rc = AF_EXIT_FAIL;
	long k;
	af_diag_init(&d);
	memset(&a, 0, sizeof(a));
	if (load(arc, &a, &d))
		goto out;
	if (!member) {
		if (whole(&a, arc, &yaml)) {
			af_diag_error(&d, AF_ENOMEM, "out of memory");
			goto out;
		}
	} else if (!strcmp(member, AF_INDEX_NAME)) {
		if (a.c->index_yaml(a.st, af_base(arc), &yaml)) {
			af_diag_error(&d, AF_ENOMEM, "out of memory");
			goto out;
		}
	} else if ((k = af_archive_find(&a, member)) < 0) {
		no_such(&a, arc, member);
		goto out;
	} else {
		where = path;
		if (af_codec_modeline(af_codec_by_name(a.m[k].codec), schema_ref, &yaml)) {
			af_diag_error(&d, AF_ENOMEM, "out of memory");
			goto out;
		}
		int mrc = af_member_yaml(&a, (size_t)k, &yaml, &d);
		if (mrc == AF_VIEW_READONLY) {
			char msg[1200];
			af_diag_format(&d, path, msg, sizeof(msg));
			fprintf(stderr, "animfs: note: shown read-only: %s\n", msg);
			af_diag_clear(&d);
		} else if (mrc) {
			goto out;
		}
	}
	if (emit(&yaml, out, &d)) {
		where = out ? out : "stdout";
		goto out;
	}
	rc = AF_EXIT_OK;
out:
	if (d.code || d.warnings.len)
		af_cli_report(where, &d);
	af_archive_close(&a);
	af_buf_free(&yaml);
	af_diag_free(&d);
	return rc;
}

int af_cli_arc_encode(const char *yamlpath, const char *path, const char *arc, const char *member)
{
	struct af_archive a;
	struct af_buf yaml = AF_BUF_INIT, image = AF_BUF_INIT;
	struct af_diag d;
	const char *where = arc;
	int changed = 0, rc = AF_EXIT_FAIL;
	long k;
	af_diag_init(&d);
	memset(&a, 0, sizeof(a));
	if (load(arc, &a, &d))
		goto out;
	if ((k = af_archive_find(&a, member)) < 0 && !a.c->add) {
		no_such(&a, arc, member);
		goto out;
	}
	where = yamlpath;
	if (af_read_file_at(AT_FDCWD, strcmp(yamlpath, "-") ? yamlpath : "/dev/stdin", AF_MAX_YAML,
			    &yaml, &d))
		goto out;
	if (k < 0) { /* a new member: the container adds it */
		if (af_member_add(&a, member, yaml.data, yaml.len, &image, &d))
			goto out;
		changed = 1;
		fprintf(stderr, "animfs: %s: added to the %s\n", path, a.c->noun);
	} else if (af_member_commit(&a, (size_t)k, yaml.data, yaml.len, &image, &changed, &d)) {
		goto out;
	}
	if (!changed) {
		fprintf(stderr, "animfs: %s: unchanged; the %s was not rewritten\n", path, a.c->noun);
	} else if (af_replace_file_at(AT_FDCWD, arc, image.data, image.len, 0644, &d)) {
		where = arc;
		goto out;
	}
	rc = AF_EXIT_OK;
out:
	if (d.code || d.warnings.len)
		af_cli_report(where, &d);
	af_archive_close(&a);
	af_buf_free(&yaml);
	af_buf_free(&image);
	af_diag_free(&d);
	return rc;
}

void af_cli_arc_check(const char *path, struct af_cli_arc_stats *st,
		      void (*fail)(const char *path, const char *what),
		      void (*member)(const char *codec, unsigned long long bytes, int ok))
{
	struct af_archive a;
	struct af_buf again = AF_BUF_INIT, body = AF_BUF_INIT, file = AF_BUF_INIT;
	struct af_diag d;
	char msg[2048], item[4096 + AF_MEMBER_NAME_MAX + 2];
	af_diag_init(&d);
	memset(&a, 0, sizeof(a));
	st->archives++;
	if (load(path, &a, &d) || af_read_file_at(AT_FDCWD, path, AF_MAX_FILE, &file, &d)) {
		af_diag_format(&d, af_cli_arc_of(path) ? af_cli_arc_of(path)->noun : "container", msg,
			       sizeof(msg));
		fail(path, msg);
		st->failed_archives++;
		goto out;
	}
	for (size_t k = 0; k < a.n; k++) {
		if (!af_codec_by_name(a.m[k].codec))
			continue; /* a member of a codec this build lacks: nothing to check it with */
		snprintf(item, sizeof(item), "%s/%s", path, a.m[k].name);
		st->members++;
		af_buf_reset(&body);
		af_diag_clear(&d);
		a.c->body(a.st, k, &body, &d);
		af_diag_clear(&d);
		int ok = af_member_roundtrip(&a, k, &d) == 0;
		if (!ok) {
			af_diag_format(&d, "round trip", msg, sizeof(msg));
			fail(item, msg);
		}
		member(a.m[k].codec, body.len, ok);
	}
	af_diag_clear(&d);
	if (a.c->rebuild && a.c->rebuild(a.st, &again, &d)) {
		af_diag_format(&d, "rebuild", msg, sizeof(msg));
		fail(path, msg);
		st->failed_archives++;
	} else if (a.c->rebuild && (again.len != file.len || memcmp(again.data, file.data, again.len))) {
		snprintf(msg, sizeof(msg),
			 "a rebuild without edits differs from offset 0x%zx (%zu bytes in, %zu out)",
			 af_first_diff(again.data, again.len, file.data, file.len), file.len, again.len);
		fail(path, msg);
		st->failed_archives++;
	} else {
		st->rebuilt++;
	}
out:
	af_archive_close(&a);
	af_buf_free(&again);
	af_buf_free(&body);
	af_buf_free(&file);
	af_diag_free(&d);
}
