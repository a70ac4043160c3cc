/* `animfs decode|encode|check` on the members of containers: the path `X/<member>`
 * does not exist on disk, so the prefix that is a container's file is opened through
 * the container table and the file is replaced atomically on encode. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "animfs/path.h"
#include "animfs/bytes.h"
#include "cli.h"
#include "animfs/codec.h"
#include "animfs/container.h"
#include "animfs/fileio.h"
#include "animfs/fs.h"
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

/* The member path may name members of nested containers: X/A/B. */
int af_cli_arc_split(const char *path, char *arc, size_t size, const char **member)
{
	struct stat st;
	if (!stat(path, &st)) /* a real file or folder wins */
		return 0;
	for (const char *slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
		if (slash == path || !slash[1] || (size_t)(slash - path) >= size)
			continue;
		snprintf(arc, size, "%.*s", (int)(slash - path), path);
		if (stat(arc, &st))
			return 0;
		if (S_ISREG(st.st_mode)) {
			if (!af_cli_arc_of(arc))
				return 0;
			*member = slash + 1;
			return 1;
		}
	}
	return 0;
}

/* An open container file: a container that reads only its tables (open_src) reads
 * the rest from src when asked, and an encode copies what stays from it. */
struct opened {
	struct af_archive a;
	struct af_src src;
};

static int load(const char *path, struct opened *o, struct af_diag *d)
{
	const struct af_container *c = af_cli_arc_of(path);
	struct stat st;
	int rc = 0;
	o->src = (struct af_src){NULL, -1, 0, 0};
	if (!c)
		return af_diag_error(d, AF_EUNSUP, "no container reads this file");
	if ((o->src.fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || fstat(o->src.fd, &st) ||
	    !S_ISREG(st.st_mode))
		return af_diag_error(d, AF_EIO, "cannot open: %s", strerror(errno));
	o->src.size = (uint64_t)st.st_size;
	struct af_cli_io io; /* with the siblings its container may read (an index or data file beside it) */
	af_cli_io_init(&io, path, 0);
	rc = af_archive_open_src(&o->a, c, &o->src, &io.d.io, d);
	af_cli_io_close(&io);
	return rc;
}

/* encode --overlay: the container as it shows over GAME: MODDIR's (on GAME's, when its
 * container merges), else GAME's. */
static int load_ov(const char *arc, const struct af_cli_ov *ov, struct opened *o,
		   struct af_diag *d)
{
	struct af_buf game = AF_BUF_INIT, mod = AF_BUF_INIT, merged = AF_BUF_INIT;
	const struct af_container *c = af_cli_arc_of(arc);
	int rc, have_mod = access(ov->mod, F_OK) == 0;
	if (!c || !have_mod)
		return load(have_mod ? ov->mod : arc, o, d);
	if ((rc = af_read_file_at(AT_FDCWD, ov->mod, AF_MAX_FILE, &mod, d)))
		goto out;
	if (c->overlay_merge && af_cli_arc_of(ov->mod) == c) {
		if ((rc = af_read_file_at(AT_FDCWD, arc, AF_MAX_FILE, &game, d)) ||
		    (rc = c->overlay_merge(game.data, game.len, mod.data, mod.len, &merged, d)))
			goto out;
	} else {
		struct af_buf t = merged;
		merged = mod;
		mod = t;
	}
	struct af_cli_io io;
	af_cli_io_init(&io, arc, 0);
	rc = af_archive_open_io(&o->a, c, merged.data, merged.len, &io.d.io, d);
	af_cli_io_close(&io);
out:
	af_buf_free(&game);
	af_buf_free(&mod);
	af_buf_free(&merged);
	return rc;
}

static void unload(struct opened *o)
{
	af_archive_close(&o->a);
	if (o->src.fd >= 0)
		close(o->src.fd);
	o->src.fd = -1;
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

/* text appended to out, each non-empty line indented by `indent` spaces */
static void put_indented(struct af_buf *out, const struct af_buf *text, int indent)
{
	for (size_t i = 0; i < text->len;) {
		const uint8_t *eol = memchr(text->data + i, '\n', text->len - i);
		size_t n = eol ? (size_t)(eol - (text->data + i)) : text->len - i;
		if (n)
			af_buf_printf(out, "%*s", indent, "");
		af_buf_append(out, text->data + i, n);
		af_buf_puts(out, "\n");
		i += n + 1;
	}
}

/* Whether text at p (within [line, p)) starts an entry "KEY: " of a flow map whose
 * KEY is one of keys: its length, else 0. */
static size_t layout_key_at(const char *line, const char *p, const char *const *keys)
{
	if (p == line || (p[-1] != '{' && !(p - line >= 2 && p[-1] == ' ' && p[-2] == ',')))
		return 0;
	for (size_t i = 0; keys[i]; i++) {
		size_t n = strlen(keys[i]);
		if (!strncmp(p, keys[i], n) && p[n] == ':' && p[n + 1] == ' ')
			return n;
	}
	return 0;
}

/* The index text in without the entries "KEY: VALUE" of the keys in its flow maps
 * (decode --review), appended to out. */
static void drop_layout(const struct af_buf *in, const char *const *keys, struct af_buf *out)
{
	const char *s = (const char *)in->data, *end = s + in->len, *line = s;
	for (const char *p = s; p < end;) {
		if (*p == '\n') {
			af_buf_append(out, p, 1);
			line = ++p;
			continue;
		}
		if (!layout_key_at(line, p, keys)) {
			af_buf_append(out, p, 1);
			p++;
			continue;
		}
		const char *v = p;
		while (v < end && *v != ',' && *v != '}' && *v != '\n')
			v++;
		if (v < end && *v == ',' && p[-1] == '{') /* the first entry: its ", " goes */
			v += v + 1 < end && v[1] == ' ' ? 2 : 1;
		else if (p[-1] == ' ') /* a later one: the ", " before it goes */
			out->len -= 2;
		p = v;
	}
}

/* The whole container as one YAML document, so that containers diff like every other
 * file (git textconv): the index, then each member's document nested under its name (a
 * nested container: its own whole document), or a comment saying why a member is not
 * shown. */
static int whole(struct af_archive *a, const char *name, const struct af_opts *opts,
		 struct af_cli_bound *bound, struct af_buf *out)
{
	struct af_buf one = AF_BUF_INIT;
	struct af_diag d;
	int rc;
	if (a->c->layout_keys && af_opts_on(opts, AF_CLI_REVIEW)) {
		rc = af_archive_index(a, name, &one);
		af_buf_puts(out, "# --review: where each member lies is left out (");
		for (size_t i = 0; a->c->layout_keys[i]; i++)
			af_buf_printf(out, "%s%s", i ? ", " : "", a->c->layout_keys[i]);
		af_buf_puts(out, ")\n");
		drop_layout(&one, a->c->layout_keys, out);
	} else {
		rc = af_archive_index(a, name, out);
	}
	/* under "views" where index.yaml has its own "members" list */
	af_buf_printf(out, "%s: # %zu shown as YAML below, by name\n",
		      a->c->layer_yaml ? "views" : "members", a->n);
	for (size_t k = 0; !rc && k < a->n; k++) {
		struct af_archive *sub = af_archive_sub(a, k);
		af_buf_reset(&one);
		af_diag_init(&d);
		int mrc = sub ? whole(af_archive_shown(sub), a->m[k].name, opts, bound, &one)
			      : af_member_yaml_room(a, k, opts, bound ? af_cli_bound_room : NULL,
						    bound, &one, &d);
		if (!a->m[k].codec && !sub) {
			af_buf_printf(out, "  # %s: raw (its bytes are shown as they are)\n", a->m[k].name);
		} else if ((mrc && mrc != AF_VIEW_READONLY) || one.failed) {
			char msg[1200];
			af_diag_format(&d, a->m[k].name, msg, sizeof(msg));
			af_buf_printf(out, "  # not shown: %s\n", msg);
		} else {
			af_buf_printf(out, "  %s:\n", a->m[k].name);
			put_indented(out, &one, 4);
		}
		af_diag_free(&d);
	}
	af_buf_free(&one);
	return rc || out->failed ? AF_ENOMEM : 0;
}

/* member (a path inside the folder) as its holder and index; k = -1: index.yaml;
 * k = -2: no such member yet, in a container that gains members (with may_add). */
static struct af_archive *member_of(struct opened *o, const char *arc, const char *member,
				    int may_add, long *k)
{
	const char *leaf;
	struct af_archive *h = af_archive_walk(&o->a, member, &leaf);
	if (!h)
		return NULL;
	if (!strcmp(leaf, AF_INDEX_NAME)) {
		*k = -1;
		return h;
	}
	if ((*k = af_archive_find(h, leaf)) < 0) {
		if (may_add && h->c->add) {
			*k = -2;
			return h;
		}
		no_such(h, arc, leaf);
		return NULL;
	}
	return h;
}

/* One member of h: a nested container whole, a raw member's bytes, or its view. */
static int member_doc(struct af_archive *h, size_t k, const char *path, const char *schema_ref,
		      const struct af_opts *opts, struct af_cli_bound *bound, struct af_buf *out,
		      struct af_diag *d)
{
	struct af_archive *sub = af_archive_sub(h, k);
	if (sub)
		return whole(af_archive_shown(sub), h->m[k].name, opts, bound, out)
			       ? af_diag_error(d, AF_ENOMEM, "out of memory")
			       : 0;
	if (!h->m[k].codec)
		return af_archive_body(h, k, out, d);
	if (af_codec_modeline(af_codec_by_name(h->m[k].codec), schema_ref, out))
		return af_diag_error(d, AF_ENOMEM, "out of memory");
	int mrc = af_member_yaml_room(h, k, opts, bound ? af_cli_bound_room : NULL, bound, out, d);
	if (mrc == AF_VIEW_READONLY) {
		char msg[1200];
		af_diag_format(d, path, msg, sizeof(msg));
		fprintf(stderr, "animfs: note: shown read-only: %s\n", msg);
		af_diag_clear(d);
		return 0;
	}
	return mrc;
}

static int render(const char *path, const char *arc, const char *member, const char *schema_ref,
		  const struct af_opts *opts, struct af_cli_bound *bound, struct af_buf *out,
		  const char **where, struct af_diag *d,
		  int (*with)(void *ctx, const struct af_buf *yaml, const struct af_io *io, struct af_diag *d),
		  void *ctx)
{
	struct opened o;
	struct af_archive *h;
	int rc;
	long k;
	*where = arc;
	memset(&o, 0, sizeof(o));
	if ((rc = load(arc, &o, d)))
		goto out;
	if (!member) {
		if (whole(af_archive_shown(&o.a), af_base(arc), opts, bound, out))
			rc = af_diag_error(d, AF_ENOMEM, "out of memory");
	} else if (!(h = member_of(&o, arc, member, 0, &k))) {
		rc = AF_EINVAL; /* no_such said why, d stays clear */
	} else if (k < 0) {
		if (af_archive_index(h, af_archive_name(h, af_base(arc)), out))
			rc = af_diag_error(d, AF_ENOMEM, "out of memory");
	} else {
		*where = path;
		rc = member_doc(h, (size_t)k, path, schema_ref, opts, bound, out, d);
		if (!rc && with && h->m[k].codec && !af_archive_sub(h, (size_t)k)) {
			struct af_io io;
			h->c->member_io(h->st, (size_t)k, &io);
			rc = with(ctx, out, &io, d);
		}
	}
out:
	unload(&o);
	return rc;
}

int af_cli_arc_render(const char *path, const char *arc, const char *member,
		      const char *schema_ref, const struct af_opts *opts, struct af_buf *out,
		      const char **where, struct af_diag *d)
{
	return render(path, arc, member, schema_ref, opts, NULL, out, where, d, NULL, NULL);
}

int af_cli_arc_render_with(const char *path, const char *arc, const char *member,
			   struct af_buf *out, const char **where, struct af_diag *d,
			   int (*with)(void *ctx, const struct af_buf *yaml, const struct af_io *io,
				       struct af_diag *d),
			   void *ctx)
{
	return render(path, arc, member, NULL, NULL, NULL, out, where, d, with, ctx);
}

int af_cli_arc_decode(const char *path, const char *arc, const char *member, const char *out,
		      const char *schema_ref, const struct af_opts *opts, size_t cache_bytes)
{
	struct af_buf yaml = AF_BUF_INIT;
	struct af_diag d;
	const char *where = arc;
	int rc = AF_EXIT_FAIL;
	struct af_cli_bound bound; /* the document within the text half, as a file's */
	af_cli_bound_init(&bound, cache_bytes);
	af_diag_init(&d);
	yaml.bound = &bound.text;
	/* the members' models within the other half (af_member_yaml_room), as a file's */
	if (render(path, arc, member, schema_ref, opts, &bound, &yaml, &where, &d, NULL, NULL) ||
	    yaml.over || bound.refused) {
		if (yaml.over || bound.refused)
			af_cli_bound_refusal(&bound, yaml.over, &d);
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
	af_buf_free(&yaml);
	af_diag_free(&d);
	return rc;
}

/* As for a file (convert.c): warnings about what the member already held are noise;
 * its own are those of its decode and encode. */
static void drop_old_warnings(const struct af_archive *h, size_t k, struct af_diag *d)
{
	struct af_diag od;
	if (!d->warnings.len)
		return;
	af_diag_init(&od);
	if (!af_member_roundtrip(h, k, &od))
		af_diag_drop_known(d, &od);
	af_diag_free(&od);
}

/* af_cli_arc_encode with the YAML read from yamlpath, or given (text: its bytes): the
 * member checked here (a member's view, or a new one its container gains), then saved
 * through the mount's save pipeline (af_save_file: the container proven, the member
 * encoded, --overlay's reduce, the rebuild read back, unchanged skipped, replaced). */
static int encode(const char *yamlpath, const struct af_buf *text, const char *path, const char *arc,
		  const char *member, const struct af_cli_ov *ov, size_t cache_bytes)
{
	struct opened o;
	struct af_archive *h;
	struct af_buf yaml = AF_BUF_INIT;
	struct af_save_said said;
	struct af_diag d;
	char dir[4096], moddir[8400], rel[4096 + AF_MEMBER_NAME_MAX];
	const char *where = arc;
	int rc = AF_EXIT_FAIL;
	long k;
	af_diag_init(&d);
	af_diag_init(&said.d);
	memset(&o, 0, sizeof(o));
	o.src.fd = -1;
	if ((ov ? load_ov(arc, ov, &o, &d) : load(arc, &o, &d)) ||
	    !(h = member_of(&o, arc, member, 1, &k)))
		goto out;
	af_diag_clear(&d); /* the container's warnings: the save's open says them again */
	if (k == -1 || (k >= 0 && (af_archive_sub(h, (size_t)k) || !h->m[k].codec))) {
		af_diag_error(&d, AF_EUNSUP, "%s is shown read-only; only a member's YAML view is encoded",
			      member);
		goto out;
	}
	where = yamlpath;
	if (text ? af_buf_append(&yaml, text->data, text->len) && af_diag_error(&d, AF_ENOMEM, "out of memory")
		 : af_read_file_at(AT_FDCWD, strcmp(yamlpath, "-") ? yamlpath : "/dev/stdin", AF_MAX_YAML, &yaml, &d))
		goto out;
	/* the mount's save, on a state over the container's folder (--overlay: and its
	 * place in MODDIR); a new member (k == -2): the container adds it */
	snprintf(rel, sizeof(rel), "%s/%s", af_cli_dir_of(arc, dir, sizeof(dir)), member);
	if (ov)
		af_cli_dir_of(ov->mod, moddir, sizeof(moddir));
	struct af_save_once once = {dir, ov ? moddir : NULL, rel, cache_bytes, NULL, 0};
	if (af_save_file(&once, yaml.data, yaml.len, &said)) {
		if (said.late)
			where = ov ? ov->mod : arc;
		goto out;
	}
	if (k == -2)
		fprintf(stderr, "animfs: %s: added to the %s\n", path, h->c->noun);
	else
		drop_old_warnings(h, (size_t)k, &said.d);
	if (said.gone)
		fprintf(stderr, "animfs: %s: as GAME's again; no override kept\n", ov ? ov->mod : arc);
	else if (!said.wrote)
		fprintf(stderr, "animfs: %s: unchanged; the %s was not rewritten\n", path, o.a.c->noun);
	rc = AF_EXIT_OK;
out:
	if (d.code || d.warnings.len)
		af_cli_report(where, &d);
	if (said.d.code || said.d.warnings.len)
		af_cli_report(where, &said.d);
	unload(&o);
	af_buf_free(&yaml);
	af_diag_free(&said.d);
	af_diag_free(&d);
	return rc;
}

int af_cli_arc_encode(const char *yamlpath, const char *path, const char *arc, const char *member,
		      const struct af_cli_ov *ov, size_t cache_bytes)
{
	return encode(yamlpath, NULL, path, arc, member, ov, cache_bytes);
}

int af_cli_arc_encode_text(const struct af_buf *yaml, const char *path, const char *arc, const char *member,
			   size_t cache_bytes)
{
	return encode(path, yaml, path, arc, member, NULL, cache_bytes);
}

static size_t table_index(const struct af_container *c)
{
	size_t k = 0;
	while (af_containers[k] && af_containers[k] != c)
		k++;
	return k;
}

struct checker {
	struct af_cli_arc_stats *st; /* per container, in table order */
	size_t max;
	void (*fail)(const char *path, const char *what);
	void (*member)(const char *codec, unsigned long long bytes, int ok);
};

/* A rebuild compared with the bytes it was made from, as it is handed over (in chunks):
 * where it first differs, and how long it is. */
struct same {
	const struct af_src *src;
	uint64_t out;  /* bytes handed so far */
	uint64_t diff; /* the first offset that differs (UINT64_MAX: none yet) */
	uint8_t buf[64 * 1024];
};

static int same_put(void *ctx, const uint8_t *data, size_t n, struct af_diag *d)
{
	struct same *s = ctx;
	for (size_t done = 0; done < n && s->diff == UINT64_MAX;) {
		uint64_t at = s->out + done;
		size_t m = n - done < sizeof(s->buf) ? n - done : sizeof(s->buf);
		if (at >= s->src->size) {
			s->diff = at;
			break;
		}
		if (m > s->src->size - at)
			m = (size_t)(s->src->size - at);
		int rc = af_src_read(s->src, at, s->buf, m, d);
		if (rc)
			return rc;
		if (memcmp(s->buf, data + done, m))
			s->diff = at + af_first_diff(s->buf, m, data + done, m);
		done += m;
	}
	s->out += n;
	return 0;
}

/* a and each nested archive (self: the bytes a was opened from): members round-trip, a
 * rebuild without edits is identical, compared in chunks (neither is held whole where
 * the container hands its rebuild in pieces); each layer counts under its own
 * container. */
static void check_archive(const struct checker *ck, struct af_archive *a, const char *label,
			  const struct af_src *self)
{
	struct af_buf body = AF_BUF_INIT;
	struct af_diag d;
	char msg[2048], item[4096 + AF_MEMBER_NAME_MAX + 2];
	size_t t = table_index(a->c);
	struct af_cli_arc_stats dummy = {0}, *st = t < ck->max ? &ck->st[t] : &dummy;
	struct same *same = NULL;
	af_diag_init(&d);
	st->archives++;
	for (size_t k = 0; k < a->n; k++) {
		struct af_archive *sub = af_archive_sub(a, k);
		snprintf(item, sizeof(item), "%s/%s", label, a->m[k].name);
		st->members++;
		if (!sub && !a->m[k].codec)
			continue; /* raw: carried as it is, and compared with the rebuild */
		af_buf_reset(&body);
		af_diag_clear(&d);
		af_archive_body(a, k, &body, &d);
		af_diag_clear(&d);
		if (sub) {
			struct af_src inner = {body.data, -1, body.len, 0};
			check_archive(ck, sub, a->c->layer ? label : item, &inner);
			continue;
		}
		int ok = af_member_roundtrip(a, k, &d) == 0;
		if (!ok) {
			af_diag_format(&d, "round trip", msg, sizeof(msg));
			ck->fail(item, msg);
		}
		ck->member(a->m[k].codec, body.len, ok);
	}
	af_buf_free(&body);
	af_diag_clear(&d);
	if (!a->c->rebuild && !a->c->rebuild_plan) { /* the file itself */
		st->rebuilt++;
		goto out;
	}
	if (!(same = af_alloc(sizeof(*same)))) {
		ck->fail(label, "rebuild: out of memory");
		st->failed_archives++;
		goto out;
	}
	same->src = self;
	same->out = 0;
	same->diff = UINT64_MAX;
	if (af_archive_rebuild_each(a, same_put, same, &d)) {
		af_diag_format(&d, "rebuild", msg, sizeof(msg));
		ck->fail(label, msg);
		st->failed_archives++;
	} else if (same->diff != UINT64_MAX || same->out != self->size) {
		snprintf(msg, sizeof(msg),
			 "a %s rebuild without edits differs from offset 0x%llx (%llu bytes in, %llu out)",
			 a->c->name,
			 (unsigned long long)(same->diff != UINT64_MAX ? same->diff
				: same->out < self->size ? same->out : self->size),
			 (unsigned long long)self->size, (unsigned long long)same->out);
		ck->fail(label, msg);
		st->failed_archives++;
	} else {
		st->rebuilt++;
	}
out:
	free(same);
	af_diag_free(&d);
}

void af_cli_arc_check(const char *path, const struct af_cli_arc_bound *bound,
		      struct af_cli_arc_stats *st, size_t max,
		      void (*fail)(const char *path, const char *what),
		      void (*member)(const char *codec, unsigned long long bytes, int ok))
{
	struct opened o;
	struct af_diag d;
	struct checker ck = {st, max, fail, member};
	char msg[2048];
	af_diag_init(&d);
	memset(&o, 0, sizeof(o));
	if (load(path, &o, &d)) {
		const struct af_container *c = af_cli_arc_of(path);
		size_t t = table_index(c);
		af_diag_format(&d, c ? c->noun : "container", msg, sizeof(msg));
		strncat(msg, " (refused: shown as the plain file)", sizeof(msg) - strlen(msg) - 1);
		fail(path, msg);
		if (t < max) {
			st[t].archives++;
			st[t].refused++;
		}
		goto out;
	}
	if (bound) {
		o.a.yaml_max = bound->yaml_max;
		o.a.yaml_more = bound->yaml_more;
		o.a.yaml_more_ctx = bound->yaml_more_ctx;
	}
	check_archive(&ck, &o.a, path, &o.src);
out:
	unload(&o);
	af_diag_free(&d);
}
