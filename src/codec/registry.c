/* The codec table and bidding. Adding a format = one line here. */
#include <string.h>

#include "animfs/codec.h"

extern const struct af_codec af_codec_diesel;
extern const struct af_codec af_codec_jazz;
extern const struct af_codec af_codec_re_model;
extern const struct af_codec af_codec_motn;

const struct af_codec *const af_codecs[] = {
	&af_codec_diesel,
	&af_codec_jazz,
	&af_codec_re_model,
	&af_codec_motn,
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

/* Find a top-level "format: NAME" line without parsing the whole document. */
const struct af_codec *af_codec_for_yaml(const uint8_t *yaml, size_t n, struct af_diag *d)
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
				af_diag_at_mark(d, AF_EINVAL, line, 9,
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
