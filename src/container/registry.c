/* The container table, and what runs codecs on members (for the mount and the command
 * line alike): a member as YAML, a member's edit into a new container image, a round
 * trip. Adding a container = one file in this folder and one line here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animfs/bytes.h"
#include "animfs/codec.h"
#include "animfs/fileio.h"
#include "animfs/container.h"
#include "animfs/userdict.h"
#include "animfs/yamlio.h"

extern const struct af_container af_container_sims3_package;
extern const struct af_container af_container_gzip;
extern const struct af_container af_container_pks;
extern const struct af_container af_container_ipac;
extern const struct af_container af_container_pkf;
extern const struct af_container af_container_afs;
extern const struct af_container af_container_tad;

const struct af_container *const af_containers[] = {
	&af_container_sims3_package,
	&af_container_gzip,
	&af_container_pks,
	&af_container_ipac,
	&af_container_pkf,
	&af_container_afs,
	&af_container_tad,
	NULL,
};

/* Containers a test defines in its own file (tests/unit/test_container.c): the proof
 * that a container needs nothing outside this folder and its test. */
static const struct af_container *for_tests[4];

const struct af_container *af_container_by_name(const char *name)
{
	for (size_t i = 0; af_containers[i]; i++)
		if (!strcmp(af_containers[i]->name, name))
			return af_containers[i];
	return NULL;
}

int af_container_add_for_tests(const struct af_container *c)
{
	for (size_t i = 0; i < sizeof(for_tests) / sizeof(for_tests[0]); i++)
		if (!for_tests[i]) {
			for_tests[i] = c;
			return 0;
		}
	return -1;
}

static void consider(const struct af_container *c, const char *name, const uint8_t *head,
		     size_t n, const struct af_container **best, int *best_score)
{
	int s = c->bid(name, head, n);
	if (s > *best_score) {
		*best_score = s;
		*best = c;
	}
}

const struct af_container *af_container_bid(const char *name, const uint8_t *head, size_t n)
{
	const struct af_container *best = NULL;
	int best_score = 0;
	for (size_t i = 0; af_containers[i]; i++)
		consider(af_containers[i], name, head, n, &best, &best_score);
	for (size_t i = 0; i < sizeof(for_tests) / sizeof(for_tests[0]) && for_tests[i]; i++)
		consider(for_tests[i], name, head, n, &best, &best_score);
	return best;
}

/* The content check of a typed member: its codec's bid; -1 when this build has no
 * such codec (the member is kept and shown raw). */
static int claims(void *ctx, const char *codec, const char *name, const uint8_t *head, size_t n,
		  uint64_t len)
{
	const struct af_codec *c = af_codec_by_name(codec);
	(void)ctx;
	if (!c)
		return -1;
	n = n < AF_BID_HEAD ? n : AF_BID_HEAD;
	int s = c->bid(name, head, n);
	if (s <= 0)
		return 0;
	/* claimed by its bytes alone (the name adds nothing): the length must fit too, else
	 * a member of random bytes (a texture, a sound) passes a header check by chance */
	if (len != UINT64_MAX && c->fits && c->bid(NULL, head, n) >= s)
		return c->fits(head, n, len);
	return 1;
}

static const char *name_at(const void *ctx, size_t i)
{
	return ((const struct af_archive_member *)ctx)[i].name;
}

static const char *alias_at(const void *ctx, size_t i)
{
	return ((const struct af_archive_member *)ctx)[i].alias;
}

/* The indexes af_archive_find asks: every name, and the aliases there are (a find by
 * name is then one hash lookup, not a walk over the members: a listing that looks up
 * each of n members was n^2). The first member of a name wins, as the walk had it. */
static int index_names(struct af_archive *a)
{
	size_t aliases = 0;
	if (af_nameidx_init(&a->by_name, a->n, 0, name_at, a->m))
		return AF_ENOMEM;
	for (size_t i = 0; i < a->n; i++) {
		af_nameidx_add(&a->by_name, i);
		aliases += a->m[i].alias[0] != 0;
	}
	if (!aliases)
		return 0;
	if (af_nameidx_init(&a->by_alias, aliases, 0, alias_at, a->m))
		return AF_ENOMEM;
	for (size_t i = 0; i < a->n; i++)
		if (a->m[i].alias[0])
			af_nameidx_add(&a->by_alias, i);
	return 0;
}

static int members_of(struct af_archive *a, const struct af_io *io, struct af_diag *d);

int af_archive_open_io(struct af_archive *a, const struct af_container *c, const uint8_t *data,
		       size_t n, const struct af_io *io, struct af_diag *d)
{
	struct af_container_env env = {claims, NULL, io};
	int rc;
	memset(a, 0, sizeof(*a));
	a->c = c;
	a->size = n;
	if ((rc = c->open(data, n, &env, &a->st, d)))
		return rc;
	return members_of(a, io, d);
}

/* Whether the member table may take want bytes in all (the caller's bound: io's
 * mem_room); else a closes and d says how much it would take. */
static int table_room(struct af_archive *a, const struct af_io *io, size_t want, struct af_diag *d)
{
	if (!io || !io->mem_room || io->mem_room(io->mem_ctx, want))
		return 0;
	af_archive_close(a);
	return af_diag_error(d, AF_ENOMEM, "its table of members and their names would take more than %zu MiB, "
			     "more than the memory bound lets one container hold", (want + ((size_t)1 << 20) - 1) >> 20);
}

/* Members whose names are read between two asks of the table's room. */
#define TABLE_STEP 65536

/* a->st open: its member table and the name indexes, within io's mem_room (asked before
 * the table is made, as its names grow and once the indexes are made). */
static int members_of(struct af_archive *a, const struct af_io *io, struct af_diag *d)
{
	const struct af_container *c = a->c;
	int rc;
	a->n = c->count(a->st);
	size_t fixed = a->n * (sizeof(*a->m) + sizeof(*a->sub) + 1) + (c->tables ? c->tables(a->st) : 0);
	if ((rc = table_room(a, io, fixed, d)))
		return rc;
	a->m = af_alloc_zeroed(a->n ? a->n : 1, sizeof(*a->m));
	a->sub = af_alloc_zeroed(a->n ? a->n : 1, sizeof(*a->sub));
	a->probed = af_alloc_zeroed(a->n ? a->n : 1, 1);
	if (!a->m || !a->sub || !a->probed) {
		af_archive_close(a);
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	}
	af_arena_init(&a->names);
	for (size_t i = 0; i < a->n; i++) {
		struct af_member m;
		if (i % TABLE_STEP == TABLE_STEP - 1 && (rc = table_room(a, io, fixed + a->names.used_total, d)))
			return rc;
		memset(&m, 0, sizeof(m));
		c->member(a->st, i, &m);
		m.name[sizeof(m.name) - 1] = m.alias[sizeof(m.alias) - 1] = 0;
		a->m[i].name = af_arena_strndup(&a->names, m.name, strlen(m.name));
		a->m[i].alias = m.alias[0] ? af_arena_strndup(&a->names, m.alias, strlen(m.alias)) : "";
		a->m[i].codec = m.codec;
		if (!a->m[i].name || !a->m[i].alias) {
			af_archive_close(a);
			return af_diag_error(d, AF_ENOMEM, "out of memory");
		}
	}
	if ((rc = index_names(a))) {
		af_archive_close(a);
		return af_diag_error(d, rc, "out of memory");
	}
	return table_room(a, io, af_archive_held(a), d);
}

int af_archive_open_src(struct af_archive *a, const struct af_container *c,
			const struct af_src *src, const struct af_io *io, struct af_diag *d)
{
	struct af_container_env env = {claims, NULL, io};
	struct af_buf file = AF_BUF_INIT;
	int rc;
	if (src->mem)
		return af_archive_open_io(a, c, src->mem, (size_t)src->size, io, d);
	if (!c->open_src) {
		if (src->size > AF_MAX_FILE)
			return af_diag_error(d, AF_EUNSUP, "%llu bytes: larger than animfs reads",
					     (unsigned long long)src->size);
		if (!(rc = af_src_append(src, 0, (size_t)src->size, &file, d)))
			rc = af_archive_open_io(a, c, file.data, file.len, io, d);
		af_buf_free(&file);
		return rc;
	}
	memset(a, 0, sizeof(*a));
	a->c = c;
	a->size = (size_t)src->size;
	if ((rc = c->open_src(src, &env, &a->st, d)))
		return rc;
	return members_of(a, io, d);
}

int af_archive_open(struct af_archive *a, const struct af_container *c, const uint8_t *data,
		    size_t n, struct af_diag *d)
{
	return af_archive_open_io(a, c, data, n, NULL, d);
}

void af_archive_close(struct af_archive *a)
{
	for (size_t i = 0; a->sub && i < a->n; i++)
		if (a->sub[i]) {
			af_archive_close(a->sub[i]);
			free(a->sub[i]);
		}
	if (a->c && a->st)
		a->c->close(a->st);
	af_buf_free(&a->own);
	free(a->m);
	af_arena_free(&a->names);
	free(a->sub);
	free(a->probed);
	af_nameidx_free(&a->by_name);
	af_nameidx_free(&a->by_alias);
	memset(a, 0, sizeof(*a));
}

/* ---- nesting ---- */

/* The container that claims a member's bytes by content (a name alone is no claim
 * inside a container: names there are the archive's own). */
static const struct af_container *bid_content(const char *name, const uint8_t *p, size_t n)
{
	const struct af_container *best = NULL;
	int best_score = 1;
	for (size_t i = 0; af_containers[i]; i++)
		consider(af_containers[i], name, p, n < 64 ? n : 64, &best, &best_score);
	return best;
}

/* s opened over data (n bytes), which outlive it: borrowed where the container opens
 * from memory without a copy (open_src), else copied (open); io: its bound (or NULL). */
static int open_borrowed(struct af_archive *s, const struct af_container *c, const uint8_t *data,
			 size_t n, const struct af_io *io, struct af_diag *d)
{
	struct af_container_env env = {claims, NULL, io};
	struct af_src src = {data, -1, n, 0};
	int rc;
	if (!c->open_src)
		return af_archive_open_io(s, c, data, n, io, d);
	memset(s, 0, sizeof(*s));
	s->c = c;
	s->size = n;
	if ((rc = c->open_src(&src, &env, &s->st, d)))
		return rc;
	return members_of(s, io, d);
}

/* A nested archive's room (what the outermost holds with it: before its bytes are read,
 * then as its tables grow), asked of the outermost's nest_room. */
struct nest {
	struct af_archive *top;
	const char *member;
	size_t body;    /* its bytes read whole, or their size before they are read */
	int refused;
};

static int nest_room(void *ctx, size_t want)
{
	struct nest *n = ctx;
	struct af_archive *top = n->top;
	size_t all = af_archive_held(top), more[3] = {top->nested, n->body, want};
	if (!top->nest_room)
		return 1;
	for (int k = 0; k < 3; k++)
		all = all > SIZE_MAX - more[k] ? SIZE_MAX : all + more[k];
	if (top->nest_room(top->nest_ctx, n->member, all))
		return 1;
	n->refused = 1;
	return 0;
}

/* af_buf_bound.more: a nested archive's bytes read whole by a container that cannot
 * tell their size first (a compressed member): each growth asked of the room first. */
static size_t body_more(void *ctx, size_t want)
{
	struct nest *n = ctx;
	size_t was = n->body;
	n->body = want;
	if (nest_room(n, 0))
		return want;
	n->body = was;
	return was;
}

/* Member i as a nested archive, or NULL when it is none. *nomem: it could not be told
 * for want of memory (then it is asked again next time, not taken for a raw member).
 * Its bytes are the ones the container lends (a layer's), else read once and kept by
 * the nested archive (its state borrows them): never a second copy; a large layer's
 * (member_src) are a file the nested archive reads its tables from. */
static struct af_archive *open_sub(struct af_archive *a, size_t i, int *nomem)
{
	struct af_buf body = AF_BUF_INIT;
	struct af_archive *s = NULL;
	struct af_diag d;
	const struct af_container *c = NULL;
	const uint8_t *data = NULL;
	uint8_t head[64];
	size_t got = 0, n = 0;
	struct af_archive *top = a;
	while (top->parent)
		top = top->parent;
	struct nest room = {top, a->m[i].name, 0, 0};
	struct af_io io = {.mem_room = nest_room, .mem_ctx = &room};
	uint64_t off, len;
	int rc;
	af_diag_init(&d);
	if (a->depth + 1 >= AF_NEST_MAX || a->m[i].codec)
		goto out;
	/* the bid first, from the member's head where the container reads one: a member no
	 * container claims is not read whole */
	if (a->c->head && (a->c->head(a->st, i, head, sizeof(head), &got, &d) ||
			   !bid_content(a->m[i].name, head, got)))
		goto out;
	struct af_src from;
	int has = a->c->member_src ? a->c->member_src(a->st, i, &from, &d) : 0;
	if (has < 0)
		goto out;
	if (has && a->c->head) { /* its bytes in a file of the state's: only its tables read */
		if (!(c = bid_content(a->m[i].name, head, got)))
			goto out;
		if (!(s = af_alloc_zeroed(1, sizeof(*s))) || af_archive_open_src(s, c, &from, &io, &d)) {
			free(s);
			s = NULL;
			goto out;
		}
		goto opened;
	}
	if (!(a->c->lend && (data = a->c->lend(a->st, i, &n)))) {
		/* its bytes, read whole: their room asked first where their size is known,
		 * else as they grow */
		struct af_buf_bound grow = {0, body_more, &room, 0, 0};
		int known = a->c->span && a->c->span(a->st, i, &off, &len);
		if (known && (room.body = len > SIZE_MAX ? SIZE_MAX : (size_t)len, !nest_room(&room, 0)))
			goto out;
		body.bound = known ? NULL : &grow;
		rc = a->c->body(a->st, i, &body, &d);
		body.bound = NULL; /* grow is this block's */
		if (rc)
			goto out;
		data = body.data ? body.data : (const uint8_t *)"";
		n = room.body = body.len;
	}
	if (!(c = bid_content(a->m[i].name, data, n)))
		goto out;
	if (!(s = af_alloc_zeroed(1, sizeof(*s))) || open_borrowed(s, c, data, n, &io, &d)) {
		free(s);
		s = NULL;
		goto out;
	}
	s->own = body; /* the bytes its state borrows (the same memory, now its own) */
	af_buf_init(&body);
opened:
	s->parent = a;
	s->at = i;
	s->depth = a->depth + 1;
	top->nested += room.body + af_archive_held(s);
out:
	/* refused for room: its raw member from now on (not asked again) */
	*nomem = !s && !room.refused && (d.code == AF_ENOMEM || body.failed || (c && !d.code));
	af_buf_free(&body);
	af_diag_free(&d);
	return s;
}

struct af_archive *af_archive_sub(struct af_archive *a, size_t i)
{
	int nomem;
	if (i >= a->n)
		return NULL;
	if (!a->probed[i]) {
		a->sub[i] = open_sub(a, i, &nomem);
		a->probed[i] = !nomem;
	}
	return a->sub[i];
}

struct af_archive *af_archive_shown(struct af_archive *a)
{
	struct af_archive *s;
	while (a->c->layer && a->n == 1 && (s = af_archive_sub(a, 0)))
		a = s;
	return a;
}

struct af_archive *af_archive_walk(struct af_archive *a, const char *path, const char **leaf)
{
	const char *slash;
	a = af_archive_shown(a);
	while ((slash = strchr(path, '/'))) {
		char name[AF_MEMBER_NAME_MAX * 3];
		long k;
		if ((size_t)(slash - path) >= sizeof(name))
			return NULL;
		snprintf(name, sizeof(name), "%.*s", (int)(slash - path), path);
		if ((k = af_archive_find_shown(a, name, NULL)) < 0 || !af_archive_sub(a, (size_t)k))
			return NULL;
		a = af_archive_shown(a->sub[k]);
		path = slash + 1;
	}
	*leaf = path;
	return a;
}

const char *af_archive_name(const struct af_archive *a, const char *file)
{
	while (a->parent && a->parent->c->layer)
		a = a->parent;
	return a->parent ? a->parent->m[a->at].name : file;
}

int af_archive_read_only(const struct af_archive *a)
{
	for (; a; a = a->parent)
		if (!a->c->replace)
			return 1;
	return 0;
}

int af_archive_span(const struct af_archive *a, size_t i, uint64_t *off, uint64_t *len)
{
	return !a->parent && a->c->span && i < a->n && a->c->span(a->st, i, off, len);
}

const uint8_t *af_archive_lent(const struct af_archive *a, size_t i, size_t *n)
{
	*n = 0;
	return a->c->lend && i < a->n ? a->c->lend(a->st, i, n) : NULL;
}

size_t af_archive_held(const struct af_archive *a)
{
	/* its member table, the names and their indexes */
	size_t sum = a->n * (sizeof(*a->m) + sizeof(*a->sub) + 1) + a->names.used_total +
		     a->by_name.slots.cap + a->by_alias.slots.cap, n;
	if (a->c->tables)
		sum += a->c->tables(a->st);
	for (size_t i = 0; a->c->lend && i < a->n; i++)
		if (af_archive_lent(a, i, &n))
			sum += n;
	return sum;
}

int af_archive_body(const struct af_archive *a, size_t i, struct af_buf *out, struct af_diag *d)
{
	return a->c->body(a->st, i, out, d);
}

int af_archive_stored(const struct af_archive *a, size_t i, struct af_buf *out, struct af_diag *d)
{
	if (!a->c->stored)
		return af_diag_error(d, AF_EUNSUP, "%s keeps no member packed", a->c->name);
	return a->c->stored(a->st, i, out, d);
}

int af_archive_rebuild_each(const struct af_archive *a,
			    int (*put)(void *ctx, const uint8_t *data, size_t n, struct af_diag *d),
			    void *ctx, struct af_diag *d)
{
	struct af_buf image = AF_BUF_INIT;
	int rc;
	if (a->c->rebuild_plan) {
		struct af_pieces p = AF_PIECES_INIT;
		const struct af_src *src = NULL;
		if (!(rc = a->c->rebuild_plan(a->st, &p, &src, d)))
			rc = af_pieces_each(&p, src, put, ctx, d);
		af_pieces_free(&p);
		return rc;
	}
	if (!a->c->rebuild)
		return af_diag_error(d, AF_EUNSUP, "a %s is not rebuilt", a->c->noun);
	if (!(rc = a->c->rebuild(a->st, &image, d)))
		rc = put(ctx, image.data, image.len, d);
	af_buf_free(&image);
	return rc;
}

int af_archive_replace(const struct af_archive *a, size_t i, const uint8_t *body, size_t n,
		       struct af_buf *image, struct af_diag *d)
{
	struct af_buf cur = AF_BUF_INIT;
	int rc = 0;
	for (;;) {
		if (!a->c->replace) {
			rc = af_diag_error(d, AF_EROFS, "a %s is read-only: its %ss cannot be saved",
					   a->c->noun, a->c->member_noun);
			break;
		}
		af_buf_reset(image);
		if ((rc = a->c->replace(a->st, i, body, n, image, d)) || !a->parent)
			break;
		/* this archive's new bytes are the next one's member */
		af_buf_free(&cur);
		cur = *image;
		af_buf_init(image);
		body = cur.data;
		n = cur.len;
		i = a->at;
		a = a->parent;
	}
	af_buf_free(&cur);
	if (rc)
		af_buf_reset(image);
	return rc;
}

/* The bytes a nested archive a was opened over (its parent's lent bytes, or its own). */
static struct af_src bytes_of(const struct af_archive *a)
{
	size_t n = 0;
	struct af_src f;
	struct af_diag d;
	af_diag_init(&d);
	int has = a->parent && a->parent->c->member_src &&
		  a->parent->c->member_src(a->parent->st, a->at, &f, &d) > 0;
	af_diag_free(&d);
	if (has)
		return f;
	const uint8_t *p = a->parent ? af_archive_lent(a->parent, a->at, &n) : NULL;
	if (!p) {
		p = a->own.data;
		n = a->own.len;
	}
	return (struct af_src){p ? p : (const uint8_t *)"", -1, n, 0};
}

/* The new bytes cur stands for (pieces of a's bytes): where they are when cur is one
 * piece of new bytes, else made in tmp. */
static int made(const struct af_archive *a, const struct af_pieces *cur, struct af_buf *tmp,
		const uint8_t **p, size_t *n, struct af_diag *d)
{
	struct af_src from = bytes_of(a);
	int rc;
	if (cur->n == 1 && cur->v[0].kind == AF_PIECE_BYTES && !cur->failed) {
		*p = cur->bytes.data + cur->v[0].off;
		*n = (size_t)cur->v[0].len;
		return 0;
	}
	af_buf_reset(tmp);
	if ((rc = af_pieces_to_buf(cur, &from, tmp, d)))
		return rc;
	*p = tmp->data ? tmp->data : (const uint8_t *)"";
	*n = tmp->len;
	return 0;
}

int af_archive_plan(const struct af_archive *a, size_t i, const uint8_t *body, size_t n,
		    struct af_pieces *out, struct af_diag *d)
{
	struct af_buf image = AF_BUF_INIT, tmp = AF_BUF_INIT;
	struct af_pieces cur = AF_PIECES_INIT, next = AF_PIECES_INIT;
	const struct af_archive *top = a;
	int rc = 0;
	while (top->parent)
		top = top->parent;
	if (!top->c->plan || af_archive_read_only(a)) {
		if (!(rc = af_archive_replace(a, i, body, n, &image, d)) && af_pieces_take(out, &image))
			rc = af_diag_error(d, AF_ENOMEM, "out of memory");
		af_buf_free(&image);
		return rc;
	}
	if (!a->parent)
		return a->c->plan(a->st, i, body, n, out, d);
	/* cur: a's new bytes as pieces of its old ones: planned where a plans and a layer
	 * takes the plan as it is, else rebuilt (one piece of new bytes) */
	if (a->c->plan && a->parent->c->plan_in) {
		rc = a->c->plan(a->st, i, body, n, &cur, d);
	} else if (!(rc = a->c->replace(a->st, i, body, n, &image, d)) && af_pieces_take(&cur, &image)) {
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
	}
	while (!rc) {
		const struct af_archive *p = a->parent;
		const uint8_t *mb;
		size_t mn;
		if (p->c->plan_in && (p->c->layer || !cur.unsized)) { /* the pieces as they are */
			rc = p->c->plan_in(p->st, a->at, &cur, &next, d);
		} else if (!(rc = made(a, &cur, &tmp, &mb, &mn, d))) { /* the member's bytes made */
			if (!p->parent && p->c->plan) {
				rc = p->c->plan(p->st, a->at, mb, mn, &next, d);
			} else if (!(rc = p->c->replace(p->st, a->at, mb, mn, &image, d)) &&
				   af_pieces_take(&next, &image)) {
				rc = af_diag_error(d, AF_ENOMEM, "out of memory");
			}
		}
		af_buf_free(&tmp);
		af_pieces_free(&cur);
		cur = next;
		af_pieces_init(&next);
		a = p;
		if (!a->parent)
			break;
	}
	if (!rc && af_pieces_append(out, &cur, 0))
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
	af_pieces_free(&cur);
	af_pieces_free(&next);
	af_buf_free(&image);
	af_buf_free(&tmp);
	return rc;
}

/* b's bytes (cmp: in memory, or read from a file into buf) against a's as they are
 * handed over. */
struct cmp {
	const uint8_t *p;
	struct af_src f;
	uint8_t *buf;
	size_t n, at;
	int differ;
};

static int put_cmp(void *ctx, const uint8_t *data, size_t n, struct af_diag *d)
{
	struct cmp *c = ctx;
	const uint8_t *q = c->p ? c->p + c->at : c->buf;
	if (n > c->n - c->at) {
		c->differ = 1;
		return AF_EINVAL; /* stops the stream */
	}
	for (size_t k = 0; k < n;) { /* from a file: 1 MiB at a time (what put is given) */
		size_t m = n - k < ((size_t)1 << 20) ? n - k : (size_t)1 << 20;
		if (!c->p && af_src_read(&c->f, c->at + k, c->buf, m, d))
			return AF_EIO;
		if (memcmp(c->p ? q + k : c->buf, data + k, m)) {
			c->differ = 1;
			return AF_EINVAL;
		}
		k += m;
	}
	c->at += n;
	return 0;
}

int af_archive_same_member(const struct af_archive *a, const struct af_archive *b, size_t i,
			   struct af_diag *d)
{
	uint32_t ca, cb;
	uint64_t la, lb;
	size_t bn;
	const uint8_t *bp;
	if (a->c != b->c || i >= a->n || i >= b->n)
		return -1;
	if (a->c->digest && a->c->digest(a->st, i, &ca, &la) && b->c->digest(b->st, i, &cb, &lb) &&
	    (ca != cb || la != lb))
		return 0; /* told apart for free */
	struct cmp c = {NULL, {NULL, -1, 0, 0}, NULL, 0, 0, 0};
	int has = b->c->member_src ? b->c->member_src(b->st, i, &c.f, d) : 0;
	if (!a->c->each || has < 0)
		return -1;
	if (has) {
		c.n = (size_t)c.f.size;
		if (!(c.buf = af_alloc((size_t)1 << 20)))
			return -1;
	} else if ((bp = af_archive_lent(b, i, &bn))) {
		c.p = bp;
		c.n = bn;
	} else {
		return -1;
	}
	int rc = a->c->each(a->st, i, put_cmp, &c, d);
	free(c.buf);
	if (c.differ)
		return 0;
	return rc ? -1 : c.at == c.n;
}

/* The layers between a and the file (or member) it is shown for, outermost first; *size
 * is that file's (the outermost layer's) size. */
static void enclosing_layers(const struct af_archive *a, struct af_buf *out, size_t *size)
{
	const struct af_archive *chain[AF_NEST_MAX];
	size_t k = 0;
	for (const struct af_archive *p = a->parent; p && p->c->layer && k < AF_NEST_MAX; p = p->parent)
		chain[k++] = p;
	*size = k ? chain[k - 1]->size : a->size;
	while (k--)
		if (chain[k]->c->layer_yaml)
			chain[k]->c->layer_yaml(chain[k]->st, out);
}

/* text appended to out as one item of a YAML list, indented by 2 more. */
static void put_item(struct af_buf *out, const struct af_buf *text)
{
	for (size_t i = 0; i < text->len;) {
		const uint8_t *eol = memchr(text->data + i, '\n', text->len - i);
		size_t n = eol ? (size_t)(eol - (text->data + i)) : text->len - i;
		af_buf_puts(out, i ? "    " : "  - ");
		af_buf_append(out, text->data + i, n);
		af_buf_putc(out, '\n');
		i += n + 1;
	}
}

/* file, size, layers, members; then each member that is an archive, its own index as
 * an item of "nested". */
static int index_text(struct af_archive *a, const char *name, struct af_buf *out)
{
	struct af_buf layers = AF_BUF_INIT, sub = AF_BUF_INIT;
	size_t size;
	int rc, first = 1;
	enclosing_layers(a, &layers, &size);
	af_buf_puts(out, "file: ");
	af_y_cstr(out, name ? name : "");
	af_buf_printf(out, "\nsize: %zu\nlayers:\n", size);
	af_buf_append(out, layers.data, layers.len);
	a->c->layer_yaml(a->st, out);
	rc = a->c->index_yaml(a->st, name, out);
	for (size_t k = 0; !rc && k < a->n; k++) {
		struct af_archive *s = af_archive_sub(a, k);
		if (!s || !(s = af_archive_shown(s))->c->layer_yaml)
			continue;
		if (first)
			af_buf_puts(out, "nested: # the members that are archives themselves\n");
		first = 0;
		af_buf_reset(&sub);
		rc = index_text(s, a->m[k].name, &sub);
		put_item(out, &sub);
	}
	af_buf_free(&layers);
	af_buf_free(&sub);
	return rc || out->failed || layers.failed || sub.failed ? AF_ENOMEM : 0;
}

int af_archive_index(struct af_archive *a, const char *name, struct af_buf *out)
{
	if (!a->c->layer_yaml)
		return a->c->index_yaml(a->st, name, out);
	af_buf_puts(out, "# animfs index (read-only): describes the container; edits to this file are ignored\n");
	return index_text(a, name, out);
}

long af_archive_find(const struct af_archive *a, const char *name)
{
	long k = af_nameidx_find(&a->by_name, name);
	return k >= 0 ? k : af_nameidx_find(&a->by_alias, name);
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
		: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

void af_member_shown(const char *name, int view, char *out, size_t size)
{
	size_t o = 0, n = strlen(name);
	size_t dot = !view && n >= 5 && !strcmp(name + n - 5, ".yaml") ? n - 5 : (size_t)-1;
	if (!size)
		return;
	if (!n || !strcmp(name, ".") || !strcmp(name, "..")) {
		snprintf(out, size, "%s", !n ? "%00" : n == 1 ? "%2E" : "%2E%2E");
		return;
	}
	if (view && !strcmp(name, "index")) {
		snprintf(out, size, "%%69ndex");
		return;
	}
	for (size_t i = 0; i < n && o + 4 < size; i++) {
		if (name[i] == '/' || i == dot)
			o += (size_t)snprintf(out + o, size - o, "%%%02X", (unsigned char)name[i]);
		else
			out[o++] = name[i];
	}
	out[o] = 0;
}

int af_member_unshown(const char *shown, size_t n, char *out, size_t size)
{
	size_t o = 0;
	if (n == 3 && !memcmp(shown, "%00", 3)) {
		if (size)
			out[0] = 0;
		return size ? 0 : -1;
	}
	for (size_t i = 0; i < n; i++) {
		int hi = i + 2 < n ? hexval(shown[i + 1]) : -1, lo = i + 2 < n ? hexval(shown[i + 2]) : -1;
		char ch = shown[i];
		if (ch == '%' && hi >= 0 && lo >= 0)
			ch = (char)(hi << 4 | lo), i += 2;
		if (!ch || o + 1 >= size)
			return -1;
		out[o++] = ch;
	}
	if (!size)
		return -1;
	out[o] = 0;
	return 0;
}

long af_archive_find_shown(const struct af_archive *a, const char *shown, char *raw)
{
	char name[AF_MEMBER_NAME_MAX], back[AF_MEMBER_NAME_MAX * 3];
	long k;
	/* the name as it is (most are listed so), else with its escapes undone: either way
	 * only a member whose listed name this is */
	for (int pass = 0; pass < 2; pass++) {
		if (pass ? af_member_unshown(shown, strlen(shown), name, sizeof(name))
			 : snprintf(name, sizeof(name), "%s", shown) >= (int)sizeof(name))
			continue;
		if ((k = af_archive_find(a, name)) < 0)
			continue;
		af_member_shown(a->m[k].name, 0, back, sizeof(back));
		if (strcmp(back, shown) && (af_member_shown(a->m[k].name, 1, back, sizeof(back)), strcmp(back, shown)) &&
		    strcmp(a->m[k].alias, name))
			continue;
		if (raw)
			snprintf(raw, AF_MEMBER_NAME_MAX, "%s", a->m[k].name);
		return k;
	}
	return -1;
}

static const struct af_codec *codec_of(const struct af_archive *a, size_t i, struct af_diag *d)
{
	const struct af_codec *c = a->m[i].codec ? af_codec_by_name(a->m[i].codec) : NULL;
	if (!a->m[i].codec)
		af_diag_error(d, AF_EUNSUP, "%s: a raw member (no codec shows it)", a->m[i].name);
	else if (!c)
		af_diag_error(d, AF_EUNSUP, "%s: no codec '%s' in this build", a->m[i].name,
			      a->m[i].codec);
	return c;
}

int af_member_yaml(const struct af_archive *a, size_t i, struct af_buf *yaml, struct af_diag *d)
{
	return af_member_yaml_opts(a, i, NULL, yaml, d);
}

static int member_yaml(const struct af_archive *a, size_t i, const struct af_opts *opts,
		       int (*mem_room)(void *ctx, size_t want), void *mem_ctx, struct af_buf *yaml,
		       struct af_diag *d)
{
	struct af_buf body = AF_BUF_INIT;
	struct af_io io;
	const struct af_codec *c = codec_of(a, i, d);
	int rc = c ? 0 : AF_EUNSUP;
	a->c->member_io(a->st, i, &io);
	io.opts = opts;
	io.rig_dir = opts ? opts->rig_dir : NULL;
	io.mem_room = mem_room;
	io.mem_ctx = mem_ctx;
	if (!rc && !(rc = a->c->body(a->st, i, &body, d))) {
		size_t want = af_model_of(body.len);
		if (mem_room && !mem_room(mem_ctx, want))
			rc = af_diag_error(d, AF_ENOMEM, "its %zu bytes take about %zu MiB to show",
					   body.len, want >> 20);
		else
			rc = c->to_yaml(body.data, body.len, &io, yaml, d);
	}
	af_buf_free(&body);
	return rc;
}

int af_member_yaml_opts(const struct af_archive *a, size_t i, const struct af_opts *opts,
			struct af_buf *yaml, struct af_diag *d)
{
	return member_yaml(a, i, opts, NULL, NULL, yaml, d);
}

int af_member_yaml_room(const struct af_archive *a, size_t i, const struct af_opts *opts,
			int (*mem_room)(void *ctx, size_t want), void *mem_ctx, struct af_buf *yaml,
			struct af_diag *d)
{
	return member_yaml(a, i, opts, mem_room, mem_ctx, yaml, d);
}

/* The caller's bound on a member's YAML tree: the outermost archive's. */
static void yaml_max_of(const struct af_archive *a, struct af_io *io)
{
	while (a->parent)
		a = a->parent;
	io->yaml_max = a->yaml_max;
	io->yaml_more = a->yaml_more;
	io->yaml_more_ctx = a->yaml_more_ctx;
}

/* yaml encoded for member i into bin (the one rule: its format is the member's codec);
 * *changed: whether bin differs from the member's current bytes. */
static int encode_member(const struct af_archive *a, size_t i, const uint8_t *yaml, size_t n,
			 struct af_buf *bin, int *changed, struct af_diag *d)
{
	struct af_buf old = AF_BUF_INIT;
	struct af_io io;
	const struct af_codec *c = codec_of(a, i, d);
	int rc;
	*changed = 0;
	if (!c)
		return AF_EUNSUP;
	a->c->member_io(a->st, i, &io);
	io.learn_names = af_userdict_io_learn; /* names typed in the document */
	yaml_max_of(a, &io);
	if (!af_codec_for_save(c, a->m[i].name, yaml, n, d)) {
		rc = d->code;
		goto out;
	}
	if ((rc = c->from_yaml(yaml, n, &io, bin, d)) || (rc = a->c->body(a->st, i, &old, d)))
		goto out;
	/* unchanged: nothing to write */
	*changed = old.len != bin->len || (bin->len && memcmp(old.data, bin->data, bin->len));
out:
	af_buf_free(&old);
	return rc;
}

/* The member's edit as the whole image, or (image NULL) as pieces. */
static int commit_as(const struct af_archive *a, size_t i, const uint8_t *yaml, size_t n,
		     struct af_buf *image, struct af_pieces *out, int *changed, struct af_diag *d)
{
	struct af_buf bin = AF_BUF_INIT;
	int rc;
	if (image)
		af_buf_reset(image);
	if (!(rc = encode_member(a, i, yaml, n, &bin, changed, d)) && *changed &&
	    (rc = image ? af_archive_replace(a, i, bin.data, bin.len, image, d)
			: af_archive_plan(a, i, bin.data, bin.len, out, d)))
		*changed = 0;
	af_buf_free(&bin);
	return rc;
}

int af_member_commit(const struct af_archive *a, size_t i, const uint8_t *yaml, size_t n,
		     struct af_buf *image, int *changed, struct af_diag *d)
{
	return commit_as(a, i, yaml, n, image, NULL, changed, d);
}

int af_member_commit_plan(const struct af_archive *a, size_t i, const uint8_t *yaml, size_t n,
			  struct af_pieces *out, int *changed, struct af_diag *d)
{
	return commit_as(a, i, yaml, n, NULL, out, changed, d);
}

/* image holds a's new bytes: in a nested archive, each enclosing one is rebuilt
 * around them, up to the file. */
static int enclose(const struct af_archive *a, struct af_buf *image, struct af_diag *d)
{
	struct af_buf inner;
	int rc;
	if (!a->parent)
		return 0;
	inner = *image;
	af_buf_init(image);
	rc = af_archive_replace(a->parent, a->at, inner.data, inner.len, image, d);
	af_buf_free(&inner);
	return rc;
}

int af_member_add(const struct af_archive *a, const char *name, const uint8_t *yaml, size_t n,
		  struct af_buf *image, struct af_diag *d)
{
	struct af_buf bin = AF_BUF_INIT;
	struct af_io io = { .name = name, .read_names = af_userdict_io_read,
			    .learn_names = af_userdict_io_learn };
	const struct af_codec *c;
	int rc;
	yaml_max_of(a, &io);
	af_buf_reset(image);
	if (!a->c->add)
		return af_diag_error(d, AF_EUNSUP, "%s: a %s gains no %ss", name, a->c->noun,
				     a->c->member_noun);
	if (af_archive_find(a, name) >= 0)
		return af_diag_error(d, AF_EINVAL, "%s: the %s already holds it", name, a->c->noun);
	if (!(c = af_codec_for_save(NULL, name, yaml, n, d)))
		return d->code;
	if (!(rc = c->from_yaml(yaml, n, &io, &bin, d)))
		rc = a->c->add(a->st, name, c->name, bin.data, bin.len, image, d);
	af_buf_free(&bin);
	return rc ? rc : enclose(a, image, d);
}

int af_member_remove(const struct af_archive *a, size_t i, struct af_buf *image,
		     struct af_diag *d)
{
	af_buf_reset(image);
	if (!a->c->remove)
		return af_diag_error(d, AF_EUNSUP, "%s: %ss are not removed from a %s", a->m[i].name,
				     a->c->member_noun, a->c->noun);
	int rc = a->c->remove(a->st, i, image, d);
	return rc ? rc : enclose(a, image, d);
}

int af_member_roundtrip(const struct af_archive *a, size_t i, struct af_diag *d)
{
	struct af_buf body = AF_BUF_INIT, yaml = AF_BUF_INIT, back = AF_BUF_INIT;
	struct af_io io;
	const struct af_codec *c;
	int rc;
	if (!a->m[i].codec)
		return 0; /* raw: its bytes are carried as they are */
	c = codec_of(a, i, d);
	rc = c ? 0 : AF_EUNSUP;
	a->c->member_io(a->st, i, &io);
	yaml_max_of(a, &io); /* the encode's tree: within the outermost archive's bound */
	if (rc || (rc = a->c->body(a->st, i, &body, d)) ||
	    (rc = c->to_yaml(body.data, body.len, &io, &yaml, d)) ||
	    (rc = c->from_yaml(yaml.data, yaml.len, &io, &back, d)))
		goto out;
	if (back.len != body.len || memcmp(back.data, body.data, body.len)) {
		size_t k = af_first_diff(back.data, back.len, body.data, body.len);
		rc = af_diag_at_offset(d, AF_EINVAL, k, "re-encoded bytes differ (%zu bytes in, %zu out)",
				       body.len, back.len);
	}
out:
	af_buf_free(&body);
	af_buf_free(&yaml);
	af_buf_free(&back);
	return rc;
}
