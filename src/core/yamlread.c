/* Reading a YAML document into a bounded tree whose nodes remember line:column:
 * aliases refused, depth and value count limited, duplicate keys rejected.
 * The fast scanner (yamlfast.c) reads the subset animfs writes; anything else,
 * and every malformed document, is read by libyaml, whose messages we report. Both
 * feed the tree builder (ytree.c). */
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "animfs/yamlio.h"
#include "ytree.h"

/* ---------------------------------------------------------------- libyaml */

/* libyaml's reader (bad UTF-8, control characters) reports a byte offset, not a
 * mark: turn it into line:column (columns count characters) for the message. */
static int reader_error(const uint8_t *text, size_t n, const yaml_parser_t *p,
			struct af_diag *d)
{
	size_t off = p->problem_offset < n ? p->problem_offset : n;
	unsigned line = 1, col = 1;
	for (size_t i = 0; i < off; i++) {
		if (text[i] == '\n') {
			line++;
			col = 1;
		} else if ((text[i] & 0xC0) != 0x80) {
			col++;
		}
	}
	if (p->problem_value >= 0)
		return af_diag_at_mark(d, AF_EINVAL, line, col, "%s (byte 0x%02x at offset %zu)",
				       p->problem, (unsigned)p->problem_value, off);
	return af_diag_at_mark(d, AF_EINVAL, line, col, "%s (at offset %zu)", p->problem, off);
}

static int parse_error(const uint8_t *text, size_t n, const yaml_parser_t *p, struct af_diag *d)
{
	const char *prob = p->problem ? p->problem : "malformed YAML";
	unsigned line = (unsigned)p->problem_mark.line + 1, col = (unsigned)p->problem_mark.column + 1;
	if (p->error == YAML_READER_ERROR)
		return reader_error(text, n, p, d);
	if (p->context)
		return af_diag_at_mark(d, AF_EINVAL, line, col, "%s %s", p->context, prob);
	return af_diag_at_mark(d, AF_EINVAL, line, col, "%s", prob);
}

static int libyaml_parse(struct af_ytree *t, const uint8_t *text, size_t n)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	int rc = 0, docs = 0, have_ev = 0;

	if (!yaml_parser_initialize(&parser))
		return af_diag_error(t->d, AF_ENOMEM, "cannot initialise the YAML parser");
	yaml_parser_set_input_string(&parser, text, n);
	for (;;) {
		if (!yaml_parser_parse(&parser, &ev)) {
			rc = parse_error(text, n, &parser, t->d);
			goto out;
		}
		have_ev = 1;
		unsigned line = (unsigned)ev.start_mark.line + 1, col = (unsigned)ev.start_mark.column + 1;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			goto out;
		case YAML_DOCUMENT_START_EVENT:
			if (++docs > 1) {
				rc = af_diag_at_mark(t->d, AF_EINVAL, line, col,
						     "more than one YAML document; expected exactly one");
				goto out;
			}
			break;
		case YAML_ALIAS_EVENT:
			rc = af_diag_at_mark(t->d, AF_EINVAL, line, col,
					     "aliases (*%s) are not supported; write the value out",
					     (const char *)ev.data.alias.anchor);
			goto out;
		case YAML_SCALAR_EVENT:
			rc = af_ytree_scalar(t, line, col, (const char *)ev.data.scalar.value,
					     ev.data.scalar.length,
					     ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE,
					     (const char *)ev.data.scalar.tag);
			break;
		case YAML_SEQUENCE_START_EVENT:
			rc = af_ytree_open(t, AF_YSEQ, line, col, (const char *)ev.data.sequence_start.tag);
			break;
		case YAML_MAPPING_START_EVENT:
			rc = af_ytree_open(t, AF_YMAP, line, col, (const char *)ev.data.mapping_start.tag);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			rc = af_ytree_close(t);
			break;
		default:
			break;
		}
		if (rc)
			goto out;
		yaml_event_delete(&ev);
		have_ev = 0;
	}
out:
	if (have_ev)
		yaml_event_delete(&ev);
	yaml_parser_delete(&parser);
	return rc;
}

/* ---------------------------------------------------------------- entry */

int af_ydoc_parse(struct af_ydoc *doc, const uint8_t *text, size_t n,
		  const struct af_ylimits *lim, struct af_diag *d)
{
	struct af_ytree t;
	struct af_diag fd;
	int rc, reader = lim ? lim->reader : AF_YREAD_AUTO;

	af_diag_init(&fd);
	if ((rc = af_ytree_init(&t, doc, lim, d)))
		goto out;
	if (n > AF_MAX_YAML) {
		rc = af_diag_error(d, AF_EINVAL,
				   "the document is %zu bytes; animfs accepts YAML up to %zu MiB", n,
				   AF_MAX_YAML >> 20);
		goto out;
	}
	if (reader != AF_YREAD_LIBYAML) {
		/* the fast scanner's own complaints are never shown: libyaml's are */
		t.d = &fd;
		rc = af_yfast_parse(&t, text, n);
		t.d = d;
		if (rc == 0 || reader == AF_YREAD_FAST)
			goto out;
		if (t.over) { /* libyaml's tree would be no smaller: say so now */
			rc = af_diag_at_mark(d, fd.code, fd.line, fd.col, "%s", fd.msg);
			goto out;
		}
		af_ytree_reset(&t);
	}
	if (!(rc = libyaml_parse(&t, text, n)) && !doc->root)
		rc = af_diag_at_mark(d, AF_EINVAL, 1, 1, "empty document");
out:
	af_ytree_free(&t);
	af_diag_free(&fd);
	if (rc)
		af_ydoc_free(doc);
	return rc;
}

void af_ydoc_free(struct af_ydoc *doc)
{
	af_arena_free(&doc->arena);
	doc->root = NULL;
}
