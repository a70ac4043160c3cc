/* JSON Schema (draft 2020-12) of a codec's YAML, written from descriptor tables that
 * the codec's parser also checks keys against, so schema and codec cannot drift.
 * A shape describes one YAML value; a map's properties carry their key, shape and the
 * description taken from docs/<format>.md. Shapes that a codec derives from its own
 * runtime tables (track types, chunk kinds) are written by a callback (AF_SK_FN). */
#ifndef ANIMFS_SCHEMA_H
#define ANIMFS_SCHEMA_H

#include <stddef.h>
#include "animfs/buf.h"

/* ---- a small JSON writer: commas and indentation are its business ---- */
struct af_json {
	struct af_buf *b;
	unsigned depth;
	unsigned char fresh[48]; /* no member written yet at this depth */
};
void af_json_begin(struct af_json *j, struct af_buf *b);
/* A member "key": (key NULL inside an array) opening '{' or '['. */
void af_json_open(struct af_json *j, const char *key, char brace);
void af_json_close(struct af_json *j, char brace);
void af_json_str(struct af_json *j, const char *key, const char *v);
void af_json_num(struct af_json *j, const char *key, double v);
void af_json_bool(struct af_json *j, const char *key, int v);
/* A value that is already JSON text ("true", "{}", "[\"a\"]"). */
void af_json_raw(struct af_json *j, const char *key, const char *json);

/* ---- shapes ---- */
enum af_sk {
	AF_SK_ANY,   /* anything */
	AF_SK_STR,   /* a text */
	AF_SK_NUM,   /* a number (lo..hi when ranged) */
	AF_SK_INT,   /* a whole number (lo..hi when ranged; hex 0x.. reads as one) */
	AF_SK_BOOL,
	AF_SK_NAME,  /* a name, or its hash as a number (hex) */
	AF_SK_HEX,   /* bytes as hex digits, spaces allowed */
	AF_SK_ENUM,  /* one of vals */
	AF_SK_MAP,   /* props; other keys refused unless open */
	AF_SK_LIST,  /* items, min..max of them (max 0: any) */
	AF_SK_TUPLE, /* prefix[0..], then items (NULL: nothing more); min..max values */
	AF_SK_ANYOF, /* one of alts */
	AF_SK_FN,    /* fn writes the members of the schema object itself */
	AF_SK_REF,   /* the shape under "$defs" named ref (the codec's fn writes $defs) */
};

struct af_json;
struct af_sch_val {
	const char *value, *doc;
};
struct af_sch_prop;
struct af_sch {
	enum af_sk kind;
	const char *doc;
	const struct af_sch_prop *props;    /* MAP: ends with a NULL key */
	const struct af_sch *items;         /* LIST; TUPLE: the values after prefix */
	const struct af_sch *const *prefix; /* TUPLE: ends with NULL */
	unsigned min, max;                  /* LIST, TUPLE: item count bounds (max 0: none) */
	const struct af_sch_val *vals;      /* ENUM: ends with a NULL value */
	const struct af_sch *const *alts;   /* ANYOF: ends with NULL */
	double lo, hi;                      /* NUM, INT: when ranged */
	int ranged;
	int open;                           /* MAP: keys beyond props are allowed */
	int nullable;                       /* null (an empty value) is allowed too */
	void (*fn)(struct af_json *j);      /* FN */
	const char *ref;                    /* REF */
};
#define AF_SCH_REQUIRED 1u
struct af_sch_prop {
	const char *key;
	const struct af_sch *s;
	const char *doc; /* NULL: the shape's own */
	unsigned flags;
};

/* Common shapes. */
extern const struct af_sch af_sch_any, af_sch_str, af_sch_num, af_sch_int, af_sch_bool,
	af_sch_name, af_sch_hex, af_sch_u8, af_sch_u16, af_sch_u32, af_sch_u64;

/* Write shape s as the value of member key (NULL inside an array), described by doc
 * (NULL: s->doc). */
void af_sch_write(struct af_json *j, const char *key, const struct af_sch *s, const char *doc);
/* The members of shape s's schema object (type, properties, ...), into the object open
 * at j: for a codec's fn that adds members of its own ($defs). */
void af_sch_body(struct af_json *j, const struct af_sch *s);
/* A whole schema document for format: $schema, $id (animfs:<format>), title, the root
 * shape. 0 or AF_ENOMEM. */
int af_sch_document(const char *format, const char *title, const struct af_sch *root,
		    struct af_buf *out);

/* Whether key is one of props (the parsers' unknown-key check). */
int af_sch_has_key(const struct af_sch_prop *props, const char *key);
/* The first key of the map that props lacks (a key that is no plain text counts as
 * unknown), or NULL. */
struct af_ynode;
const struct af_ynode *af_sch_unknown_key(const struct af_sch_prop *props,
					  const struct af_ynode *map);
/* The parsers' check: an error at the first key of map that props lacks, "what: unknown
 * key 'k' (expected a, b, c)"; 0 when there is none. */
struct af_diag;
int af_sch_check_keys(struct af_diag *d, const struct af_sch_prop *props,
		      const struct af_ynode *map, const char *what);
/* "a, b, c": the keys of props, for "expected ..." messages. */
void af_sch_key_list(const struct af_sch_prop *props, char *out, size_t size);

#endif
