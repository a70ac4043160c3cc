/* yaml2json FILE...: each YAML file as one line "[FILE,DOCUMENT]" of JSON, the document
 * loaded the way tests/tools/schema_check.py's load() loads it (the YAML 1.2 core schema,
 * as yaml-language-server reads a file) and written the way its json.dumps writes it for
 * Ajv, so that the big views reach the validator without a Python load (10 CPU s for a
 * 14 MB motion bank; this takes a few hundred ms). A file this does not convert exactly
 * (anchors, aliases, tags, a key that is a collection or a float, .nan or .inf, a hex or
 * octal integer past 64 bits, more than one document, a YAML error) is the line
 * "FALLBACK<TAB>FILE": schema_check.py loads that one itself. cli/schema checks on every
 * small view that this and the Python loader give the same document. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

struct out {
	char *p;
	size_t n, cap;
	int bad; /* 1: not converted exactly (FALLBACK); 2: out of memory */
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->bad)
		return;
	if (o->n + n > o->cap) {
		size_t cap = o->cap ? o->cap : 1 << 16;
		char *p;
		while (cap < o->n + n)
			cap *= 2;
		if (!(p = realloc(o->p, cap))) {
			o->bad = 2;
			return;
		}
		o->p = p;
		o->cap = cap;
	}
	memcpy(o->p + o->n, s, n);
	o->n += n;
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void put_string(struct out *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, run = 0;
	put(o, "\"", 1);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		put(o, s + run, i - run);
		run = i + 1;
		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };
			put(o, e, 2);
		} else {
			put(o, esc, 6);
		}
	}
	put(o, s + run, n - run);
	put(o, "\"", 1);
}

static int all_of(const char *s, size_t n, const char *set)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (!s[i] || !strchr(set, s[i]))
			return 0;
	return n > 0;
}

/* The expressions of schema_check.py (_NULL, _BOOL, _INT, _FLOAT). */
static int is_null(const char *s, size_t n)
{
	return n == 0 || (n == 1 && s[0] == '~') ||
	       (n == 4 && (!memcmp(s, "null", 4) || !memcmp(s, "Null", 4) || !memcmp(s, "NULL", 4)));
}

static int is_bool(const char *s, size_t n, int *v)
{
	static const char *const t[] = { "true", "True", "TRUE" }, *const f[] = { "false", "False", "FALSE" };
	int i;
	for (i = 0; i < 3; i++) {
		if (n == strlen(t[i]) && !memcmp(s, t[i], n))
			return *v = 1, 1;
		if (n == strlen(f[i]) && !memcmp(s, f[i], n))
			return *v = 0, 1;
	}
	return 0;
}

/* [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? */
static int is_float_number(const char *s, size_t n)
{
	size_t i = 0, d0, frac = 0;
	if (i < n && (s[i] == '-' || s[i] == '+'))
		i++;
	d0 = i;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	if (i == d0) {
		if (i >= n || s[i] != '.')
			return 0;
		i++;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++, frac++;
		if (!frac)
			return 0;
	} else if (i < n && s[i] == '.') {
		i++;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		size_t e0;
		i++;
		if (i < n && (s[i] == '-' || s[i] == '+'))
			i++;
		e0 = i;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == e0)
			return 0;
	}
	return i == n;
}

static int is_special_float(const char *s, size_t n)
{
	if (n && (s[0] == '-' || s[0] == '+') && n == 5)
		s++, n--;
	return n == 4 && (!memcmp(s, ".inf", 4) || !memcmp(s, ".Inf", 4) || !memcmp(s, ".INF", 4) ||
			  !memcmp(s, ".nan", 4) || !memcmp(s, ".NaN", 4) || !memcmp(s, ".NAN", 4));
}

/* A plain scalar's JSON: null, true/false, an integer, a number or a string. As a key
 * (key=1) it is the string json.dumps makes of the Python key. */
static void put_plain(struct out *o, const char *s, size_t n, int key)
{
	char buf[64];
	int b;
	if (is_null(s, n)) {
		puts_(o, key ? "\"null\"" : "null");
		return;
	}
	if (is_bool(s, n, &b)) {
		puts_(o, key ? (b ? "\"true\"" : "\"false\"") : (b ? "true" : "false"));
		return;
	}
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o') &&
	    all_of(s + 2, n - 2, s[1] == 'x' ? "0123456789abcdefABCDEF" : "01234567")) {
		size_t i = 2;
		while (i < n - 1 && s[i] == '0')
			i++;
		if (n - i > (s[1] == 'x' ? 16u : 21u)) {
			o->bad = 1; /* past 64 bits: Python's own */
			return;
		}
		snprintf(buf, sizeof buf, key ? "\"%" PRIu64 "\"" : "%" PRIu64,
			 (uint64_t)strtoull(s + 2, NULL, s[1] == 'x' ? 16 : 8));
		puts_(o, buf);
		return;
	}
	{
		size_t i = (n && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
		if (all_of(s + i, n - i, "0123456789")) {
			int neg = s[0] == '-';
			while (i < n - 1 && s[i] == '0')
				i++;
			if (key)
				put(o, "\"", 1);
			if (neg && !(n - i == 1 && s[i] == '0'))
				put(o, "-", 1);
			put(o, s + i, n - i);
			if (key)
				put(o, "\"", 1);
			return;
		}
	}
	if (is_special_float(s, n)) {
		o->bad = 1; /* JSON holds no .nan or .inf: schema_check.py sends it to jsonschema */
		return;
	}
	if (is_float_number(s, n)) {
		char tmp[512];
		double v;
		if (key || n >= sizeof tmp) {
			o->bad = 1; /* a float key is written by Python's repr */
			return;
		}
		memcpy(tmp, s, n);
		tmp[n] = 0;
		errno = 0;
		v = strtod(tmp, NULL);
		if (v - v != 0) {
			o->bad = 1; /* overflows to inf: not JSON */
			return;
		}
		snprintf(buf, sizeof buf, "%.17g", v);
		/* %.17g writes "inf"/"nan" never here; "1e+300" and "-0" are JSON */
		puts_(o, buf);
		return;
	}
	put_string(o, s, n);
}

enum { IN_SEQ, IN_MAP };

/* One file into o; 0 when converted, else o->bad or -1 (a YAML error: Python says it). */
static int convert(FILE *f, struct out *o)
{
	yaml_parser_t p;
	yaml_event_t ev;
	unsigned char *kind = NULL;  /* per open collection */
	size_t *count = NULL, depth = 0, cap = 0;
	int docs = 0, done = 0, rc = -1;
	if (!yaml_parser_initialize(&p))
		return -1;
	yaml_parser_set_input_file(&p, f);
	while (!done) {
		int coll = 0;
		if (!yaml_parser_parse(&p, &ev))
			goto out;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++docs > 1)
				o->bad = 1;
			break;
		case YAML_ALIAS_EVENT:
			o->bad = 1;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			put(o, ev.type == YAML_SEQUENCE_END_EVENT ? "]" : "}", 1);
			depth--;
			break;
		case YAML_SCALAR_EVENT:
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT: {
			int is_key = depth && kind[depth - 1] == IN_MAP && count[depth - 1] % 2 == 0;
			const yaml_char_t *anchor = ev.type == YAML_SCALAR_EVENT ? ev.data.scalar.anchor :
						    ev.type == YAML_SEQUENCE_START_EVENT ? ev.data.sequence_start.anchor :
											   ev.data.mapping_start.anchor;
			const yaml_char_t *tag = ev.type == YAML_SCALAR_EVENT ? ev.data.scalar.tag :
						 ev.type == YAML_SEQUENCE_START_EVENT ? ev.data.sequence_start.tag :
											ev.data.mapping_start.tag;
			if (anchor || tag)
				o->bad = 1;
			if (depth) {
				size_t c = count[depth - 1]++;
				if (kind[depth - 1] == IN_SEQ ? c > 0 : c % 2 == 0 && c > 0)
					put(o, ",", 1);
				else if (kind[depth - 1] == IN_MAP && c % 2 == 1)
					put(o, ":", 1);
			}
			if (ev.type != YAML_SCALAR_EVENT) {
				if (is_key)
					o->bad = 1;
				coll = ev.type == YAML_SEQUENCE_START_EVENT ? 1 : 2;
				break;
			}
			if (ev.data.scalar.plain_implicit)
				put_plain(o, (const char *)ev.data.scalar.value, ev.data.scalar.length, is_key);
			else
				put_string(o, (const char *)ev.data.scalar.value, ev.data.scalar.length);
			break;
		}
		default:
			break;
		}
		yaml_event_delete(&ev);
		if (coll) {
			if (depth == cap) {
				size_t nc = cap ? cap * 2 : 64;
				unsigned char *k = realloc(kind, nc);
				size_t *c;
				if (k)
					kind = k;
				c = k ? realloc(count, nc * sizeof(*count)) : NULL;
				if (!c) {
					o->bad = 2;
					goto out;
				}
				count = c;
				cap = nc;
			}
			kind[depth] = coll == 1 ? IN_SEQ : IN_MAP;
			count[depth++] = 0;
			put(o, coll == 1 ? "[" : "{", 1);
		}
		if (o->bad)
			goto out;
	}
	rc = docs ? 0 : -1; /* an empty stream is None to Python: let it say so */
out:
	free(kind);
	free(count);
	yaml_parser_delete(&p);
	return rc;
}

int main(int argc, char **argv)
{
	struct out o = { 0 };
	int i, rc = 0;
	for (i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		int r;
		o.n = 0;
		o.bad = 0;
		put(&o, "[", 1);
		put_string(&o, argv[i], strlen(argv[i]));
		put(&o, ",", 1);
		r = f ? convert(f, &o) : -1;
		if (f)
			fclose(f);
		if (o.bad == 2) {
			fprintf(stderr, "yaml2json: out of memory on %s\n", argv[i]);
			rc = 1;
			break;
		}
		if (r || o.bad) {
			printf("FALLBACK\t%s\n", argv[i]);
		} else {
			put(&o, "]\n", 2);
			fwrite(o.p, 1, o.n, stdout);
		}
		fflush(stdout);
	}
	free(o.p);
	return rc;
}
