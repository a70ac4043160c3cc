/* Where a YAML syntax error is. libyaml stops where it notices a slip, which is often
 * the token after it: a lost ':' or a bad indent is noticed on the next line, a lost
 * ']' where the document goes on. Its context mark, a second scan of the tokens before
 * the stop and the indentation of the two lines tell where the mistake is. The fast
 * scanner (yamlfast.c) never reports a syntax error: it gives up on anything malformed
 * and libyaml reads the text, so every syntax error af_ydoc_parse reports comes from
 * here, whichever reader was asked for. */
#include <string.h>

#include "yamlerr.h"

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

/* Where line ls..le (no break) ends and the next starts, as libyaml counts lines
 * ("\r\n", "\n" or "\r"; its Unicode breaks are not counted, which only makes a
 * guess below miss). */
static const uint8_t *line_end(const uint8_t *p, const uint8_t *end, const uint8_t **next)
{
	while (p < end && *p != '\n' && *p != '\r')
		p++;
	*next = p;
	if (p < end)
		*next = (*p == '\r' && p + 1 < end && p[1] == '\n') ? p + 2 : p + 1;
	return p;
}

/* Line number line (0-based, as in a mark): 0 when the text has fewer lines. */
static int line_span(const uint8_t *text, size_t n, size_t line, const uint8_t **ls,
		     const uint8_t **le)
{
	const uint8_t *p = text, *end = text + n, *next;
	for (size_t l = 0; l < line; l++) {
		if (p >= end)
			return 0;
		line_end(p, end, &next);
		p = next;
	}
	*ls = p;
	*le = line_end(p, end, &next);
	return 1;
}

/* The spaces before a line's content; -1 for a blank line or a comment. */
static int indent_of(const uint8_t *ls, const uint8_t *le)
{
	const uint8_t *q = ls;
	while (q < le && *q == ' ')
		q++;
	if (q == le || *q == '#' || *q == '\t')
		return -1;
	return (int)(q - ls);
}

/* How many content lines are indented by exactly k spaces, and the step of the other
 * content lines' indentations (their greatest common divisor; 0 when all are 0), the
 * lines skip1 and skip2 (0-based) aside. */
static size_t lines_indented(const uint8_t *text, size_t n, int k, size_t skip1, size_t skip2,
			     int *step)
{
	const uint8_t *p = text, *end = text + n, *next, *le;
	size_t count = 0;
	int g = 0;
	for (size_t line = 0; p < end; line++, p = next) {
		le = line_end(p, end, &next);
		int i = indent_of(p, le);
		count += i == k;
		if (i > 0 && line != skip1 && line != skip2) {
			int a = g, b = i;
			while (b) {
				int r = a % b;
				a = b;
				b = r;
			}
			g = a;
		}
	}
	*step = g;
	return count;
}

/* Of lines q and p (0-based), both indented, the one whose indentation is wrong when
 * the two disagree: the one off the step the other lines keep, else the one whose
 * indentation the document uses less; p when neither tells. */
static size_t odd_indent(const uint8_t *text, size_t n, size_t q, int iq, size_t p, int ip)
{
	int step;
	size_t cq = lines_indented(text, n, iq, q, p, &step);
	size_t cp = lines_indented(text, n, ip, q, p, &step);
	if (step > 1 && (iq % step != 0) != (ip % step != 0))
		return iq % step ? q : p;
	return cq < cp ? q : p;
}

/* Is mark m the first thing on its line, after spaces and "- " entries? */
static int leads_line(const uint8_t *text, size_t n, yaml_mark_t m)
{
	const uint8_t *ls, *le;
	if (!line_span(text, n, m.line, &ls, &le) || m.column > (size_t)(le - ls))
		return 0;
	for (size_t i = 0; i < m.column; i++)
		if (ls[i] != ' ' && ls[i] != '-')
			return 0;
	return 1;
}

static int before(yaml_mark_t a, yaml_mark_t b)
{
	return a.line < b.line || (a.line == b.line && a.column < b.column);
}

struct tok {
	yaml_token_type_t type;
	yaml_mark_t start;
};

/* The last token that starts before at (block ends aside: libyaml places them at the
 * next token), by a second scan of the text. 0: none, or the scanner ran out of memory. */
static int token_before(const uint8_t *text, size_t n, yaml_mark_t at, struct tok *last)
{
	yaml_parser_t p;
	yaml_token_t tk;
	int found = 0;

	if (!yaml_parser_initialize(&p))
		return 0;
	yaml_parser_set_input_string(&p, text, n);
	while (yaml_parser_scan(&p, &tk)) {
		yaml_token_type_t type = tk.type;
		yaml_mark_t start = tk.start_mark;
		yaml_token_delete(&tk);
		if (type == YAML_NO_TOKEN || type == YAML_STREAM_END_TOKEN || !before(start, at))
			break;
		if (type != YAML_BLOCK_END_TOKEN) {
			last->type = type;
			last->start = start;
			found = 1;
		}
	}
	yaml_parser_delete(&p);
	return found;
}

/* Contexts whose mark is where something was opened that the problem found unclosed:
 * the mistake is there, not where libyaml gave up looking for its end. A simple key
 * is on one line, so its ':' was lost on that line; a quoted scalar's other problems
 * (a bad escape) are where libyaml says. */
static int opened_here(const char *context, const char *problem)
{
	static const char *const opened[] = {
		"while scanning a simple key",
		"while parsing a flow sequence",
		"while parsing a flow mapping",
	};
	for (size_t i = 0; i < sizeof(opened) / sizeof(opened[0]); i++)
		if (!strcmp(context, opened[i]))
			return 1;
	return !strcmp(context, "while scanning a quoted scalar") &&
	       (strstr(problem, "end of stream") || strstr(problem, "document indicator"));
}

int af_yerr_report(const uint8_t *text, size_t n, const yaml_parser_t *p, struct af_diag *d)
{
	const char *prob = p->problem ? p->problem : "malformed YAML";
	const char *ctx = p->context;
	yaml_mark_t pm = p->problem_mark, cm = p->context_mark;
	unsigned pl = (unsigned)pm.line + 1, pc = (unsigned)pm.column + 1;
	const uint8_t *ls, *le;
	struct tok last = {0};

	if (p->error == YAML_READER_ERROR)
		return reader_error(text, n, p, d);
	if (ctx && opened_here(ctx, prob) && cm.line < pm.line)
		return af_diag_at_mark(d, AF_EINVAL, (unsigned)cm.line + 1, (unsigned)cm.column + 1,
				       "%s (%s from here to %u:%u)", prob, ctx, pl, pc);

	/* A ':' after a plain scalar that began on an earlier line at the start of its
	 * line, or a block that goes on after one: that line lost its ':' (its text ran on
	 * into the next line's key). */
	int mapvalue = !strcmp(prob, "mapping values are not allowed in this context");
	int block = !strcmp(prob, "did not find expected key") ||
		    !strcmp(prob, "did not find expected '-' indicator");
	if ((mapvalue || block) && token_before(text, n, pm, &last)) {
		if (last.type == YAML_SCALAR_TOKEN && last.start.line < pm.line &&
		    leads_line(text, n, last.start))
			return af_diag_at_mark(d, AF_EINVAL, (unsigned)last.start.line + 1,
					       (unsigned)last.start.column + 1,
					       "no ':' after this key? (%s%s%s at %u:%u)",
					       ctx ? ctx : "", ctx ? ", " : "", prob, pl, pc);
		/* A line that does not fit the one before (a block noticed at the next
		 * line, a plain value that ran on into it): of the two lines, the one
		 * whose indentation is odd is wrong (the first key of a nested mapping
		 * indented wrongly is noticed at the second). */
		size_t q = last.start.line;
		int iq, ip;
		if (q < pm.line && line_span(text, n, q, &ls, &le) && (iq = indent_of(ls, le)) >= 0 &&
		    line_span(text, n, pm.line, &ls, &le) && (ip = indent_of(ls, le)) >= 0 &&
		    iq != ip && odd_indent(text, n, q, iq, pm.line, ip) == q)
			return af_diag_at_mark(d, AF_EINVAL, (unsigned)q + 1, (unsigned)iq + 1,
					       "check this line's indentation: %d spaces, where line "
					       "%u has %d (%s%s%s at %u:%u)",
					       iq, pl, ip, ctx ? ctx : "", ctx ? ", " : "", prob, pl, pc);
	}
	if (ctx)
		return af_diag_at_mark(d, AF_EINVAL, pl, pc, "%s, %s", ctx, prob);
	return af_diag_at_mark(d, AF_EINVAL, pl, pc, "%s", prob);
}
