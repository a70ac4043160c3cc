/* The sims3-jazz codec descriptor: bid, and the two pipelines
 * bytes -> model -> YAML (with names from _KEY maps beside the file) and
 * YAML -> model -> bytes. The codec takes resource bytes, never a container. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "animfs/codec.h"
#include "animfs/yamlio.h"
#include "animfs/userdict.h"
#include "jazz.h"

/* Collect sibling _KEY maps in name order, so the first-wins rule is deterministic. */
struct sibs {
	char **names;
	size_t n, cap;
	int failed;
};

static int add_sib(void *ctx, const char *name)
{
	struct sibs *s = ctx;
	if (!jazz_is_keymap_name(name) || s->n >= 256)
		return 0;
	char **p = af_grow(s->names, &s->cap, s->n, sizeof(*p), 8);
	if (!p)
		return s->failed = 1;
	s->names = p;
	if (!(s->names[s->n] = strdup(name)))
		return s->failed = 1;
	s->n++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The user dictionary, after the name maps (spec 5.6): each line is a name, tried
 * under every hash rule (a lookup still prints it only when it hashes back). */
static void load_user_names(const struct af_io *io, struct jazz_names *nm)
{
	struct af_buf b = AF_BUF_INIT;
	if (!io->read_names || io->read_names(io->ctx, &b) || b.failed || !b.len)
		goto out;
	const char *p = (const char *)b.data, *end = p + b.len;
	for (size_t names = 0; p < end && names < AF_USERDICT_MAX_NAMES; names++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);
		for (int rule = JZ_H32; len && *p != '#' && rule <= JZ_HCLIP; rule++) {
			uint64_t h;
			if (!jazz_hash_name(p, len, rule, &h) && jazz_names_add(nm, h, p, len))
				goto out; /* out of memory: fewer names, nothing worse */
		}
		p = nl ? nl + 1 : end;
	}
out:
	af_buf_free(&b);
}

/* Name maps are a convenience: one that cannot be read or parsed is reported as a
 * warning and skipped, since the document re-encodes the same without it. */
static void load_names(const struct af_io *io, struct jazz_names *nm, struct af_diag *d)
{
	struct sibs s = { 0 };
	if (!io)
		return;
	if (io->list_siblings && io->read_sibling)
		io->list_siblings(io->ctx, add_sib, &s);
	if (s.n)
		qsort(s.names, s.n, sizeof(*s.names), cmp_str);
	for (size_t i = 0; i < s.n; i++) {
		struct af_buf b = AF_BUF_INIT;
		struct af_diag kd;
		af_diag_init(&kd);
		if (!io->read_sibling(io->ctx, s.names[i], &b) &&
		    jazz_names_add_keymap(nm, b.data, b.len, &kd)) {
			char msg[1024];
			af_diag_format(&kd, s.names[i], msg, sizeof(msg));
			af_diag_warn(d, 0, 0, "name map skipped: %s", msg);
		}
		af_diag_free(&kd);
		af_buf_free(&b);
		free(s.names[i]);
	}
	free(s.names);
	load_user_names(io, nm);
}

static int jazz_to_yaml(const uint8_t *bin, size_t n, const struct af_io *io, struct af_buf *out,
			struct af_diag *d)
{
	struct af_arena arena;
	struct jazz_model m = { 0 };
	struct jazz_names nm;
	int rc;
	af_arena_init(&arena);
	jazz_names_init(&nm, &arena);
	m.arena = &arena;
	if ((rc = jazz_decode(bin, n, &m, d)))
		goto out;
	load_names(io, &nm, d);
	if (jazz_names_add_script_name(&nm, m.chunks[0].ckey.instance, m.chunks[0].u[0])) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
		goto out;
	}
	rc = jazz_emit(&m, &nm, out, d);
out:
	jazz_names_free(&nm);
	af_arena_free(&arena);
	return rc;
}

static int jazz_from_yaml(const uint8_t *yaml, size_t n, const struct af_io *io,
			  struct af_buf *out, struct af_diag *d)
{
	struct af_ydoc doc;
	struct af_arena arena;
	struct jazz_model m = { 0 };
	int rc;
	af_arena_init(&arena);
	m.arena = &arena;
	memset(&doc, 0, sizeof(doc));
	rc = af_ydoc_parse(&doc, yaml, n, NULL, d);
	if (!rc)
		rc = jazz_parse(doc.root, &arena, &m, d);
	if (!rc)
		rc = jazz_encode(&m, out, d);
	if (!rc && io && io->learn_names && m.nnames)
		io->learn_names(io->ctx, m.names, m.nnames);
	af_ydoc_free(&doc);
	af_arena_free(&arena);
	return rc;
}

static int jazz_bid(const char *name, const uint8_t *head, size_t n)
{
	size_t l = name ? strlen(name) : 0;
	int named = (l > 5 && !strcasecmp(name + l - 5, ".jazz")) ||
		    (name && (strstr(name, "%%+JAZZ") || !strncasecmp(name, "S3_02D5DF13_", 12)));
	if (!jazz_head_ok(head, n))
		return 0;
	/* the content is what counts; a Jazz-like name only makes us surer */
	return named ? 80 : 40;
}

const struct af_codec af_codec_jazz = {
	.name = "sims3-jazz",
	.description = "The Sims 3 animation state machine (Jazz RCOL 0x02D5DF13, s3pe *.jazz)",
	.extensions = "jazz",
	.version = 1,
	.bid = jazz_bid,
	.to_yaml = jazz_to_yaml,
	.from_yaml = jazz_from_yaml,
	.render_uses_names = 1,
	.schema = &jazz_schema,
};
