/* Reading a YAML document into a bounded tree whose nodes remember line:column:
 * aliases refused, depth and value count limited, duplicate keys rejected.
 * The fast scanner (yamlfast.c) reads the subset animfs writes; anything else,
 * and every malformed document, is read by libyaml, whose messages we report at the
 * mistake (yamlerr.c). Both feed the tree builder (ytree.c). */
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "animfs/yamlio.h"
#include "yamlerr.h"
#include "ytree.h"

/* ---------------------------------------------------------------- libyaml */

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
			rc = af_yerr_report(text, n, &parser, t->d);
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
