/* The codec table and bidding. Adding a format = one line here. */
#include <string.h>
#include <strings.h>

#include "animfs/path.h"
#include "animfs/codec.h"
#include "animfs/schema.h"

extern const struct af_codec af_codec_diesel;
extern const struct af_codec af_codec_jazz;
extern const struct af_codec af_codec_re_model;
extern const struct af_codec af_codec_motn;
extern const struct af_codec af_codec_clip;
extern const struct af_codec af_codec_rig;

const struct af_codec *const af_codecs[] = {
	&af_codec_diesel,
	&af_codec_jazz,
	&af_codec_re_model,
	&af_codec_motn,
	&af_codec_clip,
	&af_codec_rig,
	NULL,
};

const struct af_codec *af_codec_bid(const char *name, const uint8_t *head, size_t n)
{
	const struct af_codec *best = NULL;
	int best_score = 0;
	for (size_t i = 0; af_codecs[i]; i++) {
		int s = af_codecs[i]->bid(name, head, n);
		if (s > best_score) {
			best_score = s;
			best = af_codecs[i];
		}
	}
	return best;
}

const struct af_codec *af_codec_by_name(const char *name)
{
	for (size_t i = 0; af_codecs[i]; i++)
		if (!strcmp(af_codecs[i]->name, name))
			return af_codecs[i];
	return NULL;
}

const struct af_codec_opt *af_codec_option(const char *name)
{
	for (size_t i = 0; af_codecs[i]; i++)
		for (const struct af_codec_opt *o = af_codecs[i]->options; o && o->name; o++)
			if (!strcmp(o->name, name))
				return o;
	return NULL;
}

/* Find a top-level "format: NAME" line without parsing the whole document: the
 * codec (NULL with d set), and the place of its value. */
static const struct af_codec *find_format(const uint8_t *yaml, size_t n, unsigned *at_line,
					  unsigned *at_col, struct af_diag *d)
{
	const char *p = (const char *)yaml, *end = p + n;
	unsigned line = 1;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		if ((size_t)(eol - p) > 7 && !memcmp(p, "format:", 7)) {
			const char *v = p + 7, *ve = eol;
			char name[64];
			while (v < ve && (*v == ' ' || *v == '\t'))
				v++;
			*at_line = line;
			*at_col = (unsigned)(v - p) + 1;
			while (ve > v && (ve[-1] == ' ' || ve[-1] == '\r' || ve[-1] == '\t'))
				ve--;
			if (ve - v >= 2 && (*v == '"' || *v == '\'') && ve[-1] == *v)
				v++, ve--;
			if ((size_t)(ve - v) >= sizeof(name))
				break;
			memcpy(name, v, (size_t)(ve - v));
			name[ve - v] = 0;
			const struct af_codec *c = af_codec_by_name(name);
			if (!c)
				af_diag_at_mark(d, AF_EINVAL, line, *at_col,
						"unknown format '%s' (see 'animfs formats')", name);
			return c;
		}
		p = eol + 1;
		line++;
	}
	af_diag_at_mark(d, AF_EINVAL, 1, 1,
			"no top-level 'format:' key, so the document's format is unknown");
	return NULL;
}

const struct af_codec *af_codec_for_yaml(const uint8_t *yaml, size_t n, struct af_diag *d)
{
	unsigned line, col;
	return find_format(yaml, n, &line, &col, d);
}

/* Whether c lists the extension of name (case-insensitive). */
static int lists_ext(const struct af_codec *c, const char *name)
{
	const char *ext = af_ext(name), *e = c->extensions;
	size_t el = strlen(ext);
	if (!el)
		return 0;
	while (e && *e) {
		size_t wl = strcspn(e, " ,");
		if (wl == el && !strncasecmp(e, ext, el))
			return 1;
		e += wl;
		e += strspn(e, " ,");
	}
	return 0;
}

const struct af_codec *af_codec_for_ext(const char *name, size_t i)
{
	for (size_t k = 0; af_codecs[k]; k++)
		if (lists_ext(af_codecs[k], name) && i-- == 0)
			return af_codecs[k];
	return NULL;
}

const struct af_codec *af_codec_for_save(const struct af_codec *claimed, const char *name,
					 const uint8_t *yaml, size_t n, struct af_diag *d)
{
	unsigned line = 1, col = 1;
	const struct af_codec *c = find_format(yaml, n, &line, &col, d);
	const char *base;
	if (!c)
		return NULL;
	base = af_base(name);
	if (claimed) {
		if (c == claimed)
			return c;
		af_diag_at_mark(d, AF_EINVAL, line, col,
				"format %s, but %s is a %s file; a file is saved only in its own "
				"format (it is unchanged)", c->name, base, claimed->name);
		return NULL;
	}
	if (!af_codec_for_ext(name, 0) || lists_ext(c, name))
		return c; /* a new file: its extension names the codec, when any codec lists it */
	af_diag_at_mark(d, AF_EINVAL, line, col, "format %s, but the extension of %s is %s's%s",
			c->name, base, af_codec_for_ext(name, 0)->name,
			af_codec_for_ext(name, 1) ? " (and others')" : "");
	return NULL;
}

const struct af_layout *af_codec_layout(const struct af_codec *c, const char *name)
{
	for (const struct af_layout *l = c && c->convert ? c->layouts : NULL; l && l->name; l++)
		if (name && !strcmp(l->name, name))
			return l;
	return NULL;
}

const struct af_overlay_layout *af_overlay_layout(const char *name, const struct af_codec **c)
{
	for (size_t i = 0; name && af_codecs[i]; i++)
		for (const struct af_overlay_layout *o = af_codecs[i]->convert ? af_codecs[i]->overlay_layouts : NULL;
		     o && o->name; o++)
			if (!strcmp(o->name, name)) {
				*c = af_codecs[i];
				return o;
			}
	return NULL;
}

int af_codec_relayout(const struct af_codec *c, const char *to, struct af_buf *bin,
		      const char **why, struct af_diag *d)
{
	struct af_buf out = AF_BUF_INIT;
	struct af_convert cv = { to, NULL, NULL };
	*why = NULL;
	if (!af_codec_layout(c, to))
		return 0;
	int rc = c->convert(bin->data, bin->len, &cv, &out, d);
	if (rc == 0 && out.failed)
		rc = af_diag_error(d, AF_ENOMEM, "out of memory");
	if (rc == 0) {
		struct af_buf t = *bin;
		*bin = out;
		out = t;
	} else if (rc == AF_CONVERT_ALREADY) {
		rc = 0;
	} else {
		*why = cv.why;
	}
	af_buf_free(&out);
	return rc;
}

int af_layout_has_style(const struct af_layout *l, const char *style)
{
	for (const char *const *s = l->styles; s && *s; s++)
		if (!strcmp(*s, style))
			return 1;
	return 0;
}

/* c may be NULL below: a container's member whose codec this build lacks has no schema. */
int af_codec_has_schema(const struct af_codec *c)
{
	return c && c->schema != NULL;
}

int af_codec_schema(const struct af_codec *c, struct af_buf *out)
{
	if (!c || !c->schema)
		return AF_EUNSUP;
	return af_sch_document(c->name, c->description, c->schema, out) ? AF_ENOMEM : 0;
}

int af_codec_modeline(const struct af_codec *c, const char *schema_dir, struct af_buf *out)
{
	if (!schema_dir || !strcmp(schema_dir, "none") || !c || !c->schema)
		return 0;
	af_buf_printf(out, "# yaml-language-server: $schema=%s%s%s.json\n", schema_dir,
		      schema_dir[0] && schema_dir[strlen(schema_dir) - 1] != '/' ? "/" : "", c->name);
	return out->failed ? AF_ENOMEM : 0;
}
