/* Every private header of the mount, for the unit tests of src/fs (tests/unit): the
 * modules themselves include only the headers of what they use (docs/HACKING.md,
 * "The mount's modules", gives their order). */
#ifndef ANIMFS_FS_INT_H
#define ANIMFS_FS_INT_H

#include "binary.h"
#include "commit.h"
#include "dest.h"
#include "errlog.h"
#include "folder.h"
#include "ghost.h"
#include "handle.h"
#include "hidden.h"
#include "ns.h"
#include "overlay.h"
#include "prefetch.h"
#include "pristine.h"
#include "render.h"
#include "res.h"
#include "scratch.h"
#include "session.h"
#include "splitview.h"
#include "sweep.h"
#include "view.h"
#include "who.h"

#endif
