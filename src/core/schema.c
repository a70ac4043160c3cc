/* JSON Schema from shape tables (schema.h): a JSON writer that places commas and
 * indentation itself, and the walk from shapes to draft 2020-12 keywords. */
#include <stdio.h>
#include <string.h>

#include "animfs/num.h"
#include "animfs/schema.h"
#include "animfs/yamlio.h"

void af_json_begin(struct af_json *j, struct af_buf *b)
{
	memset(j, 0, sizeof(*j));
	j->b = b;
	j->fresh[0] = 1;
}

static void json_string(struct af_buf *b, const char *s)
{
	af_buf_putc(b, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			af_buf_putc(b, '\\'), af_buf_putc(b, (char)c);
		else if (c == '\n')
			af_buf_puts(b, "\\n");
		else if (c < 0x20)
			af_buf_printf(b, "\\u%04x", c);
		else
			af_buf_putc(b, (char)c);
	}
	af_buf_putc(b, '"');
}

/* The comma, newline and indent before a member, then its key. */
static void member(struct af_json *j, const char *key)
{
	unsigned d = j->depth < sizeof(j->fresh) ? j->depth : sizeof(j->fresh) - 1;
	if (j->depth) {
		if (!j->fresh[d])
			af_buf_putc(j->b, ',');
		af_buf_putc(j->b, '\n');
		af_buf_fill(j->b, ' ', 2 * j->depth);
	}
	j->fresh[d] = 0;
	if (key) {
		json_string(j->b, key);
		af_buf_puts(j->b, ": ");
	}
}

void af_json_open(struct af_json *j, const char *key, char brace)
{
	member(j, key);
	af_buf_putc(j->b, brace);
	j->depth++;
	if (j->depth < sizeof(j->fresh))
		j->fresh[j->depth] = 1;
}

void af_json_close(struct af_json *j, char brace)
{
	int empty = j->depth < sizeof(j->fresh) && j->fresh[j->depth];
	j->depth--;
	if (!empty) {
		af_buf_putc(j->b, '\n');
		af_buf_fill(j->b, ' ', 2 * j->depth);
	}
	af_buf_putc(j->b, brace);
	if (!j->depth)
		af_buf_putc(j->b, '\n');
}

void af_json_str(struct af_json *j, const char *key, const char *v)
{
	member(j, key);
	json_string(j->b, v);
}

void af_json_num(struct af_json *j, const char *key, double v)
{
	char t[AF_NUM_MAX];
	member(j, key);
	af_buf_append(j->b, t, af_fmt_f64(t, v));
}

void af_json_bool(struct af_json *j, const char *key, int v)
{
	af_json_raw(j, key, v ? "true" : "false");
}

void af_json_raw(struct af_json *j, const char *key, const char *json)
{
	member(j, key);
	af_buf_puts(j->b, json);
}

/* ---------------------------------------------------------------- shapes */

#define SH(k, d) { .kind = (k), .doc = (d) }
const struct af_sch af_sch_any = SH(AF_SK_ANY, NULL);
const struct af_sch af_sch_str = SH(AF_SK_STR, NULL);
const struct af_sch af_sch_num = SH(AF_SK_NUM, NULL);
const struct af_sch af_sch_int = SH(AF_SK_INT, NULL);
const struct af_sch af_sch_bool = SH(AF_SK_BOOL, NULL);
const struct af_sch af_sch_name = SH(AF_SK_NAME, NULL);
const struct af_sch af_sch_hex = SH(AF_SK_HEX, NULL);
const struct af_sch af_sch_u8 = { .kind = AF_SK_INT, .ranged = 1, .lo = 0, .hi = 255 };
const struct af_sch af_sch_u16 = { .kind = AF_SK_INT, .ranged = 1, .lo = 0, .hi = 65535 };
const struct af_sch af_sch_u32 = { .kind = AF_SK_INT, .ranged = 1, .lo = 0, .hi = 4294967295.0 };
const struct af_sch af_sch_u64 = { .kind = AF_SK_INT, .ranged = 1, .lo = 0,
				   .hi = 18446744073709551615.0 };

static void type_of(struct af_json *j, const char *t, int nullable)
{
	char list[64];
	if (!nullable) {
		if (t[0] == '[')
			af_json_raw(j, "type", t);
		else
			af_json_str(j, "type", t);
		return;
	}
	if (t[0] == '[')
		snprintf(list, sizeof(list), "%.*s, \"null\"]", (int)strlen(t) - 1, t);
	else
		snprintf(list, sizeof(list), "[\"%s\", \"null\"]", t);
	af_json_raw(j, "type", list);
}

static void write_enum(struct af_json *j, const struct af_sch *s)
{
	/* oneOf of consts, so that each value shows its own description in an editor */
	af_json_open(j, "oneOf", '[');
	for (const struct af_sch_val *v = s->vals; v->value; v++) {
		af_json_open(j, NULL, '{');
		if (v->value[strspn(v->value, "0123456789")] == 0) /* a number, as YAML reads it */
			af_json_raw(j, "const", v->value);
		else
			af_json_str(j, "const", v->value);
		if (v->doc)
			af_json_str(j, "description", v->doc);
		af_json_close(j, '}');
	}
	if (s->nullable) {
		af_json_open(j, NULL, '{');
		af_json_raw(j, "type", "\"null\"");
		af_json_close(j, '}');
	}
	af_json_close(j, ']');
}

static void write_map(struct af_json *j, const struct af_sch *s)
{
	int nreq = 0;
	type_of(j, "object", s->nullable);
	af_json_open(j, "properties", '{');
	for (const struct af_sch_prop *p = s->props; p->key; p++) {
		af_sch_write(j, p->key, p->s, p->doc);
		nreq += !!(p->flags & AF_SCH_REQUIRED);
	}
	af_json_close(j, '}');
	if (nreq) {
		af_json_open(j, "required", '[');
		for (const struct af_sch_prop *p = s->props; p->key; p++)
			if (p->flags & AF_SCH_REQUIRED)
				af_json_str(j, NULL, p->key);
		af_json_close(j, ']');
	}
	if (!s->open)
		af_json_bool(j, "additionalProperties", 0);
}

void af_sch_body(struct af_json *j, const struct af_sch *s)
{
	switch (s->kind) {
	case AF_SK_ANY:
		break;
	case AF_SK_STR:
		type_of(j, "string", s->nullable);
		break;
	case AF_SK_NUM:
	case AF_SK_INT:
		type_of(j, s->kind == AF_SK_NUM ? "number" : "integer", s->nullable);
		if (s->ranged) {
			af_json_num(j, "minimum", s->lo);
			af_json_num(j, "maximum", s->hi);
		}
		break;
	case AF_SK_BOOL:
		type_of(j, "boolean", s->nullable);
		break;
	case AF_SK_NAME:
		type_of(j, "[\"string\", \"integer\"]", s->nullable);
		break;
	case AF_SK_HEX:
		type_of(j, "string", s->nullable);
		af_json_str(j, "pattern", "^[0-9A-Fa-f\\s]*$");
		break;
	case AF_SK_ENUM:
		write_enum(j, s);
		break;
	case AF_SK_MAP:
		write_map(j, s);
		break;
	case AF_SK_LIST:
	case AF_SK_TUPLE:
		type_of(j, "array", s->nullable);
		if (s->kind == AF_SK_TUPLE && s->prefix) {
			af_json_open(j, "prefixItems", '[');
			for (const struct af_sch *const *p = s->prefix; *p; p++)
				af_sch_write(j, NULL, *p, NULL);
			af_json_close(j, ']');
		}
		if (s->items)
			af_sch_write(j, "items", s->items, NULL);
		else if (s->kind == AF_SK_TUPLE)
			af_json_bool(j, "items", 0);
		if (s->min)
			af_json_num(j, "minItems", s->min);
		if (s->max)
			af_json_num(j, "maxItems", s->max);
		break;
	case AF_SK_ANYOF:
		af_json_open(j, "anyOf", '[');
		for (const struct af_sch *const *a = s->alts; *a; a++)
			af_sch_write(j, NULL, *a, NULL);
		af_json_close(j, ']');
		break;
	case AF_SK_FN:
		s->fn(j);
		break;
	case AF_SK_REF: {
		char ref[128];
		snprintf(ref, sizeof(ref), "#/$defs/%s", s->ref);
		af_json_str(j, "$ref", ref);
		break;
	}
	}
}

void af_sch_write(struct af_json *j, const char *key, const struct af_sch *s, const char *doc)
{
	af_json_open(j, key, '{');
	if (doc || s->doc)
		af_json_str(j, "description", doc ? doc : s->doc);
	af_sch_body(j, s);
	af_json_close(j, '}');
}

int af_sch_document(const char *format, const char *title, const struct af_sch *root,
		    struct af_buf *out)
{
	struct af_json j;
	char id[128];
	size_t start = out->len;
	snprintf(id, sizeof(id), "urn:animfs:schema:%s", format);
	af_json_begin(&j, out);
	af_json_open(&j, NULL, '{');
	af_json_str(&j, "$schema", "https://json-schema.org/draft/2020-12/schema");
	af_json_str(&j, "$id", id);
	af_json_str(&j, "title", title);
	if (root->doc)
		af_json_str(&j, "description", root->doc);
	af_sch_body(&j, root);
	af_json_close(&j, '}');
	if (out->failed) {
		out->len = start;
		return -2; /* AF_ENOMEM */
	}
	return 0;
}

int af_sch_has_key(const struct af_sch_prop *props, const char *key)
{
	for (; props->key; props++)
		if (!strcmp(props->key, key))
			return 1;
	return 0;
}

void af_sch_key_list(const struct af_sch_prop *props, char *out, size_t size)
{
	size_t n = 0;
	out[0] = 0;
	for (const struct af_sch_prop *p = props; p->key && n < size; p++) {
		int w = snprintf(out + n, size - n, "%s%s", p == props ? "" : ", ", p->key);
		if (w < 0)
			break;
		n += (size_t)w;
	}
}

const struct af_ynode *af_sch_unknown_key(const struct af_sch_prop *props,
					  const struct af_ynode *map)
{
	if (map->type != AF_YMAP)
		return NULL;
	for (size_t i = 0; i < map->n; i++) {
		const struct af_ynode *k = &map->items[2 * i];
		if (k->type != AF_YSCALAR || !af_sch_has_key(props, k->str))
			return k;
	}
	return NULL;
}

int af_sch_check_keys(struct af_diag *d, const struct af_sch_prop *props,
		      const struct af_ynode *map, const char *what)
{
	const struct af_ynode *k = af_sch_unknown_key(props, map);
	char list[300];
	if (!k)
		return 0;
	af_sch_key_list(props, list, sizeof(list));
	return af_y_error(d, k, "%s: unknown key '%.40s' (expected %s)", what,
			  k->type == AF_YSCALAR ? k->str : "?", list);
}
