/* Jazz chunk kinds (spec 3.4) and the flag/value tables of spec 4.11, with lookups
 * both ways (names are matched case-insensitively when parsing). */
#include <string.h>
#include <strings.h>

#include "jazz.h"

const struct jazz_kind_info jazz_kinds[JZ_NKINDS] = {
	[JZ_SM] = { "S_SM", 0x02D5DF13u, 0x0202, "state_machine", "machine" },
	[JZ_AD] = { "S_AD", 0x02EEDB2Fu, 0x0100, "actor", "actor" },
	[JZ_PD] = { "S_PD", 0x02EEDB46u, 0x0100, "parameter", "parameter" },
	[JZ_ST] = { "S_St", 0x02EEDAFEu, 0x0101, "state", "state" },
	[JZ_DG] = { "S_DG", 0x02EEDB18u, 0x0101, "decision_graph", "graph" },
	[JZ_PLAY] = { "Play", 0x02EEDB5Fu, 0x0105, "play", "play" },
	[JZ_STOP] = { "Stop", 0x0344D438u, 0x0104, "stop", "stop" },
	[JZ_RAND] = { "Rand", 0x02EEDB70u, 0x0101, "random", "random" },
	[JZ_SOPN] = { "SoPn", 0x02EEDB92u, 0x0101, "select_on_parameter", "select" },
	[JZ_DG00] = { "DG00", 0x02EEDBA5u, 0x0101, "select_on_destination", "destination" },
	[JZ_SNSN] = { "SNSN", 0x02EEEBDCu, 0x0101, "next_state", "next_state" },
	[JZ_PROP] = { "Prop", 0x02EEEBDDu, 0x0100, "create_prop", "prop" },
	[JZ_ACOP] = { "AcOp", 0x02EEEBDEu, 0x0100, "actor_operation", "actor_op" },
	[JZ_OPAQUE] = { "????", 0, 0, "opaque", "opaque" },
};

int jazz_kind_of_type(uint32_t type)
{
	for (int k = 0; k < JZ_OPAQUE; k++)
		if (jazz_kinds[k].type == type)
			return k;
	return JZ_OPAQUE;
}

static const struct jazz_enum_item sm_flags[] = {
	{ 0x1, "UnilateralActor" }, { 0x2, "PinAllResources" },
	{ 0x4, "BlendMotionAccumulation" }, { 0x8, "HoldAllPoses" }, { 0, NULL },
};
static const struct jazz_enum_item st_flags[] = {
	{ 0x1, "Public" }, { 0x2, "Entry" }, { 0x4, "Exit" }, { 0x8, "Loop" },
	{ 0x10, "OneShot" }, { 0x20, "OneShotHold" }, { 0x40, "Synchronized" },
	{ 0x80, "Join" }, { 0x100, "Explicit" }, { 0, NULL },
};
/* The timing field (mask 0x60) is a 2-bit value; TimingNormal (0) is never printed. */
static const struct jazz_enum_item anim_flags[] = {
	{ 0x1, "AtEnd" }, { 0x2, "LoopAsNeeded" }, { 0x4, "OverridePriority" },
	{ 0x8, "Mirror" }, { 0x10, "OverrideMirror" },
	{ 0x20, "TimingMaster" }, { 0x40, "TimingSlave" }, { 0x60, "TimingIgnored" },
	{ 0x80, "Interruptible" }, { 0x100, "ForceBlend" }, { 0x200, "UseTimingPriority" },
	{ 0x400, "UseTimingPriorityAsClockMaster" }, { 0x800, "BaseClipIsSocial" },
	{ 0x1000, "AdditiveClipIsSocial" }, { 0x2000, "BaseClipIsObjectOnly" },
	{ 0x4000, "AdditiveClipIsObjectOnly" }, { 0x8000, "HoldPose" },
	{ 0x10000, "BlendMotionAccumulation" }, { 0, NULL },
};
static const struct jazz_enum_item rand_flags[] = { { 0x1, "AvoidRepeats" }, { 0, NULL } };
static const struct jazz_enum_item priority[] = {
	{ 0xFFFFFFFEu, "Default" }, { 0xFFFFFFFFu, "Broadcast" }, { 0, "Unset" },
	{ 6000, "Low" }, { 8000, "LowPlus" }, { 10000, "Normal" }, { 15000, "NormalPlus" },
	{ 17500, "FacialIdle" }, { 20000, "High" }, { 25000, "HighPlus" },
	{ 30000, "CarryRight" }, { 35000, "CarryRightPlus" }, { 40000, "CarryLeft" },
	{ 45000, "CarryLeftPlus" }, { 50000, "Ultra" }, { 55000, "UltraPlus" },
	{ 60000, "LookAt" }, { 0, NULL },
};
static const struct jazz_enum_item awareness[] = {
	{ 0, "ThoughtBubble" }, { 1, "OverlayFace" }, { 2, "OverlayHead" },
	{ 3, "OverlayBothArms" }, { 4, "OverlayUpperbody" }, { 5, "OverlayNone" },
	{ 6, "Unset" }, { 0, NULL },
};
static const struct jazz_enum_item acop[] = { { 0, "None" }, { 1, "SetMirror" }, { 0, NULL } };

const struct jazz_enum jazz_sm_flags = { "state-machine flag", sm_flags, 0, 1 };
const struct jazz_enum jazz_st_flags = { "state flag", st_flags, 0, 1 };
const struct jazz_enum jazz_anim_flags = { "animation flag", anim_flags, 0x60, 1 };
const struct jazz_enum jazz_rand_flags = { "random flag", rand_flags, 0, 1 };
const struct jazz_enum jazz_priority = { "animation priority", priority, 0, 0 };
const struct jazz_enum jazz_awareness = { "awareness level", awareness, 0, 0 };
const struct jazz_enum jazz_acop_op = { "actor operation", acop, 0, 0 };

const char *jazz_enum_name(const struct jazz_enum *e, uint32_t v)
{
	for (const struct jazz_enum_item *i = e->items; i->name; i++)
		if (i->value == v)
			return i->name;
	return NULL;
}

int jazz_enum_lookup(const struct jazz_enum *e, const char *name, size_t n, uint32_t *v)
{
	for (const struct jazz_enum_item *i = e->items; i->name; i++)
		if (strlen(i->name) == n && !strncasecmp(i->name, name, n)) {
			*v = i->value;
			return 0;
		}
	if (e == &jazz_anim_flags && n == 12 && !strncasecmp(name, "TimingNormal", n)) {
		*v = 0;
		return 0;
	}
	return -1;
}

#define F(n, s, t, o, d, e) { n, s, JZ_FT_##t, o, d, e }
#define END { NULL, 0, 0, 0, 0, NULL }
#define ANIM_COMMON                                                              \
	F("flags", 3, FLAGS, 0, 0x1, &jazz_anim_flags),                             \
	F("priority", 4, ENUM, 0, 10000, &jazz_priority),                           \
	F("timing_priority", 10, ENUM, 0, 10000, &jazz_priority),                   \
	F("blend_in_time", 6, F32, 0, 0, NULL),                                   \
	F("blend_out_time", 7, F32, 0, 0, NULL),                                  \
	F("speed", 9, F32, 0, 0x3F800000u, NULL)
#define SIXTEEN(a, s) /* the (16, 0, 0, 0, 0, 0) run of Play and Stop */       \
	F("unknown" #a, s, U32, 1, 16, NULL)

static const struct jazz_field f_sm[] = {
	F("name", 0, H32, 0, 0, NULL),
	F("flags", 1, FLAGS, 0, 0x1, &jazz_sm_flags),
	F("default_priority", 2, ENUM, 0, 10000, &jazz_priority),
	F("awareness_overlay_level", 3, ENUM, 0, 2, &jazz_awareness),
	F("unknown2", 4, U32, 1, 0, NULL), F("unknown3", 5, U32, 1, 0, NULL),
	F("unknown4", 6, U32, 1, 0, NULL), F("unknown5", 7, U32, 1, 0, NULL), END,
};
static const struct jazz_field f_ad[] = {
	F("name", 0, H32, 0, 0, NULL), F("unknown1", 1, U32, 1, 0, NULL), END,
};
static const struct jazz_field f_pd[] = {
	F("name", 0, H32, 0, 0, NULL), F("default_value", 1, H32, 0, 0, NULL), END,
};
static const struct jazz_field f_st[] = {
	F("name", 0, H32, 0, 0, NULL), F("flags", 1, FLAGS, 0, 0, &jazz_st_flags),
	F("awareness_overlay_level", 2, ENUM, 1, 6, &jazz_awareness), END,
};
static const struct jazz_field f_dg[] = { F("unknown1", 0, U32, 1, 0, NULL), END };
static const struct jazz_field f_play[] = {
	ANIM_COMMON,
	F("unknown1", 0, U32, 1, 0, NULL), F("unknown2", 1, U32, 1, 0, NULL),
	F("unknown3", 2, U32, 1, 0, NULL), F("unknown9", 5, F32, 1, 0, NULL),
	F("unknown11", 8, F32, 1, 0, NULL), SIXTEEN(13, 11),
	F("unknown14", 12, U32, 1, 0, NULL), F("unknown15", 13, U32, 1, 0, NULL),
	F("unknown16", 14, U32, 1, 0, NULL), F("unknown17", 15, U32, 1, 0, NULL),
	F("unknown18", 16, U32, 1, 0, NULL), END,
};
static const struct jazz_field f_stop[] = {
	ANIM_COMMON,
	F("unknown1", 5, F32, 1, 0, NULL), F("unknown4", 8, F32, 1, 0, NULL), SIXTEEN(6, 11),
	F("unknown7", 12, U32, 1, 0, NULL), F("unknown8", 13, U32, 1, 0, NULL),
	F("unknown9", 14, U32, 1, 0, NULL), F("unknown10", 15, U32, 1, 0, NULL),
	F("unknown11", 16, U32, 1, 0, NULL), END,
};
static const struct jazz_field f_rand[] = { F("flags", 0, FLAGS, 0, 0, &jazz_rand_flags), END };
static const struct jazz_field f_prop[] = {
	F("unknown2", 0, U32, 1, 0, NULL), F("unknown3", 1, U32, 1, 0, NULL),
	F("unknown4", 2, U32, 1, 0, NULL), F("unknown5", 3, U32, 1, 0, NULL), END,
};
static const struct jazz_field f_acop[] = {
	F("operation", 0, ENUM, 0, 1, &jazz_acop_op), F("operand", 1, U32, 0, 0, NULL),
	F("unknown1", 2, U32, 1, 0, NULL), F("unknown2", 3, U32, 1, 0, NULL),
	F("unknown3", 4, U32, 1, 0, NULL), END,
};
static const struct jazz_field f_none[] = { END };

const struct jazz_field *const jazz_fields[JZ_NKINDS] = {
	[JZ_SM] = f_sm, [JZ_AD] = f_ad, [JZ_PD] = f_pd, [JZ_ST] = f_st, [JZ_DG] = f_dg,
	[JZ_PLAY] = f_play, [JZ_STOP] = f_stop, [JZ_RAND] = f_rand, [JZ_SOPN] = f_none,
	[JZ_DG00] = f_none, [JZ_SNSN] = f_none, [JZ_PROP] = f_prop, [JZ_ACOP] = f_acop,
	[JZ_OPAQUE] = f_none,
};
