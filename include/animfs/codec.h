/* The codec descriptor table. A codec turns one binary format into YAML and back;
 * it knows nothing of FUSE and never prints. The FUSE layer and the command line
 * reach codecs only through this table. */
#ifndef ANIMFS_CODEC_H
#define ANIMFS_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include "animfs/buf.h"
#include "animfs/diag.h"
#include "animfs/io.h"

struct af_sch;
struct af_ynode;
struct af_curves;
struct af_scene;
struct af_scene_edit;

#define AF_BID_HEAD 64 /* bytes of the file's start passed to bid() */

/* to_yaml's return when out holds a complete view of the file but its YAML would
 * not encode back to the same bytes: d says why (code AF_EUNSUP, byte offset when
 * known) and the text says so at its top. Show it read-only; never save it back. */
#define AF_VIEW_READONLY 1

/* convert's return when the file already has the target layout (out untouched). */
#define AF_CONVERT_ALREADY 2

/* A request to rewrite a file in another layout of its own format. */
struct af_convert {
	const char *to;     /* the target layout, in the codec's words ("x64", "x32") */
	const char *style;  /* the writer style; NULL: the codec's default */
	const char *why;    /* out: when refused, a short reason for a summary table;
			     * with AF_CONVERT_ALREADY, NULL or a note on the file as it is */
};

/* A layout a codec's convert writes (`animfs convert --to NAME [--style S]`). */
struct af_layout {
	const char *name;          /* the --to value, in the codec's words ("x64") */
	const char *const *styles; /* its writer styles, NULL-terminated; the first is the default */
	const char *description;   /* one line for the help ("the 64-bit build of ...") */
};

/* A game's mod folder (`--overlay MODDIR --overlay-layout NAME`): where the game loads a
 * mod folder from, and the layout (of this codec's) it loads copy-ups in. Data only: the
 * command line checks MODDIR's path against it and picks the layout. */
struct af_overlay_layout {
	const char *name;        /* the --overlay-layout value ("pd2") */
	const char *description; /* one line for the help */
	const char *parent;      /* MODDIR is a mod's own folder in a folder of this name
				  * (matched without case, as the game's file system does) */
	const char *to;          /* the layout copy-ups are written in (a name of layouts)
				  * unless --to, or the mod folder's own files, choose another */
};

/* A choice to_yaml offers (`animfs decode --NAME`), off by default; it reaches to_yaml as
 * a name in io->opts (io.h), never through a global. */
struct af_codec_opt {
	const char *name; /* "euler" */
	const char *help; /* one line */
};

/* A top-level list (or map) of a codec's documents that a split view cuts into parts
 * (`animfs decode --split`, the mount's --split-over): a part per run of `per`
 * elements (0: one each), or per run of neighbours whose `name` values are equal when
 * group is set. */
struct af_split_key {
	const char *key;  /* the document's top-level key of a block list or map ("objects") */
	const char *name; /* the element's key whose value names its part ("name"), or NULL
			   * (a map's parts are named by their first key) */
	int group;        /* neighbours with the same name value share a part */
	unsigned per;     /* without group: elements a part (0: 1) */
};

struct af_ynode;
typedef int af_encode_fn(const struct af_ynode *root, const struct af_io *io,
			 struct af_buf *out, struct af_diag *d);

struct af_codec {
	const char *name;        /* "diesel-animation"; also the YAML `format:` value */
	const char *description; /* one line for `animfs formats` */
	const char *extensions;  /* "animation" or "PLD PLW EMD": informational */
	unsigned version;        /* bump when the YAML rendering changes (cache key) */
	/* Cheap claim from the base name and up to AF_BID_HEAD first bytes
	 * (n may be smaller for short files). 0 = not mine, higher = surer. */
	int (*bid)(const char *name, const uint8_t *head, size_t n);
	/* bytes -> YAML and YAML -> bytes, each appended to out: 0 (to_yaml: or
	 * AF_VIEW_READONLY, with the whole view in out), or a negative AF_E* with d saying
	 * why. After a failure out holds exactly what it held on entry: nothing of the
	 * failed call stays (an empty out stays empty); out->failed may be set when memory
	 * ran out. Every codec defines these two with AF_CODEC_GLUE (below), through
	 * af_codec_render and af_codec_encode, which keep that promise; tests/unit/test_codec_contract.c
	 * checks it for every row of the table. */
	int (*to_yaml)(const uint8_t *bin, size_t n, const struct af_io *io,
		       struct af_buf *out, struct af_diag *d);
	int (*from_yaml)(const uint8_t *yaml, size_t n, const struct af_io *io,
			 struct af_buf *out, struct af_diag *d);
	/* to_yaml also reads names from outside the file (sibling name maps, the user
	 * dictionary), so the same bytes may render to other text later: a cache may
	 * keep such a rendering's size only together with its text. */
	int render_uses_names;
	/* Optional: the rendering options to_yaml reads from io->opts, ending with a NULL
	 * name. */
	const struct af_codec_opt *options;
	/* Optional (NULL): the same content in another layout: 0 with out filled,
	 * AF_CONVERT_ALREADY, or AF_E* with d and cv->why set. */
	int (*convert)(const uint8_t *bin, size_t n, struct af_convert *cv, struct af_buf *out,
		       struct af_diag *d);
	/* With convert: the layouts it writes (cv->to, cv->style), ending with a NULL name.
	 * The command line offers, checks and lists these and nothing else. */
	const struct af_layout *layouts;
	/* Optional, with convert: the games' mod folders whose files are this codec's,
	 * ending with a NULL name (`--overlay-layout NAME`). */
	const struct af_overlay_layout *overlay_layouts;
	/* The shape of the documents to_yaml writes and from_yaml reads (schema.h): the
	 * tables the parser checks keys against, so the JSON Schema cannot drift. */
	const struct af_sch *schema;
	/* Optional (NULL: the format has nothing to plot): the curves of a document of this
	 * format, from its YAML alone (root, the parsed document), added to cv (curves.h) in
	 * units a person reads; what does not read is skipped, never an error (a plot shows
	 * what is there). Asks af_curves_wanted before reading an object's keys. 0 or
	 * AF_ENOMEM. */
	int (*curves)(const struct af_ynode *root, struct af_curves *cv);
	/* Optional (NULL: nothing to preview): the skeleton, meshes and animations of a
	 * document of this format, from its YAML alone (root, the parsed document), added to sc
	 * (scene.h) with its units and axes (sc->scale, sc->axes) and a note on what is not
	 * in the file (af_scene_extra). Only the animations af_scene_wanted asks for. What
	 * cannot make a sound preview (a bone list that loops, an index past the vertices,
	 * absurd counts) is AF_EINVAL with d at its line; af_scene_check proves the rest. */
	int (*scene)(const struct af_ynode *root, struct af_scene *sc, struct af_diag *d);
	/* Optional (NULL: the document carries its own skeleton, or none): for a preview
	 * made with the document's siblings at hand (io: its binary's folder or container),
	 * the sibling whose skeleton the document's animation moves, by the codec's own
	 * documented rule: 1 with its name (as io->list_siblings gives it) in name (size
	 * bytes) and the rule and how well it fits, in words, appended to why; 0 when none
	 * fits. Reads siblings through io only; never an error. */
	int (*scene_base)(const struct af_ynode *root, const struct af_io *io, char *name,
			  size_t size, struct af_buf *why);
	/* Optional (with scene; NULL: a glTF cannot come back into this format): the binary
	 * of the document root with the channels of the edits (scene.h, named as the scene
	 * hook names them) re-keyed, quantised in the format's own form and put in place of
	 * the document's, everything else as the document says, appended to out (io: the
	 * document's, as for from_yaml); each edit's report filled. What cannot map (a node
	 * or channel the file has no place for, a value out of its range, keys past the
	 * animation's length) is AF_EINVAL with d saying which. `animfs import`. */
	int (*scene_import)(const struct af_ynode *root, struct af_scene_edit *ed, size_t ned,
			    const struct af_io *io, struct af_buf *out, struct af_diag *d);
	/* Optional (NULL): of the file's animation data, how many bytes to_yaml shows as
	 * named, editable fields (*decoded) and how many it carries as opaque bytes or in
	 * fields it names unknown (*opaque); meshes, textures and other data count in
	 * neither. For `animfs check --coverage`. 0, or AF_E* with d set. */
	int (*coverage)(const uint8_t *bin, size_t n, const struct af_io *io, uint64_t *decoded,
			uint64_t *opaque, struct af_diag *d);
	/* Optional (NULL): the lists a split view cuts into parts, ending with a NULL key
	 * (split.h). With it, from_doc: from_yaml's own pipeline from an already parsed
	 * document (the codec's af_encode_fn), which a split view's join calls with the
	 * parts put together. */
	const struct af_split_key *split;
	af_encode_fn *from_doc;
	/* Optional: whether a blob of len bytes that starts with the n bytes of head can be
	 * one of this format, for what bid cannot tell without the length (a header's size
	 * field larger than the blob). Asked by a container's member check when only the
	 * content made the claim (a member whose name claims it too is the format's, and a
	 * damaged one is said so when it is decoded); NULL: any length. */
	int (*fits)(const uint8_t *head, size_t n, uint64_t len);
};

/* Any codec's rendering option called name, or NULL. */
const struct af_codec_opt *af_codec_option(const char *name);

/* ---- for a codec's descriptor functions: the contract, written once (glue.c) ---- */
/* A codec's own pipeline bytes -> model -> YAML, appending to out (as to_yaml). */
typedef int af_render_fn(const uint8_t *bin, size_t n, const struct af_io *io,
			 struct af_buf *out, struct af_diag *d);
/* af_encode_fn (above): a codec's own pipeline model -> bytes from the parsed document
 * root (kept until it returns), appending to out. */
/* to_yaml: render, with out as on entry after a failure. */
int af_codec_render(af_render_fn *render, const uint8_t *bin, size_t n, const struct af_io *io,
		    struct af_buf *out, struct af_diag *d);
/* from_yaml: the document parsed (errors at line:col), encode, out as on entry after a
 * failure. */
int af_codec_encode(af_encode_fn *encode, const uint8_t *yaml, size_t n, const struct af_io *io,
		    struct af_buf *out, struct af_diag *d);
/* A codec's descriptor functions, written once: defines static p_to_yaml and
 * p_from_yaml from the codec's own p_view (an af_render_fn) and p_from_doc (an
 * af_encode_fn). One line before the descriptor: AF_CODEC_GLUE(rig). */
#define AF_CODEC_GLUE(p)                                                                    \
	static int p##_to_yaml(const uint8_t *bin, size_t n, const struct af_io *io,        \
			       struct af_buf *out, struct af_diag *d)                        \
	{                                                                                   \
		return af_codec_render(p##_view, bin, n, io, out, d);                       \
	}                                                                                   \
	static int p##_from_yaml(const uint8_t *yaml, size_t n, const struct af_io *io,     \
				 struct af_buf *out, struct af_diag *d)                      \
	{                                                                                   \
		return af_codec_encode(p##_from_doc, yaml, n, io, out, d);                  \
	}

/* NULL-terminated table. */
extern const struct af_codec *const af_codecs[];

const struct af_codec *af_codec_bid(const char *name, const uint8_t *head, size_t n);
const struct af_codec *af_codec_by_name(const char *name);
/* The codec named by the document's top-level `format:` key. */
const struct af_codec *af_codec_for_yaml(const uint8_t *yaml, size_t n, struct af_diag *d);
/* The one rule for which codec encodes a save into the binary `name` (a path or a
 * base name), for the mount, package members and the command line alike: the codec
 * that claims the existing binary (claimed), else, for a new binary, one whose
 * extensions list name's extension (any codec when none lists it). The document's
 * `format:` must name that codec; otherwise NULL with d at its line:col (AF_EINVAL). */
const struct af_codec *af_codec_for_save(const struct af_codec *claimed, const char *name,
					 const uint8_t *yaml, size_t n, struct af_diag *d);
/* The JSON Schema of c's documents, appended to out: 0, AF_ENOMEM, or AF_EUNSUP when
 * the codec has none. */
int af_codec_schema(const struct af_codec *c, struct af_buf *out);
/* The first line of a view, before what to_yaml appends: the yaml-language-server
 * modeline "# yaml-language-server: $schema=<schema_dir>/<c->name>.json". Codecs never
 * write it (they know no paths): the caller picks schema_dir, as the editor will resolve
 * it from where the view is (the command line: the installed schemas as a file:// URI;
 * the mount: a path relative to the view, up to VIEW/.animfs/schema). schema_dir NULL
 * or "none": nothing is written. 0 or AF_ENOMEM. */
/* Whether c has a JSON Schema (af_codec_schema would write one). */
int af_codec_has_schema(const struct af_codec *c);
int af_codec_modeline(const struct af_codec *c, const char *schema_dir, struct af_buf *out);
/* c's layout called name (convert's cv->to), or NULL when c converts to none such. */
const struct af_layout *af_codec_layout(const struct af_codec *c, const char *name);
/* The mod folder layout called name of any codec (one walk of the table), its codec in
 * *c; NULL when none has it. */
const struct af_overlay_layout *af_overlay_layout(const char *name, const struct af_codec **c);
/* bin, a file of codec c, rewritten in c's layout to (the convert hook, byte for byte as
 * `animfs convert`): 0 when bin is in that layout now (converted, already in it, or c
 * writes no layout of that name); AF_ENOMEM; or the convert's refusal with *why set (a
 * short reason) and bin as it was. */
int af_codec_relayout(const struct af_codec *c, const char *to, struct af_buf *bin,
		      const char **why, struct af_diag *d);
/* Whether style is one of l's writer styles. */
int af_layout_has_style(const struct af_layout *l, const char *style);
/* The i-th codec (from 0) whose extensions list name's extension, or NULL. */
const struct af_codec *af_codec_for_ext(const char *name, size_t i);

#endif
