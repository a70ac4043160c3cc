/* A container defined in this test alone ("testarc": a magic, a count, then name and
 * bytes per member) shows up in the mount's view as a folder, with no edit outside
 * src/container/ and this file: listed with index.yaml and one view per member, a
 * member renders through its codec, a save rewrites the container with exactly that
 * member changed, and the other member keeps its bytes. The view is driven in process
 * (af_fs_* as the FUSE ops call them). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "animfs/bytes.h"
#include "animfs/codec.h"
#include "animfs/container.h"
#include "animfs/fileio.h"
#include "../../src/fs/fs_int.h"
#include "animfs/yamlio.h"

/* ---- the test archive: "TARC" u32 count, then count x {u8 len, name, u32 size, data} ---- */

struct tarc {
	size_t n;
	char names[8][64];
	struct af_buf data[8];
};

static int tarc_bid(const char *name, const uint8_t *head, size_t n)
{
	(void)name;
	return n >= 4 && !memcmp(head, "TARC", 4) ? 2 : 0;
}

static int tarc_check(int fd, uint64_t size, struct af_diag *d)
{
	uint8_t h[8];
	if (size < 8 || pread(fd, h, 8, 0) != 8 || memcmp(h, "TARC", 4) || af_le32(h + 4) > 8)
		return af_diag_at_offset(d, AF_EINVAL, 0, "not a test archive");
	return 0;
}

static int tarc_open(const uint8_t *p, size_t n, const struct af_container_env *env, void **st,
		     struct af_diag *d)
{
	(void)env;
	struct tarc *t = calloc(1, sizeof(*t));
	size_t pos = 8;
	if (!t)
		return AF_ENOMEM;
	t->n = af_le32(p + 4);
	for (size_t i = 0; i < t->n; i++) {
		if (pos >= n || pos + 1 + p[pos] + 4 > n)
			goto bad;
		size_t l = p[pos];
		memcpy(t->names[i], p + pos + 1, l);
		uint32_t size = af_le32(p + pos + 1 + l);
		pos += 1 + l + 4;
		if (size > n - pos)
			goto bad;
		af_buf_append(&t->data[i], p + pos, size);
		pos += size;
	}
	*st = t;
	return 0;
bad:
	for (size_t i = 0; i < 8; i++)
		af_buf_free(&t->data[i]);
	free(t);
	return af_diag_at_offset(d, AF_EINVAL, pos, "truncated member");
}

static void tarc_close(void *st)
{
	struct tarc *t = st;
	for (size_t i = 0; i < 8; i++)
		af_buf_free(&t->data[i]);
	free(t);
}

static size_t tarc_count(void *st)
{
	return ((struct tarc *)st)->n;
}

static void tarc_member(void *st, size_t i, struct af_member *m)
{
	snprintf(m->name, sizeof(m->name), "%s", ((struct tarc *)st)->names[i]);
	m->alias[0] = 0;
	m->codec = "diesel-animation";
}

static int tarc_body(void *st, size_t i, struct af_buf *out, struct af_diag *d)
{
	struct tarc *t = st;
	(void)d;
	return af_buf_append(out, t->data[i].data, t->data[i].len);
}

static void tarc_io(void *st, size_t i, struct af_io *io)
{
	memset(io, 0, sizeof(*io));
	io->name = ((struct tarc *)st)->names[i];
}

static int tarc_index(void *st, const char *name, struct af_buf *out)
{
	struct tarc *t = st;
	af_buf_printf(out, "archive: %s\nmembers:\n", name);
	for (size_t i = 0; i < t->n; i++)
		af_buf_printf(out, "  - {name: %s, size: %zu}\n", t->names[i], t->data[i].len);
	return out->failed ? AF_ENOMEM : 0;
}

static void write_tarc(struct af_buf *out, const struct tarc *t, size_t swap, const uint8_t *body,
		       size_t n)
{
	af_buf_append(out, "TARC", 4);
	af_buf_put_u32le(out, (uint32_t)t->n);
	for (size_t i = 0; i < t->n; i++) {
		const uint8_t *p = i == swap ? body : t->data[i].data;
		size_t len = i == swap ? n : t->data[i].len;
		af_buf_putc(out, (char)strlen(t->names[i]));
		af_buf_puts(out, t->names[i]);
		af_buf_put_u32le(out, (uint32_t)len);
		af_buf_append(out, p, len);
	}
}

static int tarc_replace(void *st, size_t i, const uint8_t *body, size_t n, struct af_buf *image,
			struct af_diag *d)
{
	(void)d;
	write_tarc(image, st, i, body, n);
	return image->failed ? AF_ENOMEM : 0;
}

static const struct af_container tarc = {
	.name = "test-archive",
	.description = "a folder-like archive made by the unit test",
	.version = 1,
	.noun = "archive",
	.plural = "archives",
	.member_noun = "member",
	.members = "members",
	.bid = tarc_bid,
	.check = tarc_check,
	.open = tarc_open,
	.close = tarc_close,
	.count = tarc_count,
	.member = tarc_member,
	.body = tarc_body,
	.member_io = tarc_io,
	.index_yaml = tarc_index,
	.replace = tarc_replace,
};

/* ---- the test ---- */

static const char *names_seen[8];
static size_t nseen;

static void seen(void *ctx, const char *name)
{
	(void)ctx;
	if (nseen < 8)
		names_seen[nseen++] = strdup(name);
}

static void test_container_as_folder(void **state)
{
	(void)state;
	char game[256], path[600];
	struct af_fs fs;
	struct af_res r;
	struct af_diag d;
	struct af_buf yaml = AF_BUF_INIT, walk = AF_BUF_INIT, file = AF_BUF_INIT;
	struct af_io io = {0};
	struct af_text *t = NULL;
	struct tarc src = {.n = 2};
	const struct af_codec *c = af_codec_by_name("diesel-animation");
	af_diag_init(&d);
	setenv("ANIMFS_NAMES", "", 1);
	assert_int_equal(af_container_add_for_tests(&tarc), 0);

	/* an archive of two animations made from the example */
	snprintf(path, sizeof(path), "%s/examples/walk.animation.yaml", ANIMFS_SOURCE_DIR);
	assert_int_equal(af_read_file_at(AT_FDCWD, path, AF_MAX_YAML, &yaml, &d), 0);
	assert_int_equal(c->from_yaml(yaml.data, yaml.len, &io, &walk, &d), 0);
	snprintf(src.names[0], 64, "a.animation");
	snprintf(src.names[1], 64, "b.animation");
	af_buf_append(&src.data[0], walk.data, walk.len);
	af_buf_append(&src.data[1], walk.data, walk.len);
	write_tarc(&file, &src, (size_t)-1, NULL, 0);
	snprintf(game, sizeof(game), "%s/animfs-tarc-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(game));
	int root = open(game, O_RDONLY | O_DIRECTORY);
	assert_int_equal(af_replace_file_at(root, "x.tarc", file.data, file.len, 0644, &d), 0);
	assert_int_equal(af_fs_init(&fs, root, NULL, 1 << 20, 0), 0);

	/* a folder, with index.yaml and a view per member */
	assert_int_equal(af_view_resolve(&fs, "/x.tarc", &r), 0);
	assert_int_equal(r.kind, AF_K_ARCDIR);
	af_folder_list(&fs, "x.tarc", seen, NULL);
	assert_int_equal(nseen, 3);
	assert_string_equal(names_seen[0], "index.yaml");
	assert_string_equal(names_seen[1], "a.animation.yaml");
	assert_string_equal(names_seen[2], "b.animation.yaml");
	assert_int_equal(af_view_resolve(&fs, "/x.tarc/a.animation.yaml", &r), 0);
	assert_int_equal(r.kind, AF_K_VIEW);
	assert_int_equal(af_folder_render(&fs, "x.tarc", 1, NULL, &t), 0);
	assert_non_null(strstr((const char *)t->data, "archive: x.tarc\n"));
	af_text_unref(t);

	/* the member renders through its codec, after the modeline every view starts with */
	struct af_buf want = AF_BUF_INIT;
	assert_int_equal(af_view_modeline(c, "x.tarc/a.animation", &want), 0);
	assert_int_equal(c->to_yaml(walk.data, walk.len, &io, &want, &d), 0);
	assert_int_equal(af_folder_render(&fs, "x.tarc/a.animation", 0, NULL, &t), 0);
	assert_int_equal(t->len, want.len);
	assert_memory_equal(t->data, want.data, want.len);

	/* a save rewrites the archive with exactly that member changed */
	struct af_buf ed = AF_BUF_INIT;
	const char *s = (const char *)t->data, *hit = strstr(s, "\nlength: ");
	assert_non_null(hit);
	af_buf_append(&ed, s, (size_t)(hit - s));
	af_buf_puts(&ed, "\nlength: 9.5");
	af_buf_puts(&ed, strchr(hit + 1, '\n'));
	af_text_unref(t);
	assert_int_equal(af_commit(&fs, "x.tarc/a.animation.yaml", "x.tarc/a.animation", ed.data,
				   ed.len), 0);
	af_buf_reset(&file);
	assert_int_equal(af_read_file_at(root, "x.tarc", AF_MAX_FILE, &file, &d), 0);
	void *st;
	assert_int_equal(tarc_open(file.data, file.len, NULL, &st, &d), 0);
	struct tarc *back = st;
	assert_int_equal(back->n, 2);
	assert_int_equal(back->data[1].len, walk.len); /* the other member, byte for byte */
	assert_memory_equal(back->data[1].data, walk.data, walk.len);
	struct af_buf y = AF_BUF_INIT;
	assert_int_equal(c->to_yaml(back->data[0].data, back->data[0].len, &io, &y, &d), 0);
	af_buf_putc(&y, 0);
	assert_non_null(strstr((const char *)y.data, "\nlength: 9.5"));
	tarc_close(st);

	af_fs_destroy(&fs);
	close(root);
	snprintf(path, sizeof(path), "rm -rf '%s'", game);
	assert_int_equal(system(path), 0);
	for (size_t i = 0; i < nseen; i++)
		free((void *)names_seen[i]);
	for (size_t i = 0; i < 2; i++)
		af_buf_free(&src.data[i]);
	af_buf_free(&yaml);
	af_buf_free(&walk);
	af_buf_free(&file);
	af_buf_free(&want);
	af_buf_free(&ed);
	af_buf_free(&y);
	af_diag_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_container_as_folder),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
