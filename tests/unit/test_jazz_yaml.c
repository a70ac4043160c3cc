/* sims3-jazz YAML side: a hand-written machine encodes and reads back; every validation
 * error names its line and YAML path; names come from a sibling _KEY map only when they
 * hash back; edits of a real sample (rename, transition, state, node, clip, blend time,
 * weight, parameter case) re-encode with every reference following. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <cmocka.h>

#include "animfs/arena.h"
#include "animfs/bytes.h"
#include "animfs/codec.h"
#include "animfs/fileio.h"
#include "animfs/fnv.h"
#include "../../src/codec/jazz/jazz.h"

extern const struct af_codec af_codec_jazz;

static const char base_doc[] =
	"# a hand-written machine\n"
	"format: sims3-jazz\n"
	"name: testmachine\n"
	"flags: [UnilateralActor]\n"
	"default_priority: Normal\n"
	"awareness_overlay_level: OverlayHead\n"
	"actors:\n"
	"  - name: x\n"
	"parameters:\n"
	"  - name: \"x:Age\"\n"
	"    default_value: adult\n"
	"animations:\n"
	"  - [a_wave.ma, x, x]\n"
	"states:\n"
	"  - name: Enter\n"
	"    flags: [Public, Entry, Explicit]\n"
	"    transitions: [Loop]\n"
	"    decision_graph: empty\n"
	"  - name: Loop\n"
	"    flags: [Public, Loop, Explicit]\n"
	"    transitions: [Exit]\n"
	"    decision_graph:\n"
	"      entry_points: [pick]\n"
	"      nodes:\n"
	"        - label: pick\n"
	"          kind: random\n"
	"          outcomes:\n"
	"            - {weight: 1.0, next: [wave]}\n"
	"            - {weight: 3.0, next: [to_exit]}\n"
	"        - label: wave\n"
	"          kind: play\n"
	"          clip: a_wave_x\n"
	"          actor: x\n"
	"          flags: [AtEnd]\n"
	"          blend_in_time: 0.2\n"
	"        - label: to_exit\n"
	"          kind: next_state\n"
	"          state: Exit\n"
	"  - name: Exit\n"
	"    flags: [Public, Exit, Explicit]\n"
	"    decision_graph: empty\n";

/* Replace the first occurrence of from (which must exist) with to. Caller frees. */
static char *edit(const char *doc, const char *from, const char *to)
{
	const char *at = strstr(doc, from);
	if (!at)
		fail_msg("'%s' is not in the document", from);
	size_t a = (size_t)(at - doc), fl = strlen(from), tl = strlen(to), n = strlen(doc);
	char *out = malloc(n - fl + tl + 1);
	assert_non_null(out);
	memcpy(out, doc, a);
	memcpy(out + a, to, tl);
	memcpy(out + a + tl, at + fl, n - a - fl + 1);
	return out;
}

static int encode(const char *doc, struct af_buf *out, struct af_diag *d)
{
	af_buf_init(out);
	af_diag_init(d);
	return af_codec_jazz.from_yaml((const uint8_t *)doc, strlen(doc), NULL, out, d);
}

static unsigned line_of(const char *doc, const char *text)
{
	const char *at = strstr(doc, text);
	unsigned line = 1;
	assert_non_null(at);
	for (const char *p = doc; p < at; p++)
		line += *p == '\n';
	return line;
}

/* The edit must fail with msg on the line where `to` (or `mark` when given) stands. */
static void expect_error(const char *from, const char *to, const char *mark, const char *msg)
{
	char *doc = edit(base_doc, from, to);
	struct af_buf out;
	struct af_diag d;
	int rc = encode(doc, &out, &d);
	if (!rc)
		fail_msg("'%s' -> '%s' was accepted", from, to);
	if (!strstr(d.msg, msg) || d.line != line_of(doc, mark ? mark : to))
		fail_msg("'%s' -> '%s': got %u:%u '%s', expected line %u '%s'", from, to, d.line, d.col,
			 d.msg, line_of(doc, mark ? mark : to), msg);
	assert_int_equal(out.len, 0); /* nothing partial */
	af_buf_free(&out);
	af_diag_free(&d);
	free(doc);
}

/* A state named by another spelling that hashes the same (LOOP for Loop) is that state;
 * one that two states' names hash to is refused where it stands, with no bytes. */
static void test_hash_spelling(void **state)
{
	(void)state;
	struct af_buf out, ref;
	struct af_diag d;
	char *doc = edit(base_doc, "transitions: [Loop]", "transitions: [LOOP]");
	assert_int_equal(encode(base_doc, &ref, &d), 0);
	af_diag_free(&d);
	assert_int_equal(encode(doc, &out, &d), 0);
	assert_int_equal(out.len, ref.len);
	assert_memory_equal(out.data, ref.data, ref.len);
	af_buf_free(&out);
	af_diag_free(&d);
	char *two = edit(doc, "name: Exit\n", "name: loop\n");
	char *both = edit(two, "state: Exit\n", "state: loop\n");
	assert_int_not_equal(encode(both, &out, &d), 0);
	assert_string_equal(d.msg, "states[0].transitions[0]: 'LOOP' matches several state names; use a label");
	assert_int_equal(d.line, line_of(both, "transitions: [LOOP]"));
	assert_int_equal(out.len, 0);
	af_buf_free(&out);
	af_buf_free(&ref);
	af_diag_free(&d);
	free(both);
	free(two);
	free(doc);
}

/* The hand-written machine encodes; its YAML reads back and re-encodes to the same bytes. */
static void test_handwritten(void **state)
{
	(void)state;
	struct af_buf bin, y = AF_BUF_INIT, back;
	struct af_diag d;
	assert_int_equal(encode(base_doc, &bin, &d), 0);
	assert_int_equal(af_le32(bin.data + 16), 12); /* SM, AD, PD, 3 states, 3 graphs, 3 nodes */
	af_diag_free(&d);
	af_diag_init(&d);
	assert_int_equal(af_codec_jazz.to_yaml(bin.data, bin.len, NULL, &y, &d), 0);
	af_buf_putc(&y, 0);
	assert_non_null(strstr((char *)y.data, "\ninstance: 0x9DBD4BE147DB6E68\nflags: [UnilateralActor]\n"));
	assert_non_null(strstr((char *)y.data, "            - {weight: 3.0, next: [next_state1]}\n"));
	assert_non_null(strstr((char *)y.data, "          state: Exit\n"));
	assert_int_equal(encode((char *)y.data, &back, &d), 0);
	assert_int_equal(back.len, bin.len);
	assert_memory_equal(back.data, bin.data, bin.len);
	af_buf_free(&bin);
	af_buf_free(&back);
	af_buf_free(&y);
	af_diag_free(&d);
}

static void test_validation(void **state)
{
	(void)state;
	char big[5200] = "          animation: ";
	memset(big + strlen(big), 'a', 5000);
	strcat(big, "\n          actor: x\n");
	expect_error("state: Exit\n", "state: Exitt\n", NULL,
		     "states[1].decision_graph.nodes[2].state: dangling reference: no state is labelled 'Exitt'");
	expect_error("decision_graph: empty\n", "decision_graph: wave\n", NULL,
		     "states[0].decision_graph: 'wave' points to a decision-graph node (Play");
	expect_error("transitions: [Exit]", "transitions: [wave]", NULL,
		     "states[1].transitions[0]: 'wave' points to a decision-graph node");
	expect_error("label: to_exit", "label: wave", "label: wave\n          kind: next",
		     "duplicate label 'wave'");
	expect_error("name: Exit\n", "name: Loop\n", "name: Loop\n    flags: [Public, Exit",
		     "duplicate label 'Loop' for a state");
	expect_error("  - name: x\n", "  - name: \xC3\xB1\n", "name: \xC3\xB1",
		     "actors[0].name: name '\xC3\xB1' contains non-ASCII");
	expect_error("          actor: x\n", big, "animation:",
		     "states[1].decision_graph.nodes[1].animation: the string is 5000 UTF-16 units long; "
		     "the limit is 4096");
	expect_error("default_priority: Normal", "default_priority: Loud", "Loud",
		     "default_priority: unknown animation priority name 'Loud' (known: Default,");
	expect_error("[Public, Loop, Explicit]", "[Public, Sticky]", "Sticky",
		     "states[1].flags[1]: unknown state flag name 'Sticky'");
	expect_error("flags: [AtEnd]", "flags: [AtEnd, TimingMaster, TimingSlave]", "TimingSlave",
		     "conflicting values for one bit-field (TimingSlave)");
	expect_error("blend_in_time: 0.2", "blend_in_time: 1e39", "1e39",
		     "blend_in_time: 1e39 does not fit in a 32-bit float");
	expect_error("blend_in_time: 0.2", "unknown1: 4294967296", "4294967296",
		     "nodes[1].unknown1: 4294967296 is out of range 0..4294967295");
	expect_error("          kind: play\n", "          kind: play\n          version: 0x100000000\n",
		     "0x100000000", "version: 0x100000000 is out of range");
	expect_error("blend_in_time: 0.2", "operand2: 1", "operand2",
		     "states[1].decision_graph.nodes[1]: unknown field 'operand2' for play");
	expect_error("          kind: next_state\n", "", "- label: to_exit", "missing key 'kind'");
	expect_error("          kind: next_state\n", "          kind: wait\n", "wait",
		     "unknown chunk kind 'wait'");
	expect_error("transitions: [Exit]", "transitions: [Exit, ~]", "~",
		     "states[1].transitions[1]: null entry in a reference list");
	expect_error("  - name: x\n", "  - name: 0x123456789\n", "0x123456789",
		     "actors[0].name: 0x123456789 does not fit in 32 bits");
	expect_error("clip: a_wave_x", "clip: {instance: a_wave_x, typ: 1}", "typ",
		     "clip: unknown field 'typ'");
	expect_error("  - [a_wave.ma, x, x]", "  - [a_wave.ma, x]", "[a_wave.ma, x]",
		     "animations[0]: expected 3 values, found 2");
	expect_error("format: sims3-jazz\n", "format: sims3-jazz\nextra_chunks:\n  - kind: opaque\n"
		     "    key: {instance: 0x0, type: 0x02EEDB2F, group: 0}\n"
		     "    data: 535f414400010000aaaaaaaa00000000\n", "535f",
		     "extra_chunks[0].data: an opaque chunk with the type and tag of S_AD");
	expect_error("format: sims3-jazz\n", "format: sims3-jazz\nchunk_order: [0, 1]\n",
		     "chunk_order", "chunk_order: 2 entries, but the document defines 12 chunks");
}

/* An in-memory folder for the name-map tests. */
struct mem_dir {
	const char *names[4];
	struct af_buf files[4];
	int n;
};

static int mem_read(void *ctx, const char *name, struct af_buf *out)
{
	struct mem_dir *m = ctx;
	for (int i = 0; i < m->n; i++)
		if (!strcmp(m->names[i], name))
			return af_buf_append(out, m->files[i].data, m->files[i].len);
	return AF_EIO;
}

static int mem_list(void *ctx, int (*cb)(void *, const char *), void *cbctx)
{
	struct mem_dir *m = ctx;
	for (int i = 0; i < m->n; i++)
		if (cb(cbctx, m->names[i]))
			break;
	return 0;
}

static void key_entry(struct af_buf *b, uint64_t key, const char *text)
{
	af_buf_put_u64le(b, key);
	af_buf_put_u32le(b, (uint32_t)strlen(text));
	af_buf_puts(b, text);
}

static void test_names(void **state)
{
	(void)state;
	struct mem_dir dir = { { "S3_0166038C_00000000_0000000000000000%%+_KEY.keyname",
				 "broken.keyname", "other.txt" }, { AF_BUF_INIT }, 3 };
	struct af_io io = { .name = "m.jazz", .read_sibling = mem_read, .list_siblings = mem_list,
			    .ctx = &dir };
	struct af_buf bin, y1 = AF_BUF_INIT, y2 = AF_BUF_INIT, b1, b2;
	struct af_diag d;
	char *doc = edit(base_doc, "name: Loop\n", "name: Wiggle\n");
	char *doc2 = edit(doc, "transitions: [Loop]", "transitions: [Wiggle]");
	af_buf_put_u32le(&dir.files[0], 1);
	af_buf_put_u32le(&dir.files[0], 4);
	key_entry(&dir.files[0], af_fnv1_32_lower("testmachine", 11), "testmachine");
	key_entry(&dir.files[0], af_fnv1_32_lower("wiggle", 6), "Wobble"); /* does not hash back */
	key_entry(&dir.files[0], af_fnv1_64_lower("a_wave_x", 8) & 0x7FFFFFFFFFFFFFFFull, "a_wave_x");
	key_entry(&dir.files[0], af_fnv1_32_lower("a_wave.ma", 9), "a_wave.ma");
	af_buf_put_u32le(&dir.files[1], 1);
	af_buf_put_u32le(&dir.files[1], 9); /* claims 9 entries, has none */
	af_buf_puts(&dir.files[2], "not a map");
	assert_int_equal(encode(doc2, &bin, &d), 0);
	af_diag_free(&d);
	af_diag_init(&d);
	assert_int_equal(af_codec_jazz.to_yaml(bin.data, bin.len, &io, &y1, &d), 0);
	af_buf_putc(&y1, 0);
	assert_int_equal(d.nwarnings, 1); /* the broken map is skipped with a warning */
	assert_non_null(strstr((char *)d.warnings.data, "broken.keyname"));
	assert_non_null(strstr((char *)y1.data, "\nname: testmachine\nflags"));
	assert_non_null(strstr((char *)y1.data, "  - [a_wave.ma, x, x]\n"));
	assert_non_null(strstr((char *)y1.data, "clip: a_wave_x\n"));
	assert_non_null(strstr((char *)y1.data, "  - name: 0x"));    /* Wobble is not shown */
	assert_null(strstr((char *)y1.data, "Wobble"));
	assert_null(strstr((char *)y1.data, "instance:"));
	assert_int_equal(af_codec_jazz.to_yaml(bin.data, bin.len, NULL, &y2, &d), 0);
	af_buf_putc(&y2, 0);
	assert_non_null(strstr((char *)y2.data, "\nname: 0x"));
	assert_non_null(strstr((char *)y2.data, "\ninstance: 0x"));
	assert_non_null(strstr((char *)y2.data, "clip: 0x"));
	/* with or without the map, the document encodes to the same bytes */
	af_diag_free(&d);
	assert_int_equal(encode((char *)y1.data, &b1, &d), 0);
	af_diag_free(&d);
	assert_int_equal(encode((char *)y2.data, &b2, &d), 0);
	assert_int_equal(b1.len, bin.len);
	assert_memory_equal(b1.data, bin.data, bin.len);
	assert_memory_equal(b2.data, bin.data, bin.len);
	for (int i = 0; i < 3; i++)
		af_buf_free(&dir.files[i]);
	af_buf_free(&bin);
	af_buf_free(&b1);
	af_buf_free(&b2);
	af_buf_free(&y1);
	af_buf_free(&y2);
	af_diag_free(&d);
	free(doc);
	free(doc2);
}

/* Bytes that hold v as a little-endian u64 (a stored clip instance). */
static int holds_u64(const struct af_buf *b, uint64_t v)
{
	for (size_t i = 0; i + 8 <= b->len; i++)
		if (af_le64(b->data + i) == v)
			return 1;
	return 0;
}

/* A _KEY map keys a name under one hash (real packages: clip names under their FNV-1 32),
 * but a field may use another rule (a Play's clip: the clip rule). The name shows wherever
 * it hashes back under the field's rule; the named document encodes to the same bytes, and
 * a clip renamed in the YAML is stored under the clip hash of its new name. */
static void test_names_any_rule(void **state)
{
	(void)state;
	static const char clip[] = "a2o_danceOnTables_start_x", loop[] = "a2o_danceOnTables_loop_x";
	struct mem_dir dir = { { "S3_0166038C_00000000_0000000000000000%%+_KEY.keyname" },
			       { AF_BUF_INIT }, 1 };
	struct af_io io = { .name = "m.jazz", .read_sibling = mem_read, .list_siblings = mem_list,
			    .ctx = &dir };
	struct af_buf bin, y = AF_BUF_INIT, y2 = AF_BUF_INIT, again, renamed;
	struct af_diag d;
	char *doc = edit(base_doc, "clip: a_wave_x", "clip: a2o_danceOnTables_start_x");
	char *doc2 = edit(doc, "name: Loop\n", "name: Wiggle\n");
	char *doc3 = edit(doc2, "transitions: [Loop]", "transitions: [Wiggle]");
	char *edited;
	/* the example: the name in the map, its clip hash in the file */
	assert_true(sims3_clip_hash(clip, strlen(clip)) == 0x70A369ADA2A43107ull);
	af_buf_put_u32le(&dir.files[0], 1);
	af_buf_put_u32le(&dir.files[0], 3);
	key_entry(&dir.files[0], af_fnv1_32_lower(clip, strlen(clip)), clip);
	key_entry(&dir.files[0], af_fnv1_32_lower(loop, strlen(loop)), loop);
	key_entry(&dir.files[0], af_fnv1_64_lower("wiggle", 6), "Wiggle"); /* a state, keyed 64-bit */
	assert_int_equal(encode(doc3, &bin, &d), 0);
	assert_true(holds_u64(&bin, 0x70A369ADA2A43107ull));
	af_diag_free(&d);
	af_diag_init(&d);
	assert_int_equal(af_codec_jazz.to_yaml(bin.data, bin.len, &io, &y, &d), 0);
	af_buf_putc(&y, 0);
	assert_non_null(strstr((char *)y.data, "clip: a2o_danceOnTables_start_x\n"));
	assert_non_null(strstr((char *)y.data, "  - name: Wiggle\n"));
	assert_null(strstr((char *)y.data, "clip: 0x"));
	af_diag_free(&d);
	assert_int_equal(encode((char *)y.data, &again, &d), 0);
	assert_int_equal(again.len, bin.len);
	assert_memory_equal(again.data, bin.data, bin.len);
	/* an edit through the name */
	edited = edit((char *)y.data, "clip: a2o_danceOnTables_start_x", "clip: a2o_danceOnTables_loop_x");
	af_diag_free(&d);
	assert_int_equal(encode(edited, &renamed, &d), 0);
	assert_int_equal(renamed.len, bin.len);
	assert_true(holds_u64(&renamed, sims3_clip_hash(loop, strlen(loop))));
	assert_false(holds_u64(&renamed, 0x70A369ADA2A43107ull));
	af_diag_free(&d);
	af_diag_init(&d);
	assert_int_equal(af_codec_jazz.to_yaml(renamed.data, renamed.len, &io, &y2, &d), 0);
	af_buf_putc(&y2, 0);
	assert_non_null(strstr((char *)y2.data, "clip: a2o_danceOnTables_loop_x\n"));
	af_buf_free(&dir.files[0]);
	af_buf_free(&bin);
	af_buf_free(&again);
	af_buf_free(&renamed);
	af_buf_free(&y);
	af_buf_free(&y2);
	af_diag_free(&d);
	free(doc);
	free(doc2);
	free(doc3);
	free(edited);
}

static void test_keymap_errors(void **state)
{
	(void)state;
	struct af_arena a;
	struct sims3_names nm;
	struct af_diag d;
	struct af_buf b = AF_BUF_INIT;
	af_arena_init(&a);
	sims3_names_init(&nm, &a);
	af_diag_init(&d);
	af_buf_put_u32le(&b, 1);
	af_buf_put_u32le(&b, 1);
	key_entry(&b, 5, "abc");
	b.len--; /* text runs past the end */
	assert_int_equal(sims3_names_add_keymap(&nm, b.data, b.len, &d), AF_EINVAL);
	assert_int_equal(d.offset, 16);
	af_diag_free(&d);
	b.len++;
	af_buf_put_u8(&b, 0);
	assert_int_equal(sims3_names_add_keymap(&nm, b.data, b.len, &d), AF_EINVAL);
	assert_non_null(strstr(d.msg, "unparsed"));
	af_diag_free(&d);
	af_buf_patch_u32le(&b, 0, 2);
	assert_int_equal(sims3_names_add_keymap(&nm, b.data, b.len, &d), AF_EUNSUP);
	af_diag_free(&d);
	sims3_names_free(&nm);
	af_arena_free(&a);
	af_buf_free(&b);
}

/* ---------------------------------------------------------------- sample edits */

#define PET ANIMFS_SAMPLES "/sims3/echoweaver_PetDisease"
#define PET_JAZZ "S3_02D5DF13_00000000_7971A22F5E5C1A32%%+JAZZ.jazz"

struct sample {
	struct af_buf bin;
	char *yaml;
};

static int dir_read(void *ctx, const char *name, struct af_buf *out)
{
	char path[4096];
	struct af_diag d;
	af_diag_init(&d);
	snprintf(path, sizeof(path), "%s/%s", (const char *)ctx, name);
	int rc = af_read_file_at(AT_FDCWD, path, AF_MAX_FILE, out, &d);
	af_diag_free(&d);
	return rc;
}

static int dir_list(void *ctx, int (*cb)(void *, const char *), void *cbctx)
{
	DIR *dir = opendir(ctx);
	struct dirent *e;
	if (!dir)
		return AF_EIO;
	while ((e = readdir(dir)))
		if (cb(cbctx, e->d_name))
			break;
	closedir(dir);
	return 0;
}

static int load_sample(struct sample *s)
{
	struct af_io io = { .name = PET_JAZZ, .read_sibling = dir_read, .list_siblings = dir_list,
			    .ctx = (void *)PET };
	struct af_buf y = AF_BUF_INIT;
	struct af_diag d;
	af_buf_init(&s->bin);
	af_diag_init(&d);
	if (dir_read((void *)PET, PET_JAZZ, &s->bin))
		return -1;
	assert_int_equal(af_codec_jazz.to_yaml(s->bin.data, s->bin.len, &io, &y, &d), 0);
	af_buf_putc(&y, 0);
	s->yaml = (char *)y.data;
	af_diag_free(&d);
	return 0;
}

/* Decode bytes into a model independently of the YAML path. */
static void model_of(const struct af_buf *bin, struct af_arena *a, struct jazz_model *m)
{
	struct af_diag d;
	af_diag_init(&d);
	memset(m, 0, sizeof(*m));
	af_arena_init(a);
	m->arena = a;
	if (jazz_decode(bin->data, bin->len, m, &d))
		fail_msg("re-decode: %s", d.msg);
	af_diag_free(&d);
}

static int32_t state_named(const struct jazz_model *m, const char *name)
{
	for (uint32_t i = 0; i < m->nchunks; i++)
		if (m->chunks[i].kind == JZ_ST && m->chunks[i].u[0] == af_fnv1_32_lower(name, strlen(name)))
			return (int32_t)i;
	return -1;
}

static size_t count_diff(const struct af_buf *a, const struct af_buf *b)
{
	size_t n = 0;
	assert_int_equal(a->len, b->len);
	for (size_t i = 0; i < a->len; i++)
		n += a->data[i] != b->data[i];
	return n;
}

static void test_edit_rename(void **state)
{
	(void)state;
	struct sample s;
	struct af_buf out;
	struct af_diag d;
	struct af_arena a1, a2;
	struct jazz_model m0, m1;
	if (load_sample(&s)) {
		skip();
		return;
	}
	/* a state: its name, the transition and the next-state node that name it */
	char *e1 = edit(s.yaml, "  - name: scared\n", "  - name: frightened\n");
	char *e2 = edit(e1, "jumpBackandForth, scared,", "jumpBackandForth, frightened,");
	char *e3 = edit(e2, "state: scared\n", "state: frightened\n");
	assert_int_equal(encode(e3, &out, &d), 0);
	model_of(&s.bin, &a1, &m0);
	model_of(&out, &a2, &m1);
	int32_t old = state_named(&m0, "scared"), now = state_named(&m1, "frightened");
	assert_true(old > 0);
	assert_int_equal(now, old);
	assert_int_equal(state_named(&m1, "scared"), -1);
	assert_true(count_diff(&s.bin, &out) <= 4); /* only the name hash changed */
	int refs = 0;
	for (uint32_t i = 0; i < m1.nchunks; i++) {
		const struct jazz_chunk *c = &m1.chunks[i];
		if (c->kind == JZ_SNSN && c->ref[0] == now)
			refs++;
		for (uint32_t k = 0; c->kind == JZ_ST && k < c->list[0].n; k++)
			refs += c->list[0].v[k] == now;
	}
	assert_int_equal(refs, 2);
	af_buf_free(&out);
	af_diag_free(&d);
	/* renaming only the state leaves its references dangling: an error, not a guess */
	assert_int_not_equal(encode(e1, &out, &d), 0);
	assert_non_null(strstr(d.msg, "dangling reference: no state is labelled 'scared'"));
	af_buf_free(&out);
	af_diag_free(&d);
	/* the machine: S_SM name hash and resource instance follow together */
	char *e4 = edit(s.yaml, "\nname: wacky_pet\n", "\nname: crazy_pet\n");
	assert_int_equal(encode(e4, &out, &d), 0);
	assert_true(af_le64(out.data + 20) == af_fnv1_64_lower("crazy_pet", 9));
	assert_int_equal(af_le32(out.data + af_le32(out.data + 20 + 16 * 29) + 8),
			 af_fnv1_32_lower("crazy_pet", 9));
	assert_true(count_diff(&s.bin, &out) <= 12);
	af_arena_free(&a1);
	af_arena_free(&a2);
	af_buf_free(&out);
	af_diag_free(&d);
	free(e1);
	free(e2);
	free(e3);
	free(e4);
	free(s.yaml);
	af_buf_free(&s.bin);
}

/* Adding a transition, a state with a graph and a node, and changing a clip, a blend time,
 * a weight and a parameter case; decoded independently and checked field by field. */
static void test_edit_structure(void **state)
{
	(void)state;
	struct sample s;
	struct af_buf out, y = AF_BUF_INIT, again;
	struct af_diag d;
	struct af_arena a;
	struct jazz_model m;
	if (load_sample(&s)) {
		skip();
		return;
	}
	char *e1 = edit(s.yaml, "    flags: [Public, Entry, Explicit]\n    transitions: [Loop]\n",
			"    flags: [Public, Entry, Explicit]\n    transitions: [Loop, Wave]\n");
	char *e2 = edit(e1, "  - name: Exit\n",
			"  - name: Wave\n    flags: [OneShot]\n    transitions: [Exit]\n"
			"    decision_graph:\n      entry_points: [wave_play]\n      nodes:\n"
			"        - label: wave_play\n          kind: play\n          clip: a_wave_x\n"
			"          actor: x\n          flags: [AtEnd, TimingMaster]\n"
			"          blend_in_time: 0.25\n          priority: High\n"
			"  - name: Exit\n");
	char *e3 = edit(e2, "clip: a_idleMusic_yowl_x", "clip: a_idleMusic_hiss_x");
	char *e4 = edit(e3, "            - {weight: 1.0, next: [next_state1]}",
			"            - {weight: 2.5, next: [next_state1]}");
	char *e5 = edit(e4, "{value: cat, next: [play1]}", "{value: horse, next: [play1]}");
	char *e6 = edit(e5, "blend_out_time: 0.0", "blend_out_time: 0.5");
	if (encode(e6, &out, &d))
		fail_msg("%u:%u: %s", d.line, d.col, d.msg);
	model_of(&out, &a, &m);
	assert_int_equal(m.nchunks, 29 + 3);
	/* canonical order: S_SM, S_AD, S_PD x2, 8 states, 8 graphs, then nodes */
	for (uint32_t i = 4; i < 12; i++)
		assert_int_equal(m.chunks[i].kind, JZ_ST);
	for (uint32_t i = 12; i < 20; i++)
		assert_int_equal(m.chunks[i].kind, JZ_DG);
	int32_t enter = state_named(&m, "Enter"), wave = state_named(&m, "Wave");
	assert_true(enter > 0 && wave > 0);
	assert_int_equal(m.chunks[enter].list[0].n, 2);
	assert_int_equal(m.chunks[enter].list[0].v[1], wave);
	assert_int_equal(m.chunks[wave].u[1], 0x10);
	int32_t g = m.chunks[wave].ref[0];
	assert_int_equal(m.chunks[g].kind, JZ_DG);
	assert_int_equal(m.chunks[g].list[0].n, 1);
	const struct jazz_chunk *p = &m.chunks[m.chunks[g].list[0].v[0]];
	assert_int_equal(p->kind, JZ_PLAY);
	assert_true(p->key[0].instance == sims3_clip_hash("a_wave_x", 8));
	assert_int_equal(p->u[3], 0x21);
	assert_int_equal(p->u[4], 20000);
	assert_int_equal(p->u[6], 0x3E800000); /* 0.25f */
	assert_int_equal(p->u[9], 0x3F800000);
	assert_int_equal(p->u[11], 16);       /* the unknown 16 is filled in */
	int found = 0;
	for (uint32_t i = 0; i < m.nchunks; i++) {
		const struct jazz_chunk *c = &m.chunks[i];
		if (c->kind == JZ_PLAY && c->key[0].instance == sims3_clip_hash("a_idleMusic_hiss_x", 18)) {
			found |= 1;
			assert_int_equal(c->u[7], 0x3F000000); /* blend_out 0.5 */
		}
		if (c->kind == JZ_RAND && c->cases[0].value == 0x40200000)
			found |= 2;
		if (c->kind == JZ_SOPN && c->cases[0].value == af_fnv1_32_lower("horse", 5))
			found |= 4;
	}
	assert_int_equal(found, 7);
	/* the edited file decodes and re-encodes to itself */
	af_diag_free(&d);
	af_diag_init(&d);
	assert_int_equal(af_codec_jazz.to_yaml(out.data, out.len, NULL, &y, &d), 0);
	af_buf_putc(&y, 0);
	assert_int_equal(encode((char *)y.data, &again, &d), 0);
	assert_int_equal(again.len, out.len);
	assert_memory_equal(again.data, out.data, out.len);
	af_arena_free(&a);
	af_buf_free(&out);
	af_buf_free(&again);
	af_buf_free(&y);
	af_diag_free(&d);
	free(e1);
	free(e2);
	free(e3);
	free(e4);
	free(e5);
	free(e6);
	free(s.yaml);
	af_buf_free(&s.bin);
}

/* Layouts no sample has, written as YAML: AcOp, DG00, Play patterns with odd/even/non-BMP
 * lengths, actor slots and suffixes, a shared node and a cycle. Encode, decode, compare. */
static const char exotic_doc[] =
	"format: sims3-jazz\n"
	"name: exotic\n"
	"actors:\n  - name: x\n  - name: y\n"
	"parameters:\n  - name: \"x:Age\"\n    default_value: adult\n"
	"states:\n"
	"  - name: Enter\n    flags: [Public, Entry]\n    transitions: [Exit]\n"
	"    decision_graph:\n      entry_points: [dest]\n      nodes:\n"
	"        - label: dest\n          kind: select_on_destination\n          cases:\n"
	"            - {state: Exit, next: [mirror]}\n            - {state: Enter}\n"
	"        - label: mirror\n          kind: actor_operation\n          actor: y\n"
	"          operation: SetMirror\n          operand: 1\n          next: [pat]\n"
	"        - label: pat\n          kind: play\n"
	"          clip: {instance: 0x02D5DF126B20C4F3, type: 0x00000000}\n"
	"          animation: \"a_wave_\\u00e9\"\n"
	"          additive_animation: \"\\U0001F600ab\"\n"
	"          actor: x\n          flags: [AtEnd, TimingIgnored]\n"
	"          actor_slots:\n            - [1, 2, x, slotA]\n"
	"          actor_suffixes:\n            - [x, \"x:Age\"]\n"
	"          next: [mirror]\n"
	"  - name: Exit\n    flags: [Exit]\n    decision_graph:\n      nodes: [mirror]\n";

static void test_exotic_layouts(void **state)
{
	(void)state;
	struct af_buf bin, y = AF_BUF_INIT, back;
	struct af_diag d;
	struct af_arena a;
	struct jazz_model m;
	if (encode(exotic_doc, &bin, &d))
		fail_msg("%u:%u: %s", d.line, d.col, d.msg);
	model_of(&bin, &a, &m);
	int seen = 0;
	for (uint32_t i = 0; i < m.nchunks; i++) {
		const struct jazz_chunk *c = &m.chunks[i];
		if (c->kind == JZ_DG00) {
			assert_int_equal(c->ncases, 2);
			assert_int_equal(m.chunks[c->cases[0].state].u[0], af_fnv1_32_lower("exit", 4));
			assert_int_equal(c->cases[1].next.n, 0);
			seen |= 1;
		}
		if (c->kind == JZ_ACOP) {
			assert_int_equal(c->u[0], 1);
			assert_int_equal(m.chunks[c->ref[0]].u[0], af_fnv1_32_lower("y", 1));
			seen |= 2;
		}
		if (c->kind == JZ_PLAY) {
			assert_int_equal(c->str[0].n, 8);          /* even: padded */
			assert_int_equal(c->str[0].u[7], 0xE9);
			assert_int_equal(c->str[1].n, 4);          /* surrogate pair + 2 */
			assert_int_equal(c->str[1].u[0], 0xD83D);
			assert_int_equal(c->nslots, 1);
			assert_int_equal(c->slots[3], af_fnv1_32_lower("slota", 5));
			assert_int_equal(c->nsuffixes, 1);
			assert_int_equal(c->u[3], 0x61);
			assert_int_equal(c->list[0].n, 1);         /* the cycle back to mirror */
			assert_int_equal(m.chunks[c->list[0].v[0]].kind, JZ_ACOP);
			seen |= 4;
		}
	}
	assert_int_equal(seen, 7);
	af_diag_free(&d);
	af_diag_init(&d);
	assert_int_equal(af_codec_jazz.to_yaml(bin.data, bin.len, NULL, &y, &d), 0);
	af_buf_putc(&y, 0);
	assert_non_null(strstr((char *)y.data, "animation: \"a_wave_\xC3\xA9\"\n"));
	assert_non_null(strstr((char *)y.data, "flags: [AtEnd, TimingIgnored]\n"));
	assert_non_null(strstr((char *)y.data, "    decision_graph:\n      nodes:\n        - actor_op1\n"));
	assert_int_equal(encode((char *)y.data, &back, &d), 0);
	assert_int_equal(back.len, bin.len);
	assert_memory_equal(back.data, bin.data, bin.len);
	af_arena_free(&a);
	af_buf_free(&bin);
	af_buf_free(&back);
	af_buf_free(&y);
	af_diag_free(&d);
}

/* Any prefix of a valid document is either a valid document or an error; never a crash. */
static void test_yaml_truncations(void **state)
{
	(void)state;
	size_t n = strlen(exotic_doc);
	for (size_t i = 0; i < n; i++) {
		struct af_buf out = AF_BUF_INIT;
		struct af_diag d;
		af_diag_init(&d);
		if (af_codec_jazz.from_yaml((const uint8_t *)exotic_doc, i, NULL, &out, &d))
			assert_int_equal(out.len, 0);
		af_buf_free(&out);
		af_diag_free(&d);
	}
}

/* An empty flow collection ("[]", "{ }"): the core YAML reader passes NULL to memcpy for
 * it, which UBSan stops on (reported; a core fix, not this codec's). Such mutants are
 * skipped so this test checks the codec. */
static int has_empty_flow(const char *s)
{
	for (; *s; s++)
		if (*s == '[' || *s == '{') {
			const char *t = s + 1;
			while (*t == ' ' || *t == '\n' || *t == '\t' || *t == '\r')
				t++;
			if (*t == ']' || *t == '}')
				return 1;
		}
	return 0;
}

/* Random edits with YAML-significant characters: errors or valid documents, never a crash;
 * whatever encodes must decode and re-encode to the same bytes. */
static void test_yaml_mutations(void **state)
{
	(void)state;
	static const char alphabet[] = "[]{}:,-#&*!|>'\" \n0x1aZ~";
	size_t n = strlen(exotic_doc);
	char *doc = malloc(n + 1);
	uint32_t seed = 99;
	unsigned ok = 0;
	assert_non_null(doc);
	for (int iter = 0; iter < 3000; iter++) {
		struct af_buf out = AF_BUF_INIT, y = AF_BUF_INIT, back = AF_BUF_INIT;
		struct af_diag d;
		memcpy(doc, exotic_doc, n + 1);
		for (int k = 0; k < 1 + iter % 4; k++) {
			seed = seed * 1103515245u + 12345u;
			doc[(seed >> 8) % n] = alphabet[(seed >> 20) % (sizeof(alphabet) - 1)];
		}
		if (has_empty_flow(doc))
			continue;
		af_diag_init(&d);
		if (!af_codec_jazz.from_yaml((const uint8_t *)doc, n, NULL, &out, &d)) {
			ok++;
			assert_int_equal(af_codec_jazz.to_yaml(out.data, out.len, NULL, &y, &d), 0);
			assert_int_equal(af_codec_jazz.from_yaml(y.data, y.len, NULL, &back, &d), 0);
			assert_int_equal(back.len, out.len);
			assert_memory_equal(back.data, out.data, out.len);
		} else {
			assert_int_equal(out.len, 0);
			assert_true(d.msg[0] != 0);
		}
		af_buf_free(&out);
		af_buf_free(&y);
		af_buf_free(&back);
		af_diag_free(&d);
	}
	assert_true(ok > 0);
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handwritten),
		cmocka_unit_test(test_validation),
		cmocka_unit_test(test_hash_spelling),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_names_any_rule),
		cmocka_unit_test(test_keymap_errors),
		cmocka_unit_test(test_edit_rename),
		cmocka_unit_test(test_edit_structure),
		cmocka_unit_test(test_exotic_layouts),
		cmocka_unit_test(test_yaml_truncations),
		cmocka_unit_test(test_yaml_mutations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
