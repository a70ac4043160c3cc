/* Names a person reads instead of numbers: the bones of the skeletons the spec names
 * (re-pld.md 5.2 and 5.8) and the frame flags it reads (4.1). Both are spellings only:
 * a bone is its position in the list and a flag its value, so nothing here changes a
 * byte. The emitter shows them, the parser reads flag names back, re_schema.c lists them. */
#include <string.h>

#include "re.h"

/* Spec 5.2: RE3 humans. "RE3 has no separate head bone": bone 1 carries it. */
static const int human3_parent[] = { -1, 0, 0, 2, 3, 0, 5, 6, 0, 8, 9, 10, 8, 12, 13 };
static const char *const human3_name[] = {
	"hips", "torso_head", "right_shoulder", "right_elbow", "right_wrist",
	"left_shoulder", "left_elbow", "left_wrist", "pelvis", "right_thigh", "right_shin",
	"right_foot", "left_thigh", "left_shin", "left_foot",
};
/* Spec 5.8: the lower-body overlay maps its bones 0, 1..3, 4..6 to the PLD's 0, 9..11,
 * 12..14. */
static const int lower3_parent[] = { -1, 0, 1, 2, 0, 4, 5 };
static const char *const lower3_name[] = {
	"hips", "right_thigh", "right_shin", "right_foot", "left_thigh", "left_shin", "left_foot",
};

static int same_parents(const struct re_emr *m, const int *want, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (m->parent[i] != want[i])
			return 0;
	return 1;
}

/* A known skeleton is told by game, bone count and parent table; a header-only RE3
 * bank of 15 bones animates the PLD's human skeleton. RE2 skeletons are not named by
 * the spec (and the RE2 PLD's bone 1, which it calls the torso, sits where the RE3
 * pelvis does), so they get no names. */
const char *const *re_bone_names(unsigned game, const struct re_emr *m)
{
	if (game != RE_GAME3 || m->empty)
		return NULL;
	if (m->nbones == 15 && (!m->has_skeleton || same_parents(m, human3_parent, 15)))
		return human3_name;
	if (m->nbones == 7 && m->has_skeleton && same_parents(m, lower3_parent, 7))
		return lower3_name;
	return NULL;
}

#define RE2_BIT (1u << RE_GAME2)
#define RE3_BIT (1u << RE_GAME3)

const struct re_flag_name re_flag_names[] = {
	{ 0x00, RE2_BIT | RE3_BIT, "none", "no flag (0)" },
	{ 0x02, RE3_BIT, "footfall",
	  "RE3 0x02: in the PLD's walk (sequence 0) the first of its two flagged frames, which "
	  "the RE3 decompilation notes read as footfalls; other sequences flag runs of frames "
	  "with it. Likely, not proven" },
	{ 0x06, RE3_BIT, "footfall2",
	  "RE3 0x06: the walk's second footfall (see footfall). Likely, not proven" },
	{ 0, 0, NULL, NULL },
};

const char *re_flag_name(unsigned game, uint32_t value)
{
	for (const struct re_flag_name *f = re_flag_names; f->name; f++)
		if (f->value == value && (f->games & 1u << game))
			return f->name;
	return NULL;
}

const struct re_flag_name *re_flag_by_name(const char *name)
{
	for (const struct re_flag_name *f = re_flag_names; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}
