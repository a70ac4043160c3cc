/* Sims 3 packages that gain and lose resources (sims3_members.c, issue 17), on packages
 * built here by hand: the key a new member gets (FNV-1 64, the CLIP rule, FNV-1 64 for a
 * rig, or the key an s3pe name spells), its _KEY entry (appended, or a new map), the
 * refusals, the shared index fields, removal with and without the name staying, and
 * add-then-remove giving the package back byte for byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <fcntl.h>

#include "animfs/bytes.h"
#include "animfs/codec.h"
#include "animfs/container.h"
#include "animfs/fileio.h"
#include "animfs/fnv.h"
#include "../../src/container/dbpf.h"
#include "../../src/container/sims3_package.h"

#define JAZZ 0x02D5DF13u
#define KEY 0x0166038Cu
#define STBL 0x220557DAu

struct rec {
	uint32_t type, group;
	uint64_t inst;
	const char *body; /* stored raw */
	size_t n;
};

/* A package of raw records in the order given, with the index type's shared fields
 * taken from the first record. */
static void make(struct af_buf *b, uint32_t itype, const struct rec *r, size_t n)
{
	uint32_t off[8];
	af_buf_reset(b);
	af_buf_append(b, "DBPF\2\0\0\0\0\0\0\0", 12);
	af_buf_fill(b, 0, 84);
	for (size_t i = 0; i < n; i++) {
		off[i] = (uint32_t)b->len;
		af_buf_append(b, r[i].body, r[i].n);
	}
	size_t ix = b->len;
	uint32_t shared[3] = { r[0].type, r[0].group, (uint32_t)(r[0].inst >> 32) };
	af_buf_put_u32le(b, itype);
	for (int k = 0; k < 3; k++)
		if (itype >> k & 1)
			af_buf_put_u32le(b, shared[k]);
	for (size_t i = 0; i < n; i++) {
		uint32_t key[3] = { r[i].type, r[i].group, (uint32_t)(r[i].inst >> 32) };
		for (int k = 0; k < 3; k++)
			if (!(itype >> k & 1))
				af_buf_put_u32le(b, key[k]);
		uint32_t tail[4] = { (uint32_t)r[i].inst, off[i], (uint32_t)r[i].n | 0x80000000u, (uint32_t)r[i].n };
		for (int k = 0; k < 4; k++)
			af_buf_put_u32le(b, tail[k]);
		af_buf_put_u32le(b, 0x00010000u); /* not compressed, committed 1 */
	}
	af_buf_patch_u32le(b, 36, (uint32_t)n);
	af_buf_patch_u32le(b, 44, (uint32_t)(b->len - ix));
	af_buf_patch_u32le(b, 60, 3);
	af_buf_patch_u32le(b, 64, (uint32_t)ix);
	assert_false(b->failed);
}

/* A _KEY body of (key, text) pairs. */
static size_t keymap(char *out, const uint64_t *keys, const char *const *texts, int n)
{
	size_t pos = 8;
	memcpy(out, "\1\0\0\0", 4);
	out[4] = (char)n, out[5] = out[6] = out[7] = 0;
	for (int i = 0; i < n; i++) {
		uint32_t l = (uint32_t)strlen(texts[i]);
		for (int k = 0; k < 8; k++)
			out[pos++] = (char)(keys[i] >> 8 * k);
		for (int k = 0; k < 4; k++)
			out[pos++] = (char)(l >> 8 * k);
		memcpy(out + pos, texts[i], l);
		pos += l;
	}
	return pos;
}

static char key_body[256];
static const char stbl_body[] = "a string table, stored raw";
static const char jazz_body[] = "an old state machine body";

/* _KEY (0x1111 -> "old"), the Jazz 0x1111, a string table; group 0 shared. */
static void base(struct af_buf *b, uint32_t itype)
{
	static const uint64_t k[1] = { 0x1111 };
	static const char *const t[1] = { "old" };
	size_t kn = keymap(key_body, k, t, 1);
	struct rec r[3] = {
		{ KEY, 0, 0, key_body, kn },
		{ JAZZ, 0, 0x1111, jazz_body, sizeof(jazz_body) },
		{ STBL, 0, 0x2222, stbl_body, sizeof(stbl_body) },
	};
	make(b, itype, r, 3);
}

struct pkg {
	struct af_buf file, image;
	struct af_pkgview v;
	struct af_dbpf q; /* the image, read back */
	struct af_diag d;
};

static void open_view(struct pkg *p)
{
	af_diag_init(&p->d);
	if (af_pkgview_open(&p->v, p->file.data, p->file.len, NULL, &p->d))
		fail_msg("open: %s", p->d.msg);
}

static int add(struct pkg *p, const char *name, const char *codec, const void *body, size_t n)
{
	int rc = af_pkgview_add(&p->v, name, codec, body, n, &p->image, &p->d);
	if (!rc && af_dbpf_open(&p->q, p->image.data, p->image.len, &p->d))
		fail_msg("the image does not read: %s", p->d.msg);
	return rc;
}

static void done(struct pkg *p)
{
	af_pkgview_close(&p->v);
	af_dbpf_close(&p->q);
	af_buf_free(&p->file);
	af_buf_free(&p->image);
	af_diag_free(&p->d);
}

static void body_is(const struct af_dbpf *q, size_t i, const void *want, size_t n)
{
	struct af_buf b = AF_BUF_INIT;
	struct af_diag d;
	af_diag_init(&d);
	assert_int_equal(af_dbpf_body(q, i, &b, &d), 0);
	assert_int_equal(b.len, n);
	assert_memory_equal(b.data, want, n);
	af_buf_free(&b);
	af_diag_free(&d);
}

/* Record i of the original keeps its key and stored bytes as record j of the image. */
static void kept(const struct pkg *p, size_t i, size_t j)
{
	const struct af_dbpf_entry *a = &p->v.pkg.e[i], *b = &p->q.e[j];
	assert_int_equal(a->type, b->type);
	assert_int_equal(a->group, b->group);
	assert_true(af_dbpf_instance(a) == af_dbpf_instance(b));
	assert_int_equal(a->file_size, b->file_size);
	assert_memory_equal(af_dbpf_stored(&p->v.pkg, i), af_dbpf_stored(&p->q, j), af_dbpf_stored_size(a));
}

/* A named Jazz: FNV-1 64 of the name, group 0, appended; "new" appended to the _KEY. */
static void test_add_named(void **state)
{
	(void)state;
	struct pkg p = { 0 };
	static const char big[] = "state machine state machine state machine state machine state machine";
	base(&p.file, 0x2);
	open_view(&p);
	assert_int_equal(add(&p, "new.jazz", "sims3-jazz", big, sizeof(big)), 0);
	assert_int_equal(p.q.count, 4);
	assert_int_equal(p.q.index_type, 0x2); /* group 0 still shared */
	kept(&p, 1, 1);
	kept(&p, 2, 2);
	assert_int_equal(p.q.e[3].type, JAZZ);
	assert_int_equal(p.q.e[3].group, 0);
	assert_true(af_dbpf_instance(&p.q.e[3]) == af_fnv1_64_lower("new", 3));
	assert_int_equal(p.q.e[3].compressed, 0xFFFF); /* compressible: RefPack */
	assert_true(af_dbpf_stored_size(&p.q.e[3]) < sizeof(big));
	body_is(&p.q, 3, big, sizeof(big));
	char want[256];
	static const uint64_t k[2] = { 0x1111, 0 };
	const char *const t[2] = { "old", "new" };
	uint64_t keys[2] = { k[0], af_fnv1_64_lower("new", 3) };
	body_is(&p.q, 0, want, keymap(want, keys, t, 2));
	/* the folder shows it by that name */
	struct af_pkgview w;
	assert_int_equal(af_pkgview_open(&w, p.image.data, p.image.len, NULL, &p.d), 0);
	assert_non_null(af_pkgview_find(&w, "new.jazz"));
	/* "old" does not hash to 0x1111 (spec 5.6): that one keeps its s3pe name */
	assert_null(af_pkgview_find(&w, "old.jazz"));
	assert_non_null(af_pkgview_find(&w, "S3_02D5DF13_00000000_0000000000001111.jazz"));
	af_pkgview_close(&w);
	done(&p);
}

/* No _KEY in the package: a new map (group 0, instance 0) after the new resource. */
static void test_add_new_keymap(void **state)
{
	(void)state;
	struct pkg p = { 0 };
	struct rec r[1] = { { STBL, 7, 0x2222, stbl_body, sizeof(stbl_body) } };
	make(&p.file, 0x3, r, 1);
	open_view(&p);
	assert_int_equal(add(&p, "Walk.jazz", "sims3-jazz", "J", 1), 0);
	assert_int_equal(p.q.count, 3);
	assert_int_equal(p.q.index_type, 0); /* type and group no longer shared */
	kept(&p, 0, 0);
	assert_int_equal(p.q.e[1].type, JAZZ);
	assert_int_equal(p.q.e[1].compressed, 0); /* 1 byte: raw */
	assert_int_equal(p.q.e[2].type, KEY);
	assert_true(af_dbpf_instance(&p.q.e[2]) == 0 && p.q.e[2].group == 0);
	char want[64];
	uint64_t keys[1] = { af_fnv1_64_lower("walk", 4) };
	const char *const t[1] = { "Walk" };
	body_is(&p.q, 2, want, keymap(want, keys, t, 1));
	done(&p);
}

/* An s3pe name spells the key: that group and instance, no _KEY entry. */
static void test_add_s3pe_key(void **state)
{
	(void)state;
	struct pkg p = { 0 };
	base(&p.file, 0x2);
	open_view(&p);
	assert_int_equal(add(&p, "S3_8EAF13DE_48000000_00000000DEADBEEF.rig", "sims3-rig", "R", 1), 0);
	assert_int_equal(p.q.count, 4);
	assert_int_equal(p.q.index_type, 0); /* group 0x48000000 breaks the shared group */
	for (size_t i = 0; i < 3; i++)
		kept(&p, i, i); /* the _KEY too: untouched */
	assert_int_equal(p.q.e[3].type, 0x8EAF13DEu);
	assert_int_equal(p.q.e[3].group, 0x48000000u);
	assert_true(af_dbpf_instance(&p.q.e[3]) == 0xDEADBEEFu);
	done(&p);
}

/* The type's rule: CLIP (spec 5.4: ac_idle_sit_hack_x), and FNV-1 64 for a rig. */
static void test_add_rules(void **state)
{
	(void)state;
	struct pkg p = { 0 };
	base(&p.file, 0);
	open_view(&p);
	assert_int_equal(add(&p, "ac_idle_sit_hack_x.clip", "sims3-clip", "C", 1), 0);
	assert_int_equal(p.q.e[3].type, 0x6B20C4F3u);
	assert_true(af_dbpf_instance(&p.q.e[3]) == 0xBC78ECD3046CB427ull);
	af_dbpf_close(&p.q);
	assert_int_equal(add(&p, "myRig.rig", "sims3-rig", "R", 1), 0);
	assert_true(af_dbpf_instance(&p.q.e[3]) == af_fnv1_64_lower("myrig", 5));
	done(&p);
}

static void refused(const char *name, const char *codec, const char *msg)
{
	struct pkg p = { 0 };
	base(&p.file, 0x2);
	open_view(&p);
	assert_int_equal(add(&p, name, codec, "X", 1), AF_EINVAL);
	if (!strstr(p.d.msg, msg))
		fail_msg("%s: %s", name, p.d.msg);
	assert_int_equal(p.image.len, 0);
	done(&p);
}

static void test_add_refused(void **state)
{
	(void)state;
	refused("x.txt", "sims3-jazz", "ends in .jazz, .clip or .rig");
	refused(".hidden.jazz", "sims3-jazz", "cannot name a resource");
	refused("0x1111.jazz", "sims3-jazz", "cannot name a resource");
	refused("caf\xC3\xA9.jazz", "sims3-jazz", "cannot name a resource");
	refused(".jazz", "sims3-jazz", "ends in .jazz");
	refused("x.rig", "sims3-jazz", "a sims3-rig name, but the document is sims3-jazz");
	refused("S3_02D5DF13_00000000_0000000000001111.jazz", "sims3-jazz", "already holds");
	refused("S3_8EAF13DE_00000000_0000000000001111.jazz", "sims3-jazz", "another type");
}

/* Removing the Jazz: its record, its data and its _KEY entry go. */
static void test_remove(void **state)
{
	(void)state;
	struct pkg p = { 0 };
	base(&p.file, 0x2);
	open_view(&p);
	assert_int_equal(p.v.nitems, 1);
	assert_int_equal(af_pkgview_remove(&p.v, &p.v.items[0], &p.image, &p.d), 0);
	assert_int_equal(af_dbpf_open(&p.q, p.image.data, p.image.len, &p.d), 0);
	assert_int_equal(p.q.count, 2);
	kept(&p, 2, 1);
	body_is(&p.q, 0, "\1\0\0\0\0\0\0\0", 8);
	assert_int_equal(p.image.len, 96 + 8 + sizeof(stbl_body) + 4 + 4 + 2 * 28);
	done(&p);
}

/* Another record of that instance keeps the name: the _KEY stays as it is. */
static void test_remove_shared_name(void **state)
{
	(void)state;
	struct pkg p = { 0 };
	static const uint64_t k[1] = { 0x1111 };
	static const char *const t[1] = { "old" };
	size_t kn = keymap(key_body, k, t, 1);
	struct rec r[3] = {
		{ KEY, 0, 0, key_body, kn },
		{ JAZZ, 0, 0x1111, jazz_body, sizeof(jazz_body) },
		{ STBL, 0, 0x1111, stbl_body, sizeof(stbl_body) },
	};
	make(&p.file, 0, r, 3);
	open_view(&p);
	assert_int_equal(af_pkgview_remove(&p.v, &p.v.items[0], &p.image, &p.d), 0);
	assert_int_equal(af_dbpf_open(&p.q, p.image.data, p.image.len, &p.d), 0);
	assert_int_equal(p.q.count, 2);
	kept(&p, 0, 0);
	kept(&p, 2, 1);
	done(&p);
}

/* Add, then remove what was added: the rebuild of the original, byte for byte. */
static void test_add_then_remove(void **state)
{
	(void)state;
	struct pkg p = { 0 };
	struct af_pkgview w;
	struct af_buf again = AF_BUF_INIT, orig = AF_BUF_INIT;
	base(&p.file, 0x2);
	open_view(&p);
	assert_int_equal(af_dbpf_rebuild(&p.v.pkg, NULL, 0, &orig, &p.d), 0);
	assert_int_equal(add(&p, "new.jazz", "sims3-jazz", "NEW", 3), 0);
	assert_int_equal(af_pkgview_open(&w, p.image.data, p.image.len, NULL, &p.d), 0);
	const struct af_pkg_item *it = af_pkgview_find(&w, "new.jazz");
	assert_non_null(it);
	assert_int_equal(af_pkgview_remove(&w, it, &again, &p.d), 0);
	assert_int_equal(again.len, orig.len);
	assert_memory_equal(again.data, orig.data, orig.len);
	af_pkgview_close(&w);
	af_buf_free(&again);
	af_buf_free(&orig);
	done(&p);
}

extern const struct af_container af_container_sims3_package;

/* Through the table (af_member_add, af_member_remove): the codec is the extension's and
 * the document's format must agree (line:col); a name the package holds is refused; a
 * Jazz encoded from the example is added and removed again. */
static void test_table(void **state)
{
	(void)state;
	struct af_buf file = AF_BUF_INIT, yaml = AF_BUF_INIT, img = AF_BUF_INIT, back = AF_BUF_INIT;
	struct af_archive a, w;
	struct af_diag d;
	af_diag_init(&d);
	if (af_read_file_at(AT_FDCWD, ANIMFS_SOURCE_DIR "/examples/wave_hello.jazz.yaml", 1 << 20, &yaml, &d))
		fail_msg("%s", d.msg);
	/* the package of base(), its Jazz a real one (the content check runs here) */
	struct af_buf jazz = AF_BUF_INIT;
	assert_int_equal(af_codec_by_name("sims3-jazz")->from_yaml(yaml.data, yaml.len, NULL, &jazz, &d), 0);
	static const uint64_t k0[1] = { 0x1111 };
	static const char *const t0[1] = { "old" };
	size_t kn = keymap(key_body, k0, t0, 1);
	struct rec r[3] = {
		{ KEY, 0, 0, key_body, kn },
		{ JAZZ, 0, 0x1111, (const char *)jazz.data, jazz.len },
		{ STBL, 0, 0x2222, stbl_body, sizeof(stbl_body) },
	};
	make(&file, 0x2, r, 3);
	assert_int_equal(af_archive_open(&a, &af_container_sims3_package, file.data, file.len, &d), 0);
	assert_int_equal(a.n, 1);
	assert_int_equal(af_member_add(&a, "x.rig", yaml.data, yaml.len, &img, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "format sims3-jazz, but the extension of x.rig is sims3-rig's"));
	assert_int_equal(d.line, 4);
	af_diag_clear(&d);
	assert_int_equal(af_member_add(&a, a.m[0].name, yaml.data, yaml.len, &img, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "already holds it"));
	af_diag_clear(&d);
	assert_int_equal(af_member_add(&a, "hello.jazz", yaml.data, yaml.len, &img, &d), 0);
	assert_int_equal(af_archive_open(&w, a.c, img.data, img.len, &d), 0);
	long k = af_archive_find(&w, "hello.jazz");
	assert_true(k >= 0);
	assert_int_equal(af_member_yaml(&w, (size_t)k, &back, &d), 0);
	af_buf_putc(&back, 0);
	assert_non_null(strstr((char *)back.data, "\nformat: sims3-jazz\n"));
	assert_non_null(strstr((char *)back.data, "  - name: Enter\n"));
	assert_int_equal(af_member_remove(&w, (size_t)k, &back, &d), 0);
	assert_int_equal(back.len, file.len); /* the original, byte for byte */
	assert_memory_equal(back.data, file.data, file.len);
	af_archive_close(&w);
	af_archive_close(&a);
	af_buf_free(&jazz);
	af_buf_free(&file);
	af_buf_free(&yaml);
	af_buf_free(&img);
	af_buf_free(&back);
	af_diag_free(&d);
}

/* Names from _KEY maps and repeated keys, as open works them out once (issue 28: by
 * sorted tables and name indexes, no walk per member): a name from the first map that
 * gives one, another map's "mods\\x.tigerjazz" by its stem, the same key twice (the
 * second by its ~index s3pe name), no name (the s3pe name); the _KEY siblings a codec
 * lists and reads, a repeated _KEY as ~index; index.yaml's name of each record. */
static int collect(void *ctx, const char *name)
{
	struct af_buf *b = ctx;
	af_buf_puts(b, name);
	af_buf_putc(b, '\n');
	return 0;
}

static void test_names_and_keys(void **state)
{
	(void)state;
	char k0[64], k1[64], k2[64];
	uint64_t a = af_fnv1_64_lower("a", 1), b = af_fnv1_64_lower("b", 1);
	const uint64_t ka[1] = { a }, kb[1] = { b };
	const char *const ta[1] = { "a" }, *const tb[1] = { "mods\\b.tigerjazz" }, *const tz[1] = { "zzz" };
	size_t n0 = keymap(k0, ka, ta, 1), n1 = keymap(k1, kb, tb, 1), n2 = keymap(k2, ka, tz, 1);
	struct rec r[7] = {
		{ KEY, 0, 0, k0, n0 }, { KEY, 0, 0, k1, n1 }, { KEY, 1, 0, k2, n2 },
		{ JAZZ, 0, a, jazz_body, sizeof(jazz_body) }, { JAZZ, 0, a, jazz_body, sizeof(jazz_body) },
		{ JAZZ, 0, b, jazz_body, sizeof(jazz_body) }, { JAZZ, 0, 0x9999, jazz_body, sizeof(jazz_body) },
	};
	struct pkg p = { 0 };
	struct af_buf list = AF_BUF_INIT, got = AF_BUF_INIT, idx = AF_BUF_INIT;
	struct af_io io;
	char want[128];
	make(&p.file, 0, r, 7);
	open_view(&p);
	assert_int_equal(p.v.nitems, 4);
	assert_string_equal(p.v.items[0].name, "a.jazz");
	snprintf(want, sizeof(want), "S3_02D5DF13_00000000_%016llX~4.jazz", (unsigned long long)a);
	assert_string_equal(p.v.items[1].name, want);
	assert_string_equal(p.v.items[1].s3pe, want);
	assert_string_equal(p.v.items[2].name, "b.jazz");
	assert_string_equal(p.v.items[3].name, "S3_02D5DF13_00000000_0000000000009999.jazz");
	assert_ptr_equal(af_pkgview_find(&p.v, "a.jazz"), &p.v.items[0]);
	snprintf(want, sizeof(want), "S3_02D5DF13_00000000_%016llX.jazz", (unsigned long long)a);
	assert_ptr_equal(af_pkgview_find(&p.v, want), &p.v.items[0]); /* by its s3pe name */
	assert_null(af_pkgview_find(&p.v, "zzz.jazz"));
	af_container_sims3_package.member_io(&p.v, 0, &io);
	io.list_siblings(io.ctx, collect, &list);
	af_buf_putc(&list, 0);
	assert_string_equal((char *)list.data, "S3_0166038C_00000000_0000000000000000.keyname\n"
					       "S3_0166038C_00000000_0000000000000000~1.keyname\n"
					       "S3_0166038C_00000001_0000000000000000.keyname\n");
	assert_int_equal(io.read_sibling(io.ctx, "S3_0166038C_00000000_0000000000000000~1.keyname", &got), 0);
	assert_int_equal(got.len, n1);
	assert_memory_equal(got.data, k1, n1);
	assert_int_not_equal(io.read_sibling(io.ctx, "S3_0166038C_00000000_0000000000000000~2.keyname", &got), 0);
	assert_int_equal(af_pkgview_index_yaml(&p.v, "t.package", &idx), 0);
	af_buf_putc(&idx, 0);
	assert_non_null(strstr((char *)idx.data, ", name: a.jazz}\n"));
	assert_non_null(strstr((char *)idx.data, ", name: b.jazz}\n"));
	assert_non_null(strstr((char *)idx.data, "~4.jazz\"}\n"));
	af_buf_free(&list);
	af_buf_free(&got);
	af_buf_free(&idx);
	done(&p);
}

int main(void)
{
	setenv("ANIMFS_NAMES", "", 1); /* an add learns names: never into the user's dictionary */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_named),
		cmocka_unit_test(test_add_new_keymap),
		cmocka_unit_test(test_add_s3pe_key),
		cmocka_unit_test(test_add_rules),
		cmocka_unit_test(test_add_refused),
		cmocka_unit_test(test_remove),
		cmocka_unit_test(test_remove_shared_name),
		cmocka_unit_test(test_add_then_remove),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_names_and_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
