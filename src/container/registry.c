/* The container table, and what runs codecs on members (for the mount and the command
 * line alike): a member as YAML, a member's edit into a new container image, a round
 * trip. Adding a container = one file in this folder and one line here. */
#include <stdlib.h>
#include <string.h>

#include "animfs/bytes.h"
#include "animfs/codec.h"
#include "animfs/container.h"
#include "animfs/userdict.h"

extern const struct af_container af_container_sims3_package;

const struct af_container *const af_containers[] = {
	&af_container_sims3_package,
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
static int claims(void *ctx, const char *codec, const char *name, const uint8_t *head, size_t n)
{
	const struct af_codec *c = af_codec_by_name(codec);
	(void)ctx;
	if (!c)
		return -1;
	return c->bid(name, head, n < AF_BID_HEAD ? n : AF_BID_HEAD) > 0;
}

int af_archive_open(struct af_archive *a, const struct af_container *c, const uint8_t *data,
		    size_t n, struct af_diag *d)
{
	struct af_container_env env = {claims, NULL};
	int rc;
	memset(a, 0, sizeof(*a));
	a->c = c;
	if ((rc = c->open(data, n, &env, &a->st, d)))
		return rc;
	a->n = c->count(a->st);
	a->m = calloc(a->n ? a->n : 1, sizeof(*a->m));
	if (!a->m) {
		af_archive_close(a);
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < a->n; i++)
		c->member(a->st, i, &a->m[i]);
	return 0;
}

void af_archive_close(struct af_archive *a)
{
	if (a->c && a->st)
		a->c->close(a->st);
	free(a->m);
	memset(a, 0, sizeof(*a));
}

long af_archive_find(const struct af_archive *a, const char *name)
{
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->m[i].name, name))
			return (long)i;
	for (size_t i = 0; i < a->n; i++)
		if (a->m[i].alias[0] && !strcmp(a->m[i].alias, name))
			return (long)i;
	return -1;
}

static const struct af_codec *codec_of(const struct af_archive *a, size_t i, struct af_diag *d)
{
	const struct af_codec *c = af_codec_by_name(a->m[i].codec);
	if (!c)
		af_diag_error(d, AF_EUNSUP, "%s: no codec '%s' in this build", a->m[i].name,
			      a->m[i].codec);
	return c;
}

int af_member_yaml(const struct af_archive *a, size_t i, struct af_buf *yaml, struct af_diag *d)
{
	struct af_buf body = AF_BUF_INIT;
	struct af_io io;
	const struct af_codec *c = codec_of(a, i, d);
	int rc = c ? 0 : AF_EUNSUP;
	a->c->member_io(a->st, i, &io);
	if (!rc && !(rc = a->c->body(a->st, i, &body, d)))
		rc = c->to_yaml(body.data, body.len, &io, yaml, d);
	af_buf_free(&body);
	return rc;
}

int af_member_commit(const struct af_archive *a, size_t i, const uint8_t *yaml, size_t n,
		     struct af_buf *image, int *changed, struct af_diag *d)
{
	struct af_buf bin = AF_BUF_INIT, old = AF_BUF_INIT;
	struct af_io io;
	const struct af_codec *c = codec_of(a, i, d);
	int rc;
	*changed = 0;
	af_buf_reset(image);
	if (!c)
		return AF_EUNSUP;
	a->c->member_io(a->st, i, &io);
	io.learn_names = af_userdict_io_learn; /* names typed in the document */
	if (!af_codec_for_save(c, a->m[i].name, yaml, n, d)) {
		rc = d->code;
		goto out;
	}
	if ((rc = c->from_yaml(yaml, n, &io, &bin, d)) || (rc = a->c->body(a->st, i, &old, d)))
		goto out;
	if (old.len == bin.len && (!bin.len || !memcmp(old.data, bin.data, bin.len)))
		goto out; /* unchanged: nothing to write */
	if (!(rc = a->c->replace(a->st, i, bin.data, bin.len, image, d)))
		*changed = 1;
out:
	af_buf_free(&bin);
	af_buf_free(&old);
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
	return rc;
}

int af_member_remove(const struct af_archive *a, size_t i, struct af_buf *image,
		     struct af_diag *d)
{
	af_buf_reset(image);
	if (!a->c->remove)
		return af_diag_error(d, AF_EUNSUP, "%s: %ss are not removed from a %s", a->m[i].name,
				     a->c->member_noun, a->c->noun);
	return a->c->remove(a->st, i, image, d);
}

int af_member_roundtrip(const struct af_archive *a, size_t i, struct af_diag *d)
{
	struct af_buf body = AF_BUF_INIT, yaml = AF_BUF_INIT, back = AF_BUF_INIT;
	struct af_io io;
	const struct af_codec *c = codec_of(a, i, d);
	int rc = c ? 0 : AF_EUNSUP;
	a->c->member_io(a->st, i, &io);
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
