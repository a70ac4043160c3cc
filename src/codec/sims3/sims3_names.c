/* Sims 3 names: FNV-1 rules of spec 5.1-5.3, the _KEY name map parser (5.5) and the
 * "print a name only if it hashes back" lookup (5.6), with a small built-in list. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "animfs/bytes.h"
#include "animfs/fnv.h"
#include "animfs/io.h"
#include "animfs/userdict.h"
#include "sims3_names.h"

static int ascii_ok(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] >= 0x80 || s[i] == 0)
			return 0;
	return 1;
}

/* FNV64CLIP (spec 5.3): the rule lives in core (animfs/fnv.h), since the package
 * names new CLIP resources by it too. */
uint64_t sims3_clip_hash(const char *s, size_t n)
{
	return af_fnv1_64_clip(s, n);
}

int sims3_hash_name(const char *s, size_t n, int rule, uint64_t *out)
{
	if (!ascii_ok(s, n))
		return -1;
	switch (rule) {
	case S3_H32: *out = af_fnv1_32_lower(s, n); break;
	case S3_H64: *out = af_fnv1_64_lower(s, n); break;
	default: *out = sims3_clip_hash(s, n); break;
	}
	return 0;
}

void sims3_names_init(struct sims3_names *nm, struct af_arena *a)
{
	memset(nm, 0, sizeof(*nm));
	nm->arena = a;
}

void sims3_names_free(struct sims3_names *nm)
{
	free(nm->e);
	nm->e = NULL;
	nm->n = nm->cap = 0;
}

int sims3_names_add(struct sims3_names *nm, uint64_t key, const char *text, size_t len)
{
	struct sims3_name_ent *e = af_grow(nm->e, &nm->cap, nm->n, sizeof(*e), 64);
	if (!e)
		return AF_ENOMEM;
	nm->e = e;
	char *t = af_arena_strndup(nm->arena, text, len);
	if (!t)
		return AF_ENOMEM;
	nm->e[nm->n] = (struct sims3_name_ent){ key, t, (uint32_t)len, (uint32_t)nm->n, 0, 0 };
	nm->n++;
	nm->sorted = 0;
	return 0;
}

int sims3_names_add_keymap(struct sims3_names *nm, const uint8_t *p, size_t n, struct af_diag *d)
{
	struct af_rd r;
	uint32_t version, count;
	af_rd_init(&r, p, n, d);
	if (af_rd_u32(&r, &version) || af_rd_u32(&r, &count))
		return AF_EINVAL;
	if (version != 1)
		return af_diag_at_offset(d, AF_EUNSUP, 0, "_KEY name map version %u (only 1 is known)",
					 version);
	if (count > INT32_MAX || af_rd_need(&r, 8, count, 12, "_KEY entries"))
		return af_diag_at_offset(d, AF_EINVAL, 4, "_KEY entry count %u does not fit the %zu bytes",
					 count, n);
	for (uint32_t i = 0; i < count; i++) {
		uint64_t key;
		uint32_t len;
		const uint8_t *text;
		size_t at = r.pos;
		if (af_rd_u64(&r, &key) || af_rd_u32(&r, &len))
			return AF_EINVAL;
		if (len > INT32_MAX || len > n - r.pos || af_rd_bytes(&r, len, &text))
			return af_diag_at_offset(d, AF_EINVAL, at + 8,
						 "_KEY entry %u: text length %u runs past the end", i, len);
		if (sims3_names_add(nm, key, (const char *)text, len))
			return af_diag_error(d, AF_ENOMEM, "out of memory reading a _KEY name map");
	}
	if (r.pos != n)
		return af_diag_at_offset(d, AF_EINVAL, r.pos, "%zu unparsed bytes after the _KEY entries",
					 n - r.pos);
	return 0;
}

static int ent_cmp(const void *a, const void *b)
{
	const struct sims3_name_ent *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Common names of the animation system, tried after the name maps. */
static const char *const builtin[] = {
	"Enter", "Exit", "Loop", "Idle", "Start", "Stop", "Main",
	"x", "y", "z", "a", "b", "o",
	"x:Age", "y:Age", "x:Species", "y:Species", "x:Gender", "y:Gender",
	"Age", "Species", "Gender", "Mirror", "IsMirrored",
	"adult", "child", "teen", "elder", "toddler", "baby", "young adult",
	"cat", "dog", "littleDog", "horse", "human", "male", "female",
	"true", "false", "surface", "object", "sim", NULL,
};

/* Their hashes under each rule, made once per process (a few microseconds): most
 * lookups miss the list, and hashing it every time was most of a Jazz decode. */
#define NBUILTIN (sizeof(builtin) / sizeof(builtin[0]) - 1)
static uint64_t builtin_h[S3_HCLIP + 1][NBUILTIN];
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;

static void builtin_hash(void)
{
	for (int r = 0; r <= S3_HCLIP; r++)
		for (size_t i = 0; i < NBUILTIN; i++)
			if (sims3_hash_name(builtin[i], strlen(builtin[i]), r, &builtin_h[r][i]))
				builtin_h[r][i] = 0; /* not ASCII: hashes_back refuses it anyway */
}

static int hashes_back(const char *t, size_t n, uint64_t v, int rule)
{
	uint64_t h;
	if (n >= 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X'))
		return 0; /* would read back as a number (spec 5.6) */
	return !sims3_hash_name(t, n, rule, &h) && h == v;
}

/* Each text also under its hash by every rule (keeping its load order), so a lookup by
 * value finds it whichever rule the field uses. 0 or AF_ENOMEM (then the table is as
 * before, and lookups find texts under their own keys only). */
static int expand(struct sims3_names *nm)
{
	static const int rules[] = { S3_H32, S3_H64, S3_HCLIP };
	size_t n = nm->n;
	for (size_t i = 0; i < n; i++) {
		if (nm->e[i].derived || nm->e[i].expanded)
			continue;
		for (size_t r = 0; r < sizeof(rules) / sizeof(rules[0]); r++) {
			uint64_t h;
			struct sims3_name_ent *e;
			if (sims3_hash_name(nm->e[i].text, nm->e[i].len, rules[r], &h) || h == nm->e[i].key)
				continue;
			if (!(e = af_grow(nm->e, &nm->cap, nm->n, sizeof(*e), 64)))
				return AF_ENOMEM;
			nm->e = e;
			nm->e[nm->n] = nm->e[i];
			nm->e[nm->n].key = h;
			nm->e[nm->n].derived = 1;
			nm->n++;
		}
		nm->e[i].expanded = 1;
	}
	return 0;
}

const char *sims3_names_find(struct sims3_names *nm, uint64_t v, int rule)
{
	if (nm && nm->n) {
		if (!nm->sorted) {
			expand(nm); /* out of memory: names under their own keys still show */
			qsort(nm->e, nm->n, sizeof(*nm->e), ent_cmp);
			nm->sorted = 1;
		}
		size_t lo = 0, hi = nm->n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (nm->e[mid].key < v)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < nm->n && nm->e[lo].key == v; lo++)
			if (hashes_back(nm->e[lo].text, nm->e[lo].len, v, rule))
				return nm->e[lo].text;
	}
	if (rule < 0 || rule > S3_HCLIP)
		return NULL;
	pthread_once(&builtin_once, builtin_hash);
	for (size_t i = 0; builtin[i]; i++)
		if (builtin_h[rule][i] == v && hashes_back(builtin[i], strlen(builtin[i]), v, rule))
			return builtin[i];
	return NULL;
}

int sims3_is_keymap_name(const char *name)
{
	size_t l = strlen(name);
	if (l > 8 && !strcasecmp(name + l - 8, ".keyname"))
		return 1;
	return strstr(name, "%%+_KEY") != NULL || !strncasecmp(name, "S3_0166038C_", 12);
}

int sims3_names_add_script_name(struct sims3_names *nm, uint64_t instance, uint32_t name_hash)
{
	size_t n = nm->n;
	for (size_t i = 0; i < n; i++) {
		const char *t = nm->e[i].text, *end = t + nm->e[i].len, *b = t, *dot = NULL;
		uint64_t h;
		if (nm->e[i].key != instance || nm->e[i].derived)
			continue;
		for (const char *p = t; p < end; p++)
			if (*p == '\\' || *p == '/')
				b = p + 1;
		for (const char *p = b; p < end; p++)
			if (*p == '.')
				dot = p;
		if (!dot)
			dot = end;
		if (!sims3_hash_name(b, (size_t)(dot - b), S3_H32, &h) && h == name_hash)
			return sims3_names_add(nm, name_hash, b, (size_t)(dot - b));
	}
	return 0;
}

/* ---- the names a codec finds beside its file (spec 5.6) ---- */

/* Collect sibling _KEY maps in name order, so the first-wins rule is deterministic. */
struct sibs {
	char **names;
	size_t n, cap;
	int failed;
};

static int add_sib(void *ctx, const char *name)
{
	struct sibs *s = ctx;
	if (!sims3_is_keymap_name(name) || s->n >= 256)
		return 0;
	char **p = af_grow(s->names, &s->cap, s->n, sizeof(*p), 8);
	if (!p)
		return s->failed = 1;
	s->names = p;
	if (!(s->names[s->n] = af_strcopy(name)))
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
static void load_user_names(const struct af_io *io, struct sims3_names *nm)
{
	struct af_buf b = AF_BUF_INIT;
	if (!io->read_names || io->read_names(io->ctx, &b) || b.failed || !b.len)
		goto out;
	const char *p = (const char *)b.data, *end = p + b.len;
	for (size_t names = 0; p < end && names < AF_USERDICT_MAX_NAMES; names++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);
		for (int rule = S3_H32; len && *p != '#' && rule <= S3_HCLIP; rule++) {
			uint64_t h;
			if (!sims3_hash_name(p, len, rule, &h) && sims3_names_add(nm, h, p, len))
				goto out; /* out of memory: fewer names, nothing worse */
		}
		p = nl ? nl + 1 : end;
	}
out:
	af_buf_free(&b);
}

/* Name maps are a convenience: one that cannot be read or parsed is reported as a
 * warning and skipped, since the document re-encodes the same without it. */
void sims3_names_load(const struct af_io *io, struct sims3_names *nm, struct af_diag *d)
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
		    sims3_names_add_keymap(nm, b.data, b.len, &kd)) {
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
