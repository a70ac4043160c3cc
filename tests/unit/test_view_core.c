/* The view core (src/view) on a fake face: no FUSE, no mount, only the core's own API
 * and a struct af_face of the test's. A GAME folder is made from the example
 * (examples/walk.animation.yaml encoded, a game file; examples/MOTION.BIN.yaml encoded,
 * the one member of an AFS archive). Each pipeline once: the render (resolve, the proof by
 * descriptor, the render, the cache), the save of a game file and the save of a member
 * (edit, unchanged, refused), each checked on the bytes GAME holds after it; and both
 * kinds of binary (struct af_bin) through the one render and the one save pipeline. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "animfs/codec.h"
#include "animfs/fileio.h"
#include "../../src/fs/fs_int.h"
#include "../../src/view/bin.h"

/* The fake face: counts what the core asks of it and tells it. */
static int saved_notes, asked_alias, forgotten;

static void fake_note(struct af_fs *fs, enum af_note what, const char *rel)
{
	(void)fs, (void)rel;
	saved_notes += what == AF_NOTE_SAVED;
}

/* what the alias named by the face's prefix stands for: none (the core asks) */
static int fake_alias_orig(struct af_fs *fs, const char *alias, char *orig, size_t size)
{
	(void)fs, (void)alias, (void)orig, (void)size;
	asked_alias++;
	return 0;
}

static void fake_forget(struct af_fs *fs)
{
	(void)fs;
	forgotten++;
}

static const struct af_face fake_face = {
	.alias_prefix = ".fake_alias",
	.alias_orig = fake_alias_orig,
	.note = fake_note,
	.forget = fake_forget,
};

struct env {
	char game[256];
	struct af_fs fs;
	struct af_buf walk; /* the example's bytes */
	struct af_buf motn; /* examples/MOTION.BIN.yaml's bytes, the archive's member */
	const struct af_codec *c, *m;
};

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A CRI AFS archive (spec 7) of one member, name, with its name table after the data
 * (as tests/tools/big_archive.py makes them): 2048-byte sectors. */
static int afs_of(const struct af_buf *member, const char *name, struct af_buf *out)
{
	size_t body = (member->len + 2047) / 2048 * 2048;
	size_t total = 2048 + body + 2048;
	if (af_buf_reserve(out, total))
		return -1;
	memset(out->data, 0, total);
	memcpy(out->data, "AFS", 4);
	put32(out->data + 4, 1);
	put32(out->data + 8, 2048);
	put32(out->data + 12, (uint32_t)member->len);
	put32(out->data + 16, (uint32_t)(2048 + body)); /* the name table */
	put32(out->data + 20, 48);
	memcpy(out->data + 2048, member->data, member->len);
	uint8_t *rec = out->data + 2048 + body;
	snprintf((char *)rec, 32, "%s", name);
	static const uint16_t when[6] = {2000, 1, 1, 0, 0, 0}; /* year ... second */
	for (int i = 0; i < 6; i++)
		rec[32 + 2 * i] = (uint8_t)when[i], rec[33 + 2 * i] = (uint8_t)(when[i] >> 8);
	put32(rec + 44, (uint32_t)member->len);
	out->len = total;
	return 0;
}

/* The one member of an AFS archive made by afs_of (or rewritten since). */
static int afs_member(const struct af_buf *afs, struct af_buf *out)
{
	if (afs->len < 16 || memcmp(afs->data, "AFS", 4) || get32(afs->data + 4) != 1)
		return -1;
	uint32_t off = get32(afs->data + 8), len = get32(afs->data + 12);
	if ((uint64_t)off + len > afs->len)
		return -1;
	return af_buf_append(out, afs->data + off, len);
}

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	char path[600];
	struct af_buf yaml = AF_BUF_INIT, motn = AF_BUF_INIT, afs = AF_BUF_INIT;
	struct af_io io = {0};
	struct af_diag d;
	af_diag_init(&d);
	setenv("ANIMFS_NAMES", "", 1);
	e->c = af_codec_by_name("diesel-animation");
	e->m = af_codec_by_name("shenmue-motn");
	snprintf(e->game, sizeof(e->game), "%s/animfs-core-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	snprintf(path, sizeof(path), "%s/examples/walk.animation.yaml", ANIMFS_SOURCE_DIR);
	if (!e->c || !e->m || !mkdtemp(e->game) ||
	    af_read_file_at(AT_FDCWD, path, AF_MAX_YAML, &yaml, &d) ||
	    e->c->from_yaml(yaml.data, yaml.len, &io, &e->walk, &d))
		return -1;
	snprintf(path, sizeof(path), "%s/examples/MOTION.BIN.yaml", ANIMFS_SOURCE_DIR);
	af_buf_reset(&yaml);
	if (af_read_file_at(AT_FDCWD, path, AF_MAX_YAML, &yaml, &d) ||
	    e->m->from_yaml(yaml.data, yaml.len, &io, &e->motn, &d) ||
	    afs_of(&e->motn, "MOTION.BIN", &afs))
		return -1;
	int fd = open(e->game, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 ||
	    af_replace_file_at(fd, "walk.animation", e->walk.data, e->walk.len, 0644, &d) ||
	    af_replace_file_at(fd, "pack.afs", afs.data, afs.len, 0644, &d) ||
	    af_fs_init(&e->fs, fd, NULL, 1 << 20, 0))
		return -1;
	e->fs.face = &fake_face;
	saved_notes = asked_alias = forgotten = 0;
	af_buf_free(&yaml);
	af_buf_free(&motn);
	af_buf_free(&afs);
	af_diag_free(&d);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;
	char cmd[400];
	int fd = e->fs.rootfd;
	af_fs_destroy(&e->fs);
	assert_int_equal(forgotten, 1); /* the face's own state is the face's to free */
	close(fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", e->game);
	int rc = system(cmd);
	af_buf_free(&e->walk);
	af_buf_free(&e->motn);
	free(e);
	return rc;
}

/* text with its "length:" line's value replaced by value. */
static void edit_length(const struct af_text *t, const char *value, struct af_buf *out)
{
	const char *s = (const char *)t->data, *hit = strstr(s, "\nlength: ");
	assert_non_null(hit);
	af_buf_reset(out);
	af_buf_append(out, s, (size_t)(hit - s));
	af_buf_puts(out, "\nlength: ");
	af_buf_puts(out, value);
	af_buf_puts(out, strchr(hit + 1, '\n'));
}

/* What a binary decodes to (codec c) contains needle. */
static void decodes_with(const struct af_codec *c, const struct af_buf *bin, const char *needle)
{
	struct af_buf y = AF_BUF_INIT;
	struct af_io io = {0};
	struct af_diag d;
	af_diag_init(&d);
	assert_int_equal(c->to_yaml(bin->data, bin->len, &io, &y, &d), 0);
	af_buf_putc(&y, 0);
	assert_non_null(strstr((const char *)y.data, needle));
	af_buf_free(&y);
	af_diag_free(&d);
}

/* The render pipeline: resolve, proof by descriptor, render once, then the cache. */
static void test_render(void **state)
{
	struct env *e = *state;
	struct af_res r;
	struct af_text *t = NULL, *again = NULL;
	struct af_rcache_stats st0, st1;
	struct af_buf want = AF_BUF_INIT;
	struct af_io io = {0};
	struct af_diag d;
	struct stat sb;
	af_diag_init(&d);
	assert_int_equal(af_view_resolve(&e->fs, "/walk.animation.yaml", &r), 0);
	assert_int_equal(r.kind, AF_K_VIEW);
	assert_string_equal(r.bin, "walk.animation");
	assert_int_equal(asked_alias, 0); /* not a name the face hides files under */
	/* one that is (the face's prefix, not FUSE's): the core asks the face what it
	 * stands for, and with none it is no name at all */
	assert_int_equal(af_view_resolve(&e->fs, "/.fake_alias0001", &r), 0);
	assert_int_equal(r.kind, AF_K_NONE);
	assert_int_equal(asked_alias, 1);
	assert_int_equal(af_view_resolve(&e->fs, "/.fuse_hidden0001", &r), 0);
	assert_int_equal(asked_alias, 1);
	assert_int_equal(af_view_resolve(&e->fs, "/walk.animation.yaml", &r), 0);
	af_rcache_stats(e->fs.cache, &st0);
	assert_int_equal(af_view_open_text(&e->fs, &r, O_RDONLY, &t), 0);
	assert_null(e->fs.renders.list); /* landed */
	assert_int_equal(af_view_modeline(e->c, "walk.animation", &want), 0);
	assert_int_equal(e->c->to_yaml(e->walk.data, e->walk.len, &io, &want, &d), 0);
	assert_int_equal(t->len, want.len);
	assert_memory_equal(t->data, want.data, want.len);
	/* the second ask is the cache's: no render */
	assert_int_equal(af_view_open_text(&e->fs, &r, O_RDONLY, &again), 0);
	af_rcache_stats(e->fs.cache, &st1);
	assert_int_equal(st1.renders - st0.renders, 1);
	assert_true(st1.hits > st0.hits);
	assert_int_equal(again->len, t->len);
	/* a stat shows the text's length, as the face's open files would have it */
	assert_int_equal(af_view_stat(&e->fs, &r, af_daemon_uid(), &sb), 0);
	assert_int_equal((size_t)sb.st_size, t->len);
	/* the namespace a face serves: the same text opened, stat'ed and read */
	struct af_ns_opened o;
	char got[64];
	assert_int_equal(af_ns_open(&e->fs, "/walk.animation.yaml", O_RDONLY, &o), 0);
	assert_int_equal(o.kind, AF_K_VIEW);
	assert_int_equal(o.len, t->len);
	assert_int_equal(af_ns_stat(&e->fs, NULL, o.h, &sb), 0);
	assert_int_equal((size_t)sb.st_size, t->len);
	assert_int_equal(af_ns_read(o.h, got, sizeof(got), 0), sizeof(got));
	assert_memory_equal(got, t->data, sizeof(got));
	af_ns_release(&e->fs, o.h);
	assert_null(e->fs.handles);
	/* a binary that is not there: the core's answer, no text */
	assert_int_equal(af_view_resolve(&e->fs, "/gone.animation.yaml", &r), 0);
	assert_int_equal(r.kind, AF_K_NONE);
	af_text_unref(t);
	af_text_unref(again);
	af_buf_free(&want);
	af_diag_free(&d);
}

/* A save as the face makes it: the view's binary, the saver, its mode. */
static int save(struct env *e, const char *view, const char *bin, const struct af_buf *yaml)
{
	struct af_dest to = {-1, bin, af_who_self(), 0644, 0, NULL, NULL, NULL, 0, 0};
	return af_commit_to(&e->fs, &to, view, yaml->data, yaml->len);
}

/* The save pipeline, a game file: an edit replaces the file, the same text writes
 * nothing, a bad one is refused with the core's own result code and the file kept. */
static void test_save_game(void **state)
{
	struct env *e = *state;
	struct af_res r;
	struct af_text *t = NULL;
	struct af_buf ed = AF_BUF_INIT, bin = AF_BUF_INIT;
	struct af_diag d;
	struct stat before, after;
	af_diag_init(&d);
	assert_int_equal(af_view_resolve(&e->fs, "/walk.animation.yaml", &r), 0);
	assert_int_equal(af_view_open_text(&e->fs, &r, O_RDWR, &t), 0);
	assert_int_equal(fstatat(e->fs.rootfd, "walk.animation", &before, 0), 0);
	/* unchanged: no write */
	af_buf_append(&ed, t->data, t->len);
	assert_int_equal(save(e, r.rel, r.bin, &ed), 0);
	assert_int_equal(fstatat(e->fs.rootfd, "walk.animation", &after, 0), 0);
	assert_int_equal(before.st_ino, after.st_ino);
	/* refused: a result code of the core (not a -errno), turned into one by the face */
	static const char bad[] = "format: diesel-animation\nlength: [not a number\n";
	af_buf_reset(&ed);
	af_buf_puts(&ed, bad);
	int rc = save(e, r.rel, r.bin, &ed);
	assert_true(rc == AF_EINVAL || rc == -EINVAL);
	assert_int_equal(af_code_errno(rc), -EINVAL);
	assert_int_equal(fstatat(e->fs.rootfd, "walk.animation", &after, 0), 0);
	assert_int_equal(before.st_ino, after.st_ino);
	/* an edit: replaced, and the new bytes say so */
	edit_length(t, "9.5", &ed);
	assert_int_equal(save(e, r.rel, r.bin, &ed), 0);
	assert_int_equal(fstatat(e->fs.rootfd, "walk.animation", &after, 0), 0);
	assert_true(before.st_ino != after.st_ino);
	assert_int_equal(af_read_file_at(e->fs.rootfd, "walk.animation", AF_MAX_FILE, &bin, &d), 0);
	decodes_with(e->c, &bin, "\nlength: 9.5");
	/* the same through the namespace a face serves: written into an open view, saved,
	 * and the face told */
	struct af_ns_opened o;
	edit_length(t, "7.25", &ed);
	assert_int_equal(af_ns_open(&e->fs, "/walk.animation.yaml", O_WRONLY | O_TRUNC, &o), 0);
	assert_int_equal(af_ns_write(&e->fs, o.h, (const char *)ed.data, ed.len, 0), (int)ed.len);
	assert_int_equal(af_ns_save(&e->fs, o.h), 0);
	assert_int_equal(saved_notes, 1);
	af_ns_release(&e->fs, o.h);
	af_buf_reset(&bin);
	assert_int_equal(af_read_file_at(e->fs.rootfd, "walk.animation", AF_MAX_FILE, &bin, &d), 0);
	decodes_with(e->c, &bin, "\nlength: 7.25");
	af_text_unref(t);
	af_buf_free(&ed);
	af_buf_free(&bin);
	af_diag_free(&d);
}

/* The save pipeline, a member: the container is rewritten with the member's new bytes. */
static void test_save_member(void **state)
{
	struct env *e = *state;
	static const char key[] = "[8, 1, 1.0]", edited[] = "[8, 1, 1.5]";
	struct af_res r;
	struct af_text *t = NULL;
	struct af_buf ed = AF_BUF_INIT, afs = AF_BUF_INIT, inner = AF_BUF_INIT;
	struct af_diag d;
	struct stat before, after;
	af_diag_init(&d);
	assert_int_equal(af_view_resolve(&e->fs, "/pack.afs", &r), 0);
	assert_int_equal(r.kind, AF_K_ARCDIR);
	assert_int_equal(af_view_resolve(&e->fs, "/pack.afs/MOTION.BIN.yaml", &r), 0);
	assert_int_equal(r.kind, AF_K_VIEW);
	assert_string_equal(r.bin, "pack.afs/MOTION.BIN");
	assert_int_equal(af_view_open_text(&e->fs, &r, O_RDWR, &t), 0);
	const char *hit = strstr((const char *)t->data, key);
	assert_non_null(hit);
	assert_int_equal(fstatat(e->fs.rootfd, "pack.afs", &before, 0), 0);
	/* the same text: the container is not rewritten */
	af_buf_append(&ed, t->data, t->len);
	assert_int_equal(save(e, r.rel, r.bin, &ed), 0);
	assert_int_equal(fstatat(e->fs.rootfd, "pack.afs", &after, 0), 0);
	assert_int_equal(before.st_ino, after.st_ino);
	/* an edit: the container rewritten, its member the new bytes */
	af_buf_reset(&ed);
	af_buf_append(&ed, t->data, (size_t)(hit - (const char *)t->data));
	af_buf_puts(&ed, edited);
	af_buf_puts(&ed, hit + strlen(key));
	assert_int_equal(save(e, r.rel, r.bin, &ed), 0);
	assert_int_equal(fstatat(e->fs.rootfd, "pack.afs", &after, 0), 0);
	assert_true(before.st_ino != after.st_ino);
	assert_int_equal(af_read_file_at(e->fs.rootfd, "pack.afs", AF_MAX_FILE, &afs, &d), 0);
	assert_int_equal(afs_member(&afs, &inner), 0);
	decodes_with(e->m, &inner, edited);
	/* and the view renders the edit from the container as it is now */
	struct af_text *now = NULL;
	assert_int_equal(af_view_resolve(&e->fs, "/pack.afs/MOTION.BIN.yaml", &r), 0);
	assert_int_equal(af_view_open_text(&e->fs, &r, O_RDONLY, &now), 0);
	assert_non_null(strstr((const char *)now->data, edited));
	af_text_unref(now);
	af_text_unref(t);
	af_buf_free(&ed);
	af_buf_free(&afs);
	af_buf_free(&inner);
	af_diag_free(&d);
}

/* One render pipeline and one save pipeline for both kinds of binary: each resolved
 * once into a struct af_bin with its kind's operations, rendered by af_bin_render (a
 * game file read through the caller's descriptor; a member through its container),
 * cached by the same pipeline, refused when the file proven is not the file there, and
 * saved by the one af_commit_to through the steps its target's kind gives. */
static void test_one_pipeline(void **state)
{
	struct env *e = *state;
	struct af_bin file, member, other;
	struct af_text *ft = NULL, *mt = NULL, *again = NULL;
	struct af_rcache_stats st0, st1;
	struct af_target t;
	struct af_diag d;
	af_diag_init(&d);
	/* resolved once: the kind and the file the caller opened */
	assert_int_equal(af_bin_open(&e->fs, "walk.animation", O_RDONLY, &file), 0);
	assert_ptr_equal(file.ops, &af_bin_file_ops);
	assert_string_equal(file.ops->kind, "file");
	assert_false(file.member);
	assert_int_equal(af_bin_open(&e->fs, "pack.afs/MOTION.BIN", O_RDONLY, &member), 0);
	assert_ptr_equal(member.ops, &af_bin_member_ops);
	assert_string_equal(member.ops->kind, "member");
	assert_true(member.member);
	assert_string_equal(member.file, "pack.afs");
	/* one render function: each rendered once, then the cache's */
	af_rcache_stats(e->fs.cache, &st0);
	assert_int_equal(af_bin_render(&e->fs, &file, &ft), 0);
	assert_int_equal(af_bin_render(&e->fs, &member, &mt), 0);
	af_rcache_stats(e->fs.cache, &st1);
	assert_int_equal(st1.renders - st0.renders, 2);
	assert_non_null(strstr((const char *)ft->data, "\nlength: "));
	assert_non_null(strstr((const char *)mt->data, "[8, 1, 1.0]"));
	assert_int_equal(af_bin_render(&e->fs, &member, &again), 0);
	assert_int_equal(again->len, mt->len);
	af_text_unref(again);
	again = NULL;
	assert_int_equal(af_bin_render(&e->fs, &file, &again), 0);
	assert_int_equal(again->len, ft->len);
	af_text_unref(again);
	again = NULL;
	af_rcache_stats(e->fs.cache, &st0);
	assert_int_equal(st0.renders, st1.renders);
	assert_null(e->fs.renders.list); /* every flight landed */
	/* a container proven that is not the one there: never read for the caller */
	other = member;
	other.fd = -1;
	other.st.st_ino ^= 1;
	assert_int_equal(af_bin_render(&e->fs, &other, &again), -EAGAIN);
	assert_null(again);
	/* the daemon's own by name: the same kinds */
	assert_int_equal(af_bin_by_name(&e->fs, "pack.afs/MOTION.BIN", &member.st, &other), 0);
	assert_ptr_equal(other.ops, &af_bin_member_ops);
	assert_int_equal(af_bin_render(&e->fs, &other, &again), 0);
	assert_int_equal(again->len, mt->len);
	af_text_unref(again);
	/* one save pipeline: the target's kind gives its steps */
	struct af_dest to = {-1, "walk.animation", af_who_self(), 0644, 0, NULL, NULL, NULL, 0, 0};
	assert_int_equal(af_target_resolve(&e->fs, &to, &t, &d), 0);
	assert_ptr_equal(t.ops, &af_bin_file_ops);
	assert_null(t.container);
	af_target_close(&t);
	to.bin_rel = "pack.afs/MOTION.BIN";
	assert_int_equal(af_target_resolve(&e->fs, &to, &t, &d), 0);
	assert_ptr_equal(t.ops, &af_bin_member_ops);
	assert_non_null(t.container);
	assert_string_equal(t.inner, "MOTION.BIN");
	af_target_close(&t);
	af_bin_close(&file);
	af_bin_close(&member);
	af_text_unref(ft);
	af_text_unref(mt);
	af_diag_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_render, setup, teardown),
		cmocka_unit_test_setup_teardown(test_save_game, setup, teardown),
		cmocka_unit_test_setup_teardown(test_save_member, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_pipeline, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
