/* `animfs decode|encode|check` on resources inside Sims 3 packages: the path
 * `X.package/<name>.jazz` does not exist on disk, so the prefix that is a DBPF file is
 * opened through the pkgview module and the package is replaced atomically on encode. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "animfs/cli.h"
#include "animfs/dbpf.h"
#include "animfs/fileio.h"
#include "animfs/yamlio.h"
#include "animfs/pkgview.h"
#include "pkg_cli.h"

int af_cli_pkg_split(const char *path, char *pkg, size_t size, const char **member)
{
	const char *slash = strrchr(path, '/');
	uint8_t head[AF_BID_HEAD];
	size_t got = 0;
	struct stat st;
	if (!slash || !slash[1] || (size_t)(slash - path) >= size)
		return 0;
	if (!stat(path, &st)) /* a real file or folder wins */
		return 0;
	snprintf(pkg, size, "%.*s", (int)(slash - path), path);
	if (stat(pkg, &st) || !S_ISREG(st.st_mode))
		return 0;
	if (af_read_head_at(AT_FDCWD, pkg, head, sizeof(head), &got) || !af_dbpf_is_v2(head, got))
		return 0;
	*member = slash + 1;
	return 1;
}

static int load(const char *pkg, struct af_pkgview *v, struct af_diag *d)
{
	struct af_buf file = AF_BUF_INIT;
	int rc = af_read_file_at(AT_FDCWD, pkg, AF_MAX_FILE, &file, d);
	if (!rc)
		rc = af_pkgview_open(v, file.data, file.len, d);
	af_buf_free(&file);
	return rc;
}

static void no_such(const struct af_pkgview *v, const char *pkg, const char *member)
{
	fprintf(stderr, "animfs: %s: no resource '%s' in the package; it has %s", pkg, member,
		AF_PKG_INDEX_NAME);
	for (size_t k = 0; k < v->nitems; k++)
		fprintf(stderr, ", %s", v->items[k].name);
	fputc('\n', stderr);
}

static int emit(const struct af_buf *b, const char *out, struct af_diag *d)
{
	size_t off = 0;
	if (out)
		return af_replace_file_at(AT_FDCWD, out, b->data, b->len, 0644, d);
	while (off < b->len) {
		ssize_t w = write(1, b->data + off, b->len - off);
		if (w <= 0)
			return af_diag_error(d, AF_EIO, "cannot write to standard output");
		off += (size_t)w;
	}
	return 0;
}

/* The whole package as one YAML document, so that packages diff like every other
 * file (git textconv): the index, then each member's document nested under its name,
 * or a comment saying why a member is not shown. */
static int whole_package(const struct af_pkgview *v, const char *pkg, struct af_buf *out)
{
	struct af_buf one = AF_BUF_INIT;
	struct af_diag d;
	const char *base = strrchr(pkg, '/');
	int rc = af_pkgview_index_yaml(v, base ? base + 1 : pkg, out);
	af_buf_printf(out, "members: # %zu shown as YAML below, by name\n", v->nitems);
	for (size_t k = 0; !rc && k < v->nitems; k++) {
		af_buf_reset(&one);
		af_diag_init(&d);
		if (af_pkgview_read(v, &v->items[k], &one, &d) || one.failed) {
			char msg[1200];
			af_diag_format(&d, v->items[k].name, msg, sizeof(msg));
			af_buf_printf(out, "  # not shown: %s\n", msg);
		} else {
			af_buf_printf(out, "  %s:\n", v->items[k].name);
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

int af_cli_pkg_decode(const char *path, const char *pkg, const char *member, const char *out,
		      const char *schema_ref)
{
	struct af_pkgview v;
	struct af_buf yaml = AF_BUF_INIT;
	struct af_diag d;
	const struct af_pkg_item *it = NULL;
	const char *where = pkg;
	int rc = AF_EXIT_FAIL;
	af_diag_init(&d);
	memset(&v, 0, sizeof(v));
	if (load(pkg, &v, &d))
		goto out;
	if (!member) {
		if (whole_package(&v, pkg, &yaml)) {
			af_diag_error(&d, AF_ENOMEM, "out of memory");
			goto out;
		}
	} else if (!strcmp(member, AF_PKG_INDEX_NAME)) {
		const char *base = strrchr(pkg, '/');
		if (af_pkgview_index_yaml(&v, base ? base + 1 : pkg, &yaml)) {
			af_diag_error(&d, AF_ENOMEM, "out of memory");
			goto out;
		}
	} else if (!(it = af_pkgview_find(&v, member))) {
		no_such(&v, pkg, member);
		goto out;
	} else {
		where = path;
		if (af_codec_modeline(af_codec_by_name("sims3-jazz"), schema_ref, &yaml) ||
		    af_pkgview_read(&v, it, &yaml, &d))
			goto out;
	}
	if (emit(&yaml, out, &d)) {
		where = out ? out : "stdout";
		goto out;
	}
	rc = AF_EXIT_OK;
out:
	if (d.code || d.warnings.len)
		af_cli_report(where, &d);
	af_pkgview_close(&v);
	af_buf_free(&yaml);
	af_diag_free(&d);
	return rc;
}

int af_cli_pkg_encode(const char *yamlpath, const char *path, const char *pkg, const char *member)
{
	struct af_pkgview v;
	struct af_buf yaml = AF_BUF_INIT, image = AF_BUF_INIT;
	struct af_diag d;
	const struct af_pkg_item *it;
	const char *where = pkg;
	int changed = 0, rc = AF_EXIT_FAIL;
	af_diag_init(&d);
	memset(&v, 0, sizeof(v));
	if (load(pkg, &v, &d))
		goto out;
	if (!(it = af_pkgview_find(&v, member))) {
		no_such(&v, pkg, member);
		goto out;
	}
	where = yamlpath;
	if (af_read_file_at(AT_FDCWD, strcmp(yamlpath, "-") ? yamlpath : "/dev/stdin", AF_MAX_YAML,
			    &yaml, &d))
		goto out;
	if (af_pkgview_commit(&v, it, yaml.data, yaml.len, &image, &changed, &d))
		goto out;
	if (!changed) {
		fprintf(stderr, "animfs: %s: unchanged; the package was not rewritten\n", path);
	} else if (af_replace_file_at(AT_FDCWD, pkg, image.data, image.len, 0644, &d)) {
		where = pkg;
		goto out;
	}
	rc = AF_EXIT_OK;
out:
	if (d.code || d.warnings.len)
		af_cli_report(where, &d);
	af_pkgview_close(&v);
	af_buf_free(&yaml);
	af_buf_free(&image);
	af_diag_free(&d);
	return rc;
}

void af_cli_pkg_check(const char *path, struct af_cli_pkg_stats *st,
		      void (*fail)(const char *path, const char *what))
{
	struct af_pkgview v;
	struct af_buf again = AF_BUF_INIT;
	struct af_diag d;
	char msg[2048], item[4096 + AF_PKG_NAME_MAX + 2];
	af_diag_init(&d);
	memset(&v, 0, sizeof(v));
	st->packages++;
	if (load(path, &v, &d)) {
		af_diag_format(&d, "package", msg, sizeof(msg));
		fail(path, msg);
		st->failed_packages++;
		goto out;
	}
	for (size_t k = 0; k < v.nitems; k++) {
		const struct af_pkg_item *it = &v.items[k];
		snprintf(item, sizeof(item), "%s/%s", path, it->name);
		st->items++;
		st->bytes += v.pkg.e[it->entry].mem_size;
		af_diag_clear(&d);
		if (af_pkgview_roundtrip(&v, it, &d)) {
			af_diag_format(&d, "round trip", msg, sizeof(msg));
			fail(item, msg);
			st->items_failed++;
		} else {
			st->items_identical++;
		}
	}
	af_diag_clear(&d);
	if (af_dbpf_rebuild(&v.pkg, NULL, 0, &again, &d)) {
		af_diag_format(&d, "rebuild", msg, sizeof(msg));
		fail(path, msg);
		st->failed_packages++;
	} else if (again.len != v.file.len || memcmp(again.data, v.file.data, again.len)) {
		size_t i = 0, m = again.len < v.file.len ? again.len : v.file.len;
		while (i < m && again.data[i] == v.file.data[i])
			i++;
		snprintf(msg, sizeof(msg),
			 "a rebuild without edits differs from offset 0x%zx (%zu bytes in, %zu out)", i,
			 v.file.len, again.len);
		fail(path, msg);
		st->failed_packages++;
	} else {
		st->rebuilt++;
	}
out:
	af_pkgview_close(&v);
	af_buf_free(&again);
	af_diag_free(&d);
}
